/*
 * rows.c: writing one file's rows (its spans, chunks and full-text
 * entries) so that unchanged rows keep their ids, and moving them in
 * place for a keystroke.
 */
#include "index_int.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------- *
 * Files
 * ---------------------------------------------------------------------- */

int index__file_stamp(Index *ix, const char *relpath, FileStamp *out)
{
	sqlite3_stmt *s = index__stmt(ix, ST_FILE_GET);
	int rc;

	index__bind_text(s, 1, relpath, strlen(relpath));
	rc = sqlite3_step(s);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return index__db_error(ix, rc);
	out->id = sqlite3_column_int64(s, 0);
	out->size = sqlite3_column_int64(s, 1);
	out->mtime = sqlite3_column_int64(s, 2);
	out->hash = (uint64_t)sqlite3_column_int64(s, 3);
	out->lang = lang_from_name((const char *)sqlite3_column_text(s, 4));
	/* A statement left on a row keeps its read transaction past COMMIT,
	 * and the write-ahead log cannot start over while one is open. */
	sqlite3_reset(s);
	return 1;
}

int index__file_touch(Index *ix, int64_t id, const FileStamp *stamp)
{
	sqlite3_stmt *s = index__stmt(ix, ST_FILE_STAMP);

	sqlite3_bind_int64(s, 1, stamp->size);
	sqlite3_bind_int64(s, 2, stamp->mtime);
	sqlite3_bind_int64(s, 3, (int64_t)stamp->hash);
	sqlite3_bind_int64(s, 4, id);
	return index__step_done(ix, s);
}

/* Removes chunk id from the full-text index (which needs the exact values
 * it was given) and from chunks. */
static int chunk_delete(Index *ix, int64_t id)
{
	sqlite3_stmt *t = index__stmt(ix, ST_CHUNK_TEXT), *d;
	int rc, err;

	sqlite3_bind_int64(t, 1, id);
	rc = sqlite3_step(t);
	if (rc == SQLITE_ROW) {
		d = index__stmt(ix, ST_FTS_DELETE);
		sqlite3_bind_int64(d, 1, id);
		sqlite3_bind_value(d, 2, sqlite3_column_value(t, 0));
		sqlite3_bind_value(d, 3, sqlite3_column_value(t, 1));
		sqlite3_bind_value(d, 4, sqlite3_column_value(t, 2));
		if ((err = index__step_done(ix, d)))
			return err;
	} else if (rc != SQLITE_DONE) {
		return index__db_error(ix, rc);
	}
	sqlite3_reset(t);
	d = index__stmt(ix, ST_CHUNK_DELETE);
	sqlite3_bind_int64(d, 1, id);
	if ((err = index__step_done(ix, d)))
		return err;
	d = index__stmt(ix, ST_CHUNK_TEXT_DELETE);
	sqlite3_bind_int64(d, 1, id);
	return index__step_done(ix, d);
}

/* The ids of a file's rows from one of ST_SPANS_OF / ST_CHUNKS_OF. */
typedef struct {
	int64_t id, ref; /* ref: parent or span id */
	uint64_t hash;
	uint32_t start, end, line0, line1;
	bool used;
} OldRow;

static int load_rows(Index *ix, int which, int64_t file, OldRow **rows,
		     uint32_t *n)
{
	sqlite3_stmt *s = index__stmt(ix, which);
	uint32_t cap = 0;
	int rc;

	*rows = NULL;
	*n = 0;
	sqlite3_bind_int64(s, 1, file);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		OldRow *r;

		if (*n == cap) {
			cap = cap ? cap * 2 : 32;
			*rows = xrealloc(*rows, cap * sizeof(**rows));
		}
		r = &(*rows)[(*n)++];
		r->id = sqlite3_column_int64(s, 0);
		r->hash = (uint64_t)sqlite3_column_int64(s, 1);
		r->ref = sqlite3_column_int64(s, 2);
		r->start = (uint32_t)sqlite3_column_int64(s, 3);
		r->end = (uint32_t)sqlite3_column_int64(s, 4);
		r->line0 = (uint32_t)sqlite3_column_int64(s, 5);
		r->line1 = (uint32_t)sqlite3_column_int64(s, 6);
		r->used = false;
	}
	return rc == SQLITE_DONE ? 0 : index__db_error(ix, rc);
}

static int cmp_hash(const void *a, const void *b)
{
	const OldRow *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* The first unused old row with this hash (rows sorted by cmp_hash). */
static OldRow *take_match(OldRow *rows, uint32_t n, uint64_t hash)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (rows[mid].hash < hash)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && rows[lo].hash == hash; lo++)
		if (!rows[lo].used) {
			rows[lo].used = true;
			return &rows[lo];
		}
	return NULL;
}

/* Every column a kept row would not rewrite counts. The header: the same
 * bytes can parse with the body starting elsewhere, and a row written
 * from a chunking carried across edits (lsp/) has its header made from
 * the text. (A span's doc comment is not stored: it is in the chunks'
 * text, and nothing read it back from the index.) */
static uint64_t span_hash(const Span *s, const char *text)
{
	uint64_t h = castls_hash(text + s->bytes.start,
				 s->bytes.end - s->bytes.start, s->kind);

	h = castls_hash(s->qualname, strlen(s->qualname), h);
	return castls_hash(s->header, strlen(s->header), h);
}

/* Writes spans; ids[i] receives the row id of span i. */
static int write_spans(Index *ix, int64_t file, bool fresh, const char *text,
		       const Chunking *c, int64_t *ids, IndexDelta *d)
{
	OldRow *old = NULL;
	uint32_t nold = 0, i;
	int err = fresh ? 0 : load_rows(ix, ST_SPANS_OF, file, &old, &nold);

	if (err)
		return err;
	if (nold)
		qsort(old, nold, sizeof(*old), cmp_hash);
	for (i = 0; i < c->nspans && !err; i++) {
		const Span *s = &c->spans[i];
		int64_t parent = s->parent >= 0 ? ids[s->parent] : 0;
		/* At the top of its file or of its namespaces. */
		bool top =
		    s->parent < 0 || c->spans[s->parent].kind == SPAN_NAMESPACE;
		uint64_t h = span_hash(s, text);
		OldRow *o = take_match(old, nold, h);
		sqlite3_stmt *st;

		if (o) {
			ids[i] = o->id;
			if (o->ref == parent && o->start == s->bytes.start &&
			    o->end == s->bytes.end &&
			    o->line0 == s->lines.start &&
			    o->line1 == s->lines.end) {
				d->kept++;
				continue;
			}
			st = index__stmt(ix, ST_SPAN_UPDATE);
			if (parent)
				sqlite3_bind_int64(st, 1, parent);
			sqlite3_bind_int64(st, 2, s->bytes.start);
			sqlite3_bind_int64(st, 3, s->bytes.end);
			sqlite3_bind_int64(st, 4, s->lines.start);
			sqlite3_bind_int64(st, 5, s->lines.end);
			sqlite3_bind_int(st, 6, top);
			sqlite3_bind_int64(st, 7, o->id);
			err = index__step_done(ix, st);
			d->updated++;
			continue;
		}
		st = index__stmt(ix, ST_SPAN_INSERT);
		sqlite3_bind_int64(st, 1, file);
		if (parent)
			sqlite3_bind_int64(st, 2, parent);
		sqlite3_bind_text(st, 3, span_kind_name(s->kind), -1,
				  SQLITE_STATIC);
		index__bind_text(st, 4, s->name, strlen(s->name));
		index__bind_text(st, 5, s->qualname, strlen(s->qualname));
		sqlite3_bind_int64(st, 6, s->bytes.start);
		sqlite3_bind_int64(st, 7, s->bytes.end);
		sqlite3_bind_int64(st, 8, s->lines.start);
		sqlite3_bind_int64(st, 9, s->lines.end);
		index__bind_text(st, 10, s->header, strlen(s->header));
		sqlite3_bind_int64(st, 11, (int64_t)h);
		sqlite3_bind_int(st, 12, top);
		err = index__step_done(ix, st);
		ids[i] = sqlite3_last_insert_rowid(ix->db);
		d->inserted++;
	}
	for (i = 0; i < nold && !err; i++) {
		sqlite3_stmt *st;

		if (old[i].used)
			continue;
		st = index__stmt(ix, ST_SPAN_DELETE);
		sqlite3_bind_int64(st, 1, old[i].id);
		err = index__step_done(ix, st);
		d->deleted++;
	}
	xfree(old);
	return err;
}

/* The names a chunk answers to: its span path and the qualified names of
 * the definitions that start inside it. */
static void chunk_names(const Chunking *c, const Chunk *k, Buf *b)
{
	b->len = 0;
	if (k->span >= 0)
		buf_puts(b, c->spans[k->span].qualname);
	for (uint32_t i = 0; i < c->nspans; i++) {
		const Span *s = &c->spans[i];

		if (s->bytes.start < k->bytes.start ||
		    s->bytes.start >= k->bytes.end || (int32_t)i == k->span)
			continue;
		if (b->len)
			buf_puts(b, " ");
		buf_puts(b, s->qualname);
	}
	if (!b->data)
		buf_puts(b, "");
}

static int insert_chunk(Index *ix, int64_t file, const char *relpath,
			const Chunk *k, int64_t span, uint64_t h,
			const char *text, const Buf *names)
{
	sqlite3_stmt *st = index__stmt(ix, ST_CHUNK_INSERT);
	const char *t = text + k->bytes.start;
	size_t n = k->bytes.end - k->bytes.start;
	int64_t id;
	int err;

	sqlite3_bind_int64(st, 1, file);
	if (span)
		sqlite3_bind_int64(st, 2, span);
	sqlite3_bind_text(st, 3, chunk_kind_name(k->kind), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, k->bytes.start);
	sqlite3_bind_int64(st, 5, k->bytes.end);
	sqlite3_bind_int64(st, 6, k->lines.start);
	sqlite3_bind_int64(st, 7, k->lines.end);
	sqlite3_bind_int64(st, 8, k->size);
	sqlite3_bind_int64(st, 9, (int64_t)h);
	if ((err = index__step_done(ix, st)))
		return err;
	id = sqlite3_last_insert_rowid(ix->db);
	st = index__stmt(ix, ST_CHUNK_TEXT_INSERT);
	sqlite3_bind_int64(st, 1, id);
	index__bind_text(st, 2, names->data, names->len);
	index__bind_text(st, 3, t, n);
	if ((err = index__step_done(ix, st)))
		return err;
	st = index__stmt(ix, ST_FTS_INSERT);
	sqlite3_bind_int64(st, 1, id);
	index__bind_text(st, 2, t, n);
	index__bind_text(st, 3, names->data, names->len);
	index__bind_text(st, 4, relpath, strlen(relpath));
	return index__step_done(ix, st);
}

static int write_chunks(Index *ix, int64_t file, bool fresh,
			const char *relpath, const char *text,
			const Chunking *c, const int64_t *span_ids,
			IndexDelta *d)
{
	OldRow *old = NULL;
	uint32_t nold = 0, i;
	Buf names = {0};
	int err = fresh ? 0 : load_rows(ix, ST_CHUNKS_OF, file, &old, &nold);

	if (err)
		return err;
	if (nold)
		qsort(old, nold, sizeof(*old), cmp_hash);
	for (i = 0; i < c->nchunks && !err; i++) {
		const Chunk *k = &c->chunks[i];
		int64_t span = k->span >= 0 ? span_ids[k->span] : 0;
		uint64_t h;
		OldRow *o;
		sqlite3_stmt *st;

		chunk_names(c, k, &names);
		h = castls_hash(text + k->bytes.start,
				k->bytes.end - k->bytes.start, k->kind);
		h = castls_hash(names.data, names.len, h);
		if (!(o = take_match(old, nold, h))) {
			err = insert_chunk(ix, file, relpath, k, span, h, text,
					   &names);
			d->inserted++;
			continue;
		}
		if (o->ref == span && o->start == k->bytes.start &&
		    o->end == k->bytes.end && o->line0 == k->lines.start &&
		    o->line1 == k->lines.end) {
			d->kept++;
			continue;
		}
		st = index__stmt(ix, ST_CHUNK_UPDATE);
		if (span)
			sqlite3_bind_int64(st, 1, span);
		sqlite3_bind_int64(st, 2, k->bytes.start);
		sqlite3_bind_int64(st, 3, k->bytes.end);
		sqlite3_bind_int64(st, 4, k->lines.start);
		sqlite3_bind_int64(st, 5, k->lines.end);
		sqlite3_bind_int64(st, 6, o->id);
		err = index__step_done(ix, st);
		d->updated++;
	}
	for (i = 0; i < nold && !err; i++) {
		if (old[i].used)
			continue;
		err = chunk_delete(ix, old[i].id);
		d->deleted++;
	}
	buf_free(&names);
	xfree(old);
	return err;
}

/* Writes the files row of relpath: an update when it is there, else an
 * insert. *fresh says it was not there, so it has no rows to keep. */
static int file_row(Index *ix, const char *relpath, Lang lang,
		    const FileStamp *stamp, int64_t *id, bool *fresh)
{
	FileStamp old;
	sqlite3_stmt *s;
	int found = index__file_stamp(ix, relpath, &old);

	if (found < 0)
		return found;
	*fresh = !found;
	if (found) {
		s = index__stmt(ix, ST_FILE_UPDATE);
		sqlite3_bind_text(s, 1, lang_name(lang), -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 2, stamp->size);
		sqlite3_bind_int64(s, 3, stamp->mtime);
		sqlite3_bind_int64(s, 4, (int64_t)stamp->hash);
		sqlite3_bind_int64(s, 5, index__now());
		sqlite3_bind_int64(s, 6, old.id);
		*id = old.id;
		return index__step_done(ix, s);
	}
	s = index__stmt(ix, ST_FILE_INSERT);
	index__bind_text(s, 1, relpath, strlen(relpath));
	sqlite3_bind_text(s, 2, lang_name(lang), -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 3, stamp->size);
	sqlite3_bind_int64(s, 4, stamp->mtime);
	sqlite3_bind_int64(s, 5, (int64_t)stamp->hash);
	sqlite3_bind_int64(s, 6, index__now());
	*id = 0;
	if (index__step_done(ix, s) == 0)
		*id = sqlite3_last_insert_rowid(ix->db);
	return *id ? 0 : index__db_error(ix, sqlite3_errcode(ix->db));
}

int index__file_write(Index *ix, const char *relpath, Lang lang,
		      const FileStamp *stamp, const char *text, uint32_t len,
		      const Chunking *c, IndexDelta *delta)
{
	IndexDelta local = {0};
	int64_t file, *span_ids;
	bool fresh;
	int err;

	(void)len;
	if ((err = file_row(ix, relpath, lang, stamp, &file, &fresh)))
		return err;
	span_ids = xmalloc((c->nspans + 1) * sizeof(*span_ids));
	err = write_spans(ix, file, fresh, text, c, span_ids, &local);
	if (!err)
		err = write_chunks(ix, file, fresh, relpath, text, c, span_ids,
				   &local);
	xfree(span_ids);
	if (delta)
		*delta = local;
	return err;
}

int index__file_delete(Index *ix, int64_t id)
{
	OldRow *rows;
	uint32_t n, i;
	sqlite3_stmt *s;
	int err = load_rows(ix, ST_CHUNKS_OF, id, &rows, &n);

	for (i = 0; i < n && !err; i++)
		err = chunk_delete(ix, rows[i].id);
	xfree(rows);
	if (err || (err = load_rows(ix, ST_SPANS_OF, id, &rows, &n)))
		return err;
	for (i = 0; i < n && !err; i++) {
		s = index__stmt(ix, ST_SPAN_DELETE);
		sqlite3_bind_int64(s, 1, rows[i].id);
		err = index__step_done(ix, s);
	}
	xfree(rows);
	if (err)
		return err;
	s = index__stmt(ix, ST_FILE_DELETE);
	sqlite3_bind_int64(s, 1, id);
	return index__step_done(ix, s);
}

/* ---------------------------------------------------------------------- *
 * Public single-file writes
 * ---------------------------------------------------------------------- */

/* Commits a live buffer's write, leaving the checkpoint for later. */
static int commit_buffer(Index *ix)
{
	int err;

	ix->defer_checkpoint = true;
	err = index__commit(ix);
	ix->defer_checkpoint = false;
	return err;
}

int index_file_put(Index *ix, const char *relpath, const char *text,
		   uint32_t len, const Chunking *c, IndexDelta *delta)
{
	FileStamp stamp = {0}, held;
	IndexDelta local, *d = delta ? delta : &local;
	int err = index__begin(ix), found;

	if (err)
		return err;
	/* A live buffer has no disk stamp: size and hash mark its content,
	 * mtime 0 makes the next scan look at the disk file again. */
	stamp.size = len;
	stamp.hash = castls_hash(text, len, 0);
	found = index__file_stamp(ix, relpath, &held);
	err = found < 0 ? found
			: index__file_write(ix, relpath, c->lang, &stamp, text,
					    len, c, d);
	if (err) {
		index__rollback(ix);
		return err;
	}
	/* The rows of this very text, as they were (a buffer opened
	 * unmodified, or put back after a scan found its file unchanged):
	 * nothing is committed. The stamp a scan gave them stays, and the
	 * readers keep their page caches, which any commit empties. */
	if (found && held.hash == stamp.hash && held.size == len &&
	    held.lang == c->lang && !d->inserted && !d->updated &&
	    !d->deleted) {
		index__rollback(ix);
		return 0;
	}
	return commit_buffer(ix);
}

/* ---------------------------------------------------------------------- *
 * A write that knows the edit
 * ---------------------------------------------------------------------- */

/* One edit [a, b) -> [a, a + delta + b - a) as chunking_edit applies it:
 * rows that start at `from` or later move by `bytes` and `lines`. */
typedef struct {
	uint32_t a, b, from;
	int64_t bytes, lines;
	bool lines_known; /* lines comes from a moved row */
	uint32_t spans_moved, chunks_moved;
} EditShift;

/* Whether a row that was at r0 (lines l0) and is at r1 (l1) moved by
 * the edit's shift; the first moved row tells the lines. */
static bool moved_by(EditShift *sh, ByteRange r0, LineRange l0, ByteRange r1,
		     LineRange l1)
{
	int64_t dl = (int64_t)l1.start - l0.start;

	if (r0.start < sh->from || (int64_t)r1.start - r0.start != sh->bytes ||
	    (int64_t)r1.end - r0.end != sh->bytes ||
	    (int64_t)l1.end - l0.end != dl)
		return false;
	if (!sh->lines_known) {
		sh->lines = dl;
		sh->lines_known = true;
	}
	return dl == sh->lines;
}

static bool same_place(ByteRange r0, LineRange l0, ByteRange r1, LineRange l1)
{
	return r0.start == r1.start && r0.end == r1.end &&
	       l0.start == l1.start && l0.end == l1.end;
}

/* The rule of chunking_edit: span s holds the edit (and stretches). */
static bool span_holds(const Span *s, uint32_t a, uint32_t b)
{
	return s->bytes.start <= a && b <= s->bytes.end &&
	       (s->bytes.start < a || b < s->bytes.end || a == b);
}

/* Checks that span i of after is span i of before with the edit applied:
 * the same, stretched (holding the edit) or moved. Only places: s0 has
 * no strings, and chunking_edit changes none but a holding span's
 * header. */
static bool span_fits(EditShift *sh, const Span *s0, const Span *s1)
{
	if (s0->kind != s1->kind || s0->parent != s1->parent)
		return false;
	if (span_holds(s0, sh->a, sh->b))
		return s1->bytes.start == s0->bytes.start &&
		       s1->lines.start == s0->lines.start &&
		       (int64_t)s1->bytes.end - s0->bytes.end == sh->bytes;
	if (s0->bytes.end <= sh->a)
		return same_place(s0->bytes, s0->lines, s1->bytes, s1->lines);
	sh->spans_moved++;
	return moved_by(sh, s0->bytes, s0->lines, s1->bytes, s1->lines);
}

/* The chunk chunking_edit stretches: the first that ends after a, or the
 * last one for an insertion at the end of the text. */
static uint32_t chunk_holding(const Chunking *c, uint32_t a)
{
	uint32_t k = 0;

	while (k < c->nchunks && a >= c->chunks[k].bytes.end)
		k++;
	return k < c->nchunks ? k : c->nchunks - 1;
}

/* Checks that after is before carried across the edit by chunking_edit,
 * and finds the chunk holding it (*k) and the shift of the rows after. */
static bool edit_fits(const Chunking *c0, const Chunking *c1, EditShift *sh,
		      uint32_t *k)
{
	const Chunk *k0, *k1;

	if (c0->lang != c1->lang || c0->nspans != c1->nspans ||
	    c0->nchunks != c1->nchunks || c0->nchunks == 0)
		return false;
	for (uint32_t i = 0; i < c0->nspans; i++)
		if (!span_fits(sh, &c0->spans[i], &c1->spans[i]))
			return false;
	*k = chunk_holding(c0, sh->a);
	k0 = &c0->chunks[*k];
	k1 = &c1->chunks[*k];
	if (sh->b > k0->bytes.end || k1->kind != k0->kind ||
	    k1->bytes.start != k0->bytes.start ||
	    k1->lines.start != k0->lines.start || k1->span != k0->span ||
	    (int64_t)k1->bytes.end - k0->bytes.end != sh->bytes)
		return false;
	for (uint32_t i = 0; i < c0->nchunks; i++) {
		const Chunk *x = &c0->chunks[i], *y = &c1->chunks[i];

		if (i == *k)
			continue;
		if (x->kind != y->kind || x->span != y->span ||
		    x->size != y->size)
			return false;
		if (i < *k
			? !same_place(x->bytes, x->lines, y->bytes, y->lines)
			: !moved_by(sh, x->bytes, x->lines, y->bytes, y->lines))
			return false;
	}
	sh->chunks_moved = c0->nchunks - *k - 1;
	return true;
}

/* Runs a shift statement (ST_SPANS_SHIFT, ST_CHUNKS_SHIFT), which must
 * move exactly `rows` rows: fewer or more says the index holds other
 * rows than the caller thinks. */
static int shift_rows(Index *ix, int which, int64_t file, uint32_t from,
		      const EditShift *sh, uint32_t rows)
{
	sqlite3_stmt *st = index__stmt(ix, which);
	int err;

	if (rows == 0 || (sh->bytes == 0 && sh->lines == 0))
		return 0;
	sqlite3_bind_int64(st, 1, sh->bytes);
	sqlite3_bind_int64(st, 2, sh->lines);
	sqlite3_bind_int64(st, 3, file);
	sqlite3_bind_int64(st, 4, from);
	if ((err = index__step_done(ix, st)))
		return err;
	return sqlite3_changes(ix->db) == (int)rows ? 0 : CASTLS_EINVAL;
}

/* Rewrites the spans holding the edit: new end, header and hash. */
static int stretch_spans(Index *ix, int64_t file, const char *text,
			 const Chunking *c0, const Chunking *c1,
			 const EditShift *sh)
{
	int err = 0;

	for (uint32_t i = 0; i < c0->nspans && !err; i++) {
		const Span *s0 = &c0->spans[i], *s1 = &c1->spans[i];
		sqlite3_stmt *st;

		if (!span_holds(s0, sh->a, sh->b))
			continue;
		st = index__stmt(ix, ST_SPAN_STRETCH);
		sqlite3_bind_int64(st, 1, s1->bytes.end);
		sqlite3_bind_int64(st, 2, s1->lines.end);
		index__bind_text(st, 3, s1->header, strlen(s1->header));
		sqlite3_bind_int64(st, 4, (int64_t)span_hash(s1, text));
		sqlite3_bind_int64(st, 5, file);
		sqlite3_bind_int64(st, 6, s0->bytes.start);
		sqlite3_bind_int64(st, 7, s0->bytes.end);
		if (!(err = index__step_done(ix, st)) &&
		    sqlite3_changes(ix->db) != 1)
			err = CASTLS_EINVAL;
	}
	return err;
}

/* Rewrites chunk k, which holds the edit, and its full-text entry. */
static int stretch_chunk(Index *ix, int64_t file, const char *relpath,
			 const char *text, const Chunking *c0,
			 const Chunking *c1, uint32_t k)
{
	const Chunk *k0 = &c0->chunks[k], *k1 = &c1->chunks[k];
	const char *t = text + k1->bytes.start;
	size_t n = k1->bytes.end - k1->bytes.start;
	sqlite3_stmt *at = index__stmt(ix, ST_CHUNK_AT), *st;
	Buf names = {0};
	int64_t id;
	uint64_t h;
	int rc, err;

	sqlite3_bind_int64(at, 1, file);
	sqlite3_bind_int64(at, 2, k0->bytes.start);
	if ((rc = sqlite3_step(at)) != SQLITE_ROW)
		return rc == SQLITE_DONE ? CASTLS_EINVAL
					 : index__db_error(ix, rc);
	id = sqlite3_column_int64(at, 0);
	if (sqlite3_column_int64(at, 1) != k0->bytes.end)
		return CASTLS_EINVAL;
	st = index__stmt(ix, ST_FTS_DELETE);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_value(st, 2, sqlite3_column_value(at, 2));
	sqlite3_bind_value(st, 3, sqlite3_column_value(at, 3));
	sqlite3_bind_value(st, 4, sqlite3_column_value(at, 4));
	err = index__step_done(ix, st);
	sqlite3_reset(at);
	if (err)
		return err;
	chunk_names(c1, k1, &names);
	h = castls_hash(t, n, k1->kind);
	h = castls_hash(names.data, names.len, h);
	st = index__stmt(ix, ST_CHUNK_STRETCH);
	sqlite3_bind_int64(st, 1, k1->bytes.end);
	sqlite3_bind_int64(st, 2, k1->lines.end);
	sqlite3_bind_int64(st, 3, k1->size);
	sqlite3_bind_int64(st, 4, (int64_t)h);
	sqlite3_bind_int64(st, 5, id);
	if (!(err = index__step_done(ix, st))) {
		st = index__stmt(ix, ST_CHUNK_TEXT_PUT);
		index__bind_text(st, 1, names.data, names.len);
		index__bind_text(st, 2, t, n);
		sqlite3_bind_int64(st, 3, id);
		err = index__step_done(ix, st);
	}
	if (!err) {
		st = index__stmt(ix, ST_FTS_INSERT);
		sqlite3_bind_int64(st, 1, id);
		index__bind_text(st, 2, t, n);
		index__bind_text(st, 3, names.data, names.len);
		index__bind_text(st, 4, relpath, strlen(relpath));
		err = index__step_done(ix, st);
	}
	buf_free(&names);
	return err;
}

int index_file_remove(Index *ix, const char *relpath)
{
	FileStamp stamp;
	int found, err = index__begin(ix);

	if (err)
		return err;
	found = index__file_stamp(ix, relpath, &stamp);
	err = found < 0 ? found : found ? index__file_delete(ix, stamp.id) : 0;
	return index__end(ix, err);
}

int index_file_edit(Index *ix, const char *relpath, const char *text,
		    uint32_t len, uint64_t hash, const TSInputEdit *edit,
		    const Chunking *before, uint64_t before_hash,
		    const Chunking *after)
{
	EditShift sh = {0};
	FileStamp stamp;
	sqlite3_stmt *st;
	uint32_t k;
	int found, err;

	sh.a = edit->start_byte;
	sh.b = edit->old_end_byte;
	sh.from = sh.b > sh.a ? sh.b : sh.a + 1;
	sh.bytes = (int64_t)edit->new_end_byte - sh.b;
	if (sh.b < sh.a || !edit_fits(before, after, &sh, &k))
		return CASTLS_EINVAL;
	if ((err = index__begin(ix)))
		return err;
	found = index__file_stamp(ix, relpath, &stamp);
	if (found <= 0 || stamp.hash != before_hash) {
		index__rollback(ix);
		return found < 0 ? found : CASTLS_EINVAL;
	}
	st = index__stmt(ix, ST_FILE_UPDATE);
	sqlite3_bind_text(st, 1, lang_name(after->lang), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, len);
	sqlite3_bind_int64(st, 3, 0);
	sqlite3_bind_int64(st, 4, (int64_t)hash);
	sqlite3_bind_int64(st, 5, index__now());
	sqlite3_bind_int64(st, 6, stamp.id);
	if ((err = index__step_done(ix, st)) ||
	    (err = stretch_spans(ix, stamp.id, text, before, after, &sh)) ||
	    (err = shift_rows(ix, ST_SPANS_SHIFT, stamp.id, sh.from, &sh,
			      sh.spans_moved)) ||
	    (err = stretch_chunk(ix, stamp.id, relpath, text, before, after,
				 k)) ||
	    (err = shift_rows(ix, ST_CHUNKS_SHIFT, stamp.id, sh.from, &sh,
			      sh.chunks_moved))) {
		index__rollback(ix);
		return err;
	}
	return commit_buffer(ix);
}
