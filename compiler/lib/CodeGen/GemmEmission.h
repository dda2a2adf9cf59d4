//===- GemmEmission.h - Pieces of the matmul emitters (internal) ----------===//
#pragma once

#include "KernelEmission.h"

#include <string>

namespace tg::codegen {

/// TgBody members `element(i, acc)` and `store(b, m, n, v0, v1)`: the fused elementwise
/// consumers of `mm` inside `fusion`, applied to accumulators and written to every result.
/// The body must declare kM, kN, in<i> and out<j>.
mlir::FailureOr<std::string> emitGemmEpilogue(ir::FusionOp fusion, ir::MatmulOp mm,
                                              const CodeGenOptions& options);

/// The Hopper path (tg.path = "wgmma"): templates/matmul_wgmma.cuh with TMA tensor maps.
mlir::FailureOr<KernelEmission> emitMatmulWgmma(ir::FusionOp fusion, ir::MatmulOp mm,
                                                const std::string& name,
                                                const CodeGenOptions& options);

}  // namespace tg::codegen
