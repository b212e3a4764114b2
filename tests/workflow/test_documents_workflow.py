"""The document-level family end to end on the tiny run's en->de corpus
(tests/workflow/tiny_run.yaml): step 1 (the transformer run, reused), step 2 of
ctx_transformer and the HAN models, han_enc_dec from han_enc, a joint
fine-tuning step, a K sweep, and every discourse table (Zhang et al. 2018;
Miculicich et al. 2018)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import torch
import yaml

from tests.conftest import REPO, snakemake

pytestmark = pytest.mark.slow

SENTENCE = ["transformer", "transformer_prenorm"]  # the transformer is step 1
PHRASE = "pr_max_attn_ta_parse"  # the dataset's other sentence-level model (one seed)
DOCS = ["ctx_transformer", "han_enc", "han_dec", "han_enc_dec", "han_enc_dec_joint"]
ROWS = ["transformer", *DOCS]  # the discourse tables: step 1 and the document models


def rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def weights(path: Path) -> dict[str, torch.Tensor]:
    return torch.load(path, map_location="cpu", weights_only=False)["model"]


def test_step1_is_the_transformer_run_and_step2_keeps_it(tiny_run: Path):
    logs = tiny_run / "results/logs"
    # the dataset's only sentence-level trainings are its own (three seeds each)
    # and the phrase model's
    trained = sorted(p.name for p in (logs / "train").glob("tiny_en_de.*"))
    assert trained == sorted([*(f"tiny_en_de.{m}.seed{s}.log" for m in SENTENCE
                                for s in (1, 2, 3)), f"tiny_en_de.{PHRASE}.seed1.log"])
    assert sorted(p.name for p in (logs / "train_document").iterdir()) == sorted(
        f"tiny_en_de.{m}.seed1.log" for m in [*DOCS, "ctx_transformer_context_size1"])
    models = tiny_run / "results/tiny_en_de/models"
    step1 = weights(models / "transformer/seed1/averaged.pt")
    for model in ("ctx_transformer", "han_enc", "han_dec"):
        log = (logs / f"train_document/tiny_en_de.{model}.seed1.log").read_text()
        assert ("two-step: loaded results/tiny_en_de/models/transformer/seed1/averaged.pt"
                in log)
        step2 = weights(models / f"{model}/seed1/averaged.pt")
        assert set(step1) < set(step2)
        for key, value in step1.items():  # θ_s frozen
            assert torch.allclose(step2[key], value, rtol=1e-6, atol=1e-8), key
    log = (logs / "train_document/tiny_en_de.han_enc_dec.seed1.log").read_text()
    assert "two-step: loaded results/tiny_en_de/models/han_enc/seed1/averaged.pt" in log
    joint = (logs / "train_document/tiny_en_de.han_enc_dec_joint.seed1.log").read_text()
    assert "loaded results/tiny_en_de/models/han_enc_dec/seed1/averaged.pt" in joint
    assert "frozen parameters: nothing" in joint


def test_document_models_translate_with_the_test_documents(tiny_run: Path):
    src = (tiny_run / "results/tiny_en_de/data/test.en").read_text().splitlines()
    for model in DOCS:
        log = tiny_run / f"results/logs/translate_document/tiny_en_de.{model}.seed1.test.log"
        assert log.is_file()
        hyps = tiny_run / f"results/tiny_en_de/translations/{model}/seed1/test.txt"
        assert len(hyps.read_text().splitlines()) == len(src)
    main = [r["model"] for r in rows(tiny_run / "results/tiny_en_de/report/results.csv")]
    assert main == [*SENTENCE, PHRASE, *DOCS, "ctx_transformer_context_size1"]


def test_discourse_tables(tiny_run: Path):
    report = tiny_run / "results/tiny_en_de/report"
    bleu = rows(report / "discourse_bleu.csv")
    assert [r["model"] for r in bleu] == ROWS
    md = (report / "discourse_bleu.md").read_text(encoding="utf-8")
    assert "Sweep ctx_gating (gating of ctx_transformer) not run" in md
    assert [r["model"] for r in rows(report / "han_bleu.csv")] == [
        "transformer", "han_enc", "han_dec", "han_enc_dec", "han_enc_dec_joint"]
    contrastive = rows(report / "discourse_contrastive.csv")
    assert [(r["model"], r["context"]) for r in contrastive] == [
        ("transformer", "no"), *((m, "yes") for m in DOCS)]
    assert all(r["pronoun_gender"] != "" for r in contrastive)
    pronouns = rows(report / "discourse_pronouns_test.csv")
    assert [r["model"] for r in pronouns] == ROWS
    assert all(0 <= float(r["pronoun"]) <= 1 for r in pronouns)
    cohesion = rows(report / "discourse_cohesion_test.csv")
    assert [r["model"] for r in cohesion] == [*ROWS, "reference"]
    sweep = rows(report / "discourse_sweep_ctx_k.csv")
    assert [(r["K"], r["model"]) for r in sweep] == [
        ("1", "ctx_transformer_context_size1"), ("2", "ctx_transformer")]
    assert not (report / "sweep_ctx_k.md").exists()  # not the NPMT sweep table


def test_html_report_has_the_document_tables(tiny_report: str):
    assert "Document-level NMT" in tiny_report
    for name in ("discourse_bleu.md", "han_bleu.md", "discourse_contrastive.md",
                 "discourse_pronouns_test.md", "discourse_cohesion_test.md",
                 "discourse_sweep_ctx_k.md"):
        assert name in tiny_report


def _write_config(workdir: Path, config: dict) -> list[str]:
    (workdir / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return ["--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
            "--configfile", str(workdir / "config.yaml")]


def test_local_dataset_docs_travel_through_cleaning(tmp_path: Path):
    lines = {"en": ["a b .", "c d .", "e f ."], "de": ["A B .", "C D .", "E F ."]}
    for n, split in enumerate(("train", "dev", "t1")):  # each split its own bytes
        for lang, text in lines.items():
            (tmp_path / f"{split}.{lang}").write_text("\n".join(text[n:] + text[:n]) + "\n")
    (tmp_path / "train.ids").write_text("talk1\ntalk1\ntalk2\n")
    (tmp_path / "dev.ids").write_text("d\nd\nd\n")
    pair = {s: {"src": str(tmp_path / f"{s}.en"), "tgt": str(tmp_path / f"{s}.de")}
            for s in ("train", "dev", "t1")}
    pair["train"]["docs"] = str(tmp_path / "train.ids")
    pair["dev"]["docs"] = str(tmp_path / "dev.ids")
    config = {"datasets": {"mine": {
        "source": "local", "src": "en", "tgt": "de", "tokenize": False,
        "local": {"train": pair["train"], "dev": pair["dev"],
                  "test": {"t1": pair["t1"]}}}},
        "models": {"transformer": {"arch": "transformer", "preset": "tiny"}},
        "baseline": "transformer"}
    args = _write_config(tmp_path, config)
    result = snakemake(*args, "--cores", "1", "results/mine/data/train.docs",
                       "results/mine/data/t1.docs", "results/mine/data/dev.docs")
    assert result.returncode == 0, result.stderr[-3000:]
    data = tmp_path / "results/mine/data"
    assert (data / "train.docs").read_text().split() == ["talk1", "talk1", "talk2"]
    assert (data / "t1.docs").read_text().split() == [f"t1-00000{i}" for i in range(3)]
    config["models"]["ctx"] = {"arch": "ctx_transformer", "preset": "tiny",
                               "init_from": "transformer"}
    result = snakemake(*_write_config(tmp_path, config), "-n")
    assert result.returncode != 0
    assert ("invalid configuration: models.ctx: document-level arch 'ctx_transformer',"
            " but dataset mine has no document ids (local split 't1' has no docs "
            "file)") in result.stdout + result.stderr
