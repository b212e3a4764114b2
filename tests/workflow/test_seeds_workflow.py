"""Several training seeds end to end: the tiny run's sentence-level en->de models
train with seeds [1, 2, 3] (tests/workflow/tiny_run.yaml)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

MODELS = ["transformer", "transformer_prenorm"]  # three seeds each in the tiny run
SEEDS = [1, 2, 3]


def test_every_seed_trains_translates_and_scores(tiny_run: Path):
    root = tiny_run / "results/tiny_en_de"
    for model in MODELS:
        for seed in SEEDS:
            run = root / f"models/{model}/seed{seed}"
            assert (run / "averaged.pt").is_file() and (run / "summary.json").is_file()
            log = tiny_run / f"results/logs/train/tiny_en_de.{model}.seed{seed}.log"
            assert log.is_file()
            assert (root / f"translations/{model}/seed{seed}/test.txt").is_file()
            assert json.loads((root / f"eval/{model}/seed{seed}/test.json"
                               ).read_text())["system"] == model
    hyps = {s: (root / f"translations/transformer/seed{s}/test.tok").read_text()
            for s in SEEDS}
    assert len(set(hyps.values())) > 1  # the seeds are different runs


def test_table_shows_three_seeds_mean_sd_and_an_all_seed_p(tiny_run: Path):
    root = tiny_run / "results/tiny_en_de"
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
    assert not any("(1 seed)" in x for x in md.splitlines()  # the three-seed rows
                   if x.startswith(tuple(f"| {m} " for m in MODELS)))


def test_figures_read_the_first_seed(tiny_run: Path):
    assert (tiny_run / "results/tiny_en_de/report/length_test.svg").stat().st_size > 0
    assert (tiny_run / "results/tiny_en_de/lingeval/scores/transformer/seed1.txt").is_file()
    # the agreement analysis reads one run per model (its first seed); the claims
    # table reads every seed's Lingeval scores
    rows = (tiny_run / "results/tiny_en_de/analysis/agreement.tsv").read_text().splitlines()
    keys = [tuple(r.split("\t")[:3]) for r in rows[1:]]
    assert keys and len(keys) == len(set(keys))
    assert (tiny_run / "results/tiny_en_de/lingeval/scores/transformer/seed3.txt").is_file()
