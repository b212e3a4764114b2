"""A renamed config key stops validation with one line naming its new name."""

from __future__ import annotations

import pytest
import yaml

from phrasenmt.config import RENAMED, validate_config
from phrasenmt.io import InputError
from tests.conftest import REPO, TEST_CONFIG


def _default_config() -> dict:
    return yaml.safe_load(TEST_CONFIG.read_text(encoding="utf-8"))


def test_old_significance_key_names_the_new_one():
    config = _default_config()
    config["evaluate"]["bootstrap"] = config["evaluate"].pop("significance_trials")
    with pytest.raises(InputError) as err:
        validate_config(config)
    message = str(err.value)
    assert "evaluate.bootstrap" in message
    assert "renamed to evaluate.significance_trials" in message
    assert "\n" not in message


def test_new_key_validates_and_defaults_to_1000_trials():
    config = _default_config()
    config["evaluate"].pop("significance_trials")
    assert validate_config(config)["evaluate"]["significance_trials"] == 1000


def test_every_renamed_key_points_at_a_key_of_the_schema():
    schema = yaml.safe_load((REPO / "schemas" / "config.schema.yaml").read_text())
    for old, (new, _) in RENAMED.items():
        section, key = new.split(".")
        assert key in schema["properties"][section]["properties"], new
        assert old.split(".")[1] not in schema["properties"][section]["properties"]
