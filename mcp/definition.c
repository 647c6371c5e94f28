/*
 * definition.c: the definition tool. A symbol name, plain or qualified
 * (`Cart`, `shop.models.Cart.add_line`), gives its definitions across
 * the roots with the headers of what encloses them; when nothing is
 * named so, the names closest to it.
 */
#include "mcp_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEF_LIMIT 10	    /* definitions when the call names none */
#define DEF_LINES_TEXT "40" /* DEF_LINES, for messages */
#define DEF_LINES 40	    /* a definition shows this many lines */
#define DEF_CANDIDATES 200  /* spans of one name looked at per root */
#define SUGGESTIONS 8	    /* names offered when nothing matched */

#define MAX_PARTS 32

typedef struct {
	char *parts[MAX_PARTS]; /* owned */
	int n;
} Parts;

static void parts_free(Parts *p)
{
	for (int i = 0; i < p->n; i++)
		xfree(p->parts[i]);
	p->n = 0;
}

/* Splits s at any of the separators seps (NULL-terminated); empty parts
 * are dropped. */
static void split(const char *s, const char *const *seps, Parts *out)
{
	const char *start = s;

	out->n = 0;
	for (const char *p = s;; p++) {
		size_t skip = 0;

		for (int i = 0; !skip && *p && seps[i]; i++)
			if (strncmp(p, seps[i], strlen(seps[i])) == 0)
				skip = strlen(seps[i]);
		if (*p && !skip)
			continue;
		if (p > start && out->n < MAX_PARTS)
			out->parts[out->n++] =
			    xstrndup(start, (size_t)(p - start));
		if (!*p)
			break;
		p += skip - 1;
		start = p + 1;
	}
}

/* The parts of a symbol as asked: "a.b.c", "a::b", "A#m", "A->m",
 * "Top > Sub" (sections), "f()" all split alike. */
static void symbol_parts(const char *symbol, Parts *out)
{
	static const char *const seps[] = {".", "::", "#", "->", " > ", NULL};
	Buf b = {0};

	buf_puts(&b, symbol);
	while (b.len && (is_space_byte((unsigned char)b.data[b.len - 1]) ||
			 b.data[b.len - 1] == ')' || b.data[b.len - 1] == '('))
		b.data[--b.len] = '\0';
	split(b.data ? b.data + strspn(b.data, " \t") : "", seps, out);
	buf_free(&b);
}

/* Whether the parts asked for name span s: a suffix of its qualified
 * name, or all of it after module parts that end its file's path
 * ("shop.models" of shop/models.py, "shop" of shop/__init__.py). */
static bool symbol_matches(const Parts *want, const IndexSpan *s)
{
	static const char *const code_seps[] = {".", NULL};
	static const char *const section_seps[] = {" > ", NULL};
	static const char *const path_seps[] = {"/", NULL};
	Parts q, path;
	int extra;
	bool ok = true;

	split(s->qualname, s->kind == SPAN_SECTION ? section_seps : code_seps,
	      &q);
	extra = want->n - q.n;
	for (int i = 0; ok && i < want->n && i < q.n; i++)
		ok = strcmp(want->parts[want->n - 1 - i],
			    q.parts[q.n - 1 - i]) == 0;
	if (ok && extra > 0) {
		char *dot, *p = xstrdup(s->path);

		/* The module parts: the path without its extension, an
		 * __init__ or index file standing for its directory. */
		if ((dot = strrchr(p, '.')) && !strchr(dot, '/'))
			*dot = '\0';
		split(p, path_seps, &path);
		if (path.n &&
		    (strcmp(path.parts[path.n - 1], "__init__") == 0 ||
		     strcmp(path.parts[path.n - 1], "index") == 0))
			xfree(path.parts[--path.n]);
		ok = extra <= path.n;
		for (int i = 0; ok && i < extra; i++)
			ok = strcmp(want->parts[extra - 1 - i],
				    path.parts[path.n - 1 - i]) == 0;
		parts_free(&path);
		xfree(p);
	}
	parts_free(&q);
	return ok;
}

typedef struct {
	int root;
	IndexSpan span; /* owned */
	bool exact;	/* its qualified name is the one asked for */
} Found;

static int cmp_found(const void *a, const void *b)
{
	const Found *x = a, *y = b;

	if (x->exact != y->exact)
		return x->exact ? -1 : 1;
	return 0;
}

/* The definitions named by want in every root, exact first, up to
 * limit, into *out (the caller's; spans cleared with index_span_clear). */
static uint32_t find_definitions(const Workspace *w, const char *symbol,
				 const Parts *want, uint32_t limit, Found **out)
{
	Found *found = NULL;
	uint32_t nfound = 0;

	for (uint32_t r = 0; r < w->n; r++) {
		IndexSpan *sp;
		uint32_t n;

		if (!w->rank[r].ix ||
		    index_spans_named(w->rank[r].ix, want->parts[want->n - 1],
				      DEF_CANDIDATES, &sp, &n))
			continue;
		for (uint32_t i = 0; i < n; i++) {
			if (!symbol_matches(want, &sp[i]))
				continue;
			found = xrealloc(found, (nfound + 1) * sizeof(*found));
			found[nfound].root = (int)r;
			found[nfound].span = sp[i];
			found[nfound].exact =
			    strcmp(sp[i].qualname, symbol) == 0;
			memset(&sp[i], 0, sizeof(sp[i]));
			nfound++;
		}
		index_spans_free(sp, n);
	}
	/* Stable: within each group, roots in order, shortest names first. */
	for (uint32_t i = 1; i < nfound; i++)
		for (uint32_t j = i;
		     j > 0 && cmp_found(&found[j - 1], &found[j]) > 0; j--) {
			Found t = found[j];

			found[j] = found[j - 1];
			found[j - 1] = t;
		}
	for (uint32_t i = limit; i < nfound; i++)
		index_span_clear(&found[i].span);
	*out = found;
	return nfound < limit ? nfound : limit;
}

/* Up to SUGGESTIONS qualified names like name, from every root. */
static cJSON *suggestions(const Workspace *w, const char *name)
{
	cJSON *a = cJSON_CreateArray();

	for (uint32_t r = 0; r < w->n; r++) {
		IndexSpan *sp;
		uint32_t n;

		if (!w->rank[r].ix ||
		    index_symbols(w->rank[r].ix, name, SUGGESTIONS, &sp, &n))
			continue;
		for (uint32_t i = 0; i < n; i++) {
			bool dup = false;
			const cJSON *e;

			cJSON_ArrayForEach(e, a) dup |=
			    strcmp(e->valuestring, sp[i].qualname) == 0;
			if (!dup && cJSON_GetArraySize(a) < SUGGESTIONS)
				cJSON_AddItemToArray(
				    a, cJSON_CreateString(sp[i].qualname));
		}
		index_spans_free(sp, n);
	}
	return a;
}

/* The parents of span s (outermost first), looked up in chain. */
static uint32_t parents_of(const IndexSpan *s, const IndexSpan *chain,
			   uint32_t n, const IndexSpan **out)
{
	uint32_t depth = 0;

	for (int64_t id = s->parent_id; id && depth < 64;) {
		const IndexSpan *p = NULL;

		for (uint32_t i = 0; i < n && !p; i++)
			if (chain[i].id == id)
				p = &chain[i];
		if (!p)
			break;
		out[depth++] = p;
		id = p->parent_id;
	}
	for (uint32_t i = 0; i < depth / 2; i++) {
		const IndexSpan *t = out[i];

		out[i] = out[depth - 1 - i];
		out[depth - 1 - i] = t;
	}
	return depth;
}

/* Keeps the first max lines of *text; true when it cut. */
static bool clip_lines(char *text, uint32_t max)
{
	char *p = text;

	for (uint32_t i = 0; p && i < max; i++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p || !*p)
		return false;
	*p = '\0';
	return true;
}

/* Bytes of the line before a definition read with it, to start its
 * text at the line start (spans start at their first token). */
#define LEAD_BYTES 256

/* One definition's block into blocks and its JSON into defs. False when
 * the block does not fit in budget_bytes. */
static bool add_definition(const Workspace *w, const Found *f,
			   const IndexSpan *chain, uint32_t nchain, char *text,
			   size_t budget_bytes, Buf *blocks, cJSON *defs)
{
	const IndexSpan *ps[64];
	uint32_t np = parents_of(&f->span, chain, nchain, ps);
	cJSON *o, *pa;
	Buf path = {0}, title = {0}, heads = {0}, block = {0};
	bool clipped = clip_lines(text, DEF_LINES), fits;

	buf_printf(&path, "%s%s", w->prefix[f->root], f->span.path);
	buf_printf(&title, "%s %s", span_kind_name(f->span.kind),
		   f->span.qualname);
	for (uint32_t i = 0; i < np; i++) {
		buf_puts(&heads, ps[i]->header);
		if (!heads.len || heads.data[heads.len - 1] != '\n')
			buf_puts(&heads, "\n");
		buf_append(&heads, text, strspn(text, " \t"));
		buf_puts(&heads, "...\n");
	}
	if (blocks->len)
		buf_puts(&block, "\n");
	mcp__render_block(
	    &block, path.data, f->span.lines, title.data,
	    lang_name(f->span.lang),
	    clipped ? "clipped to its first " DEF_LINES_TEXT " lines" : NULL,
	    heads.data, text);
	fits = blocks->len + block.len <= budget_bytes;
	if (fits) {
		buf_append(blocks, block.data, block.len);
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "path", path.data);
		mcp__render_lines(o, f->span.lines);
		cJSON_AddStringToObject(o, "kind",
					span_kind_name(f->span.kind));
		cJSON_AddStringToObject(o, "name", f->span.name);
		cJSON_AddStringToObject(o, "qualname", f->span.qualname);
		cJSON_AddStringToObject(o, "language", lang_name(f->span.lang));
		pa = cJSON_AddArrayToObject(o, "parents");
		for (uint32_t i = 0; i < np; i++) {
			cJSON *pj = cJSON_CreateObject();

			cJSON_AddStringToObject(pj, "kind",
						span_kind_name(ps[i]->kind));
			cJSON_AddStringToObject(pj, "name", ps[i]->qualname);
			mcp__render_lines(pj, ps[i]->lines);
			cJSON_AddStringToObject(pj, "header", ps[i]->header);
			cJSON_AddItemToArray(pa, pj);
		}
		cJSON_AddBoolToObject(o, "clipped", clipped);
		cJSON_AddStringToObject(o, "text", text);
		cJSON_AddItemToArray(defs, o);
	}
	buf_free(&path);
	buf_free(&title);
	buf_free(&heads);
	buf_free(&block);
	return fits;
}

/* text, read from `lead` bytes before a definition, from the start of
 * the definition's first line (from the definition itself when that
 * line starts further back). */
static const char *from_line_start(const char *text, uint32_t lead)
{
	const char *def = text + lead;

	while (def > text && def[-1] != '\n')
		def--;
	return def > text || lead == 0 ? def : text + lead;
}

/* The texts and parent chains of found[0, n) of root r, then their
 * blocks while the budget lasts; *full once one did not fit. Returns
 * how many were added. */
static uint32_t add_root_definitions(const Workspace *w, int r, Found *found,
				     uint32_t n, size_t budget_bytes,
				     Buf *blocks, cJSON *defs, bool *full)
{
	Index *ix = w->rank[r].ix;
	IndexTextRange *ranges = xcalloc(n + 1, sizeof(*ranges));
	int64_t *ids = xcalloc(n + 1, sizeof(*ids));
	char **texts = xcalloc(n + 1, sizeof(*texts));
	IndexSpan *chain = NULL;
	uint32_t k = 0, nchain = 0, added = 0;

	for (uint32_t i = 0; i < n; i++)
		if (found[i].root == r) {
			uint32_t start = found[i].span.bytes.start;

			ranges[k].file_id = found[i].span.file_id;
			ranges[k].start =
			    start > LEAD_BYTES ? start - LEAD_BYTES : 0;
			ranges[k].end = found[i].span.bytes.end;
			ids[k++] = found[i].span.id;
		}
	if (k && (index_file_texts(ix, ranges, k, texts) != 0 ||
		  index_span_chains(ix, ids, k, &chain, &nchain) != 0))
		chain = NULL, nchain = 0;
	k = 0;
	for (uint32_t i = 0; i < n && !*full; i++) {
		char *t;

		if (found[i].root != r)
			continue;
		t = texts[k] ? xstrdup(from_line_start(
				   texts[k],
				   found[i].span.bytes.start - ranges[k].start))
			     : NULL;
		k++;
		if (!t)
			continue;
		if (add_definition(w, &found[i], chain, nchain, t, budget_bytes,
				   blocks, defs))
			added++;
		else
			*full = true;
		xfree(t);
	}
	for (uint32_t i = 0; i < n; i++)
		xfree(texts[i]);
	index_spans_free(chain, nchain);
	xfree(texts);
	xfree(ids);
	xfree(ranges);
	return added;
}

void mcp__definition_run(ToolCall *c)
{
	const char *symbol = mcp__arg_str(c, "symbol");
	uint32_t limit = mcp__arg_u32(c, "limit", DEF_LIMIT), n, added = 0;
	size_t budget_bytes = (size_t)mcp__budget_of(c) * 4, reserve;
	Workspace w;
	Parts want;
	Found *found = NULL;
	cJSON *defs, *sugg;
	bool full = false;
	Buf blocks = {0};
	const cJSON *e;

	symbol_parts(symbol, &want);
	if (!want.n) {
		mcp__tool_error(c, "symbol must name something, got \"%.100s\"",
				symbol);
		return;
	}
	mcp__workspace_borrow(c->s, &w);
	n = find_definitions(&w, symbol, &want, limit, &found);
	c->out = cJSON_CreateObject();
	mcp__note_indexing(c);
	defs = cJSON_AddArrayToObject(c->out, "definitions");
	/* The note and the head count: leave them room. */
	reserve = c->text.len + strlen(symbol) + 40;
	budget_bytes = budget_bytes > reserve ? budget_bytes - reserve : 0;
	for (uint32_t r = 0; r < w.n && !full; r++)
		if (w.rank[r].ix)
			added += add_root_definitions(&w, (int)r, found, n,
						      budget_bytes, &blocks,
						      defs, &full);
	if (added)
		buf_printf(&c->text, "%u definition%s of %s:\n\n", added,
			   added == 1 ? "" : "s", symbol);
	else if (n)
		buf_printf(&c->text,
			   "%s is defined, but no definition fits in "
			   "%u tokens.\n",
			   symbol, mcp__budget_of(c));
	else
		buf_printf(&c->text, "No definition of %s in the index.\n",
			   symbol);
	if (blocks.len)
		buf_append(&c->text, blocks.data, blocks.len);
	sugg =
	    n ? cJSON_CreateArray() : suggestions(&w, want.parts[want.n - 1]);
	cJSON_AddItemToObject(c->out, "suggestions", sugg);
	if (cJSON_GetArraySize(sugg)) {
		buf_puts(&c->text, "Defined names like it:");
		cJSON_ArrayForEach(e, sugg)
		    buf_printf(&c->text, " %s", e->valuestring);
		buf_puts(&c->text, "\n");
	}
	cJSON_AddBoolToObject(c->out, "truncated", added < n);
	for (uint32_t i = 0; i < n; i++)
		index_span_clear(&found[i].span);
	xfree(found);
	buf_free(&blocks);
	parts_free(&want);
	mcp__workspace_return(c->s, &w);
}
