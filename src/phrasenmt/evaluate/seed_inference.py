"""Inference with training seeds as the unit: standard error, p, intervals, TOST,
ratios and Holm's correction.

A comparison of a system's seeds with a baseline's has two sources of noise:
the training runs (another seed gives another model) and the test items
(another test set gives another score). Both enter here:

* The variance of delta has two levels. Seeds: each model's sample variance
  of its seeds' scores over its seed count (s^2 / n, what a bootstrap that
  draws n - 1 of n seeds gives on average). Test items: a bootstrap over
  items (sentences, or clusters of items that belong together, such as
  mirrored contrastive pairs), the same items for every seed of both models,
  with the run-to-run noise of single items, which the seeds' variances
  already hold, taken out so it is counted once.
* p and the interval: Student's t with delta / se, its degrees of freedom
  from the Welch-Satterthwaite formula over the two seed-level variance
  components and the item-level one (N - 1). With few seeds the t quantiles
  are what keep the test at its level: a bootstrap over three seeds cannot see
  its own tails. The interval is delta +- t(1 - alpha / 2, df) * se, at the
  level of the verdicts (99 % for alpha = 0.01).
* TOST (two one-sided tests, Schuirmann 1987) for claims of no gain: the
  difference is shown equivalent to zero within +-margin when both one-sided
  tests reject, p = the larger of their p-values.
* A ratio of training speeds: Welch's t on the log of each seed's speed
  (the ratio of geometric means and its interval); with one seed on a side
  there is no seed-level variance and no interval.
* Holm's step-down adjustment of a family of p-values, and the level of each
  test's interval that agrees with it (`holm_levels`).

`simulate_size` draws null comparisons with a chosen seed spread and counts
how often a test rejects (experiments/seed_inference_size.py prints the table).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

# Student's t with real-valued degrees of freedom: the functions scipy.stats.t
# calls (`scipy.special.stdtr`, `stdtrit`), without importing scipy.stats (1 s
# of every evaluation job's start-up); nan where df is not positive (or nan), as
# scipy.stats.t gives.

def t_cdf(x: float, df: float) -> float:
    from scipy.special import stdtr

    return float(stdtr(df, x)) if df > 0 else math.nan


def t_sf(x: float, df: float) -> float:
    return t_cdf(-x, df)


def t_ppf(q: float, df: float) -> float:
    from scipy.special import stdtrit

    return float(stdtrit(df, q)) if df > 0 else math.nan


CHUNK = 256  # bootstrap samples computed at once (bounds memory)
METHOD = ("two-level variance: seeds (sample variance over seeds) plus test items "
          "(paired bootstrap, run-level noise counted once); Student's t with "
          "Welch-Satterthwaite degrees of freedom for p and the interval")

Scorer = Callable[[np.ndarray], np.ndarray]  # summed stats (..., k) -> scores


@dataclass
class Inference:
    """delta, its standard error and degrees of freedom, p and the interval."""

    delta: float
    se: float
    df: float
    p: float
    ci_low: float
    ci_high: float
    level: float  # of the interval, 1 - alpha


def item_bootstrap(sys_stats: np.ndarray, base_stats: np.ndarray, scorer: Scorer,
                   samples: int, rng: np.random.Generator
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Each seed's score under `samples` resamples of the test items, the same
    items for every seed of both models: (samples, n) and (samples, m)."""
    n_items = sys_stats.shape[1]
    sys_out, base_out = [], []
    for start in range(0, samples, CHUNK):
        size = min(CHUNK, samples - start)
        idx = rng.integers(0, n_items, size=(size, n_items))
        counts = np.zeros((size, n_items))
        np.add.at(counts, (np.arange(size)[:, None], idx), 1.0)  # (B, N)
        sys_out.append(np.stack([scorer(counts @ s) for s in sys_stats], axis=1))
        base_out.append(np.stack([scorer(counts @ s) for s in base_stats], axis=1))
    return np.concatenate(sys_out), np.concatenate(base_out)


def _run_noise(resampled: Sequence[np.ndarray]) -> float:
    """Item-level variance of one run's score around its model's (sigma_e^2 / N),
    from the resampled deviations of each run from its model's mean; pooled over
    the models with two seeds or more (0 when none has)."""
    estimates = []
    for scores in resampled:  # (B, seeds)
        n = scores.shape[1]
        if n > 1:
            deviation = scores - scores.mean(axis=1, keepdims=True)
            estimates.append(float(np.var(deviation, axis=0, ddof=1).mean())
                             / (1 - 1 / n))
    return float(np.mean(estimates)) if estimates else 0.0


def welch_df(parts: Sequence[tuple[float, float]]) -> float:
    """Welch-Satterthwaite degrees of freedom of a sum of variance components
    (variance, its degrees of freedom); inf when no component has variance."""
    total = sum(v for v, _ in parts)
    denominator = sum(v * v / d for v, d in parts if v > 0 and d > 0)
    return math.inf if denominator == 0 else total * total / denominator


def t_inference(delta: float, se: float, df: float, alpha: float) -> Inference:
    """Two-sided p of delta = 0 and the (1 - alpha) interval, Student's t."""
    if se == 0:  # no variation at all: the difference is what it is
        return Inference(delta, 0.0, df, 1.0 if delta == 0 else 0.0, delta, delta,
                         1 - alpha)
    p = float(2 * t_sf(abs(delta) / se, df))
    half = float(t_ppf(1 - alpha / 2, df)) * se
    return Inference(delta, se, df, min(p, 1.0), delta - half, delta + half,
                     1 - alpha)


def seed_inference(sys_stats: np.ndarray, base_stats: np.ndarray, scorer: Scorer,
                   samples: int, alpha: float, rng: np.random.Generator
                   ) -> Inference:
    """delta (mean over the system's seeds minus the baseline's), se, p, interval.

    var(delta) = s_sys^2 / n + s_base^2 / m (seeds: each model's sample variance
    of its seeds' scores) + the test items' share: the variance of delta over
    item resamples, less the run-level noise that the seeds' variances already
    hold (each run's item-resampled deviation from its model's mean, for every
    model whose seeds entered the first part)."""
    sys_scores = scorer(sys_stats.sum(axis=1))
    base_scores = scorer(base_stats.sum(axis=1))
    delta = float(np.mean(sys_scores) - np.mean(base_scores))
    seed_parts = [(float(np.var(s, ddof=1)) / len(s) if len(s) > 1 else 0.0,
                   len(s) - 1) for s in (sys_scores, base_scores)]
    items = 0.0
    if samples > 1:
        sys_b, base_b = item_bootstrap(sys_stats, base_stats, scorer, samples, rng)
        together = float(np.var(sys_b.mean(1) - base_b.mean(1), ddof=1))
        seen = sum(1 / len(s) for s in (sys_scores, base_scores) if len(s) > 1)
        items = max(together - _run_noise([sys_b, base_b]) * seen, 0.0)
    variance = sum(v for v, _ in seed_parts) + items
    df = welch_df([*seed_parts, (items, sys_stats.shape[1] - 1)])
    return t_inference(delta, math.sqrt(variance), df, alpha)


def tost_level(alpha: float) -> float:
    """The level of the two-sided interval that matches TOST at alpha,
    1 - 2 alpha: it lies inside +-margin exactly when TOST's p is below alpha."""
    return max(1 - 2 * alpha, 0.0)


def tost_p(delta: float, se: float, df: float, margin: float) -> float:
    """TOST p-value of |true delta| < margin (the larger one-sided p)."""
    if margin <= 0:
        raise ValueError(f"the equivalence margin must be positive, got {margin}")
    if se == 0:
        return 0.0 if abs(delta) < margin else 1.0
    lower = t_sf((delta + margin) / se, df)  # H0: delta <= -margin
    upper = t_cdf((delta - margin) / se, df)  # H0: delta >= +margin
    return float(max(lower, upper))


@dataclass
class Ratio:
    """A ratio of geometric means over seeds with its interval and p."""

    ratio: float
    ci_low: float | None  # None: a side has one seed (no seed-level variance)
    ci_high: float | None
    df: float | None
    se_log: float | None
    level: float


def ratio_interval(system: Sequence[float], baseline: Sequence[float],
                   alpha: float) -> Ratio:
    """Ratio of geometric means of positive per-seed values, with its (1 - alpha)
    interval from Welch's t on the logs (None with one seed on either side)."""
    values = np.asarray([*system, *baseline], dtype=np.float64)
    if not (np.all(np.isfinite(values)) and np.all(values > 0)):
        raise ValueError("ratios need positive, finite values")
    sys_log, base_log = np.log(system), np.log(baseline)
    log_ratio = float(sys_log.mean() - base_log.mean())
    if min(len(sys_log), len(base_log)) < 2:
        return Ratio(math.exp(log_ratio), None, None, None, None, 1 - alpha)
    parts = [(float(np.var(x, ddof=1)) / len(x), len(x) - 1)
             for x in (sys_log, base_log)]
    se = math.sqrt(sum(v for v, _ in parts))
    df = welch_df(parts)
    half = float(t_ppf(1 - alpha / 2, df)) * se if se > 0 else 0.0
    return Ratio(math.exp(log_ratio), math.exp(log_ratio - half),
                 math.exp(log_ratio + half), df, se, 1 - alpha)


def ratio_p(r: Ratio, threshold: float) -> float | None:
    """Two-sided p of ratio = threshold (None without an interval)."""
    if r.se_log is None or r.df is None:
        return None
    distance = math.log(r.ratio) - math.log(threshold)
    if r.se_log == 0:
        return 1.0 if distance == 0 else 0.0
    return float(min(1.0, 2 * t_sf(abs(distance) / r.se_log, r.df)))


def holm_levels(pvalues: Sequence[float | None], alpha: float
                ) -> list[float | None]:
    """The confidence level of each test's interval under Holm's procedure
    (None where there is no test): 1 - alpha / (m - rank) for the rank-th
    smallest of m p-values up to the step where the step-down stops (the first
    whose p does not reject), and that step's level for it and every later
    one. A two-sided interval at it then excludes the null value exactly when
    Holm rejects (adjusted p below alpha): a row past the stopping step has a
    p at least the stopping one's, so its interval holds the null value too,
    where the level of its own step could exclude it."""
    tested = sorted((p, i) for i, p in enumerate(pvalues) if p is not None)
    out: list[float | None] = [None] * len(pvalues)
    stopped: float | None = None  # the stopping step's level, once reached
    for rank, (p, i) in enumerate(tested):
        factor = len(tested) - rank
        if stopped is None and min(1.0, factor * p) >= alpha:  # as `holm` decides
            stopped = 1 - alpha / factor
        out[i] = 1 - alpha / factor if stopped is None else stopped
    return out


def t_interval(centre: float, se: float, df: float | None, level: float
               ) -> tuple[float, float]:
    """centre +- t * se at `level` (df None: the normal limit)."""
    half = float(t_ppf(1 - (1 - level) / 2, math.inf if df is None else df)) * se
    return centre - half, centre + half


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values; None (no test) stays None."""
    tested = sorted((p, i) for i, p in enumerate(pvalues) if p is not None)
    out: list[float | None] = [None] * len(pvalues)
    running = 0.0
    for rank, (p, i) in enumerate(tested):
        running = max(running, min(1.0, (len(tested) - rank) * p))
        out[i] = running
    return out


def cluster_stats(stats: np.ndarray, clusters: Sequence[int] | None) -> np.ndarray:
    """Per-seed statistics (seeds, items, k) summed within clusters of items
    (e.g. a contrastive item and its mirror), so a resample draws whole clusters;
    None: every item is its own cluster."""
    if clusters is None:
        return stats
    labels = np.asarray(clusters)
    if labels.shape != (stats.shape[1],):
        raise ValueError(f"{len(labels)} cluster labels for {stats.shape[1]} items")
    _, index = np.unique(labels, return_inverse=True)
    out = np.zeros((stats.shape[0], index.max() + 1, stats.shape[2]))
    np.add.at(out, (slice(None), index), stats)
    return out


@dataclass
class NullModel:
    """Null comparisons for the size check: per-item scores in points,
    item difficulty + seed effect + noise, the same for system and baseline."""

    seeds: int = 3  # per model
    baseline_seeds: int | None = None  # the baseline's, when it differs
    items: int = 500
    item_sd: float = 15.0  # difficulty of an item, shared by every run
    noise_sd: float = 20.0  # one run's score of one item around that
    spread: float = 0.0  # seed effect drawn uniformly from [-spread/2, +spread/2]
    effect: float = 0.0  # the system's true gain (0: the null)

    def draw(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """(system, baseline) statistics (seeds, items, 2) of one comparison."""
        difficulty = rng.normal(0.0, self.item_sd, self.items)
        sides = []
        for gain, seeds in ((self.effect, self.seeds),
                            (0.0, self.baseline_seeds or self.seeds)):
            shift = rng.uniform(-self.spread / 2, self.spread / 2, (seeds, 1))
            values = difficulty + gain + shift + rng.normal(
                0.0, self.noise_sd, (seeds, self.items))
            sides.append(np.stack([values, np.ones_like(values)], axis=-1))
        return sides[0], sides[1]


def mean_scorer(stats: np.ndarray) -> np.ndarray:
    """Per-item mean of summed (value, count) statistics."""
    return stats[..., 0] / stats[..., 1]


def simulate_size(model: NullModel, replicates: int, samples: int, alpha: float,
                  seed: int) -> int:
    """How many of `replicates` comparisons the seed-aware test rejects at alpha
    (under the null, effect 0: its size times `replicates`)."""
    rng = np.random.default_rng(seed)
    rejected = 0
    for _ in range(replicates):
        system, baseline = model.draw(rng)
        test = seed_inference(system, baseline, mean_scorer, samples, alpha, rng)
        rejected += test.p < alpha
    return rejected
