# The chunker benchmark binary (tests/bench/bench_chunk.c), run by
# `make bench` through tests/bench/run against the release build. Built in
# every configuration so it cannot rot; no CTest entry, since timings
# under the sanitizers mean nothing.
add_executable(bench_chunk ${CMAKE_CURRENT_LIST_DIR}/bench_chunk.c)
castls_strict(bench_chunk)
target_link_libraries(bench_chunk PRIVATE chunker)
set_target_properties(bench_chunk PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})

# The index benchmark's in-process search binary, written separately.
include(${CMAKE_CURRENT_LIST_DIR}/bench_index.cmake OPTIONAL)
