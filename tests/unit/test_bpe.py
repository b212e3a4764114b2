"""Tests for joint BPE learning/applying and BPE removal."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from phrasenmt import bpe
from phrasenmt.io import InputError, read_lines
from tests import forkrun

STEMS = ["haus", "garten", "tür", "fenster", "baum", "weg", "spiel"]


def _corpus(seed: int, n: int = 300) -> tuple[list[str], list[str]]:
    """Compound-rich toy lines so merges are shared across words and sides."""
    rng = random.Random(seed)

    def word() -> str:
        return "".join(rng.sample(STEMS, rng.randint(1, 3)))

    src = [" ".join(word() for _ in range(rng.randint(1, 8))) for _ in range(n)]
    tgt = [" ".join(word() + "s" for _ in range(rng.randint(1, 8))) for _ in range(n)]
    return src, tgt


@pytest.fixture
def learned(tmp_path):
    src, tgt = _corpus(0)
    (tmp_path / "tr.src").write_text("\n".join(src) + "\n")
    (tmp_path / "tr.tgt").write_text("\n".join(tgt) + "\n")
    assert bpe.main(["learn", "--src", str(tmp_path / "tr.src"), "--tgt",
                     str(tmp_path / "tr.tgt"), "--merges", "20", "--codes",
                     str(tmp_path / "codes"), "--vocab-src", str(tmp_path / "v.src"),
                     "--vocab-tgt", str(tmp_path / "v.tgt")]) == 0
    return tmp_path


def test_remove_bpe():
    assert bpe.remove_bpe("ha@@ us gar@@ t@@ en .") == "haus garten ."
    assert bpe.remove_bpe("ein hau@@") == "ein hau"
    assert bpe.remove_bpe("plain words") == "plain words"


def test_learn_writes_codes_and_vocabularies(learned):
    codes = read_lines(learned / "codes")
    assert codes[0].startswith("#version")
    assert len(codes) == 21 and all(len(c.split()) == 2 for c in codes[1:])
    vocab = [line.split() for line in read_lines(learned / "v.tgt")]
    counts = [int(c) for _, c in vocab]
    assert counts == sorted(counts, reverse=True)
    assert any(w.endswith("@@") for w, _ in vocab)


def _apply(folder: Path, inp: Path, out: Path, *extra: str) -> list[str]:
    bpe.main(["apply", "--codes", str(folder / "codes"), "--in", str(inp),
              "--out", str(out), *extra])
    return read_lines(out)


def test_apply_round_trips(learned):
    src, _ = _corpus(1, 50)  # unseen lines from the same distribution
    (learned / "dev.src").write_text("\n".join(src) + "\n")
    seg = _apply(learned, learned / "dev.src", learned / "dev.bpe",
                 "--vocab", str(learned / "v.src"), "--threshold", "1")
    assert [bpe.remove_bpe(line) for line in seg] == src
    assert sum("@@" in line for line in seg) > 10  # something was segmented
    assert len(" ".join(seg).split()) > len(" ".join(src).split())


def test_vocabulary_threshold_splits_rare_subwords(learned):
    (learned / "x").write_text("haus\n")
    plain = _apply(learned, learned / "x", learned / "a")[0].split()
    assert len(plain) < 4  # merged beyond characters
    # every character is frequent, the merged subwords are rare (count 1)
    vocab = [f"{p} 1" for p in plain] + [f"{c}@@ 5" for c in "haus"] + ["s 5"]
    (learned / "v").write_text("\n".join(vocab) + "\n")
    strict = _apply(learned, learned / "x", learned / "b", "--vocab",
                    str(learned / "v"), "--threshold", "2")
    assert strict == ["h@@ a@@ u@@ s"]
    loose = _apply(learned, learned / "x", learned / "c", "--vocab",
                   str(learned / "v"), "--threshold", "1")
    assert loose[0].split() == plain


@pytest.mark.parametrize("module, command", [
    ("phrasenmt.bpe", "apply"), ("phrasenmt.evaluate.contrastive", "bpe")])
def test_a_threshold_without_a_vocabulary_is_a_usage_error(learned, module, command):
    import sys

    out = learned / "t.out"
    result = forkrun.run(
        [sys.executable, "-m", module, command, "--codes", str(learned / "codes"),
         "--threshold", "2", "--in", str(learned / "x"), "--out", str(out)],
        capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 2 and not out.exists()
    needs = "--vocab" if command == "apply" else "--vocab-src or --vocab-tgt"
    assert result.stderr.strip() == (
        f"python -m {module} {command}: error: --threshold needs {needs}; without it "
        "the option does nothing (see --help)")


def test_bad_codes_file_names_line(learned):
    (learned / "bad").write_text("#version: 0.2\na b\nc d e\n")
    with pytest.raises(InputError) as err:
        bpe.main(["apply", "--codes", str(learned / "bad"), "--in",
                  str(learned / "tr.src"), "--out", str(learned / "o")])
    assert str(err.value).startswith(f"{learned / 'bad'}:3:")


def test_vocab_subcommand_matches_learn(learned):
    bpe.main(["vocab", "--codes", str(learned / "codes"), "--in",
              str(learned / "tr.tgt"), "--out", str(learned / "v2.tgt")])
    assert read_lines(learned / "v2.tgt") == read_lines(learned / "v.tgt")


@pytest.mark.parametrize("src, tgt, min_frequency", [
    ("a b c\n", "x y\n", 2),  # one-letter words: no pair of symbols at all
    ("ab ab ab\n", "cd\n", 5),  # pairs, but none frequent enough
])
def test_nothing_to_merge_is_one_error_and_no_codes(tmp_path: Path, src: str,
                                                    tgt: str, min_frequency: int):
    (tmp_path / "s").write_text(src, encoding="utf-8")
    (tmp_path / "t").write_text(tgt, encoding="utf-8")
    with pytest.raises(InputError, match="nothing to merge"):
        bpe.main(["learn", "--src", str(tmp_path / "s"), "--tgt", str(tmp_path / "t"),
                  "--merges", "10", "--min-frequency", str(min_frequency),
                  "--codes", str(tmp_path / "out" / "codes")])
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["learn", "vocab", "apply", "empty vocab"])
def test_an_empty_text_or_vocabulary_is_an_error(learned, command: str):
    (learned / "empty").write_text("", encoding="utf-8")
    empty, codes = str(learned / "empty"), str(learned / "codes")
    argv = {"learn": ["learn", "--src", empty, "--tgt", str(learned / "tr.tgt"),
                      "--merges", "5", "--codes", str(learned / "o")],
            "vocab": ["vocab", "--codes", codes, "--in", empty, "--out",
                      str(learned / "o")],
            "apply": ["apply", "--codes", codes, "--in", empty, "--out",
                      str(learned / "o")],
            "empty vocab": ["apply", "--codes", codes, "--vocab", empty, "--in",
                            str(learned / "tr.src"), "--out", str(learned / "o")],
            }[command]
    with pytest.raises(InputError) as err:
        bpe.main(argv)
    assert str(err.value).startswith(f"{empty}: the file is empty")
    assert not (learned / "o").exists()


def test_a_threshold_above_every_count_splits_words_into_characters():
    """No subword reaches the vocabulary threshold: subword-nmt would take the
    empty vocabulary for none and apply the codes unchecked."""
    codes = bpe.learn_codes(bpe.word_counts(["hello world hello"] * 5), 10)
    assert bpe.Segmenter(codes).line("hello world") == "hello world"
    assert bpe.Segmenter(codes, set()).line("hello world") == (
        "h@@ e@@ l@@ l@@ o w@@ o@@ r@@ l@@ d")


def test_codes_without_the_version_line_are_refused(learned):
    lines = read_lines(learned / "codes")
    (learned / "nohdr").write_text("\n".join(lines[1:]) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        bpe.main(["apply", "--codes", str(learned / "nohdr"), "--in",
                  str(learned / "tr.src"), "--out", str(learned / "o_nohdr")])
    assert str(err.value).startswith(
        f"{learned / 'nohdr'}:1: expected '#version: 0.2' as the first line")
    assert not (learned / "o_nohdr").exists()
