"""The GPU check: every family trains and decodes on CUDA, then speed and DDP.

One command on a machine with one CUDA GPU and no network (docs/gpu.md):

    python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl
    PYTHONPATH=/tmp/site:src python3 -m tests.gpu.check --out OUT \
        --work /tmp/gpu_check_work

1. every registered architecture at tiny size on the synthetic corpus made on
   the spot: fp32, resumed and bf16 training, decoding, the checkpoint on the
   CPU (tests/gpu/families.py);
2. training speed at full size in bf16 with 25k-token batches: the Transformer
   `base` (target tokens/s, MFU), pr_max_attn_ta, NPMT `iwslt` and the
   document-level models relative to it (tests/gpu/timing.py);
3. fairseq's Transformer on the same data and GPU, alternating with ours, where
   its wheels were carried (tests/gpu/fairseq_peer.py);
4. DDP through the training rule's launcher with 1 process (2 with 2 GPUs;
   tests/gpu/ddp.py);
5. OUT/summary.json and OUT/summary.md; the table is printed last.

`--device cpu` runs parts 1, 4 and 5 at smaller sizes (a CI check that the
command does not rot; `--timing` adds part 2 at whatever size is asked). Every
stage is guarded: a failing architecture is one FAIL row with its reason and
the others still run. The exit status is 1 if any row failed or an
architecture was skipped for the time budget, 0 otherwise; fairseq being
unavailable is reported, not a failure. SIGTERM or SIGUSR1 (a job's time
limit, `timeout`) ends the check at once with status 128 + the signal's number
(143 for SIGTERM), the summary saying STOPPED and keeping what finished; a
training in this process that takes the signal as a preemption passes it on.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import time
from pathlib import Path

import torch

from phrasenmt.cli import (
    ArgumentParser,
    int_range,
    nonnegative_int,
    output_dir,
    positive_float,
    positive_int,
)
from phrasenmt.io import atomic_open, output_set, run_cli
from phrasenmt.training.stopping import Terminated, TerminateOnSignals
from tests.gpu import ddp as gpu_ddp
from tests.gpu import families as fam
from tests.gpu import timing
from tests.gpu.data import synthetic

RESERVE_SECONDS = 180  # of the budget, kept for DDP, timing and fairseq
CLOCK = {"start": time.perf_counter()}  # main() restarts it; imports count too


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    p = ArgumentParser(prog="python -m tests.gpu.check",
                                description=__doc__.split("\n")[0])
    p.add_argument("--out", type=output_dir, default=Path("gpu_check"),
                   help="folder for the summary and the logs (created)")
    p.add_argument("--work", type=output_dir, default=None,
                   help="folder for the data, checkpoints and decodes (default: "
                   "OUT/runs; elsewhere keeps OUT small: the logs of failed rows "
                   "and of fairseq are copied to OUT/logs)")
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    p.add_argument("--archs", nargs="+", default=None, metavar="ARCH",
                   help="architectures of part 1 (default: every registered one)")
    p.add_argument("--updates", type=int_range(10), default=50,
                   help="updates per training run (even, at least 10)")
    p.add_argument("--sizes", choices=("auto", "tiny", "smaller"), default="auto",
                   help="part 1's models: the tiny presets, or smaller still; "
                   "auto: tiny on CUDA, smaller on the CPU")
    p.add_argument("--train-size", type=positive_int, default=4000,
                   help="synthetic training pairs")
    p.add_argument("--test-size", type=positive_int, default=32,
                   help="test sentences")
    p.add_argument("--timing", choices=("auto", "on", "off"), default="auto",
                   help="part 2 (and 3); auto: on for CUDA, off for the CPU")
    p.add_argument("--timing-archs", nargs="+", default=list(timing.TIMED),
                   metavar="ARCH", help="models timed in part 2")
    p.add_argument("--timing-size", choices=("full", "tiny"), default="full",
                   help="full: the named presets (base, iwslt) at 25k-token "
                   "batches; tiny: the tiny presets at 2k (a CPU smoke test)")
    p.add_argument("--warmup", type=nonnegative_int, default=timing.WARMUP,
                   help="part 2: untimed updates before the timed ones, whose "
                   "batches the timed ones then replay (at least --timed-updates, "
                   "so that every timed batch's shapes were seen)")
    p.add_argument("--timed-updates", type=positive_int, default=timing.TIMED_UPDATES,
                   help="part 2: timed updates per model")
    p.add_argument("--fairseq", choices=("auto", "off"), default="auto",
                   help="part 3 where fairseq imports")
    p.add_argument("--fairseq-warmup", type=nonnegative_int, default=150,
                   help="part 3: untimed updates of both sides before their "
                   "--timed-updates (fairseq cannot replay batches, so neither does)")
    p.add_argument("--ddp", choices=("auto", "off"), default="auto", help="part 4")
    p.add_argument("--peak-tflops", type=positive_float, default=None,
                   help="the GPU's dense bf16 peak for MFU (default: from its name)")
    p.add_argument("--budget-minutes", type=positive_float, default=None,
                   help="stages still to start are skipped past this (default: 7.5 "
                   "on CUDA, 30 on the CPU)")
    p.add_argument("--seed", type=nonnegative_int, default=1)
    args = p.parse_args(argv)
    if args.updates % 2:
        p.error(f"argument --updates: must be even, got {args.updates}")
    if args.device == "cuda" and not torch.cuda.is_available():
        p.error("--device cuda: torch sees no CUDA device (use --device cpu)")
    known = fam.architectures(None)
    for option, names in (("--archs", args.archs or []),
                          ("--timing-archs", args.timing_archs)):
        unknown = [a for a in names if a not in known]
        if unknown:
            p.error(f"{option}: unknown arch(s) {', '.join(unknown)} (known: "
                    f"{', '.join(known)})")
    if args.budget_minutes is None:
        args.budget_minutes = 7.5 if args.device == "cuda" else 30.0
    return args


def environment(device: str) -> dict:
    """Machine, versions and the GPU."""
    env = {"python": platform.python_version(), "torch": torch.__version__,
           "cuda": torch.version.cuda, "host": platform.node(),
           "cpu_count": os.cpu_count(), "device": device,
           "date_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())}
    if device == "cuda":
        props = torch.cuda.get_device_properties(0)
        env.update(gpu=props.name, gpus=torch.cuda.device_count(),
                   gpu_memory_gib=round(props.total_memory / 2**30, 1),
                   bf16_supported=torch.cuda.is_bf16_supported())
    return env


def main(argv: list[str] | None = None) -> int:
    """Run the stages, write the summary, print its table -> exit status.

    The summary is rewritten after every row, so a run stopped from outside
    (a job time limit) still leaves what it measured."""
    args = parse_args(argv)
    if argv is not None:  # called from Python (a test), not run as a script
        CLOCK["start"] = time.perf_counter()
    deadline = CLOCK["start"] + args.budget_minutes * 60
    args.out.mkdir(parents=True, exist_ok=True)
    work = args.work or args.out / "runs"
    summary: dict = {"environment": environment(args.device), "families": [],
                     "timing": None, "fairseq": None, "ddp": [], "skipped": [],
                     "status": "RUNNING", "seconds": 0.0}
    print(f"gpu_check: {summary['environment']}", flush=True)
    with TerminateOnSignals():
        try:
            return stages(args, work, deadline, summary)
        except Terminated as stop:  # SIGTERM/SIGUSR1: end now, keep what was measured
            summary["status"] = "STOPPED"
            summary["skipped"].append(f"everything after: {stop}")
            write_summary(args.out, summary)
            print(f"gpu_check: {stop}; the summary keeps what finished", flush=True)
            return stop.exit_status


def stages(args: argparse.Namespace, work: Path, deadline: float, summary: dict
           ) -> int:
    """Parts 1-5 -> exit status."""
    # fp32 means fp32: PyTorch lets cuDNN use TF32 by default (the recurrent
    # families' fp32 runs would then differ from the CPU's by more than float32
    # rounding); bf16 runs are unaffected.
    torch.backends.cudnn.allow_tf32 = False
    archs = fam.architectures(args.archs)
    sizes = args.sizes if args.sizes != "auto" else (
        "tiny" if args.device == "cuda" else "smaller")
    corpus = synthetic(work / "data", args.seed, args.train_size, args.test_size,
                       100 if sizes == "tiny" else 16)
    settings = fam.Settings(args.device, args.updates, sizes, corpus, work, args.seed)
    timed = args.timing == "on" or (args.timing == "auto" and args.device == "cuda")
    # Parts 2-4 keep RESERVE_SECONDS of the budget: architectures still to
    # start past that are skipped (and listed), not the speed measurements.
    reserve = RESERVE_SECONDS if timed else 30
    for arch in archs:
        if time.perf_counter() > deadline - reserve:
            summary["skipped"].append(f"{arch}: time budget")
            continue
        row = fam.check_arch(arch, settings)
        summary["families"].append(row)
        print(f"  {row['status']} {arch} ({row['seconds']} s) {row['reason']}",
              flush=True)
        write_summary(args.out, summary)
    if args.ddp == "auto":
        ddp(args, settings, summary, deadline)
    if timed:
        summary["timing"], summary["fairseq"] = timing.run(
            args, work, deadline, lambda: write_summary(args.out, summary))
    failed = failures(summary)
    incomplete = len(summary["families"]) < len(archs)  # some skipped: budget
    summary["status"] = "FAIL" if failed else "INCOMPLETE" if incomplete else "PASS"
    keep_logs(work, args.out, failed + ["fairseq", *(f"ddp{n}" for n in (1, 2))])
    write_summary(args.out, summary)
    print(markdown(summary))
    return 1 if failed or incomplete else 0


def ddp(args: argparse.Namespace, settings: fam.Settings, summary: dict,
        deadline: float) -> None:
    """Part 4: 1 process, and on CUDA 2 where time is left: over NCCL where
    there are 2 GPUs, else sharing the one GPU over gloo."""
    gpus = torch.cuda.device_count() if args.device == "cuda" else 0
    for procs in (1, 2) if gpus else (1,):
        left = deadline - time.perf_counter()
        if procs > 1 and left < 60:
            summary["skipped"].append(f"DDP with {procs} processes: time budget")
            continue
        backend = "gloo" if procs > gpus else "auto"
        row = gpu_ddp.check_ddp(settings, procs, timeout=max(60.0, left),
                                backend=backend)
        summary["ddp"].append(row)
        print(f"  {row['status']} DDP {procs} ({row['seconds']} s) {row['reason']}",
              flush=True)
        write_summary(args.out, summary)


def failures(summary: dict) -> list[str]:
    """Names of the rows that failed (families, timing, DDP; fairseq never, and
    rows skipped for the time budget are listed as such, not failed)."""
    rows = summary["families"] + summary["ddp"] + (summary["timing"] or {}).get("rows", [])
    return [r.get("arch") or r.get("check") for r in rows if r["status"] == "FAIL"]


def keep_logs(work: Path, out: Path, names: list[str]) -> None:
    """Copy the *.log files of work/NAME to out/logs/NAME (when work is elsewhere)."""
    if work.resolve() == (out / "runs").resolve():
        return
    for name in names:
        for log in sorted((work / name).glob("*.log")) if name else []:
            target = out / "logs" / name / log.name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(log, target)


def write_summary(out: Path, summary: dict) -> None:
    """OUT/summary.json and OUT/summary.md, with the seconds since the start;
    both replaced together (a full disk keeps the previous pair)."""
    summary["seconds"] = round(time.perf_counter() - CLOCK["start"], 1)
    with output_set():
        with atomic_open(out / "summary.json") as fh:
            fh.write(json.dumps(summary, indent=2) + "\n")
        with atomic_open(out / "summary.md") as fh:
            fh.write(markdown(summary) + "\n")


def markdown(summary: dict) -> str:
    """The summary as Markdown tables, the families' table last."""
    env = summary["environment"]
    where = env.get("gpu") or f"CPU ({env['cpu_count']} cores)"
    lines = [f"# GPU check: {summary['status']} in {summary['seconds']} s",
             "", (f"{where}; torch {env['torch']} (CUDA {env['cuda']}); Python "
             f"{env['python']}; {env['date_utc']} UTC"), ""]
    lines += timing.markdown(summary["timing"], summary["fairseq"])
    if summary["ddp"]:
        lines += ["| DDP (launcher) | status | updates | max rel. loss diff | reason, note |",
                  "|---|---|---:|---:|---|"]
        lines += [f"| {r['check']} | {r['status']} | {r.get('updates', '')} | "
                  f"{r.get('max_rel_diff', float('nan')):.1e} | "
                  f"{r['reason'] or r.get('note', '')} |"
                  for r in summary["ddp"]]
        lines.append("")
    if summary["skipped"]:
        lines += ["Skipped: " + "; ".join(summary["skipped"]), ""]
    lines += [("| arch | family | status | fp32 loss first→last | bf16 dev / fp32 dev "
              "| resume rel. diff | words (default search) | greedy GPU=CPU | s | reason |"),
              "|---|---|---|---|---|---:|---:|---:|---:|---|"]
    for r in summary["families"]:
        f32, b16 = r.get("fp32", {}), r.get("bf16", {})
        dec, res = r.get("decode", {}), r.get("resume", {})
        lines.append(
            f"| {r['arch']} | {r['family']} | {r['status']} | "
            f"{_pair(f32.get('first'), f32.get('last'), '→')} | "
            f"{_pair(b16.get('dev'), f32.get('dev'), ' / ')} | "
            f"{_num(res.get('rel_diff'), '.1e')} | "
            f"{_num(dec.get('default_nonempty'), '.0%')} | "
            f"{_num(dec.get('greedy_device_vs_cpu'), '.0%')} | {r['seconds']} | "
            f"{r['reason']} |")
    lines += ["", (f"Tolerances: bf16 dev loss within {fam.BF16_TOL:.0%} of fp32's; "
              f"resumed loss within {fam.RESUME_TOL_CPU:g} (CPU) / "
              f"{fam.RESUME_TOL_CUDA:g} (CUDA) relative; greedy GPU and CPU agree on "
              f">= {fam.GREEDY_AGREE:.0%} of lines; the default search gives words on "
              f">= {fam.NONEMPTY:.0%}.")]
    return "\n".join(lines)


def _num(value, fmt: str) -> str:
    return "" if value is None else format(value, fmt)


def _pair(a, b, sep: str) -> str:
    return "" if a is None or b is None else f"{a:.3f}{sep}{b:.3f}"


if __name__ == "__main__":
    run_cli(main)  # a file system error (a full disk) is one line, exit 1
