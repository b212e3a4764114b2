"""Model registry: architectures and named presets, looked up by name.

A model class registers with `@register_model("name")` and names its config
dataclass in `config_class`. A preset is a function that only sets defaults on a
fresh model config and training config (fairseq's named architectures); user
overrides from the spec are applied after it.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from typing import Any

from torch import nn

from phrasenmt.io import InputError

MODELS: dict[str, type[nn.Module]] = {}
PRESETS: dict[str, dict[str, Callable[[Any, Any], None]]] = {}


def register_model(name: str) -> Callable[[type[nn.Module]], type[nn.Module]]:
    """Class decorator registering a model class under `name`."""

    def wrap(cls: type[nn.Module]) -> type[nn.Module]:
        if name in MODELS:
            raise ValueError(f"model {name!r} registered twice")
        if not dataclasses.is_dataclass(getattr(cls, "config_class", None)):
            raise TypeError(f"{cls.__name__} needs a dataclass `config_class`")
        MODELS[name] = cls
        PRESETS.setdefault(name, {})
        return cls

    return wrap


def register_preset(arch: str, name: str) -> Callable[[Callable], Callable]:
    """Function decorator registering `fn(model_cfg, train_cfg)` as a preset."""

    def wrap(fn: Callable[[Any, Any], None]) -> Callable[[Any, Any], None]:
        presets = PRESETS.setdefault(arch, {})
        if name in presets:
            raise ValueError(f"preset {arch}/{name} registered twice")
        presets[name] = fn
        return fn

    return wrap


def get_model_class(arch: str, where: str = "arch") -> type[nn.Module]:
    """The model class registered as `arch`; unknown names raise InputError."""
    if arch not in MODELS:
        known = ", ".join(sorted(MODELS)) or "none"
        raise InputError(f"unknown arch {arch!r} (known: {known})", where)
    return MODELS[arch]


def get_preset(arch: str, name: str, where: str = "preset") -> Callable:
    """The preset function `arch`/`name`; unknown names raise InputError."""
    presets = PRESETS.get(arch, {})
    if name not in presets:
        known = ", ".join(sorted(presets)) or "none"
        raise InputError(f"unknown preset {name!r} for arch {arch!r} "
                         f"(known: {known})", where)
    return presets[name]


def _check_type(value: Any, hint: Any, key: str) -> Any:
    """Return `value` if it fits the field type `hint`, else raise InputError."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(hint):
            if arg is type(None) and value is None:
                return value
            if arg is not type(None):
                return _check_type(value, arg, key)
    if hint is bool:
        ok = isinstance(value, bool)
    elif hint is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif hint is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        value = float(value) if ok else value
    elif hint is str:
        ok = isinstance(value, str)
    else:
        ok = True
    if not ok:
        name = getattr(hint, "__name__", str(hint))
        raise InputError(f"expected {name}, got {value!r}", key)
    return value


def apply_overrides(cfg: Any, overrides: dict[str, Any], section: str) -> Any:
    """Set fields of dataclass `cfg` from `overrides`; unknown keys raise."""
    if not isinstance(overrides, dict):
        raise InputError("must be a mapping of field names to values", section)
    hints = typing.get_type_hints(type(cfg))
    names = {f.name for f in dataclasses.fields(cfg)}
    for key, value in overrides.items():
        if key not in names:
            raise InputError(f"unknown key {key!r} (known: {', '.join(sorted(names))})",
                             f"{section}.{key}")
        setattr(cfg, key, _check_type(value, hints[key], f"{section}.{key}"))
    return cfg


def config_from_dict(config_class: type, values: dict[str, Any],
                     where: str = "model_args") -> Any:
    """Rebuild a config dataclass from a stored dict, rejecting unknown keys."""
    return apply_overrides(config_class(), values, where)


def build_model(arch: str, cfg: Any) -> nn.Module:
    """Instantiate the registered model `arch` from its config."""
    return get_model_class(arch)(cfg)
