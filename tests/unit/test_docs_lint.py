"""The Markdown lint (`make docs`: tools/lint_markdown.py with .pymarkdown.yaml)
passes on README.md, CHANGELOG.md and docs/, and catches each way a page has
rendered wrong on the site or on GitHub."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytest.importorskip("pymarkdown", reason="the docs extra (pymarkdownlnt) is not installed")


def _lint_module():
    spec = importlib.util.spec_from_file_location(
        "lint_markdown", REPO / "tools" / "lint_markdown.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


lint = _lint_module()


def test_readme_changelog_and_docs_pass_the_lint(capsys):
    assert lint.main([]) == 0, capsys.readouterr().out


BROKEN = {
    # a second fence right after the first opens an empty block and turns the
    # rest of the page into code
    "empty code fence": "# T\n\nIntro:\n\n```\n```\nresults/a\n```\n\nText.\n",
    "list after a paragraph line": "# T\n\nTraining is safe to stop:\n- On SIGTERM.\n- On SIGUSR1.\n",
    "ordered list after a paragraph line": "# T\n\nSteps:\n2. one\n3. two\n",
    "nested list indented 2": "# T\n\n- a run:\n  - seed N\n  - seed M\n- next\n",
    "second paragraph indented 2": "# T\n\n- a run:\n\n  So the model.\n- next\n",
    "paragraph indented 1 after a heading": "# T\n\n## Part\n\n (each stated in its file): text.\n",
    "code fence indented 2 in a list": "# T\n\n- item:\n\n  ```bash\n  ls\n  ```\n",
    "heading without a blank line": "# T\n\n## Part\ntext\n",
    "heading level skipped": "# T\n\n### Part\n\ntext\n",
    "indented code block": "# T\n\ntext\n\n    python -m x\n",
    "snippet include": '# T\n\n```yaml\n--8<-- "configs/examples/own_corpus.yaml"\n```\n',
    "raw tag in text": "# T\n\nnot tested: <reason>\n",
}


WELL_FORMED = ("# T\n\nIntro:\n\n- a run:\n    - seed N\n      of it\n    - seed M\n\n"
               "    So the model.\n\n```bash\nls\n```\n\n!!! note\n    A note.\n\n"
               "| a | b |\n|---|---|\n| 1 | 2 |\n")


@pytest.fixture(scope="module")
def scanned(tmp_path_factory) -> tuple[dict[str | None, Path], list[str]]:
    """Each BROKEN page and WELL_FORMED in a file of its own, and pymarkdown's
    findings on all of them from one scan (one start of pymarkdown, not one per
    case)."""
    folder = tmp_path_factory.mktemp("pages")
    pages = {}
    for i, (case, text) in enumerate(sorted({**BROKEN, None: WELL_FORMED}.items(),
                                            key=lambda kv: str(kv[0]))):
        pages[case] = folder / f"page{i}.md"
        pages[case].write_text(text, encoding="utf-8")
    return pages, lint.pymarkdown_problems(list(pages.values()))


def problems(scanned, case: str | None) -> list[str]:
    """Both passes' findings on one page (None: WELL_FORMED)."""
    pages, found = scanned
    page = pages[case]
    return ([line for line in found if line.startswith(f"{page}:")]
            + lint.python_markdown_problems(page))


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_the_lint_catches(case, scanned):
    assert problems(scanned, case), case


def test_the_quick_scan_finds_what_pymarkdown_finds(scanned):
    """The lint's pymarkdown scan (tokens with a constant repr) reports what
    `python -m pymarkdown` reports, finding for finding."""
    pages, found = scanned
    assert lint.pymarkdown_command([], quick=False)[1:3] == ["-m", "pymarkdown"]
    assert found  # the pages hold findings of several rules to compare
    assert found == lint.pymarkdown_problems(list(pages.values()), quick=False)


def test_a_well_formed_page_passes(scanned):
    assert problems(scanned, None) == []


def test_make_docs_lints_before_it_builds():
    recipe = re.search(r"^docs:.*\n((?:\t.*\n)+)", (REPO / "Makefile").read_text(),
                       re.MULTILINE)
    assert recipe, "Makefile has no docs target"
    lines = recipe.group(1).splitlines()
    lint_at = [i for i, line in enumerate(lines) if "tools/lint_markdown.py" in line]
    build_at = [i for i, line in enumerate(lines) if "mkdocs build" in line]
    assert lint_at and build_at and lint_at[0] < build_at[0]


def test_the_tutorials_copy_of_the_example_config_is_the_file():
    """GitHub does not render includes, so the tutorial quotes the file; it
    must stay the file."""
    tutorial = (REPO / "docs" / "tutorial.md").read_text(encoding="utf-8")
    example = (REPO / "configs" / "examples" / "own_corpus.yaml").read_text(
        encoding="utf-8")
    blocks = re.findall(r"^```yaml\n(.*?)^```$", tutorial, re.MULTILINE | re.DOTALL)
    quoted = [b for b in blocks if "run_datasets: [my_en_de]" in b]
    assert len(quoted) == 1, "the tutorial no longer quotes own_corpus.yaml"
    assert quoted[0] == example, (
        "docs/tutorial.md's copy of configs/examples/own_corpus.yaml differs "
        "from the file: paste the file into the tutorial again")
