"""The configuration reference page, generated from the config model and the code.

Reads the typed config model `phrasenmt.config_model` through the schema it
generates (every workflow config key with its type, default and description;
`schemas/config.schema.yaml` is that schema), `TrainConfig` and each
registered architecture's config dataclass (each field's type, bound and
description from its annotation, the declarations `phrasenmt.fields` reads and
validation checks) and the registered presets (what each sets, and the model's
size), and writes one Markdown page.
The page is committed as docs/reference/configuration.md, so that GitHub
shows it too; the documentation build (an MkDocs hook) and a unit test stop
when it differs from what the code generates, so it cannot drift from the
code, and a field without a description stops the build.

    python -m phrasenmt.docs_reference --out docs/reference/configuration.md
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from pathlib import Path
from typing import Any

from phrasenmt import fields
from phrasenmt.cli import ArgumentParser, output_file

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "reference" / "configuration.md"  # the committed page
REGENERATE = "python -m phrasenmt.docs_reference --out docs/reference/configuration.md"
VOCAB = 8000  # source and target vocabulary size used for the parameter counts
SIZE_FIELDS = ("d_model", "d_ff", "n_heads", "encoder_layers", "decoder_layers",
               "embed_size", "hidden_size", "layers", "encoder_hidden",
               "decoder_hidden", "embed_dim", "max_segment_len", "context_size")


def _cell(text: Any) -> str:
    """Text safe inside a Markdown table cell (`<` outside code is not a tag)."""
    parts = str(text).replace("|", "\\|").replace("\n", " ").split("`")
    return "`".join(p if i % 2 else p.replace("<", "&lt;")
                    for i, p in enumerate(parts))


def _code(value: Any) -> str:
    """A value as inline code, JSON-like (null, true, lists)."""
    if value is None:
        return "`null`"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, str):
        return f"`{value!r}`" if value == "" else f"`{value}`"
    return f"`{_cell(value)}`"


def _schema_type(node: dict) -> str:
    if "enum" in node:
        return "one of " + ", ".join(_code(v) for v in node["enum"])
    kind = node.get("type", "")
    kind = " or ".join(kind) if isinstance(kind, list) else kind
    if kind == "array" and isinstance(node.get("items"), dict):
        kind = f"list of {_schema_type(node['items'])}"
    if "anyOf" in node:
        kind = " or ".join(_schema_type(n) for n in node["anyOf"])
    limits = [f"≥ {node['minimum']}" if "minimum" in node else "",
              f"> {node['exclusiveMinimum']}" if "exclusiveMinimum" in node else "",
              f"≤ {node['maximum']}" if "maximum" in node else ""]
    return " ".join([kind or "any", *[x for x in limits if x]])


def schema_rows(schema: dict) -> list[tuple[str, str, str, str]]:
    """(dotted key, type, default, description) for every key of the schema."""
    defs = schema.get("$defs", {})
    rows: list[tuple[str, str, str, str]] = []

    def resolve(node: dict) -> dict:
        ref = node.get("$ref")
        return defs[ref.rsplit("/", 1)[1]] if ref else node

    def walk(node: dict, prefix: str) -> None:
        node = resolve(node)
        for key, child in node.get("properties", {}).items():
            child = resolve(child)
            name = f"{prefix}{key}"
            default = _code(child["default"]) if "default" in child else ""
            rows.append((f"`{name}`", _schema_type(child), default,
                         child.get("description", "")))
            walk(child, name + ".")
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and (extra.get("$ref") or "properties" in extra):
            walk(extra, f"{prefix}<name>.")

    walk(schema, "")
    return rows


def dataclass_rows(cls: type) -> list[tuple[str, str, str, str, str]]:
    """(field, type, bound, default, description) of a config dataclass, read
    from each field's annotation (`phrasenmt.fields`); a field without a
    description raises ValueError (the reference must say what every key does)."""
    rows = []
    for field in dataclasses.fields(cls):
        info = fields.field_info(cls, field.name)
        if not info.description:
            raise ValueError(f"{cls.__module__}.{cls.__name__}.{field.name}: no "
                             "description; declare it in the field's annotation, "
                             "Field(description=...)")
        default = field.default
        if default is dataclasses.MISSING:
            default = field.default_factory()  # type: ignore[misc]
        values = fields.choices(info)
        kind = ("one of " + ", ".join(_code(v) for v in values) if values is not None
                else fields.type_name(info))
        rows.append((field.name, kind, fields.bounds_text(info), _code(default),
                     info.description))
    return rows


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def _changed(before: Any, after: Any, prefix: str) -> list[str]:
    out = []
    for field in dataclasses.fields(after):
        old, new = getattr(before, field.name), getattr(after, field.name)
        if old != new:
            value = f"{new:.3g}" if isinstance(new, float) else new
            out.append(f"{prefix}.{field.name}={value}")
    return out


def _parameters(arch: str, model_cfg: Any) -> str:
    """Parameter count (millions) at VOCAB words each side, built on `meta`."""
    import torch

    from phrasenmt.models import build_model

    cfg = dataclasses.replace(model_cfg)
    for name in ("src_vocab_size", "tgt_vocab_size"):
        if hasattr(cfg, name):
            setattr(cfg, name, VOCAB)
    try:
        with torch.device("meta"):
            model = build_model(arch, cfg)
    except Exception:  # noqa: BLE001  (models that need files, e.g. output tables)
        return "needs its tables"
    return f"{sum(p.numel() for p in model.parameters()) / 1e6:.2f}"


def preset_rows(arch: str) -> list[tuple[str, str, str, str, str]]:
    """(preset, what it is, size, parameters, keys it sets) per preset of arch."""
    from phrasenmt.models import PRESETS, get_model_class
    from phrasenmt.training.config import TrainConfig

    config_class = get_model_class(arch).config_class
    rows = []
    for name, preset in sorted(PRESETS[arch].items()):
        model_cfg, train_cfg = config_class(), TrainConfig()
        preset(model_cfg, train_cfg)
        sets = (_changed(config_class(), model_cfg, "model")
                + _changed(TrainConfig(), train_cfg, "train"))
        doc = (inspect.getdoc(preset) or "").split("\n")[0]
        size = ", ".join(f"{f} {getattr(model_cfg, f)}" for f in SIZE_FIELDS
                         if hasattr(model_cfg, f))
        rows.append((f"`{name}`", doc, size, _parameters(arch, model_cfg),
                     ", ".join(f"`{s}`" for s in sets) or "(the defaults)"))
    return rows


@functools.cache
def render() -> str:
    """The whole reference page as Markdown (made once per process: it builds
    every preset of every model, on `meta`, to count its parameters)."""
    from phrasenmt.config_schema import generate
    from phrasenmt.models import MODELS
    from phrasenmt.training.config import RESUMABLE_FIELDS, TrainConfig

    schema = generate()
    out = [
        "# Configuration reference",
        "",
        ("Generated by `python -m phrasenmt.docs_reference` from the config model "
        "`phrasenmt.config_model` (the source of `schemas/config.schema.yaml`), "
        "`phrasenmt.training.config.TrainConfig` and "
        "the config dataclass and presets of every registered architecture; the "
        "documentation build and the tests stop when this page differs from what "
        "the code generates, so it always matches the code. How "
        "the pieces fit together is in the [configuration guide](../configuration.md)."),
        "",
        "## Workflow config keys",
        "",
        ("Keys of `config.yaml` and of override files given with `--configfile`. "
        "`<name>` stands for a name you choose (a dataset, model, sweep or "
        "contrastive set). An unknown key, a wrong type or a value out of range "
        "stops `snakemake` at start-up with one line naming the key."),
        "",
        *_table(("key", "type", "default", "description"), schema_rows(schema)),
        "",
        "## Training keys (`models.<name>.train`)",
        "",
        ("Fields of `TrainConfig`, with the bound start-up validation and "
        "`phrasenmt.train --spec` hold each value to (a value outside it stops the "
        "run with one line naming the key). The default is the field's; the preset "
        "sets some of them; the model entry's "
        "`train:` overrides the preset. **Resumable** keys may change when a "
        "stopped run is resumed; changing any other key makes the run refuse to "
        "resume (it names the key that changed). `max_steps` is not resumable under "
        "`lr_schedule: linear`, which decays to 0 at it, nor `max_minutes` under "
        "`schedule: time`, whose warm-up and decay are fractions of it."),
        "",
        *_table(("key", "type", "bound", "default", "resumable", "description"),
                [(f"`{k}`", t, b, d, "yes" if k in RESUMABLE_FIELDS else "", c)
                 for k, t, b, d, c in dataclass_rows(TrainConfig)]),
        "",
        "## Architectures, their `model:` keys and presets",
        "",
        (f"Parameter counts are for a vocabulary of {VOCAB:,} subwords on each side "
        "(the embeddings and output layer grow with the vocabulary); models that "
        "read fastText output tables are sized by those tables. The `model:` keys' "
        "defaults are the config class's; a preset row lists the keys it sets that "
        "differ from them, and the entry's `model:` overrides the preset. A value "
        "outside a key's bound stops start-up with one line naming "
        "`models.<name>.model.<key>`."),
        "",
    ]
    for arch in sorted(MODELS):
        cls = MODELS[arch].config_class
        out += [f"### `{arch}`", "",
                f"`model:` keys (`{cls.__module__}.{cls.__name__}`):", "",
                *_table(("key", "type", "bound", "default", "description"),
                        [(f"`{k}`", t, b, d, c)
                         for k, t, b, d, c in dataclass_rows(cls)]),
                "", "Presets:", "",
                *_table(("preset", "what", "size", "parameters (M)", "sets"),
                        preset_rows(arch)),
                ""]
    return "\n".join(out)


def page_text() -> str:
    """The page as `main` writes it (one newline after every line)."""
    return "".join(line + "\n" for line in render().splitlines())


def stale(path: Path = PAGE) -> str | None:
    """Why the committed page is not what the code generates now, or None."""
    if not path.is_file():
        return f"{path} is missing: generate it with `{REGENERATE}`"
    if path.read_text(encoding="utf-8") != page_text():
        return (f"{path} is out of date with the schema or the code: "
                f"regenerate it with `{REGENERATE}` and commit it")
    return None


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(prog="python -m phrasenmt.docs_reference",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=output_file, required=True,
                        help="Markdown file to write")
    args = parser.parse_args(argv)
    from phrasenmt.io import write_lines
    write_lines(args.out, render().splitlines())


if __name__ == "__main__":
    from phrasenmt.io import run_cli
    run_cli(main)
