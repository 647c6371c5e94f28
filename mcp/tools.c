/*
 * tools.c: the MCP tools, one row each: name, descriptions a model reads
 * to choose among them, the JSON Schemas of arguments and results, and
 * the function that runs a call on a worker thread.
 *
 *	context     a file and a line, or a file and code -> ranked items
 *	search      free text or identifiers -> ranked items
 *	definition  a symbol name -> its definitions, with enclosing headers
 *	outline     a file -> its definition tree with line ranges
 *
 * Each result is structuredContent (fitting the output schema) and the
 * same as compact Markdown text. Anything wrong with a call (a path
 * outside the roots, a missing file, a line past the end) is a tool
 * error: a result with isError and a message that says what to change.
 */
#include "mcp_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIGNATURE_MAX 160 /* bytes of an outline entry's signature */

/* ---------------------------------------------------------------------- *
 * Schemas
 * ---------------------------------------------------------------------- */

/* The schemas are JSON text laid out by hand, which clang-format would
 * break at every macro. */
/* clang-format off */
#define S_STR(desc) "{\"type\":\"string\",\"description\":\"" desc "\"}"
#define S_BUDGET                                                       \
	"\"budget\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":200000," \
	"\"description\":\"Tokens the whole answer may take (about 4 "   \
	"bytes each; default 2000).\"}"
#define S_LINES                                                        \
	"\"startLine\":{\"type\":\"integer\"},\"endLine\":{\"type\":\"integer\"}"
#define S_PARENTS                                                      \
	"\"parents\":{\"type\":\"array\",\"description\":\"Enclosing "     \
	"definitions, outermost first.\",\"items\":{\"type\":\"object\","  \
	"\"properties\":{\"kind\":{\"type\":\"string\"},\"name\":{\"type\":" \
	"\"string\"}," S_LINES ",\"header\":{\"type\":\"string\"}},"       \
	"\"required\":[\"kind\",\"name\",\"startLine\",\"endLine\","       \
	"\"header\"]}}"
#define S_INDEXING                                                     \
	"\"indexing\":{\"type\":\"boolean\",\"description\":\"The "        \
	"workspace was still being indexed: the answer may miss code.\"}," \
	"\"note\":" S_STR("Anything the answer should be read with.")
#define S_ITEMS                                                        \
	"\"items\":{\"type\":\"array\",\"description\":\"Best first.\","   \
	"\"items\":{\"type\":\"object\",\"properties\":{"                  \
	"\"path\":" S_STR("Relative to the workspace root (absolute with " \
			  "several roots).") ","                           \
	S_LINES ",\"symbol\":" S_STR("Innermost enclosing definition.") "," \
	"\"kind\":{\"type\":\"string\"},\"language\":{\"type\":\"string\"}," \
	"\"why\":" S_STR("Why it ranked, in words.") ","                  \
	"\"score\":{\"type\":\"number\"}," S_PARENTS ","                   \
	"\"clipped\":{\"type\":\"boolean\"},"                              \
	"\"text\":" S_STR("The code, whole lines.") "},"                   \
	"\"required\":[\"path\",\"startLine\",\"endLine\",\"symbol\","     \
	"\"kind\",\"language\",\"why\",\"score\",\"parents\",\"clipped\"," \
	"\"text\"]}},"                                                     \
	"\"budget\":{\"type\":\"object\",\"properties\":{\"limit\":"       \
	"{\"type\":\"integer\"},\"used\":{\"type\":\"integer\"},\"unit\":" \
	"{\"type\":\"string\"}},\"required\":[\"limit\",\"used\","         \
	"\"unit\"]},"                                                      \
	"\"noContext\":{\"type\":\"boolean\",\"description\":\"The stop "  \
	"signal: nothing related was worth the space.\"}"

static const char context_in[] =
	"{\"type\":\"object\",\"properties\":{"
	"\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,"
	"\"description\":\"The file, relative to the workspace root or "
	"absolute.\"},"
	"\"line\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000000000,"
	"\"description\":\"1-based "
	"line of the cursor; without column, the cursor is at the end of "
	"the line.\"},"
	"\"column\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000000000,"
	"\"description\":"
	"\"1-based column, in characters.\"},"
	"\"code\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":1000000,"
	"\"description\":\"Instead of line (or with it): code you are reading "
	"or about to write in this file. Found in the file, the cursor goes "
	"to its end; otherwise it counts as unsaved new code, inserted "
	"before line or appended to the file, which need not exist yet.\"},"
	S_BUDGET ","
	"\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100,"
	"\"description\":\"Items at most (default 20).\"}},"
	"\"required\":[\"path\"],\"additionalProperties\":false}";

static const char context_out[] =
	"{\"type\":\"object\",\"properties\":{" S_ITEMS ","
	"\"cursor\":{\"type\":\"object\",\"properties\":{\"path\":"
	"{\"type\":\"string\"},\"line\":{\"type\":\"integer\"},\"column\":"
	"{\"type\":\"integer\"}},\"required\":[\"path\",\"line\",\"column\"]},"
	"\"code\":{\"type\":\"string\",\"enum\":[\"found\",\"inserted\","
	"\"appended\",\"new file\"],\"description\":\"Where the code "
	"given went.\"},"
	S_INDEXING "},"
	"\"required\":[\"items\",\"budget\",\"noContext\",\"cursor\","
	"\"indexing\"]}";

static const char search_in[] =
	"{\"type\":\"object\",\"properties\":{"
	"\"query\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":2000,"
	"\"description\":\"Words, identifiers or code to look for, e.g. "
	"'parse config' or 'retryPolicy'.\"}," S_BUDGET ","
	"\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100,"
	"\"description\":\"Items at most (default 20).\"}},"
	"\"required\":[\"query\"],\"additionalProperties\":false}";

static const char search_out[] =
	"{\"type\":\"object\",\"properties\":{" S_ITEMS "," S_INDEXING "},"
	"\"required\":[\"items\",\"budget\",\"noContext\",\"indexing\"]}";

static const char definition_in[] =
	"{\"type\":\"object\",\"properties\":{"
	"\"symbol\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":500,"
	"\"description\":\"A name, e.g. 'grand_total', or qualified: "
	"'Cart.grand_total', 'shop.models.Cart'.\"}," S_BUDGET ","
	"\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":50,"
	"\"description\":\"Definitions at most (default 10).\"}},"
	"\"required\":[\"symbol\"],\"additionalProperties\":false}";

static const char definition_out[] =
	"{\"type\":\"object\",\"properties\":{"
	"\"definitions\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
	"\"properties\":{\"path\":{\"type\":\"string\"}," S_LINES ","
	"\"kind\":{\"type\":\"string\"},\"name\":{\"type\":\"string\"},"
	"\"qualname\":{\"type\":\"string\"},\"language\":{\"type\":\"string\"},"
	S_PARENTS ",\"clipped\":{\"type\":\"boolean\"},"
	"\"text\":{\"type\":\"string\"}},"
	"\"required\":[\"path\",\"startLine\",\"endLine\",\"kind\",\"name\","
	"\"qualname\",\"language\",\"parents\",\"clipped\",\"text\"]}},"
	"\"suggestions\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
	"\"description\":\"Defined names like the one asked for, when "
	"nothing matched.\"},"
	"\"truncated\":{\"type\":\"boolean\"}," S_INDEXING "},"
	"\"required\":[\"definitions\",\"suggestions\",\"truncated\","
	"\"indexing\"]}";

static const char outline_in[] =
	"{\"type\":\"object\",\"properties\":{"
	"\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,"
	"\"description\":\"The file, relative to the workspace root or "
	"absolute.\"}," S_BUDGET "},"
	"\"required\":[\"path\"],\"additionalProperties\":false}";

static const char outline_out[] =
	"{\"type\":\"object\",\"properties\":{"
	"\"path\":{\"type\":\"string\"},\"language\":{\"type\":\"string\"},"
	"\"lines\":{\"type\":\"integer\"},"
	"\"symbols\":{\"type\":\"array\",\"description\":\"In file order; a "
	"parent comes before its children.\",\"items\":{\"type\":\"object\","
	"\"properties\":{\"kind\":{\"type\":\"string\"},\"name\":{\"type\":"
	"\"string\"},\"qualname\":{\"type\":\"string\"}," S_LINES ","
	"\"depth\":{\"type\":\"integer\"},\"parent\":{\"type\":\"integer\","
	"\"description\":\"Index of the parent in symbols, or -1.\"},"
	"\"signature\":{\"type\":\"string\"}},"
	"\"required\":[\"kind\",\"name\",\"qualname\",\"startLine\","
	"\"endLine\",\"depth\",\"parent\",\"signature\"]}},"
	"\"truncated\":{\"type\":\"boolean\"}},"
	"\"required\":[\"path\",\"language\",\"lines\",\"symbols\","
	"\"truncated\"]}";

/* clang-format on */

/* ---------------------------------------------------------------------- *
 * Helpers
 * ---------------------------------------------------------------------- */

void mcp__tool_error(ToolCall *c, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	c->is_error = true;
	c->text.len = 0;
	buf_puts(&c->text, text);
	cJSON_Delete(c->out);
	c->out = NULL;
}

const char *mcp__arg_str(const ToolCall *c, const char *name)
{
	return cJSON_GetStringValue(
	    cJSON_GetObjectItemCaseSensitive(c->args, name));
}

/* A whole number argument (the schema checked it), or dflt. */
uint32_t mcp__arg_u32(const ToolCall *c, const char *name, uint32_t dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(c->args, name);

	if (!cJSON_IsNumber(v))
		return dflt;
	return v->valuedouble <= 0	      ? 0
	       : v->valuedouble >= UINT32_MAX ? UINT32_MAX
					      : (uint32_t)v->valuedouble;
}

uint32_t mcp__budget_of(const ToolCall *c)
{
	return mcp__arg_u32(c, "budget", c->budget);
}

/* The note on an answer given while a first scan runs, into the text
 * and the structured result. */
void mcp__note_indexing(ToolCall *c)
{
	char note[200];

	cJSON_AddBoolToObject(c->out, "indexing", c->indexing);
	if (!c->indexing)
		return;
	snprintf(note, sizeof(note),
		 "castls is still indexing the workspace (%u of %u files so "
		 "far): this answer may miss code; ask again shortly.",
		 c->files_done, c->files_seen);
	cJSON_AddStringToObject(c->out, "note", note);
	buf_printf(&c->text, "Note: %s\n", note);
}

/* Reads the file rp names for a tool; false after a tool error. A file
 * that is not there is an error unless missing_ok (then *text is ""). */
static bool read_text(ToolCall *c, const ResolvedPath *rp, const char *path,
		      bool missing_ok, char **text, size_t *len)
{
	int err;

	*text = NULL;
	*len = 0;
	if (!rp->exists) {
		if (missing_ok) {
			*text = xstrdup("");
			return true;
		}
		mcp__tool_error(c, "no such file: %s", path);
		return false;
	}
	err = castls_read_file(rp->real, c->max_file_size, text, len);
	if (err == CASTLS_ETOOBIG)
		mcp__tool_error(c,
				"%s is larger than %llu bytes, the size castls "
				"reads",
				path, (unsigned long long)c->max_file_size);
	else if (err == CASTLS_ENOENT)
		mcp__tool_error(c, "no such file: %s", path);
	else if (err)
		mcp__tool_error(c, "cannot read %s: %s", path,
				castls_strerror(err));
	else if (castls_is_binary(*text, *len))
		mcp__tool_error(c, "%s is a binary file", path);
	if (!c->is_error)
		return true;
	xfree(*text);
	*text = NULL;
	return false;
}

/* How path is shown: relative to its root with one root, else whole. */
static const char *shown_path(const Workspace *w, const ResolvedPath *rp)
{
	return w->n == 1 ? rp->rel : rp->real;
}

/* ---------------------------------------------------------------------- *
 * context
 * ---------------------------------------------------------------------- */

/* Lines of text: line breaks plus the line after the last one. */
static uint32_t lines_in(const char *text, size_t len)
{
	return castls_count_newlines(text, (uint32_t)len) + 1;
}

/* The byte offset of 1-based line (at most lines_in) and column (in
 * characters, clamped to the line; 0: the end of the line). */
static uint32_t offset_at(const char *text, size_t len, uint32_t line,
			  uint32_t column)
{
	size_t off = 0, end;

	for (uint32_t l = 1; l < line && off < len; off++)
		if (text[off] == '\n')
			l++;
	end = off;
	while (end < len && text[end] != '\n')
		end++;
	if (end > off && text[end - 1] == '\r')
		end--;
	if (!column)
		return (uint32_t)end;
	while (--column && off < end)
		for (off++;
		     off < end && !utf8_is_lead((unsigned char)text[off]);)
			off++;
	return (uint32_t)off;
}

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

/* Whether line [a, a_end) equals [b, b_end) but for leading and
 * trailing blanks. */
static bool same_line(const char *a, const char *a_end, const char *b,
		      const char *b_end)
{
	a = skip_blank(a, a_end);
	b = skip_blank(b, b_end);
	while (a_end > a && strchr(" \t\r", a_end[-1]))
		a_end--;
	while (b_end > b && strchr(" \t\r", b_end[-1]))
		b_end--;
	return a_end - a == b_end - b && memcmp(a, b, (size_t)(a_end - a)) == 0;
}

/* The first place of needle[0, n) in hay[0, len), or NULL (memmem is
 * not standard C). */
static const char *find_bytes(const char *hay, size_t len, const char *needle,
			      size_t n)
{
	for (const char *p = hay; n && (size_t)(hay + len - p) >= n;) {
		p = memchr(p, needle[0], (size_t)(hay + len - p) - n + 1);
		if (!p)
			return NULL;
		if (memcmp(p, needle, n) == 0)
			return p;
		p++;
	}
	return NULL;
}

/* Where code ends in text: an exact match (trailing blanks of code
 * aside), else a run of lines equal to code's non-blank lines but for
 * indentation. Returns the byte after the match, or -1. */
static long find_code(const char *text, size_t len, const char *code)
{
	size_t n = strlen(code);
	const char *hit, *first, *tend = text + len;

	while (n && is_space_byte((unsigned char)code[n - 1]))
		n--;
	if (!n)
		return -1;
	first = code;
	/* Not strstr: text may hold NUL bytes. */
	hit = find_bytes(text, len, code, n);
	if (hit)
		return (long)(hit - text + (long)n);
	for (const char *t = text; t < tend;) {
		const char *c = first, *u = t, *last_end = NULL;

		for (;;) {
			const char *c_end =
			    memchr(c, '\n', (size_t)(code + n - c));
			const char *u_end;

			if (!c_end)
				c_end = code + n;
			if (skip_blank(c, c_end) == c_end) { /* blank in code */
				if (c_end == code + n)
					break;
				c = c_end + 1;
				continue;
			}
			while (u < tend) { /* blank lines in text */
				u_end = memchr(u, '\n', (size_t)(tend - u));
				if (!u_end)
					u_end = tend;
				if (skip_blank(u, u_end) != u_end)
					break;
				u = u_end + (u_end < tend);
			}
			if (u >= tend)
				break;
			u_end = memchr(u, '\n', (size_t)(tend - u));
			if (!u_end)
				u_end = tend;
			if (!same_line(c, c_end, u, u_end)) {
				last_end = NULL;
				break;
			}
			last_end = u_end;
			u = u_end + (u_end < tend);
			if (c_end == code + n)
				break;
			c = c_end + 1;
		}
		if (last_end &&
		    (c >= code + n ||
		     memchr(c, '\n', (size_t)(code + n - c)) == NULL))
			return (
			    long)(last_end - text -
				  (last_end > text && last_end[-1] == '\r'));
		t = memchr(t, '\n', (size_t)(tend - t));
		if (!t)
			break;
		t++;
	}
	return -1;
}

typedef struct {
	char *text; /* the buffer ranked (owned) */
	size_t len;
	uint32_t cursor;  /* byte offset */
	const char *code; /* where code went, or NULL */
} Buffer;

/* The buffer and cursor for a context call; false after a tool error. */
static bool context_buffer(ToolCall *c, const ResolvedPath *rp,
			   const char *path, Buffer *b)
{
	const char *code = mcp__arg_str(c, "code");
	uint32_t line = mcp__arg_u32(c, "line", 0),
		 column = mcp__arg_u32(c, "column", 0);
	char *disk;
	size_t len;
	long end;

	memset(b, 0, sizeof(*b));
	if (column && !line) {
		mcp__tool_error(c, "column needs line");
		return false;
	}
	if (!line && !code) {
		mcp__tool_error(c,
				"give line (1-based) or code to say where "
				"in %s",
				path);
		return false;
	}
	if (!read_text(c, rp, path, code != NULL, &disk, &len))
		return false;
	if (line > lines_in(disk, len)) {
		mcp__tool_error(
		    c, "line %u is past the end of %s (%u lines)", line, path,
		    lines_in(disk, len) - (len && disk[len - 1] == '\n'));
		xfree(disk);
		return false;
	}
	if (!code) {
		b->text = disk;
		b->len = len;
		b->cursor = offset_at(disk, len, line, column);
		return true;
	}
	if (!line && rp->exists && (end = find_code(disk, len, code)) >= 0) {
		b->text = disk;
		b->len = len;
		b->cursor = (uint32_t)end;
		b->code = "found";
		return true;
	} else {
		/* New code: before line, or after the last one. */
		size_t at = line ? offset_at(disk, len, line, 1) : len;
		size_t n = strlen(code);
		Buf t = {0};

		buf_append(&t, disk, at);
		if (at && disk[at - 1] != '\n')
			buf_puts(&t, "\n");
		buf_append(&t, code, n);
		b->cursor = (uint32_t)t.len;
		if (at < len && code[n - 1] != '\n')
			buf_puts(&t, "\n");
		buf_append(&t, disk + at, len - at);
		b->len = t.len;
		b->text = buf_take(&t);
		b->code = !rp->exists ? "new file"
			  : line      ? "inserted"
				      : "appended";
	}
	xfree(disk);
	if (b->len > CHUNKER_MAX_INPUT) {
		mcp__tool_error(c, "%s with the code given is too large", path);
		xfree(b->text);
		return false;
	}
	return true;
}

/* The cursor as {path, line, column}, 1-based, column in characters. */
static void add_cursor(cJSON *o, const char *path, const Buffer *b)
{
	cJSON *cur = cJSON_AddObjectToObject(o, "cursor");
	uint32_t line = castls_count_newlines(b->text, b->cursor) + 1;
	uint32_t col = 1;

	for (uint32_t i = b->cursor; i > 0 && b->text[i - 1] != '\n'; i--)
		col += utf8_is_lead((unsigned char)b->text[i - 1]);
	cJSON_AddStringToObject(cur, "path", path);
	cJSON_AddNumberToObject(cur, "line", line);
	cJSON_AddNumberToObject(cur, "column", col);
}

/* The text and structured result of ranked items, within budget: the
 * head (summary, notes) first, then as many items as fit. */
static void ranked_result(ToolCall *c, const RankResult *res,
			  const McpNames *names, const char *about)
{
	uint32_t budget = mcp__budget_of(c), shown, tokens;
	Buf items = {0}, head = {0};
	cJSON *b;
	size_t reserve;

	/* The head with the largest count it may show, so what the items
	 * leave is enough for the real one. */
	buf_printf(&head, "%u items for %s, best first:\n\n", RANK_MAX_ITEMS,
		   about);
	reserve = head.len + c->text.len;
	head.len = 0;
	shown = mcp_prompt_items(
	    res, names,
	    budget > rank_tokens(reserve) ? budget - rank_tokens(reserve) : 0,
	    &items, &tokens);
	if (shown)
		buf_printf(&head, "%u item%s for %s, best first:\n\n", shown,
			   shown == 1 ? "" : "s", about);
	else if (res->nitems)
		buf_printf(&head,
			   "Nothing for %s fits in %u tokens; ask with "
			   "a larger budget.\n",
			   about, budget);
	else
		buf_printf(&head,
			   "No related code worth the space for %s "
			   "(noContext).\n",
			   about);
	buf_append(&c->text, head.data, head.len);
	if (items.len)
		buf_append(&c->text, items.data, items.len);
	cJSON_AddItemToObject(c->out, "items",
			      mcp__render_items(res, shown, names));
	b = cJSON_AddObjectToObject(c->out, "budget");
	cJSON_AddNumberToObject(b, "limit", budget);
	cJSON_AddNumberToObject(b, "used", rank_tokens(c->text.len));
	cJSON_AddStringToObject(b, "unit", "tokens");
	cJSON_AddBoolToObject(c->out, "noContext", shown == 0);
	buf_free(&items);
	buf_free(&head);
}

static void context_run(ToolCall *c)
{
	const char *path = mcp__arg_str(c, "path");
	Workspace w;
	ResolvedPath rp;
	Buffer b;
	RankCursor q = {0};
	RankResult res = {0};
	McpNames names;
	TSTree *tree;
	char why[512];
	Buf about = {0};

	mcp__workspace_borrow(c->s, &w);
	if (mcp__path_resolve(&w, path, &rp, why, sizeof(why))) {
		mcp__tool_error(c, "%s", why);
		mcp__workspace_return(c->s, &w);
		return;
	}
	if (!context_buffer(c, &rp, path, &b))
		goto out;
	q.roots = w.rank;
	q.nroots = w.n;
	q.chunker = mcp__server_chunker_acquire(c->s);
	q.root = rp.root;
	q.rel = rp.rel;
	q.lang = lang_detect(rp.real, b.text, b.len);
	q.text = b.text;
	q.len = (uint32_t)b.len;
	q.tree = tree =
	    mcp__server_tree(c->s, q.chunker, rp.real, q.lang, b.text, q.len);
	q.cursor = b.cursor;
	q.budget = mcp__budget_of(c);
	q.limit = mcp__arg_u32(c, "limit", 0);
	rank_context(&q, &res);
	if (tree)
		ts_tree_delete(tree);
	mcp__server_chunker_release(c->s, q.chunker);
	names.roots = (const char *const *)w.prefix;
	names.buffer = shown_path(&w, &rp);
	c->out = cJSON_CreateObject();
	mcp__note_indexing(c);
	buf_printf(&about, "%s:%u", names.buffer,
		   castls_count_newlines(b.text, b.cursor) + 1);
	ranked_result(c, &res, &names, about.data);
	add_cursor(c->out, names.buffer, &b);
	if (b.code)
		cJSON_AddStringToObject(c->out, "code", b.code);
	rank_result_free(&res);
	buf_free(&about);
	xfree(b.text);
out:
	xfree(rp.real);
	mcp__workspace_return(c->s, &w);
}

/* ---------------------------------------------------------------------- *
 * search
 * ---------------------------------------------------------------------- */

static void search_run(ToolCall *c)
{
	const char *query = mcp__arg_str(c, "query");
	Workspace w;
	RankResult res;
	McpNames names;
	Buf about = {0};

	mcp__workspace_borrow(c->s, &w);
	rank_search(w.rank, w.n, query, strlen(query), mcp__budget_of(c),
		    mcp__arg_u32(c, "limit", 0), &res);
	names.roots = (const char *const *)w.prefix;
	names.buffer = NULL;
	c->out = cJSON_CreateObject();
	mcp__note_indexing(c);
	buf_puts(&about, "\"");
	buf_append(&about, query, strcspn(query, "\r\n"));
	buf_puts(&about, "\"");
	ranked_result(c, &res, &names, about.data);
	rank_result_free(&res);
	buf_free(&about);
	mcp__workspace_return(c->s, &w);
}

/* ---------------------------------------------------------------------- *
 * outline
 * ---------------------------------------------------------------------- */

/* The line of a header that names the definition: the first one that is
 * not a decorator, trimmed, at most SIGNATURE_MAX bytes (whole UTF-8
 * characters). */
static char *signature_of(const char *header)
{
	const char *line = header, *nl;
	size_t n;

	while (*line == '@' && (nl = strchr(line, '\n'))) {
		line = nl + 1;
		line += strspn(line, " \t");
	}
	line += strspn(line, " \t");
	n = strcspn(line, "\n");
	while (n && is_space_byte((unsigned char)line[n - 1]))
		n--;
	if (n > SIGNATURE_MAX) {
		n = SIGNATURE_MAX;
		while (n && !utf8_is_lead((unsigned char)line[n]))
			n--;
	}
	return xstrndup(line, n);
}

static void outline_run(ToolCall *c)
{
	const char *path = mcp__arg_str(c, "path");
	size_t budget_bytes = (size_t)mcp__budget_of(c) * 4, len;
	Workspace w;
	ResolvedPath rp;
	Chunking ch;
	Chunker *chunker;
	TSTree *tree;
	cJSON *syms;
	char why[512], *text = NULL;
	uint32_t shown = 0, *depth = NULL;
	Buf head = {0}, lines = {0};
	Lang lang;
	int err;

	mcp__workspace_borrow(c->s, &w);
	if (mcp__path_resolve(&w, path, &rp, why, sizeof(why))) {
		mcp__tool_error(c, "%s", why);
		goto out;
	}
	if (!read_text(c, &rp, path, false, &text, &len))
		goto out;
	lang = lang_detect(rp.real, text, len);
	chunker = mcp__server_chunker_acquire(c->s);
	tree =
	    mcp__server_tree(c->s, chunker, rp.real, lang, text, (uint32_t)len);
	/* chunker_spans finds no Markdown sections (they come from the
	 * chunking, not a grammar): Markdown is chunked whole. */
	err =
	    lang == LANG_MARKDOWN
		? chunker_run(chunker, lang, text, (uint32_t)len, NULL, &ch)
		: chunker_spans(chunker, lang, text, (uint32_t)len, tree, &ch);
	if (tree)
		ts_tree_delete(tree);
	mcp__server_chunker_release(c->s, chunker);
	if (err) {
		mcp__tool_error(
		    c,
		    "no outline for %s: %s (castls reads Python, "
		    "TypeScript, TSX, JavaScript, shell and Markdown)",
		    path, castls_strerror(err));
		goto out;
	}
	c->out = cJSON_CreateObject();
	cJSON_AddStringToObject(c->out, "path", shown_path(&w, &rp));
	cJSON_AddStringToObject(c->out, "language", lang_name(lang));
	cJSON_AddNumberToObject(c->out, "lines",
				lines_in(text, len) -
				    (len && text[len - 1] == '\n'));
	syms = cJSON_AddArrayToObject(c->out, "symbols");
	buf_printf(&head, "%s (%s, %u lines): %u definitions\n",
		   shown_path(&w, &rp), lang_name(lang),
		   lines_in(text, len) - (len && text[len - 1] == '\n'),
		   ch.nspans);
	depth = xcalloc(ch.nspans + 1, sizeof(*depth));
	for (uint32_t i = 0; i < ch.nspans; i++) {
		const Span *sp = &ch.spans[i];
		char *sig = signature_of(sp->header);
		cJSON *o;
		size_t before = lines.len;

		depth[i] = sp->parent >= 0 ? depth[sp->parent] + 1 : 0;
		buf_printf(&lines, "%*s%u-%u %s\n", (int)depth[i] * 2, "",
			   sp->lines.start + 1, sp->lines.end + 1,
			   *sig ? sig : sp->qualname);
		if (head.len + lines.len + 40 > budget_bytes) {
			lines.len = before;
			xfree(sig);
			break;
		}
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "kind", span_kind_name(sp->kind));
		cJSON_AddStringToObject(o, "name", sp->name);
		cJSON_AddStringToObject(o, "qualname", sp->qualname);
		mcp__render_lines(o, sp->lines);
		cJSON_AddNumberToObject(o, "depth", depth[i]);
		cJSON_AddNumberToObject(o, "parent", sp->parent);
		cJSON_AddStringToObject(o, "signature", sig);
		cJSON_AddItemToArray(syms, o);
		xfree(sig);
		shown++;
	}
	buf_append(&c->text, head.data, head.len);
	if (lines.len)
		buf_append(&c->text, lines.data, lines.len);
	if (shown < ch.nspans)
		buf_printf(&c->text,
			   "... %u more definitions: ask with a "
			   "larger budget\n",
			   ch.nspans - shown);
	cJSON_AddBoolToObject(c->out, "truncated", shown < ch.nspans);
	chunking_close(&ch);
out:
	xfree(depth);
	xfree(text);
	xfree(rp.real);
	buf_free(&head);
	buf_free(&lines);
	mcp__workspace_return(c->s, &w);
}

/* ---------------------------------------------------------------------- *
 * The table
 * ---------------------------------------------------------------------- */

static const Tool tools[] = {
    {"context", "Code context at a place",
     "The code elsewhere in the repository that the code at a place in a "
     "file depends on, ranked and packed into a token budget: definitions "
     "of the names used there, what its imports bring, the class being "
     "written, similar code, each with why it ranked. Use it before "
     "editing or writing code at a known spot (a file and line, or the "
     "code you are about to write) instead of searching for each name.",
     context_in, context_out, context_run, true, false},
    {"search", "Search code",
     "Ranked code chunks for free text or identifiers across the "
     "workspace, with their enclosing definitions. Use it to find where "
     "something is done when you do not know the file.",
     search_in, search_out, search_run, true, true},
    {"definition", "Find a definition",
     "Where a symbol is defined: its definitions with their code and the "
     "headers of the classes around them. Use it when you know the name "
     "(grand_total, Cart.grand_total), instead of grep.",
     definition_in, definition_out, mcp__definition_run, true, true},
    {"outline", "Outline a file",
     "The definitions in one file as a tree (classes, functions, methods, "
     "sections) with line ranges and signatures. Use it to see a file's "
     "shape before reading parts of it.",
     outline_in, outline_out, outline_run, false, false},
};

#define NTOOLS (sizeof(tools) / sizeof(*tools))

/* The schemas parsed: [i][0] input, [i][1] output. */
static cJSON *parsed[NTOOLS][2];

int mcp__tools_init(void)
{
	for (size_t i = 0; i < NTOOLS; i++) {
		if (!parsed[i][0])
			parsed[i][0] = cJSON_Parse(tools[i].input_schema);
		if (!parsed[i][1])
			parsed[i][1] = cJSON_Parse(tools[i].output_schema);
		if (!parsed[i][0] || !parsed[i][1])
			return CASTLS_EINVAL;
	}
	return 0;
}

void mcp__tools_free(void)
{
	for (size_t i = 0; i < NTOOLS; i++) {
		cJSON_Delete(parsed[i][0]);
		cJSON_Delete(parsed[i][1]);
		parsed[i][0] = parsed[i][1] = NULL;
	}
}

const Tool *mcp__tools_find(const char *name)
{
	for (size_t i = 0; name && i < NTOOLS; i++)
		if (strcmp(tools[i].name, name) == 0)
			return &tools[i];
	return NULL;
}

bool mcp__tools_check_args(const Tool *tool, const cJSON *args, char *why,
			   size_t cap)
{
	size_t i = (size_t)(tool - tools);

	return mcp__schema_check(parsed[i][0], args, "", why, cap);
}

cJSON *mcp__tools_list_json(bool structured, bool annotated)
{
	cJSON *list = cJSON_CreateArray();

	for (size_t i = 0; i < NTOOLS; i++) {
		cJSON *t = cJSON_CreateObject(), *a;

		cJSON_AddStringToObject(t, "name", tools[i].name);
		if (structured)
			cJSON_AddStringToObject(t, "title", tools[i].title);
		cJSON_AddStringToObject(t, "description", tools[i].description);
		cJSON_AddItemToObject(t, "inputSchema",
				      cJSON_Duplicate(parsed[i][0], 1));
		if (structured)
			cJSON_AddItemToObject(t, "outputSchema",
					      cJSON_Duplicate(parsed[i][1], 1));
		if (annotated) {
			a = cJSON_AddObjectToObject(t, "annotations");
			if (structured)
				cJSON_AddStringToObject(a, "title",
							tools[i].title);
			cJSON_AddBoolToObject(a, "readOnlyHint", true);
			cJSON_AddBoolToObject(a, "destructiveHint", false);
			cJSON_AddBoolToObject(a, "idempotentHint", true);
			cJSON_AddBoolToObject(a, "openWorldHint", false);
		}
		cJSON_AddItemToArray(list, t);
	}
	return list;
}
