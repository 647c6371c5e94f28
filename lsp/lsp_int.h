/*
 * lsp_int.h: shared between the files of lsp/ only. The loop thread owns
 * the Server (server_int.h) and every Document; a worker thread gets its
 * job's snapshot and what the job's Pools lend it, nothing else.
 */
#ifndef CASTLS_LSP_INT_H
#define CASTLS_LSP_INT_H

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdatomic.h>
#include <uv.h>

#include "framing.h"
#include "rank/rank.h"
#include "position.h"
#include "server.h"

/* JSON-RPC error codes (these exist only inside lsp/). */
enum {
	RPC_PARSE_ERROR = -32700,
	RPC_INVALID_REQUEST = -32600,
	RPC_METHOD_NOT_FOUND = -32601,
	RPC_INVALID_PARAMS = -32602,
	RPC_INTERNAL_ERROR = -32603,
	RPC_SERVER_NOT_INITIALIZED = -32002,
	RPC_REQUEST_FAILED = -32803,
	RPC_REQUEST_CANCELLED = -32800,
};

#define MAX_ROOTS 32
#define DEFAULT_BUDGET_TOKENS 2000
#define MAX_BUDGET_TOKENS 200000
#define PARK_MS 250 /* longest a request waits for buffer writes */

typedef struct Server Server;

/* Settings from initializationOptions and the `castls` section. */
typedef struct {
	uint32_t max_chunk_size;
	uint32_t budget_tokens;
	uint64_t max_file_size;
	char *exclude; /* patterns, one per line; NULL none */
	char *db_path; /* for a single root; NULL default */
	int log_level; /* 0 error, 1 warn, 2 info, 3 debug */
} Settings;

/* A workspace root with a pool of database connections, so worker
 * threads each get their own. */
typedef struct {
	char *path; /* absolute, no trailing slash */
	char *uri;
	pthread_mutex_t mu;
	pthread_mutex_t open_mu; /* one index_open at a time: two connections
				  * creating a new database at once can fail
				  * with SQLITE_BUSY at the switch to WAL */
	Index *idle[8];
	int nidle;
	bool indexing;		/* a scan is running */
	bool rescan;		/* another scan was asked for meanwhile */
	bool removed;		/* folder removed: close when idle */
	bool verified;		/* the first connection ran quick_check */
	bool checkpointing;	/* a checkpoint job is in flight */
	int busy;		/* connections handed out */
	atomic_bool stale;	/* a request met rows older than their file:
				 * set by workers, taken by the loop */
	uint64_t stale_scan_at; /* uv_now of the scan that set off, 0 none */
	int error;		/* castls code of the last failed index write (a
				 * scan's or a buffer's); 0 once a scan succeeds */
	/* Its connections' IndexOptions.lock_wait: a buffer's write goes
	 * ahead of a scan. */
	_Atomic int64_t lock_wait;
	/* The loop's: the stop flag of the root's merge job in flight
	 * (documents.c), NULL when none. */
	atomic_bool *merge_stop;
} Root;

/*
 * What worker threads may use of the server, each part safe from any
 * thread: the roots with their connection pools, a copy of the settings
 * a new connection opens with, and the pooled chunkers. The loop owns the
 * rest of Server; a worker gets this, its job's snapshot, and what it
 * borrows here.
 */
typedef struct {
	/* Roots are only appended, on the loop: roots[n] is set before
	 * nroots counts it, and workers read nroots while a folder may be
	 * added, hence atomic. */
	Root *roots[MAX_ROOTS];
	atomic_int nroots;
	pthread_mutex_t mu; /* guards the rest */
	char *db_path;	    /* the first root's database (--db, then
			     * dbPath); NULL: the default */
	uint32_t max_chunk_size;
	uint64_t max_file_size;
	char *exclude;
	Chunker *chunkers[16];
	int nchunkers;
} Pools;

/* Indexing progress: scan threads report into it, the loop sends it. */
typedef struct {
	uv_async_t async;   /* wakes the loop */
	pthread_mutex_t mu; /* guards the rest */
	ScanStats stats;    /* the last report */
	int root;	    /* of this root */
	bool dirty;	    /* not sent yet */
} Progress;

/* One contentChange as tree-sitter sees it, and the generation it made. */
typedef struct {
	TSInputEdit edit;
	uint64_t generation;
} DocEdit;

/*
 * An open document. Its syntax tree lags behind its text while typing:
 * edits are only recorded on the loop, and the worker that writes the
 * index replays them on a copy of the tree, reparses, and hands the new
 * tree back (see documents.c). lsp__doc_find brings the tree up to date
 * before a request snapshots the document.
 */
typedef struct Document {
	char *uri;
	char *path; /* absolute file path, or NULL for other schemes */
	int root;   /* index into Server.roots, or -1 */
	char *rel;  /* path relative to that root, or NULL */
	Lang lang;
	int32_t version;
	Buf text;
	LineIndex lines;
	uint32_t mark, mark_row; /* a byte of text and the newlines before
				  * it: rows of edits nearby count from it */
	TSTree *tree;	    /* a parse of the text as of tree_gen, or NULL (none
			     * yet, Markdown, unknown languages, over 4 MiB) */
	uint64_t tree_gen;  /* generation that tree parses */
	uint64_t reset_gen; /* last generation that replaced the whole text:
			     * no tree from before it may come back */
	DocEdit *edits;	    /* the edits after tree_gen (after reset_gen
			     * while tree is NULL), oldest first */
	uint32_t nedits, edits_cap;
	uint64_t serial;     /* tells this opening of uri from earlier ones */
	uint64_t generation; /* bumped by every change */
	uint64_t written;    /* generation last written to the index */
	bool writing;	     /* an index write is in flight */
	Chunking *rows;	     /* what the index holds for the text as of
			      * rows_gen, to carry across the next edits
			      * until they are parsed; NULL while a write
			      * has it, or when unknown */
	uint64_t rows_gen;
	uint64_t rows_hash; /* castls_hash of the text rows are of */
	bool rows_chunked;  /* rows are the chunker's answer for their
			     * text, not carried across edits */
	atomic_bool *stop;  /* set: the write in flight may give up its
			     * parse, a newer text is waiting */
	uint32_t stops;	    /* parses given up in a row */
	struct Document *next;
} Document;

/*
 * One unit of work for the thread pool. run() runs on a worker thread and
 * sets either result or err/msg; then on the loop, a request gets its
 * reply (or -32800 if it was cancelled), done() applies side effects, and
 * release() frees the job. Jobs embed this struct as their first member.
 */
typedef struct Job Job;
struct Job {
	uv_work_t req;
	Server *s;    /* the loop's: done() and release() only */
	Pools *pools; /* what run() may use besides the job */
	void (*run)(Job *j);
	void (*done)(Job *j);	 /* optional */
	void (*release)(Job *j); /* frees the job */
	cJSON *id;		 /* request id (owned); NULL: internal job */
	cJSON *result;		 /* reply for a request (owned) */
	int err;		 /* JSON-RPC error code, or 0 */
	char msg[256];
	bool cancelled;	  /* $/cancelRequest arrived */
	struct Job *next; /* in Server.requests while in flight */
};

/* transport.c */
int lsp__transport_start(Server *s);
void lsp__transport_stop(Server *s);
/* j (borrowed) as unformatted JSON text, valid UTF-8 whatever bytes its
 * strings hold: each byte that begins no well-formed sequence becomes
 * U+FFFD. NULL when cJSON cannot print it; else the caller xfrees it,
 * and *len is its length. */
char *lsp__json_text_utf8(const cJSON *j, size_t *len);
/* Sends a JSON value as one message; takes msg. */
void lsp__send(Server *s, cJSON *msg);
void lsp__reply(Server *s, const cJSON *id, cJSON *result);
void lsp__error(Server *s, const cJSON *id, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void lsp__notify(Server *s, const char *method, cJSON *params);
/* Sends a request to the client; its reply is ignored. */
void lsp__request(Server *s, const char *method, cJSON *params);
/* Logs to stderr and, at or under the log level, window/logMessage. */
void lsp__log(Server *s, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* server.c */
void lsp__server_dispatch(Server *s, const char *body, size_t len);
void lsp__server_queue(Server *s, Job *j);
/* lsp__server_queue once no document write is in flight (or PARK_MS
 * passed). */
void lsp__server_queue_fresh(Server *s, Job *j);
/* A document write finished (documents.c). */
void lsp__server_doc_written(Server *s);
/* A connection to root r's database, from its pool or opened with the
 * settings of p; NULL with *err set when none can be had. Safe from any
 * thread; give it back with lsp__pools_index_return. */
Index *lsp__pools_index(Pools *p, Root *r, int *err);
void lsp__pools_index_return(Root *r, Index *ix);
/* A chunker of the current maximum size; give it back with
 * lsp__pools_chunker_return. Safe from any thread. */
Chunker *lsp__pools_chunker(Pools *p);
void lsp__pools_chunker_return(Pools *p, Chunker *ch);
/* On the loop, after the settings change: what new connections and
 * chunkers are made with. cli_db (--db) takes the place of dbPath. */
void lsp__pools_configure(Pools *p, const Settings *st, const char *cli_db);
/* Closes the idle connections, so new ones pick up changed settings. */
void lsp__pools_flush(Pools *p);
void lsp__pools_init(Pools *p);
/* Frees what p holds; the roots are the server's to free. */
void lsp__pools_close(Pools *p);
/* The root holding path (a canonical path, see lsp__path_real) strictly
 * below it, the innermost when roots nest, with *rel (may be NULL) the
 * rest of path after it; -1 when no root holds it. */
int lsp__root_of_path(Server *s, const char *path, const char **rel);
void lsp__server_reindex(Server *s, int root);
/* On the loop: re-scans the roots a worker marked stale. */
void lsp__server_stale(Server *s);
/* Whether a scan of any root is under way. */
bool lsp__server_indexing(Server *s);
/* Records that writing root's index failed with err (a castls code):
 * castls/status shows it, and the user is told once, by
 * window/showMessage, until the error changes or a scan succeeds. */
void lsp__root_failed(Server *s, int root, int err);

/* documents.c */
/* The open document for uri, or NULL. Its tree is brought up to date with
 * its text first (a reparse on the loop when edits are pending), since the
 * callers snapshot it. */
Document *lsp__doc_find(Server *s, const char *uri);
/* On the loop: tree (taken), a parse of the text of uri's opening serial
 * as of generation gen made on a worker, becomes the document's when it
 * is newer than its own; otherwise it is freed. */
void lsp__doc_offer_tree(Server *s, const char *uri, uint64_t serial,
			 uint64_t gen, TSTree *tree);
void lsp__doc_open(Server *s, const cJSON *params);
void lsp__doc_change(Server *s, const cJSON *params);
void lsp__doc_close(Server *s, const cJSON *params);
void lsp__doc_save(Server *s, const cJSON *params);
void lsp__doc_free(Document *d);
/* Frees the trees kept of closed documents. */
void lsp__doc_closed_free(Server *s);
/* Byte offset of an LSP position in d (clamped). */
uint32_t lsp__doc_offset(const Server *s, const Document *d, const cJSON *pos);
/* An LSP position object for byte off in d. */
cJSON *lsp__doc_position(const Server *s, const Document *d, uint32_t off);
/* Schedules writing d's rows to the index (coalesced). */
void lsp__doc_schedule_write(Server *s, Document *d);
/* After a scan of d's root, which wrote the disk's text: d's rows again,
 * without holding up requests when the index had them before. */
void lsp__doc_refresh(Server *s, Document *d);

/* uri helpers (documents.c) */
/* The path of a "file:" URI with its escapes decoded, as it is (".",
 * ".." and symlinks left for lsp__path_real); NULL for other schemes and for
 * a URI that cannot name a path. The caller frees the result. */
char *lsp__uri_to_path(const char *uri);
/* The URI of an absolute path (borrowed); the caller frees it. */
char *lsp__path_to_uri(const char *path);
/* The URI of file rel under root (a path without trailing slash; both
 * borrowed), whatever the root, "/" included. The caller frees it. */
char *lsp__uri_in_root(const char *root, const char *rel);
/*
 * The one canonical name of absolute path (borrowed): its real path,
 * with ".", "..", duplicate slashes and symlinks resolved as the kernel
 * would. A tail that does not exist yet (a new file) is kept, free of
 * "." and duplicate slashes. NULL when no such name can be trusted: the
 * missing tail climbs with "..", holds a dangling symlink, or an entry
 * cannot be resolved (a loop, no permission). The caller frees it.
 */
char *lsp__path_real(const char *path);
/* lsp__path_real of uri's path; NULL as either says, or for a NULL uri. */
char *lsp__uri_path_real(const char *uri);

/* A read-only copy of an open document for a worker thread. */
typedef struct {
	char *uri, *rel;
	int root;
	Lang lang;
	char *text;
	uint32_t len;
	TSTree *tree; /* a copy; NULL without a grammar, or none kept yet */
	uint64_t serial, generation; /* the document's, when taken */
	LineIndex lines;
	PosMarks marks; /* built by lsp__snapshot_marks, on the worker */
	PosEncoding encoding;
} Snapshot;

void lsp__snapshot_take(Snapshot *sn, const Server *s, const Document *d);
void lsp__snapshot_free(Snapshot *sn);
/* Builds sn->marks, for the many positions of a reply (on the worker:
 * it reads the whole text). */
void lsp__snapshot_marks(Snapshot *sn);

/* The largest document the server chunks or indexes: maxFileSize. */
uint64_t lsp__max_file_size(const Server *s);

/* context.c: castls/context for a snapshot, and castls/search, on a
 * worker thread. */
typedef struct {
	uint32_t cursor; /* byte offset */
	uint32_t budget; /* tokens */
	uint32_t limit;	 /* items at most */
} ContextArgs;
cJSON *lsp__context_run(Pools *p, const Snapshot *sn, const ContextArgs *a);
cJSON *lsp__search_run(Pools *p, const char *query, uint32_t budget,
		       uint32_t limit);

/* render.c: the result of rank_context or rank_search as JSON; roots[i]
 * is the path of root i, buffer_uri the uri of the buffer's own items. */
cJSON *lsp__render_result(const RankResult *r, const char *const *roots,
			  const char *buffer_uri);
/* An LSP range of whole lines. */
cJSON *lsp__render_lines(LineRange lines);

/* requests.c */
void lsp__req_document_symbol(Server *s, const cJSON *id, const cJSON *params);
void lsp__req_workspace_symbol(Server *s, const cJSON *id, const cJSON *params);
void lsp__req_context(Server *s, const cJSON *id, const cJSON *params);
void lsp__req_search(Server *s, const cJSON *id, const cJSON *params);
void lsp__req_chunks(Server *s, const cJSON *id, const cJSON *params);
void lsp__req_status(Server *s, const cJSON *id, const cJSON *params);
/* The loop's part of castls/status: the roots not removed, whose indexes
 * into the roots go to root_of (MAX_ROOTS of room). */
cJSON *lsp__status_json(Server *s, int *root_of);

#endif
