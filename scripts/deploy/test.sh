#!/usr/bin/env bash
# `npm run test:deploy` (docs/deploy-test.md; also run by `npm test`): the image, scaled out and restarted
# under load, on the secured stack.
#   1. leftovers of an interrupted run removed (cleanup.sh), and again on the way out, however it ends;
#   2. the image built (scripts/image/build.sh: Docker installed and started when missing, layers reused);
#   3. HAProxy from Debian's packages (installed when missing; its packaged daemon, if the install
#      started one, stopped: the test runs its own);
#   4. the secured stack started or reused (scripts/stack/secure-up.sh);
#   5. the suite test/deploy/ with jest.deploy.config.js; arguments go to jest (scripts/test.sh passes
#      --json --outputFile=... so its result counts in the closing line).
# No step is skipped: without Docker, the image or HAProxy the run fails, saying which.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/node/ensure-node.sh

[[ $(id -u) -eq 0 ]] || { echo "test:deploy: run as root (Docker, the agents' pool users, the secured stack)" >&2; exit 1; }

jest_pid=
finish() {
  [[ -z $jest_pid ]] || kill -TERM "$jest_pid" 2>/dev/null || true
  bash scripts/deploy/cleanup.sh
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

bash scripts/deploy/cleanup.sh
started=$SECONDS
bash scripts/image/build.sh
echo "test:deploy: image ready in $((SECONDS - started)) s"

mkdir -p .stack/logs
if ! command -v haproxy >/dev/null 2>&1; then
  echo "test:deploy: installing haproxy (Debian)"
  { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends haproxy; } >.stack/logs/deploy-haproxy-install.log 2>&1 ||
    { echo "test:deploy: haproxy could not be installed (log: .stack/logs/deploy-haproxy-install.log)" >&2; exit 1; }
fi
if [[ -x /etc/init.d/haproxy ]] && /etc/init.d/haproxy status >/dev/null 2>&1; then
  echo "test:deploy: stopping the haproxy daemon its package started"
  /etc/init.d/haproxy stop >/dev/null && update-rc.d haproxy disable >/dev/null 2>&1 || true
fi

bash scripts/stack/secure-up.sh

npx jest -c jest.deploy.config.js "$@" &
jest_pid=$!
status=0
wait "$jest_pid" || status=$?
jest_pid=
echo "test:deploy: $((SECONDS - started)) s in all"
exit "$status"
