"""Workflow-level checks: lint, dry runs of every config, config errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO, snakemake
from tests.workflow.conftest import TINY_CONFIG
from tests.workflow.plans import plan

CONFIGS = sorted((REPO / "configs").glob("*.yaml"))
# A job each config's dry run must plan: a download for the real datasets; the sweep
# config builds only synthetic data, so its sign is a window size the sweep derives;
# converged_baselines.yaml extends config.yaml's synthetic data with its own three models;
# converged_families.yaml trains config.yaml's models on its own copies of the data;
# converged_long.yaml generates its own corpus with long sentences; quickstart.yaml
# a smaller one; sentencepiece_en_de.yaml segments a copy with SentencePiece.
EXPECTED_JOB = {"npmt_window_sweep": "npmt_window9",
                "converged_baselines": "transformer_converged",
                "converged_families": "claims_document",
                "converged_long": "converged_long_en_de/report/claims_phrase.md",
                "quickstart": "quickstart_en_de/report/results.md",
                "sentencepiece_en_de": "learn_sentencepiece_joint",
                "seeds_document": "seeds_en_de/models/han_enc_dec_random/seed3"}


def test_lint_is_clean():
    result = snakemake("--lint")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Congratulations" in result.stdout + result.stderr


def test_dry_run_default_config():
    rules = plan().rules  # the dry run fails the test if it fails
    for rule in ("synthetic", "learn_bpe", "train", "translate", "bleu",
                 "results_table", "length_figure"):
        assert rule in rules


def test_the_tiny_run_runs_every_rule_of_the_default_config():
    """The tests' shared real run (tests/workflow/tiny_run.yaml) plans a job of
    every rule the default experiment plans (a cleaning rule is named after its
    dataset)."""
    def kinds(rules: set[str]) -> set[str]:
        return {re.sub(r"^(clean_train|clean_eval)_.+$", r"\1", r) for r in rules}

    missing = kinds(plan().rules) - kinds(plan(TINY_CONFIG).rules)
    assert not missing, f"{TINY_CONFIG.name} runs no job of {sorted(missing)}"


@pytest.mark.parametrize("configfile", CONFIGS, ids=lambda p: p.stem)
def test_dry_run_every_config(configfile: Path):
    assert EXPECTED_JOB.get(configfile.stem, "download") in plan(configfile).stdout


# Paper-scale configurations: each must plan every seed's run of every
# model it names; a derived or checkpoint_of row shows up as a job of its own.
PAPER_CONFIGS = sorted((REPO / "configs" / "paper").glob("*.yaml"))
PAPER_RUNS = {  # config -> (dataset, trained models, decoded-only models with a test set)
    "xu2020_wmt14_en_de": ("wmt14_en_de", ["transformer", "pr_mean", "pr_max",
                           "pr_max_attn", "pr_max_attn_ta", "pr_max_attn_ta_parse"],
                           {}),
    "huang2018_iwslt14_de_en": ("iwslt14_de_en", ["attn_rnn", "npmt", "npmt_noreorder",
                                "attn_rnn_reorder"], {"npmt_lm": "test"}),
    "huang2018_iwslt15_en_vi": ("iwslt15_en_vi", ["attn_rnn", "npmt", "npmt_noreorder",
                                "attn_rnn_reorder"], {"npmt_lm": "tst2013"}),
    "park2019_iwslt_de_en": ("iwslt17_de_en", ["attn_rnn", "conmt", "pconmt_nofert",
                             "pconmt_fert2", "pconmt_fert4"], {}),
    "doclevel_iwslt17_en_de": ("iwslt17_en_de", ["transformer", "ctx_transformer",
                               "han_enc", "han_dec", "han_enc_dec",
                               "han_enc_dec_joint", "ctx_transformer_random",
                               "han_enc_random", "han_dec_random",
                               "han_enc_dec_random"], {}),
}


def test_every_paper_config_is_listed():
    assert sorted(p.stem for p in PAPER_CONFIGS) == sorted(PAPER_RUNS)


@pytest.mark.parametrize("configfile", PAPER_CONFIGS, ids=lambda p: p.stem)
def test_dry_run_paper_config(configfile: Path):
    """Every model of the paper trains (or decodes) once per seed, 1..3, and nothing
    of the default synthetic experiment is planned."""
    config = yaml.safe_load(configfile.read_text(encoding="utf-8"))
    assert config["seeds"] == [1, 2, 3]
    out = plan(configfile).text
    dataset, trained, decoded = PAPER_RUNS[configfile.stem]
    assert config["run_datasets"] == [dataset]
    for seed in (1, 2, 3):
        for model in trained:
            assert f"results/{dataset}/models/{model}/seed{seed}/summary.json" in out
        for model, testset in decoded.items():
            assert f"results/{dataset}/translations/{model}/seed{seed}/{testset}" in out
    assert "seed4" not in out and "results/synthetic_" not in out
    for model, entry in config["models"].items():
        gpus = entry.get("gpus", 1)
        if gpus > 1:  # the cluster job of a multi-GPU model asks for all of them
            assert f"gpu={gpus}," in out, model


@pytest.mark.parametrize("configfile", PAPER_CONFIGS, ids=lambda p: p.stem)
def test_paper_config_trains_every_claims_control(configfile: Path):
    """A paper-scale run that trains a document-level claim's system trains its
    random-context control too: without it the claim is "not tested"."""
    from phrasenmt.claims import load_claims

    out = plan(configfile).text
    dataset = PAPER_RUNS[configfile.stem][0]
    trained = f"results/{dataset}/models/{{}}/seed1/summary.json"
    for claim in load_claims():
        if "control" in claim and trained.format(claim["system"]) in out:
            assert trained.format(claim["control"]) in out, (claim["id"], claim["control"])


@pytest.mark.parametrize("override, message", [
    ("seed=abc", "seed: 'abc' is not of type 'integer'"),
    ("colour=1", "colour: unknown key"),
    ("baseline=nope", "baseline: 'nope' is not one of the models"),
])
def test_bad_config_gives_one_clear_line(override: str, message: str):
    result = snakemake("-n", "--config", override)
    assert result.returncode != 0
    assert f"invalid configuration: {message}" in result.stdout + result.stderr


@pytest.mark.parametrize("text, message", [
    ("models:\n  pr_max:\n    model: {n_heads: 5}\n",
     "models.pr_max.model.n_heads: 5 does not divide d_model 128"),
    ("models:\n  npmt: {train: {max_steps: 0}}\n  npmt: {}\n",
     "{bad}:3: models.npmt: key written twice (first at line 2)"),
    ("datasets:\n  synthetic_de_en: {tgt: de}\n",
     "datasets.synthetic_de_en.tgt: 'de' is also the source language"),
], ids=["model setting", "key written twice", "dataset setting"])
def test_bad_experiment_fails_the_dry_run_fast(tmp_path: Path, text: str,
                                               message: str):
    """Found at start-up, while the Snakefile is read: before Snakemake builds
    the DAG, so before any job (what takes how long is not asserted: a timed
    test fails on a busy machine)."""
    bad = tmp_path / "bad.yaml"
    bad.write_text(text, encoding="utf-8")
    result = snakemake("-n", "--configfile", str(bad))
    output = result.stdout + result.stderr
    assert result.returncode != 0
    message = message.format(bad=bad)
    assert f"invalid configuration: {message}" in output
    assert "Traceback" not in output
    assert "Building DAG of jobs" not in output and "Job stats" not in output


def test_dry_run_fertility_labels_on_a_local_dataset(tmp_path: Path):
    """Fertility training and scoring need no gold alignments: dev/test labels come
    from the aligner (aligned after the training text), on a user's own corpus."""
    for n, split in enumerate(("train", "dev", "test")):  # each split its own bytes
        (tmp_path / f"{split}.de").write_text(f"die feuerwehr kommt {n}\n")
        (tmp_path / f"{split}.en").write_text(f"the fire brigade comes {n}\n")
    pair = {split: {"src": f"{split}.de", "tgt": f"{split}.en"}
            for split in ("train", "dev", "test")}
    config = {
        "run_datasets": ["mine"],
        "datasets": {"mine": {"source": "local", "src": "de", "tgt": "en",
                              "local": {**pair, "test": {"test": pair["test"]}}}},
        "models": {m: {"arch": m, "preset": "tiny"} for m in ("conmt", "pconmt_fert2")},
        "baseline": {"mine": "conmt"},
    }
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    result = snakemake("-n", "--snakefile", str(REPO / "Snakefile"), "--directory",
                       str(tmp_path), "--configfile", str(tmp_path / "config.yaml"))
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-3000:]
    for path in ("align/dev.sym", "align/test.sym", "phrases/dev.fert2",
                 "phrases/test.fert2", "analysis/fertility/test/pconmt_fert2.seed1.tsv",
                 "report/fertility_test.md", "embeddings/plain/words.vec"):
        assert f"results/mine/{path}" in out, path
    assert "gold_fertility" not in out and ".gold." not in out
