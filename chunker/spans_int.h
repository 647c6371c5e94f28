/*
 * spans_int.h: span extraction from tree-sitter trees (chunker/ only).
 */
#ifndef CASTLS_SPANS_INT_H
#define CASTLS_SPANS_INT_H

#include "chunker_int.h"
#include "lang_int.h"

/* Definition rules of one language, indexed by grammar symbol. */
typedef struct {
	const LangSpec *spec;
	int16_t *rule_of; /* symbol -> row of spec->defs, or -1 */
	uint8_t *role;	  /* symbol -> ROLE_* bits */
	uint32_t nsymbols;
	/* Row of spec->defs -> the ids of its name and body fields (0 for
	 * none), looked up once rather than by name at every definition. */
	TSFieldId *name_field, *body_field;
	TSFieldId value_field; /* "value" */
	struct RowIds *ids;    /* row -> the ids of its other fields */
	/* The ids of the binding rule's name and value fields. */
	TSFieldId bind_name, bind_value;
	/* A row compares the text of two names (an include guard's): an
	 * edit inside a name can make or unmake a definition. */
	bool reads_names;
} SpanRules;

#define NAME_PATH_MAX 3 /* fields in a DefRule's name_path */

struct RowIds {
	TSFieldId value, scope, owner;
	TSFieldId path[NAME_PATH_MAX]; /* 0 past the last */
};

/* ROLE_DEF: a definition or a wrapper around one. ROLE_ATTR: what
 * LangSpec.attributes lists. ROLE_BIND and ROLE_BIND_HOLDER: the types and
 * the holders of LangSpec.bindings. */
enum {
	ROLE_COMMENT = 1,
	ROLE_IMPORT = 2,
	ROLE_DEF = 4,
	ROLE_OPAQUE = 16,
	ROLE_ATTR = 32,
	ROLE_BIND = 64,
	ROLE_BIND_HOLDER = 128,
};

void span_rules_init(SpanRules *r, Lang lang);
void span_rules_free(SpanRules *r);

/* Appends the spans under root, in preorder, to out. With at != UINT32_MAX
 * only the spans containing byte `at` are collected. */
void spans_collect(const SpanRules *r, TSNode root, const char *text,
		   uint32_t at, Chunking *out, uint32_t *cap);

/* Sets to's spans to a deep copy of from's (edit.c). */
void spans_copy(const Chunking *from, Chunking *to);

/* Fills in the line ranges of all spans. */
void spans_set_lines(Chunking *c, const uint32_t *starts, uint32_t nlines);

#endif
