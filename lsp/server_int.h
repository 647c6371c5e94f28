/*
 * server_int.h: the server's state, for the files of lsp/ that run on the
 * loop (server.c, transport.c, documents.c, requests.c). The loop thread
 * owns all of it; worker threads see only their job's snapshot and the
 * Pools it lends them (lsp_int.h), never this.
 */
#ifndef CASTLS_SERVER_INT_H
#define CASTLS_SERVER_INT_H

#include "lsp_int.h"

struct Server {
	uv_loop_t *loop;
	ServerOptions opt;
	/* transport */
	uv_stream_t *in_stream; /* pipe or TTY; NULL when reading a file */
	uv_fs_t in_req;
	char in_buf[65536];
	uv_stream_t *out_stream; /* pipe or TTY; NULL: blocking writes */
	Framer *framer;
	uv_signal_t sigpipe;
	/* protocol state */
	bool initialized, shutdown, exiting;
	int exit_code;
	PosEncoding encoding;
	bool cap_work_progress, cap_configuration, cap_watch_dynamic;
	int64_t next_request_id;
	/* workspace */
	Pools pools; /* the roots, and what workers may use */
	Settings settings;
	Document *docs;
	Document *closed; /* recently closed: disk text and tree */
	Job *requests;	  /* in flight, for $/cancelRequest */
	int jobs_in_flight;
	/* Requests that read the index wait for the buffers' writes in
	 * flight, at most PARK_MS: they must see the text the client sent
	 * before them. */
	Job *parked, **parked_tail;
	uint32_t doc_writes; /* document index writes queued or running */
	uint32_t new_writes; /* of those, what the index does not hold yet
			      * (not refreshes after a scan): what parked
			      * requests wait for */
	Job *writes, **writes_tail; /* queued behind the running one: one at
				     * a time, in order, so a reopened file's
				     * rows never lose to its disk refresh */
	uv_timer_t park_timer;
	volatile int cancel_scans; /* set on shutdown and exit */
	Progress progress;	   /* indexing, from scan threads */
	char progress_token[48];
	bool progress_begun;
};

/* settings.c */
void lsp__settings_defaults(Settings *st);
void lsp__settings_free(Settings *st);
/* Applies the settings in obj (either the castls section itself or an
 * object holding a "castls" member), saying which values it refuses.
 * Returns true when a setting that changes the index (chunk size,
 * excludes, file size) changed. */
bool lsp__settings_apply(Server *s, const cJSON *obj);

#endif
