"""Config classes and presets, looked up by arch name, without the model code.

Each arch names its config dataclass (`register_config`); a preset is a
function that only sets defaults on a fresh model config and training config
(fairseq's named architectures); user overrides from the spec are applied
after it. The model classes register in `phrasenmt.models.registry`, each
under an arch declared here, so a start-up check reads the configs without
importing torch.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from phrasenmt.fields import FieldError, check_value
from phrasenmt.io import InputError

CONFIGS: dict[str, type] = {}
PRESETS: dict[str, dict[str, Callable[[Any, Any], None]]] = {}


def register_config(arch: str, config: type) -> type:
    """Declare `arch` with its config dataclass `config`."""
    if arch in CONFIGS:
        raise ValueError(f"arch {arch!r} declared twice")
    if not dataclasses.is_dataclass(config):
        raise TypeError(f"{arch}: the config {config!r} must be a dataclass")
    CONFIGS[arch] = config
    PRESETS.setdefault(arch, {})
    return config


def register_preset(arch: str, name: str) -> Callable[[Callable], Callable]:
    """Function decorator registering `fn(model_cfg, train_cfg)` as a preset."""

    def wrap(fn: Callable[[Any, Any], None]) -> Callable[[Any, Any], None]:
        presets = PRESETS.setdefault(arch, {})
        if name in presets:
            raise ValueError(f"preset {arch}/{name} registered twice")
        presets[name] = fn
        return fn

    return wrap


def config_class(arch: str, where: str = "arch") -> type:
    """The config dataclass of `arch`; unknown names raise InputError."""
    if arch not in CONFIGS:
        known = ", ".join(sorted(CONFIGS)) or "none"
        raise InputError(f"unknown arch {arch!r} (known: {known})", where)
    return CONFIGS[arch]


def get_preset(arch: str, name: str, where: str = "preset") -> Callable:
    """The preset function `arch`/`name`; unknown names raise InputError."""
    presets = PRESETS.get(arch, {})
    if name not in presets:
        known = ", ".join(sorted(presets)) or "none"
        raise InputError(f"unknown preset {name!r} for arch {arch!r} "
                         f"(known: {known})", where)
    return presets[name]
def check_key(cfg: Any, name: str, value: Any, key: str) -> Any:
    """`value` as field `name` of config `cfg` holds it; a value of the wrong
    type, NaN or infinity, or out of the field's bound raises one InputError
    naming `key` (phrasenmt.fields words it)."""
    try:
        return check_value(type(cfg), name, value)
    except FieldError as err:
        raise InputError(str(err), key) from None


def validate(cfg: Any, section: str | None = None) -> None:
    """Check every field of config dataclass `cfg` against its annotation (type,
    bound, finiteness), in field order; the first misfit raises one InputError
    naming `section.key` (default section: the class's `section`, else model).

    The one range check of the model and training configs: each class's
    `check()` runs it, then its rules between fields (a width that heads must
    divide, an even hidden size, ...).
    """
    section = section or getattr(cfg, "section", "model")
    for field in dataclasses.fields(cfg):
        check_key(cfg, field.name, getattr(cfg, field.name), f"{section}.{field.name}")


def apply_overrides(cfg: Any, overrides: dict[str, Any], section: str) -> Any:
    """Set fields of dataclass `cfg` from `overrides`, each checked against its
    field (`check_key`); unknown keys raise."""
    if not isinstance(overrides, dict):
        raise InputError("must be a mapping of field names to values", section)
    names = {f.name for f in dataclasses.fields(cfg)}
    for key, value in overrides.items():
        if key not in names:
            raise InputError(f"unknown key {key!r} (known: {', '.join(sorted(names))})",
                             f"{section}.{key}")
        setattr(cfg, key, check_key(cfg, key, value, f"{section}.{key}"))
    return cfg


def config_from_dict(config_class: type, values: dict[str, Any],
                     where: str = "model_args") -> Any:
    """Rebuild a config dataclass from a stored dict, rejecting unknown keys."""
    return apply_overrides(config_class(), values, where)

