/*
 * fts_segments.h: the segments of a castls index's full-text table, read
 * from FTS5's structure record (row 10 of chunks_fts_data) by the tests
 * that check where merges leave them. The decoder is the test's own, so
 * that a mistake in index/segments.c cannot hide itself.
 */
#ifndef CASTLS_TESTS_FTS_SEGMENTS_H
#define CASTLS_TESTS_FTS_SEGMENTS_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define FTS_SEGMENTS_MAX 256

typedef struct {
	int levels, n;
	int level[FTS_SEGMENTS_MAX]; /* record order: level by level */
	int id[FTS_SEGMENTS_MAX];
	int pages[FTS_SEGMENTS_MAX];
	int merging; /* levels with a merge going on */
} FtsSegments;

static inline bool fts_varint(const unsigned char *b, int n, int *i,
			      uint64_t *v)
{
	*v = 0;
	for (int k = 0; k < 9 && *i < n; k++) {
		unsigned char c = b[(*i)++];

		if (k == 8) {
			*v = (*v << 8) | c;
			return true;
		}
		*v = (*v << 7) | (c & 0x7f);
		if (!(c & 0x80))
			return true;
	}
	return false;
}

/* Fills s from db; false when the record cannot be read whole. */
static inline bool fts_segments(sqlite3 *db, FtsSegments *s)
{
	static const unsigned char v2[4] = {0xff, 0x00, 0x00, 0x01};
	sqlite3_stmt *st;
	bool ok = false;

	memset(s, 0, sizeof(*s));
	if (sqlite3_prepare_v2(db,
			       "SELECT block FROM chunks_fts_data WHERE id=10",
			       -1, &st, NULL) != SQLITE_OK)
		return false;
	if (sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *b = sqlite3_column_blob(st, 0);
		int n = sqlite3_column_bytes(st, 0), i = 4, fields = 3;
		uint64_t levels = 0, nseg = 0, counter, merge, count, f[8];

		if (n >= 8 && memcmp(b + 4, v2, 4) == 0) {
			i = 8;
			fields = 8;
		}
		ok = n >= 4 && fts_varint(b, n, &i, &levels) &&
		     fts_varint(b, n, &i, &nseg) &&
		     fts_varint(b, n, &i, &counter) && nseg <= FTS_SEGMENTS_MAX;
		s->levels = (int)levels;
		for (uint64_t l = 0; ok && l < levels; l++) {
			ok = fts_varint(b, n, &i, &merge) &&
			     fts_varint(b, n, &i, &count) &&
			     s->n + count <= nseg;
			s->merging += ok && merge;
			for (uint64_t k = 0; ok && k < count; k++, s->n++) {
				for (int j = 0; ok && j < fields; j++)
					ok = fts_varint(b, n, &i, &f[j]);
				s->level[s->n] = (int)l;
				s->id[s->n] = (int)f[0];
				s->pages[s->n] = (int)(f[2] - f[1] + 1);
			}
		}
		ok = ok && (uint64_t)s->n == nseg && i == n;
	}
	sqlite3_finalize(st);
	return ok;
}

/* The most segments any one level holds. */
static inline int fts_fullest_level(const FtsSegments *s)
{
	int most = 0, run = 0;

	for (int k = 0; k < s->n; k++) {
		run = k && s->level[k] == s->level[k - 1] ? run + 1 : 1;
		if (run > most)
			most = run;
	}
	return most;
}

/* The index in s of segment id, or -1. */
static inline int fts_segment_of(const FtsSegments *s, int id)
{
	for (int k = 0; k < s->n; k++)
		if (s->id[k] == id)
			return k;
	return -1;
}

#endif
