// bench.mjs: context latency, castls mcp against castls serve, on the
// same cursors of a real repository (not a test: it prints figures).
//
//   CASTLS_BIN=build/release/castls node tests/mcp/bench.mjs [ROOT]
//       [--cursors N] [--runs N] [--files N]
//
// ROOT defaults to the Python standard library. Both servers use one
// scratch cache, so they share the index; the language server builds it
// first. Cursors are the ends of indented, non-comment lines in --files
// files (seeded, so runs repeat). The language server gets the files
// with didOpen and answers castls/context; the MCP server gets tools/call
// context {path, line}, through the official SDK client, and reads the
// file itself; a second MCP server is read with plain JSON lines, which
// leaves out the SDK's checks of each result (zod, and Ajv against the
// output schema). One request at a time, each cursor to every server in
// turn, with the default budget; times are round trips seen by the
// client. Percentiles are
// nearest-rank; with several runs, each figure is the median over runs.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
	const i = args.indexOf(`--${name}`);
	return i >= 0 ? Number(args.splice(i, 2)[1]) : dflt;
};
const NCURSORS = opt('cursors', 200), RUNS = opt('runs', 3), NFILES = opt('files', 20);
const root = fs.realpathSync(args[0] ?? execFileSync('python3',
	['-c', 'import sysconfig; print(sysconfig.get_paths()["stdlib"])'],
	{ encoding: 'utf8' }).trim());
const cache = fs.mkdtempSync(path.join(os.tmpdir(), 'castls-bench-mcp-'));
process.env.XDG_CACHE_HOME = cache;
process.on('exit', () => fs.rmSync(cache, { recursive: true, force: true }));
const { Lsp, call, mcpStart, rawStart } = await import('./lib.mjs');

/* A small seeded generator, so the cursors repeat. */
let seed = 17;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);

function pythonFiles(dir, out = []) {
	for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
		const p = path.join(dir, e.name);
		if (e.isDirectory() && !/^(site-packages|test|tests|__pycache__)$/.test(e.name))
			pythonFiles(p, out);
		else if (e.isFile() && e.name.endsWith('.py'))
			out.push(p);
	}
	return out;
}

function pickCursors() {
	const files = pythonFiles(root).filter((f) => {
		const n = fs.statSync(f).size;
		return n > 4000 && n < 200000;
	}).sort();
	const chosen = [];
	while (chosen.length < NFILES && files.length)
		chosen.push(files.splice(Math.floor(rand() * files.length), 1)[0]);
	const cursors = [];
	for (let k = 0; cursors.length < NCURSORS && k < NCURSORS * 50; k++) {
		const file = chosen[k % chosen.length];
		const lines = fs.readFileSync(file, 'utf8').split('\n');
		const i = Math.floor(rand() * lines.length);
		const l = lines[i];
		if (/^\s{4,}\S/.test(l) && !/^\s*#/.test(l) && !/[^\x00-\x7f]/.test(l))
			cursors.push({ file, rel: path.relative(root, file), line: i, character: l.length });
	}
	return { files: chosen, cursors };
}

function pct(xs, p) {
	const s = [...xs].sort((a, b) => a - b);
	return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}
const median = (xs) => pct(xs, 50);

const { files, cursors } = pickCursors();
console.log(`root ${root}: ${files.length} files, ${cursors.length} cursors, ` +
	`${RUNS} runs`);

/* The language server builds the index; the MCP server opens it after,
 * on the same root. Both stay up, and each cursor is asked of both in
 * turn (in alternating order), so that load on a shared machine falls
 * on both alike. */
const lsp = new Lsp([], { cache });
const t0 = performance.now();
await lsp.initialize(root);
await lsp.waitIndexed();
console.log(`castls serve: indexed in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
for (const f of files)
	lsp.open(root, path.relative(root, f));
const mcp = await mcpStart([root], { cache });
await mcp.client.listTools();
for (;;) {
	const r = await call(mcp.client, 'search', { query: 'import' });
	if (!r.structuredContent.indexing)
		break;
}
/* A second MCP server read with plain JSON lines: the server's part of
 * the round trip, without the SDK's checks of the result. */
const raw = rawStart([root], { cache });
raw.send(JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize',
	params: { protocolVersion: '2025-11-25', capabilities: {},
		clientInfo: { name: 'bench', version: '0' } } }));
await raw.next((m) => m.id === 0);
raw.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
let rawId = 0;
const askRaw = async (c) => {
	const id = ++rawId;
	raw.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call',
		params: { name: 'context', arguments: { path: c.rel, line: c.line + 1 } } }));
	return (await raw.next((m) => m.id === id)).result.structuredContent.items.length;
};
const askLsp = async (c) => (await lsp.request('castls/context', {
	textDocument: { uri: `file://${root}/${c.rel}` },
	position: { line: c.line, character: c.character },
})).items.length;
const askMcp = async (c) => (await call(mcp.client, 'context',
	{ path: c.rel, line: c.line + 1 })).structuredContent.items.length;
const timed = async (fn, c) => {
	const t = performance.now();
	const n = await fn(c);
	return [performance.now() - t, n];
};
const asks = [askLsp, askMcp, askRaw];
const runs = asks.map(() => []), items = asks.map(() => []);
for (let r = 0; r < RUNS; r++) {
	const times = asks.map(() => []);
	for (const [k, c] of cursors.entries()) {
		for (let j = 0; j < asks.length; j++) {
			const a = (j + k) % asks.length; /* rotate the order */
			const [ms, n] = await timed(asks[a], c);
			times[a].push(ms);
			if (r === 0)
				items[a].push(n);
		}
	}
	times.forEach((t, a) => runs[a].push(t));
}
await lsp.close();
await mcp.close();
const rawEnd = await raw.end();
if (rawEnd.code !== 0)
	throw new Error(`castls mcp (raw) exited ${rawEnd.code}`);

const row = (name, runs, items) => {
	const p50 = median(runs.map((t) => pct(t, 50)));
	const p99 = median(runs.map((t) => pct(t, 99)));
	const max = median(runs.map((t) => Math.max(...t)));
	const mean = items.reduce((a, b) => a + b, 0) / items.length;
	console.log(`${name.padEnd(26)} p50 ${p50.toFixed(2).padStart(7)} ms   ` +
		`p99 ${p99.toFixed(2).padStart(7)} ms   max ${max.toFixed(2).padStart(7)} ms   ` +
		`items ${mean.toFixed(1)}`);
};
console.log('context round trips, client side:');
row('castls/context (LSP)', runs[0], items[0]);
row('context (MCP, SDK)', runs[1], items[1]);
row('context (MCP, JSON lines)', runs[2], items[2]);
