#!/bin/sh
# run.sh TEST: one MCP test against the real castls ($CASTLS_BIN) with the
# official TypeScript SDK as the client: tests/mcp/TEST.test.mjs under
# node --test, or transcript:NAME for tests/mcp/transcripts/NAME.txt.
# Skips (77) when Node or the SDK (.ci/deps: npm ci here) is missing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
: "${CASTLS_BIN:?CASTLS_BIN must name the castls binary}"
command -v node >/dev/null 2>&1 || { echo "skipped: no node" >&2; exit 77; }
[ -f "$here/node_modules/@modelcontextprotocol/sdk/package.json" ] || {
	echo "skipped: the MCP SDK is not installed (.ci/deps)" >&2
	exit 77
}
cd "$here"
case $1 in
transcript:*) exec timeout 300 node transcript.mjs "${1#transcript:}" ;;
*) exec timeout 600 node --test --test-reporter=spec "$1.test.mjs" ;;
esac
