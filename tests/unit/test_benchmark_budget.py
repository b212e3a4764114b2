"""The benchmarks package keeps to a line budget (`cat benchmarks/*.py | wc -l`):
what suites share belongs in benchmarks/harness.py, not in copies."""

from __future__ import annotations

from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
BUDGET = 2500


def test_the_benchmarks_package_keeps_to_its_line_budget():
    lines = {path.name: path.read_text("utf-8").count("\n")
             for path in sorted(BENCHMARKS.glob("*.py"))}
    total = sum(lines.values())
    largest = ", ".join(f"{name} {n}" for name, n in
                        sorted(lines.items(), key=lambda kv: -kv[1])[:3])
    assert total <= BUDGET, (f"benchmarks/*.py hold {total} lines, over the budget "
                             f"of {BUDGET} (largest: {largest})")


def test_no_script_edits_the_import_path():
    """Benchmarks import each other as a package and experiments find the one
    beside them as scripts do: no file edits sys.path, which hid a missing
    install step behind a path of this checkout."""
    repo = BENCHMARKS.parent
    edits = [f"{path.relative_to(repo)}:{n}"
             for folder in ("benchmarks", "experiments", "tools")
             for path in sorted((repo / folder).rglob("*.py"))
             for n, line in enumerate(path.read_text("utf-8").splitlines(), 1)
             if "sys.path." in line and not line.lstrip().startswith("#")]
    assert not edits, f"sys.path edited at {', '.join(edits)}"
