"""experiments/cldr_corpus.py: an en-X corpus with document ids from Babel's CLDR tables."""

from __future__ import annotations

import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

pytest.importorskip("babel")  # the docs extra installs it; the script needs it

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "cldr_corpus.py"


def _run(tmp_path, *args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=tmp_path,
                          capture_output=True, text=True, check=False)


def _read(folder: Path, name: str) -> list[str]:
    return (folder / name).read_text("utf-8").splitlines()


def test_lao_tables_become_documents_and_held_out_ones_stay_apart(tmp_path):
    run = _run(tmp_path, "--lang", "lo", "--out", "out", "--doc-size", "20",
               "--dev-docs", "3", "--test-docs", "2")
    assert run.returncode == 0, run.stderr
    out = tmp_path / "out"
    docs = {split: _read(out, f"{split}.docs") for split in ("train", "dev", "test")}
    pairs = set()
    for split, ids in docs.items():
        en, lo = _read(out, f"{split}.en"), _read(out, f"{split}.lo")
        assert len(en) == len(lo) == len(ids) > 0
        for src, tgt in zip(en, lo):
            assert src and src != tgt and "\t" not in src + tgt
            assert any(unicodedata.name(c, "").startswith("LAO ") for c in tgt)
            assert (src, tgt) not in pairs  # no pair twice, in or across splits
            pairs.add((src, tgt))
    assert len(set(docs["dev"])) == 3 and len(set(docs["test"])) == 2
    assert not set(docs["dev"]) & set(docs["train"]) and not set(docs["test"]) & set(docs["train"])
    assert not set(docs["dev"]) & set(docs["test"])
    for ids in docs.values():  # a document's lines are contiguous, at most --doc-size
        starts = [i for i, doc in enumerate(ids) if i == 0 or ids[i - 1] != doc]
        assert len(starts) == len(set(ids))
        assert max(ids.count(doc) for doc in set(ids)) <= 20
    tables = {doc.split("/")[1] for ids in docs.values() for doc in ids}
    assert {"languages", "territories", "units", "relative_times"} <= tables
    assert ("3 days ago" in _read(out, "train.en") + _read(out, "dev.en") + _read(out, "test.en"))
    assert run.stdout.splitlines()[-2:] == [
        f"pairs\ttrain {len(docs['train'])}\tdev {len(docs['dev'])}\ttest {len(docs['test'])}",
        f"documents\ttrain {len(set(docs['train']))}\tdev 3\ttest 2"]
    again = _run(tmp_path, "--lang", "lo", "--out", "again", "--doc-size", "20",
                 "--dev-docs", "3", "--test-docs", "2")
    assert again.returncode == 0
    assert _read(tmp_path / "again", "test.en") == _read(out, "test.en")  # seeded


@pytest.mark.parametrize("args, message", [
    (["--lang", "xx-nope"],
     r"cldr_corpus: --lang xx-nope: Babel has no CLDR locale of that name"),
    (["--lang", "lo", "--dev-docs", "100", "--test-docs", "100"],
     (r"cldr_corpus: \d+ documents cannot give 100 dev and 100 test documents and leave "
      r"some for training")),
    (["--lang", "lo", "--doc-size", "0"],
     r"cldr_corpus: --doc-size, --dev-docs and --test-docs must be at least 1"),
])
def test_bad_arguments_are_one_line(tmp_path, args, message):
    run = _run(tmp_path, "--out", "out", *args)
    assert run.returncode == 2
    assert re.fullmatch(message, run.stderr.strip())
