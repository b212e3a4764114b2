"""The GPU check (python -m tests.gpu.check) on the CPU: its fast path end to end, DDP through the
launcher, and the reporting of what fails or is absent."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.gpu import check as gpu_check
from tests.gpu import ddp as gpu_ddp
from tests.gpu import fairseq_peer as peer
from tests.gpu import families as fam
from tests.gpu.data import Corpus


def test_fast_path_trains_decodes_times_and_summarizes(tmp_path, capsys):
    out = tmp_path / "check"
    # two timed updates after two untimed ones (the path, not the numbers); 20
    # updates on 1,000 pairs: fewer of either and the default search still
    # gives mostly empty lines
    code = gpu_check.main([
        "--device", "cpu", "--out", str(out), "--work", str(tmp_path / "work"),
        "--archs", "transformer",
        "--updates", "20", "--train-size", "1000", "--test-size", "8",
        "--ddp", "off", "--timing", "on", "--timing-size", "tiny",
        "--timing-archs", "transformer", "--warmup", "2", "--timed-updates", "2"])
    printed = capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    [row] = summary["families"]
    assert code == 0 and summary["status"] == "PASS", row
    assert row["status"] == "PASS" and row["updates"] == 20
    assert row["fp32"]["last"] < row["fp32"]["first"]
    assert row["resume"]["rel_diff"] <= fam.RESUME_TOL_CPU
    assert row["bf16"]["dev_rel_diff_to_fp32"] <= fam.BF16_TOL
    assert row["decode"]["greedy_device_vs_cpu"] == 1.0  # both on the CPU
    [timed] = summary["timing"]["rows"]
    assert timed["status"] == "PASS" and timed["tokens_per_s"] > 0
    assert timed["gflop_per_token"] > 0 and timed["mfu"] is None  # no CPU peak
    assert summary["fairseq"] is None  # CUDA only
    assert sorted(p.name for p in out.iterdir()) == ["summary.json", "summary.md"]
    table = (out / "summary.md").read_text()
    assert "| transformer | Transformer | PASS |" in table
    assert printed.rstrip().endswith(table.rstrip().splitlines()[-1])  # table last


def settings(tmp_path: Path, updates: int = 10) -> fam.Settings:
    corpus = Corpus(tmp_path / "data")
    return fam.Settings("cpu", updates, "smaller", corpus, tmp_path / "runs")


def test_ddp_through_the_launcher_follows_one_process(tmp_path):
    from tests.gpu.data import synthetic

    corpus = synthetic(tmp_path / "data", 1, 300, 8, 16)
    s = fam.Settings("cpu", 10, "smaller", corpus, tmp_path / "runs")
    # two ranks, the backend named as the check names it on a node with one GPU
    row = gpu_ddp.check_ddp(s, 2, timeout=300, backend="gloo")
    assert row["status"] == "PASS", row
    assert row["updates"] == 10 and row["max_rel_diff"] <= gpu_ddp.DDP_TOL
    assert row["check"] == "DDP, 2 process(es), gloo"
    assert gpu_ddp.ddp_command(2)[1:5] == ["-m", "torch.distributed.run", "--standalone",
                                       "--nproc-per-node"]


def test_a_failing_architecture_is_one_row_and_fails_the_run(tmp_path):
    s = settings(tmp_path)
    s.corpus.pconmt_error = "PCoNMT inputs: no phrase list"
    row = fam.check_arch("conmt", s)
    assert row["status"] == "FAIL" and row["reason"] == "train: PCoNMT inputs: no phrase list"
    summary = {"families": [row, {"arch": "transformer", "status": "PASS"}],
               "ddp": [], "timing": {"rows": [{"arch": "npmt", "status": "SKIP"}]}}
    assert gpu_check.failures(summary) == ["conmt"]  # skipped is not failed
    (s.workdir / "conmt" / "train.log").write_text("error: x\n")
    gpu_check.keep_logs(s.workdir, tmp_path / "out", ["conmt"])  # a failed row's logs
    assert (tmp_path / "out" / "logs" / "conmt" / "train.log").read_text() == "error: x\n"


def test_a_failing_cli_call_names_its_last_stderr_line(tmp_path):
    def cli(argv):
        print("note: first", file=sys.stderr)
        print("error: data.txt:3: bad line", file=sys.stderr)
        return 1

    with pytest.raises(fam.CheckFailed, match=r"^exit 1: error: data.txt:3: bad line$"):
        fam.call(cli, [], tmp_path / "x.log")
    assert "bad line" in (tmp_path / "x.log").read_text()


def test_unknown_architectures_are_refused():
    with pytest.raises(fam.CheckFailed, match="unknown arch.*nope"):
        fam.architectures(["transformer", "nope"])
    assert "npmt" in fam.architectures(None)


def test_falling_losses_and_their_failures():
    assert fam.check_falling("fp32", [3.0, 2.0, 1.0, 0.5, 0.4], 5)["last"] == 0.4
    with pytest.raises(fam.CheckFailed, match="did not fall"):
        fam.check_falling("fp32", [1.0, 1.0, 1.0, 1.0, 1.0], 5)
    with pytest.raises(fam.CheckFailed, match="non-finite"):
        fam.check_falling("bf16", [3.0, float("nan"), 1.0, 0.5, 0.4], 5)
    with pytest.raises(fam.CheckFailed, match="4 loss rows, expected 5"):
        fam.check_falling("fp32", [3.0, 2.0, 1.0, 0.5], 5)


def test_fairseq_placeholders_raise_when_called(tmp_path):
    assert peer.placeholders(tmp_path, ["sklearn"]) == ["sklearn"]
    assert not (tmp_path / "scipy").exists()
    result = subprocess.run(  # the placeholder comes first on the path
        [sys.executable, "-c", "from sklearn.metrics import f1_score; f1_score([1], [1])"],
        capture_output=True, text=True, check=False, env={"PYTHONPATH": str(tmp_path)})
    assert result.returncode == 1
    assert "RuntimeError: sklearn.metrics.f1_score: sklearn is not installed" in \
        result.stderr


def test_fairseq_without_its_wheels_is_unavailable_not_failed(tmp_path, monkeypatch):
    monkeypatch.setattr(peer, "fairseq_env", lambda shims: {
        **gpu_ddp.subprocess_env(), "PYTHONPATH": str(tmp_path / "empty")})
    result = peer.compare(Corpus(tmp_path), {}, tmp_path / "fs", 0.0,
                          lambda: pytest.fail("ours must not run"))
    assert result["status"] == "unavailable"
    assert "fairseq does not import" in result["reason"]
    assert peer.markdown(result)[0].startswith("fairseq: unavailable:")


FAKE_TRAIN = '''"""Stands in for fairseq_cli.train: checks the flags, logs train_inner rows."""
import json, sys
if __name__ == "__main__":
    args = sys.argv[1:]
    assert "--fp16" in args and args[args.index("--max-tokens") + 1] == "2000", args
    for update in range(2, 13, 2):
        row = {"loss": "3.0", "nll_loss": "2.0", "wps": str(1000 + 100 * update),
               "num_updates": str(update)}
        print("2026-11-26 | INFO | train_inner | " + json.dumps(row))
'''


def test_fairseq_comparison_alternates_and_takes_the_ratio(tmp_path, monkeypatch):
    fake = tmp_path / "fake"
    (fake / "fairseq").mkdir(parents=True)
    (fake / "fairseq" / "__init__.py").write_text("__version__ = '0.0-fake'\n")
    (fake / "fairseq_cli").mkdir()
    (fake / "fairseq_cli" / "__init__.py").write_text("")
    (fake / "fairseq_cli" / "train.py").write_text(FAKE_TRAIN)
    (fake / "fairseq_cli" / "preprocess.py").write_text(
        "import sys; assert '--destdir' in sys.argv\n")
    monkeypatch.setattr(peer, "fairseq_env", lambda shims: {
        **gpu_ddp.subprocess_env(), "PYTHONPATH": f"{fake}:{REPO / 'src'}"})
    ours = iter([{"status": "PASS", "tokens_per_s": 2000},
                 {"status": "PASS", "tokens_per_s": 2200}])
    result = peer.compare(Corpus(tmp_path), {"preset": "tiny", "batch": 2000},
                          tmp_path / "fs", time.perf_counter() + 600, lambda: next(ours))
    assert result["status"] == "ran", result
    assert result["version"] == "0.0-fake"
    # windows after the first: wps 1400 .. 2200, median 1800, in both rounds
    assert result["fairseq_tokens_per_s"] == [1800, 1800]
    assert result["ratio"] == pytest.approx(2100 / 1800, abs=1e-3)
    assert "ratio ours/fairseq 1.167x" in peer.markdown(result)[0]


@pytest.mark.parametrize("replay", [True, False])
def test_timed_updates_replay_the_warm_up_batches(tmp_path, monkeypatch, replay):
    from phrasenmt.training.trainer import Trainer
    from tests.gpu import timing
    from tests.gpu.data import random_tokens

    seen = []
    step = Trainer.train_step

    def recording(self):
        seen.append(self.iterator.state_dict()["position"])
        return step(self)

    monkeypatch.setattr(Trainer, "train_step", recording)
    size = timing.SIZES["tiny"]
    corpus = random_tokens(tmp_path / "data", 200, 50, size["lengths"], 1)
    row = timing.time_arch("transformer", "tiny", corpus, 300, "cpu", tmp_path / "t",
                           None, warmup=3, timed=3, replay=replay)
    assert row["tokens_per_s"] > 0
    # warm-up, the update under the FLOP counter, the timed ones
    assert seen == ([0, 1, 2, 0, 0, 1, 2] if replay else [0, 1, 2, 3, 4, 5, 6])


def test_gpu_profile_on_the_cpu_times_phases_and_lists_operators(tmp_path):
    from benchmarks import gpu_profile

    out = tmp_path / "profile"
    assert gpu_profile.main(["--device", "cpu", "--size", "tiny", "--out", str(out),
                             "--warmup", "1", "--timed-updates", "1",
                             "--profile-updates", "1", "--sdp", "no-cudnn"]) == 0
    result = json.loads((out / "profile.json").read_text())["result"]
    assert result["tokens_per_s"] > 0 and result["sdp"] == "no-cudnn"
    assert set(result["phase_ms_per_update"]) == set(gpu_profile.PHASES)
    assert result["phase_ms_per_update"]["forward_backward"] > 0
    assert result["gpu_busy_share"] is None and result["kernels_per_update"] == 0
    text = (out / "profile.md").read_text()
    assert "| forward_backward |" in text and "Top operators by self CPU time" in text


def test_gpu_profile_bad_counts_are_one_line_naming_the_option(capsys):
    from benchmarks import gpu_profile

    with pytest.raises(SystemExit):
        gpu_profile.parse_args(["--device", "cpu", "--timed-updates", "0"])
    assert "argument --timed-updates: must be >= 1, got 0" in capsys.readouterr().err


def test_gpu_profile_kernel_kinds_and_busy_time():
    from benchmarks import gpu_profile

    assert gpu_profile.kind("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n") == "matmul"
    assert gpu_profile.kind("nvjet_tst_128x64_64x8_1x1_v_bz_coopB_TNN") == "matmul"
    assert gpu_profile.kind("cudnn_generated_fort_native_sdpa_sm90_flash_fprop") == \
        "attention"
    assert gpu_profile.kind("void at::native::multi_tensor_apply_kernel<Adam>") == \
        "optimizer"
    assert gpu_profile.kind("void at::native::vectorized_elementwise_kernel<4>") == \
        "elementwise"
    assert gpu_profile.kind("Memcpy HtoD (Pageable -> Device)") == "copy"
    assert gpu_profile.kind("some_custom_kernel") == "other"
    assert gpu_profile.busy_us([(0, 10), (5, 15), (20, 25), (21, 22)]) == 20
    assert gpu_profile.busy_us([]) == 0


# -- its options: one line for each bad value --------------------------------------

@pytest.mark.parametrize("option, value, message", [
    ("--train-size", "0", "argument --train-size: must be >= 1, got 0"),
    ("--test-size", "-3", "argument --test-size: must be >= 1, got -3"),
    ("--budget-minutes", "nan", "argument --budget-minutes: expected a finite number"),
    ("--budget-minutes", "0", "argument --budget-minutes: must be > 0"),
    ("--peak-tflops", "inf", "argument --peak-tflops: expected a finite number"),
    ("--updates", "8", "argument --updates: must be >= 10, got 8"),
    ("--updates", "11", "argument --updates: must be even, got 11"),
    ("--warmup", "-1", "argument --warmup: must be >= 0, got -1"),
    ("--fairseq-warmup", "1.5", "argument --fairseq-warmup: expected an integer"),
    ("--timed-updates", "0", "argument --timed-updates: must be >= 1, got 0"),
    ("--seed", "٣", "argument --seed: expected an integer (ASCII digits)"),
])
def test_a_bad_number_is_one_usage_line(capsys, option, value, message):
    with pytest.raises(SystemExit) as code:
        gpu_check.parse_args(["--device", "cpu", option, value])
    err = capsys.readouterr().err
    assert code.value.code == 2 and len(err.splitlines()) == 1, err
    assert err.startswith(f"python -m tests.gpu.check: error: {message}"), err


@pytest.mark.parametrize("option", ["--out", "--work"])
def test_a_file_given_as_its_output_folder_is_refused(tmp_path, capsys, option):
    passwd = tmp_path / "passwd"
    passwd.write_text("root:x:0:0\n")
    for given in (passwd, passwd / "sub"):
        with pytest.raises(SystemExit) as code:
            gpu_check.parse_args(["--device", "cpu", option, str(given)])
        err = capsys.readouterr().err
        assert code.value.code == 2 and len(err.splitlines()) == 1, err
        assert f"argument {option}: '{given}'" in err
    assert passwd.read_text() == "root:x:0:0\n"


def test_a_failing_data_command_is_one_line_not_a_silent_exit():
    from phrasenmt.io import InputError
    from tests.gpu.data import quiet

    def cli(argv):
        print("prog: error: argument --train-size: must be >= 1, got 0", file=sys.stderr)
        raise SystemExit(2)

    with pytest.raises(InputError, match=r"must be >= 1, got 0$"):
        quiet(cli, [])


def test_the_summary_pair_is_replaced_together(tmp_path, monkeypatch):
    from tests.unit.test_output_sets import full_disk_at

    summary = {"environment": {"cpu_count": 2, "torch": "x", "cuda": None,
                               "python": "3", "date_utc": "now"},
               "families": [], "timing": None, "fairseq": None, "ddp": [],
               "skipped": [], "status": "RUNNING", "seconds": 0.0}
    gpu_check.write_summary(tmp_path, summary)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    summary["status"] = "PASS"
    full_disk_at(monkeypatch, 2)  # summary.md does not fit
    with pytest.raises(OSError, match="No space left"):
        gpu_check.write_summary(tmp_path, summary)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_a_failed_rank_is_named_by_its_own_error_not_the_launcher_s_rule():
    stderr = "\n".join([
        "[rank1]: Traceback (most recent call last):",
        '[rank1]:   File "trainer.py", line 3, in sum',
        "[rank1]: ValueError: a collective got a tensor on cuda:0, but ...",
        "E1204 failed (exitcode: 1) local_rank: 1",
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
        "=" * 60, "phrasenmt.train FAILED", "=" * 60])
    assert gpu_ddp.rank_error(stderr) == (
        "ValueError: a collective got a tensor on cuda:0, but ...")
    assert gpu_ddp.rank_error("starting\nKilled\n" + "=" * 20) == "Killed"


def test_our_side_of_the_fairseq_comparison_runs_in_a_fresh_process(tmp_path):
    from tests.gpu.data import random_tokens
    from tests.gpu.ours_worker import fresh

    corpus = random_tokens(tmp_path / "data", 200, 50, (3, 8), 1)
    row = fresh(corpus, "tiny", 300, "cpu", tmp_path / "ours", None, 1, 2)
    assert row["status"] == "PASS", row
    assert row["tokens_per_s"] > 0 and row["arch"] == "transformer"
