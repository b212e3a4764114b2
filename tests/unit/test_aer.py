"""Tests for phrasenmt.evaluate.aer."""

from __future__ import annotations

import json

import pytest

from phrasenmt.evaluate.aer import alignment_scores, main
from phrasenmt.io import InputError


def test_scores_hand_computed():
    pred = [{(0, 0), (1, 1), (1, 2)}, {(0, 1)}]
    gold = [{(0, 0), (1, 2)}, {(0, 0), (1, 1)}]
    s = alignment_scores(pred, gold)
    # |A| = 4, |S| = 4, |A & S| = 2
    assert s["precision"] == pytest.approx(0.5)
    assert s["recall"] == pytest.approx(0.5)
    assert s["aer"] == pytest.approx(1 - 2 * 2 / 8)


def test_possible_links_count_for_precision_only():
    s = alignment_scores([{(0, 0), (0, 1)}], [{(0, 0)}], [{(0, 1)}])
    assert s["precision"] == 1.0 and s["recall"] == 1.0
    assert s["aer"] == pytest.approx(1 - (1 + 2) / (2 + 1))


def test_perfect_and_empty():
    assert alignment_scores([{(0, 0)}], [{(0, 0)}])["aer"] == 0.0
    assert alignment_scores([set()], [{(0, 0)}])["aer"] == 1.0


def test_cli(tmp_path):
    for name, text in {"s": "a b\nc\n", "t": "A B\nC D\n", "g": "0-0 1-1\n0-0 0-1\n",
                       "p": "0-0\n0-1\n"}.items():
        (tmp_path / name).write_text(text)
    args = ["--gold", str(tmp_path / "g"), "--pred", str(tmp_path / "p"),
            "--src", str(tmp_path / "s"), "--tgt", str(tmp_path / "t"),
            "--out", str(tmp_path / "o.json")]
    assert main(args) == 0
    out = json.loads((tmp_path / "o.json").read_text())
    assert out["precision"] == 1.0 and out["recall"] == 0.5
    (tmp_path / "p").write_text("0-0\n1-1\n")
    with pytest.raises(InputError, match=r"/p:2: link 1-1 out of range"):
        main(args)
