"""Shared test fixtures: repository paths and a Snakemake runner."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def snakemake(*args: str, cwd: Path = REPO, timeout: int = 600
              ) -> subprocess.CompletedProcess:
    """Run the project's Snakemake with the test interpreter's environment."""
    cmd = [sys.executable, "-m", "snakemake", *args]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, check=False)


@pytest.fixture
def repo() -> Path:
    """The repository root."""
    return REPO
