/*
 * transport.c: stdin and stdout for the MCP server, one JSON-RPC message
 * per line (the MCP stdio transport). Input may be a pipe, a TTY or a
 * regular file; output a pipe, a TTY or a file. A message is written at
 * once when the peer can take it and queued on the loop otherwise, so
 * the loop never blocks on a slow reader.
 */
#include "mcp_int.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------------- *
 * Input
 * ---------------------------------------------------------------------- */

static void alloc_cb(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	McpServer *s = h->data;

	(void)hint;
	*buf = uv_buf_init(s->in_buf, sizeof(s->in_buf));
}

static void input_end(McpServer *s)
{
	mcp__line_reader_end(&s->lines);
	mcp__server_end(s);
}

static void read_cb(uv_stream_t *st, ssize_t n, const uv_buf_t *buf)
{
	McpServer *s = st->data;

	if (n > 0)
		mcp__line_reader_feed(&s->lines, buf->base, (size_t)n);
	else if (n < 0)
		input_end(s);
}

static void file_read_cb(uv_fs_t *req);

static void file_read_next(McpServer *s)
{
	uv_buf_t b = uv_buf_init(s->in_buf, sizeof(s->in_buf));

	uv_fs_read(s->loop, &s->in_req, s->opt.in_fd, &b, 1, -1, file_read_cb);
}

static void file_read_cb(uv_fs_t *req)
{
	McpServer *s = req->data;
	ssize_t n = req->result;

	uv_fs_req_cleanup(req);
	if (n > 0)
		mcp__line_reader_feed(&s->lines, s->in_buf, (size_t)n);
	if (n > 0 && !s->exiting)
		file_read_next(s);
	else if (n <= 0)
		input_end(s);
}

/* A stream handle for fd, or NULL when fd is a file (or unknown). */
static uv_stream_t *open_stream(McpServer *s, int fd, bool readable)
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

int mcp__transport_start(McpServer *s)
{
	mcp__line_reader_init(&s->lines, MCP_MAX_LINE, mcp__server_line, s);
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

void mcp__transport_stop_input(McpServer *s)
{
	if (s->in_stream)
		uv_read_stop(s->in_stream);
	close_stream(&s->in_stream);
}

void mcp__transport_close(McpServer *s)
{
	mcp__transport_stop_input(s);
	close_stream(&s->out_stream);
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

void mcp__transport_send(McpServer *s, const char *text, size_t len)
{
	uv_stream_t *st = s->out_stream;
	char *msg = xmalloc(len + 1);
	size_t done = 0;
	WriteReq *w;
	uv_buf_t b;

	memcpy(msg, text, len);
	msg[len] = '\n';
	if (!st) {
		/* A file (tests, the fuzzer): nothing to wait for. */
		write_all_blocking(s->opt.out_fd, msg, len + 1);
		xfree(msg);
		return;
	}
	if (uv_stream_get_write_queue_size(st) == 0) {
		int r;

		b = uv_buf_init(msg, (unsigned)(len + 1));
		r = uv_try_write(st, &b, 1);
		if (r > 0)
			done = (size_t)r;
	}
	if (done == len + 1) {
		xfree(msg);
		return;
	}
	w = xcalloc(1, sizeof(*w));
	w->data = msg;
	b = uv_buf_init(msg + done, (unsigned)(len + 1 - done));
	if (uv_write(&w->req, st, &b, 1, write_cb) != 0)
		write_cb(&w->req, -1);
}
