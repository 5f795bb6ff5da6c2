#!/usr/bin/env bash
# Stop what up.sh started, by pidfile: SIGTERM, up to 30 s grace, then SIGKILL.
# Idempotent: parts that are not running are skipped.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$STACK_SCRIPTS_DIR/lib.sh"

GRACE_SECONDS=30

# Signal all parts first and wait for them together: stopping takes at most
# one grace period, not one per part.
# SIGTERM goes to the main pid only (Elasticsearch's launcher then stops its
# server child cleanly); waiting and SIGKILL cover the whole process group.
declare -A stopping
for part in "${STACK_PARTS[@]}"; do
  if pid=$(running_pid "$part"); then
    log "$part: stopping (pid $pid)"
    stopping[$part]=$(group_of "$pid")
    kill -TERM "$pid" 2>/dev/null || true
  else
    log "$part: not running"
  fi
done

any_alive() {
  local part
  for part in "${!stopping[@]}"; do
    group_alive "${stopping[$part]}" && return 0
  done
  return 1
}

deadline=$((SECONDS + GRACE_SECONDS))
while any_alive && ((SECONDS < deadline)); do sleep 0.5; done

for part in "${STACK_PARTS[@]}"; do
  [[ -n ${stopping[$part]:-} ]] || continue
  group=${stopping[$part]}
  if group_alive "$group"; then
    warn "$part: still running after ${GRACE_SECONDS}s, sending SIGKILL (pid/group $group)"
    group_kill "$group"
  fi
  # MariaDB and Redis remove their own pidfile on a clean exit (not after
  # SIGKILL); the others are ours: clear what is left.
  rm -f "$(pidfile_of "$part")"
  log "$part: stopped"
done
