"""TensorBoard event files: readable back, the right steps, no duplicates after a
resume (TensorBoard's purge at a SessionLog START)."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from tensorboardX.proto.event_pb2 import Event, SessionLog
from tensorboardX.record_writer import masked_crc32c

from phrasenmt.training.events import TAGS, EventFile, new_event_path


def read_records(path: Path) -> list[Event]:
    """The events of one file (TFRecord framing, both checksums verified)."""
    data, events, at = path.read_bytes(), [], 0
    while at < len(data):
        header = data[at:at + 8]
        (length,) = struct.unpack("Q", header)
        assert struct.unpack("I", data[at + 8:at + 12])[0] == masked_crc32c(header)
        body = data[at + 12:at + 12 + length]
        assert struct.unpack("I", data[at + 12 + length:at + 16 + length])[0] == \
            masked_crc32c(body)
        events.append(Event.FromString(body))
        at += 16 + length
    return events


def scalars(folder: Path) -> dict[str, list[tuple[int, float]]]:
    """tag -> [(step, value)] as TensorBoard shows a run folder: files in name
    order, a SessionLog START at step s dropping the points at s and after."""
    out: dict[str, list[tuple[int, float]]] = {}
    for path in sorted(folder.glob("events.out.tfevents.*")):
        for event in read_records(path):
            if event.session_log.status == SessionLog.START:
                out = {tag: [(s, v) for s, v in points if s < event.step]
                       for tag, points in out.items()}
            for value in event.summary.value:
                out.setdefault(value.tag, []).append((event.step, value.simple_value))
    return out


def test_events_read_back_with_steps_and_tags(tmp_path):
    path = new_event_path(tmp_path)
    with EventFile(path, first_step=1) as events:
        events.scalars(1, {"loss": 5.0, "nll": 4.5, "lr": 1e-3, "tokens_per_s": 900.0,
                           "dev_loss": None})
        events.scalars(2, {"loss": 4.0, "nll": 3.5, "lr": 2e-3, "tokens_per_s": 950.0,
                           "dev_loss": 3.75})
    records = read_records(path)
    assert records[0].file_version == "brain.Event:2"
    assert records[1].session_log.status == SessionLog.START and records[1].step == 1
    got = scalars(tmp_path)
    assert set(got) == set(TAGS.values())
    assert got["train/nll"] == [(1, 4.5), (2, 3.5)]
    assert got["dev/nll"] == [(2, 3.75)]  # no dev point where no validation ran
    assert got["train/lr"] == [(1, pytest.approx(1e-3)), (2, pytest.approx(2e-3))]


def test_a_resumed_start_replaces_the_lost_updates(tmp_path):
    """A killed start logged steps 1-5 but checkpointed at 3; the resumed start
    logs 4-6: TensorBoard shows each step once, the resumed values after 3."""
    with EventFile(new_event_path(tmp_path), first_step=1) as first:
        for step in range(1, 6):
            first.scalars(step, {"nll": 10.0 - step})
    second_path = new_event_path(tmp_path)
    with EventFile(second_path, first_step=4) as second:
        for step in range(4, 7):
            second.scalars(step, {"nll": 100.0 + step})
    assert max(tmp_path.iterdir()) == second_path  # read last
    assert scalars(tmp_path)["train/nll"] == [(1, 9.0), (2, 8.0), (3, 7.0),
                                              (4, 104.0), (5, 105.0), (6, 106.0)]


def test_new_names_sort_after_existing_and_never_collide(tmp_path):
    paths = []
    for _ in range(3):
        paths.append(new_event_path(tmp_path))
        paths[-1].touch()
    assert len(set(paths)) == 3 and sorted(paths) == paths


def test_unwritable_folder_names_the_file(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OSError) as err:
        EventFile(blocker / "events.out.tfevents.1.host", first_step=1)
    assert err.value.filename == str(blocker / "events.out.tfevents.1.host")


def test_trainer_logs_each_metrics_row_once_across_a_lost_resume(tmp_path):
    """A run killed after update 5 whose last checkpoint is update 4 resumes
    there: metrics.tsv, the event files and the learning-curve TSV then hold
    updates 1-8 once each, with the resumed run's values for update 5."""
    from phrasenmt.report.learning_curves import Run, read_metrics
    from tests.unit.test_checkpoint import data
    from tests.unit.test_checkpoint import run as train

    paths, out = data(tmp_path), tmp_path / "run"
    train(paths, out, 5)  # checkpoints at 2, 4 and 5
    for name in ("checkpoint_5.pt", "checkpoint_5.pt.sha256"):
        (out / "checkpoints" / name).unlink()
    (out / "checkpoints" / "latest").write_text("checkpoint_4.pt\n")
    lost = read_metrics(out / "metrics.tsv")[4]
    train(paths, out, 8)
    points = read_metrics(Run("m", 1, out / "metrics.tsv").path)
    assert [p.step for p in points] == list(range(1, 9))
    assert [p.seconds for p in points] == sorted(p.seconds for p in points)
    # update 5 was done again: the lost row (validated, as its run's last update)
    # is replaced by the resumed run's (not validated); timings may coincide
    assert lost.dev_nll is not None and points[4].dev_nll is None
    assert len(list(out.glob("events.out.tfevents.*"))) == 2
    got = scalars(out)
    assert [s for s, _ in got["train/nll"]] == list(range(1, 9))
    assert [v for _, v in got["train/nll"]] == pytest.approx(
        [p.train_nll for p in points], abs=1e-4)
    assert got["dev/nll"] == [(p.step, pytest.approx(p.dev_nll, abs=1e-4))
                              for p in points if p.dev_nll is not None]
    assert [s for s, _ in got["dev/nll"]] == [3, 6, 8]  # valid_interval 3, and last


def test_failed_fresh_start_leaves_no_event_file(tmp_path, monkeypatch):
    """A fresh run that fails before its first checkpoint (here: in its first
    validation, after metrics.tsv and the event file have rows) leaves nothing."""
    from phrasenmt.training.trainer import Trainer
    from tests.unit.test_checkpoint import data
    from tests.unit.test_checkpoint import run as train

    def broken(self):
        raise RuntimeError("validation failed")

    monkeypatch.setattr(Trainer, "validate", broken)
    with pytest.raises(RuntimeError, match="validation failed"):
        train(data(tmp_path), tmp_path / "run", 4, valid_interval=2, log_interval=1)
    assert not (tmp_path / "run").exists()
