//===- EmitAttentionSplit.cpp - Flash-decoding kernels for a decode-sized attention ===//
//
// A decode-sized attention fusion (a few query rows a batch, tg/Dialect/Attention.h) whose
// keys split into chunks (templates/attention_split.cuh): the first kernel, one block per
// (chunk, batch), writes each chunk's partial softmax and p @ v into a scratch buffer; the
// second combines them. Both take the same `struct TgBody` (fewRowAttentionBody, with the
// scratch pointer and ScoreMask's blockMask()). The chunks: enough blocks for about two a
// multiprocessor, each at least one pass of its warps over the keys.
//
//===----------------------------------------------------------------------===//
#include "KernelEmission.h"

#include "tg/Dialect/Attention.h"

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
  // more rows (each row holds q and o registers a lane).
  const int64_t vec = body->kVec, lanes = shape.dim / vec, keysPerLoad = 32 / lanes;
  const int64_t unroll = shape.rows * vec <= 32 ? 4 : 2;
  const int64_t tile = unroll * keysPerLoad, warps = kSplitAttentionThreads / 32;
  const int64_t sms = std::max(1, options.smCount);
  int64_t splits = options.tuning.attentionSplits > 0
                       ? options.tuning.attentionSplits
                       : std::clamp<int64_t>((2 * sms + shape.batch - 1) / shape.batch, 1,
                                             (shape.keys + warps * tile - 1) / (warps * tile));
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
