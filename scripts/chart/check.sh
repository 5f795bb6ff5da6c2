#!/usr/bin/env bash
# `npm run chart:check`: the Helm chart checked offline, with the pinned tools of install-tools.sh:
#   1. install-tools.sh (seconds once installed);
#   2. helm lint --strict, with the default values and with the production example;
#   3. helm template (release consultores, namespace consultores) with each, at the Kubernetes
#      version validate.py validates against (--kube-version) and with the API versions of the CRDs
#      it has (--api-versions), so templates gated on .Capabilities render what they would there;
#   4. validate.py on both renders: built-in kinds strictly against Kubernetes' schemas, ServiceMonitor,
#      PrometheusRule and HTTPRoute against their CRDs, anything else an error;
#   5. the renders kept: $CHART_OUT_DIR/rendered.yaml (production values) and rendered-default.yaml;
#   6. the jest test of the chart, test/unit/chart.test.ts (it renders the chart again and checks the
#      objects against the service's own rules: probes, users, graces, secret files).
# Exits non-zero at the first failing step. Environment (paths relative to the repository's root):
#   CHART_DIR          deploy/helm/consultores-agentes
#   CHART_PROD_VALUES  deploy/helm/examples/production-values.yaml
#   CHART_OUT_DIR      .stack/chart
#   CHART_KUBE_VERSION validate.py's DEFAULT_KUBE_VERSION
#   CHART_SKIP_JEST=1  skips step 6 (npm test runs that suite with the others; or another chart)
set -euo pipefail
cd "$(dirname "$0")/../.."

chart=${CHART_DIR:-deploy/helm/consultores-agentes}
prod_values=${CHART_PROD_VALUES:-deploy/helm/examples/production-values.yaml}
out=${CHART_OUT_DIR:-.stack/chart}
release=consultores
namespace=consultores

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bash scripts/chart/install-tools.sh --env "$work/tools.env"
# shellcheck source=/dev/null
. "$work/tools.env"

for path in "$chart/Chart.yaml" "$prod_values"; do
  [ -f "$path" ] || { echo "chart:check: $path is missing" >&2; exit 1; }
done

validate() { "$CHART_PYTHON" scripts/chart/validate.py --crd-dir "$CHART_CRD_DIR" "$@"; }
kube_version=$(validate --kube-version "${CHART_KUBE_VERSION:-$(validate --print-kube-version)}" --print-kube-version)
api_versions=$(validate --print-api-versions)

# Helm's own state (repositories, plugins, cache) kept out of it: the check reads only the chart.
export HELM_CONFIG_HOME=$work/helm/config HELM_CACHE_HOME=$work/helm/cache HELM_DATA_HOME=$work/helm/data

echo "chart:check: helm lint --strict $chart (default values, then $prod_values; Kubernetes $kube_version)"
"$CHART_HELM" lint --strict --quiet --kube-version "$kube_version" "$chart"
"$CHART_HELM" lint --strict --quiet --kube-version "$kube_version" -f "$prod_values" "$chart"

mkdir -p "$out"
render() { # render FILE [helm flags...]
  local file=$1
  shift
  "$CHART_HELM" template "$release" "$chart" --namespace "$namespace" \
    --kube-version "$kube_version" --api-versions "$api_versions" "$@" >"$work/render.yaml"
  mv "$work/render.yaml" "$file"
}
render "$out/rendered-default.yaml"
render "$out/rendered.yaml" -f "$prod_values"
echo "chart:check: rendered $out/rendered-default.yaml (default values) and $out/rendered.yaml ($prod_values)"

status=0
for file in "$out/rendered-default.yaml" "$out/rendered.yaml"; do
  echo "chart:check: validate $file"
  validate --kube-version "$kube_version" "$file" >"$work/validate.txt" || status=1
  sed 's/^/  /' "$work/validate.txt"
done
if [ "$status" != 0 ]; then
  echo "chart:check: FAILED: the renders do not validate (FAIL lines above)" >&2
  exit 1
fi

if [ "${CHART_SKIP_JEST:-}" = 1 ]; then
  echo "chart:check: jest test/unit/chart.test.ts skipped (CHART_SKIP_JEST=1)"
else
  echo "chart:check: npx jest test/unit/chart.test.ts"
  npx jest test/unit/chart.test.ts
fi
echo "chart:check: passed"
