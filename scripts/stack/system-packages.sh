#!/usr/bin/env bash
# Debian packages the stack (and the app's tests) need. Fast path: one
# dpkg-query call; apt runs only when something is missing.
# Usage: system-packages.sh [up|check]   (default: up)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$STACK_SCRIPTS_DIR/lib.sh"

PART=system-packages
PACKAGES=(mariadb-server mariadb-client redis-server chromium poppler-utils fonts-dejavu-core nftables)
LOG="$(log_of $PART)"

# Print the packages that are not fully installed, one per line.
missing_packages() {
  local pkg status
  for pkg in "${PACKAGES[@]}"; do
    # dpkg-query fails for a package it has never heard of: that is "missing" too.
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    [[ $status == "install ok installed" ]] || echo "$pkg"
  done
}

up() {
  local missing
  mapfile -t missing < <(missing_packages)
  if ((${#missing[@]} == 0)); then
    log "$PART: all installed"
    return 0
  fi
  ensure_dirs
  log "$PART: installing ${missing[*]} (log: $LOG)"
  {
    as_root apt-get update &&
      as_root env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y --no-install-recommends "${missing[@]}"
  } >>"$LOG" 2>&1 || fail_part "$PART" "$LOG" "could not install ${missing[*]}"
}

check() { [[ -z $(missing_packages) ]]; }

case ${1:-up} in
  up) up ;;
  check) check ;;
  *) die "usage: $0 [up|check]" ;;
esac
