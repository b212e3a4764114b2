"""The generated configuration reference names every config key, training key,
architecture and preset with each key's type, bound and default, and refuses a
config field without a description."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Annotated, Literal

import pytest
import yaml
from pydantic import Field

from phrasenmt import docs_reference
from phrasenmt.models import MODELS, PRESETS
from phrasenmt.training.config import TrainConfig

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def page() -> str:
    return docs_reference.render()


def _schema_keys(node, prefix=""):
    """Every dotted key under `properties`, `<name>` for a named mapping."""
    if not isinstance(node, dict):
        return
    for key, child in node.get("properties", {}).items():
        yield prefix + key
        yield from _schema_keys(child, f"{prefix}{key}.")


def _sections(page: str) -> dict[str, str]:
    parts = re.split(r"^### `([a-z0-9_]+)`$", page, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_every_top_level_and_nested_schema_key_is_on_the_page(page):
    schema = yaml.safe_load((REPO / "schemas" / "config.schema.yaml").read_text())
    keys = list(_schema_keys(schema))
    for name, definition in schema["$defs"].items():
        keys += [f"{name}:{k}" for k in _schema_keys(definition)]
    assert len(keys) > 80
    for key in keys:
        leaf = key.split(":")[-1]
        assert re.search(rf"`[^`]*\b{re.escape(leaf)}`", page), f"{key} not on the page"


def test_every_key_config_yaml_sets_is_on_the_page(page):
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    named = ("datasets", "models", "sweeps", "contrastive", "test")
    opaque = ("model", "train", "rates", "baseline", "antecedent_distance")  # values, not schema keys

    def walk(node, prefix, parent):
        for key, value in node.items():
            if parent in named:
                dotted = f"{prefix}<name>"
            else:
                dotted = f"{prefix}{key}"
                yield dotted
            if isinstance(value, dict) and (parent in named or key not in opaque):
                yield from walk(value, dotted + ".", "" if parent in named else key)

    keys = list(walk(config, "", ""))
    assert "models.<name>.arch" in keys and "decode.beam" in keys
    for key in keys:
        assert f"`{key}`" in page, f"config.yaml key {key} not on the page"


def test_every_training_key_architecture_and_preset_is_on_the_page(page):
    for field in dataclasses.fields(TrainConfig):
        assert f"| `{field.name}` |" in page
    sections = _sections(page)
    assert set(sections) == set(MODELS)
    for arch, cls in MODELS.items():
        for field in dataclasses.fields(cls.config_class):
            assert f"| `{field.name}` |" in sections[arch], f"{arch}.{field.name}"
        for preset in PRESETS[arch]:
            assert f"| `{preset}` |" in sections[arch], f"preset {arch}/{preset}"


def test_transformer_tiny_row_gives_its_sizes(page):
    tiny = next(line for line in _sections(page)["transformer"].splitlines()
                if line.startswith("| `tiny` |"))
    assert "`model.dropout=0`" in tiny and "`train.max_steps=500`" in tiny
    assert "d_model 128" in tiny and "encoder_layers 2" in tiny
    assert re.search(r"\| \d+\.\d\d \|", tiny)  # its parameter count


def test_a_field_without_a_description_stops_the_generator():
    @dataclasses.dataclass
    class Bare:
        width: Annotated[int, Field(ge=1, description="documented")] = 4
        depth: int = 2  # a comment is no description

    with pytest.raises(ValueError, match="Bare.depth: no description"):
        docs_reference.dataclass_rows(Bare)


def test_a_row_gives_the_type_bound_and_description_of_the_annotation():
    @dataclasses.dataclass
    class Declared:
        rate: Annotated[float, Field(ge=0, lt=1, description="a share")] = 0.5
        cell: Annotated[Literal["gru", "lstm"], Field(description="the cell")] = "gru"

    assert docs_reference.dataclass_rows(Declared) == [
        ("rate", "float", "in [0, 1)", "`0.5`", "a share"),
        ("cell", "one of `gru`, `lstm`", "", "`gru`", "the cell")]


def test_the_page_lists_each_model_and_training_key_with_its_bound(page):
    """The bound shown is the one validation holds a value to."""
    sections = _sections(page)
    assert "| `dropout` | float | in [0, 1) | `0.1` |" in sections["transformer"]
    assert "| `n_heads` | int | >= 1 | `4` |" in sections["transformer"]
    assert "| `cell` | one of `gru`, `lstm` |  | `gru` |" in sections["npmt"]
    assert "| `lr` | float | > 0 | `0.0005` |" in page


def test_make_docs_counts_the_builds_warnings():
    """`mkdocs build --quiet` drops warnings before --strict counts them (a broken
    anchor then passes), so `make docs` builds strictly and not quietly."""
    recipe = re.search(r"^docs:.*\n((?:\t.*\n)+)", (REPO / "Makefile").read_text(),
                       re.MULTILINE)
    assert recipe, "Makefile has no docs target"
    commands = [line for line in recipe.group(1).splitlines() if "mkdocs" in line]
    assert commands and all("--strict" in c for c in commands)
    assert not any(re.search(r"\s(--quiet|-q)\b", c) for c in commands)


def test_the_committed_page_is_what_the_code_generates():
    """docs/reference/configuration.md is committed so that GitHub shows it;
    `make docs` and this test stop when it drifts from the schema or the code."""
    assert docs_reference.stale() is None, docs_reference.stale()


def test_a_stale_page_names_the_command_that_regenerates_it(tmp_path):
    page = tmp_path / "configuration.md"
    page.write_text(docs_reference.page_text().replace("`transformer`", "`x`", 1))
    assert docs_reference.REGENERATE in docs_reference.stale(page)
    assert "missing" in docs_reference.stale(tmp_path / "absent.md")
