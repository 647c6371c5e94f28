# libFuzzer target for the compilation-database scanner of rank/.
if(CMAKE_C_COMPILER_ID STREQUAL "Clang" AND CASTLS_SANITIZE)
  # Only the scanner's own source is compiled in (instrumented for
  # coverage); the rest comes from the rank library, uninstrumented.
  add_executable(fuzz_includes ${CMAKE_CURRENT_LIST_DIR}/fuzz_includes.c
                 ${PROJECT_SOURCE_DIR}/rank/includes.c)
  castls_strict(fuzz_includes)
  target_include_directories(fuzz_includes PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_options(fuzz_includes PRIVATE -fsanitize=fuzzer)
  target_link_options(fuzz_includes PRIVATE -fsanitize=fuzzer)
  target_link_libraries(fuzz_includes PRIVATE rank)

  # A 10-second run from a corpus seeded with the regressions.
  set(FUZZ_INCLUDES_CORPUS ${CMAKE_CURRENT_BINARY_DIR}/fuzz-includes-corpus)
  add_test(NAME fuzz.includes
    COMMAND sh -c "rm -rf \"$1\" && mkdir -p \"$1\" && exec \"$0\" \
-max_total_time=10 -max_len=4096 \
-artifact_prefix=\"$2/fuzz-includes-\" \"$1\" \"$3\""
      $<TARGET_FILE:fuzz_includes> ${FUZZ_INCLUDES_CORPUS}
      ${CMAKE_CURRENT_BINARY_DIR}
      ${CMAKE_CURRENT_LIST_DIR}/regressions/includes)
  set_tests_properties(fuzz.includes PROPERTIES
    ENVIRONMENT "${SAN_ENV}" TIMEOUT 60)
endif()
