#!/usr/bin/env bash
# Redis for the local stack: Debian's redis-server on 127.0.0.1:$REDIS_PORT,
# ephemeral (no RDB snapshots, no AOF), daemonised, state under $STACK_DIR/redis.
# Usage: redis.sh [up|check]   (default: up)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$STACK_SCRIPTS_DIR/lib.sh"

PART=redis
BASE="$STACK_DIR/redis"
LOG="$(log_of $PART)"
START_TIMEOUT=30

# `timeout`: redis-cli waits forever for an answer from whatever holds the port.
ready() { [[ $(timeout 3 redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null) == PONG ]]; }

# Redis daemonises before it binds its port, so its exit is not ours to watch:
# its log says when it gave up ("Failed listening on port ..., aborting").
startup_aborted() { [[ -n $(first_error_since_start "$LOG") ]]; }

start() {
  log "$PART: starting on 127.0.0.1:$REDIS_PORT"
  mark_log "$PART" "$LOG"
  # --daemonize: redis forks, detaches (setsid) and writes its own pidfile.
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --dir "$BASE" \
    --daemonize yes --pidfile "$(pidfile_of $PART)" --logfile "$LOG" \
    --save "" --appendonly no \
    </dev/null >>"$LOG" 2>&1 ||
    fail_part "$PART" "$LOG"
}

up() {
  local t0 pid
  t0=$(now_us)
  ready && { log "$PART: already ready"; return 0; }
  ensure_dirs "$BASE"
  if pid=$(running_pid $PART); then
    log "$PART: already running (pid $pid), waiting for it (after a settings change, run down.sh first)"
  else
    start
  fi
  wait_until --fail-if startup_aborted "$PART" "$START_TIMEOUT" "$LOG" ready
  log "$PART: ready on 127.0.0.1:$REDIS_PORT ($(elapsed_since "$t0")s)"
}

case ${1:-up} in
  up) up ;;
  check) ready ;;
  *) die "usage: $0 [up|check]" ;;
esac
