# The MCP server (castls mcp) against the official MCP TypeScript SDK as
# its client, and the prompt format of castls context: one CTest entry
# per tests/mcp/*.test.mjs and per transcript in tests/mcp/transcripts.
# Each skips (77) without Node or the SDK (.ci/deps installs both).
file(GLOB CASTLS_MCP_TESTS CONFIGURE_DEPENDS
     ${CMAKE_CURRENT_LIST_DIR}/*.test.mjs)
foreach(f ${CASTLS_MCP_TESTS})
  get_filename_component(name ${f} NAME)
  string(REGEX REPLACE "\\.test\\.mjs$" "" name "${name}")
  add_test(NAME mcp.${name}
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/run.sh ${name})
  set_tests_properties(mcp.${name} PROPERTIES ENVIRONMENT "${SAN_ENV}"
                       TIMEOUT 600 SKIP_RETURN_CODE 77 LABELS mcp)
endforeach()

file(GLOB CASTLS_MCP_TRANSCRIPTS CONFIGURE_DEPENDS
     ${CMAKE_CURRENT_LIST_DIR}/transcripts/*.txt)
foreach(f ${CASTLS_MCP_TRANSCRIPTS})
  get_filename_component(name ${f} NAME_WE)
  add_test(NAME mcp.transcript_${name}
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/run.sh transcript:${name})
  set_tests_properties(mcp.transcript_${name} PROPERTIES
                       ENVIRONMENT "${SAN_ENV}" TIMEOUT 300
                       SKIP_RETURN_CODE 77 LABELS mcp)
endforeach()
