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

def Tg_SymbolAttr : AttrDef<Tg_Dialect, "Symbol"> {
  let mnemonic = "symbol";
  let summary = "a dynamic dimension of a function: its name and the sizes it may take";
  let description = [{
    One entry of a function's `tg.symbols` (JitOptions::dynamic): the symbol's name (letters,
    digits and `_`, not starting with a digit) and its range, `min` to `max` inclusive
    (1 <= min <= max). A symbol's number, which tg::SizeExpr uses, is its position in the
    list.

    ```mlir
    func.func @f(...) attributes {tg.symbols = [#tg.symbol<"batch", 1, 256>,
                                                #tg.symbol<"seq", 1, 8192>]}
    ```
  }];
  let parameters = (ins
    StringRefParameter<"the symbol's name">:$name,
    "int64_t":$min,
    "int64_t":$max
  );
  let assemblyFormat = "`<` $name `,` $min `,` $max `>`";
  let genVerifyDecl = 1;
}

def Tg_SizesAttr : AttrDef<Tg_Dialect, "Sizes"> {
  let mnemonic = "sizes";
  let summary = "each dim of a tensor as a polynomial of the function's symbols";
  let description = [{
    The extents of a tensor with dynamic dims, one tg::SizeExpr per dim: integers, symbol
    names, `+`, `-` and `*`. Stored as canonical text: the terms ordered with the symbols
    numbered by name, so two attributes are equal exactly when their polynomials are.

    ```mlir
    #tg.sizes<[batch*seq, 64]>
    #tg.sizes<[4*T, T - 1]>
    ```
  }];
  let parameters = (ins StringRefParameter<"the canonical text of the sizes">:$text);
  let hasCustomAssemblyFormat = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    // The canonical attribute of `sizes`, whose symbol i is names[i].
    AttrBuilder<(ins "::llvm::ArrayRef<::tg::SizeExpr>":$sizes,
                     "::llvm::ArrayRef<std::string>":$names)>
  ];
  let extraClassDeclaration = [{
    /// The sizes, with the symbols numbered by `names` (names not in it are appended).
    std::vector<::tg::SizeExpr> getSizes(std::vector<std::string>& names) const;
  }];
}

#endif // TG_DIALECT_TGATTRS_TD
