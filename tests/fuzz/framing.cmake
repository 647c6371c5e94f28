# framing.cmake: the libFuzzer target for the LSP framer, included from
# tests/fuzz/tests.cmake. Clang only, since libFuzzer ships with it.
#
# lsp/framing.c is compiled into the target rather than taken from the lsp
# library: -fsanitize=fuzzer instruments only the sources of this target
# for coverage, and the lsp library must stay uninstrumented for castls.
# The rest (the allocator in base/base.c) comes from base, which lsp
# links too.
if(CMAKE_C_COMPILER_ID STREQUAL "Clang" AND TARGET lsp)
  add_executable(fuzz_framing
    ${CMAKE_CURRENT_LIST_DIR}/fuzz_framing.c
    ${PROJECT_SOURCE_DIR}/lsp/framing.c)
  castls_strict(fuzz_framing)
  # On top of the project-wide ASan/UBSan flags when CASTLS_SANITIZE is on.
  target_compile_options(fuzz_framing PRIVATE -fsanitize=fuzzer)
  target_link_options(fuzz_framing PRIVATE -fsanitize=fuzzer)
  target_link_libraries(fuzz_framing PRIVATE chunker)
  set_target_properties(fuzz_framing PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
  # A short, deterministic smoke run; a long run is by hand:
  #   build/fuzz_framing -max_total_time=600 CORPUS_DIR
  add_test(NAME fuzz.framing
           COMMAND fuzz_framing -runs=30000 -seed=1 -max_len=2048)
  set_tests_properties(fuzz.framing PROPERTIES
    ENVIRONMENT "${SAN_ENV}" TIMEOUT 300)
endif()
