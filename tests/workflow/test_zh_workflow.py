"""Chinese->English end to end with SentencePiece and documents, on the small
fixture of tests/data/zh_en (raw Chinese without spaces, no downloads): jieba's
words cut into pieces as short as the English side's, a clean corpus kept by
cleaning, BLEU with the target language's sacreBLEU tokenizer (13a for English,
zh for Chinese in the en->zh direction), the phrase-representation path on
SentencePiece pieces, and a context-usage table with CXMI for the document
model and its random-context control."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO, snakemake

pytestmark = pytest.mark.slow

FIXTURE = REPO / "tests/data/zh_en"
SPLITS = ("train", "dev", "test")
DOC_LINES = 4  # consecutive fixture lines per document
ZH_EN = ["transformer", "pr_mean", "han_dec", "han_dec_random"]
DOCUMENT = ["han_dec", "han_dec_random"]  # the document model and its control
TINY = {"d_model": 16, "d_ff": 32, "n_heads": 2, "encoder_layers": 1,
        "decoder_layers": 1}
STEP1 = {"max_steps": 24, "valid_interval": 12, "save_interval": 12, "keep_last": 2,
         "average_last": 2, "warmup_steps": 4}
STEP2 = {"max_steps": 8, "valid_interval": 4, "save_interval": 4, "keep_last": 2,
         "average_last": 2, "warmup_steps": 2}


def local_splits(workdir: Path, src: str, tgt: str, docs: bool) -> dict:
    """The fixture's files as a `local:` section, with a docs file per split
    (documents of DOC_LINES consecutive lines) where `docs`."""
    split = {}
    for name in SPLITS:
        split[name] = {"src": str(FIXTURE / f"{name}.{src}"),
                       "tgt": str(FIXTURE / f"{name}.{tgt}")}
        if docs:
            lines = len((FIXTURE / f"{name}.zh").read_text(encoding="utf-8")
                        .splitlines())
            ids = workdir / f"{name}.docs"
            ids.write_text("".join(f"{name}-{i // DOC_LINES:04d}\n"
                                   for i in range(lines)), encoding="utf-8")
            split[name]["docs"] = str(ids)
    return {"train": split["train"], "dev": split["dev"], "test": {"test": split["test"]}}


def config(workdir: Path) -> dict:
    """zh->en with documents (the transformer, pr_mean, han_dec and its
    random-context control) and en->zh (the transformer), at tiny budgets."""
    bpe = {"backend": "sentencepiece", "model_type": "bpe", "vocab_size": 300}
    datasets = {
        "zh_en": {"source": "local", "src": "zh", "tgt": "en", "bpe": bpe,
                  "local": local_splits(workdir, "zh", "en", docs=True)},
        "en_zh": {"source": "local", "src": "en", "tgt": "zh", "bpe": bpe,
                  "local": local_splits(workdir, "en", "zh", docs=False)}}
    sentence = {"preset": "tiny", "model": TINY, "train": STEP1}
    document = {"arch": "han_dec", "preset": "tiny", "init_from": "transformer",
                "datasets": ["zh_en"], "model": {**TINY, "context_size": 2},
                "train": STEP2}
    models = {"transformer": {"arch": "transformer", **sentence},
              "pr_mean": {"arch": "pr_mean", "datasets": ["zh_en"], **sentence},
              "han_dec": document,
              "han_dec_random": {**document, "context": "random"}}
    return {"seed": 1, "run_datasets": ["zh_en", "en_zh"], "datasets": datasets,
            "models": models, "baseline": "transformer", "decode": {"beam": 2},
            "evaluate": {"significance_trials": 20}}


def targets() -> list[str]:
    """The cleaned data and its report, the pieces, every evaluation JSON and
    the context-usage table."""
    out = ["results/zh_en/data/train.clean.tsv", "results/zh_en/report/cleaning.md",
           "results/zh_en/parse/train.ngram.phrases",
           "results/zh_en/report/context_usage.md"]
    out += [f"results/zh_en/bpe/train.bpe.{lang}" for lang in ("zh", "en")]
    evals = [("zh_en", m) for m in ZH_EN] + [("en_zh", "transformer")]
    out += [f"results/{d}/eval/{m}/{run}test.json" for d, m in evals
            for run in ("seed1/", "")]
    return out


@pytest.fixture(scope="module")
def zh_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder of the run (SentencePiece segmentation, training, evaluation)."""
    workdir = tmp_path_factory.mktemp("zh_run")
    (workdir / "config.yaml").write_text(yaml.safe_dump(config(workdir), sort_keys=False),
                                         encoding="utf-8")
    result = snakemake("--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
                       "--configfile", str(workdir / "config.yaml"), "--cores", "2",
                       *targets())
    assert result.returncode == 0, (result.stdout + result.stderr)[-5000:]
    return workdir


def pieces(path: Path) -> list[list[str]]:
    return [line.split() for line in path.read_text(encoding="utf-8").splitlines()]


def test_pieces_are_word_sized_on_both_sides(zh_run: Path):
    bpe = zh_run / "results/zh_en/bpe"
    zh, en = pieces(bpe / "train.bpe.zh"), pieces(bpe / "train.bpe.en")
    assert len(zh) == len(en) == 400
    per_line = {lang: sum(map(len, lines)) / len(lines)
                for lang, lines in (("zh", zh), ("en", en))}
    # a clause-sized "word" (Moses on Chinese) makes the zh side several times shorter
    assert 0.5 <= per_line["zh"] / per_line["en"] <= 2.0, per_line
    assert (bpe / "spm.joint.model").is_file()


def test_cleaning_keeps_the_clean_pairs(zh_run: Path):
    with open(zh_run / "results/zh_en/data/train.clean.tsv", encoding="utf-8") as fh:
        pairs = {row["rule"]: int(row["pairs"]) for row in csv.DictReader(fh, delimiter="\t")}
    assert pairs["total"] == 400
    assert pairs["total"] - pairs["kept"] <= 0.02 * pairs["total"], pairs
    assert "pairs left" in (zh_run / "results/zh_en/report/cleaning.md").read_text(
        encoding="utf-8")


@pytest.mark.parametrize(("dataset", "model", "tokenizer"), [
    *(("zh_en", m, "13a") for m in ZH_EN), ("en_zh", "transformer", "zh")])
def test_bleu_uses_the_target_language_tokenizer(zh_run: Path, dataset: str, model: str,
                                                 tokenizer: str):
    evals = zh_run / f"results/{dataset}/eval/{model}"
    run = json.loads((evals / "seed1/test.json").read_text(encoding="utf-8"))
    assert run["lines"] == 60
    assert f"|tok:{tokenizer}|" in run["bleu"]["signature"], run["bleu"]["signature"]
    assert json.loads((evals / "test.json").read_text(encoding="utf-8"))[
        "tokenize"] == tokenizer


def test_phrases_of_pr_mean_keep_whole_words(zh_run: Path):
    """The n-gram phrases pr_mean pools span whole words: a word's pieces
    (`@@` ends all but its last) are in one phrase."""
    root = zh_run / "results/zh_en"
    lines = pieces(root / "bpe/train.bpe.zh")
    phrases = pieces(root / "parse/train.ngram.phrases")
    assert len(phrases) == len(lines)
    inside = 0
    for words, ids in zip(lines, phrases, strict=True):
        assert len(ids) == len(words)
        for k, piece in enumerate(words[:-1]):
            if piece.endswith("@@"):
                inside += 1
                assert ids[k] == ids[k + 1], (words, ids)
    assert inside > 0  # some words are cut into pieces


def test_context_usage_has_cxmi_for_the_document_model_and_its_control(zh_run: Path):
    md = (zh_run / "results/zh_en/report/context_usage.md").read_text(encoding="utf-8")
    table = md.split("\n\n")[1].splitlines()  # the first table, after its title
    header = [c.strip() for c in table[0].strip("|").split("|")]
    cxmi = [i for i, name in enumerate(header) if name.startswith("CXMI")]
    assert len(cxmi) >= 2, header
    rows = {cells[0]: cells for cells in
            ([c.strip() for c in line.strip("|").split("|")] for line in table[2:])}
    assert set(DOCUMENT) <= set(rows), sorted(rows)
    for model in DOCUMENT:
        for i in cxmi:
            value = rows[model][i].split()[0]
            assert value[0] in "+-" and float(value) == float(value), (model, header[i])
    assert rows["han_dec_random"][1] == "random-context control of han_dec"
