# The eval harness's own unit tests (scorer, BM25, LSP client against a
# stand-in server, the task generators of every language). Included by
# tests/CMakeLists.txt; needs only python3.
add_test(NAME eval.scorer
  COMMAND python3 -m unittest discover -s ${CMAKE_CURRENT_LIST_DIR}
          -p "test_*.py")
set_tests_properties(eval.scorer PROPERTIES TIMEOUT 120)
