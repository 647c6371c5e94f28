/*
 * render.c: the JSON of ranked items, one function for castls/context
 * and castls/search (and the CLI's --format json). An item:
 *
 *   {uri, range, language, kind, symbol, parents: [{kind, name, range,
 *    header}], score, signals, why, clipped?, text}
 *
 * `signals` are the ranker's reasons as numbers and flags, `why` the same
 * in words (rank_why), which clients show as they are.
 */
#include "lsp_int.h"

#include <stdio.h>
#include <stdlib.h>

/* Whole lines: from the start of the first to the start of the line after
 * the last, so every position encoding agrees. */
cJSON *lsp__render_lines(LineRange lines)
{
	cJSON *r = cJSON_CreateObject();
	cJSON *a = cJSON_AddObjectToObject(r, "start");
	cJSON *b = cJSON_AddObjectToObject(r, "end");

	cJSON_AddNumberToObject(a, "line", lines.start);
	cJSON_AddNumberToObject(a, "character", 0);
	cJSON_AddNumberToObject(b, "line", lines.end + 1);
	cJSON_AddNumberToObject(b, "character", 0);
	return r;
}

/* x in whole 1/scale steps, toward zero: stable figures for tests. */
static double cut(double x, double scale)
{
	return (double)(int64_t)(x * scale) / scale;
}

static cJSON *signals_json(const RankSignals *g)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "bm25", cut(g->bm25, 1e3));
	cJSON_AddNumberToObject(o, "definition", cut(g->definition, 1e3));
	if (g->defines && *g->defines)
		cJSON_AddStringToObject(o, "defines", g->defines);
	if (g->file_use > 0)
		cJSON_AddNumberToObject(o, "fileUse", cut(g->file_use, 1e3));
	if (g->sibling > 0)
		cJSON_AddNumberToObject(o, "sibling", cut(g->sibling, 1e3));
	if (g->similar > 0)
		cJSON_AddNumberToObject(o, "similar", cut(g->similar, 1e3));
	if (g->namesakes > 0)
		cJSON_AddNumberToObject(o, "namesakes", cut(g->namesakes, 1e3));
	cJSON_AddBoolToObject(o, "import", g->import);
	if (g->declared)
		cJSON_AddBoolToObject(o, "declared", true);
	cJSON_AddBoolToObject(o, "sameFile", g->same_file);
	if (g->imported_name)
		cJSON_AddBoolToObject(o, "importedName", true);
	if (g->unused_import)
		cJSON_AddBoolToObject(o, "unusedImport", true);
	if (g->joined && *g->joined)
		cJSON_AddStringToObject(o, "joined", g->joined);
	if (g->member)
		cJSON_AddBoolToObject(o, "member", true);
	if (g->receiver)
		cJSON_AddBoolToObject(o, "receiver", true);
	if (g->same_file && g->definition_item) {
		cJSON_AddNumberToObject(o, "linesAway", g->lines_away);
		cJSON_AddNumberToObject(o, "usesInFile", g->uses_in_file);
		if (g->callers) {
			cJSON_AddNumberToObject(o, "callersInFile", g->callers);
			cJSON_AddNumberToObject(o, "functionsInFile",
						g->functions);
		}
		if (g->unused_private)
			cJSON_AddBoolToObject(o, "unusedPrivate", true);
	}
	return o;
}

static cJSON *item_json(const RankItem *it, const char *uri)
{
	cJSON *o = cJSON_CreateObject(), *ps = cJSON_CreateArray();
	char num[32];
	Buf why = {0};

	for (uint32_t i = 0; i < it->nparents; i++) {
		const RankParent *p = &it->parents[i];
		cJSON *pj = cJSON_CreateObject();

		cJSON_AddStringToObject(pj, "kind", span_kind_name(p->kind));
		cJSON_AddStringToObject(pj, "name", p->name);
		cJSON_AddItemToObject(pj, "range", lsp__render_lines(p->lines));
		cJSON_AddStringToObject(pj, "header", p->header);
		cJSON_AddItemToArray(ps, pj);
	}
	rank_why(it, &why);
	cJSON_AddStringToObject(o, "uri", uri);
	cJSON_AddItemToObject(o, "range", lsp__render_lines(it->lines));
	cJSON_AddStringToObject(o, "language", lang_name(it->lang));
	cJSON_AddStringToObject(o, "kind", chunk_kind_name(it->kind));
	cJSON_AddStringToObject(o, "symbol", it->symbol);
	cJSON_AddItemToObject(o, "parents", ps);
	/* Four significant digits, however small (BM25 on a tiny corpus
	 * gives scores near 1e-6). */
	snprintf(num, sizeof(num), "%.4g", it->score);
	cJSON_AddNumberToObject(o, "score", strtod(num, NULL));
	cJSON_AddItemToObject(o, "signals", signals_json(&it->signals));
	cJSON_AddStringToObject(o, "why", why.data ? why.data : "");
	if (it->clipped)
		cJSON_AddBoolToObject(o, "clipped", true);
	cJSON_AddStringToObject(o, "text", it->text);
	buf_free(&why);
	return o;
}

cJSON *lsp__render_result(const RankResult *r, const char *const *roots,
			  const char *buffer_uri)
{
	cJSON *res = cJSON_CreateObject();
	cJSON *items = cJSON_AddArrayToObject(res, "items");
	cJSON *b;

	for (uint32_t i = 0; i < r->nitems; i++) {
		const RankItem *it = &r->items[i];
		char *uri = it->in_buffer && buffer_uri
				? xstrdup(buffer_uri)
				: lsp__uri_in_root(roots[it->root], it->path);

		cJSON_AddItemToArray(items, item_json(it, uri));
		xfree(uri);
	}
	b = cJSON_AddObjectToObject(res, "budget");
	cJSON_AddNumberToObject(b, "limit", r->budget);
	cJSON_AddNumberToObject(b, "used", r->used);
	cJSON_AddStringToObject(b, "unit", "tokens");
	cJSON_AddBoolToObject(res, "noContext", r->no_context);
	/* What the request cost the index: for measuring. */
	cJSON_AddNumberToObject(res, "statements", (double)r->statements);
	return res;
}
