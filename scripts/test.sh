#!/usr/bin/env bash
# `npm test`: install what is missing, type-check, run every jest suite (jest's global set-up
# starts or reuses the local stack), then print one closing line "tests: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
echo "typecheck: tsc --noEmit"
npx tsc --noEmit -p tsconfig.json

results=$(mktemp)
trap 'rm -f "$results"' EXIT
status=0
npx jest --json --outputFile="$results" "$@" || status=$?
node scripts/print-test-summary.js "$results" || status=1
exit "$status"
