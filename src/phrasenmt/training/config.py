"""Training hyperparameters; presets set their defaults, the spec overrides them."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Annotated, ClassVar, Literal

from pydantic import Field

from phrasenmt.hparams.registry import validate
from phrasenmt.io import InputError


def increasing_widths(buckets: list[int]) -> bool:
    """Whether `buckets` is a valid length_buckets list: positive, increasing."""
    return all(b >= 1 for b in buckets) and all(
        a < b for a, b in itertools.pairwise(buckets))


@dataclass
class TrainConfig:
    """Optimisation, batching, validation and checkpointing settings."""

    lr: Annotated[float, Field(
        gt=0, description="peak learning rate, reached at the end of warm-up")] = 5e-4
    warmup_steps: Annotated[int, Field(
        ge=0, description="linear warm-up, then the decay of lr_schedule")] = 4000
    lr_schedule: Annotated[Literal[SCHEDULES], Field(description=(
        "decay after warm-up: inverse_sqrt | linear (to 0 at "
        "max_steps)"))] = "inverse_sqrt"
    schedule: Annotated[Literal[SCHEDULE_CLOCKS], Field(description=(
        "steps | time: what the schedule counts. steps: updates (warmup_steps, "
        "max_steps); time: training time as a fraction of max_minutes (warm-up to "
        "warmup_fraction, then lr_schedule's decay over that time: linear reaches 0 "
        "when the time is up; training.schedule)"))] = "steps"
    warmup_fraction: Annotated[float, Field(ge=0, lt=1, description=(
        "schedule time: warm-up as a fraction of max_minutes"))] = 0.1
    adam_beta1: Annotated[float, Field(
        ge=0, lt=1, description="Adam beta1 (Vaswani et al.)")] = 0.9
    adam_beta2: Annotated[float, Field(
        ge=0, lt=1, description="Adam beta2 (Vaswani et al.)")] = 0.98
    adam_eps: Annotated[float, Field(
        gt=0, description="Adam epsilon (Vaswani et al.)")] = 1e-9
    weight_decay: Annotated[float, Field(
        ge=0, description="L2 penalty added to gradients by Adam (0 = off)")] = 0.0
    clip_norm: Annotated[float, Field(
        ge=0, description="gradient norm clipping threshold (0 = off)")] = 0.0
    label_smoothing: Annotated[float, Field(
        ge=0, lt=1, description="epsilon of label-smoothed cross entropy")] = 0.1
    max_tokens: Annotated[int, Field(
        ge=1, description="padded tokens per forward batch (longer side)")] = 4096
    update_tokens: Annotated[int, Field(ge=1, description=(
        "at least this many target tokens per update (accum.)"))] = 4096
    max_len: Annotated[int, Field(ge=1, description=(
        "training pairs longer than this (subwords) are skipped"))] = 256
    vocab_min_freq: Annotated[int, Field(ge=1, description=(
        "tokens seen fewer times in training become <unk> (1 = keep all)"))] = 1
    max_steps: Annotated[int, Field(
        ge=1, description="number of updates to train for")] = 100000
    max_minutes: Annotated[float, Field(
        ge=0, description="wall-clock limit on training time (0 = none)")] = 0.0
    valid_interval: Annotated[int, Field(
        ge=1, description="updates between dev-loss evaluations")] = 1000
    patience: Annotated[int, Field(ge=0, description=(
        "stop after this many dev-loss evaluations in a row without a gain of "
        "min_delta (0 = off)"))] = 0
    min_delta: Annotated[float, Field(ge=0, description=(
        "the dev-loss fall (nats per target token) that counts as a gain for "
        "patience"))] = 0.0
    save_interval: Annotated[int, Field(
        ge=1, description="updates between checkpoints")] = 1000
    keep_last: Annotated[int, Field(
        ge=1, description="checkpoints kept on disk (older ones are deleted)")] = 5
    average_last: Annotated[int, Field(
        ge=1, description="checkpoints to average for the final model")] = 5
    log_interval: Annotated[int, Field(
        ge=1, description="updates between rows of metrics.tsv")] = 100
    freeze: Annotated[Literal[FREEZE_MODES], Field(
        description="--init-from freezes: θ_s | loaded weights | none")] = "sentence"
    empty_context_rate: Annotated[float, Field(ge=0, lt=1, description=(
        "document models: share of training pairs per epoch whose context is replaced "
        "by an empty one (context dropout; seeded)"))] = 0.0
    compile: Annotated[bool, Field(
        description="run the loss forward through torch.compile (trainer)")] = False
    length_buckets: Annotated[list[int], Field(description=(
        "increasing widths (tokens, </s> included); each side of a batch and a "
        "document model's context sentences are padded up to the first that holds "
        "them, so a GPU meets few batch shapes (cuDNN "
        "attention plans each new one; empty = off; a longer side keeps its own "
        "width)"))] = field(
        default_factory=list)
    context_cache_mb: Annotated[float, Field(ge=0, description=(
        "frozen context states (HAN step 2) kept per split, computed once per sentence "
        "(MB; 0 = computed with every batch; models.context_cache)"))] = 4096.0
    section: ClassVar[str] = "train"  # where its keys live in a spec: train.lr

    def check(self) -> None:
        """Every field against its annotation, then the rules between fields."""
        validate(self)
        if self.keep_last < self.average_last:
            raise InputError(f"keeps {self.keep_last} checkpoints but average_last "
                             f"is {self.average_last}", "train.keep_last")
        self.check_time_schedule()
        buckets = list(self.length_buckets)
        if not increasing_widths(buckets):
            raise InputError(f"must be positive and increasing, got {buckets}",
                             "train.length_buckets")
        if (self.schedule, self.lr_schedule) == ("steps", "linear") and (
                self.max_steps <= self.warmup_steps):
            raise InputError(f"lr_schedule linear decays to 0 at max_steps "
                             f"({self.max_steps}), which must come after warmup_steps "
                             f"({self.warmup_steps})", "train.max_steps")

    def check_time_schedule(self) -> None:
        """schedule: time needs a time budget (warmup_fraction's bound, [0, 1),
        is on the field)."""
        if self.schedule == "time" and self.max_minutes <= 0:
            raise InputError("is time, but train.max_minutes is not set: the time "
                             "schedule's warm-up and decay are fractions of it; set "
                             "max_minutes or use schedule: steps", "train.schedule")

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
