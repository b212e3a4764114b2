"""The example override files of the documentation dry-run as the tutorial
uses them: on a user's own corpus in the folder Snakemake runs in."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO, snakemake

EXAMPLES = sorted((REPO / "configs" / "examples").glob("*.yaml"))


def _write_local_files(config: dict, folder: Path) -> list[str]:
    """Create every file the example's local datasets name; return the datasets."""
    names = []
    for name, dataset in config["datasets"].items():
        if dataset.get("source") != "local":
            continue
        names.append(name)
        local = dataset["local"]
        pairs = [local["train"], local["dev"], *local["test"].values()]
        for pair in pairs:
            for side, text in (("src", "the fire brigade comes ."),
                               ("tgt", "die feuerwehr kommt .")):
                path = folder / pair[side]
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text + "\n", encoding="utf-8")
    return names


def test_there_is_an_example():
    assert [p.name for p in EXAMPLES] == ["own_corpus.yaml"]


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_dry_runs_on_its_own_files(example: Path, tmp_path: Path):
    config = yaml.safe_load(example.read_text(encoding="utf-8"))
    datasets = _write_local_files(config, tmp_path)
    assert datasets == config["run_datasets"]
    result = snakemake("-n", "--snakefile", str(REPO / "Snakefile"), "--directory",
                       str(tmp_path), "--configfile", str(example))
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-3000:]
    for dataset in datasets:
        for model in config["models"]:
            assert f"results/{dataset}/models/{model}/seed1/summary.json" in out, model
        assert f"results/{dataset}/report/results.md" in out
        assert f"results/{dataset}/report/claims.md" in out
    assert "synthetic_en_de" not in out and "synthetic_de_en" not in out
