"""Do bf16 and fp32 models reach the same BLEU at equal updates?

Trains one model of the default experiment twice on the workflow's built data,
once with `--precision fp32` and once with `--precision bf16`, with the same
spec, seed, data and number of updates (the `tiny` preset's, as `make run`
does); averages its checkpoints as the workflow does (`phrasenmt.average`,
the preset's `average_last`), decodes each model's averaged checkpoint in its own precision and the
bf16 model also in fp32 (checkpoints are float32 whatever the precision), then
detokenizes and scores with the workflow's own commands. Prints sacreBLEU,
dev NLL and training time of each, the BLEU differences, and how many output
lines the bf16 model's two decodes share.

Needs the built data of a dataset (`make run`, or at least its `bpe` outputs):

    python experiments/precision_bleu.py [--dataset synthetic_en_de] [--arch transformer]
        [--threads 1] [--jobs 2] [--out /tmp/precision_bleu] [--seed 1 [2 ...]]
        [--precisions fp32 bf16] [--train '{"max_steps": 2000, "lr_schedule": "linear"}']

With several seeds, each trains in both precisions (the pairs share seed,
initialisation and batches), and the script also prints each row's mean and
the paired differences bf16 - fp32: their mean, standard deviation and
standard error, against the seed-to-seed spread of fp32 alone. `--train`
overrides the preset's training settings (the same keys as `train:` in a
config). `--jobs N` runs N trainings at once (one `--threads` each). Runs go
to `--out`/seed<N>/<precision>; a training that finished there (its
summary.json exists) is reused, not repeated. On a CPU without bf16
instructions (no avx512_bf16 or amx_bf16 in /proc/cpuinfo) bf16 matrix
products run as float32 products of bf16 inputs (`phrasenmt.precision`): the
numbers are those of bf16, the time is not.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The workflow's decoding options (rule `translate`, config.yaml's `decode:`).
DECODE = ["--beam", "4", "--lenpen", "0.6", "--max-len-a", "1.5", "--max-len-b", "10",
          "--batch-size", "64"]


def target_lang(dataset: str) -> str:
    return dataset.split("_")[-1]


def paths(results: Path, dataset: str) -> dict[str, Path]:
    """The built files of `dataset` that training and scoring read."""
    src, tgt = dataset.split("_")[-2:]  # synthetic_en_de, multi30k_en_de
    bpe, data = results / dataset / "bpe", results / dataset / "data"
    return {"train_src": bpe / f"train.bpe.{src}", "train_tgt": bpe / f"train.bpe.{tgt}",
            "dev_src": bpe / f"dev.bpe.{src}", "dev_tgt": bpe / f"dev.bpe.{tgt}",
            "test_src": bpe / f"test.bpe.{src}", "ref": data / f"test.ref.{tgt}",
            "ref_tok": data / f"test.{tgt}"}


def train_cmd(p: dict[str, Path], arch: str, precision: str, outdir: Path, threads: int,
              seed: int, train: dict | None = None) -> list[str]:
    spec = json.dumps({"arch": arch, "model": {}, "preset": "tiny", "train": train or {}})
    return [sys.executable, "-m", "phrasenmt.train", "--spec", spec,
            "--train-src", str(p["train_src"]), "--train-tgt", str(p["train_tgt"]),
            "--dev-src", str(p["dev_src"]), "--dev-tgt", str(p["dev_tgt"]),
            "--outdir", str(outdir), "--seed", str(seed), "--threads", str(threads),
            "--precision", precision, "--no-progress"]


def run(cmd: list[str], log: Path) -> None:
    with open(log, "w") as fh:
        done = subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, cwd=ROOT, check=False)
        if done.returncode:
            sys.exit(f"precision_bleu: {' '.join(cmd[:3])} failed; see {log}")


def score(p: dict[str, Path], lang: str, checkpoint: Path, precision: str, out: Path,
          threads: int) -> float:
    """Decode the test set with `checkpoint` in `precision`, detokenize, sacreBLEU."""
    tok, txt, js = out.with_suffix(".tok"), out.with_suffix(".txt"), out.with_suffix(".json")
    py = [sys.executable, "-m"]
    run(py + ["phrasenmt.translate", "--checkpoint", str(checkpoint), "--input",
              str(p["test_src"]), "--output", str(tok), *DECODE, "--threads", str(threads),
              "--precision", precision], out.with_suffix(".translate.log"))
    run(py + ["phrasenmt.data.detokenize", "--lang", lang, "--in", str(tok),
              "--out", str(txt)], out.with_suffix(".detok.log"))
    run(py + ["phrasenmt.evaluate.bleu", "--system", out.name, "--testset", "test",
              "--hyp", str(txt), "--ref", str(p["ref"]), "--hyp-tok", str(tok),
              "--ref-tok", str(p["ref_tok"]), "--out", str(js)], out.with_suffix(".bleu.log"))
    return json.loads(js.read_text())["bleu"]["score"]


def same_lines(a: Path, b: Path) -> tuple[int, int]:
    la, lb = a.read_text().splitlines(), b.read_text().splitlines()
    return sum(x == y for x, y in zip(la, lb)), len(la)


def train_json(text: str) -> dict:
    """--train: a JSON object of training settings."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as err:
        raise argparse.ArgumentTypeError(f"not JSON: {err}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object, e.g. '{\"max_steps\": 2000}'")
    return value


def train_all(p: dict[str, Path], args: argparse.Namespace,
              runs: list[tuple[int, str]]) -> None:
    """Train every (seed, precision) of `runs` not yet finished, `--jobs` at a time."""
    todo = []
    for seed, prec in runs:
        outdir = args.out / f"seed{seed}" / prec
        if (outdir / "summary.json").exists():
            print(f"seed {seed} {prec}: reusing the finished training in {outdir}")
            continue
        outdir.parent.mkdir(parents=True, exist_ok=True)
        todo.append((train_cmd(p, args.arch, prec, outdir, args.threads, seed, args.train),
                     args.out / f"seed{seed}" / f"train.{prec}.log"))
    running: list[tuple[subprocess.Popen, Path]] = []
    while todo or running:
        while todo and len(running) < args.jobs:
            cmd, log = todo.pop(0)
            with open(log, "w") as fh:
                proc = subprocess.Popen(cmd, stdout=fh, stderr=subprocess.STDOUT, cwd=ROOT)
            running.append((proc, log))
        time.sleep(1)
        for proc, log in [r for r in running if r[0].poll() is not None]:
            running.remove((proc, log))
            if proc.returncode:
                for other, _ in running:
                    other.kill()
                sys.exit(f"precision_bleu: training failed; see {log}")


def evaluate(p: dict[str, Path], args: argparse.Namespace, seed: int,
             prec: str) -> list[tuple]:
    """Average, decode (bf16 models also in fp32) and score one training -> rows."""
    run_dir = args.out / f"seed{seed}"
    summary = json.loads((run_dir / prec / "summary.json").read_text())
    ckpt = run_dir / prec / "averaged.pt"
    run([sys.executable, "-m", "phrasenmt.average", "--checkpoint-dir",
         str(run_dir / prec / "checkpoints"), "--summary",
         str(run_dir / prec / "summary.json"), "--out", str(ckpt)],
        run_dir / f"average.{prec}.log")
    rows = []
    for dec in ([prec] if prec == "fp32" else ["bf16", "fp32"]):
        out = run_dir / f"{prec}_model_{dec}_decode"
        bleu = score(p, target_lang(args.dataset), ckpt, dec, out, args.threads)
        rows.append((seed, prec, dec, summary["steps"], summary["best_dev_loss"],
                     summary["train_seconds"], bleu))
    return rows


def spread(values: list[float]) -> str:
    """mean, and with two or more values their sd and the standard error."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return f"{mean:+.2f}"
    sd = statistics.stdev(values)
    return f"{mean:+.2f} (sd {sd:.2f}, standard error {sd / len(values) ** 0.5:.2f})"


def report(rows: list[tuple], args: argparse.Namespace, precisions: list[str]) -> None:
    print(f"{args.arch} tiny on {args.dataset}, {args.threads} thread(s), "
          f"train overrides {json.dumps(args.train or {})}")
    print(f"{'seed':>4} {'trained':<8} {'decoded':<8} {'updates':>7} {'dev NLL':>8} "
          f"{'train s':>8} {'BLEU':>6}")
    for seed, prec, dec, steps, dev, secs, bleu in rows:
        print(f"{seed:>4} {prec:<8} {dec:<8} {steps:>7} {dev:>8.4f} {secs:>8.1f} {bleu:>6.2f}")
    bleu = {(seed, prec, dec): b for seed, prec, dec, *_, b in rows}
    seeds = sorted({r[0] for r in rows})
    kinds = list(dict.fromkeys((prec, dec) for _, prec, dec, *_ in rows))
    if len(seeds) > 1:
        for prec, dec in kinds:
            values = [bleu[s, prec, dec] for s in seeds]
            print(f"mean BLEU {prec} model, {dec} decode over seeds "
                  f"{' '.join(map(str, seeds))}: {statistics.fmean(values):.2f} "
                  f"(sd {statistics.stdev(values):.2f}, range {min(values):.2f}-{max(values):.2f})")
    if precisions != ["fp32", "bf16"]:
        return
    for dec in ("bf16", "fp32"):
        diffs = [bleu[s, "bf16", dec] - bleu[s, "fp32", "fp32"] for s in seeds]
        print(f"BLEU bf16 model, {dec} decode - fp32, paired by seed: "
              + " ".join(f"{d:+.2f}" for d in diffs) + f"; mean {spread(diffs)}")
    for seed in seeds:
        same, n = same_lines(args.out / f"seed{seed}" / "bf16_model_bf16_decode.tok",
                             args.out / f"seed{seed}" / "bf16_model_fp32_decode.tok")
        print(f"seed {seed}: bf16 model, bf16 vs fp32 decode: {same}/{n} identical "
              "output lines")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path, default=ROOT / "results")
    ap.add_argument("--dataset", default="synthetic_en_de")
    ap.add_argument("--arch", default="transformer")
    ap.add_argument("--seed", type=int, nargs="+", default=[1],
                    help="one or more seeds; each trains in every precision")
    ap.add_argument("--threads", type=int, default=1, help="torch threads per job")
    ap.add_argument("--jobs", type=int, default=1, help="trainings at once")
    ap.add_argument("--train", type=train_json, default=None,
                    help="JSON object of training settings over the tiny preset's")
    ap.add_argument("--out", type=Path, default=Path("/tmp/precision_bleu"))
    ap.add_argument("--precisions", nargs="+", choices=("fp32", "bf16"),
                    default=["fp32", "bf16"],
                    help="train and score only these (e.g. fp32 with other seeds, "
                         "for the seed-to-seed spread)")
    args = ap.parse_args(argv)
    if args.jobs < 1 or args.threads < 1:
        ap.error("--jobs and --threads must be at least 1")
    p = paths(args.results, args.dataset)
    missing = [str(v) for v in p.values() if not v.exists()]
    if missing:
        sys.exit(f"precision_bleu: missing {missing[0]}: build the data first (make run)")
    args.out.mkdir(parents=True, exist_ok=True)
    precisions = [x for x in ("fp32", "bf16") if x in args.precisions]
    runs = [(seed, prec) for seed in args.seed for prec in precisions]
    train_all(p, args, runs)
    rows = [row for seed, prec in runs for row in evaluate(p, args, seed, prec)]
    report(rows, args, precisions)


if __name__ == "__main__":
    main()
