"""NPMT segment tables from ``phrasenmt.evaluate.segments`` TSVs (Huang et al. 2018).

    segments  --tsv F --order A,B --out-md/--out-tex/--out-csv
        average segment length (footnote 4) per model, overall and per source
        length group (the group's sentence count in its header).
    examples  --tsv F --order A,B --out-...
        Table 2: the source with each word's position, each model's greedy
        output with "•" between segments and the emitting position of each.
    mappings  --tsv F --order A,B --out-...
        Appendix C: the most frequent phrase mappings in five categories.
    reordering  --tsv F --order A,B --out-...
        BLEU by the reference's reordering distance (phrasenmt.evaluate.reordering),
        mean ± sd over each model's seeds.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from phrasenmt.cli import ArgumentParser, add_table_outputs
from phrasenmt.evaluate.reordering import COLUMNS as REORDERING_COLUMNS
from phrasenmt.evaluate.segments import (
    CATEGORIES,
    EXAMPLE_COLUMNS,
    MAPPING_COLUMNS,
    STATS_COLUMNS,
)
from phrasenmt.io import InputError, output_set, run_cli
from phrasenmt.report import seeds as sd
from phrasenmt.report.continuous import by_order, read_tsv
from phrasenmt.report.npmt import (
    latex_text,
    read_text_tsv,
    simple_latex,
    simple_markdown,
)
from phrasenmt.report.style import parse_order
from phrasenmt.report.tables import write_text

SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
GREEDY_NOTE = "Greedy decoding, as the paper's Table 2."


def segments_display(df: pd.DataFrame) -> pd.DataFrame:
    """Models x groups of average segment length; headers carry sentence counts."""
    groups = list(dict.fromkeys(df["group"]))
    counts = df.drop_duplicates("group").set_index("group")["sentences"]
    shown = pd.DataFrame({"model": list(dict.fromkeys(df["model"]))})
    for g in groups:
        values = df[df["group"] == g].set_index("model")["avg_segment_length"]
        shown[f"{g} ({counts[g]})"] = [
            "–" if pd.isna(values[m]) else f"{values[m]:.2f}" for m in shown["model"]]
    overall = df[df["group"] == "all"].set_index("model")
    shown["empty positions"] = [
        f"{100 * overall.loc[m, 'empty_positions'] / overall.loc[m, 'positions']:.1f}%"
        for m in shown["model"]]
    return shown


def run_segments(args: argparse.Namespace) -> None:
    """Average segment length table."""
    df = by_order(read_tsv(args.tsv, STATS_COLUMNS), "model", args.order)
    if df.empty:
        raise InputError("no rows", args.tsv)
    shown = segments_display(df)
    notes = [("Average segment length = output words / non-empty segments "
             "(footnote 4), by source length in words (sentences in brackets); "
             "empty positions: source positions (</s> included) that emit nothing."),
             GREEDY_NOTE]
    write_all(shown, df, "NPMT: average segment length", notes, args)


def superscript(position: int) -> str:
    """A position as Unicode superscript digits (Markdown)."""
    return str(position).translate(SUPERSCRIPT)


def latex_mark(position: int) -> str:
    """A position as a LaTeX superscript."""
    return f"$^{{{position}}}$"


@dataclass(frozen=True)
class Marks:
    """How one output format writes position marks, text and the separator."""

    mark: Callable[[int], str]  # a position as a superscript
    text: Callable[[str], str]  # escaping of the words
    bullet: str  # between segments


MARKDOWN = Marks(superscript, str, "•")  # simple_markdown escapes the cells
LATEX = Marks(latex_mark, latex_text, r"$\bullet$")


def source_text(tokens: list[str], fmt: Marks) -> str:
    """The source with each word's 1-based position before it."""
    return " ".join(f"{fmt.mark(i)} {fmt.text(w)}" for i, w in enumerate(tokens, 1))


def segments_text(row: pd.Series, fmt: Marks) -> str:
    """Each emitting position before its segment, a bullet between segments."""
    try:
        shown = [(int(pos), str(text)) for pos, text in json.loads(row.segments)]
    except (json.JSONDecodeError, TypeError, ValueError):
        raise InputError(f"line {row.line}, model {row.model}: segments is not a "
                         "JSON list of [position, text]", "--tsv") from None
    return f" {fmt.bullet} ".join(f"{fmt.mark(p)} {fmt.text(t)}" for p, t in shown)


def examples_display(df: pd.DataFrame, fmt: Marks) -> pd.DataFrame:
    """Rows (line, kind, text): source, each model's greedy output, reference."""
    rows = []
    for line, group in df.groupby("line", sort=False):
        first = group.iloc[0]
        rows.append([line, "source", source_text(str(first.source).split(), fmt)])
        rows += [[line, f"{row.model} greedy", segments_text(row, fmt)]
                 for _, row in group.iterrows()]
        rows.append([line, "reference", fmt.text(str(first.reference))])
    return pd.DataFrame(rows, columns=["line", "", "text"])


def run_examples(args: argparse.Namespace) -> None:
    """Table 2 style examples in Markdown (superscripts) and LaTeX ($^{i}$)."""
    df = by_order(read_text_tsv(args.tsv, EXAMPLE_COLUMNS), "model", args.order)
    if df.empty:
        raise InputError("no rows", args.tsv)
    notes = [("Superscripts: the source position of a word, and the position that "
              "emitted a segment (the last, </s>, is n+1); • separates segments."),
             GREEDY_NOTE]
    write_text(args.out_md, simple_markdown(examples_display(df, MARKDOWN),
               "NPMT: translations with their segmentations", notes))
    write_text(args.out_tex, examples_latex(examples_display(df, LATEX), notes))
    write_csv(df, args.out_csv)


def examples_latex(df: pd.DataFrame, notes: list[str]) -> str:
    """LaTeX of the examples (the text column is LaTeX already)."""
    out = [r"\begin{tabular}{rlp{0.7\linewidth}}", r"\toprule",
           r"line & & text \\", r"\midrule"]
    out += [f"{r.line} & {latex_text(str(r[1]))} & {r.text} " + r"\\"
            for r in df.itertuples(index=False)]
    out.append(r"\bottomrule")
    out += [rf"\multicolumn{{3}}{{l}}{{\footnotesize {latex_text(n)}}} \\"
            for n in notes]
    return "\n".join([*out, r"\end{tabular}", ""])


def mappings_display(df: pd.DataFrame) -> pd.DataFrame:
    """Ranks x categories: "source → target (count)" cells ("" when fewer)."""
    top = int(df["rank"].max()) if not df.empty else 0
    shown = pd.DataFrame({"rank": range(1, top + 1)})
    for cat in CATEGORIES:
        sub = df[df["category"] == cat].set_index("rank")
        shown[cat] = [f"{sub.loc[r, 'source']} → {sub.loc[r, 'target']} "
                      f"({sub.loc[r, 'count']})" if r in sub.index else ""
                      for r in shown["rank"]]
    return shown


def run_mappings(args: argparse.Namespace) -> None:
    """Appendix C: one block of five category columns per model."""
    df = by_order(read_text_tsv(args.tsv, MAPPING_COLUMNS), "model", args.order)
    try:
        df = df.astype({"rank": int, "count": int})
    except ValueError:
        raise InputError("rank and count must be integers", args.tsv) from None
    blocks = []
    for model in [m for m in args.order if m in set(df["model"])]:
        shown = mappings_display(df[df["model"] == model])
        blocks.append(shown.assign(rank=[f"{model} {r}" for r in shown["rank"]]))
    silent = silent_models(args, set(df["model"]))
    notes = [("Input words that emit nothing are grouped with the next position "
             "that emits (Appendix C); count in brackets. Many→Many*: without "
             "<unk>."), GREEDY_NOTE]
    if silent:
        notes.append(f"No mappings for {', '.join(silent)}: in greedy decoding of "
                     f"the test set {'it' if len(silent) == 1 else 'each'} emitted "
                     "no segment (every position empty; the segment-length table "
                     "says so too).")
    shown = (pd.concat(blocks, ignore_index=True) if blocks
             else mappings_display(df)).rename(columns={"rank": "model, rank"})
    write_all(shown, df, "NPMT: most frequent phrase mappings", notes, args)


def silent_models(args: argparse.Namespace, present: set[str]) -> list[str]:
    """The models of --order without mapping rows; each must have emitted no
    segment at all by the segment statistics (--stats), else the mappings
    TSV is incomplete: an error naming it."""
    missing = [m for m in args.order if m not in present]
    if not missing:
        return []
    if args.stats is None:
        raise InputError(f"no rows for {', '.join(missing)} (give --stats to "
                         "show models that emitted no segment)", args.tsv)
    stats = read_tsv(args.stats, STATS_COLUMNS)
    overall = stats[stats["group"] == "all"].groupby("model")["segments"].sum()
    for model in missing:
        if model not in overall.index:
            raise InputError(f"model {model} of --order has no 'all' row", args.stats)
        if int(overall[model]) > 0:
            raise InputError(f"model {model} emitted {int(overall[model])} segments "
                             f"(--stats {args.stats}) but has no mapping rows",
                             args.tsv)
    return missing


def reordering_display(df: pd.DataFrame) -> pd.DataFrame:
    """Models x distance groups of BLEU, mean ± sd over seeds; headers carry counts."""
    groups = list(dict.fromkeys(df["group"]))
    counts = df.drop_duplicates("group").set_index("group")["sentences"]
    shown = pd.DataFrame({"model": list(dict.fromkeys(df["model"]))})
    for g in groups:
        rows = df[df["group"] == g]
        cells = []
        for m in shown["model"]:
            scores = rows.loc[rows["model"] == m, "bleu"].dropna().tolist()
            mean, spread = sd.mean_sd(scores) if scores else (float("nan"), float("nan"))
            cells.append(sd.spread(mean, spread, len(scores)))
        shown[f"{g} ({counts[g]})"] = cells
    shown["seeds"] = [df.loc[df["model"] == m, "seed"].nunique() for m in shown["model"]]
    return shown


def run_reordering(args: argparse.Namespace) -> None:
    """BLEU by reordering distance table."""
    df = by_order(read_tsv(args.tsv, REORDERING_COLUMNS), "model", args.order)
    if df.empty:
        raise InputError("no rows", args.tsv)
    notes = [("Tokenized BLEU of the test sentences grouped by the reference's "
              "reordering distance: the largest number of positions a source word "
              "moves in the gold alignment (sentences in brackets; 0 = the reference "
              "keeps the source order). Mean ± sd over seeds; beam search.")]
    write_all(reordering_display(df), df, "BLEU by reordering distance", notes, args)


def write_csv(df: pd.DataFrame, path: Path) -> None:
    """The tidy rows as CSV, atomically."""
    write_text(path, df.to_csv(index=False, lineterminator="\n", float_format="%.4f"))


def write_all(shown: pd.DataFrame, tidy: pd.DataFrame, title: str,
              notes: list[str], args: argparse.Namespace) -> None:
    """Markdown and LaTeX of the shown table, CSV of the tidy rows."""
    write_text(args.out_md, simple_markdown(shown, title, notes))
    write_text(args.out_tex, simple_latex(shown, notes))
    write_csv(tidy, args.out_csv)


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of the segment tables."""
    p = ArgumentParser(prog="python -m phrasenmt.report.segments",
                       description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="table", required=True)
    for name, build, text in (
            ("segments", run_segments, "average segment length (footnote 4)"),
            ("examples", run_examples, "segmented examples (Table 2)"),
            ("mappings", run_mappings, "phrase mappings (Appendix C)"),
            ("reordering", run_reordering, "BLEU by reordering distance")):
        t = sub.add_parser(name, help=text)
        t.add_argument("--tsv", type=Path, required=True,
                       help="TSV from phrasenmt.evaluate.segments (reordering: "
                            "from phrasenmt.evaluate.reordering)")
        t.add_argument("--order", type=parse_order, required=True,
                       help="comma-separated model order")
        if name == "mappings":
            t.add_argument("--stats", type=Path,
                           help="segment statistics TSV (phrasenmt.evaluate."
                                "segments stats): a model of --order without "
                                "mapping rows is shown as emitting no segment "
                                "when it emitted none")
        add_table_outputs(t)
        t.set_defaults(build=build)
    return p


def main(argv: list[str] | None = None) -> int:
    """Build one table."""
    args = build_parser().parse_args(argv)
    with output_set():  # all of its outputs, or none
        args.build(args)
    return 0


if __name__ == "__main__":
    run_cli(main)
