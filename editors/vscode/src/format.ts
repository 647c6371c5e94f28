/*
 * format.ts: the shapes of castls' custom replies and the text the
 * extension makes of them. No `vscode` import, so the protocol test can
 * use it under plain Node.
 */

export interface LspPosition {
	line: number; /* 0-based */
	character: number; /* UTF-16 code units */
}

export interface LspRange {
	start: LspPosition;
	end: LspPosition; /* exclusive: {line: last + 1, character: 0} */
}

export interface ContextParent {
	kind: string;
	name: string;
	range: LspRange;
	header: string;
}

/* The ranker's reasons as numbers and flags; `why` says the same in
 * words. Only bm25 and definition are always there. */
export interface ContextSignals {
	bm25: number;
	definition?: number;
	defines?: string; /* "a, b": comma-separated (older servers: spaces) */
	fileUse?: number; /* its name is used elsewhere in the file */
	sibling?: number; /* used by the file's other definitions of the name
			   * being written (share of them) */
	similar?: number; /* used by the bodies of the file's definitions
			   * with headers like the one being written */
	namesakes?: number; /* used by other files' definitions of the name
			     * being written (share of them) */
	import?: boolean;
	declared?: boolean; /* a function whose declaration is in a file the
			     * file imports (a C header) */
	sameFile?: boolean;
	importedName?: boolean;
	unusedImport?: boolean;
	member?: boolean;
	joined?: string; /* siblings shown in the item, comma-separated */
	linesAway?: number; /* same-file definitions */
	usesInFile?: number;
	callersInFile?: number; /* its functions that call it, of */
	functionsInFile?: number; /* ... its functions */
	unusedPrivate?: boolean; /* kept to the file, not used in it yet */
}

export interface ContextItem {
	uri: string;
	range: LspRange;
	language: string;
	kind: string;
	symbol: string;
	parents: ContextParent[];
	score: number;
	signals: ContextSignals;
	why?: string; /* why it ranked, in the server's words (absent before
	               * castls sent it) */
	clipped?: boolean; /* text is part of the definition or chunk */
	text: string;
}

/* The reply of castls/context and castls/search. */
export interface ContextResult {
	items: ContextItem[];
	budget: { limit: number; used: number; unit: 'tokens' };
	noContext: boolean;
	elapsedMs: number;
	/* Set while the workspace is being indexed: the items may be only
	 * part of what castls will find. */
	indexing?: boolean;
}

/* What a result given while indexing is shown with. */
export const PARTIAL_NOTE = '(indexing: results may be partial)';

export interface RootStatus {
	path: string;
	indexing: boolean;
	database?: string;
	databaseBytes?: number;
	files?: number;
	chunks?: number;
	spans?: number;
	lastIndexed?: number; /* seconds since the epoch */
	languages?: Record<string, number>;
	error?: string;      /* the index cannot be read */
	indexError?: string; /* the index cannot be written */
}

/* The reply of castls/status. */
export interface StatusResult {
	roots: RootStatus[];
	indexing: boolean;
	openDocuments: number;
	files: number;
	chunks: number;
	spans: number;
	filesDone?: number; /* only while indexing */
	filesSeen?: number;
}

/* Maps a file: URI to the path shown to the user (workspace-relative). */
export type PathLabel = (uri: string) => string;

/* "12-30": the 1-based, inclusive lines of a whole-line range. */
export function linesOf(r: LspRange): string {
	const first = r.start.line + 1;
	const last = Math.max(first, r.end.character === 0 ? r.end.line
		: r.end.line + 1);

	return first === last ? `${first}` : `${first}-${last}`;
}

/* The names of a list the server sends comma-separated ("a, b"); older
 * servers separated them with spaces. */
export function namesOf(list: string | undefined): string[] {
	return (list ?? '').split(/[,\s]+/).filter((n) => n !== '');
}

/* Comments by language (castls' names): a comment opener such as a
 * line holding only a slash and two stars names nothing. */
const SLASH_COMMENTS = new Set(['typescript', 'tsx', 'javascript', 'go',
	'rust', 'java', 'c', 'cpp']);
const HASH_COMMENTS = new Set(['python', 'bash']);

/* The first line of code in text, trimmed: blank lines, comments and (in
 * Python) docstrings skipped. When there is no code, the first non-blank
 * line. */
export function firstCodeLine(text: string, language: string): string {
	const lines = text.split('\n').map((l) => l.trim());
	let until: string | undefined; /* inside a comment until this */

	for (const l of lines) {
		let opener: string | undefined;

		if (until) {
			if (l.includes(until))
				until = undefined;
			continue;
		}
		if (l === '')
			continue;
		if (SLASH_COMMENTS.has(language)) {
			if (l.startsWith('//'))
				continue;
			opener = l.startsWith('/*') ? '/*' : undefined;
		} else if (HASH_COMMENTS.has(language)) {
			if (l.startsWith('#'))
				continue;
			if (language === 'python')
				opener = /^[rRuU]?("""|''')/.exec(l)?.[1];
		}
		if (!opener)
			return l;
		const close = opener === '/*' ? '*/' : opener;
		if (!l.slice(l.indexOf(opener) + opener.length).includes(close))
			until = close;
	}
	return lines.find((l) => l !== '') ?? '';
}

/* The item's name as a list shows it: its symbol, else the names it
 * defines, else its first line of code. */
export function titleOf(item: ContextItem): string {
	if (item.symbol)
		return item.symbol;
	const names = namesOf(item.signals?.defines);
	if (names.length)
		return names.join(', ');
	const line = firstCodeLine(item.text, item.language);
	return line ? line.slice(0, 80) : `(${item.kind})`;
}

/* Why the server ranked the item: its own words. A server older than
 * `why` gets a few words from the signals. */
export function whyOf(item: ContextItem): string {
	if (typeof item.why === 'string' && item.why !== '')
		return item.why;
	const s = item.signals ?? { bm25: 0 };
	const names = namesOf(s.defines);
	const why: string[] = [];

	if (names.length)
		why.push(`defines ${names.join(', ')}`);
	else if ((s.definition ?? 0) > 0)
		why.push('defines a name used near the cursor');
	if (s.import)
		why.push('in a file this one imports');
	if (s.sameFile)
		why.push('in this file');
	if (s.bm25 > 0)
		why.push('matching words');
	return why.length ? why.join('; ') : 'related text';
}

/* One line per item for plain-text views. */
export function describeItem(item: ContextItem, label: PathLabel): string {
	return `${label(item.uri)}:${linesOf(item.range)}  ` +
		`score ${item.score.toFixed(2)}  ${titleOf(item)}  ` +
		`(${whyOf(item)})`;
}

/* A Markdown fence longer than any backtick run in the text. */
function fenceFor(text: string): string {
	let longest = 0;

	for (const m of text.matchAll(/`+/g))
		longest = Math.max(longest, m[0].length);
	return '`'.repeat(Math.max(3, longest + 1));
}

/*
 * Prompt-ready text: each chunk under a header naming its file and lines,
 * with the headers of its enclosing definitions before it, in a fence
 * tagged with its language.
 */
export function formatPrompt(result: ContextResult, label: PathLabel): string {
	const out: string[] = [];

	for (const item of result.items) {
		const body = item.parents.map((p) => p.header).join('\n');
		const text = body ? `${body}\n${item.text}` : item.text;
		const fence = fenceFor(text);

		out.push(`### ${label(item.uri)} (lines ${linesOf(item.range)})`);
		out.push(`${fence}${item.language}`);
		out.push(text.endsWith('\n') ? text.slice(0, -1) : text);
		out.push(fence, '');
	}
	return out.join('\n');
}

function bytes(n: number): string {
	if (n < 1024)
		return `${n} B`;
	if (n < 1024 * 1024)
		return `${(n / 1024).toFixed(0)} KB`;
	return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/* "12 files · 80 chunks · 1.2 MB": the index size, for the status bar. */
export function indexSize(st: StatusResult): string {
	const db = st.roots.reduce((n, r) => n + (r.databaseBytes ?? 0), 0);

	return `${st.files} files · ${st.chunks} chunks · ${bytes(db)}`;
}

/* A few lines for "Show Status": one per root. */
export function statusLines(st: StatusResult): string[] {
	const lines = [`castls: ${indexSize(st)}, ${st.openDocuments} open` +
		` document(s)${st.indexing ? ', indexing' : ''}`];

	for (const r of st.roots) {
		if (r.indexError)
			lines.push(`${r.path}: cannot write the index ` +
				`(${r.indexError}); set castls.dbPath to a writable file`);
		if (r.error) {
			lines.push(`${r.path}: ${r.error}`);
			continue;
		}
		const langs = Object.entries(r.languages ?? {})
			.map(([l, n]) => `${l} ${n}`).join(', ');
		lines.push(`${r.path}: ${r.files ?? 0} files, ${r.chunks ?? 0} ` +
			`chunks, ${r.spans ?? 0} symbols` +
			(langs ? ` (${langs})` : '') +
			(r.database ? `; index ${r.database}` : '') +
			(r.indexing ? '; indexing' : ''));
	}
	return lines;
}

/* Tokens in text by the server's rule of thumb: one per four bytes,
 * rounded up. */
export function tokensOf(text: string): number {
	return Math.ceil(Buffer.byteLength(text, 'utf8') / 4);
}
