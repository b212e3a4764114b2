"""Our Transformer vs fairseq's, side by side: training and beam-search speed.

Both train on the same Multi30k en-de pairs with the same joint BPE (subword-nmt,
as the workflow makes it), the same architecture (our `small` preset), batch
size (`--max-tokens`, one batch per update), threads and number of updates, in
fp32 on the CPU; runs alternate (ours, fairseq, ours, ...). Then each run's
checkpoint beam-searches the same test sentences (beam 5, ranking by the raw
log-probability: lenpen 0 means the same in both). fairseq is not a dependency
of the project: `--install` puts it into its own virtual environment.

    python benchmarks/peer_speed.py --install       # once: torch, then fairseq-fixed
    python benchmarks/peer_speed.py --threads 1     # ~10 minutes, quiet 2-core CPU
    python benchmarks/peer_speed.py --updates 400 --log-interval 50 --rounds 3

Training speed is target tokens (</s> included, padding not) per second of the
updates, the median over the log windows after the first (the first holds the
warm-up): ours from metrics.tsv (seconds inside the update: batch, forward,
backward, Adam), fairseq from its `train_inner` log lines (wps: wall time of the
window's loop, data loading included). The loss is each tool's label-smoothed
training loss per target token over the last log window, in nats (fairseq
logs base 2). Decoding is sentences per second of the search alone: the
wall time of the command on all test sentences minus its wall time on one
sentence (start-up, imports and model loading cancel out, for both alike); the
ratio is left out when the mean hypothesis lengths differ by more than 25%.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_VENV = REPO / "benchmarks" / ".peer-venv"
DEFAULT_MULTI30K = REPO.parent / "shared" / "data" / "multi30k"
SRC, TGT = "en", "de"
# In this order: torch first (a local CPU wheel; after fairseq pip would pull a
# CUDA build), then fairseq's build requirements, then fairseq without build
# isolation, so that it builds against the torch and numpy installed here.
INSTALL_STEPS = (
    ["torch==2.13.0"],
    ["cython", "numpy", "setuptools", "wheel"],
    ["--no-build-isolation", "fairseq-fixed"],
)
BEAM, LENPEN = 5, 0.0  # lenpen 0: both rank finished hypotheses by log-probability
# One output cap for every sentence: fairseq's a * src_len + b takes the batch's
# longest source, ours each sentence's own, so a = 0 is the one setting where both
# cut at the same length. Ours reaches </s> at step b (b - 1 tokens before it),
# fairseq at step b + 1: fairseq gets b - 1. 50 is above every test reference
# (at most 35 subwords in the first 300 sentences of test_2016_flickr).
MAX_LEN_B = 50


class BenchmarkError(Exception):
    """A one-line reason why the benchmark cannot go on."""


# -- pure helpers (unit-tested) -------------------------------------------------


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


def comparable_lengths(ours_words: float, fairseq_words: float,
                       tolerance: float = 0.25) -> bool:
    """Whether mean hypothesis lengths are within `tolerance` of each other.

    Sentences per second only compare decoders that write outputs of about the
    same length; barely trained models may stop at once or run to the cap.
    """
    longer = max(ours_words, fairseq_words)
    return longer > 0 and abs(ours_words - fairseq_words) <= tolerance * longer


def fairseq_hypotheses(output: str) -> dict[int, str]:
    """fairseq-generate's `H-<id>\\tscore\\ttext` lines -> {id: text}."""
    hyps = {}
    for line in output.splitlines():
        if line.startswith("H-"):
            ident, _, text = (line[2:].split("\t") + ["", ""])[:3]
            hyps[int(ident)] = text
    return hyps


# -- fairseq's own environment ----------------------------------------------------


def peer_bin(venv: Path, name: str) -> Path:
    """An executable of the peer environment."""
    return venv / "bin" / name


def install_peer(venv: Path) -> float:
    """Create `venv` and install torch, then fairseq-fixed, into it -> seconds."""
    start = time.perf_counter()
    if not peer_bin(venv, "python").exists():
        run([sys.executable, "-m", "venv", str(venv)], "creating " + str(venv))
    pip = [str(peer_bin(venv, "python")), "-m", "pip", "install"]
    for step in INSTALL_STEPS:
        print("pip install " + " ".join(step), flush=True)
        run(pip + step, "pip install " + " ".join(step))
    check_peer(venv)
    return time.perf_counter() - start


def check_peer(venv: Path) -> str:
    """fairseq's version in `venv`, or one line saying how to install it."""
    python = peer_bin(venv, "python")
    found = python.exists() and subprocess.run(
        [str(python), "-c", "import fairseq; print(fairseq.__version__)"],
        check=False, capture_output=True, text=True)
    if not found or found.returncode != 0:
        raise BenchmarkError(
            f"fairseq is missing from {venv}: run `python benchmarks/peer_speed.py "
            f"--install` (a venv with torch==2.13.0, then fairseq-fixed; minutes)")
    return found.stdout.strip()


# -- running commands ---------------------------------------------------------------


def thread_env(threads: int) -> dict[str, str]:
    """The environment of every timed command: T threads, our sources first."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads), PYTHONHASHSEED="0")
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO / "src"), os.environ.get("PYTHONPATH")) if p)
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


def binarize(work: Path, bpe: Path, venv: Path) -> Path:
    """fairseq-preprocess: one dictionary per side, built from train as ours is."""
    out = work / "bin"
    run([str(peer_bin(venv, "fairseq-preprocess")), "--source-lang", SRC,
         "--target-lang", TGT, "--trainpref", str(bpe / "train.bpe"),
         "--validpref", str(bpe / "valid.bpe"),
         "--testpref", f"{bpe / 'test.bpe'},{bpe / 'one.bpe'}",
         "--destdir", str(out), "--workers", "1", "--padding-factor", "1"],
        "fairseq-preprocess", thread_env(1), work / "preprocess.log")
    return out


def vocab_sizes(bpe: Path, binary: Path) -> dict[str, tuple[int, int]]:
    """Per side: (our types incl. 4 specials, fairseq's dictionary incl. 4)."""
    sizes = {}
    for lang in (SRC, TGT):
        text = (bpe / f"train.bpe.{lang}").read_text("utf-8")
        dict_lines = (binary / f"dict.{lang}.txt").read_text("utf-8").splitlines()
        sizes[lang] = (len(set(text.split())) + 4, len(dict_lines) + 4)
    return sizes


def prepare(args: argparse.Namespace, work: Path) -> Data:
    """Tokenize, BPE and binarize the benchmark's data in `work`."""
    limits = {"train": args.train_lines, "valid": args.dev_lines,
              "test": args.test_sentences}
    tok = tokenize(work, args.multi30k, limits)
    bpe = apply_bpe(work, tok, args.merges)
    binary = binarize(work, bpe, args.venv)
    return Data(bpe, binary, vocab_sizes(bpe, binary))


# -- training -------------------------------------------------------------------------


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


def resolved(spec: dict) -> dict:
    """The spec with the preset's and the defaults' values filled in."""
    from phrasenmt.training.spec import resolve_spec  # torch: only when running

    return resolve_spec(spec).to_dict()


def train_ours(args: argparse.Namespace, data: Data, outdir: Path) -> TrainRun:
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
               "our training", thread_env(args.threads), Path(f"{outdir}.log"))
    rows = our_train_windows((outdir / "metrics.tsv").read_text("utf-8"))
    s = summarize_windows(rows, args.updates, args.log_interval)
    checkpoint = outdir / "checkpoints" / f"checkpoint_{args.updates}.pt"
    return TrainRun(s["tokens_per_s"], s["loss"], s["nll"], wall, checkpoint)


def fairseq_train_args(model: dict, train: dict) -> list[str]:
    """fairseq-train flags for our resolved model and training config."""
    if train["weight_decay"] or train["clip_norm"] or model["attention_dropout"] \
            or model["activation_dropout"]:
        raise BenchmarkError("the flags below assume no weight decay, clipping or "
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
    return ["--task", "translation", "--source-lang", SRC, "--target-lang", TGT,
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


def train_fairseq(args: argparse.Namespace, data: Data, outdir: Path) -> TrainRun:
    """fairseq's `transformer` with the same sizes, batches and schedule."""
    spec = resolved(our_spec(args))
    cmd = [str(peer_bin(args.venv, "fairseq-train")), str(data.bin),
           *fairseq_train_args(spec["model"], spec["train"]), "--cpu",
           "--num-workers", "0", "--seed", "1", "--disable-validation",
           "--save-dir", str(outdir), "--save-interval", "1000000",
           "--no-epoch-checkpoints", "--log-format", "json"]
    log = Path(f"{outdir}.log")
    wall = run(cmd, "fairseq-train", thread_env(args.threads), log)
    rows = fairseq_train_windows(log.read_text("utf-8"))
    s = summarize_windows(rows, args.updates, args.log_interval)
    return TrainRun(s["tokens_per_s"], s["loss"], s["nll"], wall,
                    outdir / "checkpoint_last.pt")


# -- decoding ---------------------------------------------------------------------


@dataclass
class DecodeRun:
    """One checkpoint's beam search over the test set."""

    sentences_per_s: float  # sentences beyond the first / search seconds
    wall: float  # seconds of the whole command on all sentences
    words: float  # mean hypothesis length in words (BPE removed)


def decode_ours(args: argparse.Namespace, data: Data, checkpoint: Path,
                out: Path) -> tuple[float, float, list[str]]:
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
            "--precision", args.precision),
            "our translate", thread_env(args.threads), Path(f"{out}.{split}.log")))
    lines = hyps.read_text("utf-8").splitlines()
    return search_seconds(walls[1], walls[0]), walls[1], lines


def fairseq_load_env(threads: int) -> dict[str, str]:
    """`thread_env`, plus torch's documented switch back to full unpickling.

    fairseq 0.12's checkpoints hold an argparse.Namespace, which torch >= 2.6's
    default `torch.load(weights_only=True)` refuses; the checkpoint is the one
    the benchmark just wrote, so loading it in full is safe.
    """
    return {**thread_env(threads), "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD": "1"}


def decode_fairseq(args: argparse.Namespace, data: Data, checkpoint: Path,
                   out: Path) -> tuple[float, float, list[str]]:
    """fairseq-generate (subset test1 is test's first line) -> the same."""
    walls = []
    for subset in ("test1", "test"):
        walls.append(run([
            str(peer_bin(args.venv, "fairseq-generate")), str(data.bin), "--path",
            str(checkpoint), "--task", "translation", "--source-lang", SRC,
            "--target-lang", TGT, "--gen-subset", subset, "--beam", str(BEAM),
            "--nbest", "1", "--lenpen", str(LENPEN), "--max-len-a", "0",
            "--max-len-b", str(MAX_LEN_B - 1), "--batch-size",
            str(args.decode_batch), "--required-batch-size-multiple", "1", "--cpu",
            "--num-workers", "0", "--remove-bpe"],
            "fairseq-generate", fairseq_load_env(args.threads),
            Path(f"{out}.{subset}.log")))
    hyps = fairseq_hypotheses(Path(f"{out}.test.log").read_text("utf-8"))
    lines = [hyps[i] for i in sorted(hyps)]
    return search_seconds(walls[1], walls[0]), walls[1], lines


def decode_run(seconds: float, wall: float, lines: list[str],
               sentences: int) -> DecodeRun:
    """Rates of one decode of `sentences` sentences."""
    if len(lines) != sentences:
        raise BenchmarkError(f"{len(lines)} hypotheses for {sentences} sentences")
    words = statistics.fmean(len(line.split()) for line in lines)
    return DecodeRun((sentences - 1) / seconds, wall, words)


# -- the benchmark ------------------------------------------------------------------

SYSTEMS = {"ours": (train_ours, decode_ours), "fairseq": (train_fairseq, decode_fairseq)}


def alternate(args: argparse.Namespace, data: Data, work: Path
              ) -> tuple[dict[str, list[TrainRun]], dict[str, list[DecodeRun]]]:
    """Train ours, fairseq, ours, ...; then decode with each run's checkpoint."""
    trains: dict[str, list[TrainRun]] = {name: [] for name in SYSTEMS}
    for r in range(args.rounds):
        for name, (train, _) in SYSTEMS.items():
            done = train(args, data, work / f"train.{name}.{r + 1}")
            trains[name].append(done)
            print(f"round {r + 1} train  {name:8s} {done.tokens_per_s:8.0f} tok/s  "
                  f"loss {done.loss:.3f}  nll {done.nll:.3f}  "
                  f"command {done.wall:.0f} s", flush=True)
    sentences = len((data.bpe / f"test.bpe.{SRC}").read_text("utf-8").splitlines())
    decodes: dict[str, list[DecodeRun]] = {name: [] for name in SYSTEMS}
    for r in range(args.rounds):
        for name, (_, decode) in SYSTEMS.items():
            ckpt = trains[name][r].checkpoint
            done = decode_run(*decode(args, data, ckpt, work / f"decode.{name}.{r + 1}"),
                              sentences)
            decodes[name].append(done)
            print(f"round {r + 1} decode {name:8s} {done.sentences_per_s:8.2f} sent/s  "
                  f"{done.words:.1f} words/hyp  command {done.wall:.0f} s", flush=True)
    return trains, decodes


def table(trains: dict[str, list[TrainRun]], decodes: dict[str, list[DecodeRun]],
          updates: int) -> str:
    """A Markdown table of the means over rounds, with ours / fairseq."""
    def mean(runs: list, field: str) -> float:
        return statistics.fmean(getattr(run, field) for run in runs)

    rows = [("train target tokens/s", trains, "tokens_per_s", "{:.0f}", True),
            (f"train loss at update {updates} (nats)", trains, "loss", "{:.3f}", False),
            (f"train NLL at update {updates} (nats)", trains, "nll", "{:.3f}", False),
            ("train command wall s", trains, "wall", "{:.0f}", False),
            ("beam search sentences/s", decodes, "sentences_per_s", "{:.2f}", True),
            ("hypothesis length (words)", decodes, "words", "{:.1f}", False),
            ("decode command wall s", decodes, "wall", "{:.1f}", False)]
    lengths = [mean(decodes[name], "words") for name in SYSTEMS]
    out = ["| measure | ours | fairseq | ours / fairseq |", "|---|---:|---:|---:|"]
    for label, runs, field, fmt, ratio in rows:
        a, b = mean(runs["ours"], field), mean(runs["fairseq"], field)
        cell = f"{a / b:.2f}" if ratio else ""
        if ratio and runs is decodes and not comparable_lengths(*lengths):
            cell = "n/a: hypothesis lengths differ"
        out.append(f"| {label} | {fmt.format(a)} | {fmt.format(b)} | {cell} |")
    return "\n".join(out)


def benchmark(args: argparse.Namespace, version: str, work: Path) -> None:
    """Prepare the data, run both systems alternately, print the table."""
    import torch  # only here: the helpers above stay importable without it

    print(f"threads={args.threads} updates={args.updates} max_tokens={args.max_tokens} "
          f"rounds={args.rounds} precision(ours)={args.precision} "
          f"torch={torch.__version__} fairseq={version} work={work}", flush=True)
    start = time.perf_counter()
    data = prepare(args, work)
    sizes = ", ".join(f"{lang} ours {a} fairseq {b}" for lang, (a, b)
                      in data.vocab.items())
    print(f"data ready in {time.perf_counter() - start:.0f} s; vocabulary types "
          f"(4 specials included): {sizes}", flush=True)
    trains, decodes = alternate(args, data, work)
    print(table(trains, decodes, args.updates))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--install", action="store_true",
                   help="create --venv and install torch, then fairseq-fixed; exit")
    p.add_argument("--venv", type=Path, default=DEFAULT_VENV,
                   help="fairseq's own virtual environment")
    p.add_argument("--multi30k", type=Path, default=DEFAULT_MULTI30K,
                   help="Multi30k mirror (data/task1/raw/*.gz)")
    p.add_argument("--threads", type=int, default=1, help="threads for both")
    p.add_argument("--updates", type=int, default=30, help="updates per training run")
    p.add_argument("--log-interval", type=int, default=5,
                   help="updates per log window (tokens/s: windows after the first)")
    p.add_argument("--max-tokens", type=int, default=4096,
                   help="padded tokens per batch (longer side); one batch per update")
    p.add_argument("--rounds", type=int, default=2, help="runs of each, alternating")
    p.add_argument("--train-lines", type=int, default=0,
                   help="Multi30k training pairs to use (0: all 29,000)")
    p.add_argument("--dev-lines", type=int, default=100,
                   help="dev pairs (only our trainer reads them, once, at the end)")
    p.add_argument("--test-sentences", type=int, default=300,
                   help="test_2016_flickr sentences to decode")
    p.add_argument("--merges", type=int, default=8000, help="joint BPE merges")
    p.add_argument("--decode-batch", type=int, default=64, help="sentences per batch")
    p.add_argument("--precision", choices=("fp32", "bf16", "auto"), default="fp32",
                   help="ours only (fairseq on CPU is fp32): fp32 is the equal setup")
    p.add_argument("--workdir", type=Path,
                   help="keep data, logs and checkpoints here (default: a temp dir, "
                        "removed at the end)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Install fairseq (--install) or run the benchmark; one line on failure."""
    args = parse_args(argv)
    try:
        if args.install:
            seconds = install_peer(args.venv)
            print(f"fairseq {check_peer(args.venv)} installed in {args.venv} "
                  f"in {seconds / 60:.1f} min")
            return 0
        version = check_peer(args.venv)
        if args.updates % args.log_interval or args.updates < 2 * args.log_interval:
            raise BenchmarkError("--updates must be a multiple of --log-interval, "
                                 "at least two windows")
        work = args.workdir or Path(tempfile.mkdtemp(prefix="peer_speed."))
        work.mkdir(parents=True, exist_ok=True)
        benchmark(args, version, work)
        if args.workdir is None:
            shutil.rmtree(work)
    except BenchmarkError as err:
        print(f"peer_speed: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
