//===- KernelEmission.h - One generated kernel and how to launch it (internal) ===//
#pragma once

#include "tg/CodeGen/EmitPlan.h"
#include "tg/Dialect/OpDescription.h"
#include "tg/Dialect/SymbolicTypes.h"
#include "tg/Dialect/TgOps.h"
#include "tg/Runtime/Plan.h"

#include <optional>
#include <string>
#include <vector>

namespace tg {
struct AttentionShape;
}  // namespace tg

namespace tg::codegen {

/// The sizes of a function's values as polynomials of its symbols (tg.symbols: their names
/// and ranges; none for a static function): what a kernel over dynamic dims computes its
/// extents from.
struct SymbolicSizes : ir::Symbols {
  SymbolicSizes() = default;
  /// `error` receives a malformed tg.symbols' reason.
  SymbolicSizes(mlir::func::FuncOp func, std::string& error);
  bool any() const { return !names.empty(); }
  std::vector<SizeExpr> dims(mlir::Value v) const;
  SizeExpr numel(mlir::Value v) const;
  /// The largest value `e` takes over the symbols' ranges (nothing if it overflows).
  std::optional<int64_t> largest(const SizeExpr& e) const;
};

/// A kernel's source and launch shape. Its single parameter is a struct of pointers: the
/// fusion's inputs in order, then its results in order.
struct KernelEmission {
  rt::KernelSource kernel;
  rt::LaunchDims dims;
  /// TMA tensor maps: the kernel's second parameter (PlanTensorMap::arg indexes the operands).
  std::vector<rt::PlanTensorMap> tensorMaps;
  /// The kernel writes failed checks into the plan's check flag, a pointer after the results
  /// (tg.check kernels; kernels that read indices from tensors).
  bool writesCheckFlag = false;
  /// Bytes the launch adds to the pointer of each argument (the fusion's inputs in order, then
  /// its results), each a multiple of kViewAlignmentBytes (tg/Dialect/LayoutChain.h); empty or 0:
  /// the buffer's own address. The window offsets of a model's layers go here, not in the code.
  std::vector<int64_t> argumentByteOffsets;
  /// Bytes of scratch memory the kernel needs (partial results): a buffer of the per-call arena
  /// that EmitPlan passes after the results, live from this launch to the end of `then`'s
  /// (the scratch of consecutive fusions is the same memory: each kernel waits for the one
  /// before). 0: none.
  size_t scratchBytes = 0;
  /// Kernels over dynamic dims: the grid's extents (rt::PlanLaunch::symbolicGrid) and the
  /// 64-bit sizes the kernel takes after its pointers (rt::PlanLaunch::sizes).
  std::vector<rt::PlanExtent> symbolicGrid;
  std::vector<SizeExpr> sizes;
  /// A kernel launched right after this one with the same parameters (the combine of a
  /// split-key attention); empty name: none.
  rt::KernelSource then;
  rt::LaunchDims thenDims;
};

/// The embedded templates (templates/*.cuh).
const char* elementwiseTemplate();
const char* reductionTemplate();
const char* matmulSimtTemplate();
const char* matmulWgmmaTemplate();
const char* tmaTemplate();
const char* matmulMmaTemplate();
const char* gemvTemplate();
const char* gemvMmaTemplate();
const char* checkTemplate();
const char* updateTemplate();
const char* transposeTemplate();
const char* rowTemplate();
const char* clusterTemplate();
const char* attentionTemplate();
const char* attentionFlashTemplate();
const char* attentionSplitTemplate();
const char* asyncCopyTemplate();
const char* columnsTemplate();

mlir::FailureOr<KernelEmission> emitElementwise(ir::FusionOp fusion, const std::string& name,
                                                const CodeGenOptions& options);
/// An elementwise kernel over dynamic dims: its element count a size argument, every input
/// read at the kernel's own index or a splat (EmitElementwise.cpp).
mlir::FailureOr<KernelEmission> emitSymbolicElementwise(ir::FusionOp fusion, const std::string& name,
                                                        const CodeGenOptions& options, const SymbolicSizes& sizes);
mlir::FailureOr<KernelEmission> emitReduction(ir::FusionOp fusion, const std::string& name,
                                              const CodeGenOptions& options);
/// A row kernel (reductions over the trailing dims with their producers and consumers).
mlir::FailureOr<KernelEmission> emitRow(ir::FusionOp fusion, const std::string& name,
                                        const CodeGenOptions& options, const SymbolicSizes* symbolic = nullptr);
/// An attention kernel (softmax(modify(q @ k^T)) @ v, tg-fuse-attention; EmitAttention.cpp);
/// with `symbolic` (over dynamic dims) the flash kernel only.
mlir::FailureOr<KernelEmission> emitAttention(ir::FusionOp fusion, const std::string& name,
                                              const CodeGenOptions& options, const SymbolicSizes* symbolic = nullptr);
/// The flash-attention kernel of an attention fusion with many query rows (sm_90a;
/// EmitAttentionFlash.cpp): `scores` = q @ k^T, `values` = p @ v, `softmax` between them.
/// Over dynamic dims (shape.dynamic, `symbolic` their sizes) the batch, rows and keys are
/// size arguments, the grid and the keys' and values' tensor maps sized at each run.
mlir::FailureOr<KernelEmission> emitFlashAttention(ir::FusionOp fusion, ir::MatmulOp scores, ir::MatmulOp values,
                                                   ir::SoftmaxOp softmax, const AttentionShape& shape,
                                                   const std::string& name, const CodeGenOptions& options,
                                                   const SymbolicSizes* symbolic = nullptr);
/// `struct TgBody` of the few-row attention kernels (templates/attention.cuh; with `split`,
/// templates/attention_split.cuh: plus its scratch pointer and blockMask()), and where its keys
/// and values are (EmitAttention.cpp).
struct FewRowAttentionBody {
  std::string text;
  DType kType = DType::F32, vType = DType::F32;
  int kInput = -1, vInput = -1;
  int64_t kView = 0, vView = 0;  ///< elements the launch adds to the keys' / values' pointers
  int64_t kVec = 1, vVec = 1;    ///< elements a 16-byte load (1: element loads)
};
mlir::FailureOr<FewRowAttentionBody> fewRowAttentionBody(ir::FusionOp fusion, ir::MatmulOp scores,
                                                         ir::MatmulOp values, ir::SoftmaxOp softmax,
                                                         const AttentionShape& shape,
                                                         const CodeGenOptions& options, bool split);
/// The argument byte offsets of `body`'s key and value views.
void setAttentionViews(KernelEmission& e, ir::FusionOp fusion, const FewRowAttentionBody& body);
/// The split-key (flash-decoding) kernels of a decode-sized attention fusion
/// (EmitAttentionSplit.cpp): the chunks' partials into the scratch buffer, then the combine.
mlir::FailureOr<KernelEmission> emitSplitAttention(ir::FusionOp fusion, ir::MatmulOp scores, ir::MatmulOp values,
                                                   ir::SoftmaxOp softmax, const AttentionShape& shape,
                                                   const std::string& name, const CodeGenOptions& options);
mlir::FailureOr<KernelEmission> emitCheck(ir::FusionOp fusion, const std::string& name,
                                          const CodeGenOptions& options);
/// Whether `fusion` only transposes its input's last two dims (templates/transpose.cuh then
/// serves it, EmitTranspose.cpp), and that kernel.
bool isTransposeCopy(ir::FusionOp fusion);
mlir::FailureOr<KernelEmission> emitTransposeCopy(ir::FusionOp fusion, const std::string& name,
                                                  const CodeGenOptions& options);
/// A dynamic_update_slice in place (kInPlaceAttr): writes only the update into its result,
/// which shares its input's buffer (templates/update.cuh, EmitUpdate.cpp).
mlir::FailureOr<KernelEmission> emitInPlaceUpdate(ir::FusionOp fusion, const std::string& name,
                                                  const CodeGenOptions& options,
                                                  const SymbolicSizes* symbolic = nullptr);
/// A gemm fusion on its `#tg.matmul` path (or `config`'s, when given: a guarded variant's);
/// with `symbolic` (over dynamic dims), the wgmma path only.
mlir::FailureOr<KernelEmission> emitMatmul(ir::FusionOp fusion, const std::string& name,
                                           const CodeGenOptions& options, const SymbolicSizes* symbolic = nullptr,
                                           ir::MatmulConfigAttr config = {});

/// Helpers shared by the emitters.
/// `    const <type> <name> = <expr>;` computing elementwise `op` (described by `d`) from the
/// named operands, in f32 for floats (ScalarMath.h).
std::string elementwiseLine(mlir::Operation* op, const ir::OpDescription& d,
                            const std::vector<std::string>& operands, const std::string& name,
                            Precision precision);
DType dtypeOfValue(mlir::Value v);
/// 90 for "sm_90a", 80 for "sm_80" (0 if unreadable).
int archNumber(const std::string& arch);
/// Elements of `v` (-1 when it has dynamic dims: SymbolicSizes::numel).
int64_t numelOf(mlir::Value v);
/// "unsigned" when every index below `bound` fits in 32 bits, else "unsigned long long";
/// `suffix` receives the matching literal suffix.
std::string indexType(int64_t bound, std::string& suffix);
/// Sets `e`'s grid to (x, y, z) blocks, or fails with an error on `fusion` if CUDA cannot
/// launch it (x < 2^31, y and z <= 65535): a tensor within tg's size limit can still be too
/// large for one kernel's grid, and a truncated grid would compute part of the result.
mlir::LogicalResult setGrid(KernelEmission& e, ir::FusionOp fusion, int64_t x, int64_t y = 1,
                            int64_t z = 1);
/// `prefix` followed by `n` ("r0", "in3"): names of generated locals. Built by appending:
/// GCC 12 warns, wrongly, of overlapping copies in `"r" + std::to_string(n)` once inlined.
inline std::string numbered(const char* prefix, long long n) {
  std::string s = prefix;
  s += std::to_string(n);
  return s;
}
/// "#define TG_NAME <name>" and the other macros a template expects, plus the prelude.
std::string kernelHeader(const std::string& name, const std::string& summary,
                         const std::string& defines = "");

}  // namespace tg::codegen
