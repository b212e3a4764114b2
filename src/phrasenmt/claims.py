"""The papers' claims (claims.yaml, next to this module): loading and checking
the table, and which run files a claim reads.

Both the workflow (which files a dataset's claims table needs) and the claims
table's command (`phrasenmt.report.claims`, which tests every claim) read them
here; this module needs neither pandas nor torch.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import yaml

from phrasenmt.config_entries import LANG
from phrasenmt.io import InputError, read_text, safe_yaml_loader

CLAIMS = Path(__file__).with_name("claims.yaml")
REQUIRED = ("id", "paper", "where", "statement", "metric", "system", "baseline",
            "expect", "source", "quote")
EXPECT = ("higher", "not_higher")
# where a claim's statement and numbers come from: a table (or figure) of the
# paper, its text, the survey slides, or our own reading (a claim the source
# does not make, e.g. a test it did not run)
SOURCES = ("paper_table", "paper_text", "slides", "derived")
# metric -> the per-run files it reads (kinds of --run KIND=PATH); a quality
# metric (report.claim_checks.GUARDED) reads the test translations (hyp) too:
# did the model learn?
RUN_KINDS = {"bleu": ("hyp",), "bleu_subset": ("hyp",),
             "agreement": ("lingeval", "hyp"), "pronouns": ("hyp_tok", "align", "hyp"),
             "contrastive": ("contrastive", "hyp"), "train_speed": ("summary",),
             "cxmi": ("cxmi",)}
DECODINGS = ("main", "beam")  # a claim's `decoding`: each model's own, or beam search
OPTIONAL = ("control", "margin", "decoding", "direction", "subset", "category",
            "paper_system", "paper_baseline", "paper_delta", "paper_ratio",
            "ratio_fraction", "note")
TEXTS = ("id", "paper", "where", "statement", "system", "baseline", "control",
         "category", "note")  # keys whose value is a non-empty string
PAPER_NUMBERS = ("paper_system", "paper_baseline", "paper_delta", "paper_ratio")
# metric -> the one `by` its subset filters on, and the bounds it takes
SUBSETS = {"bleu_subset": ("source_length", ("above", "at_most")),
           "agreement": ("distance", ("above",))}


def hyp_kind(claim: dict) -> str:
    """The translations a claim reads: each model's main decoding (hyp), or the
    beam-search decoding of both sides (hyp_beam) for `decoding: beam`."""
    return "hyp_beam" if claim.get("decoding") == "beam" else "hyp"


def claim_kinds(claim: dict) -> tuple[str, ...]:
    """The kinds of run file a claim reads (RUN_KINDS, with its decoding's hyp)."""
    kind = hyp_kind(claim)
    return tuple(kind if k == "hyp" else k for k in RUN_KINDS[claim["metric"]])


def _check_claim(entry: Any, n: int, path: Path) -> dict:
    """One claims.yaml entry with its required keys and known values."""
    where = f"claim {n + 1}"
    if not isinstance(entry, dict):
        raise InputError(f"{where}: expected a mapping", path)
    if isinstance(entry.get("id"), str):
        where = f"{where} ({entry['id']})"
    unknown = [k for k in entry if k not in REQUIRED + OPTIONAL]
    if unknown:
        raise InputError(f"{where}: unknown key {unknown[0]!r} (known: "
                         f"{', '.join(REQUIRED + OPTIONAL)})", path)
    missing = [k for k in REQUIRED if k not in entry]
    if missing:
        raise InputError(f"{where}: missing key(s) {', '.join(missing)}", path)
    _check_values(entry, where, path)
    where = f"claim {n + 1}"
    if entry["metric"] not in RUN_KINDS:
        raise InputError(f"{where} ({entry['id']}): unknown metric "
                         f"{entry['metric']!r} (known: {', '.join(RUN_KINDS)})", path)
    if entry["expect"] not in EXPECT:
        raise InputError(f"{where} ({entry['id']}): expect must be one of "
                         f"{', '.join(EXPECT)}", path)
    _check_subset(entry, f"{where} ({entry['id']})", path)
    if entry["metric"] in ("agreement", "contrastive") and "category" not in entry:
        raise InputError(f"{where} ({entry['id']}): {entry['metric']} needs "
                         "category", path)
    if entry["metric"] not in ("agreement", "contrastive") and "category" in entry:
        raise InputError(f"{where} ({entry['id']}): category is for agreement and "
                         f"contrastive claims, not {entry['metric']}", path)
    speed = entry["metric"] == "train_speed"
    unread = [k for k in PAPER_NUMBERS if (k == "paper_ratio") != speed
              and entry.get(k) is not None]
    if unread:
        raise InputError(f"{where} ({entry['id']}): {unread[0]} is not read for a "
                         f"{entry['metric']} claim (train_speed: paper_ratio; "
                         "others: paper_system and paper_baseline, or paper_delta)",
                         path)
    if entry.get("decoding", "main") not in DECODINGS:
        raise InputError(f"{where} ({entry['id']}): decoding must be one of "
                         f"{', '.join(DECODINGS)}", path)
    _check_source(entry, where, path)
    _check_sizes(entry, where, path)
    if entry["metric"] == "cxmi" and "control" in entry:
        raise InputError(f"{where} ({entry['id']}): a cxmi claim compares the system "
                         "with its random-context control as its baseline; drop "
                         "control", path)
    if "control" in entry and (entry["metric"] == "train_speed"
                               or entry["expect"] != "higher"):
        raise InputError(f"{where} ({entry['id']}): a control compares a quality "
                         "gain (expect: higher, not train_speed)", path)
    return entry


def _check_values(entry: dict, where: str, path: Path) -> None:
    """The type of each value a claim reads as text, a number or a direction."""
    for key in TEXTS:
        value = entry.get(key, "-")
        if not isinstance(value, str) or not value.strip():
            raise InputError(f"{where}: {key} must be a non-empty string, got "
                             f"{value!r}", path)
    for key in PAPER_NUMBERS:
        value = entry.get(key)
        if value is not None and not (isinstance(value, int | float)
                                      and not isinstance(value, bool)
                                      and math.isfinite(value)):
            raise InputError(f"{where}: {key} must be a number (or null where the "
                             f"paper gives none), got {value!r}", path)
    if (entry.get("paper_system") is None) != (entry.get("paper_baseline") is None):
        raise InputError(f"{where}: paper_system and paper_baseline go together "
                         "(give both, or paper_delta alone)", path)
    direction = entry.get("direction")
    if direction is not None and not (
            isinstance(direction, str) and len(direction.split("-")) == 2
            and all(LANG.fullmatch(code) for code in direction.split("-"))):
        raise InputError(f"{where}: direction must be a pair of language codes "
                         f"such as de-en (or null for any), got {direction!r}", path)


def _check_subset(entry: dict, where: str, path: Path) -> None:
    """`subset`: only on the metrics that filter, with their `by` and a
    non-negative whole-number bound."""
    metric, subset = entry["metric"], entry.get("subset")
    if metric not in SUBSETS:
        if "subset" in entry:
            raise InputError(f"{where}: subset is for the metrics "
                             f"{', '.join(SUBSETS)}, not {metric}", path)
        return
    by, bounds = SUBSETS[metric]
    if subset is None and metric == "agreement":
        return
    form = " | ".join(f"{b}: N" for b in bounds)
    if not isinstance(subset, dict):
        raise InputError(f"{where}: {metric} needs subset {{by: {by}, {form}}}, got "
                         f"{subset!r}", path)
    if subset.get("by") != by:
        raise InputError(f"{where}: subset.by must be {by} for {metric}, got "
                         f"{subset.get('by')!r}", path)
    extra = [k for k in subset if k not in ("by", *bounds)]
    given = [k for k in subset if k in bounds]
    if extra or len(given) != 1:
        raise InputError(f"{where}: subset needs by and one of {', '.join(bounds)} "
                         f"({{by: {by}, {form}}}), got {subset!r}", path)
    value = subset[given[0]]
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InputError(f"{where}: subset.{given[0]} must be a whole number of "
                         f"tokens (0 or more), got {value!r}", path)


def _check_source(entry: dict, where: str, path: Path) -> None:
    """A claim's provenance: a known source kind and a non-empty quote."""
    if entry["source"] not in SOURCES:
        raise InputError(f"{where} ({entry['id']}): source must be one of "
                         f"{', '.join(SOURCES)}, got {entry['source']!r}", path)
    if not isinstance(entry["quote"], str) or not entry["quote"].strip():
        raise InputError(f"{where} ({entry['id']}): quote must be the source's "
                         "words or table cell (a non-empty string)", path)


def _positive(value: Any) -> bool:
    """A finite number above zero (not a boolean)."""
    return (isinstance(value, int | float) and not isinstance(value, bool)
            and 0 < value < float("inf"))


def _check_sizes(entry: dict, where: str, path: Path) -> None:
    """`margin` (claims of no gain) and `ratio_fraction` (speed ratios)."""
    name = f"{where} ({entry['id']})"
    if entry["expect"] == "not_higher":
        if not _positive(entry.get("margin")):
            raise InputError(f"{name}: a claim of no gain (expect: not_higher) needs "
                             "margin, the equivalence margin in the metric's unit "
                             "(a positive number, e.g. 0.5 BLEU)", path)
    elif "margin" in entry:
        raise InputError(f"{name}: margin is for claims of no gain "
                         "(expect: not_higher)", path)
    if "ratio_fraction" in entry:
        fraction = entry["ratio_fraction"]
        if entry["metric"] != "train_speed" or entry.get("paper_ratio") is None:
            raise InputError(f"{name}: ratio_fraction is for train_speed claims "
                             "with a paper_ratio", path)
        if not _positive(fraction) or fraction > 1:
            raise InputError(f"{name}: ratio_fraction must be in (0, 1], got "
                             f"{fraction!r}", path)


def in_family(claim: dict, models: list[str] | set[str]) -> bool:
    """Whether a family's table (`--family-only`) lists the claim: its system and
    baseline are both among the family's models."""
    return claim["system"] in models and claim["baseline"] in models


def load_claims(path: Path = CLAIMS) -> list[dict]:
    """The validated claims of a claims file; ids must be unique."""
    try:
        # libyaml where PyYAML has it: the registry is long, and every Snakemake
        # start reads it
        data = yaml.load(read_text(path), Loader=safe_yaml_loader())
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        raise InputError(f"invalid YAML: {getattr(err, 'problem', err)}", path,
                         mark.line + 1 if mark else None) from None
    if not isinstance(data, dict) or not isinstance(data.get("claims"), list):
        raise InputError("expected a mapping with a list 'claims'", path)
    claims = [_check_claim(e, n, path) for n, e in enumerate(data["claims"])]
    ids = [c["id"] for c in claims]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise InputError(f"claim id(s) given twice: {', '.join(dupes)}", path)
    return claims
