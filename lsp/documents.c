/*
 * documents.c: open documents. The loop applies each edit to the text and
 * records what changed as tree-sitter edits; it does not parse. The index
 * write, at most one per document at a time, runs on a worker thread from
 * a snapshot: it replays the recorded edits on a copy of the document's
 * last tree (ts_tree_edit), reparses incrementally with its own parser,
 * chunks and writes the rows. Back on the loop the new tree becomes the
 * document's, and the edits it covers are dropped. A request that needs
 * the tree before then gets it reparsed on the loop (lsp__doc_find).
 *
 * A closed document's text and tree are kept a while: the refresh that
 * puts the disk version back in the index edits that tree to the disk
 * text, and opening the file again starts from it, so neither parses the
 * whole file again.
 *
 * Trees change hands only by ts_tree_copy: the loop keeps its tree, a
 * worker edits and parses its own copy, and the loop adopts the worker's
 * result; a TSParser never leaves the Chunker of the thread using it.
 */
#include "server_int.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* ---------------------------------------------------------------------- *
 * Positions
 * ---------------------------------------------------------------------- */

uint32_t lsp__doc_offset(const Server *s, const Document *d, const cJSON *pos)
{
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(pos, "line");
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(pos, "character");
	double line = cJSON_IsNumber(l) ? l->valuedouble : 0;
	double col = cJSON_IsNumber(c) ? c->valuedouble : 0;

	line = line < 0 ? 0 : line > UINT32_MAX ? UINT32_MAX : line;
	col = col < 0 ? 0 : col > UINT32_MAX ? UINT32_MAX : col;
	return position_to_byte(&d->lines, d->text.data, d->text.len,
				s->encoding, (uint32_t)line, (uint32_t)col);
}

cJSON *lsp__doc_position(const Server *s, const Document *d, uint32_t off)
{
	uint32_t line, col;
	cJSON *p = cJSON_CreateObject();

	position_from_byte(&d->lines, d->text.data, d->text.len, s->encoding,
			   off, &line, &col);
	cJSON_AddNumberToObject(p, "line", line);
	cJSON_AddNumberToObject(p, "character", col);
	return p;
}

/* tree-sitter's point for byte off of text, on row row: rows end at
 * '\n', columns are bytes. */
static TSPoint point_on(const char *text, uint32_t off, uint32_t row)
{
	uint32_t line_start = off;

	while (line_start && text[line_start - 1] != '\n')
		line_start--;
	return (TSPoint){row, off - line_start};
}

static TSPoint point_at(const char *text, uint32_t off)
{
	return point_on(text, off, castls_count_newlines(text, off));
}

/* The point of byte off of d's text, its row counted from d's mark,
 * which the last edit left beside the next one. */
static TSPoint doc_point(const Document *d, uint32_t off)
{
	return point_on(
	    d->text.data, off,
	    position_ts_row(d->text.data, off, d->mark, d->mark_row));
}

/* The one edit that turns text a into text b: what lies between their
 * common prefix and suffix. False when they are the same. Two versions of
 * a file usually differ in one stretch (a function body rewritten, a few
 * unsaved edits), so a tree of a, edited so, reparses b incrementally. */
static bool text_edit(const char *a, uint32_t na, const char *b, uint32_t nb,
		      TSInputEdit *e)
{
	uint32_t pre = 0, suf = 0;

	while (pre < na && pre < nb && a[pre] == b[pre])
		pre++;
	if (pre == na && na == nb)
		return false;
	while (suf < na - pre && suf < nb - pre &&
	       a[na - 1 - suf] == b[nb - 1 - suf])
		suf++;
	/* Whole characters on both sides, as an editor's edits are. */
	while (pre > 0 && pre < na && !utf8_is_lead((unsigned char)a[pre]))
		pre--;
	while (suf > 0 && !utf8_is_lead((unsigned char)a[na - suf]))
		suf--;
	memset(e, 0, sizeof(*e));
	e->start_byte = pre;
	e->old_end_byte = na - suf;
	e->new_end_byte = nb - suf;
	e->start_point = point_at(a, e->start_byte);
	e->old_end_point = point_at(a, e->old_end_byte);
	e->new_end_point = point_at(b, e->new_end_byte);
	return true;
}

/* ---------------------------------------------------------------------- *
 * Syntax trees
 * ---------------------------------------------------------------------- */

/* Documents up to this size keep their tree (the largest the chunker
 * parses): a request on a large buffer, one over maxFileSize among them,
 * would otherwise parse all of it again, some 100 ms a MB. */
#define DOC_TREE_MAX CHUNKER_PARSE_MAX
/* The loop parses a document from scratch up to this size only: a first
 * parse of a few MB would delay other requests. A larger one gets its
 * first tree from a worker (its index write, or a request's own parse),
 * and after that the loop only reparses it incrementally. */
#define LOOP_PARSE_MAX (512u * 1024u)
/* Recorded edits at most; past it the next parse starts from scratch. */
#define DOC_EDITS_MAX 4096u
/* Parses given up in a row before a write must finish its parse. */
#define STOPS_MAX 2u
/* Recently closed documents whose last text and tree are kept (the disk
 * text's, once the refresh after didClose has parsed it), so that opening
 * one again reparses incrementally. */
#define CLOSED_MAX 4

/* True when d's tree is a parse of its text as it is now. */
static bool tree_current(const Document *d)
{
	return d->tree && d->tree_gen == d->generation;
}

static bool keeps_tree(const Document *d)
{
	return chunker_language(d->lang) && d->text.len <= DOC_TREE_MAX;
}

/* Frees a document's or a write's carried rows. */
static void rows_free(Chunking **rows)
{
	chunking_close(*rows);
	xfree(*rows);
	*rows = NULL;
}

/* Forgets the tree and the edits: the next parse starts from scratch,
 * and no tree of an earlier generation may be adopted. */
static void tree_reset(Document *d)
{
	if (d->tree)
		ts_tree_delete(d->tree);
	d->tree = NULL;
	rows_free(&d->rows);
	d->nedits = 0;
	d->reset_gen = d->generation;
}

/* Drops the recorded edits up to generation upto (the tree has them). */
static void edits_drop(Document *d, uint64_t upto)
{
	uint32_t k = 0;

	while (k < d->nedits && d->edits[k].generation <= upto)
		k++;
	if (k == 0)
		return;
	memmove(d->edits, d->edits + k, (d->nedits - k) * sizeof(*d->edits));
	d->nedits -= k;
}

/* Records e, made by the change that brings d to generation gen; false
 * when the list is full. */
static bool edit_record(Document *d, const TSInputEdit *e, uint64_t gen)
{
	if (d->nedits == DOC_EDITS_MAX)
		return false;
	if (d->nedits == d->edits_cap) {
		d->edits_cap = d->edits_cap ? d->edits_cap * 2 : 16;
		d->edits = xrealloc(d->edits, d->edits_cap * sizeof(*d->edits));
	}
	d->edits[d->nedits].edit = *e;
	d->edits[d->nedits++].generation = gen;
	return true;
}

/* Brings d->tree up to date with d->text on the loop: the recorded edits
 * on the tree, then an incremental reparse (or a first parse, of a small
 * document; a large one stays without a tree, the edits kept for the
 * tree a worker will offer). */
static void tree_refresh(Server *s, Document *d)
{
	Chunker *ch;
	TSTree *t;

	if (tree_current(d))
		return;
	if (!keeps_tree(d)) {
		tree_reset(d);
		return;
	}
	if (!d->tree && d->text.len > LOOP_PARSE_MAX)
		return;
	for (uint32_t i = 0; d->tree && i < d->nedits; i++)
		ts_tree_edit(d->tree, &d->edits[i].edit);
	ch = lsp__pools_chunker(&s->pools);
	t = chunker_parse(ch, d->lang, d->text.data ? d->text.data : "",
			  (uint32_t)d->text.len, d->tree);
	lsp__pools_chunker_return(&s->pools, ch);
	if (d->tree)
		ts_tree_delete(d->tree);
	d->tree = t;
	d->tree_gen = d->generation;
	d->nedits = 0;
}

/* Takes tree, a parse of d's text as of generation gen made by a worker,
 * when it is newer than d's own; otherwise frees it. */
static void tree_adopt(Document *d, TSTree *tree, uint64_t gen)
{
	if (!keeps_tree(d) || gen < d->reset_gen ||
	    (d->tree && gen <= d->tree_gen)) {
		ts_tree_delete(tree);
		return;
	}
	if (d->tree)
		ts_tree_delete(d->tree);
	d->tree = tree;
	d->tree_gen = gen;
	edits_drop(d, gen);
}

/* ---------------------------------------------------------------------- *
 * The document list
 * ---------------------------------------------------------------------- */

static Document *find(Server *s, const char *uri)
{
	for (Document *d = s->docs; d && uri; d = d->next)
		if (strcmp(d->uri, uri) == 0)
			return d;
	return NULL;
}

Document *lsp__doc_find(Server *s, const char *uri)
{
	Document *d = find(s, uri);

	if (d)
		tree_refresh(s, d);
	return d;
}

void lsp__doc_offer_tree(Server *s, const char *uri, uint64_t serial,
			 uint64_t gen, TSTree *tree)
{
	Document *d = find(s, uri);

	if (d && d->serial == serial)
		tree_adopt(d, tree, gen);
	else
		ts_tree_delete(tree);
}

void lsp__doc_free(Document *d)
{
	if (!d)
		return;
	xfree(d->uri);
	xfree(d->path);
	xfree(d->rel);
	buf_free(&d->text);
	line_index_free(&d->lines);
	if (d->tree)
		ts_tree_delete(d->tree);
	rows_free(&d->rows);
	xfree(d->edits);
	xfree(d);
}

static const char *text_of(const cJSON *o, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

/* Takes the kept tree of uri out of the closed list, or NULL. */
static Document *closed_take(Server *s, const char *uri)
{
	for (Document **p = &s->closed; *p; p = &(*p)->next)
		if (strcmp((*p)->uri, uri) == 0) {
			Document *c = *p;

			*p = c->next;
			return c;
		}
	return NULL;
}

/* Frees the documents of the list from *p on, and ends it there. */
static void docs_free_from(Document **p)
{
	while (*p) {
		Document *c = *p;

		*p = c->next;
		lsp__doc_free(c);
	}
}

/* Keeps text, parsed as tree, for uri in place of what was kept of it;
 * takes both. The oldest beyond CLOSED_MAX go. */
static void closed_keep(Server *s, const char *uri, Lang lang, char **text,
			uint32_t len, TSTree **tree)
{
	Document *c = closed_take(s, uri), **p;
	int n = 0;

	lsp__doc_free(c);
	c = xcalloc(1, sizeof(*c));
	c->uri = xstrdup(uri);
	c->lang = lang;
	c->text = (Buf){*text, len, len + 1};
	c->tree = *tree;
	*text = NULL;
	*tree = NULL;
	c->next = s->closed;
	s->closed = c;
	for (p = &s->closed; *p && ++n <= CLOSED_MAX; p = &(*p)->next)
		;
	docs_free_from(p);
}

void lsp__doc_closed_free(Server *s) { docs_free_from(&s->closed); }

/* A document opened again starts from the tree kept at its close, edited
 * to the text it opens with. */
static void reuse_closed(Server *s, Document *d)
{
	Document *c = keeps_tree(d) ? closed_take(s, d->uri) : NULL;
	TSInputEdit e;

	if (!c)
		return;
	if (c->lang == d->lang) {
		d->tree = c->tree;
		c->tree = NULL;
		d->tree_gen = d->generation;
		if (text_edit(c->text.data ? c->text.data : "",
			      (uint32_t)c->text.len,
			      d->text.data ? d->text.data : "",
			      (uint32_t)d->text.len, &e)) {
			d->tree_gen = d->generation - 1;
			edit_record(d, &e, d->generation);
		}
	}
	lsp__doc_free(c);
}

/* Numbers every opening of a document (the loop's only). */
static uint64_t serials;

void lsp__doc_open(Server *s, const cJSON *params)
{
	const cJSON *td =
	    cJSON_GetObjectItemCaseSensitive(params, "textDocument");
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(td, "version");
	const char *uri = text_of(td, "uri"), *text = text_of(td, "text");
	const char *rel = NULL;
	Lang lang = lang_from_name(text_of(td, "languageId"));
	char *named;
	Document *d;

	if (!uri || !text) {
		lsp__log(s, 1, "didOpen without uri or text");
		return;
	}
	if ((d = find(s, uri))) { /* reopened: start over */
		Document **p = &s->docs;

		while (*p != d)
			p = &(*p)->next;
		*p = d->next;
		lsp__doc_free(d);
	}
	d = xcalloc(1, sizeof(*d));
	d->uri = xstrdup(uri);
	named = lsp__uri_to_path(uri);
	/* The rows of a file go under its one real name inside a root, so
	 * "./", "//", "x/../" or a symlink neither adds a second copy nor
	 * leads out of the root. Outside every root a document lives in
	 * its buffer only: never written to the index, never read back
	 * from disk. */
	d->path = named ? lsp__path_real(named) : NULL;
	d->root = d->path ? lsp__root_of_path(s, d->path, &rel) : -1;
	d->rel = d->root >= 0 ? xstrdup(rel) : NULL;
	d->version = cJSON_IsNumber(ver) ? ver->valueint : 0;
	buf_puts(&d->text, text);
	d->lang = lang_of_document(lang, named ? named : uri, d->text.data,
				   d->text.len);
	xfree(named);
	line_index_build(&d->lines, d->text.data, d->text.len);
	/* No parse here: the first index write parses on a worker. */
	d->serial = ++serials;
	d->generation = 1;
	d->reset_gen = 1;
	reuse_closed(s, d);
	d->next = s->docs;
	s->docs = d;
	lsp__doc_schedule_write(s, d);
}

/* Applies one contentChange, which brings d to generation gen, and
 * records it for the tree; returns false when it was malformed. *reset is
 * set when the tree must be parsed from scratch. */
static bool apply_change(Server *s, Document *d, const cJSON *c, uint64_t gen,
			 bool *reset)
{
	const cJSON *range = cJSON_GetObjectItemCaseSensitive(c, "range");
	const char *text = text_of(c, "text");
	uint32_t a, b, n;
	TSInputEdit e;

	if (!text)
		return false;
	n = (uint32_t)strlen(text);
	if (!cJSON_IsObject(range)) { /* the whole document */
		buf_free(&d->text);
		buf_puts(&d->text, text);
		line_index_free(&d->lines);
		line_index_build(&d->lines, d->text.data, d->text.len);
		d->mark = d->mark_row = 0;
		*reset = true;
		return true;
	}
	a = lsp__doc_offset(s, d,
			    cJSON_GetObjectItemCaseSensitive(range, "start"));
	b = lsp__doc_offset(s, d,
			    cJSON_GetObjectItemCaseSensitive(range, "end"));
	if (b < a)
		b = a;
	if ((uint64_t)d->text.len - (b - a) + n > CHUNKER_MAX_INPUT)
		return false;
	memset(&e, 0, sizeof(e));
	e.start_byte = a;
	e.old_end_byte = b;
	e.new_end_byte = a + n;
	e.start_point = doc_point(d, a);
	e.old_end_point = doc_point(d, b);
	buf_splice(&d->text, a, b - a, text, n);
	if (!d->text.data)
		buf_puts(&d->text, "");
	d->mark = a;
	d->mark_row = e.start_point.row;
	e.new_end_point = doc_point(d, a + n);
	line_index_update(&d->lines, d->text.data, d->text.len, a, b, a + n);
	if (!*reset && !edit_record(d, &e, gen))
		*reset = true;
	return true;
}

void lsp__doc_change(Server *s, const cJSON *params)
{
	const cJSON *td =
	    cJSON_GetObjectItemCaseSensitive(params, "textDocument");
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(td, "version");
	const cJSON *changes, *c;
	Document *d = find(s, text_of(td, "uri"));
	bool reset = false;

	if (!d) {
		lsp__log(s, 1, "didChange for a document that is not open: %s",
			 text_of(td, "uri") ? text_of(td, "uri") : "(no uri)");
		return;
	}
	changes = cJSON_GetObjectItemCaseSensitive(params, "contentChanges");
	cJSON_ArrayForEach(
	    c, changes) if (!apply_change(s, d, c, d->generation + 1, &reset))
	    lsp__log(s, 1, "%s: ignored a malformed change", d->uri);
	if (cJSON_IsNumber(ver))
		d->version = ver->valueint;
	d->generation++;
	if (reset || !keeps_tree(d))
		tree_reset(d);
	/* The write in flight has older text: its rows are committed first,
	 * but a slow parse (error recovery) would hold up this one's. Not
	 * forever, or a fast typist would never see a parse finish. */
	if (d->writing && d->stop && d->stops < STOPS_MAX)
		atomic_store(d->stop, true);
	lsp__doc_schedule_write(s, d);
}

/* ---------------------------------------------------------------------- *
 * Index writes
 * ---------------------------------------------------------------------- */

/* Once a keystroke's rows are in, the rest of its write (the parse and
 * the chunk check) gives the CPU up this often to whatever else is ready
 * to run: the editor, a reader of the rows just committed, a request.
 * Running at a lower priority did not do it: Linux lets a running thread
 * use up its time slice (a few ms) before a thread it woke gets the CPU,
 * and a reader of the rows waited that long in 1-2% of keystrokes. */
#define WRITE_YIELD_NS (100 * 1000)

typedef struct {
	Job job;
	char *uri, *rel;
	uint64_t serial; /* of the document */
	int root;
	Lang lang;
	char *text; /* NULL: read the disk file (after didClose) */
	uint32_t len;
	char *buffer; /* after didClose: the buffer's last text, which
		       * tree is a parse of */
	uint32_t buffer_len;
	TSTree *tree;	    /* a copy of the document's tree, or NULL: parse
			     * from scratch */
	TSInputEdit *edits; /* to replay on tree first */
	uint32_t nedits;
	uint32_t rows_from; /* edits[rows_from..] came after rows */
	Chunking *rows;	    /* the document's rows, taken: carried across
			     * the edits and committed before the parse;
			     * then what this write left in the index */
	uint64_t rows_hash; /* castls_hash of the text rows are of */
	bool chunked;	    /* rows are the chunker's answer for their text */
	bool rerun;	    /* rows were, one edit ago, and tree parses that
			     * text: chunker_rerun may answer */
	uint64_t hash;	    /* castls_hash of text */
	bool rows_written;  /* this write committed rows */
	uint64_t yielded;   /* uv_hrtime of the last write_yield */
	atomic_bool stop;   /* set by the loop: a newer text waits */
	bool stopped;	    /* gave up for a newer text: the parse, or
			     * the rows after it */
	TSTree *parsed;	    /* the tree of text: a copy of the document's
			     * when it was up to date, else made here and
			     * offered back to the document */
	uint64_t generation;
	uint64_t max_file; /* for disk reads */
	int err;
	IndexDelta delta;
	bool checkpoint; /* the log has grown: checkpoint it */
	bool refresh;	 /* puts back rows a scan replaced with the disk's:
			  * the index held this text before, requests need
			  * not wait for it */
} WriteJob;

/* A checkpoint of a root's write-ahead log, off the document writes'
 * queue: it runs beside the next keystroke's write instead of before. */
typedef struct {
	Job job;
	int root;
	int err; /* castls code */
} CheckpointJob;

static void checkpoint_run(Job *j)
{
	CheckpointJob *c = (CheckpointJob *)j;
	Root *r = j->pools->roots[c->root];
	Index *ix = lsp__pools_index(j->pools, r, &c->err);

	if (!ix)
		return;
	c->err = index_checkpoint(ix);
	lsp__pools_index_return(r, ix);
}

static void checkpoint_done(Job *j)
{
	CheckpointJob *c = (CheckpointJob *)j;

	j->pools->roots[c->root]->checkpointing = false;
	/* Busy: another connection (a scan committing) checkpoints the
	 * log now; nothing the user can act on. */
	if (c->err && c->err != CASTLS_EBUSY)
		lsp__log(j->s, 1, "checkpoint of %s: %s",
			 j->pools->roots[c->root]->path,
			 castls_strerror(c->err));
}

static void checkpoint_release(Job *j) { xfree(j); }

static void checkpoint_queue(Server *s, int root)
{
	CheckpointJob *c;

	if (s->pools.roots[root]->checkpointing || s->exiting)
		return;
	c = xcalloc(1, sizeof(*c));
	c->root = root;
	c->job.run = checkpoint_run;
	c->job.done = checkpoint_done;
	c->job.release = checkpoint_release;
	s->pools.roots[root]->checkpointing = true;
	lsp__server_queue(s, &c->job);
}

/* Merges of a root's full-text segments, which its writes leave to
 * index_merge: a job at a time, when no document write is queued, up to
 * MERGE_MS each, in a background thread, stopped at its next step by the
 * next write queued. A write then waits for one step at most. */
#define MERGE_MS 20

typedef struct {
	Job job;
	int root;
	atomic_bool stop;
	bool more; /* merges are left */
	Index *ix;
	int err; /* castls code */
} MergeJob;

static void merge_with(void *arg)
{
	MergeJob *m = arg;

	m->err = index_merge(m->ix, MERGE_MS, &m->stop, &m->more);
}

static void merge_run(Job *j)
{
	MergeJob *m = (MergeJob *)j;
	Root *r = j->pools->roots[m->root];

	if (!(m->ix = lsp__pools_index(j->pools, r, &m->err)))
		return;
	castls_run_in_background(merge_with, m);
	lsp__pools_index_return(r, m->ix);
	m->ix = NULL;
}

static void merge_queue(Server *s, int root);

static void merge_done(Job *j)
{
	MergeJob *m = (MergeJob *)j;
	Root *r = j->pools->roots[m->root];

	r->merge_stop = NULL;
	/* Busy: another connection (a scan) writes; the job after the
	 * next document write merges. */
	if (m->err && m->err != CASTLS_EBUSY)
		lsp__log(j->s, 1, "merging the index of %s: %s", r->path,
			 castls_strerror(m->err));
	else if (!m->err && m->more && !atomic_load(&m->stop))
		merge_queue(j->s, m->root);
}

static void merge_release(Job *j) { xfree(j); }

static void merge_queue(Server *s, int root)
{
	Root *r = s->pools.roots[root];
	MergeJob *m;

	if (r->merge_stop || r->removed || s->exiting)
		return;
	m = xcalloc(1, sizeof(*m));
	m->root = root;
	atomic_init(&m->stop, false);
	m->job.run = merge_run;
	m->job.done = merge_done;
	m->job.release = merge_release;
	r->merge_stop = &m->stop;
	lsp__server_queue(s, &m->job);
}

/* On the worker, before the parse: the last rows carried across the
 * edits since, committed at once. The text is in the index within a row
 * write, however long the parse takes; when the parse agrees, which it
 * does for most keystrokes, there is nothing more to write. */
static void write_carried(WriteJob *w, Index *ix)
{
	uint32_t n = w->nedits - w->rows_from;
	Chunking before = {0};
	int err;

	if (!w->rows)
		return;
	w->rerun = w->chunked && n == 1 && w->nedits == 1 && w->tree;
	w->chunked = false;
	if (n == 1) /* a keystroke: the rows it touches are known */
		chunking_copy_places(w->rows, &before);
	if (n == 0 || chunking_edit(w->rows, w->edits + w->rows_from, n,
				    w->text, w->len)) {
		err = CASTLS_EINVAL;
	} else {
		err = n == 1 ? index_file_edit(ix, w->rel, w->text, w->len,
					       w->hash, &w->edits[w->rows_from],
					       &before, w->rows_hash, w->rows)
			     : CASTLS_EINVAL;
		/* Not one edit, or the index holds other rows. */
		if (err == CASTLS_EINVAL)
			err = index_file_put(ix, w->rel, w->text, w->len,
					     w->rows, NULL);
	}
	chunking_close(&before);
	if (err) {
		rows_free(&w->rows);
		w->rerun = false;
		return;
	}
	w->rows_hash = w->hash;
	w->rows_written = true;
}

/* On the worker, in the work after the rows are in: see
 * WRITE_YIELD_NS. */
static void write_yield(WriteJob *w)
{
	uint64_t now = uv_hrtime();

	if (!w->rows_written || now - w->yielded < WRITE_YIELD_NS)
		return;
	sched_yield();
	w->yielded = now;
}

/* Whether a newer text waits: asked by the parser every so often and
 * between the steps after it, each a moment to yield. */
static bool write_should_stop(void *ctx)
{
	WriteJob *w = ctx;

	write_yield(w);
	return atomic_load_explicit(&w->stop, memory_order_relaxed);
}

/* On the worker: brings the tree copy up to date with the snapshot's
 * text. Only a write whose rows are already in gives up on request. */
static void write_parse(WriteJob *w, Chunker *ch)
{
	for (uint32_t i = 0; w->tree && i < w->nedits; i++)
		ts_tree_edit(w->tree, &w->edits[i]);
	if (w->rows_written)
		w->parsed = chunker_parse_unless(ch, w->lang, w->text, w->len,
						 w->tree, write_should_stop, w);
	else
		w->parsed =
		    chunker_parse(ch, w->lang, w->text, w->len, w->tree);
	w->stopped = w->rows_written && !w->parsed;
}

/* On the worker: the chunker's rows, unless they are those committed
 * already. Takes c. */
static void write_chunking(WriteJob *w, Index *ix, Chunking *c)
{
	if (!w->rows_written || !chunking_equal(w->rows, c))
		w->err =
		    index_file_put(ix, w->rel, w->text, w->len, c, &w->delta);
	rows_free(&w->rows);
	if (w->err == 0) {
		w->rows = xmalloc(sizeof(*w->rows));
		*w->rows = *c;
		w->rows_hash = w->hash;
		w->chunked = true;
	} else {
		chunking_close(c);
	}
}

/* After didClose: the buffer's tree, edited to the disk text, so the
 * refresh reparses incrementally instead of from scratch. */
static void edit_to_disk(WriteJob *w)
{
	TSInputEdit e;

	if (!text_edit(w->buffer, w->buffer_len, w->text, w->len, &e)) {
		w->parsed = w->tree; /* saved: the tree is the disk's */
		w->tree = NULL;
		return;
	}
	w->edits = xmalloc(sizeof(*w->edits));
	w->edits[0] = e;
	w->nedits = 1;
}

static void write_run(Job *j)
{
	WriteJob *w = (WriteJob *)j;
	Pools *p = j->pools;
	Root *r = p->roots[w->root];
	Chunking c;
	Chunker *ch;
	Index *ix;

	if (!w->text) { /* back to the disk version */
		Buf abs = {0};
		size_t len;
		Lang was = w->lang; /* the buffer's, which w->tree parsed */

		buf_printf(&abs, "%s/%s", strcmp(r->path, "/") ? r->path : "",
			   w->rel);
		/* Bounded by the root: had the file become a link out of
		 * it since it was opened, its rows would go instead. */
		if (castls_read_file_in(r->path, abs.data, w->max_file,
					&w->text, &len, NULL) == 0)
			w->len = (uint32_t)len;
		w->lang = w->text ? lang_detect(abs.data, w->text, w->len)
				  : LANG_NONE;
		buf_free(&abs);
		if (w->tree && (!w->text || w->lang != was)) {
			ts_tree_delete(w->tree);
			w->tree = NULL;
		}
		if (w->tree)
			edit_to_disk(w);
	}
	if (!(ix = lsp__pools_index(p, r, &w->err)))
		return;
	if (w->text)
		w->hash = castls_hash(w->text, w->len, 0);
	/* A buffer over maxFileSize, minified or written by a tool goes out
	 * of the index, as the scan leaves out such a file: were it in,
	 * every scan would delete its rows and the write after it put them
	 * back. Its context comes from the buffer. */
	if (!w->text || w->lang == LANG_NONE || w->len > w->max_file ||
	    castls_is_minified(w->text, w->len) ||
	    lang_generated(w->lang, w->rel, w->text, w->len)) {
		w->err = index_file_remove(ix, w->rel);
		lsp__pools_index_return(r, ix);
		return;
	}
	write_carried(w, ix);
	write_yield(w);
	ch = lsp__pools_chunker(p);
	if ((w->generation || w->tree) && !w->parsed &&
	    chunker_language(w->lang) && w->len <= CHUNKER_PARSE_MAX)
		write_parse(w, ch);
	/* A newer text waits, and this one's rows are in: their chunking
	 * would be replaced at once. The tree goes to the document. */
	if (w->rows_written && write_should_stop(w))
		w->stopped = true;
	if (w->stopped) {
		lsp__pools_chunker_return(p, ch);
		lsp__pools_index_return(r, ix);
		return;
	}
	/* After most keystrokes the spans stay what they were, and only
	 * the chunks are made again. */
	if (!w->rerun || !w->parsed ||
	    chunker_rerun(ch, w->lang, w->text, w->len, w->parsed, w->tree,
			  &w->edits[0], w->rows, &c))
		w->err =
		    chunker_run(ch, w->lang, w->text, w->len, w->parsed, &c);
	lsp__pools_chunker_return(p, ch);
	if (w->err == 0 && w->rows_written && write_should_stop(w)) {
		chunking_close(&c); /* as above */
		w->stopped = true;
	} else if (w->err == 0) {
		write_chunking(w, ix, &c);
	} else {
		rows_free(&w->rows);
		w->err = index_file_remove(ix, w->rel);
	}
	w->checkpoint = index_checkpoint_due(ix);
	lsp__pools_index_return(r, ix);
}

/* On the loop: d keeps what w left in the index, to carry across the
 * next edits. */
static void rows_adopt(Document *d, WriteJob *w)
{
	rows_free(&d->rows);
	if (!w->rows || w->err || !keeps_tree(d) ||
	    w->generation < d->reset_gen)
		return;
	d->rows = w->rows;
	d->rows_gen = w->generation;
	d->rows_chunked = w->chunked;
	d->rows_hash = w->rows_hash;
	w->rows = NULL;
}

/* An error of the index's storage, which lasts until the user acts (as
 * opposed to one of the file: binary, unparsable). */
static bool storage_error(int err)
{
	switch (err) {
	case CASTLS_EIO:
	case CASTLS_EACCES:
	case CASTLS_ENOSPC:
	case CASTLS_EDB:
	case CASTLS_ECORRUPT:
	case CASTLS_EREADONLY:
		return true;
	default:
		return false;
	}
}

static void write_done(Job *j)
{
	WriteJob *w = (WriteJob *)j;
	Server *s = j->s;
	Document *d = find(s, w->uri);

	/* The next write in line, or the requests waiting for them all. */
	s->doc_writes--;
	s->new_writes -= !w->refresh;
	if (s->writes) {
		Job *next = s->writes;

		if (!(s->writes = next->next))
			s->writes_tail = &s->writes;
		lsp__server_queue(s, next);
	}
	lsp__server_doc_written(s);
	if (w->checkpoint)
		checkpoint_queue(s, w->root);
	if (s->doc_writes == 0 && !w->err) /* none into a failing index */
		merge_queue(s, w->root);
	if (w->err) {
		lsp__log(s, 1, "indexing %s: %s", w->rel,
			 castls_strerror(w->err));
		if (storage_error(w->err))
			lsp__root_failed(s, w->root, w->err);
	}
	/* A disk refresh after didClose, or a write for an earlier opening
	 * of a document open again. */
	if (w->generation == 0 && w->parsed && w->text)
		closed_keep(s, w->uri, w->lang, &w->text, w->len, &w->parsed);
	if (!d || w->generation == 0 || d->serial != w->serial)
		return;
	if (w->parsed) {
		tree_adopt(d, w->parsed, w->generation);
		w->parsed = NULL;
	}
	d->stops = w->stopped ? d->stops + 1 : 0;
	d->stop = NULL;
	rows_adopt(d, w);
	d->writing = false;
	if (!w->err || d->written < w->generation)
		d->written = w->generation;
	if (d->generation > d->written)
		lsp__doc_schedule_write(s, d);
}

static void write_release(Job *j)
{
	WriteJob *w = (WriteJob *)j;

	xfree(w->uri);
	xfree(w->rel);
	xfree(w->text);
	xfree(w->buffer);
	if (w->tree)
		ts_tree_delete(w->tree);
	if (w->parsed)
		ts_tree_delete(w->parsed);
	rows_free(&w->rows);
	xfree(w->edits);
	xfree(w);
}

/* Hands d's rows to w when the edits since them are all recorded (the
 * tree is no newer), with where those edits start. */
static void rows_lend(Document *d, WriteJob *w)
{
	uint32_t i = 0;

	if (!d->rows || !d->tree || d->rows_gen < d->tree_gen ||
	    d->rows_gen < d->reset_gen) {
		rows_free(&d->rows);
		return;
	}
	while (i < d->nedits && d->edits[i].generation <= d->rows_gen)
		i++;
	w->rows = d->rows;
	w->rows_hash = d->rows_hash;
	w->chunked = d->rows_chunked;
	w->rows_from = i;
	d->rows = NULL;
}

static void queue_write(Server *s, Document *d, bool from_disk, bool refresh)
{
	WriteJob *w = xcalloc(1, sizeof(*w));

	w->refresh = refresh;
	s->new_writes += !refresh;
	w->uri = xstrdup(d->uri);
	w->rel = xstrdup(d->rel);
	w->serial = d->serial;
	w->root = d->root;
	w->lang = d->lang;
	w->max_file = lsp__max_file_size(s);
	atomic_init(&w->stop, false);
	if (!from_disk) {
		w->text =
		    xstrndup(d->text.data ? d->text.data : "", d->text.len);
		w->len = (uint32_t)d->text.len;
		w->generation = d->generation;
		if (d->tree && d->nedits) {
			w->edits = xmalloc(d->nedits * sizeof(*w->edits));
			for (uint32_t i = 0; i < d->nedits; i++)
				w->edits[i] = d->edits[i].edit;
			w->nedits = d->nedits;
		}
		if (tree_current(d))
			w->parsed = ts_tree_copy(d->tree);
		else if (d->tree)
			w->tree = ts_tree_copy(d->tree);
		rows_lend(d, w);
		d->stop = &w->stop;
	} else if (tree_current(d)) {
		/* The document is closing: its text and tree, to edit to
		 * the disk text. */
		w->buffer_len = (uint32_t)d->text.len;
		w->buffer =
		    xstrndup(d->text.data ? d->text.data : "", d->text.len);
		w->tree = ts_tree_copy(d->tree);
	}
	w->job.run = write_run;
	w->job.done = write_done;
	w->job.release = write_release;
	if (s->pools.roots[w->root]->merge_stop)
		atomic_store(s->pools.roots[w->root]->merge_stop, true);
	if (s->doc_writes++ == 0) {
		lsp__server_queue(s, &w->job);
	} else {
		w->job.s = s;
		w->job.next = NULL;
		*s->writes_tail = &w->job;
		s->writes_tail = &w->job.next;
	}
}

static void schedule_write(Server *s, Document *d, bool refresh)
{
	if (d->root < 0 || !d->rel || d->writing || s->exiting ||
	    d->generation <= d->written || d->lang == LANG_NONE)
		return;
	d->writing = true;
	queue_write(s, d, false, refresh);
}

void lsp__doc_schedule_write(Server *s, Document *d)
{
	schedule_write(s, d, false);
}

void lsp__doc_refresh(Server *s, Document *d)
{
	bool written = d->written >= d->generation;

	d->written = 0;
	schedule_write(s, d, written);
}

void lsp__doc_close(Server *s, const cJSON *params)
{
	const cJSON *td =
	    cJSON_GetObjectItemCaseSensitive(params, "textDocument");
	Document **p = &s->docs, *d;
	const char *uri = text_of(td, "uri");

	while ((d = *p) && (!uri || strcmp(d->uri, uri)))
		p = &d->next;
	if (!d)
		return;
	*p = d->next;
	/* Unsaved edits die with the buffer: the disk version is the truth
	 * again. */
	if (d->root >= 0 && d->rel && !s->exiting)
		queue_write(s, d, true, false);
	/* Kept until the refresh brings the disk text's own tree. */
	if (tree_current(d) && !s->exiting) {
		uint32_t len = (uint32_t)d->text.len;
		char *text = buf_take(&d->text);

		closed_keep(s, d->uri, d->lang, &text, len, &d->tree);
	}
	lsp__doc_free(d);
}

void lsp__doc_save(Server *s, const cJSON *params)
{
	(void)s;
	(void)params; /* the buffer already is what was saved */
}
