/*
 * index_int.h: shared between the files of index/ only.
 */
#ifndef CASTLS_INDEX_INT_H
#define CASTLS_INDEX_INT_H

#include <sqlite3.h>
#include <sys/stat.h>

#include "index.h"

/* Prepared statements, one per row of the table in store.c. */
enum {
	ST_FILE_GET,
	ST_FILE_INSERT,
	ST_FILE_UPDATE,
	ST_FILE_DELETE,
	ST_FILE_STAMP,
	ST_FILES_ALL,
	ST_SPANS_OF,
	ST_SPAN_INSERT,
	ST_SPAN_UPDATE,
	ST_SPAN_DELETE,
	ST_CHUNKS_OF,
	ST_CHUNK_INSERT,
	ST_CHUNK_TEXT_INSERT,
	ST_CHUNK_UPDATE,
	ST_CHUNK_DELETE,
	ST_CHUNK_TEXT_DELETE,
	ST_CHUNK_TEXT,
	ST_SPANS_SHIFT,
	ST_SPAN_STRETCH,
	ST_CHUNKS_SHIFT,
	ST_CHUNK_AT,
	ST_CHUNK_STRETCH,
	ST_CHUNK_TEXT_PUT,
	ST_FTS_INSERT,
	ST_FTS_DELETE,
	ST_META_PUT,
	ST_FTS_MERGE, /* compaction, index_merge */
	ST_FTS_STRUCTURE,
	ST_SPAN_GET,	     /* symbols.c: the columns of SPAN_COLUMNS */
	ST_DEFINITIONS,	     /* symbols.c: HIT_COLUMNS, qualname, text */
	ST_SPANS_NAMED_MANY, /* symbols.c: the batched lookups */
	ST_NAMESAKES,
	ST_CHILDREN_MANY,
	ST_SPAN_CHAINS,
	ST_FILE_TEXTS,
	ST_MEMBERS_MANY,
	ST_MEMBERS_INSIDE,
	ST_CHUNK_COUNT, /* search.c */
	ST_TERM_DF,
	ST_DATA_VERSION, /* symbols.c */
	ST_NAME_COUNTS,
	ST_NAME_COUNTS_SINCE,
	ST_FILE_STAMP_OF,
	ST_WORD_BESIDE, /* search.c */
	ST_COUNT
};

struct Index {
	sqlite3 *db;
	sqlite3_stmt *st[ST_COUNT];
	char *root;
	char *db_path;
	char errmsg[512];
	IndexOptions opt;
	bool in_txn;
	bool in_read;		 /* index_read_begin's transaction */
	int64_t wait_start;	 /* of its wait for a lock, ms */
	int64_t own_stamp;	 /* the last lock_wait stamp it set */
	bool defer_checkpoint;	 /* commits leave the log to index_checkpoint */
	bool bulk_journal;	 /* out of WAL mode for a first scan */
	int wal_pages;		 /* in the log after this connection's last
				  * commit, 0 after a checkpoint */
	uint64_t statements;	 /* run on this connection, for measuring */
	struct DfCache *df;	 /* search.c; NULL until the first query */
	struct NameCache *names; /* symbols.c; NULL until the first query */
};

/* Columns read by symbols.c, shared with the statement table; the last
 * says whether the span is at its file's top level or in a namespace
 * (IndexSpan.top). */
#define SPAN_COLUMNS                                                     \
	"s.id, s.parent_id, s.file_id, f.path, f.lang, s.kind, s.name,"  \
	" s.qualname, s.header, s.start_byte, s.end_byte, s.start_line," \
	" s.end_line, s.hash, s.top"
/* True for the span kinds a name means last (span_is_late says the same
 * in C): data (a file's bindings are many) and impl blocks (they add to a
 * type defined elsewhere). p prefixes the kind column ("s." or ""). ORs,
 * not `kind IN (...)`: SQLite reads an IN list of over two values
 * through a table it builds at each evaluation, and the spans_name index
 * evaluates this for every span it holds (building it took 2.5 times
 * as long, the largest part of the end of a first load). */
#define LATE_KIND(p)                                                     \
	"(" p "kind = 'variable' OR " p "kind = 'constant' OR " p "kind" \
	" = 'field' OR " p "kind = 'impl')"

static inline bool span_is_late(SpanKind k)
{
	return k == SPAN_VARIABLE || k == SPAN_CONSTANT || k == SPAN_FIELD ||
	       k == SPAN_IMPL;
}

/* The order of the definitions of one name, in every lookup by name:
 * code before data and impl blocks (LATE_KIND), the least qualified
 * first, then by content (the span's hash) and row. The spans_name index
 * holds all of it: the first few definitions of a name defined thousands
 * of times (`__init__`) are its first few entries, where ordering them by
 * path read a spans and a files row for each of the thousands. */
#define NAME_ORDER(s) \
	LATE_KIND(#s ".") ", length(" #s ".qualname), " #s ".hash, " #s ".id"

#define HIT_COLUMNS                                                         \
	"c.id, c.span_id, c.file_id, f.path, f.lang, c.kind, c.start_byte," \
	" c.end_byte, c.start_line, c.end_line"

/* A monotonic clock in milliseconds, as lock_wait is stamped. */
int64_t index__clock_ms(void);
/* Whether another connection sharing ix's lock_wait is waiting for the
 * write lock now (it stamps every LOCK_WAIT_POLL_MS). */
bool index__lock_wanted(const Index *ix);

/* FTS5's structure record of chunks_fts: its levels and segments. */
#define FTS_STRUCTURE_GET "SELECT block FROM chunks_fts_data WHERE id=10"
#define FTS_STRUCTURE_SET "UPDATE chunks_fts_data SET block=?1 WHERE id=10"
/* The segments on a level that FTS5's 'merge' takes into one (its
 * 'usermerge', set to this). */
#define FTS_MERGE_MIN 4
/* segments.c: one FTS5 'merge' of pages (negative: gather every segment
 * into one merge first); *more while it found work to do. */
int index__merge_pages(Index *ix, int pages, bool *more);
/* The levels and segments of the full-text index's structure record; -1
 * each when it cannot be read. */
void index__fts_structure(Index *ix, int64_t *levels, int64_t *segments);
/* Puts each full-text segment on the level merges of one-page segments
 * would have (at least), between transactions of ix. Only what merges
 * cost depends on it: when the database cannot be written (busy past
 * the timeout, full), it does nothing. */
void index__fts_relevel(Index *ix);

/* Maps a SQLite result code to a castls code, and keeps its message. */
int index__db_error(Index *ix, int rc);

/* A file's mtime as the files table keeps it: nanoseconds. */
int64_t index__stat_mtime(const struct stat *st);
/* The size of the write-ahead log beside db_path; 0 when there is none. */
uint64_t index__wal_bytes(const char *db_path);

/* Transactions: begin (immediate, so a second writer waits here) and
 * commit or roll back. */
int index__begin(Index *ix);
/* index__begin, but CASTLS_EBUSY at once when another connection holds
 * the lock, rather than after the busy timeout. */
int index__begin_unless_busy(Index *ix);
int index__commit(Index *ix);
void index__rollback(Index *ix);
/* Ends the transaction as the work in it went: commits when err is 0,
 * else rolls back. Returns err, or the commit's error. */
int index__end(Index *ix, int err);

/* Bulk mode for the first scan into an empty index: no fsync
 * (synchronous=OFF) and, for a connection alone (IndexOptions.alone),
 * the rollback journal instead of the log, which a new file opened alone
 * is in from the start. A killed process loses nothing the OS has; a
 * power cut may cost the index being built, nothing older. Off again
 * (synchronous=NORMAL), all that was written gets synced: by the switch
 * back to WAL mode, or in WAL mode by the next checkpoint. */
int index__bulk(Index *ix, bool on);
/* A first scan into an empty index that no one reads meanwhile (bulk
 * mode, alone) loads it: on drops the secondary indexes, to be built
 * after the rows (a sort each, where a row each would land at random in
 * the name index), and stops the full-text index merging its segments
 * as they come (the scan's compaction merges them all once); off builds
 * the indexes and restores FTS5's merge settings, as opening the file
 * does when a load was cut short. */
int index__load(Index *ix, bool on);
/* Ends a load a step at a time, each its own transaction, the table
 * taking rows in between: index__load_index builds the i-th secondary
 * index (*built false when there is none), index__load_end restores
 * FTS5's merge settings. */
int index__load_index(Index *ix, unsigned i, bool *built);
int index__load_end(Index *ix);
/* A load of this many bytes and more finishes early (scan.c's
 * FINISH_PART); tests lower it. */
extern uint64_t index__finish_min;
/* Starts writing what the database file holds in the page cache to
 * disk, without waiting: in bulk mode, so that the sync at its end has
 * little left to wait for. Linux only; errors are ignored (the sync
 * reports them). */
void index__writeback(Index *ix);

/* Runs a statement that returns no rows (or whose rows are ignored). */
int index__step_done(Index *ix, sqlite3_stmt *s);
/* Binds n bytes of text at p, which must outlive the statement's step. */
void index__bind_text(sqlite3_stmt *s, int i, const char *p, size_t n);

/* Reset a statement for reuse and hand it out. */
sqlite3_stmt *index__stmt(Index *ix, int which);
/* Where a connection's database stands: another connection's commits
 * move data_version (-1 when it cannot be read), this one's its total
 * changes. Two equal marks: nothing was written between them. */
typedef struct {
	int64_t data_version, changes;
} IndexMark;
IndexMark index__mark(Index *ix);
static inline bool index__mark_same(IndexMark a, IndexMark b)
{
	return a.data_version == b.data_version && a.changes == b.changes;
}

/* What the index remembers of a file. */
typedef struct {
	int64_t id;
	int64_t size, mtime; /* mtime in nanoseconds */
	uint64_t hash;
	Lang lang; /* loaded, not stored, by the calls below */
} FileStamp;

/* Loads the stamp of relpath; returns 1 if found, 0 if not, <0 error. */
int index__file_stamp(Index *ix, const char *relpath, FileStamp *out);

/* Within a transaction: writes the rows of one file (see index_file_put)
 * with its stamp. */
int index__file_write(Index *ix, const char *relpath, Lang lang,
		      const FileStamp *stamp, const char *text, uint32_t len,
		      const Chunking *c, IndexDelta *delta);
/* Within a transaction: new stamp, same rows. */
int index__file_touch(Index *ix, int64_t id, const FileStamp *stamp);
/* Within a transaction: deletes a file and its rows. */
int index__file_delete(Index *ix, int64_t id);

/* bm25.c: defines castls_bm25() on db (see there); 0 or CASTLS_EDB. */
int index__bm25_register(sqlite3 *db);

/* search.c: frees the document-frequency cache (NULL does nothing). */
void index__df_cache_delete(struct DfCache *c);
/* symbols.c: frees the span-name cache (NULL does nothing). */
void index__name_cache_delete(struct NameCache *c);

/* A copy of text column i of the current row ("" for NULL). */
char *index__column_dup(sqlite3_stmt *s, int i);

/* Fills the first HIT_COLUMNS of the current row into h (id .. lines);
 * names, text and score are the caller's. */
void index__hit_read(sqlite3_stmt *s, IndexHit *h);

/* tokenize.c: code_tokenize() without its fast path for plain words;
 * the same tokens, for tests that compare the two. */
int code__tokenize_reference(const char *text, size_t len,
			     int (*fn)(void *ctx, int flags, const char *tok,
				       int len, int start, int end),
			     void *ctx);

/* Wall clock in unix seconds. */
int64_t index__now(void);

#endif
