"""experiments/precision_by_family.py: the run's train commands, rerun short in
both precisions."""

from __future__ import annotations

import importlib.util
import json
import shlex
from pathlib import Path

import pytest

from tests.unit.test_training import reverse_task

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "precision_by_family.py"
spec = importlib.util.spec_from_file_location("precision_by_family", SCRIPT)
pbf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pbf)


def fake_run(tmp_path: Path) -> Path:
    """A run folder whose Snakemake log holds one tiny training and its control."""
    (tmp_path / "data").mkdir()
    paths = reverse_task(tmp_path / "data", 40, 5)
    spec = {"arch": "transformer", "preset": "tiny", "train": {"max_steps": 500},
            "model": {"d_model": 16, "d_ff": 32, "n_heads": 2, "encoder_layers": 1,
                      "decoder_layers": 1}}
    cmd = ["python", "-m", "phrasenmt.train", "--spec", json.dumps(spec),
           "--train-src", str(paths.train_src), "--train-tgt", str(paths.train_tgt),
           "--dev-src", str(paths.dev_src), "--dev-tgt", str(paths.dev_tgt),
           "--outdir", "results/x/models/transformer/seed1", "--seed", "1",
           "--threads", "1", "--precision", "auto", "--no-progress"]
    # as the rules print it (`exec`), and as runs before that printed it
    line = "Shell command: exec " + shlex.join(cmd) + " > results/logs/x.log 2>&1"
    other = line.replace("seed1", "seed2").replace("exec ", "")  # a control or seed
    log = tmp_path / "run" / ".snakemake" / "log" / "2026-12-04T000000.snakemake.log"
    log.parent.mkdir(parents=True)
    log.write_text(f"rule train:\n{line}\nrule train:\n{other}\n")
    return tmp_path / "run"


def test_first_command_per_arch_rerun_short_in_both_precisions(tmp_path, capsys):
    run = fake_run(tmp_path)
    commands = pbf.train_commands(run)
    assert list(commands) == ["transformer"]
    assert "seed1" in " ".join(commands["transformer"])  # the first one
    out = tmp_path / "out.json"
    assert pbf.main([str(run), "--steps", "2", "--rounds", "1", "--out", str(out)]) == 0
    row = json.loads(out.read_text())["seconds"]["transformer"]
    assert row["fp32"] > 0 and row["bf16"] > 0
    assert row["bf16_over_fp32"] == pytest.approx(row["bf16"] / row["fp32"], abs=0.005)
    assert capsys.readouterr().out.startswith("transformer: ")


def test_an_arch_that_did_not_train_is_one_line(tmp_path):
    run = fake_run(tmp_path)
    with pytest.raises(SystemExit, match="--archs: npmt did not train"):
        pbf.main([str(run), "--archs", "npmt"])
    with pytest.raises(SystemExit, match="no phrasenmt.train command"):
        pbf.main([str(tmp_path)])
