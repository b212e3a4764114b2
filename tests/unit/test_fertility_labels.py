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
        "fwd", "rev", "sym", "held/test.fwd", "held/test.rev", "tsym", "phrases",
        "filters", "f4", "f2", "test.f4", "test.f2")}
    s, t = _write(tmp_path / "train.s", train_src), _write(tmp_path / "train.t",
                                                            train_tgt)
    ts, tt = _write(tmp_path / "test.s", test_src), _write(tmp_path / "test.t",
                                                          test_tgt)
    align_main(["run", "--backend", "fast_align", "--src", s, "--tgt", t,
                "--heldout", "test", ts, tt, "--heldout-dir", str(tmp_path / "held"),
                "--fwd", f["fwd"], "--rev", f["rev"]])
    assert len(Path(f["fwd"]).read_text().splitlines()) == 300
    for fwd, rev, src, tgt, out in ((f["fwd"], f["rev"], s, t, f["sym"]),
                                    (f["held/test.fwd"], f["held/test.rev"], ts, tt,
                                     f["tsym"])):
        align_main(["symmetrize", "--fwd", fwd, "--rev", rev, "--src", src,
                    "--tgt", tgt, "--out", out])
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


@pytest.mark.parametrize("extra, message", [
    (["--heldout", "dev", "{s}", "{s}"], "give --heldout and --heldout-dir together"),
    (["--heldout-dir", "{d}"], "give --heldout and --heldout-dir together"),
    (["--heldout", "a", "{s}", "{s}", "--heldout", "a", "{s}", "{s}", "--heldout-dir",
      "{d}"], "held-out names must be distinct words"),
])
def test_heldout_options_are_checked(tmp_path, extra, message):
    s = _write(tmp_path / "s", [["a"]])
    extra = [x.format(s=s, d=tmp_path / "d") for x in extra]
    with pytest.raises(InputError, match=message):
        align_main(["run", "--backend", "fast_align", "--src", s, "--tgt", s, *extra,
                    "--fwd", str(tmp_path / "f"), "--rev", str(tmp_path / "r")])
