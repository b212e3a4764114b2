"""Alignment error rate (Och & Ney 2003) of predicted against gold word alignments.

With sure links S, possible links P (S is a subset of P) and predicted links A:
precision = |A & P| / |A|, recall = |A & S| / |S|,
AER = 1 - (|A & S| + |A & P|) / (|A| + |S|).
Our gold files hold sure links only (P = S), so AER = 1 - 2|A & S| / (|A| + |S|)
= 1 - F1. Counts are pooled over the corpus, not averaged per sentence. Both
files are Pharaoh `i-j` (source-target) and are range-checked against the text.
"""

from __future__ import annotations

import argparse
import json

from phrasenmt.align.pharaoh import Link, read_alignments, read_corpus
from phrasenmt.cli import ArgumentParser, output_file
from phrasenmt.io import atomic_open, run_cli


def alignment_scores(pred: list[set[Link]], sure: list[set[Link]],
                     possible: list[set[Link]] | None = None) -> dict[str, float]:
    """Corpus-level precision, recall, F1 and AER (possible defaults to sure)."""
    possible = sure if possible is None else possible
    n_pred = sum(len(a) for a in pred)
    n_sure = sum(len(s) for s in sure)
    a_s = sum(len(a & s) for a, s in zip(pred, sure))
    a_p = sum(len(a & (p | s)) for a, s, p in zip(pred, sure, possible))
    precision = a_p / n_pred if n_pred else 0.0
    recall = a_s / n_sure if n_sure else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    total = n_pred + n_sure
    aer = 1.0 - (a_s + a_p) / total if total else 0.0
    return {"aer": aer, "precision": precision, "recall": recall, "f1": f1,
            "n_sentences": len(pred), "n_pred_links": n_pred,
            "n_gold_links": n_sure, "n_correct": a_s}


def build_parser() -> argparse.ArgumentParser:
    """Argument parser for the AER CLI."""
    parser = ArgumentParser(prog="python -m phrasenmt.evaluate.aer",
                            description=__doc__.splitlines()[0])
    parser.add_argument("--gold", required=True, help="gold (sure) links, Pharaoh")
    parser.add_argument("--pred", required=True, help="predicted links, Pharaoh")
    parser.add_argument("--src", required=True, help="tokenized source text")
    parser.add_argument("--tgt", required=True, help="tokenized target text")
    parser.add_argument("--out", type=output_file, required=True, help="output JSON")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m phrasenmt.evaluate.aer`."""
    args = build_parser().parse_args(argv)
    src, tgt = read_corpus(args.src, args.tgt)
    gold = read_alignments(args.gold, src, tgt)
    pred = read_alignments(args.pred, src, tgt)
    scores = alignment_scores(pred, gold)
    with atomic_open(args.out) as fh:
        json.dump({"gold": args.gold, "pred": args.pred, **scores}, fh, indent=2)
        fh.write("\n")
    print(f"AER {scores['aer']:.4f}  P {scores['precision']:.4f}  "
          f"R {scores['recall']:.4f}")
    return 0


if __name__ == "__main__":
    run_cli(main)
