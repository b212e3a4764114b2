"""Everything `rule all` asks for: the top of the workflow helpers.

Imports the family modules; none of them imports this one.
"""

from __future__ import annotations

from phrasenmt.workflow import base as wf
from phrasenmt.workflow import (
    claims,
    continuous,
    curves,
    discourse,
    npmt,
    phrase_repr,
)


def final_targets(config: dict) -> list[str]:
    """Everything `rule all` asks for."""
    targets = []
    for ds in wf.datasets(config):
        root = f"results/{ds}"
        targets.append(f"{root}/analysis/data_stats.tsv")
        if wf.has_stopword_list(config, ds):
            targets += [f"{root}/phrases/filters.tsv", f"{root}/embeddings/words.vec",
                        f"{root}/embeddings/phrases.vec"]
        if wf.source(config, ds) == "synthetic":
            targets.append(f"{root}/analysis/aer.json")
        if not wf.models(config, ds):
            continue
        targets.append(f"{root}/report/cleaning.md")  # the report's data table
        targets += [f"{root}/report/results.{ext}" for ext in ("md", "tex", "csv")]
        for testset in wf.testsets(config, ds):
            targets += [f"{root}/report/length_{testset}.{ext}" for ext in ("png", "svg")]
        targets += curves.curve_targets(config, ds)
        targets += continuous.continuous_targets(config, ds)
        targets += phrase_repr.phrase_targets(config, ds)
        targets += npmt.npmt_targets(config, ds)
        targets += discourse.document_targets(config, ds)
        targets += claims.claims_targets(config, ds)
    return targets

