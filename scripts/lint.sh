#!/usr/bin/env bash
# `npm run lint` (and the first checks of `npm test`): the formatter, the linter and knip, each clean
# or failing the run. Fix formatting with `npm run format`; the rules are in eslint.config.mjs and
# knip.jsonc, the reasons in docs/code-quality.md.
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
echo "lint: prettier --check"
npx prettier --check --log-level warn . || status=1
echo "lint: eslint"
npx eslint --max-warnings 0 . || status=1
echo "lint: knip"
npx knip --no-progress || status=1
exit "$status"
