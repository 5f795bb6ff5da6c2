#!/usr/bin/env bash
# Print each part of the local stack as up or down. Exit 1 if any is down.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$STACK_SCRIPTS_DIR/lib.sh"

down=0
for part in "${STACK_PARTS[@]}"; do
  pid=$(running_pid "$part" || echo -)
  if bash "$STACK_SCRIPTS_DIR/$part.sh" check; then
    state=up
  else
    state=down
    down=1
  fi
  printf 'stack: %-14s %-5s pid %-8s %s\n' "$part" "$state" "$pid" "$(address_of "$part")"
done
exit "$down"
