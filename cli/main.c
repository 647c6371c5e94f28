/*
 * main.c: the castls command line. With no subcommand (or `serve`) castls
 * is a language server on stdio; the other subcommands are tools over the
 * same modules.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>
#include <unistd.h>

#include "cli_int.h"
#include "lsp/server.h"

/* Each command's usage; `castls --help` prints them all. */
#define USAGE_SERVE "usage: castls [serve] [--db PATH]\n"
#define USAGE_CHUNK \
	"usage: castls chunk FILE... [--max-size N] [--format json|text]\n"
#define USAGE_SPANS "usage: castls spans FILE... [--format json|text]\n"
#define USAGE_INDEX                                                     \
	"usage: castls index [ROOT] [--db PATH] [--jobs N] [--quiet]\n" \
	"                    [--max-file-size BYTES] [--exclude PATTERN]\n"
#define USAGE_SEARCH \
	"usage: castls search [ROOT] QUERY [--limit N] [--format json|text]\n"
#define USAGE_STATUS \
	"usage: castls status [ROOT] [--db PATH] [--format json|text]\n"
#define USAGE_CONTEXT                                                    \
	"usage: castls context [--root DIR] FILE:LINE[:COL] [--budget "  \
	"TOKENS]\n"                                                      \
	"                      [--limit N] [--format json|text|prompt] " \
	"[--stdin]\n"
#define USAGE_MCP                                                    \
	"usage: castls mcp [ROOT...] [--db PATH] [--budget TOKENS] " \
	"[--quiet]\n"                                                \
	"                  [--max-size N] [--max-file-size BYTES]\n" \
	"                  [--exclude PATTERN]\n"

static const char *usage_all(void)
{
	return USAGE_SERVE USAGE_CONTEXT USAGE_MCP USAGE_INDEX USAGE_SEARCH
	    USAGE_STATUS USAGE_CHUNK USAGE_SPANS
	    "       castls --version | --help | COMMAND --help\n";
}

int cli_usage_error(const char *what)
{
	fprintf(stderr, "castls: %s\n%s", what, usage_all());
	return 2;
}

/* A whole number in [lo, hi], or -1. */
long long cli_number(const char *s, long long lo, long long hi)
{
	char *end;
	long long v = strtoll(s, &end, 10);

	return *s && !*end && v >= lo && v <= hi ? v : -1;
}

int cli_parse_opts(int argc, char **argv, Opts *o, bool json_default)
{
	memset(o, 0, sizeof(*o));
	o->args = xcalloc((size_t)argc + 1, sizeof(*o->args));
	o->json = json_default;
	o->limit = 10;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		long long n = 0;

		if (a[0] != '-' || !a[1]) {
			o->args[o->nargs++] = a;
			continue;
		}
		if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
			o->quiet = true;
			continue;
		}
		if (!v)
			return cli_usage_error("an option lacks its value");
		i++;
		if (strcmp(a, "--format") == 0) {
			if (strcmp(v, "json") && strcmp(v, "text"))
				return cli_usage_error(
				    "--format is json or text");
			o->json = strcmp(v, "json") == 0;
		} else if (strcmp(a, "--db") == 0) {
			o->db = v;
		} else if (strcmp(a, "--root") == 0) {
			o->root = v;
		} else if (strcmp(a, "--budget") == 0 &&
			   (n = cli_number(v, 1, 1000000)) > 0) {
			o->budget = (uint32_t)n;
		} else if (strcmp(a, "--exclude") == 0) {
			buf_printf(&o->exclude, "%s\n", v);
		} else if (strcmp(a, "--max-size") == 0 &&
			   (n = cli_number(v, 1, 1000000)) > 0) {
			o->max_size = (uint32_t)n;
		} else if (strcmp(a, "--max-file-size") == 0 &&
			   (n = cli_number(v, 1, CHUNKER_MAX_INPUT)) > 0) {
			o->max_file_size = (uint64_t)n;
		} else if (strcmp(a, "--limit") == 0 &&
			   (n = cli_number(v, 1, INDEX_SEARCH_MAX)) > 0) {
			o->limit = o->nlimit = (uint32_t)n;
		} else if (strcmp(a, "--jobs") == 0 &&
			   (n = cli_number(v, 1, INDEX_MAX_JOBS)) > 0) {
			o->jobs = (int)n;
		} else {
			fprintf(stderr, "castls: bad option or value: %s %s\n",
				a, v);
			return 2;
		}
	}
	return 0;
}

void cli_opts_free(Opts *o)
{
	xfree(o->args);
	buf_free(&o->exclude);
}

/* Reads and chunks one file; prints a one-line reason and returns 1 when
 * the file cannot be chunked. */
static int load(Chunker *ch, const char *path, char **text, size_t *len,
		Chunking *c)
{
	int err = castls_read_file(path, CHUNKER_MAX_INPUT, text, len);
	Lang lang;

	if (err) {
		fprintf(stderr, "castls: %s: %s\n", path, castls_strerror(err));
		return 1;
	}
	lang = lang_detect(path, *text, *len);
	err = chunker_run(ch, lang, *text, (uint32_t)*len, NULL, c);
	if (err) {
		fprintf(stderr, "castls: %s: skipped: %s\n", path,
			castls_strerror(err));
		xfree(*text);
		return 1;
	}
	return 0;
}

/* The names on the span path of span s, outermost first, as JSON strings
 * separated by commas. */
static void json_span_names(Buf *b, const Chunking *c, int32_t s)
{
	int32_t path[64];
	int depth = 0;

	for (; s >= 0 && depth < 64; s = c->spans[s].parent)
		path[depth++] = s;
	while (depth-- > 0) {
		const char *name = c->spans[path[depth]].name;

		buf_json_string(b, name, strlen(name));
		if (depth)
			buf_puts(b, ",");
	}
}

static void print_chunk(Buf *b, const char *path, const char *text,
			const Chunking *c, const Chunk *k, bool json)
{
	const char *t = text + k->bytes.start;
	size_t n = k->bytes.end - k->bytes.start;

	if (!json) {
		buf_printf(b, "--- %s:%u-%u %s ", path, k->lines.start + 1,
			   k->lines.end + 1, chunk_kind_name(k->kind));
		chunking_span_path(c, k->span, " > ", b);
		buf_printf(b, " (%u chars)\n", k->size);
		buf_append(b, t, n);
		if (n && t[n - 1] != '\n')
			buf_puts(b, "\n");
		return;
	}
	buf_puts(b, "{\"path\":");
	buf_json_string(b, path, strlen(path));
	buf_printf(b,
		   ",\"language\":\"%s\",\"start_byte\":%u,\"end_byte\":%u,"
		   "\"start_line\":%u,\"end_line\":%u,\"kind\":\"%s\","
		   "\"span_path\":[",
		   lang_name(c->lang), k->bytes.start, k->bytes.end,
		   k->lines.start, k->lines.end, chunk_kind_name(k->kind));
	json_span_names(b, c, k->span);
	buf_printf(b, "],\"size\":%u,\"text\":", k->size);
	buf_json_string(b, t, n);
	buf_puts(b, "}\n");
}

static void print_span(Buf *b, const char *path, const Chunking *c, int32_t i,
		       bool json)
{
	const Span *s = &c->spans[i];
	int depth = 0;

	for (int32_t p = s->parent; p >= 0; p = c->spans[p].parent)
		depth++;
	if (!json) {
		buf_printf(b, "%*s%s %s  %u-%u\n", depth * 2, "",
			   span_kind_name(s->kind), s->name, s->lines.start + 1,
			   s->lines.end + 1);
		return;
	}
	buf_puts(b, "{\"path\":");
	buf_json_string(b, path, strlen(path));
	buf_printf(b,
		   ",\"id\":%d,\"parent\":%d,\"depth\":%d,\"kind\":\"%s\","
		   "\"name\":",
		   i, s->parent, depth, span_kind_name(s->kind));
	buf_json_string(b, s->name, strlen(s->name));
	buf_puts(b, ",\"qualname\":");
	buf_json_string(b, s->qualname, strlen(s->qualname));
	buf_printf(b,
		   ",\"start_byte\":%u,\"end_byte\":%u,\"start_line\":%u,"
		   "\"end_line\":%u,\"header\":",
		   s->bytes.start, s->bytes.end, s->lines.start, s->lines.end);
	buf_json_string(b, s->header, strlen(s->header));
	buf_puts(b, ",\"doc\":");
	buf_json_string(b, s->doc, strlen(s->doc));
	buf_puts(b, "}\n");
}

/* Prints what one chunked file shows: its chunks or its spans. */
typedef void (*FilePrinter)(Buf *b, const char *path, const char *text,
			    const Chunking *c, bool json);

static void print_chunks(Buf *b, const char *path, const char *text,
			 const Chunking *c, bool json)
{
	for (uint32_t k = 0; k < c->nchunks; k++)
		print_chunk(b, path, text, c, &c->chunks[k], json);
}

static void print_spans(Buf *b, const char *path, const char *text,
			const Chunking *c, bool json)
{
	(void)text;
	for (uint32_t k = 0; k < c->nspans; k++)
		print_span(b, path, c, (int32_t)k, json);
}

/* chunk and spans: chunk each FILE and print it; a file that cannot be
 * chunked is named on stderr and makes the exit code 1. */
static int chunk_files(int argc, char **argv, bool json_default,
		       FilePrinter print)
{
	Opts a;
	Chunker *ch;
	int i, failed = 0, err = cli_parse_opts(argc, argv, &a, json_default);

	if (!err && !a.nargs)
		err = cli_usage_error("no FILE given");
	if (err) {
		cli_opts_free(&a);
		return err;
	}
	ch = chunker_new(a.max_size);
	for (i = 0; i < a.nargs; i++) {
		Chunking c;
		char *text;
		size_t len;
		Buf b = {0};

		if (load(ch, a.args[i], &text, &len, &c)) {
			failed = 1;
			continue;
		}
		print(&b, a.args[i], text, &c, a.json);
		if (b.len)
			fwrite(b.data, 1, b.len, stdout);
		buf_free(&b);
		chunking_close(&c);
		xfree(text);
	}
	chunker_delete(ch);
	cli_opts_free(&a);
	return failed;
}

static int cmd_chunk(int argc, char **argv)
{
	return chunk_files(argc, argv, true, print_chunks);
}

static int cmd_spans(int argc, char **argv)
{
	return chunk_files(argc, argv, false, print_spans);
}

/* ---------------------------------------------------------------------- *
 * index, search, status
 * ---------------------------------------------------------------------- */

/* Opens the index of ROOT (args[0] when given, else "."); prints the
 * reason and returns non-zero on failure. */
int cli_open_index(const Opts *o, const char *root, Index **ix, bool scan)
{
	IndexOptions io = {0};
	int err;

	io.root = root;
	io.db_path = o->db;
	io.max_chunk_size = o->max_size;
	io.max_file_size = o->max_file_size;
	io.exclude = o->exclude.len ? o->exclude.data : NULL;
	io.quiet = o->quiet;
	/* A scan checks the file first and has the database to itself;
	 * search and status only read, and can do so where it cannot be
	 * written. */
	io.verify = scan;
	io.alone = scan;
	io.reader = !scan;
	err = index_open(&io, ix);
	if (!err)
		return 0;
	if (err == CASTLS_ENOENT) {
		fprintf(stderr, "castls: %s: no such directory\n", root);
	} else {
		char real[PATH_MAX];
		Buf db = {0};

		if (o->db)
			buf_puts(&db, o->db);
		else if (realpath(root, real))
			index_default_db_path(real, &db);
		fprintf(stderr, "castls: %s: %s\n", db.data ? db.data : root,
			castls_strerror(err));
		buf_free(&db);
	}
	return 1;
}

typedef struct {
	int64_t start_ms;
	bool tty;
} Progress;

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void show_progress(void *ctx, const ScanStats *s)
{
	Progress *p = ctx;
	double secs = (double)(mono_ms() - p->start_ms) / 1000.0;

	if (!p->tty)
		return;
	fprintf(stderr, "\r\033[Kindexing: %u/%u files, %.1f MB/s", s->done,
		s->seen, secs > 0 ? (double)s->bytes / 1e6 / secs : 0.0);
}

static int cmd_index(int argc, char **argv)
{
	Opts o;
	Index *ix = NULL;
	ScanStats st;
	Progress p;
	int err = cli_parse_opts(argc, argv, &o, false);
	const char *root;

	if (err || o.nargs > 1) {
		cli_opts_free(&o);
		return err ? err : cli_usage_error("one ROOT at most");
	}
	root = o.nargs ? o.args[0] : ".";
	if (cli_open_index(&o, root, &ix, true)) {
		cli_opts_free(&o);
		return 1;
	}
	p.start_ms = mono_ms();
	p.tty = !o.quiet && isatty(2);
	err = index_scan(ix, o.jobs, show_progress, &p, NULL, &st);
	if (p.tty)
		fputs("\r\033[K", stderr);
	if (err)
		fprintf(stderr, "castls: indexing %s into %s: %s\n", root,
			index_db_path(ix), castls_strerror(err));
	else if (!o.quiet)
		fprintf(stderr,
			"castls: %u files: %u indexed, %u unchanged, "
			"%u skipped (%u generated), %u removed (%.2f s)\n",
			st.seen, st.indexed, st.unchanged, st.skipped,
			st.generated, st.removed,
			(double)(mono_ms() - p.start_ms) / 1000.0);
	index_close(ix);
	cli_opts_free(&o);
	return err ? 1 : 0;
}

static void print_hit(Buf *b, const IndexHit *h, bool json)
{
	if (!json) {
		buf_printf(b, "--- %s:%u-%u %s %s (%.2f)\n", h->path,
			   h->lines.start + 1, h->lines.end + 1,
			   chunk_kind_name(h->kind), h->names, h->score);
		buf_puts(b, h->text);
		if (h->text[0] && h->text[strlen(h->text) - 1] != '\n')
			buf_puts(b, "\n");
		return;
	}
	buf_puts(b, "{\"path\":");
	buf_json_string(b, h->path, strlen(h->path));
	buf_printf(b,
		   ",\"language\":\"%s\",\"kind\":\"%s\",\"start_line\":%u,"
		   "\"end_line\":%u,\"score\":%.4f,\"names\":",
		   lang_name(h->lang), chunk_kind_name(h->kind), h->lines.start,
		   h->lines.end, h->score);
	buf_json_string(b, h->names, strlen(h->names));
	buf_puts(b, ",\"text\":");
	buf_json_string(b, h->text, strlen(h->text));
	buf_puts(b, "}\n");
}

static int cmd_search(int argc, char **argv)
{
	Opts o;
	Index *ix = NULL;
	IndexHit *hits;
	uint32_t n;
	Buf b = {0};
	int err = cli_parse_opts(argc, argv, &o, false);
	const char *root, *query;

	if (!err && (o.nargs < 1 || o.nargs > 2))
		err = cli_usage_error("search takes [ROOT] QUERY");
	if (err ||
	    cli_open_index(&o, o.nargs == 2 ? o.args[0] : ".", &ix, false)) {
		cli_opts_free(&o);
		return err ? err : 1;
	}
	root = o.nargs == 2 ? o.args[0] : ".";
	query = o.args[o.nargs - 1];
	err = index_search(ix, query, strlen(query), o.limit, &hits, &n);
	if (err) {
		fprintf(stderr, "castls: searching %s: %s (%s)\n", root,
			castls_strerror(err), index_errmsg(ix));
	} else {
		for (uint32_t i = 0; i < n; i++)
			print_hit(&b, &hits[i], o.json);
		if (b.len)
			fwrite(b.data, 1, b.len, stdout);
		index_hits_free(hits, n);
	}
	buf_free(&b);
	index_close(ix);
	cli_opts_free(&o);
	return err ? 1 : 0;
}

static int cmd_status(int argc, char **argv)
{
	Opts o;
	Index *ix = NULL;
	IndexStatus st;
	Buf b = {0};
	int err = cli_parse_opts(argc, argv, &o, false);

	if (!err && o.nargs > 1)
		err = cli_usage_error("one ROOT at most");
	if (err || cli_open_index(&o, o.nargs ? o.args[0] : ".", &ix, false)) {
		cli_opts_free(&o);
		return err ? err : 1;
	}
	if ((err = index_status(ix, &st))) {
		fprintf(stderr, "castls: %s: %s\n", index_db_path(ix),
			castls_strerror(err));
	} else if (o.json) {
		buf_printf(&b, "{\"root\":");
		buf_json_string(&b, index_root(ix), strlen(index_root(ix)));
		buf_puts(&b, ",\"database\":");
		buf_json_string(&b, index_db_path(ix),
				strlen(index_db_path(ix)));
		buf_printf(&b,
			   ",\"files\":%u,\"spans\":%u,\"chunks\":%u,"
			   "\"sourceBytes\":%llu,\"databaseBytes\":%llu,"
			   "\"lastIndexed\":%lld}\n",
			   st.files, st.spans, st.chunks,
			   (unsigned long long)st.source_bytes,
			   (unsigned long long)st.db_bytes,
			   (long long)st.last_indexed);
	} else {
		buf_printf(&b, "root      %s\ndatabase  %s (%.1f MB)\n",
			   index_root(ix), index_db_path(ix),
			   (double)st.db_bytes / 1e6);
		buf_printf(&b,
			   "files     %u (%.1f MB)\nspans     %u\n"
			   "chunks    %u\n",
			   st.files, (double)st.source_bytes / 1e6, st.spans,
			   st.chunks);
		for (int l = 1; l < LANG_COUNT; l++)
			if (st.files_by_lang[l])
				buf_printf(&b, "  %-11s %6u files %7u chunks\n",
					   lang_name((Lang)l),
					   st.files_by_lang[l],
					   st.chunks_by_lang[l]);
		for (int k = 0; k < CHUNK_KIND_COUNT; k++)
			if (st.chunks_by_kind[k])
				buf_printf(&b, "  chunks %-14s %7u\n",
					   chunk_kind_name((ChunkKind)k),
					   st.chunks_by_kind[k]);
		for (int k = 0; k < SPAN_KIND_COUNT; k++)
			if (st.spans_by_kind[k])
				buf_printf(&b, "  spans  %-14s %7u\n",
					   span_kind_name((SpanKind)k),
					   st.spans_by_kind[k]);
		if (st.last_indexed) {
			time_t t = (time_t)st.last_indexed;
			char when[64];

			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S",
				 localtime(&t));
			buf_printf(&b, "indexed   %s\n", when);
		} else {
			buf_puts(&b, "indexed   never\n");
		}
	}
	if (b.len)
		fwrite(b.data, 1, b.len, stdout);
	buf_free(&b);
	index_close(ix);
	cli_opts_free(&o);
	return err ? 1 : 0;
}

static int cmd_serve(int argc, char **argv)
{
	ServerOptions so = {0, 1, NULL};

	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--db") == 0 && i + 1 < argc)
			so.db_path = argv[++i];
		else if (strcmp(argv[i], "--stdio") != 0)
			return cli_usage_error("serve takes --db PATH only");
	}
	return server_run(&so);
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *usage;
} commands[] = {
    {"serve", cmd_serve, USAGE_SERVE},
    {"context", cli_context, USAGE_CONTEXT},
    {"mcp", cli_mcp, USAGE_MCP},
    {"chunk", cmd_chunk, USAGE_CHUNK},
    {"spans", cmd_spans, USAGE_SPANS},
    {"index", cmd_index, USAGE_INDEX},
    {"search", cmd_search, USAGE_SEARCH},
    {"status", cmd_status, USAGE_STATUS},
};

static bool is_help(const char *a)
{
	return strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0;
}

/* The language server on a terminal waits for LSP messages that nobody
 * will type: say what it is before waiting. */
static void hint_if_terminal(void)
{
	if (isatty(0))
		fputs("castls: a language server, waiting for LSP messages on "
		      "standard input; `castls --help` lists the commands\n",
		      stderr);
}

int main(int argc, char **argv)
{
	size_t i;

	castls_malloc_init();
	castls_init_allocators();
	if (argc > 1 && is_help(argv[1])) {
		fputs(usage_all(), stdout);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "--version") == 0) {
		printf("castls %s\n", CASTLS_VERSION);
		return 0;
	}
	for (i = 0; argc > 1 && i < sizeof(commands) / sizeof(*commands); i++)
		if (strcmp(argv[1], commands[i].name) == 0) {
			for (int k = 2; k < argc; k++)
				if (is_help(argv[k])) {
					fputs(commands[i].usage, stdout);
					return 0;
				}
			if (commands[i].run == cmd_serve)
				hint_if_terminal();
			return commands[i].run(argc - 2, argv + 2);
		}
	if (argc > 1 && argv[1][0] != '-')
		return cli_usage_error("unknown command");
	hint_if_terminal();
	return cmd_serve(argc - 1, argv + 1);
}
