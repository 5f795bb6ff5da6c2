#!/usr/bin/env bash
# `npm run image:build`: the one image of every role (docs/image.md), tagged
# consultores-agentes:<package.json version> and consultores-agentes:latest.
#   1. Docker: installed and started when missing (scripts/image/docker.sh);
#   2. the base the Dockerfile's FROM names, assembled locally when absent (scripts/image/base.sh:
#      this machine reaches no container registry; elsewhere `docker pull` gives the official one);
#   3. this machine's CA bundle in .build-ca.pem (git-ignored; the build stages only, never the runtime
#      stage: the registries are reached through a TLS proxy here), unless BUILD_CA is set empty;
#   4. the classic builder (DOCKER_BUILDKIT=0: no buildx with Debian's Docker) with --network host, so the
#      RUN steps reach the registries as this machine does, and the pinned Node's version and integrities
#      passed from scripts/node/ensure-node.sh (the Dockerfile's defaults are the same, a unit test says so);
#      --force-rm: a failed step leaves no stopped container behind.
# The build's output goes to .stack/logs/image-build.log; one line at the end gives the time and size.
# Usage: build.sh   (IMAGE_NAME overrides the repository name, consultores-agentes; IMAGE_NO_CACHE=1
# rebuilds every layer, to measure a cold build)
set -euo pipefail
cd "$(dirname "$0")/../.."
# NODE_PINNED_VERSION and ensure_node_integrity: the one place the Node version is pinned.
. scripts/node/ensure-node.sh
source scripts/stack/env.sh
source "$STACK_SCRIPTS_DIR/lib.sh"

PART=image
LOG="$(log_of image-build)"
name=${IMAGE_NAME:-consultores-agentes}
version=$(node -p 'require("./package.json").version')
t0=$(now_us)

bash scripts/image/docker.sh up
ensure_dirs
codename=$(sed -n 's/^ARG DEBIAN_CODENAME=//p' Dockerfile)
base=debian:$codename-slim
if ! docker image inspect "$base" >/dev/null 2>&1; then
  echo "image: assembling the base $base locally with mmdebstrap (log: $(log_of image-base))"
  # The Dockerfile's release, not this machine's: the tag must hold what it names.
  BASE_CODENAME=$codename BASE_TAG=$base bash scripts/image/base.sh >>"$(log_of image-base)" 2>&1 ||
    fail_part "$PART" "$(log_of image-base)" "base $base could not be assembled"
fi

# The CA bundle this machine's own npm and Node trust (npm's cafile, else NODE_EXTRA_CA_CERTS, else
# SSL_CERT_FILE): appended to the build stages' bundle. Harmless where nothing intercepts.
ca=${BUILD_CA-}
if [[ -z ${BUILD_CA+set} ]]; then
  for ca in "$(npm config get cafile 2>/dev/null || true)" "${NODE_EXTRA_CA_CERTS:-}" "${SSL_CERT_FILE:-}" ""; do
    [[ -n $ca && -f $ca ]] && break
  done
fi
if [[ -n $ca && -f $ca ]]; then cp "$ca" .build-ca.pem; else rm -f .build-ca.pem; fi
trap 'rm -f .build-ca.pem' EXIT

# The image this tag names now: replaced by the build, it is removed afterwards (with the layers only it used).
previous=$(docker image inspect -f '{{.Id}}' "$name:$version" 2>/dev/null || true)
echo "image: building $name:$version (log: $LOG)"
mark_log "$PART" "$LOG"
DOCKER_BUILDKIT=0 docker build --network host --force-rm ${IMAGE_NO_CACHE:+--no-cache} \
  --build-arg "NODE_VERSION=$NODE_PINNED_VERSION" \
  --build-arg "NODE_INTEGRITY_X64=$(ensure_node_integrity x64)" \
  --build-arg "NODE_INTEGRITY_ARM64=$(ensure_node_integrity arm64)" \
  -t "$name:$version" -t "$name:latest" . >>"$LOG" 2>&1 ||
  fail_part "$PART" "$LOG" "build failed"

id=$(docker image inspect -f '{{.Id}}' "$name:$version")
if [[ -n $previous && $previous != "$id" ]] && [[ -z $(docker image inspect -f '{{join .RepoTags ""}}' "$previous" 2>/dev/null) ]]; then
  docker image rm "$previous" >/dev/null 2>&1 || true # still used by a container: left, as Docker keeps it
fi
bytes=$(docker image inspect -f '{{.Size}}' "$id")
echo "image: $name:$version and $name:latest built in $(elapsed_since "$t0") s, $((bytes / 1000000)) MB (${id:7:12})"
