/*
 * test_edits.c: random incremental edits must leave the server with the
 * right view of each document (tree-sitter's randomized corpus tests,
 * over LSP).
 *
 * The test keeps its own model of each document's text and computes every
 * LSP position from it, in UTF-16 code units, with the spec's line breaks
 * ("\n", "\r\n", lone "\r"). Edits insert, delete and replace, with
 * multi-byte characters (é, 中, and 😀, a surrogate pair in UTF-16) and
 * CRLF line ends, one to three changes per didChange. Beside the model
 * text the test keeps a replica of the server's syntax tree: the same
 * ts_tree_edit calls and incremental reparses, in process.
 *
 * After each batch of edits:
 * - castls/chunks of the edited document equals the chunking of the model
 *   text over the replica tree, ranges converted by the model: the server
 *   applied every change at the right place, in the right encoding;
 * - castls/chunks and textDocument/documentSymbol equal those of the model
 *   text opened fresh as a second document. Incremental parsing recovers
 *   from syntax errors along another path than a fresh parse, so while
 *   the text has errors a difference is counted, not failed; for text
 *   without errors it fails;
 * - the index rows of the file (the server writes live buffers to the
 *   index) reach the same chunking, text included: the database is read
 *   through a read-only connection of our own, polled until it catches
 *   up.
 * At the end every edit is undone, in reverse order, as incremental
 * changes: the text is the original again, and the edited document must
 * now equal a fresh parse exactly.
 *
 * CASTLS_EDIT_SEED and CASTLS_EDITS override the seed and the number of
 * edits per document, to replay a failure or run longer.
 */
#include "test.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "chunker/chunker.h"
#include "fts_segments.h"
#include "lsp_client.h"

#define EDITS_DEFAULT 1000 /* per document */
#define BATCH 30	   /* didChange notifications between checks */
#define MAX_CHUNK 150	   /* small, so the fixtures give many chunks */
#define TEXT_SOFT_MAX 3000 /* bytes; above it edits mostly delete */
#define INDEX_WAIT_MS 15000
#define POLL_MS 20

/* ---------------------------------------------------------------------- *
 * Randomness: xorshift64*, reproducible from the seed
 * ---------------------------------------------------------------------- */

static uint64_t rng_state;

static uint32_t rnd(uint32_t n) /* uniform-ish in [0, n) */
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return n ? (uint32_t)((rng_state * 0x2545F4914F6CDD1DULL) >> 33) % n
		 : 0;
}

/* ---------------------------------------------------------------------- *
 * The model: text and LSP positions
 * ---------------------------------------------------------------------- */

static uint32_t utf8_len(unsigned char b)
{
	return b < 0x80 ? 1 : b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
}

/* An offset an editor can name: a character boundary, not between the
 * "\r" and "\n" of a line break. */
static bool valid_offset(const Buf *t, uint32_t off)
{
	if (off == 0 || off >= t->len)
		return true;
	if (!utf8_is_lead((unsigned char)t->data[off]))
		return false;
	return !(t->data[off - 1] == '\r' && t->data[off] == '\n');
}

/* The LSP position of byte off (a valid offset, or inside a line break,
 * which rounds to the end of that line as the server does). */
static void model_position(const Buf *t, uint32_t off, uint32_t *line,
			   uint32_t *col)
{
	uint32_t l = 0, start = 0, i = 0, units = 0;

	while (i < off) {
		char ch = t->data[i];

		if (ch == '\n' || ch == '\r') {
			uint32_t brk = (ch == '\r' && i + 1 < t->len &&
					t->data[i + 1] == '\n')
					   ? 2
					   : 1;

			if (i + brk > off) /* off is inside the break */
				break;
			i += brk;
			l++;
			start = i;
			continue;
		}
		i += utf8_len((unsigned char)ch);
	}
	for (uint32_t k = start; k < off && k < t->len;) {
		uint32_t n = utf8_len((unsigned char)t->data[k]);

		if (t->data[k] == '\r' || t->data[k] == '\n')
			break;
		units += n == 4 ? 2 : 1;
		k += n;
	}
	*line = l;
	*col = units;
}

static cJSON *position_json(const Buf *t, uint32_t off)
{
	cJSON *p = cJSON_CreateObject();
	uint32_t line, col;

	model_position(t, off, &line, &col);
	cJSON_AddNumberToObject(p, "line", line);
	cJSON_AddNumberToObject(p, "character", col);
	return p;
}

static uint32_t random_offset(const Buf *t)
{
	uint32_t off = rnd((uint32_t)t->len + 1);

	while (!valid_offset(t, off))
		off++;
	return off;
}

/* Pieces of inserted text: code, multi-byte characters, line breaks. */
static const char *const pieces[] = {
    "x",
    "foo",
    " ",
    "    ",
    "\n",
    "\r\n",
    "\n\n",
    "(",
    ")",
    ":",
    "{",
    "}",
    "\"",
    "'",
    "#",
    "//",
    "=",
    ",",
    ".",
    "é",
    "中",
    "😀",
    "é中😀",
    "\r",
    "def g(a):\n    return a\n",
    "class K:\n    def m(self):\n        pass\n",
    "function h(): number {\n  return 1;\n}\n",
    "if x:\n\tpass\r\n",
    "/* 中 */",
    "\"😀\"",
    "return ",
    "self.",
    "\t",
};

static void random_text(Buf *b)
{
	int n = 1 + (int)rnd(4);

	for (int i = 0; i < n; i++)
		buf_puts(b, pieces[rnd(sizeof(pieces) / sizeof(*pieces))]);
}

/* An edit as it was made, to undo it: bytes [at, at + inserted) of the
 * text now hold what used to be removed. */
typedef struct {
	uint32_t at, inserted;
	char *removed;
	uint32_t nremoved;
} Undo;

typedef struct {
	const char *name;     /* for messages */
	const char *rel;      /* file in the workspace */
	const char *language; /* languageId */
	Lang lang;
	char *uri;	 /* of the edited document */
	char *fresh_uri; /* of the fresh copy (outside the workspace) */
	Buf text;	 /* the model */
	Buf original;
	int version;
	Chunker *chunker; /* for the replica and fresh parses */
	TSTree *tree;	  /* the replica of the server's tree */
	Undo *undo;
	size_t nundo, undo_cap;
	int diverged; /* checks where fresh != edited, with errors */
	int checks;
} Doc;

/* tree-sitter's point for a byte: rows end at "\n", columns are bytes. */
static TSPoint point_at(const Buf *t, uint32_t off)
{
	uint32_t row = 0, start = 0;

	for (uint32_t i = 0; i < off; i++)
		if (t->data[i] == '\n')
			row++, start = i + 1;
	return (TSPoint){row, off - start};
}

/* Replaces bytes [a, b) of the model with ins[0..n), appending the LSP
 * change to changes and applying the same edit to the replica tree.
 *
 * An end of the range between the "\r" and "\n" of a line break (an
 * undo can land there) has no LSP position: the range then takes in the
 * whole break and the text restores its half, as an editor would do. */
static void change_model(Doc *d, uint32_t a, uint32_t b, const char *ins,
			 uint32_t n, cJSON *changes, bool record)
{
	cJSON *c = cJSON_CreateObject(), *range;
	Buf next = {0}, wide = {0};
	TSInputEdit e = {0};
	char *text;

	if (!valid_offset(&d->text, a)) {
		a--;
		buf_puts(&wide, "\r");
	}
	buf_append(&wide, ins, n);
	if (!valid_offset(&d->text, b)) {
		b++;
		buf_puts(&wide, "\n");
	}
	ins = wide.data ? wide.data : "";
	n = (uint32_t)wide.len;
	text = xstrndup(ins, n);

	range = cJSON_AddObjectToObject(c, "range");
	cJSON_AddItemToObject(range, "start", position_json(&d->text, a));
	cJSON_AddItemToObject(range, "end", position_json(&d->text, b));
	cJSON_AddStringToObject(c, "text", text);
	cJSON_AddItemToArray(changes, c);
	xfree(text);
	if (record) {
		Undo *u;

		if (d->nundo == d->undo_cap) {
			d->undo_cap = d->undo_cap ? d->undo_cap * 2 : 256;
			d->undo =
			    xrealloc(d->undo, d->undo_cap * sizeof(*d->undo));
		}
		u = &d->undo[d->nundo++];
		u->at = a;
		u->inserted = n;
		u->removed = xstrndup(d->text.data + a, b - a);
		u->nremoved = b - a;
	}
	e.start_byte = a;
	e.old_end_byte = b;
	e.new_end_byte = a + n;
	e.start_point = point_at(&d->text, a);
	e.old_end_point = point_at(&d->text, b);
	buf_append(&next, d->text.data, a);
	buf_append(&next, ins, n);
	buf_append(&next, d->text.data + b, d->text.len - b);
	if (!next.data)
		buf_puts(&next, "");
	buf_free(&d->text);
	d->text = next;
	e.new_end_point = point_at(&d->text, a + n);
	if (d->tree)
		ts_tree_edit(d->tree, &e);
	buf_free(&wide);
}

/* Makes one random change to d's text; appends it to changes. */
static void random_change(Doc *d, cJSON *changes)
{
	const Buf *t = &d->text;
	uint32_t a = random_offset(t), b = a, kind = rnd(10);
	Buf ins = {0};

	if (kind < 4 || (t->len > TEXT_SOFT_MAX && kind < 8)) {
		b = a + 1 + rnd(kind < 2 ? 8 : 60); /* delete or replace */
		if (b > t->len)
			b = (uint32_t)t->len;
		while (!valid_offset(t, b))
			b++;
	}
	if (kind >= 2 || b == a)
		random_text(&ins);
	change_model(d, a, b, ins.data ? ins.data : "", (uint32_t)ins.len,
		     changes, true);
	buf_free(&ins);
}

/* The server reparses once per didChange, after all its changes. */
static void reparse_replica(Doc *d)
{
	TSTree *t = chunker_parse(d->chunker, d->lang, d->text.data,
				  (uint32_t)d->text.len, d->tree);

	if (d->tree)
		ts_tree_delete(d->tree);
	d->tree = t;
}

/* ---------------------------------------------------------------------- *
 * Talking to the server
 * ---------------------------------------------------------------------- */

static cJSON *doc_param(const char *uri)
{
	cJSON *p = cJSON_CreateObject();

	cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "textDocument"),
				"uri", uri);
	return p;
}

static void open_doc(LspClient *c, const char *uri, const Doc *d)
{
	cJSON *p = cJSON_CreateObject(), *td;

	td = cJSON_AddObjectToObject(p, "textDocument");
	cJSON_AddStringToObject(td, "uri", uri);
	cJSON_AddStringToObject(td, "languageId", d->language);
	cJSON_AddNumberToObject(td, "version", 1);
	cJSON_AddStringToObject(td, "text", d->text.data);
	lsp_client_notify(c, "textDocument/didOpen", p);
}

/* The result of method for uri, or NULL (with a failure) when the
 * request fails. The caller deletes it. */
static cJSON *result_of(LspClient *c, const char *method, const char *uri)
{
	cJSON *r = lsp_client_call(c, method, doc_param(uri), LSP_TIMEOUT_MS);
	cJSON *res = cJSON_DetachItemFromObjectCaseSensitive(r, "result");

	CHECK_(res != NULL, (void)0, "%s %s: no result", method, uri);
	cJSON_Delete(r);
	return res;
}

/* Prints where two JSON values first differ: the first differing element
 * of arrays (recursively), or both values. */
static void print_json_diff(const char *what, const cJSON *a, const cJSON *b)
{
	char *x, *y;

	while (cJSON_IsObject(a) && cJSON_IsObject(b) &&
	       cJSON_GetObjectItemCaseSensitive(a, "chunks"))
		a = cJSON_GetObjectItemCaseSensitive(a, "chunks"),
		b = cJSON_GetObjectItemCaseSensitive(b, "chunks");
	if (cJSON_IsArray(a) && cJSON_IsArray(b)) {
		const cJSON *p = a->child, *q = b->child;
		int i = 0;

		while (p && q && cJSON_Compare(p, q, true))
			p = p->next, q = q->next, i++;
		fprintf(stderr,
			"%s: %d and %d elements, first difference at "
			"[%d]\n",
			what, cJSON_GetArraySize(a), cJSON_GetArraySize(b), i);
		a = p;
		b = q;
	}
	x = a ? cJSON_PrintUnformatted(a) : NULL;
	y = b ? cJSON_PrintUnformatted(b) : NULL;
	fprintf(stderr, "  edited: %.2000s\n  fresh:  %.2000s\n",
		x ? x : "(none)", y ? y : "(none)");
	cJSON_free(x);
	cJSON_free(y);
}

/* The model text chunked in process over tree (NULL: a fresh parse), as
 * castls/chunks would show it. *out is the caller's to chunking_close. */
static cJSON *expected_chunks(const Doc *d, const TSTree *tree, Chunking *out)
{
	cJSON *arr = cJSON_CreateArray();
	int err = chunker_run(d->chunker, d->lang, d->text.data,
			      (uint32_t)d->text.len, tree, out);

	if (err) {
		test_fail(__FILE__, __LINE__, "chunker_run: %s",
			  castls_strerror(err));
		return arr;
	}
	for (uint32_t i = 0; i < out->nchunks; i++) {
		const Chunk *k = &out->chunks[i];
		cJSON *o = cJSON_CreateObject(), *r;

		r = cJSON_AddObjectToObject(o, "range");
		cJSON_AddItemToObject(r, "start",
				      position_json(&d->text, k->bytes.start));
		cJSON_AddItemToObject(r, "end",
				      position_json(&d->text, k->bytes.end));
		cJSON_AddStringToObject(o, "kind", chunk_kind_name(k->kind));
		cJSON_AddStringToObject(
		    o, "symbol",
		    k->span >= 0 ? out->spans[k->span].qualname : "");
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

/* castls/chunks without the members the in-process view lacks. */
static cJSON *comparable_chunks(const cJSON *res)
{
	cJSON *arr = cJSON_CreateArray();
	const cJSON *k;

	cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(res, "chunks"))
	{
		cJSON *o = cJSON_CreateObject();

		cJSON_AddItemToObject(
		    o, "range",
		    cJSON_Duplicate(
			cJSON_GetObjectItemCaseSensitive(k, "range"), true));
		cJSON_AddItemToObject(
		    o, "kind",
		    cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(k, "kind"),
				    true));
		cJSON_AddItemToObject(
		    o, "symbol",
		    cJSON_Duplicate(
			cJSON_GetObjectItemCaseSensitive(k, "symbol"), true));
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

/* The chunks rows of rel in the database equal c over text. Returns
 * false with why set when not (yet). */
static bool index_matches(const char *db_path, const char *rel, const Doc *d,
			  const Chunking *c, char *why, size_t cap)
{
	static const char sql[] =
	    "SELECT c.start_byte, c.end_byte, c.kind, c.text FROM chunks c"
	    " JOIN files f ON f.id = c.file_id WHERE f.path = ?1"
	    " ORDER BY c.start_byte";
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	uint32_t i = 0;
	bool ok = true;

	snprintf(why, cap, "no database");
	if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) !=
		SQLITE_OK ||
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		snprintf(why, cap, "database: %s", sqlite3_errmsg(db));
		sqlite3_finalize(st);
		sqlite3_close(db);
		return false;
	}
	sqlite3_busy_timeout(db, 1000);
	sqlite3_bind_text(st, 1, rel, -1, SQLITE_STATIC);
	while (ok && sqlite3_step(st) == SQLITE_ROW) {
		uint32_t a = (uint32_t)sqlite3_column_int64(st, 0);
		uint32_t b = (uint32_t)sqlite3_column_int64(st, 1);
		const char *kind = (const char *)sqlite3_column_text(st, 2);
		const char *text = (const char *)sqlite3_column_blob(st, 3);
		int n = sqlite3_column_bytes(st, 3);
		const Chunk *k = i < c->nchunks ? &c->chunks[i] : NULL;

		if (!k) {
			snprintf(why, cap, "more rows than chunks (%u)",
				 c->nchunks);
			ok = false;
		} else if (a != k->bytes.start || b != k->bytes.end ||
			   strcmp(kind, chunk_kind_name(k->kind)) != 0 ||
			   (uint32_t)n != b - a ||
			   (n && memcmp(text, d->text.data + a, (size_t)n))) {
			snprintf(why, cap,
				 "row %u: [%u, %u) %s, expected [%u, %u) %s"
				 "%s",
				 i, a, b, kind, k->bytes.start, k->bytes.end,
				 chunk_kind_name(k->kind),
				 (uint32_t)n == b - a ? "" : " (text length)");
			ok = false;
		}
		i++;
	}
	if (ok && i != c->nchunks) {
		snprintf(why, cap, "%u rows, expected %u chunks", i,
			 c->nchunks);
		ok = false;
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return ok;
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* True when a fresh parse of the model text finds syntax errors. */
static bool text_has_errors(Doc *d)
{
	TSTree *t = chunker_parse(d->chunker, d->lang, d->text.data,
				  (uint32_t)d->text.len, NULL);
	bool err = t && ts_node_has_error(ts_tree_root_node(t));

	if (t)
		ts_tree_delete(t);
	return err;
}

/* The edited document against a fresh one of the same text. A difference
 * fails when strict or when the text has no syntax errors; otherwise it
 * is counted. */
static bool check_fresh(LspClient *c, Doc *d, const cJSON *live,
			const cJSON *syms_live, bool strict, int edits)
{
	cJSON *fresh, *syms_fresh;
	bool same, ok = true;

	open_doc(c, d->fresh_uri, d);
	fresh = result_of(c, "castls/chunks", d->fresh_uri);
	syms_fresh = result_of(c, "textDocument/documentSymbol", d->fresh_uri);
	lsp_client_notify(c, "textDocument/didClose", doc_param(d->fresh_uri));
	same = cJSON_Compare(cJSON_GetObjectItemCaseSensitive(live, "chunks"),
			     cJSON_GetObjectItemCaseSensitive(fresh, "chunks"),
			     true) &&
	       cJSON_Compare(syms_live, syms_fresh, true);
	if (!same && !strict && text_has_errors(d)) {
		d->diverged++;
	} else if (!same) {
		print_json_diff("castls/chunks", live, fresh);
		print_json_diff("documentSymbol", syms_live, syms_fresh);
		ok = test_fail(__FILE__, __LINE__,
			       "%s after %d edits: the edited document differs "
			       "from a fresh one of the same text",
			       d->name, edits);
	}
	cJSON_Delete(fresh);
	cJSON_Delete(syms_fresh);
	return ok;
}

/* The index rows reach the chunking ch of the model text. */
static bool check_index(Doc *d, const char *db, const Chunking *ch, int edits)
{
	long long deadline = now_ms() + INDEX_WAIT_MS;
	char why[512];

	while (!index_matches(db, d->rel, d, ch, why, sizeof(why))) {
		if (now_ms() > deadline)
			return test_fail(__FILE__, __LINE__,
					 "%s after %d edits: index rows: %s",
					 d->name, edits, why);
		usleep(POLL_MS * 1000);
	}
	return true;
}

/* One consistency check; false on a mismatch (already reported). */
static bool check_doc(LspClient *c, Doc *d, const char *db, int edits,
		      bool strict)
{
	cJSON *live = result_of(c, "castls/chunks", d->uri);
	cJSON *syms = result_of(c, "textDocument/documentSymbol", d->uri);
	cJSON *want, *got;
	Chunking ch = {0};
	bool ok = live && syms;

	d->checks++;
	want = expected_chunks(d, d->tree, &ch);
	got = comparable_chunks(live);
	if (ok && !cJSON_Compare(want, got, true)) {
		print_json_diff("chunks vs the in-process replica", got, want);
		ok = test_fail(__FILE__, __LINE__,
			       "%s after %d edits: the server's chunks are not "
			       "those of the model text and the same edits",
			       d->name, edits);
	}
	ok = ok && check_fresh(c, d, live, syms, strict, edits);
	ok = ok && check_index(d, db, &ch, edits);
	chunking_close(&ch);
	cJSON_Delete(want);
	cJSON_Delete(got);
	cJSON_Delete(live);
	cJSON_Delete(syms);
	return ok;
}

static void send_changes(LspClient *c, Doc *d, cJSON *changes)
{
	cJSON *p = cJSON_CreateObject(), *td;

	td = cJSON_AddObjectToObject(p, "textDocument");
	cJSON_AddStringToObject(td, "uri", d->uri);
	cJSON_AddNumberToObject(td, "version", ++d->version);
	cJSON_AddItemToObject(p, "contentChanges", changes);
	lsp_client_notify(c, "textDocument/didChange", p);
	reparse_replica(d);
}

/* Undoes up to k recorded edits (newest first) in one didChange. */
static int undo_some(LspClient *c, Doc *d, int k)
{
	cJSON *changes = cJSON_CreateArray();
	int n = 0;

	for (; n < k && d->nundo; n++) {
		Undo *u = &d->undo[--d->nundo];

		change_model(d, u->at, u->at + u->inserted, u->removed,
			     u->nremoved, changes, false);
		xfree(u->removed);
	}
	send_changes(c, d, changes);
	return n;
}

/* Closes d with its edits unsaved: the index goes back to the file on
 * disk, the text d started from. The server reparses the buffer's tree
 * edited to the disk text; the rows must be those of a fresh parse. */
static bool check_closed(LspClient *c, Doc *d, const char *db, int edits)
{
	Buf edited = d->text;
	Chunking ch = {0};
	TSTree *t;
	bool ok;

	lsp_client_notify(c, "textDocument/didClose", doc_param(d->uri));
	d->text = d->original;
	t = chunker_parse(d->chunker, d->lang, d->text.data,
			  (uint32_t)d->text.len, NULL);
	ok = chunker_run(d->chunker, d->lang, d->text.data,
			 (uint32_t)d->text.len, t, &ch) == 0 &&
	     check_index(d, db, &ch, edits);
	d->text = edited;
	chunking_close(&ch);
	ts_tree_delete(t);
	return ok;
}

/* Runs n random edits on d, checking after every batch; closes it
 * unsaved and opens it again; undoes them all; then closes it with one
 * edit unsaved. */
static bool edit_doc(LspClient *c, Doc *d, const char *db, int n)
{
	int done = 0;
	cJSON *changes;

	open_doc(c, d->uri, d);
	d->tree = chunker_parse(d->chunker, d->lang, d->text.data,
				(uint32_t)d->text.len, NULL);
	if (!check_doc(c, d, db, 0, true))
		return false;
	while (done < n) {
		for (int b = 0; b < BATCH && done < n; b++) {
			changes = cJSON_CreateArray();
			int k = 1 + (int)rnd(3);

			for (int i = 0; i < k; i++, done++)
				random_change(d, changes);
			send_changes(c, d, changes);
		}
		if (!check_doc(c, d, db, done, false))
			return false;
	}
	if (!check_closed(c, d, db, done))
		return false;
	open_doc(c, d->uri, d);
	while (d->nundo)
		done += undo_some(c, d, 1 + (int)rnd(12));
	CHECK_(d->text.len == d->original.len &&
		   memcmp(d->text.data, d->original.data, d->text.len) == 0,
	       return false, "%s: undoing every edit did not restore the text",
	       d->name);
	if (!check_doc(c, d, db, done, true))
		return false;
	/* One edit left unsaved: closing reparses around it alone. */
	changes = cJSON_CreateArray();
	random_change(d, changes);
	send_changes(c, d, changes);
	return check_doc(c, d, db, done + 1, false) &&
	       check_closed(c, d, db, done + 1);
}

/* ---------------------------------------------------------------------- *
 * The test
 * ---------------------------------------------------------------------- */

static char *join(const char *dir, const char *rel)
{
	Buf b = {0};

	buf_printf(&b, "%s/%s", dir, rel);
	return buf_take(&b);
}

static void doc_init(Doc *d, const char *root, const char *rel,
		     const char *language, const char *const *fixtures)
{
	char *path = join(root, rel);
	Buf fresh = {0};

	d->rel = rel;
	d->name = rel;
	d->language = language;
	d->lang = lang_from_name(language);
	d->uri = lsp_path_uri(path);
	buf_printf(&fresh, "untitled:fresh-%s", rel);
	d->fresh_uri = buf_take(&fresh);
	for (int i = 0; fixtures[i]; i++) {
		size_t n;
		char *t = test_read_fixture(fixtures[i], &n);

		buf_append(&d->text, t, n);
		free(t);
	}
	buf_append(&d->original, d->text.data, d->text.len);
	d->chunker = chunker_new(MAX_CHUNK);
	/* The file exists on disk as well, as in an editor. */
	lsp_write_file(path, d->text.data, d->text.len);
	xfree(path);
}

static void doc_free(Doc *d)
{
	xfree(d->uri);
	xfree(d->fresh_uri);
	buf_free(&d->text);
	buf_free(&d->original);
	while (d->nundo)
		xfree(d->undo[--d->nundo].removed);
	xfree(d->undo);
	if (d->tree)
		ts_tree_delete(d->tree);
	chunker_delete(d->chunker);
}

/* Whether the server, once idle, leaves no level of the full-text index
 * with FTS_MERGE_MIN (4) segments: its writes merge nothing themselves,
 * and a merge job runs between them. Polled for up to INDEX_WAIT_MS. */
static bool segments_merged(const char *db_path)
{
	long long until = now_ms() + INDEX_WAIT_MS;
	FtsSegments s = {0};
	sqlite3 *db = NULL;
	bool ok = false;

	if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) ==
	    SQLITE_OK) {
		sqlite3_busy_timeout(db, 1000);
		while (!(ok = fts_segments(db, &s) && s.merging == 0 &&
			      fts_fullest_level(&s) < 4) &&
		       now_ms() < until)
			usleep(POLL_MS * 1000);
	}
	sqlite3_close(db);
	if (!ok)
		fprintf(stderr,
			"full-text segments: %d on %d levels, %d on"
			" the fullest, %d merging\n",
			s.n, s.levels, fts_fullest_level(&s), s.merging);
	return ok;
}

/* Types one character at a time, each keystroke written before the next
 * (the writes after most of them make only the chunks again, keeping the
 * spans: chunker_rerun); the index rows stay a fresh parse's. */
TEST(keystrokes_one_at_a_time_keep_fresh_rows)
{
	static const char *const py[] = {"python/class_split.py",
					 "python/big_function.py", NULL};
	char *scratch = lsp_scratch_new("keys"), *root, *db;
	LspClient *c;
	Doc d = {0};
	bool ok;

	ASSERT_TRUE(scratch != NULL);
	rng_state = 20261129;
	root = join(scratch, "ws");
	db = join(scratch, "index.db");
	mkdir(root, 0755);
	doc_init(&d, root, "keys.py", "python", py);
	c = lsp_client_ready(scratch, root, db, MAX_CHUNK);
	CHECK_(c != NULL, goto out, "the server did not start up");
	open_doc(c, d.uri, &d);
	d.tree = chunker_parse(d.chunker, d.lang, d.text.data,
			       (uint32_t)d.text.len, NULL);
	ok = check_doc(c, &d, db, 0, true);
	for (int i = 1; ok && i <= 80; i++) {
		cJSON *changes = cJSON_CreateArray();
		uint32_t a = random_offset(&d.text);

		/* An insertion, then its deletion: the text stays near the
		 * fixture's, with its docstrings, strings and names. */
		if (i % 2)
			change_model(&d, a, a, "x", 1, changes, true);
		else
			change_model(&d, d.undo[d.nundo - 1].at,
				     d.undo[d.nundo - 1].at + 1, "", 0,
				     changes, false);
		send_changes(c, &d, changes);
		ok = check_doc(c, &d, db, i, false);
	}
	lsp_client_request(c, "shutdown", NULL);
	lsp_client_notify(c, "exit", NULL);
	EXPECT_INT_EQ(lsp_client_wait_exit(c, LSP_TIMEOUT_MS), 0);
	CHECK_(!lsp_client_sanitizer_report(c), (void)0,
	       "sanitizer report:\n%s", lsp_client_stderr(c));
out:
	lsp_client_delete(c);
	doc_free(&d);
	xfree(root);
	xfree(db);
	lsp_scratch_remove(scratch);
}

TEST(edits_random_match_fresh_parse)
{
	static const char *const py[] = {"python/class_split.py",
					 "python/big_function.py", NULL};
	static const char *const ts[] = {"typescript/shapes.ts", NULL};
	const char *env_seed = getenv("CASTLS_EDIT_SEED");
	const char *env_n = getenv("CASTLS_EDITS");
	uint64_t seed = env_seed ? strtoull(env_seed, NULL, 0) : 20240611;
	int n = env_n ? atoi(env_n) : EDITS_DEFAULT;
	char *scratch = lsp_scratch_new("edits"), *root, *db;
	LspClient *c;
	Doc docs[2] = {{0}};
	long long t0 = now_ms();

	ASSERT_TRUE(scratch != NULL);
	rng_state = seed ? seed : 1;
	root = join(scratch, "ws");
	db = join(scratch, "index.db");
	mkdir(root, 0755);
	doc_init(&docs[0], root, "edit.py", "python", py);
	doc_init(&docs[1], root, "edit.ts", "typescript", ts);
	c = lsp_client_ready(scratch, root, db, MAX_CHUNK);
	CHECK_(c != NULL, goto out, "the server did not start up");
	for (int i = 0; i < 2; i++)
		if (!edit_doc(c, &docs[i], db, n)) {
			fprintf(stderr,
				"seed %llu (CASTLS_EDIT_SEED to replay); "
				"model text:\n%s\n",
				(unsigned long long)seed, docs[i].text.data);
			break;
		}
	/* Thousands of writes, each a segment or two. */
	EXPECT_TRUE(segments_merged(db));
	lsp_client_request(c, "shutdown", NULL);
	lsp_client_notify(c, "exit", NULL);
	EXPECT_INT_EQ(lsp_client_wait_exit(c, LSP_TIMEOUT_MS), 0);
	CHECK_(!lsp_client_sanitizer_report(c), (void)0,
	       "sanitizer report:\n%s", lsp_client_stderr(c));
	CHECK_(!lsp_client_output_error(c), (void)0, "bad output: %s",
	       lsp_client_output_error(c));
	for (int i = 0; i < 2; i++)
		fprintf(stderr,
			"%s: %d edits, %d checks, %d with syntax errors "
			"where a fresh parse chunks differently\n",
			docs[i].name, n, docs[i].checks, docs[i].diverged);
	fprintf(stderr, "seed %llu, %lld ms\n", (unsigned long long)seed,
		now_ms() - t0);
out:
	lsp_client_delete(c);
	for (int i = 0; i < 2; i++)
		doc_free(&docs[i]);
	xfree(root);
	xfree(db);
	lsp_scratch_remove(scratch);
}
