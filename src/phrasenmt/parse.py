"""Constituency parses of the source: `python -m phrasenmt.parse ...`.

  stanza: parse one pretokenized sentence per line with stanza's English
          constituency parser (processors tokenize,pos,constituency); needs the
          stanza English models in --stanza-dir (or stanza's default folder).
  gold:   validate given trees (e.g. the synthetic generator's) against the
          tokenized text and write them back in stanza's format.
Writes one PTB tree per line with stanza's own tree writer (str(tree)).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from phrasenmt.cli import ArgumentParser, output_file
from phrasenmt.io import InputError, read_lines, run_cli, write_lines
from phrasenmt.text.segmentation import read_tree_lines

MISSING_MODELS = (
    "stanza English models not found{where}: run `python -c \"import stanza; "
    "stanza.download('en')\"` on a connected machine, or copy its stanza_resources "
    "folder here and set `stanza_dir` in the config")


def load_pipeline(lang: str, stanza_dir: Path | None):
    """A stanza pipeline for pretokenized constituency parsing; never downloads."""
    import stanza
    from stanza.resources.common import DEFAULT_MODEL_DIR

    where = stanza_dir or Path(DEFAULT_MODEL_DIR)
    try:
        return stanza.Pipeline(lang=lang, processors="tokenize,pos,constituency",
                               tokenize_pretokenized=True, dir=str(where),
                               download_method=None, logging_level="WARN")
    except (FileNotFoundError, ValueError) as err:
        raise InputError(MISSING_MODELS.format(where=f" ({type(err).__name__})"),
                         where) from None


def parse_stanza(lines: list[str], lang: str, stanza_dir: Path | None,
                 batch: int = 256) -> list[str]:
    """Parse pretokenized lines -> one tree string per line (repeats parsed once)."""
    nlp = load_pipeline(lang, stanza_dir)
    unique = list(dict.fromkeys(lines))  # Lingeval pairs repeat their source
    trees: dict[str, str] = {}
    for start in range(0, len(unique), batch):
        chunk = unique[start: start + batch]
        doc = nlp([line.split() for line in chunk])
        trees.update(zip(chunk, (str(s.constituency) for s in doc.sentences),
                         strict=True))
    return [trees[line] for line in lines]


def check_gold(text: Path, gold: Path) -> list[str]:
    """Gold trees whose leaves are exactly the text's tokens, in stanza's format."""
    lines = read_lines(text, allow_empty=False)
    trees = read_tree_lines(gold)
    if len(trees) != len(lines):
        raise InputError(f"has {len(trees)} trees but {text} has {len(lines)} lines",
                         gold)
    for n, (tree, line) in enumerate(zip(trees, lines, strict=True), start=1):
        if tree.leaf_labels() != line.split():
            raise InputError("tree leaves differ from the tokenized text", gold, n)
    return [str(tree) for tree in trees]


def build_parser() -> argparse.ArgumentParser:
    """Command-line options."""
    p = ArgumentParser(prog="python -m phrasenmt.parse", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("method", choices=("stanza", "gold"),
                   help="stanza: parse --text with stanza's constituency parser; "
                   "gold: check the --gold trees against --text and write them in "
                   "stanza's format")
    p.add_argument("--text", type=Path, required=True,
                   help="tokenized source text, one sentence per line")
    p.add_argument("--gold", type=Path, help="given trees, one per line (gold)")
    p.add_argument("--lang", default="en", help="source language (stanza)")
    p.add_argument("--stanza-dir", type=Path, default=None,
                   help="stanza resources folder (default: stanza's own)")
    p.add_argument("--out", type=output_file, required=True, help="trees, one per line")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    args = build_parser().parse_args(argv)
    if args.method == "gold":
        if args.gold is None:
            raise InputError("the gold method needs --gold", "--gold")
        trees = check_gold(args.text, args.gold)
    else:
        if args.lang != "en":
            raise InputError(f"parse-based phrases need an English source (stanza "
                             f"en), got {args.lang!r}", "--lang")
        trees = parse_stanza(read_lines(args.text, allow_empty=False), args.lang,
                             args.stanza_dir)
    write_lines(args.out, trees)
    return 0


if __name__ == "__main__":
    run_cli(main)
