#!/usr/bin/env bash
# Start the local stack (MariaDB, Redis, Elasticsearch, Temporal) on 127.0.0.1.
# Idempotent: parts that are already ready are only checked.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$STACK_SCRIPTS_DIR/lib.sh"

t0=$(now_us)
ensure_dirs
restrict_stack_dir
bash "$STACK_SCRIPTS_DIR/system-packages.sh"
bash "$STACK_SCRIPTS_DIR/agent-users.sh"
bash "$STACK_SCRIPTS_DIR/agent-network.sh"

# The slow parts (a JVM, a big Go binary) first, in the background; they share
# nothing with each other or with MariaDB/Redis, so starting all at once is safe.
declare -A job
for part in elasticsearch temporal; do
  bash "$STACK_SCRIPTS_DIR/$part.sh" &
  job[$part]=$!
done

declare -A ok
for part in mariadb redis; do
  if bash "$STACK_SCRIPTS_DIR/$part.sh"; then ok[$part]=1; fi
done
for part in elasticsearch temporal; do
  if wait "${job[$part]}"; then ok[$part]=1; fi
done

failed=0
for part in "${STACK_PARTS[@]}"; do
  if [[ -n ${ok[$part]:-} ]]; then
    printf 'stack: %-14s ready   %s\n' "$part" "$(address_of "$part")"
  else
    printf 'stack: %-14s FAILED  see log: %s\n' "$part" "$(log_of "$part")" >&2
    failed=1
  fi
done
if ((failed)); then
  warn "not all parts are ready ($(elapsed_since "$t0")s)"
  exit 1
fi
log "all parts ready in $(elapsed_since "$t0")s"
