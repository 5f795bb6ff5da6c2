#!/usr/bin/env bash
# The tools of `npm run chart:check` (scripts/chart/check.sh), pinned, installed once per machine
# outside the repository and reused by every later run and every clone on the machine:
#   root:      /opt/consultores-chart-tools
#   otherwise: ${XDG_CACHE_HOME:-~/.cache}/consultores-chart-tools
#   (CHART_TOOLS_ROOT overrides it.)
# Each tool has its own versioned directory, so a bump installs beside the old one:
#   helm-<version>/helm             Helm 4, built from the Go module proxy (no prebuilt binary)
#   venv-<hash>/                    kubernetes-validate and its dependencies (requirements.txt)
#   crds-<versions>/*.yaml          the CRDs of the custom resources the chart may render
# Only the Go module proxy and PyPI are used. Idempotent: when everything is there it checks and
# prints in about a second. Prints one line per tool:
#   helm: v4.3.1 (/opt/consultores-chart-tools/helm-v4.3.1/helm)
# `--env FILE` also writes the paths to FILE as shell assignments (CHART_HELM=..., CHART_PYTHON=...,
# CHART_CRD_DIR=...) for check.sh.
set -euo pipefail

# --- Pins: a bump changes a line here (and, for Python, requirements.txt) ---------------------------
# Helm 4: v4.3.1 is the newest v4 the Go module proxy serves here. `go install` leaves the version
# string at the source's "v4.3" (internal/version/version.go; the release Makefile sets it with -X),
# so the build sets it as the Makefile does. Its default Kubernetes version for `helm template` is
# its client-go's (v0.37 -> 1.37); check.sh passes the validated one instead (--kube-version).
HELM_VERSION=v4.3.1
HELM_MODULE=helm.sh/helm/v4
# kubernetes-validate and its dependencies are pinned with == in requirements.txt beside this file
# (1.37.0 ships the strict schemas of Kubernetes 1.25 to 1.37); this one is checked after the install.
KUBERNETES_VALIDATE_VERSION=1.37.0
# ServiceMonitor and PrometheusRule (monitoring.coreos.com/v1): the CRDs are only in the main module's
# example/prometheus-operator-crd/, and v0.85.0 is the only version of the main module the Go module
# proxy serves here (the pkg/apis/monitoring submodule, at v0.95.2, has the Go types but no CRD).
PROMETHEUS_OPERATOR_MODULE=github.com/prometheus-operator/prometheus-operator
PROMETHEUS_OPERATOR_VERSION=v0.85.0
PROMETHEUS_OPERATOR_CRDS="example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml
example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml"
# HTTPRoute (gateway.networking.k8s.io/v1), standard channel: v1.6.3 is the newest release whose
# module this Go (1.26) accepts; v1.7.0 needs a newer Go toolchain.
GATEWAY_API_MODULE=sigs.k8s.io/gateway-api
GATEWAY_API_VERSION=v1.6.3
GATEWAY_API_CRDS="config/crd/standard/gateway.networking.k8s.io_httproutes.yaml"
# -----------------------------------------------------------------------------------------------------

here=$(cd "$(dirname "$0")" && pwd)
requirements=$here/requirements.txt

env_file=
if [ "${1:-}" = --env ]; then
  env_file=${2:?usage: install-tools.sh [--env FILE]}
fi

if [ -n "${CHART_TOOLS_ROOT:-}" ]; then
  root=$CHART_TOOLS_ROOT
elif [ "$(id -u)" = 0 ]; then
  root=/opt/consultores-chart-tools
else
  root=${XDG_CACHE_HOME:-$HOME/.cache}/consultores-chart-tools
fi
mkdir -p "$root"

# One installer at a time per tools directory (two clones' checks may start together).
exec 9>"$root/.lock"
flock 9

for tool in go python3; do
  command -v "$tool" >/dev/null || { echo "install-tools: $tool is not on PATH" >&2; exit 1; }
done

# The go command, with this machine's toolchain only (no toolchain download) and module mode.
run_go() {
  GOTOOLCHAIN=local GO111MODULE=on GOFLAGS=-modcacherw go "$@"
}

# Prints the module cache directory of MODULE@VERSION, downloading it from the Go module proxy once.
# Run in an empty temporary directory, so no go.mod or go.work around the caller is involved.
module_dir() {
  local work dir
  work=$(mktemp -d)
  (cd "$work" && run_go mod download -json "$1@$2") >"$work/out.json" || {
    cat "$work/out.json" >&2
    rm -rf "$work"
    echo "install-tools: go mod download $1@$2 failed" >&2
    return 1
  }
  dir=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["Dir"])' "$work/out.json")
  rm -rf "$work"
  echo "$dir"
}

elapsed() { echo "$(($(date +%s) - $1))s"; }

# --- Helm ---------------------------------------------------------------------------------------------
helm_dir=$root/helm-$HELM_VERSION
helm=$helm_dir/helm
helm_version() { "$1" version --template '{{.Version}}' 2>/dev/null || true; }
helm_note=
if [ "$(helm_version "$helm")" != "$HELM_VERSION" ]; then
  start=$(date +%s)
  echo "install-tools: building helm $HELM_VERSION from $HELM_MODULE (Go module proxy; a few minutes the first time)" >&2
  tmp=$(mktemp -d "$root/.helm-build.XXXXXX")
  log=$(mktemp)
  if ! CGO_ENABLED=0 GOBIN=$tmp run_go install -trimpath \
    -ldflags "-s -w -X $HELM_MODULE/internal/version.version=$HELM_VERSION" \
    "$HELM_MODULE/cmd/helm@$HELM_VERSION" >"$log" 2>&1; then
    cat "$log" >&2
    rm -rf "$tmp" "$log"
    echo "install-tools: helm build failed" >&2
    exit 1
  fi
  rm -f "$log"
  got=$(helm_version "$tmp/helm")
  if [ "$got" != "$HELM_VERSION" ]; then
    rm -rf "$tmp"
    echo "install-tools: the built helm says '$got', not $HELM_VERSION" >&2
    exit 1
  fi
  rm -rf "$helm_dir"
  mv "$tmp" "$helm_dir"
  chmod 0755 "$helm_dir"
  helm_note=", built in $(elapsed "$start")"
fi
echo "helm: $(helm_version "$helm") ($helm$helm_note)"

# --- kubernetes-validate in a venv --------------------------------------------------------------------
# The venv's name hashes requirements.txt and the Python version: a change to either makes a new one.
py_version=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
venv_key=$( (cat "$requirements"; echo "python $py_version") | sha256sum | cut -c1-12)
venv=$root/venv-$venv_key
python=$venv/bin/python
kv_version() { "$1" -c 'import kubernetes_validate.version as v; print(v.__version__)' 2>/dev/null || true; }
venv_note=
if [ ! -e "$venv/.installed" ] || [ "$(kv_version "$python")" != "$KUBERNETES_VALIDATE_VERSION" ]; then
  start=$(date +%s)
  echo "install-tools: installing kubernetes-validate $KUBERNETES_VALIDATE_VERSION (PyPI) into $venv" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  # --no-deps: exactly the pinned set, nothing resolved on the side; pip check: the set is complete.
  PIP_DISABLE_PIP_VERSION_CHECK=1 "$python" -m pip install --quiet --no-deps -r "$requirements"
  PIP_DISABLE_PIP_VERSION_CHECK=1 "$python" -m pip check >/dev/null
  got=$(kv_version "$python")
  if [ "$got" != "$KUBERNETES_VALIDATE_VERSION" ]; then
    echo "install-tools: the venv has kubernetes-validate '$got', not $KUBERNETES_VALIDATE_VERSION (requirements.txt)" >&2
    exit 1
  fi
  touch "$venv/.installed"
  venv_note=", installed in $(elapsed "$start")"
fi
echo "kubernetes-validate: $(kv_version "$python") ($venv, Python $py_version$venv_note)"

# --- CRDs ---------------------------------------------------------------------------------------------
crd_dir=$root/crds-prometheus-operator-$PROMETHEUS_OPERATOR_VERSION-gateway-api-$GATEWAY_API_VERSION
crd_note=
if [ ! -e "$crd_dir/.installed" ]; then
  start=$(date +%s)
  tmp=$(mktemp -d "$root/.crds.XXXXXX")
  po_dir=$(module_dir "$PROMETHEUS_OPERATOR_MODULE" "$PROMETHEUS_OPERATOR_VERSION")
  gw_dir=$(module_dir "$GATEWAY_API_MODULE" "$GATEWAY_API_VERSION")
  for file in $PROMETHEUS_OPERATOR_CRDS; do cp "$po_dir/$file" "$tmp/"; done
  for file in $GATEWAY_API_CRDS; do cp "$gw_dir/$file" "$tmp/"; done
  chmod 0644 "$tmp"/*.yaml
  chmod 0755 "$tmp"
  touch "$tmp/.installed"
  rm -rf "$crd_dir"
  mv "$tmp" "$crd_dir"
  crd_note=", downloaded in $(elapsed "$start")"
fi
crd_names=
for file in "$crd_dir"/*.yaml; do
  name=${file##*/}
  crd_names=${crd_names:+$crd_names,}${name%.yaml}
done
echo "crds: prometheus-operator $PROMETHEUS_OPERATOR_VERSION, gateway-api $GATEWAY_API_VERSION: $crd_names ($crd_dir$crd_note)"

if [ -n "$env_file" ]; then
  printf 'CHART_HELM=%q\nCHART_PYTHON=%q\nCHART_CRD_DIR=%q\n' "$helm" "$python" "$crd_dir" >"$env_file"
fi
