"""The command reference page, generated from the commands' own parsers.

Every stage of the package is a command, `phrasenmt <stage>` (the `phrasenmt`
command's table, `phrasenmt.command.STAGES`), and a module with an
`if __name__ == "__main__":` block or a package with a `__main__.py`, run as
`python -m phrasenmt.<stage>` (`cli_modules` finds them in the source tree).
Each one's `main(["--help"])` runs with its output captured, and so does every
subcommand of its parser (`bpe learn`, `align symmetrize`, ...; `translate
score`, which `translate` dispatches itself, is in `DISPATCHED`). The
documentation build runs it (an MkDocs hook) and adds the page to the site; it
is not stored, so it shows what the code's `--help` says at build time.

    python -m phrasenmt.docs_cli --out cli.md
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib
import io
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from unittest import mock

from phrasenmt import cli
from phrasenmt.cli import ArgumentParser, command_prog, output_file
from phrasenmt.command import STAGES, render_help

PACKAGE_DIR = Path(__file__).resolve().parent
PAGE = "cli.md"
WIDTH = "88"  # argparse wraps help to $COLUMNS: the same page on every machine
# subcommands a module's main() dispatches before its argparse parser sees them
DISPATCHED = {"translate": ["score"]}
_MAIN_GUARD = 'if __name__ == "__main__"'


def cli_modules(root: Path = PACKAGE_DIR) -> dict[str, str]:
    """`python -m` name -> the module whose `main` it runs, for every command."""
    found: dict[str, str] = {}
    for path in sorted(root.rglob("*.py")):
        parts = ("phrasenmt", *path.relative_to(root).with_suffix("").parts)
        name = ".".join(parts)
        if path.name == "__main__.py":
            found[".".join(parts[:-1])] = _main_of(path, name)
        elif _MAIN_GUARD in path.read_text(encoding="utf-8"):
            found[name] = name
    # a module that a package's __main__ runs is listed under the package's name
    runs = {target for command, target in found.items() if command != target}
    return {command: target for command, target in found.items()
            if command not in runs}


def _main_of(path: Path, name: str) -> str:
    """The module whose `main` a package's __main__.py runs (itself if it
    defines `main`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any(a.name == "main" for a in node.names):
            return node.module or name
    return name


@contextlib.contextmanager
def _captured(command: str) -> Iterator[tuple[io.StringIO, list[argparse.ArgumentParser]]]:
    """stdout, the parsers that parse, a fixed width and `phrasenmt <stage>` as
    the program name."""
    out, parsers = io.StringIO(), []
    parse = argparse.ArgumentParser.parse_known_args

    def record(self, args=None, namespace=None):
        parsers.append(self)
        return parse(self, args, namespace)

    with (mock.patch.object(argparse.ArgumentParser, "parse_known_args", record),
          mock.patch.dict(os.environ, {"COLUMNS": WIDTH}),
          mock.patch.object(cli, "command_progs", True),
          mock.patch.object(sys, "argv", [command]),
          contextlib.redirect_stdout(out)):
        yield out, parsers


def _help(command: str, main: Callable, argv: list[str]
          ) -> tuple[str, list[argparse.ArgumentParser]]:
    """What `main(argv + ["--help"])` prints, and the parsers it built."""
    with _captured(command) as (out, parsers):
        try:
            main([*argv, "--help"])
        except SystemExit:
            pass
    text = out.getvalue().rstrip()
    if not text:
        raise RuntimeError(f"{command} --help printed nothing")
    return text, parsers


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The subparsers of a parser, by name."""
    subs: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            subs.update(action.choices)
    return subs


def command_parsers() -> list[tuple[str, argparse.ArgumentParser]]:
    """(command line, its parser) for every stage, subcommand and subcommand a
    stage dispatches itself."""
    found = []
    for stage, target in STAGES.items():
        command, main = command_prog(stage), importlib.import_module(target).main
        parsers = _help(command, main, [])[1]
        found += [(command, parser) for parser in parsers[:1]]
        found += [(f"{command} {name}", sub) for name, sub in
                  (_subcommands(parsers[0]) if parsers else {}).items()]
        found += [(f"{command} {name}", parser) for name in DISPATCHED.get(stage, [])
                  for parser in _help(command, main, [name])[1][:1]]
    return found


def options_without_help(parser: argparse.ArgumentParser) -> list[str]:
    """The options (and positional arguments) of `parser` that have no help text."""
    return [max(action.option_strings, key=len, default=action.dest)
            for action in parser._actions
            if not isinstance(action, argparse._HelpAction | argparse._SubParsersAction)
            and not action.help]


def command_helps() -> list[tuple[str, str, str]]:
    """(command line, `python -m` form, its --help) for every stage and subcommand."""
    helps = []
    for stage, target in STAGES.items():
        command, module = command_prog(stage), f"python -m phrasenmt.{stage}"
        main = importlib.import_module(target).main
        text, parsers = _help(command, main, [])
        helps.append((command, module, text))
        for name, sub in (_subcommands(parsers[0]) if parsers else {}).items():
            with _captured(command):
                helps.append((f"{command} {name}", f"{module} {name}",
                              sub.format_help().rstrip()))
        for name in DISPATCHED.get(stage, []):
            helps.append((f"{command} {name}", f"{module} {name}",
                          _help(command, main, [name])[0]))
    return helps


def render() -> str:
    """The whole page."""
    helps = command_helps()
    stages = {command_prog(stage) for stage in STAGES}
    lines = ["# Command reference (generated)", "",
             ("Every stage of the workflow is a command you can run by hand, "
              "`phrasenmt <stage>`: the stage's module path with its dots for "
              "spaces, so `phrasenmt evaluate bleu` runs what `python -m "
              "phrasenmt.evaluate.bleu` runs (the form the rules in `rules/*.smk` "
              "call). This page is generated when the site is built from each "
              "command's own `--help` (`phrasenmt.docs_cli`), so it says what the "
              "code does. Commands with subcommands have a section per "
              "subcommand. Every stage takes `--quiet` (errors only) and "
              "`--verbose` (debug lines too). Bad input gives one line and exit "
              "status 1, a usage error exit status 2 ([bad input](bad-input.md))."),
             "", "## `phrasenmt`", "", "```text", render_help(), "```"]
    for cmd, module, text in helps:
        level = "##" if cmd in stages else "###"  # else a subcommand
        lines += ["", f"{level} `{cmd}`", "", f"Also `{module}`.", "",
                  "```text", text, "```"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the page."""
    parser = ArgumentParser(prog="python -m phrasenmt.docs_cli",
                            description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=output_file, required=True,
                        help="Markdown file to write")
    args = parser.parse_args(argv)
    from phrasenmt.io import write_lines
    write_lines(args.out, render().splitlines())
    return 0


if __name__ == "__main__":
    from phrasenmt.io import run_cli
    run_cli(main)
