# The command-line tools (castls chunk, spans, context) on real files.
add_test(NAME cli.tools COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli_test.sh)
set_tests_properties(cli.tools PROPERTIES ENVIRONMENT "${SAN_ENV}"
                     TIMEOUT 300)

# The index under file-system faults: a read-only cache directory, a full
# disk, unreadable files (tests/cli/faults_test.sh; 77 when this machine
# cannot make the fault).
foreach(fault readonly full full_server unreadable)
  add_test(NAME cli.fault_${fault}
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/faults_test.sh ${fault})
  set_tests_properties(cli.fault_${fault} PROPERTIES
                       ENVIRONMENT "${SAN_ENV}" TIMEOUT 300
                       SKIP_RETURN_CODE 77)
endforeach()

# make install's layout, --version and each command's --help.
add_test(NAME cli.install
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/install_test.sh ${PROJECT_BINARY_DIR})
set_tests_properties(cli.install PROPERTIES ENVIRONMENT "${SAN_ENV}"
                     TIMEOUT 120)
