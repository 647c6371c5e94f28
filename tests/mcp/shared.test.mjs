// shared.test.mjs: a language server and an MCP server on one root at
// once, as an editor and an agent would run them. Both open the same
// database (the per-root default under XDG_CACHE_HOME), scan it at the
// same time, answer requests interleaved with the other's writes, and
// each sees a file the other indexed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Lsp, call, lspItems, mcpItems, mcpStart, scratch } from './lib.mjs';

test('castls serve and castls mcp share one root and its index', async () => {
	const { ws, cache } = scratch('shared');
	/* Both start at once: two first scans of one database. */
	const lsp = new Lsp([], { cache });
	const [mcp] = await Promise.all([mcpStart([ws], { cache }),
		lsp.initialize(ws)]);
	const { client } = mcp;

	try {
		await client.listTools();
		await lsp.waitIndexed();
		const first = await call(client, 'definition', { symbol: 'Cart' },
			{ onprogress: () => {} });
		assert.deepEqual(first.structuredContent.definitions.map((d) => d.path),
			['shop/models.py']);

		/* One database file for the root, both servers in it. */
		const dbs = fs.readdirSync(path.join(cache, 'castls'));
		assert.equal(dbs.length, 1, dbs.join(' '));
		const st = await lsp.request('castls/status', {});
		assert.equal(st.roots[0].database,
			path.join(cache, 'castls', dbs[0], 'index.db'));

		/* The same cursor, asked of both, many times over, at once. */
		const text = lsp.open(ws, 'shop/checkout.py');
		const position = { line: 11, character: text.split('\n')[11].length };
		const asks = [];
		for (let i = 0; i < 8; i++) {
			asks.push(call(client, 'context',
				{ path: 'shop/checkout.py', line: 12, budget: 50000 }));
			asks.push(lsp.request('castls/context', {
				textDocument: { uri: `file://${ws}/shop/checkout.py` },
				position, budget: { tokens: 50000 },
			}));
		}
		const answers = await Promise.all(asks);
		const want = lspItems(answers[1], ws);
		assert.ok(want.some((i) => i.symbol === 'Cart'));
		for (let i = 0; i < answers.length; i += 2) {
			assert.deepEqual(mcpItems(answers[i].structuredContent), want);
			assert.deepEqual(lspItems(answers[i + 1], ws), want);
		}

		/* A new file on disk. The MCP server's next call rescans (it
		 * writes); the language server is told by its client. */
		fs.writeFileSync(path.join(ws, 'web/tax.ts'),
			'export function computeTax(cents: number): number {\n' +
			'  return Math.round(cents / 5);\n}\n');
		await new Promise((res) => setTimeout(res, 1100));
		const viaMcp = await call(client, 'definition', { symbol: 'computeTax' });
		assert.deepEqual(viaMcp.structuredContent.definitions.map((d) => d.path),
			['web/tax.ts']);
		/* Written by the MCP server's scan, read by the language server
		 * before its own. */
		let syms = await lsp.request('workspace/symbol', { query: 'computeTax' });
		assert.deepEqual(syms.map((s) => s.name), ['computeTax']);
		lsp.notify('workspace/didChangeWatchedFiles', {
			changes: [{ uri: `file://${ws}/web/tax.ts`, type: 1 }],
		});
		await lsp.waitIndexed();
		syms = await lsp.request('workspace/symbol', { query: 'computeTax' });
		assert.deepEqual(syms.map((s) => s.name), ['computeTax']);

		/* And the other way: a file the language server indexed (its
		 * scan after a change it was told of) is found by the MCP
		 * server. */
		fs.writeFileSync(path.join(ws, 'shop/fees.py'),
			'def handling_fee(cart):\n    return 250\n');
		lsp.notify('workspace/didChangeWatchedFiles', {
			changes: [{ uri: `file://${ws}/shop/fees.py`, type: 1 }],
		});
		await lsp.waitIndexed();
		const viaLsp = await call(client, 'definition', { symbol: 'handling_fee' });
		assert.deepEqual(viaLsp.structuredContent.definitions.map((d) => d.path),
			['shop/fees.py']);
	} finally {
		await lsp.close();
		await mcp.close();
	}
});
