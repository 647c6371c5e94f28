// protocol.test.mjs: the wire, below what the SDK lets a client do. Each
// revision the SDK speaks negotiates to itself and gets its own shape of
// tools; CRLF line ends, a last message without a line break, input from
// a regular file and SIGTERM all end well.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { bin, rawStart, scratch } from './lib.mjs';

const init = (id, version) => JSON.stringify({
	jsonrpc: '2.0', id, method: 'initialize',
	params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '0' } },
});
const msg = (id, method, params) => JSON.stringify({ jsonrpc: '2.0', id, method, params });

/* What each revision has: structured output (2025-06-18 on), tool
 * annotations (2025-03-26 on). */
const REVISIONS = {
	'2025-11-25': { structured: true, annotated: true },
	'2025-06-18': { structured: true, annotated: true },
	'2025-03-26': { structured: false, annotated: true },
	'2024-11-05': { structured: false, annotated: false },
};

test('every revision the SDK offers or accepts, but its pre-release', async () => {
	const { ws, cache } = scratch('versions');
	const offered = SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v !== '2024-10-07');
	assert.deepEqual(offered.sort(), Object.keys(REVISIONS).sort());
	for (const [version, has] of Object.entries(REVISIONS)) {
		const s = rawStart([ws], { cache });
		s.send(init(1, version));
		const r = await s.next((m) => m.id === 1);
		assert.equal(r.result.protocolVersion, version);
		s.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
		s.send(msg(2, 'tools/list', {}));
		const tools = (await s.next((m) => m.id === 2)).result.tools;
		for (const t of tools) {
			assert.equal('outputSchema' in t, has.structured, `${version} ${t.name}`);
			assert.equal('title' in t, has.structured, `${version} ${t.name}`);
			assert.equal('annotations' in t, has.annotated, `${version} ${t.name}`);
		}
		s.send(msg(3, 'tools/call', { name: 'outline', arguments: { path: 'shop/models.py' } }));
		const res = (await s.next((m) => m.id === 3)).result;
		assert.equal('structuredContent' in res, has.structured, version);
		assert.match(res.content[0].text, /class Cart:/);
		const st = await s.end();
		assert.equal(st.code, 0, st.stderr);
	}
});

test('CRLF, no final line break, a file for input', async () => {
	const { dir, ws, cache } = scratch('framing');
	const input = path.join(dir, 'input.jsonl');
	fs.writeFileSync(input, init(1, '2025-06-18') + '\r\n' +
		msg(2, 'ping', {}) + '\r\n\r\n   \n' + msg(3, 'ping'));
	/* stdin a regular file: read to its end, every message answered. */
	const r = spawnSync('sh', ['-c', `exec "$0" mcp "$1" < "$2"`, bin, ws, input],
		{ env: { ...process.env, XDG_CACHE_HOME: cache }, encoding: 'utf8' });
	assert.equal(r.status, 0, r.stderr);
	assert.doesNotMatch(r.stderr, /Sanitizer|runtime error/);
	const out = r.stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l));
	assert.deepEqual(out.map((m) => m.id), [1, 2, 3]);
	assert.ok(!r.stdout.includes('\r'));

	/* A pipe that ends without a line break. */
	const s = rawStart([ws], { cache });
	s.send(init(1, '2025-11-25'));
	s.proc.stdin.write(msg(2, 'ping', {}));
	const st = await s.end();
	assert.equal(st.code, 0);
	assert.deepEqual(s.queue.map((m) => m.id), [1, 2]);
});

test('SIGTERM stops a session that is indexing', async () => {
	const { ws, cache } = scratch('sigterm');
	for (let i = 0; i < 400; i++)
		fs.writeFileSync(path.join(ws, `gen${i}.py`),
			`def f${i}(x):\n    return x + ${i}\n`.repeat(50));
	const s = rawStart([ws], { cache });
	s.send(init(1, '2025-11-25'));
	await s.next((m) => m.id === 1);
	s.proc.kill('SIGTERM');
	const st = await new Promise((res) => s.proc.once('exit',
		(code, signal) => res({ code, signal })));
	assert.deepEqual(st, { code: 0, signal: null }, s.stderr());
	assert.doesNotMatch(s.stderr(), /Sanitizer|runtime error/);
});
