"""Export the models as JSON Schema (Draft 2020-12) files: ``python -m spec.models.export [--check]``.

Writes ``spec/schemas/<kind-lower>.json`` for every kind in ``spec.models.KINDS``. ``--check`` writes
nothing and exits 1 listing the files that differ from a fresh export (the drift check).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from . import KINDS, schema_name

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_BASE_URI = "https://kube32.io/conformance/schemas/"
SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"


def schema_for(kind: str) -> dict:
    api_version, model = KINDS[kind]
    schema = model.model_json_schema(by_alias=True, mode="validation")
    name = schema_name(kind)
    return {
        "$schema": SCHEMA_DIALECT,
        "$id": f"{SCHEMA_BASE_URI}{name}.json",
        "x-kubernetes-group-version-kind": {"apiVersion": api_version, "kind": kind},
        **schema,
    }


def render(kind: str) -> str:
    return json.dumps(schema_for(kind), indent=2, sort_keys=True) + "\n"


def rendered() -> dict[str, str]:
    """File name -> text of every schema, as a fresh export would write them."""
    return {f"{schema_name(kind)}.json": render(kind) for kind in KINDS}


def stale(directory: Path = SCHEMA_DIR) -> list[Path]:
    """Files under ``directory`` that differ from (or are missing for, or are extra to) a fresh export."""
    fresh = rendered()
    out = [directory / n for n, text in fresh.items()
           if not (directory / n).is_file() or (directory / n).read_text() != text]
    out += [p for p in sorted(directory.glob("*.json")) if p.name not in fresh]
    return sorted(out)


def write(directory: Path = SCHEMA_DIR) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    fresh = rendered()
    for p in directory.glob("*.json"):
        if p.name not in fresh:
            p.unlink()
    written = []
    for n, text in fresh.items():
        path = directory / n
        if not path.is_file() or path.read_text() != text:
            path.write_text(text)
            written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m spec.models.export", description=__doc__)
    parser.add_argument("--check", action="store_true", help="only report drift, write nothing")
    parser.add_argument("--dir", type=Path, default=SCHEMA_DIR)
    args = parser.parse_args(argv)
    if args.check:
        bad = stale(args.dir)
        for p in bad:
            print(f"stale: {p}", file=sys.stderr)
        return 1 if bad else 0
    for p in write(args.dir):
        print(f"wrote {p}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
