"""One source for each number the README and the reference pages state
(docs/numbers.yaml): the source holds the value, every page that states the
number states that value, and statements the dated pages contradict appear
nowhere outside the results archive."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
NUMBERS = yaml.safe_load((REPO / "docs" / "numbers.yaml").read_text(encoding="utf-8"))
ARCHIVE = REPO / "docs" / "results"


def reference_pages() -> list[Path]:
    """README.md and every page of docs/ outside the results archive."""
    return [REPO / "README.md", *(p for p in sorted((REPO / "docs").rglob("*.md"))
                                  if ARCHIVE not in p.parents)]


def normalise(text: str) -> str:
    """'17 min 44 s' and '17:44' read the same; '1,234' is '1234'; 'two' is '2'."""
    text = text.strip().strip("*").replace(",", "")
    minutes = re.fullmatch(r"(\d+) min (\d+) s", text)
    if minutes:
        return f"{int(minutes.group(1))}:{int(minutes.group(2)):02d}"
    words = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5"}
    return words.get(text, text)


def table_cell(page: Path, row: str, column: str) -> str:
    """The cell of a Markdown table on `page` in the row whose first cell is
    `row`, under the header `column` (the first such table)."""
    header = None
    for line in page.read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
        elif cells and cells[0] == row and column in header:
            return cells[header.index(column)].strip("*").strip()
    raise AssertionError(f"{page.relative_to(REPO)}: no table row {row!r} "
                         f"with a column {column!r}")


def derived(name: str) -> str:
    """A count taken from the code or the config."""
    if name == "claims":
        claims = yaml.safe_load((REPO / "src" / "phrasenmt" / "claims.yaml")
                                .read_text(encoding="utf-8"))["claims"]
        return str(len(claims))
    models = yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))["models"]
    controls = [m for m in models.values() if (m or {}).get("context") == "random"]
    if name == "random_context_controls":
        return str(len(controls))
    if name == "model_rows":
        return str(len(models) - len(controls))
    raise AssertionError(f"docs/numbers.yaml: unknown derived count {name!r}")


def source_value(number: dict) -> str:
    source = number["source"]
    if "derived" in source:
        return derived(source["derived"])
    cell = table_cell(REPO / source["page"], source["row"], source["column"])
    if "round" in source:
        return f"{float(cell):.{source['round']}f}"
    return normalise(cell)


@pytest.mark.parametrize("name", sorted(NUMBERS["numbers"]))
def test_the_source_holds_the_value(name):
    number = NUMBERS["numbers"][name]
    assert source_value(number) == number["value"], (
        f"docs/numbers.yaml: {name} is {number['value']}, its source says "
        f"{source_value(number)}")


@pytest.mark.parametrize("name", sorted(n for n, v in NUMBERS["numbers"].items()
                                        if "newest_of" in v["source"]))
def test_the_source_is_the_newest_page_of_its_kind(name):
    source = NUMBERS["numbers"][name]["source"]
    newest = max(REPO.glob(source["newest_of"]))
    assert newest == REPO / source["page"], (
        f"docs/numbers.yaml: {name} comes from {source['page']}, but "
        f"{newest.relative_to(REPO)} is newer: take its number")


def statements(number: dict, page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    return [normalise(m.group(1)) for pattern in number["stated"]["patterns"]
            for m in re.finditer(pattern, text)]


@pytest.mark.parametrize("name", sorted(NUMBERS["numbers"]))
def test_every_page_states_the_sources_value(name):
    number = NUMBERS["numbers"][name]
    listed = {REPO / p for p in number["stated"]["pages"]}
    wrong = []
    pages = sorted(listed) if number["stated"].get("only_listed") else reference_pages()
    for page in pages:
        found = statements(number, page)
        if page in listed and not found:
            wrong.append(f"{page.relative_to(REPO)}: states no {name}")
        wrong += [f"{page.relative_to(REPO)}: {name} {value}, its source "
                  f"says {number['value']}"
                  for value in found if value != number["value"]]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("statement", NUMBERS["contradicted"],
                         ids=lambda s: s["pattern"])
def test_no_page_says_what_the_dated_pages_contradict(statement):
    for page in statement["because"]:
        assert (REPO / page).is_file(), page
    said = [str(page.relative_to(REPO)) for page in reference_pages()
            if re.search(statement["pattern"], page.read_text(encoding="utf-8"))]
    assert not said, f"{said} say {statement['pattern']!r}, which " \
                     f"{statement['because']} contradict"


def test_each_dated_page_names_the_cpu_of_its_date():
    cpu = NUMBERS["development_cpu"]
    wrong = []
    for page in sorted(ARCHIVE.glob("20*.md")):
        day = date.fromisoformat(page.name[:10])
        machine = next((line for line in page.read_text(encoding="utf-8").splitlines()
                        if line.startswith("| machine |")), "")
        if cpu["no_bf16_words"] in machine and day > cpu["no_bf16_until"]:
            wrong.append(f"{page.name}: '{cpu['no_bf16_words']}' after "
                         f"{cpu['no_bf16_until']}")
        if cpu["avx512_bf16_words"] in machine and day < cpu["avx512_bf16_from"]:
            wrong.append(f"{page.name}: '{cpu['avx512_bf16_words']}' before "
                         f"{cpu['avx512_bf16_from']}")
    assert not wrong, "\n".join(wrong)
    overview = (REPO / cpu["overview"]).read_text(encoding="utf-8")
    assert cpu["no_bf16_words"] in overview and cpu["avx512_bf16_words"] in overview


def test_a_page_with_another_value_fails(tmp_path):
    number = NUMBERS["numbers"]["default_run_time"]
    page = tmp_path / "index.md"
    page.write_text("From a fresh clone, `make install` took 1:28 and `make run` 13:40.\n")
    assert statements(number, page) == ["13:40"]
    page.write_text("From a fresh clone, `make install` (KenLM included)\ntook **1 min 28 s** "
                    "and `make run` **17 min 44 s**: 19 min 12 s in all\n")
    assert statements(number, page) == ["17:44"]
