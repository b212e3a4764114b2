"""The peers suite's own side and what both sides share: constants, errors, running
commands, data preparation with our CLIs, our training and beam search."""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SRC, TGT = "en", "de"
BEAM, LENPEN = 5, 0.0  # lenpen 0: both rank finished hypotheses by log-probability
# One output cap for every sentence: fairseq's a * src_len + b takes the batch's
# longest source, ours each sentence's own, so a = 0 is the one setting where both
# cut at the same length. Ours reaches </s> at step b (b - 1 tokens before it),
# fairseq at step b + 1: fairseq gets b - 1. 50 is above every test reference
# (at most 35 subwords in the first 300 sentences of test_2016_flickr).
MAX_LEN_B = 50


class BenchmarkError(Exception):
    """A one-line reason why the benchmark cannot go on."""


# -- pure helpers (unit-tested) ------------------------------------------------


def our_train_windows(metrics_tsv: str) -> list[dict]:
    """Rows of our metrics.tsv (step, loss, nll, tokens_per_s), in order."""
    lines = metrics_tsv.splitlines()
    if not lines or not lines[0].startswith("step\tloss\tnll"):
        raise BenchmarkError("metrics.tsv has no header step/loss/nll")
    header = lines[0].split("\t")
    rows = [dict(zip(header, line.split("\t"), strict=True)) for line in lines[1:]]
    return [{"step": int(r["step"]), "tokens_per_s": float(r["tokens_per_s"]),
             "loss": float(r["loss"]), "nll": float(r["nll"])} for r in rows]


def summarize_windows(rows: list[dict], updates: int, interval: int) -> dict:
    """Median tokens/s of the windows after the first; the last window's loss.

    The median, not the mean: a window in which another job took the CPU
    (a shared machine) moves it little.
    """
    steady = [r for r in rows if interval < r["step"] <= updates
              and r["step"] % interval == 0]
    if not steady or rows[-1]["step"] != updates:
        raise BenchmarkError(f"need log rows every {interval} updates up to {updates}; "
                             f"got steps {[r['step'] for r in rows]}")
    last = rows[-1]
    return {"tokens_per_s": statistics.median(r["tokens_per_s"] for r in steady),
            "loss": last["loss"], "nll": last["nll"], "windows": len(steady)}


def search_seconds(wall_all: float, wall_one: float) -> float:
    """Seconds of the search: the run on all sentences minus the one-sentence run."""
    if wall_all <= wall_one:
        raise BenchmarkError(f"decoding all sentences ({wall_all:.1f} s) took no "
                             f"longer than one ({wall_one:.1f} s): use more sentences")
    return wall_all - wall_one


# -- running commands ----------------------------------------------------------


def thread_env(threads: int, src: Path | None = None) -> dict[str, str]:
    """Every timed command's environment: T threads, our (or `src`'s) sources first."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads), PYTHONHASHSEED="0")
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(src or REPO / "src"), os.environ.get("PYTHONPATH")) if p)
    return env


def run(cmd: list[str], what: str, env: dict[str, str] | None = None,
        log: Path | None = None) -> float:
    """Run `cmd` (output to `log` if given) -> wall seconds; one line if it fails."""
    start = time.perf_counter()
    with open(log or os.devnull, "w", encoding="utf-8") as out:
        done = subprocess.run(cmd, check=False, env=env,
                              stdout=out if log else None,
                              stderr=subprocess.STDOUT if log else None)
    if done.returncode != 0:
        raise BenchmarkError(f"{what} failed (exit {done.returncode})"
                             + (f"; see {log}" if log else ""))
    return time.perf_counter() - start


def ours(module: str, *args: str) -> list[str]:
    """`python -m phrasenmt.<module> args` with this interpreter."""
    return [sys.executable, "-m", f"phrasenmt.{module}", *args]


# -- data: Multi30k -> Moses tokens -> joint BPE -> text (ours), binary (fairseq) --


@dataclass
class Data:
    """Where the prepared data lies and how big its vocabularies are."""

    bpe: Path  # {train,valid,test,one}.bpe.{en,de}: BPE'd text (ours)
    bin: Path  # fairseq-preprocess output: same pairs, binarized (fairseq)
    vocab: dict[str, tuple[int, int]]  # side -> (ours, fairseq) types with specials


RAW_SPLITS = {"train": "train", "valid": "val", "test": "test_2016_flickr"}


def read_raw(mirror: Path, split: str, lang: str, limit: int) -> list[str]:
    """The first `limit` lines (0: all) of a Multi30k raw file."""
    path = mirror / "data" / "task1" / "raw" / f"{RAW_SPLITS[split]}.{lang}.gz"
    if not path.is_file():
        raise BenchmarkError(f"{path}: missing; point --multi30k at a Multi30k "
                             f"mirror (the workflow's `mirror:` folder)")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    return lines[:limit] if limit else lines


def tokenize(work: Path, mirror: Path, limits: dict[str, int]) -> Path:
    """Raw splits -> Moses-tokenized text, train filtered, as the workflow does."""
    raw, tok = work / "raw", work / "tok"
    raw.mkdir(parents=True, exist_ok=True)
    for split, limit in limits.items():
        for lang in (SRC, TGT):
            text = read_raw(mirror, split, lang, limit)
            (raw / f"{split}.{lang}").write_text("\n".join(text) + "\n", "utf-8")
        filters = ["--filter", "--max-len", "80", "--max-ratio", "3.0"]
        run(ours("data.clean", *[
            "--src-in", str(raw / f"{split}.{SRC}"), "--tgt-in", str(raw / f"{split}.{TGT}"),
            "--src-out", str(tok / f"{split}.{SRC}"), "--tgt-out", str(tok / f"{split}.{TGT}"),
            "--src-lang", SRC, "--tgt-lang", TGT, "--tokenize",
            "--stats", str(tok / f"{split}.tsv"), *(filters if split == "train" else [])]),
            f"tokenizing {split}", thread_env(1), work / f"clean.{split}.log")
    return tok


def apply_bpe(work: Path, tok: Path, merges: int) -> Path:
    """Learn joint BPE on train (subword-nmt) and segment every split."""
    bpe = work / "bpe"
    bpe.mkdir(exist_ok=True)
    run(ours("bpe", "learn", "--src", str(tok / f"train.{SRC}"),
             "--tgt", str(tok / f"train.{TGT}"), "--merges", str(merges),
             "--codes", str(bpe / "codes"), "--vocab-src", str(bpe / f"vocab.{SRC}"),
             "--vocab-tgt", str(bpe / f"vocab.{TGT}")),
        "learning BPE", thread_env(1), work / "bpe.learn.log")
    for split in RAW_SPLITS:
        for lang in (SRC, TGT):
            run(ours("bpe", "apply", "--codes", str(bpe / "codes"),
                     "--vocab", str(bpe / f"vocab.{lang}"), "--threshold", "1",
                     "--in", str(tok / f"{split}.{lang}"),
                     "--out", str(bpe / f"{split}.bpe.{lang}")),
                f"applying BPE to {split}.{lang}", thread_env(1),
                work / f"bpe.{split}.{lang}.log")
    for lang in (SRC, TGT):  # the one-sentence set that times start-up alone
        first = (bpe / f"test.bpe.{lang}").read_text("utf-8").splitlines()[0]
        (bpe / f"one.bpe.{lang}").write_text(first + "\n", "utf-8")
    return bpe


# -- training ------------------------------------------------------------------


@dataclass
class TrainRun:
    """One training run's measurements and its final checkpoint."""

    tokens_per_s: float  # target tokens/s of the updates: median of the windows
    loss: float  # label-smoothed training loss per target token, last window, nats
    nll: float  # its NLL part, nats
    wall: float  # seconds of the whole command (start-up and saving included)
    checkpoint: Path


def our_spec(args: argparse.Namespace) -> dict:
    """Our `small` preset, one batch of <= max_tokens per update, saving at the end."""
    train = {"max_steps": args.updates, "max_tokens": args.max_tokens,
             "update_tokens": 1, "log_interval": args.log_interval,
             "valid_interval": args.updates, "save_interval": args.updates,
             "keep_last": 1, "average_last": 1}
    return {"arch": "transformer", "preset": "small", "train": train}


def train_ours(args: argparse.Namespace, data: Data, outdir: Path,
               src: Path | None = None) -> TrainRun:
    """`python -m phrasenmt.train` on the BPE'd text, fp32 unless --precision."""
    bpe = data.bpe
    wall = run(ours("train", "--spec", json.dumps(our_spec(args)),
                    "--train-src", str(bpe / f"train.bpe.{SRC}"),
                    "--train-tgt", str(bpe / f"train.bpe.{TGT}"),
                    "--dev-src", str(bpe / f"valid.bpe.{SRC}"),
                    "--dev-tgt", str(bpe / f"valid.bpe.{TGT}"),
                    "--outdir", str(outdir), "--seed", "1",
                    "--threads", str(args.threads), "--device", "cpu",
                    "--precision", args.precision, "--no-progress"),
               "our training", thread_env(args.threads, src), Path(f"{outdir}.log"))
    rows = our_train_windows((outdir / "metrics.tsv").read_text("utf-8"))
    s = summarize_windows(rows, args.updates, args.log_interval)
    checkpoint = outdir / "checkpoints" / f"checkpoint_{args.updates}.pt"
    return TrainRun(s["tokens_per_s"], s["loss"], s["nll"], wall, checkpoint)


# -- decoding ------------------------------------------------------------------


def full_length(args: argparse.Namespace) -> list[str]:
    """`--min-len` for both decoders under --full-length: every hypothesis then
    runs to the cap (MAX_LEN_B - 1 tokens, then </s>) in both."""
    return ["--min-len", str(MAX_LEN_B - 1)] if args.full_length else []


def decode_ours(args: argparse.Namespace, data: Data, checkpoint: Path,
                out: Path, src: Path | None = None) -> tuple[float, float, list[str]]:
    """`python -m phrasenmt.translate` -> (search s, wall s, hypotheses)."""
    walls = []
    for split in ("one", "test"):
        hyps = Path(f"{out}.{split}.txt")
        walls.append(run(ours(
            "translate", "--checkpoint", str(checkpoint),
            "--input", str(data.bpe / f"{split}.bpe.{SRC}"), "--output", str(hyps),
            "--beam", str(BEAM), "--lenpen", str(LENPEN), "--max-len-a", "0",
            "--max-len-b", str(MAX_LEN_B), "--batch-size",
            str(args.decode_batch), "--threads", str(args.threads), "--device", "cpu",
            "--precision", args.precision, *full_length(args)),
            "our translate", thread_env(args.threads, src), Path(f"{out}.{split}.log")))
    lines = hyps.read_text("utf-8").splitlines()
    return search_seconds(walls[1], walls[0]), walls[1], lines
