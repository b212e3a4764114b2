"""Tests for phrasenmt.evaluate.bleu: agreement with the sacrebleu CLI, bootstrap."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from phrasenmt.evaluate import bleu
from phrasenmt.io import InputError, read_lines
from tests import forkrun

SACREBLEU = Path(sys.executable).parent / "sacrebleu"
WORDS = [f"w{i}" for i in range(40)] + ["Haus", "the", "a", "cat", "dog"]


def _sentences(n: int, seed: int) -> list[list[str]]:
    """Random tokenized sentences ending in punctuation."""
    rng = random.Random(seed)
    return [rng.choices(WORDS, k=rng.randint(4, 20)) + [rng.choice(".!?")]
            for _ in range(n)]


def _noisy(sents: list[list[str]], p: float, seed: int) -> list[list[str]]:
    """Replace each word with probability p by a random one."""
    rng = random.Random(seed)
    return [[w if rng.random() > p else rng.choice(WORDS) for w in s] for s in sents]


def _write(path: Path, sents: list[list[str]], tok: bool) -> Path:
    """Write sentences tokenized ('w .') or detokenized ('w.')."""
    lines = [" ".join(s) if tok else " ".join(s[:-1]) + s[-1] for s in sents]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture()
def corpus(tmp_path: Path) -> dict[str, Path]:
    """Reference, a good system and a poor system, tokenized and detokenized."""
    ref = _sentences(300, seed=1)
    systems = {"ref": ref, "good": _noisy(ref, 0.1, 2), "poor": _noisy(ref, 0.5, 3)}
    files = {}
    for name, sents in systems.items():
        files[name] = _write(tmp_path / f"{name}.detok", sents, tok=False)
        files[f"{name}_tok"] = _write(tmp_path / f"{name}.tok", sents, tok=True)
    return files


def _cli_bleu(ref: Path, hyp: Path, *extra: str) -> float:
    """BLEU from the sacrebleu command line, 4 decimals."""
    out = subprocess.run([str(SACREBLEU), str(ref), "-i", str(hyp), "-m", "bleu",
                          "-b", "-w", "4", *extra],
                         check=True, capture_output=True, text=True)
    return float(out.stdout.strip())


def _run(corpus: dict[str, Path], tmp_path: Path, system: str = "good",
         baseline: str | None = "poor") -> dict:
    """Run the CLI on the fixture corpus and return the JSON it wrote."""
    out = tmp_path / "eval.json"
    argv = ["--system", system, "--testset", "t", "--hyp", str(corpus[system]),
            "--ref", str(corpus["ref"]), "--hyp-tok", str(corpus[f"{system}_tok"]),
            "--ref-tok", str(corpus["ref_tok"]), "--out", str(out),
            "--bootstrap", "200", "--seed", "7"]
    if baseline is not None:
        argv += ["--baseline-name", baseline, "--baseline-hyp", str(corpus[baseline])]
    assert bleu.main(argv) == 0
    return json.loads(out.read_text(encoding="utf-8"))


def test_scores_equal_sacrebleu_cli(corpus, tmp_path):
    result = _run(corpus, tmp_path)
    assert result["lines"] == 300
    detok = _cli_bleu(corpus["ref"], corpus["good"])
    tok = _cli_bleu(corpus["ref_tok"], corpus["good_tok"], "-tok", "none")
    assert result["bleu"]["score"] == pytest.approx(detok, abs=1e-4)
    assert result["bleu_tok"]["score"] == pytest.approx(tok, abs=1e-4)
    assert "tok:13a" in result["bleu"]["signature"]
    assert "tok:none" in result["bleu_tok"]["signature"]
    assert result["chrf"]["signature"].startswith("nrefs:1")


def test_better_system_is_significant(corpus, tmp_path):
    sig = _run(corpus, tmp_path)["significance"]
    assert sig["baseline"] == "poor"
    assert sig["system_score"] > sig["baseline_score"] + 10
    assert sig["p_value"] < 0.01
    assert sig["samples"] == 200
    assert "bs:200" in sig["signature"] and "seed:7" in sig["signature"]


def test_identical_system_is_not_significant(corpus):
    refs = read_lines(corpus["ref"])
    hyps = read_lines(corpus["good"])
    sig = bleu.paired_bootstrap(("copy", hyps), ("good", hyps), refs, samples=100)
    assert sig["p_value"] > 0.5
    assert sig["system_score"] == sig["baseline_score"]


def test_bootstrap_is_reproducible(corpus):
    refs = read_lines(corpus["ref"])
    good, poor = read_lines(corpus["good"]), read_lines(corpus["poor"])
    runs = [bleu.paired_bootstrap(("good", good), ("poor", poor), refs, 100, seed=3)
            for _ in range(2)]
    assert runs[0] == runs[1]


def test_baseline_itself_has_null_significance(corpus, tmp_path):
    assert _run(corpus, tmp_path, system="good", baseline="good")["significance"] is None
    assert _run(corpus, tmp_path, baseline=None)["significance"] is None


def test_mismatched_line_counts_name_both_files(corpus, tmp_path):
    short = tmp_path / "short.detok"
    short.write_text("only one line\n", encoding="utf-8")
    corpus = dict(corpus, good=short)
    with pytest.raises(InputError) as err:
        _run(corpus, tmp_path)
    assert str(short) in str(err.value) and str(corpus["ref"]) in str(err.value)


def test_cli_reports_error_in_one_line(corpus, tmp_path):
    out = forkrun.run(
        [sys.executable, "-m", "phrasenmt.evaluate.bleu", "--system", "s",
         "--testset", "t", "--hyp", str(tmp_path / "missing"), "--ref",
         str(corpus["ref"]), "--hyp-tok", str(corpus["good_tok"]), "--ref-tok",
         str(corpus["ref_tok"]), "--out", str(tmp_path / "o.json")],
        check=False, capture_output=True, text=True)
    assert out.returncode == 1
    assert out.stderr.strip() == f"error: {tmp_path / 'missing'}: file not found"
    assert not (tmp_path / "o.json").exists()


def test_a_hypothesis_file_without_its_last_newline_is_scored_with_a_warning(
        corpus, tmp_path, capsys):
    """Cut short, or written by a tool that leaves the newline off: it is scored
    (a user's own file may end so), and the warning names it."""
    cut = tmp_path / "cut.detok"
    cut.write_text(corpus["good"].read_text(encoding="utf-8").rstrip("\n"),
                   encoding="utf-8")
    result = _run(dict(corpus, good=cut), tmp_path, baseline=None)
    assert result["lines"] == 300
    assert (f"warning: {cut}: the last line has no newline: a file cut short?"
            in capsys.readouterr().err)
    _run(corpus, tmp_path, baseline=None)
    assert "no newline" not in capsys.readouterr().err
