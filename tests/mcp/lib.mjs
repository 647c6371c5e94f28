// lib.mjs: what the MCP tests share. The real castls binary ($CASTLS_BIN)
// as an MCP server behind the official TypeScript SDK's Client and
// StdioClientTransport, a small LSP client to ask the language server the
// same questions, scratch workspaces and caches, and the checks every
// test ends with (exit status 0, no sanitizer report on stderr).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const here = path.dirname(fileURLToPath(import.meta.url));
export const source = path.resolve(here, '../..');
export const workspaceSrc = path.join(source, 'tests/lsp/workspace');
export const bin = process.env.CASTLS_BIN;
// Generous: the server runs under ASan on a busy two-core machine.
export const TIMEOUT_MS = 60000;

if (!bin)
	throw new Error('CASTLS_BIN must name the castls binary');

/* ---------------------------------------------------------------------- *
 * Scratch directories
 * ---------------------------------------------------------------------- */

/* A fresh directory with a copy of tests/lsp/workspace in ws/ (a git
 * repository when git is there, for the git-root rule) and an empty
 * cache; removed when the process exits unless CASTLS_KEEP_SCRATCH. */
export function scratch(tag) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), `castls-mcp-${tag}-`));
	const ws = path.join(dir, 'ws');

	fs.cpSync(workspaceSrc, ws, { recursive: true });
	fs.mkdirSync(path.join(ws, '.git'));
	fs.mkdirSync(path.join(dir, 'cache'));
	if (!process.env.CASTLS_KEEP_SCRATCH)
		process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
	else
		console.error(`scratch: ${dir}`);
	return { dir, ws: fs.realpathSync(ws), cache: path.join(dir, 'cache') };
}

/* Every file under dir with its bytes: to show nothing was written. */
export function snapshotTree(dir) {
	const out = {};
	const walk = (d) => {
		for (const e of fs.readdirSync(d, { withFileTypes: true })) {
			const p = path.join(d, e.name);
			if (e.isDirectory())
				walk(p);
			else
				out[path.relative(dir, p)] = fs.readFileSync(p, 'base64');
		}
	};
	walk(dir);
	return out;
}

function checkStderr(text, who) {
	assert.doesNotMatch(text, /Sanitizer|runtime error/,
		`sanitizer report from ${who}:\n${text}`);
}

/* ---------------------------------------------------------------------- *
 * The MCP server through the SDK
 * ---------------------------------------------------------------------- */

/*
 * Starts `castls mcp ...args` through the SDK and connects (initialize,
 * notifications/initialized). opts: cwd, cache (XDG_CACHE_HOME),
 * capabilities (the client's), roots (a function answering roots/list),
 * onMessage (sees every message from the server). Returns
 * { client, transport, stderr(), close() }; close() ends the session as
 * the SDK does and checks the exit status and stderr.
 */
export async function mcpStart(args, opts = {}) {
	const transport = new StdioClientTransport({
		command: bin,
		args: ['mcp', ...args],
		cwd: opts.cwd,
		env: { ...process.env, XDG_CACHE_HOME: opts.cache ?? process.env.XDG_CACHE_HOME },
		stderr: 'pipe',
	});
	let err = '';
	transport.stderr.on('data', (d) => { err += d; });
	const client = new Client({ name: 'castls-tests', version: '1.0.0' },
		{ capabilities: opts.capabilities ?? {} });
	if (opts.roots) {
		const { ListRootsRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
		client.setRequestHandler(ListRootsRequestSchema, opts.roots);
	}
	await client.connect(transport, { timeout: TIMEOUT_MS });
	const proc = transport._process;
	const exited = new Promise((resolve) => proc.once('exit',
		(code, signal) => resolve({ code, signal })));
	if (opts.onMessage) {
		const orig = transport.onmessage;
		transport.onmessage = (m, extra) => { opts.onMessage(m); orig(m, extra); };
	}
	return {
		client,
		transport,
		proc,
		stderr: () => err,
		async close() {
			await client.close();
			const st = await exited;
			checkStderr(err, 'castls mcp');
			assert.deepEqual(st, { code: 0, signal: null },
				`castls mcp exit status; stderr:\n${err}`);
		},
	};
}

/* tools/call with the SDK, which checks structuredContent against the
 * tool's output schema (after listTools). */
export function call(client, name, args, options = {}) {
	return client.callTool({ name, arguments: args }, undefined,
		{ timeout: TIMEOUT_MS, ...options });
}

/* ---------------------------------------------------------------------- *
 * Raw JSON lines (what the SDK would not send)
 * ---------------------------------------------------------------------- */

/* castls mcp with stdin and stdout as pipes: send(text) writes a line,
 * next(pred) awaits the first message matching pred, end() closes stdin
 * and resolves with { code, signal, stderr }. */
export function rawStart(args, opts = {}) {
	const proc = spawn(bin, ['mcp', ...args], {
		cwd: opts.cwd,
		env: { ...process.env, XDG_CACHE_HOME: opts.cache ?? process.env.XDG_CACHE_HOME },
		stdio: ['pipe', 'pipe', 'pipe'],
	});
	let buf = '', err = '';
	const queue = [], waiters = [];
	const deliver = () => {
		for (let i = 0; i < waiters.length; i++) {
			const w = waiters[i];
			const k = queue.findIndex(w.pred);
			if (k >= 0) {
				waiters.splice(i--, 1);
				clearTimeout(w.timer);
				w.resolve(queue.splice(k, 1)[0]);
			}
		}
	};
	proc.stdout.on('data', (d) => {
		buf += d;
		let nl;
		while ((nl = buf.indexOf('\n')) >= 0) {
			const line = buf.slice(0, nl);
			buf = buf.slice(nl + 1);
			queue.push(JSON.parse(line)); // a line that is not JSON fails
		}
		deliver();
	});
	proc.stderr.on('data', (d) => { err += d; });
	const exited = new Promise((resolve) => proc.once('exit',
		(code, signal) => resolve({ code, signal })));
	return {
		proc,
		queue,
		stderr: () => err,
		send(text) { proc.stdin.write(text.endsWith('\n') ? text : text + '\n'); },
		next(pred = () => true, ms = TIMEOUT_MS) {
			return new Promise((resolve, reject) => {
				const w = { pred, resolve };
				w.timer = setTimeout(() => {
					waiters.splice(waiters.indexOf(w), 1);
					reject(new Error(`no matching message in ${ms} ms; ` +
						`queued: ${JSON.stringify(queue).slice(0, 2000)}`));
				}, ms);
				waiters.push(w);
				deliver();
			});
		},
		async end() {
			proc.stdin.end();
			const st = await exited;
			checkStderr(err, 'castls mcp');
			return { ...st, stderr: err };
		},
	};
}

/* ---------------------------------------------------------------------- *
 * The language server, for the same questions
 * ---------------------------------------------------------------------- */

export class Lsp {
	/* `castls serve` with args (e.g. --db), in cwd, cache as for MCP. */
	constructor(args, opts = {}) {
		this.proc = spawn(bin, ['serve', ...args], {
			cwd: opts.cwd,
			env: { ...process.env, XDG_CACHE_HOME: opts.cache ?? process.env.XDG_CACHE_HOME },
			stdio: ['pipe', 'pipe', 'pipe'],
		});
		this.buf = Buffer.alloc(0);
		this.err = '';
		this.nextId = 1;
		this.pending = new Map();
		this.proc.stdout.on('data', (d) => this.feed(d));
		this.proc.stderr.on('data', (d) => { this.err += d; });
		this.exited = new Promise((resolve) => this.proc.once('exit',
			(code, signal) => resolve({ code, signal })));
	}

	feed(d) {
		this.buf = Buffer.concat([this.buf, d]);
		for (;;) {
			const end = this.buf.indexOf('\r\n\r\n');
			if (end < 0)
				return;
			const m = /Content-Length: *(\d+)/i.exec(this.buf.slice(0, end).toString());
			const n = Number(m[1]);
			if (this.buf.length < end + 4 + n)
				return;
			const msg = JSON.parse(this.buf.slice(end + 4, end + 4 + n).toString());
			this.buf = this.buf.slice(end + 4 + n);
			if (msg.id !== undefined && !msg.method && this.pending.has(msg.id)) {
				const p = this.pending.get(msg.id);
				this.pending.delete(msg.id);
				if (msg.error)
					p.reject(new Error(`${msg.error.code}: ${msg.error.message}`));
				else
					p.resolve(msg.result);
			} else if (msg.id !== undefined && msg.method) {
				this.send({ jsonrpc: '2.0', id: msg.id, result: null });
			}
		}
	}

	send(msg) {
		const body = Buffer.from(JSON.stringify(msg));
		this.proc.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
		this.proc.stdin.write(body);
	}

	request(method, params) {
		const id = this.nextId++;
		this.send({ jsonrpc: '2.0', id, method, params });
		return new Promise((resolve, reject) => {
			const timer = setTimeout(() => reject(new Error(`${method}: no reply`)),
				TIMEOUT_MS);
			this.pending.set(id, {
				resolve: (v) => { clearTimeout(timer); resolve(v); },
				reject: (e) => { clearTimeout(timer); reject(e); },
			});
		});
	}

	notify(method, params) {
		this.send({ jsonrpc: '2.0', method, params });
	}

	async initialize(root) {
		await this.request('initialize', {
			processId: null, rootUri: `file://${root}`, capabilities: {},
		});
		this.notify('initialized', {});
	}

	/* Polls castls/status until nothing is indexing. */
	async waitIndexed() {
		for (let i = 0; i < TIMEOUT_MS / 100; i++) {
			const st = await this.request('castls/status', {});
			if (!st.indexing)
				return st;
			await new Promise((r) => setTimeout(r, 100));
		}
		throw new Error('the language server is still indexing');
	}

	open(root, rel) {
		const text = fs.readFileSync(path.join(root, rel), 'utf8');
		const ext = path.extname(rel);
		const languageId = { '.py': 'python', '.ts': 'typescript', '.sh': 'shellscript' }[ext] ?? 'plaintext';
		this.notify('textDocument/didOpen', {
			textDocument: { uri: `file://${root}/${rel}`, languageId, version: 1, text },
		});
		return text;
	}

	async close() {
		await this.request('shutdown', null);
		this.notify('exit', null);
		const st = await this.exited;
		checkStderr(this.err, 'castls serve');
		assert.deepEqual(st, { code: 0, signal: null },
			`castls serve exit status; stderr:\n${this.err}`);
	}
}

/* The items of an LSP castls/context or castls/search reply as MCP names
 * them: path relative to root, 1-based inclusive lines, symbol. */
export function lspItems(result, root) {
	return result.items.map((it) => ({
		path: decodeURIComponent(it.uri.replace(`file://${root}/`, '')),
		startLine: it.range.start.line + 1,
		endLine: it.range.end.line, // exclusive line 0-based = inclusive 1-based
		symbol: it.symbol,
	}));
}

export function mcpItems(structured) {
	return structured.items.map(({ path: p, startLine, endLine, symbol }) =>
		({ path: p, startLine, endLine, symbol }));
}
