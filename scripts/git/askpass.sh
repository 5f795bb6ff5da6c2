#!/bin/sh
# GIT_ASKPASS for the service's own fetches and pushes (services/repos/credentials.ts): git asks for
# "Username for '<url>': " then "Password for '<url>': "; the answers come from this process's
# environment only, so they are never written into a configuration, a remote URL or a working copy.
case "$1" in
  Username*) printf '%s\n' "$REPO_GIT_USERNAME" ;;
  *) printf '%s\n' "$REPO_GIT_PASSWORD" ;;
esac
