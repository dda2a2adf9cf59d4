//===- LowerMatmul.cpp - Choose each matmul's code path and tile ----------===//
//
// Paths:
//  `wgmma`  sm_90a, bf16/f16 operands whose rows TMA can address (every row stride a multiple
//           of 16 bytes: the contiguous dim of each operand a multiple of 8): tensor cores fed
//           by TMA through a multi-stage mbarrier pipeline, f32 accumulation, fused epilogue
//           (templates/matmul_wgmma.cuh). Tile 128 x 256 x 64 with 4 stages when that still
//           gives about a wave of tiles, else 128 x 128 x 64 with 6 stages.
//  `simt`   everything else: a shared-memory tiled kernel with f32 accumulation on the CUDA
//           cores, correct for every dtype, shape and target. 64x64 tiles when that gives at
//           least one block per SM-sized share of the work, 32x32 otherwise.
// `tg.path_reason` says why a matmul did not get the tensor-core path.
//
//===----------------------------------------------------------------------===//
#include "tg/Transforms/Passes.h"

namespace tg {
#define GEN_PASS_DEF_TGLOWERMATMUL
#include "tg/Transforms/Passes.h.inc"
}  // namespace tg

using namespace mlir;

namespace tg {
namespace {

/// Why `mm` cannot take the wgmma path on `arch` (empty: it can).
std::string whyNotWgmma(ir::MatmulOp mm, const std::string& arch) {
  if (arch != "sm_90a") return "wgmma needs sm_90a (target " + arch + ")";
  auto ta = cast<RankedTensorType>(mm.getA().getType());
  auto tb = cast<RankedTensorType>(mm.getB().getType());
  Type e = ta.getElementType();
  if (!e.isBF16() && !e.isF16())
    return "the tensor-core path takes bf16/f16 operands (f32 runs on the CUDA cores)";
  // TMA addresses rows whose stride is a multiple of 16 bytes: 8 two-byte elements.
  if (ta.getShape().back() % 8 != 0)
    return "A's rows (" + std::to_string(ta.getShape().back()) +
           " elements) are not a multiple of 8, so TMA cannot load them";
  if (tb.getShape().back() % 8 != 0)
    return "B's rows (" + std::to_string(tb.getShape().back()) +
           " elements) are not a multiple of 8, so TMA cannot load them";
  return {};
}

struct TgLowerMatmulPass final : impl::TgLowerMatmulBase<TgLowerMatmulPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([&](ir::FusionOp fusion) {
      if (fusion.getKind() != ir::FusionKind::gemm) return;
      ir::MatmulOp matmul;
      fusion.getBody().walk([&](ir::MatmulOp m) { matmul = m; });
      if (!matmul) {
        fusion.emitOpError("gemm fusion without a matmul");
        return signalPassFailure();
      }
      auto type = cast<RankedTensorType>(matmul.getType());
      ArrayRef<int64_t> shape = type.getShape();
      int64_t m = shape[shape.size() - 2], n = shape.back();
      int64_t batch = type.getNumElements() / std::max<int64_t>(1, m * n);
      Builder b(&getContext());
      fusion->setAttr("tg.arch", b.getStringAttr(arch));
      std::string why = whyNotWgmma(matmul, arch);
      if (why.empty()) {
        auto tiles = [&](int64_t bn) { return batch * ((m + 127) / 128) * ((n + bn - 1) / bn); };
        const int64_t bn = tiles(256) >= 100 ? 256 : 128;
        fusion->setAttr("tg.path", b.getStringAttr("wgmma"));
        fusion->setAttr("tg.tile", b.getDenseI64ArrayAttr({128, bn, 64}));
        fusion->setAttr("tg.stages", b.getI64IntegerAttr(bn == 256 ? 4 : 6));
        return;
      }
      // 64x64 tiles unless that leaves the device mostly idle (fewer than ~100 tiles).
      auto tiles = [&](int64_t t) { return batch * ((m + t - 1) / t) * ((n + t - 1) / t); };
      int64_t tile = tiles(64) >= 100 ? 64 : 32;
      fusion->setAttr("tg.path", b.getStringAttr("simt"));
      fusion->setAttr("tg.path_reason", b.getStringAttr(why));
      fusion->setAttr("tg.tile", b.getDenseI64ArrayAttr({tile, tile, 16}));
    });
  }
};

}  // namespace
}  // namespace tg
