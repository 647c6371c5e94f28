// prompt.test.mjs: `castls context --format prompt` and `--stdin`, the
// command line as a prompt tool. Markdown only on stdout (a fenced block
// per item under a `path:lines — symbol` header, the why in words), the
// token count on stderr covering every byte printed and within the
// budget, and the unsaved buffer read from standard input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { bin, scratch } from './lib.mjs';

function context(ws, cache, args, input) {
	const r = spawnSync(bin, ['context', '--root', ws, ...args], {
		cwd: ws, input: input ?? '', encoding: 'utf8',
		env: { ...process.env, XDG_CACHE_HOME: cache },
	});
	assert.equal(r.status, 0, r.stderr);
	assert.doesNotMatch(r.stderr, /Sanitizer|runtime error/);
	return r;
}

/* "castls: 3 items, 412 of 2000 tokens" */
function count(stderr) {
	const m = /castls: (\d+) items?, (\d+) of (\d+) tokens/.exec(stderr);
	assert.ok(m, stderr);
	return { items: Number(m[1]), tokens: Number(m[2]), budget: Number(m[3]) };
}

test('context --format prompt', () => {
	const { ws, cache } = scratch('prompt');
	const r = context(ws, cache, ['shop/checkout.py:12:33', '--format', 'prompt']);
	const c = count(r.stderr);
	assert.ok(c.items >= 2);
	/* The count is the text's: every byte printed, headers and fences. */
	assert.equal(c.tokens, Math.ceil(Buffer.byteLength(r.stdout) / 4));
	assert.ok(c.tokens <= c.budget);
	assert.equal((r.stdout.match(/^### /gm) ?? []).length, c.items);
	assert.equal((r.stdout.match(/^```/gm) ?? []).length, 2 * c.items);
	/* checkout.py imports Cart and does not use it yet: the whole class
	 * comes first, grand_total in it. */
	assert.match(r.stdout,
		/^### shop\/models\.py:15-30 — Cart\ndefines Cart[^\n]*not used yet[^\n]*\n```python\nclass Cart:\n[^`]* {4}def grand_total\(self\) -> Money:\n/m);
	/* No JSON: no signals object, no braces outside the code. */
	assert.doesNotMatch(r.stdout, /"bm25"|"signals"|\{"/);

	/* A smaller budget: fewer items, still within it. */
	const small = context(ws, cache, ['shop/checkout.py:12:33', '--format',
		'prompt', '--budget', '60']);
	const s = count(small.stderr);
	assert.ok(s.items < c.items && s.items >= 1, small.stderr);
	assert.ok(s.tokens <= 60);
	assert.equal(s.tokens, Math.ceil(Buffer.byteLength(small.stdout) / 4));

	/* Nothing fits: an empty prompt, and why on stderr. */
	const none = context(ws, cache, ['shop/checkout.py:12:33', '--format',
		'prompt', '--budget', '1']);
	assert.equal(none.stdout, '');
	assert.match(none.stderr, /no context worth 1 tokens/);

	/* --quiet: nothing on stderr. */
	const q = context(ws, cache, ['shop/checkout.py:12', '--format', 'prompt', '-q']);
	assert.equal(q.stderr, '');
});

test('context --stdin ranks the unsaved buffer', () => {
	const { ws, cache } = scratch('stdin');
	/* A buffer that is not on disk: a new file using names of others. */
	const buffer = 'from shop.models import Cart\n\n' +
		'def total(cart: Cart):\n    return cart.grand_total()\n';
	const r = context(ws, cache, ['shop/new.py:4:30', '--stdin', '--format', 'prompt'],
		buffer);
	assert.match(r.stdout, /^### shop\/models\.py:\d+-\d+ — Cart/m);
	/* The file on disk is not what is ranked: checkout.py's text,
	 * replaced by a buffer with no names, has nothing to look up. */
	const empty = context(ws, cache, ['shop/checkout.py:1', '--stdin', '--format',
		'prompt'], '\n');
	assert.equal(empty.stdout, '');
	/* --stdin with the JSON format, too. */
	const j = context(ws, cache, ['shop/new.py:4:30', '--stdin', '--format', 'json'],
		buffer);
	const res = JSON.parse(j.stdout);
	assert.ok(res.items.some((i) => i.symbol.startsWith('Cart')));
	/* Other commands take no prompt format. */
	const bad = spawnSync(bin, ['search', ws, 'cart', '--format', 'prompt'],
		{ encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: cache } });
	assert.equal(bad.status, 2);
});
