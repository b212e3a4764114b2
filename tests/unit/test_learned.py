"""experiments/learned.py: the baseline guard's measurements, printed per model."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "learned.py"


def test_copying_the_reference_learned_and_a_constant_did_not(tmp_path):
    rng = random.Random(0)
    words = [f"w{i}" for i in range(300)]
    refs = [" ".join(rng.choice(words) for _ in range(rng.randint(5, 12)))
            for _ in range(200)]
    (tmp_path / "ref").write_text("\n".join(refs) + "\n")
    (tmp_path / "good").write_text("\n".join(refs) + "\n")
    (tmp_path / "const").write_text("w1 w2 w3 w4 w5\n" * 200)
    out = subprocess.run([sys.executable, str(SCRIPT), "--ref", "ref", "good=good",
                          "const=const"], cwd=tmp_path, capture_output=True, text=True,
                         check=True).stdout.splitlines()
    good, const = out[2].split(" | "), out[3].split(" | ")
    assert good[0] == "| good" and float(good[1]) == 100.0 and good[-1] == "yes |"
    assert const[0] == "| const" and const[3] == "100.0%" and const[4] == "1"
    assert const[-1].startswith("no: ")


def test_a_missing_file_is_one_line(tmp_path):
    (tmp_path / "ref").write_text("a b\n")
    out = subprocess.run([sys.executable, str(SCRIPT), "--ref", "ref", "x=missing"],
                         cwd=tmp_path, capture_output=True, text=True, check=False)
    assert out.returncode == 1 and out.stderr.startswith("error: ")
    assert "Traceback" not in out.stderr
