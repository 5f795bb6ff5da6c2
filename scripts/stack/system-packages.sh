#!/usr/bin/env bash
# Debian packages the stack (and the app's tests) need. Fast path: one
# dpkg-query call; apt runs only when something is missing.
# Usage: system-packages.sh [up|check] [secure|image]   (default: up; secure: also the secured stack's,
# secure-up.sh; image: only what builds and runs the container image, scripts/image/docker.sh)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$STACK_SCRIPTS_DIR/lib.sh"

PART=system-packages
# prometheus: only for its promtool, which checks ops/prometheus/ in a test.
PACKAGES=(mariadb-server mariadb-client redis-server chromium poppler-utils fonts-dejavu-core nftables prometheus)
# Services whose packages start (and enable) a daemon on install: the stack runs its own
# servers and wants none of these running. Prometheus would serve on :9090 and keep
# scraping localhost for good.
UNWANTED_SERVICES=(prometheus)
if [[ ${2:-} == secure ]]; then
  # The secured stack (secure-up.sh): its CA and certificates, the TLS front of Temporal and the socket
  # relay to it, its network namespace and ACLs, the Elasticsearch module's unpacking, the temporal CLI's venv.
  PACKAGES+=(openssl nginx socat iproute2 util-linux acl curl unzip python3-venv)
  # nginx's package starts its own daemon on :80 at install: the secured stack runs its own.
  UNWANTED_SERVICES+=(nginx)
elif [[ ${2:-} == image ]]; then
  # The container image (docs/image.md): Debian's Docker, and mmdebstrap for the local base image
  # where no container registry is reached. Docker's own daemon is wanted (scripts/image/docker.sh).
  PACKAGES=(docker.io mmdebstrap)
  UNWANTED_SERVICES=()
fi
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
  ensure_dirs
  if ((${#missing[@]} == 0)); then
    log "$PART: all installed"
    stop_unwanted_services
    return 0
  fi
  log "$PART: installing ${missing[*]} (log: $LOG)"
  {
    as_root apt-get update &&
      as_root env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y --no-install-recommends "${missing[@]}"
  } >>"$LOG" 2>&1 || fail_part "$PART" "$LOG" "could not install ${missing[*]}"
  stop_unwanted_services
}

# Stop and disable the daemons of UNWANTED_SERVICES that a package's postinst started:
# with no policy-rc.d forbidding it, invoke-rc.d (SysV) or deb-systemd-invoke starts them.
stop_unwanted_services() {
  local svc
  for svc in "${UNWANTED_SERVICES[@]}"; do
    [[ -x /etc/init.d/$svc ]] || continue
    if [[ -d /run/systemd/system ]]; then
      # systemd: the unit, not the init script, is what runs and comes back at boot.
      if systemctl is-enabled --quiet "$svc" 2>/dev/null || systemctl is-active --quiet "$svc" 2>/dev/null; then
        log "$PART: stopping and disabling the $svc service its package started"
        as_root systemctl disable --now "$svc" >>"$LOG" 2>&1 || fail_part "$PART" "$LOG" "could not stop $svc"
      fi
    elif /etc/init.d/"$svc" status >/dev/null 2>&1; then
      # SysV: status reads the init script's pidfile, so only the packaged daemon is stopped.
      log "$PART: stopping the $svc daemon its package started"
      { as_root /etc/init.d/"$svc" stop && as_root update-rc.d "$svc" disable; } >>"$LOG" 2>&1 ||
        fail_part "$PART" "$LOG" "could not stop $svc"
    fi
  done
}

check() { [[ -z $(missing_packages) ]]; }

case ${1:-up} in
  up) up ;;
  check) check ;;
  *) die "usage: $0 [up|check] [secure|image]" ;;
esac
