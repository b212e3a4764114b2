"""TensorBoard event files of a training run, beside its metrics.tsv.

`tensorboard --logdir results/` then shows every run, as fairseq's
``--tensorboard-logdir`` and JoeyNMT do. The trainer writes the scalars of a
metrics.tsv row whenever it writes that row, so both hold the same points.

Every start of the trainer, fresh or resumed, opens a new event file whose
first event is a SessionLog START at the first step it will train: TensorBoard
drops the points at that step and later from the run's earlier files (the
updates a killed job did after its last checkpoint, which the resumed job does
again), so a resumed run neither duplicates nor loses a point. Events carry
wall-clock times; no report table reads them.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path
from types import TracebackType
from typing import Self

from tensorboardX.proto.event_pb2 import Event, SessionLog
from tensorboardX.proto.summary_pb2 import Summary
from tensorboardX.record_writer import RecordWriter

# metrics.tsv column -> TensorBoard tag (train/ and dev/ each get a section).
TAGS = {"loss": "train/loss", "nll": "train/nll", "lr": "train/lr",
        "tokens_per_s": "train/tokens_per_s", "dev_loss": "dev/nll"}
PREFIX = "events.out.tfevents."  # TensorBoard reads files whose name has "tfevents"


def new_event_path(folder: str | Path) -> Path:
    """A fresh event-file name in `folder`, sorting after the files already there.

    TensorBoard reads a folder's event files in name order; the name starts with
    the time in nanoseconds (19 digits until the year 2286), so a resumed run's
    file comes after the files of its earlier starts.
    """
    folder = Path(folder)
    stem = f"{PREFIX}{time.time_ns()}.{socket.gethostname()}"
    path, n = folder / stem, 1
    while path.exists():  # two starts within a nanosecond's clock resolution
        path, n = folder / f"{stem}.{n}", n + 1
    return path


class EventFile:
    """Scalars of one trainer start, written and flushed as they come."""

    def __init__(self, path: str | Path, first_step: int):
        self.path = Path(path)
        try:
            self._writer = RecordWriter(str(self.path))
        except OSError as err:
            raise self._named(err) from None
        self._write(Event(wall_time=time.time(), file_version="brain.Event:2"))
        # Purge what earlier starts logged at first_step and after (see above).
        self._write(Event(wall_time=time.time(), step=first_step,
                          session_log=SessionLog(status=SessionLog.START)))

    def _named(self, err: OSError) -> OSError:
        """The OS error with this file's name (a full disk names the file)."""
        return OSError(err.errno, err.strerror or str(err), str(self.path))

    def _write(self, event: Event) -> None:
        """Append one event and flush it to disk."""
        try:
            self._writer.write(event.SerializeToString())
            self._writer.flush()
        except OSError as err:
            raise self._named(err) from None

    def scalars(self, step: int, values: dict[str, float | None]) -> None:
        """One point per metrics.tsv column at `step` (None: no value, e.g. no dev)."""
        summary = Summary(value=[Summary.Value(tag=TAGS[key], simple_value=value)
                                 for key, value in values.items()
                                 if value is not None])
        self._write(Event(wall_time=time.time(), step=step, summary=summary))

    def close(self) -> None:
        """Close the file (everything written is already flushed)."""
        try:
            self._writer.close()
        except OSError as err:
            raise self._named(err) from None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


class NoEvents:
    """What ranks other than 0 log: nothing."""

    def scalars(self, step: int, values: dict[str, float | None]) -> None:
        """Drop the scalars."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        return None
