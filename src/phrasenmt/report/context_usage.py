"""Does a document model use its context? One table and one figure per dataset.

    table   [--items ITEMS --scores MODEL=FILE...] --eval JSON... --cxmi MODEL=JSON...
            [--control C=M...] [--summary MODEL=JSON...] --order A,B,...
            --out-md/--out-tex/--out-csv
        one row per model (the sentence-level baseline, each document-level
        model, each random-context control), every figure a mean over the
        model's seeds (one --scores and one --cxmi per seed): BLEU, contrastive
        pronoun accuracy over the set's test items (prepare's --dev-fraction
        keeps its dev items for choosing budgets) and by antecedent distance in
        sentences (0 = same sentence, 1, 2, >=3, each with its item count; "–"
        where the set has no such items), and CXMI
        of the test set and of the pronoun items, against no context and against
        a random context (phrasenmt.evaluate.cxmi): with one seed its 95%
        bootstrap interval, with several the lowest and highest seed's value;
        the mean context gate λ and context-to-state norm ratio of the CXMI
        JSON's `gates` ("–" without one). CXMI is given per token and, as
        Fernandes et al. publish it, per sentence. A dataset without a
        contrastive set (no --items, --scores) gets the table without the
        pronoun columns: BLEU and CXMI of the test set. A row whose training
        stopped in warm-up (its runs' --summary files) is marked so, as in the
        results table. Under the table, the
        words of each document model's test references whose prediction its
        context helps most (mean P-CXMI, the `words` of its first seed's JSON).
    figure  --csv CSV --order A,B,... --out-png/--out-svg
        left (with a contrastive set): pronoun accuracy by distance, one bar per
        model; right: CXMI against a random context (test set and pronoun
        items) with intervals.

ITEMS is `phrasenmt.evaluate.contrastive prepare`'s items.json and each FILE a
run's log-probabilities of its lines (`translate score`; a sentence-level row
scored them without context). A control row names its base.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import pandas as pd

from phrasenmt.cli import (
    ArgumentParser,
    add_figure_outputs,
    add_table_outputs,
    control_pair,
    named_path,
    positive_int,
)
from phrasenmt.data.documents import drawn_again_often
from phrasenmt.evaluate.contrastive import load_header, outcomes
from phrasenmt.evaluate.scores import read_log_probabilities
from phrasenmt.io import InputError, atomic_open, output_set, run_cli
from phrasenmt.report import seeds as sd
from phrasenmt.report.context_usage_figure import BUCKETS, bucket_label, figure
from phrasenmt.report.continuous import to_latex, to_markdown
from phrasenmt.report.json_fields import load_json
from phrasenmt.report.style import parse_order
from phrasenmt.report.tables import stop_notes, write_text


def bucket(label: str) -> str:
    """The distance bucket of a contrastive TSV bin label ('3', '>15', ...)."""
    text = str(label).lstrip(">")
    if not text.isdigit():
        raise ValueError(f"not a distance bin: {label!r}")
    value = int(text) + (1 if str(label).startswith(">") else 0)
    return str(value) if value < 3 else ">=3"


ALL_CATEGORIES = "all"  # --category: the items of every type


def accuracy_cells(header: dict, path: Path, category: str
                   ) -> dict[str, tuple[int, int]]:
    """One run's (correct, items) of the category per distance bucket and over
    all of them ('all': the items that have a distance). Category `all` (a set
    of the user's, whose types are its own) takes every item, and one without a
    distance (Bawden's) counts in 'all' only."""
    cells: dict[str, tuple[int, int]] = {}
    every = category == ALL_CATEGORIES
    for row in outcomes(header, read_log_probabilities(path, header["lines"])):
        if not every and (row["category"] != category or row["bin"] is None):
            continue
        try:
            keys = ["all"] if row["bin"] is None else [bucket(row["bin"]), "all"]
        except ValueError:
            raise InputError(f"distance bin {row['bin']!r} is not a distance",
                             path) from None
        for k in keys:
            c, n = cells.get(k, (0, 0))
            cells[k] = (c + int(row["correct"]), n + 1)
    return cells


def accuracy_rows(items: Path, scores: list[tuple[str, Path]], category: str
                  ) -> dict[str, list[dict[str, tuple[int, int]]]]:
    """Per model, one accuracy_cells per seed (in the order given)."""
    header = load_header(items)
    out: dict[str, list[dict[str, tuple[int, int]]]] = {}
    for model, path in scores:
        out.setdefault(model, []).append(accuracy_cells(header, path, category))
    return out


def _pct(cell: tuple[int, int] | None) -> float:
    """Accuracy in % of (correct, items); NaN without items."""
    return math.nan if not cell or not cell[1] else 100.0 * cell[0] / cell[1]


def _mean_pct(seeds: list[dict[str, tuple[int, int]]], key: str) -> float:
    """The mean over seeds of the accuracy in % of one bucket; NaN without items."""
    values = [_pct(cells.get(key)) for cells in seeds]
    return math.nan if any(math.isnan(v) for v in values) else sum(values) / len(values)


# CXMI figures of a JSON block -> the key of their interval
CXMI_KEYS = {"cxmi": "ci95", "cxmi_random": "ci95_random",
             "cxmi_sentence": "ci95_sentence",
             "cxmi_random_sentence": "ci95_random_sentence"}


def cxmi_cells(path: Path | None) -> dict[str, float]:
    """The CXMI figures of one model's JSON (test set and items), NaN if none."""
    out: dict[str, float] = {}
    data = load_json(path) if path is not None else {}
    for part in ("test", "items"):
        block = data.get(part, {})
        for key, interval in CXMI_KEYS.items():
            ci = block.get(interval, [math.nan] * 2)
            out[f"{part}_{key}"] = block.get(key, math.nan)
            out[f"{part}_{key}_low"], out[f"{part}_{key}_high"] = ci
    gates = data.get("gates") or {}
    for key in ("lambda", "norm_ratio"):
        value = gates.get(key)
        out[f"gate_{key}"] = math.nan if value is None else float(value)
    return out


def seeds_cxmi_cells(paths: list[Path]) -> dict[str, float]:
    """cxmi_cells over a model's seeds: the mean of each figure; an interval
    is the one seed's bootstrap interval, with several seeds the lowest and
    highest seed's value. NaN without any JSON."""
    if len(paths) <= 1:
        return cxmi_cells(paths[0] if paths else None)
    per_seed = [cxmi_cells(p) for p in paths]
    out = {key: sum(c[key] for c in per_seed) / len(per_seed) for key in per_seed[0]}
    for part in ("test", "items"):
        for key in CXMI_KEYS:
            values = [c[f"{part}_{key}"] for c in per_seed]
            out[f"{part}_{key}_low"], out[f"{part}_{key}_high"] = min(values), max(values)
    return out


def build_table(args: argparse.Namespace) -> pd.DataFrame:
    """One row per model of --order with BLEU, accuracies and CXMI."""
    bleu, runs, seed_ids = {}, {}, {}
    for path in args.eval:
        data = sd.load_aggregate(path)
        bleu[data["system"]] = sd.mean_sd(data["scores"])[0]
        runs[data["system"]] = len(data["scores"])
        seed_ids[data["system"]] = data["seeds"]
    acc = (accuracy_rows(args.items, args.scores, args.category)
           if args.items is not None else None)
    controls = dict(args.control or [])
    cxmi: dict[str, list[Path]] = {}
    for model, path in args.cxmi or []:
        cxmi.setdefault(model, []).append(path)
    rows = []
    for model in args.order:
        if acc is None:
            rows.append(cxmi_row(model, controls, cxmi, bleu, runs, args.eval))
            continue
        seeds = acc.get(model)
        if not seeds or not seeds[0].get("all"):
            raise InputError(f"model {model} of --order has no {args.category} items "
                             "with a distance scored (--scores)", args.items)
        if model in cxmi and len(cxmi[model]) != len(seeds):
            raise InputError(f"model {model} has {len(seeds)} --scores file(s) but "
                             f"{len(cxmi[model])} --cxmi file(s): give one of each "
                             "per seed", args.items)
        kind = (f"random-context control of {controls[model]}" if model in controls
                else "document context" if model in cxmi else "no context")
        row = {"model": model, "reads": kind, "seeds": len(seeds),
               "bleu": bleu.get(model, math.nan),
               "items": seeds[0]["all"][1], "accuracy": _mean_pct(seeds, "all")}
        row.update({f"accuracy_d{b}": _mean_pct(seeds, b) for b in BUCKETS})
        row.update({f"items_d{b}": seeds[0].get(b, (0, 0))[1] for b in BUCKETS})
        row.update(seeds_cxmi_cells(cxmi.get(model, [])))
        rows.append(row)
    return with_stop_notes(pd.DataFrame(rows), args.summary or [], seed_ids)


def with_stop_notes(df: pd.DataFrame, summaries: list[tuple[str, Path]],
                    seed_ids: dict[str, list]) -> pd.DataFrame:
    """The table with each row's `stop_note` (training runs' summary.json, as
    the main results table marks a run stopped in warm-up); '' without one."""
    paths: dict[str, list[Path]] = {}
    for model, path in summaries:
        paths.setdefault(model, []).append(path)
    notes = [stop_notes(paths[m], seed_ids.get(m, [])) if m in paths else ""
             for m in df["model"]]
    return df.assign(stop_note=notes)


def cxmi_row(model: str, controls: dict[str, str], cxmi: dict[str, list[Path]],
             bleu: dict[str, float], runs: dict[str, int], evals: list[Path]
             ) -> dict:
    """A row of a dataset without a contrastive set: BLEU and CXMI only."""
    if model not in bleu:
        raise InputError(f"model {model} of --order has no --eval JSON", evals[0])
    if model in cxmi and len(cxmi[model]) != runs[model]:
        raise InputError(f"model {model} has {runs[model]} seed(s) in its --eval "
                         f"JSON but {len(cxmi[model])} --cxmi file(s): give one "
                         "per seed", evals[0])
    kind = (f"random-context control of {controls[model]}" if model in controls
            else "document context" if model in cxmi else "no context")
    return {"model": model, "reads": kind, "seeds": runs[model],
            "bleu": bleu[model], "items": 0, "accuracy": math.nan,
            **{f"accuracy_d{b}": math.nan for b in BUCKETS},
            **{f"items_d{b}": 0 for b in BUCKETS},
            **seeds_cxmi_cells(cxmi.get(model, []))}


def _num(value: float, digits: int = 2) -> str:
    return "–" if value is None or math.isnan(value) else f"{value:.{digits}f}"


def _ci(row: pd.Series, key: str) -> str:
    """'value [low, high]' of a CXMI column, in nats per token."""
    if math.isnan(row[key]):
        return "–"
    return f"{row[key]:+.3f} [{row[key + '_low']:+.3f}, {row[key + '_high']:+.3f}]"


def display(df: pd.DataFrame, contrastive: bool = True) -> pd.DataFrame:
    """The formatted cells of the Markdown and LaTeX tables (the pronoun
    columns only with a contrastive set)."""
    names = [f"{m} ({n})" if isinstance(n, str) and n else m
             for m, n in zip(df["model"], df.get("stop_note", [""] * len(df)),
                             strict=True)]
    shown = pd.DataFrame({"model": names, "reads": df["reads"],
                          "seeds": df["seeds"], "BLEU": [_num(v) for v in df["bleu"]]})
    if contrastive:
        shown["pronouns (%)"] = [f"{_num(a)} (n={n})" for a, n in
                                 zip(df["accuracy"], df["items"], strict=True)]
        for b in BUCKETS:  # every row scores the same items
            n = int(df[f"items_d{b}"].iloc[0]) if len(df) else 0
            shown[f"{bucket_label(b)} (n={n})"] = [_num(v) for v in df[f"accuracy_d{b}"]]
    parts = (("test", "test set"), ("items", "pronoun items"))
    for part, name in parts if contrastive else parts[:1]:
        shown[f"CXMI {name}"] = [_ci(r, f"{part}_cxmi") for _, r in df.iterrows()]
        shown[f"CXMI vs random, {name}"] = [_ci(r, f"{part}_cxmi_random")
                                            for _, r in df.iterrows()]
        for key, what in (("cxmi", "CXMI"), ("cxmi_random", "CXMI vs random")):
            shown[f"{what} per sentence, {name}"] = [
                _ci(r, f"{part}_{key}_sentence") for _, r in df.iterrows()]
    shown["gate λ"] = [_num(v, 3) for v in df["gate_lambda"]]
    shown["‖c‖/‖h‖"] = [_num(v) for v in df["gate_norm_ratio"]]
    return shown


PRONOUN_NOTE = ("pronouns: contrastive accuracy on the test items whose pronoun "
                "depends on an antecedent (the reference must score above every "
                "variant with another pronoun); d = antecedent distance in "
                "sentences, n = its items. ")
NOTE = ("Every figure is the mean over the model's seeds (the seeds column); a "
        "CXMI interval is the 95% bootstrap interval of one seed, with several "
        "seeds the range of the seeds' values. {pronouns}CXMI (Fernandes et al. "
        "2021): log p(y|x,C) - log p(y|x) of the references, as a mean over "
        "reference tokens (nats per token) and, as the paper publishes it, over "
        "sentences (nats per sentence), "
        "against no context (includes what the document parameters learned about "
        "sentences in general) and against a random context from other documents "
        "(what the context's content adds). A model uses its context when its "
        "CXMI vs random{accuracy} exceeds its random-context control's; a BLEU "
        "gain that the control shares is extra capacity and updates, not context. "
        "gate λ: the mean over the model's context "
        "gates of λ in λh + (1-λ)c on the test set (1 = the context is shut out); "
        "‖c‖/‖h‖: the mean norm of the context vector c against the state h's.")


def table(args: argparse.Namespace) -> None:
    """Write the context-usage table (Markdown, LaTeX, CSV)."""
    df = build_table(args)
    contrastive = args.items is not None
    shown = display(df, contrastive)
    note = NOTE.format(pronouns=PRONOUN_NOTE if contrastive else "",
                       accuracy=" (and its pronoun accuracy)" if contrastive else "")
    title = "Context usage: pronouns and CXMI" if contrastive else \
        "Context usage: CXMI"
    again = drawn_again_note(args.cxmi or [], args.order)
    write_text(args.out_md, to_markdown(shown, title) + f"\n{note}{again}\n"
               + words_section(args.cxmi or [], args.order, args.top_words))
    write_text(args.out_tex, to_latex(shown))
    with atomic_open(args.out_csv) as fh:
        df.to_csv(fh, index=False, lineterminator="\n", float_format="%.6g")


def first_seed_json(cxmi: list[tuple[str, Path]], order: list[str]
                    ) -> list[tuple[str, dict]]:
    """(model, its first seed's CXMI JSON) for the models of `order` that
    have one, in that order."""
    first: dict[str, Path] = {}
    for model, path in cxmi:
        first.setdefault(model, path)
    return [(m, load_json(first[m])) for m in order if m in first]


def drawn_again_note(cxmi: list[tuple[str, Path]], order: list[str]) -> str:
    """A sentence naming the controls whose random context for CXMI was, on
    at least a tenth of their lines, their own random context again
    (`random_drawn_again` of their first seed's JSON; the draw does not depend
    on the training seed); '' if none was."""
    cases = []
    for model, data in first_seed_json(cxmi, order):
        for part, name, what in (("test", "test", "documents"),
                                 ("items", "pronoun-item", "distinct contexts")):
            again = data.get(part, {}).get("random_drawn_again")
            if drawn_again_often(again):
                cases.append(f"{model} on {again['same']} of its {again['lines']} "
                             f"{name} lines with a context ({again['sources']} {what} "
                             "to draw from)")
    if not cases:
        return ""
    return (" The random context of CXMI was the control's own random context "
            "again for " + "; ".join(cases) + ": such a line adds exactly 0 to "
            "the control's CXMI vs random. The draw avoids the control's own "
            "context wherever a third document (or distinct context) exists, so "
            "this happens with two, and then on every line.")


def words_section(cxmi: list[tuple[str, Path]], order: list[str], top: int) -> str:
    """Markdown: per document row, the test words with the highest mean P-CXMI
    (its first seed's JSON; '' when no JSON lists words)."""
    rows = []
    for model, data in first_seed_json(cxmi, order):
        words = data.get("test", {}).get("words")
        if words:
            cells = ", ".join(f"{w['word']} {w['pcxmi']:+.3f} / "
                              f"{w['pcxmi_random']:+.3f} (n={w['count']})"
                              for w in words[:top])
            rows.append({"model": model, "words (P-CXMI vs none / vs random)": cells})
    if not rows:
        return ""
    return ("\n" + to_markdown(pd.DataFrame(rows), "Words whose prediction the "
                                "context helps most") +
            "\nP-CXMI of a word: log p(w|x,C) - log p(w|x) (or C' a random "
            "context) summed over its BPE pieces, nats, its mean over the word's "
            "occurrences (n) in the test references, highest first; the model's "
            "first seed.\n")


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface."""
    p = ArgumentParser(prog="python -m phrasenmt.report.context_usage",
                       description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    t = sub.add_parser("table", help="the context-usage table")
    t.add_argument("--items", type=Path,
                   help="items.json of `evaluate.contrastive prepare` (a dataset "
                   "with a contrastive set; with --scores)")
    t.add_argument("--scores", type=named_path, nargs="+",
                   metavar="MODEL=FILE", help="a run's log-probabilities of the "
                   "items' lines; one per seed of each row")
    t.add_argument("--top-words", type=positive_int, default=10,
                   help="words listed per model under the table (default: "
                   "%(default)s)")
    t.add_argument("--category", default="pronoun_gender",
                   help=f"item type, or {ALL_CATEGORIES} for every item (a set of "
                   "your own: ContraPro, Bawden, Voita)")
    t.add_argument("--eval", type=Path, nargs="+", required=True,
                   help="all-seed evaluation JSONs of the rows (BLEU)")
    t.add_argument("--cxmi", type=named_path, nargs="*", metavar="MODEL=JSON",
                   help="CXMI JSONs of the document-level rows, one per seed")
    t.add_argument("--summary", type=named_path, nargs="*", metavar="MODEL=JSON",
                   help="training summary.json of each row's runs: a run stopped "
                   "in warm-up is marked as in the results table")
    t.add_argument("--control", type=control_pair, nargs="*", metavar="CONTROL=MODEL",
                   help="random-context controls and the model each controls")
    t.add_argument("--order", type=parse_order, required=True, help="row order")
    add_table_outputs(t)
    t.set_defaults(run=table)
    f = sub.add_parser("figure", help="the context-usage figure")
    f.add_argument("--csv", type=Path, required=True, help="the table's CSV")
    f.add_argument("--order", type=parse_order, required=True, help="model order")
    add_figure_outputs(f)
    f.set_defaults(run=figure)
    return p


def main(argv: list[str] | None = None) -> int:
    """Write the table or draw the figure."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "table" and (args.items is None) != (args.scores is None):
        parser.error("--items and --scores go together (a contrastive set's "
                     "items and every row's scores of them)")
    with output_set():  # all of its outputs, or none
        args.run(args)
    return 0


if __name__ == "__main__":
    run_cli(main)
