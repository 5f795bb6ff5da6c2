#!/usr/bin/env bash
# `npm run stack:up:sentinel`: a Redis Sentinel set-up beside the stacks (docs/secure-stack.md,
# "Redis Sentinel"), for tests of the service's Sentinel client (REDIS_SENTINELS, REDIS_SENTINEL_NAME):
# one primary (127.0.0.1:$SENTINEL_PRIMARY_PORT), one replica ($SENTINEL_REPLICA_PORT) and one
# sentinel ($SENTINEL_PORT, quorum 1, a primary counts as down after 2 s), Debian's redis-server
# (the sentinel is `redis-server --sentinel`), plain TCP on loopback, no persistence, state and logs
# under $SENTINEL_DIR. A test stops the primary (`redis-cli -p $SENTINEL_PRIMARY_PORT shutdown nosave`)
# and watches the sentinel promote the replica. Idempotent: what answers is left alone, what is
# stopped is started again; a former primary started again rejoins as a replica (the sentinel
# reconfigures it), since Redis and the sentinel rewrite their own configuration files.
# Writes $SENTINEL_DIR/sentinel.env (the service's variables and the ports).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$STACK_SCRIPTS_DIR/lib.sh"
source "$STACK_SCRIPTS_DIR/secure-env.sh"

command -v redis-server >/dev/null || bash "$STACK_SCRIPTS_DIR/system-packages.sh"
mkdir -p "$SENTINEL_DIR"/{primary,replica,sentinel,run,logs}
chmod 0700 "$SENTINEL_DIR"

cli() { timeout 3 redis-cli -h 127.0.0.1 -p "$1" "${@:2}"; }
answers() { [[ $(cli "$1" ping 2>/dev/null) == PONG ]]; }

# <name> <port> [replicaof-port]: the server's configuration, written once (then Redis's own).
server_conf() {
  local name=$1 port=$2 of=${3:-} conf="$SENTINEL_DIR/$1/redis.conf"
  [[ -s $conf ]] && return 0
  cat >"$conf" <<CONF
# Written once by scripts/stack/sentinel-up.sh; Redis and the sentinel rewrite it (CONFIG REWRITE).
port $port
bind 127.0.0.1
daemonize yes
pidfile $SENTINEL_DIR/run/$name.pid
logfile $SENTINEL_DIR/logs/$name.log
dir $SENTINEL_DIR/$name
save ""
appendonly no
maxmemory 64mb
CONF
  [[ -z $of ]] || echo "replicaof 127.0.0.1 $of" >>"$conf"
}

sentinel_conf() {
  local conf="$SENTINEL_DIR/sentinel/sentinel.conf"
  [[ -s $conf ]] && return 0
  cat >"$conf" <<CONF
# Written once by scripts/stack/sentinel-up.sh; the sentinel rewrites it (known replicas, epochs).
port $SENTINEL_PORT
bind 127.0.0.1
daemonize yes
pidfile $SENTINEL_DIR/run/sentinel.pid
logfile $SENTINEL_DIR/logs/sentinel.log
dir $SENTINEL_DIR/sentinel
sentinel monitor $SENTINEL_NAME 127.0.0.1 $SENTINEL_PRIMARY_PORT 1
sentinel down-after-milliseconds $SENTINEL_NAME 2000
sentinel failover-timeout $SENTINEL_NAME 10000
sentinel parallel-syncs $SENTINEL_NAME 1
CONF
}

start_server() {
  local name=$1 port=$2 mode=${3:-}
  if answers "$port"; then
    log "sentinel set-up: $name already answers on 127.0.0.1:$port"
    return 0
  fi
  log "sentinel set-up: starting $name on 127.0.0.1:$port"
  mark_log "$name" "$SENTINEL_DIR/logs/$name.log"
  # shellcheck disable=SC2086 # mode: empty or --sentinel
  redis-server "$SENTINEL_DIR/$name/$( [[ $name == sentinel ]] && echo sentinel.conf || echo redis.conf)" $mode \
    </dev/null >>"$SENTINEL_DIR/logs/$name.log" 2>&1 || fail_part "sentinel set-up $name" "$SENTINEL_DIR/logs/$name.log"
  wait_until "sentinel set-up $name" 30 "$SENTINEL_DIR/logs/$name.log" answers "$port"
}

# The sentinel knows the primary, the primary answers, and a replica is linked to it.
settled() {
  local addr port
  addr=$(cli "$SENTINEL_PORT" sentinel get-master-addr-by-name "$SENTINEL_NAME" 2>/dev/null) || return 1
  port=$(sed -n 2p <<<"$addr")
  [[ -n $port ]] && answers "$port" &&
    [[ $(cli "$port" info replication 2>/dev/null | tr -d '\r' | sed -n 's/^connected_slaves://p') -ge 1 ]]
}

server_conf primary "$SENTINEL_PRIMARY_PORT"
server_conf replica "$SENTINEL_REPLICA_PORT" "$SENTINEL_PRIMARY_PORT"
sentinel_conf
start_server primary "$SENTINEL_PRIMARY_PORT"
start_server replica "$SENTINEL_REPLICA_PORT"
start_server sentinel "$SENTINEL_PORT" --sentinel
wait_until "sentinel set-up" 60 "$SENTINEL_DIR/logs/sentinel.log" settled

cat >"$SENTINEL_DIR/sentinel.env" <<ENV
# The Redis Sentinel set-up (scripts/stack/sentinel-up.sh). The service's variables:
REDIS_SENTINELS=127.0.0.1:$SENTINEL_PORT
REDIS_SENTINEL_NAME=$SENTINEL_NAME
# The servers (the primary at first; after a failover the sentinel says which is: SENTINEL
# get-master-addr-by-name $SENTINEL_NAME).
SENTINEL_PRIMARY_PORT=$SENTINEL_PRIMARY_PORT
SENTINEL_REPLICA_PORT=$SENTINEL_REPLICA_PORT
SENTINEL_PORT=$SENTINEL_PORT
SENTINEL_DIR=$SENTINEL_DIR
ENV
primary=$(cli "$SENTINEL_PORT" sentinel get-master-addr-by-name "$SENTINEL_NAME" | paste -sd:)
log "sentinel set-up: ready; $SENTINEL_NAME is $primary (sentinel 127.0.0.1:$SENTINEL_PORT); settings in $SENTINEL_DIR/sentinel.env"
