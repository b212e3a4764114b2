"""The document-level family end to end on a tiny en->de synthetic corpus: step 1
(the transformer run, reused), step 2 of ctx_transformer and the HAN models,
han_enc_dec from han_enc, a joint fine-tuning step, a K sweep, and every
discourse table (Zhang et al. 2018; Miculicich et al. 2018)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import torch
import yaml

from tests.conftest import REPO, snakemake

pytestmark = pytest.mark.slow

SIZES = {"d_model": 16, "d_ff": 32, "n_heads": 2, "encoder_layers": 1,
         "decoder_layers": 1}
STEP = {"max_steps": 4, "valid_interval": 2, "save_interval": 2, "keep_last": 2,
        "average_last": 2, "warmup_steps": 2}


def _doc(arch: str, init: str, **extra) -> dict:
    return {"arch": arch, "preset": "tiny", "model": dict(SIZES), "init_from": init,
            "train": dict(STEP), **extra}


TINY = {
    "seed": 3,
    "run_datasets": ["tiny"],
    "datasets": {"tiny": {
        "source": "synthetic", "src": "en", "tgt": "de", "tokenize": False,
        "synthetic": {"train_size": 300, "dev_size": 20, "test_size": 40},
        "bpe": {"merges": 200},
    }},
    "models": {
        "transformer": {"arch": "transformer", "preset": "tiny", "model": SIZES,
                        "train": {**STEP, "max_steps": 6}},
        "ctx_transformer": _doc("ctx_transformer", "transformer"),
        "han_enc": _doc("han_enc", "transformer"),
        "han_dec": _doc("han_dec", "transformer"),
        "han_enc_dec": _doc("han_enc_dec", "han_enc",
                            joint_finetune={"train": {"max_steps": 2}}),
    },
    "sweeps": {"ctx_k": {"model": "ctx_transformer", "key": "model.context_size",
                         "values": [1, 2]},
               "ctx_gating": {"model": "ctx_transformer", "key": "model.gating",
                              "values": [False, True], "enabled": False}},
    "baseline": "transformer",
    "decode": {"beam": 2},
    "evaluate": {"significance_trials": 20},
    "embeddings": {"dim": 8, "epoch": 1},
    "discourse": {"lsa_dims": 8},
}
DOCS = ["ctx_transformer", "han_enc", "han_dec", "han_enc_dec", "han_enc_dec_joint"]
ROWS = ["transformer", *DOCS]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """Run the tiny document-level configuration once for all tests here."""
    workdir = tmp_path_factory.mktemp("documents")
    (workdir / "config.yaml").write_text(yaml.safe_dump(TINY, sort_keys=False))
    result = snakemake("--snakefile", str(REPO / "Snakefile"), "--directory",
                       str(workdir), "--configfile", str(workdir / "config.yaml"),
                       "--cores", "2")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    return workdir


def rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def weights(path: Path) -> dict[str, torch.Tensor]:
    return torch.load(path, map_location="cpu", weights_only=False)["model"]


def test_step1_is_the_transformer_run_and_step2_keeps_it(run_dir: Path):
    logs = run_dir / "results/logs"
    assert [p.name for p in (logs / "train").iterdir()] == ["tiny.transformer.seed1.log"]
    assert sorted(p.name for p in (logs / "train_document").iterdir()) == sorted(
        f"tiny.{m}.seed1.log" for m in [*DOCS, "ctx_transformer_context_size1"])
    models = run_dir / "results/tiny/models"
    step1 = weights(models / "transformer/seed1/averaged.pt")
    for model in ("ctx_transformer", "han_enc", "han_dec"):
        log = (logs / f"train_document/tiny.{model}.seed1.log").read_text()
        assert ("two-step: loaded results/tiny/models/transformer/seed1/averaged.pt"
                in log)
        step2 = weights(models / f"{model}/seed1/averaged.pt")
        assert set(step1) < set(step2)
        for key, value in step1.items():  # θ_s frozen
            assert torch.allclose(step2[key], value, rtol=1e-6, atol=1e-8), key
    log = (logs / "train_document/tiny.han_enc_dec.seed1.log").read_text()
    assert "two-step: loaded results/tiny/models/han_enc/seed1/averaged.pt" in log
    joint = (logs / "train_document/tiny.han_enc_dec_joint.seed1.log").read_text()
    assert "loaded results/tiny/models/han_enc_dec/seed1/averaged.pt" in joint
    assert "frozen parameters: nothing" in joint


def test_document_models_translate_with_the_test_documents(run_dir: Path):
    src = (run_dir / "results/tiny/data/test.en").read_text().splitlines()
    for model in DOCS:
        log = run_dir / f"results/logs/translate_document/tiny.{model}.seed1.test.log"
        assert log.is_file()
        hyps = run_dir / f"results/tiny/translations/{model}/seed1/test.txt"
        assert len(hyps.read_text().splitlines()) == len(src)
    main = [r["model"] for r in rows(run_dir / "results/tiny/report/results.csv")]
    assert main == [*ROWS, "ctx_transformer_context_size1"]


def test_discourse_tables(run_dir: Path):
    report = run_dir / "results/tiny/report"
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


def test_html_report_has_the_document_tables(run_dir: Path):
    html = run_dir / "report.html"
    result = snakemake("--snakefile", str(REPO / "Snakefile"), "--directory",
                       str(run_dir), "--configfile", str(run_dir / "config.yaml"),
                       "--report", str(html))
    assert result.returncode == 0, result.stderr[-3000:]
    text = html.read_text(encoding="utf-8")
    assert "Document-level NMT" in text
    for name in ("discourse_bleu.md", "han_bleu.md", "discourse_contrastive.md",
                 "discourse_pronouns_test.md", "discourse_cohesion_test.md",
                 "discourse_sweep_ctx_k.md"):
        assert name in text


def _write_config(workdir: Path, config: dict) -> list[str]:
    (workdir / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    return ["--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
            "--configfile", str(workdir / "config.yaml")]


def test_local_dataset_docs_travel_through_cleaning(tmp_path: Path):
    lines = {"en": ["a b .", "c d .", "e f ."], "de": ["A B .", "C D .", "E F ."]}
    for split in ("train", "dev", "t1"):
        for lang, text in lines.items():
            (tmp_path / f"{split}.{lang}").write_text("\n".join(text) + "\n")
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
    assert ("invalid configuration: config: models.ctx: document-level arch 'ctx_transformer',"
            " but dataset mine has no document ids (local split 't1' has no docs "
            "file)") in result.stdout + result.stderr
