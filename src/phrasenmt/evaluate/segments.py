"""Segment analyses of NPMT's greedy decodings (Huang et al. 2018, Sec. 3, App. C).

    stats     --src F --segments NAME=FILE... --bins 15,25 --testset T --out F.tsv
    examples  --src F --ref F --segments NAME=FILE... --n 3 --max-words 25
              --seed S --testset T --out F.tsv
    mappings  --src F --segments NAME=FILE... --top 10 --testset T --out F.tsv

A segments file (``translate --segments-out``) is JSON Lines, one line per source
sentence, ``{"segments": [[tok, ...], ...]}`` with one list per source position,
the final </s> position included, each the target tokens that position emitted
(empty: it slept). The paper analyses greedy decodings (Table 2), as we do.

stats: average segment length (footnote 4) = output words / non-empty segments,
over the test set and per source-length group (the groups of
``phrasenmt.evaluate.length``). examples: a seeded sample of sentences with their
segmentations (Table 2). mappings: input/output phrase pairs (Appendix C): input
words that emit nothing join the next position that emits something; the
pairs are counted and sorted into One→One, One→Many, Many→One, Many→Many and
Many→Many without UNK. Deviation: the source side is the test text itself (the
paper's vocabulary had replaced rare source words by UNK), so only target-side
``<unk>`` tokens mark a pair as containing UNK. Source words after the last
emitting position join nothing and are not counted.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from phrasenmt.cli import (
    ArgumentParser,
    named_path,
    nonnegative_int,
    output_file,
    positive_int,
)
from phrasenmt.evaluate.length import (
    assign_group,
    length_groups,
    parse_bounds,
    write_tsv,
)
from phrasenmt.io import InputError, parse_json, read_lines, run_cli

EOS = "</s>"
UNK = "<unk>"
Segments = list[list[str]]  # one token list per source position (</s> included)
STATS_COLUMNS = ["model", "testset", "group", "lower", "upper", "sentences",
                 "positions", "empty_positions", "segments", "words",
                 "avg_segment_length"]
EXAMPLE_COLUMNS = ["testset", "line", "model", "source", "segments", "reference"]
MAPPING_COLUMNS = ["model", "testset", "category", "rank", "source", "target",
                   "count"]
CATEGORIES = ("One→One", "One→Many", "Many→One", "Many→Many", "Many→Many*")


def _parse_line(text: str, n_src: int, path: Path, line: int) -> Segments:
    """One JSON line -> its segments; anything malformed raises naming the line."""
    try:
        segs = parse_json(text, path, line)["segments"]
    except (TypeError, KeyError):
        raise InputError('not a JSON object with a "segments" list', path,
                         line) from None
    if not isinstance(segs, list) or not all(
            isinstance(s, list) and all(isinstance(t, str) for t in s) for s in segs):
        raise InputError('"segments" must be a list of lists of strings', path, line)
    if len(segs) != n_src + 1:
        raise InputError(f"has {len(segs)} segments but the source line has {n_src} "
                         f"tokens (+1 for </s>)", path, line)
    return segs


def read_segments(path: Path, src: Sequence[str]) -> list[Segments]:
    """Read a segments file, checked line by line against the source sentences."""
    lines = read_lines(path)
    if len(lines) != len(src):
        raise InputError(f"has {len(lines)} lines but the source has {len(src)}",
                         path)
    return [_parse_line(text, len(s.split()), path, n)
            for n, (text, s) in enumerate(zip(lines, src, strict=True), start=1)]


def count(segs: Segments) -> tuple[int, int, int]:
    """(positions, non-empty segments, output words) of one sentence."""
    nonempty = [s for s in segs if s]
    return len(segs), len(nonempty), sum(len(s) for s in nonempty)


def stats_row(model: str, testset: str, group: tuple, members: list[Segments]
              ) -> list:
    """One row of the statistics table for a group of sentences."""
    positions = segments = words = 0
    for segs in members:
        p, s, w = count(segs)
        positions, segments, words = positions + p, segments + s, words + w
    avg = words / segments if segments else float("nan")
    return [model, testset, *group, len(members), positions, positions - segments,
            segments, words, avg]


def segment_stats(src: Sequence[str], by_model: dict[str, list[Segments]],
                  testset: str, bounds: Sequence[int]) -> pd.DataFrame:
    """Average segment length (footnote 4) per model, overall and per length group."""
    index = [assign_group(len(line.split()), bounds) for line in src]
    rows = []
    for model, segs in by_model.items():
        rows.append(stats_row(model, testset, ("all", 0, None), segs))
        for g, group in enumerate(length_groups(bounds)):
            members = [s for s, gi in zip(segs, index, strict=True) if gi == g]
            rows.append(stats_row(model, testset, group, members))
    df = pd.DataFrame(rows, columns=STATS_COLUMNS)
    return df.astype({"lower": "Int64", "upper": "Int64"})


def emitted(segs: Segments) -> list[tuple[int, list[str]]]:
    """(1-based source position, tokens) of each non-empty segment, in order."""
    return [(i, s) for i, s in enumerate(segs, start=1) if s]


def pick_examples(src: Sequence[str], n: int, max_words: int, seed: int
                  ) -> list[int]:
    """A seeded sample of n line indices (sorted) among sentences <= max_words."""
    short = [i for i, line in enumerate(src) if 0 < len(line.split()) <= max_words]
    pool = short if len(short) >= n else list(range(len(src)))
    return sorted(random.Random(seed).sample(pool, min(n, len(pool))))


def example_rows(src: Sequence[str], ref: Sequence[str],
                 by_model: dict[str, list[Segments]], testset: str,
                 indices: Sequence[int]) -> pd.DataFrame:
    """Table 2 rows: source, each model's segments [[position, text]], reference."""
    rows = []
    for i in indices:
        for model, segs in by_model.items():
            shown = [[pos, " ".join(toks)] for pos, toks in emitted(segs[i])]
            rows.append([testset, i + 1, model, src[i],
                         json.dumps(shown, ensure_ascii=False), ref[i]])
    return pd.DataFrame(rows, columns=EXAMPLE_COLUMNS)


def phrase_pairs(src_tokens: Sequence[str], segs: Segments
                 ) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """(input phrase, output phrase) pairs of a sentence (Appendix C grouping)."""
    words = [*src_tokens, EOS]
    pairs, pending = [], []
    for word, out in zip(words, segs, strict=True):
        pending.append(word)
        if out:
            pairs.append((tuple(pending), tuple(out)))
            pending = []
    return pairs


def categories(src: tuple[str, ...], tgt: tuple[str, ...], unk: str) -> list[str]:
    """The Appendix C categories a pair belongs to (Many→Many* also Many→Many)."""
    name = f"{'One' if len(src) == 1 else 'Many'}→{'One' if len(tgt) == 1 else 'Many'}"
    if name == "Many→Many" and unk not in src and unk not in tgt:
        return [name, "Many→Many*"]
    return [name]


def mapping_rows(model: str, testset: str, pairs: Counter, top: int, unk: str
                 ) -> list[list]:
    """The `top` most frequent pairs of each category (ties: alphabetical)."""
    ranked = sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0]))
    rows = []
    for category in CATEGORIES:
        chosen = [(p, c) for p, c in ranked if category in categories(*p, unk)]
        rows += [[model, testset, category, r, " ".join(s), " ".join(t), c]
                 for r, ((s, t), c) in enumerate(chosen[:top], start=1)]
    return rows


def phrase_mappings(src: Sequence[str], by_model: dict[str, list[Segments]],
                    testset: str, top: int, unk: str = UNK) -> pd.DataFrame:
    """Most frequent phrase mappings per category and model (Appendix C)."""
    rows = []
    for model, segs in by_model.items():
        pairs = Counter(p for line, s in zip(src, segs, strict=True)
                        for p in phrase_pairs(line.split(), s))
        rows += mapping_rows(model, testset, pairs, top, unk)
    return pd.DataFrame(rows, columns=MAPPING_COLUMNS)


def read_models(named: Sequence[tuple[str, Path]], src: Sequence[str]
                ) -> dict[str, list[Segments]]:
    """Each model's segments; names must be unique."""
    out: dict[str, list[Segments]] = {}
    for name, path in named:
        if name in out:
            raise InputError(f"model {name!r} given twice in --segments", path)
        out[name] = read_segments(path, src)
    return out


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of the segment analyses."""
    p = ArgumentParser(prog="python -m phrasenmt.evaluate.segments",
                       description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="analysis", required=True)
    parsers = {name: sub.add_parser(name, help=text) for name, text in (
        ("stats", "average segment length, overall and per source length"),
        ("examples", "sampled sentences with their segmentations (Table 2)"),
        ("mappings", "most frequent phrase mappings in five categories"))}
    for q in parsers.values():
        q.add_argument("--src", type=Path, required=True, help="word-level source")
        q.add_argument("--segments", type=named_path, nargs="+", required=True,
                       metavar="NAME=FILE", help="greedy segments of each model")
        q.add_argument("--testset", required=True, help="name of the test set")
        q.add_argument("--out", type=output_file, required=True, help="output TSV")
    parsers["stats"].add_argument("--bins", type=parse_bounds, default=[15, 25, 35, 45],
                                  help="upper bounds of the source-length groups")
    ex = parsers["examples"]
    ex.add_argument("--ref", type=Path, required=True, help="tokenized reference")
    ex.add_argument("--n", type=positive_int, default=3, help="number of sentences")
    ex.add_argument("--max-words", type=positive_int, default=25,
                    help="draw from sentences of at most this many source words")
    ex.add_argument("--seed", type=nonnegative_int, default=1, help="sampling seed")
    mp = parsers["mappings"]
    mp.add_argument("--top", type=positive_int, default=10, help="pairs per category")
    mp.add_argument("--unk", default=UNK, help="the unknown-word token")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run one analysis and write its tidy TSV."""
    args = build_parser().parse_args(argv)
    src = read_lines(args.src)
    by_model = read_models(args.segments, src)
    if args.analysis == "stats":
        df = segment_stats(src, by_model, args.testset, args.bins)
    elif args.analysis == "examples":
        ref = read_lines(args.ref)
        if len(ref) != len(src):
            raise InputError(f"has {len(ref)} lines but the source has {len(src)}",
                             args.ref)
        picked = pick_examples(src, args.n, args.max_words, args.seed)
        df = example_rows(src, ref, by_model, args.testset, picked)
    else:
        df = phrase_mappings(src, by_model, args.testset, args.top, args.unk)
    write_tsv(df, args.out)
    return 0


if __name__ == "__main__":
    run_cli(main)
