"""Scores over training seeds in the report tables.

A table cell shows the mean over seeds with the sample standard deviation
("27.31 ± 0.42"), or says that there was one seed ("27.31 (1 seed)"); a
second cell lists each seed's score. Significance comes from the all-seed
evaluation JSON of ``phrasenmt.evaluate.multiseed`` (training seeds and test
sentences both enter its p-value), whose p-value uses every seed of the
system and of the baseline. A comparison in which a model has one seed gets
no mark: its p covers the test sentences only, and its p cell says "one seed:
indicative, no verdict".
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from phrasenmt.io import InputError
from phrasenmt.report.json_fields import get_key, load_json

AGGREGATE_KEYS = ("system", "baseline", "testset", "seeds", "scores", "mean", "p",
                  "delta")
ONE_SEED = "one seed: indicative, no verdict"


def load_aggregate(path: Path) -> dict[str, Any]:
    """An all-seed evaluation JSON; missing keys or a seed/score mismatch raise."""
    data = load_json(path)
    for key in AGGREGATE_KEYS:
        get_key(data, key, path)
    seeds, scores = data["seeds"], data["scores"]
    if not isinstance(seeds, list) or not isinstance(scores, list) or \
            len(seeds) != len(scores) or not scores:
        raise InputError(f"keys 'seeds' ({seeds!r}) and 'scores' must be lists of "
                         "the same non-zero length", path)
    return data


def significance(data: dict[str, Any], path: Path, baseline: str, alpha: float
                 ) -> tuple[float, bool, bool]:
    """(p-value, better and p < alpha, one seed on either side) of an all-seed
    evaluation; the baseline's own row has no test (NaN, False, False), and a
    comparison in which the system or its baseline has one seed gets no mark
    (its p is shown, indicative)."""
    if data["baseline"] != baseline:
        raise InputError(f"key 'baseline' is {data['baseline']!r} but --baseline is "
                         f"{baseline!r}", path)
    if data["system"] == baseline or data["p"] is None:
        return math.nan, False, False
    p = float(get_key(data, "p", path, number=True))
    delta = float(get_key(data, "delta", path, number=True))
    single = one_seed(data)
    return p, bool(delta > 0 and p < alpha and not single), single


def one_seed(data: dict[str, Any]) -> bool:
    """Whether the system or the baseline of an all-seed evaluation has one seed."""
    counts = (len(data["seeds"]), data.get("n_baseline_seeds", 2))
    return bool(data.get("one_seed")) or min(counts) == 1


def mean_sd(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample sd over seeds (sd NaN with one seed)."""
    values = [float(v) for v in values]
    sd = statistics.stdev(values) if len(values) > 1 else math.nan
    return statistics.fmean(values), sd


def spread(mean: float, sd: float, n: int, digits: int = 2) -> str:
    """"mean ± sd" over n seeds, or "mean (1 seed)"."""
    if math.isnan(mean):
        return "–"
    if n == 1 or math.isnan(sd):
        return f"{mean:.{digits}f} (1 seed)"
    return f"{mean:.{digits}f} ± {sd:.{digits}f}"


def per_seed(seeds: Sequence[int], scores: Sequence[float], digits: int = 2) -> str:
    """Each seed's score, "1: 27.10, 2: 27.52"."""
    return ", ".join(f"{s}: {v:.{digits}f}" for s, v in zip(seeds, scores,
                                                            strict=True))


def p_cell(p: float, single: bool) -> str:
    """A p-value cell ("–" for the baseline's row); labelled as indicative when
    the system or its baseline has one seed (`single`)."""
    if math.isnan(p):
        return "–"
    return f"{p:.3g}" + (f" ({ONE_SEED})" if single else "")


def joined(values: Sequence[Any]) -> str:
    """Per-seed values in one CSV cell, separated by ';'."""
    return ";".join(str(v) for v in values)


def group_seed_evals(paths: Sequence[Path]) -> dict[tuple[str, str], list[dict]]:
    """Per-seed BLEU JSONs grouped by (system, test set), in the order given."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for path in paths:
        data = load_json(path)
        key = (str(get_key(data, "system", path)), str(get_key(data, "testset", path)))
        groups.setdefault(key, []).append({**data, "_path": path})
    return groups


def seed_means(runs: Sequence[dict], keys: Sequence[str]) -> dict[str, tuple]:
    """Per dotted key (e.g. bleu_tok.score): (mean, sd, each seed's value)."""
    out = {}
    for key in keys:
        values = [float(get_key(r, key, r["_path"], number=True)) for r in runs]
        out[key] = (*mean_sd(values), values)
    return out


def named_lists(pairs: Sequence[tuple[str, Path]]) -> dict[str, list[Path]]:
    """NAME=FILE options, a name given once per seed -> name: files in order."""
    out: dict[str, list[Path]] = {}
    for name, path in pairs:
        out.setdefault(name, []).append(path)
    return out
