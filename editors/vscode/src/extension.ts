/*
 * extension.ts: starts castls for Python, TypeScript/TSX, JavaScript,
 * shell scripts and Markdown, and turns its castls/context,
 * castls/search and castls/status replies into commands, a view, a status
 * bar item and an API for other extensions.
 *
 * The server's roots are the workspace folders. A file outside all of
 * them brings its own project's root (roots.ts), as in the other
 * clients; a file in no project is served alone, nothing indexed.
 */
import * as path from 'path';
import * as vscode from 'vscode';
import {
	DidChangeWorkspaceFoldersNotification, ExecuteCommandRequest,
	LanguageClient, LanguageClientOptions, ServerOptions, State,
	WorkDoneProgress, WorkDoneProgressCreateRequest,
} from 'vscode-languageclient/node';
import { CONTEXT_VIEW_ID, ContextTree } from './contextView';
import { registerMcpServer } from './mcp';
import { projectRoot } from './roots';
import {
	ContextItem, ContextResult, PARTIAL_NOTE, StatusResult, formatPrompt,
	indexSize, linesOf, statusLines, titleOf, tokensOf, whyOf,
} from './format';

/* What activate() returns, for AI-assistant extensions:
 *   const castls = vscode.extensions.getExtension('castls.castls');
 *   const api = await castls.activate();
 *   const ctx = await api.getContext(doc.uri, editor.selection.active);
 *   const prompt = api.formatPrompt(ctx); */
export interface CastlsApi {
	/* The ranked chunks for a position in an open, supported document;
	 * budget in tokens (default: the castls.budgetTokens setting). */
	getContext(uri: vscode.Uri, position: vscode.Position,
		budget?: number): Promise<ContextResult>;
	/* The indexed chunks that best match a free-text query. */
	search(query: string, budget?: number): Promise<ContextResult>;
	/* The result as prompt text, one fenced block per chunk. */
	formatPrompt(result: ContextResult): string;
}

/* The languages castls chunks, as VS Code names them. */
export const LANGUAGES = ['python', 'typescript', 'typescriptreact',
	'javascript', 'javascriptreact', 'shellscript', 'markdown', 'go', 'rust',
	'java', 'c', 'cpp'];

const SEARCH_DEBOUNCE_MS = 150;

/* The server settings, as castls reads them from initializationOptions,
 * didChangeConfiguration and workspace/configuration. */
function serverSettings(): Record<string, unknown> {
	const c = vscode.workspace.getConfiguration('castls');

	return {
		maxChunkSize: c.get<number>('maxChunkSize'),
		budgetTokens: c.get<number>('budgetTokens'),
		exclude: c.get<string[]>('exclude'),
		maxFileSize: c.get<number>('maxFileSize'),
		dbPath: c.get<string>('dbPath') || undefined,
		logLevel: c.get<string>('logLevel'),
	};
}

function pathLabel(uri: string): string {
	return vscode.workspace.asRelativePath(vscode.Uri.parse(uri), false);
}

/* How often the status is asked for while the server indexes. */
const STATUS_POLL_MS = 1000;

/* ---------------------------------------------------------------------- *
 * The status bar item: indexing progress, then the index size.
 * ---------------------------------------------------------------------- */

/* Exported for the tests. */
export class StatusItem {
	readonly item = vscode.window.createStatusBarItem(
		vscode.StatusBarAlignment.Right, 50);
	/* The last percentage of this indexing run: both $/progress and the
	 * status poll update the item, and only the first carries one. */
	private percentage: number | undefined;

	constructor() {
		this.item.name = 'castls';
		this.item.command = 'castls.showStatus';
		this.starting();
		this.item.show();
	}

	starting(): void {
		this.percentage = undefined;
		this.item.text = '$(loading~spin) castls';
		this.item.tooltip = 'castls: starting';
	}

	/* Indexing, at percentage when known, else at the last one known. */
	indexing(message?: string, percentage?: number): void {
		if (percentage !== undefined)
			this.percentage = percentage;
		const pct = this.percentage === undefined ? ''
			: ` ${this.percentage}%`;

		this.item.text = `$(sync~spin) castls: indexing${pct}`;
		this.item.tooltip = `castls: indexing ${message ?? ''}`.trim();
	}

	ready(st: StatusResult): void {
		if (st.indexing) {
			const seen = st.filesSeen ?? 0;
			const done = st.filesDone ?? 0;

			this.indexing(seen ? `${done}/${seen} files` : undefined,
				seen ? Math.floor(100 * done / seen) : undefined);
			return;
		}
		this.percentage = undefined;
		/* An index that cannot be written leaves the context limited
		 * to what it holds: not a normal status. */
		this.item.text = st.roots.some((r) => r.indexError)
			? `$(warning) castls: index not written · ${indexSize(st)}`
			: `$(database) castls: ${indexSize(st)}`;
		this.item.tooltip = statusLines(st).join('\n');
	}

	failed(why: string): void {
		this.percentage = undefined;
		this.item.text = '$(error) castls';
		this.item.tooltip = `castls: ${why}`;
	}
}

/* ---------------------------------------------------------------------- *
 * The extension
 * ---------------------------------------------------------------------- */

class Castls implements CastlsApi {
	private client: LanguageClient | undefined;
	private ready: Promise<LanguageClient> | undefined;
	readonly output = vscode.window.createOutputChannel('castls');
	readonly status = new StatusItem();
	readonly tree = new ContextTree(pathLabel);
	readonly view = vscode.window.createTreeView(CONTEXT_VIEW_ID,
		{ treeDataProvider: this.tree });
	/* The roots the running server was given for files outside every
	 * workspace folder. */
	private extraRoots = new Set<string>();

	/* Starts (or restarts) the server; resolves when it is initialized. */
	start(): Promise<LanguageClient> {
		const command = vscode.workspace.getConfiguration('castls')
			.get<string>('path') || 'castls';
		const server: ServerOptions = { command, args: ['serve'] };
		const options: LanguageClientOptions = {
			documentSelector: LANGUAGES.map((language) =>
				({ scheme: 'file', language })),
			initializationOptions: serverSettings(),
			synchronize: { configurationSection: 'castls' },
			outputChannel: this.output,
			middleware: {
				didOpen: async (doc, next) => {
					await this.addRootOf(client, doc);
					return next(doc);
				},
			},
		};
		const client = new LanguageClient('castls', 'castls', server,
			options);

		this.client = client;
		this.extraRoots = new Set();
		this.status.starting();
		this.ready = client.start().then(() => {
			this.watchProgress(client);
			void this.refreshStatus();
			return client;
		}, (err: unknown) => {
			const why = `could not start '${command}': ${String(err)}`;

			this.status.failed(why);
			void vscode.window.showErrorMessage(`castls: ${why}. Set ` +
				'"castls.path" to the castls executable.');
			throw err;
		});
		return this.ready;
	}

	/* Before the server hears of a document outside every workspace
	 * folder: the root of its project, as one more workspace folder, so
	 * that the project is indexed rather than the file served alone. */
	private async addRootOf(client: LanguageClient,
		doc: vscode.TextDocument): Promise<void> {
		if (doc.uri.scheme !== 'file' ||
		    vscode.workspace.getWorkspaceFolder(doc.uri))
			return;
		const root = projectRoot(doc.uri.fsPath);

		if (!root || this.extraRoots.has(root))
			return;
		this.extraRoots.add(root);
		this.output.appendLine(`castls: ${doc.uri.fsPath} is in no ` +
			`workspace folder; indexing its project, ${root}`);
		await client.sendNotification(
			DidChangeWorkspaceFoldersNotification.type, {
				event: {
					added: [{ uri: client.code2ProtocolConverter.asUri(
						vscode.Uri.file(root)), name: path.basename(root) }],
					removed: [],
				},
			});
	}

	async stop(): Promise<void> {
		const client = this.client;

		this.client = undefined;
		this.ready = undefined;
		if (client && client.state !== State.Stopped)
			await client.stop();
	}

	/* The server announces indexing with window/workDoneProgress/create;
	 * its $/progress reports drive the status bar item. */
	private watchProgress(client: LanguageClient): void {
		client.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
			const sub = client.onProgress(WorkDoneProgress.type, token,
				(v) => {
					if (v.kind === 'end') {
						sub.dispose();
						void this.refreshStatus();
					} else {
						this.status.indexing(v.message, v.percentage);
					}
				});
		});
	}

	private async running(): Promise<LanguageClient> {
		if (!this.ready)
			throw new Error('castls is not running');
		return this.ready;
	}

	async refreshStatus(): Promise<StatusResult | undefined> {
		try {
			const client = await this.running();
			const st = await client.sendRequest<StatusResult>(
				'castls/status', {});

			this.status.ready(st);
			/* Asked again while indexing: a $/progress 'end' can be
			 * missed when the server creates its token before the
			 * handler above is in place. */
			if (st.indexing)
				setTimeout(() => void this.refreshStatus(),
					STATUS_POLL_MS).unref();
			return st;
		} catch (err) {
			this.output.appendLine(`castls/status: ${String(err)}`);
			return undefined;
		}
	}

	/* ---- the API ---- */

	async getContext(uri: vscode.Uri, position: vscode.Position,
		budget?: number): Promise<ContextResult> {
		const client = await this.running();
		const c2p = client.code2ProtocolConverter;

		return client.sendRequest<ContextResult>('castls/context', {
			textDocument: { uri: c2p.asUri(uri) },
			position: c2p.asPosition(position),
			...(budget ? { budget: { tokens: budget } } : {}),
		});
	}

	async search(query: string, budget?: number): Promise<ContextResult> {
		const client = await this.running();

		return client.sendRequest<ContextResult>('castls/search', {
			query,
			...(budget ? { budget: { tokens: budget } } : {}),
		});
	}

	formatPrompt(result: ContextResult): string {
		return formatPrompt(result, pathLabel);
	}

	/* ---- the commands ---- */

	/* The context at the active editor's cursor, or undefined (and a
	 * message) when there is none to ask for. */
	private async contextAtCursor(): Promise<ContextResult | undefined> {
		const editor = vscode.window.activeTextEditor;

		if (!editor || !LANGUAGES.includes(editor.document.languageId) ||
		    editor.document.uri.scheme !== 'file') {
			void vscode.window.showWarningMessage('castls: open a Python, ' +
				'TypeScript, JavaScript, shell or Markdown file first.');
			return undefined;
		}
		const result = await this.getContext(editor.document.uri,
			editor.selection.active);
		if (result.noContext || result.items.length === 0) {
			void vscode.window.showInformationMessage(
				'castls: no related code found for this position.');
		}
		return result;
	}

	async showContext(): Promise<void> {
		const result = await this.contextAtCursor();
		const editor = vscode.window.activeTextEditor;

		if (!result || !editor)
			return;
		this.tree.show(result);
		this.view.message = `${result.items.length} chunks for ` +
			`${pathLabel(editor.document.uri.toString())}:` +
			`${editor.selection.active.line + 1} · ${result.budget.used}/` +
			`${result.budget.limit} tokens` +
			(result.indexing ? ` ${PARTIAL_NOTE}` : '');
		await vscode.commands.executeCommand(`${CONTEXT_VIEW_ID}.focus`);
	}

	async copyContext(): Promise<void> {
		const result = await this.contextAtCursor();

		if (!result || result.items.length === 0)
			return;
		const prompt = this.formatPrompt(result);

		await vscode.env.clipboard.writeText(prompt);
		/* The prompt's own count: the budget leaves out its headers and
		 * fences. */
		void vscode.window.showInformationMessage(`castls: copied ` +
			`${result.items.length} chunks (~${tokensOf(prompt)} tokens)` +
			(result.indexing ? ` ${PARTIAL_NOTE}.` : '.'));
	}

	/* A quick pick that searches the index as the query is typed. */
	async searchWorkspace(): Promise<void> {
		const client = await this.running();
		type Pick = vscode.QuickPickItem & { item: ContextItem };
		const qp = vscode.window.createQuickPick<Pick>();
		const editor = vscode.window.activeTextEditor;
		let timer: ReturnType<typeof setTimeout> | undefined;
		let asked = 0;

		qp.title = 'castls: Search Workspace Context';
		qp.placeholder = 'Words, names or code to look for';
		qp.matchOnDescription = true;
		qp.matchOnDetail = true;
		const run = async (query: string) => {
			const mine = ++asked;

			if (!query.trim()) {
				qp.items = [];
				return;
			}
			qp.busy = true;
			try {
				const r = await client.sendRequest<ContextResult>(
					'castls/search', { query });
				if (mine !== asked)
					return;
				qp.items = r.items.map((item) => ({
					label: titleOf(item),
					description: `${pathLabel(item.uri)}:` +
						linesOf(item.range),
					detail: whyOf(item),
					alwaysShow: true,
					item,
				}));
			} finally {
				if (mine === asked)
					qp.busy = false;
			}
		};
		qp.onDidChangeValue((value) => {
			if (timer)
				clearTimeout(timer);
			timer = setTimeout(() => void run(value), SEARCH_DEBOUNCE_MS);
		});
		qp.onDidAccept(async () => {
			const pick = qp.selectedItems[0] ?? qp.activeItems[0];

			qp.hide();
			if (!pick)
				return;
			const r = pick.item.range;
			await vscode.commands.executeCommand('vscode.open',
				vscode.Uri.parse(pick.item.uri), {
					selection: new vscode.Range(r.start.line, 0,
						r.end.line, 0),
				} as vscode.TextDocumentShowOptions);
		});
		qp.onDidHide(() => qp.dispose());
		if (editor && !editor.selection.isEmpty)
			qp.value = editor.document.getText(editor.selection);
		qp.show();
		if (qp.value)
			await run(qp.value);
	}

	async reindex(): Promise<void> {
		const client = await this.running();

		this.status.indexing(undefined, 0);
		await client.sendRequest(ExecuteCommandRequest.type,
			{ command: 'castls.reindex', arguments: [] });
		void vscode.window.showInformationMessage(
			'castls: reindexing the workspace.');
	}

	/* Stops the server and starts a new one; the language client opens
	 * the open documents in it again. */
	async restart(): Promise<void> {
		await this.stop();
		await this.start();
		void vscode.window.showInformationMessage(
			'castls: restarted the server.');
	}

	async showStatus(): Promise<void> {
		const st = await this.refreshStatus();

		if (!st) {
			void vscode.window.showErrorMessage('castls is not running; ' +
				'see the castls output.');
			return;
		}
		const lines = statusLines(st);

		for (const l of lines)
			this.output.appendLine(l);
		const pick = await vscode.window.showInformationMessage(lines[0],
			'Show Details');
		if (pick)
			this.output.show(true);
	}
}

let castls: Castls | undefined;

/* A command that reports its failure instead of throwing it away. */
function guarded(fn: () => Promise<void>): () => Promise<void> {
	return async () => {
		try {
			await fn();
		} catch (err) {
			void vscode.window.showErrorMessage(`castls: ${String(err)}`);
		}
	};
}

export function activate(context: vscode.ExtensionContext): CastlsApi {
	const c = new Castls();
	const commands: [string, () => Promise<void>][] = [
		['castls.showContext', () => c.showContext()],
		['castls.copyContext', () => c.copyContext()],
		['castls.searchWorkspace', () => c.searchWorkspace()],
		['castls.reindexWorkspace', () => c.reindex()],
		['castls.restartServer', () => c.restart()],
		['castls.showStatus', () => c.showStatus()],
	];

	castls = c;
	for (const [id, fn] of commands)
		context.subscriptions.push(
			vscode.commands.registerCommand(id, guarded(fn)));
	context.subscriptions.push(c.output, c.status.item, c.view,
		vscode.workspace.onDidChangeConfiguration((e) => {
			/* The server path and the database are only read at
			 * start. */
			if (e.affectsConfiguration('castls.path') ||
			    e.affectsConfiguration('castls.dbPath'))
				void c.stop().then(() => c.start()).catch(() => undefined);
		}));
	c.start().catch(() => undefined);
	/* Agent mode's MCP tools, where VS Code has the API (1.101 on). */
	registerMcpServer(context,
		(context.extension?.packageJSON as { version?: string } | undefined)
			?.version ?? '0');
	return {
		getContext: (uri, position, budget) =>
			c.getContext(uri, position, budget),
		search: (query, budget) => c.search(query, budget),
		formatPrompt: (result) => c.formatPrompt(result),
	};
}

export function deactivate(): Promise<void> | undefined {
	const c = castls;

	castls = undefined;
	return c?.stop();
}
