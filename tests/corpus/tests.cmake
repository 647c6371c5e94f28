# Chunker property tests over real corpora (tests/corpus/proptest.c). The
# corpora are laid out by `tests/corpus/fetch build/corpus`, which
# `make test` runs before CTest; a missing corpus fails with a message
# saying so rather than passing vacuously.
add_executable(proptest_chunker ${CMAKE_CURRENT_LIST_DIR}/proptest.c)
castls_strict(proptest_chunker)
target_link_libraries(proptest_chunker PRIVATE chunker)

set(CORPUS_DIR ${PROJECT_SOURCE_DIR}/build/corpus)

# name, timeout in seconds, then the arguments.
function(castls_corpus_test name timeout)
  add_test(NAME corpus.${name}
           COMMAND proptest_chunker ${ARGN})
  set_tests_properties(corpus.${name} PROPERTIES
    ENVIRONMENT "${SAN_ENV}" TIMEOUT ${timeout})
endfunction()

# At the default max_size: every file. Under ASan+UBSan on 2 cores the
# stdlib (about 1800 files, 31 MB) takes about 30 s, the others a few
# seconds each; the timeouts leave room for a loaded machine.
castls_corpus_test(python 600 ${CORPUS_DIR}/python)
castls_corpus_test(typescript 300 ${CORPUS_DIR}/ts)
castls_corpus_test(bash 300 --lang bash ${CORPUS_DIR}/bash)
castls_corpus_test(markdown 300 ${CORPUS_DIR}/markdown)
# Issue 18's languages, from Debian packages (tests/corpus/fetch): about
# 5 to 17 MB each, under 10 s each under ASan+UBSan. Most kernel and
# Boost files have syntax errors the grammars recover from: they must
# still tile and nest.
castls_corpus_test(go 300 ${CORPUS_DIR}/go)
castls_corpus_test(rust 300 ${CORPUS_DIR}/rust)
castls_corpus_test(java 300 ${CORPUS_DIR}/java)
castls_corpus_test(c 300 ${CORPUS_DIR}/c)
castls_corpus_test(cpp 300 ${CORPUS_DIR}/cpp)

# At a small max_size, where nearly every definition must be split and
# long lines are cut into pieces. Cheap enough for every file too.
castls_corpus_test(python_small 600
  --max-size 300 ${CORPUS_DIR}/python)
castls_corpus_test(typescript_small 300
  --max-size 300 ${CORPUS_DIR}/ts)
castls_corpus_test(bash_small 300
  --max-size 300 --lang bash ${CORPUS_DIR}/bash)
castls_corpus_test(markdown_small 300
  --max-size 300 ${CORPUS_DIR}/markdown)
castls_corpus_test(go_small 300 --max-size 300 ${CORPUS_DIR}/go)
castls_corpus_test(rust_small 300 --max-size 300 ${CORPUS_DIR}/rust)
castls_corpus_test(java_small 300 --max-size 300 ${CORPUS_DIR}/java)
castls_corpus_test(c_small 300 --max-size 300 ${CORPUS_DIR}/c)
castls_corpus_test(cpp_small 300 --max-size 300 ${CORPUS_DIR}/cpp)

# chunker_rerun against chunker_run after one-byte edits spread over
# sampled files (C and C++ compare include guards' names, and so are
# never answered). At a small max_size, where a byte more or less moves
# the most cuts.
castls_corpus_test(python_rerun 600
  --max-size 300 --edits 6 --every 8 ${CORPUS_DIR}/python)
castls_corpus_test(typescript_rerun 300
  --max-size 300 --edits 6 --every 2 ${CORPUS_DIR}/ts)
castls_corpus_test(go_rerun 300
  --max-size 300 --edits 6 --every 4 ${CORPUS_DIR}/go)
castls_corpus_test(rust_rerun 300
  --max-size 300 --edits 6 --every 2 ${CORPUS_DIR}/rust)
castls_corpus_test(java_rerun 300
  --max-size 300 --edits 6 --every 2 ${CORPUS_DIR}/java)
castls_corpus_test(bash_rerun 300
  --max-size 300 --edits 6 --every 4 --lang bash ${CORPUS_DIR}/bash)
