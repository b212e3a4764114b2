"""Ablation table (Xu et al. 2020, Table 2): BLEU, Δ, size, relative times.

One row per model on one test set: tokenized BLEU (as the paper reports) as
the mean over training seeds ± sd (or "(1 seed)") and each seed's score, Δ of
the means to the baseline with a dagger where the all-seed test
(phrasenmt.evaluate.multiseed, detokenized BLEU) gives p < alpha and the p-value,
parameters in millions, training time per target token (summary.json) and
decoding time per generated token (the translate rule's Snakemake benchmark
file over the hypothesis tokens, </s> included), each a mean over seeds,
relative to the baseline of the same run.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import pandas as pd

from phrasenmt.cli import (
    ArgumentParser,
    add_table_outputs,
    alpha_level,
    named_path,
)
from phrasenmt.io import (
    InputError,
    output_set,
    read_nonempty_lines,
    read_tsv,
    run_cli,
)
from phrasenmt.report import seeds as sd
from phrasenmt.report import tables
from phrasenmt.report.wall_clock import add_timing_option, split_columns, write_csvs

COLUMNS = ["model", "seeds", "bleu_tok", "bleu_tok_sd", "bleu_tok_seeds", "delta",
           "p_value", "p_one_seed", "significant", "params_m", "train_s_per_token",
           "decode_s_per_token", "train_rel", "decode_rel", "precision"]
HEADERS = ["model", "BLEU", "BLEU per seed", "Δ", "p", "params (M)", "train time",
           "decode time", "precision"]
WALL_CLOCK_COLUMNS = ["train_s_per_token", "decode_s_per_token", "train_rel",
                      "decode_rel"]  # in the timing CSV
KINDS = ("--eval", "--seed-eval", "--summary", "--benchmark", "--hyp")


def train_per_token(path: Path) -> float:
    """Training seconds per target token from a summary.json."""
    data = tables.load_summary(path)
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


def model_files(args: argparse.Namespace, model: str) -> dict[str, list[Path]]:
    """Per option, the model's files: one --eval, the others one per seed."""
    files = {}
    for opt in KINDS:
        given = sd.named_lists(getattr(args, opt[2:].replace("-", "_")))
        if model not in given:
            raise InputError(f"no {opt} given for model {model!r}", opt)
        files[opt] = given[model]
    if len(files["--eval"]) != 1:
        raise InputError(f"model {model!r} given twice", "--eval")
    n = len(files["--seed-eval"])
    for opt in KINDS[2:]:
        if len(files[opt]) != n:
            raise InputError(f"model {model!r}: {len(files[opt])} file(s), but {n} "
                             "--seed-eval (one per seed)", opt)
    return files


def ablation_row(model: str, args: argparse.Namespace) -> list:
    """One row: BLEU over seeds, significance, size and per-token times."""
    files = model_files(args, model)
    agg_path = files["--eval"][0]
    data = sd.load_aggregate(agg_path)
    if len(data["seeds"]) != len(files["--seed-eval"]):
        raise InputError(f"{len(files['--seed-eval'])} --seed-eval file(s) for "
                         f"model {model!r}, but it has seeds {data['seeds']}",
                         agg_path)
    runs = [{**tables.load_json(p), "_path": p} for p in files["--seed-eval"]]
    mean, spread, values = sd.seed_means(runs, ["bleu_tok.score"])["bleu_tok.score"]
    p, marked, single = sd.significance(data, agg_path, args.baseline, args.alpha)
    params, _, precision = tables.summaries_fields(files["--summary"], "train_seconds")
    train = sd.mean_sd([train_per_token(p) for p in files["--summary"]])[0]
    decode = sd.mean_sd([decode_per_token(b, h) for b, h in
                         zip(files["--benchmark"], files["--hyp"], strict=True)])[0]
    return [model, sd.joined(data["seeds"]), mean, spread,
            sd.joined(f"{v:.4f}" for v in values), 0.0, p, single, marked, params, train,
            decode, 0.0, 0.0, precision]


def ablation_table(args: argparse.Namespace) -> pd.DataFrame:
    """Rows in --order; Δ and times relative to the baseline."""
    if args.baseline not in args.order:
        raise InputError(f"baseline {args.baseline!r} is not in --order", "--order")
    df = pd.DataFrame([ablation_row(m, args) for m in args.order], columns=COLUMNS)
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
    seeds = [int(s) for s in str(row.seeds).split(";")]
    scores = [float(v) for v in str(row.bleu_tok_seeds).split(";")]
    return [name, sd.spread(row.bleu_tok, row.bleu_tok_sd, len(seeds)),
            sd.per_seed(seeds, scores), delta,
            sd.p_cell(row.p_value, bool(row.p_one_seed)),
            f"{row.params_m:.2f}", f"{row.train_rel:.2f}x", f"{row.decode_rel:.2f}x",
            row.precision]


def to_markdown(df: pd.DataFrame, args: argparse.Namespace) -> str:
    """Markdown pipe table with the notes."""
    out = [f"# Ablation ({args.testset})", "", "| " + " | ".join(HEADERS) + " |",
           "| :--- |" + " ---: |" * (len(HEADERS) - 1)]
    out += ["| " + " | ".join(cells(r, args.baseline, tables.DAGGER)) + " |"
            for r in df.itertuples()]
    return "\n".join([*out, "", notes(args), ""])


def notes(args: argparse.Namespace) -> str:
    """What the columns mean."""
    return (f"BLEU: tokenized, case-sensitive, mean ± sd over training seeds (or "
            f"1 seed). {tables.DAGGER}: better than {args.baseline} with p < "
            f"{args.alpha:g} (detokenized BLEU; training seeds and test sentences "
            "both enter p, every seed of both; a model with one seed gets no "
            "mark). Times: per target "
            f"token, mean over seeds, relative to {args.baseline} in the same run.")


def to_latex(df: pd.DataFrame, args: argparse.Namespace) -> str:
    """LaTeX booktabs tabular."""
    n = len(HEADERS)
    out = [rf"\begin{{tabular}}{{l{'r' * (n - 1)}}}", r"\toprule",
           " & ".join(tables.latex_escape(h) for h in HEADERS).replace("Δ", r"$\Delta$")
           + r" \\", r"\midrule"]
    for r in df.itertuples():
        row = [tables.latex_escape(c).replace("±", r"$\pm$")
               for c in cells(r, args.baseline, "")]
        row[3] = row[3].replace("–", "--") + (r"$^\dagger$" if r.significant else "")
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
    write_csvs(*split_columns(df, ["model"], WALL_CLOCK_COLUMNS), args.out_csv,
               args.out_timing_csv)


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of the ablation table."""
    a = ArgumentParser(prog="python -m phrasenmt.report.ablation",
                       description=__doc__.splitlines()[0])
    for opt, what in (("--eval", "all-seed evaluation JSON (multiseed)"),
                      ("--seed-eval", "evaluation JSON (bleu), once per seed"),
                      ("--summary", "summary.json, once per seed"),
                      ("--benchmark", "translate benchmark TSV, once per seed"),
                      ("--hyp", "tokenized hypotheses, once per seed")):
        a.add_argument(opt, type=named_path, nargs="+", required=True,
                       metavar="NAME=FILE", help=f"{what} of each model")
    a.add_argument("--baseline", required=True, help="name of the baseline model")
    a.add_argument("--order", type=tables.parse_order, required=True,
                   help="comma-separated model order of the rows")
    a.add_argument("--testset", required=True, help="test set name (title)")
    a.add_argument("--alpha", type=alpha_level, default=0.01,
                   help="significance level of the dagger: a row better than the "
                   "baseline with p < alpha in the all-seed test (default: "
                   "%(default)s, as evaluate.alpha)")
    add_table_outputs(a, timing=True)
    add_timing_option(a)
    return a


def main(argv: list[str] | None = None) -> int:
    """Build the ablation table."""
    with output_set():  # all of its outputs, or none
        run_ablation(build_parser().parse_args(argv))
    return 0


if __name__ == "__main__":
    run_cli(main)
