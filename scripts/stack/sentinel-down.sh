#!/usr/bin/env bash
# `npm run stack:down:sentinel`: stop the Redis Sentinel set-up (sentinel-up.sh) by pidfile, sentinel
# first (so it starts no failover meanwhile). With --reset, also remove its configuration files, so
# the next start begins again with the first primary. Idempotent.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$STACK_SCRIPTS_DIR/lib.sh"
source "$STACK_SCRIPTS_DIR/secure-env.sh"

for name in sentinel replica primary; do
  pidfile="$SENTINEL_DIR/run/$name.pid"
  pid=$(tr -dc '0-9' 2>/dev/null <"$pidfile" || true)
  if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q redis-server; then
    log "sentinel set-up: stopping $name (pid $pid)"
    kill -TERM "$pid"
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && { warn "sentinel set-up: $name still running, SIGKILL"; kill -KILL "$pid"; }
  else
    log "sentinel set-up: $name not running"
  fi
  rm -f "$pidfile"
done
if [[ ${1:-} == --reset ]]; then
  rm -f "$SENTINEL_DIR"/{primary,replica}/redis.conf "$SENTINEL_DIR/sentinel/sentinel.conf"
  log "sentinel set-up: configuration reset"
fi
