/*
 * documents.c: open documents. The loop applies each edit to the text,
 * tells tree-sitter exactly what changed (ts_tree_edit) and reparses
 * incrementally; chunking and the index write happen on a worker thread
 * from a snapshot, at most one per document at a time, coalesced.
 */
#include "lsp_int.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------------- *
 * URIs
 * ---------------------------------------------------------------------- */

static int hexval(int c)
{
	return isdigit(c) ? c - '0' : isxdigit(c) ? (tolower(c) - 'a' + 10) : -1;
}

char *uri_to_path(const char *uri)
{
	const char *p;
	Buf b = {0};

	if (strncmp(uri, "file://", 7) != 0)
		return NULL;
	p = uri + 7;
	if (strncmp(p, "localhost/", 10) == 0)
		p += 9;
	if (*p != '/')
		return NULL;
	for (; *p && *p != '?' && *p != '#'; p++) {
		int hi, lo;

		if (*p == '%' && (hi = hexval((unsigned char)p[1])) >= 0 &&
		    (lo = hexval((unsigned char)p[2])) >= 0) {
			char c = (char)(hi * 16 + lo);

			if (c == '\0')
				break;
			buf_append(&b, &c, 1);
			p += 2;
		} else {
			buf_append(&b, p, 1);
		}
	}
	return buf_take(&b);
}

char *path_to_uri(const char *path)
{
	static const char keep[] = "/-._~!$&'()*+,;=:@";
	Buf b = {0};

	buf_puts(&b, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (isalnum(*p) || strchr(keep, *p))
			buf_append(&b, p, 1);
		else
			buf_printf(&b, "%%%02X", *p);
	}
	return buf_take(&b);
}

/* ---------------------------------------------------------------------- *
 * Positions
 * ---------------------------------------------------------------------- */

uint32_t doc_offset(const Server *s, const Document *d, const cJSON *pos)
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

cJSON *doc_position(const Server *s, const Document *d, uint32_t off)
{
	uint32_t line, col;
	cJSON *p = cJSON_CreateObject();

	position_from_byte(&d->lines, d->text.data, d->text.len, s->encoding,
			   off, &line, &col);
	cJSON_AddNumberToObject(p, "line", line);
	cJSON_AddNumberToObject(p, "character", col);
	return p;
}

/* tree-sitter's point for a byte: rows end at '\n', columns are bytes. */
static TSPoint point_at(const char *text, uint32_t off)
{
	uint32_t line_start = off;

	while (line_start && text[line_start - 1] != '\n')
		line_start--;
	return (TSPoint){castls_count_newlines(text, off), off - line_start};
}

/* ---------------------------------------------------------------------- *
 * The document list
 * ---------------------------------------------------------------------- */

Document *doc_find(Server *s, const char *uri)
{
	for (Document *d = s->docs; d && uri; d = d->next)
		if (strcmp(d->uri, uri) == 0)
			return d;
	return NULL;
}

void doc_free(Document *d)
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
	xfree(d);
}

/* Documents larger than this are not parsed on the loop (a first parse
 * of a few MB takes long enough to delay other requests): they keep no
 * tree, and the workers that chunk their snapshots parse them. */
#define LOOP_PARSE_MAX (512u * 1024u)

static void reparse(Server *s, Document *d)
{
	Chunker *ch;
	TSTree *t;

	if (!chunker_language(d->lang) || d->text.len > LOOP_PARSE_MAX) {
		if (d->tree)
			ts_tree_delete(d->tree);
		d->tree = NULL;
		return;
	}
	ch = chunker_acquire(s);
	t = chunker_parse(ch, d->lang, d->text.data ? d->text.data : "",
			  (uint32_t)d->text.len, d->tree);
	chunker_release(s, ch);
	if (d->tree)
		ts_tree_delete(d->tree);
	d->tree = t;
}

static const char *text_of(const cJSON *o, const char *key)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, key));
}

void doc_open(Server *s, const cJSON *params)
{
	const cJSON *td = cJSON_GetObjectItemCaseSensitive(params,
							   "textDocument");
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(td, "version");
	const char *uri = text_of(td, "uri"), *text = text_of(td, "text");
	const char *rel = NULL;
	Document *d;

	if (!uri || !text) {
		lsp_log(s, 1, "didOpen without uri or text");
		return;
	}
	if ((d = doc_find(s, uri))) { /* reopened: start over */
		Document **p = &s->docs;

		while (*p != d)
			p = &(*p)->next;
		*p = d->next;
		doc_free(d);
	}
	d = xcalloc(1, sizeof(*d));
	d->uri = xstrdup(uri);
	d->path = uri_to_path(uri);
	d->root = d->path ? root_of_path(s, d->path, &rel) : -1;
	d->rel = d->root >= 0 ? xstrdup(rel) : NULL;
	d->version = cJSON_IsNumber(ver) ? ver->valueint : 0;
	buf_puts(&d->text, text);
	d->lang = lang_from_name(text_of(td, "languageId"));
	if (d->lang == LANG_NONE)
		d->lang = lang_detect(d->path ? d->path : uri, d->text.data,
				      d->text.len);
	line_index_build(&d->lines, d->text.data, d->text.len);
	reparse(s, d);
	d->generation = 1;
	d->next = s->docs;
	s->docs = d;
	doc_schedule_write(s, d);
}

/* Applies one contentChange; returns false when it was malformed. */
static bool apply_change(Server *s, Document *d, const cJSON *c)
{
	const cJSON *range = cJSON_GetObjectItemCaseSensitive(c, "range");
	const char *text = text_of(c, "text");
	uint32_t a, b, n;
	TSInputEdit e;
	Buf next = {0};

	if (!text)
		return false;
	n = (uint32_t)strlen(text);
	if (!cJSON_IsObject(range)) { /* the whole document */
		buf_free(&d->text);
		buf_puts(&d->text, text);
		line_index_free(&d->lines);
		line_index_build(&d->lines, d->text.data, d->text.len);
		if (d->tree)
			ts_tree_delete(d->tree);
		d->tree = NULL;
		return true;
	}
	a = doc_offset(s, d, cJSON_GetObjectItemCaseSensitive(range, "start"));
	b = doc_offset(s, d, cJSON_GetObjectItemCaseSensitive(range, "end"));
	if (b < a)
		b = a;
	if ((uint64_t)d->text.len - (b - a) + n > CHUNKER_MAX_INPUT)
		return false;
	memset(&e, 0, sizeof(e));
	e.start_byte = a;
	e.old_end_byte = b;
	e.new_end_byte = a + n;
	e.start_point = point_at(d->text.data, a);
	e.old_end_point = point_at(d->text.data, b);
	buf_append(&next, d->text.data, a);
	buf_append(&next, text, n);
	buf_append(&next, d->text.data + b, d->text.len - b);
	if (!next.data)
		buf_puts(&next, "");
	buf_free(&d->text);
	d->text = next;
	e.new_end_point = point_at(d->text.data, a + n);
	line_index_update(&d->lines, d->text.data, d->text.len, a, b, a + n);
	if (d->tree)
		ts_tree_edit(d->tree, &e);
	return true;
}

void doc_change(Server *s, const cJSON *params)
{
	const cJSON *td = cJSON_GetObjectItemCaseSensitive(params,
							   "textDocument");
	const cJSON *ver = cJSON_GetObjectItemCaseSensitive(td, "version");
	const cJSON *changes, *c;
	Document *d = doc_find(s, text_of(td, "uri"));

	if (!d) {
		lsp_log(s, 1, "didChange for a document that is not open: %s",
			text_of(td, "uri") ? text_of(td, "uri") : "(no uri)");
		return;
	}
	changes = cJSON_GetObjectItemCaseSensitive(params, "contentChanges");
	cJSON_ArrayForEach(c, changes)
		if (!apply_change(s, d, c))
			lsp_log(s, 1, "%s: ignored a malformed change", d->uri);
	if (cJSON_IsNumber(ver))
		d->version = ver->valueint;
	reparse(s, d);
	d->generation++;
	doc_schedule_write(s, d);
}

/* ---------------------------------------------------------------------- *
 * Index writes
 * ---------------------------------------------------------------------- */

typedef struct {
	Job job;
	char *uri, *rel;
	int root;
	Lang lang;
	char *text; /* NULL: read the disk file (after didClose) */
	uint32_t len;
	TSTree *tree;
	uint64_t generation;
	uint64_t max_file; /* for disk reads */
	int err;
	IndexDelta delta;
} WriteJob;

static void write_run(Job *j)
{
	WriteJob *w = (WriteJob *)j;
	Server *s = j->s;
	Root *r = s->roots[w->root];
	Chunking c;
	Chunker *ch;
	Index *ix;

	if (!w->text) { /* back to the disk version */
		Buf abs = {0};
		size_t len;

		buf_printf(&abs, "%s/%s", r->path, w->rel);
		if (castls_read_file(abs.data, w->max_file, &w->text, &len) == 0)
			w->len = (uint32_t)len;
		buf_free(&abs);
		w->lang = w->text ? lang_detect(w->rel, w->text, w->len)
				  : LANG_NONE;
	}
	if (!(ix = root_acquire(s, r, &w->err)))
		return;
	if (!w->text || w->lang == LANG_NONE) {
		w->err = index_file_remove(ix, w->rel);
		root_release(r, ix);
		return;
	}
	ch = chunker_acquire(s);
	w->err = chunker_run(ch, w->lang, w->text, w->len, w->tree, &c);
	chunker_release(s, ch);
	if (w->err == 0) {
		w->err = index_file_put(ix, w->rel, w->text, w->len, &c,
					&w->delta);
		chunking_close(&c);
	} else {
		w->err = index_file_remove(ix, w->rel);
	}
	root_release(r, ix);
}

static void write_done(Job *j)
{
	WriteJob *w = (WriteJob *)j;
	Server *s = j->s;
	Document *d = doc_find(s, w->uri);

	if (w->err)
		lsp_log(s, 1, "indexing %s: %s", w->rel, castls_strerror(w->err));
	if (!d || w->generation == 0) /* a disk refresh after didClose */
		return;
	d->writing = false;
	if (!w->err || d->written < w->generation)
		d->written = w->generation;
	if (d->generation > d->written)
		doc_schedule_write(s, d);
}

static void write_release(Job *j)
{
	WriteJob *w = (WriteJob *)j;

	xfree(w->uri);
	xfree(w->rel);
	xfree(w->text);
	if (w->tree)
		ts_tree_delete(w->tree);
	xfree(w);
}

static void queue_write(Server *s, Document *d, bool from_disk)
{
	WriteJob *w = xcalloc(1, sizeof(*w));

	w->uri = xstrdup(d->uri);
	w->rel = xstrdup(d->rel);
	w->root = d->root;
	w->lang = d->lang;
	w->max_file = s->settings.max_file_size ? s->settings.max_file_size
						: INDEX_DEFAULT_MAX_FILE;
	if (!from_disk) {
		w->text = xstrndup(d->text.data ? d->text.data : "",
				   d->text.len);
		w->len = (uint32_t)d->text.len;
		w->tree = d->tree ? ts_tree_copy(d->tree) : NULL;
		w->generation = d->generation;
	}
	w->job.run = write_run;
	w->job.done = write_done;
	w->job.release = write_release;
	server_queue(s, &w->job);
}

void doc_schedule_write(Server *s, Document *d)
{
	if (d->root < 0 || !d->rel || d->writing || s->exiting ||
	    d->generation <= d->written || d->lang == LANG_NONE)
		return;
	d->writing = true;
	queue_write(s, d, false);
}

void doc_close(Server *s, const cJSON *params)
{
	const cJSON *td = cJSON_GetObjectItemCaseSensitive(params,
							   "textDocument");
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
		queue_write(s, d, true);
	doc_free(d);
}

void doc_save(Server *s, const cJSON *params)
{
	(void)s;
	(void)params; /* the buffer already is what was saved */
}
