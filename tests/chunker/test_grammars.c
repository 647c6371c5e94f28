/*
 * test_grammars.c: every pinned grammar loads into the pinned runtime
 * (its ABI is one the runtime accepts) and parses a line of its language
 * without error. A grammar upgrade that needs a newer runtime fails here
 * first, by name.
 */
#include "grammars/grammars.h"
#include "test.h"

static const struct {
	const char *name;
	const TSLanguage *(*grammar)(void);
	const char *code;
} grammars[] = {
	{"python", tree_sitter_python, "def f(x):\n    return x\n"},
	{"typescript", tree_sitter_typescript, "let x: number = 1;\n"},
	{"tsx", tree_sitter_tsx, "const a = <b>c</b>;\n"},
	{"javascript", tree_sitter_javascript, "function f(x) { return x; }\n"},
	{"bash", tree_sitter_bash, "f() { echo hi; }\n"},
	{"go", tree_sitter_go, "package p\n\nfunc (r *R) F() int { return 1 }\n"},
	{"rust", tree_sitter_rust, "impl<T> Tr for S<T> { fn f(&self) {} }\n"},
	{"java", tree_sitter_java, "class A { static class B { void f() {} } }\n"},
	{"c", tree_sitter_c, "#define N 3\nstatic int f(void) { return N; }\n"},
	{"cpp", tree_sitter_cpp,
	 "namespace a { template <class T> int B<T>::f() { return 0; } }\n"},
};

TEST(grammars_load_and_parse)
{
	for (size_t i = 0; i < sizeof(grammars) / sizeof(*grammars); i++) {
		const TSLanguage *tl = grammars[i].grammar();
		uint32_t abi = ts_language_abi_version(tl);
		TSParser *p = ts_parser_new();
		TSTree *t;

		CHECK_(abi >= TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION &&
			       abi <= TREE_SITTER_LANGUAGE_VERSION,
		       (void)0, "%s: ABI %u outside the runtime's %u..%u",
		       grammars[i].name, abi,
		       TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION,
		       TREE_SITTER_LANGUAGE_VERSION);
		CHECK_(ts_parser_set_language(p, tl), (void)0,
		       "%s: the runtime refuses the grammar",
		       grammars[i].name);
		t = ts_parser_parse_string(p, NULL, grammars[i].code,
					   (uint32_t)strlen(grammars[i].code));
		CHECK_(t && !ts_node_has_error(ts_tree_root_node(t)), (void)0,
		       "%s: a parse error in \"%s\"", grammars[i].name,
		       grammars[i].code);
		ts_tree_delete(t);
		ts_parser_delete(p);
	}
}
