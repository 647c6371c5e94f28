/*
 * lsp_client.c: the test-side LSP client (see lsp_client.h).
 *
 * One child per client, spawned with posix_spawn. Every wait is bounded
 * by a deadline on the monotonic clock, and writing to the child polls
 * its stdout too, so neither side can block the other: a hung server
 * fails the test after LSP_TIMEOUT_MS instead of blocking CTest.
 */
#include "lsp_client.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"

extern char **environ;

#define READ_CHUNK 65536
#define HEADER_MAX 1024 /* the server sends one short header line */

struct LspClient {
	pid_t pid;
	bool reaped;
	int exit_code;	/* valid once reaped */
	int to_child;	/* the child's stdin; -1 once closed */
	int from_child; /* the child's stdout; -1 at end of output */
	char *err_path; /* the child's stderr file */
	char *err_text; /* its contents, as last read */
	Buf in;		/* bytes of output not yet framed */
	size_t in_pos;	/* framed up to here */
	cJSON **queue;	/* read, not handed out; oldest first */
	size_t nqueue, qcap;
	char out_error[256];
	int next_id;
};

/* ---------------------------------------------------------------------- *
 * Time and small helpers
 * ---------------------------------------------------------------------- */

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int left_ms(long long deadline)
{
	long long d = deadline - now_ms();

	return d < 0 ? 0 : d > 1000000 ? 1000000 : (int)d;
}

static void set_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static void set_cloexec(int fd)
{
	fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC);
}

static void output_error(LspClient *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void output_error(LspClient *c, const char *fmt, ...)
{
	va_list ap;

	if (c->out_error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(c->out_error, sizeof(c->out_error), fmt, ap);
	va_end(ap);
	fprintf(stderr, "lsp_client: bad server output: %s\n", c->out_error);
}

/* ---------------------------------------------------------------------- *
 * Starting and stopping
 * ---------------------------------------------------------------------- */

/* environ without XDG_CACHE_HOME, plus ours; free with free_env. */
static char **child_env(const char *cache)
{
	size_t n = 0, k = 0;
	char **env;
	Buf b = {0};

	while (environ[n])
		n++;
	env = xcalloc(n + 2, sizeof(*env));
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "XDG_CACHE_HOME=", 15) != 0)
			env[k++] = xstrdup(environ[i]);
	buf_printf(&b, "XDG_CACHE_HOME=%s", cache);
	env[k] = buf_take(&b);
	return env;
}

static void free_env(char **env)
{
	for (size_t i = 0; env[i]; i++)
		xfree(env[i]);
	xfree(env);
}

LspClient *lsp_client_start(const char *dir, const char *const *args)
{
	static int serial;
	const char *bin = getenv("CASTLS_BIN");
	int in_pipe[2] = {-1, -1}, out_pipe[2] = {-1, -1}, err;
	posix_spawn_file_actions_t fa;
	LspClient *c;
	Buf cache = {0}, errp = {0};
	char **argv, **env;
	size_t nargs = 0;

	if (!bin || !*bin) {
		fprintf(stderr, "lsp_client: CASTLS_BIN is not set\n");
		return NULL;
	}
	/* A dead server must fail the write, not kill the test. */
	signal(SIGPIPE, SIG_IGN);
	if (pipe(in_pipe) || pipe(out_pipe)) {
		perror("lsp_client: pipe");
		goto fail_pipes;
	}
	for (int i = 0; i < 2; i++) {
		set_cloexec(in_pipe[i]);
		set_cloexec(out_pipe[i]);
	}
	buf_printf(&cache, "%s/cache", dir);
	mkdir(cache.data, 0700);
	buf_printf(&errp, "%s/stderr-%d.txt", dir, ++serial);
	while (args && args[nargs])
		nargs++;
	argv = xcalloc(nargs + 2, sizeof(*argv));
	argv[0] = (char *)bin;
	for (size_t i = 0; i < nargs; i++)
		argv[i + 1] = (char *)args[i];
	env = child_env(cache.data);
	c = xcalloc(1, sizeof(*c));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in_pipe[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, errp.data,
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	err = posix_spawn(&c->pid, bin, &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	free_env(env);
	xfree(argv);
	buf_free(&cache);
	close(in_pipe[0]);
	close(out_pipe[1]);
	if (err) {
		fprintf(stderr, "lsp_client: spawn %s: %s\n", bin,
			strerror(err));
		close(in_pipe[1]);
		close(out_pipe[0]);
		buf_free(&errp);
		xfree(c);
		return NULL;
	}
	c->to_child = in_pipe[1];
	c->from_child = out_pipe[0];
	set_nonblock(c->to_child);
	set_nonblock(c->from_child);
	c->err_path = buf_take(&errp);
	c->next_id = 1;
	return c;

fail_pipes:
	for (int i = 0; i < 2; i++) {
		if (in_pipe[i] >= 0)
			close(in_pipe[i]);
		if (out_pipe[i] >= 0)
			close(out_pipe[i]);
	}
	return NULL;
}

static bool try_reap(LspClient *c)
{
	int st;

	if (c->reaped)
		return true;
	if (waitpid(c->pid, &st, WNOHANG) != c->pid)
		return false;
	c->reaped = true;
	c->exit_code = WIFEXITED(st)	 ? WEXITSTATUS(st)
		       : WIFSIGNALED(st) ? 128 + WTERMSIG(st)
					 : -1;
	return true;
}

bool lsp_client_wait_indexed(LspClient *c)
{
	for (int i = 0; i < LSP_TIMEOUT_MS / 100; i++) {
		cJSON *r =
		    lsp_client_call(c, "castls/status", NULL, LSP_TIMEOUT_MS);
		bool idle = cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(r, "result"), "indexing"));

		cJSON_Delete(r);
		if (idle)
			return true;
		usleep(100 * 1000);
	}
	return false;
}

LspClient *lsp_client_ready(const char *dir, const char *root,
			    const char *db, int max_chunk)
{
	const char *args[] = {"serve", "--db", db, NULL};
	LspClient *c = lsp_client_start(dir, args);
	char *uri = lsp_path_uri(root);
	cJSON *p, *r;
	bool ok = c != NULL;

	if (ok) {
		p = cJSON_CreateObject();
		cJSON_AddStringToObject(p, "rootUri", uri);
		cJSON_AddObjectToObject(p, "capabilities");
		cJSON_AddNumberToObject(
		    cJSON_AddObjectToObject(p, "initializationOptions"),
		    "maxChunkSize", max_chunk);
		r = lsp_client_call(c, "initialize", p, LSP_TIMEOUT_MS);
		ok = r && cJSON_HasObjectItem(r, "result");
		cJSON_Delete(r);
	}
	if (ok) {
		lsp_client_notify(c, "initialized", cJSON_CreateObject());
		ok = lsp_client_wait_indexed(c);
	}
	xfree(uri);
	if (!ok) {
		lsp_client_delete(c);
		return NULL;
	}
	return c;
}

void lsp_client_delete(LspClient *c)
{
	if (!c)
		return;
	if (!try_reap(c)) {
		int st;

		kill(c->pid, SIGKILL);
		waitpid(c->pid, &st, 0);
	}
	if (c->to_child >= 0)
		close(c->to_child);
	if (c->from_child >= 0)
		close(c->from_child);
	for (size_t i = 0; i < c->nqueue; i++)
		cJSON_Delete(c->queue[i]);
	xfree(c->queue);
	buf_free(&c->in);
	xfree(c->err_path);
	xfree(c->err_text);
	xfree(c);
}

/* ---------------------------------------------------------------------- *
 * Reading: bytes -> framed messages -> queue
 * ---------------------------------------------------------------------- */

static void enqueue(LspClient *c, cJSON *msg)
{
	if (c->nqueue == c->qcap) {
		c->qcap = c->qcap ? c->qcap * 2 : 16;
		c->queue = xrealloc(c->queue, c->qcap * sizeof(*c->queue));
	}
	c->queue[c->nqueue++] = msg;
}

static cJSON *dequeue(LspClient *c, size_t i)
{
	cJSON *m = c->queue[i];

	memmove(c->queue + i, c->queue + i + 1,
		(c->nqueue - i - 1) * sizeof(*c->queue));
	c->nqueue--;
	return m;
}

/* Parses "Content-Length: N" headers strictly: the server sends only that
 * one, with "\r\n" line ends. Returns the body length, or -1 (error set). */
static long long parse_header(LspClient *c, const char *h, size_t n)
{
	long long len = -1;
	size_t i = 0;

	while (i < n) {
		const char *line = h + i, *end = memchr(line, '\r', n - i);
		size_t ln = end ? (size_t)(end - line) : n - i;

		if (ln > 16 && strncmp(line, "Content-Length: ", 16) == 0) {
			char num[32];
			char *stop;

			if (ln - 16 >= sizeof(num))
				break;
			memcpy(num, line + 16, ln - 16);
			num[ln - 16] = '\0';
			len = strtoll(num, &stop, 10);
			if (*stop || len < 0)
				len = -1;
		} else if (!(ln > 14 &&
			     strncmp(line, "Content-Type: ", 14) == 0)) {
			output_error(c, "unexpected header line '%.*s'",
				     (int)ln, line);
			return -1;
		}
		i += ln + 2;
	}
	if (len < 0)
		output_error(c, "no valid Content-Length in '%.*s'", (int)n, h);
	return len;
}

/* Frames what is buffered; queues complete messages. */
static void frame_input(LspClient *c)
{
	while (c->in.len > c->in_pos && !c->out_error[0]) {
		const char *p = c->in.data + c->in_pos;
		size_t avail = c->in.len - c->in_pos, hl;
		const char *end = NULL;
		long long body;
		cJSON *msg;

		for (size_t i = 0; i + 3 < avail && i < HEADER_MAX; i++)
			if (memcmp(p + i, "\r\n\r\n", 4) == 0) {
				end = p + i;
				break;
			}
		if (!end) {
			if (avail >= HEADER_MAX)
				output_error(c, "header longer than %d bytes",
					     HEADER_MAX);
			break;
		}
		hl = (size_t)(end - p) + 4;
		body = parse_header(c, p, (size_t)(end - p));
		if (body < 0)
			break;
		if ((size_t)body > LSP_CLIENT_MAX_BODY) {
			output_error(c, "body of %lld bytes", body);
			break;
		}
		if (avail - hl < (size_t)body)
			break;
		msg = cJSON_ParseWithLength(p + hl, (size_t)body);
		if (!msg) {
			output_error(c, "body is not JSON: '%.*s'",
				     (int)(body > 200 ? 200 : body), p + hl);
			break;
		}
		enqueue(c, msg);
		c->in_pos += hl + (size_t)body;
	}
	if (c->in_pos == c->in.len) {
		c->in.len = 0;
		c->in_pos = 0;
	}
}

/* Reads what the child wrote within timeout_ms (0: only what is there).
 * Returns false at end of output. */
static bool read_some(LspClient *c, int timeout_ms)
{
	struct pollfd pf;
	char buf[READ_CHUNK];
	ssize_t n;

	if (c->from_child < 0) {
		if (timeout_ms > 0) /* nothing can come; do not spin */
			usleep((useconds_t)(timeout_ms > 20 ? 20 : timeout_ms) *
			       1000);
		return false;
	}
	pf.fd = c->from_child;
	pf.events = POLLIN;
	pf.revents = 0;
	if (poll(&pf, 1, timeout_ms) <= 0)
		return true;
	for (;;) {
		n = read(c->from_child, buf, sizeof(buf));
		if (n > 0) {
			buf_append(&c->in, buf, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		close(c->from_child); /* end of output or an error */
		c->from_child = -1;
		break;
	}
	frame_input(c);
	return c->from_child >= 0;
}

cJSON *lsp_client_wait(LspClient *c, LspMsgPred pred, void *ctx, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	size_t seen = 0;

	for (;;) {
		for (; seen < c->nqueue; seen++)
			if (!pred || pred(c->queue[seen], ctx))
				return dequeue(c, seen);
		if (c->from_child < 0 || now_ms() >= deadline)
			return NULL;
		read_some(c, left_ms(deadline));
	}
}

cJSON *lsp_client_next(LspClient *c, int timeout_ms)
{
	return lsp_client_wait(c, NULL, NULL, timeout_ms);
}

static bool is_reply_to(const cJSON *msg, void *ctx)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");

	return id && !cJSON_HasObjectItem(msg, "method") &&
	       cJSON_Compare(id, (const cJSON *)ctx, true);
}

cJSON *lsp_client_wait_reply(LspClient *c, const cJSON *id, int timeout_ms)
{
	return lsp_client_wait(c, is_reply_to, (void *)id, timeout_ms);
}

cJSON *lsp_client_wait_id(LspClient *c, int id, int timeout_ms)
{
	cJSON *want = cJSON_CreateNumber(id), *r;

	r = lsp_client_wait_reply(c, want, timeout_ms);
	cJSON_Delete(want);
	return r;
}

void lsp_client_drain(LspClient *c, int quiet_ms)
{
	size_t before;

	do {
		before = c->nqueue;
		read_some(c, quiet_ms);
	} while (c->from_child >= 0 && c->nqueue > before);
}

cJSON *lsp_client_pop(LspClient *c) { return c->nqueue ? dequeue(c, 0) : NULL; }

/* ---------------------------------------------------------------------- *
 * Writing
 * ---------------------------------------------------------------------- */

int lsp_client_send_raw(LspClient *c, const void *data, size_t n)
{
	const char *p = data;
	long long deadline = now_ms() + LSP_TIMEOUT_MS;

	while (n) {
		struct pollfd pf[2] = {{c->to_child, POLLOUT, 0},
				       {c->from_child, POLLIN, 0}};
		ssize_t w;

		if (c->to_child < 0 || now_ms() >= deadline)
			return -1;
		/* Keep reading while writing: a server blocked on a full
		 * stdout would otherwise stop reading its stdin. */
		if (poll(pf, c->from_child >= 0 ? 2 : 1, left_ms(deadline)) <
			0 &&
		    errno != EINTR)
			return -1;
		if (c->from_child >= 0 && (pf[1].revents & (POLLIN | POLLHUP)))
			read_some(c, 0);
		if (!(pf[0].revents & (POLLOUT | POLLERR | POLLHUP)))
			continue;
		w = write(c->to_child, p, n);
		if (w < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int lsp_client_send(LspClient *c, const cJSON *msg)
{
	char *body = cJSON_PrintUnformatted(msg), head[64];
	int hl, r;

	if (!body)
		return -1;
	hl = snprintf(head, sizeof(head), "Content-Length: %zu\r\n\r\n",
		      strlen(body));
	r = lsp_client_send_raw(c, head, (size_t)hl);
	if (r == 0)
		r = lsp_client_send_raw(c, body, strlen(body));
	cJSON_free(body);
	return r;
}

static cJSON *message(const char *method, cJSON *params)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	cJSON_AddStringToObject(m, "method", method);
	if (params)
		cJSON_AddItemToObject(m, "params", params);
	return m;
}

int lsp_client_request(LspClient *c, const char *method, cJSON *params)
{
	cJSON *m = message(method, params);
	int id = c->next_id++, r;

	cJSON_AddNumberToObject(m, "id", id);
	r = lsp_client_send(c, m);
	cJSON_Delete(m);
	return r ? -1 : id;
}

int lsp_client_notify(LspClient *c, const char *method, cJSON *params)
{
	cJSON *m = message(method, params);
	int r = lsp_client_send(c, m);

	cJSON_Delete(m);
	return r;
}

cJSON *lsp_client_call(LspClient *c, const char *method, cJSON *params,
		       int timeout_ms)
{
	int id = lsp_client_request(c, method, params);

	return id < 0 ? NULL : lsp_client_wait_id(c, id, timeout_ms);
}

/* ---------------------------------------------------------------------- *
 * Exit and stderr
 * ---------------------------------------------------------------------- */

void lsp_client_close_input(LspClient *c)
{
	if (c->to_child >= 0)
		close(c->to_child);
	c->to_child = -1;
}

int lsp_client_wait_exit(LspClient *c, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;

	while (!try_reap(c)) {
		if (now_ms() >= deadline)
			return -1;
		read_some(c, left_ms(deadline) < 20 ? left_ms(deadline) : 20);
	}
	while (read_some(c, 0)) /* what it wrote before exiting */
		;
	return c->exit_code;
}

int lsp_client_finish(LspClient *c, int timeout_ms)
{
	int code;

	lsp_client_close_input(c);
	code = lsp_client_wait_exit(c, timeout_ms);
	if (code < 0) {
		fprintf(stderr,
			"lsp_client: server did not exit in %d ms; "
			"killing it\n",
			timeout_ms);
		kill(c->pid, SIGKILL);
		lsp_client_wait_exit(c, 5000);
		return -1;
	}
	return code;
}

int lsp_client_pid(const LspClient *c) { return (int)c->pid; }

const char *lsp_client_stderr(LspClient *c)
{
	size_t n;

	xfree(c->err_text);
	c->err_text = NULL;
	if (castls_read_file(c->err_path, 0, &c->err_text, &n) != 0)
		c->err_text = xstrdup("");
	return c->err_text;
}

bool lsp_client_sanitizer_report(LspClient *c)
{
	const char *e = lsp_client_stderr(c);

	return strstr(e, "ERROR: AddressSanitizer") ||
	       strstr(e, "LeakSanitizer") || strstr(e, "runtime error");
}

const char *lsp_client_output_error(const LspClient *c)
{
	return c->out_error[0] ? c->out_error : NULL;
}

/* ---------------------------------------------------------------------- *
 * Scratch directories
 * ---------------------------------------------------------------------- */

char *lsp_scratch_new(const char *tag)
{
	const char *tmp = getenv("TMPDIR");
	Buf b = {0};

	buf_printf(&b, "%s/castls-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", tag);
	if (!mkdtemp(b.data)) {
		perror("lsp_scratch_new: mkdtemp");
		buf_free(&b);
		return NULL;
	}
	return buf_take(&b);
}

/* Removes path and, for a directory, everything under it (symlinks are
 * removed, never followed). */
static void remove_tree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;

	if (lstat(path, &st) != 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	if ((d = opendir(path))) {
		while ((e = readdir(d))) {
			Buf b = {0};

			if (strcmp(e->d_name, ".") == 0 ||
			    strcmp(e->d_name, "..") == 0)
				continue;
			buf_printf(&b, "%s/%s", path, e->d_name);
			remove_tree(b.data);
			buf_free(&b);
		}
		closedir(d);
	}
	rmdir(path);
}

void lsp_scratch_remove(char *path)
{
	if (!path)
		return;
	/* CASTLS_KEEP_SCRATCH keeps it for a post-mortem. */
	if (getenv("CASTLS_KEEP_SCRATCH"))
		fprintf(stderr, "kept %s\n", path);
	/* Refuse anything that is not one of ours. */
	else if (strstr(path, "/castls-"))
		remove_tree(path);
	xfree(path);
}

int lsp_write_file(const char *path, const char *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	int r;

	if (!f)
		return -1;
	r = fwrite(data, 1, n, f) == n ? 0 : -1;
	if (fclose(f) != 0)
		r = -1;
	return r;
}

int lsp_copy_tree(const char *src, const char *dst)
{
	DIR *d = opendir(src);
	struct dirent *e;
	int r = 0;

	if (!d)
		return -1;
	mkdir(dst, 0755);
	while (r == 0 && (e = readdir(d))) {
		Buf s = {0}, t = {0};
		struct stat st;

		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		buf_printf(&s, "%s/%s", src, e->d_name);
		buf_printf(&t, "%s/%s", dst, e->d_name);
		if (lstat(s.data, &st) != 0) {
			r = -1;
		} else if (S_ISDIR(st.st_mode)) {
			r = lsp_copy_tree(s.data, t.data);
		} else if (S_ISREG(st.st_mode)) {
			char *data;
			size_t n;

			r = castls_read_file(s.data, 0, &data, &n)
				? -1
				: lsp_write_file(t.data, data, n);
			xfree(data);
		}
		buf_free(&s);
		buf_free(&t);
	}
	closedir(d);
	return r;
}

char *lsp_path_uri(const char *path)
{
	static const char keep[] = "/-._~";
	Buf b = {0};

	buf_puts(&b, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if (isalnum(*p) || strchr(keep, *p))
			buf_append(&b, p, 1);
		else
			buf_printf(&b, "%%%02X", *p);
	return buf_take(&b);
}

/* ---------------------------------------------------------------------- *
 * JSON patterns
 * ---------------------------------------------------------------------- */

typedef struct {
	char *why;
	size_t cap;
	char path[512];
} Match;

static bool mismatch(Match *m, const cJSON *pattern, const cJSON *actual,
		     const char *what)
{
	char *p = cJSON_PrintUnformatted(pattern);
	char *a = actual ? cJSON_PrintUnformatted(actual) : NULL;

	if (m->why && m->cap)
		snprintf(
		    m->why, m->cap,
		    "at %s: %s\n    expected: %.600s\n    actual:   %.1500s",
		    m->path[0] ? m->path : "(top)", what, p ? p : "?",
		    a ? a : "(missing)");
	cJSON_free(p);
	cJSON_free(a);
	return false;
}

static bool match(Match *m, const cJSON *p, const cJSON *a);

static bool match_string(Match *m, const cJSON *p, const cJSON *a)
{
	const char *s = p->valuestring;
	static const struct {
		const char *name;
		cJSON_bool (*is)(const cJSON *);
	} types[] = {
	    {"$number", cJSON_IsNumber}, {"$string", cJSON_IsString},
	    {"$bool", cJSON_IsBool},	 {"$object", cJSON_IsObject},
	    {"$array", cJSON_IsArray},
	};

	if (strcmp(s, "$any") == 0)
		return true;
	for (size_t i = 0; i < sizeof(types) / sizeof(*types); i++)
		if (strcmp(s, types[i].name) == 0)
			return types[i].is(a) ? true
					      : mismatch(m, p, a, "wrong type");
	if (strcmp(s, "$nonempty") == 0)
		return (cJSON_IsString(a) && *a->valuestring) ||
			       (cJSON_IsArray(a) && a->child)
			   ? true
			   : mismatch(m, p, a, "empty or not a string/array");
	if (strncmp(s, "$re:", 4) == 0) {
		regex_t re;
		bool ok;

		if (regcomp(&re, s + 4, REG_EXTENDED | REG_NOSUB) != 0)
			return mismatch(m, p, a, "bad regex in the pattern");
		ok = cJSON_IsString(a) &&
		     regexec(&re, a->valuestring, 0, NULL, 0) == 0;
		regfree(&re);
		return ok ? true : mismatch(m, p, a, "no regex match");
	}
	if (cJSON_IsString(a) && strcmp(s, a->valuestring) == 0)
		return true;
	return mismatch(m, p, a, "different value");
}

/* Matches element i of a with p under path suffix "[i]". */
static bool match_at(Match *m, const cJSON *p, const cJSON *a, int i)
{
	size_t n = strlen(m->path);
	bool ok;

	snprintf(m->path + n, sizeof(m->path) - n, "[%d]", i);
	ok = match(m, p, a);
	m->path[n] = '\0';
	return ok;
}

static bool match_array(Match *m, const cJSON *p, const cJSON *a)
{
	const cJSON *first = p->child, *e, *x;
	const char *dir = cJSON_IsString(first) && first->valuestring[0] == '$'
			      ? first->valuestring
			      : NULL;
	int na = cJSON_GetArraySize(a), np = cJSON_GetArraySize(p), i;

	if (!cJSON_IsArray(a))
		return mismatch(m, p, a, "not an array");
	if (dir && strcmp(dir, "$each") == 0) {
		i = 0;
		cJSON_ArrayForEach(
		    x, a) if (!match_at(m, first->next, x, i++)) return false;
		return true;
	}
	if (dir && strcmp(dir, "$prefix") == 0) {
		if (na < np - 1)
			return mismatch(m, p, a, "array too short");
		for (e = first->next, x = a->child, i = 0; e;
		     e = e->next, x = x->next, i++)
			if (!match_at(m, e, x, i))
				return false;
		return true;
	}
	if (dir && strcmp(dir, "$contains") == 0) {
		bool *used = xcalloc((size_t)na + 1, sizeof(*used));
		bool ok = true;

		for (e = first->next; e && ok; e = e->next) {
			bool found = false;

			i = 0;
			cJSON_ArrayForEach(x, a)
			{
				if (!used[i] && match(m, e, x)) {
					used[i] = found = true;
					break;
				}
				i++;
			}
			if (!found)
				ok = mismatch(m, e, a, "no element matches");
		}
		xfree(used);
		return ok;
	}
	if (na != np)
		return mismatch(m, p, a, "array length differs");
	for (e = p->child, x = a->child, i = 0; e;
	     e = e->next, x = x->next, i++)
		if (!match_at(m, e, x, i))
			return false;
	return true;
}

static bool match_object(Match *m, const cJSON *p, const cJSON *a)
{
	const cJSON *e;

	if (!cJSON_IsObject(a))
		return mismatch(m, p, a, "not an object");
	cJSON_ArrayForEach(e, p)
	{
		const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, e->string);
		size_t n = strlen(m->path);
		bool ok;

		if (cJSON_IsString(e) &&
		    strcmp(e->valuestring, "$absent") == 0) {
			if (x)
				return mismatch(m, p, a,
						"member must be absent");
			continue;
		}
		snprintf(m->path + n, sizeof(m->path) - n, ".%s", e->string);
		ok =
		    x ? match(m, e, x) : mismatch(m, e, NULL, "member missing");
		m->path[n] = '\0';
		if (!ok)
			return false;
	}
	return true;
}

static bool match(Match *m, const cJSON *p, const cJSON *a)
{
	if (cJSON_IsString(p) && p->valuestring[0] == '$')
		return match_string(m, p, a);
	if (!a)
		return mismatch(m, p, a, "missing");
	if (cJSON_IsObject(p))
		return match_object(m, p, a);
	if (cJSON_IsArray(p))
		return match_array(m, p, a);
	if (cJSON_IsString(p))
		return match_string(m, p, a);
	if (cJSON_IsNumber(p))
		return cJSON_IsNumber(a) && p->valuedouble == a->valuedouble
			   ? true
			   : mismatch(m, p, a, "different number");
	return cJSON_Compare(p, a, true) ? true
					 : mismatch(m, p, a, "different value");
}

bool lsp_json_match(const cJSON *pattern, const cJSON *actual, char *why,
		    size_t cap)
{
	Match m = {why, cap, ""};

	if (why && cap)
		why[0] = '\0';
	return match(&m, pattern, actual);
}
