# tg_embed_files(OUTPUT <file.cpp> NAMESPACE <ns> FILES <name>=<path> ...): generates, at build
# time, a C++ file defining one `const char* <name>()` per file that returns the file's text
# (EmbedFiles.cmake does the writing). The compiler embeds its kernel templates this way, the
# runtime its own kernels.
function(tg_embed_files)
  cmake_parse_arguments(EMBED "" "OUTPUT;NAMESPACE" "FILES" ${ARGN})
  set(paths)
  foreach(entry IN LISTS EMBED_FILES)
    string(REPLACE "=" ";" parts "${entry}")
    list(GET parts 1 path)
    list(APPEND paths ${path})
  endforeach()
  string(REPLACE ";" "|" files_arg "${EMBED_FILES}")
  add_custom_command(
    OUTPUT ${EMBED_OUTPUT}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${EMBED_OUTPUT} -DNAMESPACE=${EMBED_NAMESPACE}
            "-DFILES=${files_arg}" -P ${PROJECT_SOURCE_DIR}/cmake/EmbedFiles.cmake
    DEPENDS ${paths} ${PROJECT_SOURCE_DIR}/cmake/EmbedFiles.cmake
    COMMENT "Embedding ${EMBED_NAMESPACE} sources"
    VERBATIM)
endfunction()
