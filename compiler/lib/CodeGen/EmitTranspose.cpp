//===- EmitTranspose.cpp - CUDA C++ for a kernel that only transposes -----===//
//
// An elementwise fusion whose whole body is one tg.transpose of its input's last two dims (a
// copy made so that a later kernel reads the layout it needs: a K-major matmul operand, a
// transposed function result) gets templates/transpose.cuh, a tiled transpose through shared
// memory, instead of the elementwise skeleton's per-element gather.
//
//===----------------------------------------------------------------------===//
#include "KernelEmission.h"
#include "ScalarMath.h"

#include <sstream>

using namespace mlir;

namespace tg::codegen {

namespace {

/// The transpose `fusion` consists of, or null.
ir::TransposeOp soleTranspose(ir::FusionOp fusion) {
  if (fusion.getKind() != ir::FusionKind::elementwise || fusion.getNumOperands() != 1 ||
      fusion.getNumResults() != 1)
    return {};
  Block& body = fusion.getBody().front();
  if (body.getOperations().size() != 2) return {};
  auto t = dyn_cast<ir::TransposeOp>(body.front());
  if (!t || t.getInput() != body.getArgument(0)) return {};
  auto yield = cast<ir::YieldOp>(body.getTerminator());
  if (yield.getValues().size() != 1 || yield.getValues()[0] != t.getResult()) return {};
  ArrayRef<int64_t> perm = t.getPerm();
  const int64_t rank = static_cast<int64_t>(perm.size());
  if (rank < 2) return {};
  for (int64_t d = 0; d < rank - 2; ++d)
    if (perm[d] != d) return {};
  if (perm[rank - 2] != rank - 1 || perm[rank - 1] != rank - 2) return {};
  return t;
}

}  // namespace

bool isTransposeCopy(ir::FusionOp fusion) {
  ir::TransposeOp t = soleTranspose(fusion);
  if (!t) return false;
  auto type = cast<RankedTensorType>(t.getInput().getType());
  const int64_t rank = type.getRank(), rows = type.getShape()[rank - 2], cols = type.getShape()[rank - 1];
  const int64_t batch = type.getNumElements() / std::max<int64_t>(1, rows * cols);
  // The grid's y and z extents are at most 65535; rows and columns index as int.
  return rows > 1 && cols > 1 && (rows + 31) / 32 <= 65535 && batch <= 65535 &&
         rows < (int64_t(1) << 31) && cols < (int64_t(1) << 31);
}

FailureOr<KernelEmission> emitTransposeCopy(ir::FusionOp fusion, const std::string& name,
                                            const CodeGenOptions& options) {
  (void)options;
  ir::TransposeOp t = soleTranspose(fusion);
  if (!t || !isTransposeCopy(fusion)) return fusion.emitOpError("is not a transpose of its input's last two dims");
  auto type = cast<RankedTensorType>(t.getInput().getType());
  const int64_t rank = type.getRank(), rows = type.getShape()[rank - 2], cols = type.getShape()[rank - 1];
  const int64_t batch = type.getNumElements() / (rows * cols);
  const DType dt = dtypeOfValue(t.getInput());
  std::string sfx;
  const std::string index = indexType(type.getNumElements() + 64, sfx);

  std::ostringstream os;
  os << "struct TgBody {\n  typedef " << storageType(dt) << " T;\n  typedef " << index << " Index;\n"
     << "  const T* __restrict__ in0;\n  T* __restrict__ out0;\n};\n";
  std::ostringstream summary;
  summary << "transpose (32 x 32 tiles through shared memory): " << batch << " x [" << rows << " x "
          << cols << "] -> [" << cols << " x " << rows << "] " << dtype_name(dt);
  KernelEmission e;
  e.kernel.name = name;
  e.kernel.summary = summary.str();
  std::ostringstream defines;
  defines << "#define TG_ROWS " << rows << "\n#define TG_COLS " << cols << "\n";
  e.kernel.source = kernelHeader(name, summary.str()) + defines.str() + os.str() + transposeTemplate();
  if (failed(setGrid(e, fusion, (cols + 31) / 32, (rows + 31) / 32, batch))) return failure();
  e.dims.block[0] = 256;
  return e;
}

}  // namespace tg::codegen
