"""The document models' test-split figures with and without the documents of
the contrastive dev items.

    python experiments/dev_documents.py results/synthetic_en_de [--seed 1]

On the synthetic corpus the contrastive set's items are test sentences, split
by document into dev items (which choose the step-2 budgets) and test items.
The context-usage table's BLEU and CXMI columns, and the claims table's
`bleu` and `cxmi` rows, read every test sentence, so they include the
documents of the dev items. This prints, for every document model and
control of the run, corpus BLEU (sacreBLEU, as the workflow scores it) and
CXMI against a random context in nats per sentence (the mean of the cxmi
job's per-sentence values, with its 95 % bootstrap interval over sentences) on
all test documents, on the documents with no dev item, and on those with one:
whether the budgets' choice on the dev items shows in the test figures.
Nothing is trained or decoded again.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from phrasenmt.evaluate.bleu import detok_bleu, read_pair
from phrasenmt.evaluate.cxmi import cxmi as cxmi_mean
from phrasenmt.io import InputError, read_lines, run_cli

CONTRASTIVE = "discourse/contrastive/synthetic/items.json"
BASELINE = "transformer"  # the sentence-level model the document models start from


def dev_documents(root: Path) -> set[str]:
    """The test documents that hold a dev item of the contrastive set."""
    path = root / CONTRASTIVE
    if not path.is_file():
        raise InputError("no synthetic contrastive set: run the workflow's "
                         "contrastive_prepare job first", path)
    items = json.loads(path.read_text())["items"]
    return {item["doc"] for item in items if item["split"] == "dev"}


def rows(root: Path, seed: int) -> list[str]:
    docs = read_lines(root / "data/test.docs")
    dev = dev_documents(root)
    groups = {"all": np.ones(len(docs), bool),
              "without dev items": np.array([d not in dev for d in docs]),
              "with dev items": np.array([d in dev for d in docs])}
    out = ["| model | sentences: " + " / ".join(f"{k} ({int(v.sum())})" for k, v in groups.items())
           + " |", "|---|---|"]
    models = {path.parent.name: json.loads(path.read_text())
              for path in sorted((root / "analysis/cxmi").glob(f"*/seed{seed}.json"))}
    for model in [BASELINE, *models]:  # the sentence-level model: BLEU only
        hyp = root / f"translations/{model}/seed{seed}/test.txt"
        hyps, refs = read_pair(hyp, root / "data/test.ref.de")
        job = models.get(model)
        cxmi = (np.array(job["test"]["sentence_cxmi_random"], float)
                if job is not None else None)
        if len(hyps) != len(docs) or (cxmi is not None and len(cxmi) != len(docs)):
            raise InputError(f"translations or CXMI values of {model} are not one per "
                             f"test sentence ({len(docs)})", hyp)
        cells = []
        for mask in groups.values():
            pick = np.flatnonzero(mask)
            bleu = detok_bleu().corpus_score([hyps[i] for i in pick],
                                             [[refs[i] for i in pick]]).score
            cell = f"BLEU {bleu:.2f}"
            if cxmi is not None:  # the cxmi job's per-sentence mean and bootstrap
                part = cxmi_mean(cxmi[pick], np.ones(len(pick)), job["samples"], job["seed"])
                (low, high), mean = part["ci95"], part["cxmi"]
                cell += f", CXMI vs random {mean:+.3f} [{low:+.3f}, {high:+.3f}]"
            cells.append(cell)
        out.append(f"| {model} | " + " / ".join(cells) + " |")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="a run's results/DATASET folder")
    parser.add_argument("--seed", type=int, default=1, help="the training seed read")
    args = parser.parse_args(argv)
    print("\n".join(rows(args.root, args.seed)))


if __name__ == "__main__":
    run_cli(main)
