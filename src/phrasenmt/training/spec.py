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

from phrasenmt.hparams import config_class, get_preset
from phrasenmt.hparams.registry import apply_overrides
from phrasenmt.io import InputError, read_text
from phrasenmt.training.config import TrainConfig

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


def field_defaults(spec: RunSpec) -> dict[str, Any]:
    """The dataclass defaults of a spec's model and train fields (spec_differences)."""
    return {"model": dataclasses.asdict(type(spec.model)()),
            "train": dataclasses.asdict(TrainConfig())}


def load_spec(spec: str) -> tuple[dict[str, Any], str]:
    """Parse SPEC (a path to JSON/YAML, or inline JSON) -> (dict, where-label)."""
    from phrasenmt.config import load_yaml  # jsonschema: only where it is needed

    path = Path(spec)
    if spec.lstrip().startswith("{"):
        text, where = spec, "spec"
    elif path.is_file():
        text, where = read_text(path), str(path)
    else:
        raise InputError("not a file and not inline JSON", spec)
    raw = load_yaml(text, where)  # YAML is a superset of JSON
    if not isinstance(raw, dict):
        raise InputError("spec must be a mapping with keys " + ", ".join(SPEC_KEYS),
                         where)
    return raw, where


def resolve_spec(raw: dict[str, Any], where: str | None = "spec",
                 prefix: str = "") -> RunSpec:
    """Apply defaults, the preset and overrides, then check every value.

    Unknown names, wrong types and values out of range raise one InputError
    naming `prefix` + the key (e.g. `model.n_heads`); the workflow's start-up
    validation calls this with prefix `models.NAME.` for every model entry.
    """
    try:
        if not isinstance(raw, dict):
            raise InputError("must be a mapping with keys " + ", ".join(SPEC_KEYS),
                             "spec")
        for key in raw:
            if key not in SPEC_KEYS:
                raise InputError(f"unknown key (known: {', '.join(SPEC_KEYS)})", key)
        arch = raw.get("arch", "transformer")
        preset = raw.get("preset", "tiny")
        model_cfg, train_cfg = config_class(arch)(), TrainConfig()
        get_preset(arch, preset)(model_cfg, train_cfg)
        apply_overrides(model_cfg, raw.get("model") or {}, "model")
        apply_overrides(train_cfg, raw.get("train") or {}, "train")
        check_run(model_cfg, train_cfg)
    except InputError as err:
        raise InputError(f"{prefix}{err.path}: {err.message}", where) from None
    return RunSpec(arch, preset, model_cfg, train_cfg)


def check_run(model: Any, train: TrainConfig) -> None:
    """Each config's own checks, then those between the model and training."""
    model.check()
    train.check()
    if hasattr(model, "check_train"):  # a family's own demands on training
        model.check_train(train)
    positions = getattr(model, "max_positions", None)
    if positions is not None and train.max_len + 1 > positions:
        # a pair of max_len tokens gets </s> (source) or <s> (target input)
        raise InputError(f"is {train.max_len}, but model.max_positions "
                         f"{positions} holds at most {positions - 1} tokens + </s>",
                         "train.max_len")


def spec_differences(old: dict[str, Any], new: dict[str, Any],
                     ignore: tuple[str, ...] = (), prefix: str = "",
                     defaults: dict[str, Any] | None = None) -> list[str]:
    """Dotted keys whose values differ between two nested spec dicts.

    A key that `old` lacks (a field added to the code since `old` was written)
    is no difference where `new` holds its default in `defaults` (the nested
    dict of field defaults): the older code behaved as that default does.
    """
    diffs = []
    defaults = defaults or {}
    for key in sorted(set(old) | set(new)):
        name = f"{prefix}{key}"
        if key in ignore:
            continue
        a, b = old.get(key), new.get(key)
        default = defaults.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            diffs += spec_differences(a, b, ignore, f"{name}.",
                                      default if isinstance(default, dict) else None)
        elif key not in old and key in defaults and b == default:
            continue
        elif a != b:
            diffs.append(f"{name}: {json.dumps(a)} -> {json.dumps(b)}")
    return diffs
