"""Two runs of the same config in fresh folders give the same tables, byte for byte.

Every report table (`results/*/report/*.csv`) and every evaluation JSON of the
second run must equal the first's byte for byte. What the wall clock measures
(training and decoding times, speeds, and the claims judged on training speed)
is in `results/*/timing/*.csv` (phrasenmt.report.wall_clock): those files must
time the same rows, and only their measured cells may differ.

`tests/workflow/test_end_to_end.py` reruns part of the shared tiny run this
way on every `make test` (its English->German main and claims tables). Here, a small run of every
model family (phrase representations, continuous output, NPMT with its LM row
where lmplz is built, the document-level models; 300 sentence pairs, tiny
models) runs twice: 2.3 to 8.5 minutes per run on a 2-core machine, by what
else runs beside it, too long to add twice to every CI run, so it runs when
PHRASENMT_RERUN_ALL_FAMILIES=1 (docs/reproducibility.md).
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import pytest
import yaml

from phrasenmt.lm import lmplz_path
from tests.conftest import REPO, snakemake

# the columns of a timing CSV that name what was timed (the rest is measured)
TIMING_KEYS = {"model", "testset", "claim", "system", "baseline", "metric"}

pytestmark = [pytest.mark.slow, pytest.mark.skipif(
    os.environ.get("PHRASENMT_RERUN_ALL_FAMILIES") != "1",
    reason="two runs of every family take minutes each: set "
           "PHRASENMT_RERUN_ALL_FAMILIES=1 (test_end_to_end reruns part of its run always)")]

TRAIN = {"max_steps": 4, "valid_interval": 2, "save_interval": 2, "log_interval": 1,
         "average_last": 2}
TRANSFORMER = {"d_model": 16, "d_ff": 32, "n_heads": 2, "encoder_layers": 1,
               "decoder_layers": 1}
RNN = {"embed_size": 16, "hidden_size": 16}
NPMT = {"embed_size": 16, "encoder_hidden": 16, "decoder_hidden": 16,
        "max_segment_len": 2}


def model(arch: str, sizes: dict, **extra) -> dict:
    """A tiny model entry that trains 4 updates."""
    return {"arch": arch, "preset": "tiny", "model": dict(sizes), "train": dict(TRAIN),
            **extra}


MODELS = {
    "transformer": model("transformer", TRANSFORMER),
    "pr_max_attn_ta": model("pr_max_attn_ta", TRANSFORMER),
    "attn_rnn": model("attn_rnn", RNN),
    "conmt": model("conmt", RNN),
    "pconmt_fert2": model("pconmt_fert2", RNN),
    "npmt": model("npmt", NPMT),
    "ctx_transformer": model("ctx_transformer", TRANSFORMER, init_from="transformer"),
    "han_enc": model("han_enc", TRANSFORMER, init_from="transformer"),
}
if lmplz_path() is not None:
    MODELS["npmt_lm"] = {"checkpoint_of": "npmt", "decode": {"lm": True,
                                                            "lambda2": 0.2}}
CONFIG = {
    "seed": 3,
    "run_datasets": ["tiny"],
    "datasets": {"tiny": {
        "source": "synthetic", "src": "de", "tgt": "en", "tokenize": False,
        "synthetic": {"train_size": 300, "dev_size": 20, "test_size": 30},
        "bpe": {"merges": 200},
    }},
    "models": MODELS,
    "baseline": "transformer",
    "decode": {"beam": 2},
    "evaluate": {"significance_trials": 20},
    "embeddings": {"dim": 16, "epoch": 1},
}


def run(workdir: Path) -> Path:
    """Run CONFIG end to end in `workdir`; its results folder."""
    workdir.mkdir()
    (workdir / "config.yaml").write_text(yaml.safe_dump(CONFIG))
    result = snakemake("--snakefile", str(REPO / "Snakefile"), "--directory",
                       str(workdir), "--configfile", str(workdir / "config.yaml"),
                       "--cores", "2")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    return workdir / "results"


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory) -> tuple[Path, Path]:
    """The results folders of two runs of CONFIG in fresh folders."""
    tmp = tmp_path_factory.mktemp("rerun")
    return run(tmp / "first"), run(tmp / "second")


def outputs(results: Path) -> list[Path]:
    """Every report table and evaluation JSON, relative to `results`."""
    found = [*results.glob("*/report/*.csv"), *results.glob("*/eval/**/*.json")]
    return sorted(p.relative_to(results) for p in found)


def timing_keys(results: Path) -> dict[str, list[list[str]]]:
    """The timing CSVs' rows without their measured cells: what they time."""
    keys = {}
    for path in sorted(results.glob("*/timing/*.csv")):
        rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
        keep = [i for i, name in enumerate(rows[0]) if name in TIMING_KEYS]
        keys[str(path.relative_to(results))] = [[r[i] for i in keep] for r in rows]
    return keys


def differing_outputs(first: Path, second: Path, only_first: bool = False) -> list[str]:
    """The tables and JSONs of two results folders that differ (or exist in one;
    with `only_first`, those of `first` that `second` lacks or holds otherwise)."""
    one, two = set(outputs(first)), set(outputs(second))
    timed = timing_keys(first), timing_keys(second)
    if only_first:
        two &= one
        timed = timed[0], {rel: timed[1].get(rel) for rel in timed[0]}
    differ = (one ^ two) | {rel for rel in one & two
                            if (first / rel).read_bytes() != (second / rel).read_bytes()}
    differ |= {rel for rel in set(timed[0]) | set(timed[1])
               if timed[0].get(rel) != timed[1].get(rel)}
    return sorted(map(str, differ))


def test_every_family_has_tables(two_runs):
    tables = {p.name for p in outputs(two_runs[0]) if p.suffix == ".csv"}
    assert {"results.csv", "ablation.csv", "efficiency.csv", "fertility_test.csv",
            "npmt_segments_test.csv", "han_bleu.csv", "claims.csv"} <= tables, tables
    timed = {Path(rel).name for rel in timing_keys(two_runs[0])}
    assert timed == {"results.csv", "ablation.csv", "efficiency.csv", "claims.csv"}


def test_second_run_gives_the_same_tables(two_runs):
    differ = differing_outputs(*two_runs)
    assert not differ, f"differ between two runs of the same config: {differ}"
