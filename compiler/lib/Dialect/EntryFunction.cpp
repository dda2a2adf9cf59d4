//===- EntryFunction.cpp - The checks of the front door -------------------===//
#include "tg/Dialect/EntryFunction.h"

#include "tg/Dialect/OpDescription.h"
#include "tg/Dialect/SymbolicTypes.h"
#include "tg/Dialect/TgDialect.h"

using namespace mlir;

namespace tg::ir {

LogicalResult verifyTgFunction(func::FuncOp func) {
  if (func.isExternal())
    return func.emitOpError("is a declaration: tg compiles functions with a body");
  if (!func.getBody().hasOneBlock())
    return func.emitOpError("must have a body of one block");
  // Dynamic dims (SymbolicTypes.h): a function with tg.symbols may take and return tensors
  // with #tg.sizes types (the dialect's verifier checked the symbols and every op on them);
  // a #tg.sizes type in a function without tg.symbols is refused.
  std::string symbolsError;
  const bool symbolic = symbolsOf(func, symbolsError).has_value();
  if (!symbolsError.empty()) return func.emitOpError(symbolsError);
  auto whyNot = [&](Type t) { return symbolic && isSymbolic(t) ? whyNotSymbolicTgTensor(t) : whyNotTgTensor(t); };
  FunctionType type = func.getFunctionType();
  for (auto [i, t] : llvm::enumerate(type.getInputs()))
    if (std::string why = whyNot(t); !why.empty())
      return func.emitOpError("argument ") << i << " is not a tg tensor: " << why;
  for (auto [i, t] : llvm::enumerate(type.getResults()))
    if (std::string why = whyNot(t); !why.empty())
      return func.emitOpError("result ") << i << " is not a tg tensor: " << why;
  for (Operation& op : func.getBody().front())
    if (!isa<TgDialect>(op.getDialect()) && !isa<func::ReturnOp>(op))
      return op.emitOpError("is not a tg op: a tg function holds tg ops and its func.return");
  return success();
}

FailureOr<func::FuncOp> entryFunction(ModuleOp module) {
  func::FuncOp entry;
  for (Operation& op : module.getBody()->getOperations()) {
    auto func = dyn_cast<func::FuncOp>(op);
    if (!func)
      return op.emitOpError("is not a func.func: a tg module holds exactly one function");
    if (entry)
      return module.emitOpError("holds more than one func.func (@")
                 << entry.getSymName() << " and @" << func.getSymName()
                 << "): tg compiles one function at a time";
    entry = func;
  }
  if (!entry) return module.emitOpError("holds no func.func: nothing to compile");
  if (failed(verifyTgFunction(entry))) return failure();
  return entry;
}

FailureOr<Block*> tgFunctionBody(func::FuncOp func) {
  if (func.isExternal()) return static_cast<Block*>(nullptr);
  if (failed(verifyTgFunction(func))) return failure();
  return &func.getBody().front();
}

}  // namespace tg::ir
