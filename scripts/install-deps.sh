#!/usr/bin/env bash
# Installs the npm packages when node_modules is missing or older than the lock file.
#
# `npm install` with the committed lock, not `npm ci`: the registry mirror reachable here serves only
# this platform's builds of packages with per-platform optional binaries (@swc/core, ...), so the
# lock cannot list the other platforms' entries and `npm ci` rejects it as out of sync. `npm install`
# still installs exactly the locked versions; --no-save keeps package.json and the lock untouched.
set -euo pipefail
cd "$(dirname "$0")/.."

marker=node_modules/.package-lock.json
if [[ ! -f "$marker" || package-lock.json -nt "$marker" ]]; then
  echo "deps: installing npm packages from package-lock.json"
  npm install --no-save --no-audit --no-fund
else
  echo "deps: npm packages up to date"
fi
