"""Target phrases, filter counts and fertility labels of a corpus: the phrase stage.

    python -m phrasenmt.phrases --src F --tgt F --alignment F(Pharaoh i-j)
        --tgt-lang L [--min-count 2] [--max-length 6] [--fertility-from phrases]
        --out-phrases F --out-filters F --out-fertility F --out-fertility2 F

The extraction, the five filters and the fertility labels are
`phrasenmt.align.phrases`; this module reads the corpus and writes the files.
"""

from __future__ import annotations

import argparse

from phrasenmt.align.pharaoh import read_alignments, read_corpus
from phrasenmt.align.phrases import (
    Extraction,
    Phrase,
    apply_filters,
    corpus_counts,
    extract,
    fertility,
    pmi_scores,
    stopword_set,
    write_phrases,
)
from phrasenmt.cli import ArgumentParser, field_type, output_file
from phrasenmt.config_model import Phrases
from phrasenmt.io import output_set, run_cli, write_lines


def build_parser() -> argparse.ArgumentParser:
    """Argument parser for the phrase extraction CLI."""
    p = ArgumentParser(prog="python -m phrasenmt.phrases",
                       description="Target phrases from one-to-many alignments, the paper's five "
                       "filters, fertility.")
    p.add_argument("--src", required=True, help="tokenized source text")
    p.add_argument("--tgt", required=True, help="tokenized target text")
    p.add_argument("--alignment", required=True, help="symmetrized Pharaoh links")
    p.add_argument("--tgt-lang", required=True, help="ISO 639-1 code, stopwords")
    p.add_argument("--min-count", type=field_type(Phrases, "min_count"), default=2,
                   help="filter 1: occurrences in the target text (default 2)")
    p.add_argument("--max-length", type=field_type(Phrases, "max_length"), default=6,
                   help="longest target phrase kept, in words; longer candidates "
                   "are counted as too_long (config phrases.max_length; default 6)")
    p.add_argument("--fertility-from", choices=("phrases", "alignment"),
                   default="phrases",
                   help="fertility label of a source word aligned to several "
                   "target words, capped at 3: phrases: its phrase's length if the "
                   "phrase survived the filters, else 1; alignment: its number of "
                   "aligned words (default: %(default)s)")
    for name, what in (
            ("phrases", "TSV of the kept phrases (phrase, frequency, pmi)"),
            ("filters", ("TSV of what each extraction step and filter removed, "
             "alone and in order")),
            ("fertility", ("fertility label 0-3 of every source token, a line per "
             "sentence")),
            ("fertility2", ("the same labels in two classes: 0 word (0, 1), 1 phrase "
             "(2, 3)"))):
        p.add_argument(f"--out-{name}", type=output_file, required=True,
                       help=f"output: {what}")
    return p


def filter_table(ex: Extraction, rows: list[tuple], kept: set[Phrase]) -> list[str]:
    """Lines of the filters TSV: extraction counts, then the five filters."""
    left = ex.one_to_many - ex.non_contiguous
    table = [("one_to_many_links", "occurrences", 0, 0, ex.one_to_many),
             ("non_contiguous", "occurrences", ex.non_contiguous,
              ex.non_contiguous, left),
             ("too_long", "occurrences", ex.too_long, ex.too_long,
              left - ex.too_long),
             ("candidates", "types", 0, 0, len(ex.counts)), *rows,
             ("kept", "types", 0, 0, len(kept))]
    head = "filter\tunit\tremoved_alone\tremoved_in_order\tremaining"
    return [head, *("\t".join(map(str, r)) for r in table)]


def main(argv: list[str] | None = None) -> int:
    """Entry point of `python -m phrasenmt.phrases`."""
    args = build_parser().parse_args(argv)
    stopwords = stopword_set(args.tgt_lang)
    src, tgt = read_corpus(args.src, args.tgt)
    alignments = read_alignments(args.alignment, src, tgt)
    ex = extract(tgt, alignments, args.max_length)
    occurrences = corpus_counts(tgt, set(ex.counts))
    pmi = pmi_scores(tgt, set(ex.counts), occurrences)
    kept, rows = apply_filters(occurrences, pmi, args.min_count, stopwords)
    with output_set():  # all of its outputs, or none
        write_phrases(args.out_phrases, kept, occurrences, pmi)
        write_lines(args.out_filters, filter_table(ex, rows, kept))
        raw = args.fertility_from == "alignment"
        fert4 = [fertility(len(s), t, links, spans, kept, raw)
                 for s, t, links, spans in zip(src, tgt, alignments, ex.spans)]
        write_lines(args.out_fertility, [" ".join(map(str, f)) for f in fert4])
        write_lines(args.out_fertility2,
                    [" ".join("1" if x >= 2 else "0" for x in f) for f in fert4])
    print(f"{len(kept)} phrases kept of {len(ex.counts)} candidates")
    return 0


if __name__ == "__main__":
    run_cli(main)
