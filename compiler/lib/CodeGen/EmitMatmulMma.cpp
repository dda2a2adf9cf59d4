//===- EmitMatmulMma.cpp - CUDA C++ for a gemm tg.fusion on sm_80-class GPUs ===//
//
// The `mma_sync` path chosen by tg-select-matmul for bf16/f16 on sm_80-class targets and for
// f32 (as TF32) on every target from sm_80: templates/matmul_mma.cuh specialised by macros,
// and a TgBody that hands the kernel its operands and whose store() is the fused epilogue.
// Operands in memory, as for the other paths:
//   A [batch..] M x K (K-major) or, with transpose_a, K x M (M-major);
//   B [batch..] K x N (N-major) or, with transpose_b, N x K (K-major).
// The kernel copies both majornesses as stored and transposes while loading fragments
// (ldmatrix.trans), so no layout needs a copy kernel first.
//
//===----------------------------------------------------------------------===//
#include "GemmEmission.h"

#include <sstream>

using namespace mlir;

namespace tg::codegen {

FailureOr<KernelEmission> emitMatmulMma(ir::FusionOp fusion, ir::MatmulOp mm,
                                        ir::MatmulConfigAttr config, const std::string& name,
                                        const CodeGenOptions& options) {
  DenseI64ArrayAttr tile = config.getTile();
  FailureOr<GemmProblem> problem = gemmProblem(fusion, mm);
  if (failed(problem)) return failure();
  const GemmProblem& p = *problem;
  if (p.dtype != DType::BF16 && p.dtype != DType::F16 && p.dtype != DType::F32)
    return fusion.emitOpError("the mma_sync path takes bf16, f16 or f32 operands");
  const bool tf32 = p.dtype == DType::F32;
  const int elemBytes = tf32 ? 4 : 2;
  const int bm = static_cast<int>(tile[0]), bn = static_cast<int>(tile[1]), bk = static_cast<int>(tile[2]);
  const int stages = static_cast<int>(config.getStages());
  // Two warps along M, one per 32 columns along N: 64 x 32 (or 32 x 32) accumulators a warp.
  if ((bm != 64 && bm != 128) || (bn != 64 && bn != 128) || bk * elemBytes != 64 || stages < 2)
    return fusion.emitOpError("mma_sync tile must be {64, 128} x {64, 128} x (64 bytes of K), "
                              "with at least 2 stages");
  const int warpsM = 2, warpsN = bn / 32;

  std::ostringstream os;
  os << "struct TgBody {\n";
  os << "  static constexpr long long kM = " << p.m << "ll, kN = " << p.n << "ll, kK = " << p.k
     << "ll, kBatch = " << p.batch << "ll, kStrideA = " << p.batchStrideA
     << "ll, kStrideB = " << p.batchStrideB << "ll;\n";
  os << gemmBodyPointers(fusion);
  os << "  __device__ __forceinline__ const void* opA() const { return in" << p.inputA << "; }\n";
  os << "  __device__ __forceinline__ const void* opB() const { return in" << p.inputB << "; }\n";
  FailureOr<std::string> epilogue = emitGemmEpilogue(fusion, mm, options);
  if (failed(epilogue)) return failure();
  os << *epilogue << "};\n";

  std::ostringstream summary;
  summary << "gemm (mma.sync" << (tf32 ? " tf32" : "") << " + cp.async, tile " << bm << "x" << bn << "x"
          << bk << ", " << stages << " stages): " << p.batch << " x [" << p.m << " x " << p.k << "] @ ["
          << p.k << " x " << p.n << "]" << (p.transA ? " A^T" : "") << (p.transB ? " B^T" : "");
  if (int ops = gemmEpilogueOps(fusion)) summary << " + " << ops << " epilogue op(s)";
  std::ostringstream defines;
  defines << "#define TG_BM " << bm << "\n#define TG_BN " << bn << "\n#define TG_BK " << bk
          << "\n#define TG_STAGES " << stages << "\n#define TG_WARPS_M " << warpsM
          << "\n#define TG_WARPS_N " << warpsN << "\n#define TG_TF32 " << (tf32 ? 1 : 0)
          << "\n#define TG_F16 " << (p.dtype == DType::F16 ? 1 : 0) << "\n#define TG_A_KMAJOR "
          << (p.transA ? 0 : 1) << "\n#define TG_B_KMAJOR " << (p.transB ? 1 : 0) << "\n";

  KernelEmission e;
  e.kernel.name = name;
  e.kernel.summary = summary.str();
  e.kernel.source = kernelHeader(name, summary.str()) + defines.str() + os.str() + asyncCopyTemplate() + matmulMmaTemplate();
  addOperandViews(p, fusion, e);
  const int64_t tiles = ((p.m + bm - 1) / bm) * ((p.n + bn - 1) / bn);
  if (failed(setGrid(e, fusion, tiles, 1, p.batch))) return failure();
  e.dims.block[0] = static_cast<uint32_t>(warpsM * warpsN * 32);
  e.dims.sharedBytes = static_cast<uint32_t>(stages * (bm + bn) * bk * elemBytes);
  return e;
}

}  // namespace tg::codegen
