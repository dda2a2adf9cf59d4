//===- EmitAttentionSplit.cpp - Flash-decoding kernels for a decode-sized attention ===//
//
// A decode-sized attention fusion (a few query rows a batch, tg/Dialect/Attention.h) whose
// keys split into chunks (templates/attention_split.cuh): the first kernel, one block per
// (chunk, batch), writes each chunk's partial softmax and p @ v into a scratch buffer; the
// second combines them. Both take the same `struct TgBody` (fewRowAttentionBody, with the
// scratch pointer and ScoreMask's blockMask()). The chunks: at least a wave of resident
// blocks with a nearly full last wave, each at least one pass of its warps over the keys.
//
//===----------------------------------------------------------------------===//
#include "KernelEmission.h"

#include "tg/Dialect/Attention.h"
#include "tg/Dialect/LayoutChain.h"
#include "tg/Dialect/TgOps.h"

#include <algorithm>
#include <sstream>

using namespace mlir;

namespace tg::codegen {

FailureOr<KernelEmission> emitSplitAttention(ir::FusionOp fusion, ir::MatmulOp scores, ir::MatmulOp values,
                                             ir::SoftmaxOp softmax, const AttentionShape& shape,
                                             const std::string& name, const CodeGenOptions& options) {
  FailureOr<FewRowAttentionBody> body = fewRowAttentionBody(fusion, scores, values, softmax, shape, options, true);
  if (failed(body)) return failure();
  // A warp's tile: kUnroll 16-byte loads of keys (and of values) in flight a lane; fewer with
  // more rows (each row holds q and o registers a lane). With few rows the registers are capped
  // for two blocks a multiprocessor (__launch_bounds__; 128 registers hold them without spills:
  // FlashAttentionFusionTest checks ptxas's log), which doubles the loads in flight; with more
  // rows, or a score modifier, one block (more would spill).
  const int64_t vec = body->kVec, lanes = shape.dim / vec, keysPerLoad = 32 / lanes;
  const bool fewRows = shape.rows * vec <= 32;
  // A score modifier (a mask, a bias, a soft cap) or a computed q takes registers of its own:
  // with one, the cap spills (28 bytes for a decode position mask), so it is for plain bodies
  // only (the products, casts, a scale and layout views).
  bool plain = true;
  for (Operation& op : fusion.getBody().front())
    plain = plain && (isLayoutOp(&op) || isa<ir::MatmulOp, ir::CastOp, ir::MulOp, ir::DivOp, ir::SoftmaxOp,
                                           ir::ConstantOp, ir::YieldOp>(op));
  const Tuning& tuning = options.tuning;
  const int64_t unroll = tuning.attentionSplitUnroll > 0 ? std::min(tuning.attentionSplitUnroll, 16) : fewRows ? 4 : 2;
  const int64_t minBlocks = tuning.attentionSplitMinBlocks > 0 ? std::min(tuning.attentionSplitMinBlocks, 8)
                            : fewRows && plain                 ? 2
                                                               : 1;
  const int64_t tile = unroll * keysPerLoad, warps = kSplitAttentionThreads / 32;
  const int64_t sms = std::max(1, options.smCount), maxSplits = (shape.keys + warps * tile - 1) / (warps * tile);
  // The chunks: at least one wave of blocks (minBlocks resident a multiprocessor), then the
  // fewest whose last wave is at least 90% full (a half-empty last wave costs as much as a
  // full one: measured, benchmarks/RESULTS.md), up to four times that many.
  int64_t splits = tuning.attentionSplits;
  if (splits <= 0) {
    const int64_t wave = (tuning.attentionSplitBlocks > 0 ? tuning.attentionSplitBlocks : minBlocks) * sms;
    const int64_t first = std::clamp<int64_t>((wave + shape.batch - 1) / shape.batch, 1, maxSplits);
    auto fill = [&](int64_t n) {
      const int64_t blocks = shape.batch * n;
      return static_cast<double>(blocks) / static_cast<double>((blocks + wave - 1) / wave * wave);
    };
    splits = first;
    for (int64_t n = first; n <= std::min(4 * first, maxSplits); ++n) {
      if (fill(n) > fill(splits) + 1e-9) splits = n;
      if (fill(n) >= 0.9) {
        splits = n;
        break;
      }
    }
  }
  splits = std::clamp<int64_t>(splits, 1, (shape.keys + tile - 1) / tile);
  const int64_t chunk = ((shape.keys + splits - 1) / splits + tile - 1) / tile * tile;
  splits = (shape.keys + chunk - 1) / chunk;

  std::ostringstream summary;
  summary << "split-key attention (" << splits << " chunk(s) of " << chunk << " keys, " << kSplitAttentionThreads
          << " threads a block, then a combine): " << shape.batch << " x softmax([" << shape.rows << " x " << shape.dim
          << "] @ [" << shape.dim << " x " << shape.keys << "]) @ [" << shape.keys << " x " << shape.valueDim << "]";
  auto source = [&](const std::string& kernel, int phase, int64_t threads) {
    std::ostringstream defines;
    defines << "#define TG_PHASE " << phase << "\n#define TG_THREADS " << threads << "\n#define TG_SPLITS " << splits
            << "\n#define TG_CHUNK " << chunk << "\n#define TG_UNROLL " << unroll << "\n";
    if (options.tuning.attentionSplitPrefetch > 0) defines << "#define TG_SPLIT_PREFETCH 1\n";
    if (minBlocks > 1) defines << "#define TG_MIN_BLOCKS " << minBlocks << "\n";
    return kernelHeader(kernel, summary.str()) + defines.str() + body->text + attentionSplitTemplate();
  };
  KernelEmission e;
  e.kernel.name = name;
  e.kernel.summary = summary.str();
  e.kernel.source = source(name, 0, kSplitAttentionThreads);
  setAttentionViews(e, fusion, *body);
  if (failed(setGrid(e, fusion, splits, shape.batch))) return failure();
  e.dims.block[0] = static_cast<uint32_t>(kSplitAttentionThreads);
  e.scratchBytes = static_cast<size_t>(shape.batch * splits * shape.rows * (shape.dim + 2) * 4);
  // The combine: a thread per (row, d) of a batch.
  constexpr int64_t kCombineThreads = 128;
  e.then.name = name + "_combine";
  e.then.summary = "the combine of " + summary.str();
  e.then.source = source(e.then.name, 1, kCombineThreads);
  KernelEmission combine;
  if (failed(setGrid(combine, fusion, (shape.rows * shape.dim + kCombineThreads - 1) / kCombineThreads, shape.batch)))
    return failure();
  e.thenDims = combine.dims;
  e.thenDims.block[0] = static_cast<uint32_t>(kCombineThreads);
  return e;
}

}  // namespace tg::codegen
