#!/usr/bin/env bash
# Spike (issue 40, part 1): builds the image here, where no container registry is reached.
#   scripts/image/build.sh [tag]      (default consultores-agentes:spike)
# 1. the base the Dockerfile's FROM names, assembled locally when absent (scripts/image/base.sh);
# 2. this machine's CA bundle into .build-ca.pem (git- and never runtime-stage: the registries are
#    reached through a TLS proxy here), unless BUILD_CA is empty;
# 3. the classic builder (DOCKER_BUILDKIT=0: no buildx here) with --network host, so the RUN steps reach
#    the registries exactly as this machine does.
set -euo pipefail
cd "$(dirname "$0")/../.."
tag=${1:-consultores-agentes:spike}
bash scripts/image/base.sh
ca=${BUILD_CA-$(npm config get cafile 2>/dev/null || true)}
if [[ -n $ca && $ca != null && -f $ca ]]; then cp "$ca" .build-ca.pem; else rm -f .build-ca.pem; fi
DOCKER_BUILDKIT=0 docker build --network host -t "$tag" .
docker image ls "$tag"
