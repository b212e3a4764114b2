"""Model registry: the model class of each arch, looked up by name.

A model class registers with `@register_model("name")` under an arch whose
config dataclass and presets are declared in `phrasenmt.hparams` (which a
start-up check reads without importing torch); its `config_class` is that
dataclass. The config-side names (presets, overrides) are offered here too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from torch import nn

from phrasenmt.hparams.registry import (  # noqa: F401  (the model side's names)
    PRESETS,
    apply_overrides,
    config_class,
    config_from_dict,
    get_preset,
    register_preset,
)
from phrasenmt.io import InputError

MODELS: dict[str, type[nn.Module]] = {}


def register_model(name: str) -> Callable[[type[nn.Module]], type[nn.Module]]:
    """Class decorator registering a model class under the declared arch `name`."""

    def wrap(cls: type[nn.Module]) -> type[nn.Module]:
        if name in MODELS:
            raise ValueError(f"model {name!r} registered twice")
        declared = config_class(name)
        if getattr(cls, "config_class", None) is not declared:
            raise TypeError(f"{cls.__name__}.config_class must be {declared.__name__}, "
                            f"the config phrasenmt.hparams declares for {name!r}")
        MODELS[name] = cls
        return cls

    return wrap


def get_model_class(arch: str, where: str = "arch") -> type[nn.Module]:
    """The model class registered as `arch`; unknown names raise InputError."""
    if arch not in MODELS:
        known = ", ".join(sorted(MODELS)) or "none"
        raise InputError(f"unknown arch {arch!r} (known: {known})", where)
    return MODELS[arch]


def build_model(arch: str, cfg: Any) -> nn.Module:
    """Instantiate the registered model `arch` from its config."""
    return get_model_class(arch)(cfg)
