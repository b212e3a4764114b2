"""Time budgets that say what they do: the time schedule's learning rate, its
bad input, the warning when max_minutes would stop a run inside its warm-up,
and the summary that marks such a run in the tables."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import torch

from phrasenmt.io import InputError
from phrasenmt.report.json_fields import stop_note
from phrasenmt.train import main as train_main
from phrasenmt.training.schedule import LRSchedule, time_lr
from phrasenmt.training.spec import resolve_spec
from phrasenmt.training.trainer import Trainer
from tests.unit.test_config_startup import refused
from tests.unit.test_training import TINY, cli_args, reverse_task

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


@pytest.mark.parametrize("progress, linear, inverse_sqrt", [
    (0.0, 0.0, 0.0), (0.05, 5e-4, 5e-4), (0.1, 1e-3, 1e-3),
    (0.4, 1e-3 * 0.6 / 0.9, 5e-4), (0.55, 5e-4, 1e-3 * (0.1 / 0.55) ** 0.5),
    (1.0, 0.0, 1e-3 * 0.1 ** 0.5), (1.3, 0.0, 1e-3 * 0.1 ** 0.5)])
def test_time_schedule_lr_at_elapsed_fractions(progress, linear, inverse_sqrt):
    assert time_lr(progress, 1e-3, 0.1, "linear") == pytest.approx(linear)
    assert time_lr(progress, 1e-3, 0.1, "inverse_sqrt") == pytest.approx(inverse_sqrt)


def test_time_schedule_reads_the_elapsed_seconds_not_the_update_count():
    optimizer = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
    schedule = LRSchedule(optimizer, 2e-3, 4000, "linear", 100000,
                          budget_seconds=600.0, warmup_fraction=0.2)
    assert schedule.step(60.0) == pytest.approx(1e-3)  # half the warm-up
    assert schedule.step(360.0) == pytest.approx(1e-3)  # 2e-3 * (1 - 0.6) / 0.8
    assert optimizer.param_groups[0]["lr"] == pytest.approx(1e-3)
    assert schedule.step(600.0) == 0.0 and schedule.step_count == 3


def test_the_trainer_runs_the_time_schedule_from_its_saved_clock(tmp_path):
    paths = reverse_task(tmp_path, 40, 4)
    spec = resolve_spec({"model": TINY, "train": {
        "max_steps": 5, "max_tokens": 200, "update_tokens": 100, "lr": 1e-3,
        "schedule": "time", "lr_schedule": "linear", "max_minutes": 10,
        "warmup_fraction": 0.1}})
    t = Trainer(spec, paths, tmp_path / "run", seed=0, device="cpu",
                progress_bar=False)
    t.state.train_seconds = 0.55 * 600  # as a checkpoint restores it
    assert t.train_step()[3] == pytest.approx(1e-3 * 0.45 / 0.9)
    assert "train_seconds" in vars(t.state)  # saved in every checkpoint


MESSAGE = ("train.schedule: is time, but train.max_minutes is not set: the time "
           "schedule's warm-up and decay are fractions of it")


def test_time_schedule_without_max_minutes_is_one_line_naming_the_key(tmp_path):
    with pytest.raises(InputError, match=re.escape(MESSAGE)):
        resolve_spec({"train": {"schedule": "time"}})
    line = refused({"models": {"transformer": {"train": {"schedule": "time"}}}})
    assert line.startswith(f"models.transformer.{MESSAGE}")
    paths = reverse_task(tmp_path, 10, 2)
    with pytest.raises(InputError, match=re.escape(MESSAGE)) as err:  # the CLI
        train_main(cli_args(paths, tmp_path / "run", {"train": {"schedule": "time"}}))
    assert "\n" not in str(err.value)
    with pytest.raises(InputError, match=re.escape(
            "train.warmup_fraction: must be in [0, 1), got 1.0")):
        resolve_spec({"train": {"schedule": "time", "max_minutes": 5,
                                "warmup_fraction": 1.0}})


def short_run(tmp_path: Path, name: str, minutes: float) -> Trainer:
    (tmp_path / name).mkdir()
    paths = reverse_task(tmp_path / name, 40, 4)
    spec = resolve_spec({"model": TINY, "train": {
        "max_steps": 3, "max_tokens": 200, "update_tokens": 100, "warmup_steps": 50,
        "valid_interval": 2, "save_interval": 2, "keep_last": 2, "average_last": 1,
        "max_minutes": minutes}})
    return Trainer(spec, paths, tmp_path / name / "run", seed=0, device="cpu",
                   progress_bar=False)


def test_a_budget_that_ends_inside_warm_up_warns_and_marks_the_run(tmp_path, capsys):
    summary = short_run(tmp_path, "short", 1e-5).run()  # 0.6 ms: one update
    err = capsys.readouterr().err
    assert err.count("train.max_minutes (1e-05) allows about 0 updates at this "
                     "run's pace (1 in ") == 1
    assert "inside its warm-up of 50 (train.warmup_steps)" in err
    assert summary["stopped_by"] == "max_minutes" and summary["steps"] == 1
    saved = json.loads((tmp_path / "short" / "run" / "summary.json").read_text())
    assert stop_note(saved, Path("summary.json")) == (
        "stopped in warm-up at update 1 of 3 (warm-up 50)")
    short_run(tmp_path, "long", 60).run()  # an hour: 3 updates, no warning
    assert "allows about" not in capsys.readouterr().err
