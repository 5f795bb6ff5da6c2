#!/usr/bin/env bash
# `npm start`: install what is missing, start the local stack, build, migrate, and run the
# service (HTTP server + both Temporal workers) in the foreground until Ctrl-C / SIGTERM.
set -euo pipefail
cd "$(dirname "$0")/.."
# The pinned Node first on PATH for everything below, the service and its agents included (docs/runtime.md).
source scripts/node/ensure-node.sh

bash scripts/install-deps.sh
# START_LOCAL_STACK=false: MariaDB, Redis, Elasticsearch and Temporal are elsewhere (e.g. the secured
# stack's .stack/secure/service.env, docs/secure-stack.md): the local stack is left alone.
if [[ ${START_LOCAL_STACK:-true} != false ]]; then
  bash scripts/stack/up.sh
else
  echo "stack: START_LOCAL_STACK=false: the local stack is not started"
fi

# Rebuild only when a source file is newer than the last build.
stamp=dist/.build-stamp
if [[ ! -f $stamp ]] || [[ -n $(find main.ts api domain workflows activities services workers db temporal lib scripts package-lock.json tsconfig*.json -newer "$stamp" -type f -print -quit) ]]; then
  echo "build: compiling TypeScript and workflow bundles"
  npm run --silent build
  touch "$stamp"
else
  echo "build: up to date"
fi

node dist/db/migrate-cli.js
# A sample of persons when the index is empty (SAMPLE_PERSONS, default 20000; 0 = none) and the first job.
# With START_LOCAL_STACK=false the service's own credentials may not write the person index: the sample
# is loaded only with SAMPLE_ELASTICSEARCH_API_KEY_FILE (a key that may create and fill it), else skipped.
if [[ ${START_LOCAL_STACK:-true} != false ]]; then
  node dist/scripts/prepare-sample.js
elif [[ -n ${SAMPLE_ELASTICSEARCH_API_KEY_FILE:-} ]]; then
  ELASTICSEARCH_API_KEY_FILE=$SAMPLE_ELASTICSEARCH_API_KEY_FILE node dist/scripts/prepare-sample.js
else
  echo "sample: START_LOCAL_STACK=false and no SAMPLE_ELASTICSEARCH_API_KEY_FILE: no sample loaded"
fi

mysql_password_given=${MYSQL_PASSWORD+given}
source scripts/stack/env.sh
# env.sh's default MYSQL_PASSWORD must not stand beside a MYSQL_PASSWORD_FILE (service.env gives one).
if [[ -z $mysql_password_given && -n ${MYSQL_PASSWORD_FILE:-} ]]; then unset MYSQL_PASSWORD; fi
# Agent secrets are encrypted with AGENT_SECRETS_KEY: a local run without one gets its own key, kept
# (readable by the owner only) with the stack's state, so secrets stored earlier stay readable. It is
# passed as a file (AGENT_SECRETS_KEY_FILE), so it is not in the service's environment either.
if [[ -z ${AGENT_SECRETS_KEY:-} && -z ${AGENT_SECRETS_KEY_FILE:-} ]]; then
  key_file="$STACK_DIR/agent-secrets.key"
  [[ -s $key_file ]] || (umask 077 && node -e "process.stdout.write(require('node:crypto').randomBytes(32).toString('hex'))" >"$key_file")
  chmod 0600 "$key_file"
  AGENT_SECRETS_KEY_FILE=$(realpath "$key_file")
  export AGENT_SECRETS_KEY_FILE
fi
base="http://${HTTP_HOST:-127.0.0.1}:${HTTP_PORT:-3000}"
if [[ -n ${PANEL_DIR:-} ]]; then panel="${base}/app.html   (from PANEL_DIR=${PANEL_DIR})"; else panel="not served   (set PANEL_DIR, e.g. PANEL_DIR=../shared/admin-panel/public npm start)"; fi
cat <<INFO

  Ranking API      ${base}/api/v1   (try /api/v1/health)
  Orchestration    ${base}/api      (try /api/system/status)
  WebSocket        ws://${HTTP_HOST:-127.0.0.1}:${HTTP_PORT:-3000}/?clientId=<id>   (or /ws?clientId=<id>)
  Admin panel      ${panel}
  Temporal Web UI  http://127.0.0.1:${TEMPORAL_UI_PORT}
  Sample ranking   ${base}/api/v1/ranking/paginado   (ready when /api/v1/ranking/status says concluido)

INFO
exec node dist/main.js
