"""Tests for phrasenmt.embeddings: longest-match rewriting and fastText tables."""

from __future__ import annotations

import pytest

from phrasenmt.embeddings import PhraseIndex, main
from phrasenmt.io import InputError

PHRASES = [("a", "b"), ("a", "b", "c"), ("b", "c", "d"), ("c", "d")]


@pytest.mark.parametrize("text,expected", [
    ("a b c d", "a_b_c d"),          # longest phrase at position 0 wins
    ("x a b x", "x a_b x"),
    ("x b c d", "x b_c_d"),
    ("a b x c d", "a_b x c_d"),      # scanning resumes after a match
    ("b c", "b c"),                  # prefix of a phrase is not a phrase
    ("a a b c d d", "a a_b_c d d"),
])
def test_greedy_longest_match_left_to_right(text, expected):
    assert " ".join(PhraseIndex(PHRASES).rewrite(text.split())) == expected


def test_left_to_right_beats_a_longer_later_phrase():
    index = PhraseIndex([("a", "b"), ("b", "c", "d", "e")])
    assert index.rewrite(["a", "b", "c", "d", "e"]) == ["a_b", "c", "d", "e"]


def _phrase_tsv(path, phrases):
    path.write_text("phrase\tfrequency\tpmi\n" + "".join(
        f"{' '.join(p)}\t2\t1.0\n" for p in phrases))
    return str(path)


def test_concat_and_train_tables(tmp_path):
    phrases = _phrase_tsv(tmp_path / "p.tsv", [("quality", "of", "life"),
                                               ("high", "school"),
                                               ("never", "seen")])
    (tmp_path / "t").write_text("the quality of life is good\n"
                                "a high school in town\n" * 20)
    (tmp_path / "m").write_text("life of quality\n")
    cat = str(tmp_path / "cat")
    assert main(["concat", "--text", str(tmp_path / "t"), "--extra-mono",
                 str(tmp_path / "m"), "--phrases", phrases, "--out", cat]) == 0
    lines = (tmp_path / "cat").read_text().splitlines()
    assert lines[:2] == ["the quality_of_life is good", "a high_school in town"]
    assert lines[-1] == "life of quality" and len(lines) == 41
    out = tmp_path / "emb"
    assert main(["train", "--text", cat, "--phrases", phrases, "--dim", "8",
                 "--epoch", "1", "--threads", "1", "--bucket", "1000",
                 "--out-dir", str(out)]) == 0
    words = _read_vec(out / "words.vec", 8)
    table = _read_vec(out / "phrases.vec", 8)
    assert set(table) == {"quality_of_life", "high_school", "never_seen"}
    assert {"the", "is", "good", "a", "in", "town", "life", "of"} <= set(words)
    assert not set(words) & set(table)
    assert any(x != 0 for x in table["never_seen"])  # unseen: subword vector
    assert (out / "model.bin").stat().st_size > 0


def _read_vec(path, dim):
    lines = path.read_text().splitlines()
    count, size = map(int, lines[0].split())
    assert size == dim and count == len(lines) - 1
    rows = [line.split(" ") for line in lines[1:]]
    assert all(len(r) == dim + 1 for r in rows)
    return {r[0]: [float(x) for x in r[1:]] for r in rows}


def test_bad_phrase_list_names_file_and_line(tmp_path):
    bad = tmp_path / "p.tsv"
    bad.write_text("phrase\tfrequency\tpmi\nquality of life\t3\t1.0\nsolo\t2\t1\n")
    with pytest.raises(InputError, match=r"p.tsv:3: expected"):
        main(["concat", "--text", str(bad), "--phrases", str(bad),
              "--out", str(tmp_path / "o")])


def test_training_reads_no_uninitialized_memory(tmp_path):
    """fastText with one thread random-initialises only the first tenth of its
    input matrix and relies on the rest being zero; a build that allocates it
    without zeroing trains on whatever the heap held (NaN in a long-lived
    process).  glibc's MALLOC_PERTURB_ fills fresh allocations with junk, so
    the vectors must not change under it."""
    import os
    import subprocess
    import sys

    words = ["the", "cat", "sat", "on", "mat", "dog", "ran", "far"]
    (tmp_path / "t").write_text("".join(
        " ".join(words[(i + j) % len(words)] for j in range(6)) + "\n"
        for i in range(40)))
    tables = []
    for perturb in ("", "128"):
        out = tmp_path / f"out{perturb}"
        env = dict(os.environ, MALLOC_PERTURB_=perturb)
        done = subprocess.run(
            [sys.executable, "-m", "phrasenmt.embeddings", "train", "--text",
             str(tmp_path / "t"), "--out-dir", f"{out}/", "--dim", "8",
             "--epoch", "2", "--threads", "1", "--bucket", "1000"],
            env=env, capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr
        tables.append((out / "words.vec").read_text())
    assert tables[0] == tables[1]
