"""Tests for tokenization, filtering, sidecars and references of the clean step."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from phrasenmt.data import clean
from phrasenmt.io import InputError, read_lines
from tests import forkrun


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _args(tmp_path: Path, *extra: str) -> list[str]:
    return ["--src-in", str(tmp_path / "in.en"), "--tgt-in", str(tmp_path / "in.de"),
            "--src-out", str(tmp_path / "out/x.en"),
            "--tgt-out", str(tmp_path / "out/x.de"),
            "--src-lang", "en", "--tgt-lang", "de",
            "--stats", str(tmp_path / "out/x.tsv"), *extra]


SRC = ["Hello, world!", "", "one two three four five six seven", "a",
       "Good morning.", "Fine"]
TGT = ["Hallo, Welt!", "leer", "eins zwei", "a b c d", "Guten Morgen.", ""]
DOCS = ["d1", "d2", "d3", "d4", "d5", "d6"]


@pytest.fixture
def corpus(tmp_path):
    _write(tmp_path / "in.en", SRC)
    _write(tmp_path / "in.de", TGT)
    _write(tmp_path / "in.docs", DOCS)
    return tmp_path


def _stats(path: Path) -> dict[str, int]:
    rows = [line.split("\t") for line in read_lines(path)]
    assert rows[0] == ["rule", "pairs", "percent", "rule_tests"]
    total = int(rows[-1][1])
    for _, pairs, percent, _ in rows[1:]:
        assert float(percent) == pytest.approx(100 * int(pairs) / total, abs=0.01)
    return {rule: int(pairs) for rule, pairs, _, _ in rows[1:]}


def test_tokenize_and_detokenize():
    assert clean.tokenize("Hello, world!", "en") == "Hello , world !"
    assert clean.tokenize("saftig-grünes Gras", "de") == "saftig-grünes Gras"
    assert clean.tokenize("It's <b> & co", "en") == "It 's < b > & co"
    assert clean.detokenize(["Hello , world !"], "en") == ["Hello, world!"]


CLUSTERS = [("I \u2764\ufe0f my \U0001f468\u200d\U0001f469\u200d\U0001f467 and the "
            "\U0001f1e9\U0001f1ea flag."),  # heart + VS16, ZWJ family, flag
            "Ich bin \U0001f469\U0001f3fd\u200d\U0001f4bb, e\u0301te\u0301!",
            "\U0001f44d\U0001f3fd ok"]  # skin tone; decomposed accents


@pytest.mark.parametrize("line", CLUSTERS)
def test_grapheme_clusters_stay_whole_and_round_trip(line: str):
    tokens = clean.tokenize(line, "en").split()
    for cluster in clean._GRAPHEME.findall(line):
        if len(cluster) > 1:
            assert any(cluster in t for t in tokens), cluster
    assert all(not clean._GRAPHEME.match(t)[0][0].isspace() for t in tokens)
    assert clean.detokenize([" ".join(tokens)], "en") == [line]


def test_detokenize_joins_pieces_of_one_cluster():
    split = ["\U0001f44d \U0001f3fd ok", "\U0001f468 \u200d \U0001f469",
             "\U0001f1e9 \U0001f1ea \U0001f1eb \U0001f1f7", "e \u0301 t"]
    assert clean.detokenize(split, "en") == [
        "\U0001f44d\U0001f3fd ok", "\U0001f468\u200d\U0001f469",
        "\U0001f1e9\U0001f1ea \U0001f1eb\U0001f1f7", "e\u0301 t"]


def test_tokenize_keeps_what_moses_keeps_around_clusters():
    # a combining mark after a space has no base: it stays, as its own token
    assert clean.tokenize("a \u0301b \x01c", "en") == "a \u0301 b c"


def test_filter_drops_and_counts_each_reason(corpus):
    args = _args(corpus, "--filter", "--max-len", "6", "--max-ratio", "3",
                 "--lowercase", "--sidecar", str(corpus / "in.docs"),
                 str(corpus / "out/x.docs"))
    assert clean.main(args) == 0
    assert read_lines(corpus / "out/x.en") == ["hello , world !", "good morning ."]
    assert read_lines(corpus / "out/x.de") == ["hallo , welt !", "guten morgen ."]
    assert read_lines(corpus / "out/x.docs") == ["d1", "d5"]
    assert _stats(corpus / "out/x.tsv") == {
        "empty": 2, "too_long": 1, "ratio": 1, "kept": 2, "total": 6}


def test_evaluation_split_keeps_every_line(corpus):
    _write(corpus / "in.en", [s or "x" for s in SRC])
    _write(corpus / "in.de", [t or "y" for t in TGT])
    assert clean.main(_args(corpus)) == 0  # no --filter: nothing is dropped
    assert len(read_lines(corpus / "out/x.en")) == len(SRC)
    assert _stats(corpus / "out/x.tsv")["kept"] == len(SRC)


@pytest.mark.parametrize("option, value", [("--max-len", "1"), ("--max-ratio", "1")])
def test_a_filter_bound_without_filter_is_a_usage_error(corpus, capsys, option, value):
    with pytest.raises(SystemExit) as done:  # it would drop nothing
        clean.main(_args(corpus, option, value))
    assert done.value.code == 2
    assert capsys.readouterr().err.strip() == (
        f"python -m phrasenmt.data.clean: error: {option} needs --filter; without "
        "it the option does nothing (see --help)")
    assert not (corpus / "out").exists() or not list((corpus / "out").iterdir())


def test_evaluation_empty_line_is_an_error(corpus):
    with pytest.raises(InputError) as err:
        clean.main(_args(corpus))
    assert f"{corpus / 'in.en'}:2: empty line" == str(err.value)
    assert not (corpus / "out").exists() or not list((corpus / "out").iterdir())


def test_reference_raw_or_detokenized(corpus):
    _write(corpus / "in.en", ["a b", "c"])
    _write(corpus / "in.de", ["Hallo,  Welt!", "Es geht's ."])
    clean.main(_args(corpus, "--ref-out", str(corpus / "out/ref.de")))
    assert read_lines(corpus / "out/ref.de") == ["Hallo,  Welt!", "Es geht's ."]
    _write(corpus / "in.de", ["Hallo , Welt !", "Es geht &quot; gut &quot; ."])
    clean.main(_args(corpus, "--pretokenized", "--ref-out",
                     str(corpus / "out/ref.de")))
    assert read_lines(corpus / "out/ref.de") == ["Hallo, Welt!", 'Es geht "gut".']
    assert read_lines(corpus / "out/x.de")[0] == "Hallo , Welt !"


ZERO_WIDTH = "\u200b\u200c\u200d"  # space, non-joiner, joiner


@pytest.mark.parametrize("line", [
    "%s\u200c נכשל: %d",  # a non-joiner after a printf conversion
    "%s \u200bנכשל",  # a zero-width space beside a space: no break to mark
    "שלום\u200b",  # or at the end of the line
    "על\u200d גבי %.*s",  # a joiner at the end of a word
    "שלום\u200bעולם",  # a zero-width space between two words
])
def test_tokens_and_reference_hold_the_same_zero_width_characters(tmp_path, line):
    """What tokenization removes the reference loses too; what it keeps (a
    joiner, a non-joiner, a zero-width space between two words) the
    reference keeps, and detokenization puts it back where it was."""
    _write(tmp_path / "in.en", ["a b"])
    _write(tmp_path / "in.de", [line])
    args = _args(tmp_path, "--ref-out", str(tmp_path / "out/ref.he"))
    clean.main([a if a != "de" else "he" for a in args])
    tokens, ref = read_lines(tmp_path / "out/x.de")[0], read_lines(tmp_path / "out/ref.he")[0]
    assert [c for c in tokens if c in ZERO_WIDTH] == [c for c in ref if c in ZERO_WIDTH]
    assert clean.detokenize([tokens], "he") == [ref]


@pytest.mark.parametrize("line, lang", [
    ("می\u200cخواهم بروم", "fa"),  # Persian: the non-joiner inside a word
    ("ଆର୍ଜେଣ୍ଟାଇନ୍\u200d ପେସୋ", "or"),  # Odia: a joiner after a virama
    ("ຄຳ\u200bສັບ ອື່ນ", "lo"),  # Lao: a zero-width space between words
])
def test_meaningful_zero_width_characters_stay_in_the_reference(tmp_path, line, lang):
    _write(tmp_path / "in.en", ["a b"])
    _write(tmp_path / "in.de", [line])
    args = _args(tmp_path, "--ref-out", str(tmp_path / "out/ref"))
    clean.main([a if a != "de" else lang for a in args])
    assert read_lines(tmp_path / "out/ref") == [line]
    assert clean.detokenize(read_lines(tmp_path / "out/x.de"), lang) == [line]


def _no_outputs(folder: Path) -> bool:
    return not folder.exists() or not list(folder.iterdir())


def test_mismatched_line_counts(corpus):
    _write(corpus / "in.de", TGT[:-1])
    with pytest.raises(InputError, match="has 6 lines but .*in.de has 5"):
        clean.main(_args(corpus, "--filter"))
    assert _no_outputs(corpus / "out")


def test_sidecar_mismatch(corpus):
    _write(corpus / "in.docs", DOCS[:3])
    with pytest.raises(InputError, match="sidecar has 3 lines") as err:
        clean.main(_args(corpus, "--filter", "--sidecar", str(corpus / "in.docs"),
                         str(corpus / "out/x.docs")))
    assert str(corpus / "in.docs") in str(err.value)
    assert _no_outputs(corpus / "out")


def test_bad_utf8_names_file_and_line(corpus):
    (corpus / "in.de").write_bytes(b"ok\nok\nok\n\xc3\x28 bad\nok\nok\n")
    with pytest.raises(InputError) as err:
        clean.main(_args(corpus, "--filter"))
    assert str(err.value).startswith(f"{corpus / 'in.de'}:4: invalid UTF-8")
    assert _no_outputs(corpus / "out")


def test_cli_reports_one_line_and_exit_1(corpus):
    cmd = [sys.executable, "-m", "phrasenmt.data.clean", *_args(corpus, "--filter")]
    cmd[cmd.index("--src-in") + 1] = str(corpus / "missing.en")
    proc = forkrun.run(cmd, check=False, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.strip() == f"error: {corpus / 'missing.en'}: file not found"
    assert _no_outputs(corpus / "out")


def test_a_heavy_rule_share_just_over_the_limit_is_not_printed_as_the_limit():
    counts = clean.Counter({"empty": 0, "too_long": 501, "ratio": 0})
    notes = {rule: "x" for rule in clean.REASONS}
    [line] = clean.warn_heavy_rules(counts, 10000, Path("t.en"), notes)
    assert "dropped 501 of 10000 pairs (5.01 %, more than 5%)" in line
