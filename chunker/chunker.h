/*
 * chunker.h: cAST chunking and definition spans for one file.
 *
 * A file is cut into chunks that tile it exactly: chunk i covers bytes
 * [bytes.start, bytes.end) and the next chunk starts where it ends, so the
 * chunks concatenate back to the input byte for byte. Chunk size is counted
 * in non-whitespace characters. Beside the chunks, every definition (class,
 * function, method, interface, ..., Markdown section) becomes a Span with
 * its parent, so each chunk knows its enclosing definitions.
 */
#ifndef CASTLS_CHUNKER_H
#define CASTLS_CHUNKER_H

#include <tree_sitter/api.h>

#include "base.h"

/* ---------------------------------------------------------------------- *
 * Languages
 * ---------------------------------------------------------------------- */

typedef enum {
	LANG_NONE = 0,
	LANG_PYTHON,
	LANG_TYPESCRIPT,
	LANG_TSX,
	LANG_JAVASCRIPT,
	LANG_BASH,
	LANG_MARKDOWN,
	LANG_COUNT
} Lang;

/* "python", "typescript", "tsx", "javascript", "bash", "markdown"; ""
 * for LANG_NONE. */
const char *lang_name(Lang lang);

/* Accepts our names and LSP languageIds ("typescriptreact", "shellscript",
 * "javascriptreact", "sh"). LANG_NONE when unknown. */
Lang lang_from_name(const char *name);

/* By file extension, then (for files without a known extension) by a
 * shebang naming sh or bash in the first line of text. text may be NULL. */
Lang lang_detect(const char *path, const char *text, size_t len);

/* ---------------------------------------------------------------------- *
 * Results
 * ---------------------------------------------------------------------- */

typedef enum {
	SPAN_CLASS,
	SPAN_FUNCTION,
	SPAN_METHOD,
	SPAN_INTERFACE,
	SPAN_ENUM,
	SPAN_TYPE,
	SPAN_NAMESPACE,
	SPAN_SECTION,
	SPAN_KIND_COUNT
} SpanKind;

typedef enum {
	CHUNK_DEFINITION,    /* exactly one whole definition (and its trivia) */
	CHUNK_DEFINITIONS,   /* several whole definitions, nothing else */
	CHUNK_FUNCTION_PART, /* part of a function or method too big for one */
	CHUNK_CLASS_PART,    /* part of a class-like definition */
	CHUNK_STATEMENTS,    /* module-level statements, maybe with defs */
	CHUNK_IMPORTS,       /* only import statements */
	CHUNK_SECTION,       /* Markdown: a section or part of one */
	CHUNK_KIND_COUNT
} ChunkKind;

const char *span_kind_name(SpanKind kind);   /* "class", "function", ... */
const char *chunk_kind_name(ChunkKind kind); /* "definition", ... */

typedef struct {
	uint32_t start, end; /* bytes, end exclusive */
} ByteRange;

typedef struct {
	uint32_t start, end; /* 0-based lines, end inclusive */
} LineRange;

typedef struct {
	SpanKind kind;
	int32_t parent;      /* index into Chunking.spans; -1 at top level */
	ByteRange bytes;     /* decorators and `export` included, leading
			      * comments not */
	LineRange lines;
	uint32_t body_start; /* byte where the body starts; bytes.end if none */
	char *name;          /* owned by the Chunking; never NULL */
	char *qualname;      /* "Outer.Inner.method"; sections use " > " */
	char *header;        /* start of the definition up to its body */
	char *doc;           /* docstring or leading comment; "" if none */
} Span;

typedef struct {
	ChunkKind kind;
	int32_t span;    /* innermost span containing the chunk; -1 none */
	ByteRange bytes;
	LineRange lines;
	uint32_t size;   /* non-whitespace characters */
} Chunk;

typedef struct {
	Lang lang;
	Chunk *chunks;      /* in file order, tiling [0, len) */
	uint32_t nchunks;
	Span *spans;        /* ordered by start; a parent precedes its children */
	uint32_t nspans;
	uint32_t oversized; /* chunks over max_size: indivisible pieces only */
	bool had_errors;    /* the parser recovered from syntax errors */
} Chunking;

/* Frees everything a Chunking owns and zeroes it. NULL-safe. */
void chunking_close(Chunking *c);

/* Deep copy of from into to, which the caller later chunking_closes. */
void chunking_copy(const Chunking *from, Chunking *to);
/* The same without the spans' strings (all NULL): where the rows were,
 * for index_file_edit, at a fraction of the cost on a large file. */
void chunking_copy_places(const Chunking *from, Chunking *to);

/* Whether a and b would write the same rows: the same chunks and spans,
 * names and texts included. */
bool chunking_equal(const Chunking *a, const Chunking *b);

/*
 * Carries c, a chunking of some text, across edits (in the order made,
 * as given to ts_tree_edit) that turned it into text: bytes after an edit
 * shift, the chunk and the spans holding it stretch, lines and sizes are
 * recomputed. Boundaries, names and docs stay the old ones, so this is
 * a stand-in for rows until a parse, never the chunker's answer. Returns
 * 0, or CASTLS_EINVAL when an edit does not fall inside one chunk, or
 * cuts a span's edge or where its body starts; c is then garbage and only
 * fit for chunking_close. Headers are made again from the new text.
 */
int chunking_edit(Chunking *c, const TSInputEdit *edits, uint32_t nedits,
		  const char *text, uint32_t len);

/* ---------------------------------------------------------------------- *
 * The chunker: owns one tree-sitter parser per language, reused across
 * files. Not thread-safe: one Chunker per thread.
 * ---------------------------------------------------------------------- */

#define CHUNKER_DEFAULT_MAX_SIZE 2000u
/* Input limit; longer text is refused with CASTLS_ELIMIT. */
#define CHUNKER_MAX_INPUT (256u * 1024u * 1024u)
/* Longer text is not parsed: a syntax tree takes some 50 bytes for each
 * byte of code (a 50 MB file peaked at 2.7 GB, an 8 MB one at 436 MB).
 * chunker_run cuts such text at line ends instead, with no spans, in
 * memory a small multiple of the text; chunker_spans finds none. The
 * server's and the scan's file limit (1 MiB by default) keeps most
 * files far below. */
#define CHUNKER_PARSE_MAX (4u * 1024u * 1024u)

typedef struct Chunker Chunker;

/* max_size 0 means CHUNKER_DEFAULT_MAX_SIZE. */
Chunker *chunker_new(uint32_t max_size);
void chunker_delete(Chunker *ch);
uint32_t chunker_max_size(const Chunker *ch);
/* Changes the limit the next runs cut at (0: the default), keeping the
 * parsers, tables and scratch heap a new Chunker would make again. */
void chunker_set_max_size(Chunker *ch, uint32_t max_size);
/* The most bytes of scratch heap one tree parsed here took (0 before
 * the first): what the scratch heap costs in memory. */
size_t chunker_scratch_peak(const Chunker *ch);
/* Frees the scratch heap kept for the next tree (up to 16 MiB): for a
 * Chunker that may sit idle a long while. */
void chunker_trim(Chunker *ch);

/* The grammar of lang, or NULL for Markdown and LANG_NONE. */
const TSLanguage *chunker_language(Lang lang);

/*
 * Parses text with lang's grammar. old, when given, must be an earlier
 * tree of this text already adjusted with ts_tree_edit; tree-sitter then
 * reuses its unchanged parts. Returns a new tree the caller frees with
 * ts_tree_delete, or NULL for languages without a grammar.
 */
TSTree *chunker_parse(Chunker *ch, Lang lang, const char *text,
		      uint32_t len, const TSTree *old);

/*
 * chunker_parse that gives up when stop(ctx), which tree-sitter calls
 * every so often during the parse, returns true: then NULL, and the
 * parser is ready for another text. stop runs on the calling thread.
 */
TSTree *chunker_parse_unless(Chunker *ch, Lang lang, const char *text,
			     uint32_t len, const TSTree *old,
			     bool (*stop)(void *ctx), void *ctx);

/*
 * Chunks text and collects its spans into *out (which the caller later
 * passes to chunking_close, on success only). tree is a parse of exactly
 * this text, or NULL to parse here: then the tree lives in a scratch heap
 * dropped whole on return, the cheapest tree there is (after
 * castls_init_allocators). Borrows text and tree. Returns 0,
 * CASTLS_ENOLANG, CASTLS_EBINARY or CASTLS_ELIMIT; on error *out is empty.
 */
int chunker_run(Chunker *ch, Lang lang, const char *text, uint32_t len,
		const TSTree *tree, Chunking *out);

/*
 * Only the spans that contain byte `at` (the definitions around a cursor),
 * outermost first, into out->spans; no chunks. Much cheaper than
 * chunker_run on a large file: the walk skips every subtree that does not
 * contain `at`. Same contract as chunker_run otherwise.
 */
int chunker_spans_at(Chunker *ch, Lang lang, const char *text, uint32_t len,
		     const TSTree *tree, uint32_t at, Chunking *out);

/*
 * Every span of text, no chunks: the definitions of a live buffer without
 * the cost of cutting it. Same contract as chunker_spans_at.
 */
int chunker_spans(Chunker *ch, Lang lang, const char *text, uint32_t len,
		  const TSTree *tree, Chunking *out);

/* Appends the span path of chunk i ("Outer > method") to b. */
void chunking_span_path(const Chunking *c, int32_t span, const char *sep,
			Buf *b);

#endif
