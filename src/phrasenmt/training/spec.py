"""Run specs: {"arch", "preset", "model": {...}, "train": {...}} -> configs.

The spec is a JSON string or a JSON/YAML file. Resolution order: the config
dataclasses' defaults, then the named preset, then the spec's overrides.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from phrasenmt.io import InputError
from phrasenmt.models.registry import apply_overrides, get_model_class, get_preset
from phrasenmt.training.config import FREEZE_MODES, TrainConfig

SPEC_KEYS = ("arch", "preset", "model", "train")


@dataclass
class RunSpec:
    """A resolved spec: the architecture, its preset and both full configs."""

    arch: str  # registered model name
    preset: str  # registered preset name of that model
    model: Any  # the model's config dataclass, fully resolved
    train: TrainConfig  # training settings, fully resolved

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (JSON/YAML-ready) of the resolved spec."""
        return {"arch": self.arch, "preset": self.preset,
                "model": dataclasses.asdict(self.model),
                "train": dataclasses.asdict(self.train)}


def load_spec(spec: str) -> tuple[dict[str, Any], str]:
    """Parse SPEC (a path to JSON/YAML, or inline JSON) -> (dict, where-label)."""
    path = Path(spec)
    if spec.lstrip().startswith("{"):
        text, where = spec, "spec"
    elif path.is_file():
        text, where = path.read_text(encoding="utf-8"), str(path)
    else:
        raise InputError("not a file and not inline JSON", spec)
    try:
        raw = yaml.safe_load(text)  # YAML is a superset of JSON
    except yaml.YAMLError as err:
        line = getattr(getattr(err, "problem_mark", None), "line", None)
        raise InputError(f"cannot parse spec: {err}".splitlines()[0], where,
                         None if line is None else line + 1) from None
    if not isinstance(raw, dict):
        raise InputError("spec must be a mapping with keys " + ", ".join(SPEC_KEYS),
                         where)
    return raw, where


def resolve_spec(raw: dict[str, Any], where: str = "spec") -> RunSpec:
    """Apply defaults, the preset and overrides; unknown names raise InputError."""
    try:
        for key in raw:
            if key not in SPEC_KEYS:
                raise InputError(f"unknown key (known: {', '.join(SPEC_KEYS)})", key)
        arch = raw.get("arch", "transformer")
        preset = raw.get("preset", "tiny")
        model_cls = get_model_class(arch)
        model_cfg, train_cfg = model_cls.config_class(), TrainConfig()
        get_preset(arch, preset)(model_cfg, train_cfg)
        apply_overrides(model_cfg, raw.get("model") or {}, "model")
        apply_overrides(train_cfg, raw.get("train") or {}, "train")
        check_train_config(train_cfg)
    except InputError as err:
        raise InputError(f"{err.path}: {err.message}", where) from None
    return RunSpec(arch, preset, model_cfg, train_cfg)


def check_train_config(cfg: TrainConfig) -> None:
    """Reject values that cannot work, naming the key."""
    positive = ("lr", "max_tokens", "update_tokens", "max_len", "max_steps",
                "valid_interval", "save_interval", "keep_last", "average_last",
                "log_interval")
    for name in positive:
        if getattr(cfg, name) <= 0:
            raise InputError(f"must be > 0, got {getattr(cfg, name)}", f"train.{name}")
    if cfg.keep_last < cfg.average_last:
        raise InputError(f"keeps {cfg.keep_last} checkpoints but average_last is "
                         f"{cfg.average_last}", "train.keep_last")
    if not 0.0 <= cfg.label_smoothing < 1.0:
        raise InputError("must be in [0, 1)", "train.label_smoothing")
    if cfg.freeze not in FREEZE_MODES:
        raise InputError(f"must be one of {', '.join(FREEZE_MODES)}, got "
                         f"{cfg.freeze!r}", "train.freeze")


def spec_differences(old: dict[str, Any], new: dict[str, Any],
                     ignore: tuple[str, ...] = (), prefix: str = "") -> list[str]:
    """Dotted keys whose values differ between two nested spec dicts."""
    diffs = []
    for key in sorted(set(old) | set(new)):
        name = f"{prefix}{key}"
        if key in ignore:
            continue
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            diffs += spec_differences(a, b, ignore, f"{name}.")
        elif a != b:
            diffs.append(f"{name}: {json.dumps(a)} -> {json.dumps(b)}")
    return diffs
