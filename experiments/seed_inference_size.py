"""Size of the seed-level significance test under a null with seed variance.

    python experiments/seed_inference_size.py [--replicates 1000] [--samples 200]
        [--seeds 3] [--baseline-seeds N] [--items 500] [--spreads 0 2 4 8]
        [--seed 1]

Draws null comparisons (`phrasenmt.evaluate.seed_inference.NullModel`: system
and baseline are the same model; each item's score in points is the item's
difficulty (sd 15, shared) + the run's seed effect, drawn uniformly from
[-spread/2, +spread/2] + noise (sd 20)), and prints, per seed spread, how often
three tests reject at alpha = 0.05 and 0.01:

* items only: the stratified approximate randomization over test items that
  the claims table used before (MultEval, Clark et al. 2011), as it was;
* hierarchical bootstrap: seeds (n - 1 of n, with replacement), then items,
  the standard error of that bootstrap with Student's t (Welch df);
* seeds + items: `seed_inference` as the tables use it.

With --baseline-seeds other than --seeds (unbalanced seeds) only the last
test runs: the other two pair the system's seeds with the baseline's.

The rejection rate of a test at its level alpha is its size; every rate has a
binomial standard error of sqrt(alpha (1 - alpha) / replicates).
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from phrasenmt.evaluate.seed_inference import (
    NullModel,
    mean_scorer,
    seed_inference,
    t_inference,
    welch_df,
)

ALPHAS = (0.05, 0.01)


def items_only_p(system: np.ndarray, baseline: np.ndarray, trials: int,
                 rng: np.random.Generator) -> float:
    """Stratified approximate randomization over items, seed i with seed i."""
    observed = float(mean_scorer(system.sum(1)).mean()
                     - mean_scorer(baseline.sum(1)).mean())
    delta = np.zeros(trials)
    for sys_run, base_run in zip(system, baseline, strict=True):
        swap = rng.random((trials, sys_run.shape[0])) < 0.5
        moved = swap @ (base_run - sys_run)
        delta += (mean_scorer(sys_run.sum(0) + moved)
                  - mean_scorer(base_run.sum(0) - moved)) / len(system)
    return (int(np.sum(np.abs(delta) >= abs(observed) - 1e-9)) + 1) / (trials + 1)


def hierarchical_p(system: np.ndarray, baseline: np.ndarray, samples: int,
                   rng: np.random.Generator) -> float:
    """Seeds (n - 1 of n) then items; se of the bootstrap deltas, Student's t."""
    n, items = system.shape[0], system.shape[1]
    deltas = np.empty(samples)
    for b in range(samples):
        idx = rng.integers(0, items, items)
        sides = []
        for runs in (system, baseline):
            drawn = runs[rng.integers(0, n, n - 1)][:, idx]  # (n - 1, N, 2)
            sides.append(mean_scorer(drawn.sum(1)).mean())
        deltas[b] = sides[0] - sides[1]
    observed = float(mean_scorer(system.sum(1)).mean()
                     - mean_scorer(baseline.sum(1)).mean())
    seeds = [(float(np.var(mean_scorer(r.sum(1)), ddof=1)) / n, n - 1)
             for r in (system, baseline)]
    variance = float(np.var(deltas, ddof=1))
    rest = max(variance - sum(v for v, _ in seeds), 0.0)
    df = welch_df([*seeds, (rest, items - 1)])
    return t_inference(observed, math.sqrt(variance), df, 0.05).p


def unbalanced(args: argparse.Namespace, base_seeds: int) -> None:
    """The seeds + items test's size with unequal seed counts."""
    print("| seed spread (points) | seeds + items, α 0.05 | seeds + items, α 0.01 |")
    print("|---:|---:|---:|")
    for spread in args.spreads:
        model = NullModel(seeds=args.seeds, baseline_seeds=base_seeds,
                          items=args.items, spread=spread)
        rng = np.random.default_rng([args.seed, int(spread * 1000)])
        pvalues = np.asarray([seed_inference(*model.draw(rng), mean_scorer,
                                             args.samples, 0.05, rng).p
                              for _ in range(args.replicates)])
        cells = [f"{100 * np.mean(pvalues < a):.1f} %" for a in ALPHAS]
        print(f"| {spread:g} | " + " | ".join(cells) + " |", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--replicates", type=int, default=1000)
    p.add_argument("--samples", type=int, default=200,
                   help="bootstrap samples = randomization trials per test")
    p.add_argument("--seeds", type=int, default=3, help="seeds per model")
    p.add_argument("--baseline-seeds", type=int,
                   help="the baseline's seeds (default: --seeds)")
    p.add_argument("--items", type=int, default=500)
    p.add_argument("--spreads", type=float, nargs="+", default=[0, 2, 4, 8])
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    base_seeds = args.baseline_seeds or args.seeds
    print(f"{args.replicates} null comparisons per spread, {args.seeds} vs "
          f"{base_seeds} seeds, {args.items} items, {args.samples} samples")
    if base_seeds != args.seeds:
        unbalanced(args, base_seeds)
        binomial_sd(args.replicates)
        return
    print("| seed spread (points) | items only, α 0.05 | items only, α 0.01 "
          "| hierarchical bootstrap, α 0.05 | hierarchical bootstrap, α 0.01 "
          "| seeds + items, α 0.05 | seeds + items, α 0.01 |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for spread in args.spreads:
        model = NullModel(seeds=args.seeds, items=args.items, spread=spread)
        rng = np.random.default_rng([args.seed, int(spread * 1000)])
        pvalues: dict[str, list[float]] = {"items": [], "hier": [], "ours": []}
        for _ in range(args.replicates):
            system, baseline = model.draw(rng)
            pvalues["items"].append(items_only_p(system, baseline, args.samples, rng))
            pvalues["hier"].append(hierarchical_p(system, baseline, args.samples, rng))
            pvalues["ours"].append(seed_inference(system, baseline, mean_scorer,
                                                  args.samples, 0.05, rng).p)
        cells = [f"{100 * np.mean(np.asarray(pvalues[k]) < a):.1f} %"
                 for k in ("items", "hier", "ours") for a in ALPHAS]
        print(f"| {spread:g} | " + " | ".join(cells) + " |", flush=True)
    binomial_sd(args.replicates)


def binomial_sd(replicates: int) -> None:
    """The standard error of a rejection rate at each level."""
    for a in ALPHAS:
        print(f"binomial sd of a rate at α {a:g}: "
              f"{100 * math.sqrt(a * (1 - a) / replicates):.2f} points")


if __name__ == "__main__":
    main()
