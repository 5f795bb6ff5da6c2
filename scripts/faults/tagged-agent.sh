#!/bin/sh
# The fault suite's agent command (docs/reliability.md): notes each agent process start, with the
# run's record id and attempt the service gives every agent (AGENT_EXECUTION_ID,
# AGENT_EXECUTION_ATTEMPT) and its pid, in the file the
# suite names through the agent's secret FAULTS_STARTS_FILE, then becomes the pinned Claude Code CLI
# (exec: same pid, so the suite can kill the CLI by it). A record started twice shows here twice,
# whatever the model was asked.
printf '%s %s %s %s\n' "$(date +%s%3N)" "${AGENT_EXECUTION_ID:-unknown}" "${AGENT_EXECUTION_ATTEMPT:-0}" "$$" >>"${FAULTS_STARTS_FILE:?}"
exec "$(dirname "$0")/../../node_modules/.bin/claude" "$@"
