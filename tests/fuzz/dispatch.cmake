# dispatch.cmake: the libFuzzer target for the language server's input
# path (framing, JSON, dispatch, handlers), included from
# tests/fuzz/tests.cmake. Clang only, since libFuzzer ships with it.
#
# The lsp sources are compiled into the target rather than taken from the
# lsp library: -fsanitize=fuzzer instruments only the sources of this
# target for coverage, and the lsp library must stay uninstrumented for
# castls. rank, index and chunker come from their libraries.
if(CMAKE_C_COMPILER_ID STREQUAL "Clang" AND TARGET lsp)
  file(GLOB FUZZ_DISPATCH_LSP CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/lsp/*.c)
  add_executable(fuzz_dispatch ${CMAKE_CURRENT_LIST_DIR}/fuzz_dispatch.c
                 ${FUZZ_DISPATCH_LSP})
  castls_strict(fuzz_dispatch)
  target_include_directories(fuzz_dispatch PRIVATE ${PROJECT_SOURCE_DIR})
  # On top of the project-wide ASan/UBSan flags when CASTLS_SANITIZE is on.
  target_compile_options(fuzz_dispatch PRIVATE -fsanitize=fuzzer)
  target_link_options(fuzz_dispatch PRIVATE -fsanitize=fuzzer)
  target_link_libraries(fuzz_dispatch PRIVATE rank PkgConfig::UV
                        PkgConfig::CJSON m)
  set_target_properties(fuzz_dispatch PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})

  # Seeds: whole sessions, framed here so their Content-Length is right.
  # Each argument after the name is one message body.
  set(FUZZ_DISPATCH_SEEDS ${CMAKE_CURRENT_BINARY_DIR}/fuzz-dispatch-seeds)
  function(castls_dispatch_seed name)
    set(out "")
    foreach(body ${ARGN})
      string(LENGTH "${body}" n)
      string(APPEND out "Content-Length: ${n}\r\n\r\n${body}")
    endforeach()
    file(WRITE ${FUZZ_DISPATCH_SEEDS}/${name} "${out}")
  endfunction()

  set(init [=[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"general":{"positionEncodings":["utf-8"]}},"initializationOptions":{"maxChunkSize":80}}}]=])
  set(initialized [=[{"jsonrpc":"2.0","method":"initialized","params":{}}]=])
  set(open_py [=[{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"untitled:a.py","languageId":"python","version":1,"text":"class A:\n    def m(self):\n        return self.x\n\ndef f(a, b):\n    return A().m() + a\n"}}}]=])
  set(open_ts [=[{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"untitled:b.ts","languageId":"typescript","version":1,"text":"export class B {\n  run(): number { return 1; }\n}\r\nconst s = \"é中😀\";\n"}}}]=])
  set(change [=[{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"untitled:a.py","version":2},"contentChanges":[{"range":{"start":{"line":1,"character":8},"end":{"line":1,"character":9}},"text":"method"},{"text":"x = 1\n"}]}}]=])
  set(shutdown [=[{"jsonrpc":"2.0","id":9,"method":"shutdown"}]=])
  set(exit [=[{"jsonrpc":"2.0","method":"exit"}]=])
  castls_dispatch_seed(lifecycle ${init} ${initialized} ${shutdown} ${exit})
  castls_dispatch_seed(documents ${init} ${initialized} ${open_py} ${open_ts}
    ${change}
    [=[{"jsonrpc":"2.0","id":2,"method":"textDocument/documentSymbol","params":{"textDocument":{"uri":"untitled:b.ts"}}}]=]
    [=[{"jsonrpc":"2.0","id":3,"method":"castls/chunks","params":{"textDocument":{"uri":"untitled:a.py"}}}]=]
    [=[{"jsonrpc":"2.0","id":4,"method":"castls/context","params":{"textDocument":{"uri":"untitled:a.py"},"position":{"line":5,"character":12},"budget":{"tokens":50},"limit":3}}]=]
    [=[{"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"untitled:b.ts"}}}]=]
    ${shutdown} ${exit})
  castls_dispatch_seed(requests ${init} ${initialized}
    [=[{"jsonrpc":"2.0","id":"s","method":"workspace/symbol","params":{"query":"gUN"}}]=]
    [=[{"jsonrpc":"2.0","id":0,"method":"castls/search","params":{"query":"run","limit":2}}]=]
    [=[{"jsonrpc":"2.0","id":5,"method":"castls/status"}]=]
    [=[{"jsonrpc":"2.0","id":6,"method":"workspace/executeCommand","params":{"command":"castls.status"}}]=]
    [=[{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":5}}]=]
    [=[{"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"castls":{"maxChunkSize":60,"logLevel":"debug","exclude":["*.md"]}}}}]=]
    [=[{"jsonrpc":"2.0","id":7,"method":"castls/nope","params":null}]=])
  castls_dispatch_seed(errors
    [=[{"jsonrpc":"2.0","id":1,"method":"castls/status"}]=]
    ${init} [=[{"id":2,"method":"initialize"}]=] [=[[1,2]]=] [=[{"id":{}}]=]
    [=[{"jsonrpc":"2.0","id":3,"method":"castls/context","params":{"textDocument":3,"position":"x"}}]=]
    [=[{not json]=] [=[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]=] ${exit})

  # A short, deterministic smoke run from the seeds; a long run is by hand:
  #   build/fuzz_dispatch -max_total_time=600 -max_len=4096 CORPUS_DIR SEEDS
  # A crash leaves its input as fuzz-dispatch-crash-* in this directory.
  set(FUZZ_DISPATCH_CORPUS ${CMAKE_CURRENT_BINARY_DIR}/fuzz-dispatch-corpus)
  add_test(NAME fuzz.dispatch
    COMMAND sh -c "rm -rf \"$1\" && mkdir -p \"$1\" && exec \"$0\" \
-runs=20000 -max_total_time=20 -seed=1 -max_len=4096 \
-artifact_prefix=\"$2/fuzz-dispatch-\" \"$1\" \"$3\""
      $<TARGET_FILE:fuzz_dispatch> ${FUZZ_DISPATCH_CORPUS}
      ${CMAKE_CURRENT_BINARY_DIR} ${FUZZ_DISPATCH_SEEDS})
  set_tests_properties(fuzz.dispatch PROPERTIES
    ENVIRONMENT "${SAN_ENV}" TIMEOUT 120)
endif()
