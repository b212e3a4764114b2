"""The baseline guard's reference rows: what systems that read no source score.

    python experiments/guard_controls.py --refs test.en --train train.en \
        [--constant "A man in a black shirt is in a blue shirt."] [--seed 1]

For one reference file, `phrasenmt.report.baseline_guard.measure` of systems
whose outputs ignore the source: the references themselves (a perfect model),
each line's next reference (fluent, source-independent), random training
sentences (seeded), and one constant sentence. Prints the rows of the table in
docs/baseline-guard.md: BLEU, BLEU with each output paired with another
line's reference (the guard's mean over its seeded pairings), their
difference, and the share of the most frequent output line. `--refs` may be
gzipped (the Multi30k mirror's files are).
"""

from __future__ import annotations

import argparse
import gzip
import random
from pathlib import Path

from phrasenmt.report.baseline_guard import measure


def read(path: Path) -> list[str]:
    """Lines of a text file, gzipped or not."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as fh:
        return [line.rstrip("\n") for line in fh]


def rows(refs: list[str], train: list[str], constant: str, seed: int) -> list[tuple]:
    """(system, BLEU, shuffled BLEU, gain, top share) of each control."""
    rng = random.Random(seed)
    systems = {
        "the references themselves": refs,
        "the reference of the next test sentence": refs[1:] + refs[:1],
        "random training sentences": [rng.choice(train) for _ in refs],
        f"one constant sentence ({constant!r})": [constant] * len(refs),
    }
    out = []
    for name, hyps in systems.items():
        m = measure(hyps, refs, seed)
        out.append((name, m.bleu, m.shuffled_bleu, m.bleu - m.shuffled_bleu,
                    m.top_share))
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--refs", type=Path, required=True, help="reference file (.gz ok)")
    p.add_argument("--train", type=Path, required=True,
                   help="training target text to draw random sentences from")
    p.add_argument("--constant", default="A man in a black shirt is in a blue shirt.")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    print("| output | BLEU | BLEU, outputs paired with random sentences | gain | "
          "most frequent line |")
    print("|---|---|---|---|---|")
    for name, bleu, shuffled, gain, share in rows(read(args.refs), read(args.train),
                                                  args.constant, args.seed):
        print(f"| {name} | {bleu:.2f} | {shuffled:.2f} | {gain:.1f} | "
              f"{100 * share:.1f}% |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
