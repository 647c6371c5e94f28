// indexing.test.mjs: answers while the workspace indexes. A call without
// a progress token answers at once and says the index is incomplete; one
// with a token waits for the first scan and gets progress notifications
// (progress going up, total the files seen) meanwhile; files changed on
// disk after a scan are seen by the next call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { call, mcpStart, scratch } from './lib.mjs';

const FILES = 1500;

test('progress while indexing, and the note on early answers', async () => {
	const { ws, cache } = scratch('indexing');
	/* Enough files that a first scan takes a while (seconds under
	 * ASan). */
	for (let i = 0; i < FILES; i++) {
		const d = path.join(ws, `gen/pkg${Math.floor(i / 100)}`);
		fs.mkdirSync(d, { recursive: true });
		let text = '';
		for (let j = 0; j < 20; j++)
			text += `def func_${i}_${j}(a, b):\n    '''Doc ${j}.'''\n` +
				`    return a * ${j} + b - ${i}\n\n`;
		fs.writeFileSync(path.join(d, `mod${i}.py`), text);
	}
	const mcp = await mcpStart([ws], { cache });
	const { client } = mcp;

	try {
		await client.listTools();
		/* At once: an answer that says the index is still being built. */
		const early = await call(client, 'search', { query: 'func_1499_19' });
		assert.equal(early.structuredContent.indexing, true,
			'the scan was over before the first call');
		assert.match(early.structuredContent.note, /still indexing/);
		assert.match(early.content[0].text, /^Note: castls is still indexing the workspace \(\d+ of \d+ files so far\)/);

		/* With a progress token: progress, then the whole answer. */
		const progress = [];
		const full = await call(client, 'definition', { symbol: 'func_1499_19' },
			{ onprogress: (p) => progress.push(p) });
		assert.equal(full.structuredContent.indexing, false);
		assert.deepEqual(full.structuredContent.definitions.map((d) => d.path),
			['gen/pkg14/mod1499.py']);
		assert.ok(progress.length >= 2, `progress: ${JSON.stringify(progress)}`);
		for (let i = 1; i < progress.length; i++)
			assert.ok(progress[i].progress > progress[i - 1].progress,
				JSON.stringify(progress));
		for (const p of progress) {
			assert.ok(p.total >= p.progress, JSON.stringify(p));
			assert.match(p.message, /^indexing: \d+ of \d+ files$/);
		}
		assert.ok(progress.at(-1).total >= FILES);

		/* A file written after the scan: the next call (a second on)
		 * rescans and finds it; a deleted one is gone. */
		fs.writeFileSync(path.join(ws, 'shop/tax.py'),
			'def compute_tax(amount):\n    return amount // 5\n');
		fs.unlinkSync(path.join(ws, 'gen/pkg14/mod1499.py'));
		await new Promise((res) => setTimeout(res, 1100));
		const after = await call(client, 'definition', { symbol: 'compute_tax' });
		assert.deepEqual(after.structuredContent.definitions.map((d) => d.path),
			['shop/tax.py']);
		const gone = await call(client, 'definition', { symbol: 'func_1499_19' });
		assert.deepEqual(gone.structuredContent.definitions, []);
	} finally {
		await mcp.close();
	}
});
