"""No shipped configuration names a path outside the repository.

A config that points at a folder beside the checkout (`../data`) or at an
absolute path works only on the machine it was written on: elsewhere the
documented command stops. Such a path (a dataset mirror, a corpus) is given on
the command line instead (`--config mirror=DIR`, docs/datasets.md).
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

import pytest
import yaml

from tests.conftest import REPO

CONFIGS = [REPO / "config.yaml", *sorted((REPO / "configs").rglob("*.yaml"))]
URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)


def leaves_repository(value: str) -> bool:
    """Whether a config value is a path that leaves the repository: absolute,
    in a home folder, or climbing out with `..`."""
    text = value.strip()
    if not text or URL.match(text) or any(c in text for c in "\n{}"):
        return False
    if text.startswith(("/", "~", "\\")) or re.match(r"^[A-Za-z]:[\\/]", text):
        return True
    return ".." in PurePosixPath(text.replace("\\", "/")).parts


def paths_out(node, where: str = ""):
    """(key path, value) of every string in a parsed config that leaves the repository."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from paths_out(value, f"{where}.{key}" if where else str(key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from paths_out(value, f"{where}[{i}]")
    elif isinstance(node, str) and leaves_repository(node):
        yield where, node


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: str(p.relative_to(REPO)))
def test_no_config_value_names_a_path_outside_the_repository(path: Path):
    config = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    found = [f"{key}: {value}" for key, value in paths_out(config)]
    assert not found, f"{path.relative_to(REPO)}: {found}"


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: str(p.relative_to(REPO)))
def test_no_config_comment_names_a_path_outside_the_repository(path: Path):
    """The commands in a config's comments are copied as they are: a `../x`
    there is the same trap as in a value (`/path/to/...` placeholders are fine)."""
    found = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        comment = line.partition("#")[2]
        for word in re.findall(r"[^\s`'\"(),:=]+", comment):
            if (re.search(r"\w/|/\w", word) and not word.startswith("/path/to/")
                    and not URL.match(word) and leaves_repository(word)):
                found.append(f"{lineno}: {word}")
    assert not found, f"{path.relative_to(REPO)}: {found}"


@pytest.mark.parametrize("value, out", [
    ("../shared/data/multi30k", True),
    ("/data/multi30k", True),
    ("~/corpora/train.en", True),
    ("data/../../x", True),
    ("C:\\corpora", True),
    ("my_corpus/train.en", False),
    ("results/x/../y", True),
    ("https://example.org/a/../b", False),
    ("transformer", False),
    ("", False),
])
def test_the_check_tells_a_path_that_leaves_the_repository(value: str, out: bool):
    assert leaves_repository(value) is out
