// tools.test.mjs: every tool from the official SDK client against the real
// binary on a small repository, each answer checked against what the
// language server says for the same question: context and search items,
// definition locations (workspace/symbol), outline entries
// (textDocument/documentSymbol).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
	Lsp, call, lspItems, mcpItems, mcpStart, scratch, snapshotTree,
} from './lib.mjs';

/* Calls search until the server says it is no longer indexing. */
async function waitIndexed(client) {
	for (let i = 0; i < 600; i++) {
		const r = await call(client, 'search', { query: 'shop' });
		if (!r.structuredContent.indexing)
			return;
		await new Promise((res) => setTimeout(res, 100));
	}
	throw new Error('castls mcp is still indexing');
}

/* The cursors asked for: 1-based line, column (0: none, the end of the
 * line) as the MCP tool takes them. */
const CURSORS = [
	{ path: 'shop/checkout.py', line: 12, column: 0 },
	{ path: 'shop/checkout.py', line: 8, column: 20 },
	{ path: 'web/cart_view.ts', line: 13, column: 0 },
	{ path: 'web/user.ts', line: 12, column: 28 },
	/* The definition is just above in a small file: nothing to add. */
	{ path: 'scripts/release.sh', line: 10, column: 0, none: true },
];

/* The LSP position of a cursor: 0-based, the column the MCP server puts
 * it at (these lines are ASCII, so characters are UTF-16 units). */
function lspPosition(text, c) {
	const line = text.split('\n')[c.line - 1];
	return { line: c.line - 1, character: c.column ? c.column - 1 : line.length };
}

test('tools over the SDK agree with the language server', async () => {
	const { dir, ws, cache } = scratch('tools');
	/* Markdown with a fence of its own. */
	fs.mkdirSync(path.join(ws, 'notes'));
	fs.writeFileSync(path.join(ws, 'notes/fences.md'), '# Fences\n\n' +
		'How to call checkout:\n\n```python\ncheckout(cart)\n```\n');
	const before = snapshotTree(ws);
	const mcp = await mcpStart([ws], { cache });
	const lsp = new Lsp(['--db', path.join(dir, 'lsp.db')], { cache });
	const { client } = mcp;

	try {
		/* initialize: the newest revision, the server named, tools. */
		assert.equal(client.getServerVersion().name, 'castls');
		assert.ok(client.getServerCapabilities().tools);
		assert.match(client.getInstructions(), /context/);

		/* tools/list: four, each with both schemas, a description and
		 * read-only annotations. */
		const { tools } = await client.listTools();
		assert.deepEqual(tools.map((t) => t.name).sort(),
			['context', 'definition', 'outline', 'search']);
		for (const t of tools) {
			assert.equal(t.inputSchema.type, 'object', t.name);
			assert.equal(t.outputSchema.type, 'object', t.name);
			assert.ok(t.description.length > 40 && t.description.length < 600,
				`${t.name}: description of ${t.description.length} chars`);
			assert.match(t.description, /Use it/, t.name);
			assert.equal(t.annotations.readOnlyHint, true, t.name);
			assert.ok(t.inputSchema.required.length >= 1, t.name);
		}

		await lsp.initialize(ws);
		await Promise.all([waitIndexed(client), lsp.waitIndexed()]);

		/* context: the same items as castls/context at each cursor; a
		 * large budget so that both show everything. */
		for (const c of CURSORS) {
			const text = lsp.open(ws, c.path);
			const args = { path: c.path, line: c.line, budget: 50000 };
			if (c.column)
				args.column = c.column;
			const r = await call(client, 'context', args);
			const want = await lsp.request('castls/context', {
				textDocument: { uri: `file://${ws}/${c.path}` },
				position: lspPosition(text, c),
				budget: { tokens: 50000 },
			});
			assert.ok(!r.isError, r.content[0].text);
			const got = mcpItems(r.structuredContent);
			assert.equal(got.length === 0, !!c.none, `items at ${c.path}:${c.line}`);
			assert.deepEqual(got, lspItems(want, ws), `${c.path}:${c.line}`);
			assert.equal(r.structuredContent.noContext, want.noContext);
			assert.equal(r.structuredContent.cursor.line, c.line);
			/* The text shows each item under its header. */
			for (const it of r.structuredContent.items)
				assert.ok(r.content[0].text.includes(
					`### ${it.path}:${it.startLine}`), it.path);
		}

		/* The default budget (2000 tokens) covers the whole text: the
		 * items are the language server's first ones. */
		{
			const r = await call(client, 'context',
				{ path: 'shop/checkout.py', line: 12, budget: 200 });
			const want = await lsp.request('castls/context', {
				textDocument: { uri: `file://${ws}/shop/checkout.py` },
				position: { line: 11, character: 33 },
				budget: { tokens: 200 },
			});
			const got = mcpItems(r.structuredContent);
			assert.ok(got.length >= 1);
			assert.deepEqual(got, lspItems(want, ws).slice(0, got.length));
			assert.ok(r.structuredContent.budget.used <= 200,
				`used ${r.structuredContent.budget.used}`);
			assert.equal(r.structuredContent.budget.used,
				Math.ceil(Buffer.byteLength(r.content[0].text) / 4));
		}

		/* The answer for grand_total at the cursor: the class Cart,
		 * which the file imports and does not use yet, whole, with
		 * grand_total in it. */
		{
			const r = await call(client, 'context',
				{ path: 'shop/checkout.py', line: 12 });
			const it = r.structuredContent.items.find(
				(i) => i.symbol === 'Cart');
			assert.ok(it, r.content[0].text);
			assert.equal(it.path, 'shop/models.py');
			assert.deepEqual(it.parents, []);
			assert.match(r.content[0].text,
				/### shop\/models\.py:15-30 — Cart\n.*not used yet.*in a file this one imports.*\n```python\nclass Cart:\n[^`]* {4}def grand_total/);
		}

		/* context with code instead of a line: found in the file, the
		 * cursor goes to its end; new code counts as written there. */
		{
			const found = await call(client, 'context', {
				path: 'shop/checkout.py', code: 'subtotal = cart.grand_total()',
			});
			assert.equal(found.structuredContent.code, 'found');
			assert.deepEqual(found.structuredContent.cursor,
				{ path: 'shop/checkout.py', line: 12, column: 34 });
			const fresh = await call(client, 'context', {
				path: 'web/summary.ts',
				code: 'import { getUserName } from "./user";\n' +
					'export const label = (p) => getUserName(p',
			});
			assert.ok(!fresh.isError, fresh.content[0].text);
			assert.equal(fresh.structuredContent.code, 'new file');
			assert.ok(fresh.structuredContent.items.some(
				(i) => i.symbol === 'getUserName' && i.path === 'web/user.ts'),
				fresh.content[0].text);
		}

		/* search: castls/search's items. */
		for (const query of ['grand total', 'getUserName', 'ship release']) {
			const r = await call(client, 'search', { query, budget: 50000 });
			const want = await lsp.request('castls/search',
				{ query, budget: { tokens: 50000 } });
			assert.deepEqual(mcpItems(r.structuredContent), lspItems(want, ws),
				query);
			assert.ok(r.structuredContent.items.length > 0, query);
		}

		/* Code that holds a fence is fenced with a longer one. */
		{
			const r = await call(client, 'search', { query: 'How to call checkout' });
			const it = r.structuredContent.items.find((i) => i.path === 'notes/fences.md');
			assert.ok(it, r.content[0].text);
			assert.ok(r.content[0].text.includes(
				'````markdown\n# Fences\n\nHow to call checkout:\n\n```python\n' +
				'checkout(cart)\n```\n````\n'), r.content[0].text);
		}

		/* definition: where workspace/symbol puts it, with the text and
		 * the enclosing class's header. */
		for (const [symbol, name] of [['grand_total', 'grand_total'],
			['Cart.grand_total', 'grand_total'],
			['shop.models.Cart', 'Cart'], ['getUserName', 'getUserName'],
			['build_assets', 'build_assets']]) {
			const r = await call(client, 'definition', { symbol });
			const syms = (await lsp.request('workspace/symbol', { query: name }))
				.filter((s) => s.name === name);
			assert.ok(!r.isError, r.content[0].text);
			const defs = r.structuredContent.definitions;
			assert.equal(defs.length, syms.length, symbol);
			assert.deepEqual(defs.map((d) => [d.path, d.startLine, d.endLine]),
				syms.map((s) => [
					decodeURIComponent(s.location.uri.replace(`file://${ws}/`, '')),
					s.location.range.start.line + 1, s.location.range.end.line]),
				symbol);
			assert.match(defs[0].text, new RegExp(name));
		}
		{
			const r = await call(client, 'definition', { symbol: 'Cart.grand_total' });
			const d = r.structuredContent.definitions[0];
			assert.equal(d.qualname, 'Cart.grand_total');
			assert.deepEqual(d.parents.map((p) => [p.kind, p.name, p.header]),
				[['class', 'Cart', 'class Cart:']]);
			assert.match(d.text, /^ {4}def grand_total\(self\) -> Money:\n/);
			const none = await call(client, 'definition', { symbol: 'grand_totl' });
			assert.equal(none.structuredContent.definitions.length, 0);
			assert.ok(!none.isError);
			const wrong = await call(client, 'definition', { symbol: 'Money.grand_total' });
			assert.equal(wrong.structuredContent.definitions.length, 0);
			const like = await call(client, 'definition', { symbol: 'grand' });
			assert.ok(like.structuredContent.suggestions.includes('Cart.grand_total'),
				JSON.stringify(like.structuredContent));
		}

		/* outline: textDocument/documentSymbol's tree, flattened. */
		for (const rel of ['shop/models.py', 'web/cart_view.ts', 'README.md']) {
			const r = await call(client, 'outline', { path: rel });
			assert.ok(!r.isError, r.content[0].text);
			const text = lsp.open(ws, rel);
			const tree = await lsp.request('textDocument/documentSymbol',
				{ textDocument: { uri: `file://${ws}/${rel}` } });
			const flat = [];
			const walk = (list, depth) => {
				for (const s of list) {
					flat.push([s.name, s.range.start.line + 1, depth]);
					walk(s.children ?? [], depth + 1);
				}
			};
			walk(tree, 0);
			assert.deepEqual(r.structuredContent.symbols.map(
				(s) => [s.name, s.startLine, s.depth]), flat, rel);
			assert.equal(r.structuredContent.lines,
				text.split('\n').length - (text.endsWith('\n') ? 1 : 0));
		}
		{
			const r = await call(client, 'outline', { path: 'shop/models.py' });
			assert.match(r.content[0].text,
				/^shop\/models\.py \(python, 30 lines\): 7 definitions\n5-12 class Money:\n {2}9-9 cents: int\n {2}11-12 def add/);
			const small = await call(client, 'outline',
				{ path: 'shop/models.py', budget: 30 });
			assert.equal(small.structuredContent.truncated, true);
			assert.ok(small.structuredContent.symbols.length < 6);
		}

		/* Nothing was written in the workspace. */
		assert.deepEqual(snapshotTree(ws), before);
	} finally {
		await lsp.close();
		await mcp.close();
	}
});
