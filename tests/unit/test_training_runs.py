"""The training-runs table: how each run ended, from its summary.json."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from phrasenmt.io import InputError
from phrasenmt.report import training_runs as tr


def summary(tmp_path: Path, name: str, **fields) -> Path:
    data = {"steps": 8000, "stopped_by": "max_steps", "best_dev_loss": 0.1234,
            "train_seconds": 3723.4, **fields}
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def build(tmp_path: Path, *runs: str) -> tuple[str, pd.DataFrame, pd.DataFrame]:
    outs = [tmp_path / "t.md", tmp_path / "t.csv", tmp_path / "timing.csv"]
    assert tr.main(["--summary", *runs, "--out-md", str(outs[0]), "--out-csv",
                    str(outs[1]), "--out-timing-csv", str(outs[2])]) == 0
    return outs[0].read_text(encoding="utf-8"), pd.read_csv(outs[1]), pd.read_csv(outs[2])


def test_rows_in_order_with_the_stop_and_the_time_apart(tmp_path):
    a = summary(tmp_path, "a", steps=6000, stopped_by="patience")
    b = summary(tmp_path, "b", best_dev_loss=None, stopped_by="max_minutes")
    md, csv, timing = build(tmp_path, f"pr_max:2={a}", f"transformer:1={b}")
    assert list(csv.columns) == ["model", "seed", "steps", "stopped_by", "stop_note",
                                 "best_dev_loss"]
    assert csv.model.tolist() == ["pr_max", "transformer"]
    assert csv.steps.tolist() == [6000, 8000]
    assert csv.stopped_by.tolist() == ["patience", "max_minutes"]
    assert csv.best_dev_loss[0] == pytest.approx(0.1234) and pd.isna(csv.best_dev_loss[1])
    assert timing.train_seconds.tolist() == [3723.4, 3723.4]
    assert "| pr_max | 2 | 6,000 | dev-loss plateau | 0.1234 | 1:02:03 |" in md
    assert "| transformer | 1 | 8,000 | time budget | – | 1:02:03 |" in md


def test_a_run_the_time_budget_stopped_early_is_marked(tmp_path):
    budgets = {"stopped_by": "max_minutes", "max_steps": 100000,
               "warmup_steps": 2000, "schedule": "steps"}
    runs = [summary(tmp_path, "warm", **{**budgets, "steps": 179}),
            summary(tmp_path, "half", **{**budgets, "steps": 30000}),
            summary(tmp_path, "late", **{**budgets, "steps": 60000}),
            summary(tmp_path, "time", **{**budgets, "steps": 179, "schedule": "time"}),
            summary(tmp_path, "old", steps=179, stopped_by="max_minutes")]
    md, csv, _ = build(tmp_path, *(f"m{k}:1={p}" for k, p in enumerate(runs)))
    assert csv.stop_note.fillna("").tolist() == [
        "stopped in warm-up at update 179 of 100,000 (warm-up 2,000)",
        "stopped at update 30,000 of 100,000", "", "", ""]
    assert ("| m0 | 1 | 179 | time budget: stopped in warm-up at update 179 of "
            "100,000 (warm-up 2,000) | 0.1234 |") in md
    assert "| m1 | 1 | 30,000 | time budget: stopped at update 30,000 of 100,000 |" in md
    assert "| m2 | 1 | 60,000 | time budget | 0.1234 |" in md


def test_the_results_csv_does_not_depend_on_the_time(tmp_path):
    fast = build(tmp_path, f"t:1={summary(tmp_path, 'a', train_seconds=10.0)}")[1]
    slow = build(tmp_path, f"t:1={summary(tmp_path, 'b', train_seconds=99.0)}")[1]
    assert fast.equals(slow)


@pytest.mark.parametrize("fields, message", [
    ({"stopped_by": "tired"}, "key 'stopped_by' is 'tired', not one of patience"),
    ({"steps": 2.5}, "key 'steps' is 2.5, not a non-negative count"),
    ({"steps": -3}, "key 'steps' is -3, not a non-negative count"),
    ({"best_dev_loss": "low"}, "key 'best_dev_loss' is 'low', not a finite number"),
    ({"train_seconds": None}, "key 'train_seconds' is not a number"),
    ({"train_seconds": -7136.0},
     "key 'train_seconds' is -7136.0, not a non-negative number"),
    ({"tokens_per_second": -1}, "key 'tokens_per_second' is -1, not a non-negative"),
    ({"target_tokens": 1.5}, "key 'target_tokens' is 1.5, not a non-negative count"),
])
def test_a_bad_summary_names_the_file_and_the_key(tmp_path, fields, message):
    path = summary(tmp_path, "bad", **fields)
    with pytest.raises(InputError, match=message) as err:
        tr.runs_table([tr.Run("t", 1, path)])
    assert str(path) in str(err.value)


def test_a_number_beyond_floating_point_is_refused(tmp_path):
    path = tmp_path / "huge.json"  # Python's json reads 1e999 as infinity
    path.write_text('{"steps": 1, "stopped_by": "max_steps", "best_dev_loss": 1.0, '
                    '"train_seconds": 1e999}', encoding="utf-8")
    with pytest.raises(InputError, match="key 'train_seconds' is inf, not a non-neg"):
        tr.runs_table([tr.Run("t", 1, path)])


def test_a_missing_key_and_a_run_given_twice_raise(tmp_path):
    path = tmp_path / "old.json"
    path.write_text(json.dumps({"steps": 10, "train_seconds": 1.0}), encoding="utf-8")
    with pytest.raises(InputError, match="missing key 'stopped_by'"):
        tr.runs_table([tr.Run("t", 1, path)])
    ok = summary(tmp_path, "ok")
    with pytest.raises(InputError, match="t:1 is given twice"):
        tr.runs_table([tr.Run("t", 1, ok), tr.Run("t", 1, ok)])
    with pytest.raises(InputError, match="t:1 and t:2 name one file"):
        tr.runs_table([tr.Run("t", 1, ok), tr.Run("t", 2, ok)])
