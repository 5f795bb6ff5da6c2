#!/usr/bin/env bash
# Assembles locally the base image the Dockerfile's FROM names (debian:<codename>-slim), for a machine
# that reaches no container registry but does reach Debian's package archive. Elsewhere
# `docker pull debian:bookworm-slim` gives the official one and this script is not needed.
#
#   scripts/image/base.sh            # debian:bookworm-slim, unless it is already there
#   BASE_FORCE=1 scripts/image/base.sh
#
# mmdebstrap --variant=minbase (Essential + apt, as the official -slim) from the machine's own apt
# mirror, with the same slimming as the official slim images (no docs, man pages or locales; apt
# keeps no .deb files or lists), piped as a tarball into `docker import`.
set -euo pipefail
codename=${BASE_CODENAME:-$(. /etc/os-release && echo "$VERSION_CODENAME")}
tag=${BASE_TAG:-debian:$codename-slim}
mirror=${BASE_MIRROR:-http://deb.debian.org/debian}
security=${BASE_SECURITY_MIRROR:-http://deb.debian.org/debian-security}

if [[ -z ${BASE_FORCE:-} ]] && docker image inspect "$tag" >/dev/null 2>&1; then
  echo "base: $tag already present"
  exit 0
fi
command -v mmdebstrap >/dev/null || bash "$(dirname "$0")/../stack/system-packages.sh" up image

echo "base: building $tag with mmdebstrap ($codename, minbase) from $mirror"
# The sources written into the image are the ones a container uses for its own apt-get (the build
# stage's and the runtime stage's installs): the same mirror, plus updates and security.
# shellcheck disable=SC2016 # the hook's $1 is mmdebstrap's (the root it builds), not ours
mmdebstrap --variant=minbase --format=tar \
  --components=main \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-exclude=/usr/share/info/*' \
  --aptopt='APT::Install-Recommends "false"' \
  --aptopt='Acquire::Check-Valid-Until "false"' \
  --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin "$1"/var/cache/apt/archives/*.deb "$1"/var/log/*.log "$1"/etc/machine-id && touch "$1"/etc/machine-id' \
  "$codename" - \
  "deb $mirror $codename main" \
  "deb $mirror $codename-updates main" \
  "deb $security $codename-security main" |
  docker import \
    --change 'CMD ["bash"]' \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --message "mmdebstrap --variant=minbase $codename (scripts/image/base.sh)" \
    - "$tag"
docker image ls "$tag"
