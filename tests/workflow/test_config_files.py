"""A config.yaml that is not a YAML mapping stops the dry run with one line
naming the file and line (Snakemake's own message names neither)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO, snakemake


@pytest.mark.parametrize("text, message", [
    ("- a\n- b\n", ("invalid configuration: config.yaml: the file holds a list; a "
     "config is a mapping of keys")),
    ("seed: 1\ndatasets:\n\tx: 1\n", ("invalid configuration: config.yaml:3: a tab "
     "character in indentation; YAML indents with spaces")),
])
def test_config_that_is_not_a_mapping_names_file_and_line(tmp_path: Path, text: str,
                                                          message: str):
    (tmp_path / "config.yaml").write_text(text, encoding="utf-8")
    result = snakemake("-n", "--snakefile", str(REPO / "Snakefile"), "--directory",
                       str(tmp_path))
    out = result.stdout + result.stderr
    assert result.returncode != 0
    assert message in out, out[-2000:]
    assert "Traceback" not in out
    assert_one_line(out, message)


def assert_one_line(out: str, message: str) -> None:
    """The message is the only line the start-up adds to Snakemake's profile
    line: no frame of the Snakefile, rules/common.smk or the package."""
    snakemake_s = ("Using workflow specific profile", "Config file config.yaml is extended")
    lines = [line for line in out.splitlines() if line.strip()
             and not line.startswith(snakemake_s)]
    assert len(lines) == 1 and message in lines[0], out[-2000:]
    assert 'File "' not in out and "WorkflowError" not in out, out[-2000:]


def test_a_bad_config_value_is_one_line(tmp_path: Path):
    result = snakemake("-n", "--config", "seed=abc")
    out = result.stdout + result.stderr
    assert result.returncode == 1, out[-2000:]
    assert_one_line(out, "invalid configuration: seed: 'abc' is not of type 'integer'")


def test_config_values_reach_the_rules_as_numbers():
    """`--config` values nested in a mapping are text to Snakemake ('1e-5', '5');
    the workflow reads them as a config file's (rules/common.smk passes them)."""
    result = snakemake("-n", "-p", "--forceall", "--config",
                       "models={transformer: {train: {lr: 1e-5, max_steps: 40}}}",
                       "decode={beam: 5.0}", "evaluate={significance_trials: 1e3}")
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-2000:]
    assert '"train": {"lr": 1e-05, "max_steps": 40}' in out
    assert "--beam 5 " in out and "--trials 1000 " in out
