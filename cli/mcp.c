/*
 * mcp.c: `castls mcp [ROOT...]`, the MCP server for AI agents on stdio.
 */
#include <stdio.h>

#include "cli_int.h"
#include "mcp/mcp.h"

int cli_mcp(int argc, char **argv)
{
	McpOptions mo = {0};
	Opts o;
	int code = cli_parse_opts(argc, argv, &o, false);

	if (code)
		return code;
	mo.in_fd = 0;
	mo.out_fd = 1;
	mo.roots = o.args;
	mo.nroots = (uint32_t)o.nargs;
	mo.db_path = o.db;
	mo.max_chunk_size = o.max_size;
	mo.max_file_size = o.max_file_size;
	mo.exclude = o.exclude.len ? o.exclude.data : NULL;
	mo.budget = o.budget;
	mo.quiet = o.quiet;
	code = mcp_run(&mo);
	cli_opts_free(&o);
	return code;
}
