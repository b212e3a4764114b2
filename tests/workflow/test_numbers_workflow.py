"""Numbers travel from config.yaml to the trainer as numbers: a learning rate
written `1.0e-5` (or `1e-5`, which YAML 1.1 reads as text) trains end to end."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.conftest import REPO, snakemake

CONFIG = """\
seed: 3
run_datasets: [tiny]
datasets:
  tiny:
    source: synthetic
    src: en
    tgt: de
    tokenize: false
    synthetic: {train_size: 200, dev_size: 20, test_size: 20}
    bpe: {merges: 100}
models:
  transformer:
    arch: transformer
    preset: tiny
    model: {d_model: 16, d_ff: 32, n_heads: 2}
    train: {lr: 1.0e-5, adam_eps: 1e-9, max_steps: 2, valid_interval: 2,
            save_interval: 2, average_last: 1}
baseline: transformer
"""


def test_small_learning_rates_train_end_to_end(tmp_path: Path):
    (tmp_path / "config.yaml").write_text(CONFIG, encoding="utf-8")
    run = "results/tiny/models/transformer/seed1"
    result = snakemake("--snakefile", str(REPO / "Snakefile"), "--directory",
                       str(tmp_path), "--configfile", str(tmp_path / "config.yaml"),
                       "--cores", "1", f"{run}/summary.json")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    train = yaml.safe_load((tmp_path / run / "config.yaml").read_text())["train"]
    assert (train["lr"], train["adam_eps"]) == (1e-5, 1e-9)
    rows = (tmp_path / run / "metrics.tsv").read_text().splitlines()[1:]
    assert [float(r.split("\t")[3]) for r in rows][-1] <= 1e-5
