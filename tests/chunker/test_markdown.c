/*
 * test_markdown.c: the Markdown section tree (markdown_build) and the
 * chunks cut from it (chunker_run with LANG_MARKDOWN).
 */
#include "test.h"

#include <stdlib.h>

#include "chunker/chunker.h"
#include "chunker/chunker_int.h"

/* ---------------------------------------------------------------------- *
 * Helpers
 * ---------------------------------------------------------------------- */

typedef struct {
	const char *text;
	uint32_t len;
	SynTree tree;
	Chunking out;
} Md;

static void md_build_n(Md *m, const char *text, uint32_t len)
{
	uint32_t cap = 0;

	memset(m, 0, sizeof(*m));
	m->text = text;
	m->len = len;
	markdown_build(text, len, &m->tree, &m->out, &cap);
}

static void md_build(Md *m, const char *text)
{
	md_build_n(m, text, (uint32_t)strlen(text));
}

static void md_close(Md *m)
{
	syntree_free(&m->tree);
	chunking_close(&m->out);
}

/*
 * Checks the SynTree contract: node 0 covers [0, len); every other node is
 * the child of exactly one node; children are ordered, do not overlap and
 * lie inside their parent. Returns false (after reporting) on a breach.
 */
static bool tree_valid(const Md *m)
{
	const SynTree *t = &m->tree;
	uint8_t *seen;
	uint32_t i;
	bool ok = true;

	if (t->n == 0 || t->nodes[0].bytes.start != 0 ||
	    t->nodes[0].bytes.end != m->len)
		return test_fail(__FILE__, __LINE__, "bad root (n=%u)", t->n);
	seen = calloc(t->n, 1);
	for (i = 0; i < t->n && ok; i++) {
		ByteRange p = t->nodes[i].bytes;
		uint32_t prev_end = p.start;
		int32_t c;

		if (p.start > p.end)
			ok = test_fail(__FILE__, __LINE__, "node %u inverted",
				       i);
		for (c = t->nodes[i].first_child; c >= 0 && ok;
		     c = t->nodes[c].next_sibling) {
			ByteRange b = t->nodes[c].bytes;

			if ((uint32_t)c <= i || (uint32_t)c >= t->n ||
			    seen[c]++) {
				ok = test_fail(__FILE__, __LINE__,
					       "node %d linked twice", c);
			} else if (b.start < prev_end || b.end > p.end ||
				   b.start > b.end) {
				ok = test_fail(__FILE__, __LINE__,
					       "child %d [%u,%u) of %u [%u,%u)"
					       " after %u",
					       c, b.start, b.end, i, p.start,
					       p.end, prev_end);
			}
			prev_end = b.end;
		}
	}
	for (i = 1; i < t->n && ok; i++)
		if (!seen[i])
			ok = test_fail(__FILE__, __LINE__, "node %u orphan", i);
	free(seen);
	return ok;
}

/* True when no node starts or ends strictly inside [a, b). */
static bool no_boundary_inside(const Md *m, uint32_t a, uint32_t b)
{
	uint32_t i;

	for (i = 0; i < m->tree.n; i++) {
		ByteRange r = m->tree.nodes[i].bytes;

		if ((r.start > a && r.start < b) || (r.end > a && r.end < b))
			return test_fail(__FILE__, __LINE__,
					 "node %u [%u,%u) cuts [%u,%u)", i,
					 r.start, r.end, a, b);
	}
	return true;
}

/* The node covering exactly [a, b), or -1. */
static int32_t node_at(const Md *m, uint32_t a, uint32_t b)
{
	uint32_t i;

	for (i = 0; i < m->tree.n; i++)
		if (m->tree.nodes[i].bytes.start == a &&
		    m->tree.nodes[i].bytes.end == b)
			return (int32_t)i;
	return -1;
}

static bool is_leaf(const Md *m, uint32_t a, uint32_t b)
{
	int32_t i = node_at(m, a, b);

	return i >= 0 && m->tree.nodes[i].first_child < 0;
}

static int32_t span_named(const Chunking *c, const char *name)
{
	uint32_t i;

	for (i = 0; i < c->nspans; i++)
		if (strcmp(c->spans[i].name, name) == 0)
			return (int32_t)i;
	return -1;
}

/* Offset of the first occurrence of needle in text (which must hold it). */
static uint32_t at(const char *text, const char *needle)
{
	const char *p = strstr(text, needle);

	if (!p) {
		fprintf(stderr, "fixture lacks \"%s\"\n", needle);
		abort();
	}
	return (uint32_t)(p - text);
}

/* Offset just past the first occurrence of needle at or after from. */
static uint32_t past(const char *text, uint32_t from, const char *needle)
{
	return from + at(text + from, needle) + (uint32_t)strlen(needle);
}

static bool spans_valid(const Md *m);

/* ---------------------------------------------------------------------- *
 * Headings and nesting
 * ---------------------------------------------------------------------- */

TEST(md_nested_qualnames)
{
	static const char text[] = "# Guide\nintro\n## Install\n### Debian\n"
				   "apt\n### Fedora\n## Usage\n# Next\n";
	Md m;
	int32_t g, i, d, f, u, n;

	md_build(&m, text);
	ASSERT_TRUE(tree_valid(&m));
	ASSERT_INT_EQ(m.out.nspans, 6);
	g = span_named(&m.out, "Guide");
	i = span_named(&m.out, "Install");
	d = span_named(&m.out, "Debian");
	f = span_named(&m.out, "Fedora");
	u = span_named(&m.out, "Usage");
	n = span_named(&m.out, "Next");
	ASSERT_TRUE(g == 0 && i == 1 && d == 2 && f == 3 && u == 4 && n == 5);
	EXPECT_INT_EQ(m.out.spans[g].parent, -1);
	EXPECT_INT_EQ(m.out.spans[i].parent, g);
	EXPECT_INT_EQ(m.out.spans[d].parent, i);
	EXPECT_INT_EQ(m.out.spans[f].parent, i);
	EXPECT_INT_EQ(m.out.spans[u].parent, g);
	EXPECT_INT_EQ(m.out.spans[n].parent, -1);
	EXPECT_STR_EQ(m.out.spans[d].qualname, "Guide > Install > Debian");
	EXPECT_STR_EQ(m.out.spans[u].qualname, "Guide > Usage");
	EXPECT_INT_EQ(m.out.spans[d].kind, SPAN_SECTION);
	/* A section runs to the next heading of its level or higher. */
	EXPECT_INT_EQ(m.out.spans[g].bytes.start, 0);
	EXPECT_INT_EQ(m.out.spans[g].bytes.end, at(text, "# Next"));
	EXPECT_INT_EQ(m.out.spans[d].bytes.start, at(text, "### Debian"));
	EXPECT_INT_EQ(m.out.spans[d].bytes.end, at(text, "### Fedora"));
	EXPECT_INT_EQ(m.out.spans[i].bytes.end, at(text, "## Usage"));
	EXPECT_INT_EQ(m.out.spans[n].bytes.end, sizeof(text) - 1);
	EXPECT_INT_EQ(m.out.spans[d].body_start, past(text, 0, "Debian\n"));
	EXPECT_STR_EQ(m.out.spans[d].header, "### Debian");
	EXPECT_STR_EQ(m.out.spans[d].doc, "apt");
	EXPECT_STR_EQ(m.out.spans[f].doc, "");
	/* Section nodes: the heading leaf first, then the rest. */
	g = node_at(&m, 0, at(text, "# Next"));
	ASSERT_TRUE(g >= 0);
	i = m.tree.nodes[g].first_child;
	ASSERT_TRUE(i > 0);
	EXPECT_TRUE(is_leaf(&m, 0, 8));
	EXPECT_INT_EQ(m.tree.nodes[i].bytes.end, 8);
	i = m.tree.nodes[i].next_sibling;
	EXPECT_INT_EQ(m.tree.nodes[i].bytes.start, 8); /* "intro" */
	i = m.tree.nodes[i].next_sibling;
	EXPECT_INT_EQ(m.tree.nodes[i].bytes.start, at(text, "## Install"));
	EXPECT_TRUE(m.tree.nodes[i].first_child >= 0);
	md_close(&m);
}

TEST(md_level_jumps)
{
	static const char text[] = "# A\n#### B\n###### C\n## D\n### E\n";
	Md m;

	md_build(&m, text);
	ASSERT_TRUE(tree_valid(&m));
	ASSERT_INT_EQ(m.out.nspans, 5);
	EXPECT_STR_EQ(m.out.spans[1].qualname, "A > B");
	EXPECT_STR_EQ(m.out.spans[2].qualname, "A > B > C");
	EXPECT_STR_EQ(m.out.spans[3].qualname, "A > D");
	EXPECT_STR_EQ(m.out.spans[4].qualname, "A > D > E");
	EXPECT_INT_EQ(m.out.spans[1].bytes.end, at(text, "## D"));
	md_close(&m);
}

TEST(md_atx_names)
{
	static const char text[] = "#\tTabbed  title ##  \n"
				   "## C#\n"
				   "### ###\n"
				   "####### seven is text\n"
				   "#hashtag is text\n"
				   "   # three spaces\n"
				   "    # four spaces is code\n";
	Md m;

	md_build(&m, text);
	ASSERT_TRUE(tree_valid(&m));
	ASSERT_INT_EQ(m.out.nspans, 4);
	EXPECT_STR_EQ(m.out.spans[0].name, "Tabbed title");
	EXPECT_STR_EQ(m.out.spans[1].name, "C#");
	EXPECT_STR_EQ(m.out.spans[2].name, "");
	EXPECT_STR_EQ(m.out.spans[2].qualname, "Tabbed title > C# > ");
	EXPECT_STR_EQ(m.out.spans[3].name, "three spaces");
	EXPECT_INT_EQ(m.out.spans[3].parent, -1);
	md_close(&m);
}

/* ---------------------------------------------------------------------- *
 * Fences
 * ---------------------------------------------------------------------- */

TEST(md_fence_hides_headings)
{
	static const char text[] = "# A\n\n```python\n# not a heading\n\n"
				   "x = 1\n```\n## B\n";
	uint32_t fa = at(text, "```python"), fb = past(text, fa + 3, "```\n");
	Md m;

	md_build(&m, text);
	ASSERT_TRUE(tree_valid(&m));
	ASSERT_INT_EQ(m.out.nspans, 2);
	EXPECT_INT_EQ(span_named(&m.out, "not a heading"), -1);
	EXPECT_STR_EQ(m.out.spans[1].qualname, "A > B");
	EXPECT_TRUE(is_leaf(&m, fa, fb));
	EXPECT_TRUE(no_boundary_inside(&m, fa, fb));
	md_close(&m);
}

TEST(md_fence_rules)
{
	/* A ``` line does not close a ~~~ fence; a longer ~~~~ does. */
	static const char t1[] = "~~~\n```\n# x\n~~~~\n# y\n";
	/* A shorter fence does not close a longer one. */
	static const char t2[] = "````md\n```\n# x\n```\n````\n# y\n";
	/* Four spaces of indent: code, not a fence, so # y is a heading. */
	static const char t3[] = "    ```\n# y\n";
	/* A backtick in a backtick fence's info string: not a fence. */
	static const char t4[] = "``` a`b\n# y\n";
	/* Unclosed: the fence runs to the end of the text. */
	static const char t5[] = "# A\ntext\n  ```\n# x\n## z";
	/* Closing fence with trailing text does not close it. */
	static const char t6[] = "```\n``` no\n# x\n```\n# y\n";
	const char *texts[] = {t1, t2, t3, t4, t6};
	size_t k;
	Md m;

	for (k = 0; k < sizeof(texts) / sizeof(texts[0]); k++) {
		md_build(&m, texts[k]);
		EXPECT_TRUE(tree_valid(&m));
		EXPECT_INT_EQ(m.out.nspans, 1);
		if (m.out.nspans == 1)
			EXPECT_STR_EQ(m.out.spans[0].name, "y");
		md_close(&m);
	}
	md_build(&m, t5);
	ASSERT_TRUE(tree_valid(&m));
	ASSERT_INT_EQ(m.out.nspans, 1);
	EXPECT_TRUE(is_leaf(&m, at(t5, "  ```"), sizeof(t5) - 1));
	EXPECT_INT_EQ(m.out.spans[0].bytes.end, sizeof(t5) - 1);
	md_close(&m);
}

TEST(md_fence_in_list_item)
{
	static const char text[] = "# A\n\n- step one:\n\n  ```sh\n"
				   "  # comment\n\n  make\n  ```\n"
				   "- ```\n  # also code\n  ```\n\n# B\n";
	uint32_t fa = at(text, "  ```sh"), fb = past(text, fa + 5, "```\n");
	uint32_t ga = at(text, "- ```"), gb = past(text, ga + 5, "```\n");
	Md m;

	md_build(&m, text);
	ASSERT_TRUE(tree_valid(&m));
	ASSERT_INT_EQ(m.out.nspans, 2);
	EXPECT_STR_EQ(m.out.spans[1].name, "B");
	EXPECT_TRUE(is_leaf(&m, fa, fb));
	EXPECT_TRUE(is_leaf(&m, ga, gb));
	md_close(&m);
}

/* ---------------------------------------------------------------------- *
 * Setext headings, thematic breaks, lists, quotes, HTML
 * ---------------------------------------------------------------------- */

TEST(md_setext_vs_thematic_break)
{
	static const char text[] = "Title\nsecond line\n=====\n\n"
				   "text\n\n---\n\n"
				   "Sub\n---\nbody\n\n- item\n---\n"
				   "> quote\n===\n";
	uint32_t brk = at(text, "\n---\n\n") + 1;
	Md m;

	md_build(&m, text);
	ASSERT_TRUE(tree_valid(&m));
	ASSERT_INT_EQ(m.out.nspans, 2);
	EXPECT_STR_EQ(m.out.spans[0].name, "Title second line");
	EXPECT_STR_EQ(m.out.spans[0].header, "Title\nsecond line\n=====");
	EXPECT_INT_EQ(m.out.spans[0].body_start, past(text, 0, "=====\n"));
	EXPECT_STR_EQ(m.out.spans[1].name, "Sub");
	EXPECT_STR_EQ(m.out.spans[1].qualname, "Title second line > Sub");
	EXPECT_INT_EQ(m.out.spans[1].bytes.start, at(text, "Sub\n"));
	/* The break after a blank line is a leaf of its own. */
	EXPECT_TRUE(is_leaf(&m, brk, brk + 4));
	md_close(&m);
}

TEST(md_headings_in_containers)
{
	/* Headings inside list items and block quotes, and inside an HTML
	 * comment that spans blank lines, are not document sections. */
	static const char text[] = "- item\n\n  # in item\n\n"
				   "> # in quote\n\n"
				   "<!--\n\n# in comment\n\n-->\n"
				   "<pre>\n\n# in pre\n</PRE>\n"
				   "- item\n# Real\n";
	Md m;

	md_build(&m, text);
	ASSERT_TRUE(tree_valid(&m));
	ASSERT_INT_EQ(m.out.nspans, 1);
	EXPECT_STR_EQ(m.out.spans[0].name, "Real");
	EXPECT_TRUE(is_leaf(&m, at(text, "<!--"), past(text, 0, "-->\n")));
	EXPECT_TRUE(is_leaf(&m, at(text, "<pre>"), past(text, 0, "</PRE>\n")));
	md_close(&m);
}

TEST(md_front_matter)
{
	/* Without front matter handling, "title: x" + "---" would be a
	 * setext heading. */
	static const char text[] = "---\ntitle: x\n\nlist: [a]\n---\n# A\n";
	static const char open_only[] = "---\ntitle: x\n";
	Md m;

	md_build(&m, text);
	ASSERT_TRUE(tree_valid(&m));
	ASSERT_INT_EQ(m.out.nspans, 1);
	EXPECT_STR_EQ(m.out.spans[0].name, "A");
	EXPECT_TRUE(is_leaf(&m, 0, at(text, "# A")));
	md_close(&m);
	/* Never closed: a thematic break and a paragraph. */
	md_build(&m, open_only);
	ASSERT_TRUE(tree_valid(&m));
	EXPECT_INT_EQ(m.out.nspans, 0);
	EXPECT_TRUE(is_leaf(&m, 0, 4));
	md_close(&m);
}

/* ---------------------------------------------------------------------- *
 * Tables
 * ---------------------------------------------------------------------- */

TEST(md_tables)
{
	static const char text[] = "# T\npara\n| a | b |\n| 1 | 2 |\n\n"
				   "x | y\n:-|-:\n1 | 2\n# after\n"
				   "Foo | bar\n---\n";
	uint32_t ta = at(text, "| a"), tb = past(text, 0, "| 2 |\n");
	uint32_t ua = at(text, "x | y"), ub = past(text, 0, "1 | 2\n");
	Md m;

	md_build(&m, text);
	ASSERT_TRUE(tree_valid(&m));
	ASSERT_INT_EQ(m.out.nspans, 3);
	EXPECT_STR_EQ(m.out.spans[1].name, "after");
	/* Two header cells over a one-cell underline: a setext heading. */
	EXPECT_STR_EQ(m.out.spans[2].name, "Foo | bar");
	EXPECT_TRUE(is_leaf(&m, ta, tb));
	EXPECT_TRUE(is_leaf(&m, ua, ub));
	EXPECT_TRUE(is_leaf(&m, at(text, "para"), ta));
	EXPECT_TRUE(no_boundary_inside(&m, ta, tb));
	EXPECT_TRUE(no_boundary_inside(&m, ua, ub));
	md_close(&m);
}

/* ---------------------------------------------------------------------- *
 * Line endings and degenerate input
 * ---------------------------------------------------------------------- */

TEST(md_crlf)
{
	static const char text[] = "# A\r\n\r\ntext\r\n## B ##\r\nmore\r\n\r\n"
				   "Set\r\n---\r\n```\r\n# no\r\n```\r\n";
	Md m;

	md_build(&m, text);
	ASSERT_TRUE(tree_valid(&m));
	ASSERT_INT_EQ(m.out.nspans, 3);
	EXPECT_STR_EQ(m.out.spans[0].name, "A");
	EXPECT_STR_EQ(m.out.spans[1].name, "B");
	EXPECT_STR_EQ(m.out.spans[2].name, "Set");
	EXPECT_STR_EQ(m.out.spans[0].header, "# A");
	EXPECT_STR_EQ(m.out.spans[0].doc, "text");
	EXPECT_INT_EQ(m.out.spans[0].body_start, 5);
	EXPECT_INT_EQ(m.out.spans[1].bytes.start, at(text, "## B"));
	EXPECT_INT_EQ(m.out.spans[2].parent, 0);
	EXPECT_INT_EQ(m.out.spans[2].body_start, past(text, 0, "---\r\n"));
	EXPECT_TRUE(is_leaf(&m, at(text, "```"), sizeof(text) - 1));
	md_close(&m);
	/* Old Mac line ends. */
	md_build(&m, "# A\rtext\r## B\r");
	ASSERT_TRUE(tree_valid(&m));
	ASSERT_INT_EQ(m.out.nspans, 2);
	EXPECT_STR_EQ(m.out.spans[1].qualname, "A > B");
	md_close(&m);
}

TEST(md_degenerate_inputs)
{
	Md m;

	md_build(&m, "");
	ASSERT_TRUE(tree_valid(&m));
	EXPECT_INT_EQ(m.tree.n, 1);
	EXPECT_INT_EQ(m.out.nspans, 0);
	md_close(&m);

	md_build(&m, "just text\nmore\n\n\nsecond block");
	ASSERT_TRUE(tree_valid(&m));
	EXPECT_INT_EQ(m.out.nspans, 0);
	EXPECT_INT_EQ(m.tree.n, 3);
	EXPECT_TRUE(is_leaf(&m, 0, 15));
	EXPECT_TRUE(is_leaf(&m, 17, 29));
	md_close(&m);

	/* No final newline; a byte order mark before the heading. */
	md_build(&m, "\xEF\xBB\xBF# T\ntext");
	ASSERT_TRUE(tree_valid(&m));
	ASSERT_INT_EQ(m.out.nspans, 1);
	EXPECT_STR_EQ(m.out.spans[0].name, "T");
	EXPECT_INT_EQ(m.out.spans[0].bytes.end, 11);
	EXPECT_TRUE(is_leaf(&m, 7, 11));
	md_close(&m);

	md_build(&m, "#");
	ASSERT_TRUE(tree_valid(&m));
	EXPECT_INT_EQ(m.out.nspans, 1);
	md_close(&m);

	/* Whitespace only, and a text that is not NUL-terminated. */
	md_build_n(&m, "   \t\n\r\n  xx", 9);
	EXPECT_TRUE(tree_valid(&m));
	EXPECT_INT_EQ(m.tree.n, 1);
	md_close(&m);
}

/* Every short text in a heap block of exactly its size, so that a read
 * past the end trips AddressSanitizer. */
TEST(md_reads_stay_in_bounds)
{
	static const char *const texts[] = {
		"   ", "#",	"```",	 "---",	 "- ",	"|",   "<!--",
		"a\n=", "+++", "\xEF\xBB\xBF", "\r",	 "x |", "1.", "<!D",
		"---\nx\n---", "a|b\n-|", "- ```", "## x #", "<pre", "\t",
	};
	size_t k;

	for (k = 0; k < sizeof(texts) / sizeof(texts[0]); k++) {
		size_t n = strlen(texts[k]);
		char *p = malloc(n);
		Md m;

		memcpy(p, texts[k], n);
		md_build_n(&m, p, (uint32_t)n);
		EXPECT_TRUE(tree_valid(&m));
		EXPECT_TRUE(spans_valid(&m));
		md_close(&m);
		free(p);
	}
}

/* A long document must not recurse per heading or per line: 60000
 * sections in a repeating 1..6 staircase, plus deep lists. */
TEST(md_long_input)
{
	Buf b = {0};
	Md m;
	uint32_t i, n = 60000, depth_ok = 1;

	for (i = 0; i < n; i++) {
		buf_printf(&b, "%.*s H%u\n\npara %u\n\n", (int)(i % 6 + 1),
			   "######", i, i);
		if (i % 1000 == 0)
			buf_printf(&b, "%*s- deep\n", (int)(i / 100), "");
	}
	md_build_n(&m, b.data, (uint32_t)b.len);
	ASSERT_TRUE(tree_valid(&m));
	ASSERT_INT_EQ(m.out.nspans, n);
	for (i = 0; i < n; i++) {
		int32_t p = m.out.spans[i].parent;

		if (p != (i % 6 ? (int32_t)i - 1 : -1))
			depth_ok = 0;
	}
	EXPECT_TRUE(depth_ok);
	EXPECT_STR_EQ(m.out.spans[n - 1].qualname,
		      "H59994 > H59995 > H59996 > H59997 > H59998 > H59999");
	md_close(&m);
	buf_free(&b);
}

/* ---------------------------------------------------------------------- *
 * The golden fixture
 * ---------------------------------------------------------------------- */

/* Fenced blocks and tables of nested.md: no cut may fall inside. */
static int fixture_blocks(const char *text, ByteRange *r)
{
	uint32_t a;

	a = at(text, "```sh");
	r[0] = (ByteRange){a, past(text, a + 5, "```\n")};
	a = at(text, "| Release");
	r[1] = (ByteRange){a, past(text, a, "archive   |\n")};
	a = at(text, "~~~");
	r[2] = (ByteRange){a, past(text, a + 3, "~~~\n")};
	r[3] = (ByteRange){0, past(text, 3, "---\n")}; /* front matter */
	return 4;
}

TEST(md_fixture_nested)
{
	static const char *const names[] = {
		"Guide",   "Install",       "Debian",    "Fedora",
		"Usage",   "Configuration", "Reference", "Deep jump",
	};
	static const char *const quals[] = {
		"Guide",
		"Guide > Install",
		"Guide > Install > Debian",
		"Guide > Install > Fedora",
		"Guide > Usage",
		"Guide > Configuration",
		"Reference",
		"Reference > Deep jump",
	};
	static const int parents[] = {-1, 0, 1, 1, 0, 0, -1, 6};
	size_t len;
	char *text = test_read_fixture("markdown/nested.md", &len);
	ByteRange blocks[4];
	int nb = fixture_blocks(text, blocks), k;
	uint32_t i;
	Md m;

	md_build_n(&m, text, (uint32_t)len);
	ASSERT_TRUE(tree_valid(&m));
	ASSERT_INT_EQ(m.out.nspans, 8);
	for (i = 0; i < 8; i++) {
		EXPECT_STR_EQ(m.out.spans[i].name, names[i]);
		EXPECT_STR_EQ(m.out.spans[i].qualname, quals[i]);
		EXPECT_INT_EQ(m.out.spans[i].parent, parents[i]);
	}
	for (k = 0; k < nb; k++) {
		EXPECT_TRUE(is_leaf(&m, blocks[k].start, blocks[k].end));
		EXPECT_TRUE(no_boundary_inside(&m, blocks[k].start,
					       blocks[k].end));
	}
	EXPECT_STR_EQ(m.out.spans[0].doc,
		      "The guide explains how to install and use the tool.");
	EXPECT_STR_EQ(m.out.spans[5].header, "Configuration\n-------------");
	EXPECT_INT_EQ(m.out.spans[2].bytes.end, at(text, "### Fedora"));
	EXPECT_INT_EQ(m.out.spans[0].bytes.end, at(text, "Reference\n"));
	EXPECT_INT_EQ(m.out.spans[7].bytes.end, len);
	/* The thematic break stays inside Configuration. */
	EXPECT_TRUE(m.out.spans[5].bytes.end > at(text, "Text after a"));
	md_close(&m);
	free(text);
}

/* ---------------------------------------------------------------------- *
 * End to end: chunker_run on Markdown
 * ---------------------------------------------------------------------- */

/* The innermost span holding [a, b), or -1. Sections nest, so the holder
 * that starts last is the innermost one. */
static int32_t innermost_span(const Chunking *c, uint32_t a, uint32_t b)
{
	int32_t best = -1;
	uint32_t i;

	for (i = 0; i < c->nspans; i++)
		if (c->spans[i].bytes.start <= a &&
		    c->spans[i].bytes.end >= b &&
		    (best < 0 || c->spans[i].bytes.start >=
					 c->spans[best].bytes.start))
			best = (int32_t)i;
	return best;
}

/*
 * Checks the chunks of text: they tile it, no boundary falls strictly
 * inside one of the blocks unless that block alone is over max (then only
 * at a line start), and each chunk points at its innermost section.
 */
static void check_chunks(const Chunking *c, const char *text, uint32_t len,
			 const ByteRange *blocks, int nb, uint32_t max)
{
	uint32_t i, pos = 0;
	int k;

	ASSERT_TRUE(c->nchunks > 1);
	for (i = 0; i < c->nchunks; i++) {
		const Chunk *ck = &c->chunks[i];

		EXPECT_INT_EQ(ck->bytes.start, pos);
		EXPECT_TRUE(ck->bytes.end > ck->bytes.start);
		EXPECT_INT_EQ(ck->kind, CHUNK_SECTION);
		EXPECT_INT_EQ(ck->span, innermost_span(c, ck->bytes.start,
						       ck->bytes.end));
		pos = ck->bytes.end;
		for (k = 0; k < nb; k++) {
			uint32_t a = blocks[k].start, b = blocks[k].end;
			size_t size = castls_count_nonspace(text + a, b - a);

			if (pos <= a || pos >= b)
				continue;
			EXPECT_TRUE(size > max);
			EXPECT_TRUE(text[pos - 1] == '\n');
		}
	}
	EXPECT_INT_EQ(pos, len);
}

TEST(md_chunks_nested_fixture)
{
	size_t len;
	char *text = test_read_fixture("markdown/nested.md", &len);
	ByteRange blocks[4];
	int nb = fixture_blocks(text, blocks);
	uint32_t sizes[] = {200, 400, 1000}, s, cut_in_fence = 0;

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		Chunker *ch = chunker_new(sizes[s]);
		Chunking c;
		uint32_t i;

		ASSERT_INT_EQ(chunker_run(ch, LANG_MARKDOWN, text,
					  (uint32_t)len, NULL, &c),
			      0);
		check_chunks(&c, text, (uint32_t)len, blocks, nb, sizes[s]);
		for (i = 0; i + 1 < c.nchunks; i++)
			cut_in_fence +=
				c.chunks[i].bytes.end > blocks[0].start &&
				c.chunks[i].bytes.end < blocks[0].end;
		/* Lines of a section come from its bytes. */
		i = (uint32_t)span_named(&c, "Debian");
		EXPECT_INT_EQ(c.spans[i].lines.start, 15);
		EXPECT_INT_EQ(c.spans[i].lines.end, 51);
		chunking_close(&c);
		chunker_delete(ch);
	}
	/* The long fence is over 200 but under 1000 non-space characters:
	 * it is cut (at lines) only at the smallest size. */
	EXPECT_TRUE(cut_in_fence > 0);
	free(text);
}

TEST(md_chunks_small_sections)
{
	static const char text[] =
		"# Alpha\n\nAlpha opens with a paragraph of words that "
		"says little.\n\n```c\nint alpha(void) { return 1; }\n"
		"int beta(void)  { return 2; }\n```\n\n"
		"## Beta\n\n| key | value |\n|-----|-------|\n| one | 1 |\n"
		"| two | 2 |\n| six | 6 |\n\nBeta ends with a sentence.\n\n"
		"### Gamma\n\nGamma text that is long enough to need a chunk "
		"of its own here.\n\n# Delta\n\nDelta is last.\n";
	ByteRange blocks[2];
	Chunker *ch = chunker_new(60);
	Chunking c;
	uint32_t i, a;

	a = at(text, "```c");
	blocks[0] = (ByteRange){a, past(text, a + 4, "```\n")};
	a = at(text, "| key");
	blocks[1] = (ByteRange){a, past(text, a, "| six | 6 |\n")};
	ASSERT_INT_EQ(chunker_run(ch, LANG_MARKDOWN, text, sizeof(text) - 1,
				  NULL, &c),
		      0);
	check_chunks(&c, text, sizeof(text) - 1, blocks, 2, 60);
	/* A cut falls at Gamma's heading: some chunk starts there and
	 * points at Gamma. */
	a = at(text, "### Gamma");
	for (i = 0; i < c.nchunks && c.chunks[i].bytes.start != a; i++)
		;
	ASSERT_TRUE(i < c.nchunks);
	EXPECT_STR_EQ(c.spans[c.chunks[i].span].qualname,
		      "Alpha > Beta > Gamma");
	chunking_close(&c);
	chunker_delete(ch);
}

/* ---------------------------------------------------------------------- *
 * Adversarial: random documents from Markdown-looking lines
 * ---------------------------------------------------------------------- */

static const char *const frags[] = {
	"# A",	  "## B",   "### C",	"#### D",    "###### F", "#",
	"Text",	  "",	    "",		"---",	     "===",	 "***",
	"```",	  "~~~",    "```` x",	"- item",    "  - sub",	 "1. one",
	"> q",	  "| a |",  "|---|---|", "a | b",    "<!--",	 "-->",
	"<pre>",  "</pre>", "    code", "\t# tab",   "+++",	 "   ```",
	"  # in", "- ```",  "<?php",	"x ## y ##", "\xEF\xBB\xBF# bom",
};
#define NFRAGS (sizeof(frags) / sizeof(frags[0]))

/* Spans: ordered by start, parents first and around their children, and
 * each one is a section node of the tree. */
static bool spans_valid(const Md *m)
{
	uint32_t i;

	for (i = 0; i < m->out.nspans; i++) {
		const Span *s = &m->out.spans[i];
		int32_t node = node_at(m, s->bytes.start, s->bytes.end);

		if (i && s->bytes.start <= m->out.spans[i - 1].bytes.start)
			return test_fail(__FILE__, __LINE__, "span %u order",
					 i);
		if (s->parent >= (int32_t)i ||
		    (s->parent >= 0 &&
		     (m->out.spans[s->parent].bytes.start > s->bytes.start ||
		      m->out.spans[s->parent].bytes.end < s->bytes.end)))
			return test_fail(__FILE__, __LINE__, "span %u parent",
					 i);
		if (node < 0 || m->tree.nodes[node].first_child < 0 ||
		    s->body_start < s->bytes.start ||
		    s->body_start > s->bytes.end)
			return test_fail(__FILE__, __LINE__, "span %u node", i);
	}
	return true;
}

TEST(md_random_documents)
{
	uint64_t seed = 0x9E3779B97F4A7C15ull;
	Chunker *ch = chunker_new(40);
	int doc, line, bad = 0;

	for (doc = 0; doc < 1500 && !bad; doc++) {
		Buf b = {0};
		Md m;
		Chunking c;
		int nlines = 1 + doc % 40;
		uint32_t i, pos = 0;

		for (line = 0; line < nlines; line++) {
			size_t k;

			seed = seed * 6364136223846793005ull +
			       1442695040888963407ull;
			k = (size_t)(seed >> 33) % NFRAGS;
			buf_puts(&b, frags[k]);
			if (line + 1 < nlines || (seed >> 20) % 2)
				buf_puts(&b, (seed >> 24) % 5 ? "\n" : "\r\n");
		}
		md_build_n(&m, b.data ? b.data : "", (uint32_t)b.len);
		bad |= !tree_valid(&m) || !spans_valid(&m);
		md_close(&m);
		if (b.len && chunker_run(ch, LANG_MARKDOWN, b.data,
					 (uint32_t)b.len, NULL, &c) == 0) {
			for (i = 0; i < c.nchunks; i++) {
				bad |= c.chunks[i].bytes.start != pos;
				pos = c.chunks[i].bytes.end;
			}
			bad |= pos != b.len;
			chunking_close(&c);
		}
		if (bad)
			fprintf(stderr, "document %d:\n%s\n", doc, b.data);
		buf_free(&b);
	}
	EXPECT_TRUE(!bad);
	chunker_delete(ch);
}
