/*
 * lang.c: the language registry. One LangSpec row per language; the
 * definition tables below are the only place that knows node type names.
 */
#include "lang_int.h"

#include <string.h>

#include "grammars/grammars.h"

static const DefRule python_defs[] = {
	{"class_definition", SPAN_CLASS, "name", "body", NULL},
	{"function_definition", SPAN_FUNCTION, "name", "body", NULL},
	{NULL, 0, NULL, NULL, NULL},
};

#define FUNCTION_VALUES "arrow_function function_expression function " \
			"generator_function"

/* TypeScript and TSX share one table: same node types. */
static const DefRule typescript_defs[] = {
	{"class_declaration", SPAN_CLASS, "name", "body", NULL},
	{"abstract_class_declaration", SPAN_CLASS, "name", "body", NULL},
	{"interface_declaration", SPAN_INTERFACE, "name", "body", NULL},
	{"enum_declaration", SPAN_ENUM, "name", "body", NULL},
	{"type_alias_declaration", SPAN_TYPE, "name", NULL, NULL},
	{"internal_module", SPAN_NAMESPACE, "name", "body", NULL},
	{"function_declaration", SPAN_FUNCTION, "name", "body", NULL},
	{"generator_function_declaration", SPAN_FUNCTION, "name", "body",
	 NULL},
	{"function_signature", SPAN_FUNCTION, "name", NULL, NULL},
	{"method_definition", SPAN_FUNCTION, "name", "body", NULL},
	{"method_signature", SPAN_FUNCTION, "name", NULL, NULL},
	{"abstract_method_signature", SPAN_FUNCTION, "name", NULL, NULL},
	{"public_field_definition", SPAN_FUNCTION, "name", "body",
	 FUNCTION_VALUES},
	{"variable_declarator", SPAN_FUNCTION, "name", "body",
	 FUNCTION_VALUES},
	{NULL, 0, NULL, NULL, NULL},
};

static const DefRule javascript_defs[] = {
	{"class_declaration", SPAN_CLASS, "name", "body", NULL},
	{"function_declaration", SPAN_FUNCTION, "name", "body", NULL},
	{"generator_function_declaration", SPAN_FUNCTION, "name", "body",
	 NULL},
	{"method_definition", SPAN_FUNCTION, "name", "body", NULL},
	{"field_definition", SPAN_FUNCTION, "property", "body",
	 FUNCTION_VALUES},
	{"variable_declarator", SPAN_FUNCTION, "name", "body",
	 FUNCTION_VALUES},
	{NULL, 0, NULL, NULL, NULL},
};

static const DefRule bash_defs[] = {
	{"function_definition", SPAN_FUNCTION, "name", "body", NULL},
	{NULL, 0, NULL, NULL, NULL},
};

static const DefRule no_defs[] = {
	{NULL, 0, NULL, NULL, NULL},
};

/* Node types the span walk skips, for speed: nothing inside them can be a
 * definition we record. Statements that may hold a def (if, for, with,
 * try, expressions holding arrow functions) are not listed. */
#define PY_OPAQUE "expression_statement return_statement string comment " \
		  "call assignment augmented_assignment import_statement " \
		  "import_from_statement future_import_statement " \
		  "raise_statement assert_statement delete_statement " \
		  "global_statement nonlocal_statement pass_statement"
/* Not calls or arguments: libraries define helpers inside callbacks
 * (rxjs: `operate((source, subscriber) => { function emit() ... })`).
 * Types hold no definitions. */
#define JS_OPAQUE "comment string template_string regex number " \
		  "import_statement type_annotation type_arguments " \
		  "type_parameters union_type intersection_type"
#define BASH_OPAQUE "comment string raw_string heredoc_body command " \
		    "variable_assignment"

#define JS_WRAPPERS "export_statement lexical_declaration " \
		    "variable_declaration"

static const LangSpec specs[LANG_COUNT] = {
	[LANG_NONE] = {LANG_NONE, "", "", NULL, no_defs, "", "", "", "",
		       DOC_NONE, "."},
	[LANG_PYTHON] = {LANG_PYTHON, "python", ".py .pyi",
			 tree_sitter_python, python_defs,
			 "decorated_definition",
			 "import_statement import_from_statement "
			 "future_import_statement",
			 "comment", PY_OPAQUE, DOC_BODY_STRING, "."},
	[LANG_TYPESCRIPT] = {LANG_TYPESCRIPT, "typescript", ".ts .mts .cts",
			     tree_sitter_typescript, typescript_defs,
			     JS_WRAPPERS " ambient_declaration",
			     "import_statement", "comment", JS_OPAQUE,
			     DOC_LEADING_COMMENT, "."},
	[LANG_TSX] = {LANG_TSX, "tsx", ".tsx", tree_sitter_tsx,
		      typescript_defs, JS_WRAPPERS " ambient_declaration",
		      "import_statement", "comment", JS_OPAQUE,
		      DOC_LEADING_COMMENT, "."},
	[LANG_JAVASCRIPT] = {LANG_JAVASCRIPT, "javascript",
			     ".js .mjs .cjs .jsx", tree_sitter_javascript,
			     javascript_defs, JS_WRAPPERS,
			     "import_statement", "comment", JS_OPAQUE,
			     DOC_LEADING_COMMENT, "."},
	[LANG_BASH] = {LANG_BASH, "bash", ".sh .bash", tree_sitter_bash,
		       bash_defs, "", "", "comment", BASH_OPAQUE,
		       DOC_LEADING_COMMENT, "."},
	[LANG_MARKDOWN] = {LANG_MARKDOWN, "markdown", ".md .markdown", NULL,
			   no_defs, "", "", "", "", DOC_NONE, " > "},
};

/* LSP languageIds and other aliases that differ from our names. */
static const struct {
	const char *alias;
	Lang lang;
} aliases[] = {
	{"typescriptreact", LANG_TSX},
	{"javascriptreact", LANG_JAVASCRIPT},
	{"shellscript", LANG_BASH},
	{"sh", LANG_BASH},
	{"shell", LANG_BASH},
	{"python3", LANG_PYTHON},
};

const LangSpec *lang_spec(Lang lang)
{
	return &specs[(unsigned)lang < LANG_COUNT ? lang : LANG_NONE];
}

const char *lang_name(Lang lang) { return lang_spec(lang)->name; }

const TSLanguage *chunker_language(Lang lang)
{
	const LangSpec *s = lang_spec(lang);

	return s->grammar ? s->grammar() : NULL;
}

bool word_in_list(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	if (!n)
		return false;
	while ((p = strstr(p, word))) {
		bool starts = p == list || p[-1] == ' ';
		bool ends = p[n] == '\0' || p[n] == ' ';

		if (starts && ends)
			return true;
		p += n;
	}
	return false;
}

Lang lang_from_name(const char *name)
{
	size_t i;

	if (!name || !*name)
		return LANG_NONE;
	for (i = 1; i < LANG_COUNT; i++)
		if (strcmp(specs[i].name, name) == 0)
			return (Lang)i;
	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (strcmp(aliases[i].alias, name) == 0)
			return aliases[i].lang;
	return LANG_NONE;
}

/* sh or bash named by a `#!` first line: "#!/bin/sh", "#!/usr/bin/env
 * bash", "#!/bin/bash -e". */
static bool shebang_is_shell(const char *text, size_t len)
{
	char line[256];
	size_t n = 0;
	char *prog, *base;

	if (!text || len < 3 || text[0] != '#' || text[1] != '!')
		return false;
	while (n < len && n < sizeof(line) - 1 && text[n] != '\n')
		n++;
	memcpy(line, text + 2, n - 2);
	line[n - 2] = '\0';
	prog = strtok(line, " \t\r");
	if (prog && (base = strrchr(prog, '/')) && strcmp(base, "/env") == 0)
		prog = strtok(NULL, " \t\r");
	if (!prog)
		return false;
	base = strrchr(prog, '/');
	base = base ? base + 1 : prog;
	return strcmp(base, "sh") == 0 || strcmp(base, "bash") == 0;
}

Lang lang_detect(const char *path, const char *text, size_t len)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const char *dot = strrchr(base, '.');
	size_t i;

	if (dot && dot != base) {
		for (i = 1; i < LANG_COUNT; i++)
			if (word_in_list(specs[i].extensions, dot))
				return (Lang)i;
		return LANG_NONE;
	}
	return shebang_is_shell(text, len) ? LANG_BASH : LANG_NONE;
}
