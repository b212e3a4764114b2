"""Test one claim of claims.yaml on one dataset's per-seed runs.

Every metric reads the runs' files with the module that wrote them and
compares all seeds of the system with all seeds of the baseline through
`phrasenmt.evaluate.multiseed` (seeds and test items both enter p and the
interval, at level 1 - alpha; phrasenmt.evaluate.seed_inference). A claim of
no gain is judged by TOST within its `margin`, and its interval is the
(1 - 2 alpha) one that matches TOST (`tost_interval`); training speed by the
interval of the ratio over seeds (see `speed_result`). With one seed on
either side a comparison is "one seed: indicative, no verdict".
A claim that cannot be tested raises `NotTested` with the reason; so does a
quality claim whose baseline or system did not learn to translate
(`check_learned`, phrasenmt.report.baseline_guard).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from phrasenmt.claims import hyp_kind
from phrasenmt.evaluate import contrastive, lingeval, multiseed, pronouns
from phrasenmt.evaluate.bleu import bleu_tokenizer
from phrasenmt.evaluate.scores import read_log_probabilities
from phrasenmt.evaluate.seed_inference import (
    ratio_interval,
    ratio_p,
    t_interval,
    tost_level,
    tost_p,
)
from phrasenmt.io import InputError, read_lines
from phrasenmt.report.baseline_guard import Guard, measure_files
from phrasenmt.report.json_fields import load_json
from phrasenmt.report.tables import get_key, load_summary
from phrasenmt.text.pronouns import PRONOUNS, has_pronoun_list

SPEED_KEY = "tokens_per_second"  # summary.json: target tokens / training seconds
# metrics of translation quality: both models must have learned (baseline_guard);
# CXMI too: the context of a model that did not learn to translate tells nothing
GUARDED = ("bleu", "bleu_subset", "agreement", "pronouns", "contrastive", "cxmi")
# dataset files a metric is scored on (key in Evidence.files, what it is)
METRIC_DATA = {"contrastive": ("contrastive", "contrastive items"),
               "agreement": ("lingeval", "Lingeval97 items")}
ONE_SEED = "one seed: indicative, no verdict"
DECISIVE = ("reproduced", "not reproduced")  # verdicts that rest on a test


class NotTested(Exception):
    """The configuration cannot test a claim; the message says why."""


@dataclass
class Evidence:
    """What one dataset's runs offer to test claims with."""

    dataset: str
    direction: str  # "src-tgt"
    synthetic: bool
    models: list[str]  # models configured for the dataset
    runs: dict[str, dict[int, dict[str, Path]]] = field(default_factory=dict)
    files: dict[str, Path] = field(default_factory=dict)  # ref, src, lingeval, ...
    trials: int = 1000
    seed: int = 1
    alpha: float = 0.01  # verdicts' level; intervals are at 1 - alpha
    guard: Guard = field(default_factory=Guard)  # did-it-learn thresholds
    controls: dict[str, str] = field(default_factory=dict)  # model -> its control

    @property
    def tgt_lang(self) -> str:
        """The target language of `direction`."""
        return self.direction.split("-")[1]

    @property
    def bleu_tokenize(self) -> str:
        """sacreBLEU's tokenizer of the target language (13a, zh, ja-mecab,
        char), as the results table's BLEU uses it."""
        return bleu_tokenizer(self.tgt_lang)[0]


def run_files(ev: Evidence, model: str, kind: str) -> tuple[list[int], list[Path]]:
    """(seeds, files) of one kind for a model, in seed order."""
    if model not in ev.models:
        raise NotTested(f"model {model} is not configured for {ev.dataset}")
    seeds = sorted(s for s, kinds in ev.runs.get(model, {}).items() if kind in kinds)
    if not seeds:
        raise NotTested(f"no {kind} file of model {model} on {ev.dataset}")
    return seeds, [ev.runs[model][s][kind] for s in seeds]


def need_file(ev: Evidence, name: str, what: str) -> Path:
    """A dataset-level file (reference, source, items); missing: NotTested."""
    if name not in ev.files:
        raise NotTested(f"{ev.dataset} has no {what}")
    return ev.files[name]


def _read_runs(paths: list[Path], n: int, ref: Path) -> list[list[str]]:
    """Each seed's hypotheses; a line count other than the reference's raises."""
    runs = []
    for path in paths:
        lines = read_lines(path)
        if len(lines) != n:
            raise InputError(f"has {len(lines)} lines but the reference {ref} has "
                             f"{n}; they must match", path)
        runs.append(lines)
    return runs


def subset_indices(claim: dict, ev: Evidence, n: int) -> list[int]:
    """Test sentences of a bleu_subset claim (by tokenized source length)."""
    spec = claim["subset"]
    src_path = need_file(ev, "src", "tokenized test source (for lengths)")
    src = read_lines(src_path)
    if len(src) != n:
        raise InputError(f"has {len(src)} lines but the reference has {n}", src_path)
    lengths = [len(line.split()) for line in src]
    if "above" in spec:
        chosen = [i for i, k in enumerate(lengths) if k > spec["above"]]
        what = f"longer than {spec['above']} tokens"
    else:
        chosen = [i for i, k in enumerate(lengths) if k <= spec["at_most"]]
        what = f"of at most {spec['at_most']} tokens"
    if not chosen:
        raise NotTested(f"no test sentence of {ev.dataset} is {what}")
    return chosen


def bleu_result(claim: dict, ev: Evidence) -> dict[str, Any]:
    """Corpus BLEU (all seeds) of the system against the baseline."""
    ref_path = need_file(ev, "ref", "detokenized test reference")
    sys_seeds, sys_paths = run_files(ev, claim["system"], hyp_kind(claim))
    base_seeds, base_paths = run_files(ev, claim["baseline"], hyp_kind(claim))
    refs = read_lines(ref_path)
    subset = (subset_indices(claim, ev, len(refs))
              if claim["metric"] == "bleu_subset" else None)
    result = multiseed.compare_bleu(
        refs, _read_runs(base_paths, len(refs), ref_path),
        _read_runs(sys_paths, len(refs), ref_path), tokenize=ev.bleu_tokenize,
        trials=ev.trials, seed=ev.seed, subset=subset, alpha=ev.alpha)
    return {**result, "seeds": sys_seeds, "baseline_seeds": base_seeds,
            "items": len(subset) if subset is not None else len(refs)}


def _agreement_items(claim: dict, items: list[dict], path: Path) -> list[float]:
    """1.0 / 0.0 per contrastive pair of the claim's category and distances."""
    n_pairs = sum(1 + len(item["errors"]) for item in items)
    rows = lingeval.outcomes(items, read_log_probabilities(path, n_pairs))
    above = claim.get("subset", {}).get("above", -1)
    return [float(r["correct"]) for r in rows if r["category"] == claim["category"]
            and r["bin"] is not None and lingeval.bin_order(r["bin"]) > above]


def item_result(claim: dict, ev: Evidence, kind: str,
                score: Callable[[Path], list[float]], empty: str,
                clusters: list[int] | None = None) -> dict[str, Any]:
    """Accuracy (%) over per-item 0/1 outcomes that `score` reads from each run's
    file of `kind`, system against baseline over all seeds; NotTested(`empty`)
    when the claim selects no item. `clusters`: items resampled together."""
    sys_seeds, sys_paths = run_files(ev, claim["system"], kind)
    base_seeds, base_paths = run_files(ev, claim["baseline"], kind)
    system = [score(p) for p in sys_paths]
    if not system[0]:
        raise NotTested(empty)
    baseline = [score(p) for p in base_paths]
    return _percent(multiseed.compare_items(baseline, system, trials=ev.trials,
                                            seed=ev.seed, alpha=ev.alpha,
                                            clusters=clusters),
                    sys_seeds, base_seeds, len(system[0]))


def agreement_result(claim: dict, ev: Evidence) -> dict[str, Any]:
    """Lingeval97 contrastive accuracy (%) of the claim's pairs, all seeds."""
    items = lingeval.load_items(need_file(ev, "lingeval", "Lingeval97 items"))
    return item_result(claim, ev, "lingeval",
                       lambda p: _agreement_items(claim, items, p),
                       f"no {claim['category']} pair of {ev.dataset} matches the "
                       f"subset {claim.get('subset')}")


def _pronoun_items(ev: Evidence, hyp: Path, align: Path) -> list[float]:
    """1.0 / 0.0 per aligned reference pronoun (the same items for every model)."""
    rows, _ = pronouns.scored_items(
        need_file(ev, "src", "tokenized test source"),
        need_file(ev, "pronoun_ref", "tokenized test reference"),
        need_file(ev, "pronoun_ref_align", "source-reference alignment"),
        hyp, align, ev.tgt_lang)
    return [float(r["correct"]) for r in rows
            if r["category"] == "pronoun" and r["aligned"]]


def pronoun_result(claim: dict, ev: Evidence) -> dict[str, Any]:
    """Pronoun translation accuracy (%) over aligned reference pronouns."""
    if not has_pronoun_list(ev.tgt_lang):
        raise NotTested(f"no pronoun list for {ev.tgt_lang!r} (pronoun accuracy scores "
                        f"{', '.join(sorted(PRONOUNS))})")
    per_model = []
    for model in (claim["system"], claim["baseline"]):
        seeds, hyps = run_files(ev, model, "hyp_tok")
        aligns = [ev.runs[model][s].get("align") for s in seeds]
        if None in aligns:
            raise NotTested(f"no align file of model {model} on {ev.dataset}")
        per_model.append((seeds, [_pronoun_items(ev, h, a)
                                  for h, a in zip(hyps, aligns, strict=True)]))
    (sys_seeds, system), (base_seeds, baseline) = per_model
    if not system[0]:
        raise NotTested(f"the reference of {ev.dataset} has no aligned pronoun")
    return _percent(multiseed.compare_items(baseline, system, trials=ev.trials,
                                            seed=ev.seed, alpha=ev.alpha),
                    sys_seeds, base_seeds, len(system[0]))


def _contrastive_items(claim: dict, header: dict, path: Path) -> list[float]:
    """1.0 / 0.0 per contrastive item of the claim's type (reference won or not)."""
    rows = contrastive.outcomes(header, read_log_probabilities(path, header["lines"]))
    return [float(r["correct"]) for r in rows if r["category"] == claim["category"]]


def _is_mirror(item: dict, before: dict) -> bool:
    """Whether `item` is the mirror of the item `before` it: the same type and
    source, the reference and the contrastive sentence swapped (what
    `contrastive prepare --mirror-pronouns` writes next to each item)."""
    return (item.get("type") == before.get("type")
            and item.get("source") == before.get("source")
            and len(before.get("contrastive") or []) == 1
            and item.get("reference") == before["contrastive"][0]
            and item.get("contrastive") == [before.get("reference")])


def mirror_clusters(items: list[dict]) -> list[int]:
    """A cluster label per item: an item and its mirror share one (a model that
    reads no context gets exactly one of the two right, so they are one
    observation, not two); every other item is its own."""
    labels: list[int] = []
    open_pair = False  # the previous item waits for its mirror
    for k, item in enumerate(items):
        paired = open_pair and _is_mirror(item, items[k - 1])
        labels.append(labels[-1] if paired else (labels[-1] + 1 if labels else 0))
        open_pair = not paired
    return labels


def contrastive_result(claim: dict, ev: Evidence) -> dict[str, Any]:
    """Contrastive accuracy (%) on the items of the claim's type (e.g. pronouns
    whose antecedent is in the context), all seeds; each model's scores as the
    workflow makes them (document models with the items' context)."""
    header = contrastive.load_header(need_file(ev, "contrastive",
                                               "contrastive items"))
    chosen = [item for item in header["items"]  # the items `outcomes` scores
              if item["type"] == claim["category"]
              and contrastive.item_split(item) == "test"]
    return item_result(claim, ev, "contrastive",
                       lambda p: _contrastive_items(claim, header, p),
                       f"no contrastive item of type {claim['category']} on "
                       f"{ev.dataset}", mirror_clusters(chosen))


def _percent(result: dict[str, Any], seeds: list[int], base_seeds: list[int],
             items: int) -> dict[str, Any]:
    """A per-item result (fractions) in percent, with its seeds and item count."""
    out = dict(result)
    for key in ("mean", "sd", "baseline_mean", "baseline_sd", "delta", "ci_low",
                "ci_high", "se"):
        out[key] = None if out[key] is None else 100 * out[key]
    out["scores"] = [100 * s for s in out["scores"]]
    out["baseline_scores"] = [100 * s for s in out["baseline_scores"]]
    return {**out, "seeds": seeds, "baseline_seeds": base_seeds, "items": items}


def _speeds(paths: list[Path]) -> list[float]:
    """Training target tokens per second of each seed's summary.json."""
    return [float(get_key(load_summary(p), SPEED_KEY, p, number=True)) for p in paths]


def speed_threshold(claim: dict) -> float:
    """The ratio a speed claim's interval must clear: ratio_fraction x paper_ratio
    where given, else 1 (faster at all)."""
    if "ratio_fraction" in claim:
        return claim["ratio_fraction"] * claim["paper_ratio"]
    return 1.0


def speed_result(claim: dict, ev: Evidence) -> dict[str, Any]:
    """Training speed: the ratio of geometric means of tokens/s over seeds, its
    (1 - alpha) interval (Welch's t on log speeds) and the p-values of the
    ratio against the threshold the claim must clear and the paper's factor.

    Timings depend on what else ran on the machine: every seed is one timing,
    and the interval is over seeds, so that noise widens it."""
    sys_seeds, sys_paths = run_files(ev, claim["system"], "summary")
    base_seeds, base_paths = run_files(ev, claim["baseline"], "summary")
    system, baseline = _speeds(sys_paths), _speeds(base_paths)
    for values, paths in ((system, sys_paths), (baseline, base_paths)):
        if min(values) <= 0:
            raise InputError(f"key {SPEED_KEY!r} is not positive", paths[0])
    r = ratio_interval(system, baseline, ev.alpha)
    paper = claim.get("paper_ratio")
    return {"scores": system, "baseline_scores": baseline,
            "mean": float(np.mean(system)), "sd": multiseed.seed_sd(system),
            "baseline_mean": float(np.mean(baseline)),
            "baseline_sd": multiseed.seed_sd(baseline), "ratio": r.ratio,
            "delta": None, "ci_low": r.ci_low, "ci_high": r.ci_high,
            "ci_level": r.level, "se_log": r.se_log, "df": r.df,
            "p": ratio_p(r, speed_threshold(claim)),
            "p_paper": None if paper is None else ratio_p(r, paper),
            "one_seed": min(len(system), len(baseline)) == 1,
            "seeds": sys_seeds, "baseline_seeds": base_seeds, "items": None}


def _sentence_cxmi(path: Path) -> list[float]:
    """Per test sentence, log p(y|x,C) - log p(y|x,C_random) of one run's CXMI
    JSON (phrasenmt.evaluate.cxmi)."""
    values = load_json(path).get("test", {}).get("sentence_cxmi_random")
    if not isinstance(values, list) or not values:
        raise InputError("has no test.sentence_cxmi_random list (made by an older "
                         "phrasenmt.evaluate.cxmi? rerun the cxmi rule)", path)
    return [float(v) for v in values]


def cxmi_result(claim: dict, ev: Evidence) -> dict[str, Any]:
    """CXMI against a random context (nats per sentence, Fernandes et al.'s mean
    over test sentences) of the system against its baseline (a document model's
    random-context control), all seeds, paired by sentence."""
    sys_seeds, sys_paths = run_files(ev, claim["system"], "cxmi")
    base_seeds, base_paths = run_files(ev, claim["baseline"], "cxmi")
    result = multiseed.compare_items([_sentence_cxmi(p) for p in base_paths],
                                     [_sentence_cxmi(p) for p in sys_paths],
                                     trials=ev.trials, seed=ev.seed, alpha=ev.alpha)
    return {**result, "seeds": sys_seeds, "baseline_seeds": base_seeds}


CHECKS = {"bleu": bleu_result, "bleu_subset": bleu_result,
          "agreement": agreement_result, "pronouns": pronoun_result,
          "contrastive": contrastive_result, "train_speed": speed_result,
          "cxmi": cxmi_result}


def speed_verdict(claim: dict, r: dict[str, Any]) -> str:
    """A ratio claim: the interval clears ratio_fraction x paper_ratio (when the
    claim gives a fraction), or reaches paper_ratio and excludes 1 (when it
    gives a factor), or excludes 1 (a claim of "faster" alone)."""
    low, high, paper = r["ci_low"], r["ci_high"], claim.get("paper_ratio")
    if paper is None or "ratio_fraction" in claim:
        floor = speed_threshold(claim)
        if low >= floor:
            return "reproduced"
        return "not reproduced" if high < floor else "inconclusive"
    if high < paper:  # the paper's factor is outside the interval
        return "not reproduced"
    return "reproduced" if low > 1 else "inconclusive"


def verdict(claim: dict, result: dict[str, Any], alpha: float) -> str:
    """reproduced / not reproduced / inconclusive, as documented in claims.py;
    "one seed: indicative, no verdict" with one seed on either side."""
    if result["one_seed"]:
        return ONE_SEED
    if claim["metric"] == "train_speed":
        return speed_verdict(claim, result)
    significant = result["p"] is not None and result["p"] < alpha
    better = significant and result["delta"] > 0
    worse = significant and result["delta"] < 0
    if claim["expect"] == "not_higher":  # the paper reports no gain
        if better:
            return "not reproduced"
        equivalent = result["tost_p"] is not None and result["tost_p"] < alpha
        return "reproduced" if equivalent else "inconclusive"
    if better:
        return "reproduced"
    return "not reproduced" if worse else "inconclusive"


def verdict_p(claim: dict, result: dict[str, Any], outcome: str) -> float | None:
    """The p-value a verdict rests on (the one Holm's correction adjusts): TOST
    for a claim of no gain unless a gain refuted it, the paper's factor for a
    speed claim that missed it, else the comparison's own p."""
    if claim["metric"] == "train_speed" and outcome == "not reproduced" \
            and "ratio_fraction" not in claim and claim.get("paper_ratio"):
        return result["p_paper"]
    if claim["expect"] == "not_higher" and outcome != "not reproduced":
        return result["tost_p"]
    return result["p"]


def with_tost(claim: dict, result: dict[str, Any]) -> dict[str, Any]:
    """A claim of no gain's result with its margin and TOST p-value."""
    if claim["expect"] != "not_higher" or claim["metric"] == "train_speed":
        return result
    df = result.get("df") or float("inf")
    p = (None if result["se"] is None else
         tost_p(result["delta"], result["se"], df, claim["margin"]))
    return {**result, "margin": claim["margin"], "tost_p": p}


def judged_by_tost(claim: dict, outcome: str) -> bool:
    """Whether a verdict rests on TOST: a claim of no gain that a significant
    gain did not refute (and that has a verdict)."""
    return (claim["expect"] == "not_higher" and claim["metric"] != "train_speed"
            and outcome not in ("not reproduced", ONE_SEED))


def tost_interval(result: dict[str, Any], alpha: float) -> dict[str, Any]:
    """The interval that matches TOST at level alpha: the two-sided
    (1 - 2 alpha) one, inside +-margin exactly when TOST's p is below alpha
    (the (1 - alpha) one is wider, and can cross the margin of a reproduced
    claim). Unchanged without a standard error."""
    if result.get("se") is None:
        return result
    level = tost_level(alpha)
    low, high = t_interval(result["delta"], result["se"], result.get("df"), level)
    return {**result, "ci_low": low, "ci_high": high, "ci_level": level}


def _not_learned(model: str, ev: Evidence, ref: Path, kind: str = "hyp") -> list[str]:
    """'seed N: why' for each seed of a model whose test outputs show no learning."""
    try:
        seeds, paths = run_files(ev, model, kind)
    except NotTested as why:
        raise NotTested(f"{why} (needed to check that {model} learned)") from None
    failed = []
    for seed, path in zip(seeds, paths, strict=True):
        reasons = measure_files(path, ref, ev.seed, ev.bleu_tokenize).reasons(ev.guard)
        failed += [f"seed {seed}: {'; '.join(reasons)}"] if reasons else []
    return failed


def check_learned(claim: dict, ev: Evidence) -> None:
    """NotTested when the baseline or the system of a claim did not learn."""
    if claim["metric"] not in GUARDED:
        return
    ref = need_file(ev, "ref", "detokenized test reference")
    reasons = []
    for role, model in (("the baseline", claim["baseline"]),
                        (claim["system"], claim["system"])):
        failed = _not_learned(model, ev, ref, hyp_kind(claim))
        if failed:
            named = f"{model} " if role == "the baseline" else ""
            reasons.append(f"{role} did not learn ({named}{', '.join(failed)})")
    if reasons:
        raise NotTested("; ".join(reasons))


def check(claim: dict, ev: Evidence, alpha: float) -> dict[str, Any]:
    """The result of one claim on one dataset, or NotTested with the reason."""
    direction = claim.get("direction")
    if direction and direction != ev.direction:
        raise NotTested(f"the paper measured {direction}; {ev.dataset} is "
                        f"{ev.direction}")
    for model in (claim["system"], claim["baseline"]):
        if model not in ev.models:
            raise NotTested(f"model {model} is not configured for {ev.dataset}")
    if claim["metric"] in METRIC_DATA:  # the data's absence is the first reason
        need_file(ev, *METRIC_DATA[claim["metric"]])
    check_learned(claim, ev)
    result = with_tost(claim, CHECKS[claim["metric"]](claim, ev))
    outcome = verdict(claim, result, alpha)
    tost = judged_by_tost(claim, outcome)
    return {**(tost_interval(result, alpha) if tost else result),
            "verdict": outcome, "verdict_p": verdict_p(claim, result, outcome),
            "tost": tost}
