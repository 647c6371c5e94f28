/*
 * render.c: ranked items for agents. Two renderings of the same items:
 * Markdown for the prompt (the tools' text content, and `castls context
 * --format prompt`), one block per item:
 *
 *	### shop/models.py:26-31 — Cart.grand_total
 *	defines grand_total; in a file this one imports
 *	```python
 *	class Cart:
 *	    ...
 *	    def grand_total(self) -> Money:
 *	```
 *
 * and JSON for structuredContent: {path, startLine, endLine, symbol,
 * kind, language, why, score, parents, clipped, text}, lines 1-based and
 * inclusive, as an agent's editor tools count them.
 */
#include "mcp_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------- *
 * Markdown
 * ---------------------------------------------------------------------- */

/* The Markdown fence for text: three backticks, or one more than the
 * longest run of backticks at the start of one of its lines. */
static void fence_for(const char *text, char fence[16])
{
	size_t longest = 0;

	for (const char *p = text; *p;) {
		size_t run = 0;

		while (*p == ' ' || *p == '\t')
			p++;
		while (p[run] == '`')
			run++;
		if (run > longest)
			longest = run;
		p = strchr(p + run, '\n');
		if (!p)
			break;
		p++;
	}
	longest = longest < 3 ? 3 : longest + 1;
	if (longest > 15)
		longest = 15; /* a line of 15 backticks is no real code */
	memset(fence, '`', longest);
	fence[longest] = '\0';
}

/* The leading blanks of text's first line. */
static size_t indent_of(const char *text) { return strspn(text, " \t"); }

static uint32_t line_count(const char *s)
{
	size_t len = strlen(s);
	uint32_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += s[i] == '\n';
	return n + (len && s[len - 1] != '\n'); /* a last unended line */
}

/* The headers of it's enclosing definitions as they open above it, with
 * a "..." line (indented like what follows) where lines are left out. */
static void parent_headers(Buf *b, const RankItem *it)
{
	for (uint32_t i = 0; i < it->nparents; i++) {
		const RankParent *p = &it->parents[i];
		const char *next =
		    i + 1 < it->nparents ? it->parents[i + 1].header : it->text;
		uint32_t next_start = i + 1 < it->nparents
					  ? it->parents[i + 1].lines.start
					  : it->lines.start;
		size_t hl = strlen(p->header);

		/* The item shows this header itself. */
		if (p->lines.start >= it->lines.start || !hl)
			continue;
		buf_puts(b, p->header);
		if (p->header[hl - 1] != '\n')
			buf_puts(b, "\n");
		if (p->lines.start + line_count(p->header) < next_start) {
			buf_append(b, next, indent_of(next));
			buf_puts(b, "...\n");
		}
	}
}

void mcp__render_block(Buf *b, const char *label, LineRange lines,
		       const char *title, const char *lang, const char *note,
		       const char *headers, const char *text)
{
	char fence[16];
	Buf all = {0};
	size_t n;

	buf_printf(b, "### %s:%u", label, lines.start + 1);
	if (lines.end != lines.start)
		buf_printf(b, "-%u", lines.end + 1);
	if (title && *title)
		buf_printf(b, " — %s", title);
	buf_puts(b, "\n");
	if (note && *note)
		buf_printf(b, "%s\n", note);
	if (headers)
		buf_puts(&all, headers);
	buf_puts(&all, text);
	fence_for(all.data ? all.data : "", fence);
	buf_printf(b, "%s%s\n", fence, lang);
	n = all.len;
	if (n)
		buf_append(b, all.data, n);
	if (n && all.data[n - 1] != '\n')
		buf_puts(b, "\n");
	buf_printf(b, "%s\n", fence);
	buf_free(&all);
}

/* The name of item it under names. */
static void item_path(const RankItem *it, const McpNames *names, Buf *b)
{
	if (it->in_buffer)
		buf_puts(b, names->buffer ? names->buffer : it->path);
	else
		buf_printf(b, "%s%s", names->roots[it->root], it->path);
}

/* One item's block into b. */
static void item_block(Buf *b, const RankItem *it, const McpNames *names)
{
	Buf path = {0}, why = {0}, headers = {0};

	item_path(it, names, &path);
	rank_why(it, &why);
	if (it->clipped)
		buf_printf(&why, "%sclipped to its first %u lines",
			   why.len ? "; " : "", RANK_ITEM_LINES);
	parent_headers(&headers, it);
	mcp__render_block(b, path.data ? path.data : "", it->lines, it->symbol,
			  lang_name(it->lang), why.data, headers.data,
			  it->text ? it->text : "");
	buf_free(&path);
	buf_free(&why);
	buf_free(&headers);
}

uint32_t mcp_prompt_items(const RankResult *r, const McpNames *names,
			  uint32_t budget, Buf *out, uint32_t *tokens)
{
	size_t used = 0;
	uint32_t shown = 0;
	Buf one = {0};

	for (uint32_t i = 0; i < r->nitems; i++) {
		one.len = 0;
		if (shown)
			buf_puts(&one, "\n"); /* a blank line between blocks */
		item_block(&one, &r->items[i], names);
		if (rank_tokens(used + one.len) > budget)
			break;
		buf_append(out, one.data, one.len);
		used += one.len;
		shown++;
	}
	buf_free(&one);
	if (tokens)
		*tokens = rank_tokens(used);
	return shown;
}

/* ---------------------------------------------------------------------- *
 * JSON
 * ---------------------------------------------------------------------- */

void mcp__render_lines(cJSON *o, LineRange lines)
{
	cJSON_AddNumberToObject(o, "startLine", lines.start + 1);
	cJSON_AddNumberToObject(o, "endLine", lines.end + 1);
}

static cJSON *item_json(const RankItem *it, const McpNames *names)
{
	cJSON *o = cJSON_CreateObject(), *ps = cJSON_CreateArray();
	Buf path = {0}, why = {0};
	char num[32];

	item_path(it, names, &path);
	rank_why(it, &why);
	cJSON_AddStringToObject(o, "path", path.data ? path.data : "");
	mcp__render_lines(o, it->lines);
	cJSON_AddStringToObject(o, "symbol", it->symbol ? it->symbol : "");
	cJSON_AddStringToObject(o, "kind", chunk_kind_name(it->kind));
	cJSON_AddStringToObject(o, "language", lang_name(it->lang));
	cJSON_AddStringToObject(o, "why", why.data ? why.data : "");
	snprintf(num, sizeof(num), "%.4g", it->score);
	cJSON_AddNumberToObject(o, "score", strtod(num, NULL));
	for (uint32_t i = 0; i < it->nparents; i++) {
		const RankParent *p = &it->parents[i];
		cJSON *pj = cJSON_CreateObject();

		cJSON_AddStringToObject(pj, "kind", span_kind_name(p->kind));
		cJSON_AddStringToObject(pj, "name", p->name);
		mcp__render_lines(pj, p->lines);
		cJSON_AddStringToObject(pj, "header", p->header);
		cJSON_AddItemToArray(ps, pj);
	}
	cJSON_AddItemToObject(o, "parents", ps);
	cJSON_AddBoolToObject(o, "clipped", it->clipped);
	cJSON_AddStringToObject(o, "text", it->text ? it->text : "");
	buf_free(&path);
	buf_free(&why);
	return o;
}

cJSON *mcp__render_items(const RankResult *r, uint32_t n, const McpNames *names)
{
	cJSON *a = cJSON_CreateArray();

	for (uint32_t i = 0; i < n && i < r->nitems; i++)
		cJSON_AddItemToArray(a, item_json(&r->items[i], names));
	return a;
}
