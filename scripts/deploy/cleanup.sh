#!/usr/bin/env bash
# What the deploy test (docs/deploy-test.md) leaves running, removed: its containers (label
# consultores.deploy-test, also an interrupted run's) and its HAProxy (by the pid file it writes, checked
# to be an haproxy). Run by scripts/deploy/test.sh before the test and on its way out, whatever the way.
# The deploy database, the Redis user, the index and the namespace stay (the next run starts them anew).
set -uo pipefail
cd "$(dirname "$0")/../.."

if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
  mapfile -t ids < <(docker ps --all --quiet --filter label=consultores.deploy-test)
  if ((${#ids[@]} > 0)); then
    # Their output first, where the test keeps it (an interrupted run's containers say why it stopped).
    mkdir -p .stack/logs/deploy
    for id in "${ids[@]}"; do
      name=$(docker inspect --format '{{.Name}}' "$id" 2>/dev/null | tr -d /)
      { echo "===== removed by cleanup.sh"; docker logs "$id" 2>&1; } >>".stack/logs/deploy/${name:-$id}.log"
    done
    docker rm --force "${ids[@]}" >/dev/null && echo "test:deploy: removed ${#ids[@]} container(s)"
  fi
fi

pidfile=.stack/deploy/haproxy.pid
if [[ -f $pidfile ]]; then
  pid=$(tr -dc '0-9' <"$pidfile")
  if [[ -n $pid ]] && [[ $(cat "/proc/$pid/comm" 2>/dev/null) == haproxy ]]; then
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
    echo "test:deploy: stopped HAProxy (pid $pid)"
  fi
  rm -f "$pidfile"
fi
exit 0
