/*
 * server.h: the castls language server (LSP 3.17 over stdio).
 */
#ifndef CASTLS_SERVER_H
#define CASTLS_SERVER_H

#include <stdbool.h>

#include "rank/rank.h"

typedef struct {
	int in_fd, out_fd;   /* normally 0 and 1 */
	const char *db_path; /* overrides the per-root default; NULL */
} ServerOptions;

/* Serves until `exit` or the end of input. Returns the process exit code:
 * 0 after shutdown then exit (or end of input after shutdown), 1 when
 * input ends or `exit` comes without a shutdown first. */
int server_run(const ServerOptions *opt);

/* The JSON castls/context answers with for result r (roots[i] is the
 * path of root i; the buffer's own items are of the file at buffer_path),
 * appended to out: for the command line's --format json. */
void server_result_json(const RankResult *r, const char *const *roots,
			const char *buffer_path, Buf *out);

#endif
