"""Print the contrastive pronoun accuracy of every checkpoint of a context sweep,
on the dev items and on the test items, and the checkpoint chosen on dev.

    python experiments/context_sweep_summary.py DATA OUT
(see experiments/context_sweep.sh): one line per job, `updates:dev/test` per
checkpoint, the dev loss at each validation, and the checkpoint with the best
dev accuracy (`phrasenmt.evaluate.contrastive.choose_on_dev`: the test items
play no part in it); first the step-1 model's accuracy (scored without
context, or with it when the step 1 is han_enc, for JOBS=converged_han_enc_dec).
The items are those of `contrastive prepare --dev-fraction`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from phrasenmt.evaluate.contrastive import (
    choose_on_dev,
    load_header,
    outcomes,
    split_accuracy,
)
from phrasenmt.evaluate.scores import read_log_probabilities
from phrasenmt.io import InputError, run_cli

CATEGORY = "pronoun_gender"


def percent(header: dict, scores: list[float], split: str) -> str:
    """'acc' in % of the split's pronoun items, '–' without any."""
    correct, n = split_accuracy(header, scores, split, CATEGORY)
    return f"{100.0 * correct / n:.1f}" if n else "–"


def by_distance(header: dict, scores: list[float], split: str) -> str:
    """' d1:acc(n) d2:...' of the split's pronoun items by distance bin."""
    cells: dict[str, list[bool]] = {}
    for row in outcomes(header, scores, split):
        if row["category"] == CATEGORY:
            cells.setdefault(row["bin"], []).append(row["correct"])
    return "".join(f" d{b}:{100.0 * sum(v) / len(v):.1f}({len(v)})"
                   for b, v in sorted(cells.items()))


def dev_losses(job: Path) -> str:
    """' dev:updates=loss,...' of a job's metrics.tsv (empty without one)."""
    metrics = job / "run" / "metrics.tsv"
    if not metrics.exists():
        return ""
    rows = [r.split("\t") for r in metrics.read_text().splitlines()[1:]]
    return " dev:" + ",".join(f"{r[0]}={float(r[5]):.4f}" for r in rows
                              if len(r) > 5 and r[5])


def main(data: Path, out: Path) -> None:
    header = load_header(data / "items.json")
    counts = {split: split_accuracy(header, [0.0] * header["lines"], split,
                                    CATEGORY)[1] for split in ("dev", "test")}
    base = read_log_probabilities(out / "base_scores.txt", header["lines"])
    print(f"step 1: dev {percent(header, base, 'dev')} % of "
          f"{counts['dev']}, test {percent(header, base, 'test')} % of "
          f"{counts['test']} pronoun items; test{by_distance(header, base, 'test')}")
    for job in sorted(p for p in out.iterdir() if p.is_dir()):
        timing = job / "time.txt"
        name = timing.read_text().strip() if timing.exists() else job.name
        runs = {int(p.stem[7:]): read_log_probabilities(p, header["lines"])
                for p in job.glob("scores_*.txt")}
        cells = [f"{k}:{percent(header, runs[k], 'dev')}/"
                 f"{percent(header, runs[k], 'test')}" for k in sorted(runs)]
        chosen = ""
        if runs:
            k = choose_on_dev(header, runs, CATEGORY)
            chosen = (f" chosen on dev: {k} (dev {percent(header, runs[k], 'dev')}, "
                      f"test {percent(header, runs[k], 'test')};"
                      f"{by_distance(header, runs[k], 'test')})")
        print(name, " ".join(cells) + dev_losses(job) + chosen)


def cli(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        raise InputError("usage: context_sweep_summary.py DATA OUT")
    main(Path(args[0]), Path(args[1]))


if __name__ == "__main__":
    run_cli(cli)
