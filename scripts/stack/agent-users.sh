#!/usr/bin/env bash
# The pool of unprivileged users the coding agents run as when the service runs as
# root (docs/agent-process.md): agentrun1..$AGENT_USERS, system users of the one
# shared group `agents`, each with its own HOME (mode 0700) under $AGENT_HOME_BASE,
# no password and no login shell. A run leases one user at a time, so two runs at
# once never share a uid. Idempotent; without root there is nothing to create (the
# service then runs agents as itself and says so).
# Names must match lib/agent-isolation.ts.
# Usage: agent-users.sh [up|check|reach [REPO]]   (default: up)
#   reach: the first pool user can run node (the one on PATH) and reach the
#   repository's stand-in CLI and claude (run by up, after the users exist).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$STACK_SCRIPTS_DIR/lib.sh"

AGENT_GROUP=agents
AGENT_USER_PREFIX=agentrun
AGENT_HOME_BASE=/var/lib/agent-users

[[ $AGENT_USERS =~ ^[1-9][0-9]{0,2}$ ]] || die "agent-users: AGENT_USERS must be 1 to 999, got '$AGENT_USERS'"

home_of() { echo "$AGENT_HOME_BASE/$1"; }

# Every user exists, in the group, with a private HOME it owns.
check() {
  local i name home
  getent group "$AGENT_GROUP" >/dev/null || return 1
  for ((i = 1; i <= AGENT_USERS; i++)); do
    name="$AGENT_USER_PREFIX$i"
    home=$(home_of "$name")
    [[ $(id -gn "$name" 2>/dev/null) == "$AGENT_GROUP" ]] || return 1
    [[ $(stat -c '%U %a' "$home" 2>/dev/null) == "$name 700" ]] || return 1
  done
}

as_pool_user() { setpriv "--reuid=${AGENT_USER_PREFIX}1" "--regid=$AGENT_GROUP" "--groups=$AGENT_GROUP" -- "$@"; }

# Dies naming the first directory of PATH_ (as written, then resolved) the pool
# user cannot enter, or the file itself when the directories are open.
reach_file() {
  local op=$1 file=$2 what=$3 dir part path_
  local -a parts
  as_pool_user test "$op" "$file" && return 0
  for path_ in "$file" "$(readlink -f "$file" || echo "$file")"; do
    dir=""
    IFS=/ read -r -a parts <<<"${path_#/}"
    for part in "${parts[@]:0:${#parts[@]}-1}"; do
      dir+="/$part"
      as_pool_user test -x "$dir" ||
        die "agent-users: the agents' user ${AGENT_USER_PREFIX}1 cannot enter $dir (needed to $what $file): every agent run would fail with EACCES; open it to them (e.g. 'chmod o+x $dir') or move the repository / node to a directory they can reach"
    done
  done
  die "agent-users: the agents' user ${AGENT_USER_PREFIX}1 cannot $what $file: give it read (and execute) permission for others"
}

# A clone under /root (0700) or node under /root/.nvm would make every agent run
# fail with EACCES and nothing would say why: say it at the stack's start.
reach() {
  local repo=${1:-$STACK_REPO_ROOT} node
  [[ $(id -u) -eq 0 ]] || return 0 # agents then run as the service's own user
  node=$(command -v node) || die "agent-users: no node on PATH"
  reach_file -x "$node" "execute"
  reach_file -r "$repo/test/fixtures/fake-agent/fake-agent.js" "read"
  if [[ -e $repo/node_modules/.bin/claude ]]; then reach_file -x "$repo/node_modules/.bin/claude" "execute"; fi
  log "agent-users: ${AGENT_USER_PREFIX}1 reaches $node and the agent CLIs of $repo"
}

up() {
  if [[ $(id -u) -ne 0 ]]; then
    log "agent-users: not root: no agent users (agents will run as the service's own user)"
    return 0
  fi
  if check; then
    reach
    return 0
  fi
  local i name home created=0
  getent group "$AGENT_GROUP" >/dev/null || groupadd --system "$AGENT_GROUP"
  mkdir -p "$AGENT_HOME_BASE"
  chown root:root "$AGENT_HOME_BASE"
  chmod 0755 "$AGENT_HOME_BASE"
  for ((i = 1; i <= AGENT_USERS; i++)); do
    name="$AGENT_USER_PREFIX$i"
    home=$(home_of "$name")
    if ! id -u "$name" >/dev/null 2>&1; then
      # nologin: an agent writing ~/.ssh/authorized_keys must not open a login.
      useradd --system --gid "$AGENT_GROUP" --no-user-group --home-dir "$home" \
        --shell /usr/sbin/nologin "$name"
      created=$((created + 1))
    fi
    [[ $(id -gn "$name") == "$AGENT_GROUP" ]] || usermod --gid "$AGENT_GROUP" "$name"
    mkdir -p "$home"
    chown "$name:$AGENT_GROUP" "$home"
    chmod 0700 "$home"
  done
  log "agent-users: $AGENT_USERS users ${AGENT_USER_PREFIX}1..$AGENT_USERS in group $AGENT_GROUP ready ($created created)"
  reach
}

case ${1:-up} in
  up) up ;;
  check) check ;;
  reach) reach "${2:-}" ;;
  *) die "usage: $0 [up|check|reach [REPO]]" ;;
esac
