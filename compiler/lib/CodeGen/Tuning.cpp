//===- Tuning.cpp - The TG_* tuning knobs, read from the environment ------===//
#include "tg/CodeGen/Tuning.h"

#include <cstdlib>

namespace tg::codegen {

namespace {

void readString(const char* name, std::string& out) {
  if (const char* v = std::getenv(name); v && *v) out = v;
}

void readInt(const char* name, int& out) {
  if (const char* v = std::getenv(name); v && *v) out = std::atoi(v);
}

}  // namespace

Tuning tuningFromEnvironment() {
  Tuning t;
  readString("TG_MATMUL_PATH", t.matmulPath);
  readString("TG_GEMM_SCHEDULE", t.gemmSchedule);
  readInt("TG_GEMM_GROUP", t.gemmGroupM);
  readInt("TG_GEMM_CTAS", t.gemmCtas);
  readInt("TG_GEMM_DIRECT_STORE", t.gemmDirectStore);
  readInt("TG_BLOCK", t.elementwiseBlock);
  readInt("TG_UNROLL", t.elementwiseUnroll);
  readInt("TG_CACHE_HINT", t.cacheHint);
  readInt("TG_BLOCKS_PER_SM", t.blocksPerSm);
  readInt("TG_ROW_REGISTERS", t.rowRegisters);
  readInt("TG_ROW_MAX_GROUP", t.rowMaxGroup);
  readInt("TG_ROW_CLUSTER_GROUP", t.rowClusterGroup);
  readInt("TG_PDL", t.pdl);
  readInt("TG_ATTENTION_CLUSTER", t.attentionCluster);
  readInt("TG_ATTENTION_PINGPONG", t.attentionPingpong);
  readInt("TG_ATTENTION_TILE_GROUP", t.attentionTileGroup);
  readInt("TG_ATTENTION_SPLITS", t.attentionSplits);
  readInt("TG_ATTENTION_SPLIT_BLOCKS", t.attentionSplitBlocks);
  readInt("TG_ATTENTION_SPLIT_UNROLL", t.attentionSplitUnroll);
  readInt("TG_ATTENTION_SPLIT_PREFETCH", t.attentionSplitPrefetch);
  readInt("TG_ATTENTION_SPLIT_MIN_BLOCKS", t.attentionSplitMinBlocks);
  return t;
}

}  // namespace tg::codegen
