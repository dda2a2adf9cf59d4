//===- EmitMatmulWgmma.cpp - CUDA C++ for a gemm tg.fusion on Hopper -------===//
//
// The `wgmma` path chosen by tg-select-matmul on sm_90a for bf16/f16, and for f32 read as TF32
// when both operands are K-major: templates/matmul_wgmma.cuh specialised by macros, the
// `tg_wgmma` wrapper of one wgmma.mma_async instruction (its 64 x N x 16 (2-byte) or 64 x N x 8
// (TF32) shape, dtype and operand majorness are immediates), a TgBody whose store() is the
// fused epilogue, and the TMA tensor maps of A and B, which the executor encodes over the
// run's buffers. Operands in memory:
//   A [batch..] M x K (K-major) or, with transpose_a, K x M (M-major: wgmma transposes);
//   B [batch..] K x N (N-major: wgmma transposes) or, with transpose_b, N x K (K-major).
// wgmma transposes 2-byte operands only, so f32 takes A M x K and B N x K. A k-block is 128
// bytes of K (64 two-byte or 32 f32 elements). A K-major operand is loaded as one box of a
// k-block x rows; an MN-major one as boxes of 64 MN x 64 K. Both land in the 128-byte swizzled
// layout wgmma's descriptors describe.
//
//===----------------------------------------------------------------------===//
#include "GemmEmission.h"
#include "SizeArguments.h"
#include "ScalarMath.h"

#include "tg/Dialect/LayoutChain.h"
#include "tg/Dialect/SymbolicTypes.h"

#include <algorithm>
#include <sstream>

using namespace mlir;

namespace tg::codegen {

std::string wgmmaWrapper(const std::string& name, int bn, DType dtype, bool transA, bool transB, bool registerA) {
  const int regs = bn / 2;
  const bool tf32 = dtype == DType::F32;
  const char* t = tf32 ? "tf32" : dtype == DType::BF16 ? "bf16" : "f16";
  // Operands: the accumulators, then A (a descriptor, or four registers of packed pairs), B's
  // descriptor and the accumulate flag.
  const int a = regs, b = registerA ? regs + 4 : regs + 1, flag = b + 1;
  std::ostringstream os;
  os << "__device__ __forceinline__ void " << name << "(float (&d)[" << regs << "], "
     << (registerA ? "const unsigned (&a)[4]" : "unsigned long long da") << ", unsigned long long db, int accumulate) {\n";
  os << "  asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" << flag << ", 0;\\n\"\n";
  os << "      \"wgmma.mma_async.sync.aligned.m64n" << bn << (tf32 ? "k8" : "k16") << ".f32." << t << "."
     << t << " {";
  for (int i = 0; i < regs; ++i) os << (i ? ", " : "") << "%" << i;
  os << "}, ";
  if (registerA)
    os << "{%" << a << ", %" << a + 1 << ", %" << a + 2 << ", %" << a + 3 << "}";
  else
    os << "%" << a;
  os << ", %" << b << ", p, 1, 1";
  if (!tf32) os << (registerA ? "" : transA ? ", 1" : ", 0") << ", " << (transB ? 1 : 0);
  os << ";\\n}\\n\"\n      : ";
  for (int i = 0; i < regs; ++i) os << (i ? ", " : "") << "\"+f\"(d[" << i << "])";
  os << "\n      : ";
  if (registerA)
    os << "\"r\"(a[0]), \"r\"(a[1]), \"r\"(a[2]), \"r\"(a[3])";
  else
    os << "\"l\"(da)";
  os << ", \"l\"(db), \"r\"(accumulate));\n}\n";
  return os.str();
}

namespace {

/// f32 operands are described as TF32, so TMA hands wgmma its input format.
rt::TensorMapSpec::Type mapType(DType d) {
  return d == DType::BF16 ? rt::TensorMapSpec::Type::BF16
         : d == DType::F16 ? rt::TensorMapSpec::Type::F16
                           : rt::TensorMapSpec::Type::TF32;
}

}  // namespace

rt::TensorMapSpec wgmmaOperandMap(DType d, int64_t batch, int64_t rows, int64_t cols, uint32_t boxCols,
                                  uint32_t boxRows) {
  const uint64_t esize = dtype_size(d);
  rt::TensorMapSpec s;
  s.type = mapType(d);
  s.rank = batch > 0 ? 3 : 2;
  s.dims[0] = static_cast<uint64_t>(cols);
  s.dims[1] = static_cast<uint64_t>(rows);
  s.dims[2] = static_cast<uint64_t>(batch > 0 ? batch : 1);
  s.strides[0] = static_cast<uint64_t>(cols) * esize;
  s.strides[1] = static_cast<uint64_t>(rows * cols) * esize;
  s.box[0] = boxCols;
  s.box[1] = boxRows;
  s.box[2] = 1;
  s.swizzle128 = true;
  return s;
}

void makeSymbolic(rt::PlanTensorMap& map, const SizeExpr& batch, const SizeExpr& rows, int64_t cols, int64_t esize) {
  map.symbolicDims = {SizeExpr(cols), rows, batch};
  map.symbolicStrides = {SizeExpr(cols * esize), rows * SizeExpr(cols * esize)};
}

FailureOr<KernelEmission> emitMatmulWgmma(ir::FusionOp fusion, ir::MatmulOp mm,
                                          ir::MatmulConfigAttr config, const std::string& name,
                                          const CodeGenOptions& options, const SymbolicSizes* symbolic) {
  DenseI64ArrayAttr tile = config.getTile();
  const int bm = static_cast<int>(tile[0]), bn = static_cast<int>(tile[1]), bk = static_cast<int>(tile[2]);
  const int stages = static_cast<int>(config.getStages());
  const bool pingpong = config.getSchedule() == ir::GemmSchedule::pingpong;
  if (pingpong && bn > 128)
    return fusion.emitOpError("a ping-pong wgmma tile is at most 128 x 128: each consumer holds a whole tile");
  if (bm != 128 || bn % 64 != 0 || bn < 64 || bn > 256)
    return fusion.emitOpError("wgmma tile must be 128 x {64..256 step 64} x (128 bytes of K)");
  // The operands: inputs, or windows of inputs a view holds (the tensor maps are encoded over
  // the launch's pointers, the views included).
  FailureOr<GemmProblem> problem = gemmProblem(fusion, mm);
  if (failed(problem)) return failure();
  const int ia = problem->inputA, ib = problem->inputB;
  auto ta = cast<RankedTensorType>(mm.getA().getType()), tb = cast<RankedTensorType>(mm.getB().getType());
  auto tc = cast<RankedTensorType>(mm.getType());
  const int64_t ra = ta.getRank(), rb = tb.getRank(), rc = tc.getRank();
  const int64_t N = tc.getShape()[rc - 1];
  const bool transA = mm.getTransposeA(), transB = mm.getTransposeB();
  const int64_t K = transA ? ta.getShape()[ra - 2] : ta.getShape()[ra - 1];
  // M and the batch: numbers, or over dynamic dims sizes of the symbols (their largest values
  // in M and batch, for the checks and the summary); N and K are static (tg-select-matmul).
  SizeExpr sizeM(tc.getShape()[rc - 2]), sizeBatch(1);
  if (symbolic) {
    const std::vector<SizeExpr> dims = symbolic->dims(mm.getResult());
    sizeM = dims[rc - 2];
    for (int64_t d = 0; d + 2 < rc; ++d) sizeBatch = sizeBatch * dims[d];
    if (ShapedType::isDynamic(N) || ShapedType::isDynamic(K) || transA || ir::isSymbolic(mm.getB().getType()))
      return fusion.emitOpError("over dynamic dims, a wgmma matmul takes N, K and B static and A not transposed");
  } else {
    sizeBatch = SizeExpr(tc.getNumElements() / std::max<int64_t>(1, tc.getShape()[rc - 2] * N));
  }
  const std::optional<int64_t> largestM = symbolic ? symbolic->largest(sizeM) : sizeM.constant();
  const std::optional<int64_t> largestBatch = symbolic ? symbolic->largest(sizeBatch) : sizeBatch.constant();
  if (!largestM || !largestBatch) return fusion.emitOpError("has a matmul whose sizes overflow over the symbols' ranges");
  const int64_t M = *largestM, batch = *largestBatch;
  auto sizeText = [&](const SizeExpr& e) {
    return symbolic && !e.isConstant() ? e.str(symbolic->names) : std::to_string(*e.constant());
  };
  const DType dt = dtypeOfValue(mm.getA());
  if (dt != DType::BF16 && dt != DType::F16 && dt != DType::F32)
    return fusion.emitOpError("the wgmma path takes bf16, f16 or f32 (as TF32) operands");
  if (dt == DType::F32 && (transA || !transB))
    return fusion.emitOpError("the wgmma path takes f32 operands only K-major (A M x K, B N x K): "
                              "wgmma transposes 2-byte operands only");
  const int esize = static_cast<int>(dtype_size(dt));
  if (bk * esize != 128)
    return fusion.emitOpError("wgmma tile K must be 128 bytes: ") << 128 / esize << " elements of this dtype, not " << bk;

  const int64_t tilesM = (M + bm - 1) / bm, tilesN = (N + bn - 1) / bn;
  std::ostringstream os;
  os << wgmmaWrapper("tg_wgmma", bn, dt, transA, !transB, /*registerA=*/false);
  os << "struct TgBody {\n";
  if (symbolic)  // M and the batch are the size arguments after the pointers
    os << "  static constexpr long long kN = " << N << "ll, kK = " << K << "ll, kTilesN = " << tilesN << "ll;\n";
  else
    os << "  static constexpr long long kM = " << M << "ll, kN = " << N << "ll, kK = " << K
       << "ll, kBatch = " << batch << "ll, kTilesN = " << tilesN << "ll;\n";
  os << gemmBodyPointers(fusion);
  if (symbolic)
    os << "  long long m_, batch_;\n"
       << "  __device__ __forceinline__ long long rowsM() const { return m_; }\n"
       << "  __device__ __forceinline__ long long batches() const { return batch_; }\n";
  else
    os << "  __device__ __forceinline__ long long batches() const { return kBatch; }\n";
  // Over dynamic dims the epilogue's reads through layouts take run-time extents: size
  // arguments after M and the batch.
  std::optional<SizeArguments> sizeArgs;
  if (symbolic) sizeArgs.emplace(*symbolic);
  FailureOr<std::string> epilogue = emitGemmEpilogue(fusion, mm, options, symbolic, sizeArgs ? &*sizeArgs : nullptr);
  if (failed(epilogue)) return failure();
  os << *epilogue;
  if (sizeArgs) os << sizeArgs->members();
  os << "};\n";

  KernelEmission e;
  addOperandViews(*problem, fusion, e);
  // A: K-major unless transposed; B: K-major only when transposed.
  const int64_t batchA = ra > 2 ? batch : 0, batchB = rb > 2 ? batch : 0;
  const uint32_t kBox = static_cast<uint32_t>(bk);
  e.tensorMaps.push_back({ia, transA ? wgmmaOperandMap(dt, batchA, K, M, 64, 64)
                                     : wgmmaOperandMap(dt, batchA, M, K, kBox, static_cast<uint32_t>(bm))});
  if (symbolic) makeSymbolic(e.tensorMaps.back(), batchA ? sizeBatch : SizeExpr(1), sizeM, K, esize);
  e.tensorMaps.push_back({ib, transB ? wgmmaOperandMap(dt, batchB, N, K, kBox, static_cast<uint32_t>(bn))
                                     : wgmmaOperandMap(dt, batchB, K, N, 64, 64)});

  // A single 2-byte result whose rows TMA can address is staged in shared memory and stored by
  // TMA, overlapping the next tile's mainloop (the direct stores cost ~12% at 8192x4096x4096),
  // unless Tuning::gemmDirectStore (TG_GEMM_DIRECT_STORE) asks for direct stores.
  const DType resultType = dtypeOfValue(fusion.getResult(0));
  const bool tmaStore = !options.tuning.gemmDirectStore && fusion.getNumResults() == 1 &&
                        dtype_size(resultType) == 2 && N % 8 == 0;
  const int64_t batchC = rc > 2 ? batch : 0;
  if (tmaStore) {
    rt::TensorMapSpec c = wgmmaOperandMap(resultType, batchC, M, N, 64, 64);
    e.tensorMaps.push_back({static_cast<int>(fusion.getNumOperands()), c});
    if (symbolic)
      makeSymbolic(e.tensorMaps.back(), batchC ? sizeBatch : SizeExpr(1), sizeM, N,
                   static_cast<int64_t>(dtype_size(resultType)));
  }
  std::ostringstream summary;
  summary << "gemm (wgmma" << (dt == DType::F32 ? " TF32" : "") << " + TMA, tile " << bm << "x" << bn << "x" << bk << ", " << stages
          << " stages, " << (pingpong ? "ping-pong" : "cooperative") << "): " << sizeText(sizeBatch) << " x ["
          << sizeText(sizeM) << " x " << K << "] @ [" << K << " x " << N << "]"
          << (transA ? " A^T" : "") << (transB ? " B^T" : "");
  const int epilogueOps = gemmEpilogueOps(fusion);
  if (epilogueOps) summary << " + " << epilogueOps << " epilogue op(s)";
  summary << (tmaStore ? ", TMA-store epilogue" : ", direct-store epilogue");
  e.kernel.name = name;
  e.kernel.summary = summary.str();
  std::ostringstream defines;
  // Tile rows per group of the tile order: the template's 8 unless Tuning::gemmGroupM
  // (TG_GEMM_GROUP) says otherwise (4 and 16 measured no better on the H200).
  if (options.tuning.gemmGroupM > 0) defines << "#define TG_GROUP_M " << options.tuning.gemmGroupM << "\n";
  defines << "#define TG_ESIZE " << esize << "\n#define TG_BM " << bm << "\n#define TG_BN " << bn << "\n#define TG_BK " << bk
          << "\n#define TG_STAGES " << stages << "\n#define TG_A_KMAJOR " << (transA ? 0 : 1)
          << "\n#define TG_B_KMAJOR " << (transB ? 1 : 0) << "\n#define TG_RANK_A "
          << (batchA ? 3 : 2) << "\n#define TG_RANK_B " << (batchB ? 3 : 2) << "\n#define TG_RANK_C "
          << (batchC ? 3 : 2) << "\n#define TG_TMA_STORE " << (tmaStore ? 1 : 0) << "\n#define TG_PINGPONG "
          << (pingpong ? 1 : 0) << "\n";
  e.kernel.source = kernelHeader(name, summary.str()) + defines.str() + os.str() + tmaTemplate() + matmulWgmmaTemplate();
  // Persistent: at most one CTA per SM (the shared memory allows no more), tiles walked in turn.
  // The fewest CTAs that still finish in the same number of rounds: every CTA gets the same
  // number of tiles (1024 tiles: 128 CTAs x 8, not 132 with some idle in the last round),
  // measured 0.5-2% faster on the H200. Tuning::gemmCtas (TG_GEMM_CTAS) overrides it.
  const int64_t tiles = tilesM * tilesN * batch;
  if (tiles >= (int64_t(1) << 31))  // the template walks tiles with an int
    return fusion.emitOpError("has ") << tiles << " wgmma tiles; the kernel counts them in 32 bits";
  const int64_t sms = std::max(1, options.smCount);
  const int64_t rounds = (tiles + sms - 1) / sms;
  int64_t ctas = (tiles + rounds - 1) / rounds;
  if (options.tuning.gemmCtas > 0) ctas = options.tuning.gemmCtas;
  e.dims.grid[0] = static_cast<uint32_t>(std::min<int64_t>(tiles, ctas));
  if (symbolic) {  // the same rule at each run's tiles: ceil(M / bm) x tilesN x batch
    const bool tuned = options.tuning.gemmCtas > 0;
    e.symbolicGrid.push_back({sizeM, bm, tuned ? int64_t(options.tuning.gemmCtas) : sms, sizeBatch * SizeExpr(tilesN), !tuned});
    e.sizes = {sizeM, sizeBatch};
    e.sizes.insert(e.sizes.end(), sizeArgs->exprs().begin(), sizeArgs->exprs().end());
  }
  e.dims.block[0] = 384;
  // The stages, the epilogue's buffers, 1 KiB to align them, two mbarriers per stage and, for
  // ping-pong, the two that order the consumers' mainloops.
  e.dims.sharedBytes = static_cast<uint32_t>(stages * (bm + bn) * bk * esize + (tmaStore ? 4 * 64 * 64 * 2 : 0) +
                                             1024 + 16 * stages + (pingpong ? 16 : 0));
  if (e.dims.sharedBytes > 232448)
    return fusion.emitOpError("wgmma tile needs ") << e.dims.sharedBytes
           << " bytes of shared memory, more than the 227 KiB a block may use";
  return e;
}

}  // namespace tg::codegen
