"""Fertility prediction against reference labels: precision, recall, F1 per class.

    python -m phrasenmt.evaluate.fertility --checkpoint fertility.pt
        --src test.de --labels aligner=test.fert4 [gold=test.gold.fert4 ...]
        --system NAME --out F.tsv

Park & Tsvetkov (2019), Tables 4 and 5: the fertility module's argmax class
for every source token of the test set against labels "obtained from the word
alignment model" and the phrase list (phrasenmt.fertility), the `aligner`
labels; a synthetic corpus also has labels from its gold alignments, scored
as a second set of rows. Writes a tidy TSV: system, labels (the NAME of each
--labels), classes, class, precision, recall, f1, support (reference count).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd
import torch

from phrasenmt.cli import (
    ArgumentParser,
    named_file,
    output_file,
    thread_count,
)
from phrasenmt.io import InputError, atomic_open, run_cli
from phrasenmt.nn.batching import collate, make_batches
from phrasenmt.training.checkpoint import check_fertility_trained, load_model
from phrasenmt.training.data import load_labelled

COLUMNS = ["system", "labels", "classes", "class", "precision", "recall", "f1",
           "support"]


@torch.no_grad()
def predict(model, src: list[list[int]], max_tokens: int = 4096) -> list[list[int]]:
    """Argmax fertility class of every source token (</s> excluded)."""
    out: list[list[int]] = [[] for _ in src]
    lens = [len(s) for s in src]
    for idx in make_batches(lens, lens, max_tokens, 0):
        batch = collate([src[i] for i in idx], [[] for _ in idx])
        best = model.fertility_probs(model.encode(batch.src)).argmax(-1)  # (B, S)
        for row, i in enumerate(idx):
            out[i] = best[row, : lens[i]].tolist()
    return out


def class_scores(gold: list[int], pred: list[int], classes: int
                 ) -> list[tuple[int, float, float, float, int]]:
    """(class, precision, recall, F1, support) per class; 0 where undefined."""
    rows = []
    for c in range(classes):
        tp = sum(g == c and p == c for g, p in zip(gold, pred, strict=True))
        n_pred, n_gold = pred.count(c), gold.count(c)
        precision = tp / n_pred if n_pred else 0.0
        recall = tp / n_gold if n_gold else 0.0
        f1 = 2 * precision * recall / (precision + recall) if tp else 0.0
        rows.append((c, precision, recall, f1, n_gold))
    return rows


def build_parser() -> argparse.ArgumentParser:
    """Command-line options."""
    p = ArgumentParser(prog="python -m phrasenmt.evaluate.fertility",
                       description=__doc__.splitlines()[0])
    p.add_argument("--checkpoint", required=True, type=Path,
                   help="model file with a trained fertility module")
    p.add_argument("--src", required=True, type=Path, help="test source text")
    p.add_argument("--labels", required=True, type=named_file, nargs="+",
                   metavar="NAME=FILE",
                   help="reference labels, one per source token (aligner=F gold=F)")
    p.add_argument("--system", required=True, help="model name for the table")
    p.add_argument("--out", required=True, type=output_file, help="TSV to write")
    p.add_argument("--threads", type=thread_count, default=None,
                   help="CPU threads for torch")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    args = build_parser().parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    model, src_vocab, _, payload = load_model(args.checkpoint)
    if getattr(model, "fertility", None) is None:
        raise InputError("the model has no fertility module", args.checkpoint)
    check_fertility_trained(model, payload, args.checkpoint)
    classes = model.cfg.fertility_classes
    names = [name for name, _ in args.labels]
    if len(set(names)) != len(names):
        raise InputError(f"label names must differ, got {' '.join(names)}", "--labels")
    rows, pred = [], None
    for name, path in args.labels:
        src, gold = load_labelled(args.src, path, src_vocab, classes)
        pred = predict(model, src) if pred is None else pred
        flat_gold = [x for row in gold for x in row]
        flat_pred = [x for row in pred for x in row]
        rows += [(args.system, name, classes, *r)
                 for r in class_scores(flat_gold, flat_pred, classes)]
    with atomic_open(args.out) as fh:
        pd.DataFrame(rows, columns=COLUMNS).to_csv(fh, sep="\t", index=False,
                                                   float_format="%.4f")
    return 0


if __name__ == "__main__":
    run_cli(main)
