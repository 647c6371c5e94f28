/*
 * cli_int.h: shared between the files of cli/ only.
 */
#ifndef CASTLS_CLI_INT_H
#define CASTLS_CLI_INT_H

#include "rank/rank.h"

/* Options shared by the subcommands; each takes the ones it needs. */
typedef struct {
	const char **args; /* positional arguments */
	int nargs;
	uint32_t max_size;
	uint64_t max_file_size;
	uint32_t limit;
	int jobs;
	bool json, quiet;
	const char *db;
	const char *root; /* --root */
	uint32_t budget;  /* --budget, tokens */
	uint32_t nlimit;  /* --limit as given, 0 when absent */
	Buf exclude;	  /* --exclude patterns, one per line */
} Opts;

/* Prints what was wrong and the usage; returns the exit code 2. */
int cli_usage_error(const char *what);
/* A whole number in [lo, hi], or -1. */
long long cli_number(const char *s, long long lo, long long hi);
/* Reads argv into *o; 0, or an exit code after a message. */
int cli_parse_opts(int argc, char **argv, Opts *o, bool json_default);
void cli_opts_free(Opts *o);
/* Opens the index of root for the command's options; prints the reason
 * and returns non-zero on failure. scan: the command writes it. */
int cli_open_index(const Opts *o, const char *root, Index **ix, bool scan);

/* root.c: the root of the project file (an absolute, real path) is in:
 * the git repository around it, else the nearest directory with a
 * project file (pyproject.toml, package.json, go.mod, ...), into out
 * (PATH_MAX bytes). -1 when there is none, or only / or the home
 * directory. */
int cli_project_root(const char *file, char *out);
/* Whether dir is / or the home directory: too wide to index unasked. */
bool cli_too_wide(const char *dir);

/* context.c: castls context FILE:LINE[:COL]. */
int cli_context(int argc, char **argv);
/* mcp.c: castls mcp [ROOT...], the MCP server. */
int cli_mcp(int argc, char **argv);

#endif
