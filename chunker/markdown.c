/*
 * markdown.c: the section tree of a Markdown file. There is no grammar for
 * Markdown, so a line scanner recognises the block structure that matters
 * for cutting: CommonMark ATX and setext headings, fenced code, HTML
 * blocks, thematic breaks and list items, GFM tables and front matter.
 * A second pass nests the sections by heading level with a fixed stack:
 * nothing recurses, whatever the input.
 *
 * The scanner does not build a full CommonMark document. It only has to
 * answer two questions correctly: which lines are headings of the
 * document (not of a list item, a fence or an HTML comment), and where a
 * block may be cut (at blank lines between blocks, never inside a fence,
 * an HTML block or a table).
 */
#include "chunker_int.h"

#include <string.h>

#define MD_LEVEL_MAX 6	 /* ###### */
#define MD_LIST_MAX 16	 /* nested list items tracked; deeper share one */
#define MD_NAME_MAX 256	 /* bytes kept of a section name */
#define MD_DOC_MAX 1024	 /* bytes kept of a section's doc paragraph */
#define MD_FENCE_MIN 3	 /* ``` or ~~~ */
#define MD_TAB_STOP 4	 /* CommonMark tab stops */
#define MD_CODE_INDENT 4 /* columns that make a line indented code */
#define MD_QSEP " > "

typedef enum {
	MD_FRONT,   /* YAML or TOML front matter at byte 0 */
	MD_HEADING, /* the heading line(s) of a section */
	MD_PARA,    /* a plain paragraph (may become a setext heading) */
	MD_TEXT,    /* list, block quote, indented code, other HTML */
	MD_FENCE,   /* fenced code block */
	MD_TABLE,   /* GFM table or lines of |-rows */
	MD_HTML,    /* HTML block that runs to its end marker */
	MD_BREAK    /* thematic break */
} MdKind;

/* One top-level block, in file order. */
typedef struct {
	MdKind kind;
	uint32_t level;	     /* headings: 1..6 */
	uint32_t start, end; /* bytes; end is past the last line's ending */
	uint32_t name_start, name_end; /* headings: the raw name text */
	uint32_t sec_end; /* headings: end of the section, exclusive */
} MdItem;

typedef struct {
	uint32_t start, eol, next; /* eol: before "\r\n", "\n" or "\r" */
	uint32_t first;		   /* first byte that is not a space or tab */
	uint32_t indent; /* columns before first, tabs to MD_TAB_STOP */
} Line;

typedef struct {
	const char *t;
	uint32_t len;
	MdItem *items;
	uint32_t n, cap;
	/* Content columns of the list items the scan is inside. */
	uint32_t lists[MD_LIST_MAX];
	int nlists;
	/* The open text block (paragraph, list, quote, indented code). */
	bool open, para;
	uint32_t bstart, bfirst, bend, beol;
} Scan;

/* ---------------------------------------------------------------------- *
 * Lines
 * ---------------------------------------------------------------------- */

static bool is_blank_char(char c) { return c == ' ' || c == '\t'; }

/* Reads the line starting at pos (< len). A UTF-8 byte order mark at the
 * start of the file counts as neither text nor indentation. */
static void line_at(const char *t, uint32_t len, uint32_t pos, Line *l)
{
	uint32_t i = pos, col = 0;

	if (pos == 0 && len >= 3 && memcmp(t, "\xEF\xBB\xBF", 3) == 0)
		i = 3;
	l->start = pos;
	for (; i < len && is_blank_char(t[i]); i++)
		col = t[i] == '\t' ? col + MD_TAB_STOP - col % MD_TAB_STOP
				   : col + 1;
	l->first = i;
	l->indent = col;
	while (i < len && t[i] != '\n' && t[i] != '\r')
		i++;
	l->eol = i;
	if (i + 1 < len && t[i] == '\r' && t[i + 1] == '\n')
		i += 2;
	else if (i < len)
		i++;
	l->next = i;
}

static bool line_blank(const Line *l) { return l->first == l->eol; }

/* Length of the run of c at p, stopping at end. */
static uint32_t run_of(const char *t, uint32_t p, uint32_t end, char c)
{
	uint32_t i = p;

	while (i < end && t[i] == c)
		i++;
	return i - p;
}

/* True when [p, end) holds only spaces and tabs. */
static bool only_blanks(const char *t, uint32_t p, uint32_t end)
{
	for (; p < end; p++)
		if (!is_blank_char(t[p]))
			return false;
	return true;
}

static bool line_has_char(const char *t, const Line *l, char c)
{
	return memchr(t + l->first, c, l->eol - l->first) != NULL;
}

/* Case-insensitive search for ASCII needle in [p, end). */
static bool has_text(const char *t, uint32_t p, uint32_t end,
		     const char *needle)
{
	size_t n = strlen(needle), k;

	for (; p + n <= end; p++) {
		for (k = 0; k < n; k++) {
			char c = t[p + k];

			if (c >= 'A' && c <= 'Z')
				c = (char)(c - 'A' + 'a');
			if (c != needle[k])
				break;
		}
		if (k == n)
			return true;
	}
	return false;
}

/* ---------------------------------------------------------------------- *
 * Line shapes
 * ---------------------------------------------------------------------- */

/* ATX heading level (1..6) of l, or 0. Indentation is checked by the
 * caller. */
static uint32_t atx_level(const char *t, const Line *l)
{
	uint32_t n = run_of(t, l->first, l->eol, '#');
	uint32_t after = l->first + n;

	if (n == 0 || n > MD_LEVEL_MAX)
		return 0;
	return after == l->eol || is_blank_char(t[after]) ? n : 0;
}

/* The name of an ATX heading: after the opening hashes, without the
 * optional closing sequence, trimmed. */
static void atx_name(const char *t, const Line *l, uint32_t level, uint32_t *a,
		     uint32_t *b)
{
	uint32_t s = l->first + level, e = l->eol, h;

	while (s < e && is_blank_char(t[s]))
		s++;
	while (e > s && is_blank_char(t[e - 1]))
		e--;
	h = e;
	while (h > s && t[h - 1] == '#')
		h--;
	/* "# C#" keeps its hash; "# Title ##" and "# ###" lose theirs. */
	if (h == s || is_blank_char(t[h - 1])) {
		e = h;
		while (e > s && is_blank_char(t[e - 1]))
			e--;
	}
	*a = s;
	*b = e;
}

/* '=' or '-' when l is a setext underline, else 0. */
static char setext_char(const char *t, const Line *l)
{
	char c = t[l->first];
	uint32_t n;

	if (l->indent >= MD_CODE_INDENT || (c != '=' && c != '-'))
		return 0;
	n = run_of(t, l->first, l->eol, c);
	return only_blanks(t, l->first + n, l->eol) ? c : 0;
}

/* Three or more of one of - * _, with only spaces and tabs between. */
static bool thematic_break(const char *t, const Line *l)
{
	char c = t[l->first];
	uint32_t i, n = 0;

	if (c != '-' && c != '*' && c != '_')
		return false;
	for (i = l->first; i < l->eol; i++) {
		if (t[i] == c)
			n++;
		else if (!is_blank_char(t[i]))
			return false;
	}
	return n >= 3;
}

/* The content column of a list item starting on l, or -1. */
static int list_marker(const char *t, const Line *l)
{
	uint32_t p = l->first, d, sp;

	if (p < l->eol && (t[p] == '-' || t[p] == '+' || t[p] == '*')) {
		p++;
	} else {
		d = 0;
		while (p < l->eol && t[p] >= '0' && t[p] <= '9' && d < 10)
			p++, d++;
		if (d == 0 || d > 9 || p == l->eol ||
		    (t[p] != '.' && t[p] != ')'))
			return -1;
		p++;
	}
	if (p < l->eol && !is_blank_char(t[p]))
		return -1;
	sp = 0;
	while (p + sp < l->eol && t[p + sp] == ' ')
		sp++;
	/* Five or more spaces: the item starts with indented code. */
	if (sp == 0 || sp > MD_CODE_INDENT || p + sp == l->eol)
		sp = 1;
	return (int)(l->indent + (p - l->first) + sp);
}

/* An opening code fence at p: its character and length. */
static bool fence_open(const char *t, uint32_t p, uint32_t eol, char *ch,
		       uint32_t *n)
{
	char c = p < eol ? t[p] : 0;
	uint32_t k;

	if (c != '`' && c != '~')
		return false;
	k = run_of(t, p, eol, c);
	if (k < MD_FENCE_MIN)
		return false;
	/* A backtick fence's info string may not hold a backtick. */
	if (c == '`' && memchr(t + p + k, '`', eol - p - k))
		return false;
	*ch = c;
	*n = k;
	return true;
}

/*
 * The end of a fence opened at the line before from: past its closing
 * line, or the end of the text when unclosed. Inside a list item (box > 0)
 * the fence also ends before a line indented less than the item's content.
 */
static uint32_t fence_end(const Scan *s, uint32_t from, char ch, uint32_t n,
			  uint32_t box)
{
	Line l;
	uint32_t pos = from, k;

	while (pos < s->len) {
		line_at(s->t, s->len, pos, &l);
		if (!line_blank(&l)) {
			if (box && l.indent < box)
				return l.start;
			k = run_of(s->t, l.first, l.eol, ch);
			if (l.indent < box + MD_CODE_INDENT && k >= n &&
			    only_blanks(s->t, l.first + k, l.eol))
				return l.next;
		}
		pos = l.next;
	}
	return s->len;
}

/* HTML blocks that blank lines do not end (CommonMark kinds 1 to 5). */
static const struct {
	const char *open, *close;
	bool tag; /* open must be followed by a space, '>' or the line end */
} html_kinds[] = {
    {"<script", "</script>", true}, {"<pre", "</pre>", true},
    {"<style", "</style>", true},   {"<textarea", "</textarea>", true},
    {"<!--", "-->", false},	    {"<?", "?>", false},
    {"<![cdata[", "]]>", false},
};

/* When l opens such an HTML block, the end of the block, else 0. */
static uint32_t html_end(const Scan *s, const Line *l)
{
	const char *t = s->t;
	uint32_t i, p = l->first;
	const char *close = NULL;
	Line m;

	for (i = 0; i < sizeof(html_kinds) / sizeof(html_kinds[0]); i++) {
		size_t n = strlen(html_kinds[i].open);

		if (p + n > l->eol ||
		    !has_text(t, p, p + n, html_kinds[i].open))
			continue;
		if (html_kinds[i].tag && p + n < l->eol && t[p + n] != '>' &&
		    !is_blank_char(t[p + n]))
			continue;
		close = html_kinds[i].close;
		p += (uint32_t)n;
		break;
	}
	/* <!DOCTYPE and friends end at the first '>'. */
	if (!close && p + 2 < l->eol && t[p] == '<' && t[p + 1] == '!' &&
	    ((t[p + 2] | 0x20) >= 'a' && (t[p + 2] | 0x20) <= 'z')) {
		close = ">";
		p += 2;
	}
	if (!close)
		return 0;
	m = *l;
	for (;;) {
		if (has_text(t, p, m.eol, close))
			return m.next;
		if (m.next >= s->len)
			return s->len;
		line_at(t, s->len, m.next, &m);
		p = m.start;
	}
}

/* Cells of a GFM delimiter row (":--|--:"), or -1 when l is not one. */
static int delim_cells(const char *t, const Line *l)
{
	uint32_t p = l->first, e = l->eol;
	int cells = 0;
	bool pipe = false;

	while (e > p && is_blank_char(t[e - 1]))
		e--;
	if (p < e && t[p] == '|')
		p++, pipe = true;
	if (e > p && t[e - 1] == '|')
		e--, pipe = true;
	while (p < e) {
		while (p < e && is_blank_char(t[p]))
			p++;
		p += p < e && t[p] == ':';
		if (run_of(t, p, e, '-') == 0)
			return -1;
		p += run_of(t, p, e, '-');
		p += p < e && t[p] == ':';
		while (p < e && is_blank_char(t[p]))
			p++;
		cells++;
		if (p < e && t[p] != '|')
			return -1;
		if (p < e)
			p++, pipe = true;
	}
	return pipe ? cells : -1;
}

/* Cells of a table row: unescaped pipes between its outer pipes, + 1. */
static int row_cells(const char *t, const Line *l)
{
	uint32_t p = l->first, e = l->eol;
	int cells = 1;

	while (e > p && is_blank_char(t[e - 1]))
		e--;
	if (p < e && t[p] == '|')
		p++;
	if (e > p && t[e - 1] == '|' && (e - 1 == p || t[e - 2] != '\\'))
		e--;
	for (; p < e; p++) {
		if (t[p] == '\\')
			p++;
		else if (t[p] == '|')
			cells++;
	}
	return cells;
}

/* ---------------------------------------------------------------------- *
 * The block scan
 * ---------------------------------------------------------------------- */

static MdItem *item_add(Scan *s, MdKind kind, uint32_t start, uint32_t end)
{
	MdItem *it;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->items = xrealloc(s->items, s->cap * sizeof(*s->items));
	}
	it = &s->items[s->n++];
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	it->start = start;
	it->end = end;
	return it;
}

static void block_close(Scan *s)
{
	if (s->open)
		item_add(s, s->para ? MD_PARA : MD_TEXT, s->bstart, s->bend);
	s->open = false;
}

/* A line that starts a block of its own even right after text, so it
 * ends a list item it is indented less than. */
static bool interrupts(const Scan *s, const Line *l)
{
	const char *t = s->t;
	char ch;
	uint32_t n;

	if (l->indent >= MD_CODE_INDENT)
		return false;
	return atx_level(t, l) || thematic_break(t, l) || t[l->first] == '|' ||
	       fence_open(t, l->first, l->eol, &ch, &n) || html_end(s, l);
}

/* Leaves the list items that l is indented less than, unless l is a lazy
 * continuation of an open paragraph. */
static void lists_leave(Scan *s, const Line *l, bool marker)
{
	if (!s->nlists || l->indent >= s->lists[s->nlists - 1])
		return;
	if (!marker && s->open && !interrupts(s, l))
		return;
	while (s->nlists && l->indent < s->lists[s->nlists - 1])
		s->nlists--;
}

/* Enters the list item whose content starts at column col. */
static void lists_enter(Scan *s, uint32_t col)
{
	if (s->nlists == MD_LIST_MAX)
		s->nlists--;
	s->lists[s->nlists++] = col;
}

/* Front matter: "---" or "+++" on the first line, closed by the same (or
 * "..." for YAML) on a later one. Returns where the body starts. */
static uint32_t front_matter(Scan *s)
{
	Line l;
	char c;
	uint32_t pos;

	line_at(s->t, s->len, 0, &l);
	if (line_blank(&l))
		return 0;
	c = s->t[l.first];
	if (l.indent || (c != '-' && c != '+') ||
	    run_of(s->t, l.first, l.eol, c) != 3 ||
	    !only_blanks(s->t, l.first + 3, l.eol))
		return 0;
	for (pos = l.next; pos < s->len; pos = l.next) {
		line_at(s->t, s->len, pos, &l);
		if (l.indent == 0 &&
		    (run_of(s->t, l.first, l.eol, c) == 3 ||
		     (c == '-' && run_of(s->t, l.first, l.eol, '.') == 3)) &&
		    only_blanks(s->t, l.first + 3, l.eol)) {
			item_add(s, MD_FRONT, 0, l.next);
			return l.next;
		}
	}
	return 0;
}

/* A table starts at l: a |-led line, or a row with a matching delimiter
 * row under it. Returns its end, or 0. */
static uint32_t table_end(const Scan *s, const Line *l)
{
	const char *t = s->t;
	Line m;
	uint32_t end = l->next;
	char ch;
	uint32_t n;

	if (t[l->first] != '|') {
		if (!line_has_char(t, l, '|') || l->next >= s->len)
			return 0;
		line_at(t, s->len, l->next, &m);
		if (delim_cells(t, &m) != row_cells(t, l))
			return 0;
	}
	/* Rows go on to a blank line, a line without a pipe or a line that
	 * starts another block. */
	while (end < s->len) {
		line_at(t, s->len, end, &m);
		if (line_blank(&m) || !line_has_char(t, &m, '|') ||
		    (m.indent < MD_CODE_INDENT &&
		     (atx_level(t, &m) ||
		      fence_open(t, m.first, m.eol, &ch, &n))))
			break;
		end = m.next;
	}
	return end;
}

static void heading_add(Scan *s, uint32_t level, uint32_t start, uint32_t end,
			uint32_t na, uint32_t nb)
{
	MdItem *it = item_add(s, MD_HEADING, start, end);

	it->level = level;
	it->name_start = na;
	it->name_end = nb;
}

/* Where a fence may open on l: its text, or the text after its list
 * marker. */
static uint32_t fence_at(const char *t, const Line *l, bool marker)
{
	uint32_t a = l->first;

	if (marker)
		while (a < l->eol && !is_blank_char(t[a]))
			a++;
	while (a < l->eol && is_blank_char(t[a]))
		a++;
	return a;
}

/*
 * Scans the line l and returns where the next unscanned line starts
 * (fences, HTML blocks and tables take several lines at once). The order
 * of the tests is CommonMark's order of precedence.
 */
static uint32_t scan_line(Scan *s, const Line *l)
{
	const char *t = s->t;
	int mark;
	uint32_t box, level, a, b, n, end;
	MdKind kind;
	char ch;

	if (line_blank(l)) {
		block_close(s);
		return l->next;
	}
	mark = list_marker(t, l);
	lists_leave(s, l, mark >= 0);
	box = s->nlists ? s->lists[s->nlists - 1] : 0;
	if (l->indent >= box + MD_CODE_INDENT)
		mark = -1; /* indented code, or a lazy line */
	/* Only headings outside list items are sections of the document. */
	if (!s->nlists && l->indent < MD_CODE_INDENT &&
	    (level = atx_level(t, l))) {
		block_close(s);
		atx_name(t, l, level, &a, &b);
		heading_add(s, level, l->start, l->next, a, b);
		return l->next;
	}
	if (s->open && s->para && (ch = setext_char(t, l))) {
		heading_add(s, ch == '=' ? 1 : 2, s->bstart, l->next, s->bfirst,
			    s->beol);
		s->open = false;
		return l->next;
	}
	if (l->indent < box + MD_CODE_INDENT && thematic_break(t, l)) {
		block_close(s);
		item_add(s, MD_BREAK, l->start, l->next);
		return l->next;
	}
	if (mark >= 0) {
		lists_enter(s, (uint32_t)mark);
		box = (uint32_t)mark;
	}
	if ((mark >= 0 || l->indent < box + MD_CODE_INDENT) &&
	    fence_open(t, fence_at(t, l, mark >= 0), l->eol, &ch, &n)) {
		block_close(s);
		end = fence_end(s, l->next, ch, n, box);
		item_add(s, MD_FENCE, l->start, end);
		return end;
	}
	end = l->indent < box + MD_CODE_INDENT ? html_end(s, l) : 0;
	kind = end ? MD_HTML : MD_TABLE;
	if (end || (end = table_end(s, l))) {
		block_close(s);
		item_add(s, kind, l->start, end);
		return end;
	}
	if (!s->open) {
		s->open = true;
		s->para = !s->nlists && l->indent < MD_CODE_INDENT;
		s->bstart = l->start;
		s->bfirst = l->first;
	}
	/* A list or a quote interrupts a paragraph: no setext heading. */
	if (mark >= 0 || t[l->first] == '>')
		s->para = false;
	s->bend = l->next;
	s->beol = l->eol;
	return l->next;
}

static void scan(Scan *s)
{
	Line l;
	uint32_t pos = s->len ? front_matter(s) : 0;

	while (pos < s->len) {
		line_at(s->t, s->len, pos, &l);
		pos = scan_line(s, &l);
	}
	block_close(s);
}

/* ---------------------------------------------------------------------- *
 * Sections
 * ---------------------------------------------------------------------- */

/* Sets sec_end of every heading: the start of the next heading of the
 * same or a higher level, or the end of the text. Open headings have
 * strictly rising levels, so MD_LEVEL_MAX slots are enough. */
static void sections_end(MdItem *items, uint32_t n, uint32_t len)
{
	uint32_t open[MD_LEVEL_MAX], i;
	int d = 0;

	for (i = 0; i < n; i++) {
		if (items[i].kind != MD_HEADING)
			continue;
		while (d && items[open[d - 1]].level >= items[i].level)
			items[open[--d]].sec_end = items[i].start;
		open[d++] = i;
	}
	while (d)
		items[open[--d]].sec_end = len;
}

/* Appends [a, b) to out with each run of whitespace as one space, trimmed
 * and cut to at most max bytes at a character boundary. */
static void text_squeeze(const char *t, uint32_t a, uint32_t b, size_t max,
			 Buf *out)
{
	bool space = false;

	for (; a < b; a++) {
		unsigned char c = (unsigned char)t[a];

		if (is_space_byte(c)) {
			space = out->len > 0;
			continue;
		}
		if (utf8_is_lead(c) && out->len + space + 4 > max)
			break;
		if (space)
			buf_append(out, " ", 1);
		buf_append(out, &t[a], 1);
		space = false;
	}
}

/* The doc of a section: the paragraph right under its heading, trimmed
 * and cut to MD_DOC_MAX bytes at a character boundary. */
static void section_doc(const char *t, const MdItem *para, uint32_t *a,
			uint32_t *b)
{
	uint32_t s = para->start, e = para->end;

	while (s < e && is_space_byte((unsigned char)t[s]))
		s++;
	while (e > s && is_space_byte((unsigned char)t[e - 1]))
		e--;
	if (e - s > MD_DOC_MAX) {
		e = s + MD_DOC_MAX;
		while (e > s && !utf8_is_lead((unsigned char)t[e]))
			e--;
	}
	*a = s;
	*b = e;
}

static int32_t section_span(const Scan *s, uint32_t i, int32_t parent,
			    Chunking *out, uint32_t *span_cap)
{
	const MdItem *it = &s->items[i];
	Buf name = {0};
	uint32_t da = 0, db = 0;
	int32_t span;

	text_squeeze(s->t, it->name_start, it->name_end, MD_NAME_MAX, &name);
	if (i + 1 < s->n && s->items[i + 1].kind == MD_PARA)
		section_doc(s->t, &s->items[i + 1], &da, &db);
	span = spans_add(out, span_cap, SPAN_SECTION, parent,
			 (ByteRange){it->start, it->sec_end}, it->end, s->t,
			 name.len ? name.data : "", name.len, MD_QSEP,
			 s->t + da, db - da);
	buf_free(&name);
	return span;
}

/* An open node while the tree is built: the root or a section. */
typedef struct {
	int32_t node, last; /* last: its last child so far, or -1 */
	int32_t span;
	uint32_t level; /* 0 for the root */
} Frame;

static void child_add(SynTree *tree, Frame *f, int32_t node)
{
	if (f->last < 0)
		tree->nodes[f->node].first_child = node;
	else
		tree->nodes[f->last].next_sibling = node;
	f->last = node;
}

/*
 * The tree: the root holds the blocks before the first heading and the
 * top sections; a section holds its heading as a leaf, then its blocks,
 * then its subsections. tree must be empty, so the root is node 0. A
 * section span's doc is the plain paragraph right under its heading, if
 * there is one (cut to MD_DOC_MAX bytes), else "".
 */
void markdown_build(const char *text, uint32_t len, SynTree *tree,
		    Chunking *out, uint32_t *span_cap)
{
	Scan s = {.t = text, .len = len};
	Frame st[MD_LEVEL_MAX + 1];
	int d = 0;
	uint32_t i;

	scan(&s);
	sections_end(s.items, s.n, len);
	st[0] = (Frame){syntree_add(tree, 0, len), -1, -1, 0};
	for (i = 0; i < s.n; i++) {
		const MdItem *it = &s.items[i];
		int32_t sec;

		if (it->kind != MD_HEADING) {
			child_add(tree, &st[d],
				  syntree_add(tree, it->start, it->end));
			continue;
		}
		while (d > 0 && st[d].level >= it->level)
			d--;
		sec = syntree_add(tree, it->start, it->sec_end);
		child_add(tree, &st[d], sec);
		st[d + 1] = (Frame){
		    sec, -1, section_span(&s, i, st[d].span, out, span_cap),
		    it->level};
		d++;
		child_add(tree, &st[d], syntree_add(tree, it->start, it->end));
	}
	xfree(s.items);
}
