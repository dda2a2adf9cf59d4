# Static LLVM/MLIR linking.
#
# Debian builds LLVM with LLVM_LINK_LLVM_DYLIB=ON, so every static libMLIR*.a target names the
# shared `LLVM` (libLLVM.so, 150 MB, plus z3, icu, xml2) as an interface dependency. The GPU
# machine has no LLVM 22, so binaries we carry there must not need it. tg_make_mlir_static()
# rewrites that entry in every imported MLIR target to the few static LLVM components MLIR really
# uses, and links libstdc++/libgcc statically with --as-needed. The result needs only libc/libm
# (glibc >= 2.36). See BUILD-NOTES.md in the shared notes.
set(TG_LLVM_STATIC_COMPONENTS
  LLVMSupport LLVMDemangle LLVMCore LLVMBinaryFormat LLVMRemarks LLVMBitstreamReader
  LLVMTargetParser)

function(tg_make_mlir_static)
  get_property(imported DIRECTORY "${CMAKE_SOURCE_DIR}" PROPERTY IMPORTED_TARGETS)
  set(rewritten 0)
  foreach(target IN LISTS imported)
    if(NOT target MATCHES "^(MLIR|mlir_)")
      continue()
    endif()
    get_target_property(libs ${target} INTERFACE_LINK_LIBRARIES)
    if(NOT libs)
      continue()
    endif()
    set(new_libs "")
    set(changed FALSE)
    foreach(lib IN LISTS libs)
      if(lib STREQUAL "LLVM" OR lib STREQUAL "$<LINK_ONLY:LLVM>")
        list(APPEND new_libs ${TG_LLVM_STATIC_COMPONENTS})
        set(changed TRUE)
      else()
        list(APPEND new_libs "${lib}")
      endif()
    endforeach()
    if(changed)
      list(REMOVE_DUPLICATES new_libs)
      set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${new_libs}")
      math(EXPR rewritten "${rewritten} + 1")
    endif()
  endforeach()
  message(STATUS "tg: static LLVM: rewrote the LLVM dependency of ${rewritten} MLIR targets")
  add_link_options(-Wl,--as-needed -static-libstdc++ -static-libgcc)
endfunction()
