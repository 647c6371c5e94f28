/*
 * mcp_int.h: shared between the files of mcp/ only. The loop thread owns
 * the McpServer, its roots' state and every call; worker threads run tool
 * calls and scans with what a call carries, connections from the roots'
 * pools and a pooled Chunker.
 */
#ifndef CASTLS_MCP_INT_H
#define CASTLS_MCP_INT_H

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdatomic.h>
#include <uv.h>

#include "mcp.h"

/* JSON-RPC error codes (front doors only). */
enum {
	JSONRPC_PARSE_ERROR = -32700,
	JSONRPC_INVALID_REQUEST = -32600,
	JSONRPC_METHOD_NOT_FOUND = -32601,
	JSONRPC_INVALID_PARAMS = -32602,
	JSONRPC_INTERNAL_ERROR = -32603,
};

/* Limits on what a client sends. */
#define MCP_MAX_LINE ((size_t)8 << 20) /* bytes of one message */
#define MCP_MAX_JSON_DEPTH 64
#define MCP_MAX_BATCH 64 /* messages in one batch */
#define MCP_MAX_ROOTS 32
#define MCP_MAX_QUERY 2000 /* bytes of a search query */

/* How long things may take, in milliseconds. */
#define MCP_ROOTS_WAIT_MS 5000 /* for the client's roots/list reply */
#define MCP_INDEX_WAIT_MS                           \
	20000 /* a call with a progress token waits \
	       * this long for a first scan */
#define MCP_RESCAN_MS                                                 \
	1000			/* a call rescans (stamps only) roots \
				 * whose last scan ended this long ago */
#define MCP_REFRESH_WAIT_MS 500 /* and waits this long for that scan */
#define MCP_CONTEXT_RESCAN_MS                             \
	5000	    /* context, which reads its own file, \
		     * rescans this seldom, without waiting */
#define MCP_TREES 8 /* parse trees kept of files asked about */
#define MCP_PARSE_MAX                                              \
	(4u << 20)	/* larger texts are not parsed here (rank/ \
			 * draws the same line) */
#define MCP_TICK_MS 100 /* progress of waiting calls */

/* ---------------------------------------------------------------------- *
 * lines.c: one message per line
 * ---------------------------------------------------------------------- */

/* A line without its line break (borrowed for the call), or oversized
 * true (line NULL) once for a line longer than the limit, whose bytes
 * are dropped up to its end. */
typedef void (*LineFn)(void *ctx, const char *line, size_t len, bool oversized);

typedef struct {
	Buf buf;       /* the line so far */
	size_t max;    /* bytes */
	bool skipping; /* in a line over max */
	LineFn fn;
	void *ctx;
} LineReader;

void mcp__line_reader_init(LineReader *r, size_t max, LineFn fn, void *ctx);
/* Splits bytes into lines; borrows p. Blank lines are skipped. */
void mcp__line_reader_feed(LineReader *r, const char *p, size_t n);
/* End of input: a last line without a line break is delivered. */
void mcp__line_reader_end(LineReader *r);
void mcp__line_reader_close(LineReader *r);
/* Whether JSON text nests arrays and objects max_depth deep at most (a
 * bound before cJSON, which recurses). */
bool mcp__json_depth_ok(const char *s, size_t n, int max_depth);

/* ---------------------------------------------------------------------- *
 * The server
 * ---------------------------------------------------------------------- */

typedef struct McpServer McpServer;

/* A workspace root and its pool of database connections, one per worker
 * thread at a time. Roots are only ever appended (a root the client
 * drops is marked removed), so workers may hold one while the list
 * changes. */
typedef struct {
	char *path;		 /* canonical, no trailing slash */
	pthread_mutex_t mu;	 /* idle, nidle, verified */
	pthread_mutex_t open_mu; /* one index_open at a time: two
				  * connections creating a database at once
				  * can fail at the switch to WAL */
	Index *idle[8];
	int nidle;
	bool verified;	     /* the first connection ran quick_check */
	atomic_bool removed; /* no longer a root of the session */
	volatile int cancel; /* stops its scan */
	/* loop thread only */
	bool indexing;	     /* a scan runs, or waits its turn */
	bool queued;	     /* ... waits for another root's scan */
	bool scanned;	     /* a scan has completed */
	bool failed;	     /* the last scan failed (logged) */
	uint64_t scan_ended; /* uv_now of the last scan's end */
	/* under McpServer.progress_mu */
	ScanStats progress;
} McpRoot;

/* What the tools of tools.c see of the workspace on a worker thread: the
 * roots in use, with a connection each where one could be had. */
typedef struct {
	RankRoot rank[MCP_MAX_ROOTS]; /* ix NULL: no connection */
	McpRoot *from[MCP_MAX_ROOTS];
	char *prefix[MCP_MAX_ROOTS]; /* how its paths are named: "" with
				      * one root, "/root/" with several */
	uint32_t n;
} Workspace;

/* What a tool call has and makes, on a worker thread. */
typedef struct {
	McpServer *s;
	const cJSON *args;	/* valid for the tool's input schema */
	uint32_t budget;	/* the server's default budget */
	uint64_t max_file_size; /* bytes */
	bool indexing;		/* a first scan was running at the call */
	uint32_t files_done, files_seen; /* its progress then */
	/* the result */
	cJSON *out; /* structuredContent (owned) */
	Buf text;   /* the text content */
	bool is_error;
} ToolCall;

typedef struct {
	const char *name, *title, *description;
	const char *input_schema, *output_schema; /* JSON text */
	void (*run)(ToolCall *c);
	bool uses_index; /* answers from the index: waits for a first scan
			  * (with a progress token) and starts rescans */
	bool fresh;	 /* answers from the index alone: also waits for
			  * the rescan of files changed since the last one
			  * (context reads its own file from disk) */
} Tool;

typedef struct Batch Batch;
typedef struct Call Call;

/* The session. The loop thread owns everything here but what the
 * comments say workers touch. */
struct McpServer {
	uv_loop_t *loop;
	McpOptions opt;
	/* transport.c */
	uv_stream_t *in_stream; /* pipe or TTY; NULL when reading a file */
	uv_fs_t in_req;
	char in_buf[65536];
	uv_stream_t *out_stream; /* pipe or TTY; NULL: blocking writes */
	LineReader lines;
	/* the protocol */
	bool initialized;	/* initialize was answered */
	bool exiting;		/* input ended: finish what runs */
	int version;		/* negotiated, into the versions table */
	bool client_roots;	/* the client offers roots/list */
	bool roots_pending;	/* its first roots/list is unanswered */
	int64_t roots_request;	/* the id of our roots/list in flight, or 0 */
	int64_t next_id;	/* of our requests */
	uv_timer_t roots_timer; /* bounds roots_pending */
	uv_signal_t sigterm, sigint;
	/* the workspace: roots[i] is set before nroots counts it, and
	 * workers read nroots while roots may be added */
	char *initial[MCP_MAX_ROOTS]; /* from the command line (canonical) */
	uint32_t ninitial;
	McpRoot *roots[MCP_MAX_ROOTS];
	atomic_int nroots;
	/* calls */
	Call *running;	       /* queued on the thread pool */
	Call *waiting;	       /* for roots or a scan */
	bool scanning;	       /* a scan is on the thread pool: one at a
				* time (each uses every core), so that
				* calls always find a free worker */
	uv_timer_t wait_timer; /* ticks while calls wait */
	/* scan progress, from scan threads */
	uv_async_t progress_async;
	pthread_mutex_t progress_mu;
	/* chunkers for worker threads, and the trees of the last files
	 * context was asked about, under pool_mu */
	pthread_mutex_t pool_mu;
	Chunker *chunkers[16];
	int nchunkers;
	struct {
		char *path;    /* canonical; NULL: a free slot */
		uint64_t hash; /* castls_hash of the text parsed */
		uint32_t len;
		Lang lang;
		TSTree *tree;
		uint64_t used; /* for the least recently used */
	} trees[MCP_TREES];
	uint64_t tree_clock;
};

/* transport.c */
int mcp__transport_start(McpServer *s);
/* Stops reading; what is written still goes out. */
void mcp__transport_stop_input(McpServer *s);
/* Closes both ends, once nothing is left to write. */
void mcp__transport_close(McpServer *s);
/* Writes text (no line breaks in it) and a line break: one message. */
void mcp__transport_send(McpServer *s, const char *text, size_t len);

/* server.c: a line of input, or an oversized one (line NULL). */
void mcp__server_line(void *ctx, const char *line, size_t len, bool oversized);
/* Input ended (or a signal came): stop reading, cancel the scans, and
 * run the calls that wait at once; their replies still go out. */
void mcp__server_end(McpServer *s);

/* server.c, for tools.c: safe on worker threads. */
void mcp__workspace_borrow(McpServer *s, Workspace *w);
void mcp__workspace_return(McpServer *s, Workspace *w);
Chunker *mcp__server_chunker_acquire(McpServer *s);
void mcp__server_chunker_release(McpServer *s, Chunker *ch);
/* A parse of text, the file at path in lang, from the trees kept (a
 * copy, the caller's to ts_tree_delete) or by ch (then kept too); NULL
 * for a language without a grammar or a text over MCP_PARSE_MAX. As the
 * language server keeps its open documents' trees, so that asking about one
 * file again does not parse it again. */
TSTree *mcp__server_tree(McpServer *s, Chunker *ch, const char *path, Lang lang,
			 const char *text, uint32_t len);
/* Logs a line on stderr ("castls: mcp: ..."); level 0 errors always,
 * 1 notes unless quiet. Any thread. */
void mcp__log(McpServer *s, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---------------------------------------------------------------------- *
 * tools.c: the tool table
 * ---------------------------------------------------------------------- */

const Tool *mcp__tools_find(const char *name);
/* The tools/list entries for a protocol revision: outputSchema and
 * title only where structured, annotations where annotated. */
cJSON *mcp__tools_list_json(bool structured, bool annotated);
/* Sets c's error result: isError, and the message as its text. */
/* tools.c: a call's arguments. */
const char *mcp__arg_str(const ToolCall *c, const char *name);
uint32_t mcp__arg_u32(const ToolCall *c, const char *name, uint32_t dflt);
/* The call's token budget: its argument, else the server's default. */
uint32_t mcp__budget_of(const ToolCall *c);
/* Notes in the result that the workspace is still being indexed. */
void mcp__note_indexing(ToolCall *c);
/* definition.c: runs the definition tool. */
void mcp__definition_run(ToolCall *c);

void mcp__tool_error(ToolCall *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The JSON Schemas, parsed once before serving (0, or CASTLS_EINVAL for
 * a schema that does not parse: a bug), and freed after. */
int mcp__tools_init(void);
void mcp__tools_free(void);
/* Checks args against tool's input schema; false with the reason in
 * why (cap bytes) when they do not fit. */
bool mcp__tools_check_args(const Tool *tool, const cJSON *args, char *why,
			   size_t cap);

/* ---------------------------------------------------------------------- *
 * schema.c: the part of JSON Schema the tools' inputs use
 * ---------------------------------------------------------------------- */

/* Whether v fits schema (type, properties, required,
 * additionalProperties false, minimum, maximum, minLength, maxLength,
 * enum, items); false with the first reason, naming the argument, in
 * why. Borrows both. */
bool mcp__schema_check(const cJSON *schema, const cJSON *v, const char *where,
		       char *why, size_t cap);

/* ---------------------------------------------------------------------- *
 * paths.c: paths the client names, kept inside the roots
 * ---------------------------------------------------------------------- */

typedef struct {
	int root;	 /* index into Workspace.rank */
	char *real;	 /* canonical path (owned) */
	const char *rel; /* into real: relative to the root, "" the root */
	bool exists;	 /* false: the file is not there (yet) */
} ResolvedPath;

/*
 * Resolves path (relative to a root, tried in order, or absolute) to a
 * file inside one of w's roots, following symlinks and checking
 * containment by whole path components. A file that does not exist is
 * resolved through its nearest existing directory (exists false).
 * Returns 0, or CASTLS_EACCES (outside every root), CASTLS_EINVAL (a
 * directory, or not a regular file), with a message in why. On 0,
 * out->real is the caller's to xfree.
 */
int mcp__path_resolve(const Workspace *w, const char *path, ResolvedPath *out,
		      char *why, size_t cap);
/* The root to serve when none is given: the nearest directory up from
 * dir holding .git, else dir itself; canonical, the caller's to xfree,
 * or NULL when dir does not resolve. */
char *mcp__path_git_root(const char *dir);
/* Whether path lies at or under dir (both canonical), by whole path
 * components. */
bool mcp__path_within(const char *path, const char *dir);

/* ---------------------------------------------------------------------- *
 * render.c: tool results as JSON and text
 * ---------------------------------------------------------------------- */

/* The structured items for r's first n items. */
cJSON *mcp__render_items(const RankResult *r, uint32_t n,
			 const McpNames *names);
/* A line range as {startLine, endLine}, 1-based and inclusive, added to
 * o. */
void mcp__render_lines(cJSON *o, LineRange lines);
/* One Markdown block: `### label:lines — title`, the note (may be NULL
 * or hold several lines), then headers (may be NULL) and text in one
 * block fenced for lang (an info string, "" none). Borrows all. */
void mcp__render_block(Buf *b, const char *label, LineRange lines,
		       const char *title, const char *lang, const char *note,
		       const char *headers, const char *text);

/* server.c and roots.c: the work of the server's thread pool. */
/* A batch (2025-03-26): the replies of its requests, sent as one array
 * once the last of them is known. */
struct Batch {
	cJSON *replies;
	int pending; /* requests unanswered, plus one while dispatching */
};

/* A work request for the thread pool: a tool call or a scan. */
typedef struct Work Work;
struct Work {
	uv_work_t req;
	McpServer *s;
	void (*run)(Work *w);		       /* on a worker thread */
	void (*done)(Work *w, bool cancelled); /* on the loop; frees w */
};

struct Call {
	Work work;
	Call *next;	 /* in McpServer.running or McpServer.waiting */
	cJSON *id;	 /* owned */
	cJSON *token;	 /* progressToken (owned), or NULL */
	double progress; /* the last progress sent, -1 none */
	const Tool *tool;
	cJSON *args;	   /* owned */
	uint64_t deadline; /* uv_now when a waiting call runs anyway */
	bool cancelled;
	Batch *batch; /* NULL: not in one */
	ToolCall tc;
};

typedef struct {
	Work work;
	McpRoot *root;
	int jobs;
	int err;
	ScanStats stats;
} Scan;

/* server.c and roots.c: what each uses of the other. */
bool mcp__any_indexing(McpServer *s);
void mcp__ask_roots(McpServer *s);
void mcp__check_waiting(McpServer *s);
bool mcp__first_scan_running(McpServer *s);
void mcp__on_roots(McpServer *s, const cJSON *msg);
void mcp__on_roots_timeout(uv_timer_t *t);
bool mcp__refresh(McpServer *s, uint64_t after);
void mcp__root_free(McpRoot *r);
void mcp__roots_set(McpServer *s, char **paths, uint32_t n);
void mcp__scan_totals(McpServer *s, uint32_t *done, uint32_t *seen);
void mcp__work_queue(McpServer *s, Work *w);
int64_t mcp__request(McpServer *s, const char *method, cJSON *params);

#endif
