"""The `phrasenmt` command: every stage of the workflow under one name.

`phrasenmt evaluate bleu ARGS` runs what `python -m phrasenmt.evaluate.bleu
ARGS` runs: a stage's command is its module path after `phrasenmt.`, dots
written as spaces. Only the stage that is called is imported, so `phrasenmt
--help` starts fast and imports no torch. Each stage takes `--help`, `--quiet`
and `--verbose` after its name.
"""

from __future__ import annotations

import ast
import difflib
import importlib
import sys
import textwrap
import tokenize
from pathlib import Path

from phrasenmt import __version__, cli
from phrasenmt.io import run_cli

PACKAGE_DIR = Path(__file__).resolve().parent
# stage (module path after `phrasenmt.`) -> the module whose `main` it runs
STAGES: dict[str, str] = {
    "align": "phrasenmt.align.__main__",
    "average": "phrasenmt.average",
    "bpe": "phrasenmt.bpe",
    "config_check": "phrasenmt.config_check",
    "config_schema": "phrasenmt.config_schema",
    "data.clean": "phrasenmt.data.clean",
    "data.detokenize": "phrasenmt.data.detokenize",
    "data.download": "phrasenmt.data.download",
    "data.prepare": "phrasenmt.data.prepare",
    "data.stats": "phrasenmt.data.stats",
    "docs_cli": "phrasenmt.docs_cli",
    "docs_reference": "phrasenmt.docs_reference",
    "embeddings": "phrasenmt.embeddings",
    "evaluate.aer": "phrasenmt.evaluate.aer",
    "evaluate.bleu": "phrasenmt.evaluate.bleu",
    "evaluate.cohesion": "phrasenmt.evaluate.cohesion",
    "evaluate.contrastive": "phrasenmt.evaluate.contrastive",
    "evaluate.cxmi": "phrasenmt.evaluate.cxmi",
    "evaluate.fertility": "phrasenmt.evaluate.fertility",
    "evaluate.gates": "phrasenmt.evaluate.gates",
    "evaluate.length": "phrasenmt.evaluate.length",
    "evaluate.lingeval": "phrasenmt.evaluate.lingeval",
    "evaluate.multiseed": "phrasenmt.evaluate.multiseed",
    "evaluate.multiword": "phrasenmt.evaluate.multiword",
    "evaluate.pronouns": "phrasenmt.evaluate.pronouns",
    "evaluate.reordering": "phrasenmt.evaluate.reordering",
    "evaluate.segments": "phrasenmt.evaluate.segments",
    "fertility": "phrasenmt.fertility",
    "lm": "phrasenmt.lm",
    "parse": "phrasenmt.parse",
    "phrases": "phrasenmt.phrases",
    "report.ablation": "phrasenmt.report.ablation",
    "report.claims": "phrasenmt.report.claims",
    "report.cleaning": "phrasenmt.report.cleaning",
    "report.context_usage": "phrasenmt.report.context_usage",
    "report.continuous": "phrasenmt.report.continuous",
    "report.discourse": "phrasenmt.report.discourse",
    "report.figures": "phrasenmt.report.figures",
    "report.gates": "phrasenmt.report.gates",
    "report.learning_curves": "phrasenmt.report.learning_curves",
    "report.learning_curves_figure": "phrasenmt.report.learning_curves_figure",
    "report.npmt": "phrasenmt.report.npmt",
    "report.segments": "phrasenmt.report.segments",
    "report.tables": "phrasenmt.report.tables",
    "report.training_runs": "phrasenmt.report.training_runs",
    "segment": "phrasenmt.segment",
    "synthetic": "phrasenmt.synthetic.corpus",
    "train": "phrasenmt.train",
    "train_fertility": "phrasenmt.train_fertility",
    "translate": "phrasenmt.translate",
    "translate_text": "phrasenmt.translate_text",
}
WIDTH = 88
USAGE = "usage: phrasenmt [-h] [--version] COMMAND ... [--help | ARGS]"


def summary(module: str) -> str:
    """The first paragraph of a module's docstring as one line (a first line alone
    may stop mid-sentence), read without importing the module."""
    relative = Path(*module.split(".")[1:])
    path = PACKAGE_DIR / relative.with_suffix(".py")
    if not path.is_file():
        path = PACKAGE_DIR / relative / "__init__.py"
    with path.open(encoding="utf-8") as fh:
        for token in tokenize.generate_tokens(fh.readline):
            if token.type == tokenize.STRING:
                return " ".join(ast.literal_eval(token.string).strip().split("\n\n")[0].split())
            if token.type not in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING):
                break
    return ""


def render_help(prefix: tuple[str, ...] = ()) -> str:
    """The command list (those under `prefix`, e.g. `evaluate`), one entry each."""
    names = [name for name in STAGES if tuple(name.split("."))[:len(prefix)] == prefix]
    width = max(len(name) for name in names) + 4
    lines = [USAGE, "", (__doc__ or "").splitlines()[0], "", "commands:"]
    for name in names:
        lines += textwrap.wrap(summary(STAGES[name]), WIDTH,
                               initial_indent=f"  {name.replace('.', ' '):<{width - 2}}",
                               subsequent_indent=" " * width)
    lines += ["", "options:", "  -h, --help  show this help message and exit",
              "  --version   print the version and exit", "",
              *textwrap.wrap("`phrasenmt COMMAND --help` shows a command's options; "
                             "`python -m phrasenmt.<stage>` runs the same code, a "
                             "stage's module path with its dots for spaces.", WIDTH)]
    return "\n".join(lines)


def _error(message: str) -> int:
    """One usage-error line, exit status 2, as every stage's parser does."""
    sys.stderr.write(f"phrasenmt: error: {message} (see --help)\n")
    return 2


def find_stage(argv: list[str]) -> tuple[str | None, int]:
    """The stage named by argv's first words (the longest match) and their count."""
    for count in range(len(argv), 0, -1):
        if ".".join(argv[:count]) in STAGES:
            return ".".join(argv[:count]), count
    return None, 0


def main(argv: list[str] | None = None) -> int:
    """Run the stage that argv names with the rest of argv."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] in (["-h"], ["--help"]):
        print(render_help())
        return 0
    if argv[:1] == ["--version"]:
        print(f"phrasenmt {__version__}")
        return 0
    if not argv:
        return _error("give a command")
    stage, count = find_stage(argv)
    if stage is None:
        return _not_a_stage(argv)
    before, cli.command_progs = cli.command_progs, True  # usage reads `phrasenmt <stage>`
    try:
        return importlib.import_module(STAGES[stage]).main(argv[count:])
    finally:
        cli.command_progs = before


def _not_a_stage(argv: list[str]) -> int:
    """A group's help (`phrasenmt evaluate --help`), or a usage error."""
    first, rest = argv[0], argv[1:2]
    if first.startswith("-"):  # `phrasenmt --quiet train ...`
        stage, _ = find_stage(argv[1:])
        name = stage.replace(".", " ") if stage else "COMMAND"
        return _error(f"{first} before the command: a command's options follow its "
                      f"name (phrasenmt {name} {first} ...)")
    under = [name.split(".", 1)[1].replace(".", " ") for name in STAGES
             if name.startswith(f"{first}.")]
    if not under:
        tops = sorted({name.split(".", 1)[0] for name in STAGES})
        return _error(f"unknown command {first!r}{_did_you_mean(first, tops)}")
    if rest in (["-h"], ["--help"]):
        print(render_help((first,)))
        return 0
    if not rest:
        return _error(f"{first} needs a command; {first} takes one of: {', '.join(under)}")
    return _error(f"unknown command '{first} {rest[0]}'"
                  f"{_did_you_mean(rest[0], [u.split()[0] for u in under], first)}; "
                  f"{first} takes one of: {', '.join(under)}")


def _did_you_mean(word: str, names: list[str], group: str = "") -> str:
    """', did you mean 'train' or 'translate'?' for the known names closest to
    a misspelt one (at most three), or nothing when none is close."""
    close = difflib.get_close_matches(word, names, n=3, cutoff=0.6)
    named = [f"'{' '.join(filter(None, (group, name)))}'" for name in close]
    return f", did you mean {' or '.join(named)}?" if named else ""


def run() -> None:
    """The console script: bad input is one `error:` line, exit status 1."""
    run_cli(main)
