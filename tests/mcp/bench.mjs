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
// file itself. Both are asked one request at a time, with the default
// budget; times are round trips seen by the client. Percentiles are
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
const { Lsp, call, mcpStart } = await import('./lib.mjs');

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

/* The language server: indexes, then answers. */
const lsp = new Lsp([], { cache });
let t0 = performance.now();
await lsp.initialize(root);
await lsp.waitIndexed();
console.log(`castls serve: indexed in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
for (const f of files)
	lsp.open(root, path.relative(root, f));
const lspRuns = [], lspItems = [];
for (let r = 0; r < RUNS; r++) {
	const times = [];
	for (const c of cursors) {
		const t = performance.now();
		const res = await lsp.request('castls/context', {
			textDocument: { uri: `file://${root}/${c.rel}` },
			position: { line: c.line, character: c.character },
		});
		times.push(performance.now() - t);
		if (r === 0)
			lspItems.push(res.items.length);
	}
	lspRuns.push(times);
}
await lsp.close();

/* The MCP server on the same index. */
const mcp = await mcpStart([root], { cache });
await mcp.client.listTools();
for (;;) {
	const r = await call(mcp.client, 'search', { query: 'import' });
	if (!r.structuredContent.indexing)
		break;
}
const mcpRuns = [], mcpItems = [];
for (let r = 0; r < RUNS; r++) {
	const times = [];
	for (const c of cursors) {
		const t = performance.now();
		const res = await call(mcp.client, 'context', { path: c.rel, line: c.line + 1 });
		times.push(performance.now() - t);
		if (r === 0)
			mcpItems.push(res.structuredContent.items.length);
	}
	mcpRuns.push(times);
}
await mcp.close();

const row = (name, runs, items) => {
	const p50 = median(runs.map((t) => pct(t, 50)));
	const p99 = median(runs.map((t) => pct(t, 99)));
	const max = median(runs.map((t) => Math.max(...t)));
	const mean = items.reduce((a, b) => a + b, 0) / items.length;
	console.log(`${name.padEnd(24)} p50 ${p50.toFixed(2).padStart(7)} ms   ` +
		`p99 ${p99.toFixed(2).padStart(7)} ms   max ${max.toFixed(2).padStart(7)} ms   ` +
		`items ${mean.toFixed(1)}`);
};
console.log('context round trips, client side:');
row('castls/context (LSP)', lspRuns, lspItems);
row('tools/call context (MCP)', mcpRuns, mcpItems);
