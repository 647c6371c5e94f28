// concurrency.test.mjs: calls in flight at once, and cancelled ones.
// Concurrent calls of every tool answer exactly as the same calls one at
// a time; a call cancelled while it waits (here for the client's roots)
// never gets a reply, and the others go on; calls cancelled while they
// run leave the server serving.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, mcpStart, scratch } from './lib.mjs';

const CALLS = [
	['context', { path: 'shop/checkout.py', line: 12 }],
	['context', { path: 'web/cart_view.ts', line: 13 }],
	['context', { path: 'web/user.ts', code: 'profile.displayName' }],
	['search', { query: 'grand total' }],
	['search', { query: 'formatPrice cents' }],
	['definition', { symbol: 'Cart' }],
	['definition', { symbol: 'getUserName' }],
	['outline', { path: 'shop/models.py' }],
	['outline', { path: 'web/format.ts' }],
	['context', { path: 'shop/nope.py', line: 1 }], // an error, too
];

test('concurrent calls answer as serial ones', async () => {
	const { ws, cache } = scratch('concurrent');
	const mcp = await mcpStart([ws], { cache });
	const { client } = mcp;

	try {
		await client.listTools();
		/* Settled: the first scan is done once a call says so. */
		for (let i = 0; i < 600; i++) {
			const r = await call(client, 'search', { query: 'cart' });
			if (!r.structuredContent.indexing)
				break;
			await new Promise((res) => setTimeout(res, 100));
		}
		const serial = [];
		for (const [name, args] of CALLS)
			serial.push(await call(client, name, args));
		/* Four rounds of everything at once, shuffled. */
		const batch = [];
		for (let round = 0; round < 4; round++)
			CALLS.forEach((c, i) => batch.push([i, c]));
		batch.sort(() => Math.random() - 0.5);
		const results = await Promise.all(batch.map(([i, [name, args]]) =>
			call(client, name, args).then((r) => [i, r])));
		for (const [i, r] of results)
			assert.deepEqual(r, serial[i], `${CALLS[i][0]} ${JSON.stringify(CALLS[i][1])}`);

		/* Cancelled while running (or before): no crash, no stray
		 * answer to the others, and the server still serves. */
		const aborts = [], kept = [];
		for (let k = 0; k < 12; k++) {
			const ac = new AbortController();
			const [name, args] = CALLS[k % CALLS.length];
			const p = call(client, name, args, { signal: ac.signal });
			if (k % 2) {
				ac.abort('test');
				aborts.push(p.then(() => 'answered', () => 'aborted'));
			} else {
				kept.push(p.then((r) => [k % CALLS.length, r]));
			}
		}
		for (const [i, r] of await Promise.all(kept))
			assert.deepEqual(r, serial[i]);
		for (const how of await Promise.all(aborts))
			assert.equal(how, 'aborted');
		await client.ping();
	} finally {
		await mcp.close();
	}
});

test('a call cancelled while it waits is never answered', async () => {
	const { dir, ws, cache } = scratch('cancel');
	let giveRoots;
	const rootsAsked = new Promise((res) => { giveRoots = res; });
	let answerRoots;
	const rootsReady = new Promise((res) => { answerRoots = res; });
	const seen = [];
	const mcp = await mcpStart([], {
		cache,
		cwd: dir,
		capabilities: { roots: { listChanged: true } },
		/* roots/list is answered only when the test says so: until
		 * then every call waits. */
		roots: async () => {
			giveRoots();
			await rootsReady;
			return { roots: [{ uri: `file://${ws}`, name: 'ws' }] };
		},
		onMessage: (m) => seen.push(m),
	});
	const { client, transport } = mcp;
	const sent = [];
	const send = transport.send.bind(transport);
	transport.send = (m, o) => { sent.push(m); return send(m, o); };

	try {
		await rootsAsked;
		const tools = await client.listTools(); // not a tool call: no wait
		assert.equal(tools.tools.length, 4);
		const ac = new AbortController();
		const doomed = call(client, 'definition', { symbol: 'Cart' },
			{ signal: ac.signal }).then(() => 'answered', () => 'aborted');
		/* With a progress token it also waits for the first scan. */
		const waiting = call(client, 'definition', { symbol: 'Cart' },
			{ onprogress: () => {} });
		await new Promise((res) => setTimeout(res, 300));
		const doomedId = sent.find((m) => m.method === 'tools/call').id;
		ac.abort('changed my mind');
		assert.equal(await doomed, 'aborted');
		await new Promise((res) => setTimeout(res, 200));
		answerRoots();
		const r = await waiting;
		assert.equal(r.structuredContent.definitions[0].path, 'shop/models.py');
		assert.ok(sent.some((m) => m.method === 'notifications/cancelled' &&
			m.params.requestId === doomedId));
		await client.ping();
		assert.equal(seen.filter((m) => m.id === doomedId && !m.method).length, 0,
			'the cancelled call was answered');
	} finally {
		await mcp.close();
	}
});
