"""NPMT tables (Huang et al. 2018, Tables 1/3/5) and sweep tables (Table 7).

    table  --eval MODEL:DECODING=JSON... --seed-eval MODEL:DECODING=JSON...
           --decode MODEL=TEXT... [--baseline B] [--note LINE]... --order A,B
           --testset T --alpha A --out-md/-tex/-csv
        tokenized BLEU of greedy and beam decoding per row, mean ± sd over
        training seeds (--seed-eval: phrasenmt.evaluate.bleu, once per seed),
        and each seed's score; † marks p < alpha against the baseline's same
        decoding from the all-seed test (--eval: phrasenmt.evaluate.multiseed,
        detokenized BLEU, every seed of both); a row not decoded one way: "–".
    sweep  --name N --key K --base M --eval VALUE:DECODING=JSON... --out-...
        one row per (test set, value): the model and its BLEU greedy / beam,
        mean ± sd over the seeds given (one JSON per seed).

The segment tables are in ``phrasenmt.report.segments``, the gates figure in
``phrasenmt.report.gates``.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from phrasenmt.cli import ArgumentParser, add_table_outputs, alpha_level
from phrasenmt.io import InputError, atomic_open, output_set, read_tsv, run_cli
from phrasenmt.report import seeds as sd
from phrasenmt.report import tables
from phrasenmt.report.style import parse_order

DECODINGS = ("greedy", "beam")
BLEU_NOTE = "BLEU: tokenized, case-sensitive (the papers' multi-bleu number)."


def read_text_tsv(path: Path, columns: Sequence[str]) -> pd.DataFrame:
    """A TSV whose text cells stay text (a word "null" or "NA" is not missing)."""
    return read_tsv(path, columns, keep_default_na=False, dtype=str)


def named_text(text: str) -> tuple[str, str]:
    """argparse type for NAME=TEXT."""
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=TEXT, got {text!r}")
    return name, value


def decoding_path(text: str) -> tuple[str, str, Path]:
    """argparse type for NAME:DECODING=FILE."""
    key, sep, path = text.partition("=")
    name, colon, decoding = key.rpartition(":")
    if not sep or not colon or not name or not path or decoding not in DECODINGS:
        raise argparse.ArgumentTypeError(
            f"expected NAME:DECODING=FILE with DECODING one of "
            f"{', '.join(DECODINGS)}, got {text!r}")
    return name, decoding, Path(path)


def bleu_cell(path: Path, seed_paths: list[Path], baseline: str | None,
              alpha: float) -> dict:
    """Tokenized BLEU over seeds, p-value and significance of one decoding."""
    data = sd.load_aggregate(path)
    if len(seed_paths) != len(data["seeds"]):
        raise InputError(f"{len(seed_paths)} --seed-eval file(s), but it has seeds "
                         f"{data['seeds']}", path)
    runs = [{**tables.load_json(p), "_path": p} for p in seed_paths]
    mean, spread, values = sd.seed_means(runs, ["bleu_tok.score"])["bleu_tok.score"]
    p, sig, single = (math.nan, False, False) if baseline is None else \
        sd.significance(data, path, baseline, alpha)
    return {"bleu": mean, "sd": spread, "seeds": sd.joined(data["seeds"]),
            "scores": sd.joined(f"{v:.4f}" for v in values), "p": p,
            "one_seed": single, "significant": sig}


EMPTY = {"bleu": math.nan, "sd": math.nan, "seeds": "", "scores": "",
         "p": math.nan, "one_seed": False, "significant": False}


def npmt_cells(args: argparse.Namespace) -> dict[tuple[str, str], dict]:
    """(model, decoding) -> its BLEU cell, from --eval and --seed-eval."""
    seeds: dict[tuple[str, str], list[Path]] = {}
    for name, decoding, path in args.seed_eval:
        seeds.setdefault((name, decoding), []).append(path)
    cells: dict[tuple[str, str], dict] = {}
    for name, decoding, path in args.eval:
        if name not in args.order:
            raise InputError(f"model {name!r} is not in --order", path)
        if (name, decoding) in cells:
            raise InputError(f"{name}:{decoding} given twice", "--eval")
        cells[name, decoding] = bleu_cell(path, seeds.get((name, decoding), []),
                                          args.baseline, args.alpha)
    return cells


def npmt_table(args: argparse.Namespace) -> pd.DataFrame:
    """One row per model in --order: BLEU greedy / beam, significance, settings."""
    cells = npmt_cells(args)
    labels = dict(args.decode)
    rows = []
    for model in args.order:
        if not any((model, d) in cells for d in DECODINGS):
            raise InputError(f"no --eval given for model {model!r}", "--eval")
        row = {"model": model, "beam_search": labels.get(model, "")}
        for d in DECODINGS:
            cell = cells.get((model, d), EMPTY)
            row.update({f"bleu_{d}": cell["bleu"], f"bleu_{d}_sd": cell["sd"],
                        f"seeds_{d}": cell["seeds"], f"bleu_{d}_seeds": cell["scores"],
                        f"p_{d}": cell["p"], f"p_{d}_one_seed": cell["one_seed"],
                        f"significant_{d}": cell["significant"]})
        rows.append(row)
    return pd.DataFrame(rows)


def _seed_scores(row: pd.Series, d: str) -> str:
    """A decoding's per-seed scores ("" where not decoded)."""
    if not row[f"seeds_{d}"]:
        return ""
    seeds = [int(s) for s in str(row[f"seeds_{d}"]).split(";")]
    return f"{d} " + sd.per_seed(seeds, [float(v) for v in
                                         str(row[f"bleu_{d}_seeds"]).split(";")])


def table_cells(row: pd.Series, baseline: str | None, mark: str) -> list[str]:
    """Formatted cells of one NPMT table row ("–" where not decoded)."""
    name = f"{row.model} (baseline)" if row.model == baseline else row.model
    out = [name]
    for d in DECODINGS:
        bleu, n = row[f"bleu_{d}"], len(str(row[f"seeds_{d}"]).split(";"))
        out.append("–" if math.isnan(bleu) else sd.spread(bleu, row[f"bleu_{d}_sd"], n)
                   + (mark if row[f"significant_{d}"] else ""))
    out += [sd.p_cell(row[f"p_{d}"], bool(row[f"p_{d}_one_seed"])) for d in DECODINGS]
    seeds = "; ".join(c for c in (_seed_scores(row, d) for d in DECODINGS) if c)
    return [*out, seeds, row.beam_search]


def table_notes(args: argparse.Namespace) -> list[str]:
    """The lines under the table."""
    notes = [BLEU_NOTE, ("Greedy: the model's argmax (λ1 = λ2 = 0); beam: the "
             "settings shown (Eq. 3 for NPMT rows)."),
             "BLEU: mean ± sd over training seeds, or (1 seed)."]
    if args.baseline:
        notes.append(f"{tables.DAGGER} better than {args.baseline} with the same "
                     f"decoding, p < {args.alpha:g} (detokenized BLEU; training "
                     "seeds and test sentences both enter p, every seed of both; "
                     "a model with one seed gets no mark).")
    return [*notes, *args.note]


HEAD = ["model", "BLEU greedy", "BLEU beam", "p greedy", "p beam", "BLEU per seed",
        "beam search"]


def table_markdown(df: pd.DataFrame, args: argparse.Namespace) -> str:
    """Markdown of the NPMT table with its notes."""
    out = [f"# NPMT: BLEU with greedy and beam search ({args.testset})", "",
           "| " + " | ".join(HEAD) + " |",
           "| :--- | ---: | ---: | ---: | ---: | :--- | :--- |"]
    out += ["| " + " | ".join(table_cells(r, args.baseline, tables.DAGGER)) + " |"
            for _, r in df.iterrows()]
    return "\n".join([*out, "", *table_notes(args), ""])


# Characters the default LaTeX fonts lack, as commands (after escaping).
LATEX_SYMBOLS = {"<": r"\textless{}", ">": r"\textgreater{}", "→": r"$\rightarrow$",
                 "≤": r"$\leq$", "λ": r"$\lambda$", "σ": r"$\sigma$", "–": "--",
                 "•": r"$\bullet$", tables.DAGGER: r"$^\dagger$", "±": r"$\pm$"}


def latex_text(text: str) -> str:
    """Text for a LaTeX cell: special characters escaped, symbols as commands."""
    return "".join(LATEX_SYMBOLS.get(c, c) for c in tables.latex_escape(text))


def markdown_cell(text: str) -> str:
    """Text for a Markdown table cell: | and < escaped (<unk> is not a tag)."""
    return text.replace("|", "\\|").replace("<", "\\<")


def table_latex(df: pd.DataFrame, args: argparse.Namespace) -> str:
    """LaTeX booktabs tabular of the NPMT table."""
    out = [r"\begin{tabular}{lrrrrll}", r"\toprule",
           " & ".join(HEAD) + r" \\", r"\midrule"]
    for _, r in df.iterrows():
        cells = table_cells(r, args.baseline, tables.DAGGER)
        out.append(" & ".join(latex_text(c) for c in cells) + r" \\")
    out.append(r"\bottomrule")
    out += [rf"\multicolumn{{{len(HEAD)}}}{{l}}{{\footnotesize {latex_text(n)}}} \\"
            for n in table_notes(args)]
    return "\n".join([*out, r"\end{tabular}", ""])


def write_outputs(md: str, tex: str, df: pd.DataFrame, args: argparse.Namespace
                  ) -> None:
    """Markdown, LaTeX and CSV, atomically."""
    tables.write_text(args.out_md, md)
    tables.write_text(args.out_tex, tex)
    with atomic_open(args.out_csv) as fh:
        df.to_csv(fh, index=False, lineterminator="\n", float_format="%.4f")


def run_table(args: argparse.Namespace) -> None:
    """Tables 1/3/5: BLEU greedy and beam of every row."""
    if args.baseline is not None and args.baseline not in args.order:
        raise InputError(f"baseline {args.baseline!r} is not in --order", "--order")
    df = npmt_table(args)
    write_outputs(table_markdown(df, args), table_latex(df, args), df, args)


def simple_markdown(df: pd.DataFrame, title: str, notes: list[str]) -> str:
    """A Markdown pipe table of strings under a heading, notes below."""
    head = "| " + " | ".join(map(str, df.columns)) + " |"
    rule = "| :--- |" + " :--- |" * (len(df.columns) - 1)
    rows = ["| " + " | ".join(markdown_cell(str(v)) for v in r) + " |"
            for r in df.itertuples(index=False)]
    return "\n".join([f"# {title}", "", head, rule, *rows, "", *notes, ""])


def simple_latex(df: pd.DataFrame, notes: list[str]) -> str:
    """A LaTeX booktabs tabular of strings, notes below."""
    n = len(df.columns)
    out = [rf"\begin{{tabular}}{{{'l' * n}}}", r"\toprule",
           " & ".join(latex_text(str(c)) for c in df.columns) + r" \\", r"\midrule"]
    out += [" & ".join(latex_text(str(v)) for v in r) + r" \\"
            for r in df.itertuples(index=False)]
    out.append(r"\bottomrule")
    out += [rf"\multicolumn{{{n}}}{{l}}{{\footnotesize {latex_text(t)}}} \\"
            for t in notes]
    return "\n".join([*out, r"\end{tabular}", ""])


def sweep_table(args: argparse.Namespace) -> pd.DataFrame:
    """Rows (test set, value) in the given order: model, BLEU greedy / beam as
    the mean (and sd) over the seeds' JSONs given."""
    scores: dict[tuple[str, str], dict] = {}
    for value, decoding, path in args.eval:
        data = tables.load_json(path)
        testset = str(tables.get_key(data, "testset", path))
        model = str(tables.get_key(data, "system", path))
        row = scores.setdefault((testset, value), {
            "testset": testset, "value": value, "model": model,
            **{d: [] for d in DECODINGS}})
        if row["model"] != model:
            raise InputError(f"value {value} is model {row['model']!r} elsewhere",
                             path)
        row[decoding].append(float(
            tables.get_key(data, "bleu_tok.score", path, number=True)))
    rows = []
    for row in scores.values():
        out = {k: row[k] for k in ("testset", "value", "model")}
        for d in DECODINGS:
            mean, spread = sd.mean_sd(row[d]) if row[d] else (math.nan, math.nan)
            out.update({f"bleu_{d}": mean, f"bleu_{d}_sd": spread,
                        f"seeds_{d}": len(row[d])})
        rows.append(out)
    return pd.DataFrame(rows)


def sweep_display(df: pd.DataFrame, base: str) -> pd.DataFrame:
    """Formatted cells of the sweep table ("–" where not decoded)."""
    shown = pd.DataFrame({
        "test set": df["testset"], "value": df["value"],
        "model": [f"{m} (base)" if m == base else m for m in df["model"]]})
    for d in DECODINGS:
        shown[f"BLEU {d}"] = [sd.spread(b, s, n) for b, s, n in zip(
            df[f"bleu_{d}"], df[f"bleu_{d}_sd"], df[f"seeds_{d}"], strict=True)]
    return shown


def run_sweep(args: argparse.Namespace) -> None:
    """A sweep's table (Table 7 for the reordering window)."""
    df = sweep_table(args)
    shown = sweep_display(df, args.base)
    notes = [BLEU_NOTE, (f"Each value trains a copy of {args.base} with {args.key} "
             "set to it; greedy and beam search as in the NPMT table; mean ± sd "
             "over training seeds, or (1 seed).")]
    write_outputs(simple_markdown(shown, f"Sweep {args.name}: {args.key}", notes),
                  simple_latex(shown, notes), df, args)


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of the NPMT and sweep tables."""
    p = ArgumentParser(prog="python -m phrasenmt.report.npmt",
                       description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="table", required=True)
    t = sub.add_parser("table", help="BLEU greedy / beam (Tables 1, 3, 5)")
    t.add_argument("--eval", type=decoding_path, nargs="+", required=True,
                   metavar="MODEL:DECODING=FILE",
                   help="all-seed BLEU JSON (multiseed) of each decoding")
    t.add_argument("--seed-eval", type=decoding_path, nargs="+", required=True,
                   metavar="MODEL:DECODING=FILE",
                   help="BLEU JSON (bleu) of each decoding, once per seed in order")
    t.add_argument("--decode", type=named_text, nargs="*", default=[],
                   metavar="MODEL=TEXT", help="beam-search settings of each row")
    t.add_argument("--baseline", help="model of the significance tests")
    t.add_argument("--note", action="append", default=[], help="a line under it")
    t.add_argument("--order", type=parse_order, required=True, help="row order")
    t.add_argument("--testset", required=True, help="test set name (title)")
    t.add_argument("--alpha", type=alpha_level, default=0.01,
                   help="significance level of the dagger: a row better than the "
                   "baseline's same decoding with p < alpha in the all-seed test "
                   "(default: %(default)s, as evaluate.alpha)")
    add_table_outputs(t)
    t.set_defaults(build=run_table)
    s = sub.add_parser("sweep", help="value -> BLEU greedy / beam of a sweep")
    s.add_argument("--name", required=True, help="sweep name (title)")
    s.add_argument("--key", required=True, help="the config key varied")
    s.add_argument("--base", required=True, help="the sweep's base model")
    s.add_argument("--eval", type=decoding_path, nargs="+", required=True,
                   metavar="VALUE:DECODING=FILE",
                   help="BLEU JSON of each point, once per seed")
    add_table_outputs(s)
    s.set_defaults(build=run_sweep)
    return p


def main(argv: list[str] | None = None) -> int:
    """Build one table."""
    args = build_parser().parse_args(argv)
    with output_set():  # all of its outputs, or none
        args.build(args)
    return 0


if __name__ == "__main__":
    run_cli(main)
