'use strict';
/*
 * mcp.test.js: the extension's MCP server definition provider. With a
 * stand-in `vscode` module that has VS Code 1.101's MCP API, activate()
 * registers a provider whose server, started as VS Code starts it,
 * answers MCP over stdio (initialize, tools/list, a context call on the
 * test repository); without the API, nothing is registered and the
 * extension works as before. Environment as in activation.test.js.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const fs = require('node:fs');
const { spawn } = require('node:child_process');
const { install } = require('./vscode-stub.js');

const SERVER = process.env.CASTLS_SERVER;
const REPO = process.env.CASTLS_TEST_REPO;
const TIMEOUT_MS = 60000;
const report = path.join(REPO || '.', 'pkg/report.py');
const settings = { castls: { path: SERVER, maxChunkSize: 150,
	budgetTokens: 1500, exclude: ['build/'], maxFileSize: 1048576,
	logLevel: 'warn' } };

/* Waits until the language client is up (the status bar shows the index
 * size): stopping it while it starts throws. */
async function ready(rec) {
	const t0 = Date.now();
	while (!/^\$\(database\)/.test(rec.statusBarItems[0]?.text ?? '')) {
		if (Date.now() - t0 > TIMEOUT_MS)
			throw new Error('the language client did not start');
		await new Promise((r) => setTimeout(r, 50));
	}
}

/* A fresh copy of the extension's modules on the stub just installed. */
function loadExtension() {
	for (const k of Object.keys(require.cache))
		if (k.includes(`${path.sep}out${path.sep}`))
			delete require.cache[k];
	return require('../out/extension.js');
}

/* Runs a stdio MCP server as VS Code would and exchanges JSON lines:
 * each request resolves with its reply. */
function mcpSession(command, args, cwd) {
	const proc = spawn(command, args, { cwd, stdio: ['pipe', 'pipe', 'inherit'] });
	const waiting = new Map();
	let buf = '';
	proc.stdout.on('data', (d) => {
		buf += d;
		let nl;
		while ((nl = buf.indexOf('\n')) >= 0) {
			const m = JSON.parse(buf.slice(0, nl));
			buf = buf.slice(nl + 1);
			waiting.get(m.id)?.(m);
		}
	});
	let id = 0;
	return {
		request(method, params) {
			const my = ++id;
			proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: my,
				method, params }) + '\n');
			return new Promise((resolve, reject) => {
				const t = setTimeout(() => reject(new Error(`${method}: no reply`)),
					TIMEOUT_MS);
				waiting.set(my, (m) => { clearTimeout(t); resolve(m); });
			});
		},
		notify(method) {
			proc.stdin.write(JSON.stringify({ jsonrpc: '2.0', method }) + '\n');
		},
		end() {
			proc.stdin.end();
			return new Promise((resolve) => proc.once('exit', resolve));
		},
	};
}

test('without the MCP API nothing is registered', { timeout: 90000 },
	async () => {
		assert.ok(SERVER && REPO, 'CASTLS_SERVER and CASTLS_TEST_REPO are set');
		const vscode = install({ folder: REPO, settings,
			documents: [{ path: report, languageId: 'python' }] });
		const ext = loadExtension();
		const api = ext.activate({ subscriptions: [] });
		assert.equal(typeof api.getContext, 'function');
		assert.equal(vscode.lm, undefined);
		await ready(vscode.record);
		await ext.deactivate();
		vscode.uninstall();
	});

test('the MCP server definition provider', { timeout: 90000 }, async () => {
	const vscode = install({ folder: REPO, settings,
		documents: [{ path: report, languageId: 'python' }] });
	const registered = [];
	/* VS Code 1.101's API, as far as the extension uses it. */
	vscode.McpStdioServerDefinition = class {
		constructor(label, command, args, env, version) {
			Object.assign(this, { label, command, args, env, version });
		}
	};
	vscode.lm = {
		registerMcpServerDefinitionProvider(id, provider) {
			registered.push({ id, provider });
			return { dispose() {} };
		},
	};
	const pkg = JSON.parse(fs.readFileSync(
		path.join(__dirname, '../package.json'), 'utf8'));
	const ext = loadExtension();
	const context = { subscriptions: [],
		extension: { packageJSON: pkg } };

	try {
		ext.activate(context);
		await ready(vscode.record);
		/* The id is the one package.json contributes. */
		assert.deepEqual(registered.map((r) => r.id), ['castls']);
		assert.deepEqual(pkg.contributes.mcpServerDefinitionProviders,
			[{ id: 'castls', label: 'castls' }]);
		const { provider } = registered[0];
		const [server] = await provider.provideMcpServerDefinitions({});
		assert.equal(server.label, 'castls');
		assert.equal(server.command, SERVER);
		assert.deepEqual(server.args, ['mcp', REPO, '--max-size', '150',
			'--budget', '1500', '--max-file-size', '1048576',
			'--exclude', 'build/']);
		assert.equal(server.version, pkg.version);
		assert.equal(server.cwd.fsPath, REPO);

		/* A settings change tells VS Code the definition changed (the
		 * stub's change affects every setting: the language client
		 * restarts too). */
		let fired = 0;
		provider.onDidChangeMcpServerDefinitions(() => fired++);
		vscode.fireConfigurationChange({ castls: { ...settings.castls,
			budgetTokens: 900 } });
		assert.equal(fired, 1);
		const [again] = await provider.provideMcpServerDefinitions({});
		assert.ok(again.args.includes('900'));

		/* Started as VS Code starts it, it serves MCP. */
		const s = mcpSession(again.command, again.args, again.cwd.fsPath);
		const init = await s.request('initialize', { protocolVersion: '2025-06-18',
			capabilities: {}, clientInfo: { name: 'vscode-stub', version: '0' } });
		assert.equal(init.result.serverInfo.name, 'castls');
		s.notify('notifications/initialized');
		const tools = await s.request('tools/list', {});
		assert.deepEqual(tools.result.tools.map((t) => t.name),
			['context', 'search', 'definition', 'outline']);
		const line = fs.readFileSync(report, 'utf8').split('\n')
			.findIndex((l) => l.includes('circle_area(r)')) + 1;
		const ctx = await s.request('tools/call', { name: 'context',
			arguments: { path: 'pkg/report.py', line },
			_meta: { progressToken: 1 } });
		assert.ok(ctx.result.structuredContent.items.some(
			(i) => i.symbol === 'circle_area' && i.path === 'pkg/geometry.py'),
			ctx.result.content[0].text);
		assert.equal(await s.end(), 0);
		await ready(vscode.record);
	} finally {
		await ext.deactivate();
		vscode.uninstall();
	}
});
