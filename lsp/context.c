/*
 * context.c: castls/context, the chunks most useful for writing code at
 * the cursor. A first ranking, to be tuned against the RepoEval harness
 * (tests/eval):
 *
 * - Query: the code before the cursor, up to QUERY_LINES lines, plus the
 *   header of the enclosing definition when it starts further up.
 * - Lexical: BM25 over chunk text, names and paths (the index's FTS5).
 * - Definitions: identifiers in the query, weighted by how close to the
 *   cursor they are, looked up as span names; the chunks that define them
 *   score high, more so when the defining file is one the current file
 *   imports.
 * - The current file's region around the cursor is left out (the editor
 *   already shows it); at most PER_FILE items come from one file.
 * - Items are packed greedily into the token budget in rank order.
 * - noContext: no definition found and the best lexical match is weak.
 */
#include "lsp_int.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUERY_LINES 30      /* lines before the cursor in the query */
#define QUERY_MAX 8192      /* bytes of query text */
#define AFTER_LINES 3       /* lines after the cursor also excluded */
#define BEFORE_LINES 5      /* and before it, outside its definition */
#define MAX_IDENTS 24       /* identifiers looked up as definitions */
#define DEFS_PER_IDENT 4
#define BM25_HITS 40
#define PER_FILE 3
#define W_BM25 0.6
#define W_DEF 1.0
#define W_IMPORTED 0.5      /* extra for definitions in imported files */
#define W_SAME_FILE 0.3     /* the current file's other definitions */
#define BM25_MIN 12.0       /* raw score below which lexical is noise */
#define SCORE_MIN 0.12

/* Words that are never definitions worth looking up. */
static const char *const stopwords[] = {
	"and", "as", "assert", "async", "await", "break", "case", "catch",
	"class", "const", "continue", "def", "default", "del", "do", "elif",
	"else", "enum", "esac", "except", "export", "extends", "false",
	"False", "fi", "finally", "for", "from", "function", "global", "if",
	"implements", "import", "in", "instanceof", "interface", "is", "lambda",
	"let", "new", "None", "nonlocal", "not", "null", "or", "pass", "raise",
	"return", "self", "static", "super", "switch", "then", "this", "throw",
	"true", "True", "try", "type", "typeof", "undefined", "var", "void",
	"while", "with", "yield", "cls", "str", "int", "float", "bool", "list",
	"dict", "set", "tuple", "len", "range", "print", "string", "number",
	"any", "echo", "local", "done",
};

static bool is_stopword(const char *w, size_t n)
{
	for (size_t i = 0; i < sizeof(stopwords) / sizeof(*stopwords); i++)
		if (strlen(stopwords[i]) == n && memcmp(stopwords[i], w, n) == 0)
			return true;
	return false;
}

static bool ident_start(unsigned char c)
{
	return isalpha(c) || c == '_' || c == '$' || c >= 0x80;
}

static bool ident_char(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '$' || c >= 0x80;
}

/* ---------------------------------------------------------------------- *
 * Identifiers near the cursor
 * ---------------------------------------------------------------------- */

typedef struct {
	char name[64];
	double weight;
} Ident;

static int cmp_ident(const void *a, const void *b)
{
	double x = ((const Ident *)a)->weight, y = ((const Ident *)b)->weight;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Collects identifiers of text[lo, hi) with weights that fall with their
 * distance in lines from the cursor line; returns how many (<= cap). */
static int collect_idents(const char *text, uint32_t lo, uint32_t hi,
			  uint32_t cursor_line, uint32_t first_line,
			  Ident *out, int cap)
{
	int n = 0;
	uint32_t line = first_line;

	for (uint32_t i = lo; i < hi;) {
		unsigned char c = (unsigned char)text[i];
		uint32_t start = i, len;
		double w;
		int k;

		if (c == '\n')
			line++;
		/* Skip the rest of a number, and string/comment contents are
		 * kept on purpose: names in them still hint. */
		if (!ident_start(c) || (i > lo && ident_char((unsigned char)text[i - 1]))) {
			i++;
			continue;
		}
		while (i < hi && ident_char((unsigned char)text[i]))
			i++;
		len = i - start;
		if (len < 2 || len >= sizeof(out[0].name) ||
		    is_stopword(text + start, len))
			continue;
		w = 1.0 / (1.0 + (double)(cursor_line - line) / 8.0);
		for (k = 0; k < n; k++)
			if (strlen(out[k].name) == len &&
			    memcmp(out[k].name, text + start, len) == 0)
				break;
		if (k == n) {
			if (n == cap)
				continue;
			memcpy(out[n].name, text + start, len);
			out[n].name[len] = '\0';
			out[n++].weight = 0;
		}
		/* Repeated use adds a little, proximity dominates. */
		out[k].weight = out[k].weight ? fmax(out[k].weight, w) + 0.1 * w
					      : w;
	}
	return n;
}

/* ---------------------------------------------------------------------- *
 * Imports of the current file, as path fragments ("pkg/mod", "./util")
 * ---------------------------------------------------------------------- */

typedef struct {
	char frag[128][96];
	int n;
} Imports;

static void add_import(Imports *im, const char *p, size_t n)
{
	char *f;

	if (im->n == 128 || n == 0 || n >= sizeof(im->frag[0]))
		return;
	f = im->frag[im->n++];
	/* Python dots become slashes; leading dots (relative) dropped. */
	while (n && *p == '.' && (n < 2 || p[1] != '/'))
		p++, n--;
	for (size_t i = 0; i < n; i++)
		f[i] = p[i] == '.' && !(i + 1 < n && p[i + 1] == '/') &&
				       !(i > 0 && p[i - 1] == '.')
			       ? '/'
			       : p[i];
	f[n] = '\0';
	/* "./util" and "../lib/x" keep only the meaningful tail. */
	while (strncmp(f, "./", 2) == 0 || strncmp(f, "../", 3) == 0)
		memmove(f, f + (f[1] == '/' ? 2 : 3), strlen(f) + 1);
}

static void find_imports(const char *text, uint32_t len, Imports *im)
{
	uint32_t i = 0;

	im->n = 0;
	while (i < len) {
		const char *line = text + i, *nl = memchr(line, '\n', len - i);
		size_t n = nl ? (size_t)(nl - line) : len - i, k;

		i += (uint32_t)n + 1;
		if (n > 6 && (strncmp(line, "from ", 5) == 0 ||
			      strncmp(line, "import ", 7) == 0)) {
			const char *p = line + (line[0] == 'f' ? 5 : 7);

			for (k = 0; p + k < line + n && (ident_char((unsigned char)p[k]) ||
							 p[k] == '.');
			     k++)
				;
			add_import(im, p, k);
		}
		/* TypeScript/JavaScript: from "x" / require("x") */
		for (k = 0; k + 1 < n; k++) {
			char q = line[k];
			const char *end;

			if ((q != '"' && q != '\'') ||
			    !(k >= 5 && (memcmp(line + k - 5, "from ", 5) == 0 ||
					 memcmp(line + k - 5, "uire(", 5) == 0)))
				continue;
			end = memchr(line + k + 1, q, n - k - 1);
			if (end)
				add_import(im, line + k + 1,
					   (size_t)(end - line - k - 1));
			break;
		}
	}
}

static bool path_imported(const Imports *im, const char *path)
{
	for (int i = 0; i < im->n; i++)
		if (strstr(path, im->frag[i]))
			return true;
	return false;
}

/* ---------------------------------------------------------------------- *
 * Candidates
 * ---------------------------------------------------------------------- */

typedef struct {
	IndexHit hit;
	int root;
	double bm25, def, score;
	bool imported, same_file;
	bool taken;        /* packed into the answer */
	char defined[128]; /* names it defines that the cursor uses */
} Cand;

typedef struct {
	Cand *c;
	uint32_t n, cap;
} Cands;

static Cand *cand_get(Cands *cs, int root, IndexHit *h)
{
	for (uint32_t i = 0; i < cs->n; i++)
		if (cs->c[i].root == root && cs->c[i].hit.id == h->id) {
			xfree(h->path);
			xfree(h->names);
			xfree(h->text);
			return &cs->c[i];
		}
	if (cs->n == cs->cap) {
		cs->cap = cs->cap ? cs->cap * 2 : 64;
		cs->c = xrealloc(cs->c, cs->cap * sizeof(*cs->c));
	}
	memset(&cs->c[cs->n], 0, sizeof(cs->c[0]));
	cs->c[cs->n].hit = *h;
	cs->c[cs->n].root = root;
	return &cs->c[cs->n++];
}

static int cmp_cand(const void *a, const void *b)
{
	const Cand *x = a, *y = b;

	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	return x->hit.id < y->hit.id ? -1 : x->hit.id > y->hit.id;
}

/* ---------------------------------------------------------------------- *
 * The request
 * ---------------------------------------------------------------------- */

typedef struct {
	const Snapshot *sn;
	uint32_t cursor, cursor_line;
	uint32_t q_lo;               /* query starts here */
	uint32_t ex_first, ex_last;  /* excluded lines of the current file */
	Buf query;
} Where;

static uint32_t line_start_of(const char *text, uint32_t off)
{
	while (off && text[off - 1] != '\n')
		off--;
	return off;
}

/* Finds the query text and the excluded region around the cursor. */
static void locate(Where *w, Server *s, const Snapshot *sn, uint32_t cursor)
{
	Chunking c;
	Chunker *ch;
	uint32_t lo = line_start_of(sn->text, cursor), back = 0, ex_end;
	int32_t fn = -1;
	int64_t fn_first = -1;

	memset(w, 0, sizeof(*w));
	w->sn = sn;
	w->cursor = cursor;
	w->cursor_line = castls_count_newlines(sn->text, cursor);
	while (lo > 0 && back < QUERY_LINES) {
		lo = line_start_of(sn->text, lo - 1);
		back++;
	}
	w->q_lo = lo;
	ex_end = w->cursor_line + AFTER_LINES;
	ch = chunker_acquire(s);
	if (chunker_spans_at(ch, sn->lang, sn->text, sn->len, sn->tree, cursor,
			     &c) == 0) {
		/* The innermost function or class around the cursor. */
		for (uint32_t i = 0; i < c.nspans; i++)
			if (c.spans[i].kind != SPAN_SECTION)
				fn = (int32_t)i;
		if (fn >= 0 && c.spans[fn].bytes.start < lo)
			buf_printf(&w->query, "%s\n", c.spans[fn].header);
		if (fn >= 0 && c.spans[fn].lines.end > ex_end &&
		    c.spans[fn].kind != SPAN_CLASS)
			ex_end = c.spans[fn].lines.end;
		if (fn >= 0 && c.spans[fn].kind != SPAN_CLASS)
			fn_first = (int64_t)c.spans[fn].lines.start;
		chunking_close(&c);
	}
	chunker_release(s, ch);
	buf_append(&w->query, sn->text + lo, cursor - lo);
	if (w->query.len > QUERY_MAX) { /* keep the part nearest the cursor */
		memmove(w->query.data, w->query.data + w->query.len - QUERY_MAX,
			QUERY_MAX);
		w->query.len = QUERY_MAX;
		w->query.data[QUERY_MAX] = '\0';
	}
	/* Left out: the definition being written (from its first line) and
	 * the few lines right above the cursor; the rest of the query's
	 * lines may still hold definitions worth showing whole. */
	w->ex_first = w->cursor_line > BEFORE_LINES
			      ? w->cursor_line - BEFORE_LINES
			      : 0;
	if (fn_first >= 0 && (uint32_t)fn_first < w->ex_first)
		w->ex_first = (uint32_t)fn_first;
	w->ex_last = ex_end;
}

static bool excluded(const Where *w, const Cand *c)
{
	return c->same_file && c->hit.lines.end >= w->ex_first &&
	       c->hit.lines.start <= w->ex_last;
}

static void gather(Server *s, const Where *w, const Ident *ids, int nids,
		   const Imports *im, Cands *cs, double *best_bm25)
{
	for (int r = 0; r < s->nroots; r++) {
		Root *root = s->roots[r];
		IndexHit *h;
		uint32_t n;
		int err;
		Index *ix = root->removed ? NULL : root_acquire(s, root, &err);

		if (!ix)
			continue;
		if (index_search(ix, w->query.data ? w->query.data : "",
				 w->query.len, BM25_HITS, &h, &n) == 0) {
			for (uint32_t i = 0; i < n; i++) {
				Cand *c = cand_get(cs, r, &h[i]);

				c->bm25 = fmax(c->bm25, h[i].score);
			}
			xfree(h); /* strings moved into candidates */
		}
		for (int k = 0; k < nids; k++) {
			if (index_definitions(ix, ids[k].name, DEFS_PER_IDENT,
					      &h, &n) != 0)
				continue;
			for (uint32_t i = 0; i < n; i++) {
				Cand *c = cand_get(cs, r, &h[i]);
				double v = ids[k].weight / n;

				c->def += v;
				if (strlen(c->defined) + strlen(ids[k].name) + 2 <
				    sizeof(c->defined)) {
					if (c->defined[0])
						strcat(c->defined, " ");
					strcat(c->defined, ids[k].name);
				}
			}
			xfree(h);
		}
		root_release(root, ix);
	}
	for (uint32_t i = 0; i < cs->n; i++) {
		Cand *c = &cs->c[i];

		c->same_file = w->sn->rel && c->root == w->sn->root &&
			       strcmp(c->hit.path, w->sn->rel) == 0;
		c->imported = path_imported(im, c->hit.path);
		if (!excluded(w, c))
			*best_bm25 = fmax(*best_bm25, c->bm25);
	}
}

static void score_all(const Where *w, Cands *cs, double best_bm25)
{
	for (uint32_t i = 0; i < cs->n; i++) {
		Cand *c = &cs->c[i];
		double def = fmin(c->def, 1.5);

		if (def > 0 && c->imported)
			def += W_IMPORTED * def;
		c->score = W_BM25 * (best_bm25 > 0 ? c->bm25 / best_bm25 : 0) +
			   W_DEF * def + (c->same_file ? W_SAME_FILE : 0);
		if (excluded(w, c))
			c->score = -1;
	}
	if (cs->n)
		qsort(cs->c, cs->n, sizeof(*cs->c), cmp_cand);
}

static cJSON *signals_of(const Cand *c)
{
	cJSON *g = cJSON_CreateObject();

	cJSON_AddNumberToObject(g, "bm25", (double)(int64_t)(c->bm25 * 1e3) / 1e3);
	cJSON_AddNumberToObject(g, "definition",
				(double)(int64_t)(c->def * 1e3) / 1e3);
	if (c->defined[0])
		cJSON_AddStringToObject(g, "defines", c->defined);
	cJSON_AddBoolToObject(g, "import", c->imported);
	cJSON_AddBoolToObject(g, "sameFile", c->same_file);
	return g;
}

static cJSON *pack(Server *s, Cands *cs, const ContextArgs *a,
		   uint32_t *used)
{
	cJSON *items = cJSON_CreateArray();
	uint32_t count = 0;

	*used = 0;
	for (uint32_t i = 0; i < cs->n && count < a->limit; i++) {
		Cand *c = &cs->c[i];
		uint32_t per_file = 0, tokens;
		int err;
		Index *ix;
		cJSON *it;

		if (c->score < SCORE_MIN)
			break;
		for (uint32_t k = 0; k < i; k++)
			per_file += cs->c[k].taken && cs->c[k].root == c->root &&
				    cs->c[k].hit.file_id == c->hit.file_id;
		if (per_file >= PER_FILE)
			continue;
		if (estimate_tokens(strlen(c->hit.text)) > a->budget - *used)
			continue;
		ix = root_acquire(s, s->roots[c->root], &err);
		if (!ix)
			continue;
		it = item_from_hit(s, ix, c->root, &c->hit, c->score,
				   signals_of(c), &tokens);
		root_release(s->roots[c->root], ix);
		if (tokens > a->budget - *used) {
			cJSON_Delete(it);
			continue;
		}
		*used += tokens;
		count++;
		c->taken = true;
		cJSON_AddItemToArray(items, it);
	}
	return items;
}

cJSON *context_run(Server *s, const Snapshot *sn, const ContextArgs *a,
		   int *err, char *msg, size_t msgcap)
{
	Where w;
	Ident ids[64];
	Imports *im = xcalloc(1, sizeof(*im));
	Cands cs = {0};
	double best = 0, best_def = 0;
	uint32_t used;
	int nids;
	cJSON *res, *items, *b;

	(void)err;
	(void)msg;
	(void)msgcap;
	locate(&w, s, sn, a->cursor);
	nids = collect_idents(sn->text, w.q_lo, a->cursor, w.cursor_line,
			      castls_count_newlines(sn->text, w.q_lo), ids, 64);
	qsort(ids, (size_t)nids, sizeof(*ids), cmp_ident);
	if (nids > MAX_IDENTS)
		nids = MAX_IDENTS;
	find_imports(sn->text, sn->len, im);
	gather(s, &w, ids, nids, im, &cs, &best);
	score_all(&w, &cs, best);
	for (uint32_t i = 0; i < cs.n; i++)
		if (cs.c[i].score >= 0)
			best_def = fmax(best_def, cs.c[i].def);
	res = cJSON_CreateObject();
	if (best_def <= 0 && best < BM25_MIN) {
		items = cJSON_CreateArray(); /* the stop signal */
		used = 0;
		cJSON_AddBoolToObject(res, "noContext", true);
	} else {
		items = pack(s, &cs, a, &used);
		cJSON_AddBoolToObject(res, "noContext",
				      cJSON_GetArraySize(items) == 0);
	}
	cJSON_AddItemToObject(res, "items", items);
	b = cJSON_AddObjectToObject(res, "budget");
	cJSON_AddNumberToObject(b, "limit", a->budget);
	cJSON_AddNumberToObject(b, "used", used);
	cJSON_AddStringToObject(b, "unit", "tokens");
	for (uint32_t i = 0; i < cs.n; i++) {
		xfree(cs.c[i].hit.path);
		xfree(cs.c[i].hit.names);
		xfree(cs.c[i].hit.text);
	}
	xfree(cs.c);
	xfree(im);
	buf_free(&w.query);
	return res;
}
