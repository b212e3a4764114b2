"""phrasenmt.config_check: a config file checked as the start-up checks it,
with the file and line that Snakemake's command line does not name."""

from __future__ import annotations

import pytest

from phrasenmt import config_check
from phrasenmt.io import InputError
from tests.conftest import REPO

BASE = REPO / "config.yaml"


def test_a_file_that_is_no_yaml_names_its_line(tmp_path):
    path = tmp_path / "my.yaml"
    path.write_text("models:\n  transformer:\n    train: {lr: 0.1\n")
    with pytest.raises(InputError, match=r"my.yaml:4: invalid YAML: expected ','"):
        config_check.check([path], BASE)
    path.write_text("models:\n\ttransformer: 1\n")
    with pytest.raises(InputError, match="my.yaml:2: a tab character in indentation"):
        config_check.check([path], BASE)
    path.write_text("- a\n- b\n")
    with pytest.raises(InputError, match="my.yaml: the file holds a list"):
        config_check.check([path], BASE)


def test_files_merge_in_order_and_every_start_up_check_runs(tmp_path):
    first, second = tmp_path / "first.yaml", tmp_path / "second.yaml"
    first.write_text("models:\n  transformer:\n    train: {lr: -1}\n")
    second.write_text("models:\n  transformer:\n    train: {lr: 0.001}\n")
    with pytest.raises(InputError, match=r"models.transformer.train.lr: must be > 0"):
        config_check.check([second, first], BASE)
    line = config_check.check([first, second], BASE)
    assert line.startswith(f"{BASE} + {first} + {second}: the start-up's checks pass (")
    # one of the start-up's last checks: a control that differs from its model
    second.write_text("models:\n  ctx_transformer:\n    seeds: [7]\n")
    with pytest.raises(InputError, match="models.ctx_transformer_random: differs from "
                       "its model ctx_transformer in seeds"):
        config_check.check([second], BASE)


def test_without_the_workflow_config_it_says_where_to_run(tmp_path):
    with pytest.raises(InputError, match="run this in the folder Snakemake runs in"):
        config_check.check([], tmp_path / "config.yaml")
