"""The documentation, the README and the configs speak of the product only.

No machine path of the computers the project was built on, no word about how
it was built (who was lent which machine, for how long, in which session), and
no internal targets of the project's own schedule. Every hit names the file,
the line and the phrase, so a new one is easy to find and reword.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

# Files a user reads: the README, the documentation site, every config.
SOURCES = [
    REPO / "README.md",
    REPO / "CHANGELOG.md",
    REPO / "config.yaml",
    *sorted((REPO / "docs").rglob("*.md")),
    *sorted((REPO / "docs").rglob("*.yaml")),
    *sorted((REPO / "configs").rglob("*.yaml")),
]

# Phrase -> why it is refused. Case-insensitive regular expressions.
FORBIDDEN = {
    r"/work/": "a path of the development machine",
    r"\.\./shared\b": "a folder that exists only beside the development checkout",
    r"\bshared/(data|papers)\b": "a folder that exists only beside the development checkout",
    r"\blent\b": "how the project was developed (machines lent)",
    r"device time": "how the project was developed (device time)",
    r"\bthis task\b": "how the project was developed (tasks)",
    r"\bin (this|a|an|the|earlier|later) task\b": "how the project was developed (tasks)",
    r"\bsessions?\b(?!\s*(cookie|token))": "how the project was developed (sessions)",
    r"\bhelpers? (session|agent)s?\b": "how the project was developed",
    r"\bthis round\b": "how the project was developed (rounds)",
    r"\bdev(elopment)? machines?\b": "the machine the project was developed on",
    r"`\.whl/` carried": "how the project was developed (its tools)",
    r"20-minute budget": "an internal target of the project, not a property of the tool",
    r"\btarget (is )?(not )?met\b": "an internal target of the project",
    r"\bissue #?\d+\b": "an internal issue number",
}

# Uses of a forbidden word that speak of the product: (file name, regular
# expression matched against the text around the hit, line breaks included).
ALLOWED = [
    # SSH, tmux and screen sessions are a user's, not the project's.
    ("faq.md", r"lost SSH session"),
    ("cluster.md", r"screen`\s+session"),
]


def _hits():
    for path in SOURCES:
        if not path.is_file():
            continue
        rel = path.relative_to(REPO)
        text = path.read_text(encoding="utf-8")
        for pattern, why in FORBIDDEN.items():
            for m in re.finditer(pattern, text, flags=re.IGNORECASE):
                around = text[max(0, m.start() - 60):m.end() + 60]
                if any(path.name == name and re.search(ok, around, flags=re.IGNORECASE)
                       for name, ok in ALLOWED):
                    continue
                lineno = text.count("\n", 0, m.start()) + 1
                yield f"{rel}:{lineno}: {m.group(0)!r}: {why}"


def test_no_development_wording_in_user_facing_text():
    hits = list(_hits())
    assert not hits, "\n".join(hits)


@pytest.mark.parametrize("line", [
    "this task was lent no GPU machine",
    "13 minutes of device time in all",
    "git clone /work/main /tmp/fresh",
    "mirror: ../shared/data/multi30k",
    "it meets the 20-minute budget",
    "no GPU in this session",
    "on the 2-core development machine",
    "from the repository root with `.whl/` carried:",
])
def test_the_patterns_catch_the_phrases_they_are_for(line):
    assert any(re.search(p, line, flags=re.IGNORECASE) for p in FORBIDDEN), line
