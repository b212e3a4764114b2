"""NPMT segment analyses: footnote 4 lengths, Table 2 examples, Appendix C pairs."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from phrasenmt.evaluate import segments as seg
from phrasenmt.io import InputError

SRC = ["das beste ist null", "danke ."]
# Figure 4 style: "das" sleeps and joins "beste"; the </s> position sleeps.
SEGS = [[[], ["the", "best"], ["is"], ["zero", "<unk>"], []],
        [["thank", "you"], ["."], []]]


def write_segments(path: Path, rows: list) -> Path:
    path.write_text("".join(json.dumps({"segments": r}) + "\n" for r in rows))
    return path


def test_average_segment_length_is_words_over_nonempty_segments():
    df = seg.segment_stats(SRC, {"npmt": SEGS}, "test", [3])
    overall = df[df["group"] == "all"].iloc[0]
    # 8 output words in 5 non-empty segments; 3 of 8 positions slept.
    assert (overall.words, overall.segments) == (8, 5)
    assert overall.avg_segment_length == pytest.approx(8 / 5)
    assert (overall.positions, overall.empty_positions) == (8, 3)
    short = df[df["group"] == "≤3"].iloc[0]  # "danke ." only
    assert short.sentences == 1
    assert short.avg_segment_length == pytest.approx(3 / 2)
    long = df[df["group"] == ">3"].iloc[0]
    assert long.avg_segment_length == pytest.approx(5 / 3)


def test_empty_group_has_nan_length():
    df = seg.segment_stats(SRC, {"npmt": SEGS}, "test", [1, 2, 3])
    empty = df[df["group"] == "≤1"].iloc[0]
    assert empty.sentences == 0 and math.isnan(empty.avg_segment_length)


def test_sleeping_words_join_the_next_emitting_position():
    pairs = seg.phrase_pairs(SRC[0].split(), SEGS[0])
    assert pairs == [(("das", "beste"), ("the", "best")), (("ist",), ("is",)),
                     (("null",), ("zero", "<unk>"))]


def test_eos_position_that_emits_is_part_of_its_input_phrase():
    pairs = seg.phrase_pairs(["a", "b"], [[], [], ["x"]])
    assert pairs == [(("a", "b", "</s>"), ("x",))]


def test_trailing_sleepers_are_not_counted():
    assert seg.phrase_pairs(["a", "b"], [["x"], [], []]) == [(("a",), ("x",))]


@pytest.mark.parametrize("src, tgt, expected", [
    (("a",), ("x",), ["One→One"]),
    (("a",), ("x", "y"), ["One→Many"]),
    (("a", "b"), ("x",), ["Many→One"]),
    (("a", "b"), ("x", "y"), ["Many→Many", "Many→Many*"]),
    (("a", "b"), ("x", "<unk>"), ["Many→Many"]),
    (("<unk>", "b"), ("x", "y"), ["Many→Many"]),
])
def test_categories(src, tgt, expected):
    assert seg.categories(src, tgt, "<unk>") == expected


def test_mappings_rank_by_count_then_alphabetically():
    pairs = Counter({(("a",), ("x",)): 3, (("c",), ("z",)): 1, (("b",), ("y",)): 1,
                     (("a", "b"), ("x", "y")): 2})
    rows = seg.mapping_rows("m", "test", pairs, top=2, unk="<unk>")
    one = [(r[4], r[5], r[6]) for r in rows if r[2] == "One→One"]
    assert one == [("a", "x", 3), ("b", "y", 1)]
    assert [r[3] for r in rows if r[2] == "One→One"] == [1, 2]
    assert [r[2] for r in rows].count("Many→Many*") == 1


def test_phrase_mappings_count_over_the_test_set():
    df = seg.phrase_mappings(SRC * 2, {"npmt": SEGS * 2}, "test", top=10)
    row = df[(df["category"] == "Many→Many") & (df["source"] == "das beste")]
    assert row["count"].tolist() == [2]
    assert set(df[df["category"] == "Many→Many*"]["source"]) == {"das beste"}


def test_examples_keep_positions_and_are_seeded():
    picked = seg.pick_examples(SRC * 5, 3, max_words=2, seed=4)
    assert picked == seg.pick_examples(SRC * 5, 3, max_words=2, seed=4)
    assert all(len((SRC * 5)[i].split()) <= 2 for i in picked)
    df = seg.example_rows(SRC, ["the best is zero", "thank you ."], {"npmt": SEGS},
                          "test", [0])
    assert json.loads(df.iloc[0].segments) == [[2, "the best"], [3, "is"],
                                               [4, "zero <unk>"]]
    assert df.iloc[0].line == 1


def test_read_segments_checks_lengths(tmp_path):
    good = write_segments(tmp_path / "good.seg", SEGS)
    assert seg.read_segments(good, SRC) == SEGS
    bad = write_segments(tmp_path / "bad.seg", [SEGS[0], SEGS[1][:-1]])
    with pytest.raises(InputError, match=r"bad.seg:2: has 2 segments but the source "
                       r"line has 2 tokens"):
        seg.read_segments(bad, SRC)
    short = write_segments(tmp_path / "short.seg", SEGS[:1])
    with pytest.raises(InputError, match="has 1 lines but the source has 2"):
        seg.read_segments(short, SRC)


def test_read_segments_rejects_malformed_lines(tmp_path):
    path = tmp_path / "x.seg"
    path.write_text(json.dumps({"segments": SEGS[0]}) + "\n" + '{"segs": []}\n')
    with pytest.raises(InputError, match=r"x.seg:2: not a JSON object"):
        seg.read_segments(path, SRC)
    path.write_text(json.dumps({"segments": SEGS[0]}) + "\n"
                    + json.dumps({"segments": [[1], [], []]}) + "\n")
    with pytest.raises(InputError, match="list of lists of strings"):
        seg.read_segments(path, SRC)


def test_cli_writes_each_analysis(tmp_path):
    src = tmp_path / "src"
    src.write_text("\n".join(SRC) + "\n")
    ref = tmp_path / "ref"
    ref.write_text("the best is zero\nthank you .\n")
    segs = write_segments(tmp_path / "a.seg", SEGS)
    for analysis, extra in (("stats", ["--bins", "3"]),
                            ("examples", ["--ref", str(ref), "--n", "1"]),
                            ("mappings", ["--top", "2"])):
        out = tmp_path / f"{analysis}.tsv"
        seg.main([analysis, "--src", str(src), "--segments", f"npmt={segs}",
                  "--testset", "test", "--out", str(out), *extra])
        df = pd.read_csv(out, sep="\t", keep_default_na=False)
        assert set(df["model"]) == {"npmt"}


def test_cli_bad_input_is_one_line_and_writes_nothing(tmp_path, capsys):
    src = tmp_path / "src"
    src.write_text("\n".join(SRC) + "\n")
    segs = write_segments(tmp_path / "a.seg", SEGS[:1])
    out = tmp_path / "out.tsv"
    with pytest.raises(SystemExit) as exit_info:
        from phrasenmt.io import run_cli
        run_cli(seg.main, ["stats", "--src", str(src), "--segments", f"npmt={segs}",
                           "--testset", "test", "--out", str(out)])
    assert exit_info.value.code == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "a.seg" in err
    assert not out.exists()
