"""Each training of a finished run, a few updates in fp32 and in bf16.

    python experiments/precision_by_family.py RUN_DIR [--steps N] [--rounds R]
        [--archs A,B,...] [--out FILE]

RUN_DIR is a checkout where a Snakemake run has finished (e.g. a fresh clone
after `make run`). Its log (`.snakemake/log/*.snakemake.log`) gives each
`phrasenmt.train` command as the run gave it; for the first command of each
architecture (a random-context control repeats its model's), this script runs
the same command with `max_steps` N, no validation, and `--precision` fp32,
then bf16, R times, each into a scratch folder, and prints the training
seconds (`summary.json`'s `train_seconds`, one thread as the run had it) and
bf16's over fp32's. The data, the step 1 of a document model and every other
setting are the run's, so the figures are those of the run's own trainings.
Run it on an otherwise idle machine: the two precisions alternate, but the
seconds are wall-clock.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

PRECISIONS = ("fp32", "bf16")


def train_commands(run_dir: Path) -> dict[str, list[str]]:
    """Architecture -> the argument list of its first `phrasenmt.train` command."""
    out: dict[str, list[str]] = {}
    for log in sorted((run_dir / ".snakemake" / "log").glob("*.snakemake.log")):
        for line in log.read_text().splitlines():
            # the rules `exec` the training (older runs' logs have no `exec`)
            command = line.removeprefix("Shell command: ").removeprefix("exec ")
            if command == line or not command.startswith("python -m phrasenmt.train "):
                continue
            args = shlex.split(command.split(" > ")[0])
            arch = json.loads(args[args.index("--spec") + 1])["arch"]
            out.setdefault(arch, args)
    return out


def timed(run_dir: Path, args: list[str], steps: int, precision: str, outdir: Path) -> float:
    """Training seconds of `args` cut to `steps` updates in `precision`."""
    args = list(args)
    spec = json.loads(args[args.index("--spec") + 1])
    spec["train"] = {**spec.get("train", {}), "max_steps": steps,
                     "valid_interval": 10**6, "save_interval": steps}
    args[args.index("--spec") + 1] = json.dumps(spec)
    args[args.index("--outdir") + 1] = str(outdir)
    args[args.index("--precision") + 1] = precision
    venv = run_dir / ".venv" / "bin" / "python"  # the run's own code, where it has one
    python = str(venv) if venv.exists() else sys.executable
    done = subprocess.run([python, *args[1:]], check=False, cwd=run_dir,
                          capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(args[:6])} ...: exit {done.returncode}: "
                 f"{done.stderr.strip().splitlines()[-1:]}")
    summary = json.loads((outdir / "summary.json").read_text())
    if summary["precision"] != precision or summary["steps"] != steps:
        sys.exit(f"{outdir}: trained {summary['steps']} updates in "
                 f"{summary['precision']}, not {steps} in {precision}")
    return float(summary["train_seconds"])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run_dir", type=Path)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--archs", default="", help="comma-separated; default: all")
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    commands = train_commands(args.run_dir)
    if not commands:
        sys.exit(f"{args.run_dir}: no phrasenmt.train command in .snakemake/log")
    wanted = [a for a in args.archs.split(",") if a] or sorted(commands)
    missing = sorted(set(wanted) - set(commands))
    if missing:
        sys.exit(f"--archs: {', '.join(missing)} did not train in {args.run_dir}")
    rows = {}
    with tempfile.TemporaryDirectory(prefix="precision-") as scratch:
        for arch in wanted:
            seconds = {p: 0.0 for p in PRECISIONS}
            for r in range(args.rounds):
                for prec in PRECISIONS:
                    outdir = Path(scratch) / f"{arch}.{prec}.{r}"
                    seconds[prec] += timed(args.run_dir, commands[arch], args.steps,
                                           prec, outdir)
            shown = {p: round(s, 2) for p, s in seconds.items()}
            rows[arch] = {**shown, "bf16_over_fp32": round(shown["bf16"] / shown["fp32"], 2)}
            print(f"{arch}: {json.dumps(rows[arch])}", flush=True)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"steps": args.steps, "rounds": args.rounds,
                                        "seconds": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
