"""Corpus statistics: the counts per split and side, and the dev or test lines
that are training lines too (counted, and a warning past 1 %)."""

from __future__ import annotations

import logging
from pathlib import Path

from phrasenmt.data import stats


def write(tmp_path: Path, name: str, lines: list[str]) -> Path:
    path = tmp_path / name
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def corpus(tmp_path: Path, test_src: list[str], test_tgt: list[str]):
    train_src = [f"s{i} a" for i in range(200)]
    train_tgt = [f"t{i} b" for i in range(200)]
    return [("train", write(tmp_path, "train.en", train_src),
             write(tmp_path, "train.de", train_tgt)),
            ("test", write(tmp_path, "test.en", test_src),
             write(tmp_path, "test.de", test_tgt)),
            ("test.bpe", write(tmp_path, "test.bpe.en", test_src),
             write(tmp_path, "test.bpe.de", test_tgt))]


def column(rows: list[str], split: str, name: str) -> set[str]:
    header = rows[0].split("\t")
    return {r.split("\t")[header.index(name)] for r in rows[1:]
            if r.split("\t")[0] == split}


def test_counts_per_side(tmp_path):
    rows = stats.stats_table(corpus(tmp_path, ["x y z", "w"], ["X", "Y Z"]), "en", "de")
    by = {tuple(r.split("\t")[:2]): r.split("\t") for r in rows[1:]}
    assert by[("test", "src")][3:8] == ["2", "4", "4", "2.0", "3"]
    assert by[("test", "tgt")][3:8] == ["2", "3", "3", "1.5", "2"]


def test_seen_lines_counted_and_warned(tmp_path, caplog):
    # 3 of 100 test sources are training sources, 2 of them with the same target
    src = [f"new{i}" for i in range(97)] + ["s1 a", "s2 a", "s3 a"]
    tgt = [f"N{i}" for i in range(97)] + ["t1 b", "t2 b", "other"]
    with caplog.at_level(logging.WARNING):
        rows = stats.stats_table(corpus(tmp_path, src, tgt), "en", "de")
    assert column(rows, "test", "in_train") == {"3"}
    assert column(rows, "train", "in_train") == {""}
    assert column(rows, "test.bpe", "in_train") == {""}
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1  # once per split, not per side or for its BPE'd files
    assert "test.en: 3 of the 100 source lines of split test (3.0 %" in warnings[0]
    assert "(2 with the same target line)" in warnings[0]


def test_no_warning_at_one_percent(tmp_path, caplog):
    src = [f"new{i}" for i in range(99)] + ["s1 a"]
    with caplog.at_level(logging.WARNING):
        rows = stats.stats_table(corpus(tmp_path, src, ["T"] * 100), "en", "de")
    assert column(rows, "test", "in_train") == {"1"}
    assert not [r for r in caplog.records if r.levelno == logging.WARNING]


def test_a_share_just_over_the_limit_is_not_printed_as_the_limit(tmp_path, caplog):
    """4 of 394 is 1.015 %: "1.0 %, more than 1%" would contradict itself."""
    src = [f"new{i}" for i in range(390)] + ["s1 a", "s2 a", "s3 a", "s4 a"]
    with caplog.at_level(logging.WARNING):
        stats.stats_table(corpus(tmp_path, src, ["T"] * 394), "en", "de")
    warning = next(r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    assert "4 of the 394 source lines of split test (1.02 %, more than 1%)" in warning


def test_cli_writes_the_column(tmp_path):
    splits = corpus(tmp_path, ["s5 a", "q"], ["t5 b", "Q"])
    out = tmp_path / "stats.tsv"
    argv = ["--lang-pair", "en-de", "--out", str(out)]
    for name, a, b in splits:
        argv += ["--split", name, str(a), str(b)]
    assert stats.main(argv) == 0
    rows = out.read_text(encoding="utf-8").splitlines()
    assert rows[0].endswith("\tmax_tokens\tin_train")
    assert column(rows, "test", "in_train") == {"1"}
