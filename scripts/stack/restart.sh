#!/usr/bin/env bash
# Restart one part of the local stack, as an operator would after a crash or an upgrade:
# stop it (SIGTERM and up to 30 s grace, or SIGKILL at once with --kill), then start it again
# with its own script and wait until it is ready. Its data stays (MariaDB's and Elasticsearch's
# data dirs, Temporal's SQLite file); Redis keeps none (it runs without persistence).
# Usage: restart.sh <mariadb|redis|elasticsearch|temporal> [--kill]
# Used by the fault suite (scripts/faults/, docs/reliability.md).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$STACK_SCRIPTS_DIR/lib.sh"

GRACE_SECONDS=30
part=${1:-}
mode=${2:-}
[[ " ${STACK_PARTS[*]} " == *" $part "* ]] || die "usage: restart.sh <${STACK_PARTS[*]// /|}> [--kill]"
[[ -z $mode || $mode == --kill ]] || die "unknown option $mode (only --kill)"

t0=$(now_us)
if pid=$(running_pid "$part"); then
  group=$(group_of "$pid")
  if [[ $mode == --kill ]]; then
    log "$part: killing (pid $pid)"
    group_kill "$group"
  else
    log "$part: stopping (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
  fi
  deadline=$((SECONDS + GRACE_SECONDS))
  while group_alive "$group" && ((SECONDS < deadline)); do sleep 0.1; done
  if group_alive "$group"; then
    warn "$part: still running after ${GRACE_SECONDS}s, sending SIGKILL"
    group_kill "$group"
    while group_alive "$group"; do sleep 0.1; done
  fi
  rm -f "$(pidfile_of "$part")"
else
  log "$part: not running"
fi
bash "$STACK_SCRIPTS_DIR/$part.sh"
log "$part: restarted in $(elapsed_since "$t0")s"
