"""NAME=FILE lists are checked whole when the options are parsed: a model named
twice (`named_file`) or one run given twice (`named_path`, one entry per seed)
is a usage error naming the option, before any file is read."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from phrasenmt.cli import ArgumentParser, named_file, named_path
from tests import forkrun


def parser() -> ArgumentParser:
    p = ArgumentParser(prog="prog")
    p.add_argument("--scores", type=named_file, nargs="+")
    p.add_argument("--hyp", type=named_path, nargs="+")
    return p


@pytest.mark.parametrize("argv, message", [
    (["--scores", "a=x", "b=y", "a=z"],
     ("prog: error: argument --scores: 'a' is named twice (a=x and a=z); give each "
     "name once (see --help)")),
    (["--hyp", "a=x", "a=y", "a=x"],
     ("prog: error: argument --hyp: a=x is given twice (one run counted twice) "
     "(see --help)")),
    (["--hyp", "a=d/x", "a=d/../d/x"],
     ("prog: error: argument --hyp: a=d/../d/x is given twice (one run counted "
     "twice) (see --help)")),
    (["--scores", "a"], ("prog: error: argument --scores: expected NAME=FILE, got "
     "'a' (see --help)")),
])
def test_a_name_or_run_given_twice_is_a_usage_error(capsys, argv, message):
    with pytest.raises(SystemExit) as done:
        parser().parse_args(argv)
    assert done.value.code == 2
    assert capsys.readouterr().err.strip() == message


def test_names_once_per_option_and_runs_once_per_seed_are_accepted():
    args = parser().parse_args(["--scores", "a=x", "b=x", "--hyp", "a=x", "a=y",
                                "b=x"])
    assert args.scores == [("a", Path("x")), ("b", Path("x"))]
    assert [name for name, _ in args.hyp] == ["a", "a", "b"]


@pytest.mark.parametrize("argv", [
    ["phrasenmt.evaluate.lingeval", "evaluate", "--json", "items.json",
     "--scores", "m=s.txt", "m=s.txt", "--out", "OUT"],
    ["phrasenmt.evaluate.contrastive", "evaluate", "--items", "items.json",
     "--scores", "m=s.txt", "m=t.txt", "--out", "OUT"],
    ["phrasenmt.evaluate.multiword", "--phrases", "p.tsv", "--ref", "r",
     "--hyp", "m=h", "m=h", "--testset", "test", "--out", "OUT"],
    ["phrasenmt.evaluate.length", "--src", "s", "--ref", "r", "--hyp", "m=h",
     "m=g", "--testset", "test", "--out", "OUT"],
    ["phrasenmt.evaluate.cohesion", "score", "--lsa", "l", "--lang", "de", "--docs",
     "d", "--system", "m=h", "m=g", "--out", "OUT"],
])
def test_every_command_with_named_files_refuses_a_repeat(tmp_path: Path,
                                                         argv: list[str]):
    out = tmp_path / "out"
    argv = [str(out) if a == "OUT" else a for a in argv]
    result = forkrun.run([sys.executable, "-m", *argv], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 2, result.stderr
    assert "twice" in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not out.exists()
