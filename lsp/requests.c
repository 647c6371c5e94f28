/*
 * requests.c: the request handlers other than castls/context's ranking.
 * Anything that touches the database or chunks a document runs as a job
 * on a worker thread from a snapshot, so the loop stays responsive.
 */
#include "server_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------------- *
 * Snapshots and common helpers
 * ---------------------------------------------------------------------- */

void lsp__snapshot_take(Snapshot *sn, const Server *s, const Document *d)
{
	memset(sn, 0, sizeof(*sn));
	sn->uri = xstrdup(d->uri);
	sn->rel = d->rel ? xstrdup(d->rel) : NULL;
	sn->root = d->root;
	sn->lang = d->lang;
	sn->text = xstrndup(d->text.data ? d->text.data : "", d->text.len);
	sn->len = (uint32_t)d->text.len;
	sn->tree = d->tree ? ts_tree_copy(d->tree) : NULL;
	sn->serial = d->serial;
	sn->generation = d->generation;
	sn->encoding = s->encoding;
	line_index_build(&sn->lines, sn->text, sn->len);
}

void lsp__snapshot_free(Snapshot *sn)
{
	xfree(sn->uri);
	xfree(sn->rel);
	xfree(sn->text);
	if (sn->tree)
		ts_tree_delete(sn->tree);
	line_index_free(&sn->lines);
	pos_marks_free(&sn->marks);
	memset(sn, 0, sizeof(*sn));
}

void lsp__snapshot_marks(Snapshot *sn)
{
	pos_marks_build(&sn->marks, &sn->lines, sn->text, sn->len,
			sn->encoding);
}

uint64_t lsp__max_file_size(const Server *s)
{
	return s->settings.max_file_size ? s->settings.max_file_size
					 : INDEX_DEFAULT_MAX_FILE;
}

static cJSON *string_n(const char *p, size_t n)
{
	char *t = xstrndup(p, n);
	cJSON *r = cJSON_CreateString(t);

	xfree(t);
	return r;
}

/* Reads the requested budget: {tokens} or {chars}; default from
 * settings. */
static uint32_t budget_of(const Server *s, const cJSON *params)
{
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(params, "budget");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(b, "tokens");
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(b, "chars");

	if (cJSON_IsNumber(t) && t->valuedouble >= 1)
		return t->valuedouble > MAX_BUDGET_TOKENS
			   ? MAX_BUDGET_TOKENS
			   : (uint32_t)t->valuedouble;
	if (cJSON_IsNumber(c) && c->valuedouble >= 1)
		return rank_tokens(c->valuedouble > 4.0 * MAX_BUDGET_TOKENS
				       ? 4u * MAX_BUDGET_TOKENS
				       : (size_t)c->valuedouble);
	return s->settings.budget_tokens;
}

static uint32_t limit_of(const cJSON *params, uint32_t dflt)
{
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(params, "limit");

	if (!cJSON_IsNumber(l) || l->valuedouble < 1)
		return dflt;
	return l->valuedouble > RANK_MAX_ITEMS ? RANK_MAX_ITEMS
					       : (uint32_t)l->valuedouble;
}

static double elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* False, after an error reply, when d is over maxFileSize: chunking it
 * would keep a worker for seconds (a 16 MB minified file), and the index
 * skips such a file too. */
static bool chunkable(Server *s, const cJSON *id, const Document *d)
{
	if (d->text.len <= lsp__max_file_size(s))
		return true;
	lsp__error(s, id, RPC_REQUEST_FAILED,
		   "%s: %zu bytes, over maxFileSize (%llu bytes): not chunked",
		   d->uri, d->text.len,
		   (unsigned long long)lsp__max_file_size(s));
	return false;
}

/* The open document named by params.textDocument.uri, or an error reply
 * (and NULL). */
static Document *param_doc(Server *s, const cJSON *id, const cJSON *params)
{
	const cJSON *td =
	    cJSON_GetObjectItemCaseSensitive(params, "textDocument");
	const char *uri =
	    cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(td, "uri"));
	Document *d = lsp__doc_find(s, uri);

	if (!uri)
		lsp__error(s, id, RPC_INVALID_PARAMS,
			   "textDocument.uri must be a string");
	else if (!d)
		lsp__error(s, id, RPC_INVALID_PARAMS, "document not open: %s",
			   uri);
	return d;
}

/* ---------------------------------------------------------------------- *
 * Snapshot jobs: documentSymbol, castls/chunks, castls/context
 * ---------------------------------------------------------------------- */

typedef struct {
	Job job;
	Snapshot sn;
	ContextArgs args;
	bool indexing; /* a scan was under way when asked: the answer
			* may miss what it has not reached yet */
	bool parsed;   /* sn.tree was parsed here, for the document */
	struct timespec t0;
	uint32_t flattened; /* documentSymbol: symbols moved up */
} DocJob;

static void docjob_release(Job *j)
{
	DocJob *d = (DocJob *)j;

	lsp__snapshot_free(&d->sn);
	xfree(d);
}

/* On the worker: a parse of the snapshot when the document had no tree
 * to lend (a large buffer the loop does not parse from scratch, before
 * its first tree). The document gets it afterwards (docjob_done), so
 * the requests after this one do not parse it all again. */
static void docjob_parse(Job *j)
{
	DocJob *dj = (DocJob *)j;
	Snapshot *sn = &dj->sn;
	Chunker *ch;

	if (sn->tree || !chunker_language(sn->lang) ||
	    sn->len > CHUNKER_PARSE_MAX)
		return;
	ch = lsp__pools_chunker(j->pools);
	sn->tree = chunker_parse(ch, sn->lang, sn->text, sn->len, NULL);
	lsp__pools_chunker_return(j->pools, ch);
	dj->parsed = sn->tree != NULL;
}

/* On the loop: the tree docjob_parse made goes to the document. */
static void docjob_done(Job *j)
{
	DocJob *dj = (DocJob *)j;

	if (!dj->parsed)
		return;
	lsp__doc_offer_tree(j->s, dj->sn.uri, dj->sn.serial, dj->sn.generation,
			    dj->sn.tree);
	dj->sn.tree = NULL;
	dj->parsed = false;
}

static DocJob *docjob_new(Server *s, const cJSON *id, const Document *d,
			  void (*run)(Job *))
{
	DocJob *dj = xcalloc(1, sizeof(*dj));

	clock_gettime(CLOCK_MONOTONIC, &dj->t0);
	lsp__snapshot_take(&dj->sn, s, d);
	dj->job.id = cJSON_Duplicate(id, 1);
	dj->job.run = run;
	dj->job.done = docjob_done;
	dj->job.release = docjob_release;
	return dj;
}

/* Chunks the snapshot; false (with the job's error set) on failure. */
static bool chunk_snapshot(Job *j, const Snapshot *sn, Chunking *c)
{
	Chunker *ch = lsp__pools_chunker(j->pools);
	int err = chunker_run(ch, sn->lang, sn->text, sn->len, sn->tree, c);

	lsp__pools_chunker_return(j->pools, ch);
	if (err == 0)
		return true;
	j->err = RPC_REQUEST_FAILED;
	snprintf(j->msg, sizeof(j->msg), "%s: %s", sn->uri,
		 castls_strerror(err));
	return false;
}

static cJSON *byte_range(const Snapshot *sn, uint32_t a, uint32_t b)
{
	cJSON *r = cJSON_CreateObject();
	uint32_t line, col;
	cJSON *p;

	position_from_byte_marked(&sn->lines, &sn->marks, sn->text, sn->len,
				  sn->encoding, a, &line, &col);
	p = cJSON_AddObjectToObject(r, "start");
	cJSON_AddNumberToObject(p, "line", line);
	cJSON_AddNumberToObject(p, "character", col);
	position_from_byte_marked(&sn->lines, &sn->marks, sn->text, sn->len,
				  sn->encoding, b, &line, &col);
	p = cJSON_AddObjectToObject(r, "end");
	cJSON_AddNumberToObject(p, "line", line);
	cJSON_AddNumberToObject(p, "character", col);
	return r;
}

/* LSP SymbolKind for each span kind. */
static const int symbol_kinds[SPAN_KIND_COUNT] = {
    [SPAN_CLASS] = 5,	   [SPAN_FUNCTION] = 12, [SPAN_METHOD] = 6,
    [SPAN_INTERFACE] = 11, [SPAN_ENUM] = 10,	 [SPAN_TYPE] = 23,
    [SPAN_NAMESPACE] = 3,  [SPAN_SECTION] = 15,	 [SPAN_VARIABLE] = 13,
    [SPAN_CONSTANT] = 14,  [SPAN_FIELD] = 8,	 [SPAN_MACRO] = 14,
    [SPAN_IMPL] = 5,
};

static cJSON *document_symbol(const Snapshot *sn, const Span *sp)
{
	cJSON *o = cJSON_CreateObject();
	const char *line = sp->header, *nl;
	char *detail;

	/* The signature, not a decorator line above it. */
	while (*line == '@' && (nl = strchr(line, '\n'))) {
		line = nl + 1;
		while (*line == ' ' || *line == '\t')
			line++;
	}
	nl = strchr(line, '\n');
	detail = xstrndup(line, nl ? (size_t)(nl - line) : strlen(line));
	uint32_t sel_end =
	    sp->body_start > sp->bytes.start ? sp->body_start : sp->bytes.end;

	cJSON_AddStringToObject(o, "name", sp->name);
	cJSON_AddStringToObject(o, "detail", detail);
	cJSON_AddNumberToObject(o, "kind", symbol_kinds[sp->kind]);
	cJSON_AddItemToObject(o, "range",
			      byte_range(sn, sp->bytes.start, sp->bytes.end));
	cJSON_AddItemToObject(o, "selectionRange",
			      byte_range(sn, sp->bytes.start, sel_end));
	cJSON_AddItemToObject(o, "children", cJSON_CreateArray());
	xfree(detail);
	return o;
}

/* documentSymbol nests symbols at most this deep; deeper ones are listed
 * beside their ancestor at this depth, among its children. A symbol at
 * depth d sits 2d + 1 brackets deep in the reply, its range's position
 * 2 more: so the reply nests no deeper than the server accepts its own
 * input (LSP_MAX_JSON_DEPTH), which a client may well do too. */
#define SYMBOL_MAX_DEPTH ((LSP_MAX_JSON_DEPTH - 3) / 2)

static void symbols_run(Job *j)
{
	DocJob *dj = (DocJob *)j;
	Chunking c;
	cJSON **made, *top = cJSON_CreateArray();
	uint32_t *depth;
	int32_t *holder; /* the symbol each is listed under, or -1 */

	docjob_parse(j);
	if (!chunk_snapshot(j, &dj->sn, &c)) {
		cJSON_Delete(top);
		return;
	}
	lsp__snapshot_marks(&dj->sn);
	made = xcalloc(c.nspans + 1, sizeof(*made));
	depth = xcalloc(c.nspans + 1, sizeof(*depth));
	holder = xcalloc(c.nspans + 1, sizeof(*holder));
	for (uint32_t i = 0; i < c.nspans; i++) {
		const Span *sp = &c.spans[i];
		int32_t h = sp->parent; /* parents come first: made */

		if (h >= 0 && depth[h] == SYMBOL_MAX_DEPTH) {
			h = holder[h]; /* beside its parent */
			dj->flattened++;
		}
		holder[i] = h;
		depth[i] = h >= 0 ? depth[h] + 1 : 1;
		made[i] = document_symbol(&dj->sn, sp);
		cJSON_AddItemToArray(h >= 0 ? cJSON_GetObjectItemCaseSensitive(
						  made[h], "children")
					    : top,
				     made[i]);
	}
	xfree(holder);
	xfree(depth);
	xfree(made);
	chunking_close(&c);
	j->result = top;
}

/* On the loop: says what the reply left out of the tree. */
static void symbols_done(Job *j)
{
	DocJob *dj = (DocJob *)j;

	docjob_done(j);
	if (dj->flattened)
		lsp__log(j->s, 1,
			 "documentSymbol %s: %u symbols nest deeper than %d "
			 "levels; they are listed at level %d",
			 dj->sn.uri, dj->flattened, SYMBOL_MAX_DEPTH,
			 SYMBOL_MAX_DEPTH);
}

void lsp__req_document_symbol(Server *s, const cJSON *id, const cJSON *params)
{
	Document *d = param_doc(s, id, params);

	if (d && d->lang == LANG_NONE)
		lsp__reply(s, id, cJSON_CreateArray());
	else if (d && chunkable(s, id, d)) {
		DocJob *dj = docjob_new(s, id, d, symbols_run);

		dj->job.done = symbols_done;
		lsp__server_queue(s, &dj->job);
	}
}

static void chunks_run(Job *j)
{
	DocJob *dj = (DocJob *)j;
	Chunking c;
	cJSON *arr = cJSON_CreateArray();

	docjob_parse(j);
	if (!chunk_snapshot(j, &dj->sn, &c)) {
		cJSON_Delete(arr);
		return;
	}
	lsp__snapshot_marks(&dj->sn);
	for (uint32_t i = 0; i < c.nchunks; i++) {
		const Chunk *k = &c.chunks[i];
		cJSON *o = cJSON_CreateObject(), *path = cJSON_CreateArray();

		cJSON_AddItemToObject(
		    o, "range",
		    byte_range(&dj->sn, k->bytes.start, k->bytes.end));
		cJSON_AddStringToObject(o, "kind", chunk_kind_name(k->kind));
		cJSON_AddStringToObject(
		    o, "symbol", k->span >= 0 ? c.spans[k->span].qualname : "");
		for (int32_t sp = k->span; sp >= 0; sp = c.spans[sp].parent)
			cJSON_InsertItemInArray(
			    path, 0, cJSON_CreateString(c.spans[sp].name));
		cJSON_AddItemToObject(o, "spanPath", path);
		cJSON_AddNumberToObject(o, "size", k->size);
		cJSON_AddNumberToObject(
		    o, "tokens", rank_tokens(k->bytes.end - k->bytes.start));
		cJSON_AddItemToArray(arr, o);
	}
	j->result = cJSON_CreateObject();
	cJSON_AddStringToObject(j->result, "uri", dj->sn.uri);
	cJSON_AddStringToObject(j->result, "language", lang_name(dj->sn.lang));
	cJSON_AddItemToObject(j->result, "chunks", arr);
	chunking_close(&c);
}

void lsp__req_chunks(Server *s, const cJSON *id, const cJSON *params)
{
	Document *d = param_doc(s, id, params);

	if (d && chunkable(s, id, d))
		lsp__server_queue(s, &docjob_new(s, id, d, chunks_run)->job);
}

static void context_job_run(Job *j)
{
	DocJob *dj = (DocJob *)j;
	cJSON *r;

	docjob_parse(j);
	r = lsp__context_run(j->pools, &dj->sn, &dj->args);

	cJSON_AddBoolToObject(r, "indexing", dj->indexing);
	cJSON_AddNumberToObject(
	    r, "elapsedMs", (double)(int64_t)(elapsed_ms(&dj->t0) * 100) / 100);
	j->result = r;
}

void lsp__req_context(Server *s, const cJSON *id, const cJSON *params)
{
	Document *d = param_doc(s, id, params);
	const cJSON *pos = cJSON_GetObjectItemCaseSensitive(params, "position");
	DocJob *dj;

	if (!d)
		return;
	if (!cJSON_IsObject(pos) ||
	    !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(pos, "line")) ||
	    !cJSON_IsNumber(
		cJSON_GetObjectItemCaseSensitive(pos, "character"))) {
		lsp__error(s, id, RPC_INVALID_PARAMS,
			   "position must be {line, character} numbers");
		return;
	}
	dj = docjob_new(s, id, d, context_job_run);
	dj->args.cursor = lsp__doc_offset(s, d, pos);
	dj->args.budget = budget_of(s, params);
	dj->args.limit = limit_of(params, 20);
	dj->indexing = lsp__server_indexing(s);
	lsp__server_queue_fresh(s, &dj->job);
}

/* ---------------------------------------------------------------------- *
 * Index jobs: workspace/symbol, castls/search, castls/status
 * ---------------------------------------------------------------------- */

typedef struct {
	Job job;
	char *query;
	uint32_t budget, limit;
	struct timespec t0;
	bool indexing; /* as DocJob's */
} QueryJob;

static void queryjob_release(Job *j)
{
	xfree(((QueryJob *)j)->query);
	xfree(j);
}

static QueryJob *queryjob_new(const cJSON *id, const char *query,
			      void (*run)(Job *))
{
	QueryJob *q = xcalloc(1, sizeof(*q));

	clock_gettime(CLOCK_MONOTONIC, &q->t0);
	q->query = xstrdup(query ? query : "");
	q->job.id = cJSON_Duplicate(id, 1);
	q->job.run = run;
	q->job.release = queryjob_release;
	return q;
}

static void workspace_symbol_run(Job *j)
{
	QueryJob *q = (QueryJob *)j;
	Pools *p = j->pools;
	cJSON *arr = cJSON_CreateArray();

	for (int r = 0; r < p->nroots; r++) {
		IndexSpan *sp;
		uint32_t n;
		int err;
		Index *ix = p->roots[r]->removed
				? NULL
				: lsp__pools_index(p, p->roots[r], &err);

		if (!ix)
			continue;
		if (index_symbols(ix, q->query, q->limit, &sp, &n) == 0) {
			for (uint32_t i = 0; i < n; i++) {
				cJSON *o = cJSON_CreateObject();
				cJSON *loc =
				    cJSON_AddObjectToObject(o, "location");
				char *uri = lsp__uri_in_root(p->roots[r]->path,
							     sp[i].path);
				const char *dot = strrchr(sp[i].qualname, '.');

				cJSON_AddStringToObject(o, "name", sp[i].name);
				cJSON_AddNumberToObject(
				    o, "kind", symbol_kinds[sp[i].kind]);
				if (dot)
					cJSON_AddItemToObject(
					    o, "containerName",
					    string_n(sp[i].qualname,
						     (size_t)(dot -
							      sp[i].qualname)));
				cJSON_AddStringToObject(loc, "uri", uri);
				cJSON_AddItemToObject(
				    loc, "range",
				    lsp__render_lines(sp[i].lines));
				cJSON_AddItemToArray(arr, o);
				xfree(uri);
			}
			index_spans_free(sp, n);
		}
		lsp__pools_index_return(p->roots[r], ix);
	}
	j->result = arr;
}

void lsp__req_workspace_symbol(Server *s, const cJSON *id, const cJSON *params)
{
	const cJSON *q = cJSON_GetObjectItemCaseSensitive(params, "query");
	QueryJob *qj;

	if (params && q && !cJSON_IsString(q)) {
		lsp__error(s, id, RPC_INVALID_PARAMS, "query must be a string");
		return;
	}
	qj = queryjob_new(id, cJSON_GetStringValue(q), workspace_symbol_run);
	qj->limit = 200;
	lsp__server_queue(s, &qj->job);
}

static void search_job_run(Job *j)
{
	QueryJob *q = (QueryJob *)j;

	j->result = lsp__search_run(j->pools, q->query, q->budget, q->limit);
	cJSON_AddBoolToObject(j->result, "indexing", q->indexing);
	cJSON_AddNumberToObject(j->result, "elapsedMs",
				(double)(int64_t)(elapsed_ms(&q->t0) * 100) /
				    100);
}

void lsp__req_search(Server *s, const cJSON *id, const cJSON *params)
{
	const cJSON *q = cJSON_GetObjectItemCaseSensitive(params, "query");
	QueryJob *qj;

	if (!cJSON_IsString(q)) {
		lsp__error(s, id, RPC_INVALID_PARAMS, "query must be a string");
		return;
	}
	qj = queryjob_new(id, q->valuestring, search_job_run);
	qj->budget = budget_of(s, params);
	qj->limit = limit_of(params, 20);
	qj->indexing = lsp__server_indexing(s);
	lsp__server_queue_fresh(s, &qj->job);
}

/* ---------------------------------------------------------------------- *
 * Status
 * ---------------------------------------------------------------------- */

typedef struct {
	Job job;
	int root_of[MAX_ROOTS]; /* the root of each listed entry */
} StatusJob;

static void status_run(Job *j)
{
	StatusJob *sj = (StatusJob *)j;
	Pools *p = j->pools;
	cJSON *res = j->result,
	      *roots = cJSON_GetObjectItemCaseSensitive(res, "roots");
	cJSON *rj;
	int r = 0;
	uint64_t files = 0, chunks = 0, spans = 0;

	cJSON_ArrayForEach(rj, roots)
	{
		IndexStatus st;
		int err;
		Root *root = p->roots[sj->root_of[r]];
		Index *ix = lsp__pools_index(p, root, &err);

		if (ix && index_counts(ix, &st) == 0) {
			cJSON *langs = cJSON_AddObjectToObject(rj, "languages");

			cJSON_AddStringToObject(rj, "database",
						index_db_path(ix));
			cJSON_AddNumberToObject(rj, "databaseBytes",
						(double)st.db_bytes);
			cJSON_AddNumberToObject(rj, "files", st.files);
			cJSON_AddNumberToObject(rj, "chunks", st.chunks);
			cJSON_AddNumberToObject(rj, "spans", st.spans);
			cJSON_AddNumberToObject(rj, "lastIndexed",
						(double)st.last_indexed);
			for (int l = 1; l < LANG_COUNT; l++)
				if (st.files_by_lang[l])
					cJSON_AddNumberToObject(
					    langs, lang_name((Lang)l),
					    st.files_by_lang[l]);
			files += st.files;
			chunks += st.chunks;
			spans += st.spans;
		} else {
			cJSON_AddStringToObject(
			    rj, "error",
			    castls_strerror(ix ? CASTLS_EDB : err));
		}
		if (ix)
			lsp__pools_index_return(root, ix);
		r++;
	}
	cJSON_AddNumberToObject(res, "files", (double)files);
	cJSON_AddNumberToObject(res, "chunks", (double)chunks);
	cJSON_AddNumberToObject(res, "spans", (double)spans);
}

/* The loop-side part of the status: what only the loop may read. */
cJSON *lsp__status_json(Server *s, int *root_of)
{
	cJSON *res = cJSON_CreateObject(), *roots;
	int open = 0, n = 0;
	bool indexing = false;

	roots = cJSON_AddArrayToObject(res, "roots");
	for (int i = 0; i < s->pools.nroots; i++) {
		cJSON *r;

		if (s->pools.roots[i]->removed)
			continue; /* a folder the client took away */
		r = cJSON_CreateObject();
		root_of[n++] = i;

		cJSON_AddStringToObject(r, "path", s->pools.roots[i]->path);
		cJSON_AddBoolToObject(r, "indexing",
				      s->pools.roots[i]->indexing);
		if (s->pools.roots[i]->error)
			cJSON_AddStringToObject(
			    r, "indexError",
			    castls_strerror(s->pools.roots[i]->error));
		indexing |= s->pools.roots[i]->indexing;
		cJSON_AddItemToArray(roots, r);
	}
	for (Document *d = s->docs; d; d = d->next)
		open++;
	cJSON_AddBoolToObject(res, "indexing", indexing);
	cJSON_AddNumberToObject(res, "openDocuments", open);
	if (indexing) {
		pthread_mutex_lock(&s->progress.mu);
		cJSON_AddNumberToObject(res, "filesDone",
					s->progress.stats.done);
		cJSON_AddNumberToObject(res, "filesSeen",
					s->progress.stats.seen);
		pthread_mutex_unlock(&s->progress.mu);
	}
	return res;
}

static void status_release(Job *j) { xfree(j); }

void lsp__req_status(Server *s, const cJSON *id, const cJSON *params)
{
	StatusJob *sj = xcalloc(1, sizeof(*sj));

	(void)params;
	sj->job.id = cJSON_Duplicate(id, 1);
	sj->job.result = lsp__status_json(s, sj->root_of);
	sj->job.run = status_run;
	sj->job.release = status_release;
	lsp__server_queue(s, &sj->job);
}
