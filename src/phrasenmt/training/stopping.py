"""Why training stops early: a signal from the scheduler, or a non-finite loss.

SLURM sends SIGTERM when it preempts or cancels a job (and SIGUSR1 before the
time limit when asked with `--signal=USR1@SECONDS`). `SignalFlag` records the
signal; the trainer finishes the update in progress, saves a checkpoint and
raises `Preempted`, which `phrasenmt.train` turns into exit status
`PREEMPTED_EXIT` (75, EX_TEMPFAIL: try again). Rerunning resumes. Ctrl-C
(SIGINT) during training does the same; a second Ctrl-C interrupts at once.
"""

from __future__ import annotations

import signal
from types import FrameType
from typing import Self

from phrasenmt.io import InputError

PREEMPTED_EXIT = 75
SIGNALS = (signal.SIGTERM, signal.SIGUSR1)
TRAINING_SIGNALS = (*SIGNALS, signal.SIGINT)  # Ctrl-C: save, then stop


class Preempted(Exception):
    """Training stopped on a signal after saving a checkpoint."""

    def __init__(self, signame: str, step: int, path: object):
        self.signame, self.step, self.path = signame, step, path
        super().__init__(f"training stopped by {signame} at step {step}; checkpoint "
                         f"{path} saved; rerun the same command to resume")


class NonFiniteLoss(InputError):
    """The loss became NaN or infinite; no checkpoint of that update is written."""


class SignalFlag:
    """Installs handlers for SIGTERM/SIGUSR1/SIGINT that only record the
    signal; a second SIGINT raises KeyboardInterrupt (a user who presses
    Ctrl-C twice does not want to wait for the update to finish)."""

    def __init__(self) -> None:
        self.received: str | None = None
        self._previous: dict[int, object] = {}

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if signum == signal.SIGINT and self.received == "SIGINT":
            raise KeyboardInterrupt
        self.received = signal.Signals(signum).name

    def __enter__(self) -> Self:
        for sig in TRAINING_SIGNALS:
            self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)


class Terminated(BaseException):
    """A script (a check, a benchmark) was told to stop by a signal.

    A BaseException, so that the guards that turn one stage's failure into
    one row (`except Exception`) let it through and the script ends."""

    def __init__(self, signame: str):
        self.signame = signame
        super().__init__(f"stopped by {signame}")

    @property
    def exit_status(self) -> int:
        """128 + the signal's number, as a shell reports a process it killed."""
        return 128 + int(getattr(signal, self.signame, signal.SIGTERM))


class TerminateOnSignals:
    """Handlers for SIGTERM/SIGUSR1 that raise `Terminated` where the script is.

    A training run in the same process installs its own handlers (SignalFlag)
    for its duration and returns PREEMPTED_EXIT; its caller passes that on by
    raising `Terminated` too (`passed_on`)."""

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        raise Terminated(signal.Signals(signum).name)

    def __enter__(self) -> Self:
        self._previous = {sig: signal.signal(sig, self._handle) for sig in SIGNALS}
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)


def passed_on(status: int | None) -> None:
    """Raise `Terminated` when an in-process training stopped on a signal."""
    if status == PREEMPTED_EXIT:
        raise Terminated("a signal (the training in this process stopped on it)")
