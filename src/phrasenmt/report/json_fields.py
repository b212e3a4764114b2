"""Reading evaluation and training JSONs for the report: one line per problem."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from phrasenmt.io import InputError, read_json


def load_json(path: Path) -> dict[str, Any]:
    """Read a JSON object; a missing file or bad JSON raises naming the file."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError("expected a JSON object", path)
    return data


def get_key(data: dict[str, Any], key: str, path: Path, number: bool = False
            ) -> Any:
    """Value at a dotted key; missing (or non-numeric when `number`) raises."""
    value: Any = data
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            raise InputError(f"missing key {key!r}", path)
        value = value[part]
    if number and (isinstance(value, bool) or not isinstance(value, int | float)):
        raise InputError(f"key {key!r} is not a number: {value!r}", path)
    return value
