/*
 * context.c: `castls context FILE:LINE[:COL]`, the ranked context for a
 * cursor from the command line. Brings the index of the root up to date,
 * then asks rank/ as the server does, with the file on disk (or, with
 * --stdin, the unsaved text on standard input) as the buffer.
 *
 * --format prompt prints Markdown for a prompt (mcp_prompt_items, as the
 * MCP tools do): one fenced block per item under a `path:lines — symbol`
 * header with the why in words, within the budget, headers and fences
 * counted; the count goes to stderr so stdout is the prompt alone.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_int.h"
#include "lsp/server.h"
#include "mcp/mcp.h"

#define DEFAULT_BUDGET 2000

typedef struct {
	char *file;	       /* FILE of FILE:LINE[:COL] */
	unsigned line, column; /* 1-based; column in bytes, 0: none */
	bool prompt;	       /* --format prompt */
	bool stdin_text;       /* --stdin: the buffer comes on stdin */
} Spec;

/* Takes --format prompt and --stdin out of argv (the shared options know
 * neither); returns the new argc. */
static int take_own_opts(int argc, char **argv, Spec *sp)
{
	int n = 0;

	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--stdin") == 0) {
			sp->stdin_text = true;
		} else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc &&
			   strcmp(argv[i + 1], "prompt") == 0) {
			sp->prompt = true;
			i++;
		} else {
			argv[n++] = argv[i];
		}
	}
	return n;
}

/* Standard input, whole, into *text (the caller's to xfree); at most
 * CHUNKER_MAX_INPUT bytes. 0 or an error. */
static int read_stdin(char **text, size_t *len)
{
	Buf b = {0};
	char chunk[65536];
	size_t n;

	while ((n = fread(chunk, 1, sizeof(chunk), stdin)) > 0) {
		if (b.len + n > CHUNKER_MAX_INPUT) {
			buf_free(&b);
			return CASTLS_ETOOBIG;
		}
		buf_append(&b, chunk, n);
	}
	if (ferror(stdin)) {
		buf_free(&b);
		return CASTLS_EIO;
	}
	*len = b.len;
	*text = buf_take(&b);
	return 0;
}

/* The canonical path of file, which need not exist (a new buffer): its
 * directory's, then its name. False when the directory does not
 * resolve. */
static bool real_path(const char *file, char out[PATH_MAX])
{
	char dir[PATH_MAX];
	const char *slash = strrchr(file, '/'), *name;
	size_t n;

	if (realpath(file, out))
		return true;
	n = slash ? (size_t)(slash - file) : 1;
	if (n >= sizeof(dir))
		return false;
	memcpy(dir, slash ? file : ".", n);
	dir[n] = '\0';
	if (slash == file)
		strcpy(dir, "/");
	name = slash ? slash + 1 : file;
	if (!*name || !realpath(dir, out) ||
	    strlen(out) + strlen(name) + 2 > PATH_MAX)
		return false;
	if (strcmp(out, "/") != 0)
		strcat(out, "/");
	strcat(out, name);
	return true;
}

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

/* The prompt: Markdown alone on stdout, the count on stderr. */
static void print_prompt(Buf *b, const RankResult *r, const char *buffer,
			 const Opts *o)
{
	const char *roots[1] = {""};
	McpNames names = {roots, buffer};
	uint32_t tokens, shown;

	shown = mcp_prompt_items(r, &names, r->budget, b, &tokens);
	if (o->quiet)
		return;
	if (!shown)
		fprintf(stderr, "castls: no context worth %u tokens%s\n",
			r->budget, r->no_context ? " (noContext)" : "");
	else
		fprintf(stderr, "castls: %u item%s, %u of %u tokens\n", shown,
			shown == 1 ? "" : "s", tokens, r->budget);
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
	if (sp->prompt) {
		print_prompt(&out, &res, q.root == 0 ? q.rel : sp->file, o);
	} else if (o->json) {
		const char *roots[1] = {root};

		server_result_json(&res, roots, real, &out);
		buf_puts(&out, "\n");
	} else {
		print_text(&out, &res, root, real);
	}
	if (out.len)
		fwrite(out.data, 1, out.len, stdout);
	buf_free(&out);
	rank_result_free(&res);
	chunker_delete(q.chunker);
	return 0;
}

/* The real path of FILE into real: relative to the root when --root is
 * given (root), else to the working directory. A file that may be new
 * (an unsaved buffer on stdin) need only have its directory. */
static bool file_path(const Spec *sp, const char *root, bool may_be_new,
		      char *real)
{
	char joined[PATH_MAX];
	const char *f = sp->file;

	if (root && f[0] != '/' &&
	    snprintf(joined, sizeof(joined), "%s/%s", root, f) <
		(int)sizeof(joined) &&
	    (may_be_new ? real_path(joined, real) : !!realpath(joined, real)))
		return true;
	return may_be_new ? real_path(f, real) : realpath(f, real) != NULL;
}

int cli_context(int argc, char **argv)
{
	Opts o;
	Spec sp = {0};
	Index *ix = NULL;
	char root[PATH_MAX], real[PATH_MAX], *text = NULL;
	size_t len;
	bool prompt, stdin_text;
	int err, code = 1;

	argc = take_own_opts(argc, argv, &sp);
	prompt = sp.prompt;
	stdin_text = sp.stdin_text;
	err = cli_parse_opts(argc, argv, &o, false);
	if (!err && o.nargs != 1)
		err = cli_usage_error("context takes one FILE:LINE[:COL]");
	if (!err)
		err = parse_spec(o.args[0], &sp);
	sp.prompt = prompt;
	sp.stdin_text = stdin_text;
	if (err) {
		code = err;
		goto out;
	}
	if (o.root && !realpath(o.root, root)) {
		fprintf(stderr, "castls: %s: no such directory\n", o.root);
		goto out;
	}
	if (sp.stdin_text) {
		if (!file_path(&sp, o.root ? root : NULL, true, real)) {
			fprintf(stderr, "castls: %s: no such directory\n",
				sp.file);
			goto out;
		}
		if ((err = read_stdin(&text, &len))) {
			fprintf(stderr, "castls: standard input: %s\n",
				castls_strerror(err));
			goto out;
		}
	} else if (!file_path(&sp, o.root ? root : NULL, false, real) ||
		   (err = castls_read_file(real, CHUNKER_MAX_INPUT, &text,
					   &len))) {
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
