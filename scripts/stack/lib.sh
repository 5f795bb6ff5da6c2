# shellcheck shell=bash
# Helpers shared by the stack scripts. Source env.sh first.

STACK_LOG_DIR="$STACK_DIR/logs"
STACK_RUN_DIR="$STACK_DIR/run"

log() { printf 'stack: %s\n' "$*"; }
warn() { printf 'stack: %s\n' "$*" >&2; }
die() {
  warn "$*"
  exit 1
}

# Run as root directly, otherwise through sudo.
as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

ensure_dirs() { mkdir -p "$STACK_LOG_DIR" "$STACK_RUN_DIR" "$@"; }

# The system user Elasticsearch runs as when the scripts run as root (elasticsearch.sh).
STACK_ES_USER=stack-es

# $STACK_DIR holds the databases, logs and tools: closed to every other user, above all
# to the agents (docs/agent-process.md). Elasticsearch's user, once it exists, may enter
# it through the directory's group to reach its own part. Group first, then the mode,
# so a running Elasticsearch never loses its way in.
restrict_stack_dir() {
  if [[ $(id -u) -eq 0 ]] && getent group "$STACK_ES_USER" >/dev/null; then
    chgrp "$STACK_ES_USER" "$STACK_DIR"
    chmod 0750 "$STACK_DIR"
  else
    chmod 0700 "$STACK_DIR"
  fi
}

# Logs are appended to across runs: each start writes a marker line first.
mark_log() { printf '\n=== stack: starting %s at %s ===\n' "$1" "$(date -Is)" >>"$2"; }

# The first error-looking line since the last start marker. It is often the
# real cause, where the last lines only show the shutdown that followed.
first_error_since_start() {
  awk '/^=== stack: starting / { cause = ""; next }
       cause == "" && /\[ERROR\]|\[FATAL\]|^ERROR:|^Error:|level=ERROR|Failed listening/ { cause = $0 }
       END { if (cause != "") print cause }' "$1" 2>/dev/null
}

# Print the last 20 lines of a log (to stderr), and the likely cause.
show_log_tail() {
  local log_path=$1 cause
  [[ -s $log_path ]] || return 0
  warn "last 20 lines of $log_path:"
  tail -n 20 "$log_path" >&2
  cause=$(first_error_since_start "$log_path")
  [[ -z $cause ]] || warn "first error since the start: $cause"
}

# Fail with the standard message naming the part and its log.
fail_part() {
  local part=$1 log_path=$2 what=${3:-failed to start}
  warn "$part $what; see log: $log_path"
  show_log_tail "$log_path"
  exit 1
}

# wait_until [--pid PID] [--fail-if CMD] <part> <timeout-seconds> <log-path> <command...>
# Polls <command> (quietly) until it succeeds. Fails at once, instead of
# waiting for the whole timeout, when process PID has died or CMD succeeds.
wait_until() {
  local pid="" fail_if=""
  while [[ $1 == --* ]]; do
    case $1 in
      --pid) pid=$2 ;;
      --fail-if) fail_if=$2 ;;
      *) die "wait_until: unknown option $1" ;;
    esac
    shift 2
  done
  local part=$1 timeout=$2 log_path=$3
  shift 3
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    if [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null; then
      fail_part "$part" "$log_path" "failed to start (process $pid exited)"
    fi
    if [[ -n $fail_if ]] && $fail_if; then
      fail_part "$part" "$log_path" "failed to start"
    fi
    if ((SECONDS >= deadline)); then
      fail_part "$part" "$log_path" "did not become ready within ${timeout}s"
    fi
    sleep 0.5
  done
}

# --- pidfiles -------------------------------------------------------------

# Where each part's pidfile lives. MariaDB and Redis write their own; the
# others are written by the scripts from $!.
pidfile_of() {
  case $1 in
    mariadb) echo "$STACK_DIR/mariadb/mariadb.pid" ;;
    redis) echo "$STACK_RUN_DIR/redis.pid" ;;
    elasticsearch) echo "$STACK_RUN_DIR/elasticsearch.pid" ;;
    temporal) echo "$STACK_RUN_DIR/temporal.pid" ;;
    *) die "unknown part: $1" ;;
  esac
}

# A word the process's command line must contain, so that a stale pidfile
# whose pid was reused by an unrelated process is never signalled.
process_pattern_of() {
  case $1 in
    mariadb) echo mariadbd ;;
    redis) echo redis-server ;;
    elasticsearch) echo org.elasticsearch ;;
    temporal) echo temporal ;;
  esac
}

write_pidfile() { printf '%s\n' "$2" >"$1"; }

# Print the pid recorded in <pidfile> if that process is alive and its command
# line contains <pattern>; return 1 otherwise.
pid_from_file() {
  local pidfile=$1 pattern=$2 pid
  [[ -r $pidfile ]] || return 1
  pid=$(tr -dc '0-9' <"$pidfile")
  [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$pattern" || return 1
  echo "$pid"
}

# Print the pid recorded for <part> if that process is alive and is the
# expected program; return 1 otherwise.
running_pid() { pid_from_file "$(pidfile_of "$1")" "$(process_pattern_of "$1")"; }

is_running() { running_pid "$1" >/dev/null; }

# Every server is started as its own session/process-group leader (setsid, or
# Redis's own daemonising), and may have children (Elasticsearch's launcher
# runs the server JVM as a child): these act on the whole group when the pid
# leads one, else on the pid alone.
group_of() {
  local pid=$1 pgid
  pgid=$(ps -o pgid= -p "$pid" 2>/dev/null | tr -d ' ')
  if [[ $pgid == "$pid" ]]; then echo "-$pid"; else echo "$pid"; fi
}
group_alive() { kill -0 -- "$1" 2>/dev/null; }
group_kill() { kill -KILL -- "$1" 2>/dev/null || true; }

# Wall-clock timing with 0.1 s resolution: t0=$(now_us); ...; elapsed_since "$t0"
# (EPOCHREALTIME's decimal point follows the locale: drop either one.)
now_us() { echo "${EPOCHREALTIME//[.,]/}"; }
elapsed_since() {
  local us=$(($(now_us) - $1))
  printf '%d.%d' $((us / 1000000)) $((us % 1000000 / 100000))
}

# --- per-part facts shared by up/down/status ----------------------------------

# shellcheck disable=SC2034 # used by the scripts that source this file
STACK_PARTS=(mariadb redis elasticsearch temporal)

log_of() { echo "$STACK_LOG_DIR/$1.log"; }

address_of() {
  case $1 in
    mariadb) echo "mysql://$MYSQL_USER@127.0.0.1:$MYSQL_PORT" ;;
    redis) echo "redis://127.0.0.1:$REDIS_PORT" ;;
    elasticsearch) echo "http://127.0.0.1:$ELASTICSEARCH_PORT" ;;
    temporal) echo "127.0.0.1:$TEMPORAL_PORT (UI http://127.0.0.1:$TEMPORAL_UI_PORT)" ;;
  esac
}
