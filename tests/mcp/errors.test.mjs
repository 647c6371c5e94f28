// errors.test.mjs: what goes wrong in a tool call, through the SDK. An
// unknown tool is a protocol error (-32602); bad arguments, paths outside
// the root (by .., by a symlink, by an absolute path, by a sibling whose
// name starts like the root's), missing files and directories are tool
// errors (isError, a message saying what to change); the session goes on
// and nothing is written in the workspace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { call, mcpStart, scratch, snapshotTree } from './lib.mjs';

test('tool errors and protocol errors', async () => {
	const { dir, ws, cache } = scratch('errors');
	/* Things outside the root to try to reach. */
	fs.writeFileSync(path.join(dir, 'secret.py'), 'SECRET = 1\n');
	fs.mkdirSync(`${ws}2`);
	fs.writeFileSync(`${ws}2/sibling.py`, 'def sibling():\n    pass\n');
	fs.symlinkSync(path.join(dir, 'secret.py'), path.join(ws, 'shop/link.py'));
	fs.writeFileSync(path.join(ws, 'blob.py'), Buffer.from([0, 1, 2, 0, 3, 0]));
	const before = snapshotTree(ws);
	const mcp = await mcpStart([ws], { cache });
	const { client } = mcp;

	try {
		await client.listTools();

		/* An unknown tool: -32602 naming it. */
		await assert.rejects(call(client, 'nope', {}), (e) =>
			e instanceof McpError && e.code === -32602 && /nope/.test(e.message));

		const bad = async (name, args, re) => {
			const r = await call(client, name, args);
			assert.equal(r.isError, true, `${name} ${JSON.stringify(args)}: ` +
				JSON.stringify(r));
			assert.equal(r.structuredContent, undefined);
			assert.match(r.content[0].text, re, JSON.stringify(args));
		};

		/* Arguments that do not fit the schema name the argument. */
		await bad('context', {}, /missing argument "path"/);
		await bad('context', { path: 'shop/checkout.py', line: 'x' },
			/line must be an integer, got "x"/);
		await bad('context', { path: 'shop/checkout.py', line: 0 },
			/line must be at least 1/);
		await bad('context', { path: 'shop/checkout.py', line: 2.5 },
			/line must be an integer/);
		await bad('context', { path: 'shop/checkout.py', line: 1, colum: 3 },
			/unknown argument "colum" \(accepted: path, line, column, code, budget, limit\)/);
		await bad('context', { path: 'shop/checkout.py', line: 1, budget: 1e9 },
			/budget must be at most 200000/);
		await bad('context', { path: 'shop/checkout.py' }, /give line .* or code/);
		await bad('context', { path: 'shop/checkout.py', column: 2 },
			/column needs line/);
		await bad('context', { path: 'shop/checkout.py', line: 99 },
			/line 99 is past the end of shop\/checkout\.py \(13 lines\)/);
		await bad('search', { query: '' }, /query must not be empty/);
		await bad('search', { query: 7 }, /query must be a string, got 7/);
		await bad('definition', { symbol: '...' }, /symbol must name something/);
		await bad('outline', { path: ['a'] }, /path must be a string/);

		/* Outside the root, however it is spelled. */
		const outside = /outside the workspace root/;
		await bad('context', { path: '../secret.py', line: 1 }, outside);
		await bad('context', { path: path.join(dir, 'secret.py'), line: 1 }, outside);
		await bad('context', { path: 'shop/../../secret.py', line: 1 }, outside);
		await bad('context', { path: 'shop/link.py', line: 1 }, outside);
		await bad('outline', { path: `${ws}2/sibling.py` }, outside);
		await bad('outline', { path: `file://${dir}/secret.py` }, outside);
		await bad('outline', { path: '/etc/passwd' }, outside);
		/* A missing file outside says the same, not "no such file". */
		await bad('outline', { path: '../nothing/here.py' }, outside);
		await bad('outline', { path: 'nothere/../../../x.py' }, outside);

		/* Missing, not a file, binary, no language. */
		await bad('context', { path: 'shop/nope.py', line: 1 },
			/no such file: shop\/nope\.py/);
		await bad('outline', { path: 'shop/nope.py' }, /no such file/);
		await bad('outline', { path: 'shop' }, /shop is a directory, not a file/);
		await bad('outline', { path: 'blob.py' }, /blob\.py is a binary file/);
		fs.writeFileSync(path.join(ws, 'notes.txt'), 'plain\n');
		await bad('outline', { path: 'notes.txt' }, /no outline for notes\.txt/);
		fs.unlinkSync(path.join(ws, 'notes.txt'));

		/* Inside the root, by an absolute path or a file:// URI. */
		for (const p of [path.join(ws, 'shop/models.py'),
			`file://${ws}/shop/models.py`, './shop/../shop/models.py']) {
			const r = await call(client, 'outline', { path: p });
			assert.ok(!r.isError, r.content[0].text);
			assert.equal(r.structuredContent.path, 'shop/models.py');
		}

		/* Still serving. */
		await client.ping();
		const r = await call(client, 'definition', { symbol: 'Cart' });
		assert.equal(r.structuredContent.definitions[0].path, 'shop/models.py');
		assert.deepEqual(snapshotTree(ws), before);
	} finally {
		await mcp.close();
	}
});
