/*
 * lang_int.h: what each grammar calls a definition, an import and a
 * comment. The chunking and span algorithms read these tables and have no
 * language-specific branches.
 */
#ifndef CASTLS_LANG_INT_H
#define CASTLS_LANG_INT_H

#include "chunker.h"

typedef enum {
	DOC_NONE,
	DOC_BODY_STRING,     /* Python: a string as the body's first statement */
	DOC_LEADING_COMMENT, /* comments on the lines right above */
} DocMode;

typedef struct {
	const char *type;       /* node type that defines something */
	SpanKind kind;          /* SPAN_FUNCTION becomes SPAN_METHOD in a class */
	const char *name_field; /* field holding the name */
	const char *body_field; /* field holding the body; NULL if none */
	const char *value_types; /* if set, the `value` field must be one of
				  * these space-separated types, and the body
				  * is looked up on it */
} DefRule;

typedef struct {
	Lang lang;
	const char *name;
	const char *extensions;  /* space-separated, with dots */
	const TSLanguage *(*grammar)(void);
	const DefRule *defs;     /* ended by a row with type NULL */
	const char *wrappers;    /* types that carry decorators or `export`
				  * around a single definition */
	const char *imports;     /* import statement types */
	const char *comments;    /* comment types */
	const char *opaque;      /* types that never hold a definition: the
				  * span walk does not enter them */
	DocMode doc;
	const char *qsep;        /* qualified-name separator */
} LangSpec;

const LangSpec *lang_spec(Lang lang);

/* True when word occurs in the space-separated list. */
bool word_in_list(const char *list, const char *word);

#endif
