/*
 * mcp.ts: offers castls's MCP server (`castls mcp`) to VS Code's agent
 * mode, so its tools (context, search, definition, outline) are there
 * without an mcp.json. The MCP server definition provider API came with
 * VS Code 1.101; this extension's engine (and so @types/vscode) is older,
 * so the API is looked up when the extension starts and, where it is
 * missing, nothing happens.
 */
import * as vscode from 'vscode';

/* The id in package.json's contributes.mcpServerDefinitionProviders. */
export const MCP_PROVIDER_ID = 'castls';

/* The parts of VS Code 1.101's MCP API used here. */
interface McpStdioServerDefinition {
	cwd?: vscode.Uri;
}

type McpStdioServerDefinitionClass = new (label: string, command: string,
	args?: string[], env?: Record<string, string | number | null>,
	version?: string) => McpStdioServerDefinition;

interface McpServerDefinitionProvider {
	readonly onDidChangeMcpServerDefinitions?: vscode.Event<void>;
	provideMcpServerDefinitions(token: vscode.CancellationToken):
		vscode.ProviderResult<McpStdioServerDefinition[]>;
}

interface LmWithMcp {
	registerMcpServerDefinitionProvider(id: string,
		provider: McpServerDefinitionProvider): vscode.Disposable;
}

/* The command line of `castls mcp` for the workspace and the castls
 * settings: the folders as roots (VS Code also lists them as MCP roots,
 * which take their place) and the settings that shape the index, so the
 * MCP server writes the rows the language server would. */
export function mcpServerArgs(): { command: string; args: string[] } {
	const c = vscode.workspace.getConfiguration('castls');
	const args = ['mcp'];

	for (const f of vscode.workspace.workspaceFolders ?? [])
		if (f.uri.scheme === 'file')
			args.push(f.uri.fsPath);
	const size = c.get<number>('maxChunkSize');
	if (size)
		args.push('--max-size', String(size));
	const budget = c.get<number>('budgetTokens');
	if (budget)
		args.push('--budget', String(budget));
	const fileSize = c.get<number>('maxFileSize');
	if (fileSize)
		args.push('--max-file-size', String(fileSize));
	for (const pattern of c.get<string[]>('exclude') ?? [])
		args.push('--exclude', pattern);
	return { command: c.get<string>('path') || 'castls', args };
}

/*
 * Registers the provider when VS Code has the API; returns whether it
 * did. The definition changes with the castls settings and the folders.
 */
export function registerMcpServer(context: vscode.ExtensionContext,
	version: string): boolean {
	const api = vscode as unknown as {
		lm?: Partial<LmWithMcp>;
		McpStdioServerDefinition?: McpStdioServerDefinitionClass;
	};
	const register = api.lm?.registerMcpServerDefinitionProvider;
	const Definition = api.McpStdioServerDefinition;

	if (typeof register !== 'function' || typeof Definition !== 'function')
		return false;
	const changed = new vscode.EventEmitter<void>();
	const provider: McpServerDefinitionProvider = {
		onDidChangeMcpServerDefinitions: changed.event,
		provideMcpServerDefinitions: () => {
			const { command, args } = mcpServerArgs();
			const server = new Definition('castls', command, args, {},
				version);
			const first = vscode.workspace.workspaceFolders?.[0];

			if (first?.uri.scheme === 'file')
				server.cwd = first.uri;
			return [server];
		},
	};
	context.subscriptions.push(changed,
		vscode.workspace.onDidChangeConfiguration((e) => {
			if (e.affectsConfiguration('castls'))
				changed.fire();
		}),
		vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()),
		register.call(api.lm, MCP_PROVIDER_ID, provider));
	return true;
}
