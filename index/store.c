/*
 * store.c: the SQLite side of the index. Schema, statements, transactions,
 * opening and rebuilding; rows.c writes a file's rows.
 */
#ifdef __linux__
#define _GNU_SOURCE /* sync_file_range */
#endif
#include "index_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tokenize.h"

/* A number below, as a string literal in SQL text. */
#define STR_(x) #x
#define STR(x) STR_(x)
/* Page cache per connection, KiB: enough to keep the full-text index's
 * hot pages of a large workspace. */
#define INDEX_CACHE_KIB 16384
/* Bytes a database page; see open_db. */
#define INDEX_PAGE_BYTES 16384
/* The pages of the process's page-cache pool (sqlite_setup): the caches
 * of four connections (a server's worker threads) at the sizes above. */
#define POOL_PAGES (4 * INDEX_CACHE_KIB / (INDEX_PAGE_BYTES / 1024))

/* ---------------------------------------------------------------------- *
 * Schema
 * ---------------------------------------------------------------------- */

/* Kinds and languages are stored by name so the database reads on its
 * own; span and chunk `hash` columns identify content for stable ids. */
static const char schema[] =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE files("
    " id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE,"
    " lang TEXT NOT NULL, size INTEGER NOT NULL, mtime INTEGER NOT NULL,"
    " hash INTEGER NOT NULL, indexed_at INTEGER NOT NULL);"
    "CREATE TABLE spans("
    " id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL,"
    " parent_id INTEGER, kind TEXT NOT NULL, name TEXT NOT NULL,"
    " qualname TEXT NOT NULL, start_byte INTEGER NOT NULL,"
    " end_byte INTEGER NOT NULL, start_line INTEGER NOT NULL,"
    " end_line INTEGER NOT NULL, header TEXT NOT NULL,"
    " hash INTEGER NOT NULL, top INTEGER NOT NULL);"
    /* A chunk is two rows: where it is, and its text (with the names
     * it answers to) under the same id. A keystroke moves every chunk
     * after it, and those rows, without their text, take a page or two
     * to rewrite, not the file's text again. */
    "CREATE TABLE chunk_rows("
    " id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, span_id INTEGER,"
    " kind TEXT NOT NULL, start_byte INTEGER NOT NULL,"
    " end_byte INTEGER NOT NULL, start_line INTEGER NOT NULL,"
    " end_line INTEGER NOT NULL, size INTEGER NOT NULL,"
    " hash INTEGER NOT NULL);"
    "CREATE TABLE chunk_texts("
    " id INTEGER PRIMARY KEY, names TEXT NOT NULL, text TEXT NOT NULL);"
    /* The chunks whole, to read (the database reads on its own). */
    "CREATE VIEW chunks AS SELECT c.id AS id, c.file_id AS file_id,"
    " c.span_id AS span_id, c.kind AS kind, c.start_byte AS start_byte,"
    " c.end_byte AS end_byte, c.start_line AS start_line,"
    " c.end_line AS end_line, c.size AS size, c.hash AS hash,"
    " t.names AS names, t.text AS text"
    " FROM chunk_rows c JOIN chunk_texts t ON t.id = c.id;"
    /* The full-text index reads its documents through this view, so
     * chunk text is stored once. */
    "CREATE VIEW chunks_doc AS SELECT t.id AS id, t.text AS text,"
    " t.names AS names, f.path AS path FROM chunk_texts t"
    " JOIN chunk_rows c ON c.id = t.id JOIN files f ON f.id = c.file_id;"
    "CREATE VIRTUAL TABLE chunks_fts USING fts5(text, names, path,"
    " content='chunks_doc', content_rowid='id', tokenize='castls');"
    /* FTS5 writes its pending terms out as a new segment when they pass
     * this many bytes (1 MiB by default), and at every commit. A large
     * write transaction of a scan then leaves one segment, not a dozen
     * that the merges would read and write again. */
    "INSERT INTO chunks_fts(chunks_fts, rank)"
    " VALUES('hashsize', 16777216);"
    /* See fts_merges. */
    "INSERT INTO chunks_fts(chunks_fts, rank) VALUES('automerge', 0);";

/* The secondary indexes, apart from the tables: a first load builds
 * them after its rows (index__load). */
static const struct {
	const char *name, *sql;
} indexes[] = {
    /* For the files written since a moment (symbols.c). */
    {"files_indexed", "CREATE INDEX IF NOT EXISTS files_indexed"
		      " ON files(indexed_at)"},
    {"spans_file", "CREATE INDEX IF NOT EXISTS spans_file"
		   " ON spans(file_id, start_byte)"},
    /* A parent's children in file order: its first few are as many
     * index entries, however many it has. Top-level spans have none: a
     * keystroke moves every span after it (ST_SPANS_SHIFT), and the
     * top-level ones of every file, sorted by their start, would put
     * each of a file's on a page of its own. */
    {"spans_parent", "CREATE INDEX IF NOT EXISTS spans_parent"
		     " ON spans(parent_id, start_byte)"
		     " WHERE parent_id IS NOT NULL"},
    /* The order of a name's definitions (NAME_ORDER) starts here. */
    {"spans_name", "CREATE INDEX IF NOT EXISTS spans_name ON spans(name,"
		   " " LATE_KIND("") ", length(qualname), hash)"},
    {"chunks_file", "CREATE INDEX IF NOT EXISTS chunks_file"
		    " ON chunk_rows(file_id, start_byte)"},
};
#define NINDEXES (sizeof(indexes) / sizeof(indexes[0]))

/* Spans of a name looked through for a qualified member; see
 * ST_MEMBERS_MANY. */
#define QUALIFIED_SCAN "256"

/* The parts of ST_MEMBERS_MANY: m(k, sid) holds pair k's members, by
 * their parent or by their qualified name; the rest takes up to ?2 of
 * each pair in the name's order. */
#define MEMBERS_INSIDE                                                  \
	" SELECT j.key, c.id FROM json_each(?1) j"                      \
	" CROSS JOIN spans p ON p.name = json_extract(j.value, '$[0]')" \
	" CROSS JOIN spans c ON c.parent_id = p.id"                     \
	" WHERE c.name = json_extract(j.value, '$[1]')"
/* LATE_KIND of the name's spans q2, apart for clang-format's sake. */
#define LATE_Q2 LATE_KIND("q2.")
#define MEMBERS_QUALIFIED                                            \
	" SELECT j.key, q.id FROM json_each(?1) j"                   \
	" CROSS JOIN spans q ON q.id IN (SELECT q2.id FROM spans q2" \
	" WHERE q2.name = json_extract(j.value, '$[1]')"             \
	" AND length(q2.qualname) >"                                 \
	" length(json_extract(j.value, '$[0]')) + length(q2.name)"   \
	" ORDER BY " LATE_Q2 ", length(q2.qualname)"                 \
	" LIMIT " QUALIFIED_SCAN ")"                                 \
	" WHERE ('.' || q.qualname) GLOB ('*[.:]' ||"                \
	" json_extract(j.value, '$[0]') || '.' || q.name)"           \
	" OR ('.' || q.qualname) GLOB ('*[.:]' ||"                   \
	" json_extract(j.value, '$[0]') || '::' || q.name)"
#define MEMBERS_RANKED                                      \
	" SELECT " SPAN_COLUMNS " FROM (SELECT m.k, m.sid," \
	" row_number() OVER (PARTITION BY m.k"              \
	" ORDER BY " NAME_ORDER(                            \
	    s2) ") AS rk"                                   \
		" FROM m JOIN spans s2 ON s2.id = m.sid) t" \
		" JOIN spans s ON s.id = t.sid"             \
		" JOIN files f ON f.id = s.file_id"         \
		" WHERE t.rk <= ?2 ORDER BY t.k, t.rk"

static const char *const statements[ST_COUNT] = {
    [ST_FILE_GET] =
	"SELECT id, size, mtime, hash, lang FROM files WHERE path=?",
    [ST_FILE_STAMP_OF] = "SELECT path, size, mtime FROM files WHERE id=?",
    /* index_word_beside: a chunk holding the word in a file of the
     * directory ?2 (of ?3 bytes, "" or ending in '/'), not ?4. */
    [ST_WORD_BESIDE] = "SELECT 1 FROM chunks_fts"
		       " JOIN chunk_rows c ON c.id = chunks_fts.rowid"
		       " JOIN files f ON f.id = c.file_id"
		       " WHERE chunks_fts MATCH ?1"
		       " AND substr(f.path, 1, ?3) = ?2"
		       " AND instr(substr(f.path, ?3 + 1), '/') = 0"
		       " AND f.path <> ?4 LIMIT 1",
    /* No upsert with RETURNING: that makes a statement journal, and
     * every statement savepoint flushes FTS5's pending terms into a new
     * segment, one per file, which the merges then pay for. */
    [ST_FILE_INSERT] = "INSERT INTO files(path, lang, size, mtime, hash,"
		       " indexed_at) VALUES(?,?,?,?,?,?)",
    [ST_FILE_UPDATE] = "UPDATE files SET lang=?, size=?, mtime=?, hash=?,"
		       " indexed_at=? WHERE id=?",
    [ST_FILE_DELETE] = "DELETE FROM files WHERE id=?",
    [ST_FILE_STAMP] = "UPDATE files SET size=?, mtime=?, hash=? WHERE id=?",
    [ST_FILES_ALL] = "SELECT id, path FROM files",
    [ST_SPANS_OF] = "SELECT id, hash, parent_id, start_byte, end_byte,"
		    " start_line, end_line FROM spans WHERE file_id=?",
    [ST_SPAN_INSERT] = "INSERT INTO spans(file_id, parent_id, kind, name,"
		       " qualname, start_byte, end_byte, start_line,"
		       " end_line, header, hash, top)"
		       " VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
    [ST_SPAN_UPDATE] = "UPDATE spans SET parent_id=?, start_byte=?,"
		       " end_byte=?, start_line=?, end_line=?, top=?"
		       " WHERE id=?",
    [ST_SPAN_DELETE] = "DELETE FROM spans WHERE id=?",
    [ST_CHUNKS_OF] = "SELECT id, hash, span_id, start_byte, end_byte,"
		     " start_line, end_line FROM chunk_rows WHERE file_id=?",
    [ST_CHUNK_INSERT] = "INSERT INTO chunk_rows(file_id, span_id, kind,"
			" start_byte, end_byte, start_line, end_line,"
			" size, hash) VALUES(?,?,?,?,?,?,?,?,?)",
    [ST_CHUNK_TEXT_INSERT] = "INSERT INTO chunk_texts(id, names, text)"
			     " VALUES(?,?,?)",
    [ST_CHUNK_UPDATE] = "UPDATE chunk_rows SET span_id=?, start_byte=?,"
			" end_byte=?, start_line=?, end_line=? WHERE id=?",
    [ST_CHUNK_DELETE] = "DELETE FROM chunk_rows WHERE id=?",
    [ST_CHUNK_TEXT_DELETE] = "DELETE FROM chunk_texts WHERE id=?",
    [ST_CHUNK_TEXT] = "SELECT c.text, c.names, f.path FROM chunks c"
		      " JOIN files f ON f.id=c.file_id WHERE c.id=?",
    /* index_file_edit: the rows after an edit move, those holding it
     * stretch. A row is found by where it was: within one file, the
     * chunks tile the text and the spans of a chunking are told apart
     * by their bytes (the writer checks that one row answers). */
    [ST_SPANS_SHIFT] = "UPDATE spans SET start_byte=start_byte+?1,"
		       " end_byte=end_byte+?1, start_line=start_line+?2,"
		       " end_line=end_line+?2"
		       " WHERE file_id=?3 AND start_byte>=?4",
    [ST_SPAN_STRETCH] = "UPDATE spans SET end_byte=?1, end_line=?2,"
			" header=?3, hash=?4 WHERE file_id=?5 AND"
			" start_byte=?6 AND end_byte=?7",
    [ST_CHUNKS_SHIFT] = "UPDATE chunk_rows SET start_byte=start_byte+?1,"
			" end_byte=end_byte+?1,"
			" start_line=start_line+?2, end_line=end_line+?2"
			" WHERE file_id=?3 AND start_byte>=?4",
    [ST_CHUNK_AT] = "SELECT c.id, c.end_byte, c.text, c.names, f.path"
		    " FROM chunks c"
		    " JOIN files f ON f.id=c.file_id"
		    " WHERE c.file_id=?1 AND c.start_byte=?2",
    [ST_CHUNK_STRETCH] = "UPDATE chunk_rows SET end_byte=?1, end_line=?2,"
			 " size=?3, hash=?4 WHERE id=?5",
    [ST_CHUNK_TEXT_PUT] = "UPDATE chunk_texts SET names=?1, text=?2"
			  " WHERE id=?3",
    [ST_FTS_INSERT] = "INSERT INTO chunks_fts(rowid, text, names, path)"
		      " VALUES(?,?,?,?)",
    [ST_FTS_DELETE] = "INSERT INTO chunks_fts(chunks_fts, rowid, text,"
		      " names, path) VALUES('delete',?,?,?,?)",
    [ST_META_PUT] = "INSERT OR REPLACE INTO meta(key, value) VALUES(?,?)",
    [ST_FTS_MERGE] =
	"INSERT INTO chunks_fts(chunks_fts, rank) VALUES('merge', ?1)",
    /* FTS5's structure record (its row id is 10). */
    [ST_FTS_STRUCTURE] = FTS_STRUCTURE_GET,
    [ST_SPAN_GET] = "SELECT " SPAN_COLUMNS " FROM spans s JOIN files f"
		    " ON f.id = s.file_id WHERE s.id=?",
    /* At most 64 spans a name (a name defined more often says little),
     * each with one index seek for the chunk it starts in. */
    [ST_DEFINITIONS] = "SELECT " HIT_COLUMNS ", sp.qualname, c.text FROM"
		       " (SELECT s.qualname, (SELECT c2.id FROM chunk_rows c2"
		       " WHERE c2.file_id = s.file_id AND c2.start_byte <="
		       " s.start_byte ORDER BY c2.start_byte DESC LIMIT 1)"
		       " AS cid FROM spans s WHERE s.name = ?1 LIMIT 64) sp"
		       " JOIN chunks c ON c.id = sp.cid"
		       " JOIN files f ON f.id = c.file_id"
		       " ORDER BY length(sp.qualname), f.path LIMIT ?2",
    /* Batched lookups: ?1 is a JSON array of names or ids. The spans of
     * a name are taken in the order of the spans_name index, up to ?2 of
     * each: a name defined thousands of times costs a few rows; and code
     * before data of the same name: a file's variables (Python's and
     * TypeScript's bindings are many) must not take the places of the
     * functions and classes. The rows come in no order: the caller
     * sorts them (an ORDER BY here sorted whole rows, headers and paths
     * included, a quarter of the statement's time). */
    [ST_SPANS_NAMED_MANY] =
	"SELECT " SPAN_COLUMNS " FROM (SELECT DISTINCT value AS name"
	" FROM json_each(?1)) j CROSS JOIN spans s ON s.id IN"
	" (SELECT s2.id FROM spans s2"
	" WHERE s2.name = j.name ORDER BY " NAME_ORDER(
	    s2) " LIMIT ?2)"
		" JOIN files f ON f.id = s.file_id",
    /* The spans of one name past the first ?3, up to ?2 of them, in
     * NAME_ORDER: index_spans_named_where looks further along. */
    [ST_NAMESAKES] = "SELECT " SPAN_COLUMNS " FROM spans s JOIN files f"
		     " ON f.id = s.file_id WHERE s.name = ?1"
		     " ORDER BY " NAME_ORDER(s) " LIMIT ?2 OFFSET ?3",
    /* The first ?2 children of each parent, read off the spans_parent
     * index: a class of a thousand methods costs what one of ten does
     * (ranking all the children of each, as a window did, read every
     * child's row). */
    [ST_CHILDREN_MANY] =
	"SELECT " SPAN_COLUMNS " FROM (SELECT DISTINCT value AS pid"
	" FROM json_each(?1)) j CROSS JOIN spans s ON s.id IN"
	" (SELECT s2.id FROM spans s2 WHERE s2.parent_id = j.pid"
	" ORDER BY s2.start_byte LIMIT ?2)"
	" JOIN files f ON f.id = s.file_id"
	" ORDER BY s.parent_id, s.start_byte, s.id",
    /* ?1: [[class, name], ...]: spans named name whose parent is named
     * class, or qualified by it (`Store.Put` of a Go method, its type
     * declared elsewhere; C++'s `ui::Widget::draw` defined out of its
     * class), in the order of the pairs. A member through its class is
     * a few index seeks; a qualified one is looked for among the first
     * QUALIFIED_SCAN spans of the name long enough to be qualified, the
     * shortest first, as `__init__` has thousands: hundreds of row
     * reads a pair, which ST_MEMBERS_INSIDE leaves out. */
    [ST_MEMBERS_MANY] = "WITH m(k, sid) AS (" MEMBERS_INSIDE
			" UNION " MEMBERS_QUALIFIED ")" MEMBERS_RANKED,
    [ST_MEMBERS_INSIDE] =
	"WITH m(k, sid) AS (" MEMBERS_INSIDE ")" MEMBERS_RANKED,
    /* UNION, not UNION ALL: a span shared by two chains is read once,
     * and a corrupt cycle of parents ends. */
    [ST_SPAN_CHAINS] =
	"WITH RECURSIVE chain(id) AS (SELECT value FROM json_each(?1)"
	" UNION SELECT s2.parent_id FROM chain"
	" JOIN spans s2 ON s2.id = chain.id WHERE s2.parent_id > 0)"
	" SELECT " SPAN_COLUMNS " FROM chain"
	" JOIN spans s ON s.id = chain.id JOIN files f ON f.id = s.file_id",
    /* ?1: [[file_id, start, end], ...]; the chunks over each range.
     * Chunks tile their file, so the first is the last to start at or
     * before start, found in the index: bounded by end alone, the scan
     * read every chunk row from the top of the file (half a millisecond
     * for a range at the end of a 500-chunk file). */
    [ST_FILE_TEXTS] =
	"SELECT r.key, c.start_byte, t.text FROM json_each(?1) r"
	" CROSS JOIN chunk_rows c JOIN chunk_texts t ON t.id = c.id"
	" WHERE c.file_id = json_extract(r.value, '$[0]')"
	" AND c.start_byte >= coalesce((SELECT max(c2.start_byte)"
	" FROM chunk_rows c2"
	" WHERE c2.file_id = json_extract(r.value, '$[0]')"
	" AND c2.start_byte <= json_extract(r.value, '$[1]')), 0)"
	" AND c.start_byte < json_extract(r.value, '$[2]')"
	" AND c.end_byte > json_extract(r.value, '$[1]')"
	" ORDER BY r.key, c.start_byte",
    [ST_CHUNK_COUNT] = "SELECT max(rowid) FROM chunk_rows",
    /* ?1: a JSON array of phrases; each one's chunks, counted to ?2. */
    [ST_TERM_DF] = "SELECT j.key, (SELECT count(*) FROM (SELECT 1"
		   " FROM chunks_fts WHERE chunks_fts MATCH j.value"
		   " LIMIT ?2)) FROM json_each(?1) j",
    [ST_DATA_VERSION] = "PRAGMA data_version",
    [ST_NAME_COUNTS] = "SELECT name, count(*) FROM spans GROUP BY name",
    [ST_NAME_COUNTS_SINCE] = "SELECT s.name, count(*) FROM files f"
			     " JOIN spans s ON s.file_id = f.id"
			     " WHERE f.indexed_at >= ?1 GROUP BY s.name",
};

/* ---------------------------------------------------------------------- *
 * Errors and small helpers
 * ---------------------------------------------------------------------- */

int index__db_error(Index *ix, int rc)
{
	if (ix && ix->db)
		snprintf(ix->errmsg, sizeof(ix->errmsg), "%s",
			 sqlite3_errmsg(ix->db));
	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_DONE:
	case SQLITE_ROW:
		return 0;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return CASTLS_EBUSY;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return CASTLS_ECORRUPT;
	case SQLITE_READONLY:
		return CASTLS_EREADONLY;
	case SQLITE_FULL:
		return CASTLS_ENOSPC;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return CASTLS_EACCES;
	case SQLITE_CANTOPEN:
	case SQLITE_IOERR:
		return CASTLS_EIO;
	default:
		return CASTLS_EDB;
	}
}

const char *index_errmsg(const Index *ix) { return ix->errmsg; }
const char *index_root(const Index *ix) { return ix->root; }
const char *index_db_path(const Index *ix) { return ix->db_path; }

int64_t index__now(void) { return (int64_t)time(NULL); }

sqlite3_stmt *index__stmt(Index *ix, int which)
{
	sqlite3_stmt *s = ix->st[which];

	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return s;
}

static int exec(Index *ix, const char *sql)
{
	int rc = sqlite3_exec(ix->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : index__db_error(ix, rc);
}

int index__begin(Index *ix)
{
	int err = exec(ix, "BEGIN IMMEDIATE");

	ix->in_txn = err == 0;
	return err;
}

int index__commit(Index *ix)
{
	int err = exec(ix, "COMMIT");

	if (err)
		index__rollback(ix);
	ix->in_txn = false;
	return err;
}

int index_read_begin(Index *ix)
{
	int err;

	if (ix->in_read || !sqlite3_get_autocommit(ix->db))
		return 0;
	err = exec(ix, "BEGIN");
	ix->in_read = err == 0;
	return err;
}

void index_read_end(Index *ix)
{
	/* An error inside may have ended the transaction already. */
	if (ix->in_read && !sqlite3_get_autocommit(ix->db))
		sqlite3_exec(ix->db, "COMMIT", NULL, NULL, NULL);
	ix->in_read = false;
}

void index__rollback(Index *ix)
{
	sqlite3_exec(ix->db, "ROLLBACK", NULL, NULL, NULL);
	ix->in_txn = false;
}

int index__end(Index *ix, int err)
{
	if (err) {
		index__rollback(ix);
		return err;
	}
	return index__commit(ix);
}

/* Sets the journal mode; true when the database took it (leaving WAL
 * mode needs the file to itself). */
static bool journal_mode(Index *ix, const char *mode)
{
	char sql[64];
	sqlite3_stmt *s;
	bool ok = false;

	snprintf(sql, sizeof(sql), "PRAGMA journal_mode=%s", mode);
	if (sqlite3_prepare_v2(ix->db, sql, -1, &s, NULL) != SQLITE_OK)
		return false;
	if (sqlite3_step(s) == SQLITE_ROW)
		ok = sqlite3_stricmp((const char *)sqlite3_column_text(s, 0),
				     mode) == 0;
	sqlite3_finalize(s);
	return ok;
}

static int wal_mode(Index *ix);

int index__bulk(Index *ix, bool on)
{
	int err;

	if (on) {
		/* Through the log, every page is written twice: to the log,
		 * then by a checkpoint to the file. Alone, a first scan can
		 * write the file directly; the rollback journal keeps each
		 * batch atomic (it holds the few pages a batch changes, not
		 * the ones it appends). */
		if (!ix->bulk_journal)
			ix->bulk_journal =
			    ix->opt.alone && journal_mode(ix, "delete");
		return exec(ix, "PRAGMA synchronous=OFF");
	}
	/* Synced again, so the switch back to WAL mode, a write of the
	 * header, flushes all the scan wrote. */
	err = exec(ix, "PRAGMA synchronous=NORMAL");
	if (ix->bulk_journal) {
		int e = wal_mode(ix);

		err = err ? err : e;
		ix->bulk_journal = false;
	}
	return err;
}

/* Creates the secondary indexes that are missing. */
static int create_indexes(Index *ix)
{
	int err = 0;

	for (size_t i = 0; i < NINDEXES && !err; i++)
		err = exec(ix, indexes[i].sql);
	return err;
}

/* Sets FTS5's merge settings. A write's commit merges nothing of its
 * own (automerge 0): FTS5 would merge 64 pages of segments a level for
 * every 64 leaves written, in the commit, 10-25 ms of a keystroke's
 * write now and then. Whoever writes runs index_merge when it has time
 * instead. A level of FTS_CRISIS_MERGE segments (FTS5's default) is
 * merged in the commit that fills it: the floor when nobody did. A
 * load's level-0 segments (one a commit) wait for the one merge at its
 * end, up to LOAD_CRISIS_MERGE of them (FTS5 holds 2,000 at most). */
#define FTS_CRISIS_MERGE 16
#define LOAD_CRISIS_MERGE 1024
static int fts_merges(Index *ix, int automerge, int crisis)
{
	char sql[192];

	snprintf(sql, sizeof(sql),
		 "INSERT INTO chunks_fts(chunks_fts, rank)"
		 " VALUES('automerge', %d), ('crisismerge', %d),"
		 " ('usermerge', %d)",
		 automerge, crisis, FTS_MERGE_MIN);
	return exec(ix, sql);
}

int index__load_index(Index *ix, unsigned i, bool *built)
{
	int err;

	if (!(*built = i < NINDEXES))
		return 0;
	if ((err = index__begin(ix)))
		return err;
	return index__end(ix, exec(ix, indexes[i].sql));
}

int index__load_end(Index *ix)
{
	int err = index__begin(ix);

	return err ? err : index__end(ix, fts_merges(ix, 0, FTS_CRISIS_MERGE));
}

int index__load(Index *ix, bool on)
{
	int err;

	if ((err = index__begin(ix)))
		return err;
	if (!on) {
		if (!(err = create_indexes(ix)))
			err = fts_merges(ix, 0, FTS_CRISIS_MERGE);
		return index__end(ix, err);
	}
	for (size_t i = 0; i < NINDEXES && !err; i++) {
		char sql[64];

		snprintf(sql, sizeof(sql), "DROP INDEX IF EXISTS %s",
			 indexes[i].name);
		err = exec(ix, sql);
	}
	if (!err)
		err = fts_merges(ix, 0, LOAD_CRISIS_MERGE);
	return index__end(ix, err);
}

/* True when a secondary index is missing: a load was cut short. */
static bool load_unfinished(Index *ix)
{
	sqlite3_stmt *s;
	size_t found = 0;

	if (sqlite3_prepare_v2(ix->db,
			       "SELECT name FROM sqlite_schema"
			       " WHERE type='index'",
			       -1, &s, NULL) != SQLITE_OK)
		return false;
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 0);

		for (size_t i = 0; name && i < NINDEXES; i++)
			found += strcmp(name, indexes[i].name) == 0;
	}
	sqlite3_finalize(s);
	return found < NINDEXES;
}

void index__writeback(Index *ix)
{
#ifdef __linux__
	int fd = open(ix->db_path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
		close(fd);
	}
#else
	(void)ix;
#endif
}

int index__step_done(Index *ix, sqlite3_stmt *s)
{
	int rc;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW)
		;
	return rc == SQLITE_DONE ? 0 : index__db_error(ix, rc);
}

void index__bind_text(sqlite3_stmt *s, int i, const char *p, size_t n)
{
	sqlite3_bind_text(s, i, p, (int)n, SQLITE_STATIC);
}

/* ---------------------------------------------------------------------- *
 * Opening
 * ---------------------------------------------------------------------- */

void index_default_db_path(const char *root, Buf *out)
{
	const char *cache = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (cache && *cache)
		buf_puts(out, cache);
	else
		buf_printf(out, "%s/.cache", home && *home ? home : "/tmp");
	buf_printf(out, "/castls/%016llx/index.db",
		   (unsigned long long)castls_hash(root, strlen(root), 0));
}

/* mkdir -p for the directory part of path. */
static int make_parent_dirs(const char *path)
{
	char *p = xstrdup(path), *s;
	int err = 0;

	for (s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			/* ENOENT here is not "no root": the database's own
			 * directory cannot be made (a file in the way). */
			err = errno == ENOENT || errno == ENOTDIR
				  ? CASTLS_EIO
				  : castls_from_errno(errno);
			break;
		}
		*s = '/';
	}
	xfree(p);
	return err;
}

static int user_version(Index *ix, int *version)
{
	sqlite3_stmt *s;
	int rc =
	    sqlite3_prepare_v2(ix->db, "PRAGMA user_version", -1, &s, NULL);

	if (rc != SQLITE_OK)
		return index__db_error(ix, rc);
	rc = sqlite3_step(s);
	*version = rc == SQLITE_ROW ? sqlite3_column_int(s, 0) : -1;
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : index__db_error(ix, rc);
}

/* True when `PRAGMA quick_check` answers ok. */
static bool quick_check_ok(Index *ix)
{
	sqlite3_stmt *s;
	bool ok = false;

	if (sqlite3_prepare_v2(ix->db, "PRAGMA quick_check", -1, &s, NULL) !=
	    SQLITE_OK)
		return false;
	if (sqlite3_step(s) == SQLITE_ROW) {
		const char *r = (const char *)sqlite3_column_text(s, 0);

		ok = r && strcmp(r, "ok") == 0;
	}
	sqlite3_finalize(s);
	return ok;
}

static void close_db(Index *ix)
{
	for (int i = 0; i < ST_COUNT; i++) {
		sqlite3_finalize(ix->st[i]);
		ix->st[i] = NULL;
	}
	sqlite3_close(ix->db); /* also after a failed open */
	ix->db = NULL;
	/* What they hold came from this connection's database. */
	index__df_cache_delete(ix->df);
	index__name_cache_delete(ix->names);
	ix->df = NULL;
	ix->names = NULL;
}

/* Removes the database and its WAL and shared-memory files. */
static void remove_db_files(const char *path)
{
	static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
	Buf b = {0};

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(*suffixes); i++) {
		b.len = 0;
		buf_printf(&b, "%s%s", path, suffixes[i]);
		unlink(b.data);
	}
	buf_free(&b);
}

/* How long a connection waits for a lock, ms. */
static uint32_t busy_ms(const Index *ix)
{
	return ix->opt.busy_timeout_ms ? ix->opt.busy_timeout_ms
				       : INDEX_BUSY_TIMEOUT_MS;
}

/* What every connection gets once open: the busy timeout, and result
 * codes precise enough for index__db_error. */
/* Counts the statements castls runs; those SQLite runs inside them (for
 * the full-text index), which it marks with a leading "--", are part of
 * their cost, not statements of their own. */
static int count_statement(unsigned type, void *ctx, void *p, void *x)
{
	const char *sql = x;

	(void)type;
	(void)p;
	if (!sql || strncmp(sql, "--", 2) != 0)
		((Index *)ctx)->statements++;
	return 0;
}

int64_t index__clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* How often a connection waiting for a lock tries again, and stamps
 * lock_wait; a stamp this recent says it still waits. */
#define LOCK_WAIT_POLL_MS 1
#define LOCK_WAIT_FRESH_MS 4

/* SQLite's busy handler for connections that share lock_wait: the busy
 * timeout, trying every millisecond so that it takes the lock as soon as
 * a scan lets go of it, and saying that it waits. */
static int busy_stamp(void *ctx, int count)
{
	Index *ix = ctx;
	int64_t now = index__clock_ms();

	if (count == 0)
		ix->wait_start = now;
	if (now - ix->wait_start >= (int64_t)busy_ms(ix))
		return 0;
	atomic_store(ix->opt.lock_wait, now);
	ix->own_stamp = now;
	sqlite3_sleep(LOCK_WAIT_POLL_MS);
	return 1;
}

bool index__lock_wanted(const Index *ix)
{
	int64_t t;

	if (!ix->opt.lock_wait)
		return false;
	t = atomic_load(ix->opt.lock_wait);
	return t && t != ix->own_stamp &&
	       index__clock_ms() - t <= LOCK_WAIT_FRESH_MS;
}

static void busy_setup(Index *ix)
{
	if (ix->opt.lock_wait)
		sqlite3_busy_handler(ix->db, busy_stamp, ix);
	else
		sqlite3_busy_timeout(ix->db, (int)busy_ms(ix));
}

int index__begin_unless_busy(Index *ix)
{
	int err;

	sqlite3_busy_handler(ix->db, NULL, NULL);
	err = index__begin(ix);
	busy_setup(ix);
	return err;
}

static void connection_setup(Index *ix)
{
	busy_setup(ix);
	sqlite3_extended_result_codes(ix->db, 1);
	sqlite3_trace_v2(ix->db, SQLITE_TRACE_STMT, count_statement, ix);
}

uint64_t index_statements(const Index *ix) { return ix->statements; }

/* Switches to WAL. The switch needs the file to itself, and SQLite may
 * answer SQLITE_BUSY at once (no busy handler) while another connection
 * is creating the same database: retry for up to the busy timeout. */
static int wal_mode(Index *ix)
{
	uint32_t waited = 0, limit = busy_ms(ix);
	int err;

	while ((err = exec(ix, "PRAGMA journal_mode=WAL")) == CASTLS_EBUSY &&
	       waited < limit) {
		sqlite3_sleep(20);
		waited += 20;
	}
	return err;
}

/* Replaces SQLite's automatic checkpoint (the same, passive one) so that
 * a connection can put it off; see index_file_put. */
static int wal_hook(void *ctx, sqlite3 *db, const char *name, int pages)
{
	Index *ix = ctx;

	ix->wal_pages = pages;
	if (pages >= INDEX_WAL_MAX_PAGES ||
	    (pages >= INDEX_WAL_CHECKPOINT_PAGES && !ix->defer_checkpoint)) {
		if (sqlite3_wal_checkpoint_v2(db, name,
					      SQLITE_CHECKPOINT_PASSIVE, NULL,
					      NULL) == SQLITE_OK)
			ix->wal_pages = 0;
	}
	return SQLITE_OK;
}

bool index_checkpoint_due(const Index *ix)
{
	return ix->wal_pages >= INDEX_WAL_CHECKPOINT_PAGES;
}

int index_checkpoint(Index *ix)
{
	int rc = sqlite3_wal_checkpoint_v2(
	    ix->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);

	if (rc != SQLITE_OK)
		return index__db_error(ix, rc);
	ix->wal_pages = 0;
	return 0;
}

/* Prepares the statements. */
static int prepare_all(Index *ix)
{
	for (int i = 0; i < ST_COUNT; i++) {
		int rc = sqlite3_prepare_v3(ix->db, statements[i], -1,
					    SQLITE_PREPARE_PERSISTENT,
					    &ix->st[i], NULL);

		if (rc != SQLITE_OK)
			return index__db_error(ix, rc);
	}
	return 0;
}

/* An index written before its writes stopped merging (schema 21 had
 * FTS5's automerge on) is switched over when nobody else writes. */
static void merges_off(Index *ix)
{
	sqlite3_stmt *s;
	bool on = true;

	if (sqlite3_prepare_v2(ix->db,
			       "SELECT v FROM chunks_fts_config"
			       " WHERE k='automerge'",
			       -1, &s, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(s) == SQLITE_ROW)
		on = sqlite3_column_int(s, 0) != 0;
	sqlite3_finalize(s);
	if (on && index__begin_unless_busy(ix) == 0)
		index__end(ix, fts_merges(ix, 0, FTS_CRISIS_MERGE));
}

/* Opens the file, checks it and brings the schema in. Returns 0,
 * CASTLS_ECORRUPT when the file must be rebuilt, or another error. */
static int open_db(Index *ix)
{
	int rc, version, err;

	rc = sqlite3_open_v2(ix->db_path, &ix->db,
			     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				 SQLITE_OPEN_NOMUTEX,
			     NULL);
	if (rc != SQLITE_OK)
		return index__db_error(ix, rc);
	connection_setup(ix);
	if ((err = user_version(ix, &version)))
		return err;
	if (version != 0 && version != INDEX_SCHEMA_VERSION) {
		snprintf(ix->errmsg, sizeof(ix->errmsg),
			 "schema version %d, expected %d", version,
			 INDEX_SCHEMA_VERSION);
		return CASTLS_ECORRUPT;
	}
	if (version != 0 && ix->opt.verify && !quick_check_ok(ix)) {
		snprintf(ix->errmsg, sizeof(ix->errmsg), "quick_check failed");
		return CASTLS_ECORRUPT;
	}
	/* Bigger pages than SQLite's 4 KiB: chunk rows of a few KiB and
	 * FTS5's ~4 KB leaves pack without overflow pages, and the bulk
	 * writes of a first scan touch fewer pages. It only takes on a new
	 * file, before the switch to WAL writes the header. */
	if (version == 0 &&
	    (err = exec(ix, "PRAGMA page_size=" STR(INDEX_PAGE_BYTES))))
		return err;
	/* A new file that this connection scans alone starts where a first
	 * scan's bulk writes want it (index__bulk): in the rollback journal,
	 * unsynced. Going to WAL mode and back first would cost a
	 * checkpoint and a dozen syncs. index__bulk(ix, false), at the end
	 * of the scan or at close, brings the file to WAL mode. */
	if (version == 0 && ix->opt.alone)
		ix->bulk_journal = true;
	else if ((err = wal_mode(ix)))
		return err;
	if ((err = exec(ix, ix->bulk_journal ? "PRAGMA synchronous=OFF"
					     : "PRAGMA synchronous=NORMAL")) ||
	    (err = exec(ix, "PRAGMA cache_size=-" STR(INDEX_CACHE_KIB))))
		return err;
	/* Before the schema: its full-text table names the tokenizer. */
	if (code_tokenizer_register(ix->db) || index__bm25_register(ix->db))
		return CASTLS_EDB;
	sqlite3_wal_hook(ix->db, wal_hook, ix);
	/* A killed `castls index` leaves its load's rows without their
	 * indexes: every lookup by file or name would scan a table. When
	 * another connection holds the write lock (a load going on), the
	 * next open tries again. */
	if (version != 0 && load_unfinished(ix))
		index__load(ix, false);
	else if (version != 0)
		merges_off(ix);
	if (version == 0) {
		if ((err = index__begin(ix)))
			return err;
		if ((err = user_version(ix, &version)) == 0 && version == 0) {
			char pragma[64];

			snprintf(pragma, sizeof(pragma),
				 "PRAGMA user_version=%d",
				 INDEX_SCHEMA_VERSION);
			if ((err = exec(ix, schema)) ||
			    (err = create_indexes(ix)) ||
			    (err = exec(ix, pragma))) {
				index__rollback(ix);
				return err;
			}
		}
		if ((err = index__commit(ix)))
			return err;
	}
	return prepare_all(ix);
}

uint64_t index__wal_bytes(const char *db_path)
{
	Buf wal = {0};
	struct stat st;
	uint64_t n = 0;

	buf_printf(&wal, "%s-wal", db_path);
	if (stat(wal.data, &st) == 0)
		n = (uint64_t)st.st_size;
	buf_free(&wal);
	return n;
}

/* Opens the database for reading alone, when it cannot be written. In
 * WAL mode a reader needs the shared-memory file beside the database; in
 * a directory where that cannot be made, a database with no log left is
 * read as an immutable file: what it holds is all there is. */
static int open_db_reading(Index *ix)
{
	static const char *const modes[] = {"?mode=ro", "?mode=ro&immutable=1"};
	Buf uri = {0};
	int version = -1, err = CASTLS_EIO;

	for (int i = 0; i < 2 && err; i++) {
		/* A log that is not empty may hold commits the file lacks. */
		if (i == 1 && index__wal_bytes(ix->db_path) > 0)
			break;
		uri.len = 0;
		buf_puts(&uri, "file:");
		for (const char *p = ix->db_path; *p; p++)
			if (*p == '%' || *p == '?' || *p == '#')
				buf_printf(&uri, "%%%02X", (unsigned char)*p);
			else
				buf_append(&uri, p, 1);
		buf_puts(&uri, modes[i]);
		close_db(ix);
		err = index__db_error(
		    ix, sqlite3_open_v2(uri.data, &ix->db,
					SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
					    SQLITE_OPEN_NOMUTEX,
					NULL));
		if (!err) {
			connection_setup(ix);
			err = user_version(ix, &version);
		}
	}
	buf_free(&uri);
	if (err)
		return err;
	if (version != INDEX_SCHEMA_VERSION) {
		snprintf(ix->errmsg, sizeof(ix->errmsg),
			 "read-only, and of schema version %d, expected %d",
			 version, INDEX_SCHEMA_VERSION);
		return CASTLS_EREADONLY;
	}
	if (code_tokenizer_register(ix->db) || index__bm25_register(ix->db))
		return CASTLS_EDB;
	return prepare_all(ix);
}

/* SQLite's page caches take their pages from one pool for the process,
 * set up before the library starts. Every commit of another connection
 * empties a reader's cache: its pages went back to malloc and came again
 * from memory the system had to fault in, one 4 KiB page at a time
 * (thousands for one request during a branch switch). Pool pages stay:
 * a cache emptied gives them back to the pool and takes them again.
 * Where the kernel offers it, the pool is in huge pages, so touching it
 * the first time costs a fault per 2 MiB. Pages past the pool, and any
 * cache of another page size, come from malloc as before. */
static void sqlite_setup(void)
{
	int hdr = 0;
	size_t slot, len;
	void *mem;

	if (sqlite3_config(SQLITE_CONFIG_PCACHE_HDRSZ, &hdr) != SQLITE_OK)
		return;
	slot = (INDEX_PAGE_BYTES + (size_t)hdr + 7) & ~(size_t)7;
	len = slot * POOL_PAGES;
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return;
#ifdef MADV_HUGEPAGE
	(void)madvise(mem, len, MADV_HUGEPAGE);
#endif
	/* Refused once the library has started (a caller that opened a
	 * database of its own first): its caches then use malloc. */
	if (sqlite3_config(SQLITE_CONFIG_PAGECACHE, mem, (int)slot,
			   POOL_PAGES) != SQLITE_OK)
		munmap(mem, len);
}

int index_open(const IndexOptions *opt, Index **out)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	char real[PATH_MAX];
	struct stat st;
	Index *ix;
	Buf path = {0};
	int err;

	*out = NULL;
	pthread_once(&once, sqlite_setup);
	if (!opt->root || !realpath(opt->root, real))
		return castls_from_errno(opt->root ? errno : EINVAL);
	if (stat(real, &st) < 0 || !S_ISDIR(st.st_mode))
		return CASTLS_ENOENT;
	ix = xcalloc(1, sizeof(*ix));
	ix->opt = *opt;
	ix->opt.root = NULL;
	ix->opt.db_path = NULL;
	ix->opt.exclude = opt->exclude ? xstrdup(opt->exclude) : NULL;
	ix->root = xstrdup(real);
	if (opt->db_path)
		buf_puts(&path, opt->db_path);
	else
		index_default_db_path(ix->root, &path);
	ix->db_path = buf_take(&path);
	if ((err = make_parent_dirs(ix->db_path)))
		goto fail;
	err = open_db(ix);
	if (err == CASTLS_ECORRUPT) {
		if (!opt->quiet)
			fprintf(stderr,
				"castls: %s: %s; rebuilding the index\n",
				ix->db_path, ix->errmsg);
		close_db(ix);
		remove_db_files(ix->db_path);
		err = open_db(ix);
	}
	if ((err == CASTLS_EREADONLY || err == CASTLS_EACCES ||
	     err == CASTLS_EIO) &&
	    opt->reader) {
		char why[sizeof(ix->errmsg)];

		memcpy(why, ix->errmsg, sizeof(why));
		if (open_db_reading(ix) == 0)
			err = 0;
		else /* the first reason says more */
			memcpy(ix->errmsg, why, sizeof(why));
	}
	if (err)
		goto fail;
	*out = ix;
	return 0;
fail:
	index_close(ix);
	return err;
}

void index_close(Index *ix)
{
	if (!ix)
		return;
	if (ix->in_txn)
		index__rollback(ix);
	if (ix->bulk_journal) /* a new file, never scanned */
		index__bulk(ix, false);
	close_db(ix);
	xfree((char *)ix->opt.exclude);
	xfree(ix->root);
	xfree(ix->db_path);
	xfree(ix);
}
