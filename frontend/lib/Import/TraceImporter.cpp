//===- TraceImporter.cpp - Trace -> tg dialect module ---------------------===//
#include "tg/Frontend/TraceImporter.h"

#include "tg/Dialect/BufferAssignment.h"
#include "tg/Dialect/HostElements.h"
#include "tg/Compiler/Context.h"
#include "tg/Dialect/OpDescription.h"
#include "tg/Dialect/SymbolicTypes.h"
#include "tg/Frontend/SymbolicTrace.h"
#include "tg/Dialect/TgOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"

#include <functional>

using namespace mlir;

namespace tg::detail {

namespace {

Location locationOf(MLIRContext& context, const SourceLoc& loc) {
  if (!loc.known()) return UnknownLoc::get(&context);
  Location file = FileLineColLoc::get(&context, loc.file, loc.line, 0);
  if (loc.function.empty()) return file;
  return NameLoc::get(StringAttr::get(&context, loc.function), file);
}

/// `func.func @funcName` in `module` for `trace`, with node n's type `typeOfNode(n)`: arguments
/// in input order (the call's arguments, then captured tensors), the donated ones marked, the
/// results; `b` is left at the end of its entry block.
func::FuncOp createFunction(OpBuilder& b, ModuleOp module, const Trace& trace, llvm::StringRef funcName,
                            const std::function<Type(size_t)>& typeOfNode) {
  b.setInsertionPointToEnd(module.getBody());
  SmallVector<Type> argTypes(trace.numArgs + trace.captures.size());
  for (size_t i = 0; i < trace.nodes.size(); ++i)
    if (trace.nodes[i].kind == graph::OpKind::Input) argTypes[trace.nodes[i].inputIndex] = typeOfNode(i);
  SmallVector<Type> resultTypes;
  for (int out : trace.outputs) resultTypes.push_back(typeOfNode(static_cast<size_t>(out)));
  auto func = func::FuncOp::create(b, b.getUnknownLoc(), funcName, b.getFunctionType(argTypes, resultTypes));
  for (int d : trace.donated)
    if (d >= 0 && static_cast<size_t>(d) < trace.numArgs) func.setArgAttr(d, kDonatedAttr, b.getUnitAttr());
  b.setInsertionPointToEnd(func.addEntryBlock());
  return func;
}

}  // namespace

OwningOpRef<ModuleOp> importTrace(const Trace& trace, MLIRContext& context,
                                  llvm::StringRef funcName) {
  OpBuilder b(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc());
  auto func = createFunction(b, *module, trace, funcName,
                             [&](size_t n) -> Type { return ir::tensorTypeOf(&context, trace.nodes[n].type); });
  Block* entry = &func.getBody().front();

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

OwningOpRef<ModuleOp> importSymbolicTrace(const SymbolicTrace& st, MLIRContext& context, llvm::StringRef funcName,
                                          std::string& whyNot) {
  const Trace& trace = st.trace;
  auto typeOfNode = [&](size_t n) {
    return ir::symbolicTensorType(&context, trace.nodes[n].type.dtype, st.nodes[n].dims, st.names);
  };
  OpBuilder b(&context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getUnknownLoc());
  auto func = createFunction(b, *module, trace, funcName, [&](size_t n) -> Type { return typeOfNode(n); });
  SmallVector<Attribute> symbols;
  for (size_t s = 0; s < st.names.size(); ++s)
    symbols.push_back(ir::SymbolAttr::get(&context, st.names[s], st.min[s], st.max[s]));
  func->setAttr(ir::kSymbolsAttr, b.getArrayAttr(symbols));
  Block* entry = &func.getBody().front();
  std::vector<Value> values(trace.nodes.size());
  for (size_t i = 0; i < trace.nodes.size(); ++i) {
    const TraceNode& node = trace.nodes[i];
    const SymbolicNode& sym = st.nodes[i];
    Location loc = locationOf(context, node.loc);
    if (node.kind == graph::OpKind::Input) {
      values[i] = entry->getArgument(node.inputIndex);
      continue;
    }
    RankedTensorType type = typeOfNode(i);
    if (node.kind == graph::OpKind::Constant && sym.value && !sym.value->isConstant()) {
      // A splat of a size (`pos + T`): the size as a scalar, broadcast to the constant's type.
      RankedTensorType scalar = RankedTensorType::get({}, type.getElementType());
      const SizeExpr value[] = {*sym.value};
      Value size = ir::SizeOp::create(b, loc, scalar, ir::SizesAttr::get(&context, value, st.names));
      graph::OpAttrs attrs;
      values[i] = type.getRank() == 0 ? size : ir::createOp(b, loc, graph::OpKind::Broadcast, attrs, size, type);
      continue;
    }
    if (node.kind == graph::OpKind::Constant) {
      if (!ir::isSymbolic(type)) {
        values[i] = ir::ConstantOp::create(b, loc, ir::elementsFromHost(node.constant, type, node.splat));
      } else {  // a splat over symbolic dims: one element, broadcast
        RankedTensorType scalar = RankedTensorType::get({}, type.getElementType());
        Value one = ir::ConstantOp::create(b, loc, ir::elementsFromHost(node.constant, scalar, true));
        graph::OpAttrs attrs;
        values[i] = ir::createOp(b, loc, graph::OpKind::Broadcast, attrs, one, type);
      }
      continue;
    }
    SmallVector<Value> operands;
    for (int o : node.operands) operands.push_back(values[o]);
    values[i] = ir::createOp(b, loc, node.kind, node.attrs, operands, type);
    // Slice bounds and update offsets that depend on symbols: `?` in the integers, and the sizes.
    auto symbolicList = [&](const std::vector<SizeExpr>& list, DenseI64ArrayAttr& ints, ir::SizesAttr& sizes) {
      auto [listInts, listSizes] = ir::symbolicListAttrs(&context, list, st.names);
      if (!listSizes) return;
      ints = listInts;
      sizes = listSizes;
    };
    if (auto slice = values[i].getDefiningOp<ir::SliceOp>()) {
      DenseI64ArrayAttr starts = slice.getStartsAttr(), limits = slice.getLimitsAttr(), steps = slice.getStepsAttr();
      ir::SizesAttr symStarts, symLimits, symSteps;
      symbolicList(sym.starts, starts, symStarts);
      symbolicList(sym.limits, limits, symLimits);
      symbolicList(sym.steps, steps, symSteps);
      slice.setStartsAttr(starts);
      slice.setLimitsAttr(limits);
      slice.setStepsAttr(steps);
      if (symStarts) slice.setSymStartsAttr(symStarts);
      if (symLimits) slice.setSymLimitsAttr(symLimits);
      if (symSteps) slice.setSymStepsAttr(symSteps);
    } else if (auto update = values[i].getDefiningOp<ir::DynamicUpdateSliceOp>()) {
      DenseI64ArrayAttr offsets = update.getOffsetsAttr();
      ir::SizesAttr symOffsets;
      symbolicList(sym.starts, offsets, symOffsets);
      update.setOffsetsAttr(offsets);
      if (symOffsets) update.setSymOffsetsAttr(symOffsets);
    }
  }
  SmallVector<Value> results;
  for (int out : trace.outputs) results.push_back(values[out]);
  func::ReturnOp::create(b, b.getUnknownLoc(), results);
  compiler::DiagnosticCollector diagnostics(context);
  if (failed(verify(*module))) {
    whyNot = "the symbolic IR does not verify: " + diagnostics.text();
    return nullptr;
  }
  return module;
}

}  // namespace tg::detail
