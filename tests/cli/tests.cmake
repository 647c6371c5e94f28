# The command-line tools (castls chunk, spans, context) on real files.
add_test(NAME cli.tools COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli_test.sh)
set_tests_properties(cli.tools PROPERTIES ENVIRONMENT "${SAN_ENV}"
                     TIMEOUT 300)
