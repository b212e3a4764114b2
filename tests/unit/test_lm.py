"""The external KenLM language model: lmplz training, natural-log queries, bad input."""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import pytest

from phrasenmt import lm
from phrasenmt.io import InputError, run_cli

NEEDS_LMPLZ = "lmplz not built here: run 'make kenlm' (see docs/kenlm.md)"
WORDS = [f"w{i}" for i in range(400)]
SENTENCES = [["w1", "w2", "w3"], ["w3", "w2", "w1", "w0"], [], ["w5", "oov", "w5"],
             ["w7"] * 6]


def generated_text(n_lines: int = 300, seed: int = 1) -> list[str]:
    """Seeded sentences: a Zipfian vocabulary (so rare words exist, as Kneser–Ney
    discounts need) with some n-gram structure (often the next word in a chain)."""
    rng = random.Random(seed)
    weights = [1 / (rank + 1) for rank in range(len(WORDS))]
    lines = []
    for _ in range(n_lines):
        word, sent = rng.choices(range(len(WORDS)), weights)[0], []
        for _ in range(rng.randint(3, 12)):
            sent.append(WORDS[word])
            follow = rng.random() < 0.5
            word = (word + 1) % len(WORDS) if follow else rng.choices(range(len(WORDS)),
                                                              weights)[0]
        lines.append(" ".join(sent))
    return lines


def cli(argv: list[str], capfd) -> tuple[int, str, str]:
    """Run `python -m phrasenmt.lm ARGV` in-process: exit code, stdout, stderr."""
    with pytest.raises(SystemExit) as done:
        run_cli(lm.main, argv)
    out, err = capfd.readouterr()
    return done.value.code, out, err


def assert_one_error_line(err: str, *names: object) -> None:
    """A CLI failure is one `error:` line that names what is wrong."""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    for name in names:
        assert str(name) in lines[0], (name, lines[0])


@pytest.fixture
def no_lmplz(monkeypatch, tmp_path):
    """Hide lmplz: an empty PATH and a Python whose bin/ has no KenLM programs."""
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(sys, "executable", str(tmp_path / "bin" / "python"))


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> tuple[Path, Path]:
    """A 4-gram KenLM model trained by the CLI with the real lmplz: (text, model)."""
    if lm.lmplz_path() is None:
        pytest.skip(NEEDS_LMPLZ)
    pytest.importorskip("kenlm", reason="the kenlm module is installed by make kenlm")
    tmp = tmp_path_factory.mktemp("lm")
    text = tmp / "train.txt"
    text.write_text("\n".join(generated_text()) + "\n")
    model = tmp / "lm.bin"
    with pytest.raises(SystemExit) as done:
        run_cli(lm.main, ["train", "--text", str(text), "--order", "4",
                          "--out", str(model), "--memory", "50M"])
    assert done.value.code == 0
    return text, model


def test_score_is_kenlm_full_scores_in_natural_log(trained):
    import kenlm

    reference = kenlm.Model(str(trained[1]))
    model = lm.LanguageModel(trained[1])
    assert model.order == 4
    for words in SENTENCES:
        log10 = sum(prob for prob, _, _ in reference.full_scores(" ".join(words)))
        assert model.score(words) == pytest.approx(log10 * math.log(10), rel=1e-6)


def test_advance_and_end_chain_equals_score(trained):
    model = lm.LanguageModel(trained[1])
    for words in SENTENCES:
        state, total = model.begin(), 0.0
        for word in words:
            state, logp = model.advance(state, word)
            assert logp < 0
            total += logp
        assert total + model.end(state) == pytest.approx(model.score(words), abs=1e-6)


def test_next_word_probabilities_sum_to_one(trained):
    # natural-log scores: exp() of every continuation of a context sums to 1
    model = lm.LanguageModel(trained[1])
    vocab = set(trained[0].read_text().split())
    state, _ = model.advance(model.begin(), "w3")
    total = sum(math.exp(model.advance(state, w)[1]) for w in [*vocab, "<unk>"])
    assert total + math.exp(model.end(state)) == pytest.approx(1.0, abs=1e-3)


def test_trained_file_is_binary_unless_build_binary_is_missing(trained, tmp_path,
                                                               monkeypatch):
    text, binary = trained
    assert binary.read_bytes().startswith(b"mmap lm ")  # KenLM's binary header
    found = lm.find_tool
    monkeypatch.setattr(lm, "find_tool",
                        lambda name: None if name == "build_binary" else found(name))
    arpa = tmp_path / "lm.arpa"
    assert "ARPA" in lm.train(text, arpa, order=4, memory="50M")
    assert "\\data\\" in arpa.read_text()[:100]
    a, b = lm.LanguageModel(arpa), lm.LanguageModel(binary)
    for words in SENTENCES:
        assert a.score(words) == pytest.approx(b.score(words), abs=1e-5)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lm.arpa"]


def test_score_cli_writes_one_natural_log_score_per_line(trained, tmp_path, capfd):
    text, model = tmp_path / "hyp.txt", tmp_path / "scores.txt"
    text.write_text("\n".join(" ".join(s) for s in SENTENCES) + "\n")
    code, _, err = cli(["score", "--lm", str(trained[1]), "--text", str(text),
                        "--out", str(model)], capfd)
    assert code == 0 and "5 lines" in err
    scores = [float(x) for x in model.read_text().splitlines()]
    expected = [lm.LanguageModel(trained[1]).score(s) for s in SENTENCES]
    assert scores == pytest.approx(expected, abs=1e-5)


def test_available_prints_the_lmplz_path(trained, capfd):
    code, out, _ = cli(["available"], capfd)
    assert code == 0 and Path(out.strip()) == lm.lmplz_path()


def test_vocabulary_check_accepts_own_words_and_rejects_others(trained):
    model = lm.LanguageModel(trained[1])
    vocab = sorted(set(trained[0].read_text().split()))
    model.check_vocabulary(["<pad>", "<s>", "</s>", "<unk>", *vocab], "vocab.tgt")
    other = ["<pad>", "<unk>", *WORDS[:3], *(f"x{i}" for i in range(10))]
    with pytest.raises(InputError) as err:
        model.check_vocabulary(other, "vocab.tgt")
    message = str(err.value)
    assert "\n" not in message and str(trained[1]) in message
    assert "only 3 of the 13 words of vocab.tgt" in message
    with pytest.raises(InputError, match="no words besides"):
        model.check_vocabulary(["<pad>", "<s>"], "vocab.tgt")


def test_missing_and_non_lm_files_are_one_line_each(trained, tmp_path, capfd):
    text = tmp_path / "hyp.txt"
    text.write_text("w1 w2\n")
    truncated = tmp_path / "truncated.bin"
    truncated.write_bytes(trained[1].read_bytes()[:200])
    not_lm = tmp_path / "notes.txt"
    not_lm.write_text("hello world\n")
    for bad in (tmp_path / "missing.bin", not_lm, truncated):
        out = tmp_path / "scores.txt"
        code, _, err = cli(["score", "--lm", str(bad), "--text", str(text),
                            "--out", str(out)], capfd)
        assert code == 1 and not out.exists()
        assert_one_error_line(err, bad)


def test_train_without_lmplz_says_how_to_get_it(no_lmplz, tmp_path, capfd):
    text, out = tmp_path / "train.txt", tmp_path / "lm.bin"
    text.write_text("w1 w2 w3\n")
    assert lm.lmplz_path() is None
    code, _, err = cli(["train", "--text", str(text), "--out", str(out)], capfd)
    assert code == 1 and not out.exists()
    assert_one_error_line(err, "lmplz not found", "make kenlm", "envs/kenlm.yaml")
    code, out_text, err = cli(["available"], capfd)
    assert code == 1 and out_text == ""
    assert_one_error_line(err, "make kenlm")


def test_lmplz_failure_names_the_text_and_writes_nothing(trained, tmp_path, capfd):
    text, out = tmp_path / "tiny.txt", tmp_path / "lm.bin"
    text.write_text("w1 w2\n" * 3)  # no singletons: no Kneser-Ney discounts
    code, _, err = cli(["train", "--text", str(text), "--out", str(out)], capfd)
    assert code == 1
    assert_one_error_line(err, text, "lmplz failed", "discount_fallback")
    assert list(tmp_path.iterdir()) == [text]  # no model, no temp files
    code, _, _ = cli(["train", "--text", str(text), "--out", str(out),
                      "--discount-fallback"], capfd)
    assert code == 0 and lm.LanguageModel(out).score(["w1", "w2"]) < 0


@pytest.mark.parametrize("content, args, names", [
    ("w1 <s> w2\n", [], ["tiny.txt:1", "<s>"]),
    ("\n\n", [], ["tiny.txt", "no words"]),
    ("w1 w2\n", ["--order", "9"], ["--order"]),
    ("w1 w2\n", ["--memory", "lots"], ["--memory"]),
])
def test_bad_training_input_is_one_line(trained, tmp_path, capfd, content, args,
                                        names):
    text, out = tmp_path / "tiny.txt", tmp_path / "lm.bin"
    text.write_text(content)
    code, _, err = cli(["train", "--text", str(text), "--out", str(out), *args],
                       capfd)
    assert code == 1 and not out.exists()
    assert_one_error_line(err, *names)


def read_arpa(path: Path) -> tuple[dict[int, int], dict[int, list[list[str]]]]:
    """An ARPA file's header counts and its n-gram lines (fields) per order."""
    counts: dict[int, int] = {}
    grams: dict[int, list[list[str]]] = {}
    order = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("ngram "):
            n, count = line[6:].split("=")
            counts[int(n)] = int(count)
        elif line.endswith("-grams:"):
            order = int(line[1:].split("-")[0])
            grams[order] = []
        elif line and order and line != "\\end\\":
            grams[order].append(line.split("\t"))
    return counts, grams


def test_lmplz_writes_a_well_formed_kneser_ney_arpa(trained, tmp_path):
    # kenlm-ex's lmplz, built with tools/kenlm_ex_lmplz.sed, must write what
    # upstream lmplz writes: log10 probabilities <= 0 (an unset --collapse_values
    # gave positive ones), backoffs on every order but the highest, and as many
    # n-grams of each order as the header says.
    text, _ = trained
    arpa = tmp_path / "lm.arpa"
    lm.run_lmplz(lm.lmplz_path(), text, arpa, 4, "50M", discount_fallback=False)
    counts, grams = read_arpa(arpa)
    assert sorted(counts) == sorted(grams) == [1, 2, 3, 4]
    for n, rows in grams.items():
        assert len(rows) == counts[n] > 0
        assert all(len(row) == (2 if n == 4 else 3) for row in rows)
        assert all(len(row[1].split()) == n for row in rows)
        assert all(float(row[0]) <= 0 for row in rows), n
    assert any(float(row[2]) != 0 for row in grams[2])  # real backoffs, not q values
