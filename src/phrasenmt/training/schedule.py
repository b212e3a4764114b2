"""Inverse square root learning-rate schedule with linear warm-up."""

from __future__ import annotations

from typing import Any

from torch.optim import Optimizer


def inverse_sqrt_lr(step: int, peak_lr: float, warmup_steps: int) -> float:
    """lr at update `step` (1-based): linear up to peak, then peak*sqrt(warmup/step)."""
    step = max(step, 1)
    if step < warmup_steps:
        return peak_lr * step / warmup_steps
    return peak_lr * (max(warmup_steps, 1) / step) ** 0.5


class InverseSqrtSchedule:
    """Sets the optimizer's lr before each update; its state is the update count."""

    def __init__(self, optimizer: Optimizer, peak_lr: float, warmup_steps: int):
        self.optimizer, self.peak_lr, self.warmup_steps = optimizer, peak_lr, warmup_steps
        self.step_count = 0

    def step(self) -> float:
        """Advance one update and set (and return) its learning rate."""
        self.step_count += 1
        lr = inverse_sqrt_lr(self.step_count, self.peak_lr, self.warmup_steps)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        return lr

    def state_dict(self) -> dict[str, Any]:
        """What a checkpoint needs to continue the schedule."""
        return {"step_count": self.step_count}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore from `state_dict`."""
        self.step_count = int(state["step_count"])
