"""Corpus statistics per split and side: lines, tokens, types, mean/max length."""

from __future__ import annotations

import argparse
from pathlib import Path

from phrasenmt.cli import ArgumentParser, output_file
from phrasenmt.io import InputError, read_parallel, run_cli, write_lines
from phrasenmt.log import get_logger

_log = get_logger(__name__)

COLUMNS = ("split", "side", "lang", "lines", "tokens", "types", "mean_tokens",
           "max_tokens")


def side_stats(lines: list[str]) -> dict[str, float]:
    """Counts for one side: lines, tokens, types, mean and max tokens per line."""
    lengths = [len(line.split()) for line in lines]
    types = {tok for line in lines for tok in line.split()}
    tokens = sum(lengths)
    return {"lines": len(lines), "tokens": tokens, "types": len(types),
            "mean_tokens": round(tokens / len(lines), 3) if lines else 0.0,
            "max_tokens": max(lengths, default=0)}


def parse_pair(pair: str) -> tuple[str, str]:
    """Split 'en-de' into ('en', 'de')."""
    parts = pair.split("-")
    if len(parts) != 2 or not all(parts) or parts[0] == parts[1]:
        raise InputError(f"--lang-pair must look like en-de, got {pair!r}")
    return parts[0], parts[1]


def stats_table(splits: list[tuple[str, Path, Path]], src: str,
                tgt: str) -> list[str]:
    """TSV lines (with header) for every split and side."""
    rows = ["\t".join(COLUMNS)]
    for name, src_path, tgt_path in splits:
        sides = read_parallel(src_path, tgt_path)
        for side, lang, lines in zip(("src", "tgt"), (src, tgt), sides, strict=True):
            values = side_stats(lines)
            rows.append("\t".join([name, side, lang]
                                  + [str(values[c]) for c in COLUMNS[3:]]))
    return rows


def build_parser() -> argparse.ArgumentParser:
    """Command-line interface of the statistics step."""
    p = ArgumentParser(prog="python -m phrasenmt.data.stats",
                       description=__doc__)
    p.add_argument("--lang-pair", required=True, help="SRC-TGT, e.g. en-de")
    p.add_argument("--split", nargs=3, action="append", required=True,
                   metavar=("NAME", "SRC", "TGT"), help="one split; repeatable")
    p.add_argument("--out", required=True, type=output_file, help="TSV to write")
    return p


def main(argv: list[str] | None = None) -> int:
    """Write statistics of word or BPE files."""
    args = build_parser().parse_args(argv)
    src, tgt = parse_pair(args.lang_pair)
    splits = [(name, Path(a), Path(b)) for name, a, b in args.split]
    names = [name for name, _, _ in splits]
    if len(set(names)) != len(names):
        raise InputError(f"split names must be unique, got {names}")
    write_lines(args.out, stats_table(splits, src, tgt))
    _log.info(f"stats of {len(splits)} splits -> {args.out}")
    return 0


if __name__ == "__main__":
    run_cli(main)
