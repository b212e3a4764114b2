"""experiments/claims_changes.py: the verdicts that differ between claims tables."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from experiments import claims_changes
from phrasenmt.io import InputError

FIELDS = ["claim", "statement", "verdict", "p_verdict", "p_holm", "verdict_holm"]


def _table(path: Path, rows: list[tuple[str, str, str, str, str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(FIELDS)
        for claim, verdict, p, p_holm, holm in rows:
            writer.writerow([claim, "a statement, with a comma", verdict, p, p_holm, holm])
    return path


def test_a_verdict_lost_to_a_larger_holm_family_is_listed(tmp_path: Path):
    whole = _table(tmp_path / "claims.csv", [
        ("a", "reproduced", "0.004", "0.012", "inconclusive after Holm"),
        ("b", "inconclusive", "0.3", "0.6", "inconclusive"),
        ("c", "not tested: no model", "", "", "not tested: no model")])
    family = _table(tmp_path / "claims_x.csv", [
        ("a", "reproduced", "0.004", "0.008", "reproduced"),
        ("b", "inconclusive", "0.3", "0.3", "inconclusive")])
    out = claims_changes.report([whole, family])
    assert out[0].endswith("2 tested rows of 3")
    assert out[1].endswith("2 tested rows of 2, 2 shared")
    rows = [line for line in out if line.startswith("| `")]
    assert rows == [("| `a` | reproduced; after Holm: inconclusive after Holm "
                     "| 0.004 / 0.012 | reproduced | 0.004 / 0.008 |")]
    every = [line for line in claims_changes.report([whole, family], every=True)
             if line.startswith("| `")]
    assert [line.split(" | ")[0] for line in every] == ["| `a`", "| `b`"]


def test_tables_that_agree_say_so(tmp_path: Path):
    rows = [("a", "inconclusive", "0.3", "0.3", "inconclusive")]
    one = _table(tmp_path / "one.csv", rows)
    two = _table(tmp_path / "two.csv", rows)
    assert claims_changes.report([one, two])[-1] == "no shared claim's verdict differs"


def test_a_file_that_is_not_a_claims_table_is_refused(tmp_path: Path):
    other = tmp_path / "other.csv"
    other.write_text("model,bleu\nx,1\n")
    good = _table(tmp_path / "claims.csv", [])
    with pytest.raises(InputError, match="no column claim, verdict"):
        claims_changes.report([good, other])
    with pytest.raises(InputError, match="cannot read"):
        claims_changes.report([good, tmp_path / "missing.csv"])
