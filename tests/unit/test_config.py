"""Config validation: defaults filled in, one clear line naming the bad key."""

from __future__ import annotations

import copy

import pytest
import yaml

from phrasenmt.config import load_config, validate_config
from phrasenmt.io import InputError
from tests.conftest import REPO, TEST_CONFIG


@pytest.fixture
def config() -> dict:
    with open(TEST_CONFIG, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def test_defaults_are_filled(config):
    del config["decode"]
    validate_config(config)
    assert config["decode"]["beam"] == 4
    assert config["datasets"]["synthetic_en_de"]["lowercase"] is False
    assert config["models"]["transformer"]["train"] == {}


def test_defaults_are_not_shared_between_entries(config):
    config["models"]["other"] = {"arch": "transformer", "preset": "tiny"}
    validate_config(config)
    config["models"]["other"]["train"]["lr"] = 1
    assert config["models"]["transformer"]["train"] == {}


@pytest.mark.parametrize("mutate, expected", [
    (lambda c: c["datasets"]["synthetic_en_de"]["bpe"].update(merges="many"),
     "datasets.synthetic_en_de.bpe.merges: 'many' is not of type 'integer'"),
    (lambda c: c["datasets"]["synthetic_en_de"]["bpe"].update(mergez=3),
     "datasets.synthetic_en_de.bpe.mergez: unknown key"),
    (lambda c: c["models"]["transformer"].update(arch="lstmx"),
     "models.transformer.arch: 'lstmx' is not one of"),
    (lambda c: c["datasets"]["synthetic_en_de"].update(source="ftp"),
     "datasets.synthetic_en_de.source: 'ftp' is not one of synthetic, download, local"),
    (lambda c: c.update(baseline="nope"), "baseline: 'nope' is not one of the models"),
    (lambda c: c["models"]["transformer"].update(datasets=["wmt99"]),
     "models.transformer.datasets: unknown dataset 'wmt99'"),
    (lambda c: c.update(families={"xu": ["transformer", "pr_sum"]}),
     "families.xu: 'pr_sum' is not one of the models"),
    (lambda c: c.update(families={"xu": []}), "families.xu:"),
    # an entry's own key written straight into the mapping of named entries
    (lambda c: c.update(models={"arch": "transformer"}),
     ("models.arch: 'transformer' is not of type 'object'; models maps a name to "
     "each entry, and arch is a key of an entry: models: {NAME: {arch: ...}}")),
    (lambda c: c["datasets"]["synthetic_en_de"].update(
        contrastive={"dev_fraction": 0.5}),
     ("datasets.synthetic_en_de.contrastive.dev_fraction: 0.5 is not of type "
     "'object'; contrastive maps a name to each entry, and dev_fraction is a key of "
     "an entry: datasets.synthetic_en_de.contrastive: {NAME: {dev_fraction: ...}}")),
])
def test_errors_name_the_key(config, mutate, expected):
    bad = copy.deepcopy(config)
    mutate(bad)
    with pytest.raises(InputError) as err:
        validate_config(bad, "config.yaml")
    assert str(err.value).startswith("config.yaml: ")
    assert expected in str(err.value)
    assert "\n" not in str(err.value)


def test_a_section_that_is_no_mapping_gets_no_entry_hint(config):
    config["decode"] = 3
    with pytest.raises(InputError) as err:
        validate_config(config, "config.yaml")
    assert str(err.value) == "config.yaml: decode: 3 is not of type 'object'"


def test_download_dataset_needs_a_name(config):
    config["datasets"]["x"] = {"source": "download", "src": "en", "tgt": "de"}
    with pytest.raises(InputError, match=r"datasets\.x\.name: required"):
        validate_config(config)


def test_yaml_syntax_error_names_file_and_line(tmp_path):
    bad = tmp_path / "c.yaml"
    bad.write_text("seed: 1\ndatasets: [\n")
    with pytest.raises(InputError, match=r"c\.yaml:\d+: invalid YAML"):
        load_config(bad)


def test_every_shipped_config_validates():
    load_config(REPO / "config.yaml")
    for path in (REPO / "configs").glob("*.yaml"):
        with open(REPO / "config.yaml", encoding="utf-8") as fh:
            base = yaml.safe_load(fh)
        with open(path, encoding="utf-8") as fh:
            _deep_update(base, yaml.safe_load(fh))
        validate_config(base, str(path))


def _deep_update(base: dict, override: dict) -> None:
    """Merge as Snakemake merges --configfile overrides."""
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            _deep_update(base[key], value)
        else:
            base[key] = value


@pytest.mark.parametrize("text, value", [
    ("1e-05", 1e-05), ("1.0e-5", 1e-05), ("1e-5", 1e-05), ("5e3", 5000.0),
    ("-2E+3", -2000.0), (".5e-2", 0.005), ("3", 3), ("1.5", 1.5), ("'1e-5'", "1e-5"),
    ("1e", "1e"),
])
def test_yaml_numbers_are_read_as_yaml_1_2_and_json_read_them(text, value):
    from phrasenmt.config import load_yaml

    loaded = load_yaml(f"lr: {text}\n", "x.yaml")["lr"]
    assert loaded == value and type(loaded) is type(value)


def test_a_spec_round_trips_a_small_learning_rate(tmp_path):
    from phrasenmt.training.spec import load_spec, resolve_spec

    for spec in ('{"train": {"lr": 1e-5, "adam_eps": 1e-09}}',
                 str(tmp_path / "spec.yaml")):
        # as Python prints the numbers (str(1e-05)): YAML 1.1 strings
        (tmp_path / "spec.yaml").write_text("train: {lr: 1e-05, adam_eps: 1e-09}\n")
        train = resolve_spec(*load_spec(spec)).train
        assert (train.lr, train.adam_eps) == (1e-5, 1e-9)


def test_numbers_snakemake_read_as_text_are_restored():
    from phrasenmt.config import restore_numbers

    config = {"models": {"t": {"train": {"lr": "1e-5", "name": "1e-5x"}}},
              "other": "2e3", "sweeps": {"lr": {"values": [0.001, "1e-5"]}}}
    parsed = {"models": {"t": {"train": {"lr": 1e-5, "name": "1e-5x"}}},
              "other": 7.0,  # overridden on the command line: left alone
              "sweeps": {"lr": {"values": [0.001, 1e-5]}}}
    restore_numbers(config, parsed)
    assert config == {"models": {"t": {"train": {"lr": 1e-5, "name": "1e-5x"}}},
                      "other": "2e3", "sweeps": {"lr": {"values": [0.001, 1e-5]}}}
