"""Pure helpers of the peers suite (benchmarks/peers.py) and its modules
peer_fairseq.py and peer_ours.py (log parsing, units, flags); no fairseq."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from benchmarks import peer_fairseq, peer_ours
from benchmarks import peers as peer

FAIRSEQ_LOG = """\
2026-11-23 18:11:09 | INFO | fairseq.trainer | begin training epoch 1
2026-11-23 18:11:09 | INFO | train_inner | {"epoch": 1, "update": 0.016, \
"loss": "13.257", "nll_loss": "13.261", "ppl": "9818.37", "wps": "718.3", \
"ups": "0.18", "wpb": "3158", "bsz": "207", "num_updates": "2", "lr": "5e-07"}
2026-11-23 18:11:20 | INFO | train_inner | {"epoch": 1, "update": 0.031, \
"loss": "2", "nll_loss": "1", "wps": "681.7", "num_updates": "4"}
2026-11-23 18:11:20 | INFO | train | {"epoch": 1, "train_loss": "13.26", \
"train_wps": "689.7", "train_num_updates": "4"}
"""

OUR_METRICS = ("step\tloss\tnll\tlr\ttokens_per_s\tdev_loss\n"
               "2\t9.1631\t9.1633\t5.000e-06\t285\t\n"
               "4\t8.7986\t8.7590\t1.000e-05\t207\t8.3419\n")


def test_bits_to_nats() -> None:
    assert peer_fairseq.bits_to_nats(1.0) == pytest.approx(math.log(2))
    assert peer_fairseq.bits_to_nats(13.257) == pytest.approx(9.1890, abs=1e-4)


def test_fairseq_windows_are_the_train_inner_rows_in_nats() -> None:
    rows = peer_fairseq.fairseq_train_windows(FAIRSEQ_LOG)
    assert [r["step"] for r in rows] == [2, 4]  # the epoch summary is not a window
    assert rows[0]["tokens_per_s"] == 718.3
    assert rows[1]["loss"] == pytest.approx(2 * math.log(2))
    assert rows[1]["nll"] == pytest.approx(math.log(2))


def test_our_windows_and_summary() -> None:
    rows = peer_ours.our_train_windows(OUR_METRICS)
    assert rows[1] == {"step": 4, "tokens_per_s": 207.0, "loss": 8.7986,
                       "nll": 8.7590}
    s = peer_ours.summarize_windows(rows, updates=4, interval=2)
    # the first window (warm-up) is left out; the loss is the last window's
    assert s == {"tokens_per_s": 207.0, "loss": 8.7986, "nll": 8.7590, "windows": 1}


def test_summary_rejects_a_run_that_stopped_early() -> None:
    rows = peer_ours.our_train_windows(OUR_METRICS)
    with pytest.raises(peer_ours.BenchmarkError, match="up to 6"):
        peer_ours.summarize_windows(rows, updates=6, interval=2)
    with pytest.raises(peer_ours.BenchmarkError, match="header"):
        peer_ours.our_train_windows("2\t9.1\n")


def test_search_seconds_and_hypotheses() -> None:
    assert peer_ours.search_seconds(10.0, 4.0) == 6.0
    with pytest.raises(peer_ours.BenchmarkError, match="more sentences"):
        peer_ours.search_seconds(4.0, 4.5)
    out = "S-1\tsrc\nH-1\t-1.5\tein Hund\nD-1\t-1.5\tein Hund\nH-0\t-2.0\t\n"
    assert peer_fairseq.fairseq_hypotheses(out) == {1: "ein Hund", 0: ""}


def test_fairseq_flags_follow_our_config() -> None:
    model = {"encoder_layers": 3, "decoder_layers": 2, "d_model": 256, "d_ff": 1024,
             "n_heads": 4, "dropout": 0.3, "attention_dropout": 0.0,
             "activation_dropout": 0.0, "pre_norm": False,
             "share_decoder_embeddings": False, "max_positions": 1024}
    train = {"weight_decay": 0.0, "clip_norm": 0.0, "adam_beta1": 0.9,
             "adam_beta2": 0.98, "adam_eps": 1e-9, "label_smoothing": 0.1,
             "lr": 5e-4, "warmup_steps": 2000, "max_tokens": 4096,
             "max_steps": 60, "log_interval": 10}
    flags = peer_fairseq.fairseq_train_args(model, train)
    pairs = dict(zip(flags[::2], flags[1::2], strict=False))
    assert pairs["--decoder-layers"] == "2" and pairs["--max-update"] == "60"
    assert "(0.9, 0.98)" in flags and "--encoder-normalize-before" not in flags
    assert "--share-decoder-input-output-embed" not in flags
    shared = peer_fairseq.fairseq_train_args({**model, "pre_norm": True,
                                              "share_decoder_embeddings": True},
                                             train)
    assert {"--encoder-normalize-before", "--decoder-normalize-before",
            "--share-decoder-input-output-embed"} <= set(shared)
    with pytest.raises(peer_ours.BenchmarkError, match="clipping"):
        peer_fairseq.fairseq_train_args(model, {**train, "clip_norm": 1.0})


def test_missing_fairseq_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(peer_ours.BenchmarkError, match="--install"):
        peer_fairseq.check_peer(tmp_path / "no-venv")


def test_main_without_fairseq_exits_non_zero_with_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert peer.main(["--venv", str(tmp_path / "no-venv"), "--multi30k",
                      str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "fairseq is missing" in err
    assert not (tmp_path / "no-venv").exists()  # nothing installed silently


def test_summary_takes_the_median_window() -> None:
    rates = [500.0, 1000.0, 280.0, 990.0, 1010.0]  # window 3: another job ran
    rows = [{"step": 10 * (i + 1), "tokens_per_s": r, "loss": 1.0, "nll": 1.0}
            for i, r in enumerate(rates)]
    assert peer_ours.summarize_windows(rows, 50, 10)["tokens_per_s"] == 995.0


def test_decoding_speeds_compare_only_at_similar_lengths() -> None:
    assert peer.comparable_lengths(12.0, 13.0)
    assert not peer.comparable_lengths(0.1, 29.1)  # one model stops at once
    assert not peer.comparable_lengths(0.0, 0.0)


def test_full_length_gives_both_decoders_the_same_minimum_length() -> None:
    mirror = ["--multi30k", "mirror"]
    args = peer.parse_args(["--full-length", "--decode-repeats", "3", *mirror])
    assert peer_ours.full_length(args) == ["--min-len", str(peer_ours.MAX_LEN_B - 1)]
    assert args.decode_repeats == 3
    assert peer_ours.full_length(peer.parse_args(mirror)) == []


def test_the_mirror_is_named_not_assumed(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        peer.parse_args(["--threads", "1"])
    assert stop.value.code == 2
    assert "--multi30k is required" in capsys.readouterr().err


def test_table_gives_the_decoding_ratio_at_full_length_only() -> None:
    trains = {name: [peer_ours.TrainRun(1000.0, 8.8, 8.7, 90.0, Path("c.pt"))]
              for name in ("ours", "fairseq")}
    decodes = {"ours": [peer.DecodeRun(15.0, 24.0, 40.0)],
               "fairseq": [peer.DecodeRun(12.0, 28.0, 20.0)]}  # words differ 2x
    row = [line for line in peer.table(trains, decodes, 30).splitlines()
           if line.startswith("| beam search")]
    assert row == ["| beam search sentences/s | 15.00 | 12.00 | n/a: "
                   + "hypothesis lengths differ |"]
    row = [line for line in peer.table(trains, decodes, 30, full_length=True)
           .splitlines() if line.startswith("| beam search")]
    assert row == ["| beam search sentences/s | 15.00 | 12.00 | 1.25 |"]


def test_against_adds_the_other_checkout_beside_ours_and_fairseq(tmp_path: Path) -> None:
    (tmp_path / "phrasenmt").mkdir()
    args = peer.parse_args(["--multi30k", "m", "--against", str(tmp_path)])
    runs = peer.systems(args.against)
    assert list(runs) == ["ours", "fairseq", peer.BEFORE]
    assert runs[peer.BEFORE][0].keywords == {"src": tmp_path}
    assert peer.systems(None) is peer.SYSTEMS
    env = peer_ours.thread_env(2, tmp_path)
    assert env["PYTHONPATH"].split(":")[0] == str(tmp_path)
    assert env["OMP_NUM_THREADS"] == "2"
    trains = {name: [peer_ours.TrainRun(speed, 8.8, 8.7, 90.0, Path("c.pt"))]
              for name, speed in (("ours", 1300.0), ("fairseq", 1000.0),
                                  (peer.BEFORE, 1100.0))}
    decodes = {name: [peer.DecodeRun(10.0, 20.0, 20.0)] for name in trains}
    lines = peer.table(trains, decodes, 30).splitlines()
    assert lines[0] == ("| measure | ours | fairseq | before | ours / fairseq "
                        "| before / fairseq |")
    assert lines[2] == "| train target tokens/s | 1300 | 1000 | 1100 | 1.30 | 1.10 |"
