"""Significance of a system against its baseline over several training seeds.

Training seeds are the unit of inference: another seed gives another model,
and a test that only resamples test sentences (as MultEval's stratified
randomization does, Clark et al. 2011) takes that noise for an effect.

* Score. Each seed's corpus BLEU (sacreBLEU with the target language's
  tokenizer, ``--lang``: 13a, or zh, ja-mecab, char; its default ``exp``
  smoothing, exactly as ``phrasenmt.evaluate.bleu``) is computed from
  per-sentence sufficient statistics (lengths, matched and total n-grams),
  extracted once; a corpus score of any subset or resample is a sum of rows.
  The reported numbers are the mean and the sample sd over seeds; the
  difference ``delta`` is the mean over the system's seeds minus the mean over
  the baseline's seeds.
* p-value and interval (``phrasenmt.evaluate.seed_inference``): the variance
  of delta is the seeds' sample variance of each side's mean plus the test
  items' share, from a paired bootstrap over sentences less the run-level noise
  the seeds' variances already hold (docs/evaluation.md#significance); p is
  two-sided from Student's t with Welch-Satterthwaite degrees of freedom,
  and the interval delta +- t * se is at level 1 - alpha (99 % for the
  default alpha 0.01), the level of the verdicts that read it.
* Per-item scores (0/1 accuracy of a contrastive pair or a pronoun, or any
  real per-item score): the same with the metric the mean over items (as a
  fraction, not a percentage); items that belong together (a contrastive item
  and its mirror) are resampled together (``clusters``).
* A subset (sentence indices, e.g. sources longer than 45 tokens) restricts
  every computation to those sentences.
* With one seed on either side there is no seed-level variance to estimate:
  the p-value covers the test items only and ``one_seed`` is true; tables
  print such a comparison as "one seed: indicative, no verdict".
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from sacrebleu.metrics import BLEU

from phrasenmt.cli import (
    ArgumentParser,
    alpha_level,
    nonnegative_int,
    output_file,
    positive_int,
    same_file,
)
from phrasenmt.evaluate.bleu import bleu_tokenizer
from phrasenmt.evaluate.seed_inference import (
    METHOD,
    Scorer,
    cluster_stats,
    mean_scorer,
    seed_inference,
)
from phrasenmt.io import InputError, atomic_open, read_lines, run_cli

NGRAM = 4  # sacreBLEU's max n-gram order
ALPHA = 0.01  # default level: the interval is at 1 - alpha (config evaluate.alpha)


def bleu_stats(hyps: Sequence[str], refs: Sequence[str],
               tokenize: str = "13a") -> np.ndarray:
    """Per-sentence BLEU sufficient statistics, shape (sentences, 2 + 2 * 4).

    sacreBLEU's own per-segment code (as its corpus_score and PairedTest use
    it), with each reference's n-grams and each hypothesis's tokenization kept
    per distinct line: a claims table scores the same references against many
    systems and many shuffled pairings, and tokenizing them again each time was
    most of its run time."""
    if len(hyps) != len(refs):
        raise ValueError(f"{len(hyps)} hypotheses but {len(refs)} references")
    metric = _bleu_metric(tokenize)
    stats = [metric._compute_segment_statistics(_hypothesis(h, tokenize),
                                                _reference_info(r, tokenize))
             for h, r in zip(hyps, refs, strict=True)]
    return np.asarray(stats, dtype=np.int64).reshape(len(hyps), 2 + 2 * NGRAM)


@lru_cache(maxsize=8)
def _bleu_metric(tokenize: str) -> BLEU:
    """sacreBLEU's BLEU with `tokenize` (force: no detokenization warnings)."""
    return BLEU(tokenize=tokenize, force=True)


@lru_cache(maxsize=1 << 17)
def bleu_signature(tokenize: str) -> str:
    """sacreBLEU's signature of the BLEU these comparisons compute (one
    reference, `tokenize`, exponential smoothing), as phrasenmt.evaluate.bleu
    writes it beside a single run's score."""
    metric = _bleu_metric(tokenize)
    metric.corpus_score(["."], [["."]])  # the signature needs the reference count
    return metric.get_signature().format()


def _hypothesis(line: str, tokenize: str) -> str:
    """A hypothesis line as sacreBLEU scores it (tokenized)."""
    return _bleu_metric(tokenize)._preprocess_segment(line)


@lru_cache(maxsize=1 << 17)
def _reference_info(line: str, tokenize: str) -> dict[str, Any]:
    """One reference's n-gram counts and length, as sacreBLEU caches them
    (read only by the segment statistics, never changed)."""
    metric = _bleu_metric(tokenize)
    return metric._extract_reference_info([metric._preprocess_segment(line)])


def bleu_from_stats(stats: np.ndarray) -> np.ndarray:
    """Corpus BLEU of summed statistics (..., 10), as sacreBLEU's compute_bleu."""
    stats = np.asarray(stats, dtype=np.float64)
    sys_len, ref_len = stats[..., 0], stats[..., 1]
    correct, total = stats[..., 2:2 + NGRAM], stats[..., 2 + NGRAM:]
    with np.errstate(divide="ignore", invalid="ignore"):
        bp = np.where(sys_len < ref_len,
                      np.exp(1 - ref_len / np.where(sys_len > 0, sys_len, 1)), 1.0)
        bp = np.where(sys_len > 0, bp, 0.0)
        # 'exp' smoothing: the k-th order without a match gets 1 / (2^k total)
        halvings = np.cumsum(correct == 0, axis=-1)
        prec = np.where(correct == 0, 100.0 / (2.0 ** halvings * total),
                        100.0 * correct / total)
        logs = [np.log(prec[..., n]) for n in range(NGRAM)]
        score = bp * np.exp(sum(logs) / NGRAM)
    # no match at all, or an order with no n-gram (sacreBLEU: log 0 -> score 0)
    dead = ~np.any(correct > 0, axis=-1) | np.any(total == 0, axis=-1)
    return np.where(dead, 0.0, score)


def seed_sd(scores: Sequence[float]) -> float | None:
    """Sample standard deviation over seeds; None with one seed."""
    return float(np.std(scores, ddof=1)) if len(scores) > 1 else None


def _compare(sys_stats: np.ndarray, base_stats: np.ndarray, scorer: Scorer,
             trials: int, seed: int, alpha: float = ALPHA) -> dict[str, Any]:
    """Scores, delta, interval and p of stacked per-seed statistics (seeds, n, k)."""
    if sys_stats.shape[1] == 0:
        raise ValueError("no sentences to compare (empty test set or subset)")
    scores = [float(x) for x in scorer(sys_stats.sum(axis=1))]
    base = [float(x) for x in scorer(base_stats.sum(axis=1))]
    delta = float(np.mean(scores) - np.mean(base))
    test = (seed_inference(sys_stats, base_stats, scorer, trials, alpha,
                           np.random.default_rng(seed)) if trials else None)
    return {"scores": scores, "baseline_scores": base,
            "mean": float(np.mean(scores)), "sd": seed_sd(scores),
            "baseline_mean": float(np.mean(base)), "baseline_sd": seed_sd(base),
            "delta": delta, "ci_low": test and test.ci_low,
            "ci_high": test and test.ci_high, "ci_level": 1 - alpha,
            "p": test and test.p, "se": test and test.se,
            "df": None if test is None or math.isinf(test.df) else test.df,
            "trials": trials, "method": METHOD, "n_seeds": len(scores),
            "n_baseline_seeds": len(base),
            "one_seed": min(len(scores), len(base)) == 1}


def _stack(runs: Sequence[np.ndarray], subset: Sequence[int] | None) -> np.ndarray:
    """Stack per-seed statistics (seeds, n, k), restricted to a subset."""
    if not runs:
        raise ValueError("no seeds given")
    lengths = {len(r) for r in runs}
    if len(lengths) != 1:
        raise ValueError(f"seeds have different numbers of sentences: {lengths}")
    stacked = np.stack([np.asarray(r) for r in runs])
    return stacked if subset is None else stacked[:, np.asarray(subset, dtype=int)]


def compare_bleu(refs: Sequence[str], baseline: Sequence[Sequence[str]],
                 system: Sequence[Sequence[str]], *, tokenize: str = "13a",
                 trials: int = 1000,
                 seed: int = 1, subset: Sequence[int] | None = None,
                 alpha: float = ALPHA) -> dict[str, Any]:
    """Corpus BLEU of several seeds of a system against several of a baseline."""
    sys_stats = _stack([bleu_stats(h, refs, tokenize) for h in system], subset)
    base_stats = _stack([bleu_stats(h, refs, tokenize) for h in baseline], subset)
    return _compare(sys_stats, base_stats, bleu_from_stats, trials, seed, alpha)


def _item_stats(scores: Sequence[float]) -> np.ndarray:
    """Per-item (value, 1) statistics, so a sum over items gives (total, count)."""
    values = np.asarray(scores, dtype=np.float64)
    if values.ndim != 1 or not np.all(np.isfinite(values)):
        raise ValueError("per-item scores must be a flat list of finite numbers")
    return np.stack([values, np.ones_like(values)], axis=1)


def compare_items(baseline: Sequence[Sequence[float]],
                  system: Sequence[Sequence[float]], *, trials: int = 1000,
                  seed: int = 1, subset: Sequence[int] | None = None,
                  alpha: float = ALPHA, clusters: Sequence[int] | None = None
                  ) -> dict[str, Any]:
    """Mean per-item score (e.g. 0/1 accuracy) of several seeds against a
    baseline; `clusters` (a label per item, after `subset`) resamples items
    that belong together as one."""
    sys_stats = _stack([_item_stats(s) for s in system], subset)
    base_stats = _stack([_item_stats(s) for s in baseline], subset)
    result = _compare(cluster_stats(sys_stats, clusters),
                      cluster_stats(base_stats, clusters), mean_scorer, trials,
                      seed, alpha)
    return {**result, "items": sys_stats.shape[1],
            "clusters": sys_stats.shape[1] if clusters is None
            else len(set(clusters))}


def _read_hyps(paths: Sequence[Path], ref: Path, n_refs: int) -> list[list[str]]:
    """Read hypothesis files; a line count other than the reference's raises."""
    runs = []
    for path in paths:
        hyps = read_lines(path)
        if len(hyps) != n_refs:
            raise InputError(f"has {len(hyps)} lines but the reference {ref} has "
                             f"{n_refs}; they must match", path)
        runs.append(hyps)
    return runs


def _same_system(refs: list[str], hyps: list[list[str]],
                 tokenize: str = "13a") -> dict[str, Any]:
    """A system against itself: its scores, delta 0, p 1, no trials run."""
    result = _compare(np.stack([bleu_stats(h, refs, tokenize) for h in hyps]),
                      np.stack([bleu_stats(h, refs, tokenize) for h in hyps]),
                      bleu_from_stats, 0, 1)
    result.update(delta=0.0, ci_low=0.0, ci_high=0.0, p=1.0, se=0.0)
    return result


def evaluate(args: argparse.Namespace) -> dict[str, Any]:
    """The JSON the CLI writes, from parsed arguments."""
    refs = read_lines(args.ref)
    if not refs:
        raise InputError("no lines to score", args.ref)
    hyps = _read_hyps(args.hyp, args.ref, len(refs))
    tokenize = bleu_tokenizer(args.lang)[0]  # as phrasenmt.evaluate.bleu scores
    if args.system == args.baseline_name:
        result = _same_system(refs, hyps, tokenize)
    else:
        base = _read_hyps(args.baseline_hyp, args.ref, len(refs))
        result = compare_bleu(refs, base, hyps, tokenize=tokenize,
                              trials=args.trials, seed=args.seed,
                              alpha=args.alpha)
    return {"system": args.system, "baseline": args.baseline_name,
            "testset": args.testset, "metric": "bleu", "tokenize": tokenize,
            "signature": bleu_signature(tokenize), "seeds": args.seeds,
            **result}


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of the multi-seed comparison."""
    p = ArgumentParser(prog="python -m phrasenmt.evaluate.multiseed",
                       description=__doc__.splitlines()[0])
    p.add_argument("--system", required=True, help="name of the evaluated system")
    p.add_argument("--baseline-name", required=True, help="name of the baseline")
    p.add_argument("--testset", required=True, help="name of the test set")
    p.add_argument("--ref", type=Path, required=True,
                   help="detokenized reference, one sentence per line")
    p.add_argument("--lang", help="target language code: picks sacreBLEU's "
                   "tokenizer as phrasenmt.evaluate.bleu does (default 13a)")
    p.add_argument("--hyp", type=Path, nargs="+", required=True,
                   help="detokenized hypotheses of the system, one file per seed")
    p.add_argument("--baseline-hyp", type=Path, nargs="+",
                   help="detokenized hypotheses of the baseline, one file per seed "
                        "(not needed when the system is the baseline)")
    p.add_argument("--seeds", type=nonnegative_int, nargs="+", required=True,
                   help="the system's seeds, in the order of --hyp")
    p.add_argument("--trials", type=positive_int, default=1000,
                   help="paired bootstrap samples over sentences, the test items' "
                        "share of the variance (default: %(default)s)")
    p.add_argument("--alpha", type=alpha_level, default=ALPHA,
                   help="significance level: the interval of delta is at "
                        "1 - alpha (default: %(default)s)")
    p.add_argument("--seed", type=nonnegative_int, default=1,
                   help="seed of the bootstrap (default: %(default)s)")
    p.add_argument("--out", type=output_file, required=True, help="output JSON file")
    return p


def main(argv: list[str] | None = None) -> int:
    """Compare a system's seeds with its baseline's and write the result as JSON."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if len(args.seeds) != len(args.hyp):
        parser.error(f"--seeds has {len(args.seeds)} values but --hyp has "
                     f"{len(args.hyp)} files; give one seed per file")
    if len(set(args.seeds)) != len(args.seeds):
        parser.error(f"--seeds repeats a seed: {args.seeds}")
    for option, files in (("--hyp", args.hyp), ("--baseline-hyp", args.baseline_hyp)):
        for n, path in enumerate(files or []):
            twin = next((m for m in range(n) if same_file(files[m], path)), None)
            if twin is not None:  # one run's translations counted as two seeds
                parser.error(f"{option} names one file for two seeds "
                             f"({files[twin]} and {path}); each seed needs the "
                             "translations of its own run")
    if args.system != args.baseline_name and not args.baseline_hyp:
        parser.error("--baseline-hyp is needed when --system is not the baseline")
    result = evaluate(args)
    with atomic_open(args.out) as fh:
        json.dump(result, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
    return 0


if __name__ == "__main__":
    run_cli(main)
