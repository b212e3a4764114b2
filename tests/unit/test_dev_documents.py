"""experiments/dev_documents.py: the test-split figures split by whether a
document holds a contrastive dev item."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments import dev_documents
from phrasenmt.io import InputError

DOCS = ["d1", "d1", "d2", "d2"]


def _run(root: Path, ctx_hyps: list[str], cxmi: list[float]) -> None:
    """A results/DATASET folder: four test sentences in two documents, d1 with
    a dev item; the Transformer and one document model."""
    (root / "data").mkdir(parents=True)
    (root / "data/test.docs").write_text("".join(d + "\n" for d in DOCS))
    refs = ["a b c d", "e f g h", "i j k l", "m n o p"]
    (root / "data/test.ref.de").write_text("".join(r + "\n" for r in refs))
    items = [{"doc": "d1", "split": "dev"}, {"doc": "d2", "split": "test"}]
    path = root / dev_documents.CONTRASTIVE
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"items": items}))
    for model, hyps in (("transformer", refs), ("ctx", ctx_hyps)):
        (root / f"translations/{model}/seed1").mkdir(parents=True)
        (root / f"translations/{model}/seed1/test.txt").write_text(
            "".join(h + "\n" for h in hyps))
    (root / "analysis/cxmi/ctx").mkdir(parents=True)
    (root / "analysis/cxmi/ctx/seed1.json").write_text(
        json.dumps({"samples": 200, "seed": 1, "test": {"sentence_cxmi_random": cxmi}}))


def test_each_group_reads_its_own_documents(tmp_path: Path):
    refs = ["a b c d", "e f g h", "i j k l", "m n o p"]
    _run(tmp_path, refs[:2] + ["x y z w", "q r s t"], [1.0, 3.0, -1.0, -1.0])
    header, _, transformer, ctx = dev_documents.rows(tmp_path, 1)
    assert "all (4) / without dev items (2) / with dev items (2)" in header
    assert transformer == "| transformer | BLEU 100.00 / BLEU 100.00 / BLEU 100.00 |"
    all_, without, with_ = ctx.removeprefix("| ctx | ").removesuffix(" |").split(" / ")
    assert without == "BLEU 0.00, CXMI vs random -1.000 [-1.000, -1.000]"
    assert with_.startswith("BLEU 100.00, CXMI vs random +2.000 [")
    assert all_.startswith("BLEU ") and "CXMI vs random +0.500 [" in all_


def test_values_that_are_not_one_per_sentence_are_refused(tmp_path: Path):
    _run(tmp_path, ["a"] * 4, [0.0] * 3)
    with pytest.raises(InputError, match="not one per test sentence"):
        dev_documents.rows(tmp_path, 1)
