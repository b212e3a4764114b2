"""Our Transformer vs fairseq's, side by side: training and beam-search speed.

Both train on the same Multi30k en-de pairs with the same joint BPE (subword-nmt,
as the workflow makes it), the same architecture (our `small` preset), batch
size (`--max-tokens`, one batch per update), threads and number of updates, in
fp32 on the CPU; runs alternate (ours, fairseq, ours, ...). Then each run's
checkpoint beam-searches the same test sentences (beam 5, ranking by the raw
log-probability: lenpen 0 means the same in both). fairseq is not a dependency
of the project: `--install` puts it into its own virtual environment.

    python -m benchmarks.speed --suite peers --install   # once: torch, then fairseq
    python -m benchmarks.speed --suite peers --multi30k MIRROR --threads 1  # ~10 min
    python -m benchmarks.speed --suite peers --multi30k MIRROR --updates 400 \
        --log-interval 50 --rounds 3
    python -m benchmarks.speed --suite peers --multi30k MIRROR --against OLD/src

MIRROR is a Multi30k mirror (data/task1/raw/*.gz), the workflow's `mirror:`;
`--against`: a third column, our package of another checkout (`git worktree
add OLD REV`), run in turn with the other two. The table is printed, and every
run's figures and their means go to `--out` (results/benchmarks/speed/peers.json).

Training: target tokens/s (</s> in, padding out), the median of the log windows
after the first; the loss of the last window, in nats. Decoding: sentences/s of
the search alone (all test sentences minus one, so start-up cancels out), no
ratio where mean hypothesis lengths differ by more than 25%. What each side's
figure includes: docs/results/2026-11-24-speed.md, "How each number is measured".
"""

from __future__ import annotations

import argparse
import functools
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from benchmarks import harness
from benchmarks import peer_fairseq as theirs
from benchmarks import peer_ours as ours
from phrasenmt.cli import nonnegative_int, positive_int

DEFAULT_VENV = ours.REPO / "benchmarks" / ".peer-venv"


def comparable_lengths(ours_words: float, fairseq_words: float,
                       tolerance: float = 0.25) -> bool:
    """Whether mean hypothesis lengths are within `tolerance` of each other.

    Sentences per second only compare decoders that write outputs of about the
    same length; barely trained models may stop at once or run to the cap.
    """
    longer = max(ours_words, fairseq_words)
    return longer > 0 and abs(ours_words - fairseq_words) <= tolerance * longer


def vocab_sizes(bpe: Path, binary: Path) -> dict[str, tuple[int, int]]:
    """Per side: (our types incl. 4 specials, fairseq's dictionary incl. 4)."""
    sizes = {}
    for lang in (ours.SRC, ours.TGT):
        text = (bpe / f"train.bpe.{lang}").read_text("utf-8")
        dict_lines = (binary / f"dict.{lang}.txt").read_text("utf-8").splitlines()
        sizes[lang] = (len(set(text.split())) + 4, len(dict_lines) + 4)
    return sizes


@dataclass
class DecodeRun:
    """One checkpoint's beam search over the test set."""

    sentences_per_s: float  # sentences beyond the first / search seconds
    wall: float  # seconds of the whole command on all sentences
    words: float  # mean hypothesis length in words (BPE removed)


def decode_run(seconds: float, wall: float, lines: list[str],
               sentences: int) -> DecodeRun:
    """Rates of one decode of `sentences` sentences."""
    if len(lines) != sentences:
        raise ours.BenchmarkError(f"{len(lines)} hypotheses for {sentences} sentences")
    words = statistics.fmean(len(line.split()) for line in lines)
    return DecodeRun((sentences - 1) / seconds, wall, words)


SYSTEMS = {"ours": (ours.train_ours, ours.decode_ours),
           "fairseq": (theirs.train_fairseq, theirs.decode_fairseq)}
BEFORE = "before"  # --against: our package of another checkout


def systems(against: Path | None) -> dict:
    """Ours, fairseq and, with --against, the other checkout's package."""
    return SYSTEMS if against is None else {**SYSTEMS, BEFORE: tuple(
        functools.partial(f, src=against) for f in (ours.train_ours, ours.decode_ours))}


def alternate(args: argparse.Namespace, data: ours.Data, work: Path
              ) -> tuple[dict[str, list[ours.TrainRun]], dict[str, list[DecodeRun]]]:
    """Train ours, fairseq, (before,) ours, ...; then decode each checkpoint."""
    runs = systems(args.against)
    trains: dict[str, list[ours.TrainRun]] = {name: [] for name in runs}
    for r in range(args.rounds):
        for name, (train, _) in runs.items():
            done = train(args, data, work / f"train.{name}.{r + 1}")
            trains[name].append(done)
            print(f"round {r + 1} train  {name:8s} {done.tokens_per_s:8.0f} tok/s  "
                  f"loss {done.loss:.3f}  nll {done.nll:.3f}  "
                  f"command {done.wall:.0f} s", flush=True)
    sentences = len((data.bpe / f"test.bpe.{ours.SRC}").read_text("utf-8").splitlines())
    decodes: dict[str, list[DecodeRun]] = {name: [] for name in runs}
    for r in range(args.rounds):
        for rep in range(args.decode_repeats):  # ours, fairseq, ours, ...
            for name, (_, decode) in runs.items():
                ckpt = trains[name][r].checkpoint
                out = work / f"decode.{name}.{r + 1}.{rep + 1}"
                done = decode_run(*decode(args, data, ckpt, out), sentences)
                decodes[name].append(done)
                print(f"round {r + 1} decode {name:8s} {done.sentences_per_s:8.2f} "
                      f"sent/s  {done.words:.1f} words/hyp  command {done.wall:.0f} s",
                      flush=True)
    return trains, decodes


def table(trains: dict[str, list[ours.TrainRun]], decodes: dict[str, list[DecodeRun]],
          updates: int, full_length: bool = False) -> str:
    """A Markdown table of the means over rounds, with ours (and before) / fairseq.

    Under --full-length both decoders write the same number of tokens per
    sentence, so the decoding ratio stands whatever the word counts."""
    def mean(runs: list, field: str) -> float:
        return statistics.fmean(getattr(run, field) for run in runs)

    rows = [("train target tokens/s", trains, "tokens_per_s", "{:.0f}", True),
            (f"train loss at update {updates} (nats)", trains, "loss", "{:.3f}", False),
            (f"train NLL at update {updates} (nats)", trains, "nll", "{:.3f}", False),
            ("train command wall s", trains, "wall", "{:.0f}", False),
            ("beam search sentences/s", decodes, "sentences_per_s", "{:.2f}", True),
            ("hypothesis length (words)", decodes, "words", "{:.1f}", False),
            ("decode command wall s", decodes, "wall", "{:.1f}", False)]
    mine = [name for name in ("ours", BEFORE) if name in trains]
    head = ["ours", "fairseq", *mine[1:], *(f"{name} / fairseq" for name in mine)]
    out = ["| measure | " + " | ".join(head) + " |", "|---" + "|---:" * len(head) + "|"]
    for label, runs, field, fmt, ratio in rows:
        cells = [fmt.format(mean(runs[name], field)) for name in head[:len(mine) + 1]]
        for name in mine:
            alike = runs is trains or full_length or comparable_lengths(
                mean(decodes[name], "words"), mean(decodes["fairseq"], "words"))
            cells.append("" if not ratio else "n/a: hypothesis lengths differ" if not alike
                         else f"{mean(runs[name], field) / mean(runs['fairseq'], field):.2f}")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def benchmark(args: argparse.Namespace, version: str, work: Path,
              results: harness.Results) -> None:
    """Prepare the data in `work` (tokenize, BPE, binarize), run both systems
    alternately, print the table, record every run and the table's means."""
    print(f"updates={args.updates} max_tokens={args.max_tokens} rounds={args.rounds} "
          f"precision(ours)={args.precision} fairseq={version} work={work} "
          f"{BEFORE}={args.against}", flush=True)
    start = time.perf_counter()
    limits = {"train": args.train_lines, "valid": args.dev_lines,
              "test": args.test_sentences}
    bpe = ours.apply_bpe(work, ours.tokenize(work, args.multi30k, limits), args.merges)
    binary = theirs.binarize(work, bpe, args.venv)
    data = ours.Data(bpe, binary, vocab_sizes(bpe, binary))
    sizes = ", ".join(f"{lang} ours {a} fairseq {b}" for lang, (a, b)
                      in data.vocab.items())
    print(f"data ready in {time.perf_counter() - start:.0f} s; vocabulary types "
          f"(4 specials included): {sizes}", flush=True)
    trains, decodes = alternate(args, data, work)
    markdown = table(trains, decodes, args.updates, args.full_length)
    print(markdown)
    results.add("peers", {
        "fairseq": version, "vocabulary_types": data.vocab,
        "train": {k: [{**asdict(r), "checkpoint": str(r.checkpoint)} for r in runs]
                  for k, runs in trains.items()},
        "decode": {k: [asdict(r) for r in runs] for k, runs in decodes.items()},
        "table": markdown.splitlines()})


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """Command-line options."""
    p = harness.parser("peers", __doc__.split("\n")[0], against=True, cpu_only=(
        "both sides train on the CPU here; on a GPU, python -m tests.gpu.check "
        "compares with fairseq"), max_tokens=4096, rounds=2, workdir=None,
        updates=(30, "updates per training run"))
    p.add_argument("--install", action="store_true",
                   help="create --venv and install torch, then fairseq-fixed; exit")
    p.add_argument("--venv", type=Path, default=DEFAULT_VENV,
                   help="fairseq's own virtual environment (default: %(default)s)")
    p.add_argument("--multi30k", type=Path,
                   help="Multi30k mirror (data/task1/raw/*.gz; the workflow's mirror:)")
    p.add_argument("--log-interval", type=positive_int, default=5,
                   help="updates per log window (tokens/s: windows after the first)")
    p.add_argument("--train-lines", type=nonnegative_int, default=0,
                   help="Multi30k training pairs to use (0: all 29,000)")
    p.add_argument("--dev-lines", type=positive_int, default=100,
                   help="dev pairs (only our trainer reads them, once, at the end)")
    p.add_argument("--test-sentences", type=positive_int, default=300,
                   help="test_2016_flickr sentences to decode")
    p.add_argument("--merges", type=positive_int, default=8000, help="joint BPE merges")
    p.add_argument("--decode-batch", type=positive_int, default=64,
                   help="sentences per batch")
    p.add_argument("--decode-repeats", type=positive_int, default=1,
                   help="decodes of each round's checkpoints, alternating")
    p.add_argument("--full-length", action="store_true",
                   help="both decoders forbid </s> before the cap (--min-len), so "
                        "every hypothesis has the same length whatever the training")
    p.add_argument("--precision", choices=("fp32", "bf16", "auto"), default="fp32",
                   help="ours only (fairseq on CPU is fp32): fp32 is the equal setup")
    args = harness.parse(p, argv)
    if not args.install and args.multi30k is None:
        p.error("--multi30k is required: a Multi30k mirror (data/task1/raw/*.gz)")
    return args


def main(argv: Sequence[str]) -> int:
    """Install fairseq (--install) or run the benchmark; one line on failure."""
    args = parse_args(argv)
    try:
        if args.install:
            seconds = theirs.install_peer(args.venv)
            print(f"fairseq {theirs.check_peer(args.venv)} installed in {args.venv} "
                  f"in {seconds / 60:.1f} min")
            return 0
        version = theirs.check_peer(args.venv)
        if args.updates % args.log_interval or args.updates < 2 * args.log_interval:
            raise ours.BenchmarkError("--updates must be a multiple of --log-interval, "
                                 "at least two windows")
        results = harness.Results("peers", args, argv)
        work = args.workdir or Path(tempfile.mkdtemp(prefix="peers."))
        work.mkdir(parents=True, exist_ok=True)
        benchmark(args, version, work, results)
        if args.workdir is None:
            shutil.rmtree(work)
    except ours.BenchmarkError as err:
        print(f"peers: {err}", file=sys.stderr)
        return 1
    return results.done()
