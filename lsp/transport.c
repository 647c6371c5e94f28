/*
 * transport.c: stdin and stdout for the server. Input may be a pipe, a
 * TTY or a regular file; output a pipe, a TTY or a file. Messages are
 * written at once when the peer can take them (so the reply to `shutdown`
 * is out before a client that kills us right after `exit` does so), and
 * queued on the loop otherwise.
 */
#include "server_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------------- *
 * Input
 * ---------------------------------------------------------------------- */

static void on_frame(void *ctx, FrameKind kind, const char *body, size_t len,
		     const char *error)
{
	Server *s = ctx;

	if (kind == FRAME_ERROR) {
		lsp__log(s, 1, "bad message framing: %s", error);
		return;
	}
	lsp__server_dispatch(s, body, len);
}

static void end_of_input(Server *s)
{
	/* A client that goes away without `exit`: end as if it had sent
	 * one (exit code 0 only after shutdown). */
	if (!s->exiting) {
		s->exiting = true;
		s->exit_code = s->shutdown ? 0 : 1;
	}
	s->cancel_scans = 1; /* nobody is left to use the index */
	lsp__transport_stop(s);
}

static void alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	Server *s = h->data;

	(void)hint;
	*buf = uv_buf_init(s->in_buf, sizeof(s->in_buf));
}

static void read_cb(uv_stream_t *st, ssize_t n, const uv_buf_t *buf)
{
	Server *s = st->data;

	if (n > 0)
		framer_feed(s->framer, buf->base, (size_t)n);
	else if (n < 0)
		end_of_input(s);
}

static void file_read_cb(uv_fs_t *req);

static void file_read_next(Server *s)
{
	uv_buf_t b = uv_buf_init(s->in_buf, sizeof(s->in_buf));

	uv_fs_read(s->loop, &s->in_req, s->opt.in_fd, &b, 1, -1, file_read_cb);
}

static void file_read_cb(uv_fs_t *req)
{
	Server *s = req->data;
	ssize_t n = req->result;

	uv_fs_req_cleanup(req);
	if (n > 0)
		framer_feed(s->framer, s->in_buf, (size_t)n);
	if (n > 0 && !s->exiting)
		file_read_next(s);
	else if (n <= 0)
		end_of_input(s);
}

/* A stream handle for fd, or NULL when fd is a file (or unknown). */
static uv_stream_t *open_stream(Server *s, int fd, bool readable)
{
	uv_handle_type t = uv_guess_handle(fd);

	if (t == UV_TTY) {
		uv_tty_t *tty = xcalloc(1, sizeof(*tty));

		if (uv_tty_init(s->loop, tty, fd, readable) == 0) {
			tty->data = s;
			return (uv_stream_t *)tty;
		}
		xfree(tty);
	} else if (t == UV_NAMED_PIPE) {
		uv_pipe_t *p = xcalloc(1, sizeof(*p));

		uv_pipe_init(s->loop, p, 0);
		if (uv_pipe_open(p, fd) == 0) {
			p->data = s;
			return (uv_stream_t *)p;
		}
		uv_close((uv_handle_t *)p, (uv_close_cb)xfree);
	}
	return NULL;
}

int lsp__transport_start(Server *s)
{
	s->framer = framer_new(LSP_MAX_MESSAGE, on_frame, s);
	s->out_stream = open_stream(s, s->opt.out_fd, false);
	s->in_stream = open_stream(s, s->opt.in_fd, true);
	if (s->in_stream)
		return uv_read_start(s->in_stream, alloc_cb, read_cb) ? -1 : 0;
	s->in_req.data = s;
	file_read_next(s);
	return 0;
}

static void close_stream(uv_stream_t **st)
{
	if (*st && !uv_is_closing((uv_handle_t *)*st))
		uv_close((uv_handle_t *)*st, (uv_close_cb)xfree);
	*st = NULL;
}

static void shutdown_cb(uv_shutdown_t *req, int status)
{
	uv_stream_t *st = req->data;

	(void)status;
	if (!uv_is_closing((uv_handle_t *)st))
		uv_close((uv_handle_t *)st, (uv_close_cb)xfree);
	xfree(req);
}

void lsp__transport_stop(Server *s)
{
	uv_shutdown_t *req;

	if (s->in_stream)
		uv_read_stop(s->in_stream);
	close_stream(&s->in_stream);
	if (!s->out_stream || uv_is_closing((uv_handle_t *)s->out_stream))
		return;
	/* uv_close would cancel queued writes; a shutdown lets them finish
	 * and then closes the stream. */
	req = xcalloc(1, sizeof(*req));
	req->data = s->out_stream;
	if (uv_shutdown(req, s->out_stream, shutdown_cb) != 0) {
		xfree(req);
		close_stream(&s->out_stream);
	}
	s->out_stream = NULL;
}

/* ---------------------------------------------------------------------- *
 * Output
 * ---------------------------------------------------------------------- */

typedef struct {
	uv_write_t req;
	char *data;
} WriteReq;

static void write_cb(uv_write_t *req, int status)
{
	WriteReq *w = (WriteReq *)req;

	(void)status;
	xfree(w->data);
	xfree(w);
}

static void write_all_blocking(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t r = write(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return; /* the peer is gone; nothing to tell */
		p += r;
		n -= (size_t)r;
	}
}

static void send_raw(Server *s, const char *body, size_t len)
{
	char header[LSP_HEADER_CAP];
	size_t hlen = framer_header(header, sizeof(header), len);
	uv_stream_t *st = s->out_stream;
	char *msg;
	size_t total = hlen + len, done = 0;
	WriteReq *w;
	uv_buf_t b;

	if (!st) {
		write_all_blocking(s->opt.out_fd, header, hlen);
		write_all_blocking(s->opt.out_fd, body, len);
		return;
	}
	msg = xmalloc(total);
	memcpy(msg, header, hlen);
	memcpy(msg + hlen, body, len);
	/* Write now if nothing is queued ahead of us. */
	if (uv_stream_get_write_queue_size(st) == 0) {
		b = uv_buf_init(msg, (unsigned)total);
		int r = uv_try_write(st, &b, 1);

		if (r > 0)
			done = (size_t)r;
	}
	if (done == total) {
		xfree(msg);
		return;
	}
	w = xcalloc(1, sizeof(*w));
	w->data = msg;
	b = uv_buf_init(msg + done, (unsigned)(total - done));
	if (uv_write(&w->req, st, &b, 1, write_cb) != 0)
		write_cb(&w->req, -1);
}

/* JSON leaves the server through here (every message, and castls
 * context --format json), so this is where it is made valid UTF-8, as
 * LSP requires: a strict client rejects a whole message otherwise, and
 * file text with invalid bytes reaches documentSymbol, workspace/symbol,
 * castls/search and castls/context. cJSON copies bytes at or above 0x80
 * as they are and escapes the rest, so such a byte can only be inside a
 * string, where U+FFFD may replace it. One for one, so a position
 * counted in characters stays exact. */
char *lsp__json_text_utf8(const cJSON *j, size_t *len)
{
	char *text = cJSON_PrintUnformatted(j);
	size_t n, ok;
	Buf b = {0};

	if (!text)
		return NULL;
	n = strlen(text);
	ok = utf8_valid_prefix(text, n);
	buf_append(&b, text, ok);
	buf_append_utf8(&b, text + ok, n - ok);
	cJSON_free(text);
	*len = b.len;
	return buf_take(&b);
}

void lsp__send(Server *s, cJSON *msg)
{
	char *text;
	size_t n;

	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	text = lsp__json_text_utf8(msg, &n);
	cJSON_Delete(msg);
	if (!text)
		return;
	send_raw(s, text, n);
	xfree(text);
}

static cJSON *copy_id(const cJSON *id)
{
	return id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull();
}

void lsp__reply(Server *s, const cJSON *id, cJSON *result)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddItemToObject(m, "id", copy_id(id));
	cJSON_AddItemToObject(m, "result",
			      result ? result : cJSON_CreateNull());
	lsp__send(s, m);
}

void lsp__error(Server *s, const cJSON *id, int code, const char *fmt, ...)
{
	cJSON *m = cJSON_CreateObject(), *e = cJSON_CreateObject();
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", text);
	cJSON_AddItemToObject(m, "id", copy_id(id));
	cJSON_AddItemToObject(m, "error", e);
	lsp__send(s, m);
}

void lsp__notify(Server *s, const char *method, cJSON *params)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "method", method);
	if (params)
		cJSON_AddItemToObject(m, "params", params);
	lsp__send(s, m);
}

void lsp__request(Server *s, const char *method, cJSON *params)
{
	cJSON *m = cJSON_CreateObject();
	char id[32];

	snprintf(id, sizeof(id), "castls-%lld",
		 (long long)++s->next_request_id);
	cJSON_AddStringToObject(m, "id", id);
	cJSON_AddStringToObject(m, "method", method);
	if (params)
		cJSON_AddItemToObject(m, "params", params);
	lsp__send(s, m);
}

void lsp__log(Server *s, int level, const char *fmt, ...)
{
	static const char *const names[] = {"error", "warn", "info", "debug"};
	static const int lsp_types[] = {1, 2, 3, 4};
	char text[1024];
	va_list ap;

	if (level > s->settings.log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	fprintf(stderr, "castls: %s: %s\n", names[level & 3], text);
	if (s->initialized && !s->exiting) {
		cJSON *p = cJSON_CreateObject();

		cJSON_AddNumberToObject(p, "type", lsp_types[level & 3]);
		cJSON_AddStringToObject(p, "message", text);
		lsp__notify(s, "window/logMessage", p);
	}
}
