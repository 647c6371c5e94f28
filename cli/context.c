/*
 * context.c: `castls context FILE:LINE[:COL]`, the ranked context for a
 * cursor from the command line. Brings the index of the root up to date,
 * then asks rank/ as the server does, with the file on disk as the
 * buffer.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_int.h"
#include "lsp/server.h"

#define DEFAULT_BUDGET 2000

typedef struct {
	char *file;            /* FILE of FILE:LINE[:COL] */
	unsigned line, column; /* 1-based; column in bytes, 0: none */
} Spec;

/* FILE:LINE[:COL], from the right so paths may hold colons. */
static int parse_spec(const char *arg, Spec *sp)
{
	char *colon, *prev;
	long long v, w;

	memset(sp, 0, sizeof(*sp));
	sp->file = xstrdup(arg);
	colon = strrchr(sp->file, ':');
	if (!colon || colon == sp->file ||
	    (v = cli_number(colon + 1, 1, 1 << 30)) < 0)
		return cli_usage_error("FILE:LINE[:COL] with LINE from 1");
	*colon = '\0';
	prev = strrchr(sp->file, ':');
	if (prev && (w = cli_number(prev + 1, 1, 1 << 30)) > 0) {
		sp->column = (unsigned)v;
		sp->line = (unsigned)w;
		*prev = '\0';
	} else {
		sp->line = (unsigned)v;
	}
	return 0;
}

/* The byte offset of 1-based line and column (UTF-8 bytes; 0: the start
 * of the line), clamped to the line and the text. */
static uint32_t offset_of(const char *text, uint32_t len, unsigned line,
			  unsigned column)
{
	uint32_t off = 0, col = column ? column - 1 : 0;

	for (unsigned l = 1; l < line && off < len; off++)
		if (text[off] == '\n')
			l++;
	while (col-- && off < len && text[off] != '\n')
		off++;
	return off;
}

/* Opens the index of root and brings it up to date. An index that
 * cannot be written is used as it is, with a warning. */
static Index *index_fresh(const Opts *o, const char *root)
{
	IndexOptions io = {0};
	ScanStats st;
	Index *ix;
	int err;

	io.root = root;
	io.db_path = o->db;
	io.verify = true;
	io.reader = true;
	io.quiet = o->quiet;
	if ((err = index_open(&io, &ix))) {
		fprintf(stderr, "castls: index of %s: %s\n", root,
			castls_strerror(err));
		return NULL;
	}
	err = index_scan(ix, 0, NULL, NULL, NULL, &st);
	if (err == CASTLS_EREADONLY || err == CASTLS_EACCES) {
		fprintf(stderr,
			"castls: %s: %s: answering from the index as it is "
			"(--db PATH names a writable one)\n",
			index_db_path(ix), castls_strerror(err));
	} else if (err) {
		fprintf(stderr, "castls: indexing %s into %s: %s\n", root,
			index_db_path(ix), castls_strerror(err));
		index_close(ix);
		return NULL;
	}
	return ix;
}

/* One item as text: a header line, why it ranked, the headers of its
 * enclosing definitions, and its lines. */
static void print_item(Buf *b, const RankItem *it, const char *path)
{
	buf_printf(b, "--- %s:%u-%u %s %s score %.3f%s\n", path,
		   it->lines.start + 1, it->lines.end + 1,
		   chunk_kind_name(it->kind), it->symbol, it->score,
		   it->clipped ? " (clipped)" : "");
	buf_puts(b, "    why: ");
	rank_why(it, b);
	buf_puts(b, "\n");
	for (uint32_t i = 0; i < it->nparents; i++)
		buf_printf(b, "    in: %s\n", it->parents[i].header);
	buf_puts(b, it->text);
}

static void print_text(Buf *b, const RankResult *r, const char *root,
		       const char *file)
{
	if (r->no_context)
		buf_puts(b, "(no context: nothing scored high enough)\n");
	for (uint32_t i = 0; i < r->nitems; i++) {
		const RankItem *it = &r->items[i];
		Buf path = {0};

		if (it->in_buffer)
			buf_puts(&path, file);
		else
			buf_printf(&path, "%s/%s", root, it->path);
		print_item(b, it, path.data);
		buf_free(&path);
	}
	buf_printf(b, "(budget %u of %u tokens)\n", r->used, r->budget);
}

/* Ranks the context at sp in the file read into text. */
static int run(const Opts *o, const Spec *sp, const char *root, Index *ix,
	       const char *real, const char *text, size_t len)
{
	RankRoot rr = {ix, root};
	RankCursor q = {0};
	RankResult res;
	size_t n = strlen(root);
	Buf out = {0};

	q.roots = &rr;
	q.nroots = ix ? 1 : 0; /* none: the file alone */
	q.chunker = chunker_new(0);
	q.lang = lang_detect(real, text, len);
	q.text = text;
	q.len = (uint32_t)len;
	q.tree = NULL; /* parsed by rank/ */
	q.cursor = offset_of(text, q.len, sp->line, sp->column);
	q.budget = o->budget ? o->budget : DEFAULT_BUDGET;
	q.limit = o->nlimit;
	q.root = -1;
	if (ix && strncmp(real, root, n) == 0 && real[n] == '/') {
		q.root = 0;
		q.rel = real + n + 1;
	}
	rank_context(&q, &res);
	if (o->json) {
		const char *roots[1] = {root};

		server_result_json(&res, roots, real, &out);
		buf_puts(&out, "\n");
	} else {
		print_text(&out, &res, root, real);
	}
	fwrite(out.data, 1, out.len, stdout);
	buf_free(&out);
	rank_result_free(&res);
	chunker_delete(q.chunker);
	return 0;
}

/* The real path of FILE into real: relative to the root when --root is
 * given (root), else to the working directory. */
static bool file_path(const Spec *sp, const char *root, char *real)
{
	char joined[PATH_MAX];

	if (root && sp->file[0] != '/' &&
	    snprintf(joined, sizeof(joined), "%s/%s", root, sp->file) <
		    (int)sizeof(joined) &&
	    realpath(joined, real))
		return true;
	return realpath(sp->file, real) != NULL;
}

int cli_context(int argc, char **argv)
{
	Opts o;
	Spec sp = {0};
	Index *ix = NULL;
	char root[PATH_MAX], real[PATH_MAX], *text = NULL;
	size_t len;
	int err = cli_parse_opts(argc, argv, &o, false), code = 1;

	if (!err && o.nargs != 1)
		err = cli_usage_error("context takes one FILE:LINE[:COL]");
	if (!err)
		err = parse_spec(o.args[0], &sp);
	if (err) {
		code = err;
		goto out;
	}
	if (o.root && !realpath(o.root, root)) {
		fprintf(stderr, "castls: %s: no such directory\n", o.root);
		goto out;
	}
	if (!file_path(&sp, o.root ? root : NULL, real) ||
	    (err = castls_read_file(real, CHUNKER_MAX_INPUT, &text, &len))) {
		fprintf(stderr, "castls: %s: cannot read%s%s\n", sp.file,
			err ? ": " : "", err ? castls_strerror(err) : "");
		goto out;
	}
	/* Without --root: the file's project, or the file alone. */
	if (!o.root && cli_project_root(real, root) != 0) {
		fprintf(stderr,
			"castls: %s is in no project (no git repository or "
			"project file above it): only its own definitions are "
			"used; --root DIR indexes DIR\n",
			sp.file);
		root[0] = '\0';
	}
	if (root[0] && !(ix = index_fresh(&o, root)))
		goto out;
	code = run(&o, &sp, root, ix, real, text, len);
out:
	index_close(ix);
	xfree(text);
	xfree(sp.file);
	cli_opts_free(&o);
	return code;
}
