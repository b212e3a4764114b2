"""Learning-rate schedules: linear warm-up, then inverse square root or linear decay.

`inverse_sqrt` is Vaswani et al.'s (fairseq `inverse_sqrt`): it never reaches
zero, so it suits runs whose length is not known in advance. `linear` decays
from the peak to zero at `max_steps` (fairseq `polynomial_decay` with power 1,
end lr 0 and `--total-num-update` = `--max-update`): a run whose number of
updates is fixed ends on an annealed model.

`train.schedule: time` counts training time instead of updates, for a run
whose budget is `max_minutes`: the progress of an update is p = t / T, t the
training seconds (updates and validation, `Progress.train_seconds`, saved in
checkpoints) when it starts and T = 60 * max_minutes; it replaces
step / max_steps, and `warmup_fraction` w replaces warmup_steps / max_steps:

    lr(p) = peak * p / w                  p < w   (linear warm-up)
    lr(p) = peak * (1 - p) / (1 - w)      p >= w  (lr_schedule linear: 0 at T)
    lr(p) = peak * sqrt(w / p)            p >= w  (lr_schedule inverse_sqrt)

so the warm-up ends at w * T and, under `linear`, the lr reaches 0 when the
time is up, whatever the machine's speed. Its updates depend on the clock, so
such a run is not reproducible bit for bit.
"""

from __future__ import annotations

from typing import Any

from torch.optim import Optimizer

from phrasenmt.training.config import SCHEDULES


def inverse_sqrt_lr(step: int, peak_lr: float, warmup_steps: int) -> float:
    """lr at update `step` (1-based): linear up to peak, then peak*sqrt(warmup/step)."""
    step = max(step, 1)
    if step < warmup_steps:
        return peak_lr * step / warmup_steps
    return peak_lr * (max(warmup_steps, 1) / step) ** 0.5


def linear_lr(step: int, peak_lr: float, warmup_steps: int, total_steps: int) -> float:
    """lr at update `step` (1-based): linear up to peak, then linear to 0 at `total_steps`."""
    step = max(step, 1)
    if step < warmup_steps:
        return peak_lr * step / warmup_steps
    remaining = total_steps - step
    return peak_lr * max(remaining, 0) / max(total_steps - warmup_steps, 1)


def time_lr(progress: float, peak_lr: float, warmup_fraction: float,
            kind: str) -> float:
    """lr at `progress` (elapsed / budget, see the module doc) of a time schedule."""
    p = min(max(progress, 0.0), 1.0)
    if p < warmup_fraction:
        return peak_lr * p / warmup_fraction
    if kind == "linear":
        return peak_lr * (1.0 - p) / (1.0 - warmup_fraction)
    return peak_lr * (warmup_fraction / p) ** 0.5 if p > 0 else peak_lr


class LRSchedule:
    """Sets the optimizer's lr before each update; its state is the update count
    (a time schedule's clock is the trainer's, saved with its progress)."""

    def __init__(self, optimizer: Optimizer, peak_lr: float, warmup_steps: int,
                 kind: str = "inverse_sqrt", total_steps: int = 0,
                 budget_seconds: float = 0.0, warmup_fraction: float = 0.0):
        if kind not in SCHEDULES:
            raise ValueError(f"unknown lr schedule {kind!r} (known: {', '.join(SCHEDULES)})")
        self.optimizer, self.peak_lr, self.warmup_steps = optimizer, peak_lr, warmup_steps
        self.kind, self.total_steps = kind, total_steps
        # > 0: schedule time over this many seconds (`time_lr`)
        self.budget_seconds, self.warmup_fraction = budget_seconds, warmup_fraction
        self.step_count = 0

    def lr(self, step: int) -> float:
        """The learning rate of update `step` (1-based)."""
        if self.kind == "linear":
            return linear_lr(step, self.peak_lr, self.warmup_steps, self.total_steps)
        return inverse_sqrt_lr(step, self.peak_lr, self.warmup_steps)

    def step(self, elapsed: float = 0.0) -> float:
        """Advance one update and set (and return) its learning rate; `elapsed`:
        training seconds before it (read by a time schedule only)."""
        self.step_count += 1
        if self.budget_seconds > 0:
            lr = time_lr(elapsed / self.budget_seconds, self.peak_lr,
                         self.warmup_fraction, self.kind)
        else:
            lr = self.lr(self.step_count)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        return lr

    def state_dict(self) -> dict[str, Any]:
        """What a checkpoint needs to continue the schedule."""
        return {"step_count": self.step_count}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore from `state_dict`."""
        self.step_count = int(state["step_count"])
