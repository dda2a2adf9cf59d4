//===- SelectMatmul.cpp - Choose each matmul's code path and tile ----------===//
//
// Paths:
//  `gemv`      a matmul bound by the bytes of one operand stored with K contiguous: x @ w^T
//              (w [N, K]) with M at most 16, or A @ x (A [M, K]) with N at most 16, in f32,
//              bf16 or f16 (tg/Dialect/Gemv.h): f32 with up to 16 vectors, two-byte operands
//              with 1-2 (and up to 8 where gemv_mma does not apply). Each row of the matrix is
//              streamed once in 16-byte loads by a group of threads splitting K, against the
//              vectors held in registers (templates/gemv.cuh). The tile is [rows per thread
//              group, threads per row, threads per block]: threads per row the power of two
//              that leaves each thread at least two 16-byte chunks of a row (at most 256), 1,
//              2 or 4 rows per group for 1-2, 3-8 and more vectors (the vectors' loads are
//              shared by a group's rows), 128 threads a block; fewer rows per group, then
//              fewer threads per block, while that leaves under two blocks per SM.
//  `gemv_mma`  the same problems in bf16/f16 with 3 to 16 vectors, K a whole number of 16-byte
//              chunks, on sm_80 and newer (f32 stays on the CUDA cores: faster there as
//              measured, and exact): mma.sync takes 16 rows
//              against 8 vectors at a time, where the CUDA cores' multiply-adds would bound the
//              kernel (templates/gemv_mma.cuh). The tile is [16, 8 or 16 vectors, warps
//              splitting K: one per 4 steps of a warp's 64 bytes a row, at most 8].
//              Both gemv kernels read an operand at an offset, so an operand that a copy
//              kernel took as a contiguous window of a larger value (a layer's keys from a
//              [layers, heads, positions, dim] cache) is read there in place: the window's
//              layout chain moves into the gemm, and the copy kernel goes.
//  `wgmma`     sm_90a: bf16/f16 operands, or f32 ones read as TF32 when both are K-major
//              (A [M, K], B [N, K]: wgmma transposes only 2-byte operands), whose rows TMA
//              can address (every row stride a multiple of 16 bytes: the contiguous dim of
//              each operand a multiple of 8 two-byte or 4 f32 elements): tensor cores fed by
//              TMA through a multi-stage mbarrier pipeline, f32 accumulation, fused epilogue
//              (templates/matmul_wgmma.cuh). K-blocks of 128 bytes (64 two-byte or 32 f32
//              elements). Tile 128 x 256 with 4 stages when that still gives about a wave of
//              tiles, else 128 x 128 with 6 stages; `tg.schedule` "cooperative".
//              TG_GEMM_SCHEDULE=pingpong picks the ping-pong schedule (128 x 128, 6 stages).
//  `mma_sync`  sm_80 and newer: bf16/f16 operands on targets other than sm_90a, and f32
//              operands as TF32 where wgmma does not take them, unless the `tf32` option is
//              off (Precision::Accurate); every operand row must be a multiple of 16 bytes,
//              so that cp.async copies it in 16-byte pieces (templates/matmul_mma.cuh). K
//              slabs of 64 bytes (32 two-byte or 16 f32 elements), 4 stages; 128 x 128 tiles
//              (8 warps) when that gives about a wave of tiles, else 64 x 64 (4 warps).
//  `simt`      everything else: a shared-memory tiled kernel with f32 accumulation on the CUDA
//              cores, correct for every dtype, shape and target. 64x64 tiles when that gives
//              at least one block per SM-sized share of the work, 32x32 otherwise.
// f32 on sm_90a with an MN-major operand (A @ B, B stored [K, N]; or A stored [K, M]) in a
// problem big enough to amortise it gets a K-major copy of that operand first: an elementwise
// fusion holding one tg.transpose, which codegen serves with a tiled transpose kernel
// (templates/transpose.cuh); the gemm then reads the copy on the wgmma path and records
// `tg.kmajor_copy` ("A", "B" or "A, B").
// `tg.path_reason` says why a matmul did not get a tensor-core path, or on sm_90a why it got
// mma_sync rather than wgmma. TG_MATMUL_PATH=mma_sync
// or =simt in the environment forces that path where its conditions hold, so each kernel can
// be tested on any GPU (mma_sync for bf16 on an H200, say).
//
// Over dynamic dims (a function with tg.symbols, issue 18): a matmul whose result has the
// symbols only in its rows (M) and batch dims, with N, K and B static (a layer's weights) and
// A [.., M, K] read whole from one input, takes the wgmma path with the tile chosen for the
// largest M and batch of the ranges (the sizes where time matters); its kernel takes M and the
// batch as arguments and the runtime encodes the tensor maps at each size. Where that tile is
// 128 x 256 and the ranges reach rows (batch x M) that make fewer than 100 such tiles, a
// guarded variant with the 128 x 128 tile serves those rows (`tg.matmul_small`, taken where
// the rows are at most `tg.matmul_small_rows`): one compile, both kernels, chosen at each call.
// Any other matmul over dynamic dims is an error naming why (the function is then compiled
// per signature).
//
//===----------------------------------------------------------------------===//
#include "tg/Dialect/SymbolicTypes.h"
#include "tg/Support/DType.h"
#include "tg/Dialect/Gemv.h"
#include "tg/Dialect/LayoutChain.h"
#include "tg/Transforms/Passes.h"

#include "llvm/ADT/SetVector.h"

#include <algorithm>
#include <cstdlib>

namespace tg {
#define GEN_PASS_DEF_TGSELECTMATMUL
#include "tg/Transforms/Passes.h.inc"
}  // namespace tg

using namespace mlir;

namespace tg {
namespace {

/// The compute capability of "sm_80", "sm_86", "sm_90a", ... as 80, 86, 90 (0 if unknown).
int smVersion(const std::string& arch) {
  if (arch.rfind("sm_", 0) != 0) return 0;
  return std::atoi(arch.c_str() + 3);
}

/// Why the rows of A and B cannot be copied in 16-byte pieces (empty: they can). `copier`
/// names the unit that needs it ("TMA", "cp.async").
std::string whyUnaligned(ir::MatmulOp mm, const std::string& copier) {
  auto ta = cast<RankedTensorType>(mm.getA().getType());
  auto tb = cast<RankedTensorType>(mm.getB().getType());
  const int64_t perChunk = 16 / (ta.getElementType().getIntOrFloatBitWidth() / 8);
  auto check = [&](const char* name, RankedTensorType t) -> std::string {
    if (t.getShape().back() % perChunk == 0) return {};
    return std::string(name) + "'s rows (" + std::to_string(t.getShape().back()) +
           " elements) are not a multiple of " + std::to_string(perChunk) + ", so " + copier +
           " cannot load them";
  };
  std::string why = check("A", ta);
  return why.empty() ? check("B", tb) : why;
}

/// Why `mm` cannot take the wgmma path on `arch` (empty: it can).
std::string whyNotWgmma(ir::MatmulOp mm, const std::string& arch, bool tf32) {
  if (arch != "sm_90a") return "wgmma needs sm_90a (target " + arch + ")";
  Type e = cast<RankedTensorType>(mm.getA().getType()).getElementType();
  if (e.isF32()) {
    if (!tf32) return "Precision::Accurate keeps f32 matmuls in full f32";
    // wgmma transposes 2-byte operands only: TF32 reads both with K contiguous.
    if (mm.getTransposeA() || !mm.getTransposeB())
      return std::string("wgmma reads f32 (as TF32) only from K-major operands, A [M, K] and B [N, K] "
                         "(x @ w^T); here ") +
             (mm.getTransposeA() ? "A is [K, M]" : "B is [K, N]");
  } else if (!e.isBF16() && !e.isF16()) {
    return "wgmma takes bf16, f16 or f32 operands";
  }
  return whyUnaligned(mm, "TMA");
}

/// Why `mm` cannot take the mma_sync path on `arch` (empty: it can).
std::string whyNotMmaSync(ir::MatmulOp mm, const std::string& arch, bool tf32) {
  if (smVersion(arch) < 80)
    return "the tensor-core paths need sm_80 or newer (target " + arch + ")";
  Type e = cast<RankedTensorType>(mm.getA().getType()).getElementType();
  if (e.isF32() && !tf32) return "Precision::Accurate keeps f32 matmuls in full f32";
  if (!e.isBF16() && !e.isF16() && !e.isF32())
    return "the tensor-core paths take bf16, f16 or f32 operands";
  return whyUnaligned(mm, "cp.async");
}

/// Whether `mm` reads or makes a tensor with dynamic dims.
bool overDynamicDims(ir::MatmulOp mm) {
  return ir::isSymbolic(mm.getA().getType()) || ir::isSymbolic(mm.getB().getType()) || ir::isSymbolic(mm.getType());
}

/// Over dynamic dims: why `mm` cannot be generated for the symbols' ranges (empty: it can, on
/// the wgmma path). See the file's header.
std::string whyNotOverDynamicDims(ir::MatmulOp mm, const std::string& arch, bool tf32, const std::string& forcePath) {
  auto ta = cast<RankedTensorType>(mm.getA().getType());
  auto tc = cast<RankedTensorType>(mm.getType());
  if (ShapedType::isDynamic(tc.getShape().back())) return "its result's columns (N) depend on the symbols";
  if (mm.getTransposeA()) return "A is read transposed ([K, M]), with M depending on the symbols";
  if (ShapedType::isDynamic(ta.getShape().back())) return "K depends on the symbols";
  if (ta.getShape().back() == 0) return "K is 0";
  if (ir::isSymbolic(mm.getB().getType())) return "B depends on the symbols (only A's rows and the batch may)";
  if (!forcePath.empty()) return "only the wgmma path is generated over them, and the path is forced to " + forcePath;
  if (std::string why = whyNotWgmma(mm, arch, tf32); !why.empty())
    return "only the wgmma path is generated over them: " + why;
  LayoutChain chain = traceLayout(mm.getA());
  if (!chain.linear || !isa<BlockArgument>(chain.root)) return "A is not read whole from one input (a window or a copy)";
  return {};
}

/// The gemv view of `mm` when it takes a gemv path (above): a K-contiguous matrix against at
/// most 16 vectors, f32, bf16 or f16.
std::optional<GemvShape> gemvCandidate(ir::MatmulOp mm) {
  std::optional<GemvShape> g = gemvShape(mm);
  if (!g || g->k == 0) return std::nullopt;
  Type e = cast<RankedTensorType>(mm.getA().getType()).getElementType();
  if (!e.isF32() && !e.isBF16() && !e.isF16()) return std::nullopt;
  return g;
}

/// Whether the gemv candidate `g` of `mm` runs on tensor cores (gemv_mma): bf16/f16 with 3 or
/// more vectors, K a whole number of 16-byte chunks, sm_80 or newer. Otherwise the CUDA-core
/// kernel takes up to 16 f32 or 8 two-byte vectors (empty: neither applies). f32 stays on the
/// CUDA cores, in full f32: on the H200 that measured faster than gemv_mma's TF32 for 16
/// vectors (50.7 vs 61.4 us at 16 x 4096 x 4096, benchmarks/RESULTS.md), and exact.
std::string gemvKernel(ir::MatmulOp mm, const GemvShape& g, const std::string& arch, bool tf32) {
  (void)tf32;
  Type e = cast<RankedTensorType>(mm.getA().getType()).getElementType();
  const int64_t per = e.isF32() ? 4 : 8;
  if (!e.isF32() && g.vectors >= 3 && g.k % per == 0 && smVersion(arch) >= 80) return "gemv_mma";
  if (g.vectors <= (e.isF32() ? kGemvMaxVectors : 8)) return "gemv";
  return {};
}

/// The gemv_mma tile of `g`: [16 rows, the vectors rounded up to 8 or 16, warps splitting K:
/// one per 4 steps of 4 16-byte chunks a row, at most 8].
SmallVector<int64_t, 3> gemvMmaTile(const GemvShape& g, int64_t elemBytes) {
  const int64_t step = 4 * (16 / elemBytes);
  const int64_t steps = (g.k + step - 1) / step;
  return {16, g.vectors <= 8 ? 8 : 16, std::clamp<int64_t>(steps / 4, 1, 8)};
}

/// The gemv tile of `g` for operands of `elemBytes` bytes: [rows per thread group, threads
/// per row, threads per block].
SmallVector<int64_t, 3> gemvTile(const GemvShape& g, int64_t elemBytes) {
  const int64_t per = 16 / elemBytes;
  const int64_t chunks = g.k % per == 0 ? g.k / per : g.k;
  int64_t tpr = 1;
  while (tpr < 256 && tpr * 4 <= chunks) tpr *= 2;  // at least two chunks a thread
  int64_t rpg = g.vectors <= 2 ? 1 : g.vectors <= 8 ? 2 : 4;
  int64_t threads = std::max<int64_t>(tpr, 128);
  auto blocks = [&] {
    const int64_t rows = threads / tpr * rpg;
    return g.batch * ((g.rows + rows - 1) / rows);
  };
  constexpr int64_t kEnoughBlocks = 264;  // two per SM of an H100 / H200
  while (rpg > 1 && blocks() < kEnoughBlocks) rpg /= 2;
  while (threads / 2 >= std::max<int64_t>(tpr, 32) && blocks() < kEnoughBlocks) threads /= 2;
  return {rpg, tpr, threads};
}

/// Copies operand `index` (0: A, 1: B) of `mm`, a block argument of the gemm `fusion`, into a
/// K-major tensor with a copy kernel (buildLayoutCopy of a tg.transpose of its last two dims)
/// placed before the fusion, and makes `mm` read the copy: A stored [K, M] becomes [M, K], B
/// stored [K, N] becomes [N, K].
void copyToKMajor(ir::FusionOp fusion, ir::MatmulOp mm, int index) {
  auto arg = cast<BlockArgument>(mm->getOperand(index));
  Value outer = fusion.getInputs()[arg.getArgNumber()];
  auto type = cast<RankedTensorType>(outer.getType());
  const int64_t rank = type.getRank();
  SmallVector<int64_t> perm, shape(type.getShape());
  for (int64_t d = 0; d < rank; ++d) perm.push_back(d < rank - 2 ? d : (d == rank - 2 ? rank - 1 : rank - 2));
  std::swap(shape[rank - 2], shape[rank - 1]);
  auto copyType = RankedTensorType::get(shape, type.getElementType());

  OpBuilder b(fusion);
  auto transposed = ir::TransposeOp::create(b, fusion.getLoc(), copyType, outer, b.getDenseI64ArrayAttr(perm));
  ir::FusionOp copy = buildLayoutCopy(b, transposed);  // clones the transpose inside
  transposed.erase();

  fusion->insertOperands(fusion->getNumOperands(), ValueRange{copy.getResult(0)});
  Value copied = fusion.getBody().addArgument(copyType, fusion.getLoc());
  mm->setOperand(index, copied);
  if (index == 0)
    mm.setTransposeA(false);
  else
    mm.setTransposeB(true);
}

/// Makes the gemv `fusion` read operand `index` (0: A, 1: B) of `mm` where a copy kernel took
/// it from: when that kernel (an elementwise fusion of layout ops alone) copies a contiguous
/// window of its input (reshapes and slices that keep whole trailing dims: a layer's keys in a
/// [layers, heads, positions, dim] cache), the chain moves inside `fusion`, which reads the
/// window in place (gemmProblem's offset), and the copy kernel goes when nothing else reads it.
/// Returns the copy when it became unused. The gemv kernels take any offset (in their code);
/// the others (`anyOffset` false: simt, mma_sync, wgmma's TMA maps) only one a view holds
/// whole, where the window is all the fusion reads of the copied value: the launch then adds
/// it to the pointer (gemmProblem).
ir::FusionOp readWindowInPlace(ir::FusionOp fusion, ir::MatmulOp mm, int index, bool anyOffset) {
  LayoutChain inner = traceLayout(mm->getOperand(index));
  auto arg = dyn_cast<BlockArgument>(inner.root);
  if (!arg || !inner.linear) return {};
  if (!anyOffset && (!arg.hasOneUse() || !llvm::all_of(inner.ops, [](Operation* op) { return op->hasOneUse(); })))
    return {};
  auto copy = fusion.getInputs()[arg.getArgNumber()].getDefiningOp<ir::FusionOp>();
  if (!copy || copy.getKind() != ir::FusionKind::elementwise || copy->getNumResults() != 1 ||
      copy.getInputs().size() != 1)
    return {};
  Block& copyBody = copy.getBody().front();
  for (Operation& op : copyBody.without_terminator())
    if (!isLayoutOp(&op)) return {};
  LayoutChain window = traceLayout(cast<ir::YieldOp>(copyBody.getTerminator()).getOperand(0));
  std::optional<int64_t> offset = window.root == copyBody.getArgument(0) ? contiguousWindowOffset(window) : std::nullopt;
  if (!offset) return {};
  const auto elementBytes = static_cast<int64_t>(cast<RankedTensorType>(arg.getType()).getElementTypeBitWidth() / 8);
  if (!anyOffset && viewPart(*offset, elementBytes) != *offset) return {};

  fusion->insertOperands(fusion->getNumOperands(), ValueRange{copy.getInputs()[0]});
  Block& body = fusion.getBody().front();
  Value whole = body.addArgument(copy.getInputs()[0].getType(), fusion.getLoc());
  OpBuilder b = OpBuilder::atBlockBegin(&body);
  IRMapping map;
  map.map(copyBody.getArgument(0), whole);
  for (Operation* op : llvm::reverse(window.ops)) b.clone(*op, map);
  arg.replaceAllUsesWith(map.lookup(cast<ir::YieldOp>(copyBody.getTerminator()).getOperand(0)));
  return copy.getResult(0).use_empty() || llvm::all_of(copy.getResult(0).getUsers(), [&](Operation* u) { return u == fusion; })
             ? copy
             : ir::FusionOp();
}

/// Drops the inputs of `fusion` that nothing inside it reads any more.
void dropUnusedInputs(ir::FusionOp fusion) {
  Block& body = fusion.getBody().front();
  for (unsigned i = body.getNumArguments(); i-- > 0;)
    if (body.getArgument(i).use_empty()) {
      body.eraseArgument(i);
      fusion->eraseOperand(i);
    }
}

/// Why the f32 `mm` of `fusion` keeps its MN-major operands rather than getting K-major copies
/// that let wgmma read it as TF32 (empty: copy them). A copy moves 8 bytes per element (read
/// and write) and saves the GEMM about 2 M (for B; 2 N for A) flops' worth of mma.sync time
/// per element: at the H200's rates (~3 TB/s for a copy, ~350 TFLOP/s for TF32 wgmma, ~90
/// on mma.sync) it pays from M (N) of about 160; 256 leaves a margin, and problems under
/// 2^27 multiply-adds (all batches) stay one kernel.
std::string whyNoKMajorCopy(ir::FusionOp fusion, ir::MatmulOp mm) {
  auto isArg = [&](Value v) {
    auto a = dyn_cast<BlockArgument>(v);
    return a && a.getOwner() == &fusion.getBody().front();
  };
  if ((mm.getTransposeA() && !isArg(mm.getA())) || (!mm.getTransposeB() && !isArg(mm.getB())))
    return "the operand is reshaped inside the kernel, so it is not copied";
  auto tc = cast<RankedTensorType>(mm.getType());
  auto ta = cast<RankedTensorType>(mm.getA().getType());
  const int64_t m = tc.getShape()[tc.getRank() - 2], n = tc.getShape().back();
  const int64_t k = mm.getTransposeA() ? ta.getShape()[ta.getRank() - 2] : ta.getShape().back();
  if (k % 4 != 0) return "K is not a multiple of 4, so a K-major copy's rows would not be 16-byte aligned";
  // Each operand is within 2^48 bytes, but the product of the three dims need not fit int64.
  std::optional<int64_t> work = checked_mul(tc.getNumElements(), k);
  if (work && *work < (int64_t(1) << 27)) return "too small for a K-major copy to pay";
  if (!mm.getTransposeB() && m < 256) return "M < 256: too few rows for a K-major copy of B to pay";
  if (mm.getTransposeA() && n < 256) return "N < 256: too few columns for a K-major copy of A to pay";
  return {};
}

struct TgSelectMatmulPass final : impl::TgSelectMatmulBase<TgSelectMatmulPass> {
  using Base::Base;

  void runOnOperation() override {
    // Over dynamic dims: the symbols' ranges (the tiles are chosen for their largest sizes).
    std::optional<ir::Symbols> symbols;
    if (getOperation()->hasAttr(ir::kSymbolsAttr)) {
      std::string error;
      symbols = ir::symbolsOf(getOperation(), error);
      if (!symbols) {
        getOperation().emitError("tg-select-matmul: ") << error;
        return signalPassFailure();
      }
    }
    if (!forcePath.empty() && forcePath != "mma_sync" && forcePath != "simt") {
      getOperation().emitError("tg-select-matmul: path '")
          << forcePath << "' is not mma_sync or simt (TG_MATMUL_PATH sets it)";
      return signalPassFailure();
    }
    if (!forceSchedule.empty() && forceSchedule != "cooperative" && forceSchedule != "pingpong") {
      getOperation().emitError("tg-select-matmul: schedule '")
          << forceSchedule << "' is not cooperative or pingpong (TG_GEMM_SCHEDULE sets it)";
      return signalPassFailure();
    }
    // f32 on sm_90a: MN-major operands get K-major copies where that pays, so that wgmma can
    // read them as TF32 (the walk below then picks wgmma); elsewhere the reason is kept.
    llvm::DenseMap<Operation*, std::string> noCopy, copied;
    if (arch == "sm_90a" && tf32 && forcePath.empty()) {
      SmallVector<ir::FusionOp> gemms;
      getOperation().walk([&](ir::FusionOp f) {
        if (f.getKind() == ir::FusionKind::gemm) gemms.push_back(f);
      });
      for (ir::FusionOp f : gemms) {
        ir::MatmulOp mm;
        f.getBody().walk([&](ir::MatmulOp m) { mm = m; });
        if (mm && overDynamicDims(mm)) continue;  // K-major already, or refused below
        std::optional<GemvShape> gv = mm ? gemvCandidate(mm) : std::nullopt;
        if (!mm || !cast<RankedTensorType>(mm.getA().getType()).getElementType().isF32() ||
            !whyUnaligned(mm, "TMA").empty() || (!mm.getTransposeA() && mm.getTransposeB()) ||
            (gv && !gemvKernel(mm, *gv, arch, tf32).empty()))
          continue;
        std::string why = whyNoKMajorCopy(f, mm);
        if (!why.empty()) {
          noCopy[f] = why;
          continue;
        }
        const bool copyA = mm.getTransposeA(), copyB = !mm.getTransposeB();
        const bool same = mm.getA() == mm.getB();  // x^T @ x: both copies would be x^T
        if (copyA) copyToKMajor(f, mm, 0);
        if (copyB && copyA && same) {
          mm->setOperand(1, mm.getA());
          mm.setTransposeB(true);
        } else if (copyB) {
          copyToKMajor(f, mm, 1);
        }
        dropUnusedInputs(f);
        // The operands the kernels before this one copied, for the dump.
        copied[f] = copyA && copyB ? "A, B" : copyA ? "A" : "B";
      }
    }

    llvm::SetVector<Operation*> windowCopies;  // copy kernels the gemv kernels made unused
    getOperation().walk([&](ir::FusionOp fusion) {
      if (fusion.getKind() != ir::FusionKind::gemm) return;
      ir::MatmulOp matmul;
      fusion.getBody().walk([&](ir::MatmulOp m) { matmul = m; });
      if (!matmul) {
        fusion.emitOpError("gemm fusion without a matmul");
        return signalPassFailure();
      }
      auto type = cast<RankedTensorType>(matmul.getType());
      const Type operandType = cast<RankedTensorType>(matmul.getA().getType()).getElementType();
      ArrayRef<int64_t> shape = type.getShape();
      int64_t m = shape[shape.size() - 2], n = shape.back();
      int64_t batch = 1;
      const bool dynamic = overDynamicDims(matmul);
      if (dynamic) {
        // Chosen for the largest M and batch of the ranges.
        const std::string why = symbols ? whyNotOverDynamicDims(matmul, arch, tf32, forcePath) : "no tg.symbols";
        std::vector<std::string> names = symbols ? symbols->names : std::vector<std::string>{};
        const std::vector<SizeExpr> sizes = ir::sizesOf(type, names);
        SizeExpr batches(1);
        for (size_t d = 0; d + 2 < sizes.size(); ++d) batches = batches * sizes[d];
        std::optional<int64_t> largestM = symbols ? ir::largestValue(sizes[sizes.size() - 2], *symbols) : std::nullopt;
        std::optional<int64_t> largestBatch = symbols ? ir::largestValue(batches, *symbols) : std::nullopt;
        if (!why.empty() || !largestM || !largestBatch) {
          matmul.emitError("tg-select-matmul: a matmul over dynamic dims that tg does not generate: ")
              << (why.empty() ? std::string("its sizes overflow") : why);
          return signalPassFailure();
        }
        m = *largestM;
        batch = *largestBatch;
      } else {
        batch = type.getNumElements() / std::max<int64_t>(1, m * n);
      }
      // Blocks of a bm x bn tile; about 100 of them is a wave on the GPUs tg targets.
      auto tiles = [&](int64_t bm, int64_t bn) { return batch * ((m + bm - 1) / bm) * ((n + bn - 1) / bn); };
      Builder b(&getContext());

      // Decide: the forced path where it applies, else wgmma, mma_sync, simt in that order.
      const std::string notWgmma = whyNotWgmma(matmul, arch, tf32);
      const std::string notMma = whyNotMmaSync(matmul, arch, tf32);
      std::string path, why;
      const int64_t k = matmul.getTransposeA()
                            ? cast<RankedTensorType>(matmul.getA().getType()).getShape().end()[-2]
                            : cast<RankedTensorType>(matmul.getA().getType()).getShape().back();
      if (dynamic) {
        path = "wgmma";
      } else if (k == 0) {
        // Nothing to multiply: the simt kernel's K loop runs no step and its epilogue sees
        // zeros (a TMA descriptor, or a cp.async slab, cannot have a zero extent).
        path = "simt", why = "K = 0: the result is the epilogue of zeros";
      } else if (forcePath == "simt") {
        path = "simt", why = "forced (path=simt, TG_MATMUL_PATH)";
      } else if (forcePath == "mma_sync" && notMma.empty()) {
        path = "mma_sync";
      } else if (std::optional<GemvShape> gv = gemvCandidate(matmul);
                 gv && !gemvKernel(matmul, *gv, arch, tf32).empty()) {
        path = gemvKernel(matmul, *gv, arch, tf32);
      } else if (notWgmma.empty()) {
        path = "wgmma";
      } else if (notMma.empty()) {
        path = "mma_sync";
        if (arch == "sm_90a" && forcePath.empty()) {  // why not the faster path
          why = notWgmma;
          if (auto it = noCopy.find(fusion); it != noCopy.end()) why += "; " + it->second;
        }
      } else {
        // The reason of the path this matmul would have taken: wgmma for 16-bit on sm_90a.
        path = "simt", why = (arch == "sm_90a" && !operandType.isF32()) ? notWgmma : notMma;
      }

      // Build: record the path, tile, stages and schedule (#tg.matmul on the fusion).
      ir::MatmulPath kernel = ir::MatmulPath::simt;
      ir::GemmSchedule schedule = ir::GemmSchedule::none;
      int64_t stages = 0;
      SmallVector<int64_t, 3> tile;
      if (path == "gemv") {
        kernel = ir::MatmulPath::gemv;
        tile = gemvTile(*gemvCandidate(matmul), operandType.getIntOrFloatBitWidth() / 8);
      } else if (path == "gemv_mma") {
        kernel = ir::MatmulPath::gemv_mma;
        tile = gemvMmaTile(*gemvCandidate(matmul), operandType.getIntOrFloatBitWidth() / 8);
      } else if (path == "wgmma") {
        // Cooperative (both consumers on each 128 x 256 tile) unless TG_GEMM_SCHEDULE=pingpong
        // asks for ping-pong (each consumer its own 128 x 128 tile, one's epilogue overlapping
        // the other's mainloop). Measured on the H200 at 8192x4096x4096 with bias + gelu
        // (RESULTS.md): cooperative 370 us, ping-pong 381; the branch-free epilogue is short
        // enough that the smaller tile costs more than the overlap gains.
        // A k-block is 128 bytes of K (one swizzled row): 64 two-byte or 32 f32 elements, so
        // the stages hold the same bytes for every dtype.
        kernel = ir::MatmulPath::wgmma;
        schedule = forceSchedule == "pingpong" ? ir::GemmSchedule::pingpong : ir::GemmSchedule::cooperative;
        const int64_t bn = schedule == ir::GemmSchedule::cooperative && tiles(128, 256) >= 100 ? 256 : 128;
        const int64_t bk = operandType.isF32() ? 32 : 64;
        tile = {128, bn, bk};
        stages = bn == 256 ? 4 : 6;
      } else if (path == "mma_sync") {
        // 64-byte K slabs: 4 stages of a 128 x 128 tile take 64 KiB of shared memory, which
        // fits every sm_80-class GPU (sm_86 / sm_89 allow 99 KiB per block).
        kernel = ir::MatmulPath::mma_sync;
        const int64_t bk = operandType.isF32() ? 16 : 32;
        const int64_t t = tiles(128, 128) >= 100 ? 128 : 64;
        tile = {t, t, bk};
        stages = 4;
      } else {
        // 64x64 tiles unless that leaves the device mostly idle (fewer than ~100 tiles).
        const int64_t t = tiles(64, 64) >= 100 ? 64 : 32;
        tile = {t, t, 16};
      }
      {
        // The kernels read an operand at an offset (gemmProblem): a contiguous window needs no
        // copy. The gemv paths take any offset, the others one a view holds.
        const bool gemv = path == "gemv" || path == "gemv_mma";
        for (int index : {0, 1}) {
          if (ir::isSymbolic(matmul->getOperand(index).getType())) continue;  // read whole (whyNotOverDynamicDims)
          if (ir::FusionOp copy = readWindowInPlace(fusion, matmul, index, gemv)) windowCopies.insert(copy);
        }
        dropUnusedInputs(fusion);
      }
      auto found = copied.find(fusion);
      fusion.setMatmulAttr(ir::MatmulConfigAttr::get(
          &getContext(), kernel, arch, b.getDenseI64ArrayAttr(tile), stages, schedule,
          found == copied.end() ? "" : found->second, why));
      // Over dynamic dims, the 128 x 256 tile of the largest sizes leaves most SMs idle where
      // the rows make few tiles: a guarded variant with the 128 x 128 tile (as a static compile
      // would choose there) serves rows up to the last count of 128-row blocks that gives fewer
      // than 100 tiles of 128 x 256.
      if (dynamic && kernel == ir::MatmulPath::wgmma && tile[1] == 256) {
        std::vector<std::string> names = symbols->names;
        const std::vector<SizeExpr> sizes = ir::sizesOf(type, names);
        SizeExpr rows(1);
        for (size_t d = 0; d + 1 < sizes.size(); ++d) rows = rows * sizes[d];
        const int64_t blocksUpTo = 99 / ((n + 255) / 256);
        const std::optional<int64_t> fewest = rows.evaluate(symbols->min);
        if (blocksUpTo > 0 && fewest && *fewest <= 128 * blocksUpTo) {
          fusion->setAttr(ir::kMatmulSmallAttr,
                          ir::MatmulConfigAttr::get(&getContext(), kernel, arch,
                                                    b.getDenseI64ArrayAttr({128, 128, tile[2]}), 6, schedule,
                                                    found == copied.end() ? "" : found->second, why));
          fusion->setAttr(ir::kMatmulSmallRowsAttr, b.getI64IntegerAttr(128 * blocksUpTo));
        }
      }
    });
    for (Operation* copy : windowCopies)
      if (copy->use_empty()) copy->erase();
  }
};

}  // namespace
}  // namespace tg
