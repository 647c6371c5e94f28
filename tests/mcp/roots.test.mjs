// roots.test.mjs: which directories castls mcp serves. The client's roots
// (roots/list) replace the command line's, and a roots/list_changed
// notification makes it read them again; without either, the git root
// of the working directory; a root that does not exist stops it at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { bin, call, mcpStart, scratch } from './lib.mjs';

/* Calls definition (with a progress token, so it waits for the first
 * scan) until it finds symbol or tries run out. */
async function definitions(client, symbol) {
	const r = await call(client, 'definition', { symbol },
		{ onprogress: () => {} });
	return r.structuredContent.definitions.map((d) => d.path);
}

test('the client\'s roots replace the command line\'s', async () => {
	const a = scratch('roots-a'), b = scratch('roots-b');
	fs.writeFileSync(path.join(b.ws, 'only_b.py'), 'def only_in_b():\n    pass\n');
	let roots = [{ uri: `file://${a.ws}`, name: 'a' }];
	let asked = 0;
	const mcp = await mcpStart([b.ws], {
		cache: a.cache,
		capabilities: { roots: { listChanged: true } },
		roots: async () => { asked++; return { roots }; },
	});
	const { client } = mcp;

	try {
		assert.deepEqual(await definitions(client, 'Cart'), ['shop/models.py']);
		assert.equal(asked, 1);
		/* b, from the command line, is not served. */
		assert.deepEqual(await definitions(client, 'only_in_b'), []);
		let r = await call(client, 'outline', { path: path.join(b.ws, 'only_b.py') });
		assert.equal(r.isError, true);
		assert.match(r.content[0].text, /outside the workspace root/);

		/* The roots change: b only. */
		roots = [{ uri: `file://${b.ws}`, name: 'b' }];
		await client.sendRootsListChanged();
		for (let i = 0; i < 100 && asked < 2; i++)
			await new Promise((res) => setTimeout(res, 50));
		assert.equal(asked, 2);
		let found = [];
		for (let i = 0; i < 100 && !found.length; i++) {
			found = await definitions(client, 'only_in_b');
			if (!found.length)
				await new Promise((res) => setTimeout(res, 50));
		}
		assert.deepEqual(found, ['only_b.py']);
		r = await call(client, 'outline', { path: path.join(a.ws, 'shop/models.py') });
		assert.equal(r.isError, true);

		/* Two roots: paths come whole, each root searched. */
		roots = [{ uri: `file://${a.ws}` }, { uri: `file://${b.ws}` },
			{ uri: 'https://example.com/not-a-dir' }];
		await client.sendRootsListChanged();
		for (let i = 0; i < 100 && asked < 3; i++)
			await new Promise((res) => setTimeout(res, 50));
		let both = [];
		for (let i = 0; i < 100 && both.length < 2; i++) {
			both = await definitions(client, 'Cart');
			if (both.length < 2)
				await new Promise((res) => setTimeout(res, 50));
		}
		assert.deepEqual(both.sort(), [`${a.ws}/shop/models.py`,
			`${b.ws}/shop/models.py`].sort());
		r = await call(client, 'context', { path: 'only_b.py', line: 2 });
		assert.ok(!r.isError, r.content[0].text);
		assert.equal(r.structuredContent.cursor.path, `${b.ws}/only_b.py`);
	} finally {
		await mcp.close();
	}
});

test('without roots, the git root of the working directory', async () => {
	const { ws, cache } = scratch('gitroot');
	const mcp = await mcpStart([], { cache, cwd: path.join(ws, 'shop') });

	try {
		assert.deepEqual(await definitions(mcp.client, 'getUserName'),
			['web/user.ts']);
		const r = await call(mcp.client, 'outline', { path: 'shop/models.py' });
		assert.ok(!r.isError, r.content[0].text);
	} finally {
		await mcp.close();
	}
});

test('a root that does not exist is an error at start', () => {
	const { dir, cache } = scratch('noroot');
	const r = spawnSync(bin, ['mcp', path.join(dir, 'missing')], {
		input: '', env: { ...process.env, XDG_CACHE_HOME: cache },
		encoding: 'utf8',
	});
	assert.equal(r.status, 2, r.stderr);
	assert.match(r.stderr, /missing: no such directory/);
	assert.equal(r.stdout, '');
});
