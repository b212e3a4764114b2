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
