/*
 * test_rank_langs.c: the ranking in Go, Rust, Java and C++ (issue 18).
 * What a method is called on has a type the language table reads (a
 * parameter, `var x T`, `let x = T::new()`, `T x = new T()`, `T x;`),
 * and the method of that type ranks ahead of the same-named methods of
 * other types, saying why; a Go method is found by its receiver's type
 * though no class span holds it. The harness is rktest.h: a small
 * workspace on disk, indexed, and a buffer with a cursor mark.
 */
#include "test.h"

#include "rank/rktest.h"

/* What expect_ahead asks of the right item besides its rank. */
enum {
	WANT_RECEIVER = 1, /* a method of the receiver's type */
	WANT_IMPORT = 2,   /* in a module the buffer imports (and the wrong
			    * one not) */
	WANT_NAME = 4,	   /* a name the buffer imports, by itself or as a
			    * member of an imported module (`pkg.Name`) */
};

/* In buffer rel of workspace w at the cursor of marked, path's `right`
 * ranks with the signals `want` asks for, ahead of wrong_path's `wrong`
 * if that ranks at all. */
static void expect_ahead_in(Ws *w, const char *rel, const char *marked,
			    const char *path, const char *right,
			    const char *wrong_path, const char *wrong,
			    unsigned want)
{
	RankResult r;
	int i, j;

	rank_at(w, rel, marked, 4000, &r);
	i = find(&r, path, right);
	CHECK_(i >= 0, goto out, "%s: %s is not ranked", rel, right);
	CHECK_(!(want & WANT_RECEIVER) || r.items[i].signals.receiver, (void)0,
	       "%s: %s has no receiver signal", rel, right);
	CHECK_(!(want & WANT_IMPORT) || r.items[i].signals.import, (void)0,
	       "%s: %s has no import signal", rel, right);
	CHECK_(!(want & WANT_NAME) || r.items[i].signals.imported_name, (void)0,
	       "%s: %s is not taken for a name the file imports", rel, right);
	for (j = 0; j < (int)r.nitems; j++)
		if (!r.items[j].in_buffer &&
		    strcmp(r.items[j].path, wrong_path) == 0 &&
		    strcmp(r.items[j].symbol, wrong) == 0)
			break;
	CHECK_(j == (int)r.nitems || j > i, (void)0,
	       "%s: %s (%d) ranks ahead of %s (%d)", rel, wrong, j, right, i);
	CHECK_(j == (int)r.nitems || !(want & WANT_IMPORT) ||
		   !r.items[j].signals.import,
	       (void)0, "%s: %s of %s has an import signal", rel, wrong,
	       wrong_path);
out:
	rank_result_free(&r);
}

/* expect_ahead_in, in a workspace of files. */
static void expect_ahead(const File *files, const char *rel, const char *marked,
			 const char *path, const char *right,
			 const char *wrong_path, const char *wrong,
			 unsigned want)
{
	Ws w;

	ws_open(&w, files);
	expect_ahead_in(&w, rel, marked, path, right, wrong_path, wrong, want);
	ws_close(&w);
}

static void expect_receiver(const File *files, const char *rel,
			    const char *marked, const char *path,
			    const char *right, const char *wrong_path,
			    const char *wrong)
{
	expect_ahead(files, rel, marked, path, right, wrong_path, wrong,
		     WANT_RECEIVER);
}

TEST(receivers_go)
{
	static const File files[] = {
	    {"store/store.go", "package store\n\n"
			       "// Store keeps records.\n"
			       "type Store struct{ m map[string]int }\n"},
	    {"store/methods.go",
	     "package store\n\n"
	     "// Put stores v under k.\n"
	     "func (s *Store) Put(k string, v int) { s.m[k] = v }\n"},
	    {"cache/cache.go", "package cache\n\ntype Cache struct{}\n\n"
			       "func (c *Cache) Put(k string, v int) {}\n"},
	    {NULL, NULL},
	};

	expect_receiver(files, "app/main.go",
			"package app\n\n"
			"func fill(s *store.Store, n int) {\n"
			"\ts.Put(\"a\", n)\n\t" CURSOR "\n}\n",
			"store/methods.go", "Store.Put", "cache/cache.go",
			"Cache.Put");
}

TEST(receivers_rust)
{
	static const File files[] = {
	    {"src/shapes.rs",
	     "pub struct Circle { pub r: f64 }\n\n"
	     "impl Circle {\n"
	     "    pub fn new(r: f64) -> Self { Circle { r } }\n"
	     "    pub fn area(&self) -> f64 { 3.14 * self.r * self.r }\n"
	     "}\n"},
	    {"src/rect.rs", "pub struct Rect { w: f64 }\n\n"
			    "impl Rect {\n"
			    "    pub fn area(&self) -> f64 { self.w }\n"
			    "}\n"},
	    {NULL, NULL},
	};

	expect_receiver(files, "src/main.rs",
			"fn main() {\n"
			"    let c = Circle::new(2.0);\n"
			"    let a = c.area();\n    " CURSOR "\n}\n",
			"src/shapes.rs", "Circle::area", "src/rect.rs",
			"Rect::area");
}

/* Rust's `new` is no keyword, but as a bare name it means every type's
 * constructor and stays unlooked-up; called on a type, `Span::new` is
 * one method, and weighs as a use near the cursor. */
TEST(receivers_rust_constructor)
{
	static const File files[] = {
	    {"src/span.rs",
	     "pub struct Span { pub lo: usize, pub hi: usize }\n\n"
	     "impl Span {\n"
	     "    pub fn new(lo: usize, hi: usize) -> Span {\n"
	     "        Span { lo, hi }\n    }\n}\n"},
	    {"src/token.rs",
	     "pub struct Token { pub n: usize }\n\n"
	     "impl Token {\n"
	     "    pub fn new(n: usize) -> Token { Token { n } }\n"
	     "}\n"},
	    {NULL, NULL},
	};
	RankResult r;
	Ws w;
	int i, j;

	ws_open(&w, files);
	rank_at(&w, "src/lex.rs",
		"fn scan(at: usize) -> usize {\n"
		"    let s = Span::new(at, at + 1);\n    " CURSOR "\n}\n",
		4000, &r);
	i = find(&r, "src/span.rs", "Span::new");
	j = find(&r, "src/token.rs", "Token::new");
	ASSERT_TRUE(i >= 0);
	EXPECT_TRUE(r.items[i].signals.receiver);
	EXPECT_TRUE(r.items[i].signals.definition > 0);
	EXPECT_TRUE(j < 0 || j > i);
	rank_result_free(&r);
	ws_close(&w);
}

/* An impl block is named by its type but defines none: `Error` near the
 * cursor means the enum, not the buffer's own `impl Display for Error`
 * (which would shadow every other file's Error) nor another file's
 * `impl Error`. */
TEST(impl_block_is_no_definition_rust)
{
	static const File files[] = {
	    {"src/error.rs", "/// What went wrong.\n"
			     "pub enum Error {\n    Io(u32),\n    Parse,\n}\n"},
	    {"src/kind.rs", "use crate::error::Error;\n\n"
			    "impl Error {\n"
			    "    pub fn code(&self) -> u32 { 0 }\n}\n"},
	    {NULL, NULL},
	};

	expect_ahead(files, "src/show.rs",
		     "use std::fmt;\n\n"
		     "impl fmt::Display for Error {\n"
		     "    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result "
		     "{\n        Ok(())\n    }\n}\n\n"
		     "fn describe(e: &Error) -> &'static str {\n    " CURSOR
		     "\n}\n",
		     "src/error.rs", "Error", "src/kind.rs", "Error", 0);
}

TEST(receivers_java)
{
	static const File files[] = {
	    {"src/shop/Inventory.java",
	     "package shop;\n\npublic class Inventory {\n"
	     "    public void add(String name) {}\n}\n"},
	    {"src/shop/Cart.java", "package shop;\n\npublic class Cart {\n"
				   "    public void add(String name) {}\n}\n"},
	    {NULL, NULL},
	};

	expect_receiver(files, "src/shop/Main.java",
			"package shop;\n\nclass Main {\n"
			"    void run() {\n"
			"        Inventory inv = new Inventory();\n"
			"        inv.add(\"x\");\n        " CURSOR "\n"
			"    }\n}\n",
			"src/shop/Inventory.java", "Inventory.add",
			"src/shop/Cart.java", "Cart.add");
}

/* A class's constructors share its name but are no other meaning of it:
 * `Widget` near the cursor weighs on the class as fully as `Gadget` does
 * on a class with none, and the constructors are no items of their own
 * (the class's outline shows them). */
TEST(constructors_are_their_class_java)
{
	static const File files[] = {
	    {"src/ui/Widget.java", "package ui;\n\npublic class Widget {\n"
				   "    public Widget() {}\n"
				   "    public Widget(int size) {}\n"
				   "    public int size() { return 0; }\n}\n"},
	    {"src/ui/Gadget.java", "package ui;\n\npublic class Gadget {\n"
				   "    public int size() { return 1; }\n}\n"},
	    {NULL, NULL},
	};
	RankResult r;
	Ws w;
	int i, j;

	ws_open(&w, files);
	rank_at(&w, "src/ui/Main.java",
		"package ui;\n\nclass Main {\n"
		"    int run(Widget a, Gadget b) {\n        " CURSOR
		"\n    }\n}\n",
		4000, &r);
	i = find(&r, "src/ui/Widget.java", "Widget");
	j = find(&r, "src/ui/Gadget.java", "Gadget");
	ASSERT_TRUE(i >= 0 && j >= 0);
	EXPECT_TRUE(r.items[i].signals.definition >=
		    r.items[j].signals.definition);
	EXPECT_TRUE(find(&r, "src/ui/Widget.java", "Widget.Widget") < 0);
	rank_result_free(&r);
	ws_close(&w);
}

/* Whether name is an entry of the comma-separated list. */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* In the class being written, its name near the cursor is a type (a
 * parameter's, the result's) and no call of its constructor: the
 * constructor is named near the cursor once the code calls it. Returns
 * whether the item showing Money's constructor says it defines Money. */
static bool ctor_named(const char *call)
{
	static const File files[] = {
	    {"src/pay/Rate.java", "package pay;\n\npublic class Rate {\n"
				  "    public long apply(long c) { return c; }\n"
				  "}\n"},
	    {NULL, NULL},
	};
	Buf b = {0};
	RankResult r;
	Ws w;
	bool named = false;

	buf_puts(&b, "package pay;\n\npublic class Money {\n"
		     "    private final long cents;\n\n"
		     "    private Money(long cents) {\n"
		     "        this.cents = cents;\n    }\n\n");
	/* Far enough that the constructor is out of the editor's view. */
	for (int i = 0; i < 10; i++)
		buf_printf(&b, "    public long part%d() {\n"
			       "        return cents / %d;\n    }\n\n",
			   i, i + 2);
	buf_printf(&b, "    public Money plus(Money other, Rate rate) {\n"
		       "%s        " CURSOR "\n    }\n}\n",
		   call);
	ws_open(&w, files);
	rank_at(&w, "src/pay/Money.java", b.data, 4000, &r);
	for (uint32_t i = 0; i < r.nitems; i++) {
		const RankItem *it = &r.items[i];

		if (strcmp(it->symbol, "Money.Money") == 0 ||
		    strstr(it->signals.joined, "Money.Money"))
			named |= listed(it->signals.defines, "Money");
	}
	rank_result_free(&r);
	ws_close(&w);
	buf_free(&b);
	return named;
}

TEST(constructor_of_the_class_being_written_java)
{
	EXPECT_TRUE(!ctor_named(""));
	EXPECT_TRUE(ctor_named("        Money m = new Money(cents + 1);\n"));
}

/* The file's other definitions of the name being written (the same
 * method of other types) use what the code being written will: Go's
 * dumpHelper, called by both other Dump methods, ranks ahead of
 * formatNode, which the file uses more often and nearer the cursor but
 * no Dump does, and says why. */
TEST(namesakes_in_the_file_go)
{
	static const File files[] = {
	    {"go.mod", "module example.com/ast\n\ngo 1.19\n"},
	    {"ast/helper.go",
	     "package ast\n\n"
	     "func dumpHelper(n any, src []byte) {}\n\n"
	     "func formatNode(n any) string { return \"\" }\n"},
	    {NULL, NULL},
	};
	RankResult r;
	Ws w;
	int i, j;

	ws_open(&w, files);
	rank_at(&w, "ast/nodes.go",
		"package ast\n\n"
		"type A struct{}\ntype B struct{}\ntype C struct{}\n\n"
		"func (n *A) Dump(src []byte) { dumpHelper(n, src) }\n\n"
		"func (n *B) Dump(src []byte) { dumpHelper(n, src) }\n\n"
		"func (n *A) String() string { return formatNode(n) }\n\n"
		"func (n *B) String() string { return formatNode(n) }\n\n"
		"func (n *C) String() string { return formatNode(n) }\n\n"
		"func (n *C) Dump(src []byte) {\n\t" CURSOR "\n}\n",
		4000, &r);
	i = find(&r, "ast/helper.go", "dumpHelper");
	j = find(&r, "ast/helper.go", "formatNode");
	ASSERT_TRUE(i >= 0);
	EXPECT_TRUE(j < 0 || j > i);
	EXPECT_TRUE(r.items[i].signals.sibling > 0.99);
	EXPECT_TRUE(
	    why_says(&r.items[i], "other definitions of the same name"));
	rank_result_free(&r);
	ws_close(&w);
}

/* The functions of a file that take what the one being written takes
 * call what it is about to: its similar definitions' callee comes before
 * a helper the rest of the file uses more. */
TEST(similar_headers_go)
{
	static const File files[] = {
	    {"go.mod", "module example.com/wire\n\ngo 1.19\n"},
	    {"wire/util.go",
	     "package wire\n\n"
	     "func logEvent(msg string) {}\n\n"
	     "func sendPacket(c *Conn, p []byte) error { return nil }\n\n"
	     "type Conn struct{ fd int }\n"},
	    {NULL, NULL},
	};
	RankResult r;
	Ws w;
	int i, j;

	ws_open(&w, files);
	rank_at(
	    &w, "wire/session.go",
	    "package wire\n\n"
	    "func handshake(c *Conn, hello []byte) error {\n"
	    "\tlogEvent(\"hello\")\n\treturn sendPacket(c, hello)\n}\n\n"
	    "func ping(c *Conn, data []byte) error {\n"
	    "\treturn sendPacket(c, data)\n}\n\n"
	    "func report(name string) { logEvent(name); logEvent(name) }\n\n"
	    "func audit(name string) { logEvent(name) }\n\n"
	    "func trace(name string) { logEvent(name) }\n\n"
	    "func pong(c *Conn, data []byte) error {\n\t" CURSOR "\n}\n",
	    4000, &r);
	i = find(&r, "wire/util.go", "sendPacket");
	j = find(&r, "wire/util.go", "logEvent");
	ASSERT_TRUE(i >= 0);
	EXPECT_TRUE(j < 0 || j > i);
	EXPECT_TRUE(r.items[i].signals.similar > 0.5);
	EXPECT_TRUE(j < 0 || r.items[j].signals.similar < 0.5);
	EXPECT_TRUE(
	    why_says(&r.items[i], "headers like the one being written"));
	rank_result_free(&r);
	ws_close(&w);
}

/* What the similar functions call on their typed parameters is looked
 * up as the method of the type: Conn's flush, not Writer's. */
TEST(similar_calls_go)
{
	static const File files[] = {
	    {"go.mod", "module example.com/wire\n\ngo 1.19\n"},
	    {"wire/conn.go", "package wire\n\n"
			     "type Conn struct{ fd int }\n\n"
			     "func (c *Conn) flush() error { return nil }\n"},
	    {"wire/writer.go",
	     "package wire\n\n"
	     "type Writer struct{ n int }\n\n"
	     "func (w *Writer) flush() error { return nil }\n"},
	    {NULL, NULL},
	};
	RankResult r;
	Ws w;
	int i, j;

	ws_open(&w, files);
	rank_at(&w, "wire/session.go",
		"package wire\n\n"
		"func handshake(c *Conn, hello []byte) error {\n"
		"\treturn c.flush()\n}\n\n"
		"func ping(c *Conn, data []byte) error {\n"
		"\treturn c.flush()\n}\n\n"
		"func pong(c *Conn, data []byte) error {\n\t" CURSOR "\n}\n",
		4000, &r);
	i = find(&r, "wire/conn.go", "Conn.flush");
	j = find(&r, "wire/writer.go", "Writer.flush");
	ASSERT_TRUE(i >= 0);
	EXPECT_TRUE(r.items[i].signals.similar > 0.5);
	EXPECT_TRUE(j < 0 || (j > i && r.items[j].signals.similar == 0));
	EXPECT_TRUE(
	    why_says(&r.items[i], "headers like the one being written"));
	rank_result_free(&r);
	ws_close(&w);
}

/* A method defined out of its class writes that class: the fields its
 * header declares are members the code uses bare (`mutex_`), found
 * though a field's bare name is looked up nowhere else; the header's
 * declaration of the method being written is no item. */
TEST(owner_of_a_method_defined_outside_cpp)
{
	static const File files[] = {
	    {"src/reactor.hpp", "#pragma once\n#include <mutex>\n\n"
				"class reactor {\npublic:\n"
				"    void run();\n    void stop();\n"
				"private:\n    std::mutex mutex_;\n"
				"    int fd_;\n};\n"},
	    {"src/timer.hpp", "#pragma once\n#include <mutex>\n\n"
			      "class timer {\n    std::mutex mutex_;\n};\n"},
	    {NULL, NULL},
	};
	RankResult r;
	Ws w;
	int i, j;

	ws_open(&w, files);
	rank_at(&w, "src/reactor.cpp",
		"#include \"reactor.hpp\"\n\n"
		"void reactor::stop()\n{\n    fd_ = -1;\n}\n\n"
		"void reactor::run()\n{\n"
		"    std::lock_guard<std::mutex> lock(mutex_);\n    " CURSOR
		"\n}\n",
		4000, &r);
	i = find(&r, "src/reactor.hpp", "reactor::mutex_");
	j = find(&r, "src/timer.hpp", "timer::mutex_");
	ASSERT_TRUE(i >= 0);
	EXPECT_TRUE(r.items[i].signals.member);
	EXPECT_TRUE(j < 0 || j > i);
	EXPECT_TRUE(find(&r, "src/reactor.hpp", "reactor::run") < 0);
	rank_result_free(&r);
	ws_close(&w);
}

/* An enum's constants are definitions of their own: `Color.RED` near
 * the cursor is the constant of Color (with its doc comment), not the
 * RED of another enum. */
TEST(enum_constants_java)
{
	static const File files[] = {
	    {"src/ui/Color.java", "package ui;\n\npublic enum Color {\n"
				  "    /** Stop. */\n    RED,\n"
				  "    /** Go. */\n    GREEN;\n}\n"},
	    {"src/ui/Alert.java", "package ui;\n\npublic enum Alert {\n"
				  "    RED, AMBER;\n}\n"},
	    {NULL, NULL},
	};

	expect_receiver(files, "src/ui/Lamp.java",
			"package ui;\n\nclass Lamp {\n"
			"    void show() {\n        paint(Color.RED);\n"
			"        " CURSOR "\n    }\n}\n",
			"src/ui/Color.java", "Color.RED", "src/ui/Alert.java",
			"Alert.RED");
}

/* Constants a doc comment apart are one item, as siblings a line apart
 * are: the code near the cursor uses RED and GREEN, and one item shows
 * both. */
TEST(enum_constants_join)
{
	static const File files[] = {
	    {"src/ui/Color.java",
	     "package ui;\n\npublic enum Color {\n"
	     "    /**\n     * Stop.\n     */\n    RED,\n"
	     "    /**\n     * Go.\n     */\n    GREEN;\n}\n"},
	    {NULL, NULL},
	};
	RankResult r;
	Ws w;
	int i;

	ws_open(&w, files);
	rank_at(&w, "src/ui/Lamp.java",
		"package ui;\n\nclass Lamp {\n"
		"    void show() {\n        paint(Color.RED, Color.GREEN);\n"
		"        " CURSOR "\n    }\n}\n",
		4000, &r);
	i = find(&r, "src/ui/Color.java", "Color.RED");
	ASSERT_TRUE(i >= 0);
	EXPECT_TRUE(strstr(r.items[i].signals.joined, "Color.GREEN") != NULL);
	EXPECT_TRUE(find(&r, "src/ui/Color.java", "Color.GREEN") < 0);
	rank_result_free(&r);
	ws_close(&w);
}

/* The member defined out of its class is found by its qualifier, the
 * class being declared in a header outside the workspace. */
TEST(receivers_cpp)
{
	static const File files[] = {
	    {"ui/widget.cpp", "#include <ui/widget.hpp>\n\n"
			      "int ui::Widget::bounds() const\n{\n"
			      "    return w_ * h_;\n}\n"},
	    {"ui/frame.cpp", "struct Frame {\n"
			     "    int bounds() const { return 1; }\n};\n"},
	    {NULL, NULL},
	};

	expect_receiver(files, "ui/main.cpp",
			"#include <ui/widget.hpp>\n\n"
			"int area(ui::Widget w) {\n"
			"    int b = w.bounds();\n    " CURSOR "\n}\n",
			"ui/widget.cpp", "ui::Widget::bounds", "ui/frame.cpp",
			"Frame::bounds");
}

static void expect_import(const File *files, const char *rel,
			  const char *marked, const char *path,
			  const char *right, const char *wrong_path,
			  const char *wrong)
{
	expect_ahead(files, rel, marked, path, right, wrong_path, wrong,
		     WANT_IMPORT | WANT_NAME);
}

/* Go: an import path through go.mod's module path is a directory, its
 * name the last component or the alias; `pkg.Name` is that package's. */
static const File go_module[] = {
    {"go.mod", "module example.com/shop\n\ngo 1.19\n"},
    {"store/open.go", "package store\n\n"
		      "// Open opens the store at dir.\n"
		      "func Open(dir string) error { return nil }\n"},
    {"store/util.go", "package store\n\n"
		      "func check(dir string) bool { return dir != \"\" }\n"},
    {"mock/open.go", "package mock\n\n"
		     "func Open(dir string) error { return nil }\n\n"
		     "func check(dir string) bool { return true }\n"},
    {NULL, NULL},
};

TEST(imports_go)
{
	expect_import(
	    go_module, "cmd/main.go",
	    "package main\n\nimport (\n"
	    "\t\"fmt\"\n\t\"example.com/shop/store\"\n)\n\n"
	    "func main() {\n\tfmt.Println(store.Open(\"a\"))\n\t" CURSOR
	    "\n}\n",
	    "store/open.go", "Open", "mock/open.go", "Open");
	expect_import(go_module, "cmd/main.go",
		      "package main\n\nimport st \"example.com/shop/store\"\n\n"
		      "func main() {\n\t_ = st.Open(\"a\")\n\t" CURSOR "\n}\n",
		      "store/open.go", "Open", "mock/open.go", "Open");
}

/* Go: in a tree laid out by import path (GOPATH, Debian's gocode), the
 * path is the directory; a version suffix is not in the name bound. */
TEST(imports_go_versioned)
{
	static const File files[] = {
	    {"gopkg.in/yaml.v3/decode.go",
	     "package yaml\n\nfunc Unmarshal(in []byte, out any) error "
	     "{ return nil }\n"},
	    {"example.com/json/v2/decode.go",
	     "package json\n\nfunc Unmarshal(in []byte, out any) error "
	     "{ return nil }\n"},
	    {"other/decode.go", "package other\n\nfunc Unmarshal(in []byte, "
				"out any) error { return nil }\n"},
	    {NULL, NULL},
	};

	expect_import(files, "app/main.go",
		      "package main\n\nimport \"gopkg.in/yaml.v3\"\n\n"
		      "func main() {\n\t_ = yaml.Unmarshal(nil, nil)\n\t" CURSOR
		      "\n}\n",
		      "gopkg.in/yaml.v3/decode.go", "Unmarshal",
		      "other/decode.go", "Unmarshal");
	expect_import(files, "app/main.go",
		      "package main\n\nimport \"example.com/json/v2\"\n\n"
		      "func main() {\n\t_ = json.Unmarshal(nil, nil)\n\t" CURSOR
		      "\n}\n",
		      "example.com/json/v2/decode.go", "Unmarshal",
		      "other/decode.go", "Unmarshal");
}

/* Go: the files of a package share one scope. */
TEST(imports_go_package)
{
	expect_ahead(go_module, "store/save.go",
		     "package store\n\n"
		     "func Save(dir string) {\n\tif check(dir) {\n\t\t" CURSOR
		     "\n\t}\n}\n",
		     "store/util.go", "check", "mock/open.go", "check",
		     WANT_IMPORT);
}

/* Rust: `use crate::...` from the crate's src/, grouped names, and
 * `mod x;` with `x::f`. */
static const File rust_crate[] = {
    {"Cargo.toml", "[package]\nname = \"shop\"\nversion = \"0.1.0\"\n"},
    {"src/net/conn.rs", "/// Dials addr.\n"
			"pub fn dial(addr: &str) -> u32 { 1 }\n\n"
			"pub struct Conn { pub fd: u32 }\n"},
    {"src/net/mod.rs", "pub mod conn;\n"},
    {"src/util.rs", "pub fn parse(s: &str) -> u32 { 0 }\n"},
    {"src/fake.rs", "pub fn dial(addr: &str) -> u32 { 0 }\n\n"
		    "pub fn parse(s: &str) -> u32 { 1 }\n"},
    {NULL, NULL},
};

TEST(imports_rust)
{
	expect_import(
	    rust_crate, "src/app.rs",
	    "use crate::net::conn::{Conn, dial};\n\n"
	    "pub fn run() -> u32 {\n    let c: Conn = dial(\"x\");\n    " CURSOR
	    "\n}\n",
	    "src/net/conn.rs", "dial", "src/fake.rs", "dial");
	expect_import(rust_crate, "src/main.rs",
		      "mod util;\n\nfn main() {\n"
		      "    let n = util::parse(\"1\");\n    " CURSOR "\n}\n",
		      "src/util.rs", "parse", "src/fake.rs", "parse");
	expect_import(rust_crate, "src/net/pool.rs",
		      "use super::conn;\n\nfn get() -> u32 {\n"
		      "    conn::dial(\"y\")\n    " CURSOR "\n}\n",
		      "src/net/conn.rs", "dial", "src/fake.rs", "dial");
}

/* Java: `import a.b.C;` names C of the package directory a/b under a
 * source root. */
TEST(imports_java)
{
	static const File files[] = {
	    {"src/main/java/com/acme/net/Client.java",
	     "package com.acme.net;\n\npublic class Client {\n"
	     "    public static Client connect(String host) "
	     "{ return null; }\n}\n"},
	    {"src/main/java/com/acme/mock/Client.java",
	     "package com.acme.mock;\n\npublic class Client {\n"
	     "    public static Client connect(String host) "
	     "{ return null; }\n}\n"},
	    {NULL, NULL},
	};

	expect_import(
	    files, "src/main/java/com/acme/app/Main.java",
	    "package com.acme.app;\n\n"
	    "import com.acme.net.Client;\n\nclass Main {\n"
	    "    void run() {\n"
	    "        Client c = Client.connect(\"h\");\n        " CURSOR
	    "\n    }\n}\n",
	    "src/main/java/com/acme/net/Client.java", "Client.connect",
	    "src/main/java/com/acme/mock/Client.java", "Client.connect");
}

/* C: an include names a header through the include directories; the
 * definitions of its source file come with it, and both are offered. */
TEST(imports_c)
{
	static const File files[] = {
	    {"include/net/conn.h", "#ifndef NET_CONN_H\n#define NET_CONN_H\n"
				   "int conn_open(const char *host);\n"
				   "#endif\n"},
	    {"lib/net/conn.c", "#include \"net/conn.h\"\n\n"
			       "/* Opens a connection to host. */\n"
			       "int conn_open(const char *host)\n{\n"
			       "\treturn host != 0;\n}\n"},
	    {"lib/mock/mock.c", "int conn_open(const char *host)\n{\n"
				"\treturn 0;\n}\n"},
	    {NULL, NULL},
	};

	expect_ahead(
	    files, "app/main.c",
	    "#include <stdio.h>\n#include \"net/conn.h\"\n\n"
	    "int main(void)\n{\n\tint fd = conn_open(\"h\");\n\t" CURSOR
	    "\n}\n",
	    "lib/net/conn.c", "conn_open", "lib/mock/mock.c", "conn_open",
	    WANT_IMPORT);
	/* The declaration in the header is offered too. */
	expect_ahead(
	    files, "app/main.c",
	    "#include <stdio.h>\n#include \"net/conn.h\"\n\n"
	    "int main(void)\n{\n\tint fd = conn_open(\"h\");\n\t" CURSOR
	    "\n}\n",
	    "include/net/conn.h", "conn_open", "lib/mock/mock.c", "conn_open",
	    WANT_IMPORT);
}

/* C: a function declared in a header the file includes and defined in a
 * source file of another name (one header for a whole module, as in a
 * Linux file system). Its body ranks for the declaration, ahead of the
 * prototype, which is offered too. Defined in two source files, neither
 * body is the one, and the prototype keeps its rank. */
TEST(declared_in_a_header_c)
{
	static const File files[] = {
	    {"fs/fs.h", "struct group;\n"
			"struct group *fs_group(int n);\n"},
	    {"fs/count.h", "int fs_count(int n);\n"},
	    {"fs/balloc.c", "#include \"fs.h\"\n\n"
			    "struct group *fs_group(int n)\n{\n"
			    "\treturn 0;\n}\n"},
	    {"fs/super.c", "int fs_count(int n)\n{\n\treturn n;\n}\n"},
	    {"fs/compat.c", "int fs_count(int n)\n{\n\treturn 0;\n}\n"},
	    {NULL, NULL},
	};
	RankResult r;
	Ws w;
	int i, j;

	ws_open(&w, files);
	rank_at(&w, "fs/ialloc.c",
		"#include \"fs.h\"\n#include \"count.h\"\n\n"
		"int fs_free(int n)\n{\n\tstruct group *g = fs_group(n);\n"
		"\tint c = fs_count(n);\n\t" CURSOR "\n}\n",
		4000, &r);
	i = find(&r, "fs/balloc.c", "fs_group");
	j = find(&r, "fs/fs.h", "fs_group");
	EXPECT_TRUE(i >= 0 && j > i);
	EXPECT_TRUE(
	    i >= 0 && r.items[i].signals.declared &&
	    why_says(&r.items[i], "declared in a file this one imports"));
	i = find(&r, "fs/count.h", "fs_count");
	j = find(&r, "fs/super.c", "fs_count");
	EXPECT_TRUE(i >= 0 && (j < 0 || j > i));
	EXPECT_TRUE(j < 0 || !r.items[j].signals.declared);
	rank_result_free(&r);
	/* Writing the body, its prototype is no context. */
	rank_at(&w, "fs/balloc.c",
		"#include \"fs.h\"\n\nstruct group *fs_group(int n)\n{\n\t"
		"struct group *g = 0;\n\t" CURSOR "\n}\n",
		4000, &r);
	EXPECT_TRUE(find(&r, "fs/fs.h", "fs_group") < 0);
	rank_result_free(&r);
	ws_close(&w);
}

/* C: the function before the one being written names 28 locals and
 * fields after the header's accessor it starts with; the accessor is
 * still among the names near the cursor looked up, and its definition is
 * offered as one the file imports. */
TEST(header_name_among_many_locals_c)
{
	static const File files[] = {
	    {"fs/fs.h", "struct fs_info {\n\tint a;\n};\n\n"
			"static inline struct fs_info *FS_INFO(void *sb)\n{\n"
			"\treturn sb;\n}\n"},
	    {NULL, NULL},
	};
	Buf text = {0};
	RankResult r;
	Ws w;
	int i;

	buf_puts(&text, "#include \"fs.h\"\n\nint fs_sum(void *sb)\n{\n"
			"\tstruct fs_info *fi = FS_INFO(sb);\n\tint t = 0;\n");
	for (int k = 0; k < 14; k++)
		buf_printf(&text, "\tint v%02d = fi->f%02d;\n", k, k);
	buf_puts(&text, "\treturn t;\n}\n\nint fs_max(void *sb)\n{\n\t" CURSOR
			"\n}\n");
	ws_open(&w, files);
	rank_at(&w, "fs/sum.c", text.data, 4000, &r);
	i = find(&r, "fs/fs.h", NULL);
	ASSERT_TRUE(i >= 0);
	EXPECT_TRUE(r.items[i].signals.import);
	EXPECT_TRUE(r.items[i].signals.defines &&
		    strstr(r.items[i].signals.defines, "FS_INFO"));
	rank_result_free(&r);
	ws_close(&w);
	buf_free(&text);
}

/* C++: of a name defined in many headers, the overload in the header the
 * file includes is offered, though six headers it does not include
 * define the name with a shorter qualified name, first in its order. */
TEST(overload_in_an_included_header_cpp)
{
	static const File files[] = {
	    {"include/graph/props.hpp", "namespace gp {\n"
					"inline int get(int map, int key)\n{\n"
					"\treturn map + key;\n}\n}\n"},
	    {NULL, NULL},
	};
	Ws w;

	ws_open_many(&w, files, 6, "include/other", ".hpp",
		     "template <class T>\nT get(T x)\n{\n\treturn x;\n}\n");
	expect_ahead_in(
	    &w, "include/graph/search.hpp",
	    "#include \"props.hpp\"\n\nnamespace graph {\n"
	    "int color(int map, int v)\n{\n\treturn get(map, v);\n}\n\n"
	    "int search(int map, int v)\n{\n\t" CURSOR "\n}\n}\n",
	    "include/graph/props.hpp", "gp::get", "include/other/00.hpp", "get",
	    WANT_IMPORT);
	ws_close(&w);
}

/* C: a header the file includes includes another (here in a cycle):
 * what that one defines is what the file sees, and its definitions
 * count as imported, ahead of a namesake in a header nothing includes.
 * What a header includes is read again once it changes. */
TEST(includes_of_includes_c)
{
	static const File files[] = {
	    {"include/fs/fs.h",
	     "#ifndef FS_H\n#define FS_H\n#include \"fs/types.h\"\n"
	     "int fs_open(struct fs_inode *ino);\n#endif\n"},
	    {"include/fs/types.h", "#include <fs/fs.h>\n"
				   "struct fs_inode {\n\tint size;\n};\n"},
	    {"include/fs/types2.h",
	     "struct fs_inode {\n\tint size;\n\tint mode;\n};\n"},
	    {NULL, NULL},
	};
	const char *file =
	    "#include <fs/fs.h>\n\n"
	    "int fs_size(struct fs_inode *ino)\n{\n\t" CURSOR "\n}\n";
	Ws w;

	ws_open(&w, files);
	expect_ahead_in(&w, "fs/file.c", file, "include/fs/types.h", "fs_inode",
			"include/fs/types2.h", "fs_inode", WANT_IMPORT);
	ixt_write(w.root, "include/fs/fs.h",
		  "#ifndef FS_H\n#define FS_H\n#include \"types2.h\"\n"
		  "#endif\n");
	expect_ahead_in(&w, "fs/file.c", file, "include/fs/types2.h",
			"fs_inode", "include/fs/types.h", "fs_inode",
			WANT_IMPORT);
	ws_close(&w);
}

/* C: a static function declared ahead of its body in the same file.
 * The body is the item, however far below: the forward declarations,
 * nearer the cursor and joined into one, took a place and showed no
 * body. */
TEST(declared_ahead_in_the_file_c)
{
	static const File files[] = {{NULL, NULL}};
	Buf text = {0};
	RankResult r;
	Ws w;
	int i;

	buf_puts(&text, "static int link_space(int n);\n"
			"static int unlink_space(int n);\n\n"
			"static void drop(int n)\n{\n\tunlink_space(n);\n"
			"\tlink_space(n);\n\t" CURSOR "\n}\n");
	for (int k = 0; k < 30; k++)
		buf_printf(&text,
			   "\nstatic int pad%d(int n)\n{\n"
			   "\treturn n * %d;\n}\n",
			   k, k);
	buf_puts(&text, "\n\n\nstatic int link_space(int n)\n{\n"
			"\treturn n + 1;\n}\n\n\n\n"
			"static int unlink_space(int n)\n{\n"
			"\treturn n - 1;\n}\n");
	ws_open(&w, files);
	rank_at(&w, "fs/cache.c", text.data, 4000, &r);
	for (i = 0; i < (int)r.nitems; i++)
		if (strcmp(r.items[i].symbol, "unlink_space") == 0)
			break;
	EXPECT_TRUE(i < (int)r.nitems && r.items[i].lines.start > 150);
	for (uint32_t k = 0; k < r.nitems; k++)
		EXPECT_TRUE(r.items[k].lines.start > 1);
	rank_result_free(&r);
	buf_free(&text);
	ws_close(&w);
}

/* A namespace around the cursor is a scope, not the definition being
 * written: where the code at the cursor is in no definition (a
 * `static_assert` at the namespace's level), the namespace's
 * definitions above it are still shown. */
TEST(namespace_is_no_definition_being_written_cpp)
{
	static const File files[] = {{NULL, NULL}};
	RankResult r;
	Ws w;

	ws_open(&w, files);
	rank_at(&w, "src/units.hpp",
		"namespace units {\n\n"
		"inline int to_metres(int feet) {\n"
		"  return feet * 3048 / 10000;\n"
		"}\n\n"
		"inline int to_feet(int metres) {\n"
		"  return metres * 10000 / 3048;\n"
		"}\n\n"
		"struct Length {\n"
		"  int feet_;\n\n"
		"  int metres() const;\n"
		"  int yards() const;\n"
		"};\n\n"
		"static_assert(to_metres(" CURSOR "\n\n"
		"}  // namespace units\n",
		2000, &r);
	if (!buffer_item(&r, "units::to_metres"))
		explain(&r);
	EXPECT_TRUE(buffer_item(&r, "units::to_metres") != NULL);
	rank_result_free(&r);
	ws_close(&w);
}

/* Go: a name takes its type from `NewT(...)` (Go's constructor
 * convention, also as `x, err :=` and through a package), `&T{}`, `T{}`
 * and `var x T`. */
TEST(receivers_go_locals)
{
	static const File files[] = {
	    {"store/store.go", "package store\n\n"
			       "type Store struct{ m map[string]int }\n\n"
			       "func NewStore() *Store { return &Store{} }\n"},
	    {"store/methods.go",
	     "package store\n\n"
	     "// Put stores v under k.\n"
	     "func (s *Store) Put(k string, v int) { s.m[k] = v }\n"},
	    {"cache/cache.go", "package cache\n\ntype Cache struct{}\n\n"
			       "func (c *Cache) Put(k string, v int) {}\n"},
	    {NULL, NULL},
	};
	static const char *const bodies[] = {
	    "\tx := NewStore()\n",
	    "\tx, err := store.NewStore()\n\t_ = err\n",
	    "\tx := &Store{m: Cache{}}\n",
	    "\tx := Store{}\n",
	    "\tvar x Store\n",
	};

	for (size_t i = 0; i < sizeof(bodies) / sizeof(*bodies); i++) {
		Buf b = {0};

		buf_printf(&b,
			   "package app\n\nfunc fill(n int) {\n%s"
			   "\tx.Put(\"a\", n)\n\t" CURSOR "\n}\n",
			   bodies[i]);
		expect_receiver(files, "app/main.go", b.data,
				"store/methods.go", "Store.Put",
				"cache/cache.go", "Cache.Put");
		buf_free(&b);
	}
}

/* C++: `x->m` is a member of x's type as `x.m` is, x declared `T *x`,
 * `auto x = new T(...)` or a smart pointer to T. */
TEST(receivers_cpp_pointers)
{
	static const File files[] = {
	    {"gfx/circle.hpp", "struct Circle {\n"
			       "    void draw(int scale) const;\n};\n"},
	    {"gfx/circle.cpp", "#include \"circle.hpp\"\n\n"
			       "void Circle::draw(int scale) const\n{\n"
			       "    (void)scale;\n}\n"},
	    {"gfx/square.cpp", "struct Square {\n"
			       "    void draw(int scale) const {}\n};\n"},
	    {NULL, NULL},
	};
	static const char *const decls[] = {
	    "    Circle *x = get();\n",
	    "    const Circle *x;\n",
	    "    auto x = new Circle(2);\n",
	    "    auto *x = new gfx::Circle(2);\n",
	    "    std::unique_ptr<Circle> x = std::make_unique<Circle>(2);\n",
	    "    auto x = std::make_shared<Circle>(2);\n",
	};

	for (size_t i = 0; i < sizeof(decls) / sizeof(*decls); i++) {
		Buf b = {0};

		buf_printf(&b,
			   "#include <memory>\n\nvoid paint(int n)\n{\n%s"
			   "    x->draw(n);\n    " CURSOR "\n}\n",
			   decls[i]);
		expect_receiver(files, "app/main.cpp", b.data, "gfx/circle.cpp",
				"Circle::draw", "gfx/square.cpp",
				"Square::draw");
		buf_free(&b);
	}
}

/* Go: go.mod's `replace` to a local directory, one a line or in a block,
 * sends the module's imports there; a replacement by another module
 * path is no directory. */
TEST(imports_go_replace)
{
	static const File files[] = {
	    {"app/go.mod", "module example.com/app\n\n"
			   "require example.com/lib v1.0.0\n\n"
			   "replace example.com/lib => ../lib\n\n"
			   "replace (\n"
			   "\texample.com/util v1.2.0 => ../util // local\n"
			   "\texample.com/net => example.com/fork v1.0.0\n"
			   ")\n"},
	    {"lib/go.mod", "module example.com/lib\n"},
	    {"lib/open.go", "package lib\n\n"
			    "func Open(dir string) error { return nil }\n"},
	    {"lib/codec/codec.go",
	     "package codec\n\nfunc Encode(v any) []byte { return nil }\n"},
	    {"util/format.go",
	     "package util\n\nfunc Format(v any) string { return \"\" }\n"},
	    {"mock/mock.go", "package mock\n\n"
			     "func Open(dir string) error { return nil }\n\n"
			     "func Format(v any) string { return \"\" }\n\n"
			     "func Encode(v any) []byte { return nil }\n"},
	    {NULL, NULL},
	};

	expect_import(files, "app/main.go",
		      "package main\n\nimport \"example.com/lib\"\n\n"
		      "func main() {\n\t_ = lib.Open(\"a\")\n\t" CURSOR "\n}\n",
		      "lib/open.go", "Open", "mock/mock.go", "Open");
	expect_import(files, "app/main.go",
		      "package main\n\nimport \"example.com/lib/codec\"\n\n"
		      "func main() {\n\t_ = codec.Encode(1)\n\t" CURSOR "\n}\n",
		      "lib/codec/codec.go", "Encode", "mock/mock.go", "Encode");
	expect_import(files, "app/main.go",
		      "package main\n\nimport \"example.com/util\"\n\n"
		      "func main() {\n\t_ = util.Format(1)\n\t" CURSOR "\n}\n",
		      "util/format.go", "Format", "mock/mock.go", "Format");
}

/* Rust: a crate of the workspace is found by the name its Cargo.toml
 * gives (`shop-net` written `shop_net`), among the members the
 * workspace lists (by a glob too); a crate not of the workspace is
 * still matched by its path under any crate. */
TEST(imports_rust_workspace)
{
	static const File files[] = {
	    {"Cargo.toml", "[workspace]\nmembers = [\n"
			   "    \"crates/*\", # libraries\n"
			   "    \"tools/cli\",\n]\n"},
	    {"crates/net/Cargo.toml",
	     "[package]\nname = \"shop-net\"\nversion = \"0.1.0\"\n"},
	    {"crates/net/src/lib.rs", "pub mod conn;\n"},
	    {"crates/net/src/conn.rs",
	     "/// Dials addr.\npub fn dial(addr: &str) -> u32 { 1 }\n"},
	    {"crates/mock/Cargo.toml", "[package]\nname=\"shop-mock\"\n"},
	    {"crates/mock/src/lib.rs", "pub mod conn;\npub mod fake;\n"},
	    {"crates/mock/src/conn.rs",
	     "pub fn dial(addr: &str) -> u32 { 0 }\n"},
	    {"crates/mock/src/fake.rs",
	     "pub fn dial(addr: &str) -> u32 { 2 }\n"},
	    {"tools/cli/Cargo.toml", "[package]\nname = \"cli\"\n"},
	    {NULL, NULL},
	};

	expect_import(files, "tools/cli/src/main.rs",
		      "use shop_net::conn::dial;\n\nfn main() {\n"
		      "    let c = dial(\"x\");\n    " CURSOR "\n}\n",
		      "crates/net/src/conn.rs", "dial",
		      "crates/mock/src/conn.rs", "dial");
	expect_import(files, "tools/cli/src/main.rs",
		      "use shop_mock::conn;\n\nfn main() {\n"
		      "    let c = conn::dial(\"x\");\n    " CURSOR "\n}\n",
		      "crates/mock/src/conn.rs", "dial",
		      "crates/net/src/conn.rs", "dial");
	/* Not a crate of the workspace: by path. */
	expect_import(files, "tools/cli/src/main.rs",
		      "use vendored::conn::dial;\n\nfn main() {\n"
		      "    let c = dial(\"x\");\n    " CURSOR "\n}\n",
		      "crates/net/src/conn.rs", "dial",
		      "crates/mock/src/fake.rs", "dial");
}

/* C: an include is first a file beside the including one, then one in
 * the include directories of the compilation database (-I, -isystem,
 * -iquote, joined or apart, relative to each entry's directory, from
 * "command" or "arguments"); only then any path ending as it does. A
 * header found in an include directory still brings its source file. */
static const File c_project[] = {
    {"build/compile_commands.json",
     "[\n"
     " {\"directory\": \".\", \"file\": \"../lib/net/conn.c\",\n"
     "  \"command\": \"cc -DX=\\\"a b\\\" -I../include -c "
     "../lib/net/conn.c\"},\n"
     " {\"arguments\": [\"cc\", \"-iquote\", \"../third/include\", "
     "\"-isystem/usr/include\", \"-c\", \"x.c\"],\n"
     "  \"output\": {\"nested\": [1, {\"a\": \"]\"}]},\n"
     "  \"directory\": \"./\", \"file\": \"x.c\"}\n"
     "]\n"},
    {"include/net/conn.h", "int conn_open(const char *host);\n"},
    {"lib/net/conn.c", "#include \"net/conn.h\"\n\n"
		       "int conn_open(const char *host)\n{\n"
		       "\treturn host != 0;\n}\n"},
    {"compat/old/net/conn.h", "int conn_open(const char *name);\n"},
    {"third/include/zlib.h", "int deflate(int level);\n"},
    {"other/zlib.h", "int deflate(int how);\n"},
    {"app/util.h", "int util_max(int a, int b);\n"},
    {"lib/util.h", "int util_max(int x, int y);\n"},
    {NULL, NULL},
};

#define C_MAIN(includes, call)                                                 \
	"#include <stdio.h>\n" includes "\nint main(void)\n{\n\tint v = " call \
	";\n\t" CURSOR "\n}\n"

TEST(imports_c_include_dirs)
{
	const char *net =
	    C_MAIN("#include \"net/conn.h\"\n", "conn_open(\"h\")");

	expect_ahead(c_project, "app/main.c", net, "include/net/conn.h",
		     "conn_open", "compat/old/net/conn.h", "conn_open",
		     WANT_IMPORT);
	expect_ahead(c_project, "app/main.c", net, "lib/net/conn.c",
		     "conn_open", "compat/old/net/conn.h", "conn_open",
		     WANT_IMPORT);
	expect_ahead(c_project, "app/main.c",
		     C_MAIN("#include <zlib.h>\n", "deflate(9)"),
		     "third/include/zlib.h", "deflate", "other/zlib.h",
		     "deflate", WANT_IMPORT);
	expect_ahead(c_project, "app/main.c",
		     C_MAIN("#include \"util.h\"\n", "util_max(1, 2)"),
		     "app/util.h", "util_max", "lib/util.h", "util_max",
		     WANT_IMPORT);
}

/* The usual database: absolute directories, at the root. */
TEST(imports_c_include_dirs_absolute)
{
	static const File files[] = {
	    {"include/net/conn.h", "int conn_open(const char *host);\n"},
	    {"compat/old/net/conn.h", "int conn_open(const char *name);\n"},
	    {NULL, NULL},
	};
	Ws w;
	Buf db = {0};

	ws_open(&w, files);
	buf_printf(&db,
		   "[{\"directory\": \"%s/out\", \"command\": \"cc "
		   "-I %s/include -I/usr/include -c a.c\", \"file\": "
		   "\"a.c\"}]\n",
		   w.root, w.root);
	ixt_write(w.root, "compile_commands.json", db.data);
	expect_ahead_in(&w, "app/main.c",
			C_MAIN("#include \"net/conn.h\"\n", "conn_open(\"h\")"),
			"include/net/conn.h", "conn_open",
			"compat/old/net/conn.h", "conn_open", WANT_IMPORT);
	buf_free(&db);
	ws_close(&w);
}

/* The directories of a database are read once for each version of it:
 * rewritten to name the other directory, the next request follows it. */
TEST(imports_c_include_dirs_follow_the_database)
{
	static const File files[] = {
	    {"include/net/conn.h", "int conn_open(const char *host);\n"},
	    {"compat/old/net/conn.h", "int conn_open(const char *name);\n"},
	    {NULL, NULL},
	};
	const char *net =
	    C_MAIN("#include \"net/conn.h\"\n", "conn_open(\"h\")");
	Ws w;
	Buf db = {0};

	ws_open(&w, files);
	buf_printf(&db,
		   "[{\"directory\": \"%s\", \"command\": \"cc -Iinclude "
		   "-c a.c\", \"file\": \"a.c\"}]\n",
		   w.root);
	ixt_write(w.root, "compile_commands.json", db.data);
	for (int i = 0; i < 2; i++) /* the second from what was kept */
		expect_ahead_in(&w, "app/main.c", net, "include/net/conn.h",
				"conn_open", "compat/old/net/conn.h",
				"conn_open", WANT_IMPORT);
	buf_free(&db);
	buf_printf(&db,
		   "[{\"directory\": \"%s\", \"command\": \"cc "
		   "-Icompat/old -c a.c\", \"file\": \"a.c\"}]\n",
		   w.root);
	ixt_write(w.root, "compile_commands.json", db.data);
	expect_ahead_in(&w, "app/main.c", net, "compat/old/net/conn.h",
			"conn_open", "include/net/conn.h", "conn_open",
			WANT_IMPORT);
	buf_free(&db);
	ws_close(&w);
}

/* Go: an unexported type is named with a small letter, as the receiver
 * of its own methods or made by `newT()`. */
TEST(receivers_go_unexported)
{
	static const File files[] = {
	    {"yaml/parser.go", "package yaml\n\n"
			       "type parser struct{ pos int }\n\n"
			       "func newParser() *parser { return nil }\n\n"
			       "func (p *parser) expect(k int) { p.pos++ }\n"},
	    {"yaml/lexer.go", "package yaml\n\ntype lexer struct{}\n\n"
			      "func (l *lexer) expect(k int) {}\n"},
	    {NULL, NULL},
	};

	expect_receiver(files, "yaml/decode.go",
			"package yaml\n\nfunc (p *parser) parse() {\n"
			"\tp.expect(1)\n\t" CURSOR "\n}\n",
			"yaml/parser.go", "parser.expect", "yaml/lexer.go",
			"lexer.expect");
	expect_receiver(files, "yaml/decode.go",
			"package yaml\n\nfunc decode() {\n"
			"\tp := newParser()\n\tp.expect(1)\n\t" CURSOR "\n}\n",
			"yaml/parser.go", "parser.expect", "yaml/lexer.go",
			"lexer.expect");
}

/* Go: a name the buffer uses reaches only its package and its imports.
 * The function Render of a package the file does not import is beyond
 * reach of `out.Render` at the cursor (a method of out's type, wherever
 * that is), and ranks after the package's frame, named further up. */
TEST(outside_the_package_go)
{
	static const File files[] = {
	    {"go.mod", "module example.com/app\n\ngo 1.19\n"},
	    {"app/frame.go", "package app\n\n"
			     "func frame(b []byte) []byte { return b }\n"},
	    {"html/render.go", "package html\n\n"
			       "func Render(w io.Writer, v any) error {\n"
			       "\treturn nil\n}\n"},
	    {NULL, NULL},
	};
	Buf buf = {0};

	buf_puts(&buf, "package app\n\n"
		       "func reply(w io.Writer, v any, out Out) error {\n"
		       "\tb := frame(nil)\n");
	for (int i = 0; i < 8; i++)
		buf_printf(&buf, "\tb = append(b, %d)\n", i);
	buf_puts(&buf, "\tout.Render(w, v)\n\t" CURSOR "\n}\n");
	expect_ahead(files, "app/server.go", buf.data, "app/frame.go",
		     "frame", "html/render.go", "Render", 0);
	buf_free(&buf);
}

/* A compilation database cut short anywhere, or nested deeply, is read
 * as far as it goes: the include still resolves (by its directory or by
 * path) and nothing is read out of bounds (ASan). */
TEST(imports_c_include_db_malformed)
{
	static const File files[] = {
	    {"include/net/conn.h", "int conn_open(const char *host);\n"},
	    {"compat/old/net/conn.h", "int conn_open(const char *name);\n"},
	    {NULL, NULL},
	};
	const char *db = "[{\"directory\": \"a\\\\b\\u0041\\u00e9\", "
			 "\"command\": \"cc '-I../include' \\\"-Ix\\\" -I\", "
			 "\"arguments\": [\"-iquote\"], \"x\": [{\"y\": "
			 "\"]}\\\"\"}, -1.5e3, true, null]}, {}, 7]";
	const char *main_c =
	    C_MAIN("#include \"net/conn.h\"\n", "conn_open(\"h\")");
	size_t len = strlen(db);
	Buf deep = {0};
	Ws w;

	ws_open(&w, files);
	for (size_t n = 0; n <= len; n++) {
		Buf cut = {0};

		buf_append(&cut, db, n);
		ixt_write(w.root, "compile_commands.json", cut.data);
		expect_ahead_in(&w, "app/main.c", main_c, "include/net/conn.h",
				"conn_open", "compat/old/net/conn.h",
				"conn_open", 0);
		buf_free(&cut);
	}
	buf_puts(&deep, "[{\"x\": ");
	for (int i = 0; i < 100000; i++)
		buf_puts(&deep, "[");
	ixt_write(w.root, "compile_commands.json", deep.data);
	expect_ahead_in(&w, "app/main.c", main_c, "include/net/conn.h",
			"conn_open", "compat/old/net/conn.h", "conn_open", 0);
	buf_free(&deep);
	ws_close(&w);
}

/* Ranks buffer rel's text in a workspace of files, and checks the first
 * item of path's name (i) against that of other_path's other (j), -1 for
 * either not listed. */
static void rank_pair(const File *files, const char *rel, const char *text,
		      const char *path, const char *name,
		      const char *other_path, const char *other,
		      void (*check)(const RankResult *r, int i, int j))
{
	RankResult r;
	Ws w;

	ws_open(&w, files);
	rank_at(&w, rel, text, 4000, &r);
	check(&r, find(&r, path, name), find(&r, other_path, other));
	rank_result_free(&r);
	ws_close(&w);
}

/* That item i ranks for being used elsewhere in the buffer (and says
 * so), and item j, if listed, after it and not for that. */
static void expect_used_after(const RankResult *r, int i, int j)
{
	if (i < 0)
		explain(r);
	EXPECT_TRUE(i >= 0);
	EXPECT_TRUE(i < 0 || r->items[i].signals.file_use > 0);
	EXPECT_TRUE(i < 0 ||
		    why_says(&r->items[i], "used elsewhere in this file"));
	EXPECT_TRUE(j < 0 || (j > i && r->items[j].signals.file_use == 0));
}

/* What the rest of the file uses, far from the cursor, is what the code
 * being written may use too: Go's package-level checksum, called by a
 * function 160 lines up, ranks for it (and says so); a method of another
 * package's type of the same name does not earn that. */
TEST(names_used_elsewhere_in_the_file)
{
	static const File files[] = {
	    {"go.mod", "module example.com/shop\n\ngo 1.19\n"},
	    {"store/util.go", "package store\n\n"
			      "func checksum(b []byte) uint32 { return 0 }\n"},
	    {"other/t.go", "package other\n\ntype T struct{}\n\n"
			   "func (t T) checksum(b []byte) uint32 "
			   "{ return 1 }\n"},
	    {NULL, NULL},
	};
	Buf text = {0};

	buf_puts(&text, "package store\n\nfunc Load(b []byte) uint32 {\n"
			"\treturn checksum(b)\n}\n\n");
	for (int k = 0; k < 40; k++)
		buf_printf(&text,
			   "func step%d(x int) int {\n\treturn x + %d\n}\n\n",
			   k, k);
	buf_puts(&text, "func Save(b []byte) uint32 {\n\t" CURSOR "\n}\n");
	rank_pair(files, "store/save.go", text.data, "store/util.go",
		  "checksum", "other/t.go", NULL, expect_used_after);
	buf_free(&text);
}

/* The same holds for what a C++ namespace defines: nearly every
 * definition of a library is in one, and its `lib::detail::fail` is a
 * top-level function to code outside it, unlike a class's method of the
 * same name. */
TEST(names_used_elsewhere_in_namespaces)
{
	File files[] = {
	    {"include/lib/error.hpp", NULL},
	    {"include/lib/other.hpp",
	     "#pragma once\nnamespace lib {\nclass Other {\npublic:\n"
	     "  void fail(int code) { (void)code; }\n};\n}\n"},
	    {NULL, NULL},
	};
	Buf text = {0}, error = {0};

	buf_puts(&error, "#pragma once\nnamespace lib {\nnamespace detail {\n");
	for (int k = 0; k < 30; k++)
		buf_printf(
		    &error,
		    "inline int scale%d(int x)\n{\n  return x * %d;\n}\n\n", k,
		    k);
	buf_puts(&error, "inline void fail(int code)\n{\n  if (code)\n"
			 "    throw code;\n}\n} // namespace detail\n"
			 "} // namespace lib\n");
	files[0].text = error.data;
	buf_puts(&text,
		 "#pragma once\n#include <lib/error.hpp>\n\n"
		 "namespace lib {\n\ninline void open(int fd)\n{\n"
		 "  int code = fd < 0;\n  lib::detail::fail(code);\n}\n\n");
	for (int k = 0; k < 40; k++)
		buf_printf(
		    &text,
		    "inline int step%d(int x)\n{\n  return x + %d;\n}\n\n", k,
		    k);
	buf_puts(&text, "inline void close(int fd)\n{\n  " CURSOR
			"\n}\n\n} // namespace lib\n");
	rank_pair(files, "include/lib/file.hpp", text.data,
		  "include/lib/error.hpp", "lib::detail::fail",
		  "include/lib/other.hpp", "lib::Other::fail",
		  expect_used_after);
	buf_free(&text);
	buf_free(&error);
}

/* Ranks, in a workspace of files, rel's text: head, then twelve
 * functions each (printf'd with their number, twice), then last with
 * the cursor. */
static void rank_repeated(Ws *w, const File *files, const char *rel,
			  const char *head, const char *each, const char *last,
			  RankResult *r)
{
	Buf text = {0};

	buf_puts(&text, head);
	for (int k = 0; k < 12; k++)
		buf_printf(&text, each, k, k);
	buf_puts(&text, last);
	ws_open(w, files);
	rank_at(w, rel, text.data, 4000, r);
	buf_free(&text);
}

/* That item j, if listed, ranks after item i and for none of the names
 * the buffer uses. */
static void expect_unnamed_after(const RankResult *r, int i, int j)
{
	const RankItem *it = j >= 0 ? &r->items[j] : NULL;

	if (i < 0 || j >= 0)
		explain(r);
	EXPECT_TRUE(i >= 0);
	EXPECT_TRUE(!it || (j > i && it->signals.definition == 0 &&
			    it->signals.file_use == 0 &&
			    it->signals.sibling == 0 &&
			    it->signals.similar == 0));
}

/* In buffer rel of a workspace of files, other_path's other ranks, if at
 * all, after path's name and for none of the buffer's names. */
static void expect_unnamed(const File *files, const char *rel,
			   const char *text, const char *path,
			   const char *name, const char *other_path,
			   const char *other)
{
	rank_pair(files, rel, text, path, name, other_path, other,
		  expect_unnamed_after);
}

/* expect_unnamed, in a buffer rank_repeated builds. */
static void expect_unnamed_repeated(const File *files, const char *rel,
				    const char *head, const char *each,
				    const char *last, const char *path,
				    const char *name, const char *other_path,
				    const char *other)
{
	RankResult r;
	Ws w;

	rank_repeated(&w, files, rel, head, each, last, &r);
	expect_unnamed_after(&r, find(&r, path, name),
			     find(&r, other_path, other));
	rank_result_free(&r);
	ws_close(&w);
}

/* The buffer's item whose symbol ends with name, or -1. */
static int find_here(const RankResult *r, const char *name)
{
	size_t n = strlen(name);

	for (uint32_t i = 0; i < r->nitems; i++) {
		const char *s = r->items[i].symbol;
		size_t k = strlen(s);

		if (r->items[i].in_buffer && k >= n &&
		    strcmp(s + k - n, name) == 0)
			return (int)i;
	}
	return -1;
}

/* A parameter of the function being written is a local, and so, most
 * likely, is the same name in the rest of the file: every function of
 * the file takes `parser *state`, and the package's `parser` type is no
 * definition they use (before: an item, its name "used elsewhere in this
 * file"), while the `peek` they call, beside `state`, still is. */
TEST(parameters_are_no_uses_of_namesakes)
{
	static const File files[] = {
	    {"go.mod", "module example.com/conf\n\ngo 1.19\n"},
	    {"yaml/decode.go", "package yaml\n\n"
			       "type parser struct {\n\tdepth int\n}\n"},
	    {"yaml/state.go", "package yaml\n\n"
			      "type state struct {\n\tok bool\n}\n\n"
			      "func peek(s *state) int { return 0 }\n"},
	    {NULL, NULL},
	};
	RankResult r;
	Ws w;

	rank_repeated(&w, files, "yaml/parse.go", "package yaml\n\n",
		      "func parse%d(parser *state) bool {\n"
		      "\treturn peek(parser) > %d && parser.ok\n}\n\n",
		      "func parseLast(parser *state, first bool) bool {\n\t" CURSOR
		      "\n}\n",
		      &r);
	expect_unnamed_after(&r, find(&r, "yaml/state.go", NULL),
			     find(&r, "yaml/decode.go", "parser"));
	rank_result_free(&r);
	ws_close(&w);
}

/* ... but a parameter named as a field of the class being written
 * (Java's `this.method = method`) does not make the field's uses a
 * local's: the other constructor sets the field, and this one will. */
TEST(parameters_named_as_fields_keep_their_uses)
{
	static const File files[] = {
	    {"src/main/java/net/Proxy.java",
	     "package net;\n\npublic class Proxy {\n}\n"},
	    {NULL, NULL},
	};
	const char *text =
	    "package net;\n\npublic class Request {\n"
	    "\tprivate final String method;\n\n"
	    "\tString describe() {\n\t\tString s = \"request\";\n"
	    "\t\ts += \" via \";\n\t\ts += \"proxy\";\n"
	    "\t\ts += \".\";\n\t\ts += \"\\n\";\n"
	    "\t\treturn s;\n\t}\n\n"
	    "\tprivate final Proxy proxy;\n\n"
	    "\tRequest(String method, Proxy proxy) {\n"
	    "\t\tthis.method = method;\n\t\tthis.proxy = proxy;\n\t}\n\n"
	    "\tRequest(Request other, String method) {\n\t\t" CURSOR
	    "\n\t}\n}\n";
	RankResult r;
	Ws w;
	int i;

	ws_open(&w, files);
	rank_at(&w, "src/main/java/net/Request.java", text, 4000, &r);
	i = find_here(&r, "method");
	if (i < 0 || r.items[i].signals.sibling <= 0)
		explain(&r);
	ASSERT_TRUE(i >= 0);
	EXPECT_TRUE(r.items[i].signals.sibling > 0);
	rank_result_free(&r);
	ws_close(&w);
}

/* A Go method's receiver names the type it is of, not a type it uses:
 * the encoder struct, named in the receiver of every method of the file
 * and nowhere else, does not rank for those names (before, it did: "used
 * near the cursor"), and the helper the methods call comes first. */
TEST(receivers_are_no_uses_of_their_type)
{
	static const File files[] = {
	    {"go.mod", "module example.com/enc\n\ngo 1.19\n"},
	    {"enc/types.go", "package enc\n\n"
			     "type encoder struct {\n\tout []byte\n}\n"},
	    {"enc/put.go", "package enc\n\n"
			   "func put(b []byte, c byte) []byte {\n"
			   "\treturn append(b, c)\n}\n"},
	    {NULL, NULL},
	};

	expect_unnamed_repeated(
	    files, "enc/encode.go", "package enc\n\n",
	    "func (e *encoder) emit%d() {\n\te.out = put(e.out, %d)\n}\n\n",
	    "func (e *encoder) emitLast() {\n\t" CURSOR "\n}\n", "enc/put.go",
	    "put", "enc/types.go", "encoder");
}

/* A method written apart from its type names itself in its header, and
 * that is no use: B.Len, just above the cursor, does not make another
 * type's Len a definition "used near the cursor" (before, it did: the
 * second item), while the helper B's methods call still ranks. */
TEST(method_names_in_their_headers_are_no_uses)
{
	static const File files[] = {
	    {"go.mod", "module example.com/msg\n\ngo 1.19\n"},
	    {"msg/a.go", "package msg\n\ntype A struct {\n\tb []byte\n}\n\n"
			 "func (a *A) Len() int {\n\treturn len(a.b)\n}\n"},
	    {"msg/pad.go", "package msg\n\n"
			   "func pad(n int) int {\n\treturn n + n%4\n}\n"},
	    {NULL, NULL},
	};
	const char *text =
	    "package msg\n\ntype B struct {\n\tn int\n}\n\n"
	    "func (b *B) Len() int {\n\treturn pad(b.n)\n}\n\n"
	    "func (b *B) Marshal() []byte {\n\t" CURSOR "\n}\n";

	expect_unnamed(files, "msg/b.go", text, "msg/pad.go", "pad", "msg/a.go",
		       "A.Len");
}

/* C++: the class that qualifies a method written apart from it (the
 * `Reactor::` of `void Reactor::stop()`) is the method's, no use: the
 * constructor Reactor::Reactor ranks for none of the buffer's names,
 * after the helper the code uses. */
TEST(qualifiers_of_methods_apart_are_no_uses)
{
	static const File files[] = {
	    {"src/reactor.hpp", "class Reactor {\npublic:\n  Reactor();\n"
				"  void run();\n  void stop();\n\nprivate:\n"
				"  int fd_;\n};\n"},
	    {"src/reactor_ctor.cpp", "#include \"reactor.hpp\"\n\n"
				     "Reactor::Reactor() : fd_(-1) {}\n"},
	    {"src/close.h", "int close_fd(int fd);\n"},
	    {NULL, NULL},
	};
	const char *text = "#include \"reactor.hpp\"\n#include \"close.h\"\n\n"
			   "void Reactor::run() {\n  close_fd(fd_);\n}\n\n"
			   "void Reactor::stop() {\n  " CURSOR "\n}\n";

	expect_unnamed(files, "src/reactor.cpp", text, "src/close.h",
		       "close_fd", "src/reactor_ctor.cpp", "Reactor::Reactor");
}

/* A file of one language: a helper kept to it and used nowhere yet, a
 * public twin, a helper kept to it and used, then forty neighbours and
 * the function being written, far from the helpers. */
typedef struct {
	const char *rel;
	const char *head;  /* the helpers, "%s" for the three names */
	const char *step;  /* a neighbour: "%d" twice, using the used name
			    * (Go's: none, another file of the package
			    * uses it) */
	const char *tail;  /* the function being written, with CURSOR */
	const char *names; /* the helper, the twin, the used one */
	bool kept;	   /* the language keeps definitions to a file */
} KeptCase;

static const KeptCase kept_cases[] = {
    {"app/tool.py",
     "def _pad_left(n):\n    return n + 1\n\n\n"
     "def pad_right(n):\n    return n - 1\n\n\n"
     "def _twice(n):\n    return n * 2\n\n\n",
     "def step%d(x):\n    return _twice(x) + %d\n\n\n",
     "def render(rows):\n    " CURSOR "\n", "_pad_left pad_right _twice", true},
    {"src/tool.c",
     "static int pad_left(int n) { return n + 1; }\n\n\n"
     "int pad_right(int n) { return n - 1; }\n\n\n"
     "static int twice(int n) { return n * 2; }\n\n\n",
     "int step%d(int x)\n{\n\treturn twice(x) + %d;\n}\n\n",
     "int render(int x)\n{\n\t" CURSOR "\n}\n", "pad_left pad_right twice",
     true},
    /* A namespace is no scope of its own: `static` still keeps a
     * definition in one to the file. */
    {"src/tool.cpp",
     "namespace app {\n\nstatic int pad_left(int n) { return n + 1; }\n\n\n"
     "int pad_right(int n) { return n - 1; }\n\n\n"
     "static int twice(int n) { return n * 2; }\n\n\n",
     "int step%d(int x)\n{\n\treturn twice(x) + %d;\n}\n\n",
     "int render(int x)\n{\n\t" CURSOR "\n}\n\n} // namespace app\n",
     "pad_left pad_right twice", true},
    {"src/Tool.java",
     "class Tool {\n"
     "    private int padLeft(int n) { return n + 1; }\n\n\n"
     "    public int padRight(int n) { return n - 1; }\n\n\n"
     "    private int twice(int n) { return n * 2; }\n\n\n",
     "    int step%d(int x) {\n        return twice(x) + %d;\n    }\n\n",
     "    int render(int x) {\n        " CURSOR "\n    }\n}\n",
     "padLeft padRight twice", true},
    {"src/tool.ts",
     "function padLeft(n: number): number {\n  return n + 1;\n}\n\n\n"
     "export function padRight(n: number): number {\n  return n - 1;\n}\n\n\n"
     "const twice = (n: number): number => n * 2;\n\n\n",
     "export function step%d(x: number): number {\n"
     "  return twice(x) + %d;\n}\n\n",
     "export function render(x: number): number {\n  " CURSOR "\n}\n",
     "padLeft padRight twice", true},
    /* A script (no import, export or require) shares its top-level
     * names with every other script: none is kept to it. */
    {"web/page.js",
     "function padLeft(n) {\n  return n + 1;\n}\n\n\n"
     "function padRight(n) {\n  return n - 1;\n}\n\n\n"
     "function twice(n) {\n  return n * 2;\n}\n\n\n",
     "function step%d(x) {\n  return twice(x) + %d;\n}\n\n",
     "function render(x) {\n  " CURSOR "\n}\n", "padLeft padRight twice",
     false},
    /* Go's unexported names serve the package: trimmed, which the
     * buffer does not use, is used by another file of it (the
     * workspace's store/other.go). */
    {"store/tool.go",
     "package store\n\nfunc padLeft(n int) int { return n + 1 }\n\n\n"
     "func PadRight(n int) int { return n - 1 }\n\n\n"
     "func trimmed(n int) int { return n * 2 }\n\n\n",
     "func Step%d(x int) int {\n\treturn x + %d\n}\n\n",
     "func render(x int) int {\n\t" CURSOR "\n}\n", "padLeft PadRight trimmed",
     true},
};

/* Go: a member of a package outside the module (the standard library's
 * `bufio.NewScanner`) is no use of a workspace namesake, nor does a name
 * it gives a value type that name's methods: another package's
 * NewScanner ranks for none of the buffer's names, and its Scanner.Err
 * not as the method of `scanner.Err()`, both after the package's
 * verbosef. */
TEST(outside_the_module_go)
{
	static const File files[] = {
	    {"go.mod", "module example.com/app\n\ngo 1.19\n"},
	    {"app/verbose.go", "package app\n\n"
			       "func verbosef(format string, v ...any) {}\n"},
	    {"stack/scan.go",
	     "package stack\n\n"
	     "type Scanner struct{ r io.Reader }\n\n"
	     "func NewScanner(r io.Reader) *Scanner { return &Scanner{r} }\n\n"
	     "func (s *Scanner) Err() error { return nil }\n"},
	    {NULL, NULL},
	};
	static const char text[] =
	    "package app\n\n"
	    "import (\n\t\"bufio\"\n\t\"os\"\n)\n\n"
	    "func count(name string) (int, error) {\n"
	    "\tf, _ := os.Open(name)\n"
	    "\tscanner := bufio.NewScanner(f)\n"
	    "\tn := 0\n"
	    "\tfor scanner.Scan() {\n\t\tn++\n\t}\n"
	    "\tverbosef(\"%d lines\", n)\n"
	    "\treturn n, scanner.Err()\n}\n\n"
	    "func grow(name string) error {\n\t" CURSOR "\n}\n";
	Ws w;
	RankResult r;
	int i, j;

	ws_open(&w, files);
	rank_at(&w, "app/count.go", text, 4000, &r);
	i = find(&r, "app/verbose.go", "verbosef");
	j = find(&r, "stack/scan.go", "Scanner.Err");
	expect_unnamed_after(&r, i, find(&r, "stack/scan.go", "NewScanner"));
	EXPECT_TRUE(j < 0 || (j > i && !r.items[j].signals.receiver));
	rank_result_free(&r);
	ws_close(&w);
}

/* Go: the names the rest of the buffer uses reach only its package and
 * its imports too: a local `gofmt` of a function 36 lines above is no
 * use of a package's gofmt the file does not import. */
TEST(file_names_outside_the_package_go)
{
	static const File files[] = {
	    {"go.mod", "module example.com/app\n\ngo 1.19\n"},
	    {"app/verbose.go", "package app\n\n"
			       "func verbosef(format string, v ...any) {}\n"},
	    {"tools/fmt.go", "package tools\n\n"
			     "func gofmt(s string) string { return s }\n"},
	    {NULL, NULL},
	};

	expect_unnamed_repeated(files, "app/run.go",
				"package app\n\n"
				"func format(src string) string {\n"
				"\tgofmt := trim(src)\n\treturn gofmt\n}\n\n"
				"func run(src string) {\n",
				"\tsrc = pad(src, %d)\n\tsrc = pad(src, %d)\n"
				"\tsrc = trim(src)\n",
				"\tverbosef(\"%s\", src)\n\t" CURSOR "\n}\n",
				"app/verbose.go", "verbosef", "tools/fmt.go",
				"gofmt");
}

/* Go: a package the module keeps a copy of in its vendor directory (a
 * git repository's, where the scan reads vendor/) is in the workspace:
 * after `c := lib.NewClient()`, `c.Do()` is the vendored Client's Do. */
TEST(vendored_package_go)
{
	static const File files[] = {
	    {".git/HEAD", "ref: refs/heads/main\n"},
	    {"go.mod", "module example.com/app\n\ngo 1.19\n"},
	    {"vendor/github.com/acme/lib/client.go",
	     "package lib\n\ntype Client struct{}\n\n"
	     "func NewClient() *Client { return &Client{} }\n"},
	    {"vendor/github.com/acme/lib/do.go",
	     "package lib\n\nfunc (c *Client) Do(n int) error { return nil }\n"},
	    {"other/client.go", "package other\n\ntype Client struct{}\n\n"
				"func (c *Client) Do(n int) error {\n"
				"\treturn nil\n}\n"},
	    {NULL, NULL},
	};

	expect_ahead(files, "app/main.go",
		     "package app\n\nimport \"github.com/acme/lib\"\n\n"
		     "func run(n int) error {\n"
		     "\tc := lib.NewClient()\n\tc.Do(n)\n\t" CURSOR "\n}\n",
		     "vendor/github.com/acme/lib/do.go", "Client.Do",
		     "other/client.go", "Client.Do",
		     WANT_RECEIVER | WANT_IMPORT);
}

/* Go: the type of a receiver is in the file's package or one it
 * imports: after `s *scanner`, `s.next()` is no call of the next of
 * another package's scanner, which ranked as "a method of the type of
 * what it is called on" beside the file's own. */
TEST(receivers_outside_the_package_go)
{
	static const File files[] = {
	    {"go.mod", "module example.com/app\n\ngo 1.19\n"},
	    {"lex/scan.go", "package lex\n\ntype scanner struct{ pos int }\n\n"
			    "func (s *scanner) next() rune {\n"
			    "\ts.pos++\n\treturn 0\n}\n"},
	    {NULL, NULL},
	};
	static const char text[] = "package app\n\n"
				   "type scanner struct{ pos int }\n\n"
				   "func (s *scanner) next() rune {\n"
				   "\ts.pos++\n\treturn 0\n}\n\n"
				   "func (s *scanner) skip(n int) {\n"
				   "\tfor i := 0; i < n; i++ {\n"
				   "\t\ts.next()\n\t}\n"
				   "\t" CURSOR "\n}\n";
	Ws w;
	RankResult r;
	int j;

	ws_open(&w, files);
	rank_at(&w, "app/scan.go", text, 4000, &r);
	j = find(&r, "lex/scan.go", "scanner.next");
	if (j >= 0)
		explain(&r);
	EXPECT_TRUE(j < 0 || !r.items[j].signals.receiver);
	rank_result_free(&r);
	ws_close(&w);
}

/* A definition its file keeps to itself (`static`, `private`, no
 * `export`, `_name`) and does not use yet is what the code being written
 * is about to use (Go's unexported names, when no other file of the
 * package uses them either): it ranks among the first three, ahead of
 * most of the neighbours around the cursor (without the signal, after
 * them all),
 * says why, and neither its public twin nor a kept one in use is taken
 * for one. */
TEST(kept_to_the_file_and_unused)
{
	static const File files[] = {
	    {"go.mod", "module example.com/tools\n\ngo 1.19\n"},
	    {"store/other.go",
	     "package store\n\nfunc other(n int) int { return trimmed(n) }\n"},
	    {NULL, NULL},
	};
	Ws w;

	ws_open(&w, files);
	for (size_t c = 0; c < sizeof(kept_cases) / sizeof(*kept_cases); c++) {
		const KeptCase *k = &kept_cases[c];
		char helper[32], twin[32], used[32];
		Buf text = {0};
		RankResult r;
		int h, t, u;

		if (sscanf(k->names, "%31s %31s %31s", helper, twin, used) != 3)
			ixt_die("names of", k->rel);
		buf_puts(&text, k->head);
		for (int s = 0; s < 40; s++)
			buf_printf(&text, k->step, s, s);
		buf_puts(&text, k->tail);
		rank_at(&w, k->rel, text.data, 4000, &r);
		h = find_here(&r, helper);
		t = find_here(&r, twin);
		u = find_here(&r, used);
		if (k->kept) {
			if (h < 0 || h > 2)
				explain(&r);
			ASSERT_TRUE(h >= 0);
			EXPECT_TRUE(h <= 2);
			EXPECT_TRUE(r.items[h].signals.unused_private);
			EXPECT_TRUE(
			    why_says(&r.items[h], "private and not used yet"));
		} else {
			for (uint32_t i = 0; i < r.nitems; i++)
				EXPECT_TRUE(!r.items[i].signals.unused_private);
		}
		EXPECT_TRUE(t < 0 || !r.items[t].signals.unused_private);
		EXPECT_TRUE(t < 0 || h < 0 || t > h || !k->kept);
		EXPECT_TRUE(u < 0 || !r.items[u].signals.unused_private);
		rank_result_free(&r);
		buf_free(&text);
	}
	ws_close(&w);
}

/* Inside a class a name is its own member first: a member of another
 * class of the file named as one of the class being written says
 * nothing of that name near the cursor. */
TEST(own_member_shadows_other_classes_cpp)
{
	static const File files[] = {{NULL, NULL}};
	const RankItem *other;
	RankResult r;
	Ws w;

	ws_open(&w, files);
	rank_at(&w, "src/sizes.hpp",
		"namespace n {\n"
		"struct Small {\n  typedef unsigned size_type;\n\n\n\n"
		"  size_type count() const { return 1; }\n};\n\n"
		"struct Large {\n  typedef long size_type;\n\n"
		"  int a_;\n  int b_;\n\n"
		"  Large() : a_(0), b_(0) {}\n\n"
		"  size_type twice(size_type x) const {\n"
		"    size_type y = x;" CURSOR "\n  }\n};\n}\n",
		4000, &r);
	other = buffer_item(&r, "n::Small::size_type");
	ASSERT_TRUE(r.nitems > 0);
	EXPECT_STR_EQ(r.items[0].symbol, "n::Large::size_type");
	EXPECT_TRUE(r.items[0].signals.definition > 0);
	EXPECT_TRUE(!other || other->signals.definition <= 0);
	rank_result_free(&r);
	ws_close(&w);
}

/* Other files' definitions of the name being written (every operation's
 * do_complete) call what the one being written is about to: the helper
 * all of them call ranks, saying why, though the buffer names it
 * nowhere, ahead of one only one of them calls. */
TEST(namesakes_in_other_files_cpp)
{
	static const File files[] = {
	    {"ops/finish.hpp", "#pragma once\n"
			       "inline void finish_op(int *op) { *op = 0; }\n"
			       "inline void trace_op(int *op) { (void)op; }\n"},
	    {"ops/read_op.hpp",
	     "#include \"finish.hpp\"\n"
	     "struct read_op {\n  int state_;\n"
	     "  void do_complete() {\n    trace_op(&state_);\n"
	     "    finish_op(&state_);\n  }\n};\n"},
	    {"ops/write_op.hpp", "#include \"finish.hpp\"\n"
				 "struct write_op {\n  int state_;\n"
				 "  void do_complete() {\n"
				 "    finish_op(&state_);\n  }\n};\n"},
	    {"ops/wait_op.hpp", "#include \"finish.hpp\"\n"
				"struct wait_op {\n  int state_;\n"
				"  void do_complete() {\n"
				"    finish_op(&state_);\n  }\n};\n"},
	    {NULL, NULL},
	};
	RankResult r;
	Ws w;
	int i, j;

	ws_open(&w, files);
	rank_at(&w, "ops/send_op.hpp",
		"#include \"finish.hpp\"\n"
		"struct send_op {\n  int state_;\n"
		"  void do_complete() {\n    " CURSOR "\n  }\n};\n",
		4000, &r);
	i = find(&r, "ops/finish.hpp", "finish_op");
	j = find(&r, "ops/finish.hpp", "trace_op");
	ASSERT_TRUE(i >= 0);
	EXPECT_TRUE(r.items[i].signals.namesakes > 0.99);
	EXPECT_TRUE(why_says(&r.items[i], "other files' definitions"));
	EXPECT_TRUE(j < 0 || j > i);
	rank_result_free(&r);
	ws_close(&w);
}
