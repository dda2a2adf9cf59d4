//===- Tuning.h - Knobs for testing and tuning the generated kernels ------===//
//
// Every field's default (empty or 0) means "the measured default": nothing here is needed to
// use tg. The knobs exist to test one matmul path on any GPU and to sweep launch shapes on the
// GPU machine (scripts/gpu-run.sh sweep). They change the generated source, so the kernel
// cache keeps the variants apart. The passes and emitters take them as options; only
// tuningFromEnvironment() reads the environment (the jit frontend, tgc and tg-opt's
// tg-pipeline call it). Free of MLIR.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

namespace tg::codegen {

struct Tuning {
  /// TG_MATMUL_PATH: "mma_sync" or "simt" makes every matmul take that path where its
  /// conditions hold (tg-select-matmul's `path` option).
  std::string matmulPath;
  /// TG_GEMM_SCHEDULE: "cooperative" or "pingpong" for wgmma matmuls (tg-select-matmul's
  /// `schedule` option).
  std::string gemmSchedule;
  int gemmGroupM = 0;        ///< TG_GEMM_GROUP: tile rows per group of the wgmma tile order
  int gemmCtas = 0;          ///< TG_GEMM_CTAS: CTAs of a wgmma matmul
  /// TG_GEMM_DIRECT_STORE=1: wgmma matmuls store their result with ordinary stores, never by
  /// TMA. For compute-sanitizer's initcheck, which does not see the TMA unit's writes.
  int gemmDirectStore = 0;
  int elementwiseBlock = 0;  ///< TG_BLOCK: threads per block of elementwise kernels
  int elementwiseUnroll = 0; ///< TG_UNROLL: vector steps per thread whose loads issue together
  int cacheHint = 0;         ///< TG_CACHE_HINT: 0-2, the load cache operator (tg_ld16)
  int blocksPerSm = 0;       ///< TG_BLOCKS_PER_SM: > 0 caps elementwise grids (grid-stride)
  /// Row kernels (EmitRow.cpp's planRows), to sweep on the GPU machine:
  int rowRegisters = 0;  ///< TG_ROW_REGISTERS: registers of held values per thread (32)
  int rowMaxGroup = 0;      ///< TG_ROW_MAX_GROUP: threads per block for wide rows (512)
  int rowClusterGroup = 0;  ///< TG_ROW_CLUSTER_GROUP: threads per block of a cluster (256)
  /// TG_ATTENTION_CLUSTER: at most this many blocks (1-8) share a batch's keys in an attention
  /// kernel (tg/Dialect/Attention.h; 0: the default, up to 8 on sm_90).
  int attentionCluster = 0;
  /// TG_ATTENTION_PINGPONG: 1 makes the flash-attention kernel's consumer warpgroups take
  /// turns issuing their products (FlashAttention-3's ping-pong), 0 leaves them free; -1:
  /// the default (attention_flash.cuh's TG_PINGPONG).
  int attentionPingpong = -1;
  /// TG_ATTENTION_TILE_GROUP: the flash-attention kernel orders its CTAs heaviest row tile
  /// first within groups of this many batches (attention_flash.cuh's TG_TILE_GROUP); 0: the
  /// default (8 with masks that skip key blocks, else 1).
  int attentionTileGroup = 0;
  /// TG_ATTENTION_SPLITS: the chunks the split-key (decode) attention kernel cuts the keys
  /// into (attention_split.cuh); 0: the default (a wave of resident blocks or more, the last
  /// wave at least 90% full: EmitAttentionSplit.cpp).
  int attentionSplits = 0;
  /// TG_ATTENTION_SPLIT_BLOCKS: without TG_ATTENTION_SPLITS, the split-key kernel's blocks a
  /// multiprocessor in a wave, for choosing the chunks (0: its minimum blocks, below).
  int attentionSplitBlocks = 0;
  /// TG_ATTENTION_SPLIT_UNROLL: 16-byte loads of keys (and as many of values) a lane issues for
  /// one tile of the split-key kernel (0: the default, 4, or 2 with many rows).
  int attentionSplitUnroll = 0;
  /// TG_ATTENTION_SPLIT_PREFETCH=1: the split-key kernel loads a warp's next tile before
  /// computing this one (attention_split.cuh's TG_SPLIT_PREFETCH); 0: the default (off).
  int attentionSplitPrefetch = 0;
  /// TG_ATTENTION_SPLIT_MIN_BLOCKS: the split-key kernel's blocks a multiprocessor for
  /// __launch_bounds__ (a register cap); 0: the default (2 with few rows, else 1).
  int attentionSplitMinBlocks = 0;
  /// TG_PDL=1: programmatic dependent launch on sm_90+ (each kernel waits for its predecessor
  /// with griddepcontrol; launches and CUDA graph edges let it start early:
  /// Plan::programmaticLaunches). Off by default until measured on the GPU.
  int pdl = 0;
};

/// The knobs set in the environment (unset or empty variables keep the defaults).
Tuning tuningFromEnvironment();

}  // namespace tg::codegen
