"""Several training seeds end to end: seeds [1, 2, 3] on a tiny dataset."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO, snakemake

pytestmark = pytest.mark.slow

TRAIN = {"max_steps": 12, "valid_interval": 6, "save_interval": 6, "average_last": 2}
SIZES = {"d_model": 32, "d_ff": 64, "n_heads": 2}
TINY = {
    "seed": 3,
    "seeds": [1, 2, 3],
    "run_datasets": ["tiny"],
    "datasets": {"tiny": {
        "source": "synthetic", "src": "en", "tgt": "de", "tokenize": False,
        "synthetic": {"train_size": 600, "dev_size": 40, "test_size": 60},
        "bpe": {"merges": 300},
    }},
    "models": {
        "transformer": {"arch": "transformer", "preset": "tiny", "model": SIZES,
                        "train": TRAIN},
        "transformer_prenorm": {"arch": "transformer", "preset": "tiny",
                                "model": {**SIZES, "pre_norm": True},
                                "train": {**TRAIN, "max_steps": 18}},
    },
    "baseline": "transformer",
    "decode": {"beam": 2},
    "evaluate": {"significance_trials": 50},
    "embeddings": {"dim": 16, "epoch": 1},
}
SEEDS = [1, 2, 3]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """Run the tiny three-seed configuration once for all tests of this module."""
    workdir = tmp_path_factory.mktemp("seeds")
    (workdir / "config.yaml").write_text(yaml.safe_dump(TINY))
    result = snakemake("--snakefile", str(REPO / "Snakefile"), "--directory",
                       str(workdir), "--configfile", str(workdir / "config.yaml"),
                       "--cores", "2")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    return workdir


def test_every_seed_trains_translates_and_scores(run_dir: Path):
    root = run_dir / "results/tiny"
    for model in TINY["models"]:
        for seed in SEEDS:
            run = root / f"models/{model}/seed{seed}"
            assert (run / "averaged.pt").is_file() and (run / "summary.json").is_file()
            log = run_dir / f"results/logs/train/tiny.{model}.seed{seed}.log"
            assert log.is_file()
            assert (root / f"translations/{model}/seed{seed}/test.txt").is_file()
            assert json.loads((root / f"eval/{model}/seed{seed}/test.json"
                               ).read_text())["system"] == model
    hyps = {s: (root / f"translations/transformer/seed{s}/test.tok").read_text()
            for s in SEEDS}
    assert len(set(hyps.values())) > 1  # the seeds are different runs


def test_table_shows_three_seeds_mean_sd_and_an_all_seed_p(run_dir: Path):
    root = run_dir / "results/tiny"
    with open(root / "report/results.csv", encoding="utf-8") as fh:
        rows = {r["model"]: r for r in csv.DictReader(fh)}
    agg = json.loads((root / "eval/transformer_prenorm/test.json").read_text())
    assert agg["seeds"] == SEEDS and agg["n_baseline_seeds"] == 3
    row = rows["transformer_prenorm"]
    scores = [float(s) for s in row["bleu_seeds"].split(";")]
    assert row["seeds"] == "1;2;3" and scores == pytest.approx(agg["scores"],
                                                               abs=1e-4)
    per_seed = [json.loads((root / f"eval/transformer_prenorm/seed{s}/test.json"
                            ).read_text())["bleu"]["score"] for s in SEEDS]
    assert scores == pytest.approx(per_seed, abs=1e-4)
    assert float(row["bleu"]) == pytest.approx(sum(scores) / 3, abs=1e-4)
    assert float(row["bleu_sd"]) == pytest.approx(agg["sd"], abs=1e-4)
    assert float(row["p_value"]) == pytest.approx(agg["p"])
    md = (root / "report/results.md").read_text()
    line = next(x for x in md.splitlines() if x.startswith("| transformer_prenorm"))
    assert " ± " in line and line.count(": ") == 3  # mean ± sd, three seeds
    assert not any("(1 seed)" in x for x in md.splitlines() if x.startswith("|"))


def test_figures_read_the_first_seed(run_dir: Path):
    assert (run_dir / "results/tiny/report/length_test.svg").stat().st_size > 0
    assert (run_dir / "results/tiny/lingeval/scores/transformer/seed1.txt").is_file()
    # the agreement analysis reads one run per model (its first seed); the claims
    # table reads every seed's Lingeval scores
    rows = (run_dir / "results/tiny/analysis/agreement.tsv").read_text().splitlines()
    keys = [tuple(r.split("\t")[:3]) for r in rows[1:]]
    assert keys and len(keys) == len(set(keys))
    assert (run_dir / "results/tiny/lingeval/scores/transformer/seed3.txt").is_file()
