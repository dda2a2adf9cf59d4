//===- TraceImporter.cpp - Trace -> tg dialect module ---------------------===//
#include "tg/Frontend/TraceImporter.h"

#include "tg/Dialect/BufferAssignment.h"
#include "tg/Dialect/HostElements.h"
#include "tg/Dialect/OpDescription.h"
#include "tg/Dialect/TgOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace tg::detail {

static Location locationOf(MLIRContext& context, const SourceLoc& loc) {
  if (!loc.known()) return UnknownLoc::get(&context);
  Location file = FileLineColLoc::get(&context, loc.file, loc.line, 0);
  if (loc.function.empty()) return file;
  return NameLoc::get(StringAttr::get(&context, loc.function), file);
}

OwningOpRef<ModuleOp> importTrace(const Trace& trace, MLIRContext& context,
                                  llvm::StringRef funcName) {
  OpBuilder b(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToEnd(module->getBody());

  // Arguments in input order: the call's arguments, then captured tensors.
  size_t numInputs = trace.numArgs + trace.captures.size();
  SmallVector<Type> argTypes(numInputs);
  for (const TraceNode& node : trace.nodes)
    if (node.kind == graph::OpKind::Input)
      argTypes[node.inputIndex] = ir::tensorTypeOf(&context, node.type);
  SmallVector<Type> resultTypes;
  for (int out : trace.outputs)
    resultTypes.push_back(ir::tensorTypeOf(&context, trace.nodes[out].type));

  auto func = func::FuncOp::create(b, b.getUnknownLoc(), funcName,
                                   b.getFunctionType(argTypes, resultTypes));
  for (int d : trace.donated)
    if (d >= 0 && static_cast<size_t>(d) < trace.numArgs) func.setArgAttr(d, kDonatedAttr, b.getUnitAttr());
  Block* entry = func.addEntryBlock();
  b.setInsertionPointToEnd(entry);

  std::vector<Value> values(trace.nodes.size());
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    const TraceNode& node = trace.nodes[i];
    Location loc = locationOf(context, node.loc);
    if (node.kind == graph::OpKind::Input) {
      values[i] = entry->getArgument(node.inputIndex);
      continue;
    }
    if (node.kind == graph::OpKind::Constant) {
      RankedTensorType type = ir::tensorTypeOf(&context, node.type);
      values[i] = ir::ConstantOp::create(b, loc, ir::elementsFromHost(node.constant, type, node.splat));
      continue;
    }
    SmallVector<Value> operands;
    for (int o : node.operands) operands.push_back(values[o]);
    values[i] = ir::createOp(b, loc, node.kind, node.attrs, operands, node.type);
  }
  SmallVector<Value> results;
  for (int out : trace.outputs) results.push_back(values[out]);
  func::ReturnOp::create(b, b.getUnknownLoc(), results);
  return module;
}

}  // namespace tg::detail
