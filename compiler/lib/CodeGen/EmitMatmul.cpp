//===- EmitMatmul.cpp - CUDA C++ for a gemm tg.fusion (the simt path) -----===//
//
// Dispatches on the `#tg.matmul` path (tg-select-matmul): `wgmma`, `mma_sync`, `gemv` and `gemv_mma` have
// emitters of their own; this file emits the `simt` kernel (templates/matmul_simt.cuh) and holds the pieces the
// emitters share.
//
//===----------------------------------------------------------------------===//
#include "GemmEmission.h"
#include "KernelEmission.h"
#include "ScalarMath.h"

#include "tg/Dialect/LayoutChain.h"

#include <sstream>

using namespace mlir;

namespace tg::codegen {

int operandInput(Value v, DType dtype, bool windows, int64_t& offset, int64_t& view) {
  // Operands are kernel inputs, possibly through reshapes (same bytes) or a contiguous window
  // of one (an element offset). The launch takes the offset in a view of the input where the
  // input is read by nothing else and the offset allows (viewPart); the gemv paths take the
  // rest in their code, the other paths only windows a view holds whole.
  LayoutChain chain = traceLayout(v);
  auto arg = dyn_cast<BlockArgument>(chain.root);
  if (!arg) return -1;
  if (chain.linear) return static_cast<int>(arg.getArgNumber());
  std::optional<int64_t> window = contiguousWindowOffset(chain);
  if (!window) return -1;
  // Only the matmul reads the input, through this chain alone: another reader would index it
  // from the buffer's own address.
  const bool alone = arg.hasOneUse() && llvm::all_of(chain.ops, [](Operation* op) { return op->hasOneUse(); });
  const int64_t inView = alone ? viewPart(*window, static_cast<int64_t>(dtype_size(dtype))) : 0;
  if (!windows && inView != *window) return -1;
  offset = *window - inView;
  view = inView;
  return static_cast<int>(arg.getArgNumber());
}

FailureOr<GemmProblem> gemmProblem(ir::FusionOp fusion, ir::MatmulOp mm, bool windows) {
  const DType dtype = dtypeOfValue(mm.getA());
  auto inputIndex = [&](Value v, int64_t& offset, int64_t& view) {
    return operandInput(v, dtype, windows, offset, view);
  };
  GemmProblem p;
  p.inputA = inputIndex(mm.getA(), p.offsetA, p.viewA);
  p.inputB = inputIndex(mm.getB(), p.offsetB, p.viewB);
  if (p.inputA < 0 || p.inputB < 0)
    return fusion.emitOpError("matmul operands must be contiguous inputs");
  if (p.inputA == p.inputB && p.viewA != p.viewB)  // one value read as both: one view
    return fusion.emitOpError("matmul operands read one input through two views");
  auto ta = cast<RankedTensorType>(mm.getA().getType()), tb = cast<RankedTensorType>(mm.getB().getType());
  auto tc = cast<RankedTensorType>(mm.getType());
  const int64_t ra = ta.getRank(), rb = tb.getRank(), rc = tc.getRank();
  p.transA = mm.getTransposeA();
  p.transB = mm.getTransposeB();
  p.m = tc.getShape()[rc - 2];
  p.n = tc.getShape()[rc - 1];
  p.k = p.transA ? ta.getShape()[ra - 2] : ta.getShape()[ra - 1];
  // Over dynamic dims (a `?` extent) the counts below are the caller's to compute from the
  // symbols (emitMatmulWgmma): 0 here, never arithmetic on ShapedType::kDynamic.
  const bool fixed = ta.hasStaticShape() && tb.hasStaticShape() && tc.hasStaticShape();
  p.batch = fixed ? tc.getNumElements() / std::max<int64_t>(1, p.m * p.n) : 0;
  p.batchStrideA = ra == 2 || !fixed ? 0 : ta.getShape()[ra - 2] * ta.getShape()[ra - 1];
  p.batchStrideB = rb == 2 || !fixed ? 0 : tb.getShape()[rb - 2] * tb.getShape()[rb - 1];
  p.dtype = dtype;
  return p;
}

void addOperandViews(const GemmProblem& p, ir::FusionOp fusion, KernelEmission& e) {
  if (!p.viewA && !p.viewB) return;
  e.argumentByteOffsets.assign(fusion.getNumOperands() + fusion.getNumResults(), 0);
  const auto bytes = static_cast<int64_t>(dtype_size(p.dtype));
  e.argumentByteOffsets[p.inputA] = p.viewA * bytes;
  e.argumentByteOffsets[p.inputB] = p.viewB * bytes;
}

std::string gemmBodyPointers(ir::FusionOp fusion) {
  std::ostringstream os;
  for (unsigned i = 0; i < fusion.getNumOperands(); ++i)
    os << "  const " << storageType(dtypeOfValue(fusion.getBody().getArgument(i))) << "* __restrict__ in"
       << i << ";\n";
  for (unsigned j = 0; j < fusion.getNumResults(); ++j)
    os << "  " << storageType(dtypeOfValue(fusion.getResult(j))) << "* __restrict__ out" << j << ";\n";
  return os.str();
}

int gemmEpilogueOps(ir::FusionOp fusion) {
  int ops = 0;
  for (Operation& op : fusion.getBody().front())
    if (!isLayoutOp(&op) && !isa<ir::ConstantOp, ir::YieldOp, ir::MatmulOp>(op)) ++ops;
  return ops;
}

FailureOr<KernelEmission> emitMatmul(ir::FusionOp fusion, const std::string& name,
                                     const CodeGenOptions& options, const SymbolicSizes* symbolic,
                                     ir::MatmulConfigAttr config) {
  ir::MatmulOp mm;
  fusion.getBody().walk([&](ir::MatmulOp m) { mm = m; });
  if (!mm) return fusion.emitOpError("gemm kernels hold one matmul");
  if (!config) config = fusion.getMatmulAttr();
  if (!config) return fusion.emitOpError("has no matmul configuration: run tg-select-matmul first");
  if (config.getPath() == ir::MatmulPath::wgmma) return emitMatmulWgmma(fusion, mm, config, name, options, symbolic);
  if (symbolic)
    return fusion.emitOpError("is a matmul over dynamic dims on the ")
           << ir::stringifyMatmulPath(config.getPath()) << " path; only the wgmma path is generated over them";
  if (config.getPath() == ir::MatmulPath::mma_sync) return emitMatmulMma(fusion, mm, config, name, options);
  if (config.getPath() == ir::MatmulPath::gemv || config.getPath() == ir::MatmulPath::gemv_mma)
    return emitMatmulGemv(fusion, mm, config, name, options);
  DenseI64ArrayAttr tile = config.getTile();
  FailureOr<GemmProblem> problem = gemmProblem(fusion, mm);
  if (failed(problem)) return failure();
  const GemmProblem& p = *problem;
  const int64_t M = p.m, N = p.n, K = p.k;

  auto offA = std::string(p.transA ? "k * " + std::to_string(M) + "ll + m" : "m * " + std::to_string(K) + "ll + k");
  auto offB = std::string(p.transB ? "n * " + std::to_string(K) + "ll + k" : "k * " + std::to_string(N) + "ll + n");
  std::ostringstream os;
  os << "struct TgBody {\n";
  os << "  static constexpr long long kM = " << M << "ll, kN = " << N << "ll, kK = " << K
     << "ll, kBatch = " << p.batch << "ll;\n";
  os << gemmBodyPointers(fusion);
  os << "  __device__ __forceinline__ float loadA(long long b, long long m, long long k) const {\n"
     << "    return (m < kM && k < kK) ? (float)"
     << loadConvert(p.dtype, "in" + std::to_string(p.inputA) + "[b * " + std::to_string(p.batchStrideA) +
                                 "ll + " + offA + "]")
     << " : 0.0f;\n  }\n";
  os << "  __device__ __forceinline__ float loadB(long long b, long long k, long long n) const {\n"
     << "    return (k < kK && n < kN) ? (float)"
     << loadConvert(p.dtype, "in" + std::to_string(p.inputB) + "[b * " + std::to_string(p.batchStrideB) +
                                 "ll + " + offB + "]")
     << " : 0.0f;\n  }\n";
  FailureOr<std::string> epilogue = emitGemmEpilogue(fusion, mm, options);
  if (failed(epilogue)) return failure();
  os << *epilogue << "};\n";

  int64_t bm = tile[0], bn = tile[1], bk = tile[2];
  std::ostringstream summary;
  summary << "gemm (simt, tile " << bm << "x" << bn << "x" << bk << "): " << p.batch << " x [" << M
          << " x " << K << "] @ [" << K << " x " << N << "]" << (p.transA ? " A^T" : "")
          << (p.transB ? " B^T" : "");
  KernelEmission e;
  e.kernel.name = name;
  e.kernel.summary = summary.str();
  e.kernel.source = kernelHeader(name, summary.str()) + "#define TG_BM " + std::to_string(bm) +
                    "\n#define TG_BN " + std::to_string(bn) + "\n#define TG_BK " +
                    std::to_string(bk) + "\n" + os.str() + matmulSimtTemplate();
  addOperandViews(p, fusion, e);
  if (failed(setGrid(e, fusion, (N + bn - 1) / bn, (M + bm - 1) / bm, p.batch))) return failure();
  e.dims.block[0] = 256;
  return e;
}

}  // namespace tg::codegen
