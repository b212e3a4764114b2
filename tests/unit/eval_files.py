"""Evaluation JSONs shaped like the pipeline's, for the report tables' tests."""

from __future__ import annotations

import json
import statistics
from pathlib import Path


def seed_eval(tmp: Path, system: str, testset: str, bleu: float, seed: int = 1,
              tok: float | None = None, chrf: float | None = None) -> Path:
    """One seed's JSON of phrasenmt.evaluate.bleu (no significance)."""
    data = {"system": system, "testset": testset, "lines": 10,
            "bleu": {"score": bleu, "signature": "s"},
            "bleu_tok": {"score": bleu + 1 if tok is None else tok, "signature": "s"},
            "chrf": {"score": bleu + 20 if chrf is None else chrf, "signature": "s"},
            "significance": None}
    path = tmp / f"{system}.seed{seed}.{testset}.{len(list(tmp.iterdir()))}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def aggregate(tmp: Path, system: str, testset: str, scores: list[float],
              p: float | None, base_scores: list[float] | None = None,
              baseline: str = "transformer", seeds: list[int] | None = None
              ) -> Path:
    """An all-seed JSON of phrasenmt.evaluate.multiseed (by default the baseline
    has as many seeds as the system, each scoring 30)."""
    base = base_scores or [30.0] * len(scores)
    seeds = seeds or list(range(1, len(scores) + 1))
    mean, base_mean = statistics.fmean(scores), statistics.fmean(base)
    data = {"system": system, "baseline": baseline, "testset": testset,
            "metric": "bleu", "seeds": seeds, "scores": scores,
            "baseline_scores": base, "mean": mean,
            "sd": statistics.stdev(scores) if len(scores) > 1 else None,
            "baseline_mean": base_mean, "baseline_sd": None,
            "delta": 0.0 if system == baseline else mean - base_mean,
            "ci_low": None, "ci_high": None, "p": 1.0 if system == baseline else p,
            "trials": 100, "method": "m", "n_seeds": len(scores),
            "n_baseline_seeds": len(base)}
    path = tmp / f"{system}.{testset}.{len(list(tmp.iterdir()))}.agg.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path
