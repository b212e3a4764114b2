"""Discourse report tables: BLEU with significance, contrastive, pronouns, cohesion,
sweeps."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from phrasenmt.io import InputError
from phrasenmt.report import discourse
from tests.unit import eval_files as ef


def _eval(tmp: Path, model: str, testset: str, bleu: float | list[float],
          p: float | None, base: float = 20.0) -> Path:
    """An all-seed JSON (phrasenmt.evaluate.multiseed) against 'sent'."""
    scores = bleu if isinstance(bleu, list) else [bleu]
    return ef.aggregate(tmp, model, testset, scores, p, [base] * len(scores), "sent")


def _seed_eval(tmp: Path, model: str, testset: str, bleu: float) -> Path:
    """One seed's JSON (phrasenmt.evaluate.bleu)."""
    path = tmp / f"{model}.{testset}.{bleu}.json"
    path.write_text(json.dumps({"system": model, "testset": testset,
                                "bleu": {"score": bleu}, "significance": None}))
    return path


def _outs(tmp: Path) -> list[str]:
    return [arg for ext in ("md", "tex", "csv")
            for arg in (f"--out-{ext}", str(tmp / f"t.{ext}"))]


def _tsv(path: Path, rows: list[dict]) -> Path:
    pd.DataFrame(rows).to_csv(path, sep="\t", index=False)
    return path


def test_bleu_table_marks_significant_gains(tmp_path):
    evals = [_eval(tmp_path, "doc", "tst2015", 20.9, 0.2),
             _eval(tmp_path, "sent", "tst2015", 20.0, None),
             _eval(tmp_path, "doc_both", "tst2015", [21.4, 21.6], 0.001),
             _eval(tmp_path, "sent", "tst2014", 18.0, None),
             _eval(tmp_path, "doc_both", "tst2014", 17.5, 0.9, base=18.0)]
    discourse.main(["bleu", "--eval", *map(str, evals), "--baseline", "sent",
                    "--order", "sent,doc,doc_both", *_outs(tmp_path)])
    df = pd.read_csv(tmp_path / "t.csv")
    assert list(zip(df.testset, df.model, strict=True)) == [
        ("tst2015", "sent"), ("tst2015", "doc"), ("tst2015", "doc_both"),
        ("tst2014", "sent"), ("tst2014", "doc_both")]
    assert df.delta.round(2).tolist() == [0.0, 0.9, 1.5, 0.0, -0.5]
    assert df.significant.tolist() == [False, False, True, False, False]
    md = (tmp_path / "t.md").read_text()
    assert ("| tst2015 | doc_both | 21.50 ± 0.14† | 1: 21.40, 2: 21.60 | +1.50 | "
            "0.001 |") in md
    assert ("| tst2015 | doc | 20.90 (1 seed) | 1: 20.90 | +0.90 | 0.2 (one seed: "
            "indicative, no verdict) |") in md
    assert "p < 0.05" in md
    assert r"21.50 $\pm$ 0.14$^\dagger$" in (tmp_path / "t.tex").read_text()


def test_bleu_table_three_seeds(tmp_path):
    evals = [_eval(tmp_path, "sent", "test", 20.0, None),
             _eval(tmp_path, "doc", "test", [21.0, 22.0, 23.0], 0.004)]
    discourse.main(["bleu", "--eval", *map(str, evals), "--baseline", "sent",
                    "--order", "sent,doc", *_outs(tmp_path)])
    md = (tmp_path / "t.md").read_text()
    assert "| test | doc | 22.00 ± 1.00† | 1: 21.00, 2: 22.00, 3: 23.00 | +2.00 | " \
           "0.004 |" in md
    assert r"22.00 $\pm$ 1.00" in (tmp_path / "t.tex").read_text()


def test_bleu_table_needs_the_baseline_everywhere(tmp_path):
    evals = [_eval(tmp_path, "doc", "tst2015", 20.9, 0.2)]
    with pytest.raises(InputError, match="no baseline \\(sent\\) evaluation"):
        discourse.main(["bleu", "--eval", *map(str, evals), "--baseline", "sent",
                        "--order", "sent,doc", *_outs(tmp_path)])


def _acc(model: str, context: str, category: str, acc: float, bin_: str = "all"
         ) -> dict:
    return {"model": model, "context": context, "category": category, "bin": bin_,
            "items": 10, "correct": int(acc * 10), "accuracy": acc}


def test_contrastive_table_shows_what_context_buys(tmp_path):
    rows = [_acc("doc", "no", "pronoun_gender", 0.5), _acc("doc", "yes", "all", 0.8),
            _acc("doc", "yes", "pronoun_gender", 0.9),
            _acc("doc", "yes", "pronoun_gender", 0.7, "1"),
            _acc("sent", "no", "pronoun_gender", 0.4), _acc("sent", "no", "all", 0.45),
            _acc("doc", "no", "all", 0.55), _acc("doc", "yes", "agreement", 0.6),
            _acc("doc", "no", "agreement", 0.6), _acc("sent", "no", "agreement", 0.5)]
    tsv = _tsv(tmp_path / "c.tsv", rows)
    discourse.main(["contrastive", "--tsv", f"test={tsv}", "--order", "sent,doc",
                    *_outs(tmp_path)])
    df = pd.read_csv(tmp_path / "t.csv")
    assert list(df.columns) == ["testset", "model", "context", "agreement",
                                "pronoun_gender", "all"]
    assert list(zip(df.model, df.context, strict=True)) == [
        ("sent", "no"), ("doc", "yes"), ("doc", "no")]
    assert df.pronoun_gender.tolist() == [0.4, 0.9, 0.5]
    assert "| test | doc | yes | 60.00 | 90.00 | 80.00 |" in (
        tmp_path / "t.md").read_text()


def _pron(model: str, noun: float, pronoun: float) -> list[dict]:
    base = {"model": model, "word": "all", "noun_rule": "capitalised", "total": 10,
            "aligned": 10, "coverage": 1.0}
    return [{**base, "category": "noun", "correct": int(noun * 10), "accuracy": noun},
            {**base, "category": "pronoun", "correct": int(pronoun * 10),
             "accuracy": pronoun},
            {**base, "category": "pronoun", "word": "sie", "accuracy": 0.1,
             "correct": 1}]


def test_pronoun_and_cohesion_tables(tmp_path):
    paths = [_tsv(tmp_path / f"{m}.tsv", _pron(m, n, p))
             for m, n, p in (("doc", 0.7, 0.6), ("sent", 0.65, 0.5))]
    discourse.main(["pronouns", "--tsv", *map(str, paths), "--order", "sent,doc",
                    *_outs(tmp_path)])
    df = pd.read_csv(tmp_path / "t.csv")
    assert df.values.tolist() == [["sent", 0.65, 0.5], ["doc", 0.7, 0.6]]
    assert "| doc | 70.00 | 60.00 |" in (tmp_path / "t.md").read_text()
    coh = _tsv(tmp_path / "coh.tsv", [
        {"system": "reference", "kind": "reference", "cohesion": 0.56,
         "coherence": 0.31},
        {"system": "doc", "kind": "model", "cohesion": 0.55, "coherence": 0.305},
        {"system": "sent", "kind": "model", "cohesion": 0.54, "coherence": 0.298}])
    discourse.main(["cohesion", "--tsv", str(coh), "--order", "sent,doc",
                    *_outs(tmp_path)])
    assert pd.read_csv(tmp_path / "t.csv").model.tolist() == ["sent", "doc",
                                                              "reference"]
    assert "| reference | 56.00 | 0.310 |" in (tmp_path / "t.md").read_text()


def test_sweep_table_follows_the_points(tmp_path):
    evals = [_seed_eval(tmp_path, f"doc_k{k}", "test", 20 + k / 10)
             for k in (1, 2, 3)]
    evals.append(_seed_eval(tmp_path, "doc_k3", "test", 20.5))  # a second seed
    prons = [_tsv(tmp_path / f"k{k}.tsv", _pron(f"doc_k{k}", 0.5, 0.5 + k / 100))
             for k in (1, 2, 3)]
    discourse.main(["sweep", "--parameter", "K", "--point", "1=doc_k1", "3=doc_k3",
                    "2=doc_k2", "--eval", *map(str, evals), "--pronouns",
                    *map(str, prons), *_outs(tmp_path)])
    df = pd.read_csv(tmp_path / "t.csv")
    assert df[["K", "model", "seeds", "bleu", "pronoun"]].values.tolist() == [
        [1, "doc_k1", 1, 20.1, 0.51], [3, "doc_k3", 2, 20.4, 0.53],
        [2, "doc_k2", 1, 20.2, 0.52]]
    assert "20.40 ± 0.14" in (tmp_path / "t.md").read_text()
    # a target language without a pronoun list: `--pronouns` with no file
    discourse.main(["sweep", "--parameter", "K", "--point", "1=doc_k1", "--eval",
                    *map(str, evals), "--pronouns", *_outs(tmp_path)])
    assert pd.read_csv(tmp_path / "t.csv")["pronoun"].isna().all()
    with pytest.raises(InputError, match="no --eval for model 'doc_k4'"):
        discourse.main(["sweep", "--parameter", "K", "--point", "4=doc_k4",
                        "--eval", *map(str, evals), *_outs(tmp_path)])


def test_unknown_model_is_an_error(tmp_path):
    paths = [_tsv(tmp_path / "x.tsv", _pron("other", 0.1, 0.2))]
    with pytest.raises(InputError, match="not in --order"):
        discourse.main(["pronouns", "--tsv", *map(str, paths), "--order", "sent",
                        *_outs(tmp_path)])
    assert not (tmp_path / "t.csv").exists()


@pytest.mark.parametrize("table", [None, *discourse.TITLES])
def test_help_of_every_table(table, capsys):
    with pytest.raises(SystemExit) as done:
        discourse.main([table, "--help"] if table else ["--help"])
    assert done.value.code == 0 and "usage:" in capsys.readouterr().out
