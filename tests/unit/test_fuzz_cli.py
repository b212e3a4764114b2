"""Fuzz suite: every stage's CLI meets generated bad input cleanly.

For each command of `fuzz_stages.STAGES`, each file it reads, each numeric
option and each output path, hypothesis (derandomized: the same cases on
every run) generates one kind of bad input at a time: binary bytes, UTF-16,
Latin-1, NUL bytes, carriage-return line ends, text cut inside a character,
empty files, folders and missing paths in place of files, mismatched line
counts, truncated or deeply nested or wrongly typed JSON, truncated or random
checkpoints; numbers out of range, in non-ASCII digits, NaN and infinity;
output files that are folders and output folders that are files. Each case
asserts: exit status 1 (2 for a usage error), exactly one line on stderr,
naming the file or the option, no traceback, and no file created or modified
anywhere. A leading UTF-8 byte-order mark is the one change that must be
*handled*: the outputs are the same as without it.

Runs in-process (`phrasenmt.io.run_cli`, what every `__main__` calls; checked
below) on a pipeline built once per pytest run by `fuzz_stages.build`. One
derandomized example per case and no shrinking, so a failure costs one run
of its stage. Measured on the 2-core dev machine, next to a running
workflow: `time pytest -q tests/unit/test_fuzz_cli.py` -> 1499 passed in 41 s
(44 s wall clock, 37 s CPU); a bad `train` input fails in under 0.05 s,
before any model is built.
"""

from __future__ import annotations

import ast
import os
import re
import shlex
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests import shared
from tests.conftest import REPO
from tests.unit.fuzz_stages import STAGES, Stage, build, run_stage

# one derandomized example per case; no shrinking (a failing case re-ran its
# stage dozens of times to shrink one example, which took minutes)
FUZZ = settings(max_examples=1, derandomize=True, database=None, deadline=None,
                phases=[Phase.explicit, Phase.generate],
                suppress_health_check=list(HealthCheck))
TEXT_CLASSES = ("binary", "utf16", "latin1", "nul", "cr", "cut", "empty", "folder",
                "missing")
JSON_CLASSES = ("binary", "nul", "truncated", "nested", "wrong type", "nan", "empty",
                "folder", "missing")
BINARY_CLASSES = ("truncated", "random", "empty", "folder", "missing")
INT_VALUES = ("below", "unicode", "fraction", "word", "blank")
FLOAT_VALUES = ("nan", "inf", "-inf", "1e999", "unicode", "word", "below")


def _build_pipeline(root: Path) -> None:
    root.mkdir()
    build(root)


@pytest.fixture(scope="module")
def pipeline(one_thread) -> Path:
    """Every stage run once on tiny data (one torch thread: the fastest here),
    once per pytest run (tests/shared.py): test_output_sets.py reads the same
    folder, in whichever worker it runs. No test writes in it (each asserts so)."""
    return shared.once("fuzz-pipeline", _build_pipeline)


def kind(root: Path, rel: str) -> str:
    """How a pipeline file may be broken: text, json, binary or dir."""
    path = root / rel
    if path.is_dir():
        return "dir"
    if path.suffix in (".pt", ".bin", ".model"):  # .model: SentencePiece
        return "binary"
    return "json" if path.suffix == ".json" else "text"


def snapshot(*folders: Path) -> dict[str, tuple[int, int]]:
    """(size, mtime) of every file and folder below the folders (os.scandir:
    taken twice per case, over a few hundred files)."""
    seen: dict[str, tuple[int, int]] = {}
    todo = [str(f) for f in folders if os.path.isdir(f)]
    while todo:
        with os.scandir(todo.pop()) as entries:
            for entry in entries:
                stat = entry.stat(follow_symlinks=True)
                seen[entry.path] = (stat.st_size, stat.st_mtime_ns)
                if entry.is_dir(follow_symlinks=False):
                    todo.append(entry.path)
    return seen


def check_clean_failure(stage: Stage, argv: list[str], root: Path, work: Path,
                        status: int, names: tuple[str, ...]) -> None:
    """Run; one line naming one of `names`, the status, nothing written."""
    before = snapshot(root, work)
    code, err = run_stage(stage, argv)
    lines = err.strip().splitlines()
    assert "Traceback" not in err, err
    assert code == status, f"exit {code}: {err}"
    assert len(lines) == 1, err
    assert any(n in lines[0] for n in names), f"{lines[0]!r} names none of {names}"
    assert snapshot(root, work) == before, f"{stage.name} wrote files: {err}"


# -- bad file contents ----------------------------------------------------------

def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True) or [b"x\n"]


def break_text(data: bytes, how: str, draw: Callable) -> bytes:
    """A text file made bad in one way that no reader may accept."""
    lines = _lines(data)
    i = draw(st.integers(0, len(lines) - 1))
    line = lines[i]
    at = draw(st.integers(0, max(0, len(line.rstrip(b"\n")))))
    if how == "binary":
        junk = draw(st.binary(min_size=0, max_size=12))
        return b"".join(lines[:i]) + line[:at] + b"\xff" + junk + line[at:] + b"".join(
            lines[i + 1:])
    if how == "utf16":
        return data.decode("utf-8").encode("utf-16")
    if how == "latin1":
        return b"".join(lines[:i]) + line[:at] + "ä".encode("latin-1") + line[at:] \
            + b"".join(lines[i + 1:])
    if how == "nul":
        return b"".join(lines[:i]) + line[:at] + b"\0" + line[at:] + b"".join(
            lines[i + 1:])
    if how == "cr":  # old Mac line ends: the whole file becomes one line
        return data.replace(b"\n", b"\r", data.count(b"\n") - 1) if data.count(
            b"\n") > 1 else line[:at] + b"\r" + line[at:]
    if how == "cut":  # a copy that stopped inside a multi-byte character
        return data + "é".encode()[:1]
    if how == "cut word":  # a BPE'd line that stops inside a word ("hou@@")
        return b"".join(lines[:i]) + line.rstrip(b"\n") + b"@@\n" + b"".join(
            lines[i + 1:])
    raise ValueError(how)


def break_json(data: bytes, how: str, draw: Callable) -> bytes:
    """A JSON file made bad: cut short, nested too deeply, wrongly typed, NaN."""
    if how in ("binary", "nul"):
        return break_text(data, how, draw)
    if how == "truncated":
        end = data.rstrip().rfind(b"]" if data.lstrip()[:1] == b"[" else b"}")
        return data[:draw(st.integers(1, end))]
    if how == "nested":
        depth = draw(st.integers(10_000, 100_000))
        return b"[" * depth + b"]" * depth
    if how == "wrong type":
        value = draw(st.one_of(st.integers(), st.text(max_size=5).map(repr),
                               st.lists(st.integers(), min_size=1, max_size=3)))
        return str(value).replace("'", '"').encode()
    if how == "nan":
        return b'{"score": NaN, "items": [Infinity]}'
    raise ValueError(how)


def broken_copy(root: Path, work: Path, rel: str, how: str, draw: Callable) -> Path:
    """A copy of pipeline file `rel` under `work`, broken in way `how`."""
    target = work / "bad" / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    if how == "missing":
        return target
    if how == "folder":
        target.mkdir()
        (target / "inside").write_bytes(b"x\n")
        return target
    source = root / rel
    if source.is_dir():  # a folder input: give a file instead
        target.write_bytes(b"not a folder\n")
        return target
    data = source.read_bytes()
    if how == "empty":
        data = b""
    elif kind(root, rel) == "binary":
        data = data[:draw(st.integers(1, len(data) - 1))] if how == "truncated" \
            else draw(st.binary(min_size=1, max_size=64))
    elif kind(root, rel) == "json":
        data = break_json(data, how, draw)
    else:
        data = break_text(data, how, draw)
    target.write_bytes(data)
    return target


def input_cases() -> list[tuple[Stage, str, str]]:
    """(stage, input, class) for every input of every buildable stage."""
    cases = []
    for stage in STAGES:
        if not stage.build:
            continue
        for rel in dict.fromkeys(stage.inputs()):
            classes = {"dir": ("missing", "file"), "binary": BINARY_CLASSES,
                       "json": JSON_CLASSES}.get(_kind_by_name(rel), TEXT_CLASSES)
            cases += [(stage, rel, how) for how in classes
                      if not (how == "empty" and rel in stage.empty_ok)]
            if rel in stage.aligned:
                cases.append((stage, rel, "lines"))
            if rel in stage.whole_words:
                cases.append((stage, rel, "cut word"))
    return cases


def _kind_by_name(rel: str) -> str:
    """`kind` before the pipeline exists (names only), for parametrization."""
    if rel.endswith("/checkpoints"):
        return "dir"
    if rel.endswith((".pt", ".bin", ".model")):
        return "binary"
    return "json" if rel.endswith(".json") else "text"


def params(cases: list[tuple]) -> list:
    """pytest params with readable ids: stage | input or option | class."""
    return [pytest.param(*case, id=" | ".join(
        c.name if isinstance(c, Stage) else str(c) for c in case)) for case in cases]


@pytest.mark.parametrize("stage, rel, how", params(input_cases()))
def test_bad_input_file(pipeline: Path, tmp_path_factory, stage: Stage, rel: str,
                        how: str):
    @FUZZ
    @given(st.data())
    def case(data):
        work = tmp_path_factory.mktemp("work")
        original = str(pipeline / rel)
        if how == "lines":
            bad = work / "bad" / rel
            bad.parent.mkdir(parents=True)
            lines = _lines((pipeline / rel).read_bytes())
            drop = data.draw(st.booleans())
            bad.write_bytes(b"".join(lines[:-1] if drop else lines + lines[-1:]))
            names = (str(bad), *(str(pipeline / a) for a in stage.aligned))
        else:
            bad = broken_copy(pipeline, work, rel, how, data.draw)
            names = (str(bad),)
        argv = [a.replace(original, str(bad)) for a in
                stage.argv(pipeline, work / "out")]
        check_clean_failure(stage, argv, pipeline, work, 1, names)
        shutil.rmtree(work)

    case()


# -- out-of-range or non-ASCII integers in files of integers --------------------

INTEGER_FILES = (".align", ".sym", ".fwd", ".rev", ".fert2", ".fert4", ".phrases")
BAD_INTEGERS = ("huge", "negative", "superscript", "arabic-indic")


def integer_cases() -> list[tuple[Stage, str, str]]:
    """(stage, input, value class) for every input read as integers (a
    `--sidecar` is carried through unread)."""
    cases = []
    for stage in STAGES:
        argv = shlex.split(stage.args)
        carried = {argv[i + 1].removeprefix("{r}/") for i, a in enumerate(argv[:-1])
                   if a == "--sidecar"}
        cases += [(stage, rel, how) for rel in dict.fromkeys(stage.inputs())
                  if stage.build and rel.endswith(INTEGER_FILES)
                  and rel not in carried for how in BAD_INTEGERS]
    return cases


@pytest.mark.parametrize("stage, rel, how", params(integer_cases()))
def test_bad_integer_in_a_file_of_integers(pipeline: Path, tmp_path: Path,
                                           stage: Stage, rel: str, how: str):
    """One id made huge (10^9: an allocation), negative or non-ASCII digits."""
    value = {"huge": "1000000000", "negative": "-1", "superscript": "\u00b2",
             "arabic-indic": "\u0661"}[how]
    text = (pipeline / rel).read_text(encoding="utf-8")
    bad = tmp_path / "bad" / rel
    bad.parent.mkdir(parents=True)
    bad.write_text(re.sub(r"(?<![0-9])1(?![0-9])|[0-9]+", value, text, count=1),
                   encoding="utf-8")
    assert bad.read_text(encoding="utf-8") != text
    argv = [a.replace(str(pipeline / rel), str(bad))
            for a in stage.argv(pipeline, tmp_path / "out")]
    check_clean_failure(stage, argv, pipeline, tmp_path, 1, (str(bad),))


# -- bad option values and output paths ---------------------------------------

def bad_number(how: str, minimum: float | None, draw: Callable) -> str:
    """An option value that must be refused by the option's type."""
    digits = draw(st.sampled_from(["٣", "３", "²", "߃", "𝟑"]))  # int() takes most
    if how == "below":
        return str(int(minimum) - draw(st.integers(1, 10**6)))
    return {"unicode": digits, "fraction": "1.5", "word": "many", "blank": "",
            "nan": draw(st.sampled_from(["nan", "NaN", "-nan"])), "inf": "inf",
            "-inf": "-Infinity", "1e999": "1e999"}[how]


def option_cases() -> list[tuple[Stage, str, str]]:
    """(stage, option, class) for every numeric option of every stage."""
    cases = []
    for stage in STAGES:
        for option, minimum in stage.ints.items():
            cases += [(stage, option, how) for how in INT_VALUES]
        for option, minimum in stage.floats.items():
            cases += [(stage, option, how) for how in FLOAT_VALUES
                      if how != "below" or minimum is not None]
    return cases


def with_option(argv: list[str], option: str, value: str) -> list[str]:
    """argv with `option` set to `value` (replaced, or added at the end)."""
    if option in argv:
        i = argv.index(option)
        return [*argv[:i + 1], value, *argv[i + 2:]]
    return [*argv, option, value]


@pytest.mark.parametrize("stage, option, how", params(option_cases()))
def test_bad_option_value(pipeline: Path, tmp_path_factory, stage: Stage,
                          option: str, how: str):
    @FUZZ
    @given(st.data())
    def case(data):
        work = tmp_path_factory.mktemp("work")
        minimum = stage.ints.get(option, stage.floats.get(option))
        value = bad_number(how, minimum, data.draw)
        argv = with_option(stage.argv(pipeline, work / "out"), option, value)
        check_clean_failure(stage, argv, pipeline, work, 2, (f"argument {option}",))
        shutil.rmtree(work)

    case()


def output_cases() -> list[tuple[Stage, str, str, bool]]:
    """(stage, option, output, is a folder) for every output of every stage."""
    return [(stage, *out) for stage in STAGES for out in stage.outputs()]


@pytest.mark.parametrize("stage, option, rel, folder", params(output_cases()))
def test_output_path_of_the_wrong_kind(pipeline: Path, tmp_path: Path, stage: Stage,
                                       option: str, rel: str, folder: bool):
    out = tmp_path / "out"
    target = out / rel
    target.parent.mkdir(parents=True)
    if folder:  # a folder is wanted: a file is in the way
        target.write_text("a file\n", encoding="utf-8")
    else:  # a file is wanted: a folder is in the way
        target.mkdir()
    argv = stage.argv(pipeline, out)
    # --sidecar IN OUT (nargs=2) has no type: the writer refuses it, exit 1
    status, name = (2, f"argument {option}") if option.startswith("--") else (
        1, str(target))
    check_clean_failure(stage, argv, pipeline, tmp_path, status, (name,))
    if not folder:  # ... or its folder is a file (so are its siblings')
        target.rmdir()
        shutil.rmtree(target.parent)
        target.parent.write_text("a file\n", encoding="utf-8")
        names = [f"argument {o}" for o, r, _ in stage.outputs()
                 if (out / r).parent == target.parent and o.startswith("--")]
        status = 2 if names else 1
        check_clean_failure(stage, argv, pipeline, tmp_path, status,
                            (*names, str(target.parent)))


# -- a byte-order mark is handled, not an error ---------------------------------

BOM_STAGES = ["clean test", "bpe learn", "bpe apply test.en", "translate",
              "lingeval evaluate"]


@pytest.mark.parametrize("name", BOM_STAGES)
def test_a_leading_byte_order_mark_changes_nothing(pipeline: Path, tmp_path: Path,
                                                   name: str):
    stage = next(s for s in STAGES if s.name == name)
    plain, marked = tmp_path / "plain", tmp_path / "marked"
    assert run_stage(stage, stage.argv(pipeline, plain))[0] == 0
    argv = stage.argv(pipeline, marked)
    for rel in stage.inputs():
        if kind(pipeline, rel) in ("text", "json"):
            copy = tmp_path / "bom" / rel
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(b"\xef\xbb\xbf" + (pipeline / rel).read_bytes())
            argv = [a.replace(str(pipeline / rel), str(copy)) for a in argv]
    code, err = run_stage(stage, argv)
    assert code == 0, err
    for path in sorted(p for p in plain.rglob("*") if p.is_file()):
        twin = marked / path.relative_to(plain)
        if path.suffix != ".pt":  # checkpoints hold their data files' hashes
            assert twin.read_bytes() == path.read_bytes(), path.name


# -- an empty file where it is valid input ----------------------------------------

EMPTY_OK_STAGES = [s.name for s in STAGES if s.empty_ok]


@pytest.mark.parametrize("name", EMPTY_OK_STAGES)
def test_an_empty_file_where_it_is_valid_gives_empty_outputs(pipeline: Path,
                                                              tmp_path: Path,
                                                              name: str):
    """The empty-file case the bad-input loop skips (`empty_ok`) must succeed:
    exit 0, nothing on stderr but notes, and every output written, empty."""
    stage = next(s for s in STAGES if s.name == name)
    argv = stage.argv(pipeline, tmp_path / "out")
    for rel in stage.empty_ok:
        empty = tmp_path / "empty" / rel
        empty.parent.mkdir(parents=True, exist_ok=True)
        empty.write_bytes(b"")
        argv = [a.replace(str(pipeline / rel), str(empty)) for a in argv]
    code, err = run_stage(stage, argv)
    assert code == 0 and "error" not in err, err
    for _, rel, _ in stage.outputs():
        assert (tmp_path / "out" / rel).read_bytes() == b"", rel


# -- the suite drives what `python -m` runs ----------------------------------------

def test_every_stage_module_runs_main_through_run_cli():
    """In-process runs are what `python -m` does: each module ends in run_cli(main),
    and the table covers every module that builds an ArgumentParser."""
    modules = {s.module for s in STAGES}
    for path in sorted((REPO / "src" / "phrasenmt").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "ArgumentParser(" not in text or path.name in ("cli.py", "context.py"):
            continue
        rel = path.relative_to(REPO / "src").with_suffix("")
        name = ".".join(rel.parts).removesuffix(".__init__")
        if name in COVERED_BY:  # its parser runs only inside another module's CLI
            assert COVERED_BY[name] in modules, f"{COVERED_BY[name]} not in STAGES"
            continue
        main_file = path.parent / "__main__.py" if path.name == "__init__.py" else path
        tree = ast.parse(main_file.read_text(encoding="utf-8"))
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
                 and getattr(n.func, "id", "") == "run_cli"]
        assert calls, f"{main_file} does not end in run_cli(main)"
        fuzzed = name in modules or f"{name}.__main__" in modules
        assert fuzzed, f"{name} is not in fuzz_stages.STAGES"


# modules whose parser another module's command runs (data.local: `prepare local`)
COVERED_BY = {"phrasenmt.data.local": "phrasenmt.data.prepare",
              "phrasenmt.report.style": "phrasenmt.report.tables"}
