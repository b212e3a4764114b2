"""The data-path A/B (experiments/gpu_ab.py) on the CPU: every variant runs,
agrees with the old path's losses bit for bit, and reports its figures."""

from __future__ import annotations

import json

import pytest


@pytest.mark.slow
def test_the_cpu_form_runs_every_variant_at_loss_parity(tmp_path):
    from experiments import gpu_ab

    out = tmp_path / "ab.json"
    assert gpu_ab.main(["--device", "cpu", "--out", str(out), "--work",
                        str(tmp_path / "work"), "--warmup", "0", "--rounds", "2"]) == 0
    result = json.loads(out.read_text())
    assert result["status"] == "DONE" and list(result["variants"]) == list(gpu_ab.VARIANTS)
    for name, v in result["variants"].items():
        assert v["loss_max_rel_diff"] == 0.0, name  # the same batches, the same sums
        assert v["tokens_per_s"] > 0 and v["ops_per_update"] > 100
        assert set(v["phase_ms"]) == {"data", "compute", "optimizer"}
        assert 0 < v["padding"] < 1 and v["useful_tflops"] > 0


def test_cuda_without_a_gpu_is_one_line(capsys, monkeypatch):
    from experiments import gpu_ab

    monkeypatch.setattr("torch.cuda.is_available", lambda: False)
    with pytest.raises(SystemExit) as stop:
        gpu_ab.parse_args(["--device", "cuda"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1
    assert "--device cuda: torch sees no CUDA device" in err


def test_a_subset_of_variants_keeps_the_baseline(tmp_path):
    from experiments import gpu_ab

    out = tmp_path / "ab.json"
    assert gpu_ab.main(["--device", "cpu", "--out", str(out), "--work",
                        str(tmp_path / "work"), "--warmup", "0", "--rounds", "2",
                        "--variants", "prefetch"]) == 0
    result = json.loads(out.read_text())
    assert list(result["variants"]) == ["baseline", "prefetch"]
    assert result["variants"]["prefetch"]["loss_max_rel_diff"] == 0.0


@pytest.mark.parametrize(("argv", "message"), [
    (["--device", "cpu", "--variants", "baseline"],
     "--variants: name at least one of packed, one_sync, prefetch"),
    (["--device", "cpu", "--preset", "big"], ("--preset: the CPU form runs the tiny "
                                             "preset only"))])
def test_a_choice_that_cannot_run_is_one_line(capsys, argv, message):
    from experiments import gpu_ab

    with pytest.raises(SystemExit) as stop:
        gpu_ab.parse_args(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and message in err


def test_length_buckets_reach_every_variant_and_the_padding_figure(tmp_path):
    from experiments import gpu_ab

    out = tmp_path / "ab.json"
    args = ["--device", "cpu", "--out", str(out), "--warmup", "0", "--rounds", "1",
            "--variants", "prefetch"]
    assert gpu_ab.main([*args, "--work", str(tmp_path / "a")]) == 0
    plain = json.loads(out.read_text())
    assert gpu_ab.main([*args, "--work", str(tmp_path / "b"), "--length-buckets",
                        "16", "32", "64"]) == 0
    padded = json.loads(out.read_text())
    assert padded["length_buckets"] == [16, 32, 64] and plain["length_buckets"] == []
    for name in ("baseline", "prefetch"):  # the same batches, so loss parity holds
        assert padded["variants"][name]["loss_max_rel_diff"] == 0.0
        assert padded["variants"][name]["padding"] > plain["variants"][name]["padding"]
    with pytest.raises(SystemExit):
        gpu_ab.parse_args(["--device", "cpu", "--length-buckets", "32", "16"])
