# Layout by the tool: every product source passes the project's own
# .clang-format. Grammar sources and tests are not product files.
find_program(CLANG_FORMAT NAMES clang-format clang-format-14)
if(CLANG_FORMAT)
  set(FORMAT_DIRS base chunker index rank lsp cli mcp)
  set(FORMAT_FILES "")
  foreach(d ${FORMAT_DIRS})
    file(GLOB f CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${d}/*.c
         ${PROJECT_SOURCE_DIR}/${d}/*.h)
    list(APPEND FORMAT_FILES ${f})
  endforeach()
  add_test(NAME format.clang_format
    COMMAND ${CLANG_FORMAT} --dry-run -Werror --style=file ${FORMAT_FILES}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
else()
  add_test(NAME format.clang_format COMMAND sh -c
    "echo 'clang-format not found: make deps installs it' >&2; exit 1")
endif()
