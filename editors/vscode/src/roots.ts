/*
 * roots.ts: the project a file outside every workspace folder belongs
 * to, found as castls' other clients find it: the git repository around
 * it, else the nearest directory holding a project file. Neither / nor
 * the home directory is ever a root (a dotfiles repository would have
 * castls index all of home); a file in no project is served alone.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/* Files that make their directory a project's root (those of the CLI,
 * cli/root.c, and of the Neovim and Emacs clients). */
export const ROOT_MARKERS = ['pyproject.toml', 'setup.py', 'setup.cfg',
	'package.json', 'tsconfig.json', 'deno.json', 'go.mod', 'Cargo.toml',
	'pom.xml', 'build.gradle', 'build.gradle.kts', 'CMakeLists.txt',
	'compile_commands.json', 'meson.build', 'Gemfile', 'composer.json',
	'Makefile'];

function real(p: string): string {
	try {
		return fs.realpathSync(p);
	} catch {
		return p;
	}
}

function tooWide(dir: string): boolean {
	const home = os.homedir();

	return dir === path.parse(dir).root || (home !== '' && real(home) === dir);
}

/* The nearest directory at or above dir for which found() holds. */
function nearest(dir: string, found: (d: string) => boolean):
	string | undefined {
	for (let d = dir; ; d = path.dirname(d)) {
		if (found(d))
			return d;
		if (path.dirname(d) === d)
			return undefined;
	}
}

const has = (dir: string, name: string) => fs.existsSync(path.join(dir, name));

/* The root of the project holding file (an absolute path), or undefined
 * when it is in none. */
export function projectRoot(file: string): string | undefined {
	const dir = real(path.dirname(file));
	const git = nearest(dir, (d) => has(d, '.git'));

	if (git && !tooWide(git))
		return git;
	const marked = nearest(dir, (d) => ROOT_MARKERS.some((m) => has(d, m)));
	return marked && !tooWide(marked) ? marked : undefined;
}
