/*
 * test_rank.c: the ranking, in-process. Each test writes a small
 * workspace to disk, indexes it into a real SQLite file, and asks rank/
 * for the context at a cursor (marked "<|>" in the buffer text) or for
 * free text, then asserts what ranks, why, and what fits the budget.
 */
#include "test.h"

#include <unistd.h>

#include "rank/rktest.h"

/* ---------------------------------------------------------------------- *
 * Signals
 * ---------------------------------------------------------------------- */

static const File geometry[] = {
    {"pkg/__init__.py", ""},
    {"pkg/geometry.py", "\"\"\"Shapes and their areas.\"\"\"\n"
			"import math\n\n\n"
			"def circle_area(radius):\n"
			"    return math.pi * radius * radius\n\n\n"
			"class Rectangle:\n"
			"    \"\"\"An axis-aligned rectangle.\"\"\"\n\n"
			"    def __init__(self, width, height):\n"
			"        self.width = width\n"
			"        self.height = height\n\n"
			"    def area(self):\n"
			"        return self.width * self.height\n"},
    {"other/geometry.py", "def circle_area(r):\n    return 3 * r * r\n"},
    {NULL, NULL},
};

/* A definition named near the cursor, in the file the buffer imports,
 * beats a same-named one elsewhere, and says both reasons. */
TEST(definition_through_import)
{
	Ws w;
	RankResult r;
	int mine, other;
	char *why;

	ws_open(&w, geometry);
	rank_at(&w, "pkg/report.py",
		"from pkg.geometry import circle_area\n\n\n"
		"def summary(radii):\n"
		"    total = 0\n"
		"    for r in radii:\n"
		"        total += circle_area(r)\n"
		"    " CURSOR "\n",
		2000, &r);
	mine = find(&r, "pkg/geometry.py", "circle_area");
	other = find(&r, "other/geometry.py", "circle_area");
	ASSERT_TRUE(mine >= 0);
	EXPECT_INT_EQ(mine, 0);
	EXPECT_TRUE(other < 0 || other > mine);
	EXPECT_TRUE(r.items[mine].signals.import);
	EXPECT_TRUE(r.items[mine].signals.imported_name);
	EXPECT_STR_EQ(r.items[mine].signals.defines, "circle_area");
	why = why_of(&r.items[mine]);
	EXPECT_TRUE(strstr(why, "defines circle_area, used near the cursor"));
	EXPECT_TRUE(strstr(why, "in a file this one imports"));
	EXPECT_TRUE(!r.no_context);
	xfree(why);
	rank_result_free(&r);
	ws_close(&w);
}

/* A name imported and not used yet ranks: code being written is likely
 * to call what was just imported. TypeScript, relative module. */
TEST(unused_import_typescript)
{
	static const File files[] = {
	    {"web/format.ts",
	     "export function formatPrice(cents: number): string {\n"
	     "  const whole = Math.floor(cents / 100);\n"
	     "  const part = cents % 100;\n"
	     "  const padded = part < 10 ? \"0\" + part : String(part);\n"
	     "  const sign = cents < 0 ? \"-\" : \"\";\n"
	     "  return sign + whole + \".\" + padded;\n"
	     "}\n\n"
	     "export function formatCount(n: number): string {\n"
	     "  const shown = n > 999 ? \"999+\" : String(n);\n"
	     "  const parts = [shown, \"items\"];\n"
	     "  const joined = parts.join(\" \");\n"
	     "  const trimmed = joined.trim();\n"
	     "  return trimmed;\n"
	     "}\n"},
	    {NULL, NULL},
	};
	Ws w;
	RankResult r;
	int i, j;
	char *why;

	ws_open(&w, files);
	rank_at(&w, "web/badge.ts",
		"import { formatCount, formatPrice } from \"./format\";\n\n"
		"export function label(n: number): string {\n"
		"  return formatCount(n);\n"
		"}\n\n"
		"export function total(cents: number): string {\n"
		"  " CURSOR "\n"
		"}\n",
		2000, &r);
	i = find(&r, "web/format.ts", "formatPrice");
	ASSERT_TRUE(i >= 0);
	EXPECT_TRUE(r.items[i].signals.unused_import);
	EXPECT_TRUE(r.items[i].signals.import);
	/* formatCount is used already: imported, but not waiting. */
	j = find(&r, "web/format.ts", "formatCount");
	ASSERT_TRUE(j >= 0);
	EXPECT_TRUE(r.items[j].signals.imported_name);
	EXPECT_TRUE(!r.items[j].signals.unused_import);
	EXPECT_TRUE(i < j);
	why = why_of(&r.items[i]);
	EXPECT_TRUE(strstr(why, "imported by this file and not used yet"));
	xfree(why);
	rank_result_free(&r);
	ws_close(&w);
}

/* Python relative imports climb a package per dot: of two same-named
 * definitions, the one the import names ranks first. */
TEST(import_python_relative)
{
	static const File files[] = {
	    {"app/__init__.py", ""},
	    {"app/util.py", "def slugify(text):\n    return text.lower()\n"},
	    {"app/api/__init__.py", ""},
	    {"app/api/util.py", "def slugify(text):\n    return text\n"},
	    {NULL, NULL},
	};
	Ws w;
	RankResult r;
	int up, here;

	ws_open(&w, files);
	rank_at(&w, "app/api/views.py",
		"from ..util import slugify\n\n\n"
		"def page(title):\n"
		"    " CURSOR "\n",
		2000, &r);
	up = find(&r, "app/util.py", "slugify");
	here = find(&r, "app/api/util.py", "slugify");
	ASSERT_TRUE(up >= 0);
	EXPECT_TRUE(r.items[up].signals.import);
	EXPECT_TRUE(r.items[up].signals.imported_name);
	EXPECT_TRUE(here < 0 ||
		    (here > up && !r.items[here].signals.imported_name));
	rank_result_free(&r);
	ws_close(&w);
}

/* In a class whose base is in another file, the base's members rank,
 * marked as members, even those not named near the cursor. */
TEST(member_of_base_class)
{
	static const File files[] = {
	    {"shapes/base.py",
	     "class Shape:\n"
	     "    def describe(self):\n"
	     "        return 'a shape'\n\n"
	     "    def scale(self, k):\n"
	     "        \"\"\"The shape k times as large.\"\"\"\n"
	     "        if k <= 0:\n"
	     "            raise ValueError(k)\n"
	     "        copy = type(self)()\n"
	     "        copy.factor = k\n"
	     "        copy.origin = None\n"
	     "        return copy\n"},
	    {NULL, NULL},
	};
	Ws w;
	RankResult r;
	int i;
	char *why;

	ws_open(&w, files);
	rank_at(&w, "shapes/circle.py",
		"from shapes.base import Shape\n\n\n"
		"class Circle(Shape):\n"
		"    def label(self):\n"
		"        return self.describe() + " CURSOR "\n",
		2000, &r);
	i = find(&r, "shapes/base.py", "Shape.scale");
	ASSERT_TRUE(i >= 0);
	EXPECT_TRUE(r.items[i].signals.member);
	ASSERT_INT_EQ(r.items[i].nparents, 1);
	EXPECT_STR_EQ(r.items[i].parents[0].header, "class Shape:");
	why = why_of(&r.items[i]);
	EXPECT_TRUE(strstr(why, "a member of the class being written"));
	xfree(why);
	rank_result_free(&r);
	ws_close(&w);
}

/* A base's member found first by its name, as the method being
 * written overrides it, is still marked a member, and so ranks above a
 * namesake in an unrelated class. */
TEST(member_of_base_class_found_by_name)
{
	static const File files[] = {
	    {"shapes/base.py", "class Shape:\n"
			       "    def grid(self, n):\n"
			       "        rows = []\n"
			       "        for i in range(n):\n"
			       "            row = []\n"
			       "            for j in range(n):\n"
			       "                row.append(i * j)\n"
			       "            rows.append(row)\n"
			       "        total = 0\n"
			       "        for row in rows:\n"
			       "            for cell in row:\n"
			       "                total += cell\n"
			       "        if total > 100:\n"
			       "            total = 100\n"
			       "        if total < 0:\n"
			       "            total = 0\n"
			       "        self.total = total\n"
			       "        return rows\n\n"
			       "    def size(self):\n"
			       "        return self.total\n\n"
			       "    def describe(self):\n"
			       "        return 'a shape'\n"},
	    {"shapes/label.py", "class Label:\n"
				"    def describe(self):\n"
				"        return 'a label'\n"},
	    {NULL, NULL},
	};
	Ws w;
	RankResult r;
	int base, other, cls;

	ws_open(&w, files);
	rank_at(&w, "shapes/circle.py",
		"from shapes.base import Shape\n\n\n"
		"class Circle(Shape):\n"
		"    def describe(self):\n"
		"        " CURSOR "\n",
		2000, &r);
	base = find(&r, "shapes/base.py", "Shape.describe");
	other = find(&r, "shapes/label.py", "Label.describe");
	cls = find(&r, "shapes/base.py", "Shape");
	ASSERT_TRUE(base >= 0);
	EXPECT_TRUE(r.items[base].signals.member);
	EXPECT_TRUE(other < 0 || base < other);
	/* The class's outline lists describe's header, but the method is
	 * shown whole beside it: the outline's range ends before it. */
	ASSERT_TRUE(cls >= 0);
	EXPECT_TRUE(strstr(r.items[cls].text, "an outline"));
	EXPECT_TRUE(strstr(r.items[cls].text, "    def describe(self):\n"));
	EXPECT_TRUE(r.items[cls].lines.end < r.items[base].lines.start);
	rank_result_free(&r);
	ws_close(&w);
}

/* The buffer's own definitions come from its live text, with their
 * distance and uses; sibling fields join into one item. */
TEST(same_file_and_joined)
{
	Ws w;
	RankResult r;
	const RankItem *it = NULL;
	char *why;

	ws_open(&w, geometry);
	rank_at(&w, "shop/options.py",
		"class Options:\n"
		"    retries = 3\n"
		"    timeout = 2.5\n"
		"    verbose = False\n\n"
		"    def describe(self):\n"
		"        parts = [str(self.timeout)]\n"
		"        parts.append('verbose' if self.verbose else '')\n"
		"        return ' '.join(parts)\n\n"
		"    def patience(self):\n"
		"        return self.retries * " CURSOR "\n",
		2000, &r);
	for (uint32_t i = 0; i < r.nitems; i++)
		if (r.items[i].in_buffer &&
		    strcmp(r.items[i].symbol, "Options.retries") == 0)
			it = &r.items[i];
	if (!it)
		explain(&r);
	ASSERT_TRUE(it != NULL);
	EXPECT_TRUE(it->signals.same_file);
	EXPECT_TRUE(it->signals.member);
	/* Joined in rank order: either way round. */
	EXPECT_TRUE(strstr(it->signals.joined, "Options.timeout"));
	EXPECT_TRUE(strstr(it->signals.joined, "Options.verbose"));
	EXPECT_STR_EQ(
	    it->text,
	    "    retries = 3\n    timeout = 2.5\n    verbose = False\n");
	why = why_of(it);
	EXPECT_TRUE(strstr(why, "in this file, 10 lines away"));
	EXPECT_TRUE(strstr(why, "shown with Options."));
	xfree(why);
	rank_result_free(&r);
	ws_close(&w);
}

/* A method with no code yet, only its docstring (and a comment), is
 * still being written on the blank line below it at column 0, where an
 * editor that leaves a blank line's indent out puts the cursor; so is
 * its class, whose last line that method's is. */
TEST(method_with_no_code_yet)
{
	static const char *const after[] = {"", "        # the index too\n"};
	Ws w;

	ws_open(&w, geometry);
	for (size_t i = 0; i < sizeof(after) / sizeof(after[0]); i++) {
		char text[1024];
		RankResult r;
		const RankItem *mine, *other;

		snprintf(text, sizeof(text),
			 "class Store:\n"
			 "    def load(self, key):\n"
			 "        return self.rows[key]\n\n"
			 "    def size(self):\n"
			 "        total = 0\n"
			 "        for row in self.rows:\n"
			 "            total += 1\n"
			 "        return total\n\n"
			 "    def save(self, key, value):\n"
			 "        \"\"\"Writes value under key.\"\"\"\n"
			 "%s" CURSOR "\n\n\n"
			 "class Cache:\n"
			 "    def load(self, key):\n"
			 "        return None\n",
			 after[i]);
		rank_at(&w, "shop/store.py", text, 2000, &r);
		mine = buffer_item(&r, "Store.load");
		other = buffer_item(&r, "Cache.load");
		if (!mine)
			explain(&r);
		ASSERT_TRUE(mine != NULL);
		EXPECT_TRUE(mine->signals.member);
		EXPECT_TRUE(!other || !other->signals.member);
		rank_result_free(&r);
	}
	ws_close(&w);
}

/* ---------------------------------------------------------------------- *
 * The stop signal, the budget and clipping
 * ---------------------------------------------------------------------- */

/* Code that uses nothing of the workspace gets the stop signal. */
TEST(stop_signal)
{
	Ws w;
	RankResult r;

	ws_open(&w, geometry);
	rank_at(&w, "tools/hello.py",
		"import sys\n\n\n"
		"def main():\n"
		"    " CURSOR "\n",
		2000, &r);
	EXPECT_TRUE(r.no_context);
	EXPECT_INT_EQ(r.nitems, 0);
	EXPECT_INT_EQ(r.used, 0);
	rank_result_free(&r);
	ws_close(&w);
}

/* A long function shows its first RANK_ITEM_LINES lines, marked clipped;
 * items never pass the budget, and a budget too small for any gives
 * none. */
TEST(budget_and_clipping)
{
	Buf big = {0};
	File files[] = {{"lib/long.py", NULL}, {NULL, NULL}};
	Ws w;
	RankResult r;
	const char *marked = "from lib.long import long_helper\n\n\n"
			     "def run():\n"
			     "    return long_helper(" CURSOR ")\n";
	int i;
	uint32_t lines = 0;

	buf_puts(&big, "def long_helper(x):\n    \"\"\"Many steps.\"\"\"\n");
	for (int k = 0; k < 60; k++)
		buf_printf(&big, "    x = x + %d\n", k);
	buf_puts(&big, "    return x\n");
	files[0].text = big.data;
	ws_open(&w, files);
	rank_at(&w, "lib/run.py", marked, 2000, &r);
	i = find(&r, "lib/long.py", "long_helper");
	ASSERT_TRUE(i >= 0);
	EXPECT_TRUE(r.items[i].clipped);
	for (const char *p = r.items[i].text; *p; p++)
		lines += *p == '\n';
	/* The lines shown, and a last one that says the rest is left out. */
	EXPECT_INT_EQ(lines, RANK_ITEM_LINES + 1);
	EXPECT_TRUE(strstr(r.items[i].text, "    # ... 43 more lines\n"));
	EXPECT_INT_EQ(r.items[i].lines.end - r.items[i].lines.start + 1,
		      RANK_ITEM_LINES);
	EXPECT_TRUE(r.used <= r.budget);
	rank_result_free(&r);

	rank_at(&w, "lib/run.py", marked, 30, &r);
	EXPECT_TRUE(r.used <= 30);
	for (uint32_t k = 0; k < r.nitems; k++)
		EXPECT_TRUE(r.items[k].tokens <= 30);
	rank_result_free(&r);

	rank_at(&w, "lib/run.py", marked, 1, &r);
	EXPECT_INT_EQ(r.nitems, 0);
	EXPECT_TRUE(r.no_context);
	rank_result_free(&r);
	buf_free(&big);
	ws_close(&w);
}

/* Lookups are batched: the statements of a request do not grow with the
 * identifiers near the cursor. */
TEST(statements_do_not_grow_with_names)
{
	Buf few = {0}, many = {0};
	Ws w;
	RankResult r;
	uint64_t n_few, n_many;

	ws_open(&w, geometry);
	buf_puts(&few, "def f(a):\n    return circle_area(a) + " CURSOR "\n");
	buf_puts(&many, "def f(a):\n    total = 0\n");
	for (int k = 0; k < 40; k++)
		buf_printf(&many, "    total += helper_number_%d(a)\n", k);
	buf_puts(&many, "    return circle_area(total) + " CURSOR "\n");
	rank_at(&w, "x.py", few.data, 2000, &r);
	n_few = r.statements;
	rank_result_free(&r);
	rank_at(&w, "x.py", many.data, 2000, &r);
	n_many = r.statements;
	rank_result_free(&r);
	EXPECT_TRUE(n_few > 0);
	CHECK_(n_many <= n_few + 2, (void)0,
	       "statements: %llu with 2 names, %llu with 41",
	       (unsigned long long)n_few, (unsigned long long)n_many);
	buf_free(&few);
	buf_free(&many);
	ws_close(&w);
}

/* ---------------------------------------------------------------------- *
 * Search over several roots
 * ---------------------------------------------------------------------- */

/* Hits of all roots are merged by score before packing: a first root
 * full of weak matches does not crowd out the second root's answer. */
TEST(search_merges_roots)
{
	static const File weak[] = {
	    {"a.py", "# map of hashes\nx = 1\n"},
	    {"b.py", "# a mutable list\ny = 2\n"},
	    {"c.py", "# hash map here\nz = 3\n"},
	    {NULL, NULL},
	};
	static const File strong[] = {
	    {"coll/mutable_hash_map.py",
	     "class MutableHashMap:\n"
	     "    \"\"\"A mutable hash map.\"\"\"\n\n"
	     "    def put(self, key, value):\n"
	     "        self.mutable_hash_map_put(key, value)\n"},
	    {"coll/queue.py", "class Queue:\n    pass\n"},
	    {"coll/stack.py", "class Stack:\n    pass\n"},
	    {"coll/tree.py", "class Tree:\n    pass\n"},
	    {NULL, NULL},
	};
	Ws a, b;
	RankRoot roots[2];
	RankResult r;

	ws_open(&a, weak);
	ws_open(&b, strong);
	roots[0] = a.rr;
	roots[1] = b.rr;
	rank_search(roots, 2, "MutableHashMap", strlen("MutableHashMap"), 2000,
		    1, &r);
	ASSERT_INT_EQ(r.nitems, 1);
	EXPECT_INT_EQ(r.items[0].root, 1);
	EXPECT_STR_EQ(r.items[0].path, "coll/mutable_hash_map.py");
	rank_result_free(&r);
	/* A root without a connection is left out, not an error. */
	roots[1].ix = NULL;
	rank_search(roots, 2, "MutableHashMap", strlen("MutableHashMap"), 2000,
		    5, &r);
	for (uint32_t i = 0; i < r.nitems; i++)
		EXPECT_INT_EQ(r.items[i].root, 0);
	rank_result_free(&r);
	ws_close(&a);
	ws_close(&b);
}

/* ---------------------------------------------------------------------- *
 * Why, in words
 * ---------------------------------------------------------------------- */

TEST(why_words)
{
	RankItem it = {0};
	char *why;

	it.signals.defines = "parse_config";
	it.signals.joined = "";
	why = why_of(&it);
	EXPECT_STR_EQ(why, "related text");
	xfree(why);

	it.signals.definition = 0.5;
	it.signals.import = true;
	it.signals.bm25 = 3.2;
	why = why_of(&it);
	EXPECT_STR_EQ(why, "defines parse_config, used near the cursor; "
			   "in a file this one imports; matching words");
	xfree(why);

	memset(&it.signals, 0, sizeof(it.signals));
	it.signals.imported_name = true;
	it.signals.same_file = true;
	it.signals.definition_item = true;
	it.signals.lines_away = 1;
	it.signals.uses_in_file = 2;
	why = why_of(&it);
	EXPECT_STR_EQ(why, "a name this file imports; "
			   "in this file, 1 line away, used 2 times");
	xfree(why);

	it.signals.unused_import = true;
	it.signals.definition_item = false;
	why = why_of(&it);
	EXPECT_STR_EQ(why, "imported by this file and not used yet; "
			   "in this file");
	xfree(why);
}

/* ---------------------------------------------------------------------- *
 * Precision
 * ---------------------------------------------------------------------- */

/* Definitions come from languages the buffer can use: a Markdown heading
 * or a TypeScript class of the same name is no definition for Python,
 * and Python's are none for a shell script. */
TEST(languages_the_buffer_can_use)
{
	static const File files[] = {
	    {"docs/guide.md", "# Guide\n\n## Collector\n\nCollects.\n"},
	    {"web/collector.ts",
	     "export class Collector {\n  collect(): void {}\n}\n"},
	    {"app/collector.py", "class Collector:\n"
				 "    def collect(self, objs):\n"
				 "        return list(objs)\n"},
	    {"tools/collect.sh", "collect() {\n  echo collecting\n}\n"},
	    {NULL, NULL},
	};
	Ws w;
	RankResult r;

	ws_open(&w, files);
	rank_at(&w, "app/run.py",
		"from app.collector import Collector\n\n\n"
		"def run(objs):\n"
		"    c = Collector()\n"
		"    return c.collect(objs) + " CURSOR "\n",
		2000, &r);
	EXPECT_TRUE(find(&r, "app/collector.py", NULL) >= 0);
	EXPECT_TRUE(find(&r, "docs/guide.md", NULL) < 0);
	EXPECT_TRUE(find(&r, "web/collector.ts", NULL) < 0);
	EXPECT_TRUE(find(&r, "tools/collect.sh", NULL) < 0);
	rank_result_free(&r);

	rank_at(&w, "tools/all.sh",
		"#!/bin/sh\n"
		"collect_all() {\n"
		"  collect\n"
		"  " CURSOR "\n"
		"}\n",
		2000, &r);
	EXPECT_TRUE(find(&r, "tools/collect.sh", "collect") >= 0);
	EXPECT_TRUE(find(&r, "app/collector.py", NULL) < 0);
	EXPECT_TRUE(find(&r, "web/collector.ts", NULL) < 0);
	rank_result_free(&r);
	ws_close(&w);
}

/* The module path of an import names no definitions: `from proj.test
 * import Case` looks up Case, not functions named proj or test (which may
 * still match a keyword or two lexically, weakly). */
TEST(import_paths_are_not_names)
{
	static const File files[] = {
	    {"proj/__init__.py", ""},
	    {"proj/test.py", "class Case:\n"
			     "    def run(self):\n"
			     "        return 1\n"},
	    {"tools/helpers.py", "def test(x):\n    return x\n\n\n"
				 "def proj(y):\n    return y\n"},
	    {NULL, NULL},
	};
	Ws w;
	RankResult r;

	ws_open(&w, files);
	rank_at(&w, "app/main.py",
		"from proj.test import Case\n\n\n"
		"def main():\n"
		"    c = Case()\n"
		"    " CURSOR "\n",
		2000, &r);
	EXPECT_TRUE(find(&r, "proj/test.py", "Case") >= 0);
	for (uint32_t i = 0; i < r.nitems; i++)
		if (strcmp(r.items[i].path, "tools/helpers.py") == 0 &&
		    (r.items[i].signals.definition > 0 ||
		     r.items[i].signals.bm25 >= 1.0)) {
			test_fail(__FILE__, __LINE__, "helpers.py item %u", i);
			explain(&r);
		}
	rank_result_free(&r);
	ws_close(&w);
}

/* `import proj` imports the package's own module, not every file under
 * it: the namesakes in its subpackages are no imports. */
TEST(package_import_is_not_its_files)
{
	static const File files[] = {
	    {"proj/__init__.py", "def setup():\n    return None\n"},
	    {"proj/db/__init__.py", ""},
	    {"proj/db/models.py", "def save(row):\n    return row\n"},
	    {"proj/web/__init__.py", ""},
	    {"proj/web/views.py", "def save(page):\n    return page\n"},
	    {NULL, NULL},
	};
	Ws w;
	RankResult r;
	int pkg, a, b;

	ws_open(&w, files);
	rank_at(&w, "app/main.py",
		"import proj\n\n\n"
		"def main(row):\n"
		"    proj.setup()\n"
		"    save(row)\n"
		"    " CURSOR "\n",
		2000, &r);
	pkg = find(&r, "proj/__init__.py", "setup");
	a = find(&r, "proj/db/models.py", "save");
	b = find(&r, "proj/web/views.py", "save");
	ASSERT_TRUE(pkg >= 0 && a >= 0 && b >= 0);
	EXPECT_TRUE(r.items[pkg].signals.import);
	EXPECT_TRUE(!r.items[a].signals.import);
	EXPECT_TRUE(!r.items[b].signals.import);
	rank_result_free(&r);
	ws_close(&w);
}

/* In a doc comment's example, the example's code names what it uses and
 * the prose around it names nothing: "Output the message" looks up no
 * `Output`, `format(` looks up format. Above the cursor's comment, a
 * comment's words still count (prose names what code uses). */
TEST(doc_example_prose_is_no_use)
{
	static const File files[] = {
	    {"src/output.ts", "export class Output {\n"
			      "  write(text: string): void {}\n"
			      "}\n"},
	    {"src/format.ts", "export function format(n: number): string {\n"
			      "  return String(n);\n"
			      "}\n"},
	    {NULL, NULL},
	};
	static const char *const texts[] = {
	    "import { format } from \"./format.js\";\n\n"
	    "/**\n"
	    " * Output the message, formatted.\n"
	    " *\n"
	    " * @example\n"
	    " * const text = format(" CURSOR "\n"
	    " */\n"
	    "export function show(n: number): string {\n"
	    "  return format(n);\n"
	    "}\n",
	    "import { format } from \"./format.js\";\n\n"
	    "/** Output the message, formatted. */\n"
	    "export function show(n: number): string {\n"
	    "  const text = format(n);\n"
	    "  " CURSOR "\n"
	    "}\n",
	};
	Ws w;

	ws_open(&w, files);
	for (int i = 0; i < 2; i++) {
		RankResult r;
		int out, fmt;

		rank_at(&w, "src/main.ts", texts[i], 2000, &r);
		fmt = find(&r, "src/format.ts", "format");
		out = find(&r, "src/output.ts", "Output");
		EXPECT_TRUE(fmt >= 0 && r.items[fmt].signals.definition > 0);
		if (i == 0)
			EXPECT_TRUE(out < 0 ||
				    r.items[out].signals.definition == 0);
		else
			EXPECT_TRUE(out >= 0 &&
				    r.items[out].signals.definition > 0);
		rank_result_free(&r);
	}
	ws_close(&w);
}

/* Each language's keywords are its own: `default` and `echo` are names
 * in Python, `print` and `self` in JavaScript, and a definition of one
 * is looked up when the code near the cursor calls it. */
TEST(other_languages_keywords_are_names)
{
	static const File files[] = {
	    {"app/util.py",
	     "def default(value, fallback):\n"
	     "    return fallback if value is None else value\n\n\n"
	     "def echo(message):\n    print(message)\n"},
	    {"web/util.js", "export function print(text) {\n"
			    "  return text.trim();\n}\n"},
	    {NULL, NULL},
	};
	static const struct {
		const char *rel, *text, *def, *name;
	} cases[] = {
	    {"app/main.py",
	     "from app.util import default, echo\n\n\n"
	     "def greet(name=None):\n"
	     "    echo(default(name, 'world'))\n"
	     "    " CURSOR "\n",
	     "app/util.py", "default"},
	    {"app/main.py",
	     "from app.util import default, echo\n\n\n"
	     "def greet(name=None):\n"
	     "    echo(default(name, 'world'))\n"
	     "    " CURSOR "\n",
	     "app/util.py", "echo"},
	    {"web/main.js",
	     "import { print } from './util.js';\n\n"
	     "export function show(line) {\n"
	     "  return print(line);\n"
	     "  " CURSOR "\n}\n",
	     "web/util.js", "print"},
	};
	Ws w;

	ws_open(&w, files);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		RankResult r;
		int k;

		rank_at(&w, cases[i].rel, cases[i].text, 2000, &r);
		k = find(&r, cases[i].def, cases[i].name);
		ASSERT_TRUE(k >= 0);
		EXPECT_TRUE(strstr(r.items[k].signals.defines, cases[i].name) !=
			    NULL);
		rank_result_free(&r);
	}
	ws_close(&w);
}

/* What most of a file's functions call, the function being written is
 * likely to, however far above it is: `exists` (called by five of the
 * file's eleven functions) ranks above `clamp` (one, and nearer). A call
 * counts by the bare name only: `x.exists()` is some object's method, and
 * `span`, a local or a member everywhere, is called by none. */
#define TABLE_ROWS                                                           \
	"    (1, 2),\n    (3, 4),\n    (5, 6),\n    (7, 8),\n    (9, 10),\n" \
	"    (11, 12),\n    (13, 14),\n    (15, 16),\n    (17, 18),\n"       \
	"    (19, 20),\n    (21, 22),\n    (23, 24),\n    (25, 26),\n"       \
	"    (27, 28),\n    (29, 30),\n    (31, 32),\n    (33, 34),\n"       \
	"    (35, 36),\n    (37, 38),\n    (39, 40),\n    (41, 42),\n"       \
	"    (43, 44),\n    (45, 46),\n    (47, 48),\n    (49, 50),\n"       \
	"    (51, 52),\n    (53, 54),\n    (55, 56),\n    (57, 58),\n"       \
	"    (59, 60),\n"
TEST(helpers_most_functions_call)
{
	static const File files[] = {{NULL, NULL}};
	static const char text[] =
	    "def exists(value):\n"
	    "    return value is not None\n\n\n"
	    "def span(a, b):\n"
	    "    return (a, b)\n\n\n"
	    "def first(x):\n"
	    "    if exists(x):\n"
	    "        return x\n"
	    "    return 0\n\n\n"
	    "def both(x, y):\n"
	    "    span = x.span\n"
	    "    return exists (y) and span\n\n\n"
	    "def value_of(x):\n"
	    "    return exists(x.value)\n\n\n"
	    "def method(x):\n"
	    "    span = (x, x)\n"
	    "    return x.exists()\n\n\n"
	    "def present(xs):\n"
	    "    return [v for v in xs if exists(v)]\n\n\n"
	    "def either(x):\n"
	    "    return exists(x) or span\n\n\n"
	    "def clamp(v, lo, hi):\n"
	    "    return max(lo, min(v, hi))\n\n\n"
	    "def unit(v):\n"
	    "    return clamp(v, 0, 1)\n\n\n"
	    "TABLE = [\n" TABLE_ROWS "]\n\n\n"
	    "def fresh(value):\n"
	    "    value = unit(value)\n"
	    "    " CURSOR "\n";
	const RankItem *e, *c, *s;
	RankResult r;
	char *why;
	Ws w;

	ws_open(&w, files);
	rank_at(&w, "app/model.py", text, 4000, &r);
	e = buffer_item(&r, "exists");
	c = buffer_item(&r, "clamp");
	s = buffer_item(&r, "span");
	if (!(e && c && s) || e > c)
		explain(&r);
	ASSERT_TRUE(e && c && s);
	EXPECT_INT_EQ(e->signals.callers, 5);
	EXPECT_INT_EQ(e->signals.functions, 11);
	EXPECT_INT_EQ(c->signals.callers, 1);
	EXPECT_INT_EQ(s->signals.callers, 0);
	EXPECT_TRUE(e < c);
	why = why_of(e);
	EXPECT_TRUE(strstr(why, "called by 5 of its 11 functions") != NULL);
	xfree(why);
	rank_result_free(&r);
	ws_close(&w);
}

/* ESM TypeScript imports "./config.js" for config.ts; a namespace import
 * resolves its members to the module's own definitions, even when many
 * modules define a member of that name. */
TEST(esm_and_namespace_imports)
{
	static const File files[] = {
	    {"src/config.ts",
	     "export function parseConfig(text: string): object {\n"
	     "  return JSON.parse(text);\n"
	     "}\n"},
	    {"src/Option.ts",
	     "export const getOrUndefined = (o: any) => o.value;\n"},
	    {"src/Either.ts",
	     "export const getOrUndefined = (e: any) => e.right;\n"},
	    {"src/Result.ts",
	     "export const getOrUndefined = (r: any) => r.ok;\n"},
	    {"src/Maybe.ts",
	     "export const getOrUndefined = (m: any) => m.just;\n"},
	    {"src/Exit.ts",
	     "export const getOrUndefined = (x: any) => x.done;\n"},
	    {NULL, NULL},
	};
	Ws w;
	RankResult r;
	int i;

	ws_open(&w, files);
	rank_at(&w, "src/main.ts",
		"import { parseConfig } from \"./config.js\";\n"
		"import * as Option from \"./Option.js\";\n\n"
		"export function load(text: string, o: any) {\n"
		"  const c = parseConfig(text);\n"
		"  return Option.getOrUndefined(o) ?? " CURSOR "\n"
		"}\n",
		2000, &r);
	i = find(&r, "src/config.ts", "parseConfig");
	ASSERT_TRUE(i >= 0);
	EXPECT_TRUE(r.items[i].signals.import);
	i = find(&r, "src/Option.ts", NULL);
	ASSERT_TRUE(i >= 0);
	EXPECT_TRUE(r.items[i].signals.import);
	EXPECT_TRUE(r.items[i].signals.imported_name);
	for (uint32_t k = 0; k < r.nitems; k++)
		EXPECT_TRUE(strcmp(r.items[k].path, "src/Either.ts") != 0 ||
			    (int)k > i);
	rank_result_free(&r);
	ws_close(&w);
}

/* A module's definition of an imported name is found however many other
 * modules define the name ahead of it: twenty functions named
 * fromIterable come before Array.ts's constant in the order of a name's
 * definitions (code before data), past the first the lookup reads. */
TEST(imported_name_among_many_namesakes)
{
	static const File files[] = {
	    {"src/Array.ts", "export const fromIterable = Array.from;\n"},
	    {NULL, NULL},
	};
	Ws w;
	RankResult r;
	int i;

	ws_open_many(&w, files, 20, "src/m", ".ts",
		     "export function fromIterable(x: any) {\n"
		     "  return [x];\n}\n");
	rank_at(&w, "src/main.ts",
		"import * as Arr from \"./Array.js\";\n\n"
		"export function load(xs: any) {\n"
		"  return Arr.fromIterable(xs)" CURSOR "\n"
		"}\n",
		2000, &r);
	i = find(&r, "src/Array.ts", NULL);
	ASSERT_TRUE(i >= 0);
	EXPECT_TRUE(r.items[i].signals.import);
	EXPECT_TRUE(r.items[i].signals.imported_name);
	EXPECT_TRUE(i == 0);
	rank_result_free(&r);
	ws_close(&w);
}

/* Python modules used through a name: `import pkg.mod as m` and `from
 * pkg import mod`, then `m.f()`. */
TEST(python_module_members)
{
	static const File files[] = {
	    {"pkg/__init__.py", ""},
	    {"pkg/nodes.py",
	     "MODEL_BLOCK = 4\n\n\ndef render(x):\n    return x\n"},
	    {"pkg/text.py", "def render(s):\n    return s\n"},
	    {"other/a.py", "def render(a):\n    return a\n"},
	    {"other/b.py", "def render(b):\n    return b\n"},
	    {"other/c.py", "def render(c):\n    return c\n"},
	    {"other/d.py", "def render(d):\n    return d\n"},
	    {NULL, NULL},
	};
	Ws w;
	RankResult r;
	int i;

	ws_open(&w, files);
	rank_at(&w, "app.py",
		"import pkg.text as t\n"
		"from pkg import nodes\n\n\n"
		"def show(x):\n"
		"    return nodes.render(x) + t.render(x) + " CURSOR "\n",
		2000, &r);
	i = find(&r, "pkg/nodes.py", NULL);
	ASSERT_TRUE(i >= 0);
	EXPECT_TRUE(r.items[i].signals.import);
	i = find(&r, "pkg/text.py", "render");
	ASSERT_TRUE(i >= 0);
	EXPECT_TRUE(r.items[i].signals.import);
	rank_result_free(&r);
	ws_close(&w);
}

/* The item of path that defines name: its symbol, or one of the small
 * siblings shown with it (`defines` lists them); -1 when none. */
static int find_def(const RankResult *r, const char *path, const char *name)
{
	size_t n = strlen(name);

	for (uint32_t i = 0; i < r->nitems; i++) {
		const RankItem *it = &r->items[i];
		const char *d = it->signals.defines;

		if (it->in_buffer || strcmp(it->path, path) != 0)
			continue;
		if (strcmp(it->symbol, name) == 0)
			return (int)i;
		for (; d && (d = strstr(d, name)); d += n)
			if ((d == it->signals.defines || d[-1] == ' ') &&
			    (d[n] == ',' || d[n] == '\0'))
				return (int)i;
	}
	if (getenv("RANK_EXPLAIN"))
		explain(r);
	return -1;
}

/* Names bound by assignment at the top level of a module are definitions
 * of their own, a line each: `nodes.MODEL_BLOCK`, `from .consts import
 * MAX_SIZE`, `Point = namedtuple(...)`, ahead of the same name in a file
 * not imported. */
TEST(bindings_are_definitions)
{
	static const File files[] = {
	    {"pkg/__init__.py", ""},
	    {"pkg/nodes.py", "import re\n\n"
			     "MODEL_BLOCK = 4\n\n\n"
			     "MODEL_LINE = 5\n\n\n"
			     "def render(x):\n    return x\n"},
	    {"pkg/consts.py", "from collections import namedtuple\n\n"
			      "MAX_SIZE = 1 << 20\n\n\n"
			      "Point = namedtuple(\"Point\", \"x y\")\n\n\n"
			      "def scale(p):\n"
			      "    return Point(p.x * 2, p.y * 2)\n"},
	    {"other/consts.py", "MAX_SIZE = 7\n"},
	    {NULL, NULL},
	};
	static const char *const want[][2] = {
	    {"pkg/nodes.py", "MODEL_BLOCK"},
	    {"pkg/consts.py", "MAX_SIZE"},
	    {"pkg/consts.py", "Point"},
	};
	Ws w;
	RankResult r;
	int i;

	ws_open(&w, files);
	rank_at(&w, "pkg/app.py",
		"from pkg import nodes\n"
		"from .consts import MAX_SIZE, Point\n\n\n"
		"def show(x):\n"
		"    p = Point(x, nodes.MODEL_BLOCK)\n"
		"    return min(x, MAX_SIZE) + " CURSOR "\n",
		2000, &r);
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		i = find_def(&r, want[k][0], want[k][1]);
		CHECK_(i >= 0, (void)0, "no item %s %s", want[k][0],
		       want[k][1]);
		if (i < 0)
			continue;
		EXPECT_STR_EQ(r.items[i].symbol, want[k][1]);
		EXPECT_TRUE(r.items[i].signals.import);
		EXPECT_TRUE(r.items[i].signals.definition > 0);
		EXPECT_INT_EQ(r.items[i].lines.start, r.items[i].lines.end);
	}
	/* The binding of the file the import names, not another's. */
	i = find(&r, "other/consts.py", NULL);
	EXPECT_TRUE(i < 0 || i > find_def(&r, "pkg/consts.py", "MAX_SIZE"));
	rank_result_free(&r);
	ws_close(&w);
}

/* TypeScript: an exported const that is no function is a definition, as
 * its `type` alias already was; `let` too. */
TEST(bindings_are_definitions_typescript)
{
	static const File files[] = {
	    {"src/limits.ts",
	     "import { Clock } from \"./clock.js\";\n\n"
	     "// Bytes a request may carry.\n"
	     "export const MAX_BODY = 1 << 20;\n"
	     "export let retries = 3;\n"
	     "export const enabled = new Clock().now() > 0;\n"},
	    {"src/other.ts", "export const MAX_BODY = 5;\n"},
	    {NULL, NULL},
	};
	Ws w;
	RankResult r;
	int i;

	ws_open(&w, files);
	rank_at(&w, "src/server.ts",
		"import { MAX_BODY, retries } from \"./limits.js\";\n\n"
		"export function check(n: number): boolean {\n"
		"  return n < MAX_BODY && retries > 0 && " CURSOR "\n"
		"}\n",
		2000, &r);
	i = find_def(&r, "src/limits.ts", "MAX_BODY");
	ASSERT_TRUE(i >= 0);
	EXPECT_STR_EQ(r.items[i].symbol, "MAX_BODY");
	EXPECT_TRUE(r.items[i].signals.import);
	EXPECT_TRUE(r.items[i].signals.definition > 0);
	EXPECT_TRUE(find_def(&r, "src/limits.ts", "retries") >= 0);
	i = find(&r, "src/other.ts", "MAX_BODY");
	EXPECT_TRUE(i < 0 || i > find_def(&r, "src/limits.ts", "MAX_BODY"));
	rank_result_free(&r);
	ws_close(&w);
}

/* A script's module-level `model` and `config` are no definitions of
 * the locals a function names so, nor is a class's field of that name:
 * data found by a bare name counts only in a file the buffer imports. */
TEST(bindings_need_an_import)
{
	static const File files[] = {
	    {"scripts/train.py", "model = object()\nconfig = {}\n"},
	    {"app/settings.py", "class Settings:\n    model = None\n"},
	    {"app/limits.py", "config = {\"max\": 3}\n"},
	    {NULL, NULL},
	};
	Ws w;
	RankResult r;

	ws_open(&w, files);
	rank_at(&w, "app/run.py",
		"from app import limits\n\n\n"
		"def run(data, fit):\n"
		"    model = fit(data)\n"
		"    config = dict(limits.config)\n"
		"    return model, config, " CURSOR "\n",
		2000, &r);
	for (uint32_t i = 0; i < r.nitems; i++)
		CHECK_(r.items[i].in_buffer ||
			   (strcmp(r.items[i].path, "scripts/train.py") != 0 &&
			    strcmp(r.items[i].path, "app/settings.py") != 0),
		       (void)0, "item %u: %s %s", i, r.items[i].path,
		       r.items[i].symbol);
	EXPECT_TRUE(find_def(&r, "app/limits.py", "config") >= 0);
	rank_result_free(&r);
	ws_close(&w);
}

/* An imported name is its module's top-level definition, with the
 * import's whole share of the name, not a class member of the same name
 * in that module, nor shared with other files' definitions. */
TEST(imported_name_is_the_modules_own)
{
	static const File files[] = {
	    {"src/Inspectable.ts",
	     "export const toJSON = (x: unknown): unknown => x;\n\n"
	     "export abstract class Class {\n"
	     "  abstract toJSON(): unknown;\n"
	     "}\n"},
	    {"src/a.ts", "export const toJSON = (a: unknown) => a;\n"},
	    {"src/b.ts", "export const toJSON = (b: unknown) => b;\n"},
	    {NULL, NULL},
	};
	Ws w;
	RankResult r;
	int top, member;

	ws_open(&w, files);
	rank_at(&w, "src/Map.ts",
		"import { toJSON } from \"./Inspectable.js\";\n\n"
		"export function show(m: unknown): unknown {\n"
		"  return toJSON(m) ?? " CURSOR "\n"
		"}\n",
		2000, &r);
	top = find(&r, "src/Inspectable.ts", "toJSON");
	member = find(&r, "src/Inspectable.ts", "Class.toJSON");
	ASSERT_INT_EQ(top, 0);
	EXPECT_TRUE(r.items[top].signals.definition >= 0.99);
	/* Found by its name alone, if at all. */
	EXPECT_TRUE(member < 0 || !r.items[member].signals.imported_name);
	rank_result_free(&r);
	ws_close(&w);
}

/* Package specifiers the workspace maps: tsconfig.json's `paths` (its
 * JSON has comments and trailing commas, as tsc allows) and `baseUrl`,
 * and a workspace package by its package.json name, through `exports`.
 * Each resolves to its file, which carries the import signal, ahead of a
 * same-named definition elsewhere. */
TEST(tsconfig_paths_and_workspace_packages)
{
	static const File files[] = {
	    {"tsconfig.json",
	     "{\n"
	     "  // paths are relative to baseUrl\n"
	     "  \"compilerOptions\": {\n"
	     "    \"strict\": true, /* checked */\n"
	     "    \"baseUrl\": \".\",\n"
	     "    \"paths\": {\"@app/*\": [\"src/*\"], \"#cfg\": "
	     "[\"src/config/load.ts\"],},\n"
	     "  },\n"
	     "}\n"},
	    {"package.json", "{\"name\": \"root\", \"private\": true,\n"
			     " \"workspaces\": [\"packages/*\"]}\n"},
	    {"packages/core/package.json",
	     "{\"name\": \"@acme/core\", \"main\": \"./dist/index.js\",\n"
	     " \"exports\": {\".\": {\"types\": \"./src/index.ts\",\n"
	     "                    \"default\": \"./dist/index.js\"},\n"
	     "             \"./extra\": \"./src/extra.ts\"}}\n"},
	    {"packages/core/src/index.ts",
	     "export function makeCore(n: number): number {\n"
	     "  return n + 1;\n"
	     "}\n"},
	    {"packages/core/src/extra.ts",
	     "export function extraCore(n: number): number {\n"
	     "  return n * 2;\n"
	     "}\n"},
	    {"src/util.ts", "export function slugify(s: string): string {\n"
			    "  return s.toLowerCase();\n"
			    "}\n"},
	    {"src/widgets/index.ts",
	     "export function button(label: string): string {\n"
	     "  return label;\n"
	     "}\n"},
	    {"src/config/load.ts", "export function loadConfig(): object {\n"
				   "  return {};\n"
				   "}\n"},
	    {"src/lib/helpers.ts", "export function trim(s: string): string {\n"
				   "  return s.trim();\n"
				   "}\n"},
	    {"lib/util.ts", "export function slugify(s: string): string {\n"
			    "  return s;\n"
			    "}\n"
			    "export function makeCore(n: number): number {\n"
			    "  return n;\n"
			    "}\n"},
	    {NULL, NULL},
	};
	static const char *const want[][2] = {
	    {"src/util.ts", "slugify"},
	    {"src/widgets/index.ts", "button"},
	    {"src/config/load.ts", "loadConfig"},
	    {"src/lib/helpers.ts", "trim"},
	    {"packages/core/src/index.ts", "makeCore"},
	    {"packages/core/src/extra.ts", "extraCore"},
	};
	Ws w;
	RankResult r;
	int i, other;

	ws_open(&w, files);
	rank_at(&w, "src/pages/home.ts",
		"import { slugify } from \"@app/util\";\n"
		"import { button } from \"@app/widgets\";\n"
		"import { loadConfig } from \"#cfg\";\n"
		"import { trim } from \"src/lib/helpers\";\n"
		"import { makeCore } from \"@acme/core\";\n"
		"import { extraCore } from \"@acme/core/extra\";\n\n"
		"export function home(t: string): string {\n"
		"  const c = loadConfig();\n"
		"  const n = makeCore(extraCore(1));\n"
		"  return button(slugify(trim(t))) + " CURSOR "\n"
		"}\n",
		2000, &r);
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		i = find(&r, want[k][0], want[k][1]);
		CHECK_(i >= 0, (void)0, "no item %s %s", want[k][0],
		       want[k][1]);
		if (i < 0)
			continue;
		CHECK_(r.items[i].signals.import, (void)0,
		       "%s %s: no import signal", want[k][0], want[k][1]);
	}
	other = find(&r, "lib/util.ts", "slugify");
	EXPECT_TRUE(other < 0 || (!r.items[other].signals.import &&
				  other > find(&r, "src/util.ts", "slugify")));
	other = find(&r, "lib/util.ts", "makeCore");
	EXPECT_TRUE(other < 0 ||
		    (!r.items[other].signals.import &&
		     other > find(&r, "packages/core/src/index.ts", NULL)));
	rank_result_free(&r);
	ws_close(&w);
}

/* ---------------------------------------------------------------------- *
 * Receivers and duplicates
 * ---------------------------------------------------------------------- */

/* A parameter of the function being written, given a type, is a local:
 * its name near the cursor is no use of a function of the same name
 * elsewhere, while the type it names is. */
TEST(typed_parameter_is_a_local)
{
	static const File files[] = {
	    {"shop/grouping.py", "def group(items):\n    return list(items)\n"},
	    {"shop/models.py", "class Group:\n    name = ''\n"},
	    {NULL, NULL},
	};
	Ws w;
	RankResult r;
	int fn, cls;

	ws_open(&w, files);
	rank_at(&w, "shop/render.py",
		"from shop.models import Group\n\n\n"
		"def render(group: Group):\n"
		"    " CURSOR "\n",
		2000, &r);
	fn = find(&r, "shop/grouping.py", "group");
	cls = find(&r, "shop/models.py", "Group");
	ASSERT_TRUE(cls >= 0);
	EXPECT_TRUE(r.items[cls].signals.definition > 0);
	EXPECT_TRUE(fn < 0 || r.items[fn].signals.definition == 0);
	rank_result_free(&r);
	ws_close(&w);
}

/* collector = Collector(...); collector.delete(): Collector.delete ranks
 * ahead of the delete of every other class, and says why. */
TEST(receiver_types)
{
	static const File files[] = {
	    {"orm/deletion.py", "class Collector:\n"
				"    def collect(self, objs):\n"
				"        self.objs = list(objs)\n\n"
				"    def delete(self):\n"
				"        return len(self.objs)\n"},
	    {"orm/base.py",
	     "class Model:\n    def delete(self):\n        pass\n"},
	    {"files/storage.py",
	     "class Storage:\n    def delete(self, name):\n        pass\n"},
	    {"test/client.py",
	     "class Client:\n    def delete(self, path):\n        pass\n"},
	    {"cli/command.py",
	     "class Command:\n    def collect(self):\n        pass\n"},
	    {NULL, NULL},
	};
	Ws w;
	RankResult r;
	int right, other;
	char *why;

	ws_open(&w, files);
	rank_at(&w, "orm/query.py",
		"from orm.deletion import Collector\n\n\n"
		"class QuerySet:\n"
		"    def delete(self):\n"
		"        collector = Collector(using=self.db)\n"
		"        collector.collect(self)\n"
		"        count = collector.delete()\n"
		"        " CURSOR "\n",
		2000, &r);
	right = find(&r, "orm/deletion.py", "Collector.delete");
	ASSERT_TRUE(right >= 0);
	EXPECT_TRUE(r.items[right].signals.receiver);
	other = find(&r, "orm/base.py", "Model.delete");
	EXPECT_TRUE(other < 0 || other > right);
	other = find(&r, "cli/command.py", "Command.collect");
	EXPECT_TRUE(other < 0 || other > right);
	why = why_of(&r.items[right]);
	EXPECT_TRUE(
	    strstr(why, "a method of the type of what it is called on"));
	xfree(why);
	rank_result_free(&r);

	/* An annotated parameter types its name too. */
	rank_at(&w, "orm/purge.py",
		"def purge(c: \"Collector\", objs):\n"
		"    c.collect(objs)\n"
		"    " CURSOR "\n",
		2000, &r);
	right = find(&r, "orm/deletion.py", "Collector.collect");
	ASSERT_TRUE(right >= 0);
	EXPECT_TRUE(r.items[right].signals.receiver);
	rank_result_free(&r);
	ws_close(&w);
}

/* A module's source, declarations and compiled form show one definition
 * once; a vendored copy of a file does not repeat its chunks. */
TEST(duplicates_shown_once)
{
	static const char body[] =
	    "export function parseQuery(text: string): string[] {\n"
	    "  return text.split(\"&\").filter((p) => p.length > 0);\n"
	    "}\n";
	static const File files[] = {
	    {"src/query.ts", body},
	    {"src/query.d.ts",
	     "export declare function parseQuery(text: string): string[];\n"},
	    {"src/query.js",
	     "export function parseQuery(text) {\n"
	     "  return text.split(\"&\").filter((p) => p.length > 0);\n"
	     "}\n"},
	    {"vendor/a/query.ts", body},
	    {"vendor/b/query.ts", body},
	    {NULL, NULL},
	};
	Ws w;
	RankResult r;
	uint32_t same = 0;

	ws_open(&w, files);
	rank_at(&w, "src/main.ts",
		"import { parseQuery } from \"./query.js\";\n\n"
		"export function run(q: string) {\n"
		"  return parseQuery(q).length + " CURSOR "\n"
		"}\n",
		2000, &r);
	ASSERT_TRUE(find(&r, "src/query.ts", "parseQuery") >= 0);
	for (uint32_t i = 0; i < r.nitems; i++)
		same += strcmp(r.items[i].symbol, "parseQuery") == 0 &&
			strstr(r.items[i].path, "query.") != NULL &&
			strncmp(r.items[i].path, "src/", 4) == 0;
	EXPECT_INT_EQ(same, 1);
	if (same != 1)
		explain(&r);
	for (uint32_t i = 0; i < r.nitems; i++)
		for (uint32_t k = 0; k < i; k++)
			EXPECT_TRUE(strcmp(r.items[i].text, r.items[k].text) !=
				    0);
	rank_result_free(&r);
	ws_close(&w);
}

/* A class whose body does not fit shows its first lines and the
 * signatures of its other members: an outline, marked as one. */
TEST(class_outline)
{
	Buf big = {0};
	File files[] = {{"lib/store.py", NULL}, {NULL, NULL}};
	Ws w;
	RankResult r;
	int i;
	uint32_t end;
	const char *t;

	buf_puts(&big, "class Store:\n"
		       "    \"\"\"Keys and values.\"\"\"\n\n"
		       "    def __init__(self):\n"
		       "        self.data = {}\n\n");
	for (int k = 0; k < 12; k++) {
		buf_printf(&big, "    def op_%d(self, key, value=None):\n", k);
		for (int j = 0; j < 6; j++)
			buf_printf(&big, "        key = key + %d\n", j);
		buf_puts(&big, "        return self.data.get(key, value)\n\n");
	}
	files[0].text = big.data;
	ws_open(&w, files);
	rank_at(&w, "lib/use.py",
		"from lib.store import Store\n\n\n"
		"def use(other):\n"
		"    s = Store()\n"
		"    other.op_2()\n"
		"    return " CURSOR "\n",
		2000, &r);
	i = find(&r, "lib/store.py", "Store");
	ASSERT_TRUE(i >= 0);
	t = r.items[i].text;
	EXPECT_TRUE(r.items[i].clipped);
	EXPECT_TRUE(strncmp(t,
			    "class Store:\n    \"\"\"Keys and values.\"\"\"\n"
			    "\n    def __init__(self):\n"
			    "        self.data = {}\n",
			    78) == 0);
	EXPECT_TRUE(strstr(t, "\n    def op_0(self, key, value=None):\n"
			      "    def op_1(self, key, value=None):\n"));
	EXPECT_TRUE(strstr(t, "    def op_11(self, key, value=None):\n"));
	EXPECT_TRUE(strstr(t, "# ... an outline: the bodies are left out\n"));
	EXPECT_TRUE(strstr(t, "key = key + 1") == NULL);
	/* The range runs to the last header shown within OUTLINE_SPAN (40)
	 * lines of the class, op_3's at line 33 (not op_4's at 42, though
	 * the text lists them all), or ends before an item of the file
	 * ranked above it. One ranked below it in that range, op_2 (called
	 * on a receiver of no known type), is left out: the outline shows
	 * its header, and no line is in two items. */
	EXPECT_INT_EQ(r.items[i].lines.start, 0);
	end = 33;
	for (int k = 0; k < i; k++)
		if (strcmp(r.items[k].path, "lib/store.py") == 0 &&
		    r.items[k].lines.start > 4 && r.items[k].lines.start <= end)
			end = r.items[k].lines.start - 1;
	EXPECT_INT_EQ(r.items[i].lines.end, end);
	for (uint32_t k = 0; k < r.nitems; k++)
		EXPECT_TRUE((int)k == i ||
			    strcmp(r.items[k].path, "lib/store.py") != 0 ||
			    r.items[k].lines.start > r.items[i].lines.end);
	EXPECT_TRUE(find(&r, "lib/store.py", "Store.op_2") < 0);
	rank_result_free(&r);
	buf_free(&big);
	ws_close(&w);
}

/* The current file does not fill the first items: the editor's prompt
 * holds much of it, so one of the first five is left to another file. */
TEST(current_file_leaves_room)
{
	static const File files[] = {
	    {"lib/units.py",
	     "def to_metres(feet):\n    return feet * 0.3048\n"},
	    {NULL, NULL},
	};
	Buf buf = {0};
	Ws w;
	RankResult r;
	uint32_t same = 0;
	int far;

	ws_open(&w, files);
	buf_puts(&buf, "\"\"\"Sums of lengths.\"\"\"\n\n\n");
	for (int k = 0; k < 6; k++)
		buf_printf(&buf,
			   "def helper_%d(x):\n"
			   "    return x + %d\n\n\n",
			   k, k);
	for (int k = 0; k < 20; k++)
		buf_printf(&buf, "PAD_%d = %d\n", k, k);
	buf_puts(&buf, "\n\ndef total(x):\n    y = to_metres(x)\n");
	for (int k = 0; k < 6; k++)
		buf_printf(&buf, "    y = helper_%d(y)\n", k);
	buf_puts(&buf, "    return y + " CURSOR "\n");
	rank_at(&w, "app/calc.py", buf.data, 2000, &r);
	ASSERT_TRUE(r.nitems >= 5);
	for (uint32_t i = 0; i < 5; i++)
		same += r.items[i].in_buffer;
	EXPECT_TRUE(same <= 4);
	far = find(&r, "lib/units.py", "to_metres");
	EXPECT_TRUE(far >= 0 && far < 5);
	if (same > 4 || far < 0 || far >= 5)
		explain(&r);
	rank_result_free(&r);
	buf_free(&buf);
	ws_close(&w);
}

/* Of the first five items at most two come from the current file
 * without a name used near the cursor: ranked for being close, they are
 * what the editor's prompt shows already. A weaker definition of another
 * file (imported, used far above) moves up, ahead of the third. */
TEST(current_file_unnamed_wait)
{
	static const File files[] = {
	    {"lib/__init__.py", ""},
	    {"lib/sizes.py", "class Limits:\n    top = 100\n"},
	    {NULL, NULL},
	};
	Buf buf = {0};
	Ws w;
	RankResult r;
	uint32_t unnamed = 0;
	int far;

	ws_open(&w, files);
	buf_puts(&buf, "from lib.sizes import Limits\n\n\n"
		       "def first(value):\n"
		       "    return Limits.top\n");
	for (int k = 0; k < 40; k++)
		buf_puts(&buf, "\n");
	buf_puts(&buf, "def base(value):\n"
		       "    return value * 2\n\n\n\n\n\n\n"
		       "def total(value):\n"
		       "    return value + " CURSOR "\n\n\n");
	for (int k = 0; k < 6; k++)
		buf_printf(&buf,
			   "def grow_%d(value):\n"
			   "    return value * 2 + %d\n\n\n",
			   k, k);
	rank_at(&w, "app/calc.py", buf.data, 2000, &r);
	ASSERT_TRUE(r.nitems >= 5);
	for (uint32_t i = 0; i < r.nitems; i++)
		unnamed +=
		    r.items[i].in_buffer && r.items[i].signals.definition <= 0;
	far = find(&r, "lib/sizes.py", "Limits");
	if (far < 0 || far > 3)
		explain(&r);
	EXPECT_TRUE(far >= 0 && far <= 3);
	EXPECT_TRUE(unnamed >= 2); /* they are not dropped, they wait */
	rank_result_free(&r);
	buf_free(&buf);
	ws_close(&w);
}

/* Ranks app/run.py, whose run takes parameters params and calls
 * store.drain twelve lines before the cursor and conn.flush() on the
 * line before it, into r, with the items of both (or -1). */
static void run_flush_drain(Ws *w, const char *params, RankResult *r,
			    int *flush, int *drain)
{
	char text[512];

	snprintf(text, sizeof(text),
		 "from lib import store\n\n\n"
		 "def run(%s):\n"
		 "    rest = store.drain(items)\n"
		 "    a = 1\n    b = 2\n    c = 3\n"
		 "    d = 4\n    e = 5\n    f = 6\n"
		 "    g = 7\n    h = 8\n    i = 9\n"
		 "    conn.flush()\n    " CURSOR "\n",
		 params);
	rank_at(w, "app/run.py", text, 2000, r);
	*flush = find(r, "lib/store.py", "Store.flush");
	*drain = find(r, "lib/store.py", "drain");
}

/* A method called on a name of no known type is a guess among every
 * type's method of that name, even in a module the buffer imports: the
 * module's function called a few lines up ranks ahead of Store.flush
 * called on an untyped `conn`; typed, conn's flush is Store's, and ranks
 * first. */
TEST(untyped_receiver_is_a_guess)
{
	static const File files[] = {
	    {"lib/__init__.py", ""},
	    {"lib/store.py", "class Store:\n"
			     "    def flush(self):\n"
			     "        pass\n\n\n"
			     "def drain(items):\n"
			     "    return list(items)\n"},
	    {NULL, NULL},
	};
	Ws w;
	RankResult r;
	int flush, drain;

	ws_open(&w, files);
	run_flush_drain(&w, "conn, items", &r, &flush, &drain);
	if (drain < 0 || (flush >= 0 && flush < drain))
		explain(&r);
	ASSERT_TRUE(drain >= 0);
	EXPECT_TRUE(flush < 0 || flush > drain);
	rank_result_free(&r);

	run_flush_drain(&w, "conn: store.Store, items", &r, &flush, &drain);
	if (flush < 0 || (drain >= 0 && drain < flush))
		explain(&r);
	ASSERT_TRUE(flush >= 0);
	EXPECT_TRUE(r.items[flush].signals.receiver);
	EXPECT_TRUE(drain < 0 || drain > flush);
	rank_result_free(&r);
	ws_close(&w);
}

/* The item of the buffer's own definition symbol, or -1. */
static int find_here(const RankResult *r, const char *symbol)
{
	for (uint32_t i = 0; i < r->nitems; i++)
		if (r->items[i].in_buffer &&
		    strcmp(r->items[i].symbol, symbol) == 0)
			return (int)i;
	return -1;
}

/* What the file's definitions with headers like the one being written
 * call in the file, it is likely to: frame, which both send_* functions
 * pass their payload to, ranks ahead of checksum, which more functions of
 * the file call (but none like send_pong), and says why. */
TEST(similar_calls_in_the_file)
{
	static const File files[] = {{"net/__init__.py", ""}, {NULL, NULL}};
	Buf buf = {0};
	Ws w;
	RankResult r;
	int i, j;

	ws_open(&w, files);
	buf_puts(&buf, "LIMIT = 64\n\n\n"
		       "def frame(kind, payload):\n"
		       "    return kind.encode() + payload\n\n\n"
		       "def checksum(data):\n"
		       "    return sum(data) % 256\n\n\n"
		       "def send_ping(sock, payload):\n"
		       "    return sock.send(frame('ping', payload))\n\n\n"
		       "def send_data(sock, payload):\n"
		       "    return sock.send(frame('data', payload))\n\n\n");
	for (int k = 0; k < 4; k++)
		buf_printf(&buf,
			   "def log_%d(data):\n"
			   "    return checksum(data) + %d\n\n\n",
			   k, k);
	/* Out of the editor's view of the cursor. */
	for (int k = 0; k < 40; k++)
		buf_puts(&buf, "\n");
	buf_puts(&buf, "def send_pong(sock, payload):\n"
		       "    if len(payload) > LIMIT:\n"
		       "        return 0\n    " CURSOR "\n");
	rank_at(&w, "net/wire.py", buf.data, 2000, &r);
	i = find_here(&r, "frame");
	j = find_here(&r, "checksum");
	if (i < 0 || (j >= 0 && j < i))
		explain(&r);
	ASSERT_TRUE(i >= 0);
	EXPECT_TRUE(j < 0 || j > i);
	EXPECT_TRUE(r.items[i].signals.similar > 0);
	EXPECT_TRUE(
	    why_says(&r.items[i], "headers like the one being written"));
	rank_result_free(&r);
	buf_free(&buf);
	ws_close(&w);
}

/* The name of the definition being written is in its header, not a use:
 * the same-named methods of the buffer's other classes are neighbours,
 * not definitions the cursor names, and wait behind what it does name. */
TEST(own_name_is_no_use)
{
	static const File files[] = {{NULL, NULL}};
	Ws w;
	RankResult r;
	int named = -1;

	ws_open(&w, files);
	rank_at(&w, "app/shapes.py",
		"def half(x):\n    return x / 2\n\n\n"
		"class Square:\n    def area(self):\n"
		"        return self.side ** 2\n\n\n"
		"class Circle:\n    def area(self):\n"
		"        return 3.14 * self.r ** 2\n\n\n"
		"class Triangle:\n    def area(self):\n"
		"        return half(self.base * self.height)\n\n\n"
		"class Kite:\n    def area(self):\n"
		"        base = self.p\n        return half(" CURSOR "\n",
		2000, &r);
	for (uint32_t i = 0; i < r.nitems; i++) {
		if (r.items[i].in_buffer &&
		    strcmp(r.items[i].symbol, "half") == 0)
			named = (int)i;
		if (r.items[i].in_buffer &&
		    strstr(r.items[i].symbol, ".area") != NULL)
			EXPECT_TRUE(r.items[i].signals.definition <= 0);
	}
	if (named != 0)
		explain(&r);
	EXPECT_INT_EQ(named, 0);
	rank_result_free(&r);
	ws_close(&w);
}

/* Right after a Python method with no body yet, at column 0 of a blank
 * line (where RepoEval puts the cursor), the method is being written:
 * what the file's other `write` methods call is what it will. */
TEST(bodiless_function_is_being_written)
{
	static const File files[] = {{NULL, NULL}};
	Ws w;
	RankResult r;
	int i;

	ws_open(&w, files);
	rank_at(&w, "app/codecs.py",
		"def _pack(b):\n    return bytes(b)\n\n\n"
		"class Json:\n    def write(self, b):\n"
		"        return _pack(b)\n\n\n"
		"class Yaml:\n    def write(self, b):\n"
		"        return _pack(b)\n\n\n"
		"class Toml:\n    def write(self, b):\n" CURSOR "\n\n\n"
		"class Ini:\n    pass\n",
		2000, &r);
	for (i = 0; i < (int)r.nitems; i++)
		if (r.items[i].in_buffer &&
		    strcmp(r.items[i].symbol, "_pack") == 0)
			break;
	ASSERT_TRUE(i < (int)r.nitems);
	EXPECT_TRUE(r.items[i].signals.sibling > 0.99);
	rank_result_free(&r);
	ws_close(&w);
}

/* The name of the method being written is no use of the file's other
 * classes' namesakes, but a base's is the method it overrides: deep in
 * Child.__init__, `super().__init__(...)` names Base.__init__, and it
 * weighs as used; Other.__init__ does not. */
TEST(overridden_method_is_a_use)
{
	static const File files[] = {{NULL, NULL}};
	Buf text = {0};
	Ws w;
	RankResult r;
	int base = -1, other = -1;

	buf_puts(&text, "class Base(Exception):\n"
			"    def __init__(self, message, code=0):\n"
			"        self.message = message\n"
			"        self.code = code\n\n\n"
			"class Other:\n    def __init__(self, path):\n"
			"        self.path = path\n\n\n"
			"class Child(Base):\n"
			"    def __init__(self, message, hint=None):\n");
	for (int k = 0; k < 40; k++)
		buf_printf(&text, "        self.f%d = %d\n", k, k);
	buf_puts(&text, "        super().__init__(message)\n        " CURSOR
			"\n\n\nclass Last:\n    pass\n");
	ws_open(&w, files);
	rank_at(&w, "app/errors.py", text.data, 2000, &r);
	for (uint32_t i = 0; i < r.nitems; i++) {
		if (!r.items[i].in_buffer)
			continue;
		if (strcmp(r.items[i].symbol, "Base.__init__") == 0)
			base = (int)i;
		if (strcmp(r.items[i].symbol, "Other.__init__") == 0)
			other = (int)i;
	}
	if (base < 0)
		explain(&r);
	ASSERT_TRUE(base >= 0);
	EXPECT_TRUE(r.items[base].signals.definition > 0);
	EXPECT_TRUE(other < 0 || r.items[other].signals.definition <= 0);
	buf_free(&text);
	rank_result_free(&r);
	ws_close(&w);
}

/* A name imported by name and not used yet outranks the neighbours of
 * the cursor that nothing names: the code being written is the likeliest
 * to use it. A module's member named through the module (`u.to_feet`) is
 * in use already: imported, not waiting. */
TEST(unused_import_outranks_neighbours)
{
	static const File files[] = {
	    {"lib/__init__.py", ""},
	    {"lib/units.py",
	     "def to_metres(feet):\n    return feet * 0.3048\n\n\n"
	     "def to_feet(metres):\n    return metres / 0.3048\n"},
	    {NULL, NULL},
	};
	Ws w;
	RankResult r;
	int i, j;

	ws_open(&w, files);
	rank_at(&w, "app/calc.py",
		"from lib.units import to_metres\n"
		"import lib.units as u\n\n\n"
		"class Calc:\n"
		"    def scale(self, x):\n"
		"        return x * 2\n\n"
		"    def shift(self, x):\n"
		"        return x + 1\n\n"
		"    def clamp(self, x):\n"
		"        return min(max(x, 0), 10)\n\n"
		"    def round_off(self, x):\n"
		"        return round(x, 2)\n\n"
		"    def back(self, m):\n"
		"        return u.to_feet(m)\n\n"
		"    def total(self, x):\n"
		"        " CURSOR "\n",
		2000, &r);
	i = find(&r, "lib/units.py", "to_metres");
	j = find(&r, "lib/units.py", "to_feet");
	if (i != 0)
		explain(&r);
	ASSERT_TRUE(i >= 0);
	EXPECT_INT_EQ(i, 0);
	EXPECT_TRUE(r.items[i].signals.unused_import);
	ASSERT_TRUE(j >= 0);
	EXPECT_TRUE(r.items[j].signals.imported_name);
	EXPECT_TRUE(!r.items[j].signals.unused_import);
	rank_result_free(&r);
	ws_close(&w);
}

/* The strong prior of a name imported and not used yet is for the
 * definition the import names: `from lib import units` (a module) has
 * none in lib, and a class field of that name in a file not imported is
 * a namesake, not ahead of the current file's neighbour. */
TEST(unused_import_namesake_waits)
{
	static const File files[] = {
	    {"lib/__init__.py", ""},
	    {"lib/units.py", "FOOT = 0.3048\n"},
	    {"tools/fake.py", "class Fake:\n    units = 3\n"},
	    {NULL, NULL},
	};
	Ws w;
	RankResult r;
	Buf buf = {0};
	int fake, near;

	ws_open(&w, files);
	/* The import is far above the cursor: not a name used near it. */
	buf_puts(&buf, "from lib import units\n");
	for (int k = 0; k < 40; k++)
		buf_puts(&buf, "\n");
	buf_puts(&buf, "def bump(x):\n"
		       "    return x + 1\n\n\n"
		       "def scale(x):\n"
		       "    return x * 2\n\n\n"
		       "def total(x):\n"
		       "    " CURSOR "\n");
	rank_at(&w, "app/calc.py", buf.data, 2000, &r);
	fake = find(&r, "tools/fake.py", NULL);
	for (near = 0; near < (int)r.nitems; near++)
		if (r.items[near].in_buffer &&
		    strcmp(r.items[near].symbol, "bump") == 0)
			break;
	if (fake >= 0 && fake < near)
		explain(&r);
	ASSERT_TRUE(near < (int)r.nitems);
	EXPECT_TRUE(fake < 0 || fake > near);
	rank_result_free(&r);
	buf_free(&buf);
	ws_close(&w);
}

/* A name at the cursor that only a file nothing ties to the buffer
 * defines (another package's `table`) is a guess: an imported definition
 * used a few lines above ranks ahead of it. */
TEST(namesake_apart_is_a_guess)
{
	static const File files[] = {
	    {"lib/__init__.py", ""},
	    {"lib/store.py", "def load(path):\n    return open(path)\n"},
	    {"gen/atoms.py", "def table(rows):\n    return dict(rows)\n"},
	    {NULL, NULL},
	};
	Ws w;
	RankResult r;
	int load, table;

	ws_open(&w, files);
	rank_at(&w, "app/report.py",
		"from lib.store import load\n\n\n"
		"def report(path):\n"
		"    data = load(path)\n"
		"    rows = [r for r in data]\n"
		"    rows.sort()\n"
		"    head = rows[:10]\n"
		"    tail = rows[10:]\n"
		"    out = table(head)\n    " CURSOR "\n",
		2000, &r);
	load = find(&r, "lib/store.py", "load");
	table = find(&r, "gen/atoms.py", "table");
	if (load < 0 || (table >= 0 && table < load))
		explain(&r);
	ASSERT_TRUE(load >= 0);
	EXPECT_TRUE(table < 0 || table > load);
	rank_result_free(&r);
	ws_close(&w);
}

/* A script whose only tie to the workspace is a name used once, well
 * above the cursor, that three unrelated files define: nothing speaks for
 * any of them, and the stop signal says so. */
TEST(stop_signal_for_a_chance_name)
{
	static const File files[] = {
	    {"tools/net.py", "def fetch_rows(url):\n    return [url]\n"},
	    {"tools/db.py", "def fetch_rows(cur):\n    return list(cur)\n"},
	    {"tools/csv.py", "def fetch_rows(path):\n    return [path]\n"},
	    {NULL, NULL},
	};
	Buf buf = {0};
	Ws w;
	RankResult r;

	ws_open(&w, files);
	buf_puts(&buf, "import sys\n\n\ndef main():\n"
		       "    data = fetch_rows(sys.argv)\n");
	for (int k = 0; k < 12; k++)
		buf_printf(&buf, "    n%d = len(data) + %d\n", k, k);
	buf_puts(&buf, "    " CURSOR "\n");
	rank_at(&w, "scripts/hello.py", buf.data, 2000, &r);
	EXPECT_TRUE(r.no_context);
	EXPECT_INT_EQ(r.nitems, 0);
	if (!r.no_context)
		explain(&r);
	rank_result_free(&r);
	buf_free(&buf);
	ws_close(&w);
}

/* ---------------------------------------------------------------------- *
 * Freshness
 * ---------------------------------------------------------------------- */

/* A file deleted or rewritten on disk since its rows were written (no
 * scan yet: a branch switch under way) gives no item, in context or in
 * search, and the result counts what it left out. */
TEST(stale_rows_are_not_served)
{
	static const char report[] =
	    "from pkg.geometry import circle_area\n\n\n"
	    "def summary(radii):\n"
	    "    total = 0\n"
	    "    for r in radii:\n"
	    "        total += circle_area(r)\n"
	    "    " CURSOR "\n";
	Ws w;
	RankResult r;
	Buf path = {0};

	ws_open(&w, geometry);
	rank_at(&w, "pkg/report.py", report, 2000, &r);
	ASSERT_TRUE(find(&r, "pkg/geometry.py", "circle_area") >= 0);
	EXPECT_INT_EQ(r.stale, 0);
	rank_result_free(&r);

	/* Rewritten: another size. */
	ixt_write(w.root, "pkg/geometry.py",
		  "def circle_area(r):\n    pass\n"
		  "# rewritten on another branch\n");
	buf_printf(&path, "%s/other/geometry.py", w.root);
	ASSERT_INT_EQ(unlink(path.data), 0);
	rank_at(&w, "pkg/report.py", report, 2000, &r);
	for (uint32_t i = 0; i < r.nitems; i++)
		CHECK_(r.items[i].in_buffer, (void)0, "served stale %s",
		       r.items[i].path);
	EXPECT_TRUE(r.stale > 0);
	rank_result_free(&r);

	rank_search(&w.rr, 1, "circle_area", strlen("circle_area"), 2000, 10,
		    &r);
	EXPECT_INT_EQ(r.nitems, 0);
	EXPECT_TRUE(r.stale > 0);
	rank_result_free(&r);
	buf_free(&path);
	ws_close(&w);
}
