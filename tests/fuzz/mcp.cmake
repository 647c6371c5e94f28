# mcp.cmake: the libFuzzer target for the MCP server's input path (line
# framing, JSON, dispatch, lifecycle, tool arguments), included from
# tests/fuzz/tests.cmake. Clang only, since libFuzzer ships with it.
#
# The mcp sources are compiled into the target rather than taken from the
# mcp library: -fsanitize=fuzzer instruments only the sources of this
# target for coverage, and the library must stay uninstrumented for
# castls. rank, index and chunker come from their libraries.
if(CMAKE_C_COMPILER_ID STREQUAL "Clang" AND TARGET mcp)
  file(GLOB FUZZ_MCP_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/mcp/*.c)
  add_executable(fuzz_mcp ${CMAKE_CURRENT_LIST_DIR}/fuzz_mcp.c
                 ${FUZZ_MCP_SOURCES})
  castls_strict(fuzz_mcp)
  target_include_directories(fuzz_mcp PRIVATE ${PROJECT_SOURCE_DIR})
  target_compile_options(fuzz_mcp PRIVATE -fsanitize=fuzzer)
  target_link_options(fuzz_mcp PRIVATE -fsanitize=fuzzer)
  target_link_libraries(fuzz_mcp PRIVATE rank PkgConfig::UV
                        PkgConfig::CJSON m Threads::Threads)
  set_target_properties(fuzz_mcp PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})

  # Seeds: whole sessions, one message per line.
  set(FUZZ_MCP_SEEDS ${CMAKE_CURRENT_BINARY_DIR}/fuzz-mcp-seeds)
  function(castls_mcp_seed name)
    string(REPLACE ";" "\n" lines "${ARGN}")
    file(WRITE ${FUZZ_MCP_SEEDS}/${name} "${lines}\n")
  endfunction()

  set(init [=[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"0"}}}]=])
  set(init0326 [=[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{"roots":{}}}}]=])
  set(initialized [=[{"jsonrpc":"2.0","method":"notifications/initialized"}]=])
  castls_mcp_seed(lifecycle ${init} ${initialized}
    [=[{"jsonrpc":"2.0","id":2,"method":"ping"}]=]
    [=[{"jsonrpc":"2.0","id":"l","method":"tools/list","params":{}}]=])
  castls_mcp_seed(tools ${init} ${initialized}
    [=[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"context","arguments":{"path":"a.py","code":"def f(x):\n    return g(x)","budget":50}}}]=]
    [=[{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"parse config","limit":3}}}]=]
    [=[{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"definition","arguments":{"symbol":"a.B::c#d()"}},"_meta":{"progressToken":7}}]=]
    [=[{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"outline","arguments":{"path":"../x.ts"}}}]=]
    [=[{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"context","arguments":{"path":"a.py","line":0,"colum":1}}}]=]
    [=[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}]=])
  castls_mcp_seed(batches ${init0326} ${initialized}
    [=[[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"x"},{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"q"}}},7]]=]
    [=[{"jsonrpc":"2.0","id":1,"result":{"roots":[{"uri":"https://x"}]}}]=]
    [=[{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]=]
    [=[[]]=])
  castls_mcp_seed(errors
    [=[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]=] [=[{not json]=]
    [=[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]=] ${init} [=[{"id":2}]=]
    [=[{"jsonrpc":"1.0","id":3,"method":"ping"}]=] "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\r"
    [=[{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":7}}]=])

  # A short smoke run from the seeds; a long run is by hand:
  #   build/fuzz_mcp -max_total_time=600 -max_len=4096 CORPUS_DIR SEEDS
  # A crash leaves its input as fuzz-mcp-crash-* in this directory.
  set(FUZZ_MCP_CORPUS ${CMAKE_CURRENT_BINARY_DIR}/fuzz-mcp-corpus)
  add_test(NAME fuzz.mcp
    COMMAND sh -c "rm -rf \"$1\" && mkdir -p \"$1\" && exec \"$0\" \
-runs=20000 -max_total_time=20 -seed=1 -max_len=4096 \
-artifact_prefix=\"$2/fuzz-mcp-\" \"$1\" \"$3\""
      $<TARGET_FILE:fuzz_mcp> ${FUZZ_MCP_CORPUS}
      ${CMAKE_CURRENT_BINARY_DIR} ${FUZZ_MCP_SEEDS})
  set_tests_properties(fuzz.mcp PROPERTIES
    ENVIRONMENT "${SAN_ENV}" TIMEOUT 120)
endif()
