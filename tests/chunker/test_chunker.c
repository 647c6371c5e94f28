/*
 * test_chunker.c: golden fixtures, invariants and bad input for chunker/.
 *
 * A golden file tests/fixtures/<lang>/<name>.golden holds the expected
 * chunk boundaries and span tree of <name> at the max size on its first
 * line. CASTLS_UPDATE_GOLDEN=1 rewrites them; review the diff before
 * committing one.
 */
#include <stdlib.h>

#include "chunker/chunker.h"
#include "test.h"

/* ---------------------------------------------------------------------- *
 * Helpers
 * ---------------------------------------------------------------------- */

/* Checks the invariants every chunking must hold; returns false (after
 * reporting) on the first violation. */
static bool check_invariants(const char *what, const char *text,
			     uint32_t len, const Chunking *c, uint32_t max)
{
	uint32_t i, at = 0;

	for (i = 0; i < c->nchunks; i++) {
		const Chunk *k = &c->chunks[i];

		if (k->bytes.start != at || k->bytes.end <= k->bytes.start)
			return test_fail(__FILE__, __LINE__,
					 "%s: chunk %u [%u,%u) after %u", what,
					 i, k->bytes.start, k->bytes.end, at);
		if (k->size != castls_count_nonspace(text + k->bytes.start,
						     k->bytes.end -
							     k->bytes.start))
			return test_fail(__FILE__, __LINE__,
					 "%s: chunk %u size %u wrong", what, i,
					 k->size);
		/* Only a piece without a line break may be over the limit,
		 * and only by a character's worth of whitespace rounding. */
		if (k->size > max &&
		    memchr(text + k->bytes.start, '\n',
			   k->bytes.end - k->bytes.start - 1))
			return test_fail(__FILE__, __LINE__,
					 "%s: chunk %u has %u > %u chars", what,
					 i, k->size, max);
		at = k->bytes.end;
	}
	if (at != len)
		return test_fail(__FILE__, __LINE__, "%s: chunks end at %u of %u",
				 what, at, len);
	for (i = 0; i < c->nspans; i++) {
		const Span *s = &c->spans[i];

		if (s->bytes.end > len || s->bytes.start >= s->bytes.end)
			return test_fail(__FILE__, __LINE__, "%s: span %u bad",
					 what, i);
		if (s->parent >= (int32_t)i ||
		    (s->parent >= 0 &&
		     (s->bytes.start < c->spans[s->parent].bytes.start ||
		      s->bytes.end > c->spans[s->parent].bytes.end)))
			return test_fail(__FILE__, __LINE__,
					 "%s: span %s not inside its parent",
					 what, s->qualname);
		if (i && s->bytes.start < c->spans[i - 1].bytes.start)
			return test_fail(__FILE__, __LINE__,
					 "%s: spans out of order at %s", what,
					 s->qualname);
	}
	return true;
}

static void render(Buf *b, const char *text, const Chunking *c)
{
	uint32_t i;

	for (i = 0; i < c->nchunks; i++) {
		const Chunk *k = &c->chunks[i];

		buf_printf(b, "chunk %u-%u %s ", k->lines.start + 1,
			   k->lines.end + 1, chunk_kind_name(k->kind));
		chunking_span_path(c, k->span, ".", b);
		buf_printf(b, " (%u)\n", k->size);
	}
	for (i = 0; i < c->nspans; i++) {
		const Span *s = &c->spans[i];
		const char *nl = strchr(s->doc, '\n');
		int depth = 0;

		for (int32_t p = s->parent; p >= 0; p = c->spans[p].parent)
			depth++;
		buf_printf(b, "%*sspan %s %s %u-%u | ", depth * 2, "",
			   span_kind_name(s->kind), s->qualname,
			   s->lines.start + 1, s->lines.end + 1);
		for (const char *h = s->header; *h; h++)
			buf_append(b, *h == '\n' ? "\\n" : h, *h == '\n' ? 2 : 1);
		buf_puts(b, " | ");
		buf_append(b, s->doc, nl ? (size_t)(nl - s->doc)
					 : strlen(s->doc));
		buf_puts(b, "\n");
	}
	(void)text;
}

static int chunk_text(uint32_t max, Lang lang, const char *text, size_t len,
		      Chunking *c)
{
	Chunker *ch = chunker_new(max);
	int err = chunker_run(ch, lang, text, (uint32_t)len, NULL, c);

	chunker_delete(ch);
	return err;
}

/* Chunks fixture `name` at its golden max size and compares. */
static void golden(const char *name)
{
	char gpath[512], *text, *expected, *line_end;
	size_t len, glen;
	unsigned long max;
	Chunking c;
	Buf got = {0};

	snprintf(gpath, sizeof(gpath), "%s.golden", name);
	text = test_read_fixture(name, &len);
	expected = test_read_fixture(gpath, &glen);
	max = strtoul(expected + strlen("max_size "), &line_end, 10);
	ASSERT_TRUE(chunk_text((uint32_t)max, lang_detect(name, text, len),
			       text, len, &c) == 0);
	EXPECT_TRUE(check_invariants(name, text, (uint32_t)len, &c,
				     (uint32_t)max));
	buf_printf(&got, "max_size %lu\n", max);
	render(&got, text, &c);
	if (getenv("CASTLS_UPDATE_GOLDEN")) {
		char path[1024];
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", test_fixture_dir(), gpath);
		f = fopen(path, "w");
		fwrite(got.data, 1, got.len, f);
		fclose(f);
	} else {
		EXPECT_STR_EQ(got.data, expected);
	}
	buf_free(&got);
	chunking_close(&c);
	free(text);
	free(expected);
}

/* The span named qualname, or NULL. */
static const Span *find_span(const Chunking *c, const char *qualname)
{
	for (uint32_t i = 0; i < c->nspans; i++)
		if (strcmp(c->spans[i].qualname, qualname) == 0)
			return &c->spans[i];
	return NULL;
}

/* ---------------------------------------------------------------------- *
 * Golden fixtures
 * ---------------------------------------------------------------------- */

TEST(golden_python_class_split) { golden("python/class_split.py"); }
TEST(golden_python_big_function) { golden("python/big_function.py"); }
TEST(golden_python_giant_docstring) { golden("python/giant_docstring.py"); }
TEST(golden_typescript_shapes) { golden("typescript/shapes.ts"); }
TEST(golden_tsx_component) { golden("tsx/component.tsx"); }
TEST(golden_javascript_module) { golden("javascript/module.js"); }
TEST(golden_bash_deploy) { golden("bash/deploy.sh"); }
TEST(golden_go_store) { golden("go/store.go"); }
TEST(golden_go_store_methods) { golden("go/store_methods.go"); }
TEST(golden_rust_shapes) { golden("rust/shapes.rs"); }
TEST(golden_java_inventory) { golden("java/Inventory.java"); }
TEST(golden_c_ring) { golden("c/ring.c"); }
TEST(golden_cpp_widget_hpp) { golden("cpp/widget.hpp"); }
TEST(golden_cpp_widget_cpp) { golden("cpp/widget.cpp"); }

/* Every fixture at many sizes: the invariants hold at each. */
TEST(invariants_across_sizes)
{
	static const char *const names[] = {
		"python/class_split.py",   "python/big_function.py",
		"python/giant_docstring.py", "typescript/shapes.ts",
		"tsx/component.tsx",       "javascript/module.js",
		"bash/deploy.sh",          "go/store.go",
		"go/store_methods.go",     "rust/shapes.rs",
		"java/Inventory.java",     "c/ring.c",
		"cpp/widget.hpp",          "cpp/widget.cpp",
	};
	static const uint32_t sizes[] = {1, 7, 30, 64, 150, 400, 2000, 100000};

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		size_t len;
		char *text = test_read_fixture(names[i], &len);
		Lang lang = lang_detect(names[i], text, len);

		for (size_t j = 0; j < sizeof(sizes) / sizeof(*sizes); j++) {
			Chunking c;
			char what[256];

			snprintf(what, sizeof(what), "%s@%u", names[i],
				 sizes[j]);
			ASSERT_INT_EQ(chunk_text(sizes[j], lang, text, len, &c),
				      0);
			EXPECT_TRUE(check_invariants(what, text, (uint32_t)len,
						     &c, sizes[j]));
			if (sizes[j] >= 100000)
				EXPECT_INT_EQ(c.nchunks, 1);
			chunking_close(&c);
		}
		free(text);
	}
}

/* ---------------------------------------------------------------------- *
 * Specific behaviour
 * ---------------------------------------------------------------------- */

TEST(decorators_stay_with_their_function)
{
	size_t len;
	char *text = test_read_fixture("python/class_split.py", &len);
	Chunking c;
	const Span *s;
	uint32_t i;

	ASSERT_INT_EQ(chunk_text(120, LANG_PYTHON, text, len, &c), 0);
	s = find_span(&c, "Ledger.rounding");
	ASSERT_TRUE(s != NULL);
	EXPECT_TRUE(strncmp(text + s->bytes.start, "@staticmethod", 13) == 0);
	EXPECT_STR_EQ(s->header, "@staticmethod\n    "
				 "@functools.lru_cache(maxsize=None)\n"
				 "    def rounding(value):");
	EXPECT_INT_EQ(s->kind, SPAN_METHOD);
	/* No chunk boundary between the decorators and the def. */
	for (i = 0; i < c.nchunks; i++) {
		uint32_t at = c.chunks[i].bytes.start;

		EXPECT_TRUE(at <= s->bytes.start || at >= s->body_start);
	}
	chunking_close(&c);
	free(text);
}

TEST(nested_functions_are_spans_of_their_parent)
{
	size_t len;
	char *text = test_read_fixture("python/class_split.py", &len);
	Chunking c;
	const Span *line, *report;

	ASSERT_INT_EQ(chunk_text(0, LANG_PYTHON, text, len, &c), 0);
	line = find_span(&c, "Ledger.report.line");
	report = find_span(&c, "Ledger.report");
	ASSERT_TRUE(line && report);
	EXPECT_INT_EQ(line->kind, SPAN_FUNCTION);
	EXPECT_INT_EQ(report->kind, SPAN_METHOD);
	EXPECT_TRUE(&c.spans[line->parent] == report);
	EXPECT_STR_EQ(find_span(&c, "Ledger")->doc,
		      "Keeps balances per account.");
	EXPECT_STR_EQ(find_span(&c, "Ledger.deposit")->doc,
		      "# Adds money to one account and records the movement.");
	chunking_close(&c);
	free(text);
}

TEST(leading_comment_stays_with_the_next_definition)
{
	size_t len;
	char *text = test_read_fixture("python/class_split.py", &len);
	uint32_t comment = (uint32_t)(strstr(text, "# Adds money") - text);
	uint32_t def = (uint32_t)(strstr(text, "def deposit") - text);
	uint32_t prev = (uint32_t)(strstr(text, "self.history = []") - text);
	Chunking c;
	uint32_t i;

	/* Small enough that deposit starts a chunk of its own. */
	ASSERT_INT_EQ(chunk_text(300, LANG_PYTHON, text, len, &c), 0);
	for (i = 0; i < c.nchunks; i++) {
		const Chunk *k = &c.chunks[i];

		if (k->bytes.start <= comment && comment < k->bytes.end) {
			EXPECT_TRUE(def < k->bytes.end);
			EXPECT_TRUE(k->bytes.start > prev);
		}
	}
	chunking_close(&c);
	free(text);
}

TEST(typescript_definitions)
{
	size_t len;
	char *text = test_read_fixture("typescript/shapes.ts", &len);
	Chunking c;
	static const struct {
		const char *name;
		SpanKind kind;
	} want[] = {
		{"Point", SPAN_INTERFACE},    {"Color", SPAN_ENUM},
		{"Pair", SPAN_TYPE},          {"distance", SPAN_FUNCTION},
		{"scale", SPAN_FUNCTION},     {"Canvas", SPAN_CLASS},
		{"Canvas.add", SPAN_METHOD},  {"Canvas.onClear", SPAN_METHOD},
		{"Geometry", SPAN_NAMESPACE}, {"Geometry.area", SPAN_FUNCTION},
	};
	int overloads = 0;

	ASSERT_INT_EQ(chunk_text(0, LANG_TYPESCRIPT, text, len, &c), 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(*want); i++) {
		const Span *s = find_span(&c, want[i].name);

		CHECK_(s != NULL, continue, "no span %s", want[i].name);
		EXPECT_INT_EQ(s->kind, want[i].kind);
	}
	for (uint32_t i = 0; i < c.nspans; i++)
		overloads += strcmp(c.spans[i].qualname, "scale") == 0;
	EXPECT_INT_EQ(overloads, 3); /* two signatures and the body */
	EXPECT_STR_EQ(find_span(&c, "distance")->header,
		      "export const distance = (a: Point, b: Point): number "
		      "=>");
	EXPECT_STR_EQ(find_span(&c, "distance")->doc,
		      "/** Distance between two points. */");
	EXPECT_STR_EQ(find_span(&c, "Canvas")->header,
		      "export class Canvas<T extends Point> extends "
		      "EventEmitter {");
	chunking_close(&c);
	free(text);
}

/* Assignments at the top level and in a class body are spans (kind
 * variable, field in a class); those inside functions, blocks and
 * destructuring are not; a function assigned to a const stays a
 * function, once. */
TEST(bindings_are_spans)
{
	static const char py[] =
	    "import os\n"
	    "MAX_SIZE = 10  # bytes\n"
	    "Point = namedtuple(\"Point\", \"x y\")\n"
	    "a, b = 1, 2\n"
	    "def f():\n"
	    "    local = 3\n"
	    "class C:\n"
	    "    name: str\n"
	    "    count: int = 0\n"
	    "if os.name:\n"
	    "    HIDDEN = 1\n"
	    "type Pair[T] = tuple[T, T]\n";
	static const char ts[] =
	    "// The limit.\n"
	    "export const LIMIT = 5;\n"
	    "const one = 1, two = 2;\n"
	    "export const f = () => 1;\n"
	    "function g() { const inner = 1; return inner; }\n"
	    "const h = () => 1, Z = 3;\n";
	static const struct {
		const char *name;
		SpanKind kind;
		uint32_t line;
	} want_py[] = {
	    {"MAX_SIZE", SPAN_VARIABLE, 1}, {"Point", SPAN_VARIABLE, 2},
	    {"C.name", SPAN_FIELD, 7},	    {"C.count", SPAN_FIELD, 8},
	    {"Pair", SPAN_TYPE, 11},
	},
	  want_ts[] = {
	      {"LIMIT", SPAN_VARIABLE, 1},
	      {"one", SPAN_VARIABLE, 2},
	      {"two", SPAN_VARIABLE, 2},
	      {"f", SPAN_FUNCTION, 3},
	      {"h", SPAN_FUNCTION, 5},
	      {"Z", SPAN_VARIABLE, 5},
	  };
	static const char *const never[] = {"a", "b", "local", "f.local",
					    "HIDDEN", "inner", "g.inner"};
	Chunking c;

	ASSERT_INT_EQ(chunk_text(0, LANG_PYTHON, py, strlen(py), &c), 0);
	for (size_t i = 0; i < sizeof(want_py) / sizeof(*want_py); i++) {
		const Span *s = find_span(&c, want_py[i].name);

		CHECK_(s != NULL, (void)0, "no span %s", want_py[i].name);
		if (!s)
			continue;
		EXPECT_INT_EQ(s->kind, want_py[i].kind);
		EXPECT_INT_EQ(s->lines.start, want_py[i].line);
		EXPECT_INT_EQ(s->lines.end, want_py[i].line);
	}
	for (size_t i = 0; i < sizeof(never) / sizeof(*never); i++)
		CHECK_(!find_span(&c, never[i]), (void)0, "span %s", never[i]);
	EXPECT_INT_EQ(c.nspans, 7); /* the five, f and C */
	chunking_close(&c);

	ASSERT_INT_EQ(chunk_text(0, LANG_TYPESCRIPT, ts, strlen(ts), &c), 0);
	for (size_t i = 0; i < sizeof(want_ts) / sizeof(*want_ts); i++) {
		const Span *s = find_span(&c, want_ts[i].name);

		CHECK_(s != NULL, (void)0, "no span %s", want_ts[i].name);
		if (!s)
			continue;
		EXPECT_INT_EQ(s->kind, want_ts[i].kind);
		EXPECT_INT_EQ(s->lines.start, want_ts[i].line);
	}
	for (size_t i = 0; i < sizeof(never) / sizeof(*never); i++)
		CHECK_(!find_span(&c, never[i]), (void)0, "span %s", never[i]);
	if (find_span(&c, "LIMIT")) {
		EXPECT_STR_EQ(find_span(&c, "LIMIT")->doc, "// The limit.");
		EXPECT_STR_EQ(find_span(&c, "LIMIT")->header,
			      "export const LIMIT = 5;");
	}
	EXPECT_INT_EQ(c.nspans, 7); /* the six and g */
	/* Z after h, its statement's function: spans stay in order. */
	for (uint32_t i = 1; i < c.nspans; i++)
		EXPECT_TRUE(c.spans[i].bytes.start >=
			    c.spans[i - 1].bytes.start);
	chunking_close(&c);
}

/* A generated table of thousands of assignments gives its first 256
 * bindings as spans (spans.c's BINDINGS_MAX), not thousands; the
 * functions after them all stay. */
TEST(bindings_are_capped_per_file)
{
	Buf b = {0};
	Chunking c;
	uint32_t vars = 0, funcs = 0;

	for (int i = 0; i < 5000; i++)
		buf_printf(&b, "T%d = %d\n", i, i);
	for (int i = 0; i < 10; i++)
		buf_printf(&b, "def f%d():\n    return %d\n", i, i);
	ASSERT_INT_EQ(chunk_text(0, LANG_PYTHON, b.data, b.len, &c), 0);
	for (uint32_t i = 0; i < c.nspans; i++) {
		vars += c.spans[i].kind == SPAN_VARIABLE;
		funcs += c.spans[i].kind == SPAN_FUNCTION;
	}
	EXPECT_INT_EQ(vars, 256);
	EXPECT_INT_EQ(funcs, 10);
	EXPECT_TRUE(find_span(&c, "T0") && find_span(&c, "T255") &&
		    !find_span(&c, "T256"));
	chunking_close(&c);
	buf_free(&b);
}

TEST(tiny_inputs_and_odd_bytes)
{
	static const struct {
		const char *text;
		size_t len;
		uint32_t chunks;
	} cases[] = {
		{"", 0, 0},
		{"\n", 1, 1},
		{"x = 1", 5, 1},
		{"\xEF\xBB\xBFx = 1\r\n", 8, 1},     /* BOM and CRLF */
		{"x = '\xff\xfe\xc3'\n", 10, 1},     /* invalid UTF-8 */
		{"def f(:\n  return )\n", 19, 1},   /* syntax error */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		Chunking c;

		int err = chunk_text(0, LANG_PYTHON, cases[i].text,
				     cases[i].len, &c);

		CHECK_(err == 0, continue, "case %zu: %s", i,
		       castls_strerror(err));
		CHECK_(c.nchunks == cases[i].chunks, (void)0,
		       "case %zu: %u chunks", i, c.nchunks);
		EXPECT_TRUE(check_invariants("tiny", cases[i].text,
					     (uint32_t)cases[i].len, &c, 2000));
		chunking_close(&c);
	}
}

/* A definition whose body would start at the very end of the input:
 * the chunker read the byte there to see whether it opens a brace.
 * Each text is copied to a heap block of exactly its length, with no
 * terminator after it, so ASan reports any read past the end (a string
 * literal's NUL would hide it). */
TEST(definitions_ending_the_input_need_no_terminator)
{
	static const struct {
		Lang lang;
		const char *text;
	} cases[] = {
		{LANG_PYTHON, "def f():"},
		{LANG_PYTHON, "class A:"},
		{LANG_PYTHON, "class A:\n    def g(self):"},
		{LANG_PYTHON, "@dec\ndef f():"},
		{LANG_TYPESCRIPT, "function f()"},
		{LANG_TYPESCRIPT, "class A"},
		{LANG_TYPESCRIPT, "interface I"},
		{LANG_TYPESCRIPT, "enum E"},
		{LANG_TYPESCRIPT, "namespace N"},
		{LANG_TSX, "const f = () =>"},
		{LANG_JAVASCRIPT, "class A { m()"},
		{LANG_BASH, "f()"},
		{LANG_MARKDOWN, "# Title"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		size_t len = strlen(cases[i].text);
		char *text = xmalloc(len);
		Chunking c;
		int err;

		memcpy(text, cases[i].text, len);
		err = chunk_text(0, cases[i].lang, text, len, &c);
		CHECK_(err == 0, (void)0, "case %zu: %s", i,
		       castls_strerror(err));
		if (err == 0) {
			EXPECT_TRUE(check_invariants(cases[i].text, text,
						     (uint32_t)len, &c, 2000));
			chunking_close(&c);
		}
		xfree(text);
	}
}

TEST(binary_and_unknown_input_is_refused)
{
	Chunking c;
	static const char bin[] = "ELF\0\x01\x02\x03 binary";

	EXPECT_INT_EQ(chunk_text(0, LANG_PYTHON, bin, sizeof(bin) - 1, &c),
		      CASTLS_EBINARY);
	EXPECT_INT_EQ(c.nchunks, 0);
	EXPECT_INT_EQ(chunk_text(0, LANG_NONE, "x", 1, &c), CASTLS_ENOLANG);
}

/* A 10 MB file on one line: cut at character boundaries, nothing lost,
 * and each piece within the limit. */
TEST(giant_single_line)
{
	size_t len = 10u * 1024 * 1024, i;
	char *text = malloc(len + 1);
	Chunking c;

	/* Multi-byte characters so cuts must respect UTF-8 boundaries. */
	for (i = 0; i + 3 <= len; i += 3)
		memcpy(text + i, i % 2 ? "\xC3\xA9" "a" : "b\xC3\xA9", 3);
	for (; i < len; i++)
		text[i] = 'z';
	text[len] = '\0';
	ASSERT_INT_EQ(chunk_text(2000, LANG_JAVASCRIPT, text, len, &c), 0);
	EXPECT_TRUE(check_invariants("giant", text, (uint32_t)len, &c, 2000));
	for (i = 0; i < c.nchunks; i++) {
		EXPECT_TRUE(c.chunks[i].size <= 2000);
		EXPECT_TRUE(utf8_is_lead((unsigned char)
					 text[c.chunks[i].bytes.start]));
	}
	EXPECT_TRUE(c.nchunks >= len / 3 * 2 / 2000);
	chunking_close(&c);
	free(text);
}

/* Past CHUNKER_PARSE_MAX no tree is built (a 50 MB file's took 2.7 GB):
 * the text is cut at line ends, tiled exactly, within the size, with no
 * spans, and no scratch heap was used for a parse. */
TEST(text_past_the_parse_limit_is_cut_at_lines)
{
	Buf b = {0};
	Chunker *ch = chunker_new(300);
	Chunking c;
	uint32_t i;

	for (i = 0; b.len <= CHUNKER_PARSE_MAX; i++)
		buf_printf(&b, "def func_%u(alpha):\n    return alpha + %u\n\n",
			   i, i);
	ASSERT_INT_EQ(chunker_run(ch, LANG_PYTHON, b.data, (uint32_t)b.len,
				  NULL, &c),
		      0);
	EXPECT_TRUE(check_invariants("past the parse limit", b.data,
				     (uint32_t)b.len, &c, 300));
	EXPECT_INT_EQ(c.nspans, 0);
	EXPECT_INT_EQ(chunker_scratch_peak(ch), 0);
	for (i = 1; i < c.nchunks; i++) /* every chunk starts a line */
		if (b.data[c.chunks[i].bytes.start - 1] != '\n')
			break;
	EXPECT_INT_EQ(i, c.nchunks);
	chunking_close(&c);
	ASSERT_INT_EQ(chunker_spans(ch, LANG_PYTHON, b.data, (uint32_t)b.len,
				    NULL, &c),
		      0);
	EXPECT_INT_EQ(c.nspans, 0);
	chunking_close(&c);
	chunker_delete(ch);
	buf_free(&b);
}

/* Nesting far deeper than any C stack would allow with recursion. */
TEST(deeply_nested_code)
{
	size_t depth = 20000, len = depth * 2 + 8, i;
	char *text = malloc(len + 1);
	Chunking c;

	memcpy(text, "x = ", 4);
	for (i = 0; i < depth; i++) {
		text[4 + i] = '[';
		text[4 + depth + i] = ']';
	}
	memcpy(text + 4 + 2 * depth, "\n\n\n\n", 4);
	text[len] = '\0';
	ASSERT_INT_EQ(chunk_text(100, LANG_PYTHON, text, len, &c), 0);
	EXPECT_TRUE(check_invariants("nested", text, (uint32_t)len, &c, 100));
	chunking_close(&c);
	free(text);
}

TEST(languages_by_extension_and_shebang)
{
	EXPECT_INT_EQ(lang_detect("a/b.py", NULL, 0), LANG_PYTHON);
	EXPECT_INT_EQ(lang_detect("types.pyi", NULL, 0), LANG_PYTHON);
	EXPECT_INT_EQ(lang_detect("x.d.ts", NULL, 0), LANG_TYPESCRIPT);
	EXPECT_INT_EQ(lang_detect("x.mts", NULL, 0), LANG_TYPESCRIPT);
	EXPECT_INT_EQ(lang_detect("App.tsx", NULL, 0), LANG_TSX);
	EXPECT_INT_EQ(lang_detect("a.cjs", NULL, 0), LANG_JAVASCRIPT);
	EXPECT_INT_EQ(lang_detect("a.jsx", NULL, 0), LANG_JAVASCRIPT);
	EXPECT_INT_EQ(lang_detect("README.markdown", NULL, 0), LANG_MARKDOWN);
	EXPECT_INT_EQ(lang_detect("run.bash", NULL, 0), LANG_BASH);
	EXPECT_INT_EQ(lang_detect("Makefile", "all:\n", 5), LANG_NONE);
	EXPECT_INT_EQ(lang_detect("bin/tool", "#!/bin/sh\n", 10), LANG_BASH);
	EXPECT_INT_EQ(lang_detect("tool", "#!/usr/bin/env bash\n", 20),
		      LANG_BASH);
	EXPECT_INT_EQ(lang_detect("tool", "#!/usr/bin/env python3\n", 23),
		      LANG_NONE);
	EXPECT_INT_EQ(lang_detect(".bashrc", "#!/bin/bash -e", 14), LANG_BASH);
	EXPECT_INT_EQ(lang_detect("notes.txt", "#!/bin/sh", 9), LANG_NONE);
	EXPECT_INT_EQ(lang_from_name("typescriptreact"), LANG_TSX);
	EXPECT_INT_EQ(lang_from_name("shellscript"), LANG_BASH);
	EXPECT_INT_EQ(lang_from_name("cobol"), LANG_NONE);
}

/* Re-parsing an edited tree incrementally gives the same chunks as a
 * fresh parse of the new text. */
TEST(incremental_parse_matches_fresh)
{
	size_t len;
	char *text = test_read_fixture("python/class_split.py", &len);
	Chunker *ch = chunker_new(300);
	TSTree *old = chunker_parse(ch, LANG_PYTHON, text, (uint32_t)len, NULL);
	const char *at = strstr(text, "self.history = []");
	uint32_t pos = (uint32_t)(at - text);
	Buf edited = {0};
	TSInputEdit e;
	TSTree *inc;
	Chunking a, b;

	buf_append(&edited, text, pos);
	buf_puts(&edited, "self.audit = True\n        ");
	buf_append(&edited, text + pos, len - pos);
	memset(&e, 0, sizeof(e));
	e.start_byte = e.old_end_byte = pos;
	e.new_end_byte = pos + 26;
	e.start_point = e.old_end_point = (TSPoint){13, 8};
	e.new_end_point = (TSPoint){14, 8};
	ts_tree_edit(old, &e);
	inc = chunker_parse(ch, LANG_PYTHON, edited.data, (uint32_t)edited.len,
			    old);
	ASSERT_INT_EQ(chunker_run(ch, LANG_PYTHON, edited.data,
				  (uint32_t)edited.len, inc, &a),
		      0);
	ASSERT_INT_EQ(chunker_run(ch, LANG_PYTHON, edited.data,
				  (uint32_t)edited.len, NULL, &b),
		      0);
	ASSERT_INT_EQ(a.nchunks, b.nchunks);
	EXPECT_TRUE(memcmp(a.chunks, b.chunks,
			   a.nchunks * sizeof(*a.chunks)) == 0);
	EXPECT_INT_EQ(a.nspans, b.nspans);
	chunking_close(&a);
	chunking_close(&b);
	ts_tree_delete(inc);
	ts_tree_delete(old);
	chunker_delete(ch);
	buf_free(&edited);
	free(text);
}

/* Inserts ins at pos of text into *out and describes it as an edit. */
static TSInputEdit insert_at(const char *text, size_t len, uint32_t pos,
			     const char *ins, Buf *out)
{
	TSInputEdit e;
	uint32_t n = (uint32_t)strlen(ins);

	out->len = 0;
	buf_append(out, text, pos);
	buf_puts(out, ins);
	buf_append(out, text + pos, len - pos);
	memset(&e, 0, sizeof(e));
	e.start_byte = e.old_end_byte = pos;
	e.new_end_byte = pos + n;
	return e;
}

/* A chunking carried across a body edit tiles the new text, with the
 * sizes and lines of the new text; a header edit makes the header again;
 * an edit across the start of a body is refused. */
TEST(chunking_edit_carries_body_edits)
{
	size_t len;
	char *text = test_read_fixture("python/class_split.py", &len);
	Chunker *ch = chunker_new(300);
	uint32_t body = (uint32_t)(strstr(text, "self.history = []") - text);
	uint32_t head = (uint32_t)(strstr(text, "def __init__") - text) + 5;
	Buf edited = {0};
	TSInputEdit e;
	Chunking c, copy;

	ASSERT_INT_EQ(
	    chunker_run(ch, LANG_PYTHON, text, (uint32_t)len, NULL, &c), 0);
	chunking_copy(&c, &copy);
	EXPECT_TRUE(chunking_equal(&c, &copy));
	e = insert_at(text, len, body, "self.audit = True\n        ", &edited);
	ASSERT_INT_EQ(
	    chunking_edit(&copy, &e, 1, edited.data, (uint32_t)edited.len), 0);
	EXPECT_TRUE(!chunking_equal(&c, &copy));
	EXPECT_TRUE(check_invariants("carried", edited.data,
				     (uint32_t)edited.len, &copy, UINT32_MAX));
	for (uint32_t i = 0; i < copy.nchunks; i++) {
		const Chunk *k = &copy.chunks[i];

		EXPECT_INT_EQ(k->lines.start, castls_count_newlines(
						  edited.data, k->bytes.start));
		EXPECT_INT_EQ(k->lines.end, castls_count_newlines(
						edited.data, k->bytes.end - 1));
	}
	chunking_close(&copy);
	chunking_copy(&c, &copy);
	/* A header edit: the header follows the text, the name does not. */
	e = insert_at(text, len, head, "x", &edited);
	ASSERT_INT_EQ(
	    chunking_edit(&copy, &e, 1, edited.data, (uint32_t)edited.len), 0);
	for (uint32_t i = 0; i < copy.nspans; i++)
		if (copy.spans[i].bytes.start <= head &&
		    head < copy.spans[i].body_start)
			EXPECT_TRUE(strstr(copy.spans[i].header,
					   "def _x_init__") != NULL);
	chunking_close(&copy);
	/* An edit across the start of a body is refused. */
	chunking_copy(&c, &copy);
	{
		uint32_t at = 0;

		for (uint32_t i = 0; i < c.nspans; i++)
			if (c.spans[i].body_start > c.spans[i].bytes.start &&
			    c.spans[i].body_start < c.spans[i].bytes.end)
				at = c.spans[i].body_start;
		ASSERT_TRUE(at > 0);
		memset(&e, 0, sizeof(e));
		e.start_byte = at - 1;
		e.old_end_byte = e.new_end_byte = at + 1;
		EXPECT_INT_EQ(chunking_edit(&copy, &e, 1, text, (uint32_t)len),
			      CASTLS_EINVAL);
	}
	chunking_close(&copy);
	chunking_close(&c);
	chunker_delete(ch);
	buf_free(&edited);
	free(text);
}

/* A keystroke in a docstring: the rows carried across it are the parse's
 * rows, though the span's doc went stale. */
TEST(chunking_edit_in_a_docstring_equals_the_parse)
{
	size_t len;
	char *text = test_read_fixture("python/class_split.py", &len);
	Chunker *ch = chunker_new(300);
	uint32_t at = (uint32_t)(strstr(text, "balances per") - text);
	Buf edited = {0};
	TSInputEdit e;
	Chunking c, fresh;
	bool in_doc = false;

	ASSERT_INT_EQ(
	    chunker_run(ch, LANG_PYTHON, text, (uint32_t)len, NULL, &c), 0);
	e = insert_at(text, len, at, "x", &edited);
	ASSERT_INT_EQ(
	    chunking_edit(&c, &e, 1, edited.data, (uint32_t)edited.len), 0);
	ASSERT_INT_EQ(chunker_run(ch, LANG_PYTHON, edited.data,
				  (uint32_t)edited.len, NULL, &fresh),
		      0);
	for (uint32_t i = 0; i < fresh.nspans; i++)
		in_doc = in_doc || strstr(fresh.spans[i].doc, "xbalances");
	EXPECT_TRUE(in_doc);
	EXPECT_TRUE(chunking_equal(&c, &fresh));
	chunking_close(&fresh);
	chunking_close(&c);
	chunker_delete(ch);
	buf_free(&edited);
	free(text);
}

/* The edit e of text (in edited) through chunker_rerun: its error, and
 * whether its answer is chunker_run's. */
static int rerun_edit(Chunker *ch, const char *text, size_t len,
		      const Buf *edited, TSInputEdit e, bool *same)
{
	TSTree *tree = chunker_parse(ch, LANG_PYTHON, text, (uint32_t)len,
				     NULL);
	TSTree *old = ts_tree_copy(tree), *now;
	Chunking c, fast, fresh;
	int err;

	uint32_t col = 0;

	while (col < e.start_byte && text[e.start_byte - col - 1] != '\n')
		col++;
	e.start_point = e.old_end_point = e.new_end_point =
	    (TSPoint){castls_count_newlines(text, e.start_byte), col};
	e.new_end_point.column += e.new_end_byte - e.start_byte;
	chunker_run(ch, LANG_PYTHON, text, (uint32_t)len, tree, &c);
	*same = false;
	if (chunking_edit(&c, &e, 1, edited->data, (uint32_t)edited->len)) {
		err = -1;
		goto out;
	}
	ts_tree_edit(old, &e);
	now = chunker_parse(ch, LANG_PYTHON, edited->data,
			    (uint32_t)edited->len, old);
	err = chunker_rerun(ch, LANG_PYTHON, edited->data,
			    (uint32_t)edited->len, now, old, &e, &c, &fast);
	if (!err) {
		chunker_run(ch, LANG_PYTHON, edited->data,
			    (uint32_t)edited->len, now, &fresh);
		*same = chunking_equal(&fast, &fresh);
		chunking_close(&fresh);
		chunking_close(&fast);
	}
	ts_tree_delete(now);
out:
	chunking_close(&c);
	ts_tree_delete(old);
	ts_tree_delete(tree);
	return err;
}

/* chunker_rerun answers for an edit inside a docstring or a string in a
 * body, as chunker_run would; not for one in a definition's header (its
 * name may change) or one that changes the syntax. */
TEST(chunker_rerun_takes_edits_that_change_no_syntax)
{
	size_t len;
	char *text = test_read_fixture("python/class_split.py", &len);
	Chunker *ch = chunker_new(300);
	Buf edited = {0};
	bool same;
	TSInputEdit e;

	e = insert_at(text, len,
		      (uint32_t)(strstr(text, "balances per") - text), "x",
		      &edited);
	EXPECT_INT_EQ(rerun_edit(ch, text, len, &edited, e, &same), 0);
	EXPECT_TRUE(same);
	e = insert_at(text, len,
		      (uint32_t)(strstr(text, "def __init__") - text) + 5,
		      "x", &edited);
	EXPECT_INT_EQ(rerun_edit(ch, text, len, &edited, e, &same),
		      CASTLS_EINVAL);
	e = insert_at(text, len,
		      (uint32_t)(strstr(text, "self.history = []") - text),
		      "(", &edited);
	EXPECT_INT_EQ(rerun_edit(ch, text, len, &edited, e, &same),
		      CASTLS_EINVAL);
	chunker_delete(ch);
	buf_free(&edited);
	free(text);
}

/* chunker_spans_at gives exactly the spans of a full run that contain the
 * byte, with the same parents and lines, at every position of every
 * fixture. */
TEST(spans_at_matches_full_run)
{
	static const char *const names[] = {
	    "python/class_split.py", "typescript/shapes.ts",
	    "tsx/component.tsx",     "javascript/module.js",
	    "bash/deploy.sh",        "go/store_methods.go",
	    "rust/shapes.rs",        "java/Inventory.java",
	    "c/ring.c",              "cpp/widget.cpp",
	};

	for (size_t f = 0; f < sizeof(names) / sizeof(*names); f++) {
		size_t len;
		char *text = test_read_fixture(names[f], &len);
		Lang lang = lang_detect(names[f], text, len);
		Chunker *ch = chunker_new(0);
		Chunking full;

		ASSERT_INT_EQ(chunker_run(ch, lang, text, (uint32_t)len, NULL,
					  &full),
			      0);
		int32_t *at_k = xmalloc((full.nspans + 1) * sizeof(*at_k));

		for (uint32_t at = 0; at <= len; at++) {
			Chunking c;
			uint32_t k = 0;

			ASSERT_INT_EQ(chunker_spans_at(ch, lang, text,
						       (uint32_t)len, NULL, at,
						       &c),
				      0);
			for (uint32_t i = 0; i < full.nspans; i++) {
				const Span *s = &full.spans[i];

				if (s->bytes.start > at || s->bytes.end < at)
					continue;
				CHECK_(k < c.nspans, break, "%s@%u: missing %s",
				       names[f], at, s->qualname);
				EXPECT_STR_EQ(c.spans[k].qualname, s->qualname);
				EXPECT_INT_EQ(c.spans[k].lines.start,
					      s->lines.start);
				EXPECT_INT_EQ(c.spans[k].lines.end, s->lines.end);
				/* Its parent contains the byte too, unless it
				 * is a sibling ending where this one starts
				 * (C's `#define` takes its line break). */
				EXPECT_INT_EQ(c.spans[k].parent,
					      s->parent >= 0 ? at_k[s->parent]
							     : -1);
				at_k[i] = (int32_t)k;
				k++;
			}
			CHECK_(k == c.nspans, (void)0, "%s@%u: %u spans, want %u",
			       names[f], at, c.nspans, k);
			chunking_close(&c);
		}
		xfree(at_k);
		chunking_close(&full);
		chunker_delete(ch);
		free(text);
	}
}

/* chunker_spans gives every span of a full run, with the same names,
 * parents, bytes, lines and headers, and no chunks. */
TEST(spans_match_full_run)
{
	static const char *const names[] = {
		"python/class_split.py", "typescript/shapes.ts",
		"tsx/component.tsx", "javascript/module.js", "bash/deploy.sh",
		"go/store.go", "go/store_methods.go", "rust/shapes.rs",
		"java/Inventory.java", "c/ring.c", "cpp/widget.hpp",
		"cpp/widget.cpp",
	};

	for (size_t f = 0; f < sizeof(names) / sizeof(*names); f++) {
		size_t len;
		char *text = test_read_fixture(names[f], &len);
		Lang lang = lang_detect(names[f], text, len);
		Chunker *ch = chunker_new(0);
		Chunking full, c;

		ASSERT_INT_EQ(chunker_run(ch, lang, text, (uint32_t)len, NULL,
					  &full),
			      0);
		ASSERT_INT_EQ(chunker_spans(ch, lang, text, (uint32_t)len, NULL,
					    &c),
			      0);
		EXPECT_INT_EQ(c.nchunks, 0);
		CHECK_(c.nspans == full.nspans && c.nspans > 0, (void)0,
		       "%s: %u spans, want %u", names[f], c.nspans, full.nspans);
		for (uint32_t i = 0; i < c.nspans && i < full.nspans; i++) {
			EXPECT_STR_EQ(c.spans[i].qualname, full.spans[i].qualname);
			EXPECT_STR_EQ(c.spans[i].header, full.spans[i].header);
			EXPECT_INT_EQ(c.spans[i].parent, full.spans[i].parent);
			EXPECT_INT_EQ(c.spans[i].bytes.start,
				      full.spans[i].bytes.start);
			EXPECT_INT_EQ(c.spans[i].bytes.end, full.spans[i].bytes.end);
			EXPECT_INT_EQ(c.spans[i].lines.start,
				      full.spans[i].lines.start);
			EXPECT_INT_EQ(c.spans[i].lines.end, full.spans[i].lines.end);
		}
		chunking_close(&c);
		chunking_close(&full);
		chunker_delete(ch);
		free(text);
	}
}

/* A decorated class too big for one chunk: its decorators open its first
 * chunk together with the class line, never a chunk of their own. */
TEST(split_decorated_class_keeps_its_decorators)
{
	static const char text[] =
		"import dataclasses\n\n\n"
		"@dataclasses.dataclass\n"
		"class Point:\n"
		"    x: int = 0\n"
		"    y: int = 0\n\n"
		"    def norm(self):\n"
		"        return (self.x ** 2 + self.y ** 2) ** 0.5\n\n"
		"    def scaled(self, k):\n"
		"        return Point(self.x * k, self.y * k)\n";
	Chunking c;
	bool found = false;

	ASSERT_INT_EQ(chunk_text(60, LANG_PYTHON, text, sizeof(text) - 1, &c),
		      0);
	for (uint32_t i = 0; i < c.nchunks; i++) {
		char *t = strndup(text + c.chunks[i].bytes.start,
				  c.chunks[i].bytes.end - c.chunks[i].bytes.start);

		if (strstr(t, "@dataclasses")) {
			found = true;
			EXPECT_TRUE(strstr(t, "class Point:") != NULL);
		}
		free(t);
	}
	EXPECT_TRUE(found);
	EXPECT_TRUE(c.nchunks > 2);
	chunking_close(&c);
}
