/*
 * lsp_client.h: a small LSP client for the tests. It runs the real castls
 * binary ($CASTLS_BIN, set by CTest) as a child process over pipes, frames
 * and sends JSON, and reads framed replies with timeouts, keeping every
 * message it has read but not yet handed out in arrival order.
 *
 *	LspClient *c = lsp_client_start(dir, args);
 *	int id = lsp_client_request(c, "initialize", params);
 *	cJSON *reply = lsp_client_wait_id(c, id, LSP_TIMEOUT_MS);
 *	...
 *	code = lsp_client_finish(c, LSP_TIMEOUT_MS);
 *	lsp_client_delete(c);   // kills and reaps a child still running
 *
 * The server's stderr goes to a file in the scratch directory, so it can
 * never block on a full pipe; lsp_client_stderr reads it back and
 * lsp_client_sanitizer_report tells whether ASan, LSan or UBSan spoke.
 *
 * Also here, for every LSP test: scratch directories and a JSON pattern
 * matcher (lsp_json_match) with placeholders for volatile fields.
 */
#ifndef CASTLS_TEST_LSP_CLIENT_H
#define CASTLS_TEST_LSP_CLIENT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* How long a test waits for one reply, or for the server to exit. The
 * server runs under ASan in CI on a busy two-core machine: generous. */
#define LSP_TIMEOUT_MS 15000
/* Largest message body the client accepts from the server. */
#define LSP_CLIENT_MAX_BODY ((size_t)64 << 20)

typedef struct LspClient LspClient;

/*
 * Starts $CASTLS_BIN with argv[1..] = args (NULL-terminated, borrowed; may
 * be NULL for none), stdin and stdout on pipes, stderr into
 * dir/stderr-N.txt and XDG_CACHE_HOME=dir/cache so no test touches the
 * user's cache. dir (borrowed) must exist. Returns NULL, with a message
 * on stderr, when CASTLS_BIN is unset or the spawn fails.
 */
LspClient *lsp_client_start(const char *dir, const char *const *args);

/* `castls serve --db db` started in dir and initialized on root with
 * initializationOptions.maxChunkSize max_chunk, after its first scan;
 * NULL when it cannot be. */
LspClient *lsp_client_ready(const char *dir, const char *root,
			    const char *db, int max_chunk);

/* Waits until castls/status says no scan runs; false if none ends. */
bool lsp_client_wait_indexed(LspClient *c);

/* Kills the child if it still runs (SIGKILL), reaps it, frees c and every
 * queued message. NULL does nothing. */
void lsp_client_delete(LspClient *c);

/* Sends msg (borrowed) as one framed message, as it is: no "jsonrpc"
 * member is added. Returns 0, or -1 when the server stopped reading (it
 * exited, or took more than LSP_TIMEOUT_MS to accept the bytes). */
int lsp_client_send(LspClient *c, const cJSON *msg);
/* Sends n raw bytes (borrowed), framing included or not. Same returns. */
int lsp_client_send_raw(LspClient *c, const void *p, size_t n);

/* Sends a request with the next numeric id (1, 2, ...) and returns that
 * id, or -1 when sending failed. Takes params (may be NULL: no params
 * member). */
int lsp_client_request(LspClient *c, const char *method, cJSON *params);
/* Sends a notification; takes params (may be NULL). Returns 0 or -1. */
int lsp_client_notify(LspClient *c, const char *method, cJSON *params);

/* The oldest message not handed out yet, read within timeout_ms; NULL on
 * timeout or end of output. The caller deletes it. */
cJSON *lsp_client_next(LspClient *c, int timeout_ms);

typedef bool (*LspMsgPred)(const cJSON *msg, void *ctx);
/* The oldest message (queued, or arriving within timeout_ms) for which
 * pred is true; others stay queued in order. NULL on timeout or end of
 * output. The caller deletes it. */
cJSON *lsp_client_wait(LspClient *c, LspMsgPred pred, void *ctx,
		       int timeout_ms);
/* The reply (result or error) to the request with numeric id. */
cJSON *lsp_client_wait_id(LspClient *c, int id, int timeout_ms);
/* The reply to the request whose id equals id (borrowed; any type). */
cJSON *lsp_client_wait_reply(LspClient *c, const cJSON *id, int timeout_ms);
/* A request and its reply; takes params. NULL on timeout. */
cJSON *lsp_client_call(LspClient *c, const char *method, cJSON *params,
		       int timeout_ms);

/* Reads whatever arrives until quiet_ms pass without a message (or the
 * output ends) and queues it. */
void lsp_client_drain(LspClient *c, int quiet_ms);
/* The oldest queued message without reading more, or NULL. */
cJSON *lsp_client_pop(LspClient *c);

/* Closes the server's stdin (an abrupt end of input). */
void lsp_client_close_input(LspClient *c);
/* Waits up to timeout_ms for the child to exit, reading (and queueing)
 * its output meanwhile. Returns its exit code, 128 + signal when a signal
 * ended it, or -1 on timeout (the child keeps running). */
int lsp_client_wait_exit(LspClient *c, int timeout_ms);
/* Closes stdin and waits as lsp_client_wait_exit; on timeout kills the
 * child and returns -1. */
int lsp_client_finish(LspClient *c, int timeout_ms);

/* The server's process id. */
int lsp_client_pid(const LspClient *c);

/* The server's stderr so far (borrowed; valid until the next call). */
const char *lsp_client_stderr(LspClient *c);
/* True when stderr holds a sanitizer report ("ERROR: AddressSanitizer",
 * "LeakSanitizer", "runtime error"). */
bool lsp_client_sanitizer_report(LspClient *c);
/* A framing or JSON error in the server's output, or NULL if none so far
 * (borrowed). Output after such an error is not read. */
const char *lsp_client_output_error(const LspClient *c);

/* ---------------------------------------------------------------------- *
 * Scratch directories
 * ---------------------------------------------------------------------- */

/* Creates a fresh directory under $TMPDIR (or /tmp) named after tag and
 * returns its path (the caller's to free with lsp_scratch_remove). */
char *lsp_scratch_new(const char *tag);
/* Removes the directory and everything in it (unless CASTLS_KEEP_SCRATCH
 * is set: then it prints its path), then frees path. */
void lsp_scratch_remove(char *path);
/* Copies the tree at src into dst (created if missing). Returns 0 or -1. */
int lsp_copy_tree(const char *src, const char *dst);
/* Writes n bytes to path, replacing it. Returns 0 or -1. */
int lsp_write_file(const char *path, const char *data, size_t n);
/* "file://" + percent-encoded path; the caller frees with xfree. */
char *lsp_path_uri(const char *path);

/* ---------------------------------------------------------------------- *
 * JSON patterns
 * ---------------------------------------------------------------------- */

/*
 * True when actual matches pattern (both borrowed):
 * - an object matches an object that has every member of the pattern,
 *   each matching; other members are allowed. A member whose pattern is
 *   "$absent" must not be there.
 * - an array matches an array of the same length, element by element,
 *   unless its first element is a directive string:
 *     ["$contains", p...]  every p matches some distinct element
 *     ["$each", p]         every element matches p (an empty array too)
 *     ["$prefix", p...]    the first elements match p..., more may follow
 * - a string pattern: "$any" (anything), "$number", "$string", "$bool",
 *   "$object", "$array", "$nonempty" (a non-empty string or array),
 *   "$re:ERE" (a string matching the POSIX extended regex), or literal.
 * - numbers, booleans and null match equal values.
 * On a mismatch, why (cap bytes) gets the JSON path and both sides.
 */
bool lsp_json_match(const cJSON *pattern, const cJSON *actual, char *why,
		    size_t cap);

#endif
