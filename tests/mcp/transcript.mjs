// transcript.mjs NAME: replays tests/mcp/transcripts/NAME.txt against the
// real castls mcp over stdio, in the style of tests/lsp/transcripts, on a
// fresh copy of tests/lsp/workspace. Exit status 0 when every step holds.
//
//	# a comment (blank lines too)
//	>>> {"id":1,"method":"ping"}        one message, one line ("jsonrpc"
//	                                    is added to an object lacking it)
//	>>>raw text                         the line as it is, byte for byte
//	<<< {"id":1,"result":{}}            a reply to id 1 (no "method"), or
//	                                    the first message the pattern fits
//	::: directive
//
// Patterns match as subsets, with placeholders: "$any", "$number",
// "$string", "$bool", "$object", "$array", "$nonempty", "$absent" (the
// member must not be there), "$re:ERE"; an array matches element by
// element unless it starts with "$contains" (each pattern fits a distinct
// element), "$each" (every element fits the one pattern) or "$prefix".
// A JSON value may go on over the lines after it, up to the next step.
// "$root" and "$rootUri" stand for the workspace copy in both directions,
// "$empty" for an empty directory beside it.
//
// Directives:
//	::: args ARG...    argv after `mcp` (before the first message;
//	                   default: the workspace)
//	::: oversized N    sends a line of N bytes (a JSON string)
//	::: sleep MS
//	::: silent MS      nothing at all may arrive for MS milliseconds
//	::: eof CODE       closes stdin; the server exits with CODE
//
// At the end every reply the server sent must have been expected (a
// reply to a notification is a bug), and its stderr must hold no
// sanitizer report.
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { here, rawStart, scratch } from './lib.mjs';

const name = process.argv[2];
const file = path.join(here, 'transcripts', `${name}.txt`);
const { dir, ws, cache } = scratch(`transcript-${name}`);
const empty = path.join(dir, 'empty');
fs.mkdirSync(empty);

function substitute(v) {
	if (typeof v === 'string')
		return v.replaceAll('$rootUri', `file://${ws}`).replaceAll('$root', ws)
			.replaceAll('$empty', empty);
	if (Array.isArray(v))
		return v.map(substitute);
	if (v && typeof v === 'object')
		return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x)]));
	return v;
}

const TYPES = {
	$number: (a) => typeof a === 'number',
	$string: (a) => typeof a === 'string',
	$bool: (a) => typeof a === 'boolean',
	$object: (a) => a !== null && typeof a === 'object' && !Array.isArray(a),
	$array: (a) => Array.isArray(a),
	$nonempty: (a) => (typeof a === 'string' || Array.isArray(a)) && a.length > 0,
	$any: () => true,
};

/* Why actual does not fit pattern, or null when it does. */
function mismatch(p, a, where = '') {
	const show = (x) => JSON.stringify(x)?.slice(0, 300);
	if (typeof p === 'string' && TYPES[p])
		return TYPES[p](a) ? null : `${where}: ${show(a)} is not ${p}`;
	if (typeof p === 'string' && p.startsWith('$re:'))
		return typeof a === 'string' && new RegExp(p.slice(4)).test(a) ? null
			: `${where}: ${show(a)} does not match /${p.slice(4)}/`;
	if (Array.isArray(p)) {
		if (!Array.isArray(a))
			return `${where}: ${show(a)} is not an array`;
		const [d, ...rest] = p;
		if (d === '$each')
			return a.map((x, i) => mismatch(rest[0], x, `${where}[${i}]`))
				.find((w) => w) ?? null;
		if (d === '$prefix' || d === '$contains') {
			const used = new Set();
			for (let i = 0; i < rest.length; i++) {
				const k = d === '$prefix' ? (mismatch(rest[i], a[i]) ? -1 : i)
					: a.findIndex((x, j) => !used.has(j) && !mismatch(rest[i], x));
				if (k < 0)
					return `${where}: nothing fits ${show(rest[i])} in ${show(a)}`;
				used.add(k);
			}
			return null;
		}
		if (a.length !== p.length)
			return `${where}: ${a.length} elements, expected ${p.length}: ${show(a)}`;
		return p.map((x, i) => mismatch(x, a[i], `${where}[${i}]`)).find((w) => w) ?? null;
	}
	if (p && typeof p === 'object') {
		if (!a || typeof a !== 'object' || Array.isArray(a))
			return `${where}: ${show(a)} is not an object`;
		for (const [k, x] of Object.entries(p)) {
			if (x === '$absent') {
				if (k in a)
					return `${where}.${k} is there: ${show(a[k])}`;
			} else if (!(k in a)) {
				return `${where}.${k} is missing from ${show(a)}`;
			} else {
				const w = mismatch(x, a[k], `${where}.${k}`);
				if (w)
					return w;
			}
		}
		return null;
	}
	return p === a ? null : `${where}: ${show(a)}, expected ${show(p)}`;
}

/* The steps of the transcript: [line, text] with continuation lines. */
function steps(text) {
	const out = [];
	const lines = text.split('\n');
	const start = (l) => /^(>>>|<<<|:::|#)/.test(l);
	for (let i = 0; i < lines.length; i++) {
		if (!lines[i].trim() || lines[i].startsWith('#'))
			continue;
		let t = lines[i];
		const at = i + 1;
		while (i + 1 < lines.length && lines[i + 1].trim() && !start(lines[i + 1]))
			t += '\n' + lines[++i];
		out.push([at, t]);
	}
	return out;
}

let server = null, args = [ws], ended = false;

function started() {
	if (!server)
		server = rawStart(args, { cache, cwd: ws });
	return server;
}

async function run([line, t]) {
	const fail = (why) => { throw new Error(`${name}.txt:${line}: ${why}`); };
	if (t.startsWith('>>>raw')) {
		started().send(t.slice(7)); // ">>>raw" alone: an empty line
	} else if (t.startsWith('>>>')) {
		let m = substitute(JSON.parse(t.slice(3)));
		if (m && typeof m === 'object' && !Array.isArray(m) && !('jsonrpc' in m))
			m = { jsonrpc: '2.0', ...m };
		started().send(JSON.stringify(m));
	} else if (t.startsWith('<<<')) {
		const p = substitute(JSON.parse(t.slice(3)));
		const isReply = p && typeof p === 'object' && 'id' in p && !('method' in p);
		const pred = isReply
			? (m) => !m.method && JSON.stringify(m.id) === JSON.stringify(p.id)
			: (m) => !mismatch(p, m);
		let m;
		try {
			m = await started().next(pred);
		} catch (e) {
			fail(e.message);
		}
		const why = mismatch(p, m);
		if (why)
			fail(`${why}\n  got: ${JSON.stringify(m).slice(0, 3000)}`);
	} else if (t.startsWith(':::')) {
		const [d, ...rest] = t.slice(3).trim().split(/\s+/);
		if (d === 'args') {
			if (server)
				fail('::: args after the server started');
			args = rest.map((a) => substitute(a));
		} else if (d === 'oversized') {
			started().send(JSON.stringify('x'.repeat(Number(rest[0]) - 2)));
		} else if (d === 'sleep') {
			await new Promise((r) => setTimeout(r, Number(rest[0])));
		} else if (d === 'silent') {
			const before = started().queue.length;
			await new Promise((r) => setTimeout(r, Number(rest[0])));
			if (server.queue.length !== before)
				fail(`unexpected: ${JSON.stringify(server.queue.slice(before))}`);
		} else if (d === 'eof') {
			const st = await started().end();
			ended = true;
			assert.deepEqual({ code: st.code, signal: st.signal },
				{ code: Number(rest[0]), signal: null }, st.stderr);
		} else {
			fail(`unknown directive ${d}`);
		}
	} else {
		fail(`cannot read: ${t.slice(0, 80)}`);
	}
}

for (const s of steps(fs.readFileSync(file, 'utf8')))
	await run(s);
if (server) {
	if (!ended)
		await server.end();
	const stray = server.queue.filter((m) => !m.method);
	assert.deepEqual(stray, [], `${name}.txt: replies nobody expected`);
}
console.log(`${name}: ok`);
