"""The claims table: which of the papers' claims hold on one dataset's runs.

Each entry of claims.yaml (`phrasenmt.claims`) is one claim: a paper, its
table or figure, a metric, a system and a baseline model, and the paper's
numbers. For one dataset, every claim whose models, language direction and
files are present is tested with all training seeds (phrasenmt.report.
claim_checks, phrasenmt.evaluate.multiseed); every other claim is listed as
"not tested" with the reason. Seeds are the unit of inference: p-values and
intervals account for training noise (another seed, another model) as well
as for the test items, and intervals are at the verdicts' level (99 % for
alpha = 0.01; 98 % for a claim of no gain judged by TOST, see below).
Verdicts, at significance level alpha:

* reproduced: significant (p < alpha) in the claimed direction; a claim of no
  gain (`expect: not_higher`) only when TOST shows the difference within
  +-margin (claims.yaml `margin`); a speed claim when the interval of the
  ratio clears `ratio_fraction` x the paper's factor, or, without a fraction,
  reaches the paper's factor and excludes 1 (excludes 1 for a claim of
  "faster" without a factor);
* not reproduced: significant in the other direction (a significant gain for
  a claim of no gain; a speed ratio whose interval stays below the factor);
* inconclusive: neither;
* one seed: indicative, no verdict: a model has one seed, so training noise
  cannot be estimated; the figures are shown, no verdict is drawn.
The family of claims of one table is corrected with Holm's method: each row
shows the p-value its verdict rests on, its Holm-adjusted value, and the
verdict with the adjusted value ("inconclusive after Holm" where a verdict
does not survive the correction), and the system-vs-baseline interval at the
level of its row's Holm step, or of the step where the step-down stopped
(``Δ [Holm CI]``), so that it excludes 0 exactly when the verdict survives.
A claim of no gain shows the (1 - 2 alpha) interval, the one that matches
TOST at alpha: inside +-margin exactly when TOST's p is below alpha.
A quality claim (BLEU, agreement, pronouns, contrastive) or a CXMI claim is
"not tested: the baseline did not learn" (or "...: <system> did not learn") when a seed of either model
translates no better than its own outputs paired with random test sentences,
or repeats one output line (phrasenmt.report.baseline_guard).
A document-level claim names its random-context control (`control:`, the
same model trained and evaluated with other documents' sentences as context):
it is also tested against that control, and is reproduced only when both
comparisons are (its p for Holm: the larger of the two; its Holm cell also
shows the interval against the control, and a reproduced verdict survives
exactly when both exclude 0). A claim that beats the baseline but not significantly its control is "inconclusive: no
significant gain over its random-context control" (the gain may come from
extra parameters or updates, not from the context; Li et al. 2020), "not
reproduced: ..." if the control does significantly better; one whose control
is not configured is not tested.
Every row shows where its claim comes from (claims.yaml `source` and `quote`:
a table of the paper, its text, the survey slides, or derived, a test the
source does not report). Speed rows, measured with the wall clock, are in
--out-timing-csv, not --out-csv (phrasenmt.report.wall_clock).

    python -m phrasenmt.report.claims --dataset D --direction en-de --synthetic
        --models M... --ref REF.txt [--src SRC.tok] [--lingeval-json J]
        [--pronoun-ref REF.tok --pronoun-ref-align A] [--contrastive ITEMS]
        --run MODEL SEED KIND=FILE... [--run ...] --out-md/--out-tex/--out-csv
        --out-timing-csv T.csv
KIND is hyp (detokenized test translation of the model's main decoding),
hyp_beam (its beam-search decoding, read by claims with `decoding: beam`),
hyp_tok (tokenized), summary
(training summary.json), lingeval (Lingeval97 pair scores), align (source-
hypothesis links for pronoun accuracy), contrastive (scores of the lines of
--contrastive's items).
"""

from __future__ import annotations

import argparse
import math
import re
from pathlib import Path
from typing import Any

import pandas as pd

from phrasenmt.claims import CLAIMS, RUN_KINDS, in_family, load_claims
from phrasenmt.cli import (
    ArgumentParser,
    add_table_outputs,
    alpha_level,
    control_pair,
    nonnegative_float,
    nonnegative_int,
    positive_int,
    rate,
)
from phrasenmt.evaluate.seed_inference import holm, holm_levels, t_interval, tost_level
from phrasenmt.io import output_set, run_cli
from phrasenmt.report.baseline_guard import Guard
from phrasenmt.report.claim_checks import (
    DECISIVE,
    ONE_SEED,
    Evidence,
    NotTested,
    check,
)
from phrasenmt.report.continuous import to_latex, to_markdown
from phrasenmt.report.tables import write_text
from phrasenmt.report.wall_clock import add_timing_option, write_csvs

UNITS = {"bleu": "BLEU", "bleu_subset": "BLEU", "agreement": "%", "pronouns": "%",
         "contrastive": "%", "train_speed": "tokens/s", "cxmi": "nats/sentence"}
COLUMNS = ["claim", "paper", "source", "statement", "data", "paper Δ", "ours",
           "system per seed", "Δ [CI]", "p", "vs random-context control", "seeds",
           "verdict", "p (Holm)", "Δ [Holm CI]", "verdict (Holm)"]
AFTER_HOLM = "inconclusive after Holm"


def ci_column(alpha: float) -> str:
    """The interval column's name at the verdicts' level, e.g. 'Δ [99% CI]'."""
    return f"Δ [{100 * (1 - alpha):g}% CI]"


def paper_delta(claim: dict) -> str:
    """The paper's difference (or ratio) as printed; '–' when it gives none."""
    if claim["metric"] == "train_speed":
        ratio = claim.get("paper_ratio")
        return "–" if ratio is None else f"×{ratio:g}"
    delta = claim.get("paper_delta")
    if delta is None and claim.get("paper_system") is not None:
        delta = claim["paper_system"] - claim["paper_baseline"]
    return "–" if delta is None else f"{delta:+.2f}"


def _mean_sd(mean: float, sd: float | None) -> str:
    """'mean ± sd' (sd left out with one seed)."""
    return f"{mean:.2f}" if sd is None else f"{mean:.2f} ± {sd:.2f}"


def ours(claim: dict, r: dict) -> tuple[str, str, str]:
    """(ours, Δ with CI, p) cells of a tested claim; p is the one its verdict
    rests on (TOST for a claim of no gain, the ratio's for speed), and the
    interval the one that matches it (for TOST the (1 - 2 alpha) one, its
    level shown)."""
    cell = (f"{_mean_sd(r['mean'], r['sd'])} vs "
            f"{_mean_sd(r['baseline_mean'], r['baseline_sd'])}")
    p = r.get("verdict_p")
    p_text = "–" if p is None else f"{p:.3g}"
    if p is None and r.get("p") is not None:  # one seed: the figure, no verdict
        p_text = f"{r['p']:.3g} (indicative)"
    if claim["metric"] == "train_speed":
        interval = (f"×{r['ratio']:.2f} [×{r['ci_low']:.2f}, ×{r['ci_high']:.2f}]"
                    if r["ci_low"] is not None else f"×{r['ratio']:.2f} (no CI)")
        return cell, interval, p_text
    interval = (f"{r['delta']:+.2f} [{r['ci_low']:+.2f}, {r['ci_high']:+.2f}]"
                if r["ci_low"] is not None else f"{r['delta']:+.2f}")
    if r.get("tost") and r["ci_low"] is not None:  # not the column's level
        interval += f" ({100 * r['ci_level']:.3g}%, TOST)"
    if claim["expect"] == "not_higher" and p is not None:
        p_text += f" (TOST ±{claim['margin']:g})"
    return cell, interval, p_text


def seeds_cell(r: dict) -> str:
    """Seed counts, flagged when a model has only one."""
    n, m = len(r["seeds"]), len(r["baseline_seeds"])
    return f"{n} vs {m}" + (" (one seed: no training noise)" if min(n, m) == 1
                            else "")


def source_cell(claim: dict) -> str:
    """Where a claim comes from: its source kind and quote."""
    return f"{claim['source']}: “{claim['quote']}”"


def data_cell(ev: Evidence, items: int | None) -> str:
    """The data a row is on: the dataset, synthetic or real, and item count."""
    kind = "synthetic data" if ev.synthetic else "real data"
    return f"{ev.dataset} ({kind}{'' if items is None else f', n={items}'})"


def control_result(claim: dict, ev: Evidence, alpha: float) -> dict[str, Any] | None:
    """The system against its random-context control (None: the claim has none)."""
    control = claim.get("control")
    if control is None:
        return None
    if control not in ev.models:
        raise NotTested(f"its random-context control {control} is not configured "
                        f"for {ev.dataset} (without it a gain cannot be told from "
                        "extra parameters and updates)")
    return check({**claim, "baseline": control}, ev, alpha)


def combined_verdict(r: dict, c: dict | None) -> str:
    """Reproduced only when the system beats the baseline and its control."""
    if c is None or r["verdict"] != "reproduced":
        return r["verdict"]
    if c["verdict"] in ("reproduced", ONE_SEED):
        return c["verdict"]
    if c["verdict"] == "not reproduced":  # the control is significantly better
        return "not reproduced: its random-context control does better"
    return "inconclusive: no significant gain over its random-context control"


def combined_p(r: dict, c: dict | None, verdict: str) -> float | None:
    """The p-value a row's verdict rests on: with a control, the larger of the
    two comparisons' (both must hold), or the control's where it decided; none
    for a one-seed row. A row decided without its control (the system does not
    beat the baseline) keeps its p when only the control has one seed, so its
    verdict goes through Holm's correction like any other."""
    if verdict == ONE_SEED:
        return None
    if c is None or r["verdict"] != "reproduced":
        return r["verdict_p"]
    if verdict.startswith("not reproduced"):
        return c["verdict_p"]
    return max(r["verdict_p"], c["verdict_p"])


def holm_verdict(verdict: str, p_holm: float | None, alpha: float) -> str:
    """A verdict after Holm's correction: decisive verdicts need p_holm < alpha."""
    decisive = verdict.split(":")[0] in DECISIVE
    if not decisive or p_holm is None or p_holm < alpha:
        return verdict
    return AFTER_HOLM


def holm_interval(r: dict | None, level: float | None
                  ) -> tuple[float, float] | None:
    """A comparison's interval at a row's Holm level, of Δ or of the ratio for
    a speed claim, that agrees with its verdict after Holm: two-sided at the
    level (it excludes the null value exactly when Holm rejects), for a TOST
    verdict at 1 - 2 (1 - level) (inside ±margin exactly when Holm rejects).
    None: no test, or no seed-level variance."""
    if r is None or level is None:
        return None
    if r.get("ratio") is not None:
        if r.get("se_log") is None:
            return None
        low, high = t_interval(math.log(r["ratio"]), r["se_log"], r["df"], level)
        return math.exp(low), math.exp(high)
    if r.get("se") is None:
        return None
    return t_interval(r["delta"], r["se"], r["df"], holm_level_shown(r, level))


def holm_level_shown(r: dict | None, level: float | None) -> float | None:
    """The level of `holm_interval` (TOST: 1 - 2 (1 - level))."""
    if r is None or level is None or not r.get("tost"):
        return level
    return tost_level(1 - level)


def holm_interval_cell(r: dict | None, bounds: tuple[float, float] | None,
                       level: float | None) -> str:
    """'[low, high] (level)' of a row's Holm interval ('–' without one)."""
    if bounds is None or level is None or r is None:
        return "–"
    low, high = bounds
    text = (f"[×{low:.2f}, ×{high:.2f}]" if r.get("ratio") is not None
            else f"[{low:+.2f}, {high:+.2f}]")
    return f"{text} ({100 * level:.3g}%{', TOST' if r.get('tost') else ''})"


def control_decides(row: dict) -> bool:
    """Whether a row's verdict p rests on its control comparison too (the
    system beat the baseline, and the control has a verdict)."""
    r, c = row.get("result"), row.get("control_result")
    return (r is not None and c is not None and r["verdict"] == "reproduced"
            and row["verdict_p"] is not None)


def with_holm(rows: list[dict], alpha: float) -> list[dict]:
    """Rows with Holm-adjusted p-values over the table's verdicts, the verdicts
    those give, and each row's interval at its level of Holm's procedure (the
    level of its step, or of the step where the step-down stopped): the
    interval excludes 0 (a TOST one: lies inside ±margin) exactly when the
    verdict survives. A row whose p is the larger of its two comparisons' also
    shows the interval against its control at that level: both exclude 0
    exactly when it survives."""
    pvalues = [row["verdict_p"] for row in rows]
    out = []
    for row, p, level in zip(rows, holm(pvalues), holm_levels(pvalues, alpha),
                             strict=True):
        r = row["result"]
        bounds, shown = holm_interval(r, level), holm_level_shown(r, level)
        cell = holm_interval_cell(r, bounds, shown)
        c = row["control_result"] if control_decides(row) else None
        control = holm_interval(c, level)
        if control is not None:
            cell += (f"; vs {row['control']}: "
                     f"{holm_interval_cell(c, control, holm_level_shown(c, level))}")
        out.append({**row, "p_holm": p, "holm_level": shown, "holm_ci": bounds,
                    "control_holm_ci": control,
                    "p (Holm)": "–" if p is None else f"{p:.3g}",
                    "Δ [Holm CI]": cell,
                    "verdict (Holm)": holm_verdict(row["verdict"], p, alpha)})
    return out


def control_cell(claim: dict, c: dict | None) -> str:
    """'control: Δ [CI], p' of the system against its control ('' without one)."""
    if c is None:
        return ""
    return (f"{claim['control']}: {c['delta']:+.2f} [{c['ci_low']:+.2f}, "
            f"{c['ci_high']:+.2f}], p {c['p']:.3g}"
            + (" (one seed)" if c["one_seed"] else ""))


def claim_row(claim: dict, ev: Evidence, alpha: float) -> dict[str, Any]:
    """One table row: the claim, the paper's number, ours, and the verdict."""
    row = {"claim": claim["id"], "paper": f"{claim['paper']}, {claim['where']}",
           "source": source_cell(claim), "source_kind": claim["source"],
           "quote": claim["quote"],
           "statement": claim["statement"], "metric": claim["metric"],
           "system": claim["system"], "baseline": claim["baseline"],
           "control": claim.get("control"),
           "unit": UNITS[claim["metric"]], "paper Δ": paper_delta(claim),
           "note": claim.get("note", "")}
    try:
        r = check(claim, ev, alpha)
        c = control_result(claim, ev, alpha)
    except NotTested as why:
        return {**row, "data": data_cell(ev, None), "ours": "", "system per seed": "",
                "Δ [CI]": "", "p": "", "vs random-context control": "",
                "seeds": "", "verdict": f"not tested: {why}", "result": None,
                "control_result": None, "verdict_p": None}
    verdict = combined_verdict(r, c)
    p_verdict = combined_p(r, c, verdict)
    cell, interval, p = ours(claim, {**r, "verdict_p": p_verdict})
    return {**row, "data": data_cell(ev, r["items"]), "ours": cell,
            "system per seed": ", ".join(f"{s:.2f}" for s in r["scores"]),
            "Δ [CI]": interval, "p": p,
            "vs random-context control": control_cell(claim, c),
            "seeds": seeds_cell(r), "verdict": verdict, "result": r,
            "control_result": c, "verdict_p": p_verdict}


def csv_frame(rows: list[dict]) -> pd.DataFrame:
    """The numbers of every row, unformatted, for the CSV."""
    out = []
    for row in rows:
        r = row["result"] or {}
        out.append({k: row[k] for k in ("claim", "paper", "statement", "metric",
                                        "system", "baseline", "unit", "data")}
                   | {"paper_delta": row["paper Δ"], "mean": r.get("mean"),
                      "sd": r.get("sd"), "baseline_mean": r.get("baseline_mean"),
                      "baseline_sd": r.get("baseline_sd"), "delta": r.get("delta"),
                      "ratio": r.get("ratio"), "ci_low": r.get("ci_low"),
                      "ci_high": r.get("ci_high"), "ci_level": r.get("ci_level"),
                      "se": r.get("se"), "df": r.get("df"), "p": r.get("p"),
                      "margin": r.get("margin"), "tost_p": r.get("tost_p"),
                      "p_paper_ratio": r.get("p_paper"),
                      "scores": " ".join(f"{s:.4f}" for s in r.get("scores", [])),
                      "baseline_scores": " ".join(
                          f"{s:.4f}" for s in r.get("baseline_scores", [])),
                      "seeds": " ".join(map(str, r.get("seeds", []))),
                      "baseline_seeds": " ".join(map(str, r.get("baseline_seeds",
                                                                 []))),
                      "control": row.get("control") or "",
                      "control_delta": (row["control_result"] or {}).get("delta"),
                      "control_ci_low": (row["control_result"] or {}).get("ci_low"),
                      "control_ci_high": (row["control_result"] or {}).get("ci_high"),
                      "control_p": (row["control_result"] or {}).get("p"),
                      "verdict": row["verdict"], "p_verdict": row["verdict_p"],
                      "p_holm": row["p_holm"],
                      "holm_ci_low": (row["holm_ci"] or (None, None))[0],
                      "holm_ci_high": (row["holm_ci"] or (None, None))[1],
                      "holm_ci_level": row["holm_level"],
                      "control_holm_ci_low": (row["control_holm_ci"]
                                              or (None, None))[0],
                      "control_holm_ci_high": (row["control_holm_ci"]
                                               or (None, None))[1],
                      "verdict_holm": row["verdict (Holm)"],
                      "source": row["source_kind"], "quote": row["quote"],
                      "note": row["note"]})
    return pd.DataFrame(out)


def legend(ev: Evidence, alpha: float, trials: int) -> list[str]:
    """The lines under the Markdown table: method, verdict rule, notes."""
    level = f"{100 * (1 - alpha):g}%"
    return [(f"Verdicts at alpha = {alpha:g}; intervals at {level}, the same level. "
            "Seeds are the unit of inference: p and the interval of Δ come from the "
            "variance over training seeds plus a paired bootstrap over test items "
            f"({trials} samples; mirrored contrastive items resampled as pairs), "
            "with Student's t (Welch df) (docs/evaluation.md#significance). "
            "A claim of no gain: TOST within ±margin, p the larger one-sided p, "
            f"and its interval at {100 * tost_level(alpha):g}% (1 - 2 alpha), "
            "the one inside ±margin exactly when TOST's p is below alpha. "
            "Speed: the ratio of geometric means of target tokens/s over seeds and "
            "its interval (Welch's t on log speeds); reproduced when the interval "
            "reaches the paper's factor and excludes 1, or clears the claim's "
            "stated fraction of the factor. p: the p-value the verdict rests on; "
            "p (Holm), verdict (Holm): Holm's correction over this table's "
            "verdicts; Δ [Holm CI]: the system-vs-baseline interval at the level "
            "of its row's step of Holm's procedure (1 - alpha / (m - rank + 1)), "
            "or of the step where the step-down stopped for the rows after it, "
            "so that it excludes 0 (TOST: lies inside ±margin, at 1 - 2 alpha / "
            "(m - rank + 1)) exactly when the verdict survives; a row with a "
            "random-context control also shows its interval against the control. "
            "A model with one seed: \"one seed: indicative, no "
            "verdict\" (its figures are shown). ours = system vs baseline, mean ± "
            f"sd over seeds. BLEU: sacreBLEU {ev.bleu_tokenize}, detokenized (the "
            "papers: tokenized). Source: paper_table / paper_text (the paper), slides "
            "(survey slides, not the paper), derived (a test the source does not "
            "report). "
            "A model did not learn (its quality and CXMI rows are not tested) if "
            "a seed's "
            f"BLEU is less than {ev.guard.min_bleu_gain:g} above its outputs "
            "paired with random test sentences, or one output line is more than "
            f"{100 * ev.guard.max_output_share:g} points of the test set more "
            "frequent than the reference's most frequent line "
            "(docs/baseline-guard.md)."),
            *([(f"All rows are on synthetic data ({ev.dataset}): they test the "
                "mechanisms, not the papers' benchmarks.")] if ev.synthetic else [])]


def render(rows: list[dict], ev: Evidence, args: argparse.Namespace) -> None:
    """Write the Markdown, LaTeX and CSV tables."""
    columns = [ci_column(args.alpha) if c == "Δ [CI]" else c for c in COLUMNS]
    shown = pd.DataFrame([[str(r[k]).replace("|", "/") for k in COLUMNS]
                          for r in rows], columns=columns)
    notes = [f"- {r['claim']}: {r['note']}" for r in rows if r["note"]]
    md = to_markdown(shown, f"Claims of the papers on {ev.dataset}")
    write_text(args.out_md, "\n".join([md, *legend(ev, args.alpha, args.trials), "",
                                       "Notes:", "", *notes, ""]))
    write_text(args.out_tex, to_latex(shown))
    frame = csv_frame(rows)
    speed = frame.get("metric", pd.Series(dtype=object)) == "train_speed"
    write_csvs(frame[~speed], frame[speed], args.out_csv, args.out_timing_csv,
               float_format="%.6g")


def run_spec(values: list[str]) -> tuple[str, int, dict[str, Path]]:
    """MODEL SEED KIND=FILE... of one --run option."""
    if len(values) < 3:
        raise argparse.ArgumentTypeError(f"--run needs MODEL SEED KIND=FILE..., got "
                                         f"{' '.join(values)!r}")
    model, seed, files = values[0], nonnegative_int(values[1]), {}
    kinds = {k for ks in RUN_KINDS.values() for k in ks} | {"hyp_beam"}
    for spec in values[2:]:
        kind, sep, path = spec.partition("=")
        if not sep or not path or kind not in kinds:
            raise argparse.ArgumentTypeError(
                f"--run {model} {seed}: expected KIND=FILE with KIND one of "
                f"{', '.join(sorted(kinds))}, got {spec!r}")
        files[kind] = Path(path)
    return model, seed, files


def evidence(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Evidence:
    """The dataset's runs and files from the parsed options."""
    ev = Evidence(args.dataset, args.direction, args.synthetic, args.models,
                  trials=args.trials, seed=args.seed, alpha=args.alpha,
                  guard=Guard(args.min_bleu_gain, args.max_output_share))
    for control, model in args.control or []:
        if ev.controls.setdefault(model, control) != control:
            parser.error(f"argument --control: model {model} has two controls, "
                         f"{ev.controls[model]} and {control}")
    for values in args.run or []:
        try:
            model, seed, files = run_spec(values)
        except argparse.ArgumentTypeError as err:
            parser.error(f"argument --run: {err}")
        if seed in ev.runs.get(model, {}):
            parser.error(f"argument --run: model {model} seed {seed} given twice")
        ev.runs.setdefault(model, {})[seed] = files
    for name in ("ref", "src", "lingeval", "pronoun_ref", "pronoun_ref_align",
                 "contrastive"):
        if getattr(args, name) is not None:
            ev.files[name] = getattr(args, name)
    return ev


def direction(text: str) -> str:
    """argparse type: a language direction such as en-de."""
    if not re.fullmatch(r"[a-z]{2,3}-[a-z]{2,3}", text):
        raise argparse.ArgumentTypeError(f"expected SRC-TGT such as en-de, got "
                                         f"{text!r}")
    return text


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of the claims table."""
    p = ArgumentParser(prog="python -m phrasenmt.report.claims",
                       description=__doc__.splitlines()[0])
    p.add_argument("--claims", type=Path, default=CLAIMS,
                   help="claims file (default: the package's claims.yaml)")
    p.add_argument("--dataset", required=True, help="name of the dataset")
    p.add_argument("--direction", type=direction, required=True,
                   help="the dataset's language direction, e.g. en-de")
    p.add_argument("--synthetic", action="store_true",
                   help="the dataset is the built-in synthetic corpus")
    p.add_argument("--models", nargs="+", default=[],
                   help="the models configured for this dataset")
    p.add_argument("--family-only", action="store_true",
                   help="list only the claims whose system and baseline are both "
                        "among --models (a family's claims table)")
    p.add_argument("--run", nargs="+", action="append",
                   metavar="MODEL SEED KIND=FILE",
                   help="files of one training run (repeat per model and seed)")
    p.add_argument("--control", type=control_pair, nargs="+", metavar="CONTROL=MODEL",
                   help="a model's random-context control, which a document-level "
                   "claim about MODEL is judged against instead of the one "
                   "claims.yaml names")
    p.add_argument("--ref", type=Path, help="detokenized test reference")
    p.add_argument("--src", type=Path, help="tokenized test source")
    p.add_argument("--lingeval", "--lingeval-json", type=Path, dest="lingeval",
                   help="Lingeval97-format items")
    p.add_argument("--contrastive", type=Path, help="contrastive items.json (of "
                   "`evaluate.contrastive prepare`) the contrastive runs scored")
    p.add_argument("--pronoun-ref", type=Path, help="tokenized test reference")
    p.add_argument("--pronoun-ref-align", type=Path,
                   help="source-reference links of the test set")
    p.add_argument("--alpha", type=alpha_level, default=0.01,
                   help="significance level of the verdicts; intervals are at "
                        "1 - alpha (default: %(default)s, as evaluate.alpha)")
    p.add_argument("--trials", type=positive_int, default=1000,
                   help="bootstrap samples over test items "
                        "(default: %(default)s)")
    p.add_argument("--seed", type=nonnegative_int, default=1,
                   help="seed of the bootstrap (default: %(default)s)")
    p.add_argument("--min-bleu-gain", type=nonnegative_float,
                   default=Guard.min_bleu_gain,
                   help="a model learned if its BLEU beats its outputs paired with "
                        "random test sentences by this much (default: %(default)s)")
    p.add_argument("--max-output-share", type=rate,
                   default=Guard.max_output_share,
                   help="a model did not learn if one output line is this much more "
                        "frequent than the reference's most frequent line "
                        "(default: %(default)s)")
    add_table_outputs(p, timing=True)
    add_timing_option(p)
    return p


def with_control(claim: dict, ev: Evidence) -> dict:
    """The claim with the control it is judged against: the one --control names
    for its system (the workflow finds it in the config), else claims.yaml's. A
    cxmi claim's baseline is that control."""
    if claim["system"] not in ev.controls:
        return claim
    if claim["metric"] == "cxmi":
        return {**claim, "baseline": ev.controls[claim["system"]]}
    if "control" not in claim:
        return claim
    return {**claim, "control": ev.controls[claim["system"]]}


def main(argv: list[str] | None = None) -> int:
    """Test every claim on one dataset's runs and write the claims table."""
    parser = build_parser()
    args = parser.parse_args(argv)
    ev = evidence(args, parser)
    claims = load_claims(args.claims)
    if args.family_only:
        claims = [c for c in claims if in_family(c, ev.models)]
    rows = with_holm([claim_row(with_control(c, ev), ev, args.alpha)
                      for c in claims], args.alpha)
    with output_set():  # all of its outputs, or none
        render(rows, ev, args)
    return 0


if __name__ == "__main__":
    run_cli(main)
