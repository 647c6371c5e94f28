/*
 * proptest.c: property tests of the chunker over real corpora.
 *
 *	proptest_chunker [--lang NAME] [--max-size N] [--every N]
 *			 [--edits N] DIR...
 *
 * Walks each DIR (following symbolic links, entries in byte order so runs
 * are reproducible), chunks every file of a supported language, or every
 * regular file as NAME with --lang, and checks what the chunker promises
 * in chunker.h, recomputing everything it can without the chunker's help:
 *
 *   - the chunks tile the file: the first starts at 0, each starts where
 *     the previous ended, the last ends at the file's length, none empty;
 *   - each chunk's size, line range and kind are consistent with its bytes
 *     and its span;
 *   - no chunk exceeds max_size unless it is an indivisible piece (one
 *     line holding at most one character: anything longer can be cut at a
 *     character boundary), and `oversized` counts exactly those over it;
 *   - every boundary is at a line start, at the start or end of a syntax
 *     node, or inside a line longer than max_size right after a full
 *     piece of exactly max_size characters;
 *   - the spans are well nested: inside the file and their parent, the
 *     parent is the innermost enclosing span, siblings are ordered and do
 *     not overlap, line ranges match the bytes, and each starts and ends
 *     on syntax node boundaries;
 *   - each chunk's span is the innermost span containing the chunk's
 *     text (whitespace around it aside), or, for a definition chunk, the
 *     definition it holds, a child of that innermost span.
 *
 * --edits N also makes N one-byte edits (an insertion, then a deletion,
 * in turn) spread over each parsed file, and checks that wherever
 * chunker_rerun answers for the edited text, its answer is
 * chunker_run's; it fails when no edit at all was answered.
 *
 * --every N checks only every Nth supported file in walk order, for a
 * deterministic sample. Prints a summary; exits 1 naming the first few
 * violations as path:byte, 2 on a usage or corpus error.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "chunker/chunker.h"

#define MAX_DEPTH 32	  /* directory levels followed (symlink loops) */
#define MAX_REPORTED 20	  /* violations printed in full */
#define MAX_PER_FILE 3	  /* violations printed for any one file */

typedef struct {
	Lang lang;	   /* forced by --lang; LANG_NONE: detect per file */
	uint32_t max_size; /* non-whitespace characters */
	uint32_t every;	   /* check every Nth supported file */
	uint32_t edits;	   /* one-byte edits per file for chunker_rerun */
} Options;

typedef struct {
	uint64_t files, bytes, chunks, spans, oversized, had_errors;
	uint64_t binary, unreadable, sampled_out, violations;
	uint64_t supported; /* files of a supported language, for --every */
	uint64_t reruns, refused; /* edits chunker_rerun answered, not */
} Stats;

/* One file under test, with tables recomputed independently. */
typedef struct {
	const char *path;
	const char *text;
	uint32_t len;
	uint32_t max_size;
	const Chunking *c;
	uint32_t *line_starts; /* byte offset of each line */
	uint32_t nlines;
	uint8_t *node_edge; /* [len + 1]: 1 where some node starts or ends;
			     * NULL for Markdown (no syntax tree) */
	uint32_t found;	    /* violations in this file */
	uint32_t reported;  /* of which printed */
	Stats *st;
} File;

/* ---------------------------------------------------------------------- *
 * Reporting
 * ---------------------------------------------------------------------- */

__attribute__((format(printf, 3, 4))) static void
violation(File *f, uint32_t byte, const char *fmt, ...)
{
	va_list ap;

	f->st->violations++;
	f->found++;
	if (f->st->violations > MAX_REPORTED || f->reported >= MAX_PER_FILE)
		return;
	f->reported++;
	fprintf(stderr, "%s:%u: ", f->path, byte);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---------------------------------------------------------------------- *
 * Independent tables: lines, sizes, node edges
 * ---------------------------------------------------------------------- */

static void lines_build(File *f)
{
	uint32_t i, cap = 64;

	f->line_starts = xmalloc(cap * sizeof(*f->line_starts));
	f->line_starts[0] = 0;
	f->nlines = 1;
	for (i = 0; i + 1 < f->len; i++) {
		if (f->text[i] != '\n')
			continue;
		if (f->nlines == cap) {
			cap *= 2;
			f->line_starts = xrealloc(
				f->line_starts, cap * sizeof(*f->line_starts));
		}
		f->line_starts[f->nlines++] = i + 1;
	}
}

/* 0-based line of byte off. */
static uint32_t line_at(const File *f, uint32_t off)
{
	uint32_t lo = 0, hi = f->nlines;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (f->line_starts[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static bool line_start(const File *f, uint32_t off)
{
	return off == 0 || f->text[off - 1] == '\n';
}

static bool space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

static bool lead(char c) { return ((unsigned char)c & 0xC0) != 0x80; }

/* Non-whitespace characters in [a, b), counted byte by byte. */
static uint32_t chars(const File *f, uint32_t a, uint32_t b)
{
	uint32_t n = 0;

	for (; a < b; a++)
		n += lead(f->text[a]) && !space(f->text[a]);
	return n;
}

/* Marks the start and end byte of every node, anonymous ones included. */
static void edges_build(File *f, const TSTree *tree)
{
	TSTreeCursor cur = ts_tree_cursor_new(ts_tree_root_node(tree));

	f->node_edge = xcalloc(f->len + 1, 1);
	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&cur);
		uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);

		f->node_edge[a < f->len ? a : f->len] = 1;
		f->node_edge[b < f->len ? b : f->len] = 1;
		if (ts_tree_cursor_goto_first_child(&cur))
			continue;
		while (!ts_tree_cursor_goto_next_sibling(&cur))
			if (!ts_tree_cursor_goto_parent(&cur))
				goto done;
	}
done:
	ts_tree_cursor_delete(&cur);
}

/* ---------------------------------------------------------------------- *
 * Chunk properties
 * ---------------------------------------------------------------------- */

static void check_tiling(File *f)
{
	const Chunking *c = f->c;
	uint32_t i, at = 0;

	if ((c->nchunks == 0) != (f->len == 0))
		violation(f, 0, "%u chunks for %u bytes", c->nchunks, f->len);
	for (i = 0; i < c->nchunks; i++) {
		ByteRange b = c->chunks[i].bytes;

		if (b.start != at) {
			violation(f, at, "chunk %u starts at %u, expected %u",
				  i, b.start, at);
			return;
		}
		if (b.end <= b.start || b.end > f->len) {
			violation(f, b.start, "chunk %u has bytes [%u, %u)",
				  i, b.start, b.end);
			return;
		}
		at = b.end;
	}
	if (c->nchunks && at != f->len)
		violation(f, at, "last chunk ends at %u of %u", at, f->len);
}

/* Over the limit is allowed only for what cannot be cut: one line with
 * at most one non-space character, which no max_size >= 1 exceeds. So in
 * practice this asserts that nothing is over the limit, and says why. */
static bool indivisible(const File *f, ByteRange b)
{
	const char *nl = memchr(f->text + b.start, '\n', b.end - b.start);

	if (nl && (uint32_t)(nl - f->text) + 1 < b.end)
		return false;
	return chars(f, b.start, b.end) <= 1;
}

static void check_sizes(File *f)
{
	const Chunking *c = f->c;
	uint32_t i, over = 0;

	for (i = 0; i < c->nchunks; i++) {
		const Chunk *k = &c->chunks[i];
		ByteRange b = k->bytes;
		uint32_t n = chars(f, b.start, b.end);

		if (k->size != n)
			violation(f, b.start, "chunk %u size %u, counted %u",
				  i, k->size, n);
		if (k->lines.start != line_at(f, b.start) ||
		    k->lines.end != line_at(f, b.end - 1))
			violation(f, b.start, "chunk %u lines %u-%u, bytes "
				  "say %u-%u", i, k->lines.start, k->lines.end,
				  line_at(f, b.start), line_at(f, b.end - 1));
		if (n <= f->max_size)
			continue;
		over++;
		if (!indivisible(f, b))
			violation(f, b.start, "chunk %u has %u characters "
				  "(max %u) and could be cut", i, n,
				  f->max_size);
	}
	if (over != c->oversized)
		violation(f, 0, "oversized says %u, counted %u", c->oversized,
			  over);
	f->st->oversized += over;
}

/* A cut inside a line is fair only when the line is too long for one
 * chunk and the chunk before the cut is a full max_size piece. */
static bool piece_cut(const File *f, uint32_t i)
{
	ByteRange prev = f->c->chunks[i - 1].bytes;
	uint32_t at = prev.end, l = line_at(f, at);
	uint32_t eol = l + 1 < f->nlines ? f->line_starts[l + 1] : f->len;

	return lead(f->text[at]) &&
	       chars(f, prev.start, prev.end) == f->max_size &&
	       chars(f, f->line_starts[l], eol) > f->max_size;
}

static void check_boundaries(File *f)
{
	uint32_t i;

	for (i = 1; i < f->c->nchunks; i++) {
		uint32_t at = f->c->chunks[i].bytes.start;

		if (at >= f->len || line_start(f, at))
			continue;
		if (f->node_edge && f->node_edge[at])
			continue;
		if (!piece_cut(f, i))
			violation(f, at, "chunk %u starts mid-line, on no "
				  "node boundary", i);
	}
}

/* ---------------------------------------------------------------------- *
 * Span properties
 * ---------------------------------------------------------------------- */

static bool inside(ByteRange in, ByteRange out)
{
	return out.start <= in.start && in.end <= out.end;
}

static void check_span(File *f, uint32_t i)
{
	const Span *s = &f->c->spans[i];

	if (s->bytes.start >= s->bytes.end || s->bytes.end > f->len) {
		violation(f, s->bytes.start, "span %u has bytes [%u, %u)", i,
			  s->bytes.start, s->bytes.end);
		return;
	}
	if (s->lines.start != line_at(f, s->bytes.start) ||
	    s->lines.end != line_at(f, s->bytes.end - 1))
		violation(f, s->bytes.start, "span %u lines %u-%u, bytes say "
			  "%u-%u", i, s->lines.start, s->lines.end,
			  line_at(f, s->bytes.start),
			  line_at(f, s->bytes.end - 1));
	if (f->node_edge && (!f->node_edge[s->bytes.start] ||
			     !f->node_edge[s->bytes.end]))
		violation(f, s->bytes.start, "span %u [%u, %u) is not "
			  "aligned to syntax nodes", i, s->bytes.start,
			  s->bytes.end);
	if (s->body_start < s->bytes.start || s->body_start > s->bytes.end)
		violation(f, s->bytes.start, "span %u body at %u, outside "
			  "[%u, %u)", i, s->body_start, s->bytes.start,
			  s->bytes.end);
	if ((unsigned)s->kind >= SPAN_KIND_COUNT || !s->name ||
	    !s->qualname || !s->header || !s->doc)
		violation(f, s->bytes.start, "span %u: bad kind or NULL "
			  "string", i);
	if ((s->kind == SPAN_SECTION) != (f->c->lang == LANG_MARKDOWN))
		violation(f, s->bytes.start, "span %u kind %s in %s", i,
			  span_kind_name(s->kind), lang_name(f->c->lang));
}

/*
 * Sweeps the spans in order with a stack of the open ones: the parent of
 * each span must be the top of the stack once spans ending at or before
 * its start are popped, and that top must contain it. Containment in the
 * innermost enclosing span plus this order gives well-nesting: siblings
 * cannot overlap, since the earlier one would still be open and enclose
 * the later one.
 */
static void check_spans(File *f)
{
	const Chunking *c = f->c;
	int32_t *stack = xmalloc((c->nspans + 1) * sizeof(*stack));
	uint32_t i, depth = 0;

	for (i = 0; i < c->nspans; i++) {
		const Span *s = &c->spans[i];
		int32_t want;

		check_span(f, i);
		if (i && s->bytes.start < c->spans[i - 1].bytes.start)
			violation(f, s->bytes.start, "span %u out of order",
				  i);
		while (depth && c->spans[stack[depth - 1]].bytes.end <=
					s->bytes.start)
			depth--;
		want = depth ? stack[depth - 1] : -1;
		if (want >= 0 && !inside(s->bytes, c->spans[want].bytes))
			violation(f, s->bytes.start, "span %u [%u, %u) "
				  "overlaps span %d [%u, %u)", i,
				  s->bytes.start, s->bytes.end, want,
				  c->spans[want].bytes.start,
				  c->spans[want].bytes.end);
		else if (s->parent != want)
			violation(f, s->bytes.start, "span %u has parent %d, "
				  "innermost enclosing is %d", i, s->parent,
				  want);
		stack[depth++] = (int32_t)i;
	}
	xfree(stack);
}

/* The deepest span containing [a, b), or -1. Relies on the nesting that
 * check_spans verified: every span containing a position at or after the
 * last span start <= a is an ancestor of that last span. */
static int32_t innermost(const Chunking *c, uint32_t a, uint32_t b)
{
	uint32_t lo = 0, hi = c->nspans;
	int32_t s;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->spans[mid].bytes.start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (s = (int32_t)lo - 1; s >= 0; s = c->spans[s].parent)
		if (inside((ByteRange){a, b}, c->spans[s].bytes))
			return s;
	return -1;
}

/* The kind must agree with the span the chunk was given. */
static bool kind_fits(const Chunking *c, const Chunk *k)
{
	SpanKind sk = k->span >= 0 ? c->spans[k->span].kind : SPAN_KIND_COUNT;

	if (c->lang == LANG_MARKDOWN)
		return k->kind == CHUNK_SECTION;
	switch (k->kind) {
	case CHUNK_DEFINITION:
		return k->span >= 0;
	case CHUNK_DEFINITIONS:
		return true;
	case CHUNK_FUNCTION_PART:
		return sk == SPAN_FUNCTION || sk == SPAN_METHOD;
	case CHUNK_CLASS_PART:
		return k->span >= 0 && sk != SPAN_FUNCTION &&
		       sk != SPAN_METHOD;
	case CHUNK_STATEMENTS:
	case CHUNK_IMPORTS:
		return k->span < 0;
	default:
		return false;
	}
}

static void check_chunk_spans(File *f)
{
	const Chunking *c = f->c;
	uint32_t i;

	for (i = 0; i < c->nchunks; i++) {
		const Chunk *k = &c->chunks[i];
		uint32_t a = k->bytes.start, b = k->bytes.end;
		int32_t want;

		while (a < b && space(f->text[a]))
			a++;
		while (b > a && space(f->text[b - 1]))
			b--;
		if (!kind_fits(c, k))
			violation(f, k->bytes.start, "chunk %u kind %s with "
				  "span %d", i, chunk_kind_name(k->kind),
				  k->span);
		if (a == b || k->span >= (int32_t)c->nspans)
			continue;
		want = innermost(c, a, b);
		if (k->span == want)
			continue;
		/* A definition chunk names the one definition it holds
		 * (compared with whitespace trimmed on both sides: a grammar
		 * may end a definition node after a trailing newline). */
		if (k->kind == CHUNK_DEFINITION && k->span >= 0 &&
		    c->spans[k->span].parent == want) {
			ByteRange d = c->spans[k->span].bytes;

			while (d.end > d.start && space(f->text[d.end - 1]))
				d.end--;
			if (inside(d, (ByteRange){a, b}))
				continue;
		}
		violation(f, a, "chunk %u [%u, %u) has span %d, innermost "
			  "is %d", i, k->bytes.start, k->bytes.end, k->span,
			  want);
	}
}

/* ---------------------------------------------------------------------- *
 * Edits: chunker_rerun against chunker_run
 * ---------------------------------------------------------------------- */

static TSPoint point_at(const File *f, uint32_t off)
{
	uint32_t line = line_at(f, off);

	return (TSPoint){line, off - f->line_starts[line]};
}

/* Edit k of n over f: an insertion of one byte, or a deletion of one,
 * at an ASCII byte (not a line end) near k/n of the way in; its text in
 * out. False when there is no such byte. */
static bool make_edit(const File *f, uint32_t k, uint32_t n, Buf *out,
		      TSInputEdit *e)
{
	uint32_t at = (uint32_t)((uint64_t)f->len * (k + 1) / (n + 1));
	bool del = k % 2;

	while (at < f->len && (f->text[at] == '\n' || !lead(f->text[at]) ||
			       (unsigned char)f->text[at] >= 0x80))
		at++;
	if (at >= f->len)
		return false;
	memset(e, 0, sizeof(*e));
	e->start_byte = e->old_end_byte = e->new_end_byte = at;
	e->start_point = e->old_end_point = e->new_end_point =
	    point_at(f, at);
	out->len = 0;
	buf_append(out, f->text, at);
	if (del) {
		e->old_end_byte++;
		e->old_end_point.column++;
		buf_append(out, f->text + at + 1, f->len - at - 1);
	} else {
		buf_append(out, "x", 1);
		buf_append(out, f->text + at, f->len - at);
		e->new_end_byte++;
		e->new_end_point.column++;
	}
	return true;
}

static void check_edits(Chunker *ch, File *f, const TSTree *tree, Lang lang,
			uint32_t n)
{
	Buf text = {0};

	for (uint32_t k = 0; k < n; k++) {
		TSInputEdit e;
		Chunking carried, fast, fresh;
		TSTree *old, *now;
		uint32_t len;

		if (!make_edit(f, k, n, &text, &e))
			continue;
		len = (uint32_t)text.len;
		chunking_copy(f->c, &carried);
		if (chunking_edit(&carried, &e, 1, text.data, len)) {
			chunking_close(&carried);
			f->st->refused++;
			continue;
		}
		old = ts_tree_copy(tree);
		ts_tree_edit(old, &e);
		now = chunker_parse(ch, lang, text.data, len, old);
		if (chunker_rerun(ch, lang, text.data, len, now, old, &e,
				  &carried, &fast)) {
			f->st->refused++;
		} else {
			f->st->reruns++;
			if (chunker_run(ch, lang, text.data, len, now,
					&fresh)) {
				violation(f, e.start_byte,
					  "chunker_run failed after an edit");
			} else {
				if (!chunking_equal(&fast, &fresh))
					violation(f, e.start_byte,
						  "chunker_rerun differs from "
						  "chunker_run after a %s",
						  k % 2 ? "deletion"
							: "insertion");
				chunking_close(&fresh);
			}
			chunking_close(&fast);
		}
		chunking_close(&carried);
		ts_tree_delete(old);
		ts_tree_delete(now);
	}
	buf_free(&text);
}

/* ---------------------------------------------------------------------- *
 * One file
 * ---------------------------------------------------------------------- */

static void check_file(Chunker *ch, Stats *st, const char *path,
		       const char *text, uint32_t len, Lang lang,
		       uint32_t edits)
{
	File f = {.path = path, .text = text, .len = len, .st = st,
		  .max_size = chunker_max_size(ch)};
	TSTree *tree = chunker_parse(ch, lang, text, len, NULL);
	Chunking c;
	int err = chunker_run(ch, lang, text, len, tree, &c);

	if (err == CASTLS_EBINARY) {
		st->binary++;
		goto out;
	}
	if (err) {
		violation(&f, 0, "chunker_run: %s", castls_strerror(err));
		goto out;
	}
	f.c = &c;
	st->files++;
	st->bytes += len;
	st->chunks += c.nchunks;
	st->spans += c.nspans;
	st->had_errors += c.had_errors;
	if (c.lang != lang)
		violation(&f, 0, "result says %s", lang_name(c.lang));
	if (tree && c.had_errors != ts_node_has_error(ts_tree_root_node(tree)))
		violation(&f, 0, "had_errors disagrees with the tree");
	lines_build(&f);
	if (tree)
		edges_build(&f, tree);
	check_tiling(&f);
	check_sizes(&f);
	check_spans(&f);
	if (f.found == 0) { /* the rest assumes sound tiling and nesting */
		check_boundaries(&f);
		check_chunk_spans(&f);
	}
	if (f.found == 0 && tree && edits)
		check_edits(ch, &f, tree, lang, edits);
	xfree(f.line_starts);
	xfree(f.node_edge);
	chunking_close(&c);
out:
	if (tree)
		ts_tree_delete(tree);
}

static bool has_extension(const char *path)
{
	const char *base = strrchr(path, '/');
	const char *dot;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	return dot && dot != base;
}

static void visit_file(Chunker *ch, const Options *opt, Stats *st,
		       const char *path)
{
	Lang lang = opt->lang ? opt->lang : lang_detect(path, NULL, 0);
	char *text = NULL;
	size_t len = 0;
	int err;

	/* Known extensions decide without reading; files with none may
	 * still be shell scripts by their shebang. */
	if (!lang && has_extension(path))
		return;
	err = castls_read_file(path, CHUNKER_MAX_INPUT, &text, &len);
	if (err) {
		st->unreadable++;
		return;
	}
	if (!lang)
		lang = lang_detect(path, text, len);
	if (lang && st->supported++ % opt->every == 0)
		check_file(ch, st, path, text, (uint32_t)len, lang,
			   opt->edits);
	else if (lang)
		st->sampled_out++;
	xfree(text);
}

/* ---------------------------------------------------------------------- *
 * The walk
 * ---------------------------------------------------------------------- */

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names in dir except . and .., sorted; NULL if it cannot be read. */
static char **list_dir(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t cap = 0;

	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 32;
			names = xrealloc(names, cap * sizeof(*names));
		}
		names[(*n)++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (*n)
		qsort(names, *n, sizeof(*names), by_name);
	return names;
}

static void walk(Chunker *ch, const Options *opt, Stats *st, const char *dir,
		 int depth)
{
	size_t i, n;
	char **names = list_dir(dir, &n);
	Buf path = {0};

	for (i = 0; i < n; i++) {
		struct stat sb;

		path.len = 0;
		buf_printf(&path, "%s/%s", dir, names[i]);
		if (stat(path.data, &sb) < 0)
			st->unreadable++; /* a dangling link */
		else if (S_ISDIR(sb.st_mode) && depth < MAX_DEPTH)
			walk(ch, opt, st, path.data, depth + 1);
		else if (S_ISREG(sb.st_mode))
			visit_file(ch, opt, st, path.data);
		xfree(names[i]);
	}
	xfree(names);
	buf_free(&path);
}

/* ---------------------------------------------------------------------- *
 * Main
 * ---------------------------------------------------------------------- */

static int usage(void)
{
	fprintf(stderr, "usage: proptest_chunker [--lang NAME] "
			"[--max-size N] [--every N] [--edits N] DIR...\n");
	return 2;
}

static bool parse_count(const char *s, uint32_t *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v == 0 || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* Options come first; returns the index of the first DIR or -1. */
static int parse_args(int argc, char **argv, Options *opt)
{
	int i;

	for (i = 1; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
		const char *name = argv[i], *v = argv[i + 1];
		bool ok = false;

		if (!strcmp(name, "--lang"))
			ok = (opt->lang = lang_from_name(v)) != LANG_NONE;
		else if (!strcmp(name, "--max-size"))
			ok = parse_count(v, &opt->max_size);
		else if (!strcmp(name, "--every"))
			ok = parse_count(v, &opt->every);
		else if (!strcmp(name, "--edits"))
			ok = parse_count(v, &opt->edits);
		if (!ok)
			return -1;
	}
	return i < argc ? i : -1;
}

int main(int argc, char **argv)
{
	Options opt = {LANG_NONE, CHUNKER_DEFAULT_MAX_SIZE, 1, 0};
	Stats st = {0};
	Chunker *ch;
	int first = parse_args(argc, argv, &opt), i;
	clock_t t0 = clock();

	if (first < 0)
		return usage();
	for (i = first; i < argc; i++) {
		struct stat sb;

		if (stat(argv[i], &sb) < 0 || !S_ISDIR(sb.st_mode)) {
			fprintf(stderr, "proptest_chunker: %s: no such corpus "
				"directory; run tests/corpus/fetch "
				"build/corpus (make test does)\n", argv[i]);
			return 2;
		}
	}
	castls_init_allocators();
	ch = chunker_new(opt.max_size);
	for (i = first; i < argc; i++)
		walk(ch, &opt, &st, argv[i], 0);
	chunker_delete(ch);
	printf("%s, max_size %u: %llu files, %llu bytes, %llu chunks, "
	       "%llu spans, %llu oversized, %llu with syntax errors, "
	       "%llu binary skipped, %llu sampled out, %llu unreadable; "
	       "%.1fs\n", opt.lang ? lang_name(opt.lang) : "detected",
	       opt.max_size,
	       (unsigned long long)st.files, (unsigned long long)st.bytes,
	       (unsigned long long)st.chunks, (unsigned long long)st.spans,
	       (unsigned long long)st.oversized,
	       (unsigned long long)st.had_errors,
	       (unsigned long long)st.binary,
	       (unsigned long long)st.sampled_out,
	       (unsigned long long)st.unreadable,
	       (double)(clock() - t0) / CLOCKS_PER_SEC);
	if (opt.edits)
		printf("edits: %llu answered by chunker_rerun, %llu not\n",
		       (unsigned long long)st.reruns,
		       (unsigned long long)st.refused);
	if (st.files == 0) {
		fprintf(stderr, "proptest_chunker: no file checked\n");
		return 1;
	}
	if (opt.edits && st.reruns == 0) {
		fprintf(stderr, "proptest_chunker: no edit was answered by "
				"chunker_rerun\n");
		return 1;
	}
	if (st.violations) {
		fprintf(stderr, "proptest_chunker: %llu violations\n",
			(unsigned long long)st.violations);
		return 1;
	}
	return 0;
}
