"""Document-level claims against their random-context control, and the
contrastive (pronoun) accuracy metric of the claims table."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pandas as pd
import pytest

from phrasenmt.io import InputError
from phrasenmt.report import claims
from phrasenmt.report.claims import load_claims
from tests.unit.test_claims import WORDS, noisy, write

CLAIMS = """claims:
  - {id: context, paper: P, where: T, statement: doc beats base, metric: bleu,
     system: doc, baseline: base, control: doc_random, expect: higher, source: paper_text, quote: q}
  - {id: capacity, paper: P, where: T, statement: cap beats base, metric: bleu,
     system: cap, baseline: base, control: cap_random, expect: higher, source: paper_text, quote: q}
  - {id: no-control, paper: P, where: T, statement: doc beats base, metric: bleu,
     system: doc, baseline: base, control: missing_random, expect: higher, source: paper_text, quote: q}
  - {id: pronouns, paper: P, where: T, statement: doc resolves pronouns,
     metric: contrastive, category: pronoun_gender, system: doc, baseline: base,
     control: doc_random, expect: higher, source: paper_text, quote: q}
"""
# BLEU noise (lower is better) and pronoun accuracy of each model
QUALITY = {"base": (0.45, 0.5), "doc": (0.1, 0.95), "doc_random": (0.45, 0.5),
           "cap": (0.1, 0.5), "cap_random": (0.1, 0.5)}


SEEDS = (1, 2, 3)  # a verdict needs training noise: one seed gives none


def contrastive_files(tmp: Path, rng: random.Random, dev: int = 0
                      ) -> tuple[Path, dict]:
    """200 pronoun items (reference + one contrastive line each), the first `dev`
    of them dev items; scores per model and seed."""
    items = [{"type": "pronoun_gender", "lines": [2 * i, 2 * i + 1], "distance": 1}
             | ({"split": "dev"} if i < dev else {}) for i in range(200)]
    path = tmp / "items.json"
    path.write_text(json.dumps({"format": "lingeval", "lines": 400, "items": items}))
    scores = {}
    for model, (_, right) in QUALITY.items():
        scores[model] = [write(tmp / f"{model}{seed}.ctr", [
            v for _ in items for v in (("-1", "-2") if rng.random() < right
                                       else ("-2", "-1"))]) for seed in SEEDS]
    return path, scores


def run(tmp: Path, capsys, models: list[str], extra: tuple[str, ...] = (),
        dev: int = 0) -> pd.DataFrame:
    rng = random.Random(5)
    refs = [" ".join(rng.choices(WORDS, k=rng.randint(5, 30))) for _ in range(80)]
    ref = write(tmp / "ref.de", refs)
    items, ctr = contrastive_files(tmp, rng, dev)
    argv = ["--dataset", "toy", "--direction", "en-de", "--synthetic", "--models",
            *models, "--ref", str(ref), "--contrastive", str(items),
            "--trials", "300", "--seed", "2", *extra]
    for model in models:
        for seed in SEEDS:
            hyp = write(tmp / f"{model}{seed}.txt", noisy(refs, QUALITY[model][0], rng))
            argv += ["--run", model, str(seed), f"hyp={hyp}",
                     f"contrastive={ctr[model][seed - 1]}"]
    (tmp / "claims.yaml").write_text(CLAIMS, encoding="utf-8")
    outs = ["--out-md", str(tmp / "c.md"), "--out-tex", str(tmp / "c.tex"),
            "--out-csv", str(tmp / "c.csv"), "--out-timing-csv", str(tmp / "t.csv"),
            "--claims", str(tmp / "claims.yaml")]
    with pytest.raises(SystemExit) as done:
        claims.run_cli(claims.main, [*argv, *outs])
    assert (done.value.code, capsys.readouterr().err) == (0, "")
    return pd.read_csv(tmp / "c.csv").set_index("claim")


def test_a_gain_needs_to_beat_the_random_context_control_too(tmp_path, capsys):
    rows = run(tmp_path, capsys, list(QUALITY))
    verdict = rows["verdict"].to_dict()
    assert verdict["context"] == "reproduced"
    # beats the baseline, but its random-context control does as well
    assert verdict["capacity"] == ("inconclusive: no significant gain over its "
                                   "random-context control")
    assert rows.loc["capacity", "p"] < 0.05 and rows.loc["capacity", "control_p"] > 0.05
    assert verdict["no-control"].startswith(
        "not tested: its random-context control missing_random is not configured")
    assert verdict["pronouns"] == "reproduced"
    assert rows.loc["pronouns", "delta"] > 30 and rows.loc["pronouns", "control_delta"] > 30
    md = (tmp_path / "c.md").read_text(encoding="utf-8")
    assert "vs random-context control" in md and "doc_random: +" in md
    # its p for Holm is the larger of the two: Δ [Holm CI] shows the interval
    # against the control too, at the same level, both excluding 0 as it survives
    context = rows.loc["context"]
    assert context["p_verdict"] == max(context["p"], context["control_p"])
    assert context["verdict_holm"] == "reproduced"
    assert 0 < context["holm_ci_low"] < context["ci_low"]
    assert 0 < context["control_holm_ci_low"] < context["control_ci_low"]
    assert "; vs doc_random: [+" in md.split("| context |")[1].split("\n")[0]


def test_without_the_control_configured_no_verdict(tmp_path, capsys):
    rows = run(tmp_path, capsys, ["base", "doc"])
    assert rows.loc["context", "verdict"].startswith("not tested: its random-context "
                                                     "control doc_random")


def test_the_control_the_workflow_names_replaces_claims_yamls(tmp_path, capsys):
    # --control CONTROL=MODEL (the config's control of MODEL) wins over the
    # control claims.yaml names: here doc's claims are judged against
    # cap_random, as good as doc on BLEU and at chance on the pronouns
    rows = run(tmp_path, capsys, list(QUALITY), ("--control", "cap_random=doc"))
    assert rows.loc["context", "control"] == "cap_random"
    assert rows.loc["context", "verdict"] == ("inconclusive: no significant gain "
                                              "over its random-context control")
    assert rows.loc["pronouns", "control"] == "cap_random"
    assert rows.loc["pronouns", "verdict"] == "reproduced"


def test_two_controls_of_one_model_are_refused(tmp_path, capsys):
    with pytest.raises(SystemExit):
        claims.main(["--dataset", "toy", "--direction", "en-de", "--control",
                     "a=doc", "b=doc", "--out-md", "a.md", "--out-tex", "a.tex",
                     "--out-csv", "a.csv", "--out-timing-csv", "t.csv"])
    assert "model doc has two controls, a and b" in capsys.readouterr().err


def test_a_control_on_a_speed_claim_is_refused(tmp_path):
    bad = tmp_path / "c.yaml"
    bad.write_text("claims:\n  - {id: a, paper: P, where: T, statement: s, "
                   "metric: train_speed, system: a, baseline: b, control: c, "
                   "expect: higher, source: paper_text, quote: q}\n")
    with pytest.raises(InputError, match="a control compares a quality gain"):
        load_claims(bad)
    bad.write_text("claims:\n  - {id: a, paper: P, where: T, statement: s, "
                   "metric: contrastive, system: a, baseline: b, expect: higher, source: paper_text, quote: q}\n")
    with pytest.raises(InputError, match="contrastive needs category"):
        load_claims(bad)


def test_contrastive_rows_read_the_test_items_only(tmp_path, capsys):
    # dev items (kept for choosing budgets) are left out, pairs and all
    rows = run(tmp_path, capsys, ["base", "doc", "doc_random"], dev=40)
    assert "n=160" in rows.loc["pronouns", "data"]
    assert rows.loc["pronouns", "verdict"] == "reproduced"


def test_pronoun_accuracy_is_not_tested_for_a_target_without_a_pronoun_list():
    """en->th: no Thai pronoun list, so the claim says why it is not tested
    instead of failing the table (en->de reaches the files it needs)."""
    from phrasenmt.report.claim_checks import Evidence, NotTested, pronoun_result

    claim = {"system": "doc", "baseline": "base"}
    with pytest.raises(NotTested, match=r"^no pronoun list for 'th' \(pronoun accuracy scores de, en, fr\)$"):
        pronoun_result(claim, Evidence("toy", "en-th", False, ["doc", "base"]))
    with pytest.raises(NotTested, match="no hyp_tok file of model doc"):
        pronoun_result(claim, Evidence("toy", "en-de", False, ["doc", "base"]))


def test_a_one_seed_control_does_not_exempt_a_decided_row_from_holm():
    """The system is worse than its baseline over three seeds: "not reproduced"
    whatever its one-seed control shows, and that verdict is Holm-corrected."""
    r = {"verdict": "not reproduced", "one_seed": False, "verdict_p": 0.006}
    c = {"verdict": claims.ONE_SEED, "one_seed": True, "verdict_p": 0.2}
    verdict = claims.combined_verdict(r, c)
    assert verdict == "not reproduced"
    p = claims.combined_p(r, c, verdict)
    assert p == 0.006
    # two tests at alpha 0.01: 0.006 * 2 fails, and so does the other row's 0.009
    rows = claims.with_holm([{"verdict": verdict, "verdict_p": p, "result": None},
                             {"verdict": "reproduced", "verdict_p": 0.009,
                              "result": None}], 0.01)
    assert [row["verdict (Holm)"] for row in rows] == [claims.AFTER_HOLM] * 2
    good = {"verdict": "reproduced", "one_seed": False, "verdict_p": 0.001}
    assert claims.combined_verdict(good, c) == claims.ONE_SEED
    assert claims.combined_p(good, c, claims.ONE_SEED) is None
