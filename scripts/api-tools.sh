#!/usr/bin/env bash
# The API description's tools from PyPI, pinned, in a venv of their own under the stack's tools:
# schemathesis (fuzzes both services from their OpenAPI documents) and openapi-spec-validator
# (validates the documents). Installed once per version; prints the venv's bin directory.
# Usage: bash scripts/api-tools.sh   (test/support/api-tools.ts runs it)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/stack/env.sh"
STACK_LOG_DIR="$STACK_DIR/logs"

SCHEMATHESIS_VERSION=4.32.5
SPEC_VALIDATOR_VERSION=0.9.0
VENV="$STACK_DIR/tools/api-venv"
STAMP="$VENV/.versions"
WANTED="schemathesis==$SCHEMATHESIS_VERSION openapi-spec-validator==$SPEC_VALIDATOR_VERSION"

if [[ ! -x $VENV/bin/st || ! -x $VENV/bin/openapi-spec-validator || $(cat "$STAMP" 2>/dev/null) != "$WANTED" ]]; then
  mkdir -p "$STACK_LOG_DIR"
  log_path="$STACK_LOG_DIR/api-tools-install.log"
  echo "api-tools: installing $WANTED into $VENV" >&2
  {
    [[ -x $VENV/bin/pip ]] || python3 -m venv "$VENV"
    # shellcheck disable=SC2086
    "$VENV/bin/pip" install --disable-pip-version-check -q $WANTED
  } >>"$log_path" 2>&1 || { echo "api-tools: install failed, see $log_path" >&2; tail -20 "$log_path" >&2; exit 1; }
  echo "$WANTED" >"$STAMP"
fi
echo "$VENV/bin"
