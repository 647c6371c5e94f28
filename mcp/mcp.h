/*
 * mcp.h: castls for AI agents. An MCP (Model Context Protocol) server on
 * stdio, JSON-RPC 2.0 with one message per line, whose tools (context,
 * search, definition, outline) call rank/ and index/ directly; and the
 * Markdown rendering of ranked items that both its tools and
 * `castls context --format prompt` print.
 *
 * The server shares the per-root databases of the language server
 * (index_default_db_path, or --db for the first root): the two may run
 * on one root at once. It never writes inside a workspace root.
 */
#ifndef CASTLS_MCP_H
#define CASTLS_MCP_H

#include "rank/rank.h"

/* A budget when the caller gives none, and the most one may ask for. */
#define MCP_DEFAULT_BUDGET 2000
#define MCP_MAX_BUDGET 200000

typedef struct {
	int in_fd, out_fd;	  /* normally 0 and 1 */
	const char *const *roots; /* workspace roots (borrowed; need not be
				   * canonical); none: the git root of the
				   * working directory, else the directory
				   * itself. Roots the client lists
				   * (roots/list) replace them. */
	uint32_t nroots;
	const char *db_path;	 /* the database of the first root given;
				  * NULL: the default per-root path */
	uint32_t max_chunk_size; /* 0: CHUNKER_DEFAULT_MAX_SIZE */
	uint64_t max_file_size;	 /* 0: INDEX_DEFAULT_MAX_FILE */
	const char *exclude;	 /* ignore patterns, one per line; NULL */
	uint32_t budget;	 /* tokens when a call names none; 0:
				  * MCP_DEFAULT_BUDGET */
	bool quiet;		 /* nothing on stderr but errors */
} McpOptions;

/*
 * Serves MCP on opt->in_fd and opt->out_fd until the end of input (or
 * SIGINT, SIGTERM), then waits for the work in flight and returns the
 * process exit code: 0, or 2 when a root given does not exist (nothing
 * is served then), 1 when the input cannot be read. Borrows opt.
 */
int mcp_run(const McpOptions *opt);

/* ---------------------------------------------------------------------- *
 * Ranked items as Markdown for a prompt
 * ---------------------------------------------------------------------- */

/* How the items of a RankResult are named in a rendering. */
typedef struct {
	const char *const *roots; /* prefix of root i's paths ("" for none,
				   * else ending in '/'); borrowed */
	const char *buffer;	  /* the name of the buffer's own items */
} McpNames;

/*
 * Appends r's items to out as Markdown, best first, each a
 * `### path:first-last — symbol` header, why it ranked in words, and its
 * code in a fenced block under the headers of its enclosing definitions.
 * Items are added while the whole text appended stays within budget
 * tokens (rank_tokens of its bytes: headers and fences count), so the
 * last items of r may be left out. Returns how many were shown; *tokens
 * (may be NULL) gets the tokens of the text appended. Borrows everything.
 */
uint32_t mcp_prompt_items(const RankResult *r, const McpNames *names,
			  uint32_t budget, Buf *out, uint32_t *tokens);

#endif
