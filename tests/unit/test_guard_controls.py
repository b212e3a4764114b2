"""experiments/guard_controls.py: systems that read no source, as the guard
scores them."""

from __future__ import annotations

import gzip
import random
from pathlib import Path

from experiments import guard_controls

_RNG = random.Random(0)
REFS = [" ".join(f"w{_RNG.randrange(500)}" for _ in range(12)) for _ in range(40)]


def test_the_controls_score_as_a_source_blind_system_should(tmp_path: Path):
    rows = {name.split(" (")[0]: rest for name, *rest in guard_controls.rows(
        REFS, [f"training line {i}" for i in range(50)], "a constant line", seed=1)}
    bleu, _shuffled, gain, share = rows["the references themselves"]
    assert round(bleu, 6) == 100.0 and gain > 50 and share == 1 / 40
    assert rows["one constant sentence"][3] == 1.0  # one line for every output
    assert abs(rows["one constant sentence"][2]) < 1e-9  # the shuffle changes nothing
    assert rows["the reference of the next test sentence"][0] < 100.0


def test_gzipped_and_plain_files_read_alike(tmp_path: Path):
    plain, packed = tmp_path / "r.txt", tmp_path / "r.txt.gz"
    plain.write_text("".join(line + "\n" for line in REFS), encoding="utf-8")
    with gzip.open(packed, "wt", encoding="utf-8") as fh:
        fh.write("".join(line + "\n" for line in REFS))
    assert guard_controls.read(plain) == guard_controls.read(packed) == REFS
