"""Tests for phrasenmt.align: Pharaoh validation, symmetrization, both aligners."""

from __future__ import annotations

import random

import pytest

from phrasenmt.align.__main__ import main
from phrasenmt.align.backends import align, align_eflomal, align_fast_align
from phrasenmt.align.pharaoh import parse_line, read_alignments
from phrasenmt.align.symmetrize import symmetrize
from phrasenmt.io import InputError

NEIGHBOURS = ((-1, 0), (0, -1), (1, 0), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1))


def textbook_gdfa(fwd, rev, n_src, n_tgt, both=True):
    """Literal transcription of Koehn's pseudo-code (e = target, f = source)."""
    union, a = fwd | rev, set(fwd & rev)

    def free(e, f):
        return all(j != e for _, j in a), all(i != f for i, _ in a)

    added = True
    while added:
        added = False
        for e in range(n_tgt):
            for f in range(n_src):
                if (f, e) not in a:
                    continue
                for de, df in NEIGHBOURS:
                    new = (f + df, e + de)
                    if new in union and new not in a and any(free(new[1], new[0])):
                        a.add(new)
                        added = True
    for d in (fwd, rev):
        for e in range(n_tgt):
            for f in range(n_src):
                fe, ff = free(e, f)
                if (f, e) in d and ((fe and ff) if both else (fe or ff)):
                    a.add((f, e))
    return a


# 3 source x 4 target words, worked out by hand in the module's (i, j) notation
FWD = {(0, 0), (0, 1), (2, 2), (1, 3)}   # each target word has one source word
REV = {(0, 0), (1, 2), (2, 3)}           # each source word has one target word


def test_intersection_and_union_by_hand():
    assert symmetrize(FWD, REV, "intersection") == {(0, 0)}
    assert symmetrize(FWD, REV, "union") == {(0, 0), (0, 1), (2, 2), (1, 3),
                                             (1, 2), (2, 3)}


def test_grow_diag_final_and_by_hand():
    # (0,0) grows to (0,1); diagonal (1,2); then (1,3) and (2,2); (2,3) is
    # blocked because both source 2 and target 3 are aligned by then.
    expected = {(0, 0), (0, 1), (1, 2), (1, 3), (2, 2)}
    assert symmetrize(FWD, REV, "grow-diag") == expected
    assert symmetrize(FWD, REV, "grow-diag-final-and") == expected


def test_final_and_differs_from_final():
    fwd, rev = {(0, 0), (0, 3)}, {(0, 0), (2, 2)}
    # (0,3): source 0 is aligned, so final-and refuses it and final accepts it
    assert symmetrize(fwd, rev, "grow-diag-final-and") == {(0, 0), (2, 2)}
    assert symmetrize(fwd, rev, "grow-diag-final") == {(0, 0), (0, 3), (2, 2)}


@pytest.mark.parametrize("seed", range(200))
def test_gdfa_equals_textbook_on_random_alignments(seed):
    rng = random.Random(seed)
    n_src, n_tgt = rng.randint(1, 7), rng.randint(1, 7)
    fwd = {(rng.randrange(n_src), j) for j in range(n_tgt) if rng.random() < .8}
    rev = {(i, rng.randrange(n_tgt)) for i in range(n_src) if rng.random() < .8}
    for method, both in (("grow-diag-final-and", True), ("grow-diag-final", False)):
        assert symmetrize(fwd, rev, method) == textbook_gdfa(fwd, rev, n_src,
                                                             n_tgt, both)


@pytest.mark.parametrize("text,message", [
    ("0-1 2-0", "out of range"), ("0-1 1-4", "out of range"),
    ("0-1 x-2", "malformed"), ("0-1 1:2", "malformed"), ("0--1", "malformed"),
    ("0-\u00b2", "malformed"), ("\u0661-0", "malformed"), ("0-\U0001d7d1", "malformed"),
    ("+1-0", "malformed"), ("0-1_0", "malformed"),
])
def test_bad_pharaoh_line_names_file_and_line(text, message):
    with pytest.raises(InputError, match=message) as err:
        parse_line(text, 2, 3, "a.align", 7)
    assert str(err.value).startswith("a.align:7: ")


def test_read_alignments_checks_each_line_against_its_sentence(tmp_path):
    path = tmp_path / "x.align"
    path.write_text("0-0 1-1\n0-0 1-2\n")
    src, tgt = [["a", "b"], ["c", "d"]], [["A", "B"], ["C", "D"]]
    with pytest.raises(InputError, match=r"x.align:2: link 1-2 out of range"):
        read_alignments(path, src, tgt)


def _tiny_corpus(n=300, seed=0):
    """Word-for-word corpus: every 4th source word becomes two target words."""
    rng = random.Random(seed)
    src, tgt, gold = [], [], []
    for _ in range(n):
        s = [rng.randrange(30) for _ in range(rng.randint(2, 8))]
        t, g = [], set()
        for i, k in enumerate(s):
            for w in ([f"t{k}a", f"t{k}b"] if k % 4 == 0 else [f"t{k}"]):
                g.add((i, len(t)))
                t.append(w)
        src.append([f"s{k}" for k in s])
        tgt.append(t)
        gold.append(g)
    return src, tgt, gold


@pytest.mark.parametrize("backend", [align_eflomal, align_fast_align])
def test_aligners_give_valid_in_range_links(backend):
    src, tgt, gold = _tiny_corpus()
    fwd, rev = backend(src, tgt)
    assert len(fwd) == len(rev) == len(src)
    for s, t, f, r in zip(src, tgt, fwd, rev):
        assert all(0 <= i < len(s) and 0 <= j < len(t) for i, j in f | r)
        assert len({j for _, j in f}) == len(f)  # forward: one source per target
        assert len({i for i, _ in r}) == len(r)  # reverse: one target per source
    sym = [symmetrize(f, r, "grow-diag-final-and") for f, r in zip(fwd, rev)]
    hits = sum(len(a & g) for a, g in zip(sym, gold))
    assert hits / sum(len(g) for g in gold) > 0.9


def test_eflomal_samplers_and_iterations_reach_eflomal_and_only_eflomal(monkeypatch):
    import eflomal

    seen = []
    real = eflomal.Aligner.__init__
    monkeypatch.setattr(eflomal.Aligner, "__init__", lambda self, **kw: (
        seen.append((kw["n_samplers"], kw["rel_iterations"])), real(self, **kw))[1])
    src, tgt, _ = _tiny_corpus(40)
    fwd, _ = align("eflomal", src, tgt, samplers=1, rel_iterations=0.25)
    align("eflomal", src, tgt)
    # None: eflomal's defaults, 3 samplers and its own iteration count
    assert seen == [(1, 0.25), (3, 1.0)] and len(fwd) == len(src)
    with pytest.raises(InputError, match="--samplers applies to the eflomal backend only"):
        align("fast_align", src, tgt, samplers=1)
    with pytest.raises(InputError, match="--rel-iterations applies to the eflomal "
                       "backend only"):
        align("fast_align", src, tgt, rel_iterations=0.5)


def test_rel_iterations_reach_eflomal_s_run_under_the_seed_library(monkeypatch):
    """A seeded run (the seed library, one thread) passes rel_iterations on to
    eflomal's binary, which scales its iteration counts per model by it."""
    import eflomal

    told = []
    real = eflomal.align

    def spy(*args, **kwargs):
        told.append(kwargs["rel_iterations"])
        return real(*args, **kwargs)

    monkeypatch.setattr(eflomal, "align", spy)
    src, tgt, _ = _tiny_corpus(40)
    align("eflomal", src, tgt, samplers=1, rel_iterations=0.5, seed=1)
    assert told == [0.5]


def test_fast_align_directions_reproduce_the_package_symmetrization(tmp_path):
    import systran_align

    src, tgt, _ = _tiny_corpus(200, seed=3)
    fwd, rev = align_fast_align(src, tgt)
    corpus = tmp_path / "in"
    corpus.write_text("".join(f"{' '.join(s)} ||| {' '.join(t)}\n"
                              for s, t in zip(src, tgt)))
    systran_align.generate_alignment_probabilities(
        str(corpus), str(tmp_path / "f"), str(tmp_path / "b"), favor_diagonal=True)
    ref = systran_align.Aligner(str(tmp_path / "f"), str(tmp_path / "b"))
    expected = [set(map(tuple, r["alignments"])) for r in ref.align_batch(src, tgt)]
    ours = [symmetrize(f, r, "grow-diag-final-and") for f, r in zip(fwd, rev)]
    assert ours == expected


def test_cli_run_and_symmetrize(tmp_path, capsys):
    src, tgt, _ = _tiny_corpus(50)
    (tmp_path / "s").write_text("".join(" ".join(x) + "\n" for x in src))
    (tmp_path / "t").write_text("".join(" ".join(x) + "\n" for x in tgt))
    p = {k: str(tmp_path / k) for k in ("s", "t", "f", "r", "y")}
    assert main(["run", "--backend", "fast_align", "--src", p["s"], "--tgt",
                 p["t"], "--fwd", p["f"], "--rev", p["r"]]) == 0
    assert main(["symmetrize", "--fwd", p["f"], "--rev", p["r"], "--out", p["y"],
                 "--src", p["s"], "--tgt", p["t"]]) == 0
    lines = (tmp_path / "y").read_text().splitlines()
    assert len(lines) == 50 and all(lines)
    (tmp_path / "f").write_text("0-0\n" * 49 + "0-99\n")
    with pytest.raises(InputError, match=r"/f:50: link 0-99 out of range"):
        main(["symmetrize", "--fwd", p["f"], "--rev", p["r"], "--out", p["y"],
              "--src", p["s"], "--tgt", p["t"]])
