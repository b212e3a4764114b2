"""The results archive: every dated page opens with its date, commit, machine
and command, is listed on the archive's overview page, and sits in one
collapsed section of the site's navigation."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
RESULTS = REPO / "docs" / "results"
DATED = sorted(RESULTS.glob("[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]-*.md"))


def _nav_section(nav, title):
    for item in nav:
        if isinstance(item, dict) and title in item:
            return item[title]
    return None


def _pages(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for item in node:
            yield from _pages(item)
    elif isinstance(node, dict):
        for value in node.values():
            yield from _pages(value)


@pytest.fixture(scope="module")
def mkdocs():
    return yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))


def test_there_are_dated_pages():
    assert len(DATED) >= 30


@pytest.mark.parametrize("page", DATED, ids=lambda p: p.name)
def test_a_dated_page_opens_with_its_date_commit_machine_and_command(page):
    head = "\n".join(page.read_text(encoding="utf-8").splitlines()[:25])
    missing = [key for key in ("date", "commit", "machine", "command")
               if not re.search(rf"^\| {key}s? \| \S", head, flags=re.MULTILINE)]
    assert not missing, f"{page.relative_to(REPO)}: no {', '.join(missing)} row in its opening table"
    date = re.search(r"^\| date \| (\d{4}-\d{2}-\d{2})", head, flags=re.MULTILINE)
    assert date and date.group(1) == page.name[:10], \
        f"{page.name}: the date row does not start with the page's date"


def test_every_dated_page_is_on_the_overview_page():
    overview = (RESULTS / "index.md").read_text(encoding="utf-8")
    missing = [p.name for p in DATED if f"]({p.name})" not in overview]
    assert not missing, f"not linked from docs/results/index.md: {missing}"


def test_the_dated_pages_are_one_collapsed_nav_section(mkdocs):
    archive = _nav_section(mkdocs["nav"], "Results archive")
    assert archive is not None, "mkdocs.yml nav has no 'Results archive' section"
    assert "results/index.md" in list(_pages(archive))
    dated = _nav_section(archive, "Dated pages")
    assert dated is not None, "'Results archive' has no nested 'Dated pages' section"
    in_nav = set(_pages(dated))
    missing = [p.name for p in DATED if f"results/{p.name}" not in in_nav]
    assert not missing, f"not under Results archive > Dated pages: {missing}"
    # Only there: nowhere else in the nav.
    elsewhere = [p for item in mkdocs["nav"] if _nav_section([item], "Results archive") is None
                 for p in _pages(item) if re.match(r"results/\d{4}-", p)]
    assert not elsewhere, f"dated pages outside the archive: {elsewhere}"
    # A nested section stays collapsed unless the theme expands every section.
    assert "navigation.expand" not in mkdocs["theme"].get("features", [])


# The claims table gives a comparison in which a model has one seed no verdict
# ("one seed: indicative, no verdict", docs/evaluation.md) since 2026-11-29.
# The dated pages before it that print verdicts, by how many seeds they rest on.
ONE_SEED_RULE = "2026-11-29"
ONE_SEED_VERDICTS = ("2026-11-26-default-run-context.md", "2026-11-26-default-run-k2.md",
                     "2026-11-26-default-run-mirrored.md",
                     "2026-11-26-multi30k-families.md", "2026-11-27-default-run.md",
                     "2026-11-27-multi30k-npmt.md")
THREE_SEED_VERDICTS = ("2026-11-26-converged-continuous.md",
                       "2026-11-27-converged-de-en.md", "2026-11-27-converged-document.md",
                       "2026-11-27-converged-long.md", "2026-11-27-converged-npmt.md")
VERDICT_CELL = re.compile(r"^\|.*\| *(?:not )?reproduced *(?:\||\(|:)", re.MULTILINE)


def _opening(page: Path) -> str:
    """A page's text before its first section heading: its table and notes."""
    return page.read_text(encoding="utf-8").split("\n## ", 1)[0]


def test_every_page_with_verdicts_before_the_one_seed_rule_is_sorted():
    printed = {p.name for p in DATED
               if p.name[:10] < ONE_SEED_RULE and VERDICT_CELL.search(p.read_text(encoding="utf-8"))}
    assert printed == set(ONE_SEED_VERDICTS) | set(THREE_SEED_VERDICTS)


@pytest.mark.parametrize("name", ONE_SEED_VERDICTS)
def test_a_page_of_one_seed_verdicts_says_so_at_its_top(name):
    opening = _opening(RESULTS / name)
    assert "came from one seed" in opening, f"{name}: no note that its verdicts came from one seed"
    assert '"one seed: indicative, no verdict"' in opening, name
    assert "(../evaluation.md#the-claims-table)" in opening, name


def test_the_significance_page_points_to_the_size_check_that_replaced_its_own():
    assert "(2026-11-29-seed-inference.md)" in _opening(RESULTS / "2026-11-23-significance.md")
