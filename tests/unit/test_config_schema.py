"""The committed JSON Schema is what the typed config model generates, and the
model's names of architectures and presets are the registered ones."""

from __future__ import annotations

import jsonschema

from phrasenmt import config_schema


def test_committed_schema_is_the_generated_one():
    assert config_schema.stale() is None


def test_a_stale_schema_is_named_with_the_command(tmp_path):
    path = tmp_path / "config.schema.yaml"
    path.write_text(config_schema.schema_text().replace("minimum: 1", "minimum: 2"))
    message = config_schema.stale(path)
    assert message is not None and config_schema.REGENERATE in message


def test_generated_schema_is_a_valid_draft_2020_12_schema():
    jsonschema.Draft202012Validator.check_schema(config_schema.generate())


def test_generator_writes_the_file(tmp_path):
    out = tmp_path / "schema.yaml"
    config_schema.main(["--out", str(out)])
    assert out.read_text(encoding="utf-8") == config_schema.schema_text()


def test_archs_and_presets_are_the_registered_ones():
    from phrasenmt.config_entries import ARCHS, PRESETS
    from phrasenmt.models import MODELS
    from phrasenmt.models import PRESETS as REGISTERED

    # the package's own archs: a test module may register one of its own
    own = sorted(a for a, cls in MODELS.items() if cls.__module__.startswith("phrasenmt."))
    assert sorted(ARCHS) == own
    assert set(PRESETS) == {p for a in own for p in REGISTERED[a]}
