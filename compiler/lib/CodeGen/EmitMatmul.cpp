//===- EmitMatmul.cpp - CUDA C++ for a gemm tg.fusion (the simt path) -----===//
#include "GemmEmission.h"
#include "KernelEmission.h"
#include "ScalarMath.h"

#include "tg/Transforms/LayoutChain.h"

#include <sstream>

using namespace mlir;

namespace tg::codegen {

FailureOr<KernelEmission> emitMatmul(ir::FusionOp fusion, const std::string& name,
                                     const CodeGenOptions& options) {
  ir::MatmulOp mm;
  fusion.getBody().walk([&](ir::MatmulOp m) { mm = m; });
  if (!mm) return fusion.emitOpError("gemm kernels hold one matmul");
  auto path = fusion->getAttrOfType<StringAttr>("tg.path");
  if (path && path.getValue() == "wgmma") return emitMatmulWgmma(fusion, mm, name, options);

  auto tile = fusion->getAttrOfType<DenseI64ArrayAttr>("tg.tile");
  if (!tile || tile.size() != 3) return fusion.emitOpError("has no tile: run tg-lower-matmul first");
  // Operands are kernel inputs, possibly through reshapes (same bytes).
  auto inputIndex = [&](Value v) -> int {
    LayoutChain chain = traceLayout(v);
    auto arg = dyn_cast<BlockArgument>(chain.root);
    return (arg && chain.linear) ? static_cast<int>(arg.getArgNumber()) : -1;
  };
  int ia = inputIndex(mm.getA()), ib = inputIndex(mm.getB());
  if (ia < 0 || ib < 0) return fusion.emitOpError("matmul operands must be contiguous inputs");
  auto ta = cast<RankedTensorType>(mm.getA().getType()), tb = cast<RankedTensorType>(mm.getB().getType());
  auto tc = cast<RankedTensorType>(mm.getType());
  int64_t ra = ta.getRank(), rb = tb.getRank(), rc = tc.getRank();
  int64_t M = tc.getShape()[rc - 2], N = tc.getShape()[rc - 1];
  int64_t K = mm.getTransposeA() ? ta.getShape()[ra - 2] : ta.getShape()[ra - 1];
  int64_t batch = tc.getNumElements() / std::max<int64_t>(1, M * N);
  int64_t strideA = ra == 2 ? 0 : ta.getShape()[ra - 2] * ta.getShape()[ra - 1];
  int64_t strideB = rb == 2 ? 0 : tb.getShape()[rb - 2] * tb.getShape()[rb - 1];
  DType dt = dtypeOfValue(mm.getA());

  auto offA = std::string(mm.getTransposeA() ? "k * " + std::to_string(M) + "ll + m"
                                             : "m * " + std::to_string(K) + "ll + k");
  auto offB = std::string(mm.getTransposeB() ? "n * " + std::to_string(K) + "ll + k"
                                             : "k * " + std::to_string(N) + "ll + n");
  std::ostringstream os;
  os << "struct TgBody {\n";
  os << "  static constexpr long long kM = " << M << "ll, kN = " << N << "ll, kK = " << K
     << "ll, kBatch = " << batch << "ll;\n";
  std::vector<std::string> ptrs(fusion.getNumOperands());
  for (unsigned i = 0; i < fusion.getNumOperands(); ++i)
    os << "  const " << storageType(dtypeOfValue(fusion.getBody().getArgument(i))) << "* __restrict__ in"
       << i << ";\n";
  for (unsigned j = 0; j < fusion.getNumResults(); ++j)
    os << "  " << storageType(dtypeOfValue(fusion.getResult(j))) << "* __restrict__ out" << j << ";\n";
  os << "  __device__ __forceinline__ float loadA(long long b, long long m, long long k) const {\n"
     << "    return (m < kM && k < kK) ? (float)" << loadConvert(dt, "in" + std::to_string(ia) + "[b * " +
                                                             std::to_string(strideA) + "ll + " + offA + "]")
     << " : 0.0f;\n  }\n";
  os << "  __device__ __forceinline__ float loadB(long long b, long long k, long long n) const {\n"
     << "    return (k < kK && n < kN) ? (float)" << loadConvert(dt, "in" + std::to_string(ib) + "[b * " +
                                                             std::to_string(strideB) + "ll + " + offB + "]")
     << " : 0.0f;\n  }\n";
  FailureOr<std::string> epilogue = emitGemmEpilogue(fusion, mm, options);
  if (failed(epilogue)) return failure();
  os << *epilogue << "};\n";

  int64_t bm = tile[0], bn = tile[1], bk = tile[2];
  std::ostringstream summary;
  summary << "gemm (simt, tile " << bm << "x" << bn << "x" << bk << "): " << batch << " x [" << M
          << " x " << K << "] @ [" << K << " x " << N << "]"
          << (mm.getTransposeA() ? " A^T" : "") << (mm.getTransposeB() ? " B^T" : "");
  KernelEmission e;
  e.kernel.name = name;
  e.kernel.summary = summary.str();
  e.kernel.source = kernelHeader(name, summary.str()) + "#define TG_BM " + std::to_string(bm) +
                    "\n#define TG_BN " + std::to_string(bn) + "\n#define TG_BK " +
                    std::to_string(bk) + "\n" + os.str() + matmulSimtTemplate();
  e.dims.grid[0] = static_cast<uint32_t>((N + bn - 1) / bn);
  e.dims.grid[1] = static_cast<uint32_t>((M + bm - 1) / bm);
  e.dims.grid[2] = static_cast<uint32_t>(batch);
  e.dims.block[0] = 256;
  return e;
}

}  // namespace tg::codegen
