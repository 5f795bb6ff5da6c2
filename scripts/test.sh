#!/usr/bin/env bash
# `npm test`: install what is missing, type-check, lint (scripts/lint.sh), run every jest suite (jest's global set-up
# starts or reuses the local stack), then print one closing line "tests: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
echo "typecheck: tsc --noEmit"
npx tsc --noEmit -p tsconfig.json
# A finding fails the run, after the suites have run (their summary is still printed).
status=0
bash scripts/lint.sh || { status=1; echo "lint: FAILED (above)"; }

results=$(mktemp)
trap 'rm -f "$results"' EXIT
npx jest --json --outputFile="$results" "$@" || status=$?
node scripts/print-test-summary.js "$results" || status=1
exit "$status"
