"""Contrastive evaluation with context: `python -m phrasenmt.evaluate.contrastive`.

  prepare:  a test set in one of four formats (`--format lingeval | contrapro |
            bawden | voita`, read by `phrasenmt.evaluate.contrastive_formats`)
            -> items.json (the common items, each with the indices of its
            scored lines) and the lines to score: pairs.src / pairs.tgt (current
            source and target) and pairs.ctx.jsonl (per line
            `{"src": [oldest, ..., previous], "tgt": [...]}`); identical lines
            (same source, target and context) are written once.
  bpe:      pairs.ctx.jsonl -> every context string segmented with the dataset's
            codes and vocabularies (as `phrasenmt.bpe apply` does the text).
  evaluate: items.json + per-model scores (log P(target | source, context), one
            per line, from `python -m phrasenmt.translate score ... --context`;
            a sentence-level model scores the same pairs without context and is
            given with --no-context-scores) -> tidy TSV of accuracy per type and
            distance bin, and over all items (type `all`), of the test items
            (--split dev: of the dev items).
An item is correct when its reference scores strictly better than every
contrastive variant (the rule of `phrasenmt.evaluate.lingeval`, Sennrich 2017).
With --dev-fraction F, prepare puts a seeded share F of the set's documents on
the dev side (`split: dev` on their items) and the rest on the test side: budgets
and settings are chosen on dev items, tables and claims read test items
(`outcomes`); without it every item is a test item.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pandas as pd

from phrasenmt.cli import (
    ArgumentParser,
    alpha_level,
    named_file,
    nonnegative_int,
    output_file,
)
from phrasenmt.data.documents import read_context_file
from phrasenmt.evaluate import contrastive_formats as formats
from phrasenmt.evaluate.lingeval import accuracy_table
from phrasenmt.evaluate.scores import read_log_probabilities
from phrasenmt.io import (
    InputError,
    atomic_open,
    output_set,
    read_lines,
    run_cli,
    write_lines,
)
from phrasenmt.log import get_logger
from phrasenmt.text.subwords import Segmenter, read_codes, read_vocabulary

_log = get_logger(__name__)

FORMATS = ("lingeval", "contrapro", "bawden", "voita")
COLUMNS = ["model", "context", "category", "bin", "items", "correct", "accuracy"]
ALL = "all"
Line = tuple[str, str, tuple[str, ...], tuple[str, ...]]


def variants(item: dict) -> list[tuple[str, list[str]]]:
    """(target, target context) of the reference, then of each contrastive."""
    own = item.get("contrastive_context_tgt") or [item["context_tgt"]] * len(
        item["contrastive"])
    return [(item["reference"], item["context_tgt"]),
            *zip(item["contrastive"], own, strict=True)]


def recent(sentences: list[str], size: int | None) -> list[str]:
    """The `size` most recent context sentences (all when size is None)."""
    return list(sentences) if size is None else list(sentences)[
        max(len(sentences) - size, 0):]


def truncate(items: list[dict], size: int | None) -> None:
    """Keep at most `size` context sentences on every side of every item."""
    for item in items:
        item["context_src"] = recent(item["context_src"], size)
        item["context_tgt"] = recent(item["context_tgt"], size)
        if "contrastive_context_tgt" in item:
            item["contrastive_context_tgt"] = [
                recent(ctx, size) for ctx in item["contrastive_context_tgt"]]


def index_lines(items: list[dict]) -> list[Line]:
    """Number the distinct scored lines; each item gets `lines` (reference first)."""
    table: dict[Line, int] = {}
    for i, item in enumerate(items):
        item["lines"] = []
        for target, tgt_ctx in variants(item):
            if not item["source"] or not target:
                raise InputError(f"item {i} ({item['type']}) has an empty source "
                                 "or target sentence")
            key = (item["source"], target, tuple(item["context_src"]), tuple(tgt_ctx))
            item["lines"].append(table.setdefault(key, len(table)))
    return list(table)


def process(items: list[dict], tokenize: bool, lowercase: bool, langs: tuple[str, str]
            ) -> None:
    """Moses-tokenize and/or lowercase every string of the items in place."""
    if not (tokenize or lowercase):
        return
    from phrasenmt.data.clean import tokenize as moses

    def fix(text: str, lang: str) -> str:
        text = moses(text, lang) if tokenize else text
        return text.lower() if lowercase else text

    src, tgt = langs
    for item in items:
        item["source"] = fix(item["source"], src)
        item["reference"] = fix(item["reference"], tgt)
        item["contrastive"] = [fix(c, tgt) for c in item["contrastive"]]
        item["context_src"] = [fix(c, src) for c in item["context_src"]]
        item["context_tgt"] = [fix(c, tgt) for c in item["context_tgt"]]
        if "contrastive_context_tgt" in item:
            item["contrastive_context_tgt"] = [[fix(c, tgt) for c in ctx] for ctx in
                                               item["contrastive_context_tgt"]]


def write_pairs(lines: list[Line], out_src: Path, out_tgt: Path, out_ctx: Path
                ) -> None:
    """pairs.src, pairs.tgt and pairs.ctx.jsonl, one scored line each."""
    write_lines(out_src, [src for src, _, _, _ in lines])
    write_lines(out_tgt, [tgt for _, tgt, _, _ in lines])
    write_lines(out_ctx, [json.dumps({"src": list(cs), "tgt": list(ct)},
                                     ensure_ascii=False) for _, _, cs, ct in lines])


def read_items(args: argparse.Namespace) -> list[dict]:
    """The items of the --format reader, from its options."""
    need = {
        "lingeval": ("json", "src_text", "tgt_text", "docs", "context"),
        "contrapro": ("json", "text_src", "text_tgt", "context_src", "context_tgt",
                      "extracted"),
        "bawden": ("current_src", "current_tgt", "prev_src", "prev_tgt"),
        "voita": ("json",)}[args.format]
    missing = [f"--{k.replace('_', '-')}" for k in need if getattr(args, k) is None]
    if missing:
        raise InputError(f"--format {args.format} needs {', '.join(missing)}")
    if args.mirror_pronouns and args.format != "lingeval":
        raise InputError("--mirror-pronouns is for --format lingeval")
    if args.format == "lingeval":
        return formats.read_lingeval(args.json, args.src_text, args.tgt_text,
                                     args.docs, args.context, set(args.need_context),
                                     log=_log.info,
                                     mirror_pronouns=args.mirror_pronouns,
                                     sides=(args.dev_fraction, args.split_seed))
    if args.format == "contrapro":
        return formats.read_contrapro(args.json, (args.text_src, args.text_tgt),
                                      (args.context_src, args.context_tgt),
                                      args.extracted)
    if args.format == "bawden":
        name = args.name or formats.stem(args.current_src, ".current")
        return formats.read_bawden((args.current_src, args.current_tgt),
                                   (args.prev_src, args.prev_tgt), name)
    scoring = None
    if (args.scoring_src is None) != (args.scoring_dst is None):
        raise InputError("give both --scoring-src and --scoring-dst, or neither")
    if args.scoring_src is not None:
        scoring = (args.scoring_src, args.scoring_dst)
    return formats.read_voita(args.json, args.name or formats.stem(args.json, ".json"),
                              scoring)


def prepare(args: argparse.Namespace) -> None:
    """The prepare command."""
    if args.context is not None and args.context < 0:
        raise InputError("--context must be >= 0")
    items = read_items(args)
    if not items:
        raise InputError(f"no {args.format} items to score")
    formats.assign_sides(items, args.dev_fraction, args.split_seed)
    truncate(items, args.context)
    process(items, args.tokenize, args.lowercase, (args.src_lang, args.tgt_lang))
    lines = index_lines(items)
    header = {"format": args.format, "max_bin": formats.max_bin(args.format),
              "context": args.context, "lines": len(lines),
              "dev_fraction": args.dev_fraction, "split_seed": args.split_seed,
              "items": items}
    write_pairs(lines, args.out_src, args.out_tgt, args.out_context)
    with atomic_open(args.out_items) as fh:
        json.dump(header, fh, ensure_ascii=False, indent=1)
        fh.write("\n")
    dev = sum(item["split"] == "dev" for item in items)
    _log.info(f"{args.format}: {len(items)} items ({dev} dev, {len(items) - dev} "
              f"test), {len(lines)} lines to score")


def bpe_context(args: argparse.Namespace) -> None:
    """The bpe command: segment every context sentence of a context file."""
    codes = read_codes(args.codes)
    seg = {side: Segmenter(codes, read_vocabulary(vocab, args.threshold)
                           if vocab else None)
           for side, vocab in (("src", args.vocab_src), ("tgt", args.vocab_tgt))}
    path = getattr(args, "in")
    entries = read_context_file(path, len(read_lines(path)))
    write_lines(args.out, [json.dumps({side: [seg[side].line(s) for s in entry[side]]
                                       for side in ("src", "tgt")}, ensure_ascii=False)
                           for entry in entries])


def load_header(path: Path, pairs: tuple[Path, int] | None = None
                ) -> dict[str, Any]:
    """items.json written by prepare, the whole file checked before any use.

    `lines` is the count of scored lines (the lines of pairs.src / pairs.tgt;
    `pairs`, (file, its line count), when given, must agree); every item needs a string `type`, a list
    `lines` of at least two line numbers in 0..lines-1 (the reference's, then
    its contrastive variants'), and a `distance` that is absent, null or a
    non-negative integer; `max_bin` likewise.
    """
    data = formats.read_json(path)
    if not isinstance(data, dict) or not isinstance(data.get("items"), list) or \
            not _is_count(data.get("lines")):
        raise InputError("not an items file written by `contrastive prepare`", path)
    if pairs is not None and data["lines"] != pairs[1]:
        raise InputError(f"lines: is {data['lines']}, but {pairs[0]} has {pairs[1]} "
                         "lines (items and pairs of different prepare runs?)", path)
    if data.get("max_bin") is not None and not _is_count(data["max_bin"]):
        raise InputError(f"max_bin: expected a non-negative integer or null, got "
                         f"{data['max_bin']!r}", path)
    for i, item in enumerate(data["items"]):
        check_item(item, i, data["lines"], path)
    return data


def _is_count(value: Any) -> bool:
    """A JSON integer >= 0 (not a boolean, not a float)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def check_item(item: Any, i: int, n_lines: int, path: Path) -> None:
    """One item of items.json: type, line numbers in range, distance."""
    if not isinstance(item, dict):
        raise InputError(f"item {i}: expected an object, got "
                         f"{type(item).__name__}", path)
    for key in ("type", "lines"):
        if key not in item:
            raise InputError(f"item {i}: missing key {key!r}", path)
    if not isinstance(item["type"], str):
        raise InputError(f"item {i}: key 'type' has the wrong type "
                         f"({type(item['type']).__name__})", path)
    lines = item["lines"]
    if not isinstance(lines, list) or len(lines) < 2:
        raise InputError(f"item {i}: 'lines' must list the reference's line and at "
                         f"least one contrastive line, got {lines!r}"[:200], path)
    for k in lines:
        if not (_is_count(k) and k < n_lines):
            valid = f"0..{n_lines - 1}" if n_lines else "none"
            raise InputError(f"item {i}: line {k!r} is out of range: the file's "
                             f"'lines' is {n_lines} (valid: {valid})", path)
    distance = item.get("distance")
    if distance is not None and not _is_count(distance):
        raise InputError(f"item {i}: 'distance' must be a non-negative integer or "
                         f"null, got {distance!r}", path)


def bin_label(distance: int | None, last: int | None) -> str | None:
    """The distance bin of an item: the distance, or `>last` beyond the last bin."""
    if distance is None or last is None:
        return None
    return str(distance) if distance <= last else f">{last}"


SPLITS = ("test", "dev")


def item_split(item: dict) -> str:
    """An item's side: 'dev' or 'test' (an item without `split` is a test item)."""
    return item.get("split") or "test"


def outcomes(header: dict[str, Any], scores: list[float], split: str = "test"
             ) -> list[dict]:
    """One row per item of the `split` side (tables and claims: test; budgets
    are chosen on dev): type, distance bin and whether the reference won."""
    rows = []
    for item in header["items"]:
        if item_split(item) != split:
            continue
        ref, *others = (scores[k] for k in item["lines"])
        rows.append({"category": item["type"], "correct": all(ref > s for s in others),
                     "bin": bin_label(item.get("distance"), header.get("max_bin"))})
    return rows


def split_accuracy(header: dict[str, Any], scores: list[float], split: str,
                   category: str | None = None) -> tuple[int, int]:
    """(correct, items) of one run on the `split` items (of `category`)."""
    rows = [r for r in outcomes(header, scores, split)
            if category is None or r["category"] == category]
    return sum(r["correct"] for r in rows), len(rows)


def choose_on_dev(header: dict[str, Any], runs: dict[int, list[float]],
                  category: str | None = None) -> int:
    """The run (e.g. the update count of a checkpoint) with the best accuracy on
    the dev items, the smallest on a tie: the test items play no part."""
    if not any(item_split(item) == "dev" for item in header["items"]):
        raise InputError("the items have no dev side: prepare them with "
                         "--dev-fraction to choose on them")

    def dev(key: int) -> float:
        correct, n = split_accuracy(header, runs[key], "dev", category)
        return correct / n if n else 0.0

    return min(runs, key=lambda k: (-dev(k), k))


def model_table(name: str, context: str, header: dict, path: Path,
                split: str = "test") -> pd.DataFrame:
    """Accuracy rows of one model's scores on the `split` items (per type and
    bin, and over all)."""
    rows = outcomes(header, read_log_probabilities(path, header["lines"]), split)
    if not rows:
        raise InputError(f"no {split} items (prepare's --dev-fraction gives dev "
                         "items)", path)
    every = [{**row, "category": ALL} for row in rows]
    table = pd.concat([accuracy_table(name, rows), accuracy_table(name, every)],
                      ignore_index=True).rename(columns={"pairs": "items"})
    table.insert(1, "context", context)
    return table[COLUMNS]


def evaluate(args: argparse.Namespace) -> None:
    """The evaluate command."""
    header = load_header(args.items)
    runs = [(name, path, "yes") for name, path in args.scores or []]
    runs += [(name, path, "no") for name, path in args.no_context_scores or []]
    if not runs:
        raise InputError("give --scores and/or --no-context-scores")
    df = pd.concat([model_table(name, ctx, header, path, args.split)
                    for name, path, ctx in runs], ignore_index=True)
    with atomic_open(args.out) as fh:
        df.to_csv(fh, sep="\t", index=False, float_format="%.4f")


def _add_prepare(sub: argparse._SubParsersAction) -> None:
    """Options of the prepare command."""
    p = sub.add_parser("prepare", help="a test set -> items and lines to score")
    p.add_argument("--format", required=True, choices=FORMATS,
                   help="the test set's format, which decides the input options "
                   "it reads")
    p.add_argument("--context", type=nonnegative_int,
                   help="keep at most K previous sentences (lingeval: required)")
    p.add_argument("--json", type=Path, help="items/entries/groups JSON "
                   "(lingeval, contrapro, voita)")
    for opt, text in (("--src-text", "(lingeval) source of the test split"),
                      ("--tgt-text", "(lingeval) reference of the test split"),
                      ("--docs", "(lingeval) document ids of the test split"),
                      ("--text-src", "(contrapro) contrapro.text.<src>"),
                      ("--text-tgt", "(contrapro) contrapro.text.<tgt>"),
                      ("--context-src", "(contrapro) contrapro.context.<src>"),
                      ("--context-tgt", "(contrapro) contrapro.context.<tgt>"),
                      ("--current-src", "(bawden) <set>.current.<src>"),
                      ("--current-tgt", "(bawden) <set>.current.<tgt>"),
                      ("--prev-src", "(bawden) <set>.prev.<src>"),
                      ("--prev-tgt", "(bawden) <set>.prev.<tgt>"),
                      ("--scoring-src", "(voita, optional) scoring_data/<set>.src"),
                      ("--scoring-dst", "(voita, optional) scoring_data/<set>.dst")):
        p.add_argument(opt, type=Path, help=text)
    p.add_argument("--extracted", type=nonnegative_int,
                   help="(contrapro) the --context N given to json2text_and_context.pl")
    p.add_argument("--need-context", nargs="*", default=["pronoun_gender"],
                   help="(lingeval) types whose items must have context "
                        "(default: %(default)s)")
    p.add_argument("--mirror-pronouns", action="store_true",
                   help="(lingeval) pair each pronoun_gender item with its mirror: "
                        "the same sentences, the other pronoun right, the context "
                        "of another document's item whose antecedent has the other "
                        "gender (the errors must carry antecedent_gender and "
                        "contrastive_gender, as the synthetic corpus's do)")
    p.add_argument("--name", help="(bawden, voita) type name of the items "
                   "(default: from the file name)")
    p.add_argument("--dev-fraction", type=alpha_level, default=None,
                   help="put this share of the set's documents (each item of a "
                   "format without document ids) on the dev side, the rest on the "
                   "test side (default: every item is a test item)")
    p.add_argument("--split-seed", type=nonnegative_int, default=0,
                   help="seed of the dev/test sides (the run's seed)")
    p.needs("--split-seed", "--dev-fraction")
    p.add_argument("--tokenize", action="store_true", help="Moses-tokenize all text")
    p.add_argument("--lowercase", action="store_true",
                   help="lowercase all text (after --tokenize)")
    p.add_argument("--src-lang", default="en",
                   help="source language of --tokenize (default: %(default)s)")
    p.add_argument("--tgt-lang", default="de",
                   help="target language of --tokenize (default: %(default)s)")
    for opt, what in (("--out-items", ("items.json: the items, each with the "
                       "numbers of its scored lines")),
                      ("--out-src", "pairs.src: the source of each scored line"),
                      ("--out-tgt", "pairs.tgt: the target of each scored line"),
                      ("--out-context", ("pairs.ctx.jsonl: each scored line's "
                       "source and target context, oldest first"))):
        p.add_argument(opt, type=output_file, required=True, help=f"output: {what}")


def build_parser() -> argparse.ArgumentParser:
    """Command-line options."""
    p = ArgumentParser(prog="python -m phrasenmt.evaluate.contrastive",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    _add_prepare(sub)
    b = sub.add_parser("bpe", help="BPE every sentence of a context file")
    b.add_argument("--codes", type=Path, required=True,
                   help="the dataset's subword-nmt codes")
    b.add_argument("--vocab-src", type=Path, help="source vocabulary (optional)")
    b.add_argument("--vocab-tgt", type=Path, help="target vocabulary (optional)")
    b.add_argument("--threshold", type=nonnegative_int, default=None,
                   help="subwords rarer than this in the vocabularies are split "
                   "further")
    b.add_argument("--in", type=Path, required=True, metavar="IN",
                   help="context file (prepare's --out-context)")
    b.add_argument("--out", type=output_file, required=True,
                   help="output: the same file with every sentence segmented")
    b.needs("--threshold", "--vocab-src", "--vocab-tgt")
    ev = sub.add_parser("evaluate", help="scores -> accuracy TSV")
    ev.add_argument("--items", type=Path, required=True, help="items.json of prepare")
    ev.add_argument("--scores", type=named_file, nargs="+", metavar="MODEL=FILE",
                    help="log-probabilities scored with context")
    ev.add_argument("--no-context-scores", type=named_file, nargs="+",
                    metavar="MODEL=FILE",
                    help="log-probabilities scored without context")
    ev.add_argument("--split", choices=SPLITS, default="test",
                    help="the items scored: test (tables) or dev (choosing budgets)")
    ev.add_argument("--out", type=output_file, required=True, help="tidy TSV")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    args = build_parser().parse_args(argv)
    with output_set():  # all of its outputs, or none
        {"prepare": prepare, "bpe": bpe_context, "evaluate": evaluate}[args.command](args)
    return 0


if __name__ == "__main__":
    run_cli(main)
