#!/usr/bin/env bash
# Elasticsearch for the local stack: the server-only "integ-test-zip"
# distribution from Maven Central, run on the machine's JDK, single node,
# no security, HTTP on 127.0.0.1:$ELASTICSEARCH_PORT.
# Usage: elasticsearch.sh [up|check]   (default: up)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$STACK_SCRIPTS_DIR/lib.sh"

PART=elasticsearch
ES_USER=$STACK_ES_USER
ARTIFACT="org.elasticsearch.distribution.integ-test-zip:elasticsearch:$ELASTICSEARCH_VERSION:zip"
ZIP_REL="org/elasticsearch/distribution/integ-test-zip/elasticsearch/$ELASTICSEARCH_VERSION/elasticsearch-$ELASTICSEARCH_VERSION.zip"
BASE="$STACK_DIR/elasticsearch"
ES_HOME="$BASE/elasticsearch-$ELASTICSEARCH_VERSION"
CONF="$BASE/config"
DATA="$BASE/data"
TMP="$BASE/tmp"
ES_LOGS="$STACK_LOG_DIR/elasticsearch" # path.logs (ES's own log files, gc.log)
LOG="$(log_of $PART)" # console output, incl. startup errors
INSTALL_LOG="$STACK_LOG_DIR/elasticsearch-install.log"
START_TIMEOUT=180

ready() {
  curl -fsS -o /dev/null --max-time 3 \
    "http://127.0.0.1:$ELASTICSEARCH_PORT/_cluster/health?wait_for_status=yellow&timeout=1s" 2>/dev/null
}

# --- install ----------------------------------------------------------------

# Ask Maven itself: settings.xml may move the local repository. (-Doutput:
# on stdout, Maven wraps the value in colour escape codes even with -B.)
maven_local_repo() {
  local out="$BASE/.maven-local-repo"
  (cd "$STACK_DIR" && mvn -B -q help:evaluate -Dexpression=settings.localRepository \
    -Doutput="$out") >>"$INSTALL_LOG" 2>&1 || return 1
  cat "$out"
}

# Print the path of the distribution zip, downloading it with Maven if needed.
fetch_zip() {
  local zip="${HOME:-}/.m2/repository/$ZIP_REL"
  if [[ ! -f $zip ]]; then
    log "$PART: downloading $ARTIFACT with Maven (log: $INSTALL_LOG)" >&2
    (cd "$STACK_DIR" && mvn -B -q dependency:get -Dartifact="$ARTIFACT" -Dtransitive=false) \
      >>"$INSTALL_LOG" 2>&1 || fail_part "$PART" "$INSTALL_LOG" "could not be downloaded"
  fi
  # Not at the default place: the local repository was moved in settings.xml.
  [[ -f $zip ]] || zip="$(maven_local_repo)/$ZIP_REL"
  [[ -f $zip ]] || fail_part "$PART" "$INSTALL_LOG" "zip not found in the local Maven repository ($zip)"
  echo "$zip"
}

install() {
  local zip tmp="$BASE/.unzip"
  zip=$(fetch_zip)
  log "$PART: unpacking $zip"
  # Unpack beside, then move: an interrupted unzip never looks installed.
  rm -rf "$tmp"
  mkdir -p "$tmp"
  unzip -q "$zip" -d "$tmp"
  mv "$tmp/elasticsearch-$ELASTICSEARCH_VERSION" "$ES_HOME"
  rm -rf "$tmp"
}

# --- run-as user --------------------------------------------------------------

# Elasticsearch refuses to run as root: as root, run it as a system user.
running_as_root() { [[ $(id -u) -eq 0 ]]; }
AS_ES_USER=()
if running_as_root; then
  AS_ES_USER=(setpriv "--reuid=$ES_USER" "--regid=$ES_USER" --clear-groups --)
fi

ensure_es_user() {
  id -u "$ES_USER" >/dev/null 2>&1 && return 0
  log "$PART: creating system user $ES_USER"
  useradd --system --user-group --no-create-home --home-dir /nonexistent \
    --shell /usr/sbin/nologin "$ES_USER"
}

# The repo may live anywhere (/root/..., /tmp/...): every parent dir of
# $STACK_DIR must be searchable by the ES user, or ES dies with a vague error.
check_traversable() {
  local dir="" part
  local -a parts
  IFS=/ read -r -a parts <<<"${BASE#/}"
  for part in "${parts[@]}"; do
    dir+="/$part"
    "${AS_ES_USER[@]}" test -x "$dir" ||
      die "$PART: user $ES_USER cannot enter $dir (needed to reach $BASE); run e.g. 'chmod o+x $dir', or set STACK_DIR to a path it can reach"
  done
}

# --- config -------------------------------------------------------------------

java_home() {
  local java
  java=$(readlink -f "$(command -v java)") || die "$PART: no java on PATH"
  dirname "$(dirname "$java")"
}

write_config() {
  mkdir -p "$CONF" "$DATA" "$TMP" "$ES_LOGS"
  # Fresh copy of the distribution's config (jvm.options, log4j2...) each start;
  # the keystore ES creates in $CONF is kept.
  cp -r "$ES_HOME/config/." "$CONF/"
  # The integ-test-zip has only server core + the x-pack-core/security modules:
  # settings of absent modules (e.g. ingest.geoip.*) are rejected as unknown.
  # xpack.ml.enabled is known (x-pack-core registers it), so it stays.
  cat >"$CONF/elasticsearch.yml" <<YML
# Written by scripts/stack/elasticsearch.sh at each start: edit that script.
cluster.name: stack
node.name: stack-node
discovery.type: single-node
network.host: 127.0.0.1
http.port: $ELASTICSEARCH_PORT
transport.port: $ELASTICSEARCH_TRANSPORT_PORT
path.data: $DATA
path.logs: $ES_LOGS
xpack.security.enabled: false
xpack.ml.enabled: false
# The disk may be nearly full: never refuse to allocate shards because of it.
cluster.routing.allocation.disk.threshold_enabled: false
YML
  if running_as_root; then
    chown -R "$ES_USER:$ES_USER" "$CONF" "$DATA" "$TMP" "$ES_LOGS"
  fi
}

# --- start ----------------------------------------------------------------------

start() {
  log "$PART: starting on 127.0.0.1:$ELASTICSEARCH_PORT (heap $ELASTICSEARCH_HEAP)"
  mark_log "$PART" "$LOG"
  # ES warns below 65535 open files; raise the limit when allowed (root).
  ulimit -n 65535 2>/dev/null || true
  # Foreground mode under setsid + nohup (instead of -d): the console output,
  # including early startup errors, lands in $LOG. $! is ES's CLI launcher
  # (everything up to it execs), which lives exactly as long as the server
  # and, on SIGTERM, shuts the server down cleanly: that is the pid we keep.
  ES_JAVA_HOME="$(java_home)" \
    ES_JAVA_OPTS="-Xms$ELASTICSEARCH_HEAP -Xmx$ELASTICSEARCH_HEAP" \
    ES_PATH_CONF="$CONF" ES_TMPDIR="$TMP" \
    setsid nohup "${AS_ES_USER[@]}" "$ES_HOME/bin/elasticsearch" \
    </dev/null >>"$LOG" 2>&1 &
  write_pidfile "$(pidfile_of $PART)" $!
}

up() {
  local t0 pid
  t0=$(now_us)
  ready && { log "$PART: already ready"; return 0; }
  ensure_dirs "$BASE"
  umask 022 # the ES user must be able to read the unpacked distribution
  [[ -x $ES_HOME/bin/elasticsearch ]] || install
  if running_as_root; then
    ensure_es_user
    restrict_stack_dir # now that the user's group exists: let it into $STACK_DIR
    check_traversable
  fi
  if pid=$(running_pid $PART); then
    log "$PART: already running (pid $pid), waiting for it (after a settings change, run down.sh first)"
  else
    write_config
    start
    pid=$!
  fi
  wait_until --pid "$pid" "$PART" "$START_TIMEOUT" "$LOG" ready
  log "$PART: ready on http://127.0.0.1:$ELASTICSEARCH_PORT ($(elapsed_since "$t0")s)"
}

case ${1:-up} in
  up) up ;;
  check) ready ;;
  *) die "usage: $0 [up|check]" ;;
esac
