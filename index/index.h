/*
 * index.h: the workspace index. Chunks and spans of every supported file
 * under a root, stored as rows in one SQLite database per root, with a
 * code-aware full-text index over chunk text, names and paths.
 *
 * An Index is one database connection: use it from one thread at a time.
 * Several Index handles (threads or processes) may share a database; one
 * writes at a time and readers are never blocked (WAL).
 */
#ifndef CASTLS_INDEX_H
#define CASTLS_INDEX_H

#include <stdatomic.h>

#include "chunker/chunker.h"

/* Bump when what is stored, or which files are, changes: an index of
 * another version is rebuilt. 3: minified files are skipped. 4: Go, Rust,
 * Java, C and C++ files are stored, generated ones skipped. 5: spans_name
 * is ordered by qualified length, files by indexed_at; spans keep no doc
 * comment. 6: bindings (`MAX = 3`, `export const a = 1` at the top level
 * or in a class body) are spans, and a name's code comes before its
 * data in spans_name. 7: Rust's impl blocks are spans of kind impl, after
 * a name's definitions in spans_name. 8: spans_name ends in the span's
 * hash, which orders a name's namesakes in place of their paths. 10: a
 * C or C++ function a macro follows (`void f() NOEXCEPT {`) is named f,
 * not the macro. 11: a C++ conversion operator, defined or declared, is a span,
 * `operator T`. 12: a C or C++ include guard is no span. 13: a C++ function
 * whose return type a macro pushed into its declarator is not qualified by that
 * type. 14: a C++ class an export macro hid (`class API_ A`) is a class
 * named A. 15: a span keeps whether it is at its file's top or in
 * namespaces only. 16: a class with a body of its own is not taken for
 * one an export macro hid. 17: a name followed by its qualifier's separator
 * (`DECL ns::T f();` read as a field `ns`) names no span. 18: the
 * spans_name index orders late kinds by ORs (LATE_KIND), and lookups
 * in the old index's order would sort rather than read it. 19: the
 * spans_parent index holds each child's start, so a parent's first
 * children are read in order. 20: and leaves out top-level spans. 21: an
 * identifier's spelling with '_' or '$' is no full-text term (tokenize.h):
 * deleting a row indexed before would leave that spelling's postings
 * behind. */
#define INDEX_SCHEMA_VERSION 21
#define INDEX_DEFAULT_MAX_FILE (1024u * 1024u) /* bytes */
#define INDEX_BUSY_TIMEOUT_MS 10000
/* Write-ahead log pages (of 16 KiB) that make a commit checkpoint, as
 * SQLite's own default; a deferred checkpoint waits up to the maximum. */
#define INDEX_WAL_CHECKPOINT_PAGES 1000
#define INDEX_WAL_MAX_PAGES 4000
#define INDEX_MAX_JOBS 64
#define INDEX_SEARCH_MAX 1000 /* results per query */

typedef struct Index Index;

typedef struct {
	const char *root;	  /* workspace root; must exist */
	const char *db_path;	  /* NULL: the default cache location */
	uint32_t max_chunk_size;  /* 0: CHUNKER_DEFAULT_MAX_SIZE */
	uint64_t max_file_size;	  /* 0: INDEX_DEFAULT_MAX_FILE */
	const char *exclude;	  /* extra ignore patterns, one per line,
				   * gitignore syntax, anchored at the root;
				   * copied; NULL: none */
	uint32_t busy_timeout_ms; /* wait for another writer; 0: default */
	bool verify;		  /* run PRAGMA quick_check when opening (it
				   * reads the whole file) */
	bool quiet;		  /* no messages on stderr */
	bool reader;		  /* only reads (castls search, status): a
				   * database that cannot be written (a
				   * read-only file or cache directory) is
				   * opened for reading instead of failing */
	bool alone;		  /* no one else reads the database while
				   * this connection scans (castls index):
				   * a first scan may then write it with a
				   * rollback journal, each page once,
				   * instead of through the write-ahead log
				   * and its checkpoints */
	/* Shared by the connections to one database that should give way
	 * to each other (NULL: none): one waiting for the write lock
	 * stamps it (monotonic ms) while it waits, and a scan
	 * holding the lock ends its transaction early to let it through.
	 * A live buffer's write then waits for one file's rows, not for a
	 * scan's batch of thousands. */
	_Atomic int64_t *lock_wait;
} IndexOptions;

/* Appends the default database path of an absolute root to out:
 * $XDG_CACHE_HOME/castls/<hash of root>/index.db (~/.cache if unset). */
void index_default_db_path(const char *root, Buf *out);

/*
 * Opens the index of opt->root, creating the database and its directory
 * when missing. A database of another schema version, or one that is not
 * a database or (with opt->verify) fails `PRAGMA quick_check`, is rebuilt
 * empty (with a message on stderr) and filled by the next scan. Returns 0
 * and sets *out (the caller's to index_close), or CASTLS_ENOENT (no root),
 * CASTLS_EACCES, CASTLS_EREADONLY, CASTLS_ENOSPC or CASTLS_EIO (the
 * database or its directory), CASTLS_EBUSY (locked past the busy
 * timeout), CASTLS_EDB.
 */
int index_open(const IndexOptions *opt, Index **out);
void index_close(Index *ix); /* NULL-safe */

const char *index_root(const Index *ix); /* absolute, no trailing / */
const char *index_db_path(const Index *ix);
/* The last SQLite or system message behind an error, for the user. */
const char *index_errmsg(const Index *ix);

/* ---------------------------------------------------------------------- *
 * Scanning the workspace
 * ---------------------------------------------------------------------- */

typedef struct {
	uint32_t seen;	    /* candidate files found so far */
	uint32_t done;	    /* of those, processed */
	uint32_t indexed;   /* chunked and written */
	uint32_t unchanged; /* same stamp, or same content */
	uint32_t skipped;   /* binary, too large, unreadable, no language */
	uint32_t generated; /* of those, minified or generated by a tool
			     * (lang_generated) */
	uint32_t removed;   /* rows of files that vanished */
	uint32_t ignore_partial; /* paths not matched against every ignore
				  * pattern: too costly (ignore.h) */
	uint64_t bytes;		 /* bytes chunked */
	bool walking;		 /* the directory walk is still going */
} ScanStats;

/* Called from the scanning thread about ten times a second, and once at
 * the end. */
typedef void (*ScanProgressFn)(void *ctx, const ScanStats *s);

/*
 * Brings the index up to date with the files under the root: walks it
 * (honouring .gitignore files, .git/info/exclude, .castlsignore and the
 * exclude option; never leaving the root through a symlink), chunks new
 * and changed files on `jobs` threads (0: one per core), the calling
 * thread among them, which also writes the rows in batched transactions;
 * each file's rows change in one transaction. A file with the stamp
 * (size, mtime) it had is not read; one whose content hash is unchanged
 * only gets its stamp updated; rows of vanished files are deleted.
 * Setting *cancel (may be NULL) stops early with CASTLS_ECANCELED; what
 * was committed stays.
 */
int index_scan(Index *ix, int jobs, ScanProgressFn fn, void *ctx,
	       const volatile int *cancel, ScanStats *out);

/* True once a scan of this database has run to its end: its rows serve
 * requests while the next one runs. */
bool index_scanned(Index *ix);

/* ---------------------------------------------------------------------- *
 * Single files (live editor buffers)
 * ---------------------------------------------------------------------- */

typedef struct {
	uint32_t inserted, updated, deleted, kept; /* chunk + span rows */
} IndexDelta;

/*
 * Replaces the rows of the file at relpath (relative to the root) with
 * the chunks and spans of text, in one transaction. Rows whose content did
 * not change keep their ids; rows that only moved get new positions.
 * Borrows everything. delta may be NULL. When the index holds these very
 * rows for this text already, nothing is committed and the file keeps its
 * stamp. Its commit never checkpoints the
 * write-ahead log (up to INDEX_WAL_MAX_PAGES): a live buffer's writes
 * should be quick, so the writer has index_checkpoint run when it suits.
 */
int index_file_put(Index *ix, const char *relpath, const char *text,
		   uint32_t len, const Chunking *c, IndexDelta *delta);

/*
 * The rows index_file_put(ix, relpath, text, len, after, NULL) would
 * leave, written knowing what changed, for the keystrokes of a live
 * buffer: `after` is `before` carried across the one edit by
 * chunking_edit (only the places of before's spans and chunks are read:
 * chunking_copy_places), and the index holds its rows for a text
 * whose castls_hash(.., 0) is before_hash; hash is that of text. The rows
 * holding the edit are rewritten, those after it move with one statement
 * per table, the rest stay untouched. Unlike index_file_put, the rows
 * holding the edit keep their ids too.
 * Returns 0, CASTLS_EINVAL (nothing written) when the chunkings are not
 * one edit apart or the index holds other rows (index_file_put then
 * does it), or another error. Borrows everything; commits as
 * index_file_put does.
 */
int index_file_edit(Index *ix, const char *relpath, const char *text,
		    uint32_t len, uint64_t hash, const TSInputEdit *edit,
		    const Chunking *before, uint64_t before_hash,
		    const Chunking *after);

/* Whether the write-ahead log had INDEX_WAL_CHECKPOINT_PAGES or more
 * after this connection's last commit, and no checkpoint since. */
bool index_checkpoint_due(const Index *ix);

/* Copies the write-ahead log into the database as far as readers allow,
 * without waiting for them or blocking writers (a passive checkpoint);
 * any connection of the database may do it. 0 or an error. */
int index_checkpoint(Index *ix);

/*
 * The full-text index's writes merge none of its segments in their
 * commits (a keystroke's would take 10-25 ms now and then): the writer
 * runs this when it has time. It merges INDEX_MERGE_PAGES leaf pages at
 * a step (FTS5's 'merge': the level with the most segments, once it has
 * four), in one transaction, until nothing is left to merge, *stop is
 * set, another connection waits for the lock, or ms passed; *more says
 * whether merges are left. CASTLS_EBUSY at once, and nothing done, when
 * another connection is writing.
 */
#define INDEX_MERGE_PAGES 16
int index_merge(Index *ix, int64_t ms, const atomic_bool *stop, bool *more);

/* Deletes the rows of the file at relpath; 0 also when it had none. */
int index_file_remove(Index *ix, const char *relpath);

/* ---------------------------------------------------------------------- *
 * Queries
 * ---------------------------------------------------------------------- */

typedef struct {
	int64_t id;	 /* chunk row id */
	int64_t span_id; /* innermost span, or 0 */
	int64_t file_id;
	char *path; /* relative to the root */
	Lang lang;
	ChunkKind kind;
	ByteRange bytes;
	LineRange lines;
	double score; /* higher is better (negated bm25) */
	char *names;  /* qualified names in the chunk, space-separated */
	char *text;
} IndexHit;

/*
 * Full-text search for free text or identifiers. Returns up to limit
 * (at most INDEX_SEARCH_MAX) hits, best first, in *hits (the caller's to
 * index_hits_free). Text that yields no search terms gives no hits.
 */
int index_search(Index *ix, const char *query, size_t len, uint32_t limit,
		 IndexHit **hits, uint32_t *n);

/* index_search with the query's terms, rarest first, kept while they
 * match at most postings chunks in all (0, or more than
 * INDEX_POSTINGS_MAX: INDEX_POSTINGS_MAX), the rarest whatever its
 * count. The cost of a search is about that sum, which on a large
 * workspace is the budget. */
#define INDEX_POSTINGS_MAX 20000
int index_search_within(Index *ix, const char *query, size_t len,
			uint32_t limit, uint32_t postings, IndexHit **hits,
			uint32_t *n);
void index_hits_free(IndexHit *hits, uint32_t n);

typedef struct {
	int64_t id, parent_id, file_id; /* parent_id 0 at top level */
	char *path;			/* relative to the root */
	Lang lang;
	SpanKind kind;
	char *name, *qualname, *header;
	ByteRange bytes;
	LineRange lines;
	uint64_t hash; /* of its text, qualified name and header */
	bool top;      /* at its file's top level or in a namespace only */
	double score;  /* index_symbols only */
} IndexSpan;

/* One span by row id; returns 1 found (release it with
 * index_span_clear), 0 not found, or an error. */
int index_span_get(Index *ix, int64_t id, IndexSpan *out);
void index_span_clear(IndexSpan *s);
void index_spans_free(IndexSpan *spans, uint32_t n);

/*
 * Symbols for workspace/symbol: spans whose name starts with query
 * (case-insensitive), or whose camelCase/snake_case parts start with the
 * query's parts in order ("gUN" and "user_na" both find getUserName).
 * Exact names first, then prefixes, then part matches; shorter names
 * first within each. An empty query lists spans in path order.
 */
int index_symbols(Index *ix, const char *query, uint32_t limit, IndexSpan **out,
		  uint32_t *n);

/* Spans named `name` exactly, code before data (variables, constants,
 * fields), then the shortest qualified name first, up to limit (at most
 * INDEX_SEARCH_MAX). */
int index_spans_named(Index *ix, const char *name, uint32_t limit,
		      IndexSpan **out, uint32_t *n);

/* The spans whose parent is span id (a class's methods), in order. */
int index_span_children(Index *ix, int64_t id, uint32_t limit, IndexSpan **out,
			uint32_t *n);

/* The indexed text of bytes [start, end) of a file, rebuilt from its
 * chunks, into *out (the caller's to xfree). Returns 1 found, 0 when
 * the rows do not cover the range, or an error. */
int index_file_text(Index *ix, int64_t file_id, uint32_t start, uint32_t end,
		    char **out);

/*
 * The chunks holding the definitions named `name` exactly (the chunk
 * where each such span starts), up to limit. Each hit's score is 0 and
 * its names field holds the span's qualified name.
 */
int index_definitions(Index *ix, const char *name, uint32_t limit,
		      IndexHit **hits, uint32_t *n);

/* The chunks of one file (relative path), in order. */
int index_file_chunks(Index *ix, const char *relpath, IndexHit **hits,
		      uint32_t *n);

/*
 * Batched lookups, for a caller with many names or ids at once: one
 * statement however many (at most INDEX_SEARCH_MAX of them). Each returns
 * 0 or an error, with *out the caller's to index_spans_free.
 */

/* The spans named exactly one of names[0, n), at most per_name of each
 * in the order of index_spans_named, sorted by name (bytewise) and then
 * that order. Borrows names. */
int index_spans_named_many(Index *ix, const char *const *names, uint32_t n,
			   uint32_t per_name, IndexSpan **out, uint32_t *nout);

/* Whether the span of name in the file at path is one the caller wants;
 * see index_spans_named_where. */
typedef bool (*IndexKeepFn)(void *ctx, const char *name, const char *path);

/* index_spans_named_many, and for each name that has more than per_name
 * spans, also those of its next `scan` spans (in the same order) whose
 * file keep(ctx, name, path) accepts, at most per_name more: the
 * definitions in the module an import names, wherever the name's order
 * puts them. Sorted as index_spans_named_many's. */
int index_spans_named_where(Index *ix, const char *const *names, uint32_t n,
			    uint32_t per_name, uint32_t scan, IndexKeepFn keep,
			    void *ctx, IndexSpan **out, uint32_t *nout);

/* The spans named names[i] whose parent span is named classes[i], and
 * when `apart`, those whose qualified name ends in classes[i] and the
 * name (a Go method by its receiver, a C++ member defined outside its
 * class; lang_members_apart says which languages write them): the
 * methods `x.name` may mean when x is a classes[i]. At most per_pair of
 * each pair, in the order of the pairs. Borrows the names. */
int index_members_named_many(Index *ix, const char *const *classes,
			     const char *const *names, uint32_t n, bool apart,
			     uint32_t per_pair, IndexSpan **out,
			     uint32_t *nout);

/* The children of each span of ids[0, n), at most per_parent of each in
 * file order, sorted by parent id and then that order. */
int index_span_children_many(Index *ix, const int64_t *ids, uint32_t n,
			     uint32_t per_parent, IndexSpan **out,
			     uint32_t *nout);

/* Every span on the parent chains of ids[0, n) (each id's span, its
 * parent, and so on up), each once, in no particular order. */
int index_span_chains(Index *ix, const int64_t *ids, uint32_t n,
		      IndexSpan **out, uint32_t *nout);

typedef struct {
	int64_t file_id;
	uint32_t start, end; /* bytes, end exclusive */
} IndexTextRange;

/* index_file_text for each of r[0, n): texts[i] (the caller's to xfree)
 * is the text of range i, or NULL when the rows do not cover it. 0 or an
 * error (then every texts[i] is NULL). */
int index_file_texts(Index *ix, const IndexTextRange *r, uint32_t n,
		     char **texts);

/* Whether identifier word is in the code of a file of relpath's
 * directory other than relpath itself, into *found: Go's unexported
 * names serve their package, its directory. Compared as the index's
 * tokens are (case aside, getUser meets get_user). */
int index_word_beside(Index *ix, const char *word, const char *relpath,
		      bool *found);

/* Whether the rows of file file_id still hold what is on disk: its
 * file is there with the size and mtime its rows were read at. Rows a
 * live buffer wrote (they have no disk stamp) count as current. False
 * for a file the index does not have, or on an error. */
bool index_file_current(Index *ix, int64_t file_id);

/* SQL statements this connection has run (those SQLite runs for the
 * full-text index included): what a request costs, for measuring. */
uint64_t index_statements(const Index *ix);

/* The reads that follow, until index_read_end, see one state of the
 * database, the one when the first of them ran, whatever other
 * connections commit meanwhile. A request's lookups then agree with each
 * other, and the connection's page cache, which SQLite empties whenever
 * it finds another connection's commit, is emptied at most once per
 * request rather than before any of its statements (a scan commits every
 * second or so while it runs). Inside a transaction of its own, the
 * connection keeps that one. */
int index_read_begin(Index *ix);
void index_read_end(Index *ix);

typedef struct {
	uint32_t files, spans, chunks;
	uint32_t files_by_lang[LANG_COUNT];
	uint32_t chunks_by_lang[LANG_COUNT];
	uint32_t chunks_by_kind[CHUNK_KIND_COUNT];
	uint32_t spans_by_kind[SPAN_KIND_COUNT];
	uint64_t source_bytes;
	uint64_t db_bytes;    /* database file plus its WAL */
	int64_t last_indexed; /* unix seconds; 0 never */
} IndexStatus;

/* The totals, files by language, sizes and the last scan: a few index
 * lookups, cheap enough for a client that polls. The by-kind and
 * chunks-by-language tables are left zero. */
int index_counts(Index *ix, IndexStatus *out);
/* index_counts and the tables by kind and language, which read every
 * chunk and span row (tens of ms on a large index). */
int index_status(Index *ix, IndexStatus *out);

#endif
