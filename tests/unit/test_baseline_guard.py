"""The baseline guard: no verdict against (or for) a model that did not learn."""

from __future__ import annotations

import random
from pathlib import Path

import pandas as pd
import pytest

from phrasenmt.io import InputError
from phrasenmt.report import claims
from phrasenmt.report.baseline_guard import Guard, measure, measure_files
from tests.unit.test_claims import noisy, write

VOCAB = [f"w{i}" for i in range(300)]
MODELS = ["attn_rnn", "conmt", "pconmt_fert2", "npmt"]


def references(n: int = 200, seed: int = 3) -> list[str]:
    """n random sentences of 6-20 words: random pairs share almost no n-gram."""
    rng = random.Random(seed)
    return [" ".join(rng.choices(VOCAB, k=rng.randint(6, 20))) for _ in range(n)]


def constant(refs: list[str]) -> list[str]:
    """The same fluent sentence for every input (attn_rnn on Multi30k)."""
    return [refs[0]] * len(refs)


def ignores_source(refs: list[str]) -> list[str]:
    """A different, perfect translation per line, but of the next sentence."""
    return refs[1:] + refs[:1]


def test_a_normal_model_learned_and_broken_ones_did_not():
    refs, guard = references(), Guard()
    good = measure(noisy(refs, 0.3, random.Random(1)), refs, seed=1)
    assert good.bleu > 20 and good.reasons(guard) == []
    const = measure(constant(refs), refs, seed=1)
    assert const.bleu == pytest.approx(const.shuffled_bleu)
    assert [r.split()[0] for r in const.reasons(guard)] == ["BLEU", "100%"]
    shifted = measure(ignores_source(refs), refs, seed=1)
    assert shifted.top_share == pytest.approx(1 / len(refs))
    assert len(shifted.reasons(guard)) == 1 and "random test sentences" in (
        shifted.reasons(guard)[0])
    # the same outputs in the right order: every line perfect
    assert measure(refs, refs, seed=1).reasons(guard) == []


def test_repeated_reference_lines_are_not_collapse():
    refs = references(140) + ["w1 w2 w3 ."] * 60  # 30% of the test set is one line
    learned = measure(noisy(refs[:140], 0.2, random.Random(2)) + refs[140:], refs,
                      seed=1)
    assert learned.top_share == pytest.approx(0.3) and learned.reasons(Guard()) == []
    assert learned.reasons(Guard(max_output_share=0.0)) == []  # 0.3 - 0.3 is not > 0
    collapsed = measure(["w1 w2 w3 ."] * 200, refs, seed=1)
    assert any("100% of its outputs" in r for r in collapsed.reasons(Guard()))


def test_files_that_cannot_be_checked_fail_in_one_line(tmp_path):
    ref = write(tmp_path / "ref.en", ["w1 w2 w3"])
    with pytest.raises(InputError, match="has 1 line.*needs 2 or more"):
        measure_files(write(tmp_path / "one.txt", ["w1 w2 w3"]), ref, 1)
    ref = write(tmp_path / "ref2.en", ["w1 w2", "w3 w4"])
    with pytest.raises(InputError, match="has 1 lines but the reference"):
        measure_files(write(tmp_path / "short.txt", ["w1 w2"]), ref, 1)


SEEDS = (1, 2, 3)


def claims_argv(tmp: Path, broken: dict[tuple[str, int], list[str]],
                beam_broken: dict[tuple[str, int], list[str]] | None = None) -> list[str]:
    """A de-en dataset with the RNN families, three seeds each (a verdict needs
    seeds to resample), some runs broken.
    Each run's beam decoding (read by the NPMT claims) is its main one; with
    `beam_broken` given, a file of its own, broken where `beam_broken` says."""
    refs = references()
    ref = write(tmp / "test.ref.en", refs)
    rng = random.Random(5)
    argv = ["--dataset", "m30k", "--direction", "de-en", "--models", *MODELS,
            "--ref", str(ref), "--trials", "200", "--seed", "2"]
    quality = {"attn_rnn": 0.4, "conmt": 0.35, "pconmt_fert2": 0.15, "npmt": 0.25}
    for model in MODELS:
        for seed in SEEDS:
            lines = broken.get((model, seed)) or noisy(refs, quality[model], rng)
            hyp = write(tmp / f"{model}{seed}.txt", lines)
            beam = hyp
            if beam_broken is not None:
                lines = beam_broken.get((model, seed)) or noisy(refs, quality[model], rng)
                beam = write(tmp / f"{model}{seed}.beam.txt", lines)
            argv += ["--run", model, str(seed), f"hyp={hyp}", f"hyp_beam={beam}"]
    return argv


def table(argv: list[str], tmp: Path, capsys, *extra: str) -> pd.Series:
    """Run the CLI with the packaged claims.yaml: the verdict per claim id."""
    outs = ["--out-md", str(tmp / "c.md"), "--out-tex", str(tmp / "c.tex"),
            "--out-csv", str(tmp / "c.csv"), "--out-timing-csv", str(tmp / "t.csv")]
    with pytest.raises(SystemExit) as done:
        claims.run_cli(claims.main, [*argv, *outs, *extra])
    assert done.value.code == 0, capsys.readouterr().err
    return pd.read_csv(tmp / "c.csv").set_index("claim")["verdict"]


@pytest.mark.parametrize("make", [constant, ignores_source])
def test_claims_against_a_baseline_that_did_not_learn(tmp_path, capsys, make):
    refs = references()
    argv = claims_argv(tmp_path, {("attn_rnn", s): make(refs) for s in SEEDS})
    verdict = table(argv, tmp_path, capsys)
    for row in ("huang-t1-npmt", "park-pconmt-attn"):
        assert verdict[row].startswith(
            "not tested: the baseline did not learn (attn_rnn seed 1: BLEU"), row
        assert "seed 2:" in verdict[row] and "seed 3:" in verdict[row]
        assert ("100% of its outputs are one line" in verdict[row]) == (
            make is constant)
    assert verdict["park-pconmt-conmt"] == "reproduced"  # both sides learned
    assert verdict["park-pconmt-npmt"] == "reproduced"
    md = (tmp_path / "c.md").read_text(encoding="utf-8")
    assert "the baseline did not learn (attn_rnn" in md
    assert "docs/baseline-guard.md" in md


def test_the_npmt_claims_read_the_beam_decodings(tmp_path, capsys):
    """`decoding: beam` claims read hyp_beam, the others each model's main output."""
    refs = references()
    broken = {("attn_rnn", s): constant(refs) for s in SEEDS}
    verdict = table(claims_argv(tmp_path, {}, beam_broken=broken), tmp_path, capsys)
    assert verdict["huang-t1-npmt"].startswith("not tested: the baseline did not learn")
    assert not verdict["park-pconmt-attn"].startswith("not tested")  # greedy: learned
    other = tmp_path / "greedy_broken"
    other.mkdir()
    verdict = table(claims_argv(other, broken, beam_broken={}), other, capsys)
    assert verdict["huang-t1-npmt"] == "reproduced"  # only the greedy output is broken
    assert verdict["park-pconmt-attn"].startswith("not tested: the baseline did not")


def test_a_system_that_did_not_learn_on_one_seed(tmp_path, capsys):
    argv = claims_argv(tmp_path, {("pconmt_fert2", 2): ignores_source(references())})
    verdict = table(argv, tmp_path, capsys)
    assert verdict["park-pconmt-attn"].startswith(
        "not tested: pconmt_fert2 did not learn (seed 2: BLEU")
    assert "seed 1" not in verdict["park-pconmt-attn"]
    assert verdict["huang-t1-npmt"] == "reproduced"  # npmt 0.25 vs attn 0.4 noise
    # the floor is the CLI's: above every model's gain, no quality claim is tested
    verdict = table(argv, tmp_path, capsys, "--min-bleu-gain", "95")
    assert verdict["huang-t1-npmt"].startswith(
        "not tested: the baseline did not learn (attn_rnn seed 1: BLEU")
    assert "a gain under 95" in verdict["huang-t1-npmt"]


def test_bleu_of_a_script_without_spaces_is_counted_with_its_tokenizer():
    """A Khmer target: the claims table and the guard count BLEU as the results
    table does (sacreBLEU `char`), not on 13a's clause-sized tokens."""
    from phrasenmt.report.claim_checks import Evidence

    assert Evidence("toy", "en-km", False, []).bleu_tokenize == "char"
    assert Evidence("toy", "en-zh", False, []).bleu_tokenize == "zh"
    assert Evidence("toy", "en-de", False, []).bleu_tokenize == "13a"
    rng = random.Random(4)
    letters = "កខគឃងចឆជឈញដឋឌឍណតថទធន"
    refs = ["".join(rng.choices(letters, k=rng.randint(12, 30))) for _ in range(100)]
    hyps = [r[:-2] + "ក" for r in refs]  # every line nearly right, none exactly
    assert measure(hyps, refs, seed=1).bleu < 5  # 13a: one wrong "word" a line
    assert measure(hyps, refs, seed=1, tokenize="char").bleu > 70
