"""Discourse tables of the document-level models (Markdown, LaTeX, CSV).

    bleu        --eval JSON... --baseline B --order A,B [--alpha A]
        detokenized BLEU per (test set, model) as the mean ± sd over training
        seeds with each seed's score, the difference of the means to the
        sentence-level baseline, and † where better with p < alpha (the
        all-seed JSONs of phrasenmt.evaluate.multiseed: seeds and test
        sentences both enter p; no mark with one seed).
    contrastive --tsv SET=TSV... --order A,B
        contrastive accuracy (%) per type, each model with and without context
        (phrasenmt.evaluate.contrastive evaluate).
    pronouns    --tsv TSV... --order A,B
        noun and pronoun translation accuracy (%) (phrasenmt.evaluate.pronouns).
    cohesion    --tsv TSV --order A,B
        lexical cohesion (%) and LSA coherence, the human reference as the last
        row (phrasenmt.evaluate.cohesion).
    sweep       --parameter NAME --point VALUE=MODEL... --eval JSON...
                [--pronouns TSV...]
        one row per value of a config-driven sweep (K, N_c, integration,
        gating): the model, its BLEU (mean over the seeds' JSONs given) and
        its pronoun accuracy (first seed).
The contrastive, pronoun and cohesion tables show each model's first seed.
Each writes --out-md, --out-tex and --out-csv (the numbers, unformatted).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from phrasenmt.cli import ArgumentParser, add_table_outputs, alpha_level
from phrasenmt.io import InputError, atomic_open, output_set, run_cli
from phrasenmt.report import seeds as sd
from phrasenmt.report import tables
from phrasenmt.report.continuous import by_order, read_tsv, to_latex, to_markdown
from phrasenmt.report.style import parse_order

TITLES = {"bleu": "BLEU against the sentence-level baseline",
          "contrastive": "Contrastive accuracy (%) with and without context",
          "pronouns": "Noun and pronoun translation accuracy (%)",
          "cohesion": "Lexical cohesion (%) and coherence",
          "sweep": "Sweep: BLEU and pronoun accuracy per value"}
REFERENCE = "reference"


def _pct(value: float) -> str:
    """A share as a percentage with two decimals ('–' when undefined)."""
    return "–" if value is None or math.isnan(value) else f"{100 * value:.2f}"


def bleu_row(path: Path, args: argparse.Namespace) -> dict:
    """Model, test set, BLEU over seeds and significance of an all-seed JSON."""
    data = sd.load_aggregate(path)
    model = data["system"]
    if model not in args.order:
        raise InputError(f"key 'system' is {model!r}, which is not in --order", path)
    p_value, marked, single = sd.significance(data, path, args.baseline, args.alpha)
    mean, spread = sd.mean_sd(data["scores"])
    return {"model": model, "testset": data["testset"], "bleu": mean,
            "bleu_sd": spread, "seeds": sd.joined(data["seeds"]),
            "bleu_seeds": sd.joined(f"{v:.4f}" for v in data["scores"]),
            "p_value": p_value, "p_one_seed": single, "significant": marked}


def bleu_table(args: argparse.Namespace) -> pd.DataFrame:
    """One row per (test set, model), with the difference to the baseline."""
    df = pd.DataFrame([bleu_row(p, args) for p in args.eval])
    if df.duplicated(["model", "testset"]).any():
        raise InputError("a (model, test set) is given twice", "--eval")
    base = df[df.model == args.baseline].set_index("testset")["bleu"]
    missing = sorted(set(df.testset) - set(base.index))
    if missing:
        raise InputError(f"no baseline ({args.baseline}) evaluation for test set(s) "
                         f"{', '.join(missing)}", "--eval")
    df["delta"] = df.bleu - df.testset.map(base)
    return _in_order(df, args.order)[["testset", "model", "seeds", "bleu", "bleu_sd",
                                      "bleu_seeds", "delta", "p_value",
                                      "p_one_seed", "significant"]]


def _in_order(df: pd.DataFrame, order: list[str]) -> pd.DataFrame:
    """Rows by test set (first appearance), then by the model order."""
    testsets = list(dict.fromkeys(df.testset))
    keys = df.assign(_t=df.testset.map(testsets.index), _m=df.model.map(order.index))
    return keys.sort_values(["_t", "_m"], kind="stable").drop(
        columns=["_t", "_m"]).reset_index(drop=True)


def bleu_display(df: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """Formatted cells: mean ± sd with † when significant, each seed, Δ and p."""
    seeds = [[int(s) for s in str(v).split(";")] for v in df.seeds]
    scores = [[float(s) for s in str(v).split(";")] for v in df.bleu_seeds]
    return pd.DataFrame({
        "test set": df.testset,
        "model": [f"{m} (baseline)" if m == baseline else m for m in df.model],
        "BLEU": [sd.spread(b, s, len(n)) + (tables.DAGGER if sig else "")
                 for b, s, n, sig in zip(df.bleu, df.bleu_sd, seeds, df.significant,
                                         strict=True)],
        "BLEU per seed": [sd.per_seed(n, v) for n, v in zip(seeds, scores,
                                                             strict=True)],
        "Δ": ["" if m == baseline else f"{d:+.2f}"
              for m, d in zip(df.model, df.delta, strict=True)],
        "p": [sd.p_cell(p, bool(s)) for p, s in zip(df.p_value, df.p_one_seed,
                                                   strict=True)]})


def contrastive_table(specs: Sequence[tuple[str, Path]], order: list[str]
                      ) -> pd.DataFrame:
    """Accuracy per type (columns) for each test set, model and context setting."""
    cols = ["model", "context", "category", "bin", "items", "correct", "accuracy"]
    parts = []
    for name, path in specs:
        df = read_tsv(path, cols)
        parts.append(df[df["bin"].astype(str) == "all"].assign(testset=name))
    df = pd.concat(parts, ignore_index=True)
    by_order(df, "model", order)  # unknown models raise
    wide = df.pivot_table(index=["testset", "model", "context"], columns="category",
                          values="accuracy", aggfunc="first")
    categories = sorted(c for c in wide.columns if c != "all")
    wide = wide[categories + ["all"] * ("all" in wide.columns)].reset_index()
    wide.columns.name = None
    testsets = [n for n, _ in specs]
    keys = wide.assign(_t=wide.testset.map(testsets.index),
                       _m=wide.model.map(order.index),
                       _c=wide.context.map({"yes": 0, "no": 1}))
    return keys.sort_values(["_t", "_m", "_c"]).drop(
        columns=["_t", "_m", "_c"]).reset_index(drop=True)


def pronoun_table(paths: Sequence[Path], order: list[str]) -> pd.DataFrame:
    """Noun and pronoun accuracy (word 'all' rows) per model."""
    cols = ["model", "category", "word", "total", "aligned", "correct", "accuracy"]
    df = pd.concat([read_tsv(p, cols) for p in paths], ignore_index=True)
    df = df[df.word == "all"]
    wide = df.pivot_table(index="model", columns="category", values="accuracy",
                          aggfunc="first").reindex(columns=["noun", "pronoun"])
    wide.columns.name = None
    return by_order(wide.reset_index(), "model", order).reset_index(drop=True)


def cohesion_table(paths: Sequence[Path], order: list[str]) -> pd.DataFrame:
    """Cohesion and coherence per model in order, then the reference row."""
    cols = ["system", "kind", "cohesion", "coherence"]
    df = pd.concat([read_tsv(p, cols) for p in paths], ignore_index=True)
    refs = df[df.kind == REFERENCE].drop_duplicates("system")
    if len(refs) != 1:
        raise InputError(f"expected one reference row, found {len(refs)}", "--tsv")
    models = by_order(df[df.kind != REFERENCE].rename(columns={"system": "model"}),
                      "model", order)
    rows = pd.concat([models, refs.rename(columns={"system": "model"})])
    return rows[["model", "cohesion", "coherence"]].reset_index(drop=True)


def sweep_table(args: argparse.Namespace) -> pd.DataFrame:
    """One row per sweep value: its model, BLEU and pronoun accuracy."""
    runs: dict[str, list[float]] = {}
    for path in args.eval:  # one per seed of each model
        data = tables.load_json(path)
        model = tables.get_key(data, "system", path)
        runs.setdefault(model, []).append(
            tables.get_key(data, "bleu.score", path, number=True))
    bleu = {m: sd.mean_sd(v) + (len(v),) for m, v in runs.items()}
    acc: dict[str, float] = {}
    for path in args.pronouns or []:
        df = read_tsv(path, ["model", "category", "word", "accuracy"])
        rows = df[(df.category == "pronoun") & (df.word == "all")]
        acc.update(zip(rows.model, rows.accuracy, strict=True))
    rows = []
    for value, model in args.point:
        if model not in bleu:
            raise InputError(f"no --eval for model {model!r} (value {value})",
                             "--point")
        mean, spread, n = bleu[model]
        rows.append({args.parameter: value, "model": model, "seeds": n,
                     "bleu": mean, "bleu_sd": spread,
                     "pronoun": acc.get(model, math.nan)})
    return pd.DataFrame(rows)


def display(df: pd.DataFrame, table: str) -> pd.DataFrame:
    """The formatted cells of a non-BLEU table (shares as percentages)."""
    out = df.copy()
    if table == "sweep":
        out["bleu"] = [sd.spread(b, s, n) for b, s, n in
                       zip(out.bleu, out.bleu_sd, out.seeds, strict=True)]
        out = out.drop(columns=["bleu_sd", "seeds"])
    for col in out.columns:
        if table == "cohesion" and col == "coherence":
            out[col] = [f"{v:.3f}" for v in out[col]]
        elif col not in ("model", "testset", "context", "bleu") and \
                pd.api.types.is_float_dtype(out[col]):
            out[col] = [_pct(v) for v in out[col]]
    return out


def write_tables(df: pd.DataFrame, shown: pd.DataFrame, args: argparse.Namespace,
                 note: str = "") -> None:
    """Markdown (with the note), LaTeX (dagger as math) and the raw CSV."""
    md = to_markdown(shown, TITLES[args.table])
    tex = to_latex(shown).replace(tables.DAGGER, r"$^\dagger$").replace(
        "±", r"$\pm$")
    with output_set():  # all three, or none
        tables.write_text(args.out_md, md + (f"\n{note}\n" if note else ""))
        tables.write_text(args.out_tex, tex)
        with atomic_open(args.out_csv) as fh:
            df.to_csv(fh, index=False, lineterminator="\n", float_format="%.4f")


def _point(text: str) -> tuple[str, str]:
    """argparse type for VALUE=MODEL."""
    value, sep, model = text.partition("=")
    if not sep or not value or not model:
        raise argparse.ArgumentTypeError(f"expected VALUE=MODEL, got {text!r}")
    return value, model


def _named(text: str) -> tuple[str, Path]:
    """argparse type for NAME=FILE."""
    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise argparse.ArgumentTypeError(f"expected NAME=FILE, got {text!r}")
    return name, Path(path)


def build_parser() -> argparse.ArgumentParser:
    """Command-line options of the five tables."""
    p = ArgumentParser(prog="python -m phrasenmt.report.discourse",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="table", required=True)
    for name, title in TITLES.items():
        t = sub.add_parser(name, help=title.replace("%", "%%"))
        if name in ("bleu", "sweep"):
            t.add_argument("--eval", type=Path, nargs="+", required=True,
                           help="bleu: all-seed JSONs (phrasenmt.evaluate."
                                "multiseed); sweep: each seed's JSON "
                                "(phrasenmt.evaluate.bleu)")
        if name == "bleu":
            t.add_argument("--baseline", required=True,
                           help="the sentence-level model")
            t.add_argument("--alpha", type=alpha_level, default=0.05,
                           help="significance level of † (default: %(default)s)")
        elif name == "contrastive":
            t.add_argument("--tsv", type=_named, nargs="+", required=True,
                           metavar="SET=TSV", help="evaluate TSV of each test set")
        elif name == "pronouns":
            t.add_argument("--tsv", type=Path, nargs="+", required=True,
                           help="tidy TSVs of phrasenmt.evaluate.pronouns score "
                                "(their `all` rows are read)")
        elif name == "cohesion":
            t.add_argument("--tsv", type=Path, nargs="+", required=True,
                           help="TSVs of phrasenmt.evaluate.cohesion, at least one "
                                "with the reference's row (its --reference)")
        elif name == "sweep":
            t.add_argument("--parameter", required=True, help="e.g. K, N_c, gating")
            t.add_argument("--point", type=_point, nargs="+", required=True,
                           metavar="VALUE=MODEL",
                           help="each value of the parameter and the model trained "
                                "with it, one row each in this order")
            t.add_argument("--pronouns", type=Path, nargs="*",
                           help="pronoun accuracy TSVs of the sweep's models (none "
                                "where the target language has no pronoun list)")
        if name != "sweep":
            t.add_argument("--order", type=parse_order, required=True,
                           help="comma-separated model order of the rows")
        t.add_argument("--note", action="append", default=[],
                       help="a line under the Markdown table (repeatable)")
        add_table_outputs(t)
    return p


def main(argv: list[str] | None = None) -> int:
    """Build one table."""
    args = build_parser().parse_args(argv)
    if args.table == "bleu":
        if not 0 < args.alpha < 1:
            raise InputError("--alpha must be between 0 and 1")
        df = bleu_table(args)
        write_tables(df, bleu_display(df, args.baseline), args,
                     "\n\n".join([tables.note(args.baseline, args.alpha), *args.note]))
        return 0
    if args.table == "contrastive":
        df = contrastive_table(args.tsv, args.order)
    elif args.table == "pronouns":
        df = pronoun_table(args.tsv, args.order)
    elif args.table == "cohesion":
        df = cohesion_table(args.tsv, args.order)
    else:
        df = sweep_table(args)
    write_tables(df, display(df, args.table), args, "\n\n".join(args.note))
    return 0


if __name__ == "__main__":
    run_cli(main)
