"""The tiny real run that the workflow tests read, made once per pytest run.

tests/workflow/tiny_run.yaml holds both synthetic directions and every model
family; its run takes most of the suite's time, so every test that needs a real
run reads this one. It starts in the background as soon as the tests are
collected (by the first test process of the pytest run: tests/shared.py), so the
unit tests and dry runs use the cores its jobs leave idle; the `tiny_run`
fixture waits for it. A test that changes the run folder works on a
copy (`copy_of`), so that the tests give the same answer in any order.

PHRASENMT_TINY_RUN=DIR reads a finished run of the same config in DIR instead
(while changing the tests that read it); a DIR whose config.yaml differs fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import shared
from tests.conftest import LOCAL_ENV, REPO, snakemake

TINY_CONFIG = Path(__file__).resolve().parent / "tiny_run.yaml"
# What the rerun in a fresh folder builds again (test_end_to_end.py): the main
# and claims tables of the English->German dataset and everything upstream.
RERUN_TARGETS = ("results/tiny_en_de/report/results.csv",
                 "results/tiny_en_de/report/claims.csv")
TIMEOUT = 1800  # seconds; a run on a loaded 2-core machine takes a few minutes


def run_args(workdir: Path, *extra: str) -> list[str]:
    """Snakemake's arguments for the workflow run in `workdir` on its config.yaml."""
    return ["--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
            "--configfile", str(workdir / "config.yaml"), *extra]


def copy_of(run: Path, dest: Path) -> Path:
    """A copy of a run folder (files, times and Snakemake's records) at `dest`."""
    shutil.copytree(run, dest, symlinks=True)
    return dest


# Snakemake's output goes to `out`; its exit status to `rc` once it ends, so that
# any test process (not only the one that started it) can wait for it.
WRAPPER = 'out="$1"; rc="$2"; shift 2; "$@" >"$out" 2>&1; echo $? >"$rc.part"; mv "$rc.part" "$rc"'


@dataclass
class Background:
    """A Snakemake run of tiny_run.yaml in a folder of its own, started not awaited."""

    workdir: Path

    @property
    def out(self) -> Path:
        return self.workdir / "snakemake.out"

    @property
    def rc(self) -> Path:
        return self.workdir / "snakemake.rc"

    @classmethod
    def start(cls, name: str, *targets: str) -> Background:
        workdir = Path(tempfile.mkdtemp(prefix="phrasenmt-tiny-"))
        shutil.copyfile(TINY_CONFIG, workdir / "config.yaml")
        run = cls(workdir)
        cmd = [sys.executable, "-m", "snakemake", *run_args(workdir, "--cores", "2"),
               *targets]
        proc = subprocess.Popen(["sh", "-c", WRAPPER, "sh", str(run.out), str(run.rc),
                                 *cmd], cwd=REPO, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=LOCAL_ENV,
                                start_new_session=True)
        shared.register(name, {"workdir": str(workdir), "rc": str(run.rc),
                               "pgid": proc.pid})
        return run

    def wait(self) -> Path:
        """The run's folder once it has finished; fails with its last lines."""
        deadline = time.monotonic() + TIMEOUT
        while not self.rc.exists():
            assert time.monotonic() < deadline, f"the tiny run in {self.workdir} timed out"
            time.sleep(0.5)
        code = int(self.rc.read_text(encoding="utf-8"))
        text = self.out.read_text(encoding="utf-8")
        assert code == 0, f"the tiny run in {self.workdir} failed:\n{text[-5000:]}"
        return self.workdir


STARTS = {"tiny_run": (), "tiny_rerun": RERUN_TARGETS}  # fixture -> its targets


def finished_run() -> Path | None:
    """The folder PHRASENMT_TINY_RUN names (None: unset); it must hold this config."""
    given = os.environ.get("PHRASENMT_TINY_RUN")
    if not given:
        return None
    config = Path(given) / "config.yaml"
    same = config.is_file() and config.read_bytes() == TINY_CONFIG.read_bytes()
    assert same, f"PHRASENMT_TINY_RUN={given}: {config} is not {TINY_CONFIG}"
    return Path(given)


def started(name: str) -> Background:
    """The background run behind fixture `name`, started now by the first test
    process of this pytest run that asks (the others read its record)."""
    with shared.locked(name) as root:
        record = root / f"{name}.run.json"
        if record.exists():
            return Background(Path(json.loads(record.read_text())["workdir"]))
        return Background.start(name, *STARTS[name])


def pytest_collection_modifyitems(config, items):
    """Start the runs the selected tests read, before the first test runs."""
    for name in STARTS:
        if name == "tiny_run" and os.environ.get("PHRASENMT_TINY_RUN"):
            continue
        if any(name in getattr(item, "fixturenames", ()) for item in items):
            started(name)


@pytest.fixture(scope="session")
def tiny_run() -> Path:
    """The folder of this pytest run's tiny run (read only: see `copy_of`)."""
    return finished_run() or started("tiny_run").wait()


@pytest.fixture(scope="session")
def tiny_rerun() -> Path:
    """A second run of the same config in a fresh folder (RERUN_TARGETS only)."""
    return started("tiny_rerun").wait()


@pytest.fixture(scope="session")
def tiny_report(tiny_run: Path) -> str:
    """The HTML report (`snakemake --report`) of the tiny run, as text."""
    def make(html: Path) -> None:
        result = snakemake(*run_args(tiny_run, "--report", str(html)))
        assert result.returncode == 0, result.stderr[-3000:]

    return shared.once("tiny_report.html", make).read_text(encoding="utf-8")
