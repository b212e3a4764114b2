"""The command reference (docs_cli): the `phrasenmt` command, every stage and
subcommand with its own --help and its `python -m` form."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from phrasenmt import docs_cli
from phrasenmt.cli import ArgumentParser
from tests.conftest import REPO

RULE_COMMAND = re.compile(r"python -m (phrasenmt[a-z_.]*)")


@pytest.fixture(scope="module")
def page() -> str:
    return docs_cli.render()


def sections(page: str) -> dict[str, str]:
    """`python -m` command line -> the help text under its heading."""
    found = re.findall(r"^#{2,3} `(phrasenmt [^`]+)`\n\nAlso `(python -m [^`]+)`\."
                       r"\n\n```text\n(.*?)\n```$", page,
                       flags=re.MULTILINE | re.DOTALL)
    for command, module, _ in found:  # the two forms name one stage
        assert module.removeprefix("python -m ").replace(".", " ") == command
    return {module: text for _, module, text in found}


def test_every_command_the_rules_call_is_on_the_page(page):
    called = {m for path in (REPO / "rules").glob("*.smk")
              for m in RULE_COMMAND.findall(path.read_text(encoding="utf-8"))}
    assert len(called) > 30
    listed = sections(page)
    assert not [m for m in sorted(called) if f"python -m {m}" not in listed]


def test_every_module_that_runs_as_a_command_is_on_the_page(page):
    """Each module with a __main__ block and each package with a __main__.py,
    found here by reading the files (a module a package's __main__ runs counts
    as the package)."""
    src = REPO / "src"
    listed = sections(page)
    for path in sorted((src / "phrasenmt").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        name = ".".join(path.relative_to(src).with_suffix("").parts)
        if name == "phrasenmt.__main__":  # `python -m phrasenmt`, the command list
            assert "\n## `phrasenmt`\n" in page
        elif path.name == "__main__.py":
            assert f"python -m {name.removesuffix('.__main__')}" in listed, name
        elif 'if __name__ == "__main__"' in text and name != "phrasenmt.synthetic.corpus":
            assert f"python -m {name}" in listed, name
    assert "python -m phrasenmt.translate_text" in listed


def test_each_section_is_the_commands_own_help(page):
    for module, text in sections(page).items():
        command = "phrasenmt " + module.removeprefix("python -m phrasenmt.")
        assert text.startswith(f"usage: {command.replace('.', ' ')} "), module


def test_the_page_opens_with_the_command_list(page):
    overview = page.split("\n## `phrasenmt`\n\n```text\n", 1)[1].split("```")[0]
    assert overview.startswith("usage: phrasenmt ")
    assert "\n  evaluate bleu " in overview and "\n  train " in overview


@pytest.mark.parametrize("command", ["python -m phrasenmt.bpe learn",
                                     "python -m phrasenmt.align symmetrize",
                                     "python -m phrasenmt.translate score"])
def test_subcommands_have_their_own_section(page, command):
    assert command in sections(page)
    shown = command.replace("python -m phrasenmt.", "phrasenmt ")
    assert f"### `{shown}`" in page


def test_every_option_of_every_command_says_what_it_does():
    parsers = docs_cli.command_parsers()
    commands = [command for command, _ in parsers]
    assert "phrasenmt bpe spm-learn" in commands  # a subcommand
    assert "phrasenmt translate score" in commands  # one translate dispatches
    assert "phrasenmt report discourse sweep" in commands
    undocumented = [f"{command} {option}" for command, parser in parsers
                    for option in docs_cli.options_without_help(parser)]
    assert not undocumented, "options without help: " + ", ".join(undocumented)


def test_an_option_without_help_is_found():
    parser = ArgumentParser(prog="x")
    parser.add_argument("name")
    parser.add_argument("--out", help="output file")
    parser.add_argument("-n", "--count")
    parser.add_argument("--empty", help="")
    sub = parser.add_subparsers(dest="command").add_parser("run", help="run it")
    sub.add_argument("--seed")
    assert docs_cli.options_without_help(parser) == ["name", "--count", "--empty"]
    assert docs_cli.options_without_help(sub) == ["--seed"]


def test_a_new_command_is_found(tmp_path: Path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text('def main(argv=None):\n    pass\n\n\n'
                              'if __name__ == "__main__":\n    main()\n')
    (pkg / "b.py").write_text("def main(argv=None):\n    pass\n")
    (pkg / "sub" / "__main__.py").write_text("from phrasenmt.x import main\n\nmain()\n")
    assert docs_cli.cli_modules(pkg) == {"phrasenmt.a": "phrasenmt.a",
                                         "phrasenmt.sub": "phrasenmt.x"}


def test_the_site_builds_and_lists_the_page():
    hooks = (REPO / "tools" / "mkdocs_hooks.py").read_text(encoding="utf-8")
    assert "docs_cli.render()" in hooks
    nav = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]
    assert docs_cli.PAGE in str(nav)
