/*
 * segments.c: the full-text index's segments and their merges.
 *
 * FTS5 writes a table's terms as segments, one a commit, and keeps them
 * on levels: a new segment goes to level 0, and a merge takes every
 * segment of the level with the most, once it has four, into one on the
 * level above. Its structure record (row 10 of chunks_fts_data) lists
 * the levels, newest segment first by reading order: level 0 before
 * level 1, and on a level the last before the first.
 *
 * Writes merge nothing in their commits (automerge is off, store.c):
 * index_merge merges a few pages at a time when the writer has time.
 * And a segment is put on the level its size earns (relevel): a load's
 * one merge leaves all the index in one segment on level 1, where the
 * first few merges of a keystroke's one-page segments would reach it and
 * rewrite all of it, at 5 M lines 16,000 pages, then again a level up.
 */
#include "index_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A structure record, decoded. Segments are in reading order (newest
 * first) with their levels; f holds a segment's fields as the record
 * has them: id, first and last page, and in the second version of the
 * record five more. */
#define SEG_FIELDS_MAX 8
#define STRUCT_LEVELS_MAX 2000 /* FTS5's limit, of levels and segments */

typedef struct {
	int level;
	uint64_t f[SEG_FIELDS_MAX];
} Segment;

typedef struct {
	unsigned char head[8]; /* the cookie, and the second version's mark */
	int nhead;	       /* 4 or 8 */
	int nfields;	       /* 3, or 8 in the second version */
	uint64_t levels, write_counter;
	uint64_t merging; /* levels with a merge going on */
	Segment *seg;
	uint64_t nseg;
} Structure;

static const unsigned char v2_mark[4] = {0xff, 0x00, 0x00, 0x01};

/* SQLite's varint: big-endian groups of 7 bits, a set high bit on all
 * but the last; a ninth byte holds 8. */
static bool get_varint(const unsigned char *b, int n, int *i, uint64_t *v)
{
	*v = 0;
	for (int k = 0; k < 9; k++) {
		if (*i >= n)
			return false;
		if (k == 8) {
			*v = (*v << 8) | b[(*i)++];
			return true;
		}
		*v = (*v << 7) | (b[*i] & 0x7f);
		if (!(b[(*i)++] & 0x80))
			return true;
	}
	return true;
}

static void put_varint(Buf *out, uint64_t v)
{
	unsigned char b[9];
	int n = 9;

	if (v >> 56) {
		b[8] = (unsigned char)v;
		v >>= 8;
		for (int k = 7; k >= 0; k--, v >>= 7)
			b[k] = (unsigned char)(v & 0x7f) | 0x80;
		buf_append(out, (const char *)b, 9);
		return;
	}
	b[--n] = (unsigned char)(v & 0x7f); /* the last group */
	while ((v >>= 7) != 0)
		b[--n] = (unsigned char)(v & 0x7f) | 0x80;
	buf_append(out, (const char *)b + n, (size_t)(9 - n));
}

static void structure_free(Structure *st)
{
	xfree(st->seg);
	st->seg = NULL;
}

/* Decodes a record into st (free it with structure_free); false when it
 * is not one this code knows whole. */
static bool structure_decode(const unsigned char *b, int n, Structure *st)
{
	uint64_t nseg, merge, count, k = 0;
	int i = 4;

	memset(st, 0, sizeof(*st));
	if (n < 4)
		return false;
	st->nfields = 3;
	if (n >= 8 && memcmp(b + 4, v2_mark, sizeof(v2_mark)) == 0) {
		i = 8;
		st->nfields = 8;
	}
	memcpy(st->head, b, (size_t)i);
	st->nhead = i;
	if (!get_varint(b, n, &i, &st->levels) ||
	    !get_varint(b, n, &i, &nseg) ||
	    !get_varint(b, n, &i, &st->write_counter) ||
	    st->levels > STRUCT_LEVELS_MAX || nseg > STRUCT_LEVELS_MAX)
		return false;
	st->seg = xcalloc(nseg ? nseg : 1, sizeof(*st->seg));
	st->nseg = nseg;
	for (uint64_t l = 0; l < st->levels; l++) {
		if (!get_varint(b, n, &i, &merge) ||
		    !get_varint(b, n, &i, &count) || count > nseg - k)
			return false;
		st->merging += merge != 0;
		/* The record lists a level's segments oldest first. */
		for (uint64_t s = 0; s < count; s++) {
			Segment *g = &st->seg[k + count - 1 - s];

			g->level = (int)l;
			for (int f = 0; f < st->nfields; f++)
				if (!get_varint(b, n, &i, &g->f[f]))
					return false;
		}
		k += count;
	}
	return k == nseg && i == n;
}

static void structure_encode(const Structure *st, Buf *out)
{
	uint64_t k = 0;

	buf_append(out, (const char *)st->head, (size_t)st->nhead);
	put_varint(out, st->levels);
	put_varint(out, st->nseg);
	put_varint(out, st->write_counter);
	for (uint64_t l = 0; l < st->levels; l++) {
		uint64_t count = 0;

		while (k + count < st->nseg &&
		       st->seg[k + count].level == (int)l)
			count++;
		put_varint(out, 0); /* no merge: relevel moves none then */
		put_varint(out, count);
		for (uint64_t s = 0; s < count; s++) {
			const Segment *g = &st->seg[k + count - 1 - s];

			for (int f = 0; f < st->nfields; f++)
				put_varint(out, g->f[f]);
		}
		k += count;
	}
}

/* Reads the record through ix into st; false when it cannot. */
static bool structure_read(Index *ix, Structure *st)
{
	sqlite3_stmt *s = index__stmt(ix, ST_FTS_STRUCTURE);
	bool ok = false;

	memset(st, 0, sizeof(*st));
	if (sqlite3_step(s) == SQLITE_ROW)
		ok = structure_decode(sqlite3_column_blob(s, 0),
				      sqlite3_column_bytes(s, 0), st);
	sqlite3_reset(s);
	return ok;
}

void index__fts_structure(Index *ix, int64_t *levels, int64_t *segments)
{
	Structure st;

	*levels = *segments = -1;
	if (structure_read(ix, &st)) {
		*levels = (int64_t)st.levels;
		*segments = (int64_t)st.nseg;
	}
	structure_free(&st);
}

/* ---------------------------------------------------------------------- *
 * Levels
 * ---------------------------------------------------------------------- */

/* The level of a segment of pages: the one merges of FTS_MERGE_MIN
 * one-page segments, then of FTS_MERGE_MIN of those, and so on, would
 * have put it on. */
static int earned_level(uint64_t pages)
{
	int level = 0;

	for (; pages >= FTS_MERGE_MIN; pages /= FTS_MERGE_MIN)
		level++;
	return level;
}

/* Raises each segment to the level its size earns, keeping the reading
 * order (a segment on no lower level than any newer one). True when one
 * moved. */
static bool relevel(Structure *st)
{
	bool moved = false;
	int floor = 0;

	for (uint64_t k = 0; k < st->nseg; k++) {
		Segment *g = &st->seg[k];
		int to = earned_level(g->f[2] - g->f[1] + 1);

		if (to < floor)
			to = floor;
		if (to > g->level) {
			g->level = to;
			moved = true;
		}
		floor = g->level;
	}
	if (st->nseg && (uint64_t)floor + 1 > st->levels)
		st->levels = (uint64_t)floor + 1;
	return moved;
}

/* In a connection of its own: FTS5 keeps the record it read last for a
 * connection until another one commits, and would write it back. */
void index__fts_relevel(Index *ix)
{
	Structure st;
	sqlite3 *db = NULL;
	sqlite3_stmt *s = NULL;
	Buf rec = {0};
	bool due;
	int rc;

	due = structure_read(ix, &st) && st.merging == 0 && relevel(&st);
	structure_free(&st);
	if (!due)
		return;
	rc = sqlite3_open_v2(ix->db_path, &db,
			     SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(db, INDEX_BUSY_TIMEOUT_MS);
		rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	}
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db, FTS_STRUCTURE_GET, -1, &s, NULL);
	/* Read again under the lock: another writer may have moved on. */
	if (rc == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW &&
	    structure_decode(sqlite3_column_blob(s, 0),
			     sqlite3_column_bytes(s, 0), &st) &&
	    st.merging == 0 && relevel(&st))
		structure_encode(&st, &rec);
	structure_free(&st);
	sqlite3_finalize(s);
	s = NULL;
	if (rc == SQLITE_OK && rec.len &&
	    (rc = sqlite3_prepare_v2(db, FTS_STRUCTURE_SET, -1, &s, NULL)) ==
		SQLITE_OK) {
		sqlite3_bind_blob(s, 1, rec.data, (int)rec.len, SQLITE_STATIC);
		rc = sqlite3_step(s) == SQLITE_DONE ? SQLITE_OK
						    : sqlite3_errcode(db);
		sqlite3_finalize(s);
	}
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	if (rc != SQLITE_OK && db)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	buf_free(&rec);
	sqlite3_close(db);
}

/* ---------------------------------------------------------------------- *
 * Merges
 * ---------------------------------------------------------------------- */

int index__merge_pages(Index *ix, int pages, bool *more)
{
	sqlite3_stmt *s = index__stmt(ix, ST_FTS_MERGE);
	int64_t before = sqlite3_total_changes64(ix->db);
	int err;

	sqlite3_bind_int(s, 1, pages);
	err = index__step_done(ix, s);
	sqlite3_reset(s);
	*more = sqlite3_total_changes64(ix->db) - before > 1;
	return err;
}

/* Whether FTS5's 'merge' would find work: a merge going on, or a level
 * of FTS_MERGE_MIN segments. */
static bool merge_due(const Structure *st)
{
	uint64_t run = 0;

	if (st->merging)
		return true;
	for (uint64_t k = 0; k < st->nseg; k++) {
		run =
		    k && st->seg[k].level == st->seg[k - 1].level ? run + 1 : 1;
		if (run >= FTS_MERGE_MIN)
			return true;
	}
	return false;
}

int index_merge(Index *ix, int64_t ms, const atomic_bool *stop, bool *more)
{
	int64_t began = index__clock_ms();
	Structure st;
	bool due;
	int err;

	*more = false;
	/* Most calls, after a keystroke's write, find nothing to merge:
	 * they need not wait for the lock to see it. */
	due = !structure_read(ix, &st) || merge_due(&st);
	structure_free(&st);
	if (!due)
		return 0;
	/* Lowest of the writers: it gives the lock up at the next step
	 * when another connection wants it. */
	if ((err = index__begin_unless_busy(ix)))
		return err;
	do
		err = index__merge_pages(ix, INDEX_MERGE_PAGES, more);
	while (!err && *more && !atomic_load(stop) && !index__lock_wanted(ix) &&
	       index__clock_ms() - began < ms);
	return index__end(ix, err);
}
