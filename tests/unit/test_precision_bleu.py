"""experiments/precision_bleu.py: the files it reads and the commands it runs."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "precision_bleu.py"
spec = importlib.util.spec_from_file_location("precision_bleu", SCRIPT)
pb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pb)


def test_reads_the_workflows_built_files_of_the_dataset(tmp_path):
    p = pb.paths(tmp_path, "multi30k_en_de")
    assert p["train_src"] == tmp_path / "multi30k_en_de/bpe/train.bpe.en"
    assert p["dev_tgt"] == tmp_path / "multi30k_en_de/bpe/dev.bpe.de"
    assert p["test_src"] == tmp_path / "multi30k_en_de/bpe/test.bpe.en"
    assert p["ref"] == tmp_path / "multi30k_en_de/data/test.ref.de"
    assert pb.target_lang("synthetic_de_en") == "en"


def test_both_trainings_differ_only_in_precision_and_folder(tmp_path):
    p = pb.paths(tmp_path, "synthetic_en_de")
    a = pb.train_cmd(p, "transformer", "fp32", tmp_path / "a", 1, 3)
    b = pb.train_cmd(p, "transformer", "bf16", tmp_path / "b", 1, 3)
    diff = [(x, y) for x, y in zip(a, b) if x != y]
    assert diff == [(str(tmp_path / "a"), str(tmp_path / "b")), ("fp32", "bf16")]
    spec = json.loads(a[a.index("--spec") + 1])
    assert spec == {"arch": "transformer", "model": {}, "preset": "tiny", "train": {}}
    assert a[a.index("--seed") + 1] == "3"


def test_missing_built_data_is_one_line(tmp_path):
    out = subprocess.run([sys.executable, str(SCRIPT), "--results", str(tmp_path)],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 1
    missing = tmp_path / "synthetic_en_de/bpe/train.bpe.en"
    assert out.stderr.strip().splitlines() == [
        f"precision_bleu: missing {missing}: build the data first (make run)"]


def test_training_overrides_go_into_the_spec(tmp_path):
    p = pb.paths(tmp_path, "synthetic_en_de")
    cmd = pb.train_cmd(p, "transformer", "bf16", tmp_path, 1, 2,
                       {"max_steps": 2000, "lr_schedule": "linear"})
    spec = json.loads(cmd[cmd.index("--spec") + 1])
    assert spec["train"] == {"max_steps": 2000, "lr_schedule": "linear"}


def test_train_option_must_be_a_json_object(tmp_path):
    for bad in ("[1]", "{max_steps: 2}"):
        out = subprocess.run([sys.executable, str(SCRIPT), "--results", str(tmp_path),
                              "--train", bad], capture_output=True, text=True, check=False)
        assert out.returncode == 2 and "--train" in out.stderr.splitlines()[-1]


def test_report_pairs_bf16_with_fp32_by_seed(tmp_path, capsys):
    import argparse
    for seed in (1, 2):
        (tmp_path / f"seed{seed}").mkdir()
        for dec in ("bf16", "fp32"):
            (tmp_path / f"seed{seed}" / f"bf16_model_{dec}_decode.tok").write_text(
                "a\nb\n" if dec == "bf16" or seed == 1 else "a\nc\n")
    rows = [(1, "fp32", "fp32", 10, 1.0, 5.0, 90.0), (1, "bf16", "bf16", 10, 1.0, 6.0, 90.5),
            (1, "bf16", "fp32", 10, 1.0, 6.0, 90.25), (2, "fp32", "fp32", 10, 1.0, 5.0, 91.0),
            (2, "bf16", "bf16", 10, 1.0, 6.0, 90.5), (2, "bf16", "fp32", 10, 1.0, 6.0, 91.25)]
    args = argparse.Namespace(arch="transformer", dataset="synthetic_en_de", threads=1,
                              train=None, out=tmp_path)
    pb.report(rows, args, ["fp32", "bf16"])
    out = capsys.readouterr().out
    assert "mean BLEU fp32 model, fp32 decode over seeds 1 2: 90.50 (sd 0.71" in out
    assert ("BLEU bf16 model, bf16 decode - fp32, paired by seed: +0.50 -0.50; "
            "mean +0.00 (sd 0.71, standard error 0.50)") in out
    assert "paired by seed: +0.25 +0.25; mean +0.25 (sd 0.00" in out
    assert "seed 1: bf16 model, bf16 vs fp32 decode: 2/2 identical" in out
    assert "seed 2: bf16 model, bf16 vs fp32 decode: 1/2 identical" in out
