"""An option that takes one value is given once: argparse would keep the last
value and silently drop the first (`--out a.json --out b.json`)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from phrasenmt.cli import ArgumentParser, positive_int
from tests import forkrun


def parser() -> ArgumentParser:
    p = ArgumentParser(prog="prog")
    p.add_argument("--beam", type=positive_int, default=4)
    p.add_argument("--files", nargs="+")
    p.add_argument("--side", action="append", default=[])
    p.add_argument("--force", action="store_true")
    sub = p.add_subparsers(dest="command")
    sub.add_parser("run").add_argument("--out")
    return p


@pytest.mark.parametrize("argv, message", [
    (["--beam", "2", "--beam", "3"],
     ("prog: error: argument --beam: given twice ('2' and '3'); give it once "
     "(see --help)")),
    (["--files", "a", "b", "--files", "c"],
     ("prog: error: argument --files: given twice ('a b' and 'c'); give it once "
     "(see --help)")),
    (["run", "--out", "a", "--out=b"],
     ("prog run: error: argument --out: given twice ('a' and 'b'); give it once "
     "(see --help)")),
])
def test_an_option_given_twice_is_a_usage_error(capsys, argv, message):
    with pytest.raises(SystemExit) as done:
        parser().parse_args(argv)
    assert done.value.code == 2
    assert capsys.readouterr().err.strip() == message


def test_repeatable_options_and_flags_may_repeat():
    p = parser()
    args = p.parse_args(["--side", "a", "--side", "b", "--force", "--force"])
    assert args.side == ["a", "b"] and args.force and args.beam == 4
    assert p.parse_args(["--beam", "2"]).beam == 2  # a parser parses again


def test_a_stage_refuses_an_output_given_twice(tmp_path: Path):
    result = forkrun.run(
        [sys.executable, "-m", "phrasenmt.evaluate.aer", "--gold", "g", "--pred",
         "p", "--src", "s", "--tgt", "t", "--out", str(tmp_path / "a.json"),
         "--out", str(tmp_path / "b.json")],
        capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert result.stderr.strip().endswith(
        f"given twice ('{first}' and '{second}'); give it once (see --help)")
    assert not list(tmp_path.iterdir())
