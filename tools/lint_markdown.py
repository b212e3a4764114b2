"""The Markdown lint of the documentation (`make docs` runs it before the build).

Two passes over README.md, CHANGELOG.md and docs/**/*.md (or the files given):

1. pymarkdown (CommonMark and GitHub rules: code fences, blank lines around
   lists and headings, heading levels, ...), configured in `.pymarkdown.yaml`;
2. what MkDocs' Python-Markdown renders differently from GitHub, which no
   CommonMark linter sees:
   - a list item indented by 1-3 spaces: Python-Markdown nests only items
     indented by 4, and flattens the rest into the parent list;
   - a block or a code fence indented by 1-3 spaces (a list item's second
     paragraph or code, or a stray space): Python-Markdown ends the list
     before it;
   - a list right after a paragraph line, without a blank line between: the
     site shows it as part of the paragraph;
   - a pymdownx.snippets include (`--8<--`): GitHub shows the raw line.

    python tools/lint_markdown.py [FILE ...]

Prints one line per problem (`file:line: message`) and exits 1 if there is any.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / ".pymarkdown.yaml"

FENCE = re.compile(r"^ *(`{3,}|~{3,})")
LIST_ITEM = re.compile(r"^( *)([-*+]|\d+[.)]) +")
SHALLOW = re.compile(r"^ {1,3}\S")


def default_files() -> list[Path]:
    """README.md, CHANGELOG.md and every page under docs/."""
    return [REPO / "README.md", REPO / "CHANGELOG.md",
            *sorted((REPO / "docs").rglob("*.md"))]


def python_markdown_problems(path: Path) -> list[str]:
    """The places where the site (Python-Markdown) renders other than meant."""
    problems = []
    fence = None  # the fence's character and length while inside a code block
    previous_blank = True
    block_is_paragraph = False  # the current block began as a plain paragraph
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        where = f"{path}:{number}: "
        if "--8<--" in line:
            problems.append(where + "a pymdownx.snippets include (--8<--) shows "
                            "as a raw line on GitHub: quote the file instead")
        match = FENCE.match(line)
        if fence:
            if match and match.group(1)[0] == fence[0] \
                    and len(match.group(1)) >= len(fence) \
                    and not line.strip().strip(fence[0]):
                fence = None
            previous_blank = False
            continue
        if match:
            fence = match.group(1)
            if SHALLOW.match(line):
                problems.append(where + "a code fence indented by 1-3 spaces: the "
                                "site nests it in a list item only when indented by 4")
            previous_blank = block_is_paragraph = False
            continue
        if not line.strip():
            previous_blank = True
            block_is_paragraph = False
            continue
        item = LIST_ITEM.match(line)
        if item and 0 < len(item.group(1)) < 4:
            problems.append(where + "a list item indented by "
                            f"{len(item.group(1))} space(s): the site nests only "
                            "items indented by 4, and flattens this one")
        elif SHALLOW.match(line) and previous_blank:
            problems.append(where + "a block indented by 1-3 spaces after a "
                            "blank line: the site ends the list above it (indent "
                            "a list item's later paragraphs by 4) or keeps a "
                            "stray space")
        if item and block_is_paragraph:
            problems.append(where + "a list right after a paragraph line: the site "
                            "shows it as part of the paragraph (add a blank line)")
        if previous_blank:
            stripped = line.lstrip()
            block_is_paragraph = not (item or stripped.startswith(
                ("#", "|", ">", "<", "!!!", "???", "[^")) or line.startswith("    "))
        elif item or line.lstrip().startswith("#"):
            block_is_paragraph = False
        previous_blank = False
    return problems


# pymarkdown (0.9.41) formats the whole token list of a page into a debug
# message at every line it parses (ParserState.mark_start_information), debug
# logging on or off: a time quadratic in the page's length, half of the lint's
# CPU time on these pages (26 s of CPU -> 13 s on the 2-core dev machine). The
# child below gives its tokens a constant repr() before it scans: nothing of
# pymarkdown's but a debug message reads a token's repr (str() and the rules'
# findings are unchanged; tests/unit/test_docs_lint.py compares both outputs).
QUICK_PYMARKDOWN = """
import sys
from pymarkdown.main import PyMarkdownLint
from pymarkdown.tokens.markdown_token import MarkdownToken

MarkdownToken.__repr__ = lambda self: "<token>"
PyMarkdownLint().main(sys.argv[1:])
"""


def pymarkdown_command(files: list[Path], quick: bool = True) -> list[str]:
    """The pymarkdown scan of `files` (quick: with the constant token repr)."""
    start = ["-c", QUICK_PYMARKDOWN] if quick else ["-m", "pymarkdown"]
    return [sys.executable, *start, "--strict-config", "--config", str(CONFIG),
            "scan", *map(str, files)]


def pymarkdown_problems(files: list[Path], quick: bool = True) -> list[str]:
    """pymarkdown's findings, one line each (its own format)."""
    run = subprocess.run(pymarkdown_command(files, quick),
                         capture_output=True, text=True, check=False)
    if run.returncode not in (0, 1):
        raise SystemExit(f"lint_markdown: pymarkdown failed: "
                         f"{(run.stderr or run.stdout).strip()}")
    return [line for line in run.stdout.splitlines() if line.strip()]


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    files = [Path(a) for a in args] or default_files()
    problems = pymarkdown_problems(files)
    for path in files:
        problems += python_markdown_problems(path)
    for problem in problems:
        print(problem)
    if problems:
        print(f"lint_markdown: {len(problems)} problem(s); the rules and why some "
              f"are off: {CONFIG.name}, tools/lint_markdown.py", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
