//===- Passes.td - tg's passes -----------------------------*- tablegen -*-===//
//
// Every pass of tg's pipeline is declared here and only here; the pipeline is the numbered
// list in lib/Transforms/Pipeline.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef TG_TRANSFORMS_PASSES_TD
#define TG_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TgDecomposeComposites : Pass<"tg-decompose", "mlir::func::FuncOp"> {
  let summary = "Rewrite softmax and layer_norm into reductions and elementwise ops";
  let description = [{
    The fuser understands elementwise ops, layout ops and reductions. softmax becomes
    exp(x - max) / sum(exp(x - max)) and layer_norm becomes mean / variance / rsqrt arithmetic,
    with explicit keep_dims reductions and broadcasts, in the op's dtype. gelu is already an
    elementwise op the fuser and the code generator handle directly, so it stays.
  }];
  let dependentDialects = ["::tg::ir::TgDialect"];
  let statistics = [
    Statistic<"numDecomposed", "num-decomposed", "Composite ops decomposed">
  ];
}

def TgFuseAttention : Pass<"tg-fuse-attention", "mlir::func::FuncOp"> {
  let summary = "Make softmax(modify(q @ k^T)) @ v one attention kernel";
  let description = [{
    Before the composites are decomposed: a softmax over the keys whose input is computed from
    a matmul q @ k^T by elementwise ops (a scale, a mask, a bias) and whose result reaches a
    matmul p @ v through elementwise ops (a cast) becomes one `tg.fusion attention` holding
    all of it; the operands of the elementwise ops come along as cloned layout chains, splat
    constants and cheap elementwise cones (a causal mask from iotas), q, k and v are inputs.
    Only problems an attention kernel takes (tg/Dialect/Attention.h: decode-sized, split over
    the keys or on a cluster, or many
    rows for the flash-attention kernel on sm_90a, on the target `arch`) are fused; a softmax next to a matmul that is not gets a remark saying why.
  }];
  let dependentDialects = ["::tg::ir::TgDialect"];
  let options = [
    Option<"arch", "arch", "std::string", /*default=*/"\"sm_90a\"", "NVRTC target (the cluster size depends on it)">,
    Option<"maxCluster", "max-cluster", "int64_t", /*default=*/"0",
           "at most this many blocks share a batch's keys (0: up to 8 on sm_90; TG_ATTENTION_CLUSTER)">,
    Option<"remarks", "remarks", "bool", /*default=*/"true",
           "Emit a remark for a softmax next to a matmul that is not fused">,
    Option<"decode", "decode", "bool", /*default=*/"true",
           "Fuse decode-sized attention that the split-key kernel does not take into the cluster kernel (the pipeline: only with PipelineOptions::decodeAttention)">,
  ];
  let statistics = [
    Statistic<"numFused", "num-fused", "Attention kernels formed">,
  ];
}

def TgFuseElementwise : Pass<"tg-fuse", "mlir::func::FuncOp"> {
  let summary = "Group elementwise ops into tg.fusion regions, one per kernel";
  let description = [{
    Phase 1 decides: elementwise ops (and the casts among them) are grouped with union-find
    along producer -> consumer edges; broadcast/transpose/reshape chains are folded into the
    reads of their consumers (index maps), splat constants are inlined. A matmul is a group
    member too: elementwise consumers that read its result at their own index join it as its
    epilogue (one matmul per group, no prologue). An edge is refused when the producer is a
    reduction (its own kernel), when the value is read through a non-linear index map (it must
    be materialized), when the element counts differ, or when merging would create a cycle
    between kernels; each refusal is a remark on the producer naming the consumer and the
    reason. Phase 2 builds one `tg.fusion` region per group (`gemm` when it holds a matmul),
    and wraps every reduction and check in a single-op region of its kind.
    With `fuse-reductions=true` a reduction over trailing dims is a group member too: the
    elementwise ops that produce its input and those that read its result (or ops on one value
    per row) broadcast back over the rows join it in one `row` region (RowDomain.h); column
    reductions, reductions of a matmul's result and reductions of other rows stay apart, with
    a remark. Off by default until the row kernels (EmitRow.cpp) have run on a GPU.
    With `fuse=false` every elementwise op is its own group: the unfused baseline.
  }];
  let dependentDialects = ["::tg::ir::TgDialect"];
  let options = [
    Option<"fuse", "fuse", "bool", /*default=*/"true",
           "Merge producers into consumers (false: one kernel per op)">,
    Option<"fuseReductions", "fuse-reductions", "bool", /*default=*/"false",
           "Make each reduction over trailing dims one row kernel with the elementwise ops "
           "that produce its input and those that read its result broadcast back over the "
           "rows (in progress: off until verified on a GPU)">,
    Option<"remarks", "remarks", "bool", /*default=*/"true",
           "Emit a remark for every producer -> consumer edge that is not fused">,
  ];
  let statistics = [
    Statistic<"numGroups", "num-groups", "Elementwise kernels formed">,
    Statistic<"numRefused", "num-refused", "Producer -> consumer edges not fused">
  ];
}

def TgSelectMatmul : Pass<"tg-select-matmul", "mlir::func::FuncOp"> {
  let summary = "Choose the code path and tile configuration of every matmul";
  let description = [{
    Records on each gemm `tg.fusion` a `#tg.matmul` configuration (TgAttrs.td): the path
    (`wgmma` on sm_90a for bf16/f16, `mma_sync` on sm_80 and newer for bf16/f16 and for f32 as
    TF32, `simt` for the rest, with the reason), the tile (block M, N, K), the pipeline stages
    and the wgmma schedule, chosen from the target, the dtype, the operands' alignment and the
    problem shape; the dump shows it and the code generator reads it. f32 operands that wgmma
    could read only K-major are first copied by a tiled transpose kernel where that pays
    (`kmajor_copy`). `path=mma_sync|simt` forces that path where its conditions hold
    (for testing one path on any GPU; TG_MATMUL_PATH sets it for the jit, tgc and
    tg-pipeline); `schedule=cooperative|pingpong` picks the wgmma consumer schedule
    (TG_GEMM_SCHEDULE). Other values are an error.
  }];
  let options = [
    Option<"arch", "arch", "std::string", /*default=*/"\"sm_90a\"", "NVRTC target">,
    Option<"tf32", "tf32", "bool", /*default=*/"true",
           "f32 matmuls may multiply on the tensor cores as TF32 (false: Precision::Accurate)">,
    Option<"forcePath", "path", "std::string", /*default=*/"\"\"",
           "force this path where it applies: mma_sync or simt (empty: choose)">,
    Option<"forceSchedule", "schedule", "std::string", /*default=*/"\"\"",
           "wgmma consumer schedule: cooperative or pingpong (empty: cooperative)">,
  ];
}

def TgAssignBuffers : Pass<"tg-assign-buffers", "mlir::func::FuncOp"> {
  let summary = "Name every kernel and assign buffers by liveness";
  let description = [{
    One kernel per `tg.fusion`. Gives each a readable name (`tg_k2_add_tanh_mul`), and assigns
    every value a buffer: function inputs, constants, per-call outputs, temporaries packed into
    one arena by liveness (a temporary's space is reused once its last reader has run), and
    reshapes as aliases. The assignment is recorded as attributes (`tg.kernel`, `tg.buffers`)
    that the code generator reads and the dump shows.
  }];
}

#endif // TG_TRANSFORMS_PASSES_TD
