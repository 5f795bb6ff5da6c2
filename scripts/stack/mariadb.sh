#!/usr/bin/env bash
# MariaDB for the local stack: a private instance of Debian's mariadbd with its
# own data dir, socket and pid file under $STACK_DIR/mariadb, on 127.0.0.1:$MYSQL_PORT.
# Usage: mariadb.sh [up|check]   (default: up)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$STACK_SCRIPTS_DIR/lib.sh"

PART=mariadb
BASE="$STACK_DIR/mariadb"
DATA="$BASE/data"
SOCKET="$BASE/mariadb.sock"
LOG="$(log_of $PART)"
START_TIMEOUT=60

# --no-defaults everywhere: a system MariaDB (and its /etc/mysql config and
# /run/mysqld socket) may exist on this machine and must not leak in.
# Admin access: mariadb-install-db gives the OS user that ran it (root, or the
# developer) an all-privilege account authenticated by the unix socket.
OS_USER=$(id -un)
client_admin() { mariadb --no-defaults --socket="$SOCKET" -u"$OS_USER" "$@"; }

# `timeout`: belt and braces against a foreign listener that never answers.
ready() {
  timeout 5 mariadb-admin --no-defaults --protocol=TCP -h127.0.0.1 -P"$MYSQL_PORT" \
    -u"$MYSQL_USER" -p"$MYSQL_PASSWORD" --connect-timeout=2 ping >/dev/null 2>&1 &&
    [[ $(timeout 5 mariadb --no-defaults --protocol=TCP -h127.0.0.1 -P"$MYSQL_PORT" \
      -u"$MYSQL_USER" -p"$MYSQL_PASSWORD" --connect-timeout=2 -N -B -e 'SELECT 1' 2>/dev/null) == 1 ]]
}

# Server answers on its socket: enough to create the app user.
server_up() { mariadb-admin --no-defaults --socket="$SOCKET" -u"$OS_USER" --connect-timeout=2 ping >/dev/null 2>&1; }

# mysqld refuses to run as root unless told to.
RUN_AS=()
if [[ $(id -u) -eq 0 ]]; then RUN_AS=(--user=root); fi

data_dir_empty() { [[ -z $(ls -A "$DATA" 2>/dev/null) ]]; }

initialise() {
  data_dir_empty || return 0
  log "$PART: initialising data dir $DATA"
  # Initialise beside, then move: an interrupted run never leaves a half-made
  # data dir that looks initialised. (InnoDB keeps only relative paths.)
  rm -rf "$DATA.init"
  mkdir -p "$DATA.init"
  mariadb-install-db --no-defaults --user="$OS_USER" --datadir="$DATA.init" \
    --auth-root-authentication-method=socket --skip-test-db --skip-name-resolve >>"$LOG" 2>&1 ||
    fail_part "$PART" "$LOG" "failed to initialise its data dir"
  rm -rf "$DATA"
  mv "$DATA.init" "$DATA"
}

start() {
  mkdir -p "$BASE/tmp" "$BASE/files"
  chmod 0700 "$BASE/files"
  log "$PART: starting on 127.0.0.1:$MYSQL_PORT"
  mark_log "$PART" "$LOG"
  # setsid + nohup: the server outlives this script and has no terminal.
  # The ranking job rewrites hundreds of thousands of rows in one go: a buffer pool that holds the
  # ranking and a redo log large enough to avoid checkpoint stalls. Flushing the log once a second
  # instead of at every commit (2) suits a local stack; set MYSQL_FLUSH_LOG_AT_COMMIT=1 for durability.
  # local-infile: the job loads the ranking's details with LOAD DATA LOCAL (db/load-data.ts), from
  # the client's memory, never from a file of the server's.
  setsid nohup mariadbd --no-defaults "${RUN_AS[@]}" \
    --datadir="$DATA" --socket="$SOCKET" --pid-file="$(pidfile_of $PART)" \
    --tmpdir="$BASE/tmp" --log-error="$LOG" --secure-file-priv="$BASE/files" \
    --port="$MYSQL_PORT" --bind-address=127.0.0.1 --skip-name-resolve \
    --max-allowed-packet=64M --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci \
    --innodb-buffer-pool-size="$MYSQL_BUFFER_POOL" --innodb-log-file-size=512M \
    --innodb-flush-log-at-trx-commit="$MYSQL_FLUSH_LOG_AT_COMMIT" --local-infile=1 \
    </dev/null >>"$LOG" 2>&1 &
}

# A quoted SQL string literal (backslashes are escapes in MariaDB's default mode).
sql_quote() {
  local s=${1//\\/\\\\}
  printf "'%s'" "${s//\'/\'\'}"
}

# Idempotent: the app user for every host it may come from, with full rights
# (the app creates its own databases) but FILE: the server may run as root, and
# LOAD_FILE / INTO OUTFILE would read and write any file as root for whoever
# logs in (secure-file-priv, above, confines them to an empty directory too).
# ALTER keeps the password in sync.
ensure_app_user() {
  local u p host sql=""
  u=$(sql_quote "$MYSQL_USER")
  p=$(sql_quote "$MYSQL_PASSWORD")
  for host in 127.0.0.1 localhost %; do
    host=$(sql_quote "$host")
    sql+="CREATE USER IF NOT EXISTS $u@$host IDENTIFIED BY $p;"
    sql+="ALTER USER $u@$host IDENTIFIED BY $p;"
    sql+="GRANT ALL PRIVILEGES ON *.* TO $u@$host WITH GRANT OPTION;"
    sql+="REVOKE FILE ON *.* FROM $u@$host;"
  done
  client_admin -e "$sql" >>"$LOG" 2>&1 || fail_part "$PART" "$LOG" "could not create user $MYSQL_USER"
}

up() {
  local t0 pid
  t0=$(now_us)
  ready && { log "$PART: already ready"; return 0; }
  ensure_dirs "$BASE"
  initialise
  # A server may be running (e.g. still starting, or the app user is missing):
  # never start a second one on the same data dir.
  if pid=$(running_pid $PART); then
    log "$PART: already running (pid $pid), waiting for it (after a settings change, run down.sh first)"
  else
    start
    pid=$!
  fi
  wait_until --pid "$pid" "$PART" "$START_TIMEOUT" "$LOG" server_up
  ensure_app_user
  wait_until --pid "$pid" "$PART" "$START_TIMEOUT" "$LOG" ready
  log "$PART: ready on 127.0.0.1:$MYSQL_PORT ($(elapsed_since "$t0")s)"
}

case ${1:-up} in
  up) up ;;
  check) ready ;;
  *) die "usage: $0 [up|check]" ;;
esac
