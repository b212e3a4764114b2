"""Lingeval97 contrastive evaluation: `python -m phrasenmt.evaluate.lingeval ...`.

  prepare:  items JSON -> one (source, target) line pair per reference and per
            contrastive translation, in file order (as Sennrich's
            json_to_plaintext.py): reference first, then each error's contrastive.
            --out-trees also writes each pair's gold source tree ("source_tree").
  evaluate: items JSON + per-model score files (log P(target | source) per pair,
            from `python -m phrasenmt.translate score`) -> tidy TSV of accuracy
            per error category and per distance bin (1..15, >15).
A contrastive pair counts as correct when the reference scores strictly better
than that contrastive (Sennrich 2017); accuracy is over contrastive pairs.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from phrasenmt.cli import ArgumentParser, named_file, output_file
from phrasenmt.evaluate.scores import read_log_probabilities
from phrasenmt.io import (
    InputError,
    output_set,
    read_json,
    run_cli,
    write_lines,
)

MAX_BIN = 15
COLUMNS = ["model", "category", "bin", "pairs", "correct", "accuracy"]


def distance_bin(d: int) -> str:
    """Label of a distance bin: '1'..'15' or '>15' ('0' stays '0')."""
    return str(d) if d <= MAX_BIN else f">{MAX_BIN}"


def _need(obj: Any, key: str, kind: type, path: Path, where: str) -> Any:
    """obj[key] of type `kind`, else an InputError naming the file, item and key."""
    if not isinstance(obj, dict) or key not in obj:
        raise InputError(f"{where}: missing key {key!r}", path)
    if not isinstance(obj[key], kind) or isinstance(obj[key], bool):
        raise InputError(f"{where}: key {key!r} must be {kind.__name__}", path)
    return obj[key]


def load_items(path: Path) -> list[dict]:
    """Read and validate a Lingeval97-format JSON list of items."""
    items = read_json(path)
    if not isinstance(items, list):
        raise InputError("expected a JSON list of items", path)
    for i, item in enumerate(items):
        _need(item, "source", str, path, f"item {i}")
        _need(item, "reference", str, path, f"item {i}")
        for k, err in enumerate(_need(item, "errors", list, path, f"item {i}")):
            where = f"item {i} error {k}"
            _need(err, "type", str, path, where)
            _need(err, "contrastive", str, path, where)
            err["distance"] = _distance(err.get("distance"), path, where)
    return items


def _distance(value: Any, path: Path, where: str) -> int | None:
    """An error's distance: an integer, or a string of digits as the reference
    evaluation script reads it (`int(...)`); anything else raises."""
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value)
    raise InputError(f"{where}: key 'distance' must be int or a string of digits, "
                     f"got {json.dumps(value)}", path)


def pairs(items: list[dict]) -> list[tuple[str, str]]:
    """(source, target) per scored line: reference, then each contrastive."""
    out = []
    for item in items:
        src = " ".join(item["source"].split())
        out.append((src, " ".join(item["reference"].split())))
        out += [(src, " ".join(e["contrastive"].split())) for e in item["errors"]]
    return out


def outcomes(items: list[dict], scores: list[float]) -> list[dict]:
    """One row per contrastive pair: category, distance bin, correct."""
    rows, k = [], 0
    for item in items:
        ref = scores[k]
        for n, err in enumerate(item["errors"], start=1):
            d = err.get("distance")
            rows.append({"category": err["type"],
                         "bin": None if d is None else distance_bin(d),
                         "correct": ref > scores[k + n]})
        k += 1 + len(item["errors"])
    return rows


def bin_order(label: str) -> float:
    """Sort key of a bin label: numbers, then '>15', then 'all'."""
    if label == "all":
        return math.inf
    return MAX_BIN + 1 if label.startswith(">") else int(label)


def accuracy_table(model: str, rows: list[dict]) -> pd.DataFrame:
    """Accuracy per category (bin 'all') and per category and distance bin."""
    df = pd.DataFrame(rows, columns=["category", "bin", "correct"])
    out = []
    for category, group in df.groupby("category", sort=True):
        parts = [("all", group)]
        binned = group.dropna(subset=["bin"])
        parts += sorted(binned.groupby("bin"), key=lambda kv: bin_order(kv[0]))
        for label, g in parts:
            n, c = len(g), int(g["correct"].sum())
            out.append([model, category, label, n, c, c / n])
    return pd.DataFrame(out, columns=COLUMNS)


def prepare(args: argparse.Namespace) -> None:
    """The prepare command."""
    items = load_items(args.json)
    if not items:  # stop here, not at BPE or scoring of empty pair files
        raise InputError("no items to score (an empty list)", args.json)
    src, tgt = map(list, zip(*pairs(items), strict=True))
    if args.tokenize or args.raw:  # the steps `phrasenmt.data.clean` takes
        from phrasenmt.data.clean import Options, process_side

        opts = Options(args.src_lang, args.tgt_lang, tokenize=args.tokenize,
                       raw=args.raw)
        src = process_side(src, args.src_lang, opts)
        tgt = process_side(tgt, args.tgt_lang, opts)
    if args.lowercase:
        src, tgt = [s.lower() for s in src], [t.lower() for t in tgt]
    if args.out_trees:
        trees = []
        for i, item in enumerate(items):
            tree = _need(item, "source_tree", str, args.json, f"item {i}")
            trees += [tree] * (1 + len(item["errors"]))
        write_lines(args.out_trees, trees)
    write_lines(args.out_src, src)
    write_lines(args.out_tgt, tgt)


def evaluate(args: argparse.Namespace) -> None:
    """The evaluate command."""
    items = load_items(args.json)
    n_pairs = sum(1 + len(it["errors"]) for it in items)
    tables = []
    for name, file in args.scores:
        scores = read_log_probabilities(file, n_pairs)
        tables.append(accuracy_table(name, outcomes(items, scores)))
    df = pd.concat(tables, ignore_index=True)
    from phrasenmt.io import atomic_open

    with atomic_open(args.out) as fh:
        df.to_csv(fh, sep="\t", index=False, float_format="%.4f")


def build_parser() -> argparse.ArgumentParser:
    """Command-line options."""
    p = ArgumentParser(prog="python -m phrasenmt.evaluate.lingeval",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    prep = sub.add_parser("prepare", help="items -> source/target lines to score")
    prep.add_argument("--json", type=Path, required=True, help="Lingeval97 items")
    prep.add_argument("--out-src", type=output_file, required=True,
                      help="output: the source of each scored pair (an item's "
                      "source once per variant)")
    prep.add_argument("--out-tgt", type=output_file, required=True,
                      help="output: the target of each scored pair (each item's "
                      "reference, then its contrastive variants)")
    prep.add_argument("--out-trees", type=output_file, help="gold source tree per line")
    text = prep.add_mutually_exclusive_group()
    text.add_argument("--tokenize", action="store_true", help="Moses-tokenize")
    text.add_argument("--raw", action="store_true",
                      help="keep raw text, as `phrasenmt.data.clean --raw` does for "
                      "SentencePiece (bpe.backend sentencepiece)")
    prep.add_argument("--lowercase", action="store_true",
                      help="lowercase both sides (after --tokenize or --raw)")
    prep.add_argument("--src-lang", default="en",
                      help="source language of --tokenize or --raw (default: "
                      "%(default)s)")
    prep.add_argument("--tgt-lang", default="de",
                      help="target language of --tokenize or --raw (default: "
                      "%(default)s)")
    ev = sub.add_parser("evaluate", help="scores -> accuracy TSV")
    ev.add_argument("--json", type=Path, required=True, help="Lingeval97 items")
    ev.add_argument("--scores", type=named_file, nargs="+", required=True,
                    metavar="MODEL=FILE",
                    help="log-probabilities, one per prepared pair")
    ev.add_argument("--out", type=output_file, required=True, help="tidy TSV")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    args = build_parser().parse_args(argv)
    with output_set():  # all of its outputs, or none
        {"prepare": prepare, "evaluate": evaluate}[args.command](args)
    return 0


if __name__ == "__main__":
    run_cli(main)
