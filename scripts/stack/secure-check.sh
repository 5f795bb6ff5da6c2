#!/usr/bin/env bash
# Proves that each part of the secured stack (secure-up.sh) refuses plain and anonymous clients and
# serves the proper ones. Prints one line a check and "N passed, N failed"; exits 1 on any failure.
# Usage: secure-check.sh   (the secured stack must be up: npm run stack:up:secure)
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
source "$STACK_SCRIPTS_DIR/lib.sh"
source "$STACK_SCRIPTS_DIR/secure-env.sh"
source "$STACK_SCRIPTS_DIR/secure-lib.sh"

passed=0
failed=0
# expect <refused|works> <what> <command...>: runs it (each client has its own time limit) and shows
# the start of what it printed.
expect() {
  local want=$1 what=$2 out rc verdict
  shift 2
  out=$("$@" 2>&1)
  rc=$?
  if [[ $want == refused ]]; then
    ((rc != 0)) && verdict=PASS || verdict=FAIL
  else
    ((rc == 0)) && verdict=PASS || verdict=FAIL
  fi
  if [[ $verdict == PASS ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  printf '%s  %-8s %-62s | %s\n' "$verdict" "$want" "$what" "$(printf '%s' "$out" | tr '\n' ' ' | cut -c1-150)"
}
# Succeeds only when the output contains <word>.
contains() {
  local word=$1 out
  shift
  out=$("$@" 2>&1)
  printf '%s\n' "$out"
  [[ $out == *"$word"* ]]
}
code_is() {
  local want=$1 code
  shift
  code=$("$@" -o /dev/null -w '%{http_code}' 2>&1)
  echo "HTTP $code"
  [[ $code == "$want" ]]
}

# One of several HTTP statuses (a HEAD on an index: 200 present, 404 absent; 403 would be a refusal).
code_in() {
  local wanted=$1 code
  shift
  code=$("$@" -o /dev/null -w '%{http_code}' 2>&1)
  echo "HTTP $code"
  [[ " $wanted " == *" $code "* ]]
}

M=(mariadb --no-defaults --protocol=TCP -h127.0.0.1 -P"$SECURE_MYSQL_PORT" --connect-timeout=3 -N -B)
APP_PW=$(cat "$S_MYSQL_PASSWORD_FILE")
echo "== MariaDB 127.0.0.1:$SECURE_MYSQL_PORT"
expect refused "plain TCP (--ssl=0), right password" env MYSQL_PWD="$APP_PW" "${M[@]}" --ssl=0 -u"$SECURE_MYSQL_USER" -e 'SELECT 1'
expect refused "TLS, no password" "${M[@]}" --ssl --ssl-ca="$S_CA" -u"$SECURE_MYSQL_USER" -e 'SELECT 1'
expect refused "TLS, unknown user, no password" "${M[@]}" --ssl --ssl-ca="$S_CA" -unobody -e 'SELECT 1'
expect refused "TLS, root over TCP" "${M[@]}" --ssl --ssl-ca="$S_CA" -uroot -e 'SELECT 1'
expect works "TLS verified (CA + name), service user" s_mysql_app -N -B -e "SELECT CONCAT('ssl_cipher=', VARIABLE_VALUE) FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME='Ssl_cipher'"
expect works "server: require_secure_transport" contains ON s_mysql_admin -N -B -e "SELECT IF(@@require_secure_transport, 'require_secure_transport=ON', 'OFF')"
expect refused "service user outside consultores*" s_mysql_app -N -B -e 'CREATE DATABASE other_db'

echo "== Redis 127.0.0.1:$SECURE_REDIS_PORT (TLS only)"
R=(redis-cli --no-auth-warning -h 127.0.0.1 -p "$SECURE_REDIS_PORT")
expect refused "plain redis-cli PING" contains PONG "${R[@]}" ping
expect refused "TLS, no user (default user)" contains PONG "${R[@]}" --tls --cacert "$S_CA" ping
expect refused "TLS, user default, any password" contains PONG env REDISCLI_AUTH=x "${R[@]}" --tls --cacert "$S_CA" --user default ping
expect refused "TLS, service user, wrong password" contains PONG env REDISCLI_AUTH=wrong "${R[@]}" --tls --cacert "$S_CA" --user "$SECURE_REDIS_USER" ping
expect works "TLS, service user and password: PING" contains PONG s_redis_as "$SECURE_REDIS_USER" "$S_REDIS_PASSWORD_FILE" ping
expect refused "service user: FLUSHALL (dangerous)" contains OK s_redis_as "$SECURE_REDIS_USER" "$S_REDIS_PASSWORD_FILE" flushall
expect refused "service user: CONFIG GET (admin)" contains port s_redis_as "$SECURE_REDIS_USER" "$S_REDIS_PASSWORD_FILE" config get port
expect works "admin user: ACL WHOAMI" contains "$S_REDIS_ADMIN_USER" s_redis_admin acl whoami

echo "== Elasticsearch $S_ES_URL"
expect refused "http:// (plain)" curl -sS --max-time 5 -f "http://127.0.0.1:$SECURE_ELASTICSEARCH_PORT/_cluster/health"
expect refused "https, anonymous" code_is 200 curl -sS --max-time 5 --cacert "$S_CA" "$S_ES_URL/_cluster/health"
expect refused "https, elastic with a wrong password" code_is 200 curl -sS --max-time 5 --cacert "$S_CA" -u elastic:wrong "$S_ES_URL/_cluster/health"
expect works "https, elastic superuser" code_is 200 s_es_elastic "$S_ES_URL/_cluster/health"
expect refused "service API key: cluster health (no cluster privilege)" code_is 200 s_es_key "$S_ES_API_KEY_FILE" "$S_ES_URL/_cluster/health"
expect works "service API key: person index exists (view_index_metadata)" code_in '200 404' s_es_key "$S_ES_API_KEY_FILE" -I "$S_ES_URL/pessoas"
expect works "service API key: search pessoas (read)" code_is 200 s_es_key "$S_ES_API_KEY_FILE" -H 'Content-Type: application/json' "$S_ES_URL/pessoas/_search?size=0&ignore_unavailable=true"
expect refused "service API key: write to pessoas" code_is 201 s_es_key "$S_ES_API_KEY_FILE" -X POST -H 'Content-Type: application/json' -d '{"probe":1}' "$S_ES_URL/pessoas/_doc"
expect refused "service API key: read another index" code_is 200 s_es_key "$S_ES_API_KEY_FILE" "$S_ES_URL/.security/_search"
expect works "loader API key: may manage pessoas (privileges check)" contains '"has_all_requested":true' s_es_key "$S_ES_LOADER_API_KEY_FILE" -H 'Content-Type: application/json' \
  -d '{"index":[{"names":["pessoas"],"privileges":["create_index","delete_index","write","manage"]}]}' "$S_ES_URL/_security/user/_has_privileges"

echo "== Temporal (nginx TLS front; the server's own ports live in its network namespace)"
T=("$S_TEMPORAL_BIN" --disable-config-file --disable-config-env --command-timeout 5s operator namespace list)
expect refused "mTLS port, plain gRPC" "${T[@]}" --address "127.0.0.1:$SECURE_TEMPORAL_MTLS_PORT"
expect refused "mTLS port, TLS without a client certificate" "${T[@]}" --address "127.0.0.1:$SECURE_TEMPORAL_MTLS_PORT" --tls --tls-ca-path "$S_CA" --tls-server-name "$S_SERVER_NAME"
expect works "mTLS port, the stack's client certificate" s_temporal_mtls operator namespace list
expect refused "API-key port, plain gRPC" "${T[@]}" --address "127.0.0.1:$SECURE_TEMPORAL_APIKEY_PORT"
expect refused "API-key port, TLS without a key" "${T[@]}" --address "127.0.0.1:$SECURE_TEMPORAL_APIKEY_PORT" --tls --tls-ca-path "$S_CA" --tls-server-name "$S_SERVER_NAME"
expect refused "API-key port, TLS and a wrong key" env -i PATH="$PATH" HOME="${HOME:-/root}" TEMPORAL_API_KEY=wrong-key \
  "$S_TEMPORAL_BIN" --disable-config-file --command-timeout 5s operator namespace list --address "127.0.0.1:$SECURE_TEMPORAL_APIKEY_PORT" --tls --tls-ca-path "$S_CA" --tls-server-name "$S_SERVER_NAME"
expect works "API-key port, TLS and the key" s_temporal_apikey operator namespace list
expect refused "the server's plain port on the host's loopback" "${T[@]}" --address "127.0.0.1:$SECURE_TEMPORAL_INNER_PORT"
tpid=$(s_running_pid temporal || echo 0)
expect refused "the server (pid $tpid) listens on no host port" contains "pid=$tpid," ss -ltnpH
expect works "inside its namespace it listens on :$SECURE_TEMPORAL_INNER_PORT" contains ":$SECURE_TEMPORAL_INNER_PORT " nsenter --net="/proc/$tpid/ns/net" -- ss -ltnH
expect refused "the socket, opened by another user (nobody)" setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
  socat -u OPEN:/dev/null "UNIX-CONNECT:$S_TEMPORAL_SOCKET"

echo "$passed passed, $failed failed"
((failed == 0))
