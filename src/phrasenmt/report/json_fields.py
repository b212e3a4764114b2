"""Reading evaluation and training JSONs for the report: one line per problem."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from phrasenmt.io import InputError, read_json


def load_json(path: Path) -> dict[str, Any]:
    """Read a JSON object; a missing file or bad JSON raises naming the file."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError("expected a JSON object", path)
    return data


def get_key(data: dict[str, Any], key: str, path: Path, number: bool = False
            ) -> Any:
    """Value at a dotted key; missing (or non-numeric when `number`) raises."""
    value: Any = data
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            raise InputError(f"missing key {key!r}", path)
        value = value[part]
    if number and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise InputError(f"key {key!r} is not a number: {value!r}", path)
    return value


# numbers of a training summary.json (`phrasenmt.train`): key -> must be an integer
SUMMARY_NUMBERS = {"params": True, "steps": True, "target_tokens": True,
                   "average_last": True, "train_seconds": False,
                   "tokens_per_second": False, "max_steps": True,
                   "warmup_steps": True}


def load_summary(path: Path) -> dict[str, Any]:
    """A training summary.json, every number in it checked before any is used.

    Counts (params, steps, target_tokens, average_last) are non-negative
    integers, times and speeds (train_seconds, tokens_per_second) non-negative
    finite numbers, best_dev_loss a finite number or null: a clock that jumped
    back or an edited file would otherwise show as "-1:58:56" in a table.
    """
    data = load_json(path)
    for key, integer in SUMMARY_NUMBERS.items():
        if key not in data:
            continue  # the reader that needs it says it is missing
        value = get_key(data, key, path, number=True)
        if not math.isfinite(value) or value < 0 or (
                integer and not float(value).is_integer()):
            kind = "count" if integer else "number"
            raise InputError(f"key {key!r} is {value!r}, not a non-negative {kind}",
                             path)
    best = data.get("best_dev_loss")
    if best is not None and (isinstance(best, bool) or not isinstance(best, int | float)
                             or not math.isfinite(best)):
        raise InputError(f"key 'best_dev_loss' is {best!r}, not a finite number or "
                         "null (no validation)", path)
    return data


def stop_note(data: dict[str, Any], path: Path) -> str:
    """What a results table says of a run that `train.max_minutes` stopped early
    under a step schedule: "stopped in warm-up at update N of M (warm-up W)"
    inside its warm-up, "stopped at update N of M" before half of max_steps;
    "" otherwise, and for a summary that does not record its budgets."""
    if data.get("stopped_by") != "max_minutes" or data.get("schedule",
                                                            "steps") != "steps":
        return ""
    if "max_steps" not in data or "warmup_steps" not in data:
        return ""
    steps = int(get_key(data, "steps", path, number=True))
    total = int(get_key(data, "max_steps", path, number=True))
    warmup = int(get_key(data, "warmup_steps", path, number=True))
    if steps < warmup:
        return (f"stopped in warm-up at update {steps:,} of {total:,} "
                f"(warm-up {warmup:,})")
    return f"stopped at update {steps:,} of {total:,}" if 2 * steps < total else ""
