'use strict';
/*
 * vscode-stub.js: a small stand-in for the `vscode` module, enough for
 * vscode-languageclient 9 and this extension to run under plain Node. It
 * keeps what the extension shows (status bar items, tree views, quick
 * picks, messages, the clipboard, executed commands) so a test can read it.
 *
 * install(options) hooks Module._load so require('vscode') returns the
 * stub; the returned object is both the module and the record.
 */
const Module = require('module');
const fs = require('fs');
const path = require('path');

/* ---------------------------------------------------------------------- *
 * Values
 * ---------------------------------------------------------------------- */

const URI_RE = /^([a-zA-Z][\w+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/;

class Uri {
	constructor(scheme, authority, p, query, fragment) {
		this.scheme = scheme;
		this.authority = authority || '';
		this.path = p || '';
		this.query = query || '';
		this.fragment = fragment || '';
	}
	static parse(s) {
		const m = URI_RE.exec(s);
		if (!m)
			throw new Error(`stub Uri.parse: not a URI: ${s}`);
		return new Uri(m[1], m[2], decodeURIComponent(m[3]), m[4], m[5]);
	}
	static file(p) {
		return new Uri('file', '', path.resolve(p), '', '');
	}
	static joinPath(base, ...parts) {
		return base.with({ path: path.posix.join(base.path, ...parts) });
	}
	get fsPath() {
		return this.path;
	}
	with(change) {
		return new Uri(change.scheme ?? this.scheme,
			change.authority ?? this.authority, change.path ?? this.path,
			change.query ?? this.query, change.fragment ?? this.fragment);
	}
	toString() {
		const p = this.path.split('/').map(encodeURIComponent).join('/');
		return `${this.scheme}://${this.authority}${p}` +
			(this.query ? `?${this.query}` : '') +
			(this.fragment ? `#${this.fragment}` : '');
	}
	toJSON() {
		return this.toString();
	}
}

class Position {
	constructor(line, character) {
		this.line = line;
		this.character = character;
	}
	isEqual(o) {
		return this.line === o.line && this.character === o.character;
	}
	isBefore(o) {
		return this.line < o.line ||
			(this.line === o.line && this.character < o.character);
	}
	translate(dl = 0, dc = 0) {
		return new Position(this.line + dl, this.character + dc);
	}
}

class Range {
	constructor(a, b, c, d) {
		if (typeof a === 'number') {
			this.start = new Position(a, b);
			this.end = new Position(c, d);
		} else {
			this.start = a;
			this.end = b;
		}
	}
	get isEmpty() {
		return this.start.isEqual(this.end);
	}
}

class Selection extends Range {
	constructor(anchor, active) {
		super(anchor, active);
		this.anchor = anchor;
		this.active = active;
	}
}

class Location {
	constructor(uri, rangeOrPosition) {
		this.uri = uri;
		this.range = rangeOrPosition;
	}
}

class Disposable {
	constructor(fn) {
		this.fn = fn;
	}
	static from(...items) {
		return new Disposable(() => items.forEach((d) => d && d.dispose()));
	}
	dispose() {
		if (this.fn)
			this.fn();
		this.fn = undefined;
	}
}

class EventEmitter {
	constructor() {
		this.listeners = new Set();
		this.event = (fn, thisArg, subs) => {
			const f = thisArg ? fn.bind(thisArg) : fn;
			this.listeners.add(f);
			const d = new Disposable(() => this.listeners.delete(f));
			if (Array.isArray(subs))
				subs.push(d);
			return d;
		};
	}
	fire(value) {
		for (const f of [...this.listeners])
			f(value);
	}
	dispose() {
		this.listeners.clear();
	}
}

class CancellationTokenSource {
	constructor() {
		const changed = new EventEmitter();
		this.changed = changed;
		this.token = {
			isCancellationRequested: false,
			onCancellationRequested: changed.event,
		};
	}
	cancel() {
		this.token.isCancellationRequested = true;
		this.changed.fire();
	}
	dispose() {}
}

class CancellationError extends Error {}

class MarkdownString {
	constructor(value = '') {
		this.value = value;
	}
	appendMarkdown(s) {
		this.value += s;
		return this;
	}
	appendText(s) {
		this.value += s.replace(/[\\`*_{}[\]()#+\-.!]/g, '\\$&');
		return this;
	}
	appendCodeblock(code, lang = '') {
		this.value += `\n\`\`\`${lang}\n${code}\n\`\`\`\n`;
		return this;
	}
}

class ThemeIcon {
	constructor(id) {
		this.id = id;
	}
}
ThemeIcon.File = new ThemeIcon('file');
ThemeIcon.Folder = new ThemeIcon('folder');

class TreeItem {
	constructor(label, collapsibleState) {
		this.label = label;
		this.collapsibleState = collapsibleState;
	}
}

/* A text document over a string, with the methods the client calls. */
class TextDocument {
	constructor(uri, languageId, text) {
		this.uri = uri;
		this.fileName = uri.fsPath;
		this.languageId = languageId;
		this.version = 1;
		this.text = text;
		this.isDirty = false;
		this.isClosed = false;
		this.isUntitled = false;
		this.eol = 1;
	}
	get lineCount() {
		return this.text.split('\n').length;
	}
	offsetAt(pos) {
		const lines = this.text.split('\n');
		let off = 0;
		for (let i = 0; i < pos.line && i < lines.length; i++)
			off += lines[i].length + 1;
		return off + pos.character;
	}
	positionAt(offset) {
		const before = this.text.slice(0, offset).split('\n');
		return new Position(before.length - 1, before.at(-1).length);
	}
	getText(range) {
		if (!range)
			return this.text;
		return this.text.slice(this.offsetAt(range.start),
			this.offsetAt(range.end));
	}
	lineAt(line) {
		const text = this.text.split('\n')[line];
		return { text, lineNumber: line,
			range: new Range(line, 0, line, text.length) };
	}
}

/* ---------------------------------------------------------------------- *
 * The stub
 * ---------------------------------------------------------------------- */

function lookup(obj, dotted) {
	let v = obj;
	for (const k of dotted.split('.')) {
		if (v === null || typeof v !== 'object' || !(k in v))
			return undefined;
		v = v[k];
	}
	return v;
}

/*
 * options: {folder: absolute path, settings: nested object ({castls:
 * {...}}), documents: [{path, languageId}], active: {path, line,
 * character}}.
 */
function create(options) {
	const rec = {
		commands: new Map(),       /* id -> handler */
		executed: [],              /* [id, ...args] */
		messages: [],              /* {level, text, items} */
		clipboard: '',
		statusBarItems: [],
		treeViews: new Map(),      /* id -> view (with treeDataProvider) */
		quickPicks: [],
		outputs: new Map(),        /* name -> text */
		providers: [],             /* language feature registrations */
		missing: new Set(),        /* API the stub does not have */
	};
	const events = {};
	const event = (name) => (events[name] ??= new EventEmitter()).event;
	const folderUri = Uri.file(options.folder);
	const documents = (options.documents || []).map((d) =>
		new TextDocument(Uri.file(d.path), d.languageId,
			fs.readFileSync(d.path, 'utf8')));
	/* The folder holding fsPath, or undefined (as VS Code's
	 * getWorkspaceFolder). */
	const folderOf = (fsPath) => (vscode.workspace.workspaceFolders || [])
		.find((f) => {
			const rel = path.relative(f.uri.fsPath, fsPath);
			return !rel.startsWith('..') && !path.isAbsolute(rel);
		});

	const asRelativePath = (p) => {
		const fsPath = typeof p === 'string' ? p : p.fsPath;
		const folder = folderOf(fsPath);
		return folder ? path.relative(folder.uri.fsPath, fsPath) : fsPath;
	};
	const configuration = (section) => ({
		get(key, dflt) {
			const v = lookup(options.settings,
				section ? `${section}.${key}` : key);
			return v === undefined ? dflt : v;
		},
		has(key) {
			return this.get(key) !== undefined;
		},
		inspect() {
			return undefined;
		},
		update() {
			return Promise.resolve();
		},
	});
	const message = (level) => (text, ...items) => {
		const buttons = items.filter((i) => typeof i === 'string');
		rec.messages.push({ level, text, items: buttons });
		return Promise.resolve(undefined);
	};
	const outputChannel = (name) => {
		rec.outputs.set(name, '');
		const add = (s) => rec.outputs.set(name, rec.outputs.get(name) + s);
		return {
			name,
			append: add,
			appendLine: (s) => add(`${s}\n`),
			replace: (s) => rec.outputs.set(name, s),
			clear: () => rec.outputs.set(name, ''),
			show() {},
			hide() {},
			dispose() {},
		};
	};
	const quickPick = () => {
		const changed = new EventEmitter();
		const accepted = new EventEmitter();
		const hidden = new EventEmitter();
		let value = '';
		const qp = {
			items: [], activeItems: [], selectedItems: [], busy: false,
			title: '', placeholder: '', visible: false,
			get value() {
				return value;
			},
			set value(v) {
				value = v;
				changed.fire(v);
			},
			onDidChangeValue: changed.event,
			onDidAccept: accepted.event,
			onDidHide: hidden.event,
			onDidChangeActive: new EventEmitter().event,
			onDidChangeSelection: new EventEmitter().event,
			show() {
				qp.visible = true;
			},
			hide() {
				qp.visible = false;
				hidden.fire();
			},
			dispose() {
				qp.disposed = true;
			},
			/* For the test: what a user's Enter does. */
			accept(item) {
				qp.selectedItems = [item];
				accepted.fire();
			},
		};
		rec.quickPicks.push(qp);
		return qp;
	};
	/* An editor on one of the documents, the cursor at {line, character}. */
	const editorAt = (at) => {
		const doc = at && documents.find((d) =>
			d.uri.fsPath === path.resolve(at.path));
		const pos = doc && new Position(at.line, at.character);

		return doc && {
			document: doc,
			selection: new Selection(pos, pos),
			selections: [new Selection(pos, pos)],
		};
	};
	const registered = (kind) => (...args) => {
		rec.providers.push({ kind, args });
		return new Disposable();
	};

	const vscode = {
		version: '1.82.0',
		Uri, Position, Range, Selection, Location, Disposable, EventEmitter,
		CancellationTokenSource, CancellationError, MarkdownString,
		ThemeIcon, TreeItem,
		TreeItemCollapsibleState: { None: 0, Collapsed: 1, Expanded: 2 },
		StatusBarAlignment: { Left: 1, Right: 2 },
		ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
		ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
		workspace: {
			workspaceFolders: [{ uri: folderUri, name: path.basename(
				options.folder), index: 0 }],
			textDocuments: documents,
			getConfiguration: (section) => configuration(section),
			getWorkspaceFolder: (uri) => folderOf(uri.fsPath),
			asRelativePath,
			createFileSystemWatcher: () => ({
				onDidCreate: event('fsCreate'),
				onDidChange: event('fsChange'),
				onDidDelete: event('fsDelete'),
				dispose() {},
			}),
			applyEdit: () => Promise.resolve(false),
			onDidOpenTextDocument: event('open'),
			onDidCloseTextDocument: event('close'),
			onDidChangeTextDocument: event('change'),
			onWillSaveTextDocument: event('willSave'),
			onDidSaveTextDocument: event('save'),
			onDidChangeConfiguration: event('configuration'),
			onDidChangeWorkspaceFolders: event('folders'),
			onDidCreateFiles: event('createFiles'),
			onDidRenameFiles: event('renameFiles'),
			onDidDeleteFiles: event('deleteFiles'),
			onWillCreateFiles: event('willCreateFiles'),
			onWillRenameFiles: event('willRenameFiles'),
			onWillDeleteFiles: event('willDeleteFiles'),
		},
		window: {
			activeTextEditor: editorAt(options.active),
			visibleTextEditors: [],
			tabGroups: { all: [], onDidChangeTabs: event('tabs'),
				onDidChangeTabGroups: event('tabGroups') },
			onDidChangeActiveTextEditor: event('activeEditor'),
			onDidChangeVisibleTextEditors: event('visibleEditors'),
			createOutputChannel: outputChannel,
			createStatusBarItem(alignment, priority) {
				let text = '';
				const item = { alignment, priority, visible: false,
					texts: [], /* every text it was given */
					get text() {
						return text;
					},
					set text(t) {
						text = t;
						item.texts.push(t);
					},
					show() {
						item.visible = true;
					},
					hide() {
						item.visible = false;
					},
					dispose() {} };
				rec.statusBarItems.push(item);
				return item;
			},
			createTreeView(id, opts) {
				const view = { id, ...opts, message: '', visible: true,
					dispose() {} };
				rec.treeViews.set(id, view);
				return view;
			},
			createQuickPick: quickPick,
			showInformationMessage: message('info'),
			showWarningMessage: message('warning'),
			showErrorMessage: message('error'),
			showTextDocument: (doc, opts) => {
				rec.executed.push(['<showTextDocument>', doc, opts]);
				return Promise.resolve(undefined);
			},
			withProgress: (opts, task) => task({ report() {} },
				new CancellationTokenSource().token),
		},
		commands: {
			registerCommand(id, fn) {
				if (rec.commands.has(id))
					throw new Error(`command '${id}' already exists`);
				rec.commands.set(id, fn);
				return new Disposable(() => rec.commands.delete(id));
			},
			executeCommand(id, ...args) {
				rec.executed.push([id, ...args]);
				const fn = rec.commands.get(id);
				return Promise.resolve(fn ? fn(...args) : undefined);
			},
			getCommands: () => Promise.resolve([...rec.commands.keys()]),
		},
		languages: new Proxy({
			match(selector, doc) {
				const sels = Array.isArray(selector) ? selector : [selector];
				return sels.some((s) => typeof s === 'string'
					? s === doc.languageId
					: (!s.language || s.language === doc.languageId) &&
					  (!s.scheme || s.scheme === doc.uri.scheme)) ? 10 : 0;
			},
			createDiagnosticCollection: () => ({
				set() {}, delete() {}, clear() {}, forEach() {},
				get() {}, has: () => false, dispose() {},
			}),
		}, {
			get(target, key) {
				if (key in target)
					return target[key];
				if (typeof key === 'string' && key.startsWith('register'))
					return registered(key);
				rec.missing.add(`languages.${String(key)}`);
				return undefined;
			},
		}),
		env: {
			appName: 'vscode-stub', language: 'en', machineId: 'stub',
			sessionId: 'stub', uiKind: 1,
			clipboard: {
				writeText: (s) => {
					rec.clipboard = s;
					return Promise.resolve();
				},
				readText: () => Promise.resolve(rec.clipboard),
			},
			openExternal: () => Promise.resolve(true),
		},
		extensions: { getExtension: () => undefined, all: [] },
		/* For the test. */
		record: rec,
		/* The user goes to another open document: {path, line,
		 * character}. */
		showEditor(at) {
			const editor = editorAt(at);

			if (!editor)
				throw new Error(`stub showEditor: not open: ${at.path}`);
			vscode.window.activeTextEditor = editor;
			(events.activeEditor ?? new EventEmitter()).fire(editor);
		},
		/* The user opens another file: {path, languageId}. */
		openDocument(d) {
			const doc = new TextDocument(Uri.file(d.path), d.languageId,
				fs.readFileSync(d.path, 'utf8'));

			documents.push(doc);
			(events.open ?? new EventEmitter()).fire(doc);
			return doc;
		},
		/* A window with files only: no folders (undefined, as VS Code
		 * has it). VS Code restarts the extensions when a window loses
		 * its first folder, so no event: restart the server to see it. */
		closeFolders() {
			vscode.workspace.workspaceFolders = undefined;
		},
		fireConfigurationChange(settings) {
			options.settings = settings;
			(events.configuration ?? new EventEmitter()).fire({
				affectsConfiguration: () => true });
		},
	};

	/* Anything else: a placeholder class (the client extends a few at
	 * load time, e.g. CompletionItem) or an enum-like object, noted. */
	return new Proxy(vscode, {
		get(target, key) {
			if (key in target || typeof key !== 'string')
				return target[key];
			rec.missing.add(key);
			if (/^[A-Z]/.test(key)) {
				const made = new Proxy(class {}, {
					get: (c, k) => (k in c ? c[k] : 0),
				});
				target[key] = made;
				return made;
			}
			return undefined;
		},
	});
}

function install(options) {
	const stub = create(options);
	const load = Module._load;

	Module._load = function (request, ...rest) {
		return request === 'vscode' ? stub : load.call(this, request, ...rest);
	};
	stub.uninstall = () => {
		Module._load = load;
	};
	return stub;
}

module.exports = { install };
