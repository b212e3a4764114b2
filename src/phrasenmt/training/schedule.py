"""Learning-rate schedules: linear warm-up, then inverse square root or linear decay.

`inverse_sqrt` is Vaswani et al.'s (fairseq `inverse_sqrt`): it never reaches
zero, so it suits runs whose length is not known in advance. `linear` decays
from the peak to zero at `max_steps` (fairseq `polynomial_decay` with power 1,
end lr 0 and `--total-num-update` = `--max-update`): a run whose number of
updates is fixed ends on an annealed model.
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


class LRSchedule:
    """Sets the optimizer's lr before each update; its state is the update count."""

    def __init__(self, optimizer: Optimizer, peak_lr: float, warmup_steps: int,
                 kind: str = "inverse_sqrt", total_steps: int = 0):
        if kind not in SCHEDULES:
            raise ValueError(f"unknown lr schedule {kind!r} (known: {', '.join(SCHEDULES)})")
        self.optimizer, self.peak_lr, self.warmup_steps = optimizer, peak_lr, warmup_steps
        self.kind, self.total_steps = kind, total_steps
        self.step_count = 0

    def lr(self, step: int) -> float:
        """The learning rate of update `step` (1-based)."""
        if self.kind == "linear":
            return linear_lr(step, self.peak_lr, self.warmup_steps, self.total_steps)
        return inverse_sqrt_lr(step, self.peak_lr, self.warmup_steps)

    def step(self) -> float:
        """Advance one update and set (and return) its learning rate."""
        self.step_count += 1
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
