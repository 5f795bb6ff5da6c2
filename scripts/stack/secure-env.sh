# shellcheck shell=bash
# Settings of the secured local stack (secure-up.sh, docs/secure-stack.md) and of the Redis Sentinel
# set-up (sentinel-up.sh). Sourced after env.sh by those scripts and by agent-network.sh, so the
# agents' network guard refuses these ports too. Every value is a default: a variable of the same
# name already set wins (e.g. `SECURE_MYSQL_PORT=3327 npm run stack:up:secure`).
# The ports sit beside the plain stack's (3307, 6380, 9201/9301, 7233/8233) and never on them.

: "${SECURE_DIR:=$STACK_DIR/secure}"

: "${SECURE_MYSQL_PORT:=3317}"
: "${SECURE_MYSQL_USER:=app}"
: "${SECURE_MYSQL_DATABASE:=consultores}"
: "${SECURE_MYSQL_BUFFER_POOL:=256M}"

# TLS only: no plain port at all.
: "${SECURE_REDIS_PORT:=6390}"
: "${SECURE_REDIS_USER:=app}"
: "${SECURE_REDIS_MAXMEMORY:=256mb}"

: "${SECURE_ELASTICSEARCH_PORT:=9211}"
: "${SECURE_ELASTICSEARCH_TRANSPORT_PORT:=9311}"
: "${SECURE_ELASTICSEARCH_HEAP:=512m}"

# The TLS front (nginx) of Temporal: client certificate on one port, API key on the other.
: "${SECURE_TEMPORAL_MTLS_PORT:=7253}"
: "${SECURE_TEMPORAL_APIKEY_PORT:=7254}"
: "${SECURE_TEMPORAL_NAMESPACE:=default}"
# Temporal's own plain ports exist only inside its network namespace (never on the host's loopback).
: "${SECURE_TEMPORAL_INNER_PORT:=7263}"

# Redis Sentinel set-up (plain, no TLS): one primary, one replica, one sentinel.
: "${SENTINEL_DIR:=$STACK_DIR/sentinel}"
: "${SENTINEL_PRIMARY_PORT:=6395}"
: "${SENTINEL_REPLICA_PORT:=6396}"
: "${SENTINEL_PORT:=26395}"
: "${SENTINEL_NAME:=stack-primary}"

export SECURE_DIR SECURE_MYSQL_PORT SECURE_MYSQL_USER SECURE_MYSQL_DATABASE SECURE_MYSQL_BUFFER_POOL \
  SECURE_REDIS_PORT SECURE_REDIS_USER SECURE_REDIS_MAXMEMORY \
  SECURE_ELASTICSEARCH_PORT SECURE_ELASTICSEARCH_TRANSPORT_PORT SECURE_ELASTICSEARCH_HEAP \
  SECURE_TEMPORAL_MTLS_PORT SECURE_TEMPORAL_APIKEY_PORT SECURE_TEMPORAL_NAMESPACE SECURE_TEMPORAL_INNER_PORT \
  SENTINEL_DIR SENTINEL_PRIMARY_PORT SENTINEL_REPLICA_PORT SENTINEL_PORT SENTINEL_NAME

# The loopback ports a client reaches (agent-network.sh refuses them to the agents).
secure_stack_ports() {
  echo "$SECURE_MYSQL_PORT" "$SECURE_REDIS_PORT" "$SECURE_ELASTICSEARCH_PORT" "$SECURE_ELASTICSEARCH_TRANSPORT_PORT" \
    "$SECURE_TEMPORAL_MTLS_PORT" "$SECURE_TEMPORAL_APIKEY_PORT" \
    "$SENTINEL_PRIMARY_PORT" "$SENTINEL_REPLICA_PORT" "$SENTINEL_PORT"
}
