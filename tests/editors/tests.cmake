# Editor clients (editors/) against the real castls: VS Code (compile,
# package, protocol, activation with a stand-in vscode module), Neovim
# 0.7 headless, Emacs batch with Eglot. tests/editors/run.sh does the work;
# each test skips (exit 77) when its editor or Node is not installed.

set(CASTLS_EDITOR_TESTS vscode_compile vscode_package vscode_protocol
    vscode_activation vscode_mcp nvim emacs)
foreach(kind ${CASTLS_EDITOR_TESTS})
  add_test(NAME editors.${kind}
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/run.sh ${kind})
  set_tests_properties(editors.${kind} PROPERTIES
    ENVIRONMENT "${SAN_ENV}"
    TIMEOUT 600
    SKIP_RETURN_CODE 77
    LABELS editors)
endforeach()
# npm ci and tsc write into editors/vscode: one VS Code test at a time.
set_tests_properties(editors.vscode_compile editors.vscode_package
  editors.vscode_protocol editors.vscode_activation editors.vscode_mcp
  PROPERTIES
  RESOURCE_LOCK castls_vscode_extension)
