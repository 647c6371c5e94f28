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

#include "base/base.h"

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
	LANG_GO,
	LANG_RUST,
	LANG_JAVA,
	LANG_C,
	LANG_CPP,
	LANG_COUNT
} Lang;

/* "python", "typescript", "tsx", "javascript", "bash", "markdown", "go",
 * "rust", "java", "c", "cpp"; "" for LANG_NONE. */
const char *lang_name(Lang lang);

/* The file extensions of lang, with dots, space-separated (".py .pyi");
 * "" for LANG_NONE. */
const char *lang_extensions(Lang lang);

/* Accepts our names and LSP languageIds ("typescriptreact", "shellscript",
 * "javascriptreact", "sh"). LANG_NONE when unknown. */
Lang lang_from_name(const char *name);

/* By file extension, then (for files without a known extension) by a
 * shebang naming sh or bash in the first line of text. text may be NULL.
 * An extension two languages share (`.h`) goes to the one that claims it
 * when text shows its syntax or a sibling file (same stem) has one of its
 * own extensions: `a.h` beside `a.cpp` is C++. The sibling is looked up
 * at path as given (absolute, or relative to the working directory), and
 * only when text is given. */
Lang lang_detect(const char *path, const char *text, size_t len);

/* The language of an editor's document at path whose client names it
 * named (LSP's languageId; LANG_NONE when unknown): lang_detect's when the
 * extension is named's own, so that a C++ header the client calls "c"
 * (Emacs does, for every `.h`) is parsed as the index reads it; named
 * otherwise (the user chose it). */
Lang lang_of_document(Lang named, const char *path, const char *text,
		      size_t len);

/* Why text, the contents of path in lang, is a file a tool generated
 * rather than one people write (a `// Code generated ... DO NOT EDIT.`
 * line, a `.pb.go` name), as a static string; NULL when it is not. The
 * index skips such files as it skips minified code. text may be NULL:
 * then only the name is looked at. */
const char *lang_generated(Lang lang, const char *path, const char *text,
			   size_t len);

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
	SPAN_VARIABLE, /* a file-scope variable, Rust's `static` */
	SPAN_CONSTANT, /* Go's and Rust's `const` */
	SPAN_FIELD,    /* Java's fields */
	SPAN_MACRO,    /* C's `#define`, Rust's `macro_rules!` */
	SPAN_IMPL,     /* Rust's `impl`: members added to a type defined
			* elsewhere, named by it but no definition of it */
	SPAN_KIND_COUNT
} SpanKind;

typedef enum {
	CHUNK_DEFINITION,    /* exactly one whole definition (and its trivia) */
	CHUNK_DEFINITIONS,   /* several whole definitions, nothing else */
	CHUNK_FUNCTION_PART, /* part of a function or method too big for one */
	CHUNK_CLASS_PART,    /* part of a class-like definition */
	CHUNK_STATEMENTS,    /* module-level statements, maybe with defs */
	CHUNK_IMPORTS,	     /* only import statements */
	CHUNK_SECTION,	     /* Markdown: a section or part of one */
	CHUNK_KIND_COUNT
} ChunkKind;

const char *span_kind_name(SpanKind kind);   /* "class", "function", ... */
const char *chunk_kind_name(ChunkKind kind); /* "definition", ... */

/* A class, an interface or an impl: a span whose body holds members. */
static inline bool span_kind_is_class(SpanKind kind)
{
	return kind == SPAN_CLASS || kind == SPAN_INTERFACE ||
	       kind == SPAN_IMPL;
}

typedef struct {
	uint32_t start, end; /* bytes, end exclusive */
} ByteRange;

typedef struct {
	uint32_t start, end; /* 0-based lines, end inclusive */
} LineRange;

typedef struct {
	SpanKind kind;
	int32_t parent;	 /* index into Chunking.spans; -1 at top level */
	ByteRange bytes; /* decorators and `export` included, leading
			  * comments not */
	LineRange lines;
	uint32_t body_start; /* byte where the body starts; bytes.end if none */
	char *name;	     /* owned by the Chunking; never NULL */
	char *qualname;	     /* "Outer.Inner.method"; sections use " > " */
	char *header;	     /* start of the definition up to its body */
	char *doc;	     /* docstring or leading comment; "" if none */
} Span;

typedef struct {
	ChunkKind kind;
	int32_t span; /* innermost span containing the chunk; -1 none */
	ByteRange bytes;
	LineRange lines;
	uint32_t size; /* non-whitespace characters */
} Chunk;

typedef struct {
	Lang lang;
	Chunk *chunks; /* in file order, tiling [0, len) */
	uint32_t nchunks;
	Span *spans; /* ordered by start; a parent precedes its children */
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
 * names and texts included. A span's doc is not in its row (it is in the
 * chunks' text), nor compared: chunking_edit leaves it stale, and each
 * keystroke in a docstring would send the file's rows through
 * index_file_put to find nothing to write. */
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

/* Routes tree-sitter's allocations through base's allocator (xmalloc and
 * friends), with the scratch heap chunker_run uses for throwaway trees.
 * Called once at start-up, before any parser exists. */
void castls_init_allocators(void);

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
TSTree *chunker_parse(Chunker *ch, Lang lang, const char *text, uint32_t len,
		      const TSTree *old);

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
 * chunker_run after one edit e, for the price of its atoms and chunks:
 * the spans are carried's, which walking the tree for would cost most of
 * a run. carried is chunker_run's answer for the text before e, carried
 * across it by chunking_edit; old the tree that answer was made from,
 * edited with e; tree the parse of text from old. That takes an edit
 * that changed no syntax (ts_tree_get_changed_ranges finds none; trees
 * without errors) and falls in no span's header: its spans are the same
 * but for docs, which stay carried's. Sizes may still move a cut, so the
 * chunks are made again. Returns 0, or CASTLS_EINVAL for any other edit:
 * call chunker_run.
 */
int chunker_rerun(Chunker *ch, Lang lang, const char *text, uint32_t len,
		  const TSTree *tree, const TSTree *old, const TSInputEdit *e,
		  const Chunking *carried, Chunking *out);

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

/* ---------------------------------------------------------------------- *
 * What a file imports and binds, for ranking. The rules are rows of the
 * language table; callers need no node type names.
 * ---------------------------------------------------------------------- */

typedef enum {
	MODULES_NONE,	  /* the language has no imports */
	MODULES_DOTTED,	  /* Python: `a.b`, leading dots climb from the file's
			   * package, otherwise a module path from some root */
	MODULES_PATHS,	  /* JavaScript: "./a/b" relative to the file, "pkg"
			   * for a package */
	MODULES_PACKAGES, /* Go: "host/mod/a/b" names a directory, through
			   * the module path in go.mod */
	MODULES_CRATES,	  /* Rust: `crate::a`, `self::a`, `super::a`, or
			   * another crate's `c::a` */
	MODULES_INCLUDES, /* C: "a/b.h" from the file's directory or an
			   * include directory; its source file with it */
} ModuleStyle;

/* How a language's imports name files; every string is "" when unset. */
typedef struct {
	ModuleStyle style;
	const char *files;	  /* what the path of a file that is module `m`
				   * ends with after m's own path, space-separated:
				   * ".py /__init__.py .pyi" for Python; "/" is any
				   * file directly in the directory m */
	const char *exts;	  /* extensions an import may give a module that
				   * stand for its source: ".js" of ESM's
				   * `from "./a.js"` names a.ts too */
	const char *sep;	  /* between a module and its member in code:
				   * `m.f`, `m::f` */
	const char *dir_modules;  /* file names that are their directory's
				   * module (Rust's "mod.rs lib.rs") */
	const char *manifest;	  /* the file at the root of a module tree:
				   * "go.mod", "Cargo.toml" */
	const char *manifest_key; /* the start of its line that names the
				   * tree's module path ("module "), or
				   * the tree ("name": `name = "x"`) */
	const char *redirect;	  /* the manifest's directive that maps a
				   * module path to a local directory, one a
				   * line or a `( ... )` block of them:
				   * "replace" for `replace a/b => ../b` */
	const char *redirect_arrow; /* between the two: "=>" */
	const char *workspace;	    /* a manifest line that makes it the root of
				     * several module trees: "[workspace]" */
	const char *members_key;    /* there, the key of the list of their
				     * directories ("members"; a last `*`
				     * stands for every subdirectory) */
	const char *name_map;	    /* pairs of characters: a character of a
				     * tree's name in its manifest, and what
				     * code writes for it ("-_": Rust's
				     * `my-crate` is `my_crate`) */
	const char *source_dir;	    /* the directory under the manifest's
				     * that holds the root module ("src") */
	const char *include_db;	    /* where a compilation database may be,
				     * from the root, the first there is
				     * read ("compile_commands.json ...") */
	const char *include_flags;  /* its command-line flags that name an
				     * include directory, joined or apart */
	const char *vendor;	    /* the directory beside the manifest that
				     * holds copies of other modules, by
				     * module path ("vendor") */
	bool shared_scope;	    /* the files of one directory see each
				     * other's definitions (Go, Java) */
	const char *path_maps;	    /* files whose compilerOptions map package
				     * specifiers to paths, the nearest above
				     * a file first ("tsconfig.json") */
	const char *packages;	    /* the manifest of a workspace package, by
				     * whose name it is imported
				     * ("package.json") */
} ModuleRules;

void lang_modules(Lang lang, ModuleRules *out);
/* Whether code in language user can use definitions written in def: both
 * of one family (Python and its stubs; TypeScript, TSX and JavaScript;
 * shell), or user is no code (Markdown, unknown), which may mention any.
 * Prose (Markdown) defines nothing code can use. */
bool lang_can_use(Lang user, Lang def);
/* Whether word w[0, n) is a keyword or builtin of lang: a name never
 * worth looking up as a definition. */
bool lang_is_stopword(Lang lang, const char *w, size_t n);

typedef enum {
	IMPORT_NAME,	  /* `from m import a`, `import {a} from "m"` */
	IMPORT_DEFAULT,	  /* `import A from "m"` */
	IMPORT_MODULE,	  /* `import a.b`, `import a.b as m` */
	IMPORT_NAMESPACE, /* `import * as M from "m"` */
} ImportKind;

/* One name an import statement binds (ranges are byte offsets into the
 * text; an empty range is absent). */
typedef struct {
	ImportKind kind;
	bool reexport;	  /* `export {a} from "m"`: passed on, not bound */
	ByteRange stmt;	  /* the whole statement */
	ByteRange prefix; /* a group's path, written before module
			   * (`a::b` of `use a::b::{c::D}`); mostly empty */
	ByteRange module; /* the module as written, without quotes */
	bool relative;	  /* module is relative to the file's own module */
	ByteRange name;	  /* the name in the module, last component only ("C"
			   * of `a.b.C`); empty for a module or namespace */
	ByteRange local;  /* the name it has in this file; empty when the
			   * statement binds none (`import "./polyfill"`) */
} ImportRef;

/*
 * The imports among the top-level statements of tree, a parse of text
 * with lang's grammar, in order, into *out (the caller's to xfree; NULL
 * when there are none). Borrows tree and text. Returns the count.
 */
uint32_t chunker_imports(Lang lang, const TSTree *tree, const char *text,
			 uint32_t len, ImportRef **out);

/* What chunker_noncode finds. */
enum {
	NONCODE_COMMENTS = 1, /* comments, whole */
	NONCODE_STRINGS = 2,  /* string literals, whole */
	NONCODE_MODULES = 4,  /* the module an import names ("a.b" of `from
			       * a.b import c`; the whole `import a.b`) */
};

/* The parts of [lo, hi) of the text tree parses that are no names of its
 * code, of the kinds `what` asks for, in order, into *out (the caller's
 * to xfree). Borrows tree. Returns the count. */
uint32_t chunker_noncode(Lang lang, const TSTree *tree, uint32_t lo,
			 uint32_t hi, unsigned what, ByteRange **out);

/* The receivers of the top-level methods of the text tree parses that
 * overlap [lo, hi) (Go's `(e *encoder)` of `func (e *encoder) emit()`),
 * in order, into *out (the caller's to xfree): each names the type its
 * method is of, which the method does not use by naming it. Borrows
 * tree. Returns the count; 0 where the language writes none. */
uint32_t chunker_receivers(Lang lang, const TSTree *tree, uint32_t lo,
			   uint32_t hi, ByteRange **out);

/* A name given a type, by an annotation (`x: Foo`, `owner: User`) or by
 * the call it is assigned from (`x = Foo(...)`, `new Foo()`: the callee
 * stands for the type). */
typedef struct {
	ByteRange name; /* an identifier, or `self.x`, `this.x` */
	ByteRange type; /* the annotation or the callee, as written */
	bool member;	/* declared in a class body: used through self/this */
	bool call;	/* type is a callee: maybe a constructor function
			 * (lang_ctor_prefix) rather than the type itself */
} TypedName;

/* The names given a type by nodes inside [lo, hi) of the text tree
 * parses, in order, into *out (the caller's to xfree). Borrows tree.
 * Returns the count. */
uint32_t chunker_typed_names(Lang lang, const TSTree *tree, uint32_t lo,
			     uint32_t hi, TypedName **out);
/* How a method names its own object: "self", "this"; "" for none. */
const char *lang_self_word(Lang lang);
/* What starts the name of a function that makes the type its rest
 * names, space-separated (Go's "New" of `NewFoo`; "new" of `newFoo`,
 * which makes a `foo`); "" for none. */
const char *lang_ctor_prefix(Lang lang);
/* Whether a type's name may start with a small letter, as Go's
 * unexported types do; else a type is named with a capital. */
bool lang_lower_types(Lang lang);
/* Whether a member of a type may be written outside the type's body,
 * named through it (Go's methods by their receiver, C++'s `A::f`): then
 * the member `T.m` may have a parent other than T. Read from the rows. */
bool lang_members_apart(Lang lang);
/* What stands between an object and its member, space-separated:
 * ".", ". ->" for C and C++. */
const char *lang_member_ops(Lang lang);
/* Whether a definition named name is kept to its file by what lang says
 * (`static`, `private`, no `export`, a leading `_`): lead[0, nlead) is the
 * text of its first line before it (`export const ` of a binding), header
 * its header; top: it is at the file's top level; namespaced: inside
 * namespaces only. */
bool lang_is_private(Lang lang, const char *name, const char *lead,
		     size_t nlead, const char *header, bool top,
		     bool namespaced);
/* Words one of which a file of lang must hold to be a module, space-
 * separated ("import export require"): without, it is a script whose
 * top-level names are global, and nothing is kept to it; "" when every
 * file is a module. */
const char *lang_module_words(Lang lang);
/* Whether what lang keeps private is kept to its file's directory (Go's
 * package) rather than to the file. */
bool lang_private_dir(Lang lang);
/* What starts a comment that runs to the end of the line: "#", "//";
 * "" for none (Markdown). */
const char *lang_line_comment(Lang lang);

/* Appends the span path of chunk i ("Outer > method") to b. */
void chunking_span_path(const Chunking *c, int32_t span, const char *sep,
			Buf *b);

#endif
