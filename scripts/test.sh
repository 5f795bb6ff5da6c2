#!/usr/bin/env bash
# `npm test`: install what is missing, type-check, lint (scripts/lint.sh), run every jest suite (jest's global set-up
# starts or reuses the local stack), then print one closing line "tests: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
# The pinned Node first on PATH for everything below: tsc, jest and its workers, the stack's checks,
# the services the suites spawn (docs/runtime.md).
source scripts/node/ensure-node.sh

bash scripts/install-deps.sh
echo "typecheck: tsc --noEmit"
npx tsc --noEmit -p tsconfig.json
# A finding fails the run, after the suites have run (their summary is still printed).
status=0
bash scripts/lint.sh || { status=1; echo "lint: FAILED (above)"; }
# The Helm chart (docs/deployment.md): lint, renders, validation against the Kubernetes schemas; its
# jest suite (test/unit/chart.test.ts) runs with the others below.
CHART_SKIP_JEST=1 bash scripts/chart/check.sh || { status=1; echo "chart:check: FAILED (above)"; }

results=$(mktemp)
serial=$(mktemp)
deploy=$(mktemp)
trap 'rm -f "$results" "$serial" "$deploy"' EXIT
started=$SECONDS
# Unit and integration suites on both cores (jest.config.js: each worker its own names), then, for a
# whole run, the suites that cannot share the machine, alone (SERIAL_SUITES in jest.projects.js).
npx jest --json --outputFile="$results" "$@" || status=$?
if [[ $# -eq 0 ]]; then
  npx jest -c jest.serial.config.js --json --outputFile="$serial" || status=$?
  # Then the image, scaled out and restarted under load (docs/deploy-test.md): builds the image first.
  bash scripts/deploy/test.sh --json --outputFile="$deploy" || status=$?
  files=("$results" "$serial" "$deploy")
else
  files=("$results")
fi
echo "jest: $((SECONDS - started)) s"
node scripts/print-test-summary.js "${files[@]}" || status=1
exit "$status"
