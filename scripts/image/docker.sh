#!/usr/bin/env bash
# Docker for the container image (docs/image.md): Debian's docker.io (and mmdebstrap, for the local
# base image) installed with apt when missing, as the stack installs its other parts
# (scripts/stack/system-packages.sh), and its daemon started in the background when nothing answers.
# Idempotent and silent when Docker already answers. The daemon's log: .stack/logs/dockerd.log.
# Usage: docker.sh [up|check]   (default: up)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../stack/env.sh"
source "$STACK_SCRIPTS_DIR/lib.sh"

PART=dockerd
LOG="$(log_of $PART)"
START_TIMEOUT=60

ready() { as_root docker info >/dev/null 2>&1; }

up() {
  local t0
  t0=$(now_us)
  bash "$STACK_SCRIPTS_DIR/system-packages.sh" check image || bash "$STACK_SCRIPTS_DIR/system-packages.sh" up image
  ready && return 0
  ensure_dirs
  if pgrep -x dockerd >/dev/null; then
    log "$PART: running but not answering yet, waiting for it (log: $LOG)"
  else
    # With systemd the package has started it already; elsewhere (a container, no init) it is ours.
    log "$PART: starting Docker's daemon (log: $LOG)"
    mark_log "$PART" "$LOG"
    as_root setsid nohup dockerd </dev/null >>"$LOG" 2>&1 &
  fi
  wait_until "$PART" "$START_TIMEOUT" "$LOG" ready
  log "$PART: ready, $(as_root docker version --format 'client {{.Client.Version}}, server {{.Server.Version}}' 2>/dev/null) ($(elapsed_since "$t0")s)"
}

case ${1:-up} in
  up) up ;;
  check) ready ;;
  *) die "usage: $0 [up|check]" ;;
esac
