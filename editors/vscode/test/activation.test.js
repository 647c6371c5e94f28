'use strict';
/*
 * activation.test.js: loads the compiled extension with a stand-in
 * `vscode` module, lets activate() start the real vscode-languageclient
 * against the real castls, runs the commands, and checks what they show:
 * the status bar, the context view, the clipboard, the quick pick, the
 * messages, and the API. Environment as in protocol.test.js.
 */
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const fs = require('node:fs');
const { install } = require('./vscode-stub.js');

const SERVER = process.env.CASTLS_SERVER;
const REPO = process.env.CASTLS_TEST_REPO;
const TIMEOUT_MS = 30000;

const report = path.join(REPO || '.', 'pkg/report.py');
const callLine = fs.existsSync(report) ? fs.readFileSync(report, 'utf8')
	.split('\n').findIndex((l) => l.includes('circle_area(r)')) : -1;
/* In Square.diagonal: "        return self.width * math.sqrt(2)". */
const geometry = path.join(REPO || '.', 'pkg/geometry.py');
const diagonalLine = fs.existsSync(geometry) ? fs.readFileSync(geometry,
	'utf8').split('\n').findIndex((l) => l.includes('self.width * math'))
	: -1;

/* A tooltip's text with the Markdown escapes of appendText undone. */
const plain = (md) => md.value.replace(/\\(.)/g, '$1');

/* The rows of the context view with the items they show, and checks that
 * each row's tooltip gives the server's `why` verbatim and that no row
 * shows a name list split into ",,". */
function contextRows(view) {
	const rows = view.treeDataProvider.getChildren().map((item) =>
		({ item, row: view.treeDataProvider.getTreeItem(item) }));

	assert.ok(rows.length > 0, 'the view lists chunks');
	for (const { item, row } of rows) {
		assert.ok(typeof item.why === 'string' && item.why !== '',
			`the server sent a why: ${JSON.stringify(item)}`);
		assert.ok(plain(row.tooltip).includes(`\n\nWhy: ${item.why}\n`),
			`the tooltip gives the server's why "${item.why}":\n` +
			plain(row.tooltip));
		for (const shown of [row.label, row.description, plain(row.tooltip)])
			assert.ok(!shown.includes(',,'), shown);
	}
	return rows;
}

/* Polls fn() until it returns something truthy. */
async function until(what, fn) {
	const t0 = Date.now();
	for (;;) {
		const v = await fn();
		if (v)
			return v;
		if (Date.now() - t0 > TIMEOUT_MS)
			throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 50));
	}
}

test('the extension against castls', { timeout: 90000 }, async (t) => {
	assert.ok(SERVER && REPO, 'CASTLS_SERVER and CASTLS_TEST_REPO are set');
	const vscode = install({
		folder: REPO,
		settings: { castls: { path: SERVER, maxChunkSize: 150,
			budgetTokens: 1500, exclude: [], maxFileSize: 1048576,
			logLevel: 'warn' } },
		documents: [{ path: report, languageId: 'python' },
			{ path: geometry, languageId: 'python' }],
		active: { path: report, line: callLine, character: 18 },
	});
	const rec = vscode.record;
	const ext = require('../out/extension.js');
	const context = { subscriptions: [] };
	const api = ext.activate(context);
	const status = () => rec.statusBarItems[0];
	const lastMessage = () => rec.messages.at(-1);

	await t.test('activate: commands, status bar, index size', async () => {
		for (const id of ['castls.showContext', 'castls.copyContext',
			'castls.searchWorkspace', 'castls.reindexWorkspace',
			'castls.restartServer', 'castls.showStatus'])
			assert.ok(rec.commands.has(id), id);
		assert.equal(status().command, 'castls.showStatus');
		assert.ok(status().visible);
		/* Indexing progress, then the index size from castls/status. */
		await until('the index size in the status bar', () =>
			/^\$\(database\) castls: 5 files · \d+ chunks · [\d.]+ [KM]B$/
				.test(status().text));
		/* The language client registered the server's own commands. */
		assert.ok(rec.commands.has('castls.reindex'));
		/* Every language served activates the extension, those of
		 * issue 18 included. */
		const pkg = JSON.parse(fs.readFileSync(
			path.join(__dirname, '..', 'package.json'), 'utf8'));
		for (const id of ['go', 'rust', 'java', 'c', 'cpp'])
			assert.ok(ext.LANGUAGES.includes(id), id);
		for (const id of ext.LANGUAGES)
			assert.ok(pkg.activationEvents.includes(`onLanguage:${id}`),
				id);
	});

	await t.test('Show Context at Cursor fills the view', async () => {
		await vscode.commands.executeCommand('castls.showContext');
		const view = rec.treeViews.get('castls.contextView');
		const rows = contextRows(view).map(({ row }) => row);
		assert.match(view.message, new RegExp(`^${rows.length} chunks for ` +
			`pkg/report\\.py:${callLine + 1} · \\d+/1500 tokens$`));
		assert.ok(rec.executed.some(([id]) =>
			id === 'castls.contextView.focus'), 'the view is revealed');
		const def = rows.find((r) => r.tooltip.value.includes(
			'def circle_area'));
		assert.ok(def, rows.map((r) => r.description).join('\n'));
		assert.equal(def.label, 'circle_area');
		assert.match(def.description, /^pkg\/geometry\.py:5-7 · \d+\.\d\d$/);
		assert.ok(plain(def.tooltip).includes('Why: defines circle_area, ' +
			'used near the cursor; a name this file imports; in a file ' +
			'this one imports'), plain(def.tooltip));
		/* Selecting the row opens the file at the chunk. */
		const [cmd, uri, opts] = [def.command.command,
			...def.command.arguments];
		assert.equal(cmd, 'vscode.open');
		assert.equal(uri.fsPath, path.join(REPO, 'pkg/geometry.py'));
		assert.equal(opts.selection.start.line, 4);
		assert.ok(opts.selection.end.line >= 6);
	});

	await t.test('the context in a subclass: members, siblings',
		async () => {
			vscode.showEditor({ path: geometry, line: diagonalLine,
				character: 20 });
			try {
				await vscode.commands.executeCommand('castls.showContext');
			} finally {
				vscode.showEditor({ path: report, line: callLine,
					character: 18 });
			}
			const view = rec.treeViews.get('castls.contextView');
			assert.match(view.message, new RegExp('^\\d+ chunks for ' +
				`pkg/geometry\\.py:${diagonalLine + 1} · `));
			const rows = contextRows(view);
			const init = rows.find(({ row }) =>
				row.label === 'Rectangle.__init__');
			assert.ok(init, rows.map(({ row }) => row.label).join(', '));
			assert.match(plain(init.row.tooltip), new RegExp('\n\nWhy: ' +
				'defines __init__, area, perimeter, used near the cursor; ' +
				'a member of the class being written or its bases; .*; ' +
				'shown with Rectangle\\.area, Rectangle\\.perimeter\n'));
		});

	await t.test('Copy Context at Cursor: prompt text', async () => {
		await vscode.commands.executeCommand('castls.copyContext');
		assert.match(rec.clipboard,
			/^### pkg\/geometry\.py \(lines 5-7\)\n```python\n/m);
		assert.ok(rec.clipboard.includes('def circle_area(radius):'));
		/* The count is the prompt's own, headers and fences included:
		 * one token per four bytes, as the server counts. */
		const tokens = Math.ceil(Buffer.byteLength(rec.clipboard) / 4);
		assert.match(lastMessage().text,
			new RegExp(`^castls: copied \\d+ chunks \\(~${tokens} ` +
				'tokens\\)\\.$'));
	});

	await t.test('Search Workspace Context: a live quick pick', async () => {
		await vscode.commands.executeCommand('castls.searchWorkspace');
		const qp = rec.quickPicks.at(-1);
		assert.ok(qp && qp.visible, 'the quick pick is shown');
		qp.value = 'Rectangle perimeter';
		const items = await until('search results', () =>
			!qp.busy && qp.items.length > 0 && qp.items);
		assert.match(items[0].description, /^pkg\/geometry\.py:\d+-\d+$/);
		/* The detail is the server's why. */
		for (const pick of items)
			assert.equal(pick.detail, pick.item.why);
		const before = rec.executed.length;
		qp.accept(items[0]);
		const opened = await until('vscode.open', () => rec.executed
			.slice(before).find(([id]) => id === 'vscode.open'));
		assert.equal(opened[1].fsPath, path.join(REPO, 'pkg/geometry.py'));
		assert.equal(opened[2].selection.start.line,
			items[0].item.range.start.line);
		assert.ok(qp.disposed, 'the quick pick is gone after Enter');
	});

	await t.test('Search Workspace Context: TypeScript picks name code',
		async () => {
			await vscode.commands.executeCommand('castls.searchWorkspace');
			const qp = rec.quickPicks.at(-1);
			qp.value = 'numberLabel fixed width label';
			const items = await until('search results', () =>
				!qp.busy && qp.items.length > 0 && qp.items);
			/* A chunk of statements, no symbol, opening with a doc
			 * comment: labelled by its first line of code. */
			const pick = items.find((p) => p.item.symbol === '' &&
				p.item.text.trimStart().startsWith('/**'));
			assert.ok(pick, JSON.stringify(items.map((p) => p.item)));
			assert.equal(pick.label, 'export const numberLabel = ' +
				'(n: number): string =>');
			for (const p of items)
				assert.doesNotMatch(p.label, /^(\/\*|\*|\/\/)/);
			qp.hide();
		});

	await t.test('the API: getContext and search', async () => {
		const r = await api.getContext(vscode.Uri.file(report),
			new vscode.Position(callLine, 18), 60);
		assert.equal(r.budget.limit, 60);
		assert.ok(r.budget.used <= 60);
		const s = await api.search('circle_area');
		assert.equal(s.items[0].uri,
			vscode.Uri.file(path.join(REPO, 'pkg/geometry.py')).toString());
		assert.match(api.formatPrompt(s), /^### pkg\/geometry\.py/);
		await assert.rejects(api.getContext(vscode.Uri.file(
			path.join(REPO, 'README.md')), new vscode.Position(0, 0)),
		/not open/);
	});

	await t.test('Show Status and Reindex Workspace', async () => {
		await vscode.commands.executeCommand('castls.showStatus');
		assert.match(lastMessage().text, /^castls: 5 files · \d+ chunks/);
		assert.deepEqual(lastMessage().items, ['Show Details']);
		assert.match(rec.outputs.get('castls'),
			new RegExp(`${fs.realpathSync(REPO)}: 5 files, .*python 3`));

		await vscode.commands.executeCommand('castls.reindexWorkspace');
		assert.equal(lastMessage().text, 'castls: reindexing the workspace.');
		await until('the status bar back to the index size', () =>
			/^\$\(database\) castls: 5 files/.test(status().text));
	});

	await t.test('the status bar: indexing N% does not flicker',
		async () => {
			/* $/progress reports carry a percentage; the status poll
			 * in between must not drop it. */
			const item = new ext.StatusItem();
			const shown = () => item.item.texts
				.filter((x) => x.includes('indexing'));
			item.indexing('scanning', 0);
			item.indexing('1/4 files', 25);
			item.ready({ roots: [], indexing: true, openDocuments: 1,
				files: 0, chunks: 0, spans: 0, filesDone: 2,
				filesSeen: 4 });
			item.ready({ roots: [], indexing: true, openDocuments: 1,
				files: 0, chunks: 0, spans: 0 });
			item.indexing('4/4 files');
			assert.deepEqual(shown(), ['0%', '25%', '50%', '50%', '50%']
				.map((p) => `$(sync~spin) castls: indexing ${p}`));
			item.ready({ roots: [], indexing: false, openDocuments: 1,
				files: 4, chunks: 8, spans: 7 });
			assert.match(item.item.text, /^\$\(database\) castls: 4 files/);
			item.item.dispose();
		});

	await t.test('a result given while indexing says so', async () => {
		/* The server sets `indexing` on replies given while it indexes;
		 * here one reply gets it, on its way to the extension. */
		const { LanguageClient } = require('vscode-languageclient/node');
		const own = Object.prototype.hasOwnProperty.call(
			LanguageClient.prototype, 'sendRequest');
		const real = LanguageClient.prototype.sendRequest;
		LanguageClient.prototype.sendRequest = async function (...args) {
			const r = await real.apply(this, args);
			return args[0] === 'castls/context' ? { ...r, indexing: true }
				: r;
		};
		try {
			await vscode.commands.executeCommand('castls.showContext');
			await vscode.commands.executeCommand('castls.copyContext');
		} finally {
			if (own)
				LanguageClient.prototype.sendRequest = real;
			else
				delete LanguageClient.prototype.sendRequest;
		}
		const view = rec.treeViews.get('castls.contextView');
		assert.match(view.message, / tokens \(indexing: results may be partial\)$/);
		assert.match(lastMessage().text, /^castls: copied \d+ chunks \(~\d+ tokens\) \(indexing: results may be partial\)\.$/);
		await vscode.commands.executeCommand('castls.showContext');
		assert.doesNotMatch(view.message, /indexing/);
	});

	await t.test('Restart Server: a new server, documents reopened',
		async () => {
			const runs = () => fs.readFileSync(
				`${process.env.CASTLS_STDERR}.runs`, 'utf8')
				.split('\n').filter(Boolean).length;
			const before = runs();
			await vscode.commands.executeCommand('castls.restartServer');
			assert.equal(lastMessage().text, 'castls: restarted the server.');
			assert.equal(runs(), before + 1, 'one more server started');
			await until('the index size in the status bar', () =>
				/^\$\(database\) castls: 5 files/.test(status().text));
			/* The open document is known to the new server. */
			const r = await api.getContext(vscode.Uri.file(report),
				new vscode.Position(callLine, 18));
			assert.equal(r.items[0].symbol, 'circle_area');
		});

	/* The lines of Show Status, asked afresh. */
	const statusOutput = async () => {
		rec.outputs.set('castls', '');
		await vscode.commands.executeCommand('castls.showStatus');
		return rec.outputs.get('castls');
	};
	const top = fs.realpathSync(path.dirname(REPO));
	const proj = path.join(top, 'outside-proj');
	const loose = path.join(top, 'outside-loose');
	const app = path.join(proj, 'src/app.py');
	const lone = path.join(loose, 'weather.py');
	/* In app.py, "    return amount * exchange_rate(currency)"; in
	 * weather.py, "    total = sum(celsius_to_kelvin(v) ...)". */
	const appAt = new vscode.Position(4, 30);
	const loneAt = new vscode.Position(23, 30);

	await t.test('a file outside the folder: its project is indexed',
		async () => {
			fs.mkdirSync(path.join(proj, 'src'), { recursive: true });
			fs.mkdirSync(loose, { recursive: true });
			fs.writeFileSync(path.join(proj, 'pyproject.toml'),
				'[project]\nname = "outside"\n');
			fs.writeFileSync(path.join(proj, 'src/rates.py'),
				'def exchange_rate(currency):\n' +
				'    """Units of currency per euro."""\n' +
				'    return 1.0\n');
			fs.writeFileSync(app, 'from src.rates import exchange_rate\n' +
				'\n\ndef price(amount, currency):\n' +
				'    return amount * exchange_rate(currency)\n');
			fs.writeFileSync(lone, [
				'"""Loose helpers, in no project."""', '', '',
				'def celsius_to_kelvin(celsius):',
				'    """Kelvin for a temperature in degrees Celsius."""',
				'    return celsius + 273.15', '', '',
				'def describe(reading):',
				'    """A line about one reading."""',
				'    place, value = reading',
				'    text = place.strip().title()',
				"    text = text + ': '",
				'    text = text + str(round(value, 1))',
				'    return text', '', '', 'def report(readings):',
				'    lines = [describe(r) for r in readings]',
				'    warmest = max(readings, key=lambda r: r[1])',
				'    coldest = min(readings, key=lambda r: r[1])',
				"    lines.append('warmest: ' + describe(warmest))",
				"    lines.append('coldest: ' + describe(coldest))",
				'    total = sum(celsius_to_kelvin(v) for _, v in readings)',
				'    return lines, total', ''].join('\n'));
			vscode.openDocument({ path: app, languageId: 'python' });
			vscode.openDocument({ path: lone, languageId: 'python' });
			/* The project (no git: its pyproject.toml) beside the
			 * folder; nothing for the file in no project. */
			let out = '';
			await until('the outside project indexed', async () => {
				out = await statusOutput();
				return out.includes(`\n${proj}: 2 files`);
			});
			assert.ok(out.includes(`${fs.realpathSync(REPO)}: 5 files`), out);
			assert.doesNotMatch(out, /outside-loose/);
			const r = await api.getContext(vscode.Uri.file(app), appAt);
			assert.equal(r.items[0]?.uri, vscode.Uri.file(path.join(proj,
				'src/rates.py')).toString(), JSON.stringify(r.items));
			/* The file in no project is served alone: its own
			 * definitions. */
			const l = await api.getContext(vscode.Uri.file(lone), loneAt);
			assert.ok(l.items.some((i) => i.symbol === 'celsius_to_kelvin' &&
				i.uri === vscode.Uri.file(lone).toString()),
			JSON.stringify(l.items));
		});

	await t.test('no folder open: each file brings its project',
		async () => {
			vscode.closeFolders();
			await vscode.commands.executeCommand('castls.restartServer');
			let out = '';
			await until('the projects of the open files', async () => {
				out = await statusOutput();
				return out.includes(`\n${fs.realpathSync(REPO)}: 5 files`) &&
					out.includes(`\n${proj}: 2 files`);
			});
			assert.doesNotMatch(out, /outside-loose/);
			const r = await api.getContext(vscode.Uri.file(report),
				new vscode.Position(callLine, 18));
			assert.equal(r.items[0].symbol, 'circle_area');
			const l = await api.getContext(vscode.Uri.file(lone), loneAt);
			assert.ok(l.items.some((i) => i.symbol === 'celsius_to_kelvin'),
				JSON.stringify(l.items));
		});

	await t.test('an index castls cannot write: an error, and the status ' +
		'bar says so', async () => {
		const settings = { castls: { path: SERVER, maxChunkSize: 150,
			budgetTokens: 1500, exclude: [], maxFileSize: 1048576,
			logLevel: 'warn' } };
		const before = rec.messages.length;
		const db = '/dev/null/castls/index.db';

		/* A new castls.dbPath restarts the server on it. */
		vscode.fireConfigurationChange({ castls: { ...settings.castls,
			dbPath: db } });
		const shown = await until('the server\'s error', () => rec.messages
			.slice(before).find((m) => m.level === 'error' &&
				m.text.includes('cannot write the index')));
		assert.ok(shown.text.includes(db) && shown.text.includes('dbPath'),
			shown.text);
		await until('the status bar to say so', () =>
			status().text.startsWith('$(warning) castls: index not written'));
		assert.match(status().tooltip, /cannot write the index .*castls\.dbPath/);
		vscode.fireConfigurationChange(settings);
		await until('the index size back in the status bar', () =>
			/^\$\(database\) castls: /.test(status().text));
		/* Expected, so not among the errors deactivate looks for. */
		rec.messages.splice(before);
	});

	await t.test('deactivate stops the server', async () => {
		await ext.deactivate();
		const errors = rec.messages.filter((m) => m.level === 'error');
		assert.deepEqual(errors, []);
		assert.doesNotMatch(rec.outputs.get('castls'),
			/Sanitizer|runtime error/);
		vscode.uninstall();
	});
});
