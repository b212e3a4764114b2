"""Corpus statistics per split and side: lines, tokens, types, lengths.

Lengths are the mean and the maximum; the statistics also count how many of a
dev or test split's source lines are training source lines (a warning names
the split when more than 1 % are: its scores would count sentences the model
has learned by heart)."""

from __future__ import annotations

import argparse
from pathlib import Path

from phrasenmt.cli import ArgumentParser, output_file
from phrasenmt.io import InputError, read_parallel, run_cli, write_lines
from phrasenmt.log import get_logger, share_over

_log = get_logger(__name__)

COLUMNS = ("split", "side", "lang", "lines", "tokens", "types", "mean_tokens",
           "max_tokens", "in_train")
TRAIN = "train"
SEEN_WARN_SHARE = 0.01  # of a dev or test split's lines


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


def train_index(splits: list[tuple[str, Path, Path]]) -> tuple[set, set] | None:
    """Hashes of the training split's source lines and of its (source, target)
    pairs (hashes, not the lines: a WMT-sized corpus need not sit in memory
    twice); None without a training split."""
    for name, src_path, tgt_path in splits:
        if name == TRAIN:
            src, tgt = read_parallel(src_path, tgt_path)
            return {hash(s) for s in src}, {hash(p) for p in zip(src, tgt)}
    return None


def seen_in_train(src: list[str], tgt: list[str], index: tuple[set, set]) -> tuple[int, int]:
    """Lines of a split whose source line is a training source line, and of
    those, the ones whose target line is that training pair's too."""
    sources, pairs = index
    seen = [i for i, line in enumerate(src) if hash(line) in sources]
    return len(seen), sum(hash((src[i], tgt[i])) in pairs for i in seen)


def warn_seen(name: str, path: Path, lines: int, seen: int, same: int) -> str | None:
    """The warning for a split with more than SEEN_WARN_SHARE of its source lines
    in the training data (logged; the run repeats it at its end)."""
    if not lines or seen <= SEEN_WARN_SHARE * lines:
        return None
    text = (f"{path}: {seen} of the {lines} source lines of split {name} "
            f"({share_over(seen, lines, SEEN_WARN_SHARE)}) are "
            f"also training source lines ({same} with the same target line): "
            "its scores count sentences the model was trained on; take them "
            "out of the training files")
    _log.warning(text)
    return text


def stats_table(splits: list[tuple[str, Path, Path]], src: str,
                tgt: str) -> list[str]:
    """TSV lines (with header) for every split and side. `in_train` counts, on
    the rows of a word-level split other than `train`, its lines whose source
    line is a training source line (empty on the other rows)."""
    rows = ["\t".join(COLUMNS)]
    index = train_index(splits)
    for name, src_path, tgt_path in splits:
        sides = read_parallel(src_path, tgt_path)
        seen = ""
        if index is not None and name != TRAIN and "." not in name:
            n, same = seen_in_train(*sides, index)
            warn_seen(name, src_path, len(sides[0]), n, same)
            seen = str(n)
        for side, lang, lines in zip(("src", "tgt"), (src, tgt), sides, strict=True):
            values = side_stats(lines)
            rows.append("\t".join([name, side, lang]
                                  + [str(values[c]) for c in COLUMNS[3:-1]] + [seen]))
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
