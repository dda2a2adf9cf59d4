//===- EmitMatmulGemv.cpp - CUDA C++ for a matmul bound by one operand's bytes ===//
//
// The `gemv` and `gemv_mma` paths (tg-select-matmul; tg/Dialect/Gemv.h): templates/gemv.cuh
// (CUDA cores) or templates/gemv_mma.cuh (tensor cores), specialised by macros and a TgBody
// that names the matrix (the K-contiguous operand), the vectors (the other one: x [M, K] or
// x^T [K, M] against w [N, K]; x [K, N] or x^T [N, K] against A [M, K]) and where each dot
// product goes, through the fused epilogue's store(). `tile` is [rows per thread group,
// threads per row, threads per block] for gemv, [16 rows, vectors rounded up to 8 or 16,
// warps splitting K] for gemv_mma.
//
//===----------------------------------------------------------------------===//
#include "GemmEmission.h"
#include "ScalarMath.h"

#include "tg/Dialect/Gemv.h"

#include <sstream>

using namespace mlir;

namespace tg::codegen {

FailureOr<KernelEmission> emitMatmulGemv(ir::FusionOp fusion, ir::MatmulOp mm,
                                         ir::MatmulConfigAttr config, const std::string& name,
                                         const CodeGenOptions& options) {
  std::optional<GemvShape> g = gemvShape(mm);
  if (!g) return fusion.emitOpError("the gemv path needs a K-contiguous operand against at most ")
              << kGemvMaxVectors << " vectors";
  FailureOr<GemmProblem> problem = gemmProblem(fusion, mm, /*windows=*/true);
  if (failed(problem)) return failure();
  const GemmProblem& p = *problem;
  if (p.dtype != DType::F32 && p.dtype != DType::BF16 && p.dtype != DType::F16)
    return fusion.emitOpError("the gemv path takes f32, bf16 or f16 operands");
  DenseI64ArrayAttr tile = config.getTile();
  const bool mma = config.getPath() == ir::MatmulPath::gemv_mma;
  const int64_t per = 16 / static_cast<int64_t>(dtype_size(p.dtype));
  if (mma) {
    // [16 rows, vectors rounded up to 8 or 16, warps splitting K]
    if (tile[0] != 16 || (tile[1] != 8 && tile[1] != 16) || tile[1] < g->vectors || tile[2] > 32)
      return fusion.emitOpError("gemv_mma tile must be [16, 8 or 16 (at least the vectors), warps <= 32]");
    if (p.dtype == DType::F32) return fusion.emitOpError("the gemv_mma path takes bf16 or f16 operands");
    if (p.k % per != 0)
      return fusion.emitOpError("the gemv_mma path needs K a multiple of ") << per << " elements";
  }
  const int64_t rpg = tile[0], tpr = tile[1], threads = mma ? tile[2] * 32 : tile[2];
  if (!mma && (tpr > threads || threads % tpr != 0 || (tpr & (tpr - 1)) != 0 || threads % 32 != 0 || threads > 1024))
    return fusion.emitOpError("gemv tile must be [rows per group, threads per row (a power of two), "
                              "threads per block (a multiple of 32 and of the threads per row)]");

  // The matrix W (row r of batch b at w(b) + r * K) and the vectors (element (s, k) at
  // x(b)[s * xs + k * xk]).
  const int w = g->matrixIsB ? p.inputB : p.inputA, x = g->matrixIsB ? p.inputA : p.inputB;
  const int64_t wBatch = g->matrixIsB ? p.batchStrideB : p.batchStrideA;
  const int64_t xBatch = g->matrixIsB ? p.batchStrideA : p.batchStrideB;
  const int64_t wOffset = g->matrixIsB ? p.offsetB : p.offsetA, xOffset = g->matrixIsB ? p.offsetA : p.offsetB;
  const int64_t S = g->vectors, K = p.k;
  int64_t xs, xk;
  if (g->matrixIsB)
    xs = p.transA ? 1 : K, xk = p.transA ? p.m : 1;  // A [M, K], or A stored [K, M]
  else
    xs = p.transB ? K : 1, xk = p.transB ? 1 : p.n;  // B [K, N], or B stored [N, K]
  // 16-byte loads when every row and batch starts at a multiple of 16 bytes and each
  // vector's chunk is contiguous (along K, or, on the CUDA cores, the k-major block of all S
  // vectors; the tensor-core kernel loads k-major vectors element by element).
  const bool contiguousChunks =
      xk == 1 ? (S == 1 || xs % per == 0) : (mma || (xs == 1 && xk == S));
  const int64_t vec = (K % per == 0 && wBatch % per == 0 && xBatch % per == 0 && wOffset % per == 0 &&
                       xOffset % per == 0 && contiguousChunks)
                          ? per
                          : 1;

  std::ostringstream os;
  os << "struct TgBody {\n";
  os << "  static constexpr long long kM = " << p.m << "ll, kN = " << p.n << "ll;\n";
  os << "  static constexpr long long kR = " << g->rows << "ll, kK = " << K << "ll, kBatch = " << p.batch
     << "ll, kXs = " << xs << "ll, kXk = " << xk << "ll;\n";
  os << "  static constexpr int kS = " << S << ", kVec = " << vec << ";\n";
  os << "  typedef " << storageType(p.dtype) << " Elem;\n";
  os << gemmBodyPointers(fusion);
  os << "  static __device__ __forceinline__ float cvt(Elem e) { return " << loadConvert(p.dtype, "e") << "; }\n";
  os << "  __device__ __forceinline__ const Elem* w(long long b) const { return in" << w << " + " << wOffset
     << "ll + b * " << wBatch << "ll; }\n";
  os << "  __device__ __forceinline__ const Elem* x(long long b) const { return in" << x << " + " << xOffset
     << "ll + b * " << xBatch << "ll; }\n";
  os << "  __device__ __forceinline__ bool aligned() const { return tg_aligned16(in" << w
     << ") && tg_aligned16(in" << x << "); }\n";
  os << "  __device__ __forceinline__ void out(long long b, int s, long long r, float v) const { store(b, "
     << (g->matrixIsB ? "s, r" : "r, s") << ", v); }\n";
  FailureOr<std::string> epilogue = emitGemmEpilogue(fusion, mm, options);
  if (failed(epilogue)) return failure();
  os << *epilogue << "};\n";

  std::ostringstream summary;
  if (mma)
    summary << "gemv (tensor cores, 16 rows x " << tpr
            << " vectors, " << tile[2] << " warp(s) splitting K): ";
  else
    summary << "gemv (" << rpg << " row(s) x " << tpr << " threads, " << threads << " a block, "
            << (vec > 1 ? "16-byte loads" : "element loads") << "): ";
  summary << p.batch << " x [" << p.m << " x " << p.k << "] @ [" << p.k << " x " << p.n << "]"
          << (p.transA ? " A^T" : "") << (p.transB ? " B^T" : "");
  if (int ops = gemmEpilogueOps(fusion)) summary << " + " << ops << " epilogue op(s)";
  std::ostringstream defines;
  if (mma)
    defines << "#define TG_WARPS " << tile[2] << "\n#define TG_TILES " << tpr / 8 << "\n#define TG_F16 "
            << (p.dtype == DType::F16 ? 1 : 0) << "\n";
  else
    defines << "#define TG_THREADS " << threads << "\n#define TG_TPR " << tpr << "\n#define TG_RPG " << rpg << "\n";

  KernelEmission e;
  e.kernel.name = name;
  e.kernel.summary = summary.str();
  e.kernel.source = kernelHeader(name, summary.str()) + defines.str() + os.str() + (mma ? gemvMmaTemplate() : gemvTemplate());
  addOperandViews(p, fusion, e);
  const int64_t rowsPerBlock = mma ? 16 : threads / tpr * rpg;
  if (failed(setGrid(e, fusion, (g->rows + rowsPerBlock - 1) / rowsPerBlock, p.batch))) return failure();
  e.dims.block[0] = static_cast<uint32_t>(threads);
  return e;
}

}  // namespace tg::codegen
