"""Contrastive sets with context: each reader gives its own script's comparisons.

A toy scorer gives every (source, target, context) line a pseudo log-probability.
For each format the test scores the format's own lines in the format's own
order and counts correct decisions the way that format's evaluation script does
(transcribed below from ContraPro's evaluate.py, Bawden et al.'s evaluate.py,
Voita et al.'s evaluate_consistency.py and Lingeval97); our prepare -> score ->
evaluate path must reach the same counts, per category where the script has them.
"""

from __future__ import annotations

import json
import sys
import zlib
from collections import Counter, defaultdict
from pathlib import Path

import pandas as pd
import pytest

from phrasenmt.bpe import Segmenter, learn_codes, word_counts
from phrasenmt.data.documents import read_context_file
from phrasenmt.evaluate import contrastive
from phrasenmt.evaluate.contrastive_formats import split_eos
from phrasenmt.io import InputError, read_lines
from tests import forkrun


def toy_score(src: str, tgt: str, ctx_src: list[str], ctx_tgt: list[str]) -> float:
    """A deterministic pseudo log-probability that depends on the context."""
    key = "|".join([src, tgt, *ctx_src, "#", *ctx_tgt]).encode()
    return -(zlib.crc32(key) % 100_000) / 1000


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _prepare(tmp: Path, args: list[str]) -> dict:
    outs = ["--out-items", tmp / "items.json", "--out-src", tmp / "pairs.src",
            "--out-tgt", tmp / "pairs.tgt", "--out-context", tmp / "pairs.ctx.jsonl"]
    assert contrastive.main(["prepare", *args, *map(str, outs)]) == 0
    return json.loads((tmp / "items.json").read_text())


def _score_and_evaluate(tmp: Path, context: bool = True) -> pd.DataFrame:
    """Score our lines with the toy scorer and run `evaluate`."""
    src, tgt = read_lines(tmp / "pairs.src"), read_lines(tmp / "pairs.tgt")
    ctx = read_context_file(tmp / "pairs.ctx.jsonl", len(src))
    scores = [toy_score(s, t, *((c["src"], c["tgt"]) if context else ([], [])))
              for s, t, c in zip(src, tgt, ctx, strict=True)]
    _write(tmp / "scores.txt", [f"{x:.6f}" for x in scores])
    option = "--scores" if context else "--no-context-scores"
    contrastive.main(["evaluate", "--items", str(tmp / "items.json"), option,
                      f"m={tmp / 'scores.txt'}", "--out", str(tmp / "acc.tsv")])
    return pd.read_csv(tmp / "acc.tsv", sep="\t", dtype={"bin": str})


def _correct(df: pd.DataFrame, category: str, bin_: str = "all") -> tuple[int, int]:
    row = df[(df.category == category) & (df["bin"] == bin_)]
    assert len(row) == 1, (category, bin_)
    return int(row["correct"].iloc[0]), int(row["items"].iloc[0])


# --- lingeval --------------------------------------------------------------------

TEST_EN = ["a cat sleeps .", "it eats .", "the dog runs .", "b one .", "it two ."]
TEST_DE = ["eine Katze schläft .", "sie frisst .", "der Hund rennt .", "b eins .",
           "er zwei ."]
DOCS = ["test-0", "test-0", "test-0", "test-1", "test-1"]


def _lingeval_items() -> list[dict]:
    def err(kind: str, text: str, d: int) -> dict:
        return {"type": kind, "contrastive": text, "distance": d}
    return [
        {"source": TEST_EN[1], "reference": TEST_DE[1], "doc": "test-0", "line": 1,
         "errors": [err("pronoun_gender", "er frisst .", 1),
                    err("pronoun_gender", "es frisst .", 1),
                    err("subj_verb_agreement", "sie fressen .", 0)]},
        {"source": TEST_EN[2], "reference": TEST_DE[2], "doc": "test-0", "line": 2,
         "errors": [err("subj_verb_agreement", "der Hund rennen .", 17)]},
        {"source": TEST_EN[4], "reference": TEST_DE[4], "doc": "test-1", "line": 4,
         "errors": [err("pronoun_gender", "sie zwei .", 1)]},
        {"source": "x y .", "reference": "x y .", "doc": None, "line": None,
         "errors": [err("subj_verb_agreement", "x z .", 1)]},
    ]


def _lingeval_files(tmp: Path, items: list[dict]) -> list[str]:
    _write(tmp / "test.en", TEST_EN)
    _write(tmp / "test.de", TEST_DE)
    _write(tmp / "test.docs", DOCS)
    (tmp / "items.lingeval.json").write_text(json.dumps(items))
    return ["--format", "lingeval", "--json", str(tmp / "items.lingeval.json"),
            "--src-text", str(tmp / "test.en"), "--tgt-text", str(tmp / "test.de"),
            "--docs", str(tmp / "test.docs")]


def test_lingeval_reader_takes_previous_document_lines(tmp_path):
    header = _prepare(tmp_path, [*_lingeval_files(tmp_path, _lingeval_items()),
                                 "--context", "2"])
    items = header["items"]
    assert [(it["type"], it["contrastive"]) for it in items] == [
        ("pronoun_gender", ["er frisst ."]), ("pronoun_gender", ["es frisst ."]),
        ("subj_verb_agreement", ["sie fressen ."]),
        ("subj_verb_agreement", ["der Hund rennen ."]),
        ("pronoun_gender", ["sie zwei ."])]
    assert items[0]["context_src"] == [TEST_EN[0]]  # the document starts at line 0
    assert items[3]["context_tgt"] == TEST_DE[:2]  # K = 2
    assert items[4]["context_src"] == [TEST_EN[3]]  # not line 2: another document
    # the reference of line 1 is scored once for its three errors
    assert items[0]["lines"][0] == items[1]["lines"][0] == items[2]["lines"][0]
    assert header["lines"] == len(read_lines(tmp_path / "pairs.src")) == 8


def test_lingeval_counts_per_error_like_lingeval97(tmp_path):
    items = _lingeval_items()
    _prepare(tmp_path, [*_lingeval_files(tmp_path, items), "--context", "1"])
    df = _score_and_evaluate(tmp_path)
    # Lingeval97: reference then each contrastive; one decision per error
    counts: dict = defaultdict(Counter)
    for it in items[:3]:
        ctx = [[TEST_EN[it["line"] - 1]], [TEST_DE[it["line"] - 1]]]
        ref = toy_score(it["source"], it["reference"], *ctx)
        for e in it["errors"]:
            bin_ = str(e["distance"]) if e["distance"] <= 15 else ">15"
            ok = ref > toy_score(it["source"], e["contrastive"], *ctx)
            for key in ("all", bin_):
                counts[e["type"], key].update(correct=ok, total=1)
    for (kind, bin_), c in counts.items():
        assert _correct(df, kind, bin_) == (c["correct"], c["total"])
    assert _correct(df, "all")[1] == 5


def test_lingeval_item_without_context_is_an_error(tmp_path):
    items = _lingeval_items()
    items[2]["line"], items[2]["source"], items[2]["reference"] = 3, TEST_EN[3], "x"
    args = [*_lingeval_files(tmp_path, items), "--context", "1"]
    with pytest.raises(InputError, match="item 2: a pronoun_gender item needs "
                                         "context but line 3 opens document"):
        _prepare(tmp_path, args)
    assert not (tmp_path / "pairs.src").exists()


def test_lingeval_item_must_match_its_line(tmp_path):
    items = _lingeval_items()
    items[1]["doc"] = "test-1"
    with pytest.raises(InputError, match="item 1: test line 2 is in document"):
        _prepare(tmp_path, [*_lingeval_files(tmp_path, items), "--context", "1"])


def _gendered_items() -> list[dict]:
    """The lingeval items with the genders the synthetic corpus writes: line 1's
    antecedent (Katze) is f, line 4's is m; no antecedent is n."""
    items = _lingeval_items()
    genders = {("test-0", "er frisst ."): ("f", "m"), ("test-0", "es frisst ."): ("f", "n"),
               ("test-1", "sie zwei ."): ("m", "f")}
    for it in items:
        for e in it["errors"]:
            if e["type"] == "pronoun_gender":
                g, cg = genders[it["doc"], e["contrastive"]]
                e.update(antecedent_gender=g, contrastive_gender=cg)
    return items


def test_mirrored_pronoun_items_swap_the_answer_and_borrow_a_context(tmp_path, capsys):
    args = [*_lingeval_files(tmp_path, _gendered_items()), "--context", "1"]
    items = _prepare(tmp_path, [*args, "--mirror-pronouns"])["items"]
    pron = [(it["reference"], it["contrastive"], it["context_src"]) for it in items
            if it["type"] == "pronoun_gender"]
    # each kept item, then its mirror: the other pronoun right, under the context
    # of the other document's item whose antecedent has that gender; line 1's
    # "es" item has no neuter donor and is dropped with its mirror
    assert pron == [
        ("sie frisst .", ["er frisst ."], [TEST_EN[0]]),
        ("er frisst .", ["sie frisst ."], [TEST_EN[3]]),
        ("er zwei .", ["sie zwei ."], [TEST_EN[3]]),
        ("sie zwei .", ["er zwei ."], [TEST_EN[0]])]
    assert "2 pronoun_gender items mirrored; 1 dropped" in capsys.readouterr().err
    assert [it["type"] for it in items].count("subj_verb_agreement") == 2
    # a model that ignores the context gets exactly one of each pair right ...
    assert _correct(_score_and_evaluate(tmp_path, context=False),
                    "pronoun_gender") == (2, 4)
    # ... and the same run again gives the same items
    first = (tmp_path / "items.json").read_bytes()
    _prepare(tmp_path, [*args, "--mirror-pronouns"])
    assert (tmp_path / "items.json").read_bytes() == first


def test_mirrored_pronouns_need_genders_and_lingeval(tmp_path):
    args = [*_lingeval_files(tmp_path, _lingeval_items()), "--context", "1"]
    with pytest.raises(InputError, match="item 0: a pronoun_gender error without "
                                         "antecedent_gender and contrastive_gender"):
        _prepare(tmp_path, [*args, "--mirror-pronouns"])
    with pytest.raises(InputError, match="--mirror-pronouns is for --format lingeval"):
        _prepare(tmp_path, ["--format", "voita", "--json", str(tmp_path / "x.json"),
                            "--mirror-pronouns"])


# --- ContraPro ----------------------------------------------------------------------

def _contrapro(tmp: Path, dist0: int = 1) -> tuple[list[dict], list[str]]:
    """contrapro.json and what json2text_and_context.pl --context 2 writes."""
    entries = [
        {"document id": "a.de", "segment id": 1, "src pronoun": "It",
         "ref pronoun": "Sie", "ante distance": dist0, "intrasegmental": False,
         "src segment": "It is red .", "ref segment": "Sie ist rot .",
         "errors": [{"contrastive": "Er ist rot .", "replacement": "er"},
                    {"contrastive": "Es ist rot .", "replacement": "es"}]},
        {"document id": "b.de", "segment id": 9, "src pronoun": "it",
         "ref pronoun": "er", "ante distance": 0, "intrasegmental": True,
         "src segment": "The dog said it barks .", "ref segment": "x",
         "errors": [{"contrastive": "Der Hund sagte , sie bellt .",
                     "replacement": "sie"},
                    {"contrastive": "Der Hund sagte , es bellt .",
                     "replacement": "es"}]},
        {"document id": "b.de", "segment id": 12, "src pronoun": "it",
         "ref pronoun": "er", "ante distance": 5, "intrasegmental": False,
         "src segment": "It works .", "ref segment": "Er geht .",
         "errors": [{"contrastive": "Sie geht .", "replacement": "sie"}]}]
    text = {("It is red .", "Sie ist rot ."): ["", "The lamp ."],
            ("The dog said it barks .", "Der Hund sagte , er bellt ."): ["One .",
                                                                       "Two ."],
            ("It works .", "Er geht ."): ["Three .", "Four ."]}
    src, tgt, ctx_en, ctx_de = [], [], [], []
    for entry, ((s, t), ctx) in zip(entries, text.items(), strict=True):
        for target in [t] + [e["contrastive"] for e in entry["errors"]]:
            src.append(s)
            tgt.append(target)
            ctx_en += ctx
            ctx_de += [c.replace(".", "!") if c else c for c in ctx]
    for name, lines in (("text.en", src), ("text.de", tgt), ("context.en", ctx_en),
                        ("context.de", ctx_de)):
        _write(tmp / f"contrapro.{name}", lines)
    (tmp / "contrapro.json").write_text(json.dumps(entries))
    args = ["--format", "contrapro", "--json", str(tmp / "contrapro.json"),
            "--extracted", "2"]
    for opt, name in (("--text-src", "text.en"), ("--text-tgt", "text.de"),
                      ("--context-src", "context.en"), ("--context-tgt", "context.de")):
        args += [opt, str(tmp / f"contrapro.{name}")]
    return entries, args


def contrapro_script(tmp: Path, entries: list[dict], n: int) -> dict:
    """ContraPro evaluate.py (--maximize) on scores of its own text lines."""
    src, tgt = (read_lines(tmp / f"contrapro.text.{x}") for x in ("en", "de"))
    cs, ct = (read_lines(tmp / f"contrapro.context.{x}") for x in ("en", "de"))
    scores = iter(toy_score(src[k], tgt[k], [c for c in cs[k * n:(k + 1) * n] if c],
                            [c for c in ct[k * n:(k + 1) * n] if c])
                  for k in range(len(src)))
    results: dict = defaultdict(Counter)
    for sentence in entries:
        score = next(scores)
        all_better = all(score > next(scores) for _ in sentence["errors"])
        category = (sentence["src pronoun"].lower() + ":"
                    + sentence["ref pronoun"].lower())
        dist = sentence["ante distance"]
        dist = ">3" if dist > 3 else str(dist)
        for key in ((category, "all"), (category, dist)):
            results[key].update(total=1, correct=all_better)
    return results


def test_contrapro_reader_matches_its_evaluate_script(tmp_path):
    entries, args = _contrapro(tmp_path)
    items = _prepare(tmp_path, args)["items"]
    assert [len(it["contrastive"]) for it in items] == [2, 2, 1]
    assert items[0]["context_src"] == ["The lamp ."]  # the empty line is dropped
    assert items[0]["context_tgt"] == ["The lamp !"]
    assert items[1]["type"] == "it:er" and items[1]["distance"] == 0
    df = _score_and_evaluate(tmp_path)
    for (category, bin_), c in contrapro_script(tmp_path, entries, 2).items():
        assert _correct(df, category, bin_) == (c["correct"], c["total"])
    assert _correct(df, "it:er", ">3")[1] == 1


def test_contrapro_antecedent_without_context_and_bad_counts(tmp_path):
    _, args = _contrapro(tmp_path)
    lines = read_lines(tmp_path / "contrapro.context.en")
    _write(tmp_path / "contrapro.context.en", ["" if i < 6 else x
                                               for i, x in enumerate(lines)])
    with pytest.raises(InputError, match="entry 0: antecedent 1 sentence"):
        _prepare(tmp_path, args)
    _, args = _contrapro(tmp_path)
    args[args.index("--extracted") + 1] = "1"
    with pytest.raises(InputError, match="not 1 per text line"):
        _prepare(tmp_path, args)


def test_contrapro_dev_fraction_splits_by_document_id(tmp_path):
    """--dev-fraction puts every `document id` on one side: its entries are all
    dev or all test (an entry without one is a document of its own)."""
    entries, src, tgt, ctx_en, ctx_de = [], [], [], [], []
    for d in range(8):
        for s in range(4):
            entry = {"document id": f"doc{d}.de", "segment id": s,
                     "src pronoun": "it", "ref pronoun": "sie",
                     "ante distance": 1 + (d + s) % 2, "errors": [
                         {"contrastive": f"Er ist {d} {s} .", "replacement": "er"}]}
            if d == 7:
                del entry["document id"]
            entries.append(entry)
            for target in (f"Sie ist {d} {s} .", f"Er ist {d} {s} ."):
                src.append(f"It is {d} {s} .")
                tgt.append(target)
                ctx_en.append(f"The lamp {d} {s} .")
                ctx_de.append(f"Die Lampe {d} {s} .")
    for name, lines in (("text.en", src), ("text.de", tgt), ("context.en", ctx_en),
                        ("context.de", ctx_de)):
        _write(tmp_path / f"contrapro.{name}", lines)
    (tmp_path / "contrapro.json").write_text(json.dumps(entries))
    args = ["--format", "contrapro", "--json", str(tmp_path / "contrapro.json"),
            "--extracted", "1", "--dev-fraction", "0.5", "--split-seed", "3"]
    for opt, name in (("--text-src", "text.en"), ("--text-tgt", "text.de"),
                      ("--context-src", "context.en"), ("--context-tgt", "context.de")):
        args += [opt, str(tmp_path / f"contrapro.{name}")]
    items = _prepare(tmp_path, args)["items"]
    assert [it.get("doc") for it in items[:28:4]] == [f"doc{d}.de" for d in range(7)]
    sides = defaultdict(set)
    for it in items[:28]:
        sides[it["doc"]].add(it["split"])
    assert all(len(s) == 1 for s in sides.values()), sides
    assert Counter(s for (s,) in sides.values()) == {"dev": 3, "test": 4}
    # the entries without a document id: each item on its own side
    assert {it["split"] for it in items[28:]} == {"dev", "test"}


# --- Bawden et al. 2018 ----------------------------------------------------------

def _bawden(tmp: Path) -> list[str]:
    """What json2rawtext.py writes for two examples, two pairs each."""
    cur_en, prev_en, cur_fr, prev_fr = [], [], [], []
    for n, (a, b) in enumerate([("Ils", "Elles"), ("Elles", "Ils"), ("Il", "Elle"),
                                ("Elle", "Il")]):
        for _ in range(2):
            cur_en.append(f"They are here {n // 2} .")
            prev_en.append(f"The things {n // 2} .")
        cur_fr += [f"{a} sont là {n // 2} .", f"{b} sont là {n // 2} ."]
        prev_fr += [f"Les choses {n} ."] * 2
    for name, lines in (("current.en", cur_en), ("prev.en", prev_en),
                        ("current.fr", cur_fr), ("prev.fr", prev_fr)):
        _write(tmp / f"anaphora.{name}", lines)
    return ["--format", "bawden", "--tgt-lang", "fr",
            "--current-src", str(tmp / "anaphora.current.en"),
            "--current-tgt", str(tmp / "anaphora.current.fr"),
            "--prev-src", str(tmp / "anaphora.prev.en"),
            "--prev-tgt", str(tmp / "anaphora.prev.fr")]


def test_bawden_reader_matches_its_evaluate_script(tmp_path):
    args = _bawden(tmp_path)
    items = _prepare(tmp_path, args)["items"]
    assert [it["type"] for it in items] == ["anaphora"] * 4
    assert items[1]["reference"] == "Elles sont là 0 ."
    assert items[1]["contrastive"] == ["Ils sont là 0 ."]
    assert items[1]["context_tgt"] == ["Les choses 1 ."]
    df = _score_and_evaluate(tmp_path)
    # scores2analysis_anaphora: one score per line, read in (correct, incorrect)
    # pairs; correct when score_correct > score_incorrect (--maximise)
    lines = [read_lines(tmp_path / f"anaphora.{x}")
             for x in ("current.en", "current.fr", "prev.en", "prev.fr")]
    scores = [toy_score(s, t, [ps], [pt]) for s, t, ps, pt in zip(*lines, strict=True)]
    correct = sum(scores[k] > scores[k + 1] for k in range(0, len(scores), 2))
    assert _correct(df, "anaphora") == (correct, 4) == _correct(df, "all")


def test_bawden_empty_previous_sentence_is_an_error(tmp_path):
    args = _bawden(tmp_path)
    prev = read_lines(tmp_path / "anaphora.prev.en")
    _write(tmp_path / "anaphora.prev.en", [*prev[:4], "", ""] + prev[6:])
    with pytest.raises(InputError, match=r"anaphora.prev.en:5: empty previous"):
        _prepare(tmp_path, args)


# --- Voita et al. 2019 ---------------------------------------------------------------

def _voita(tmp: Path) -> tuple[list[dict], list[str]]:
    groups = [
        {"src": "a1 . _eos a2 . _eos a3 . _eos you came .", "ctx_dist": 1,
         "true_ind": 0, "dst": ["A1 . _eos A2 . _eos A3 . _eos du kamst .",
                                "A1 . _eos A2 . _eos A3 . _eos ihr kamt ."]},
        {"src": "b1 . _eos b2 . _eos b3 . _eos go !", "ctx_dist": 3, "true_ind": 0,
         "dst": ["B1 . _eos B2 . _eos B3 . _eos geh !",
                 "B1 . _eos B2 . _eos B3 . _eos geht !",
                 "B1x . _eos B2 . _eos B3 . _eos gehen Sie !"]},
        {"src": "c1 . _eos c2 . _eos c3 . _eos so did I .", "ctx_dist": 2,
         "true_ind": 0, "dst": ["C1 . _eos C2 . _eos C3 . _eos ich auch .",
                                "C1 . _eos C2 . _eos C3 . _eos mich auch ."]}]
    (tmp / "deixis_dev.json").write_text(json.dumps(groups))
    _write(tmp / "deixis_dev.src", [g["src"] for g in groups for _ in g["dst"]])
    _write(tmp / "deixis_dev.dst", [d for g in groups for d in g["dst"]])
    return groups, ["--format", "voita", "--json", str(tmp / "deixis_dev.json"),
                    "--scoring-src", str(tmp / "deixis_dev.src"),
                    "--scoring-dst", str(tmp / "deixis_dev.dst")]


def test_voita_reader_matches_evaluate_consistency(tmp_path):
    groups, args = _voita(tmp_path)
    items = _prepare(tmp_path, args)["items"]
    assert [len(it["contrastive"]) for it in items] == [1, 2, 1]
    assert items[1]["context_src"] == ["b1 .", "b2 .", "b3 ."]
    assert items[1]["contrastive_context_tgt"][1] == ["B1x .", "B2 .", "B3 ."]
    assert "contrastive_context_tgt" not in items[0]
    df = _score_and_evaluate(tmp_path)
    # evaluate_consistency.get_scores: losses of the scoring lines, grouped by
    # len(dst); correct when argmin(group) == true_ind
    src, dst = (read_lines(tmp_path / f"deixis_dev.{x}") for x in ("src", "dst"))
    losses = [-toy_score(split_eos(s)[-1], split_eos(d)[-1], split_eos(s)[:-1],
                         split_eos(d)[:-1]) for s, d in zip(src, dst, strict=True)]
    k, by_dist = 0, defaultdict(Counter)
    for g in groups:
        group = losses[k:k + len(g["dst"])]
        k += len(g["dst"])
        ok = group.index(min(group)) == g["true_ind"]
        for key in ("all", str(g["ctx_dist"])):
            by_dist[key].update(total=1, correct=ok)
    for key, c in by_dist.items():
        assert _correct(df, "deixis_dev", key) == (c["correct"], c["total"])


def test_voita_bad_inputs(tmp_path):
    groups, args = _voita(tmp_path)
    _write(tmp_path / "deixis_dev.dst", read_lines(tmp_path / "deixis_dev.dst")[::-1])
    with pytest.raises(InputError, match=r"deixis_dev.dst:1: differs from the JSON"):
        _prepare(tmp_path, args)
    groups[2]["src"] = "so did I ."
    (tmp_path / "deixis_dev.json").write_text(json.dumps(groups))
    with pytest.raises(InputError, match="group 2: every line needs context"):
        _prepare(tmp_path, args[:4])


# --- writer, BPE, evaluate ---------------------------------------------------------

def test_context_bpe_segments_every_sentence(tmp_path):
    _prepare(tmp_path, _voita(tmp_path)[1])
    codes = learn_codes(word_counts(["b1 b1 b2"]), 1, min_frequency=1)  # b 1</w>
    _write(tmp_path / "codes", codes.splitlines())
    contrastive.main(["bpe", "--codes", str(tmp_path / "codes"), "--in",
                      str(tmp_path / "pairs.ctx.jsonl"), "--out",
                      str(tmp_path / "ctx.bpe.jsonl")])
    seg = Segmenter(codes)
    plain = read_context_file(tmp_path / "pairs.ctx.jsonl", 7)
    bpe = read_context_file(tmp_path / "ctx.bpe.jsonl", 7)
    assert bpe == [{side: [seg.line(s) for s in e[side]] for side in ("src", "tgt")}
                   for e in plain]
    assert bpe[2]["src"] == ["b1 .", "b@@ 2 .", "b@@ 3 ."]


def test_evaluate_marks_no_context_runs(tmp_path):
    _prepare(tmp_path, _bawden(tmp_path))
    df = _score_and_evaluate(tmp_path, context=False)
    assert list(df.columns) == contrastive.COLUMNS
    assert set(df["context"]) == {"no"}
    _write(tmp_path / "tie.txt", ["-1.5"] * 8)  # a tie is not a win
    contrastive.main(["evaluate", "--items", str(tmp_path / "items.json"),
                      "--scores", f"m={tmp_path / 'tie.txt'}", "--out",
                      str(tmp_path / "tie.tsv")])
    tie = pd.read_csv(tmp_path / "tie.tsv", sep="\t")
    assert list(tie["correct"]) == [0, 0] and list(tie["context"]) == ["yes"] * 2
    _write(tmp_path / "short.txt", ["0.1"])
    with pytest.raises(InputError, match="has 1 scores but the items have 8 pairs"):
        contrastive.main(["evaluate", "--items", str(tmp_path / "items.json"),
                          "--scores", f"m={tmp_path / 'short.txt'}", "--out",
                          str(tmp_path / "x.tsv")])


@pytest.mark.parametrize("bad, message", [
    ("0.5", r"pos\.txt:3: a log-probability must be <= 0\.0, got 0\.5"),
    ("nan", r"pos\.txt:3: a log-probability expected a finite number"),
    ("-\u0662.5", r"pos\.txt:3: a log-probability expected a finite number"),
])
def test_evaluate_reads_log_probabilities_only(tmp_path, bad, message):
    _prepare(tmp_path, _bawden(tmp_path))
    _write(tmp_path / "pos.txt", ["-1.5", "-2.5", bad] + ["-1.0"] * 5)
    with pytest.raises(InputError, match=message):
        contrastive.main(["evaluate", "--items", str(tmp_path / "items.json"),
                          "--scores", f"m={tmp_path / 'pos.txt'}", "--out",
                          str(tmp_path / "x.tsv")])
    assert not (tmp_path / "x.tsv").exists()


def test_cli_error_is_one_line_and_writes_nothing(tmp_path):
    args = _bawden(tmp_path)
    _write(tmp_path / "anaphora.prev.fr", ["x"] * 3)
    out = [f"--out-{k}" for k in ("items", "src", "tgt", "context")]
    cmd = [sys.executable, "-m", "phrasenmt.evaluate.contrastive", "prepare", *args]
    for opt in out:
        cmd += [opt, str(tmp_path / opt)]
    proc = forkrun.run(cmd, check=False, capture_output=True, text=True)
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "anaphora.prev.en" in proc.stderr
    assert not any((tmp_path / opt).exists() for opt in out)
