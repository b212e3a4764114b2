"""The parse CLI: gold trees are validated; missing stanza models give one line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from phrasenmt import parse
from phrasenmt.io import InputError
from tests import forkrun

TREE = "(ROOT (S (NP (DT the) (NN dog)) (VP (VBZ barks))))"


def test_missing_stanza_models_say_how_to_get_them(tmp_path: Path):
    text = tmp_path / "src.en"
    text.write_text("the dog barks\n", encoding="utf-8")
    result = forkrun.run(
        [sys.executable, "-m", "phrasenmt.parse", "stanza", "--text", str(text),
         "--stanza-dir", str(tmp_path / "none"), "--out", str(tmp_path / "o")],
        capture_output=True, text=True, check=False)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "stanza.download('en')" in lines[0]
    assert "stanza_dir" in lines[0] and not (tmp_path / "o").exists()


def test_gold_trees_must_match_the_text(tmp_path: Path):
    text = tmp_path / "src.en"
    text.write_text("the dog barks\nthe cat\n", encoding="utf-8")
    gold = tmp_path / "gold.trees"
    gold.write_text(f"{TREE}\n{TREE}\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"gold\.trees:2: tree leaves differ"):
        parse.check_gold(text, gold)


def test_non_english_source_is_refused(tmp_path: Path):
    with pytest.raises(InputError, match="English source"):
        parse.main(["stanza", "--text", str(tmp_path / "x"), "--lang", "de",
                    "--out", str(tmp_path / "o")])
