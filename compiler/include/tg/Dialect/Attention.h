//===- Attention.h - The problem an attention kernel solves, and what fits one ===//
//
// softmax(modify(q @ k^T)) @ v over a batch of heads: q [batch..., M, D], k [batch..., S, D],
// v [batch..., S, Dv]. tg-fuse-attention builds an `attention` tg.fusion for it when the kernel
// (templates/attention.cuh) takes the problem, and the emitter plans the same kernel from
// this description, so the two agree on the limits:
//  - at most kAttentionMaxRows query rows per batch (decode: the query heads that share a
//    key/value head times the new tokens), head dims up to kAttentionMaxDim;
//  - the keys split over a cluster of up to kAttentionMaxCluster blocks on sm_90 (one block
//    elsewhere), each holding its share of the scores, M x ceil(S / cluster) floats, in at
//    most kAttentionScoreBytes of shared memory (and q, the scores and the partial p @ v in
//    kAttentionSharedBytes).
// Decode-sized attention takes the split-key kernel (templates/attention_split.cuh,
// flash-decoding) when it can: the keys split into chunks over many blocks, each streaming its
// chunk once with an online softmax, and a second kernel combining the chunks' partials. It
// needs equal head dims whose rows are a power of two of 16-byte chunks up to a warp (64,
// 128, 256 for 16-bit types), keys and values of one type, only casts between the softmax
// and p @ v, and few enough rows for its registers and shared memory. Other decode-sized
// attention takes the cluster kernel above when JitOptions::decode_attention asks for it.
// More query rows (prefill, training) take the flash-attention kernel
// (templates/attention_flash.cuh) on sm_90a: 128 query rows a CTA against blocks of keys with
// an online softmax, both products on wgmma, so it needs equal head dims of 64, 128 or 256,
// q, k, v and the probabilities in one 2-byte type (bf16 or f16), and only casts between the
// softmax and p @ v (the kernel multiplies unnormalised probabilities).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Dialect/TgOps.h"

#include <cstdint>
#include <string>

namespace tg {

inline constexpr int64_t kAttentionMaxRows = 16;
inline constexpr int64_t kAttentionMaxDim = 256;
inline constexpr int64_t kAttentionMaxCluster = 8;
inline constexpr int64_t kAttentionScoreBytes = 16384;
/// Shared memory a block holds (q, the scores, the partial p @ v: static, at most 48 KiB).
inline constexpr int64_t kAttentionSharedBytes = 48 * 1024;
/// Keys a block takes before the keys are split over more blocks of a cluster.
inline constexpr int64_t kAttentionKeysPerBlock = 64;

struct AttentionShape {
  int64_t batch = 1, rows = 0, keys = 0, dim = 0, valueDim = 0;
  int64_t keyBatch = 1, valueBatch = 1;  ///< k's and v's batches (batch, or 1: shared)
  /// q, k, v and p @ v's left operand all bf16, or all f16.
  bool sameTwoByteOperands = false;
  /// Only casts between the softmax and p @ v.
  bool probsOnlyCast = false;
  /// Bytes of a key's element (0: keys and values of different types).
  int64_t keyValueBytes = 0;
  /// Over dynamic dims (issue 18): the sizes above are their largest over the symbols'
  /// ranges, and the kernel takes the run's sizes as arguments (the flash kernel only).
  bool dynamic = false;
};

/// The split-key kernel's threads a block (its warps' partials meet in shared memory).
inline constexpr int64_t kSplitAttentionThreads = 256;

/// The three kernels: a few rows a head split over the keys (templates/attention_split.cuh)
/// or, where that kernel cannot take them, over a cluster (templates/attention.cuh); many rows
/// (templates/attention_flash.cuh).
enum class AttentionKernel { decode, split, flash };
AttentionKernel attentionKernel(const AttentionShape& shape);

/// Why the split-key kernel cannot take `shape` (empty: it can).
std::string whyNotSplitAttention(const AttentionShape& shape);

/// The flash kernel's head dims (64, 128, 256) and keys a block on sm_90a.
int64_t flashAttentionKeysPerBlock(int64_t dim);

/// The shape of q @ k^T (`scores`, transpose_b) followed by p @ v (`values`); over dynamic dims
/// the largest over the symbols' ranges (`dynamic`).
AttentionShape attentionShape(ir::MatmulOp scores, ir::MatmulOp values);

/// The blocks of a cluster that share a batch's keys on `smVersion` (90 for sm_90a), at most
/// `maxCluster` (0: kAttentionMaxCluster).
int64_t attentionCluster(const AttentionShape& shape, int smVersion, int64_t maxCluster = 0);

/// Why the attention kernel cannot take `shape` on `smVersion` (empty: it can).
std::string whyNotAttentionKernel(const AttentionShape& shape, int smVersion, int64_t maxCluster = 0);

}  // namespace tg
