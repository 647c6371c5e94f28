# libFuzzer targets. The LSP framer's lives in framing.cmake (optional, so
# this file stands on its own); the chunker's is below. Both need clang,
# which ships libFuzzer.
include(${CMAKE_CURRENT_LIST_DIR}/framing.cmake OPTIONAL)
include(${CMAKE_CURRENT_LIST_DIR}/dispatch.cmake OPTIONAL)
include(${CMAKE_CURRENT_LIST_DIR}/mcp.cmake OPTIONAL)
include(${CMAKE_CURRENT_LIST_DIR}/includes.cmake OPTIONAL)

if(CMAKE_C_COMPILER_ID STREQUAL "Clang" AND CASTLS_SANITIZE)
  # The chunker's sources are compiled into the target rather than taken
  # from the chunker library: -fsanitize=fuzzer instruments only this
  # target's own sources for coverage, and the library must stay
  # uninstrumented for everything else. The grammars are linked as they
  # are (ASan still covers them).
  file(GLOB FUZZ_CHUNKER_SOURCES CONFIGURE_DEPENDS
       ${PROJECT_SOURCE_DIR}/chunker/*.c)
  add_executable(fuzz_chunker ${CMAKE_CURRENT_LIST_DIR}/fuzz_chunker.c
                 ${FUZZ_CHUNKER_SOURCES})
  castls_strict(fuzz_chunker)
  target_include_directories(fuzz_chunker PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_options(fuzz_chunker PRIVATE -fsanitize=fuzzer)
  target_link_options(fuzz_chunker PRIVATE -fsanitize=fuzzer)
  # base/ is a library of its own, built without coverage: its byte
  # loops (counting non-whitespace, hashing) would take a fifth of each
  # execution traced comparison by comparison, and guide nothing.
  target_link_libraries(fuzz_chunker PRIVATE base grammars)

  # A 20-second run from a fresh corpus seeded with tests/fixtures; a
  # crash leaves its input as fuzz-chunker-crash-* in this directory.
  # `make fuzz` runs longer and keeps its corpus in build/fuzz-corpus.
  set(FUZZ_CHUNKER_CORPUS ${CMAKE_CURRENT_BINARY_DIR}/fuzz-chunker-corpus)
  add_test(NAME fuzz.chunker
    COMMAND sh -c "rm -rf \"$1\" && mkdir -p \"$1\" && exec \"$0\" \
-max_total_time=20 -max_len=8192 \
-artifact_prefix=\"$2/fuzz-chunker-\" \"$1\" \"$3\""
      $<TARGET_FILE:fuzz_chunker> ${FUZZ_CHUNKER_CORPUS}
      ${CMAKE_CURRENT_BINARY_DIR} ${PROJECT_SOURCE_DIR}/tests/fixtures)
  set_tests_properties(fuzz.chunker PROPERTIES
    ENVIRONMENT "${SAN_ENV}" TIMEOUT 120)

  # Inputs that once found a bug, each run once (-runs=0 executes a
  # corpus and stops): a fix that regresses fails here at once.
  add_test(NAME fuzz.chunker_regressions
    COMMAND fuzz_chunker -runs=0
      ${CMAKE_CURRENT_LIST_DIR}/regressions/chunker)
  set_tests_properties(fuzz.chunker_regressions PROPERTIES
    ENVIRONMENT "${SAN_ENV}" TIMEOUT 60)
endif()
