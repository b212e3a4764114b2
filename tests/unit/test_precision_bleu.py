"""benchmarks/precision_bleu.py: the files it reads and the commands it runs."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "precision_bleu.py"
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
