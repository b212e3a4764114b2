"""Every CPU benchmark suite runs at the smallest size docs/benchmarks.md gives
it and writes a result file with the harness's keys: a suite that broke, or a
page whose command no longer runs, fails here rather than on a lent GPU."""

from __future__ import annotations

import json
import re
import shlex

import pytest

from tests.conftest import REPO

# suites whose smallest run needs no files of the user's (peers: a Multi30k
# mirror; chain: aligned training files; shapes: a corpus or --pairs)
SELF_CONTAINED = ("families", "precision", "ceiling", "datapath", "kernels",
                  "shapes", "context")


def smallest_runs() -> dict[str, list[str]]:
    """suite -> the options of the table's `smallest run` column."""
    runs = {}
    for line in (REPO / "docs" / "benchmarks.md").read_text("utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        name = re.fullmatch(r"`(\w+)`", cells[0]) if cells else None
        if name and len(cells) == 4 and cells[3].startswith("`"):
            runs[name.group(1)] = shlex.split(cells[3].strip("`"))
    return runs


def test_the_table_gives_every_suite_a_smallest_run():
    from benchmarks import speed

    assert set(smallest_runs()) == set(speed.SUITES)


@pytest.mark.slow
@pytest.mark.parametrize("suite", SELF_CONTAINED)
def test_each_suite_runs_at_its_smallest_size_and_writes_its_figures(suite, tmp_path):
    from benchmarks import speed

    out = tmp_path / f"{suite}.json"
    assert speed.main(["--suite", suite, *smallest_runs()[suite], "--out",
                       str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["suite"] == suite and data["figures"]
    assert data["command"].startswith(f"python -m benchmarks.speed --suite {suite}")
    assert {"settings", "machine", "torch", "commit", "date_utc"} <= set(data)
