"""Do bf16 and fp32 models reach the same BLEU at equal updates? (issue 15)

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

    python benchmarks/precision_bleu.py [--dataset synthetic_en_de] [--arch transformer]
        [--threads 1] [--parallel] [--out /tmp/precision_bleu] [--seed 1]
        [--precisions fp32 bf16]

`--parallel` trains the two models side by side (one core each). A training
that finished in `--out` (its summary.json exists) is reused, not repeated. On a CPU
without bf16 instructions (no avx512_bf16 or amx_bf16 in /proc/cpuinfo) bf16
autocast is emulated: the numbers are those of bf16 (inputs of every matmul
rounded to bfloat16, float32 accumulation), the time is not.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
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
              seed: int) -> list[str]:
    spec = json.dumps({"arch": arch, "model": {}, "preset": "tiny", "train": {}})
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


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path, default=ROOT / "results")
    ap.add_argument("--dataset", default="synthetic_en_de")
    ap.add_argument("--arch", default="transformer")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--parallel", action="store_true",
                    help="train the fp32 and bf16 models at the same time")
    ap.add_argument("--out", type=Path, default=Path("/tmp/precision_bleu"))
    ap.add_argument("--precisions", nargs="+", choices=("fp32", "bf16"),
                    default=["fp32", "bf16"],
                    help="train and score only these (e.g. fp32 with other seeds, "
                         "for the seed-to-seed spread)")
    args = ap.parse_args(argv)
    p = paths(args.results, args.dataset)
    missing = [str(v) for v in p.values() if not v.exists()]
    if missing:
        sys.exit(f"precision_bleu: missing {missing[0]}: build the data first (make run)")
    args.out.mkdir(parents=True, exist_ok=True)
    precisions = [x for x in ("fp32", "bf16") if x in args.precisions]
    procs = {}
    for prec in precisions:
        if (args.out / prec / "summary.json").exists():
            print(f"{prec}: reusing the finished training in {args.out / prec}")
            continue
        cmd = train_cmd(p, args.arch, prec, args.out / prec, args.threads, args.seed)
        with open(args.out / f"train.{prec}.log", "w") as log:
            procs[prec] = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
        if not args.parallel:
            procs[prec].wait()
    for prec, proc in procs.items():
        if proc.wait():
            sys.exit(f"precision_bleu: training in {prec} failed; see {args.out}/train.{prec}.log")
    rows = []
    for prec in precisions:
        summary = json.loads((args.out / prec / "summary.json").read_text())
        ckpt = args.out / prec / "averaged.pt"
        run([sys.executable, "-m", "phrasenmt.average", "--checkpoint-dir",
             str(args.out / prec / "checkpoints"), "--summary",
             str(args.out / prec / "summary.json"), "--out", str(ckpt)],
            args.out / f"average.{prec}.log")
        decodes = [prec] if prec == "fp32" else ["bf16", "fp32"]
        for dec in decodes:
            out = args.out / f"{prec}_model_{dec}_decode"
            bleu = score(p, target_lang(args.dataset), ckpt, dec, out, args.threads)
            rows.append((prec, dec, summary["steps"], summary["best_dev_loss"],
                         summary["train_seconds"], bleu))
    print(f"{args.arch} tiny on {args.dataset}, seed {args.seed}, {args.threads} thread(s)")
    print(f"{'trained':<8} {'decoded':<8} {'updates':>7} {'dev NLL':>8} {'train s':>8} {'BLEU':>6}")
    for prec, dec, steps, dev, secs, bleu in rows:
        print(f"{prec:<8} {dec:<8} {steps:>7} {dev:>8.4f} {secs:>8.1f} {bleu:>6.2f}")
    if precisions != ["fp32", "bf16"]:
        return
    base = rows[0][5]
    for prec, dec, *_, bleu in rows[1:]:
        print(f"BLEU {prec} model, {dec} decode - fp32: {bleu - base:+.2f}")
    same, n = same_lines(args.out / "bf16_model_bf16_decode.tok",
                         args.out / "bf16_model_fp32_decode.tok")
    print(f"bf16 model, bf16 vs fp32 decode: {same}/{n} identical output lines")


if __name__ == "__main__":
    main()
