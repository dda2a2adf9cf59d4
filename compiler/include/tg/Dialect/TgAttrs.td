//===- TgAttrs.td - What the passes hand to code generation -*- tablegen -*-===//
//
// Typed attributes with named accessors: a pass records its decision on the IR (where the
// dump shows it) and code generation reads it back, with no attribute name or field spelled
// twice.
//
//===----------------------------------------------------------------------===//
#ifndef TG_DIALECT_TGATTRS_TD
#define TG_DIALECT_TGATTRS_TD

include "tg/Dialect/TgBase.td"
include "mlir/IR/AttrTypeBase.td"

def Tg_MatmulConfigAttr : AttrDef<Tg_Dialect, "MatmulConfig"> {
  let mnemonic = "matmul";
  let summary = "the kernel tg-select-matmul chose for a gemm fusion";
  let description = [{
    `path`: the kernel (wgmma, mma_sync, simt, gemv, gemv_mma); `arch`: the NVRTC target it
    was chosen for; `tile`: block rows, columns and K-block (gemv: rows a thread group, threads
    a row, threads a block; gemv_mma: 16 rows, 8 or 16 vectors, warps splitting K); `stages`:
    shared-memory pipeline stages (0 for simt, gemv and gemv_mma); `schedule`: how a wgmma
    kernel's consumers share tiles (`none` otherwise); `kmajor_copy`: the operands the kernels
    before this one copy K-major ("", "A", "B" or "A, B"); `reason`: why not a faster path
    ("" when none applies).

    ```mlir
    #tg.matmul<path = wgmma, arch = "sm_90a", tile = array<i64: 128, 256, 64>, stages = 4,
               schedule = cooperative, kmajor_copy = "", reason = "">
    ```
  }];
  let parameters = (ins
    EnumParameter<Tg_MatmulPath>:$path,
    StringRefParameter<"the NVRTC target">:$arch,
    "::mlir::DenseI64ArrayAttr":$tile,
    "int64_t":$stages,
    EnumParameter<Tg_GemmSchedule>:$schedule,
    StringRefParameter<"the operands copied K-major">:$kmajor_copy,
    StringRefParameter<"why not a faster path">:$reason
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

// The buffer kinds are the runtime's own (rt::PlanBuffer::Kind): the plan the code generator
// builds from these attributes uses them as they are.
def Tg_BufferKindParameter : AttrParameter<"::tg::rt::PlanBuffer::Kind", "where a value lives"> {
  let parser = [{ [&]() -> ::mlir::FailureOr<::tg::rt::PlanBuffer::Kind> {
      const ::llvm::SMLoc loc = $_parser.getCurrentLocation();
      ::llvm::StringRef name;
      if (::mlir::failed($_parser.parseKeyword(&name))) return ::mlir::failure();
      if (auto kind = ::tg::rt::bufferKindFromName(name)) return *kind;
      $_parser.emitError(loc) << "unknown buffer kind '" << name
                              << "' (input, constant, output, arena, alias, check_flag)";
      return ::mlir::failure();
    }() }];
  let printer = [{ $_printer << ::tg::rt::bufferKindName($_self) }];
}

def Tg_BufferAttr : AttrDef<Tg_Dialect, "Buffer"> {
  let mnemonic = "buffer";
  let summary = "where tg-assign-buffers put one result of an op";
  let description = [{
    `kind`: an input (`index`: the argument), a constant (uploaded once), an output (`index`:
    the result), a temporary at byte `offset` of the per-call arena, or an alias of operand
    0's buffer (a reshape); `bytes`: its size. Unused fields are -1 (index) and 0 (offset).

    ```mlir
    tg.buffers = [#tg.buffer<kind = arena, index = -1, offset = 4096, bytes = 4096>]
    ```
  }];
  let parameters = (ins
    Tg_BufferKindParameter:$kind,
    "int64_t":$index,
    "int64_t":$offset,
    "int64_t":$bytes
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // TG_DIALECT_TGATTRS_TD
