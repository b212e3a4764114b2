"""Print the contrastive pronoun accuracy of every checkpoint of a context sweep.

    python experiments/context_sweep_summary.py DATA OUT
(see experiments/context_sweep.sh): one line per job, `updates:accuracy` per
checkpoint and the dev loss at each validation; first the step-1 model's
accuracy (scored without context).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def accuracy(path: Path, items: list[dict]) -> float:
    """% of items whose reference line scores above every variant."""
    scores = [float(x) for x in path.read_text().split()]
    won = sum(all(scores[it["lines"][0]] > scores[k] for k in it["lines"][1:])
              for it in items)
    return 100.0 * won / len(items)


def main(data: Path, out: Path) -> None:
    items = [it for it in json.loads((data / "items.json").read_text())["items"]
             if it["type"] == "pronoun_gender"]
    print(f"step 1 (no context): {accuracy(out / 'base_scores.txt', items):.1f} % "
          f"of {len(items)} pronoun items")
    for job in sorted(p for p in out.iterdir() if p.is_dir()):
        timing = job / "time.txt"
        name = timing.read_text().strip() if timing.exists() else job.name
        cells = [f"{p.stem.split('_')[1]}:{accuracy(p, items):.1f}" for p in
                 sorted(job.glob("scores_*.txt"), key=lambda p: int(p.stem[7:]))]
        metrics = job / "run" / "metrics.tsv"
        dev = ""
        if metrics.exists():
            rows = [r.split("\t") for r in metrics.read_text().splitlines()[1:]]
            dev = " dev:" + ",".join(f"{r[0]}={float(r[5]):.4f}" for r in rows
                                     if len(r) > 5 and r[5])
        print(name, " ".join(cells), dev)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
