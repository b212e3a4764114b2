"""The phrase-representation family end to end on the tiny run's en->de corpus
(tests/workflow/tiny_run.yaml): pr_max_attn_ta_parse reads Algorithm 1 phrases
over the synthetic generator's gold trees (parse_gold, segment), scores the
agreement items with their own trees and phrases (lingeval_trees_gold,
lingeval_segment) and gets a row of the ablation table (Xu et al. 2020)."""

from __future__ import annotations

import csv
import itertools
import json
from pathlib import Path

import pytest
import yaml

from phrasenmt.text.segmentation import n_words, ngram_line, word_index
from phrasenmt.workflow.phrase_repr import PHRASE_REPR_ARCHS
from tests.workflow.conftest import TINY_CONFIG

pytestmark = pytest.mark.slow

MODEL = "pr_max_attn_ta_parse"
# the ablation table's rows: the dataset's sentence-level models, in config order
ROWS = ["transformer", "transformer_prenorm", MODEL]


def rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def checked_phrases(phrases: Path, bpe: Path) -> list[tuple[list[int], list[str]]]:
    """Each BPE'd line's phrase ids with its tokens, once checked: one line per
    line, one id per token, the pieces of a word in one phrase, and the phrases
    numbered 0, 1, 2, ... from left to right."""
    ids = [[int(x) for x in line.split()] for line in lines(phrases)]
    text = [line.split() for line in lines(bpe)]
    assert len(ids) == len(text) > 0, (phrases, bpe)
    for n, (row, tokens) in enumerate(zip(ids, text, strict=True), 1):
        where = f"{phrases}:{n}"
        assert len(row) == len(tokens), where
        assert row[0] == 0 and all(
            b - a in (0, 1) for a, b in itertools.pairwise(row)), where
        words = word_index(tokens)
        assert all(row[i] == row[i + 1] for i in range(len(row) - 1)
                   if words[i] == words[i + 1]), where
    return list(zip(ids, text, strict=True))


def not_ngrams(segmented: list[tuple[list[int], list[str]]]) -> bool:
    """Whether the parse phrases are not the n-gram ones, and some phrase has
    several words (phrases read from trees, not one per word)."""
    differ = any(row != ngram_line(" ".join(toks), None) for row, toks in segmented)
    grouped = any(max(row) + 1 < n_words(toks) for row, toks in segmented)
    return differ and grouped


def test_the_shared_run_has_every_phrase_model_of_its_config():
    config = yaml.safe_load(TINY_CONFIG.read_text(encoding="utf-8"))
    phrase = [m for m, entry in config["models"].items()
              if entry.get("arch") in PHRASE_REPR_ARCHS]
    assert phrase == [MODEL]  # the family's fullest model, on parse phrases
    assert [m for m in ROWS if m in phrase] == phrase


def test_source_phrases_come_from_the_gold_trees(tiny_run: Path):
    root = tiny_run / "results/tiny_en_de"
    for split in ("train", "dev", "test"):
        source = lines(root / f"data/{split}.en")
        assert len(lines(root / f"parse/{split}.trees")) == len(source), split
        assert (tiny_run / f"results/logs/parse_gold/tiny_en_de.{split}.log").is_file()
        segmented = checked_phrases(root / f"parse/{split}.parse.phrases",
                                    root / f"bpe/{split}.bpe.en")
        assert len(segmented) == len(source), split
        assert not_ngrams(segmented), split
    # the model reads parse phrases only: no n-gram segmentation was made
    assert not list((root / "parse").glob("*.ngram.phrases"))


def test_the_phrase_model_trains_translates_and_scores(tiny_run: Path):
    root = tiny_run / "results/tiny_en_de"
    summary = json.loads((root / f"models/{MODEL}/seed1/summary.json").read_text())
    assert summary["arch"] == MODEL and summary["steps"] == 4
    hyps = lines(root / f"translations/{MODEL}/seed1/test.txt")
    assert len(hyps) == len(lines(root / "data/test.en"))
    result = json.loads((root / f"eval/{MODEL}/seed1/test.json").read_text())
    assert result["system"] == MODEL and 0.0 <= result["bleu"]["score"] <= 100.0


def test_agreement_items_get_gold_trees_and_parse_phrases(tiny_run: Path):
    lingeval = tiny_run / "results/tiny_en_de/lingeval"
    pairs = lines(lingeval / "pairs.en")
    assert len(lines(lingeval / "pairs.trees")) == len(pairs) > 0
    segmented = checked_phrases(lingeval / "pairs.parse.phrases",
                                lingeval / "pairs.bpe.en")
    assert len(segmented) == len(pairs) and not_ngrams(segmented)
    logs = tiny_run / "results/logs"
    assert (logs / "lingeval_trees_gold/tiny_en_de.log").is_file()
    assert (logs / "lingeval_segment/tiny_en_de.parse.log").is_file()
    assert len(lines(lingeval / f"scores/{MODEL}/seed1.txt")) == len(pairs)
    agreement = lines(tiny_run / "results/tiny_en_de/analysis/agreement.tsv")
    assert any(row.startswith(f"{MODEL}\t") for row in agreement)


def test_ablation_table_has_a_row_per_sentence_level_model(tiny_run: Path):
    report = tiny_run / "results/tiny_en_de/report"
    table = {r["model"]: r for r in rows(report / "ablation.csv")}
    assert list(table) == ROWS
    base, phrase = table["transformer"], table[MODEL]
    assert base["seeds"] == "1;2;3" and float(base["delta"]) == 0.0
    assert phrase["seeds"] == "1" and phrase["p_one_seed"] == "True"
    assert 0.0 < float(phrase["p_value"]) <= 1.0
    for row in table.values():
        assert 0.0 <= float(row["bleu_tok"]) <= 100.0
    # the phrase layers add parameters to the same Transformer
    assert float(phrase["params_m"]) > float(base["params_m"]) > 0.0
    md = lines(report / "ablation.md")
    assert all(any(x.startswith(f"| {m} ") for x in md) for m in ROWS)
    assert [r["model"] for r in rows(tiny_run / "results/tiny_en_de/timing/ablation.csv")
            ] == ROWS


def test_html_report_has_the_ablation_table(tiny_report: str):
    assert "ablation.md" in tiny_report
