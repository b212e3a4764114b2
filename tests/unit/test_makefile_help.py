"""`make help` lists every target a user runs, each with the `#>` line above
it, and `make` alone still installs."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.conftest import REPO

MAKEFILE = (REPO / "Makefile").read_text(encoding="utf-8")
INTERNAL = {"help", "install-package", "node-stage"}  # steps of other targets


def _phony() -> set[str]:
    line = re.search(r"^\.PHONY: (.*)$", MAKEFILE, re.MULTILINE)
    assert line, "Makefile has no .PHONY line"
    return set(line.group(1).split())


def test_every_user_target_has_a_help_line():
    described = set(re.findall(r"^#> ([^:]+): ", MAKEFILE, re.MULTILINE))
    families = re.search(r"^CONVERGED_FAMILIES := (.*)$", MAKEFILE, re.MULTILINE)
    family_targets = {f"converged-{f}" for f in families.group(1).split()}
    missing = _phony() - INTERNAL - family_targets - described
    assert not missing, f"targets without a `#> target: text` line: {sorted(missing)}"
    assert "converged-FAMILY" in described
    for name in described - {"converged-FAMILY"}:  # each line sits on its own target
        assert re.search(rf"^#> {re.escape(name)}: .*\n{re.escape(name)}:", MAKEFILE,
                         re.MULTILINE), name


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
def test_make_help_prints_them_and_install_is_still_the_default_goal():
    out = subprocess.run(["make", "--no-print-directory", "help"], cwd=REPO,
                         capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert lines[0] == "make TARGET, where TARGET is one of:"
    assert any(line.split()[:1] == ["run"] for line in lines[1:])
    assert "FAMILY: phrase phrase-pooling" in out
    plan = subprocess.run(["make", "-n", "--no-print-directory"], cwd=REPO,
                          capture_output=True, text=True, check=False)
    assert "help" not in plan.stdout + plan.stderr
    assert re.search(r"^\.DEFAULT_GOAL := install$", MAKEFILE, re.MULTILINE)
