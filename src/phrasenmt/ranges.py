"""Range checks of config dataclass fields: one InputError naming `section.key`.

Every model config and the training config has a `check()` that calls these;
`training.spec.resolve_spec` runs them, so `phrasenmt.train --spec` and the
workflow's start-up validation (`phrasenmt.experiment`) reject the same values
with the same line, long before a model is built.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from typing import Any

from phrasenmt.io import InputError


def _key(cfg: Any, name: str) -> str:
    """`model.d_model` / `train.lr`: the section comes from the config class."""
    return f"{getattr(cfg, 'section', 'model')}.{name}"


def finite(cfg: Any) -> None:
    """Every float field is a finite number (YAML reads .nan and .inf)."""
    for f in dataclasses.fields(cfg):
        value = getattr(cfg, f.name)
        if isinstance(value, float) and not math.isfinite(value):
            raise InputError(f"must be a finite number, got {value}", _key(cfg, f.name))


def at_least(cfg: Any, minimum: float, names: Iterable[str]) -> None:
    """Each named field is >= minimum."""
    for name in names:
        if getattr(cfg, name) < minimum:
            raise InputError(f"must be >= {minimum}, got {getattr(cfg, name)}",
                             _key(cfg, name))


def positive(cfg: Any, names: Iterable[str]) -> None:
    """Each named field is > 0 (sizes, rates)."""
    for name in names:
        if not getattr(cfg, name) > 0:
            raise InputError(f"must be > 0, got {getattr(cfg, name)}", _key(cfg, name))


def fraction(cfg: Any, names: Iterable[str], closed: bool = False) -> None:
    """Each named field is in [0, 1) ([0, 1] when closed): dropout, betas."""
    for name in names:
        value = getattr(cfg, name)
        if not (0.0 <= value <= 1.0 if closed else 0.0 <= value < 1.0):
            raise InputError(f"must be in [0, 1{']' if closed else ')'}, got {value}",
                             _key(cfg, name))


def one_of(cfg: Any, name: str, choices: Iterable[str]) -> None:
    """The named field is one of `choices`."""
    choices = tuple(choices)
    if getattr(cfg, name) not in choices:
        raise InputError(f"must be one of {', '.join(choices)}, got "
                         f"{getattr(cfg, name)!r}", _key(cfg, name))


def divides(cfg: Any, parts: str, whole: str) -> None:
    """Field `parts` divides field `whole` (attention heads and width)."""
    if getattr(cfg, whole) % getattr(cfg, parts):
        raise InputError(f"{getattr(cfg, parts)} does not divide {whole} "
                         f"{getattr(cfg, whole)}", _key(cfg, parts))


def odd(cfg: Any, name: str, what: str) -> None:
    """The named field is an odd number >= 1 (a centred window)."""
    value = getattr(cfg, name)
    if value < 1 or value % 2 == 0:
        raise InputError(f"{what} must be an odd number >= 1, got {value}",
                         _key(cfg, name))
