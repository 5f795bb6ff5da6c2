"""Validates rendered Kubernetes manifests offline (`npm run chart:check`, scripts/chart/check.sh).

    validate.py [--kube-version 1.34] [--crd-dir DIR] RENDERED.yaml   (or - for standard input)

Runs in the venv of scripts/chart/install-tools.sh (requirements.txt). Each object of the
multi-document YAML is checked:
- a built-in kind against the strict schemas of Kubernetes --kube-version shipped by
  kubernetes-validate (its Python API, strict=True: an unknown field is an error);
- a custom resource whose CRD is in --crd-dir (install-tools.sh puts ServiceMonitor, PrometheusRule
  and HTTPRoute there) against the openAPIV3Schema of the CRD's served version named by the object's
  apiVersion, with jsonschema, made strict as the API server's strict field validation is: an object
  schema with properties and without additionalProperties or x-kubernetes-preserve-unknown-fields
  accepts no other field; `nullable: true` accepts null; x-kubernetes-list-type: set means unique
  items; metadata is checked against Kubernetes' strict ObjectMeta. Not checked: the CRDs' CEL rules
  (x-kubernetes-validations), the uniqueness of list-map keys, string formats;
- any other kind is an error, and so is a document that is not an object with apiVersion, kind and
  metadata.name, two objects with the same group, kind, namespace and name, or an empty render.

Prints one line per object (`ok Kind/name` or `FAIL Kind/name: reason`) and a last line
`validate: N objects, N failed, Kubernetes <version>`; exits 1 on any failure, 2 on a usage error.
`--print-kube-version` prints the default version (check.sh passes it to helm as --kube-version);
`--print-api-versions` prints the CRDs' group/version and group/version/Kind, comma-separated
(check.sh passes them to helm as --api-versions, so Capabilities.APIVersions has them).
"""

from __future__ import annotations

import argparse
import copy
import glob
import os
import re
import sys
from typing import Any

import jsonschema
import kubernetes_validate
import kubernetes_validate.utils as kv_utils
import yaml
from referencing import Registry, Resource

# The Kubernetes version validated against, in this one place: the oldest minor the chart is meant
# to run on (a manifest valid for 1.34 is valid for the later ones kubernetes-validate ships, up to
# 1.37; the reverse is not true: a field added in 1.35 fails here). Change it with --kube-version.
DEFAULT_KUBE_VERSION = "1.34"

OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"


class Loader(yaml.SafeLoader):
    """YAML as the API server reads it for these checks: timestamps stay strings, `=` is a string."""


Loader.yaml_implicit_resolvers = {
    key: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
Loader.add_constructor("tag:yaml.org,2002:value", lambda loader, node: loader.construct_scalar(node))


def shipped_versions() -> list[str]:
    return sorted({kv_utils.major_minor(v) for v in kv_utils.all_versions()}, key=lambda v: tuple(map(int, v.split("."))))


def definitions(kube_version: str) -> Resource:
    """Kubernetes' strict _definitions.json of that version (for the custom resources' metadata)."""
    contents = kv_utils.schema_contents(
        "kubernetes-json-schema/v%s.0-local-strict/_definitions.json" % kube_version, kube_version
    )
    return Resource.from_contents(contents)


def strict_crd_schema(node: Any) -> Any:
    """A CRD's structural OpenAPI v3 schema as a strict JSON schema (see the module's docstring)."""
    if isinstance(node, list):
        return [strict_crd_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key in ("properties", "patternProperties", "definitions", "$defs"):
            out[key] = {name: strict_crd_schema(sub) for name, sub in value.items()}
        elif key in ("x-kubernetes-validations", "description", "example", "enum", "default"):
            out[key] = value
        else:
            out[key] = strict_crd_schema(value)
    if out.pop("nullable", False) and "type" in out:
        out["type"] = [out["type"], "null"] if isinstance(out["type"], str) else [*out["type"], "null"]
        if "enum" in out and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
    if (
        "properties" in out
        and "additionalProperties" not in out
        and not out.get("x-kubernetes-preserve-unknown-fields")
    ):
        out["additionalProperties"] = False
    if out.get("x-kubernetes-list-type") == "set":
        out["uniqueItems"] = True
    return out


class Crds:
    """The served versions of the CRDs in a directory: (group, version, kind) -> strict schema."""

    def __init__(self, crd_dir: str | None, kube_version: str):
        self.schemas: dict[tuple[str, str, str], dict] = {}
        self.kinds: dict[tuple[str, str], list[str]] = {}
        self.registry: Registry = Registry()
        if crd_dir is None:
            return
        files = sorted(glob.glob(os.path.join(crd_dir, "*.yaml")) + glob.glob(os.path.join(crd_dir, "*.yml")))
        if not files:
            raise SystemExit("validate: no CRD in %s" % crd_dir)
        defs = definitions(kube_version)
        self.registry = defs @ Registry()
        meta_ref = {"$ref": "https://kubernetes.io/api/_definitions.json#/$defs/%s" % OBJECT_META}
        for path in files:
            with open(path) as f:
                for doc in yaml.load_all(f, Loader=Loader):
                    if not doc or doc.get("kind") != "CustomResourceDefinition":
                        continue
                    group = doc["spec"]["group"]
                    kind = doc["spec"]["names"]["kind"]
                    for version in doc["spec"]["versions"]:
                        self.kinds.setdefault((group, kind), []).append(version["name"])
                        if not version.get("served"):
                            continue
                        schema = strict_crd_schema(copy.deepcopy(version["schema"]["openAPIV3Schema"]))
                        props = schema.setdefault("properties", {})
                        own_meta = props.get("metadata", {})
                        props["metadata"] = {"allOf": [meta_ref, own_meta]} if len(own_meta) > 1 else meta_ref
                        schema["additionalProperties"] = False
                        self.schemas[(group, version["name"], kind)] = schema

    def api_versions(self) -> list[str]:
        out: set[str] = set()
        for group, version, kind in self.schemas:
            out.add("%s/%s" % (group, version))
            out.add("%s/%s/%s" % (group, version, kind))
        return sorted(out)

    def validate(self, obj: dict, group: str, version: str, kind: str) -> str | None:
        """None when valid, else the reason (only for a group and kind that a CRD here has)."""
        schema = self.schemas.get((group, version, kind))
        if schema is None:
            versions = self.kinds[(group, kind)]
            return "%s/%s %s is not served by its CRD (versions: %s)" % (group, version, kind, ", ".join(versions))
        validator = jsonschema.Draft202012Validator(schema, registry=self.registry)
        errors = sorted(validator.iter_errors(obj), key=lambda e: [str(p) for p in e.absolute_path])
        return "; ".join(reason(error) for error in errors) or None


def reason(error: jsonschema.ValidationError) -> str:
    path = ".".join(str(item) for item in error.absolute_path)
    return "%s: %s" % (path or "(object)", error.message)


def split_api_version(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


def label(obj: Any) -> str:
    if not isinstance(obj, dict):
        return "?/?"
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    return "%s/%s" % (obj.get("kind") or "?", meta.get("name") or "?")


def check(obj: Any, kube_version: str, crds: Crds) -> str | None:
    """None when the object is valid, else the reason."""
    if not isinstance(obj, dict):
        return "not a Kubernetes object (a YAML %s)" % type(obj).__name__
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    meta = obj.get("metadata")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return "no apiVersion or kind"
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str) or not meta["name"]:
        return "no metadata.name"
    group, version = split_api_version(api_version)
    if (group, kind) in crds.kinds:
        return crds.validate(obj, group, version, kind)
    try:
        kubernetes_validate.validate(obj, kube_version, strict=True)
    except kubernetes_validate.ValidationError as error:
        return reason(error)
    except kv_utils.SchemaNotFoundError:
        return "%s %s is neither a built-in kind of Kubernetes %s nor a custom resource with a CRD here" % (
            api_version,
            kind,
            kube_version,
        )
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", help="the rendered manifests (multi-document YAML), or - for stdin")
    parser.add_argument("--kube-version", default=DEFAULT_KUBE_VERSION, help="default %(default)s")
    parser.add_argument("--crd-dir", help="a directory of CRD YAML files (install-tools.sh's crds-*)")
    parser.add_argument("--print-kube-version", action="store_true")
    parser.add_argument("--print-api-versions", action="store_true")
    args = parser.parse_args()

    kube_version = re.sub(r"^v", "", args.kube_version)
    kube_version = kv_utils.major_minor(kube_version)
    if kube_version not in shipped_versions():
        print(
            "validate: kubernetes-validate %s has no schemas for Kubernetes %s (it has %s)"
            % (kubernetes_validate.__version__, kube_version, ", ".join(shipped_versions())),
            file=sys.stderr,
        )
        return 2
    if args.print_kube_version:
        print(kube_version)
        return 0
    crds = Crds(args.crd_dir, kube_version)
    if args.print_api_versions:
        print(",".join(crds.api_versions()))
        return 0
    if not args.path:
        parser.print_usage(sys.stderr)
        return 2

    try:
        with open(args.path) if args.path != "-" else sys.stdin as f:
            docs = [doc for doc in yaml.load_all(f, Loader=Loader) if doc is not None]
    except (OSError, yaml.YAMLError) as error:
        print("FAIL %s: cannot be read as YAML: %s" % (args.path, error))
        print("validate: 0 objects, 1 failed, Kubernetes %s" % kube_version)
        return 1

    failed = 0
    seen: set[tuple] = set()
    for obj in docs:
        why = check(obj, kube_version, crds)
        if why is None:
            meta = obj["metadata"]
            key = (split_api_version(obj["apiVersion"])[0], obj["kind"], meta.get("namespace"), meta["name"])
            if key in seen:
                why = "a second object of that kind and name (namespace %s)" % (meta.get("namespace") or "unset")
            seen.add(key)
        if why is None:
            print("ok %s" % label(obj))
        else:
            failed += 1
            print("FAIL %s: %s" % (label(obj), why))
    if not docs:
        print("FAIL %s: no object rendered" % args.path)
        failed = 1
    print("validate: %d objects, %d failed, Kubernetes %s" % (len(docs), failed, kube_version))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
