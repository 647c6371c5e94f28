# The in-process search latency benchmark (tests/bench/bench_search.c),
# run by tests/bench/bench_index.py against a release build. Built in every
# configuration so it cannot rot; no CTest entry (timings under the
# sanitizers mean nothing). Include this file from tests/bench/tests.cmake.
if(TARGET index)
  add_executable(bench_search ${CMAKE_CURRENT_LIST_DIR}/bench_search.c)
  castls_strict(bench_search)
  target_include_directories(bench_search PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(bench_search PRIVATE index)
  set_target_properties(bench_search PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
endif()
