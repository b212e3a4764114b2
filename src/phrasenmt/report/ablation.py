"""Ablation table (Xu et al. 2020, Table 2): BLEU, Δ, size, relative times.

One row per model on one test set: tokenized BLEU (as the paper reports),
Δ BLEU to the baseline with a dagger for p < alpha, parameters in millions,
training time per target token (summary.json) and decoding time per
generated token (the translate rule's Snakemake benchmark file over the
hypothesis tokens, </s> included), both relative to the baseline of the same run.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import pandas as pd

from phrasenmt.cli import ArgumentParser, alpha_level, output_file
from phrasenmt.evaluate.length import named_path
from phrasenmt.io import (
    InputError,
    atomic_open,
    read_nonempty_lines,
    read_tsv,
    run_cli,
)
from phrasenmt.report import tables

COLUMNS = ["model", "bleu_tok", "delta", "significant", "params_m",
           "train_s_per_token", "decode_s_per_token", "train_rel", "decode_rel"]
HEADERS = ["model", "BLEU", "Δ", "params (M)", "train time", "decode time"]


def train_per_token(path: Path) -> float:
    """Training seconds per target token from a summary.json."""
    data = tables.load_json(path)
    seconds = tables.get_key(data, "train_seconds", path, number=True)
    tokens = tables.get_key(data, "target_tokens", path, number=True)
    if tokens <= 0:
        raise InputError("key 'target_tokens' must be positive", path)
    return seconds / tokens


def decode_per_token(benchmark: Path, hyps: Path) -> float:
    """Decoding wall-clock seconds (benchmark 's' column) per generated token."""
    df = read_tsv(benchmark, ("s",))  # checked as text first: NUL, CR, UTF-8
    try:
        seconds = float(df["s"].iloc[-1])
        if not (math.isfinite(seconds) and seconds >= 0):
            raise ValueError(seconds)
    except (IndexError, ValueError):
        raise InputError("not a Snakemake benchmark file: no seconds in column 's'",
                         benchmark) from None
    tokens = sum(len(line.split()) + 1
                 for line in read_nonempty_lines(hyps, "hypotheses"))
    return seconds / tokens


def named(pairs: list[tuple[str, Path]], option: str) -> dict[str, Path]:
    """NAME=FILE options -> dict; duplicates raise."""
    out: dict[str, Path] = {}
    for name, path in pairs:
        if name in out:
            raise InputError(f"model {name!r} given twice", option)
        out[name] = path
    return out


def ablation_table(args: argparse.Namespace) -> pd.DataFrame:
    """Rows in --order; times relative to the baseline."""
    evals, summaries = named(args.eval, "--eval"), named(args.summary, "--summary")
    benches, hyps = named(args.benchmark, "--benchmark"), named(args.hyp, "--hyp")
    rows = []
    for model in args.order:
        for name, given in (("--eval", evals), ("--summary", summaries),
                            ("--benchmark", benches), ("--hyp", hyps)):
            if model not in given:
                raise InputError(f"no {name} given for model {model!r}", name)
        data = tables.load_json(evals[model])
        bleu = tables.get_key(data, "bleu_tok.score", evals[model], number=True)
        _, marked = tables.significance(data, evals[model], args.baseline, args.alpha)
        params = tables.summary_fields(summaries[model], "train_seconds")[0]
        rows.append([model, bleu, 0.0, marked, params,
                     train_per_token(summaries[model]),
                     decode_per_token(benches[model], hyps[model]), 0.0, 0.0])
    df = pd.DataFrame(rows, columns=COLUMNS)
    if args.baseline not in args.order:
        raise InputError(f"baseline {args.baseline!r} is not in --order", "--order")
    base = df.set_index("model").loc[args.baseline]
    df["delta"] = df["bleu_tok"] - base["bleu_tok"]
    df["train_rel"] = df["train_s_per_token"] / base["train_s_per_token"]
    df["decode_rel"] = df["decode_s_per_token"] / base["decode_s_per_token"]
    return df


def cells(row, baseline: str, mark: str) -> list[str]:
    """Formatted cells of one row."""
    delta = "–" if row.model == baseline else f"{row.delta:+.2f}"
    delta += mark if row.significant else ""
    name = f"{row.model} (baseline)" if row.model == baseline else row.model
    return [name, f"{row.bleu_tok:.2f}", delta, f"{row.params_m:.2f}",
            f"{row.train_rel:.2f}x", f"{row.decode_rel:.2f}x"]


def to_markdown(df: pd.DataFrame, args: argparse.Namespace) -> str:
    """Markdown pipe table with the notes."""
    out = [f"# Ablation ({args.testset})", "", "| " + " | ".join(HEADERS) + " |",
           "| :--- |" + " ---: |" * (len(HEADERS) - 1)]
    out += ["| " + " | ".join(cells(r, args.baseline, tables.DAGGER)) + " |"
            for r in df.itertuples()]
    return "\n".join([*out, "", notes(args), ""])


def notes(args: argparse.Namespace) -> str:
    """What the columns mean."""
    return (f"BLEU: tokenized, case-sensitive. {tables.DAGGER}: better than "
            f"{args.baseline} with p < {args.alpha:g} (paired bootstrap). Times: per "
            f"target token, relative to {args.baseline} in the same run.")


def to_latex(df: pd.DataFrame, args: argparse.Namespace) -> str:
    """LaTeX booktabs tabular."""
    n = len(HEADERS)
    out = [rf"\begin{{tabular}}{{l{'r' * (n - 1)}}}", r"\toprule",
           " & ".join(tables.latex_escape(h) for h in HEADERS).replace("Δ", r"$\Delta$")
           + r" \\", r"\midrule"]
    for r in df.itertuples():
        row = [tables.latex_escape(c) for c in cells(r, args.baseline, "")]
        row[2] = row[2].replace("–", "--") + (r"$^\dagger$" if r.significant else "")
        out.append(" & ".join(row) + r" \\")
    text = tables.latex_escape(notes(args)).replace(tables.DAGGER, r"$^\dagger$")
    text = text.replace(" < ", " $<$ ")
    foot = rf"\multicolumn{{{n}}}{{l}}{{\footnotesize {text}}} \\"
    out += [r"\bottomrule", foot, r"\end{tabular}", ""]
    return "\n".join(out)


def run_ablation(args: argparse.Namespace) -> None:
    """Build the ablation table and write Markdown, LaTeX and CSV."""
    df = ablation_table(args)
    tables.write_text(args.out_md, to_markdown(df, args))
    tables.write_text(args.out_tex, to_latex(df, args))
    with atomic_open(args.out_csv) as fh:
        df.to_csv(fh, index=False, lineterminator="\n")


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of the ablation table."""
    a = ArgumentParser(prog="python -m phrasenmt.report.ablation",
                       description=__doc__.splitlines()[0])
    for opt, what in (("--eval", "evaluation JSON"), ("--summary", "summary.json"),
                      ("--benchmark", "translate benchmark TSV"),
                      ("--hyp", "tokenized hypotheses")):
        a.add_argument(opt, type=named_path, nargs="+", required=True,
                       metavar="NAME=FILE", help=f"{what} of each model")
    a.add_argument("--baseline", required=True, help="name of the baseline model")
    a.add_argument("--order", type=tables.parse_order, required=True,
                   help="comma-separated model order of the rows")
    a.add_argument("--testset", required=True, help="test set name (title)")
    a.add_argument("--alpha", type=alpha_level, default=0.01)
    a.add_argument("--out-md", type=output_file, required=True)
    a.add_argument("--out-tex", type=output_file, required=True)
    a.add_argument("--out-csv", type=output_file, required=True)
    return a


def main(argv: list[str] | None = None) -> int:
    """Build the ablation table."""
    run_ablation(build_parser().parse_args(argv))
    return 0


if __name__ == "__main__":
    run_cli(main)
