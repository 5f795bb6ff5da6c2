#!/usr/bin/env python3
"""Writes lib/model-prices.json: the per-token prices of the models the agents' CLIs run, taken from
the model price list that PyPI's `litellm` package ships (model_prices_and_context_window_backup.json),
pinned below. Neither Codex CLI nor Gemini CLI reports a cost: the service computes it from the
tokens with this table (docs/agent-clis.md, "Cost"). Run by hand to refresh it:

    python3 scripts/prices/update-model-prices.py [LITELLM_VERSION]

It downloads the wheel with pip (no dependencies), reads the one JSON file and keeps the chat and responses models
of OpenAI, Google Gemini and Anthropic, prices in USD per token.
"""
import datetime
import glob
import json
import os
import subprocess
import sys
import tempfile
import zipfile

LITELLM_VERSION = sys.argv[1] if len(sys.argv) > 1 else "1.110.2"
PRICE_FILE = "litellm/model_prices_and_context_window_backup.json"
# The providers whose models the CLIs call; Gemini's entries are named "gemini/<model>".
PROVIDERS = {"openai": "", "gemini": "gemini/", "anthropic": ""}
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "lib", "model-prices.json")


def main() -> None:
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", work, f"litellm=={LITELLM_VERSION}"],
            check=True,
        )
        wheel = glob.glob(os.path.join(work, "litellm-*.whl"))[0]
        with zipfile.ZipFile(wheel) as archive:
            table = json.loads(archive.read(PRICE_FILE))
    models = {}
    for name, entry in sorted(table.items()):
        provider = entry.get("litellm_provider") if isinstance(entry, dict) else None
        if provider not in PROVIDERS or entry.get("mode") not in ("chat", "responses"):
            continue
        prefix = PROVIDERS[provider]
        if not name.startswith(prefix):
            continue
        model = name[len(prefix):]
        if "/" in model or entry.get("input_cost_per_token") is None or entry.get("output_cost_per_token") is None:
            continue
        models[model] = {
            "input": entry["input_cost_per_token"],
            "output": entry["output_cost_per_token"],
            "cacheRead": entry.get("cache_read_input_token_cost") or 0,
            "cacheCreation": entry.get("cache_creation_input_token_cost") or 0,
        }
    document = {
        "source": f"litellm {LITELLM_VERSION} (PyPI), {PRICE_FILE}",
        "retrieved": datetime.date.today().isoformat(),
        "unit": "USD per token",
        "models": models,
    }
    with open(OUT, "w", encoding="utf-8") as out:
        json.dump(document, out, indent=1, sort_keys=False)
        out.write("\n")
    print(f"model prices: {len(models)} models from litellm {LITELLM_VERSION} written to {os.path.relpath(OUT)}")


if __name__ == "__main__":
    main()
