//===- GemmEmission.h - Pieces of the matmul emitters (internal) ----------===//
#pragma once

#include "KernelEmission.h"

#include <string>

namespace tg::codegen {

class SizeArguments;

/// The problem a gemm fusion's matmul solves: C[batch] (M x N) = op(A) @ op(B).
struct GemmProblem {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  bool transA = false, transB = false;  ///< A stored K x M; B stored N x K (K-major)
  int inputA = -1, inputB = -1;         ///< the fusion inputs holding A and B
  /// Elements from one batch of an operand to the next; 0 for a rank-2 operand (shared).
  int64_t batchStrideA = 0, batchStrideB = 0;
  /// Elements into the input where the operand starts (a contiguous window): `view*` in the
  /// launch's pointer (a multiple of kViewAlignmentBytes), `offset*` in the code (gemv paths only).
  int64_t offsetA = 0, offsetB = 0;
  int64_t viewA = 0, viewB = 0;
  DType dtype = DType::F32;             ///< of A and B
};

/// The fusion input that operand `v` (of `dtype`) reads, through reshapes or as a contiguous
/// window (contiguousWindowOffset) at element `offset` of it, of which `view` elements go into
/// the launch's pointer when only this chain reads the input; -1 if it is neither. Without
/// `windows` only windows a view holds whole are taken.
int operandInput(mlir::Value v, DType dtype, bool windows, int64_t& offset, int64_t& view);

/// The problem of `mm`, whose operands must be fusion inputs (possibly through reshapes,
/// which keep the bytes) or contiguous windows of them (contiguousWindowOffset): at any offset
/// with `windows`, else at offsets a view holds (an input read by nothing else, at a multiple
/// of kViewAlignmentBytes); fails with a diagnostic on `fusion` otherwise.
mlir::FailureOr<GemmProblem> gemmProblem(ir::FusionOp fusion, ir::MatmulOp mm, bool windows = false);

/// The views of `p` (viewA, viewB) as `e`'s argument offsets.
void addOperandViews(const GemmProblem& p, ir::FusionOp fusion, KernelEmission& e);

/// TgBody members `const T* in<i>` and `T* out<j>`: the fusion's inputs and results.
std::string gemmBodyPointers(ir::FusionOp fusion);

/// The elementwise ops fused into the gemm kernel's epilogue (for kernel summaries).
int gemmEpilogueOps(ir::FusionOp fusion);

/// TgBody members `compute(i, b, m, n, acc, r...)` and `store(b, m, n, v0, v1)` (and `pair`
/// for one 2-byte result): the fused elementwise consumers of `mm` inside `fusion`, applied to
/// accumulators and written to every result. The body must declare kN, in<i> and out<j>, and
/// kM (the epilogue defines `rowsM()` from it) or, with `symbolic` (over dynamic dims),
/// `rowsM()` itself. With `sizeArgs` too, values of the matmul's element count are read
/// through layouts with run-time extents (the body then declares sizeArgs->members()).
mlir::FailureOr<std::string> emitGemmEpilogue(ir::FusionOp fusion, ir::MatmulOp mm,
                                              const CodeGenOptions& options,
                                              const SymbolicSizes* symbolic = nullptr,
                                              SizeArguments* sizeArgs = nullptr);

/// Over dynamic dims: `map` (an operand or result stored [batch] x rows x cols, `cols` static)
/// with its rows, batch and strides as sizes the runtime evaluates at each run.
void makeSymbolic(rt::PlanTensorMap& map, const SizeExpr& batch, const SizeExpr& rows, int64_t cols, int64_t esize);

/// A `__device__` function `name(d, a, db, accumulate)` wrapping one
/// wgmma.mma_async.m64n<bn>k16 (k8 for TF32) into `bn / 2` f32 accumulators `d`: A from a
/// shared-memory descriptor `da` (transposed with `transA`, 2-byte types only) or, with
/// `registerA`, from four registers of packed 16-bit pairs (`const unsigned (&a)[4]`, the
/// accumulator layout of a previous product); B from the descriptor `db` (transposed with
/// `transB`).
std::string wgmmaWrapper(const std::string& name, int bn, DType dtype, bool transA, bool transB, bool registerA);

/// The TMA map of a wgmma operand (or 2-byte result) stored as [batch] x rows x cols
/// (row-major; batch 0: rank 2), read in boxes of boxCols x boxRows with 128-byte swizzling.
rt::TensorMapSpec wgmmaOperandMap(DType d, int64_t batch, int64_t rows, int64_t cols, uint32_t boxCols,
                                  uint32_t boxRows);

/// The Hopper path (`#tg.matmul<path = wgmma, ...>`): templates/matmul_wgmma.cuh with TMA
/// tensor maps. With `symbolic` (over dynamic dims: M and the batch may depend on the symbols),
/// the kernel takes M and the batch as size arguments, and the tensor maps and the grid are
/// stated as sizes the runtime evaluates at each run.
mlir::FailureOr<KernelEmission> emitMatmulWgmma(ir::FusionOp fusion, ir::MatmulOp mm,
                                                ir::MatmulConfigAttr config,
                                                const std::string& name,
                                                const CodeGenOptions& options,
                                                const SymbolicSizes* symbolic = nullptr);

/// The sm_80 path (`#tg.matmul<path = mma_sync, ...>`): templates/matmul_mma.cuh, cp.async +
/// mma.sync.
mlir::FailureOr<KernelEmission> emitMatmulMma(ir::FusionOp fusion, ir::MatmulOp mm,
                                              ir::MatmulConfigAttr config,
                                              const std::string& name,
                                              const CodeGenOptions& options);

/// The matrix-vector paths (`#tg.matmul<path = gemv | gemv_mma, ...>`): templates/gemv.cuh on
/// the CUDA cores, templates/gemv_mma.cuh on tensor cores, for matmuls bound by one
/// K-contiguous operand's bytes (tg/Dialect/Gemv.h).
mlir::FailureOr<KernelEmission> emitMatmulGemv(ir::FusionOp fusion, ir::MatmulOp mm,
                                               ir::MatmulConfigAttr config,
                                               const std::string& name,
                                               const CodeGenOptions& options);

}  // namespace tg::codegen
