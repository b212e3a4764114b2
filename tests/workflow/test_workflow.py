"""Workflow-level checks: lint, dry runs of every config, config errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO, snakemake

CONFIGS = sorted((REPO / "configs").glob("*.yaml"))
# A job each config's dry run must plan: a download for the real datasets; the sweep
# config builds only synthetic data, so its sign is a window size the sweep derives.
EXPECTED_JOB = {"npmt_window_sweep": "npmt_window9"}


def test_lint_is_clean():
    result = snakemake("--lint")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Congratulations" in result.stdout + result.stderr


def test_dry_run_default_config():
    result = snakemake("-n", "--forceall", "--quiet", "rules")
    assert result.returncode == 0, result.stderr
    for rule in ("synthetic", "learn_bpe", "train", "translate", "bleu",
                 "results_table", "length_figure"):
        assert rule in result.stdout + result.stderr


@pytest.mark.parametrize("configfile", CONFIGS, ids=lambda p: p.stem)
def test_dry_run_every_config(configfile: Path):
    result = snakemake("-n", "--configfile", str(configfile))
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert EXPECTED_JOB.get(configfile.stem, "download") in result.stdout


@pytest.mark.parametrize("override, message", [
    ("seed=abc", "seed: 'abc' is not of type 'integer'"),
    ("colour=1", "colour: unknown key"),
    ("baseline=nope", "baseline: 'nope' is not one of the models"),
])
def test_bad_config_gives_one_clear_line(override: str, message: str):
    result = snakemake("-n", "--config", override)
    assert result.returncode != 0
    assert f"invalid configuration: {message}" in result.stdout + result.stderr
