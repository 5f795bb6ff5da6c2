#!/usr/bin/env bash
# `npm run stack:down:secure`: stop what secure-up.sh started (docs/secure-stack.md), by pidfile:
# SIGTERM to each process group, up to 30 s grace, then SIGKILL. Data, certificates and secrets
# under $SECURE_DIR stay (delete that directory to start over). Idempotent.
# The secured stack adds no firewall rule of its own (Temporal is hidden by a network namespace,
# which ends with its last process); the agents' guard (agent-network.sh) belongs to both stacks and
# stays, as after the plain stack's down.sh.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$STACK_SCRIPTS_DIR/lib.sh"
source "$STACK_SCRIPTS_DIR/secure-env.sh"
source "$STACK_SCRIPTS_DIR/secure-lib.sh"

GRACE_SECONDS=30
declare -A stopping
for part in proxy "${S_PARTS[@]}"; do
  [[ -z ${stopping[$part]:-} ]] || continue
  if pid=$(s_running_pid "$part"); then
    log "secure $part: stopping (pid $pid)"
    stopping[$part]=$(group_of "$pid")
    # Temporal: the whole group, its socat too; the others: the main process (Elasticsearch's
    # launcher stops its server child, nginx's master its workers).
    if [[ $part == temporal ]]; then kill -TERM -- "${stopping[$part]}" 2>/dev/null || true; else kill -TERM "$pid" 2>/dev/null || true; fi
  else
    log "secure $part: not running"
  fi
done

any_alive() {
  local part
  for part in "${!stopping[@]}"; do group_alive "${stopping[$part]}" && return 0; done
  return 1
}
deadline=$((SECONDS + GRACE_SECONDS))
while any_alive && ((SECONDS < deadline)); do sleep 0.5; done

for part in "${!stopping[@]}"; do
  if group_alive "${stopping[$part]}"; then
    warn "secure $part: still running after ${GRACE_SECONDS}s, sending SIGKILL (pid/group ${stopping[$part]})"
    group_kill "${stopping[$part]}"
  fi
  rm -f "$(s_pidfile_of "$part")"
  log "secure $part: stopped"
done
# A Temporal server that died earlier may have left its socat (same process group) behind.
if [[ -z ${stopping[temporal]:-} ]] && pgrep -f "UNIX-LISTEN:$S_TEMPORAL_SOCKET," >/dev/null 2>&1; then
  for pid in $(pgrep -f "UNIX-LISTEN:$S_TEMPORAL_SOCKET,"); do kill -TERM "$pid" 2>/dev/null || true; done
  log "secure temporal: stopped a socat left behind"
fi
rm -f "$S_TEMPORAL_SOCKET"
