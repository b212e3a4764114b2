"""Training hyperparameters; presets set their defaults, the spec overrides them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from phrasenmt import ranges
from phrasenmt.io import InputError


@dataclass
class TrainConfig:
    """Optimisation, batching, validation and checkpointing settings."""

    lr: float = 5e-4  # peak learning rate, reached at the end of warm-up
    warmup_steps: int = 4000  # linear warm-up, then the decay of lr_schedule
    lr_schedule: str = "inverse_sqrt"  # decay after warm-up: inverse_sqrt | linear (to 0 at max_steps)
    # steps | time: what the schedule counts. steps: updates (warmup_steps,
    # max_steps); time: training time as a fraction of max_minutes (warm-up to
    # warmup_fraction, linear decay to 0 when the time is up; training.schedule)
    schedule: str = "steps"
    warmup_fraction: float = 0.1  # schedule time: warm-up as a fraction of max_minutes
    adam_beta1: float = 0.9  # Adam beta1 (Vaswani et al.)
    adam_beta2: float = 0.98  # Adam beta2 (Vaswani et al.)
    adam_eps: float = 1e-9  # Adam epsilon (Vaswani et al.)
    weight_decay: float = 0.0  # L2 penalty added to gradients by Adam (0 = off)
    clip_norm: float = 0.0  # gradient norm clipping threshold (0 = off)
    label_smoothing: float = 0.1  # epsilon of label-smoothed cross entropy
    max_tokens: int = 4096  # padded tokens per forward batch (longer side)
    update_tokens: int = 4096  # at least this many target tokens per update (accum.)
    max_len: int = 256  # training pairs longer than this (subwords) are skipped
    vocab_min_freq: int = 1  # tokens seen fewer times in training become <unk> (1 = keep all)
    max_steps: int = 100000  # number of updates to train for
    max_minutes: float = 0.0  # wall-clock limit on training time (0 = none)
    valid_interval: int = 1000  # updates between dev-loss evaluations
    patience: int = 0  # stop after this many dev-loss evaluations in a row without a gain of min_delta (0 = off)
    min_delta: float = 0.0  # the dev-loss fall (nats per target token) that counts as a gain for patience
    save_interval: int = 1000  # updates between checkpoints
    keep_last: int = 5  # checkpoints kept on disk (older ones are deleted)
    average_last: int = 5  # checkpoints to average for the final model
    log_interval: int = 100  # updates between rows of metrics.tsv
    freeze: str = "sentence"  # --init-from freezes: θ_s | loaded weights | none
    empty_context_rate: float = 0.0  # document models: share of training pairs per epoch whose context is replaced by an empty one (context dropout; seeded)
    compile: bool = False  # run the loss forward through torch.compile (trainer)
    # frozen context states (HAN step 2) kept per split, computed once per
    # sentence (MB; 0 = computed with every batch; models.context_cache)
    context_cache_mb: float = 4096.0
    section: ClassVar[str] = "train"  # where its keys live in a spec: train.lr

    def check(self) -> None:
        """Reject values that cannot work, naming the key."""
        ranges.finite(self)
        ranges.positive(self, ("lr", "adam_eps"))
        ranges.at_least(self, 1, ("max_tokens", "update_tokens", "max_len", "vocab_min_freq",
                                  "max_steps", "valid_interval", "save_interval",
                                  "keep_last", "average_last", "log_interval"))
        ranges.at_least(self, 0, ("warmup_steps", "weight_decay", "clip_norm",
                                  "max_minutes", "patience", "min_delta",
                                  "context_cache_mb"))
        ranges.fraction(self, ("adam_beta1", "adam_beta2", "label_smoothing",
                               "empty_context_rate"))
        if self.keep_last < self.average_last:
            raise InputError(f"keeps {self.keep_last} checkpoints but average_last "
                             f"is {self.average_last}", "train.keep_last")
        ranges.one_of(self, "freeze", FREEZE_MODES)
        ranges.one_of(self, "lr_schedule", SCHEDULES)
        ranges.one_of(self, "schedule", SCHEDULE_CLOCKS)
        self.check_time_schedule()
        if (self.schedule, self.lr_schedule) == ("steps", "linear") and (
                self.max_steps <= self.warmup_steps):
            raise InputError(f"lr_schedule linear decays to 0 at max_steps "
                             f"({self.max_steps}), which must come after warmup_steps "
                             f"({self.warmup_steps})", "train.max_steps")

    def check_time_schedule(self) -> None:
        """schedule: time needs a time budget and a warm-up fraction below 1."""
        if self.schedule != "time":
            return
        if self.max_minutes <= 0:
            raise InputError("is time, but train.max_minutes is not set: the time "
                             "schedule's warm-up and decay are fractions of it; set "
                             "max_minutes or use schedule: steps", "train.schedule")
        if not 0 <= self.warmup_fraction < 1:
            raise InputError(f"must be at least 0 and below 1, got "
                             f"{self.warmup_fraction}", "train.warmup_fraction")

    def resumable_fields(self) -> tuple[str, ...]:
        """RESUMABLE_FIELDS, less the budget the schedule ends at: max_minutes
        under schedule time, max_steps under lr_schedule linear."""
        if self.schedule == "time":
            return tuple(f for f in RESUMABLE_FIELDS if f != "max_minutes")
        if self.lr_schedule == "linear":
            return tuple(f for f in RESUMABLE_FIELDS if f != "max_steps")
        return RESUMABLE_FIELDS


SCHEDULES = ("inverse_sqrt", "linear")  # the values of TrainConfig.lr_schedule
SCHEDULE_CLOCKS = ("steps", "time")  # the values of TrainConfig.schedule
FREEZE_MODES = ("sentence", "loaded", "none")  # the values of TrainConfig.freeze


# Fields that may change between a run and its resumption without changing the
# weights' trajectory (they say when to stop, what to log, save and keep;
# patience and min_delta say when the dev loss has levelled off;
# max_steps only under inverse_sqrt: linear decays to 0 at it), and
# `compile`, which changes how the same computation runs (as --precision does:
# bit-exact resumption holds within one setting), and `context_cache_mb`, which
# only says whether frozen context states are kept (the same states either way).
RESUMABLE_FIELDS = ("max_steps", "max_minutes", "patience", "min_delta", "keep_last",
                    "log_interval", "save_interval", "valid_interval", "average_last",
                    "compile", "context_cache_mb")
