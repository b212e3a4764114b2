"""The peers suite's fairseq side: its own virtual environment (install, check), and
the fairseq-preprocess, fairseq-train and fairseq-generate commands and logs."""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import peer_ours as ours

# In this order: torch first (a local CPU wheel; after fairseq pip would pull a
# CUDA build), then fairseq's build requirements, then fairseq without build
# isolation, so that it builds against the torch and numpy installed here.
INSTALL_STEPS = (
    ["torch==2.13.0"],
    ["cython", "numpy", "setuptools", "wheel"],
    ["--no-build-isolation", "fairseq-fixed"],
)


# -- pure helpers (unit-tested) ------------------------------------------------


def bits_to_nats(value: float) -> float:
    """A loss in base 2 (fairseq's logs) -> natural log units (ours)."""
    return value * math.log(2)


def fairseq_train_windows(log: str) -> list[dict]:
    """fairseq-train's `--log-format json` train_inner rows, in order."""
    rows = []
    for line in log.splitlines():
        start = line.find("{")
        if "| train_inner |" not in line or start < 0:
            continue
        row = json.loads(line[start:])
        rows.append({"step": int(row["num_updates"]), "tokens_per_s": float(row["wps"]),
                     "loss": bits_to_nats(float(row["loss"])),
                     "nll": bits_to_nats(float(row["nll_loss"]))})
    return rows


def fairseq_hypotheses(output: str) -> dict[int, str]:
    """fairseq-generate's `H-<id>\\tscore\\ttext` lines -> {id: text}."""
    hyps = {}
    for line in output.splitlines():
        if line.startswith("H-"):
            ident, _, text = (line[2:].split("\t") + ["", ""])[:3]
            hyps[int(ident)] = text
    return hyps


# -- fairseq's own environment -------------------------------------------------


def install_peer(venv: Path) -> float:
    """Create `venv` and install torch, then fairseq-fixed, into it -> seconds."""
    start, python = time.perf_counter(), venv / "bin" / "python"
    if not python.exists():
        ours.run([sys.executable, "-m", "venv", str(venv)], "creating " + str(venv))
    pip = [str(python), "-m", "pip", "install"]
    for step in INSTALL_STEPS:
        print("pip install " + " ".join(step), flush=True)
        ours.run(pip + step, "pip install " + " ".join(step))
    check_peer(venv)
    return time.perf_counter() - start


def check_peer(venv: Path) -> str:
    """fairseq's version in `venv`, or one line saying how to install it."""
    python = venv / "bin" / "python"
    found = python.exists() and subprocess.run(
        [str(python), "-c", "import fairseq; print(fairseq.__version__)"],
        check=False, capture_output=True, text=True)
    if not found or found.returncode != 0:
        raise ours.BenchmarkError(
            f"fairseq is missing from {venv}: run `python -m benchmarks.speed --suite "
            f"peers --install` (a venv with torch==2.13.0, then fairseq-fixed; minutes)")
    return found.stdout.strip()


# -- data: the BPE'd text, binarized -------------------------------------------


def binarize(work: Path, bpe: Path, venv: Path) -> Path:
    """fairseq-preprocess: one dictionary per side, built from train as ours is."""
    out = work / "bin"
    ours.run([str(venv / "bin" / "fairseq-preprocess"), "--source-lang", ours.SRC,
         "--target-lang", ours.TGT, "--trainpref", str(bpe / "train.bpe"),
         "--validpref", str(bpe / "valid.bpe"),
         "--testpref", f"{bpe / 'test.bpe'},{bpe / 'one.bpe'}",
         "--destdir", str(out), "--workers", "1", "--padding-factor", "1"],
        "fairseq-preprocess", ours.thread_env(1), work / "preprocess.log")
    return out


# -- training ------------------------------------------------------------------


def fairseq_train_args(model: dict, train: dict) -> list[str]:
    """fairseq-train flags for our resolved model and training config."""
    if train["weight_decay"] or train["clip_norm"] or model["attention_dropout"] \
            or model["activation_dropout"]:
        raise ours.BenchmarkError("the flags below assume no weight decay, clipping or "
                             "attention/activation dropout")
    sizes = []
    for side, layers in (("encoder", "encoder_layers"), ("decoder", "decoder_layers")):
        sizes += [f"--{side}-layers", str(model[layers]),
                  f"--{side}-embed-dim", str(model["d_model"]),
                  f"--{side}-ffn-embed-dim", str(model["d_ff"]),
                  f"--{side}-attention-heads", str(model["n_heads"])]
        if model["pre_norm"]:
            sizes.append(f"--{side}-normalize-before")
    if model["share_decoder_embeddings"]:
        sizes.append("--share-decoder-input-output-embed")
    betas = f"({train['adam_beta1']}, {train['adam_beta2']})"
    return ["--task", "translation", "--source-lang", ours.SRC,
            "--target-lang", ours.TGT,
            "--arch", "transformer", *sizes, "--dropout", str(model["dropout"]),
            "--attention-dropout", "0", "--activation-dropout", "0",
            "--max-source-positions", str(model["max_positions"]),
            "--max-target-positions", str(model["max_positions"]),
            "--criterion", "label_smoothed_cross_entropy",
            "--label-smoothing", str(train["label_smoothing"]),
            "--optimizer", "adam", "--adam-betas", betas,
            "--adam-eps", str(train["adam_eps"]), "--weight-decay", "0",
            "--clip-norm", "0", "--lr", str(train["lr"]),
            "--lr-scheduler", "inverse_sqrt",
            "--warmup-updates", str(train["warmup_steps"]),
            "--max-tokens", str(train["max_tokens"]), "--update-freq", "1",
            "--required-batch-size-multiple", "1",
            "--max-update", str(train["max_steps"]),
            "--log-interval", str(train["log_interval"])]


def train_fairseq(args: argparse.Namespace, data: ours.Data,
                  outdir: Path) -> ours.TrainRun:
    """fairseq's `transformer` with the same sizes, batches and schedule."""
    from phrasenmt.training.spec import resolve_spec  # torch: only when running

    spec = resolve_spec(ours.our_spec(args)).to_dict()  # the preset's values filled in
    cmd = [str(args.venv / "bin" / "fairseq-train"), str(data.bin),
           *fairseq_train_args(spec["model"], spec["train"]), "--cpu",
           "--num-workers", "0", "--seed", "1", "--disable-validation",
           "--save-dir", str(outdir), "--save-interval", "1000000",
           "--no-epoch-checkpoints", "--log-format", "json"]
    log = Path(f"{outdir}.log")
    wall = ours.run(cmd, "fairseq-train", ours.thread_env(args.threads), log)
    rows = fairseq_train_windows(log.read_text("utf-8"))
    s = ours.summarize_windows(rows, args.updates, args.log_interval)
    return ours.TrainRun(s["tokens_per_s"], s["loss"], s["nll"], wall,
                    outdir / "checkpoint_last.pt")


# -- decoding ------------------------------------------------------------------


def decode_fairseq(args: argparse.Namespace, data: ours.Data, checkpoint: Path,
                   out: Path) -> tuple[float, float, list[str]]:
    """fairseq-generate (subset test1 is test's first line) -> the same."""
    # fairseq 0.12's checkpoints hold an argparse.Namespace, which torch >= 2.6's
    # default torch.load(weights_only=True) refuses; torch's documented switch
    # loads in full the checkpoint the benchmark just wrote.
    env = {**ours.thread_env(args.threads), "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "1"}
    walls = []
    for subset in ("test1", "test"):
        walls.append(ours.run([
            str(args.venv / "bin" / "fairseq-generate"), str(data.bin), "--path",
            str(checkpoint), "--task", "translation", "--source-lang", ours.SRC,
            "--target-lang", ours.TGT, "--gen-subset", subset, "--beam", str(ours.BEAM),
            "--nbest", "1", "--lenpen", str(ours.LENPEN), "--max-len-a", "0",
            "--max-len-b", str(ours.MAX_LEN_B - 1), "--batch-size",
            str(args.decode_batch), "--required-batch-size-multiple", "1", "--cpu",
            "--num-workers", "0", "--remove-bpe", *ours.full_length(args)],
            "fairseq-generate", env, Path(f"{out}.{subset}.log")))
    hyps = fairseq_hypotheses(Path(f"{out}.test.log").read_text("utf-8"))
    lines = [hyps[i] for i in sorted(hyps)]
    return ours.search_seconds(walls[1], walls[0]), walls[1], lines
