"""The `phrasenmt` command: every stage under one name, dispatched lazily, and
the same --quiet/--verbose in every stage."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from phrasenmt import cli, command, docs_cli, log
from phrasenmt.evaluate import aer

EXE = Path(sys.executable).with_name("phrasenmt")


def run(*argv: str, script: bool = False) -> subprocess.CompletedProcess:
    """`phrasenmt ARGV` (the console script) or `python -m phrasenmt ARGV`."""
    cmd = [str(EXE)] if script else [sys.executable, "-m", "phrasenmt"]
    return subprocess.run([*cmd, *argv], capture_output=True, text=True, timeout=120,
                          check=False)


@pytest.fixture(autouse=True)
def default_verbosity():
    """A stage run in-process with --quiet leaves the level for the next test."""
    yield
    log.set_verbosity()


def test_every_module_that_runs_as_a_command_is_a_stage():
    """Walks the source tree: a stage module missing from the table fails here."""
    walked = {name.removeprefix("phrasenmt."): target
              for name, target in docs_cli.cli_modules().items() if name != "phrasenmt"}
    assert len(walked) > 40
    assert command.STAGES == walked


def test_the_help_lists_every_stage_and_imports_no_torch():
    code = ("import sys\nfrom phrasenmt.command import main\nmain(['--help'])\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('torch', 'pandas', 'numpy', 'snakemake')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, timeout=120, check=True)
    *page, imported = proc.stdout.splitlines()
    assert imported == "[]"
    listed = [line[2:].split("  ")[0] for line in page
              if line.startswith("  ") and not line.startswith("   ")]
    assert [s.replace(".", " ") for s in command.STAGES] == listed[:len(command.STAGES)]


def test_each_stage_is_listed_with_a_whole_sentence():
    """The listing gives a docstring's first paragraph, not its first line: a first
    line may stop mid-sentence (`... against updates`, `... apply,`)."""
    for module in command.STAGES.values():
        assert command.summary(module).endswith((".", ".)", "?")), module
    assert command.summary("phrasenmt.report.learning_curves_figure") == (
        "Learning-curve figure: training and dev NLL of every model against updates "
        "and against training time.")


def test_the_console_script_and_python_m_give_the_same_list():
    assert EXE.is_file(), "pip install -e . installs the phrasenmt script"
    script, module = run("--help", script=True), run("--help")
    assert script.returncode == module.returncode == 0
    assert script.stdout == module.stdout and "evaluate bleu" in script.stdout


def test_a_stage_help_names_the_command():
    proc = run("train", "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: phrasenmt train [-h] [--quiet | --verbose]")
    assert "--no-progress" in proc.stdout


@pytest.mark.parametrize("argv, message", [
    ([], "phrasenmt: error: give a command (see --help)"),
    (["tran"], ("phrasenmt: error: unknown command 'tran', did you mean "
                "'train' or 'translate'? (see --help)")),
    (["xyzzy"], "phrasenmt: error: unknown command 'xyzzy' (see --help)"),
    (["evaluate", "bleuu"], ("phrasenmt: error: unknown command 'evaluate bleuu', "
                             "did you mean 'evaluate bleu'?; evaluate takes one of:")),
    (["evaluate"], ("phrasenmt: error: evaluate needs a command; evaluate takes "
                    "one of: aer, bleu,")),
    (["evaluate", "blue"], ("phrasenmt: error: unknown command 'evaluate blue', did "
                            "you mean 'evaluate bleu'?; evaluate takes one of:")),
    # a stage's option written before the stage was 'unknown command '--quiet''
    (["--quiet", "evaluate", "bleu", "--hyp", "h"], (
        "phrasenmt: error: --quiet before the command: a command's options follow "
        "its name (phrasenmt evaluate bleu --quiet ...) (see --help)")),
    (["--verbose"], ("phrasenmt: error: --verbose before the command: a command's "
                     "options follow its name (phrasenmt COMMAND --verbose ...)")),
])
def test_a_missing_or_unknown_command_is_a_usage_error(capsys, argv, message):
    assert command.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(message)


def test_a_group_lists_its_commands(capsys):
    assert command.main(["report", "--help"]) == 0
    out = capsys.readouterr().out
    assert "\n  report tables " in out and "\n  evaluate " not in out


def aer_files(tmp_path: Path, pred: str) -> list[str]:
    """aer's arguments on a one-pair corpus whose prediction is `pred`."""
    for name, text in (("src", "a b"), ("tgt", "x y"), ("gold", "0-0 1-1"),
                       ("pred", pred)):
        (tmp_path / name).write_text(text + "\n", encoding="utf-8")
    return [f"--{n}={tmp_path / n}" for n in ("src", "tgt", "gold", "pred")] + [
        f"--out={tmp_path / 'aer.json'}"]


def test_a_stage_error_is_one_line_with_the_command_name(tmp_path):
    proc = run("evaluate", "aer", *aer_files(tmp_path, "0-0 5-5"))
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith(f"error: {tmp_path / 'pred'}:1:")
    usage = run("evaluate", "aer", "--gold")
    assert usage.returncode == 2
    assert usage.stderr.startswith("phrasenmt evaluate aer: error: argument --gold")


def test_quiet_and_verbose_set_the_level_of_every_stage(tmp_path, capsys):
    files = aer_files(tmp_path, "0-0 1-1")
    assert aer.main(files) == 0
    assert capsys.readouterr().err == ""  # aer logs nothing at the default level
    assert aer.main([*files, "--verbose"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("debug: cli: python -m phrasenmt.evaluate.aer: ")
    assert f"out={tmp_path / 'aer.json'}" in err
    assert aer.main([*files, "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    assert json.loads((tmp_path / "aer.json").read_text())["aer"] == 0.0


def test_quiet_silences_a_warning_and_verbose_keeps_it(tmp_path, capsys):
    """clean warns on unsegmented Chinese text; --quiet drops only that line."""
    zh, en = tmp_path / "in.zh", tmp_path / "in.en"
    zh.write_text("我们今天晚上一起去看电影吧朋友们都在等着\n" * 4, encoding="utf-8")
    en.write_text("let us go to the cinema tonight , our friends wait\n" * 4,
                  encoding="utf-8")
    args = ["data", "clean", "--src-in", str(zh), "--tgt-in", str(en),
            "--src-lang", "zh", "--tgt-lang", "en", "--src-out",
            str(tmp_path / "x.zh"), "--tgt-out", str(tmp_path / "x.en"),
            "--stats", str(tmp_path / "x.tsv")]
    assert command.main(args) == 0
    loud = capsys.readouterr().err
    assert f"warning: {zh}: " in loud and "looks unsegmented" in loud
    assert command.main([*args, "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    assert command.main([*args, "--verbose"]) == 0
    verbose = capsys.readouterr().err
    assert f"warning: {zh}: " in verbose
    assert "debug: cli: phrasenmt data clean: " in verbose


def test_quiet_and_verbose_together_are_a_usage_error(capsys):
    with pytest.raises(SystemExit) as done:
        command.main(["align", "--quiet", "symmetrize", "--verbose", "--fwd", "f",
                      "--rev", "r", "--out", "o"])
    assert done.value.code == 2
    assert capsys.readouterr().err.strip() == (
        "phrasenmt align: error: argument --verbose: not allowed with argument "
        "--quiet (see --help)")
    assert not cli.command_progs  # restored after the stage ran


def test_the_formatter_prefixes_warnings_and_debug_lines(capsys):
    logger = log.get_logger("phrasenmt.example")
    log.set_verbosity(verbose=True)
    logger.debug("a detail")
    logger.info("progress")
    logger.warning("a doubt")
    assert capsys.readouterr().err == ("debug: example: a detail\nprogress\n"
                                       "warning: a doubt\n")
    log.set_verbosity(quiet=True)
    logger.warning("a doubt")
    assert capsys.readouterr().err == "" and not log.shows_progress()
    with pytest.raises(ValueError, match="not a phrasenmt module"):
        log.get_logger("numpy")


def test_quiet_hides_the_training_progress_bar(tmp_path, capsys):
    """The bar shows by default, --no-progress hides only it, --quiet everything."""
    from phrasenmt.train import main as train_main
    from tests.unit import test_training as training

    paths = training.reverse_task(tmp_path, 60, 5)
    spec = {"arch": "transformer", "preset": "tiny", "model": training.TINY,
            "train": {"max_steps": 2, "max_tokens": 200, "update_tokens": 100,
                      "save_interval": 2, "valid_interval": 2, "log_interval": 1}}

    def train(name: str, *flags: str) -> str:
        args = training.cli_args(paths, tmp_path / name, spec)
        args.remove("--no-progress")
        assert train_main([*args, *flags]) == 0
        return capsys.readouterr().err

    auto = f"precision: {training.AUTO}"  # what auto picks on this CPU
    shown = train("bar")
    assert "2/2 [" in shown and auto in shown  # tqdm's n/total
    hidden = train("no_bar", "--no-progress")
    assert "2/2 [" not in hidden and auto in hidden
    assert train("quiet", "--quiet") == ""
