"""Config fields that carry their type, bound and description in their annotation.

A field of a config class is declared once: its type and bound in its
annotation, its description beside them, e.g. in a dataclass

    embed_size: Annotated[int, Field(ge=1, description="embedding width")] = 256
    cell: Annotated[Literal["gru", "lstm"], Field(description="...")] = "gru"

(a pydantic model's `Field(4, ge=1, description=...)` is read the same way).
Everything that checks or shows a value reads that declaration: `check_value`
validates a value against it (pydantic, strict: no bool for a number, no "3"
for 3, no NaN or infinity) and words a failure as one line (`must be >= 1, got
0`, `must be in [0, 1), got 1.0`, `must be one of gru, lstm, got 'rnn'`,
`expected int, got 'wide'`, `must be a finite number, got nan`);
`phrasenmt.hparams.validate` runs it over a model or training config, naming
`model.key` / `train.key`; `phrasenmt.cli.field_type` turns a field into an
argparse type; `bounds_text` and `type_name` give the reference page its
columns (`phrasenmt.docs_reference`).
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo

_STRICT = ConfigDict(strict=True, allow_inf_nan=False)
_LIMITS = ("ge", "gt", "le", "lt")
_RANGE_ERRORS = ("greater_than", "greater_than_equal", "less_than", "less_than_equal")


class FieldError(ValueError):
    """A value that does not fit its field; the text is one line without the key."""


@functools.cache
def field_info(cls: type, name: str) -> FieldInfo:
    """The declaration of field `name` of a pydantic model or a dataclass `cls`."""
    model_fields = getattr(cls, "model_fields", None)
    if isinstance(model_fields, dict):
        return model_fields[name]
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls!r} is neither a pydantic model nor a dataclass")
    return FieldInfo.from_annotation(_hints(cls)[name])


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    """The resolved annotations of a dataclass, once per class (resolving them
    evaluates every annotation string of the class)."""
    return typing.get_type_hints(cls, include_extras=True)


def limits(info: FieldInfo) -> dict[str, Any]:
    """The field's numeric bounds: {"ge": 0, "lt": 1}, ..."""
    found: dict[str, Any] = {}
    for item in info.metadata:
        for limit in _LIMITS:
            if getattr(item, limit, None) is not None:
                found[limit] = getattr(item, limit)
    return found


def choices(info: FieldInfo) -> tuple[Any, ...] | None:
    """The values of a Literal field, else None."""
    if typing.get_origin(info.annotation) is Literal:
        return typing.get_args(info.annotation)
    return None


def bounds_text(info: FieldInfo) -> str:
    """'>= 1', '> 0', 'in [0, 1)', ... for the field's bounds ('' if none)."""
    found = limits(info)
    low, high = found.get("ge", found.get("gt")), found.get("le", found.get("lt"))
    if low is not None and high is not None:
        return (f"in {'(' if 'gt' in found else '['}{low}, "
                f"{high}{')' if 'lt' in found else ']'}")
    if low is not None:
        return f"{'>' if 'gt' in found else '>='} {low}"
    if high is not None:
        return f"{'<' if 'lt' in found else '<='} {high}"
    return ""


def value_type(info: FieldInfo) -> Any:
    """The field's type, without the None of an optional key (`int | None`)."""
    kind = info.annotation
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        given = [arg for arg in typing.get_args(kind) if arg is not type(None)]
        if len(given) == 1:
            return given[0]
    return kind


def type_name(info: FieldInfo) -> str:
    """int, float, bool, str, list of int, ... (a Literal's values are `choices`)."""
    kind = value_type(info)
    if typing.get_origin(kind) is list:
        [item] = typing.get_args(kind)
        return f"list of {getattr(item, '__name__', str(item))}"
    return getattr(kind, "__name__", str(kind))


def choices_text(values: tuple[Any, ...]) -> str:
    """'gru, lstm', '0, 2, 4': the values as a user writes them."""
    return ", ".join(str(v) for v in values)


@functools.cache
def _adapter(cls: type, name: str) -> TypeAdapter:
    info = field_info(cls, name)
    hint = (Annotated[(info.annotation, *info.metadata)] if info.metadata
            else info.annotation)
    return TypeAdapter(hint, config=_STRICT)


def check_value(cls: type, name: str, value: Any, shown: str | None = None) -> Any:
    """`value` as field `name` of `cls` holds it (an int given to a float field
    becomes a float); raises FieldError with one line saying what is wrong.
    `shown` is how the value is written in a range message (default: as is)."""
    try:
        return _adapter(cls, name).validate_python(value)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
    info, kind = field_info(cls, name), first["type"]
    if kind == "finite_number":
        raise FieldError(f"must be a finite number, got {value}") from None
    values = choices(info)
    if kind == "literal_error" and values is not None:
        raise FieldError(f"must be one of {choices_text(values)}, got {value!r}") from None
    if kind in _RANGE_ERRORS:
        raise FieldError(f"must be {bounds_text(info)}, got "
                         f"{value if shown is None else shown}") from None
    if kind.endswith("_type"):
        raise FieldError(f"expected {type_name(info)}, got {value!r}") from None
    raise FieldError(first["msg"]) from None
