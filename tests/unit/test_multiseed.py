"""Multi-seed significance: BLEU from statistics, power and size of the test, CLI."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from sacrebleu.metrics import BLEU

from phrasenmt.evaluate import multiseed
from phrasenmt.evaluate.multiseed import (
    bleu_from_stats,
    bleu_stats,
    compare_bleu,
    compare_items,
)

WORDS = ["the", "a", "cat", "dog", "sat", "on", "mat", "red", "blue", "house",
         "fire", "brigade", "came", "quickly"]


def corpus(n: int, rng: random.Random) -> list[str]:
    """Random reference sentences of 1 to 20 words."""
    return [" ".join(rng.choices(WORDS, k=rng.randint(1, 20))) + " ." for _ in range(n)]


def noisy(refs: list[str], p: float, rng: random.Random) -> list[str]:
    """Hypotheses: each reference word replaced by a random word with probability p."""
    return [" ".join(w if rng.random() > p else rng.choice(WORDS) for w in r.split())
            for r in refs]


def test_bleu_from_stats_equals_sacrebleu_corpus_bleu():
    rng = random.Random(3)
    refs = corpus(300, rng)
    for _ in range(60):  # short corpora reach the zero-match and smoothing branches
        n = rng.choice([1, 2, 3, 5, 40, 300])
        hyps = noisy(refs[:n], rng.random(), rng)
        if rng.random() < 0.2:
            hyps[0] = ""  # an empty hypothesis
        ours = float(bleu_from_stats(bleu_stats(hyps, refs[:n]).sum(axis=0)))
        # numpy's SIMD log/exp (AVX-512 CPUs) may differ from math's in the last bit
        assert ours == pytest.approx(
            BLEU(tokenize="13a").corpus_score(hyps, [refs[:n]]).score, rel=1e-12, abs=1e-12)


def test_bleu_stats_per_sentence_equal_sacrebleus_under_repeated_pairings():
    # the per-line caches must not carry one pairing's statistics into another:
    # the same references, shuffled against the same outputs, as the baseline
    # guard pairs them, and lines that differ only in what 13a tokenizes
    rng = random.Random(5)
    refs = corpus(60, rng) + ["the cat,sat .  ", "the cat , sat ."]
    hyps = noisy(refs, 0.3, rng)
    for _ in range(4):
        order = list(range(len(refs)))
        rng.shuffle(order)
        paired = [refs[j] for j in order]
        expected = BLEU(tokenize="13a", force=True)._extract_corpus_statistics(
            hyps, [paired])
        assert bleu_stats(hyps, paired).tolist() == [list(map(int, row))
                                                     for row in expected]


def test_bleu_stats_tokenize_none_matches_tokenized_bleu():
    refs = ["a b , c .", "d e f"]
    hyps = ["a b c .", "d e"]
    ours = float(bleu_from_stats(bleu_stats(hyps, refs, tokenize="none").sum(0)))
    assert ours == BLEU(tokenize="none", force=True).corpus_score(hyps, [refs]).score


def test_compare_bleu_finds_a_known_effect_with_all_seeds():
    rng = random.Random(1)
    refs = corpus(200, rng)
    system = [noisy(refs, 0.15, rng) for _ in range(3)]
    baseline = [noisy(refs, 0.3, rng) for _ in range(2)]  # unequal: cyclic pairs
    out = compare_bleu(refs, baseline, system, trials=200, seed=4)
    scores = [BLEU().corpus_score(h, [refs]).score for h in system]
    assert out["scores"] == scores and out["n_seeds"] == 3
    assert out["n_baseline_seeds"] == 2 and out["sd"] == pytest.approx(
        float(np.std(scores, ddof=1)))
    assert out["delta"] == pytest.approx(np.mean(scores) - out["baseline_mean"])
    assert out["delta"] > 5 and out["p"] < 0.05
    assert out["ci_low"] > 0 and out["ci_low"] < out["delta"] < out["ci_high"]


def test_compare_bleu_identical_systems_give_p_one_and_one_seed_no_sd():
    rng = random.Random(2)
    refs = corpus(50, rng)
    hyps = [noisy(refs, 0.2, rng)]
    out = compare_bleu(refs, hyps, hyps, trials=50)
    assert out["p"] == 1.0 and out["delta"] == 0.0
    assert out["sd"] is None and out["baseline_sd"] is None


def test_compare_bleu_subset_scores_only_those_sentences():
    rng = random.Random(5)
    refs = corpus(60, rng)
    system, baseline = [noisy(refs, 0.1, rng)], [noisy(refs, 0.4, rng)]
    subset = [i for i, r in enumerate(refs) if len(r.split()) > 10]
    out = compare_bleu(refs, baseline, system, trials=20, subset=subset)
    expected = BLEU().corpus_score([system[0][i] for i in subset],
                                   [[refs[i] for i in subset]]).score
    assert out["scores"] == [expected]


def null_items(rng: np.random.Generator, n: int = 150) -> list[list[float]]:
    """Three seeds of 0/1 item scores, every seed correct with probability 0.6."""
    return [list((rng.random(n) < 0.6).astype(float)) for _ in range(3)]


def test_compare_items_rejects_the_null_at_about_the_stated_rate():
    rng = np.random.default_rng(0)
    runs = 40
    false = sum(compare_items(null_items(rng), null_items(rng), trials=99,
                              seed=r + 1)["p"] < 0.05 for r in range(runs))
    # Binomial(40, 0.05): P(X >= 7) < 0.015; a test blind to the pairing or
    # counting one-sidedly would exceed it.
    assert false <= 6


def test_compare_items_finds_a_known_effect():
    rng = np.random.default_rng(1)
    baseline = null_items(rng)
    system = [list((rng.random(150) < 0.8).astype(float)) for _ in range(3)]
    out = compare_items(baseline, system, trials=200, alpha=0.05)  # a 95% interval
    assert out["p"] < 0.05 and 0.1 < out["delta"] < 0.3
    assert out["ci_low"] > 0 and out["mean"] == pytest.approx(np.mean(system))


def test_compare_bleu_null_is_not_significant_too_often():
    rng = random.Random(7)
    refs = corpus(80, rng)
    false = 0
    for r in range(20):
        system = [noisy(refs, 0.3, rng) for _ in range(2)]
        baseline = [noisy(refs, 0.3, rng) for _ in range(2)]
        false += compare_bleu(refs, baseline, system, trials=99, seed=r + 1)["p"] < 0.05
    assert false <= 4  # Binomial(20, 0.05): P(X >= 5) < 0.003


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def run_cli(argv: list[str], capsys) -> tuple[int, str]:
    """Run the CLI in-process: (exit status, stderr)."""
    with pytest.raises(SystemExit) as done:
        multiseed.run_cli(multiseed.main, argv)
    return done.value.code, capsys.readouterr().err


def test_cli_writes_every_key_and_checks_line_counts(tmp_path, capsys):
    rng = random.Random(9)
    refs = corpus(30, rng)
    ref = write(tmp_path / "ref.txt", refs)
    hyps = [write(tmp_path / f"h{i}.txt", noisy(refs, 0.1, rng)) for i in (1, 2)]
    base = [write(tmp_path / f"b{i}.txt", noisy(refs, 0.5, rng)) for i in (1, 2)]
    out = tmp_path / "o.json"
    argv = ["--system", "pr", "--baseline-name", "transformer", "--testset", "test",
            "--ref", str(ref), "--hyp", *map(str, hyps), "--baseline-hyp",
            *map(str, base), "--seeds", "1", "2", "--trials", "50", "--seed", "3",
            "--out", str(out)]
    assert run_cli(argv, capsys)[0] == 0
    data = json.loads(out.read_text())
    assert data["seeds"] == [1, 2] and data["metric"] == "bleu"
    assert data["system"] == "pr" and data["baseline"] == "transformer"
    assert data["trials"] == 50 and data["delta"] > 0 and len(data["scores"]) == 2
    write(base[1], noisy(refs, 0.5, rng)[:-1])
    code, err = run_cli(argv, capsys)
    assert code == 1 and f"{base[1]}: has 29 lines" in err and err.count("\n") == 1
    one_seed = argv[:argv.index("--seeds")] + ["--seeds", "1", "--out", str(out)]
    code, err = run_cli(one_seed, capsys)
    assert code == 2 and "--seeds has 1 values" in err


def test_cli_system_against_itself_runs_no_trials(tmp_path, capsys):
    refs = ["a b c d e", "f g h i"]
    ref = write(tmp_path / "ref.txt", refs)
    hyp = write(tmp_path / "h.txt", ["a b c d x", "f g h"])
    out = tmp_path / "o.json"
    argv = ["--system", "t", "--baseline-name", "t", "--testset", "test", "--ref",
            str(ref), "--hyp", str(hyp), "--baseline-hyp", str(hyp), "--seeds", "1",
            "--out", str(out)]
    assert run_cli(argv, capsys)[0] == 0
    data = json.loads(out.read_text())
    assert data["p"] == 1.0 and data["delta"] == 0.0 and data["trials"] == 0
    assert data["scores"] == data["baseline_scores"] and data["sd"] is None
    assert "|tok:13a|" in data["signature"] and data["signature"].startswith("nrefs:1|")
    assert run_cli([*argv, "--lang", "zh"], capsys)[0] == 0
    data = json.loads(out.read_text())
    assert data["tokenize"] == "zh" and "|tok:zh|" in data["signature"]


def test_cli_refuses_one_file_for_two_seeds(tmp_path, capsys):
    """Two seeds read from one translation file would count one run twice."""
    refs = ["a b c d e", "f g h i"]
    ref = write(tmp_path / "ref.txt", refs)
    hyp = write(tmp_path / "h.txt", ["a b c d x", "f g h"])
    other = write(tmp_path / "g.txt", ["a b c d", "f g h"])
    link = tmp_path / "link.txt"
    link.symlink_to(hyp)
    out = tmp_path / "o.json"
    common = ["--system", "t", "--baseline-name", "b", "--testset", "test", "--ref",
              str(ref), "--seeds", "1", "2", "--out", str(out)]
    code, err = run_cli([*common, "--hyp", str(hyp), str(link), "--baseline-hyp",
                         str(hyp), str(other)], capsys)
    assert code == 2 and "--hyp names one file for two seeds" in err
    code, err = run_cli([*common, "--hyp", str(hyp), str(other), "--baseline-hyp",
                         str(other), str(other)], capsys)
    assert code == 2 and "--baseline-hyp names one file for two seeds" in err
    assert not out.exists()
    assert run_cli([*common, "--hyp", str(hyp), str(other), "--baseline-hyp",
                    str(other), str(hyp), "--trials", "5"], capsys)[0] == 0
