#!/usr/bin/env bash
# Keeps the coding agents off the stack's own services (docs/agent-process.md, "Network").
# MariaDB, Redis, Elasticsearch, Temporal and the service's HTTP port listen on loopback with
# credentials every local user can read in this repository (or none at all), so an agent could
# otherwise read every record, start or end workflows, or call /api. An nftables rule refuses
# (TCP reset) every loopback connection to those ports from a process of the agents' group; other
# loopback ports stay open (a dev server an agent starts, a model stand-in in tests). The secured
# stack's ports and the Redis Sentinel set-up's (secure-env.sh) are refused the same way.
# Idempotent: the table is replaced whole. Without root there are no agent users to guard.
# A deployment whose firewall already does this sets AGENT_NETWORK_GUARD=off.
# Usage: agent-network.sh [up|check]   (default: up)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$STACK_SCRIPTS_DIR/lib.sh"
# The secured stack's and the Sentinel set-up's ports (secure-env.sh, docs/secure-stack.md).
source "$STACK_SCRIPTS_DIR/secure-env.sh"

PART=agent-network
TABLE=agent_guard
AGENT_GROUP=agents
: "${HTTP_PORT:=3000}"
: "${AGENT_NETWORK_GUARD:=on}"

guarded_ports() {
  local ports=("$MYSQL_PORT" "$REDIS_PORT" "$ELASTICSEARCH_PORT" "$ELASTICSEARCH_TRANSPORT_PORT" "$TEMPORAL_PORT" "$TEMPORAL_UI_PORT" "$HTTP_PORT")
  # shellcheck disable=SC2207 # port numbers, no spaces
  ports+=($(secure_stack_ports))
  local IFS=,
  echo "${ports[*]}"
}

ruleset() {
  local gid=$1 ports=$2
  # "table …; delete table …" first: replacing a table that may or may not exist, in one transaction.
  cat <<RULES
table inet $TABLE
delete table inet $TABLE
table inet $TABLE {
  chain output {
    type filter hook output priority 0; policy accept;
    meta skgid $gid ip daddr 127.0.0.0/8 tcp dport { $ports } counter reject with tcp reset
    meta skgid $gid ip6 daddr ::1 tcp dport { $ports } counter reject with tcp reset
  }
}
RULES
}

up() {
  if [[ $(id -u) -ne 0 ]]; then
    log "$PART: not root: no agent users, nothing to guard"
    return 0
  fi
  if [[ $AGENT_NETWORK_GUARD == off ]]; then
    warn "$PART: AGENT_NETWORK_GUARD=off: agents can reach the stack's services on loopback"
    return 0
  fi
  local gid
  gid=$(getent group "$AGENT_GROUP" | cut -d: -f3)
  [[ -n $gid ]] || die "$PART: group $AGENT_GROUP missing (scripts/stack/agent-users.sh creates it)"
  command -v nft >/dev/null || die "$PART: nft missing (Debian nftables; scripts/stack/system-packages.sh installs it)"
  ruleset "$gid" "$(guarded_ports)" | nft -f - ||
    die "$PART: nftables refused the agents' rule; without it agents reach MariaDB, Redis, Elasticsearch and Temporal (set AGENT_NETWORK_GUARD=off only where a firewall already keeps the group '$AGENT_GROUP' off those ports)"
  log "$PART: group $AGENT_GROUP refused on loopback ports $(guarded_ports)"
}

check() { nft list table inet "$TABLE" >/dev/null 2>&1; }

case ${1:-up} in
  up) up ;;
  check) check ;;
  *) die "usage: $0 [up|check]" ;;
esac
