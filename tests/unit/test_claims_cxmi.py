"""Claims of context use: a document model's per-sentence CXMI against a random
context, compared with its random-context control's, on any dataset with
document ids (no contrastive set needed)."""

from __future__ import annotations

import json
import random

import pytest
import yaml

from phrasenmt.claims import load_claims
from phrasenmt.io import InputError
from phrasenmt.report.claim_checks import Evidence, NotTested, check
from phrasenmt.report.claims import with_control
from phrasenmt.workflow import claims as wfc
from tests.unit.test_claims import WORDS, noisy, write
from tests.unit.test_context_usage import shipped_with
from tests.unit.test_workflow_helpers import REPO, validate_config

CLAIM = next(c for c in load_claims() if c["id"] == "doc-han-dec-cxmi")


def evidence(tmp_path, system: list[float], control: list[float],
             unlearned: str | None = None) -> Evidence:
    """Three seeds of han_dec and its control with their CXMI JSONs and test
    outputs (each word kept with probability 0.9; every word replaced in the
    `unlearned` model's)."""
    ev = Evidence("my_docs", "en-de", False, ["transformer", "han_dec", "ctrl"],
                  trials=200, controls={"han_dec": "ctrl"})
    rng = random.Random(3)
    refs = [" ".join(rng.choices(WORDS, k=rng.randint(5, 20))) for _ in range(60)]
    ev.files["ref"] = write(tmp_path / "ref.de", refs)
    for model, values in (("han_dec", system), ("ctrl", control)):
        for seed in (1, 2, 3):  # three seeds: the second and third shifted a little
            path = tmp_path / f"{model}{seed}.json"
            shifted = [v + 0.001 * (seed - 1) for v in values]
            path.write_text(json.dumps({"test": {"sentence_cxmi_random": shifted}}))
            hyp = write(tmp_path / f"{model}{seed}.txt",
                        noisy(refs, 1.0 if model == unlearned else 0.1, rng))
            ev.runs.setdefault(model, {})[seed] = {"cxmi": path, "hyp": hyp}
    return ev


def test_a_model_that_reads_its_context_beats_its_control(tmp_path):
    system = [0.5 + 0.01 * (i % 7) for i in range(60)]
    control = [0.01 * ((i % 5) - 2) for i in range(60)]
    ev = evidence(tmp_path, system, control)
    claim = with_control(CLAIM, ev)
    assert claim["baseline"] == "ctrl"  # the config's control, whatever its name
    result = check(claim, ev, 0.05)
    assert result["verdict"] == "reproduced"
    assert result["delta"] == pytest.approx(sum(system) / 60 - sum(control) / 60)
    assert result["seeds"] == [1, 2, 3]
    same = check(with_control(CLAIM, evidence(tmp_path, control, control)), ev, 0.05)
    assert same["verdict"] != "reproduced"


def test_no_cxmi_verdict_for_a_model_that_did_not_learn_to_translate(tmp_path):
    """What a model that does not translate reads in its context says nothing
    of context use: the row is not tested, as a BLEU row would be."""
    system = [0.5 + 0.01 * (i % 7) for i in range(60)]
    ev = evidence(tmp_path, system, [0.0] * 60, unlearned="han_dec")
    with pytest.raises(NotTested, match="han_dec did not learn"):
        check(with_control(CLAIM, ev), ev, 0.05)


def test_a_cxmi_json_without_per_sentence_values_names_the_file(tmp_path):
    ev = evidence(tmp_path, [0.1], [0.0])
    ev.runs["ctrl"][2]["cxmi"].write_text(json.dumps({"test": {"cxmi": 0.0}}))
    with pytest.raises(InputError, match=r"ctrl2\.json.*sentence_cxmi_random"):
        check(with_control(CLAIM, ev), ev, 0.05)


def test_the_claims_table_of_a_document_corpus_reads_every_cxmi_json():
    example = REPO / "configs" / "examples" / "own_documents.yaml"
    config = validate_config(shipped_with(yaml.safe_load(example.read_text())))
    inputs = wfc.claims_inputs(config, "my_docs")
    assert sorted(inputs["cxmi"]) == sorted(
        f"results/my_docs/analysis/cxmi/{m}/seed1.json"
        for m in ("ctx_transformer", "ctx_transformer_random", "han_dec",
                  "han_dec_random"))
    assert "contrastive" not in inputs
    args = wfc.claims_args(config, "my_docs")
    assert "--control han_dec_random=han_dec" in args or \
        "han_dec_random=han_dec" in args


def test_a_contrastive_claim_without_a_contrastive_set_says_so_first(tmp_path):
    """On a corpus without contrastive items, that is the reason, whatever the
    models learned."""
    claim = next(c for c in load_claims() if c["metric"] == "contrastive"
                 and c["system"] == "han_dec")
    ev = evidence(tmp_path, [0.1] * 60, [0.0] * 60, unlearned="ctrl")
    with pytest.raises(NotTested, match="^my_docs has no contrastive items$"):
        check(with_control(claim, ev), ev, 0.05)
