/*
 * contextView.ts: the "castls Context" view in the Explorer, a read-only
 * list of the ranked chunks of the last context request. Each row names
 * the chunk, its file, lines and score; its tooltip says why it was ranked
 * (in the server's words) and shows the code; selecting it opens the file
 * at the chunk's lines.
 */
import * as vscode from 'vscode';
import {
	ContextItem, ContextResult, PathLabel, linesOf, titleOf, whyOf,
} from './format';

export const CONTEXT_VIEW_ID = 'castls.contextView';

export class ContextTree implements vscode.TreeDataProvider<ContextItem> {
	private readonly changed = new vscode.EventEmitter<void>();
	readonly onDidChangeTreeData = this.changed.event;
	private result: ContextResult | undefined;

	constructor(private readonly label: PathLabel) {}

	/* Replaces the list; the view's message says what it was asked. */
	show(result: ContextResult): void {
		this.result = result;
		this.changed.fire();
	}

	getChildren(element?: ContextItem): ContextItem[] {
		return element || !this.result ? [] : this.result.items;
	}

	getTreeItem(item: ContextItem): vscode.TreeItem {
		const uri = vscode.Uri.parse(item.uri);
		const range = new vscode.Range(item.range.start.line, 0,
			item.range.end.line, 0);
		const row = new vscode.TreeItem(titleOf(item),
			vscode.TreeItemCollapsibleState.None);
		const tip = new vscode.MarkdownString();

		row.description = `${this.label(item.uri)}:${linesOf(item.range)}` +
			` · ${item.score.toFixed(2)}`;
		tip.appendMarkdown(`**${this.label(item.uri)}**, lines ` +
			`${linesOf(item.range)}, score ${item.score.toFixed(2)}` +
			`${item.clipped ? ' (clipped)' : ''}\n\n`);
		tip.appendText(`Why: ${whyOf(item)}`);
		tip.appendCodeblock(item.text, item.language);
		row.tooltip = tip;
		row.resourceUri = uri;
		row.iconPath = vscode.ThemeIcon.File;
		row.command = {
			title: 'Open',
			command: 'vscode.open',
			arguments: [uri, { selection: range } as
				vscode.TextDocumentShowOptions],
		};
		return row;
	}
}
