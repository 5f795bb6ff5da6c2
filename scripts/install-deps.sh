#!/usr/bin/env bash
# Installs the npm packages when node_modules is missing or older than the lock file.
set -euo pipefail
cd "$(dirname "$0")/.."

marker=node_modules/.package-lock.json
if [[ ! -f "$marker" || package-lock.json -nt "$marker" ]]; then
  echo "deps: installing npm packages (npm ci)"
  npm ci --no-audit --no-fund
else
  echo "deps: npm packages up to date"
fi
