/*
 * rank.h: what code a model needs at a cursor. Given the buffer being
 * edited and the indexes of the workspace roots, rank_context ranks the
 * definitions the code at the cursor uses (through its names, imports and
 * the class being written) and the chunks most like it, and packs the
 * best into a token budget; rank_search does the same for free text.
 *
 * The caller lends everything a call needs: an open Index per root, a
 * Chunker, the buffer's text and tree. rank/ never opens a database,
 * reads a server's state or knows a protocol, and uses what it is lent
 * only on the calling thread, only during the call.
 */
#ifndef CASTLS_RANK_H
#define CASTLS_RANK_H

#include "index/index.h"

#define RANK_DEFAULT_LIMIT 20
#define RANK_MAX_ITEMS 100
/* An item shows at most this many lines; a longer one is clipped. */
#define RANK_ITEM_LINES 20

typedef struct {
	Index *ix;	  /* borrowed; NULL: the root is left out */
	const char *path; /* absolute, no trailing slash; borrowed */
} RankRoot;

/* A cursor in a buffer. Everything is borrowed for the call. */
typedef struct {
	const RankRoot *roots;
	uint32_t nroots;
	Chunker *chunker; /* finds the buffer's definitions, and parses it
			   * when tree is NULL */
	int root;	  /* the root holding the buffer's file, or -1 */
	const char *rel;  /* its path relative to that root; NULL: none */
	Lang lang;
	const char *text; /* the buffer as the editor has it (unsaved) */
	uint32_t len;
	const TSTree *tree; /* a parse of exactly text, or NULL */
	uint32_t cursor;    /* byte offset into text */
	uint32_t budget;    /* tokens */
	uint32_t limit;	    /* items at most; 0: RANK_DEFAULT_LIMIT */
} RankCursor;

/* What made an item rank: the reasons rank_why puts into words. */
typedef struct {
	double bm25;	       /* lexical match with the code before the
				* cursor (raw score; 0: none) */
	double definition;     /* its names are used near the cursor: the
				* weight of that use, by proximity */
	char *defines;	       /* those names, comma-separated; "" none */
	double file_use;       /* its name is used elsewhere in the buffer:
				* the weight of those uses, by proximity */
	double sibling;	       /* its name is used by the buffer's other
				* definitions of the name being written:
				* the share of them that do */
	double similar;	       /* ... by the bodies of the buffer's
				* definitions with headers like the one
				* being written: their share of likeness */
	double namesakes;      /* ... by other files' definitions of the
				* name being written: the share of them
				* that do */
	bool import;	       /* in a file the current one imports */
	bool declared;	       /* a function declared in a file the current
				* one imports (a C header), defined here */
	bool imported_name;    /* defines a name the current file imports */
	bool unused_import;    /* ... and does not use yet */
	bool member;	       /* of the class being written or its bases */
	bool receiver;	       /* a method of the type of the name it is
				* called on near the cursor */
	bool same_file;	       /* in the buffer itself */
	bool definition_item;  /* a definition, not a lexical chunk */
	uint32_t lines_away;   /* same-file definitions: from the cursor */
	uint32_t uses_in_file; /* same-file definitions: uses of its name */
	uint32_t callers;      /* ... its functions that call it, of */
	uint32_t functions;    /* ... its functions */
	bool unused_private;   /* ... kept to the file (`static`, `_name`)
				* and not used in it yet */
	char *joined;	       /* small siblings shown in the same item,
				* comma-separated; "" none */
} RankSignals;

/* An enclosing definition of an item (a class around a method). */
typedef struct {
	SpanKind kind;
	char *name;	 /* qualified */
	LineRange lines; /* 0-based, inclusive */
	char *header;	 /* its first lines, up to its body */
} RankParent;

typedef struct {
	int root;	/* index into the roots of the call */
	bool in_buffer; /* from the buffer itself (the caller knows its
			 * name); path is then its rel, or "" */
	char *path;	/* relative to the root */
	Lang lang;
	ChunkKind kind;
	LineRange lines;     /* 0-based, inclusive, whole lines */
	char *symbol;	     /* qualified name, or "" */
	RankParent *parents; /* outermost first */
	uint32_t nparents;
	double score;
	RankSignals signals;
	bool clipped;	 /* text is part of the definition or chunk */
	char *text;	 /* whole lines, ending in a line break */
	uint32_t tokens; /* estimate for text and parent headers */
} RankItem;

typedef struct {
	RankItem *items; /* best first */
	uint32_t nitems;
	uint32_t budget;      /* tokens asked for */
	uint32_t used;	      /* tokens the items take */
	bool no_context;      /* the stop signal: nothing is worth the space */
	uint64_t statements;  /* SQL statements the call ran, all roots */
	uint32_t stale;	      /* items left out: their file changed on disk
			       * or is gone since its rows were written (a
			       * scan has yet to catch up) */
	uint64_t stale_roots; /* bit r set (r < 64): roots[r] had such rows */
} RankResult;

/*
 * The context for a cursor, into *out (the caller's to rank_result_free,
 * also on error). Roots whose Index fails a lookup contribute what they
 * could. Returns 0, or CASTLS_EINVAL for a cursor outside the text.
 */
int rank_context(const RankCursor *c, RankResult *out);

/*
 * Chunks matching free text or identifiers across all roots, merged by
 * score before packing, so one root cannot crowd out a better hit of
 * another. Borrows everything; *out as for rank_context. Returns 0.
 */
int rank_search(const RankRoot *roots, uint32_t nroots, const char *query,
		size_t len, uint32_t budget, uint32_t limit, RankResult *out);

/* Frees what *r owns and zeroes it. NULL-safe. */
void rank_result_free(RankResult *r);

/* Appends why item ranked, in a few words ("defines parse_config; in a
 * file this one imports"), to out. */
void rank_why(const RankItem *item, Buf *out);

/* Tokens for n bytes of code: one per four bytes, rounded up, the usual
 * rule of thumb for BPE tokenizers. */
static inline uint32_t rank_tokens(size_t bytes)
{
	return (uint32_t)((bytes + 3) / 4);
}

#endif
