//===- EmitAttention.cpp - CUDA C++ for an attention tg.fusion ------------===//
//
// Generates `struct TgBody` for templates/attention.cuh from a tg-fuse-attention region:
// q is computed at (b, m, d) (through its layout chain, and the rotary embedding or other
// cheap ops the pass cloned with it), the keys and values as contiguous rows of a
// window of their inputs (16-byte loads when the rows, the window and the batch stride allow,
// else element loads), and the region's elementwise ops become score() (between q @ k^T and
// the softmax, on the f32 dot product) and prob() (between the softmax and p @ v), each value
// computed at the score's (b, m, s) by walking its operands through their layout chains.
// The cluster and the keys per block come from tg/Dialect/Attention.h, which the pass asked.
//
//===----------------------------------------------------------------------===//
#include "GemmEmission.h"
#include "PointWriter.h"
#include "ScalarMath.h"
#include "ScoreMask.h"

#include "tg/Dialect/Attention.h"
#include "tg/Dialect/LayoutChain.h"
#include "tg/Dialect/OpDescription.h"

#include "llvm/ADT/DenseMap.h"

#include <map>
#include <sstream>

using namespace mlir;

namespace tg::codegen {

void setAttentionViews(KernelEmission& e, ir::FusionOp fusion, const FewRowAttentionBody& body) {
  if (!body.kView && !body.vView) return;
  e.argumentByteOffsets.assign(fusion.getNumOperands() + fusion.getNumResults(), 0);
  e.argumentByteOffsets[body.kInput] = body.kView * static_cast<int64_t>(dtype_size(body.kType));
  e.argumentByteOffsets[body.vInput] = body.vView * static_cast<int64_t>(dtype_size(body.vType));
}

FailureOr<FewRowAttentionBody> fewRowAttentionBody(ir::FusionOp fusion, ir::MatmulOp scores, ir::MatmulOp values,
                                                   ir::SoftmaxOp softmax, const AttentionShape& shape,
                                                   const CodeGenOptions& options, bool split) {
  Block& body = fusion.getBody().front();
  FewRowAttentionBody r;
  // The keys and values: rows of contiguous windows of inputs.
  r.kType = dtypeOfValue(scores.getB());
  r.vType = dtypeOfValue(values.getB());
  const DType kType = r.kType, vType = r.vType;
  int64_t kOffset = 0, vOffset = 0;
  r.kInput = operandInput(scores.getB(), kType, /*windows=*/true, kOffset, r.kView);
  r.vInput = operandInput(values.getB(), vType, /*windows=*/true, vOffset, r.vView);
  if (r.kInput < 0 || r.vInput < 0)
    return fusion.emitOpError("attention keys and values must be contiguous windows of inputs");
  if (r.kInput == r.vInput && r.kView != r.vView)
    return fusion.emitOpError("attention keys and values read one input through two views");
  const int64_t kBatch = shape.keys * shape.dim, vBatch = shape.keys * shape.valueDim;
  const int64_t kPer = 16 / static_cast<int64_t>(dtype_size(kType)), vPer = 16 / static_cast<int64_t>(dtype_size(vType));
  // The cluster kernel: 16-byte loads where the rows, the window and the batch stride allow,
  // else element loads. The split kernel: a lane takes 16 bytes of a row either way, loaded
  // as one vector when the rows' addresses allow it (aligned(), asked at run time).
  r.kVec = split || (shape.dim % kPer == 0 && kOffset % kPer == 0 && kBatch % kPer == 0) ? kPer : 1;
  r.vVec = split || (shape.valueDim % vPer == 0 && vOffset % vPer == 0 && vBatch % vPer == 0) ? vPer : 1;

  std::ostringstream os;
  const Shape scoreShape = shapeOf(scores.getResult());
  std::string sfx;
  // Indices into every input too: q or a mask operand may be read from a larger tensor.
  int64_t bound = std::max({numelOf(scores.getResult()), numelOf(values.getResult()), numelOf(scores.getA())});
  for (BlockArgument arg : body.getArguments()) bound = std::max(bound, numelOf(arg));
  const std::string index = indexType(bound + 64, sfx);
  os << "struct TgBody {\n";
  os << "  typedef " << index << " EIndex;\n";
  os << "  static constexpr long long kBatch = " << shape.batch << "ll, kM = " << shape.rows
     << "ll, kS = " << shape.keys << "ll, kD = " << shape.dim << "ll, kDv = " << shape.valueDim << "ll;\n";
  os << "  static constexpr int kVecK = " << r.kVec << ", kVecV = " << r.vVec << ";\n";
  os << "  typedef " << storageType(kType) << " ElemK;\n  typedef " << storageType(vType) << " ElemV;\n";
  os << gemmBodyPointers(fusion);
  if (split) os << "  float* __restrict__ scratch;  // the chunks' partial results\n";
  os << "  static __device__ __forceinline__ float cvtK(ElemK e) { return " << loadConvert(kType, "e") << "; }\n";
  os << "  static __device__ __forceinline__ float cvtV(ElemV e) { return " << loadConvert(vType, "e") << "; }\n";
  if (split) os << "  static __device__ __forceinline__ ElemK toK(float f) { return " << storeConvert(kType, "f") << "; }\n";
  os << "  __device__ __forceinline__ const ElemK* keys(long long b) const { return in" << r.kInput << " + "
     << kOffset << "ll + b * " << kBatch << "ll; }\n";
  os << "  __device__ __forceinline__ const ElemV* values(long long b) const { return in" << r.vInput << " + "
     << vOffset << "ll + b * " << vBatch << "ll; }\n";
  if (split)  // every row's start: the window's and each batch's
    os << "  __device__ __forceinline__ bool aligned() const { return "
       << (kBatch % kPer == 0 && vBatch % vPer == 0 ? "tg_aligned16(keys(0)) && tg_aligned16(values(0))" : "false")
       << "; }\n";
  else
    os << "  __device__ __forceinline__ bool aligned() const { return tg_aligned16(in" << r.kInput
       << ") && tg_aligned16(in" << r.vInput << "); }\n";
  // The softmax's exp and division, as the decomposed softmax's kernels write them.
  os << "  static __device__ __forceinline__ float expo(float x) { return "
     << scalarExpr(graph::OpKind::Exp, {}, {"x"}, DType::F32, DType::F32, options.precision) << "; }\n";
  os << "  static __device__ __forceinline__ float divide(float a, float b) { return "
     << scalarExpr(graph::OpKind::Div, {}, {"a", "b"}, DType::F32, DType::F32, options.precision) << "; }\n";
  // q(b, m, d): mm1's A at its own index.
  {
    std::ostringstream fn;
    PointWriter w(fn, sfx, options.precision);
    FailureOr<std::string> v = w.at(scores.getA(), elementOf(shapeOf(scores.getA()), "m", "d"));
    if (failed(v)) return failure();
    os << "  __device__ __forceinline__ float q(EIndex b, EIndex m, EIndex d) const {\n    (void)b, (void)m, (void)d;\n"
       << fn.str() << "    return (float)" << *v << ";\n  }\n";
  }
  // score(b, m, s, acc): the softmax's input from the dot product.
  {
    std::ostringstream fn;
    PointWriter w(fn, sfx, options.precision);
    w.bind(scores.getResult(), "acc");
    FailureOr<std::string> v = w.at(softmax.getInput(), elementOf(scoreShape, "m", "s"));
    if (failed(v)) return failure();
    os << "  __device__ __forceinline__ float score(EIndex b, EIndex m, EIndex s, float acc) const {\n"
       << "    (void)b, (void)m, (void)s;\n" << fn.str() << "    return (float)" << *v << ";\n  }\n";
  }
  // prob(b, m, s, p): p @ v's left operand from the softmax.
  {
    std::ostringstream fn;
    PointWriter w(fn, sfx, options.precision);
    // A 16-bit softmax rounds its result, as the decomposed one does.
    const DType pType = dtypeOfValue(softmax.getResult());
    const bool round = pType == DType::BF16 || pType == DType::F16;
    w.bind(softmax.getResult(), round ? "pr" : "p");
    FailureOr<std::string> v = w.at(values.getA(), elementOf(scoreShape, "m", "s"));
    if (failed(v)) return failure();
    os << "  __device__ __forceinline__ float prob(EIndex b, EIndex m, EIndex s, float p) const {\n"
       << "    (void)b, (void)m, (void)s;\n";
    if (round) os << "    const float pr = " << (pType == DType::BF16 ? "tg_round_bf16(p)" : "tg_round_f16(p)") << ";\n";
    os << fn.str() << "    return (float)" << *v << ";\n  }\n";
  }
  const DType outType = dtypeOfValue(fusion.getResult(0));
  os << "  __device__ __forceinline__ void store(long long b, long long m, long long d, float v) const {\n"
     << "    out0[(b * kM + m) * kDv + d] = " << storeConvert(outType, "v") << ";\n  }\n";
  if (split)  // which key tiles and chunks a row may see (ScoreMask.h)
    os << "  __device__ __forceinline__ void blockMask(long long b, long long mLo, long long mHi, long long sLo, "
          "long long sHi, bool& mayVisible, bool& mayMasked) const {\n"
       << "    (void)b, (void)mLo, (void)mHi, (void)sLo, (void)sHi;\n"
       << blockMaskBody(findScoreMasks(softmax.getInput()), scores.getResult(), staticDimTexts()) << "  }\n";
  os << "};\n";
  r.text = os.str();
  return r;
}

FailureOr<KernelEmission> emitAttention(ir::FusionOp fusion, const std::string& name,
                                        const CodeGenOptions& options, const SymbolicSizes* symbolic) {
  Block& body = fusion.getBody().front();
  SmallVector<ir::MatmulOp, 2> matmuls;
  ir::SoftmaxOp softmax;
  for (Operation& op : body) {
    if (auto mm = dyn_cast<ir::MatmulOp>(op)) matmuls.push_back(mm);
    if (auto s = dyn_cast<ir::SoftmaxOp>(op)) softmax = s;
  }
  if (matmuls.size() != 2 || !softmax) return fusion.emitOpError("is not an attention (tg-fuse-attention)");
  ir::MatmulOp scores = matmuls[0], values = matmuls[1];
  const AttentionShape shape = attentionShape(scores, values);
  const int sm = archNumber(options.arch);
  const int64_t maxCluster = options.tuning.attentionCluster;
  if (std::string why = whyNotAttentionKernel(shape, sm, maxCluster); !why.empty())
    return fusion.emitOpError("attention kernel: ") << why;
  switch (attentionKernel(shape)) {
    case AttentionKernel::flash: return emitFlashAttention(fusion, scores, values, softmax, shape, name, options, symbolic);
    case AttentionKernel::split: return emitSplitAttention(fusion, scores, values, softmax, shape, name, options);
    case AttentionKernel::decode: break;
  }
  const int64_t cluster = attentionCluster(shape, sm, maxCluster);
  const int64_t share = (shape.keys + cluster - 1) / cluster;
  FailureOr<FewRowAttentionBody> tgBody = fewRowAttentionBody(fusion, scores, values, softmax, shape, options, false);
  if (failed(tgBody)) return failure();
  const DType kType = tgBody->kType, vType = tgBody->vType;
  const int64_t kVec = tgBody->kVec, vVec = tgBody->vVec;
  // Lanes per key: enough for the row's chunks, a power of two up to a warp.
  int64_t lanes = 1;
  while (lanes < 32 && lanes * kVec < shape.dim) lanes *= 2;

  // The block's keys and values staged in shared memory when their rows are 16-byte multiples
  // and they fit beside the rest (Attention.h's budget).
  const int64_t baseBytes = 4 * shape.rows * (shape.dim + share + shape.valueDim + 2) + 32;
  const int64_t stageBytes = share * (shape.dim * static_cast<int64_t>(dtype_size(kType)) +
                                      shape.valueDim * static_cast<int64_t>(dtype_size(vType)));
  const bool staged = kVec > 1 && vVec > 1 && sm >= 80 && baseBytes + stageBytes <= kAttentionSharedBytes;
  std::ostringstream summary;
  summary << "attention (" << cluster << " block(s) a batch, " << share << " key(s) each, "
          << (kVec > 1 ? "16-byte loads" : "element loads") << (staged ? ", staged" : "") << "): " << shape.batch << " x softmax([" << shape.rows
          << " x " << shape.dim << "] @ [" << shape.dim << " x " << shape.keys << "]) @ [" << shape.keys << " x "
          << shape.valueDim << "]";
  std::ostringstream defines;
  // 512 threads where the registers allow (a few rows): the kernel's steps are latency-bound
  // chains over a block's keys, and more threads shorten every one (measured on the H200:
  // 19 us with 128 threads for decode's 4 x [4 x 640] problem).
  const int kThreads = shape.rows <= 8 ? 512 : 256;
  defines << "#define TG_THREADS " << kThreads << "\n#define TG_CLUSTER " << cluster << "\n#define TG_SHARE "
          << share << "\n#define TG_LANES " << lanes << "\n#define TG_STAGED " << (staged ? 1 : 0) << "\n";
  KernelEmission e;
  e.kernel.name = name;
  e.kernel.summary = summary.str();
  e.kernel.source = kernelHeader(name, summary.str()) + defines.str() + tgBody->text + clusterTemplate() +
                    (staged ? std::string(asyncCopyTemplate()) : std::string()) + attentionTemplate();
  setAttentionViews(e, fusion, *tgBody);
  if (failed(setGrid(e, fusion, cluster, shape.batch))) return failure();
  e.dims.block[0] = kThreads;
  return e;
}

}  // namespace tg::codegen
