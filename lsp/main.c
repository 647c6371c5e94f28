/*
 * main.c: the castls command line. With no subcommand (or `serve`) castls
 * is a language server on stdio; the other subcommands are tools over the
 * same modules.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunker/chunker.h"

#define USAGE                                                              \
	"usage: castls [serve]\n"                                          \
	"       castls chunk FILE... [--max-size N] [--format json|text]\n" \
	"       castls spans FILE... [--format json|text]\n"

typedef struct {
	const char **files;
	int nfiles;
	uint32_t max_size;
	bool json;
} ChunkArgs;

static int usage_error(const char *what)
{
	fprintf(stderr, "castls: %s\n%s", what, USAGE);
	return 2;
}

static int parse_chunk_args(int argc, char **argv, ChunkArgs *a)
{
	int i;

	a->files = xcalloc((size_t)argc, sizeof(*a->files));
	a->json = true;
	for (i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--max-size") == 0 && i + 1 < argc) {
			char *end;
			long v = strtol(argv[++i], &end, 10);

			if (*end || v < 1 || v > 1000000)
				return usage_error("--max-size takes 1..1000000");
			a->max_size = (uint32_t)v;
		} else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
			i++;
			if (strcmp(argv[i], "json") && strcmp(argv[i], "text"))
				return usage_error("--format is json or text");
			a->json = strcmp(argv[i], "json") == 0;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return usage_error("unknown option");
		} else {
			a->files[a->nfiles++] = argv[i];
		}
	}
	return a->nfiles ? 0 : usage_error("no FILE given");
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
	buf_printf(b, ",\"language\":\"%s\",\"start_byte\":%u,\"end_byte\":%u,"
		      "\"start_line\":%u,\"end_line\":%u,\"kind\":\"%s\","
		      "\"span_path\":[",
		   lang_name(c->lang), k->bytes.start, k->bytes.end,
		   k->lines.start, k->lines.end, chunk_kind_name(k->kind));
	json_span_names(b, c, k->span);
	buf_printf(b, "],\"size\":%u,\"text\":", k->size);
	buf_json_string(b, t, n);
	buf_puts(b, "}\n");
}

static int cmd_chunk(int argc, char **argv)
{
	ChunkArgs a = {0};
	Chunker *ch;
	int i, failed = 0, err = parse_chunk_args(argc, argv, &a);

	if (err) {
		xfree(a.files);
		return err;
	}
	ch = chunker_new(a.max_size);
	for (i = 0; i < a.nfiles; i++) {
		Chunking c;
		char *text;
		size_t len;
		Buf b = {0};
		uint32_t k;

		if (load(ch, a.files[i], &text, &len, &c)) {
			failed = 1;
			continue;
		}
		for (k = 0; k < c.nchunks; k++)
			print_chunk(&b, a.files[i], text, &c, &c.chunks[k],
				    a.json);
		fwrite(b.data, 1, b.len, stdout);
		buf_free(&b);
		chunking_close(&c);
		xfree(text);
	}
	chunker_delete(ch);
	xfree(a.files);
	return failed;
}

static void print_span(Buf *b, const char *path, const Chunking *c,
		       int32_t i, bool json)
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
	buf_printf(b, ",\"id\":%d,\"parent\":%d,\"depth\":%d,\"kind\":\"%s\","
		      "\"name\":",
		   i, s->parent, depth, span_kind_name(s->kind));
	buf_json_string(b, s->name, strlen(s->name));
	buf_puts(b, ",\"qualname\":");
	buf_json_string(b, s->qualname, strlen(s->qualname));
	buf_printf(b, ",\"start_byte\":%u,\"end_byte\":%u,\"start_line\":%u,"
		      "\"end_line\":%u,\"header\":",
		   s->bytes.start, s->bytes.end, s->lines.start, s->lines.end);
	buf_json_string(b, s->header, strlen(s->header));
	buf_puts(b, ",\"doc\":");
	buf_json_string(b, s->doc, strlen(s->doc));
	buf_puts(b, "}\n");
}

static int cmd_spans(int argc, char **argv)
{
	ChunkArgs a = {0};
	Chunker *ch;
	int i, failed = 0, err = parse_chunk_args(argc, argv, &a);

	if (err) {
		xfree(a.files);
		return err;
	}
	ch = chunker_new(a.max_size);
	for (i = 0; i < a.nfiles; i++) {
		Chunking c;
		char *text;
		size_t len;
		Buf b = {0};

		if (load(ch, a.files[i], &text, &len, &c)) {
			failed = 1;
			continue;
		}
		for (uint32_t k = 0; k < c.nspans; k++)
			print_span(&b, a.files[i], &c, (int32_t)k, a.json);
		fwrite(b.data, 1, b.len, stdout);
		buf_free(&b);
		chunking_close(&c);
		xfree(text);
	}
	chunker_delete(ch);
	xfree(a.files);
	return failed;
}

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{"chunk", cmd_chunk},
	{"spans", cmd_spans},
};

int main(int argc, char **argv)
{
	size_t i;

	castls_init_allocators();
	if (argc > 1 && (strcmp(argv[1], "-h") == 0 ||
			 strcmp(argv[1], "--help") == 0)) {
		fputs(USAGE, stdout);
		return 0;
	}
	for (i = 0; argc > 1 && i < sizeof(commands) / sizeof(*commands); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 2, argv + 2);
	return usage_error(argc > 1 ? "unknown command" : "no command yet");
}
