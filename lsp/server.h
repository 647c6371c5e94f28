/*
 * server.h: the castls language server (LSP 3.17 over stdio).
 */
#ifndef CASTLS_SERVER_H
#define CASTLS_SERVER_H

#include <stdbool.h>

typedef struct {
	int in_fd, out_fd; /* normally 0 and 1 */
	const char *db_path; /* overrides the per-root default; NULL */
} ServerOptions;

/* Serves until `exit` or the end of input. Returns the process exit code:
 * 0 after shutdown then exit (or end of input after shutdown), 1 when
 * input ends or `exit` comes without a shutdown first. */
int server_run(const ServerOptions *opt);

/* `castls context`: brings the index of root up to date, then prints the
 * ranked context for a cursor (1-based line and column, UTF-8 bytes) in
 * file, as JSON or as text. Returns the exit code. */
typedef struct {
	const char *root, *file, *db_path;
	unsigned line, column, budget, limit;
	bool json;
} ContextCli;

int server_context_cli(const ContextCli *c);

#endif
