//===- LowerMatmul.cpp - Choose each matmul's code path and tile ----------===//
//
// Today's path is `simt`: a shared-memory tiled kernel with f32 accumulation on the CUDA cores
// (a correct baseline for every dtype and target). The tile is chosen so that the grid fills
// the device: 64x64 tiles when that gives at least one block per SM-sized share of the work,
// 32x32 otherwise (small or skinny problems).
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
      // 64x64 tiles unless that leaves the device mostly idle (fewer than ~100 tiles).
      auto tiles = [&](int64_t t) { return batch * ((m + t - 1) / t) * ((n + t - 1) / t); };
      int64_t tile = tiles(64) >= 100 ? 64 : 32;
      Builder b(&getContext());
      fusion->setAttr("tg.path", b.getStringAttr("simt"));
      fusion->setAttr("tg.tile", b.getDenseI64ArrayAttr({tile, tile, 16}));
      fusion->setAttr("tg.arch", b.getStringAttr(arch));
    });
  }
};

}  // namespace
}  // namespace tg
