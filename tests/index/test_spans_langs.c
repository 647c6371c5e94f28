/*
 * test_spans_langs.c: the spans of Go, Rust, Java, C and C++ fixtures as
 * the index stores and finds them (issue 18): a Go method under its
 * receiver's name though the type is declared in another file, a C++
 * member declared in a header and defined in a source file, both found.
 */
#include "test.h"

#include "index/index.h"
#include "ixtest.h"

typedef struct {
	char *tmp, *db_path;
	Index *ix;
} Fx;

static void fx_open(Fx *f, const char *const *fixtures, size_t n)
{
	IndexOptions o = {0};
	Chunker *ch = chunker_new(0);

	f->tmp = ixt_tmpdir();
	f->db_path = ixt_path(f->tmp, "index.db");
	o.root = f->tmp;
	o.db_path = f->db_path;
	o.quiet = true;
	if (index_open(&o, &f->ix) != 0)
		ixt_die("index_open", f->db_path);
	for (size_t i = 0; i < n; i++) {
		size_t len;
		char *text = test_read_fixture(fixtures[i], &len);
		Lang lang = lang_detect(fixtures[i], text, len);
		Chunking c;

		if (chunker_run(ch, lang, text, (uint32_t)len, NULL, &c) ||
		    index_file_put(f->ix, fixtures[i], text, (uint32_t)len, &c,
				   NULL))
			ixt_die("put", fixtures[i]);
		chunking_close(&c);
		free(text);
	}
	chunker_delete(ch);
}

static void fx_close(Fx *f)
{
	index_close(f->ix);
	ixt_rmtree(f->tmp);
	xfree(f->tmp);
	xfree(f->db_path);
}

/* "qualname path kind" of each span named name, one a line. */
static char *named(Fx *f, const char *name)
{
	IndexSpan *sp;
	uint32_t n;
	Buf b = {0};

	if (index_spans_named(f->ix, name, 10, &sp, &n) != 0)
		return xstrdup("(error)");
	for (uint32_t i = 0; i < n; i++)
		buf_printf(&b, "%s %s %s\n", sp[i].qualname, sp[i].path,
			   span_kind_name(sp[i].kind));
	index_spans_free(sp, n);
	return b.data ? buf_take(&b) : xstrdup("");
}

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* named(), its lines sorted: a name's spans of one qualified length come
 * in the order of their content hashes, which says nothing. */
static char *named_sorted(Fx *f, const char *name)
{
	char *text = named(f, name), *lines[16], *save = NULL, *l;
	uint32_t n = 0;
	Buf b = {0};

	for (l = strtok_r(text, "\n", &save); l && n < 16;
	     l = strtok_r(NULL, "\n", &save))
		lines[n++] = l;
	qsort(lines, n, sizeof(*lines), cmp_lines);
	for (uint32_t i = 0; i < n; i++)
		buf_printf(&b, "%s\n", lines[i]);
	xfree(text);
	return b.data ? buf_take(&b) : xstrdup("");
}

/* Checks the text an expression returns (the caller's to xfree). */
#define EXPECT_TEXT(expr, want)              \
	do {                                 \
		char *got_ = (expr);         \
		EXPECT_STR_EQ(got_, want);   \
		xfree(got_);                 \
	} while (0)

#define EXPECT_NAMED(f, name, want) EXPECT_TEXT(named(f, name), want)
#define EXPECT_NAMED_SORTED(f, name, want) \
	EXPECT_TEXT(named_sorted(f, name), want)

TEST(spans_go_receiver_in_another_file)
{
	static const char *const files[] = {"go/store.go",
					    "go/store_methods.go"};
	Fx f;

	fx_open(&f, files, 2);
	EXPECT_NAMED(&f, "Store", "Store go/store.go class\n");
	EXPECT_NAMED(&f, "Put", "Store.Put go/store_methods.go method\n");
	/* The interface's method and the type's, both under their owner. */
	EXPECT_NAMED(&f, "Get", "Store.Get go/store_methods.go method\n"
				"Getter.Get go/store.go method\n");
	fx_close(&f);
}

TEST(spans_cpp_declared_and_defined)
{
	static const char *const files[] = {"cpp/widget.hpp",
					    "cpp/widget.cpp"};
	Fx f;

	fx_open(&f, files, 2);
	EXPECT_NAMED_SORTED(&f, "bounds",
			    "ui::Widget::bounds cpp/widget.cpp method\n"
			    "ui::Widget::bounds cpp/widget.hpp method\n");
	EXPECT_NAMED_SORTED(
	    &f, "on_click",
	    "ui::Widget::Handler::on_click cpp/widget.cpp method\n"
	    "ui::Widget::Handler::on_click cpp/widget.hpp method\n");
	fx_close(&f);
}

TEST(spans_rust_trait_impl)
{
	static const char *const files[] = {"rust/shapes.rs"};
	Fx f;

	fx_open(&f, files, 1);
	EXPECT_NAMED(&f, "area", "Rect::area rust/shapes.rs method\n"
				 "Shape::area rust/shapes.rs method\n"
				 "Circle::area rust/shapes.rs method\n");
	fx_close(&f);
}

/* "qualname path" of the members named name of class cls, one a line;
 * apart: also those written outside the class. */
static char *members(Fx *f, const char *cls, const char *name, bool apart)
{
	IndexSpan *sp;
	uint32_t n;
	Buf b = {0};

	if (index_members_named_many(f->ix, &cls, &name, 1, apart, 10, &sp,
				     &n) != 0)
		return xstrdup("(error)");
	for (uint32_t i = 0; i < n; i++)
		buf_printf(&b, "%s %s\n", sp[i].qualname, sp[i].path);
	index_spans_free(sp, n);
	return b.data ? buf_take(&b) : xstrdup("");
}

#define EXPECT_MEMBERS(f, cls, name, want) \
	EXPECT_TEXT(members(f, cls, name, true), want)
#define EXPECT_MEMBERS_INSIDE(f, cls, name, want) \
	EXPECT_TEXT(members(f, cls, name, false), want)

/* A method is a member of its receiver's type or its qualifier's class
 * by name, with no parent span: `s.Put` for an s of type Store finds
 * Store.Put in another file; `w.bounds` finds Widget::bounds both where
 * it is declared and where it is defined. A name that only ends like
 * the class does not count. */
TEST(members_by_qualified_name)
{
	static const char *const files[] = {
		"go/store.go", "go/store_methods.go", "cpp/widget.hpp",
		"cpp/widget.cpp", "rust/shapes.rs"};
	Fx f;

	fx_open(&f, files, 5);
	EXPECT_MEMBERS(&f, "Store", "Put", "Store.Put go/store_methods.go\n");
	EXPECT_MEMBERS(&f, "Getter", "Len", "Getter.Len go/store.go\n");
	EXPECT_MEMBERS(&f, "Widget", "bounds",
		       "ui::Widget::bounds cpp/widget.cpp\n"
		       "ui::Widget::bounds cpp/widget.hpp\n");
	EXPECT_MEMBERS(&f, "Circle", "area", "Circle::area rust/shapes.rs\n");
	EXPECT_MEMBERS(&f, "tore", "Put", "");
	/* Without `apart`, only members inside their type's body (Rust's
	 * impl block is one): not Go's method by its receiver, nor C++'s
	 * definition by its qualifier, only its declaration in the class. */
	EXPECT_MEMBERS_INSIDE(&f, "Store", "Put", "");
	EXPECT_MEMBERS_INSIDE(&f, "Widget", "bounds",
			      "ui::Widget::bounds cpp/widget.hpp\n");
	EXPECT_MEMBERS_INSIDE(&f, "Circle", "area",
			      "Circle::area rust/shapes.rs\n");
	fx_close(&f);
}
