"""Did each model learn to translate? The claims table's baseline guard, printed.

    python experiments/learned.py --ref results/multi30k_de_en/data/test_2016_flickr.ref.en \\
        attn_rnn=results/multi30k_de_en/translations/attn_rnn/seed1/test_2016_flickr.txt ...

For each NAME=HYP (detokenized outputs, one per reference line): corpus BLEU,
the BLEU of the same outputs paired with random other references (the guard's
trivial system), the share of the test set given the most frequent output
line, the number of distinct outputs, and the guard's verdict with its default
thresholds (phrasenmt.report.baseline_guard, docs/baseline-guard.md).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from phrasenmt.io import InputError, read_lines
from phrasenmt.report.baseline_guard import Guard, measure_files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", required=True, type=Path, help="reference file")
    parser.add_argument("--seed", type=int, default=1, help="seed of the pairings")
    parser.add_argument("runs", nargs="+", metavar="NAME=HYP", help="outputs to check")
    args = parser.parse_args(argv)
    guard = Guard()
    print("| model | BLEU | shuffled | top line | distinct | learned |")
    print("|---|---:|---:|---:|---:|---|")
    try:
        for run in args.runs:
            name, sep, hyp = run.partition("=")
            if not sep or not name or not hyp:
                parser.error(f"{run!r}: expected NAME=HYP")
            m = measure_files(Path(hyp), args.ref, args.seed)
            distinct = len(set(read_lines(Path(hyp))))
            why = m.reasons(guard)
            print(f"| {name} | {m.bleu:.2f} | {m.shuffled_bleu:.2f} | "
                  f"{100 * m.top_share:.1f}% | {distinct} | "
                  f"{'yes' if not why else 'no: ' + '; '.join(why)} |")
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
