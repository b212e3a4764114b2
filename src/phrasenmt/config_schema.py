"""Generate the config's JSON Schema (draft 2020-12) from the typed model.

`schemas/config.schema.yaml` is this module's output for
`phrasenmt.config_model.Experiment`, committed so that editors, `snakemake`
and readers see it; a unit test stops when it differs from what the model
generates.

    python -m phrasenmt.config_schema --out schemas/config.schema.yaml
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from phrasenmt.cli import ArgumentParser, output_file

SCHEMA = Path(__file__).resolve().parents[2] / "schemas" / "config.schema.yaml"
REGENERATE = "python -m phrasenmt.config_schema --out schemas/config.schema.yaml"
HEADER = (f"# Generated from phrasenmt.config_model by `{REGENERATE}`;\n"
          "# edit the model, not this file.\n")
# Entries that keep a name of their own under $defs; other classes are inlined.
SHARED = {"Dataset": "dataset", "Pair": "pair", "ContrastiveSet": "contrastive_set",
          "Model": "model", "Sweep": "sweep"}
ORDER = ("$schema", "$ref", "description", "type", "enum", "additionalProperties",
         "default", "propertyNames", "minProperties", "minItems", "uniqueItems",
         "items", "properties", "required", "anyOf")
TYPE_ONLY = {"type", "minimum", "maximum", "exclusiveMinimum", "items", "minItems",
             "uniqueItems", "pattern", "minLength"}


def _merge_types(members: list[dict]) -> dict | None:
    """`anyOf` of plain typed schemas as one schema with a list of types
    (`{type: [integer, null], minimum: 1}`), or None where they do not merge."""
    if not all(set(m) <= TYPE_ONLY and isinstance(m.get("type"), str)
               for m in members):
        return None
    merged: dict = {"type": [m["type"] for m in members]}
    for member in members:
        for key, value in member.items():
            if key != "type" and merged.setdefault(key, value) != value:
                return None
    return merged


def _clean(node: Any, defs: dict) -> Any:
    """One schema node with pydantic's extras taken out and local classes inlined."""
    if not isinstance(node, dict):
        return node
    node = dict(node)
    ref = node.pop("$ref", None)
    if ref is not None:
        name = ref.rsplit("/", 1)[1]
        if name not in SHARED:  # the class inlined, the field's own keys over it
            return _ordered({**_clean(defs[name], defs), **_clean(node, defs)})
        node["$ref"] = f"#/$defs/{SHARED[name]}"
    node.pop("title", None)
    if "description" in node:
        node["description"] = " ".join(node["description"].split())
    if "enum" in node:
        node.pop("type", None)
    if node.get("additionalProperties") is True:
        del node["additionalProperties"]
    if "patternProperties" in node:  # a mapping with a pattern on its names
        ((pattern, value),) = node.pop("patternProperties").items()
        node["propertyNames"] = {"pattern": pattern}
        node["additionalProperties"] = value
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            node[key] = _clean(node[key], defs)
    if "properties" in node:
        node["properties"] = {k: _clean(v, defs) for k, v in node["properties"].items()}
    if "anyOf" in node:
        members = [_clean(m, defs) for m in node.pop("anyOf")]
        merged = _merge_types(members)
        if merged is None:
            node["anyOf"] = members
        else:
            node.update(merged)
    return _ordered(node)


def _ordered(node: dict) -> dict:
    first = {k: node[k] for k in ORDER if k in node}
    return {**first, **{k: v for k, v in node.items() if k not in first}}


def generate() -> dict:
    """The config's JSON Schema, as a mapping."""
    from phrasenmt.config_model import Experiment

    raw = Experiment.model_json_schema(by_alias=True)
    defs = raw.pop("$defs")
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema",
              **_clean(raw, defs)}
    schema["$defs"] = {SHARED[name]: _clean(defs[name], defs) for name in SHARED}
    return schema


def schema_text() -> str:
    """The schema file's text as `main` writes it."""
    return HEADER + yaml.safe_dump(generate(), sort_keys=False, allow_unicode=True,
                                   width=10_000, default_flow_style=None)


def stale(path: Path = SCHEMA) -> str | None:
    """Why the committed schema is not what the model generates now, or None."""
    if not path.is_file() or path.read_text(encoding="utf-8") != schema_text():
        return (f"{path} differs from the config model: regenerate it with "
                f"`{REGENERATE}` and commit it")
    return None


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(prog="python -m phrasenmt.config_schema",
                            description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=output_file, required=True,
                        help="YAML file to write (schemas/config.schema.yaml)")
    args = parser.parse_args(argv)
    from phrasenmt.io import write_lines
    write_lines(args.out, schema_text().splitlines())


if __name__ == "__main__":
    from phrasenmt.io import run_cli
    run_cli(main)
