#!/usr/bin/env bash
# Installs the npm packages when node_modules is missing or older than the lock file, and rebuilds
# them when they were installed under another Node than the pinned one (docs/runtime.md).
#
# `npm install` with the committed lock, not `npm ci`: the registry mirror reachable here serves only
# this platform's builds of packages with per-platform optional binaries (@swc/core, ...), so the
# lock cannot list the other platforms' entries and `npm ci` rejects it as out of sync. `npm install`
# still installs exactly the locked versions; --no-save keeps package.json and the lock untouched.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/node/ensure-node.sh

marker=node_modules/.package-lock.json
# The Node (version and ABI) node_modules was last installed or rebuilt under.
node_stamp=node_modules/.node-version
node_now="$(node -p 'process.version + " abi " + process.versions.modules')"
# An install into an existing node_modules (a newer lock) changes only what changed: the rest keeps the
# Node it was installed under, so the stamp is written here only for a fresh tree.
if [[ ! -f "$marker" || package-lock.json -nt "$marker" ]]; then
  fresh=false
  [[ -d node_modules ]] || fresh=true
  echo "deps: installing npm packages from package-lock.json"
  npm install --no-save --no-audit --no-fund
  if [[ $fresh == true ]]; then echo "$node_now" >"$node_stamp"; fi
else
  echo "deps: npm packages up to date"
fi
if [[ $(cat "$node_stamp" 2>/dev/null) != "$node_now" ]]; then
  # Installed under another Node. The prebuilt native modules (@temporalio/core-bridge, @swc/core, ...)
  # are N-API, the same binary for every Node; what builds against Node's own headers is a package
  # with a binding.gyp: rebuild those (a build from source takes the headers shipped with the pinned
  # Node, npm_config_nodedir from ensure-node.sh: nothing is downloaded). Not a whole `npm rebuild`:
  # it would re-run every install script, e.g. claude-code's copy over a binary an agent may be running.
  mapfile -t addons < <(find node_modules -name binding.gyp -printf '%h\n' | sed -E 's|^(.*/)?node_modules/||' |
    grep -E '^(@[^/]+/)?[^/@]+$' | sort -u)
  echo "deps: node_modules was installed under $(cat "$node_stamp" 2>/dev/null || echo 'an unknown Node'), now $node_now: npm rebuild ${addons[*]:-(no addon to rebuild)}"
  if ((${#addons[@]})); then npm rebuild "${addons[@]}"; fi
  echo "$node_now" >"$node_stamp"
fi
