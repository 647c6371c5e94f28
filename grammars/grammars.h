/*
 * The compiled tree-sitter languages. Each function returns a static
 * language object; nothing to free.
 */
#ifndef GRAMMARS_H
#define GRAMMARS_H

#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_python(void);
const TSLanguage *tree_sitter_typescript(void);
const TSLanguage *tree_sitter_tsx(void);
const TSLanguage *tree_sitter_javascript(void);
const TSLanguage *tree_sitter_bash(void);
const TSLanguage *tree_sitter_go(void);
const TSLanguage *tree_sitter_rust(void);
const TSLanguage *tree_sitter_java(void);
const TSLanguage *tree_sitter_c(void);
const TSLanguage *tree_sitter_cpp(void);

#endif
