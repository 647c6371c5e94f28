#!/bin/sh
# ensure-deps.sh: installs the extension's npm packages from
# package-lock.json with `npm ci`, once: a copy of the lockfile kept in
# node_modules marks what is installed, and a matching copy skips npm.
# Concurrent callers wait for each other (flock).
set -eu
cd "$(dirname "$0")/.."
stamp=node_modules/.castls-lock
exec 9>.deps.lock
flock 9
if ! cmp -s package-lock.json "$stamp" 2>/dev/null; then
	echo "castls: npm ci in editors/vscode" >&2
	npm ci --no-audit --no-fund --ignore-scripts >/dev/null
	cp package-lock.json "$stamp"
fi
