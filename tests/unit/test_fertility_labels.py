"""Fertility labels of a held-out split from the aligner, on any parallel corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from phrasenmt.align.__main__ import main as align_main
from phrasenmt.fertility import main as fertility_main
from phrasenmt.io import InputError
from phrasenmt.phrases import main as phrases_main
from tests.unit.test_align import _tiny_corpus


def _write(path: Path, sents: list[list[str]]) -> str:
    path.write_text("".join(" ".join(s) + "\n" for s in sents))
    return str(path)


def test_heldout_split_gets_aligner_labels_like_the_training_data(tmp_path):
    # every 4th source word becomes two target words (a phrase), as gold says
    train_src, train_tgt, _ = _tiny_corpus(300, seed=0)
    test_src, test_tgt, _ = _tiny_corpus(40, seed=1)
    f = {name: str(tmp_path / name) for name in (
        "fwd", "rev", "sym", "tfwd", "trev", "tsym", "phrases", "filters",
        "f4", "f2", "test.f4", "test.f2")}
    s, t = _write(tmp_path / "train.s", train_src), _write(tmp_path / "train.t",
                                                            train_tgt)
    ts, tt = _write(tmp_path / "test.s", test_src), _write(tmp_path / "test.t",
                                                          test_tgt)
    align_main(["run", "--backend", "fast_align", "--src", s, "--tgt", t,
                "--fwd", f["fwd"], "--rev", f["rev"]])
    align_main(["run", "--backend", "fast_align", "--src", s, "--tgt", t,
                "--heldout-src", ts, "--heldout-tgt", tt,
                "--fwd", f["tfwd"], "--rev", f["trev"]])
    for d, src, tgt in (("", s, t), ("t", ts, tt)):
        align_main(["symmetrize", "--fwd", f[f"{d}fwd"], "--rev", f[f"{d}rev"],
                    "--src", src, "--tgt", tgt, "--out", f[f"{d}sym"]])
    phrases_main(["--src", s, "--tgt", t, "--alignment", f["sym"], "--tgt-lang",
                  "en", "--out-phrases", f["phrases"], "--out-filters", f["filters"],
                  "--out-fertility", f["f4"], "--out-fertility2", f["f2"]])
    fertility_main(["--src", ts, "--tgt", tt, "--alignment", f["tsym"], "--phrases",
                    f["phrases"], "--out-fert4", f["test.f4"],
                    "--out-fert2", f["test.f2"]])
    labels = [list(map(int, line.split()))
              for line in Path(f["test.f2"]).read_text().splitlines()]
    assert [len(x) for x in labels] == [len(x) for x in test_src]
    expected = [[int(int(w[1:]) % 4 == 0) for w in sent] for sent in test_src]
    flat = [(a, b) for x, y in zip(labels, expected) for a, b in zip(x, y)]
    assert sum(a == b for a, b in flat) / len(flat) > 0.9
    assert sum(b for _, b in flat) > 10  # phrases are there to label


def test_heldout_needs_both_sides(tmp_path):
    s = _write(tmp_path / "s", [["a"]])
    with pytest.raises(InputError, match="give both --heldout-src and --heldout-tgt"):
        align_main(["run", "--backend", "fast_align", "--src", s, "--tgt", s,
                    "--heldout-src", s, "--fwd", str(tmp_path / "f"),
                    "--rev", str(tmp_path / "r")])
