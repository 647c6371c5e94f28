'use strict';
/*
 * protocol.test.js: the requests the extension sends, sent to the real
 * castls through vscode-jsonrpc (the same protocol path the extension
 * takes), and the extension's formatting of the replies.
 *
 * Environment: CASTLS_SERVER (the castls executable, or a wrapper),
 * CASTLS_TEST_REPO (a repository from tests/editors/make-repo.sh);
 * XDG_CACHE_HOME should point to a scratch directory.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const cp = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');
const rpc = require('vscode-languageserver-protocol/node');
const format = require('../out/format.js');

const SERVER = process.env.CASTLS_SERVER;
const REPO = process.env.CASTLS_TEST_REPO;
const TIMEOUT_MS = 30000;

const uriOf = (rel) => pathToFileURL(path.join(REPO, rel)).href;
const label = (uri) => path.relative(REPO, new URL(uri).pathname);

/* Resolves when pred(value) holds for a $/progress value. */
function progressUntil(state, pred) {
	return new Promise((resolve, reject) => {
		const timer = setTimeout(() => reject(new Error(
			`no such progress in ${TIMEOUT_MS} ms: ` +
			JSON.stringify(state.progress))), TIMEOUT_MS);
		const check = () => {
			if (state.progress.some(pred)) {
				clearTimeout(timer);
				resolve();
				return true;
			}
			return false;
		};
		if (!check())
			state.waiters.push(check);
	});
}

test('castls over vscode-jsonrpc', { timeout: 90000 }, async (t) => {
	assert.ok(SERVER && REPO, 'CASTLS_SERVER and CASTLS_TEST_REPO are set');
	const proc = cp.spawn(SERVER, ['serve'], { stdio: ['pipe', 'pipe',
		'pipe'] });
	let stderr = '';
	proc.stderr.on('data', (d) => (stderr += d));
	const exited = new Promise((resolve) => proc.on('exit', resolve));
	const conn = rpc.createProtocolConnection(
		new rpc.StreamMessageReader(proc.stdout),
		new rpc.StreamMessageWriter(proc.stdin));
	const state = { progress: [], waiters: [], created: [] };

	conn.onRequest(rpc.WorkDoneProgressCreateRequest.type, (p) => {
		state.created.push(p.token);
		conn.onProgress(rpc.WorkDoneProgress.type, p.token, (v) => {
			state.progress.push(v);
			state.waiters = state.waiters.filter((w) => !w());
		});
		return null;
	});
	conn.listen();

	await t.test('initialize with the extension\'s settings', async () => {
		const r = await conn.sendRequest(rpc.InitializeRequest.type, {
			processId: process.pid,
			rootUri: null,
			workspaceFolders: [{ uri: pathToFileURL(REPO).href,
				name: 'repo' }],
			capabilities: { window: { workDoneProgress: true } },
			initializationOptions: { maxChunkSize: 150, budgetTokens: 1500,
				exclude: ['build/'], maxFileSize: 1048576,
				logLevel: 'warn' },
		});
		assert.equal(r.serverInfo.name, 'castls');
		assert.deepEqual(r.capabilities.executeCommandProvider.commands,
			['castls.reindex', 'castls.status']);
		await conn.sendNotification(rpc.InitializedNotification.type, {});
		await progressUntil(state, (v) => v.kind === 'end');
		assert.equal(state.progress[0].kind, 'begin');
		assert.equal(state.progress[0].title, 'castls: indexing');
	});

	const report = fs.readFileSync(path.join(REPO, 'pkg/report.py'), 'utf8');
	await conn.sendNotification(rpc.DidOpenTextDocumentNotification.type, {
		textDocument: { uri: uriOf('pkg/report.py'), languageId: 'python',
			version: 1, text: report },
	});
	/* "    total += circle_area(r)": the cursor inside the call. */
	const line = report.split('\n').findIndex((l) =>
		l.includes('circle_area(r)'));
	const position = { line, character: report.split('\n')[line]
		.indexOf('circle_area') + 4 };

	await t.test('castls/context ranks the definition', async () => {
		const r = await conn.sendRequest('castls/context', {
			textDocument: { uri: uriOf('pkg/report.py') }, position });
		assert.equal(r.noContext, false);
		assert.equal(r.budget.limit, 1500, 'budgetTokens setting applies');
		assert.ok(r.budget.used <= r.budget.limit);
		const def = r.items.find((i) => i.text.includes('def circle_area'));
		assert.ok(def, `an item defines circle_area: ${JSON.stringify(
			r.items.map((i) => [i.uri, i.range]))}`);
		assert.equal(def.uri, uriOf('pkg/geometry.py'));
		/* The server says why; the extension shows its words. */
		assert.match(def.why, /^defines circle_area, used near the cursor; /);
		for (const item of r.items) {
			assert.equal(format.whyOf(item), item.why);
			assert.ok(format.describeItem(item, label)
				.endsWith(`(${item.why})`));
		}
		assert.match(format.describeItem(def, label),
			/^pkg\/geometry\.py:5-7 {2}score \d+\.\d\d {2}circle_area {2}/);

		const prompt = format.formatPrompt(r, label);
		assert.match(prompt, /^### pkg\/geometry\.py \(lines 5-7\)\n```python\n/m);
		assert.ok(prompt.includes('def circle_area(radius):'));
		assert.equal(prompt.match(/^```(python|typescript)$/gm).length,
			r.items.length, 'a fence per item');
	});

	await t.test('castls/context honours a small budget', async () => {
		const r = await conn.sendRequest('castls/context', {
			textDocument: { uri: uriOf('pkg/report.py') }, position,
			budget: { tokens: 40 } });
		assert.equal(r.budget.limit, 40);
		assert.ok(r.budget.used <= 40, `used ${r.budget.used}`);
	});

	await t.test('castls/search finds a definition by words', async () => {
		const r = await conn.sendRequest('castls/search',
			{ query: 'circle_area radius' });
		assert.ok(r.items.length > 0);
		assert.equal(r.items[0].uri, uriOf('pkg/geometry.py'));
		assert.ok(r.items[0].text.includes('circle_area'));
		assert.match(format.titleOf(r.items[0]), /\S/);
	});

	await t.test('names and reasons without the server\'s words', () => {
		/* A server older than `why`, and items without a symbol: the
		 * names castls sends comma-separated (older ones: spaces). */
		const item = (defines, text = '', language = 'python') => ({
			uri: uriOf('pkg/geometry.py'), language, kind: 'definitions',
			symbol: '', parents: [], score: 1, text,
			range: { start: { line: 0, character: 0 },
				end: { line: 1, character: 0 } },
			signals: { bm25: 0, definition: 0.5, defines, import: true,
				sameFile: false },
		});
		for (const defines of ['area, perimeter', 'area perimeter']) {
			assert.equal(format.whyOf(item(defines)),
				'defines area, perimeter; in a file this one imports');
			assert.equal(format.titleOf(item(defines)), 'area, perimeter');
		}
		assert.equal(format.whyOf({ ...item(''), why: 'a name this ' +
			'file imports' }), 'a name this file imports');
		/* Labels name code, not comments or docstrings. */
		assert.equal(format.titleOf(item(undefined,
			'\n/**\n * Docs.\n */\nexport const a = 1;\n', 'typescript')),
		'export const a = 1;');
		assert.equal(format.titleOf(item(undefined,
			'// one\n/* two */\nlet b = 2;\n', 'javascript')), 'let b = 2;');
		assert.equal(format.titleOf(item(undefined,
			'    """Docs\n    more."""\n    return 1\n')), 'return 1');
		assert.equal(format.titleOf(item(undefined,
			'#!/bin/sh\n# setup\nset -eu\n', 'bash')), 'set -eu');
		assert.equal(format.titleOf(item(undefined, '# Shapes\n',
			'markdown')), '# Shapes');
		assert.equal(format.titleOf(item(undefined, '/** only */\n',
			'typescript')), '/** only */');
	});

	await t.test('castls/status: the index size', async () => {
		const st = await conn.sendRequest('castls/status', {});
		assert.equal(st.roots.length, 1);
		assert.equal(st.roots[0].path, fs.realpathSync(REPO));
		assert.equal(st.files, 5,
			'three Python files, a TypeScript one and a README');
		assert.ok(st.chunks >= 4);
		assert.equal(st.openDocuments, 1);
		assert.match(format.indexSize(st),
			/^5 files · \d+ chunks · [\d.]+ [KM]B$/);
		assert.match(format.statusLines(st)[1], /python 3/);
	});

	await t.test('castls.reindex reports progress again', async () => {
		const before = state.created.length;
		const r = await conn.sendRequest(rpc.ExecuteCommandRequest.type,
			{ command: 'castls.reindex', arguments: [] });
		assert.equal(r, null);
		await new Promise((resolve, reject) => {
			const t0 = Date.now();
			const poll = setInterval(() => {
				const ends = state.progress.filter((v) => v.kind === 'end');
				if (state.created.length > before && ends.length >= 2) {
					clearInterval(poll);
					resolve();
				} else if (Date.now() - t0 > TIMEOUT_MS) {
					clearInterval(poll);
					reject(new Error('no second indexing progress'));
				}
			}, 50);
		});
	});

	await t.test('shutdown and exit: status 0, no sanitizer report',
		async () => {
			assert.equal(await conn.sendRequest(rpc.ShutdownRequest.type),
				null);
			await conn.sendNotification(rpc.ExitNotification.type);
			const code = await exited;
			conn.dispose();
			assert.doesNotMatch(stderr, /Sanitizer|runtime error/);
			assert.equal(code, 0, stderr);
		});
});
