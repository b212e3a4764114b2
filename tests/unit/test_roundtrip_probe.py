"""experiments/roundtrip_probe.py: CLDR names through tokenization and back."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("babel")  # the docs extra installs it; the probe needs it

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "roundtrip_probe.py"


def test_the_probe_counts_names_that_do_not_come_back(tmp_path):
    out = tmp_path / "rt.json"
    run = subprocess.run([sys.executable, str(SCRIPT), "--out", str(out), "--limit", "40",
                          "--langs", "te", "fr", "hy", "shn", "km", "ja"],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    result = json.loads(out.read_text("utf-8"))
    per = result["per_language"]
    assert set(per) == {"te", "fr", "hy", "shn", "km", "ja"}
    assert result["summary"]["lines"] == sum(v["lines"] for v in per.values())
    assert result["summary"]["failed"] == sum(v["failed"] for v in per.values())
    assert all(v["lines"] > 40 for v in per.values())  # three tables, up to 40 each
    for lang in ("te", "fr", "hy", "shn", "km"):  # each failed before the fixes it names
        assert per[lang]["failed"] == 0, per[lang]["examples"]
    # Japanese spacing the tokens cannot tell (a bracket after a word, with or
    # without a space): the probe counts what does not come back
    assert per["ja"]["failed"] > 0 and per["ja"]["examples"]
    assert run.stdout.splitlines()[-1].startswith("all\t")


def test_the_probe_reads_gettext_catalogs_of_a_locale_folder(tmp_path):
    from tests.unit.test_gettext_corpus import write_mo

    folder = tmp_path / "ca@valencia" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    write_mo(folder / "x.mo", {"Cannot open %s": "No s'ha pogut obrir %s",
                               "Time: %H:%M": "Hora: %H:%M",
                               "and/or": "i/o", "same": "same"})  # untranslated: left out
    (folder / "broken.mo").write_bytes(b"not a catalog")
    out = tmp_path / "rt.json"
    run = subprocess.run([sys.executable, str(SCRIPT), "--source", "gettext", "--locale-dir",
                          str(tmp_path), "--out", str(out)],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    per = json.loads(out.read_text("utf-8"))["per_language"]
    assert per == {"ca@valencia": {"lines": 3, "failed": 0, "examples": []}}
    assert "skipped 1 catalogs" in run.stderr
