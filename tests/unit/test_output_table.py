"""Embedding tables (.vec) are validated whole before a model uses them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from phrasenmt.io import InputError
from phrasenmt.models.output_table import build_output_table, read_vec
from phrasenmt.text.vocab import Vocabulary

GOOD = "3 2\na 0.1 0.2\nb -1 2e-3\nc 0 0\n"


def vec(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "words.vec"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_valid_table_reads_every_row(tmp_path):
    table = read_vec(vec(tmp_path, GOOD), 2)
    assert list(table) == ["a", "b", "c"]
    np.testing.assert_allclose(table["b"], [-1, 0.002])


@pytest.mark.parametrize("text, message", [
    ("three 2\na 0.1 0.2\n", ":1: header 'three 2' is not two integers"),
    ("3\na 0.1 0.2\n", ":1: header '3' is not two integers"),
    ("3 2 1\na 0.1 0.2\n", ":1: header '3 2 1' is not two integers"),
    ("٣ 2\na 0.1 0.2\n", ":1: header '٣ 2' is not two integers"),
    ("3 4\na 0.1 0.2\n", ":1: vectors have 4 dimensions, but embed_dim is 2"),
    ("615 2\na 0.1 0.2\nb 1 1\n", ":1: header says 615 vectors but the file has 2"),
    ("2 2\na 0.1 nan\nb 1 1\n", ":2: component 2 is not a finite number"),
    ("2 2\na 0.1 0.2\nb inf 1\n", ":3: component 1 is not a finite number"),
    ("2 2\na 0.1 0.2\na 1 1\n", ":3: token 'a' appears twice"),
    ("2 2\na 0.1 0.2\nb 1\n", ":3: expected a token and 2 numbers"),
    ("2 2\na 0.1 0.2\nb 1 x\n", ":3: not a number in the vector"),
    ("", "empty embedding file"),
])
def test_bad_tables_are_one_clear_error(tmp_path, text, message):
    with pytest.raises(InputError, match=message):
        read_vec(vec(tmp_path, text), 2)


@pytest.mark.parametrize("text, message", [
    ("0 2\n", r"words\.vec:1: header says 0 vectors: a word table without words"),
    ("2 2\nx 0.1 0.2\ny 1 1\n",
     r"words\.vec: covers none of the 3 target tokens \(e\.g\. 'a' is not in it\)"),
])
def test_a_table_that_covers_no_target_token_is_refused(tmp_path, text, message):
    vocab = Vocabulary.build(["a b c"])
    with pytest.raises(InputError, match=message):
        build_output_table(vocab, 2, str(vec(tmp_path, text)))


def test_a_table_that_misses_some_tokens_is_used_with_a_note(tmp_path, capsys):
    vocab = Vocabulary.build(["a b c"])
    table, _ = build_output_table(vocab, 2, str(vec(tmp_path, "1 2\nb 0.6 0.8\n")))
    np.testing.assert_allclose(table[vocab.stoi["b"]].numpy(), [0.6, 0.8], rtol=1e-6)
    assert "note: 4 target tokens have no table vector" in capsys.readouterr().err


@pytest.fixture(scope="module")
def fasttext_bin(tmp_path_factory) -> Path:
    """A tiny fastText skipgram model of 2 dimensions."""
    import argparse

    from phrasenmt.embeddings import train_fasttext

    out = tmp_path_factory.mktemp("ft")
    (out / "text").write_text("a b c d e f\nb c d e f a\n" * 20, encoding="utf-8")
    args = argparse.Namespace(dim=2, epoch=1, min_count=1, minn=1, maxn=2,
                              threads=1, seed=1, bucket=100)
    train_fasttext(str(out / "text"), args).save_model(str(out / "model.bin"))
    return out / "model.bin"


def _with_model(tmp_path: Path, model: Path, dim: int = 2) -> None:
    """Build a table whose token 'zz' is in no .vec file: fastText gives its row."""
    vocab = Vocabulary.build(["a zz"])
    build_output_table(vocab, dim, str(vec(tmp_path, "1 2\na 0.6 0.8\n")),
                       fasttext_model=str(model))


def test_a_whole_fasttext_model_gives_the_missing_rows(tmp_path, fasttext_bin):
    _with_model(tmp_path, fasttext_bin)


@pytest.mark.parametrize("cut, message", [
    (1000, r"cut\.bin: not a fastText model, or cut short$"),
    (-8, (r"cut\.bin: not a fastText model, or cut short: its header implies "
          r"[0-9,]+ bytes, the file has [0-9,]+")),
])
def test_a_fasttext_model_cut_short_is_one_line(tmp_path, fasttext_bin, cut, message):
    data = fasttext_bin.read_bytes()
    (tmp_path / "cut.bin").write_bytes(data[:cut])
    with pytest.raises(InputError, match=message):
        _with_model(tmp_path, tmp_path / "cut.bin")


def test_a_file_that_is_not_a_fasttext_model_is_one_line(tmp_path):
    (tmp_path / "junk.bin").write_bytes(b"\x01\x02" * 500)
    with pytest.raises(InputError, match=r"junk\.bin: not a fastText model"):
        _with_model(tmp_path, tmp_path / "junk.bin")


def test_a_fasttext_model_of_another_width_is_refused(tmp_path, fasttext_bin):
    with pytest.raises(InputError, match="the fastText model has 2 dimensions, but "
                                         "embed_dim is 3"):
        vocab = Vocabulary.build(["a zz"])
        build_output_table(vocab, 3, str(vec(tmp_path, "1 3\na 0.6 0.8 0\n")),
                           fasttext_model=str(fasttext_bin))
