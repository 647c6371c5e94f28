/*
 * test_spans.c: span lookups the context ranking builds on: spans by
 * exact name, a class's members, and a span's text rebuilt from the
 * chunks of a real index file.
 */
#include "test.h"

#include "index/index.h"
#include "index/index_int.h"
#include "ixtest.h"

/* Small chunks, so a definition's text spans several chunk rows. */
#define TINY_CHUNK 40

static const char shapes_py[] =
	"import math\n"
	"\n"
	"\n"
	"class Shape:\n"
	"    \"\"\"Something with an area.\"\"\"\n"
	"\n"
	"    def area(self):\n"
	"        raise NotImplementedError\n"
	"\n"
	"    def describe(self):\n"
	"        return '%s of area %.2f' % (type(self).__name__, self.area())\n"
	"\n"
	"\n"
	"class Circle(Shape):\n"
	"    def __init__(self, r):\n"
	"        self.r = r\n"
	"\n"
	"    def area(self):\n"
	"        return math.pi * self.r ** 2\n";

static const char other_py[] =
	"def area(w, h):\n"
	"    return w * h\n";

typedef struct {
	char *tmp, *db_path;
	Index *ix;
} Fx;

/* Chunks text as Python at TINY_CHUNK and puts it at rel: 0 or an error. */
static int fx_put(Fx *f, const char *rel, const char *text, size_t len)
{
	Chunker *ch = chunker_new(TINY_CHUNK);
	Chunking c;
	int err = chunker_run(ch, LANG_PYTHON, text, (uint32_t)len, NULL, &c);

	if (!err) {
		err = index_file_put(f->ix, rel, text, (uint32_t)len, &c, NULL);
		chunking_close(&c);
	}
	chunker_delete(ch);
	return err;
}

static void fx_open(Fx *f)
{
	IndexOptions o = {0};
	static const struct {
		const char *rel, *text;
	} files[] = {{"geo/shapes.py", shapes_py}, {"other.py", other_py}};

	f->tmp = ixt_tmpdir();
	f->db_path = ixt_path(f->tmp, "index.db");
	o.root = f->tmp;
	o.db_path = f->db_path;
	o.max_chunk_size = TINY_CHUNK;
	o.quiet = true;
	if (index_open(&o, &f->ix) != 0)
		ixt_die("index_open", f->db_path);
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++)
		if (fx_put(f, files[i].rel, files[i].text,
			   strlen(files[i].text)))
			ixt_die("put", files[i].rel);
}

static void fx_close(Fx *f)
{
	index_close(f->ix);
	ixt_rmtree(f->tmp);
	xfree(f->tmp);
	xfree(f->db_path);
}

/* Every "area" in the workspace, the top-level function first (shortest
 * qualified name), each with its file, lines and header. */
TEST(spans_named_exact)
{
	Fx f;
	IndexSpan *sp;
	uint32_t n;

	fx_open(&f);
	ASSERT_INT_EQ(index_spans_named(f.ix, "area", 10, &sp, &n), 0);
	ASSERT_INT_EQ(n, 3);
	EXPECT_STR_EQ(sp[0].qualname, "area");
	EXPECT_STR_EQ(sp[0].path, "other.py");
	EXPECT_INT_EQ(sp[0].parent_id, 0);
	EXPECT_STR_EQ(sp[1].qualname, "Shape.area");
	EXPECT_STR_EQ(sp[2].qualname, "Circle.area");
	EXPECT_STR_EQ(sp[2].path, "geo/shapes.py");
	EXPECT_INT_EQ(sp[2].lines.start, 17);
	EXPECT_INT_EQ(sp[2].lines.end, 18);
	EXPECT_TRUE(sp[2].parent_id != 0);
	index_spans_free(sp, n);
	ASSERT_INT_EQ(index_spans_named(f.ix, "are", 10, &sp, &n), 0);
	EXPECT_INT_EQ(n, 0);
	index_spans_free(sp, n);
	ASSERT_INT_EQ(index_spans_named(f.ix, "area", 1, &sp, &n), 0);
	EXPECT_INT_EQ(n, 1);
	index_spans_free(sp, n);
	fx_close(&f);
}

/* The keep callback of spans_named_where: spans in geo/shapes.py; counts
 * its calls. */
static bool keep_shapes(void *ctx, const char *name, const char *path)
{
	(*(int *)ctx)++;
	return strcmp(name, "area") == 0 && strcmp(path, "geo/shapes.py") == 0;
}

/* Past the first per_name spans of a name, those the callback keeps, at
 * most per_name more, in the same order; a name with fewer spans is not
 * looked at further. */
TEST(spans_named_where_looks_further)
{
	static const char *const names[] = {"describe", "area"};
	Fx f;
	IndexSpan *sp;
	uint32_t n;
	int calls = 0;

	fx_open(&f);
	ASSERT_INT_EQ(index_spans_named_where(f.ix, names, 2, 1, 16,
					      keep_shapes, &calls, &sp, &n),
		      0);
	ASSERT_INT_EQ(n, 3);
	EXPECT_STR_EQ(sp[0].qualname, "area");
	EXPECT_STR_EQ(sp[0].path, "other.py");
	/* Circle.area is kept too, but one more is all per_name allows. */
	EXPECT_STR_EQ(sp[1].qualname, "Shape.area");
	EXPECT_STR_EQ(sp[2].qualname, "Shape.describe");
	EXPECT_INT_EQ(calls, 1);
	index_spans_free(sp, n);
	/* Nothing kept: the first per_name alone. */
	calls = 0;
	ASSERT_INT_EQ(index_spans_named_where(f.ix, names + 1, 1, 1, 16, NULL,
					      NULL, &sp, &n),
		      0);
	EXPECT_INT_EQ(n, 1);
	index_spans_free(sp, n);
	fx_close(&f);
}

/* Ünïcödé, bytes apart for C. */
#define UNICODE    \
	"\xc3\x9c" \
	"n"        \
	"\xc3\xaf" \
	"c"        \
	"\xc3\xb6" \
	"d"        \
	"\xc3\xa9"

/* A batch comes sorted by name, each name's spans in index_spans_named's
 * order, which counts a qualified name's length in characters, as
 * SQLite's length() does: Ünïcödé.area (12 characters, 16 bytes) comes
 * before Abcdefghij.area (15 of each). */
TEST(spans_named_many_in_the_name_order)
{
	static const char uni_py[] = "class Abcdefghij:\n"
				     "    def area(self):\n"
				     "        return 1\n"
				     "\n"
				     "\n"
				     "class " UNICODE ":\n"
				     "    def area(self):\n"
				     "        return 2\n";
	static const char *const names[] = {"describe", "area", "nowhere",
					    "Shape", "area"};
	Fx f;
	IndexSpan *all, *one;
	uint32_t n, n1, at = 0;
	const char *last = "";

	fx_open(&f);
	ASSERT_INT_EQ(fx_put(&f, "uni.py", uni_py, strlen(uni_py)), 0);
	ASSERT_INT_EQ(index_spans_named_many(f.ix, names, 5, 10, &all, &n), 0);
	ASSERT_INT_EQ(n, 7); /* Shape, area 5 times, describe */
	for (uint32_t i = 0; i < n; i = at) {
		EXPECT_TRUE(strcmp(last, all[i].name) < 0);
		last = all[i].name;
		ASSERT_INT_EQ(
		    index_spans_named(f.ix, all[i].name, 10, &one, &n1), 0);
		for (uint32_t k = 0; k < n1; k++, at++) {
			ASSERT_TRUE(at < n);
			EXPECT_INT_EQ(all[at].id, one[k].id);
		}
		index_spans_free(one, n1);
	}
	EXPECT_INT_EQ(at, n);
	EXPECT_STR_EQ(all[4].qualname, UNICODE ".area");
	EXPECT_STR_EQ(all[5].qualname, "Abcdefghij.area");
	index_spans_free(all, n);
	fx_close(&f);
}

/* A class's members in file order; a function has none. */
TEST(span_children_in_order)
{
	Fx f;
	IndexSpan *cls, *kids;
	uint32_t n, k;

	fx_open(&f);
	ASSERT_INT_EQ(index_spans_named(f.ix, "Circle", 10, &cls, &n), 0);
	ASSERT_INT_EQ(n, 1);
	ASSERT_INT_EQ(index_span_children(f.ix, cls[0].id, 10, &kids, &k), 0);
	ASSERT_INT_EQ(k, 2);
	EXPECT_STR_EQ(kids[0].qualname, "Circle.__init__");
	EXPECT_STR_EQ(kids[1].qualname, "Circle.area");
	EXPECT_INT_EQ(kids[1].parent_id, cls[0].id);
	index_spans_free(kids, k);
	ASSERT_INT_EQ(index_span_children(f.ix, cls[0].id, 1, &kids, &k), 0);
	EXPECT_INT_EQ(k, 1);
	index_spans_free(kids, k);
	index_spans_free(cls, n);
	ASSERT_INT_EQ(index_spans_named(f.ix, "area", 1, &cls, &n), 0);
	ASSERT_INT_EQ(index_span_children(f.ix, cls[0].id, 10, &kids, &k), 0);
	EXPECT_INT_EQ(k, 0);
	index_spans_free(kids, k);
	index_spans_free(cls, n);
	fx_close(&f);
}

/* The first children of each parent asked for, in file order, sorted
 * by parent; a parent asked for twice comes once. A class of three
 * hundred methods costs its first few, as one of three does. */
TEST(span_children_many_read_the_first_few)
{
	enum { METHODS = 300, PER = 4 };
	Fx f;
	Buf text = {0};
	IndexSpan *cls, *kids;
	int64_t ids[3], parents[2], big, small;
	uint32_t n, k;
	int64_t steps[2];
	sqlite3_stmt *s;

	fx_open(&f);
	buf_puts(&text, "class Big:\n");
	for (int i = 0; i < METHODS; i++)
		buf_printf(&text, "    def m%03d(self):\n        return %d\n\n",
			   i, i);
	buf_puts(&text, "\n\nclass Small:\n");
	for (int i = 0; i < 3; i++)
		buf_printf(&text, "    def s%d(self):\n        return %d\n\n",
			   i, i);
	ASSERT_INT_EQ(fx_put(&f, "big.py", text.data, text.len), 0);
	ASSERT_INT_EQ(index_spans_named(f.ix, "Big", 1, &cls, &n), 0);
	ASSERT_INT_EQ(n, 1);
	big = cls[0].id;
	index_spans_free(cls, n);
	ASSERT_INT_EQ(index_spans_named(f.ix, "Small", 1, &cls, &n), 0);
	ASSERT_INT_EQ(n, 1);
	small = cls[0].id;
	index_spans_free(cls, n);

	ids[0] = small, ids[1] = big, ids[2] = small;
	ASSERT_INT_EQ(index_span_children_many(f.ix, ids, 3, PER, &kids, &k),
		      0);
	ASSERT_INT_EQ(k, PER + 3);
	/* The lower parent id's children first. */
	parents[0] = big < small ? big : small;
	parents[1] = big < small ? small : big;
	for (int p = 0, at = 0; p < 2; p++) {
		bool of_big = parents[p] == big;

		for (uint32_t j = 0; j < (of_big ? PER : 3u); j++, at++) {
			char want[16];

			snprintf(want, sizeof(want), of_big ? "m%03u" : "s%u",
				 j);
			EXPECT_STR_EQ(kids[at].name, want);
			EXPECT_INT_EQ(kids[at].parent_id, parents[p]);
			EXPECT_STR_EQ(kids[at].path, "big.py");
		}
	}
	index_spans_free(kids, k);

	s = index__stmt(f.ix, ST_CHILDREN_MANY);
	for (int i = 0; i < 2; i++) {
		sqlite3_stmt_status(s, SQLITE_STMTSTATUS_VM_STEP, 1);
		ASSERT_INT_EQ(index_span_children_many(f.ix, i ? &big : &small,
						       1, PER, &kids, &k),
			      0);
		steps[i] = sqlite3_stmt_status(s, SQLITE_STMTSTATUS_VM_STEP, 1);
		EXPECT_INT_EQ(k, i ? PER : 3);
		index_spans_free(kids, k);
	}
	EXPECT_TRUE(steps[1] <= 2 * steps[0]);
	buf_free(&text);
	fx_close(&f);
}

/* The text of any byte range comes back exactly as in the file, across
 * chunk boundaries; a range past the end of the file is not found. */
TEST(file_text_rebuilt_from_chunks)
{
	Fx f;
	IndexSpan *sp;
	uint32_t n, len = (uint32_t)strlen(shapes_py);
	char *t;

	fx_open(&f);
	ASSERT_INT_EQ(index_spans_named(f.ix, "Shape", 10, &sp, &n), 0);
	ASSERT_INT_EQ(n, 1);
	for (uint32_t a = 0; a < len; a += 7)
		for (uint32_t z = a; z <= len; z += 13) {
			ASSERT_INT_EQ(index_file_text(f.ix, sp[0].file_id, a, z,
						      &t),
				      1);
			CHECK_(strlen(t) == z - a &&
				       memcmp(t, shapes_py + a, z - a) == 0,
			       (void)0, "[%u, %u): got \"%s\"", a, z, t);
			xfree(t);
		}
	ASSERT_INT_EQ(index_file_text(f.ix, sp[0].file_id, sp[0].bytes.start,
				      sp[0].bytes.end, &t),
		      1);
	EXPECT_TRUE(strncmp(t, "class Shape:\n", 13) == 0);
	xfree(t);
	EXPECT_INT_EQ(index_file_text(f.ix, sp[0].file_id, len, len + 10, &t),
		      0);
	EXPECT_TRUE(t == NULL);
	EXPECT_INT_EQ(index_file_text(f.ix, 9999, 0, 10, &t), 0);
	index_spans_free(sp, n);
	fx_close(&f);
}

/* How many spans a symbol query finds, and whether one is named name. */
static uint32_t symbols_named(Index *ix, const char *q, const char *name)
{
	IndexSpan *sp;
	uint32_t n, hits = 0;

	if (index_symbols(ix, q, 50, &sp, &n) != 0)
		return UINT32_MAX;
	for (uint32_t i = 0; i < n; i++)
		hits += strcmp(sp[i].name, name) == 0;
	index_spans_free(sp, n);
	return hits;
}

/* Symbol queries match names held in memory between queries: they see
 * what is written after the first query, through the same connection
 * or another one, and not what is removed; and stay right after writes
 * that add more names than they held. */
TEST(symbols_follow_writes)
{
	Fx f;
	Index *other;
	IndexOptions o = {0};
	char rel[64], text[128];

	fx_open(&f);
	EXPECT_INT_EQ(symbols_named(f.ix, "Circle", "Circle"), 1);
	EXPECT_INT_EQ(symbols_named(f.ix, "Ellipse", "Ellipse"), 0);
	ixt_put_py(f.ix, "ellipse.py", "class Ellipse:\n    pass\n",
		   TINY_CHUNK);
	EXPECT_INT_EQ(symbols_named(f.ix, "Ellipse", "Ellipse"), 1);

	o.root = f.tmp;
	o.db_path = f.db_path;
	o.max_chunk_size = TINY_CHUNK;
	o.quiet = true;
	ASSERT_INT_EQ(index_open(&o, &other), 0);
	ixt_put_py(other, "square.py", "def squareness(x):\n    return x\n",
		   TINY_CHUNK);
	EXPECT_INT_EQ(symbols_named(f.ix, "squareness", "squareness"), 1);
	ASSERT_INT_EQ(index_file_remove(other, "ellipse.py"), 0);
	EXPECT_INT_EQ(symbols_named(f.ix, "Ellipse", "Ellipse"), 0);

	/* Far more names than the cache held: it reads them all again. */
	for (int i = 0; i < 40; i++) {
		snprintf(rel, sizeof(rel), "gen/m%d.py", i);
		snprintf(text, sizeof(text), "def made_%d():\n    pass\n", i);
		ixt_put_py(other, rel, text, TINY_CHUNK);
	}
	EXPECT_INT_EQ(symbols_named(f.ix, "made_39", "made_39"), 1);
	EXPECT_INT_EQ(symbols_named(f.ix, "made_7", "made_7"), 1);
	EXPECT_INT_EQ(symbols_named(f.ix, "Circle", "Circle"), 1);
	index_close(other);
	fx_close(&f);
}

/* The (rank, name length) of each of the first n spans of a symbol query
 * with the given limit, as "3:5 2:7 ...". */
static char *symbol_order(Index *ix, const char *q, uint32_t limit, uint32_t n)
{
	IndexSpan *sp;
	uint32_t got;
	Buf b = {0};

	if (index_symbols(ix, q, limit, &sp, &got) != 0)
		return xstrdup("error");
	for (uint32_t i = 0; i < got && i < n; i++)
		buf_printf(&b, "%s%.0f:%zu", i ? " " : "", sp[i].score,
			   strlen(sp[i].name));
	index_spans_free(sp, got);
	return b.data ? buf_take(&b) : xstrdup("");
}

static void put_email(void *ix, const char *rel, const char *text)
{
	ixt_put_py(ix, rel, text, TINY_CHUNK);
}

/* A symbol query keeps its best names in a heap of limit, and skips the
 * work for names that could not enter it once it is full: the first
 * spans of a small limit must rank as those of a limit too large to
 * fill. On the names of real code (the Python standard library's email
 * package): prefixes, initials of the parts, and scattered letters. */
TEST(symbols_small_limit_ranks_as_large)
{
	Fx f;
	sqlite3 *db;
	sqlite3_stmt *s;
	int queries = 0;

	fx_open(&f);
	ASSERT_TRUE(ixt_each_email_module(put_email, f.ix) > 10);
	db = ixt_db_open(f.db_path);
	ASSERT_INT_EQ(sqlite3_prepare_v2(db,
					 "SELECT DISTINCT name FROM spans"
					 " WHERE length(name) >= 6 ORDER BY"
					 " name LIMIT 120",
					 -1, &s, NULL),
		      SQLITE_OK);
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 0);
		char q[3][16];
		size_t k = 0;

		snprintf(q[0], sizeof(q[0]), "%.3s", name);
		/* The first letter of each part, then the last letter. */
		for (size_t i = 0; name[i] && k < 8; i++)
			if (i == 0 || name[i - 1] == '_' ||
			    (name[i] >= 'A' && name[i] <= 'Z'))
				q[1][k++] = name[i];
		q[1][k] = '\0';
		snprintf(q[2], sizeof(q[2]), "%c%c%c", name[0], name[2],
			 name[strlen(name) - 1]);
		for (int j = 0; j < 3; j++) {
			char *small = symbol_order(f.ix, q[j], 4, 4);
			char *large = symbol_order(f.ix, q[j], 1000, 4);

			EXPECT_STR_EQ(small, large);
			xfree(small);
			xfree(large);
			queries++;
		}
	}
	sqlite3_finalize(s);
	sqlite3_close(db);
	EXPECT_TRUE(queries >= 300);
	fx_close(&f);
}
