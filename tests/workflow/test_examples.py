"""The example override files of the documentation dry-run as the tutorial
uses them: on a user's own corpus in the folder Snakemake runs in."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO, snakemake

EXAMPLES = sorted((REPO / "configs" / "examples").glob("*.yaml"))
# The slowest update measured of an example's models: a `small` Transformer
# update of 4,096 tokens on one thread of a 2-core CPU without AVX-512
# (docs/results/2026-11-29-own-documents.md: 220 updates in 25 minutes).
SLOWEST_UPDATE_S = 6.8


def _write_local_files(config: dict, folder: Path) -> list[str]:
    """Create every file the example's local datasets name; return the datasets."""
    names = []
    for name, dataset in config["datasets"].items():
        if dataset.get("source") != "local":
            continue
        names.append(name)
        local = dataset["local"]
        pairs = [local["train"], local["dev"], *local["test"].values()]
        for n, pair in enumerate(pairs):  # four lines, in two documents where a split
            # has docs, each split its own (a held-out copy of a training file is refused)
            for side, lines in (("src", [f"the fire brigade comes {n} ."] * 4),
                                ("tgt", [f"die feuerwehr kommt {n} ."] * 4),
                                ("docs", ["d1", "d1", "d2", "d2"])):
                if side not in pair:
                    continue
                path = folder / pair[side]
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return names


def test_there_is_an_example():
    assert [p.name for p in EXAMPLES] == ["own_corpus.yaml", "own_documents.yaml"]


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


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_models_end_their_warm_up_on_a_2_core_cpu(example: Path):
    """The examples are budgeted in minutes for a 2-core CPU: at the slowest
    measured pace each model's learning rate reaches its peak within its
    max_minutes (the `small` preset's 2,000-update warm-up takes 3.8 hours
    there), and a model trained from scratch warms up for at least
    2 / (1 - adam_beta2) updates, the warm-up Ma and Yarats (2021) find enough
    for Adam (100 at beta2 0.98)."""
    from phrasenmt.training.spec import resolve_spec

    config = yaml.safe_load(example.read_text(encoding="utf-8"))
    for name, entry in config["models"].items():
        raw = {k: entry[k] for k in ("arch", "preset", "model", "train") if k in entry}
        t = resolve_spec(raw, None, f"models.{name}.").train
        budget_s = 60 * t.max_minutes
        assert budget_s > 0, f"{name}: no max_minutes"
        if t.schedule == "time":
            warmup_s = t.warmup_fraction * budget_s
        else:
            warmup_s = t.warmup_steps * SLOWEST_UPDATE_S
        assert warmup_s < budget_s, (
            f"{name}: warm-up takes {warmup_s:.0f} s of its {budget_s:.0f}")
        if not entry.get("init_from"):
            updates = warmup_s / SLOWEST_UPDATE_S
            assert updates >= 2 / (1 - t.adam_beta2), (
                f"{name}: a warm-up of {updates:.0f} updates")


FASTEST_UPDATE_S = 2.4  # the same preset on one thread of a CPU with AVX-512


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_models_average_the_end_of_their_run(example: Path):
    """At the slowest and the fastest measured pace, the checkpoints a model
    averages (the last average_last of those saved every save_interval
    updates, and the one saved when max_minutes stops it) come after its
    warm-up and from the last third of its updates: the small preset's
    interval of 500 averaged update 500 with 1,500 on a fast CPU."""
    from phrasenmt.training.spec import resolve_spec

    config = yaml.safe_load(example.read_text(encoding="utf-8"))
    for name, entry in config["models"].items():
        raw = {k: entry[k] for k in ("arch", "preset", "model", "train") if k in entry}
        t = resolve_spec(raw, None, f"models.{name}.").train
        for pace in (FASTEST_UPDATE_S, SLOWEST_UPDATE_S):
            budget = 60 * t.max_minutes
            total = int(min(t.max_steps, budget / pace))
            saved = list(range(t.save_interval, total + 1, t.save_interval))
            saved += [total] if total % t.save_interval else []
            averaged = saved[-t.average_last:]
            warmup = (t.warmup_fraction * budget / pace if t.schedule == "time"
                      else t.warmup_steps)
            assert len(saved) >= t.average_last, (name, pace, saved)
            assert min(averaged) >= max(warmup, 2 * total / 3), (
                f"{name} at {pace} s per update: averages {averaged} of {total} "
                f"updates, warm-up {warmup:.0f}")


def test_own_documents_plan_context_usage_without_a_contrastive_set(tmp_path):
    """A local corpus with docs files and no contrastive set: every document
    model and its control gets its CXMI job and the context-usage table and
    figure are planned; no contrastive job is."""
    example = REPO / "configs" / "examples" / "own_documents.yaml"
    config = yaml.safe_load(example.read_text(encoding="utf-8"))
    _write_local_files(config, tmp_path)
    result = snakemake("-n", "--snakefile", str(REPO / "Snakefile"), "--directory",
                       str(tmp_path), "--configfile", str(example))
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-3000:]
    for model in ("ctx_transformer", "ctx_transformer_random", "han_dec",
                  "han_dec_random"):
        assert f"results/my_docs/analysis/cxmi/{model}/seed1.json" in out, model
    assert "results/my_docs/analysis/cxmi/transformer/" not in out
    for ext in ("md", "csv", "png", "svg"):
        assert f"results/my_docs/report/context_usage.{ext}" in out
    assert "contrastive" not in out.replace("discourse_contrastive", "")
    assert "discourse_contrastive" not in out
