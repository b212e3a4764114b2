"""The claims table's inputs: per-seed paths, seeds per model, targets."""

from __future__ import annotations

import shlex

import yaml

from phrasenmt.config import validate_config
from phrasenmt.report.claims import build_parser
from phrasenmt.workflow import base as wf
from phrasenmt.workflow import claims as wfc
from tests.conftest import TEST_CONFIG


def seeded_config() -> dict:
    """The default config, validated, then given three seeds (npmt: its own two)."""
    config = validate_config(yaml.safe_load(TEST_CONFIG.read_text()))
    config["seeds"] = [1, 2, 3]
    config["models"]["npmt"]["seeds"] = [4, 5]
    return config


def test_model_seeds_global_own_and_checkpoint_owner():
    config = seeded_config()
    assert wfc.model_seeds(config, "transformer") == [1, 2, 3]
    assert wfc.model_seeds(config, "npmt") == [4, 5]
    assert wfc.model_seeds(config, "npmt_lm") == [4, 5]  # checkpoint_of npmt
    config["seeds"] = [1]
    assert wfc.model_seeds(config, "transformer") == [1]


def test_inputs_follow_the_seed_layout_and_args_parse():
    config = seeded_config()
    inputs = wfc.claims_inputs(config, "synthetic_de_en")
    assert "results/synthetic_de_en/translations/npmt/seed5/test.txt" in inputs["hyp"]
    assert ("results/synthetic_de_en/models/npmt/seed4/summary.json"
            in inputs["summary"])  # conmt vs npmt train speed
    assert "lingeval" not in inputs  # de-en has no Lingeval97 items
    args = build_parser().parse_args([
        *shlex.split(wfc.claims_args(config, "synthetic_en_de")),
        "--out-md", "a.md", "--out-tex", "a.tex", "--out-csv", "a.csv",
        "--out-timing-csv", "t.csv"])
    assert args.direction == "en-de" and args.synthetic
    runs = {(r[0], r[1]): r[2:] for r in args.run}
    assert runs["pr_max_attn_ta", "2"] == [
        "hyp=results/synthetic_en_de/translations/pr_max_attn_ta/seed2/test.txt",
        "lingeval=results/synthetic_en_de/lingeval/scores/pr_max_attn_ta/seed2.txt"]
    han = dict(spec.split("=") for spec in runs["han_enc_dec", "3"])
    assert han["align"].endswith("align/test/han_enc_dec/seed3.align")


def test_targets_for_every_dataset_with_models():
    config = seeded_config()
    assert wfc.claims_targets(config, "synthetic_en_de") == [
        f"results/synthetic_en_de/report/claims.{e}" for e in ("md", "tex", "csv")]
    for entry in config["models"].values():
        entry["datasets"] = ["synthetic_de_en"]
    assert wfc.claims_targets(config, "synthetic_en_de") == []


def test_a_family_table_reads_only_its_models_runs():
    config = seeded_config()
    config["families"] = {"npmt": ["attn_rnn", "npmt", "npmt_lm"], "xu": ["pr_mean"]}
    assert wfc.claims_targets(config, "synthetic_de_en") == [
        f"results/synthetic_de_en/report/{name}.{e}"
        for name in ("claims", "claims_npmt") for e in ("md", "tex", "csv")]
    among = wfc.table_family(config, "synthetic_de_en", "claims_npmt")
    assert among == ["attn_rnn", "npmt", "npmt_lm"]
    assert wfc.table_family(config, "synthetic_de_en", "claims") is None
    inputs = wfc.claims_inputs(config, "synthetic_de_en", among)
    assert "hyp" not in inputs  # the NPMT claims compare beam search with beam search
    assert sorted(p.split("/", 3)[3] for p in inputs["hyp_beam"])[::2] == [
        "attn_rnn/seed1/test.beam.txt", "attn_rnn/seed3/test.beam.txt",
        "npmt/seed5/test.txt", "npmt_lm/seed5/test.txt"]
    assert "summary" not in inputs  # park-speed-npmt (conmt vs npmt) is not the family's
    config["families"]["xu"] = ["transformer", "pr_max_attn_ta"]
    xu = wfc.claims_inputs(config, "synthetic_en_de", ["transformer", "pr_max_attn_ta"])
    assert "align" not in xu  # the files of the document claims: no runs' scores
    assert [p.rsplit("/", 1)[1] for p in xu["contrastive"]] == ["items.json"]
    args = build_parser().parse_args([
        *shlex.split(wfc.claims_args(config, "synthetic_de_en", among)),
        "--out-md", "a.md", "--out-tex", "a.tex", "--out-csv", "a.csv",
        "--out-timing-csv", "t.csv"])
    assert args.family_only and args.models == ["attn_rnn", "npmt", "npmt_lm"]
    assert {r[0] for r in args.run} == {"attn_rnn", "npmt", "npmt_lm"}
    assert "--family-only" not in wfc.claims_args(config, "synthetic_de_en")


def test_without_npmt_rows_no_beam_decoding_of_the_attention_model_is_asked_for():
    config = seeded_config()
    for name in [m for m in config["models"]
                 if wf.model_family(config, m) == "npmt"]:
        del config["models"][name]
    inputs = wfc.claims_inputs(config, "synthetic_de_en")
    assert not any("attn_rnn" in p for p in inputs.get("hyp_beam", []))
    assert any("attn_rnn/seed1/test.txt" in p for p in inputs["hyp"])


def test_a_claim_is_judged_against_the_control_the_config_has():
    # a control named otherwise than claims.yaml's ctx_transformer_random: the
    # claims table reads its runs and judges against it, as the context-usage
    # table marks it (one function, discourse.control_of, finds both)
    config = seeded_config()
    config["models"]["ctx_ctrl"] = config["models"].pop("ctx_transformer_random")
    kinds = wfc.run_kinds(config, "synthetic_en_de")
    assert "ctx_ctrl" in kinds and "ctx_transformer_random" not in kinds
    args = build_parser().parse_args([
        *shlex.split(wfc.claims_args(config, "synthetic_en_de")),
        "--out-md", "a.md", "--out-tex", "a.tex", "--out-csv", "a.csv",
        "--out-timing-csv", "t.csv"])
    assert sorted(args.control) == [("ctx_ctrl", "ctx_transformer"),
                                    ("han_dec_random", "han_dec")]
