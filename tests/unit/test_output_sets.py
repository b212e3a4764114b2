"""A command's outputs: never two options on one path, all written or none.

Two output options naming one file would let the second write silently
replace the first; the shared `ArgumentParser` refuses it before any work.
A command that writes several files writes them as one `io.output_set`: a
full disk (or any error) on its last file leaves none of them, and the files
it had written before keep their old contents.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from phrasenmt.cli import ArgumentParser, output_dir, output_file
from phrasenmt.io import InputError, atomic_open, output_set, run_cli, write_all
from tests.unit.fuzz_stages import STAGES, run_stage
from tests.unit.test_fuzz_cli import check_clean_failure, pipeline, snapshot

__all__ = ["pipeline"]  # the fuzz suite's tiny pipeline, built once per module

NO_SPACE = os.strerror(errno.ENOSPC)


def full_disk_at(monkeypatch: pytest.MonkeyPatch, nth: int) -> list[str]:
    """Make the disk 'fill up' when the nth file written is flushed to it.

    Files are told apart by the temp file being fsynced (every atomic write
    fsyncs before its rename); returns the temp names seen, in order.
    """
    real, seen = os.fsync, []

    def fsync(fd: int) -> None:
        name = os.readlink(f"/proc/self/fd/{fd}")
        if name.endswith(".tmp"):
            if name not in seen:
                seen.append(name)
            if seen.index(name) == nth - 1:
                raise OSError(errno.ENOSPC, NO_SPACE)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return seen


# -- io.output_set ---------------------------------------------------------------

def three_files(tmp_path: Path) -> list[Path]:
    """Three targets holding old contents."""
    paths = [tmp_path / f"{name}.txt" for name in ("a", "b", "c")]
    for path in paths:
        path.write_text("old\n", encoding="utf-8")
    return paths


@pytest.mark.parametrize("nth", [1, 2, 3])
def test_a_full_disk_on_any_file_of_a_set_changes_none(tmp_path, monkeypatch, nth):
    paths = three_files(tmp_path)
    full_disk_at(monkeypatch, nth)
    with pytest.raises(OSError) as err:
        write_all([(path, ["new"]) for path in paths])
    assert err.value.filename == str(paths[nth - 1])
    assert err.value.strerror == NO_SPACE
    assert sorted(tmp_path.iterdir()) == paths  # no temp file left
    assert [p.read_text() for p in paths] == ["old\n"] * 3


def test_an_error_after_the_writes_changes_none(tmp_path):
    paths = three_files(tmp_path)
    with pytest.raises(InputError), output_set():
        for path in paths:
            with atomic_open(path) as fh:
                fh.write("new\n")
        raise InputError("a bad value found after the files were written")
    assert sorted(tmp_path.iterdir()) == paths
    assert [p.read_text() for p in paths] == ["old\n"] * 3


def test_nested_sets_rename_when_the_outer_one_ends(tmp_path):
    paths = three_files(tmp_path)
    with output_set():
        with output_set(), atomic_open(paths[0]) as fh:
            fh.write("new\n")
        assert paths[0].read_text() == "old\n"
        with atomic_open(paths[1]) as fh:
            fh.write("new\n")
    assert [p.read_text() for p in paths] == ["new\n", "new\n", "old\n"]


def test_a_failed_rename_leaves_no_half_set(tmp_path, monkeypatch):
    paths = three_files(tmp_path)
    real, calls = os.replace, []

    def replace(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(errno.EACCES, os.strerror(errno.EACCES))
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OSError) as err:
        write_all([(path, ["new"]) for path in paths])
    assert err.value.filename == str(paths[1])
    # the first was renamed already: removed, so no target holds the new set
    # next to an old file; no temp file is left
    assert sorted(tmp_path.iterdir()) == paths[1:]
    assert [p.read_text() for p in paths[1:]] == ["old\n"] * 2


def test_one_file_twice_in_a_set_is_refused(tmp_path):
    (tmp_path / "sub").mkdir()
    target = tmp_path / "a.txt"
    with pytest.raises(InputError, match="written twice by one command"):
        write_all([(target, ["one"]), (tmp_path / "sub" / ".." / "a.txt", ["two"])])
    assert sorted(tmp_path.iterdir()) == [tmp_path / "sub"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_gets_none(tmp_path):
    ok, locked = tmp_path / "ok", tmp_path / "locked"
    ok.mkdir()
    locked.mkdir(mode=0o555)
    try:
        with pytest.raises(OSError) as err:
            write_all([(ok / "a.txt", ["x"]), (locked / "b.txt", ["x"])])
        assert err.value.errno == errno.EACCES
        assert list(ok.iterdir()) == [] and list(locked.iterdir()) == []
    finally:
        locked.chmod(0o755)


def test_a_read_only_folder_met_at_the_last_rename_gets_none(tmp_path, monkeypatch):
    """The same where tests run as root (chmod does not stop root's writes)."""
    paths = three_files(tmp_path)
    real = os.replace

    def replace(src, dst):
        if Path(dst) == paths[2]:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(SystemExit) as code:
        run_cli(lambda argv: write_all([(p, ["new"]) for p in paths]), [])
    assert code.value.code == 1
    assert sorted(tmp_path.iterdir()) == [paths[2]]


# -- the shared parser: two outputs on one path ----------------------------------

def parser() -> ArgumentParser:
    p = ArgumentParser(prog="prog")
    p.add_argument("--out-md", type=output_file)
    p.add_argument("--out-csv", type=output_file)
    p.add_argument("--out-dir", type=output_dir)
    p.add_argument("--more", type=output_file, nargs="*", default=[])
    return p


def usage_error(capsys, argv: list[str]) -> str:
    with pytest.raises(SystemExit) as code:
        parser().parse_args(argv)
    assert code.value.code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    return err


@pytest.mark.parametrize("spelling", ["same", "dotdot", "absolute", "symlink",
                                      "hardlink"])
def test_two_output_options_on_one_file_are_a_usage_error(tmp_path, monkeypatch,
                                                          capsys, spelling):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    first = "r.csv"
    second = {"same": "r.csv", "dotdot": "sub/../r.csv",
              "absolute": str(tmp_path / "r.csv"), "symlink": "link.csv",
              "hardlink": "hard.csv"}[spelling]
    if spelling == "symlink":
        (tmp_path / "link.csv").symlink_to("r.csv")  # dangling until r.csv exists
    if spelling == "hardlink":
        (tmp_path / "r.csv").write_text("old\n", encoding="utf-8")
        os.link(tmp_path / "r.csv", tmp_path / "hard.csv")
    err = usage_error(capsys, ["--out-md", first, "--out-csv", second])
    assert err.startswith("prog: error: --out-md and --out-csv name the same path")


def test_a_file_and_a_folder_output_on_one_path_are_a_usage_error(tmp_path, capsys):
    out = str(tmp_path / "x")
    err = usage_error(capsys, ["--out-md", out, "--out-dir", out])
    assert "--out-md and --out-dir name the same path" in err


def test_one_list_option_naming_a_file_twice_is_a_usage_error(tmp_path, capsys):
    a = str(tmp_path / "a")
    err = usage_error(capsys, ["--more", a, str(tmp_path / "b"), a])
    assert "--more names the same path twice" in err


def test_a_file_inside_a_folder_output_is_allowed(tmp_path):
    args = parser().parse_args(["--out-dir", str(tmp_path / "d"), "--out-md",
                                str(tmp_path / "d" / "MANIFEST")])
    assert args.out_md.parent == args.out_dir


# -- every command -----------------------------------------------------------------

def typed_output_pairs() -> list:
    """(stage, first option, second option): two output options of one command."""
    cases = []
    for stage in STAGES:
        options = [(o, r) for o, r, _ in stage.outputs() if o.startswith("--")]
        if len(options) >= 2:
            cases.append(pytest.param(stage, options[0], options[1],
                                      id=stage.name))
    return cases


# required options that the fuzz templates of commands it does not run leave out
REQUIRED_TOO = {
    "npmt table": ["--seed-eval", "transformer:greedy={r}/eval/transformer/test.json"],
    "context usage table": ["--items", "{r}/items.json", "--scores",
                            "transformer={r}/scores.txt"]}


@pytest.mark.parametrize("stage, first, second", typed_output_pairs())
def test_two_outputs_of_a_command_on_one_file(pipeline, tmp_path, stage, first,
                                              second):
    """Every command with several output options refuses two on one path."""
    out = tmp_path / "out"
    argv = stage.argv(pipeline, out) + [
        a.replace("{r}", str(pipeline)) for a in REQUIRED_TOO.get(stage.name, [])]
    at = argv.index(second[0]) + 1
    argv[at] = str(out / "sub" / ".." / first[1])
    check_clean_failure(stage, argv, pipeline, tmp_path, 2,
                        (f"{first[0]} and {second[0]} name the same path",
                         f"{second[0]} and {first[0]} name the same path"))


SETS_OF_FILES = [s for s in STAGES if s.build and s.name != "train"]


@pytest.mark.parametrize("stage", [pytest.param(s, id=s.name) for s in SETS_OF_FILES])
def test_a_full_disk_on_any_output_leaves_none(pipeline, tmp_path, monkeypatch, stage):
    """A command writing several files: a full disk on any of them leaves none.

    (Training is left out: its checkpoints land one by one, so that a killed
    training resumes from the last.)
    """
    code, err = run_stage(stage, stage.argv(pipeline, tmp_path / "ok"))
    assert code == 0, err
    written = [p for p in (tmp_path / "ok").rglob("*") if p.is_file()]
    if len(written) < 2:
        pytest.skip("writes one file")
    for nth in range(1, len(written) + 1):
        with monkeypatch.context() as patch:
            full_disk_at(patch, nth)
            out = tmp_path / f"full{nth}"
            before = snapshot(pipeline)
            code, err = run_stage(stage, stage.argv(pipeline, out))
        assert code == 1 and "Traceback" not in err, err
        assert len(err.strip().splitlines()) == 1, err
        assert err.startswith(f"error: {out}") and err.endswith(f": {NO_SPACE}\n"), err
        assert ".tmp" not in err, err
        assert [p for p in out.rglob("*") if p.is_file()] == [], (nth, err)
        assert snapshot(pipeline) == before


def test_a_sidecar_output_naming_another_output_writes_nothing(tmp_path, capsys):
    from phrasenmt.data.clean import main as clean_main

    for name, text in (("s.en", "a b c\nd e f\n"), ("s.de", "x y\nz w\n"),
                       ("s.docs", "d1\nd1\n")):
        (tmp_path / name).write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    argv = ["--src-in", str(tmp_path / "s.en"), "--tgt-in", str(tmp_path / "s.de"),
            "--pretokenized", "--src-lang", "en", "--tgt-lang", "de",
            "--sidecar", str(tmp_path / "s.docs"), str(out / "train.en"),
            "--src-out", str(out / "train.en"), "--tgt-out", str(out / "train.de"),
            "--stats", str(out / "stats")]
    with pytest.raises(SystemExit) as code:
        run_cli(clean_main, argv)
    assert code.value.code == 1
    assert capsys.readouterr().err == (f"error: {out / 'train.en'}: written twice by "
                                       "one command: two of its outputs name this file\n")
    assert [p for p in out.rglob("*") if p.is_file()] == []


def test_a_manifest_that_is_a_downloaded_file_is_refused(tmp_path, capsys):
    """A file output inside a folder output is allowed, but not on a file the
    command writes there."""
    from phrasenmt.data.download import main as download_main

    out = tmp_path / "dl"
    manifest = out / "data" / "task1" / ".." / "task1" / "raw" / "train.en.gz"
    with pytest.raises(SystemExit) as code:
        run_cli(download_main, ["--dataset", "multi30k", "--outdir", str(out),
                                "--mirror", str(tmp_path), "--manifest", str(manifest)])
    assert code.value.code == 1
    assert capsys.readouterr().err == (
        f"error: {manifest}: is data/task1/raw/train.en.gz, a file of dataset "
        "multi30k in --outdir; give the manifest a path of its own\n")
    assert not out.exists()


# commands the fuzz pipeline does not run: their own tests' inputs

def discourse_table(tmp: Path, out: Path) -> int:
    from phrasenmt.report import discourse
    from tests.unit.test_discourse_report import _eval

    evals = [_eval(tmp, "sent", "test", 20.0, None), _eval(tmp, "doc", "test", 21.0, 0.2)]
    return discourse.main(["bleu", "--eval", *map(str, evals), "--baseline", "sent",
                           "--order", "sent,doc", *[
                               arg for ext in ("md", "tex", "csv")
                               for arg in (f"--out-{ext}", str(out / f"t.{ext}"))]])


def contrastive_prepare(tmp: Path, out: Path) -> int:
    from phrasenmt.evaluate import contrastive
    from tests.unit.test_contrastive import _lingeval_files, _lingeval_items

    outs = [arg for opt, name in (("--out-items", "items.json"), ("--out-src", "p.src"),
                                  ("--out-tgt", "p.tgt"), ("--out-context", "p.ctx"))
            for arg in (opt, str(out / name))]
    return contrastive.main(["prepare", *_lingeval_files(tmp, _lingeval_items()),
                             "--context", "1", *outs])


@pytest.mark.parametrize("command", [discourse_table, contrastive_prepare])
def test_a_full_disk_on_any_file_of_these_commands_leaves_none(tmp_path, monkeypatch,
                                                               command):
    assert command(tmp_path, tmp_path / "ok") == 0
    files = sorted((tmp_path / "ok").iterdir())
    assert len(files) >= 3
    for nth in range(1, len(files) + 1):
        out = tmp_path / f"full{nth}"
        with monkeypatch.context() as patch, pytest.raises(OSError) as err:
            full_disk_at(patch, nth)
            command(tmp_path, out)
        assert err.value.strerror == NO_SPACE
        assert Path(err.value.filename).parent == out
        assert [p for p in out.rglob("*") if p.is_file()] == []
