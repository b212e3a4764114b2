"""The helpers the Snakefile uses: targets, params, wildcard regexes."""

from __future__ import annotations

import json
import re
import shlex

import pytest
import yaml

from phrasenmt.config import validate_config
from phrasenmt.io import InputError
from phrasenmt.workflow import base as wf
from phrasenmt.workflow import corpus as wfc
from phrasenmt.workflow import discourse as wfdis
from phrasenmt.workflow import documents as wfd
from phrasenmt.workflow import documents_report as wfdr
from phrasenmt.workflow import npmt as wfn
from phrasenmt.workflow import phrase_repr as wfpr
from phrasenmt.workflow import runs
from phrasenmt.workflow.targets import final_targets
from tests.conftest import REPO, TEST_CONFIG

DOCUMENT_ROWS = ["ctx_transformer", "ctx_transformer_random", "han_enc", "han_dec",
                 "han_dec_random", "han_enc_dec"]


@pytest.fixture
def config() -> dict:
    with open(TEST_CONFIG, encoding="utf-8") as fh:
        return validate_config(yaml.safe_load(fh))


def test_targets_cover_report_and_stats(config):
    targets = final_targets(config)
    assert "results/synthetic_en_de/report/results.md" in targets
    assert "results/synthetic_en_de/report/length_test.svg" in targets
    assert "results/synthetic_en_de/analysis/data_stats.tsv" in targets


def test_run_datasets_selects(config):
    config["datasets"]["other"] = dict(config["datasets"]["synthetic_en_de"])
    assert wf.datasets(config) == ["synthetic_en_de", "synthetic_de_en", "other"]
    config["run_datasets"] = ["other"]
    assert wf.datasets(config) == ["other"]
    assert all("/other/" in t for t in final_targets(config))


def test_datasets_without_models_stop_at_embeddings(config):
    for name in wf.models(config, "synthetic_de_en"):
        del config["models"][name]
    targets = final_targets(config)
    assert "results/synthetic_de_en/embeddings/phrases.vec" in targets
    assert not any(t.startswith("results/synthetic_de_en/report/") for t in targets)


def test_model_spec_is_json_with_overrides(config):
    config["models"]["transformer"]["train"] = {"max_steps": 7}
    spec = json.loads(wf.model_spec(config, "transformer"))
    assert spec == {"arch": "transformer", "preset": "tiny", "model": {},
                    "train": {"max_steps": 7}}


def test_synthetic_args_follow_config(config):
    config["datasets"]["synthetic_en_de"]["synthetic"]["rates"] = {"relative_clause": 0.5}
    args = shlex.split(wf.synthetic_args(config, "synthetic_en_de"))
    assert args[args.index("--direction") + 1] == "en-de"
    assert args[args.index("--train-size") + 1] == "40000"
    assert args[args.index("--rate-relative-clause") + 1] == "0.5"
    assert args[args.index("--max-sentence-tokens") + 1] == "50"
    assert args[args.index("--max-distance-words") + 1] == "30"
    config["datasets"]["synthetic_en_de"]["synthetic"]["max_sentence_tokens"] = 90
    args = shlex.split(wf.synthetic_args(config, "synthetic_en_de"))
    assert args[args.index("--max-sentence-tokens") + 1] == "90"


def test_the_distractor_setting_reaches_the_generator(config):
    """`--distractor-gender` goes to the generator where a pronoun is 2 or more
    back and the setting is not the generator's default ("other"), so that a
    corpus that has no sentences between, or keeps "other", keeps its command."""
    syn = config["datasets"]["synthetic_en_de"]["synthetic"]

    def flag() -> str | None:
        args = shlex.split(wf.synthetic_args(config, "synthetic_en_de"))
        i = args.index("--distractor-gender") if "--distractor-gender" in args else -1
        return args[i + 1] if i >= 0 else None

    assert syn["distractor_gender"] == "any" and flag() is None  # antecedents 1 back
    syn["antecedent_distance"] = {1: 0.5, 2: 0.5}
    assert flag() == "any"
    syn["distractor_gender"] = "other"
    assert flag() is None


def test_clean_args_filter_train_only(config):
    assert "--filter" in wf.clean_args(config, "synthetic_en_de", "train")
    assert "--filter" not in wf.clean_args(config, "synthetic_en_de", "test")
    assert "--pretokenized" in wf.clean_args(config, "synthetic_en_de", "test")


def test_testsets_validate_the_choice(config):
    assert wf.testsets(config, "synthetic_en_de") == ["test"]
    config["datasets"]["synthetic_en_de"]["testsets"] = ["nope"]
    with pytest.raises(Exception, match="unknown test set 'nope'"):
        wf.testsets(config, "synthetic_en_de")


def test_models_restricted_to_datasets(config):
    config["models"]["other"] = {"arch": "transformer", "preset": "tiny",
                                 "datasets": ["elsewhere"]}
    assert wf.models(config, "synthetic_en_de") == ["transformer", *wfpr.PHRASE_REPR_ARCHS,
                                                    *DOCUMENT_ROWS]


def test_name_regex():
    assert re.fullmatch(wf.name_regex(["a", "b"]), "b")
    assert not re.fullmatch(wf.name_regex([]), "")
    assert not re.fullmatch(wf.name_regex([]), "x")


def test_phrase_archs_mirror_the_registered_configs():
    from phrasenmt.models.phrase_transformer import VARIANTS

    assert {a: c().segmentation for a, c in VARIANTS.items()} == wfpr.PHRASE_REPR_ARCHS


def test_phrase_models_get_their_segmentation_side_inputs(config):
    ds = "synthetic_en_de"
    assert wfpr.side_args(config, ds, "transformer", ["train", "dev"]) == ""
    assert wfpr.side_args(config, ds, "pr_max_attn_ta", ["train", "dev"]) == (
        f"--side phrases=results/{ds}/parse/train.ngram.phrases,"
        f"results/{ds}/parse/dev.ngram.phrases")
    assert wfpr.side_inputs(config, ds, "pr_max_attn_ta_parse", ["test"]) == {
        "phrases": [f"results/{ds}/parse/test.parse.phrases"]}


def test_parse_phrases_on_a_non_english_source_is_a_config_error(config):
    config["models"]["pr_max_attn_ta_parse"]["datasets"] = ["synthetic_de_en"]
    with pytest.raises(Exception, match="English source"):
        wfpr.check_phrase_models(config)


def test_default_config_asks_for_ablation_and_agreement(config):
    targets = final_targets(config)
    assert "results/synthetic_en_de/report/ablation.md" in targets
    assert "results/synthetic_en_de/report/agreement.png" in targets
    assert "results/synthetic_de_en/report/ablation.md" not in targets


# --- NPMT family, checkpoint_of rows, the LM row, sweeps -----------------------

DE_EN = "synthetic_de_en"


@pytest.fixture
def npmt_config(config) -> dict:
    """The default config with configs/npmt_window_sweep.yaml, as the Snakefile
    sees it: sweeps derived, lmplz found."""
    assert config["sweeps"]["npmt_window"]["enabled"] is False  # off in make run
    with open(REPO / "configs" / "npmt_window_sweep.yaml", encoding="utf-8") as fh:
        sweep = yaml.safe_load(fh)["sweeps"]["npmt_window"]
    config["sweeps"]["npmt_window"].update(sweep)
    wfn.check_npmt_models(config)
    wf.derive_sweeps(config)
    wf.apply_lm_availability(config, None)
    return config


def test_checkpoint_of_row_takes_its_model(npmt_config):
    lm_row = npmt_config["models"]["npmt_lm"]
    assert (lm_row["arch"], lm_row["preset"]) == ("npmt", "tiny")
    assert lm_row["datasets"] == [DE_EN]
    assert wf.checkpoint_owner(npmt_config, "npmt_lm") == "npmt"
    assert wf.summary_path(npmt_config, DE_EN, "npmt_lm", 2) == (
        f"results/{DE_EN}/models/npmt/seed2/summary.json")
    assert runs.seeds(npmt_config, "npmt_lm") == runs.seeds(npmt_config, "npmt")
    assert "npmt_lm" not in wfn.trained_models(npmt_config)


@pytest.mark.parametrize("entry, message", [
    ({"checkpoint_of": "nope"}, "'nope' is not another model"),
    ({"checkpoint_of": "npmt_lm"}, "decodes another model's checkpoint itself"),
    ({"checkpoint_of": "npmt", "preset": "iwslt"}, "models.x.preset: a checkpoint_of"),
    ({"checkpoint_of": "npmt", "datasets": ["synthetic_en_de"]},
     "models.x.datasets: must be those 'npmt' trains on"),
    ({"preset": "tiny"}, "models.x"),
])
def test_bad_checkpoint_of_rows(entry, message):
    with open(TEST_CONFIG, encoding="utf-8") as fh:
        raw = yaml.safe_load(fh)
    raw["models"]["x"] = entry
    with pytest.raises(InputError, match=message):
        validate_config(raw)


@pytest.mark.parametrize("model, decode, message", [
    ("npmt", {"lambda2": 0.5}, "decode.lambda2: above 0 needs decode.lm: true"),
    ("attn_rnn", {"lm": True}, "decode.lm: applies to NPMT models"),
    ("transformer", {"lambda1": 1.0}, "decode.lambda1: applies to NPMT models"),
])
def test_decode_keys_are_checked_per_arch(config, model, decode, message):
    config["models"][model]["decode"] = decode
    with pytest.raises(InputError, match=message):
        wfn.check_npmt_models(config)


def test_checkpoint_of_only_for_the_npmt_family(config):
    config["models"]["t2"] = {"checkpoint_of": "transformer", "arch": "transformer",
                              "preset": "tiny"}
    with pytest.raises(InputError, match="t2.checkpoint_of: only NPMT-family"):
        wfn.check_npmt_models(config)


def test_decode_settings_preset_then_config(npmt_config):
    assert wfn.translate_args(npmt_config, "npmt", "beam") == (
        "--beam 4 --lambda1 1.0 --lambda2 0.0")
    assert wfn.translate_args(npmt_config, "npmt_lm", "beam") == (
        "--beam 4 --lambda1 1.0 --lambda2 0.2")
    assert wfn.translate_args(npmt_config, "npmt", "greedy") == (
        "--beam 1 --lambda1 0 --lambda2 0")
    assert wfn.translate_args(npmt_config, "attn_rnn", "beam") == "--beam 4 --lenpen 0.6"
    npmt_config["models"]["attn_rnn"]["decode"] = {"beam": 1}  # greedy: no lenpen
    assert wfn.translate_args(npmt_config, "attn_rnn", "beam") == "--beam 1"
    del npmt_config["models"]["attn_rnn"]["decode"]
    npmt_config["models"]["npmt"]["preset"] = "iwslt"
    npmt_config["models"]["npmt"]["decode"] = {"beam": 5}
    assert wfn.decode_settings(npmt_config, "npmt") == {
        "beam": 5, "lenpen": 0.6, "lm": False, "lambda1": 1.2, "lambda2": 0.0}
    npmt_config["models"]["npmt"]["model"] = {"lambda1": 0.5}
    assert wfn.decode_settings(npmt_config, "npmt")["lambda1"] == 0.5


def test_npmt_decode_defaults_mirror_the_presets():
    from phrasenmt.models.registry import get_model_class, get_preset
    from phrasenmt.sweeps import PRESET_VALUES
    from phrasenmt.training.config import TrainConfig

    for arch in wf.SWAN_ARCHS:
        for preset, values in wfn.NPMT_DECODE.items():
            cfg = get_model_class(arch).config_class()
            get_preset(arch, preset)(cfg, TrainConfig())
            assert {k: getattr(cfg, k) for k in values} == values, (arch, preset)
            assert PRESET_VALUES[arch, preset] == {"model.window": cfg.window}


def test_every_table_row_has_greedy_and_beam_files(npmt_config):
    c = npmt_config
    assert wfn.table_models(c, DE_EN) == ["attn_rnn", "npmt", "npmt_lm",
                                         "npmt_noreorder", "attn_rnn_reorder"]
    assert wfn.hyp_file(c, DE_EN, "attn_rnn", "test", "greedy", 1) == (
        f"results/{DE_EN}/translations/attn_rnn/seed1/test.tok")
    assert wfn.hyp_file(c, DE_EN, "attn_rnn", "test", "beam", 1) == (
        f"results/{DE_EN}/translations/attn_rnn/seed1/test.beam.tok")
    assert wfn.hyp_file(c, DE_EN, "npmt", "test", "beam", 3, "txt") == (
        f"results/{DE_EN}/translations/npmt/seed3/test.txt")
    assert wfn.decodings(c, DE_EN, "npmt_lm") == ["beam"]
    evals = wfn.table_evals(c, DE_EN, "test")
    assert len(evals) == 9 and "npmt_lm:greedy" not in evals
    assert evals["npmt:beam"] == f"results/{DE_EN}/eval/npmt/test.beam.json"
    assert wfn.eval_inputs(c, DE_EN, "npmt", "test", "greedy", 1)["hyp"] == (
        f"results/{DE_EN}/translations/npmt/seed1/test.greedy.txt")
    c["seeds"] = [1, 2]
    inputs = wfn.aggregate_inputs(c, DE_EN, "npmt", "test", "greedy")
    assert inputs["baseline"] == [f"results/{DE_EN}/translations/attn_rnn/seed{s}/"
                                  "test.txt" for s in (1, 2)]
    assert wfn.aggregate_baseline(c, DE_EN, "npmt") == "attn_rnn"
    assert wfn.aggregate_baseline(c, DE_EN, "attn_rnn") == "attn_rnn"
    assert len(wfn.table_seed_evals(c, DE_EN, "test")) == 18
    assert wfn.attention_models(c) == ["attn_rnn", "attn_rnn_reorder"]
    assert wfn.segment_models(c, DE_EN) == ["npmt", "npmt_noreorder"]
    hyps = wfn.reordering_hyps(c, DE_EN, "test")
    assert list(hyps)[:3] == ["attn_rnn:1", "attn_rnn:2", "npmt:1"]
    assert hyps["npmt:2"] == f"results/{DE_EN}/translations/npmt/seed2/test.tok"


def test_reordering_table_needs_gold_alignments(npmt_config):
    assert wfn.has_gold_alignments(npmt_config, DE_EN)
    npmt_config["datasets"][DE_EN] = {
        "source": "local", "src": "de", "tgt": "en",
        "local": {"train": "a", "dev": "b", "test": {"test": "c"}}}
    assert not wfn.has_gold_alignments(npmt_config, DE_EN)
    assert not any("npmt_reordering" in t for t in wfn.npmt_targets(npmt_config, DE_EN))


def test_default_config_asks_for_every_npmt_analysis(npmt_config):
    targets = final_targets(npmt_config)
    report = f"results/{DE_EN}/report"
    for name in ("npmt_bleu_test", "npmt_segments_test", "npmt_examples_test",
                 "npmt_mappings_test", "npmt_reordering_test", "sweep_npmt_window"):
        assert f"{report}/{name}.md" in targets
    assert f"{report}/npmt_gates.png" in targets
    assert not any("/synthetic_en_de/report/npmt" in t for t in targets)


def test_without_lmplz_the_lm_row_is_left_out_with_a_note(npmt_config):
    wf.apply_lm_availability(npmt_config, "lmplz not found: run 'make kenlm'")
    assert "npmt_lm" not in wf.models(npmt_config, DE_EN)
    assert "npmt_lm" not in wfn.table_models(npmt_config, DE_EN)
    assert not any("npmt_lm" in t for t in final_targets(npmt_config))
    assert wfn.table_notes(npmt_config, DE_EN) == [
        "NPMT+LM (npmt_lm) not run: lmplz not found: run 'make kenlm'"]
    # still buildable when asked for explicitly: the rules' model regex has it
    assert re.fullmatch(wf.model_regex(npmt_config, "npmt"), "npmt_lm")
    wf.apply_lm_availability(npmt_config, None)
    assert "npmt_lm" in wf.models(npmt_config, DE_EN)


def test_sweep_derives_one_model_per_new_value(npmt_config):
    assert wf.sweep_points(npmt_config, "npmt_window") == [
        (5, "npmt_window5"), (7, "npmt"), (9, "npmt_window9"), (11, "npmt_window11")]
    derived = npmt_config["models"]["npmt_window9"]
    assert derived["model"] == {"window": 9}
    assert (derived["arch"], derived["datasets"]) == ("npmt", [DE_EN])
    assert "npmt_window7" not in npmt_config["models"]
    assert wf.derived_models(npmt_config) == {"npmt_window5", "npmt_window9",
                                              "npmt_window11"}
    assert "npmt_window5" not in wfn.table_models(npmt_config, DE_EN)
    assert "npmt_window5" in wf.models(npmt_config, DE_EN)
    before = json.dumps(npmt_config["models"], sort_keys=True)
    wf.derive_sweeps(npmt_config)  # idempotent
    assert json.dumps(npmt_config["models"], sort_keys=True) == before


def test_sweep_files_and_switch(config):
    config["sweeps"]["npmt_window"]["enabled"] = False
    wf.derive_sweeps(config)
    assert "npmt_window5" not in config["models"]
    assert not any("sweep_" in t for t in final_targets(config))
    config["sweeps"]["lr"] = {"model": "transformer", "key": "train.lr",
                              "values": [0.001, 0.002]}
    wf.derive_sweeps(config)
    assert config["models"]["transformer_lr0p001"]["train"] == {"lr": 0.001}
    assert wfn.sweep_evals(config, "synthetic_en_de", "lr") == [
        ("0.001:beam",
         "results/synthetic_en_de/eval/transformer_lr0p001/seed1/test.beam.json"),
        ("0.002:beam",
         "results/synthetic_en_de/eval/transformer_lr0p002/seed1/test.beam.json")]


def test_sweep_seeds_train_the_points_at_those_seeds_only(config):
    config["sweeps"] = {"lr": {"model": "transformer", "key": "train.lr",
                               "values": [0.001, 0.002], "seeds": [1]}}
    wf.derive_sweeps(config)
    assert config["models"]["transformer_lr0p001"]["seeds"] == [1]
    assert "seeds" not in config["models"]["transformer"]
    config["sweeps"]["lr"]["seeds"] = [1, 9]
    with pytest.raises(InputError, match=r"sweeps.lr.seeds: \[9\] are not seeds "
                       "of 'transformer'"):
        wf.derive_sweeps(config)


@pytest.mark.parametrize("sweep, message", [
    ({"model": "nope", "key": "model.window", "values": [5]}, "unknown model 'nope'"),
    ({"model": "npmt_lm", "key": "model.window", "values": [5]},
     "decodes another model's checkpoint"),
])
def test_bad_sweeps(config, sweep, message):
    config["sweeps"] = {"s": sweep}
    with pytest.raises(InputError, match=f"sweeps.s.model: .*{message}"):
        wf.derive_sweeps(config)


def test_sweep_key_outside_model_and_train_is_a_schema_error():
    with open(TEST_CONFIG, encoding="utf-8") as fh:
        raw = yaml.safe_load(fh)
    raw["sweeps"]["npmt_window"]["key"] = "arch"
    with pytest.raises(InputError, match="sweeps.npmt_window.key"):
        validate_config(raw)


def test_lm_reason_is_the_lm_modules_howto(monkeypatch):
    from phrasenmt import lm

    monkeypatch.setattr(lm, "lmplz_path", lambda: None)
    assert wf.lm_unavailable_reason() == lm.HOWTO
    assert "make kenlm" in lm.HOWTO


# --- document-level family and discourse evaluation ------------------------------

EN_DE = "synthetic_en_de"


@pytest.fixture
def doc_config(config) -> dict:
    """The default config as the Snakefile sees it, document models checked."""
    wfd.derive_joint_finetune(config)
    wf.derive_sweeps(config)
    wfd.check_document_models(config)
    return config


def test_document_models_have_their_own_rules(doc_config):
    assert wf.family_models(doc_config, "documents", EN_DE) == DOCUMENT_ROWS
    default = wf.model_regex(doc_config, "default")
    assert re.fullmatch(default, "transformer")
    assert not any(re.fullmatch(default, m) for m in DOCUMENT_ROWS)
    assert "ctx_transformer" not in wfpr.lingeval_models(doc_config, EN_DE)
    assert wf.sidecars(doc_config, EN_DE) == ["docs", "trees", "align"]
    doc_config["datasets"]["multi"] = {"source": "download", "name": "multi30k"}
    assert wf.sidecars(doc_config, "multi") == ["docs"]  # every dataset has ids


def test_step2_starts_from_the_step1_run(doc_config):
    assert wfd.step1_checkpoint(doc_config, EN_DE, "ctx_transformer", 1) == (
        f"results/{EN_DE}/models/transformer/seed1/averaged.pt")
    assert wfd.step1_checkpoint(doc_config, EN_DE, "han_enc_dec", 3) == (
        f"results/{EN_DE}/models/han_enc/seed3/averaged.pt")
    assert wfd.sentence_root(doc_config, "han_enc_dec") == "transformer"
    # each document model's K: its `model:` key, else the default (HAN: the preset's 3)
    for m, k in zip(DOCUMENT_ROWS, [1, 2, 2, 1, 1, 2]):
        doc_config["models"][m]["model"] = {**doc_config["models"][m]["model"], "context_size": k}
    assert [wfd.context_size(doc_config, m) for m in DOCUMENT_ROWS] == [1, 2, 2, 1, 1, 2]
    doc_config["models"]["han_enc"].pop("model")
    assert wfd.context_size(doc_config, "han_enc") == 3
    assert wfdis.max_context(doc_config, EN_DE) == 3


def test_default_targets_have_every_discourse_table(doc_config):
    targets = final_targets(doc_config)
    root = f"results/{EN_DE}/report"
    for name in ("discourse_bleu", "discourse_contrastive", "han_bleu",
                 "discourse_pronouns_test", "discourse_cohesion_test"):
        assert all(f"{root}/{name}.{e}" in targets for e in ("md", "tex", "csv"))
    assert not any("sweep_ctx" in t or "sweep_han" in t for t in targets)
    assert not any("/synthetic_de_en/report/discourse" in t for t in targets)
    assert wfd.discourse_models(doc_config, EN_DE) == ["transformer", *DOCUMENT_ROWS]
    assert wfd.han_models(doc_config, EN_DE) == ["transformer", "han_enc", "han_dec",
                                                 "han_dec_random", "han_enc_dec"]
    assert wfdis.notes(doc_config, EN_DE)[0] == (
        "Sweep ctx_k (K of ctx_transformer) not run: enabled: false in the config.")
    assert len(wfdis.notes(doc_config, EN_DE)) == 5


def test_a_target_language_without_a_pronoun_list_asks_for_no_pronoun_table(doc_config):
    """en->th: the pronoun and noun scoring has no Thai list, so the DAG asks
    for no pronoun table and no sweep pronoun file; cohesion stays."""
    root = f"results/{EN_DE}/report"
    doc_config["datasets"][EN_DE]["tgt"] = "th"
    targets = final_targets(doc_config)
    assert not any("discourse_pronouns" in t for t in targets)
    assert f"{root}/discourse_cohesion_test.md" in targets  # th has a stopword list
    doc_config["datasets"][EN_DE]["tgt"] = "km"  # no stopword list: no cohesion
    assert not any("discourse_cohesion" in t for t in final_targets(doc_config))
    doc_config["datasets"][EN_DE]["tgt"] = "th"
    assert wfdr.sweep_pronouns(doc_config, EN_DE, "ctx_k") == []
    from phrasenmt.workflow import claims as wfc

    inputs = wfc.claims_inputs(doc_config, EN_DE)
    assert "cxmi" in inputs and not {"align", "hyp_tok", "pronoun_ref"} & set(inputs)
    doc_config["datasets"][EN_DE]["tgt"] = "de"
    assert {"align", "hyp_tok", "pronoun_ref"} <= set(wfc.claims_inputs(doc_config, EN_DE))


def test_synthetic_contrastive_set_scored_with_and_without_context(doc_config):
    assert wfdis.contrastive_sets(doc_config, EN_DE) == {"synthetic": {
        "format": "lingeval", "mirror_pronouns": True, "dev_fraction": 0.5}}
    assert wfdis.contrastive_sets(doc_config, "synthetic_de_en") == {}
    args = shlex.split(wfdis.contrastive_args(doc_config, EN_DE, "synthetic"))
    raw = f"results/{EN_DE}/raw/test"
    assert args == ["--format", "lingeval", "--context", "2", "--src-lang", "en",
                    "--tgt-lang", "de", "--dev-fraction", "0.5", "--split-seed", "1",
                    "--json", f"{raw}.lingeval.json",
                    "--src-text", f"{raw}.en", "--tgt-text", f"{raw}.de",
                    "--docs", f"{raw}.docs", "--mirror-pronouns"]
    scores = shlex.split(wfdis.contrastive_score_args(doc_config, EN_DE, "synthetic"))
    root = f"results/{EN_DE}/discourse/contrastive/synthetic/scores"
    assert scores == ["--scores", *(f"{m}={root}/{m}/seed1.txt" for m in DOCUMENT_ROWS),
                      "--no-context-scores", f"transformer={root}/transformer/seed1.txt"]


def test_configured_contrastive_sets_take_their_files(doc_config):
    doc_config["datasets"][EN_DE]["contrastive"] = {"cp": {
        "format": "contrapro", "json": "c.json", "text_src": "t.en",
        "text_tgt": "t.de", "context_src": "c.en", "context_tgt": "c.de",
        "extracted": 1}}
    validate_config(doc_config)
    assert list(wfdis.contrastive_sets(doc_config, EN_DE)) == ["synthetic", "cp"]
    assert wfdis.contrastive_files(doc_config, EN_DE, "cp") == {
        "json": "c.json", "text-src": "t.en", "text-tgt": "t.de",
        "context-src": "c.en", "context-tgt": "c.de"}
    args = wfdis.contrastive_args(doc_config, EN_DE, "cp")
    assert "--format contrapro --context 2" in args and "--extracted 1" in args
    assert "--dev-fraction" not in args  # without dev_fraction: all test items
    doc_config["datasets"][EN_DE]["contrastive"]["cp"]["dev_fraction"] = 0.3
    args = wfdis.contrastive_args(doc_config, EN_DE, "cp")
    assert "--dev-fraction 0.3 --split-seed 1" in args


@pytest.mark.parametrize("spec, message", [
    ({"format": "bawden", "current_src": "a", "current_tgt": "b", "prev_src": "c"},
     "cs.prev_tgt: required for format bawden"),
    ({"format": "voita", "json": "v.json", "text_src": "x"},
     "cs.text_src: not read for format voita"),
    ({"format": "contrapro", "json": "a", "text_src": "b", "text_tgt": "c",
      "context_src": "d", "context_tgt": "e"}, "cs.extracted: the --context N"),
    ({"format": "voita", "json": "v.json", "extracted": 1},
     "cs.extracted: the --context N"),
    ({"format": "voita", "json": "v.json", "name": "lexical_cohesion",
      "scoring_src": "s"}, None),
])
def test_bad_contrastive_sets(doc_config, spec, message):
    doc_config["datasets"][EN_DE]["contrastive"] = {"cs": spec}
    if message is None:  # a voita set's optional files and its name
        validate_config(doc_config)
        return
    with pytest.raises(InputError, match=f"datasets.{EN_DE}.contrastive.{message}"):
        validate_config(doc_config)


def test_the_synthetic_set_name_is_reserved(doc_config):
    doc_config["datasets"][EN_DE]["contrastive"] = {"synthetic": {
        "format": "voita", "json": "v.json"}}
    with pytest.raises(InputError, match=f"datasets.{EN_DE}.contrastive.synthetic: "
                       "the name is reserved"):
        validate_config(doc_config)


def _ctx(**extra) -> dict:
    return {"arch": "ctx_transformer", "preset": "tiny", "datasets": [EN_DE], **extra}


@pytest.mark.parametrize("name, entry, message", [
    ("c", _ctx(), "models.c.init_from: required for the document-level arch"),
    ("c", _ctx(init_from="nope"), "'nope' is not another model that trains"),
    ("c", _ctx(init_from="han_enc"),
     "'han_enc' has arch 'han_enc', but 'ctx_transformer' starts from 'transformer'"),
    ("c", {**_ctx(init_from="han_enc"), "arch": "han_enc_dec",
           "model": {"context_size": 2}}, None),
    ("c", {**_ctx(init_from="han_enc"), "arch": "han_enc_dec"},
     "models.c.model.context_size: None, but its init_from 'han_enc' has 2"),
    ("c", {**_ctx(init_from="transformer"), "arch": "han_enc_dec"},
     "starts from 'han_enc'"),
    ("c", _ctx(init_from="transformer", preset="small"),
     "models.c.preset: 'small', but its init_from 'transformer' has 'tiny'"),
    ("c", _ctx(init_from="pr_mean"), "has arch 'pr_mean'"),
    ("c", _ctx(init_from="transformer", datasets=["synthetic_de_en"]),
     "'transformer' does not train on dataset synthetic_de_en"),
    ("pr_mean", {"arch": "pr_mean", "preset": "tiny", "init_from": "transformer"},
     "models.pr_mean.init_from: only document-level models"),
])
def test_bad_init_from(doc_config, name, entry, message):
    doc_config["models"][name] = entry
    if message is None:
        wfd.check_document_models(doc_config)
        return
    with pytest.raises(InputError, match=re.escape(message)):
        wfd.check_document_models(doc_config)


def test_step1_sizes_must_agree(doc_config):
    doc_config["models"]["transformer"]["model"] = {"d_model": 64, "dropout": 0.3}
    with pytest.raises(InputError, match=r"models.ctx_transformer.model.d_model: "
                       r"None, but its init_from 'transformer' has 64"):
        wfd.check_document_models(doc_config)
    for m in DOCUMENT_ROWS:
        doc_config["models"][m]["model"] = {"d_model": 64}  # dropout may differ
    wfd.check_document_models(doc_config)
    doc_config["models"]["han_enc_dec"]["model"]["context_size"] = 2
    with pytest.raises(InputError, match="han_enc_dec.model.context_size: 2, but its "
                       "init_from 'han_enc' has None"):
        wfd.check_document_models(doc_config)


def test_a_dataset_without_documents_is_a_config_error(doc_config):
    datasets = doc_config["datasets"]
    datasets["multi"] = {"source": "download", "name": "multi30k", "src": "en",
                         "tgt": "de"}
    datasets["ted"] = {"source": "download", "name": "iwslt17_en_de", "src": "en",
                       "tgt": "de"}
    pair = {"src": "a.en", "tgt": "a.de"}
    datasets["mine"] = {"source": "local", "src": "en", "tgt": "de", "local": {
        "train": {**pair, "docs": "a.docs"}, "dev": {**pair, "docs": "d.docs"},
        "test": {"t1": {**pair, "docs": "t.docs"}}}}
    everywhere = [EN_DE, "multi", "ted", "mine"]
    for m in ["transformer", *DOCUMENT_ROWS]:
        doc_config["models"][m]["datasets"] = everywhere
    with pytest.raises(InputError, match=re.escape(
            "models.ctx_transformer: document-level arch 'ctx_transformer', but "
            "dataset multi has no document ids (multi30k has no document "
            "boundaries)")):
        wfd.check_document_models(doc_config)
    everywhere.remove("multi")
    wfd.check_document_models(doc_config)  # iwslt17 talks, local docs files
    assert wfd.local_docs(doc_config, "mine", "t1") == "t.docs"
    del datasets["mine"]["local"]["test"]["t1"]["docs"]
    with pytest.raises(InputError, match=r"dataset mine .*local split 't1' has no "):
        wfd.check_document_models(doc_config)


def test_idle_document_models_are_not_checked_against_their_step1(doc_config):
    doc_config["models"]["transformer"].update(preset="base", datasets=["other"])
    doc_config["datasets"]["other"] = dict(doc_config["datasets"][EN_DE])
    doc_config["run_datasets"] = ["other"]
    wfd.check_document_models(doc_config)  # ctx_transformer's dataset is idle
    doc_config["run_datasets"] = [EN_DE]
    with pytest.raises(InputError, match="'transformer' does not train on dataset "
                       f"{EN_DE}"):
        wfd.check_document_models(doc_config)


def test_joint_finetune_derives_a_row_after_its_model(config):
    config["models"]["han_enc_dec"]["joint_finetune"] = {"train": {"max_steps": 9}}
    wfd.derive_joint_finetune(config)
    names = list(config["models"])
    assert names[names.index("han_enc_dec") + 1] == "han_enc_dec_joint"
    joint = config["models"]["han_enc_dec_joint"]
    assert joint["init_from"] == "han_enc_dec" and "joint_finetune" not in joint
    assert joint["train"]["freeze"] == "none" and joint["train"]["max_steps"] == 9
    assert joint["train"]["warmup_steps"] == config["models"]["han_enc_dec"][
        "train"]["warmup_steps"]
    before = json.dumps(config["models"])
    wfd.derive_joint_finetune(config)  # idempotent
    assert json.dumps(config["models"]) == before
    wf.derive_sweeps(config)
    wfd.check_document_models(config)  # its own arch is a valid start
    assert wfd.han_models(config, EN_DE)[-1] == "han_enc_dec_joint"
    assert json.loads(wf.model_spec(config, "han_enc_dec_joint"))["train"][
        "freeze"] == "none"


def test_a_cycle_of_joint_steps_is_a_config_error(doc_config):
    models = doc_config["models"]
    models["a"] = {**models["han_enc_dec"], "init_from": "b",
                   "train": {"freeze": "none"}}
    models["b"] = {**models["han_enc_dec"], "init_from": "a",
                   "train": {"freeze": "none"}}
    with pytest.raises(InputError, match="models.a.init_from: the chain of init_from "
                       "comes back to 'a'"):
        wfd.check_document_models(doc_config)


def test_document_sweeps_have_their_own_table(config):
    for name in ("ctx_k", "ctx_integration", "ctx_gating", "han_k"):
        config["sweeps"][name]["enabled"] = True
    wfd.derive_joint_finetune(config)
    wf.derive_sweeps(config)
    wfd.check_document_models(config)
    assert wf.sweep_points(config, "ctx_integration") == [
        ("encoder", "ctx_transformer_integrationencoder"),
        ("decoder", "ctx_transformer_integrationdecoder"), ("both", "ctx_transformer")]
    assert wfdis.sweep_point_args(config, "ctx_gating") == (
        "--point false=ctx_transformer_gatingfalse true=ctx_transformer")
    assert [wfdis.sweep_parameter(config, n) for n in ("ctx_k", "ctx_nc", "han_k")] \
        == ["K", "N_c", "K"]
    point = config["models"]["han_enc_context_size5"]
    assert point["init_from"] == "transformer" and point["model"] == {
        "context_size": 5}
    targets = final_targets(config)
    root = f"results/{EN_DE}/report"
    assert f"{root}/discourse_sweep_ctx_k.md" in targets
    assert f"{root}/sweep_ctx_k.md" not in targets  # not the NPMT family's table
    assert f"{root}/discourse_sweep_ctx_nc.md" not in targets
    assert "ctx_transformer_context_size1" not in wfd.discourse_models(config, EN_DE)
    assert len(wfdis.notes(config, EN_DE)) == 1
    config["sweeps"]["bad"] = {"model": "han_enc_dec", "key": "model.context_size",
                               "values": [4]}
    wf.derive_sweeps(config)
    with pytest.raises(InputError, match="han_enc_dec_context_size4.model."
                       "context_size: 4, but its init_from 'han_enc' has 2"):
        wfd.check_document_models(config)


def test_document_sweep_values_mirror_the_presets():
    from phrasenmt.models.registry import get_model_class, get_preset
    from phrasenmt.sweeps import PRESET_VALUES
    from phrasenmt.training.config import TrainConfig

    for arch in wf.DOCUMENT_ARCHS:
        for preset in ("tiny", "small", "iwslt", "base", "big"):
            cfg = get_model_class(arch).config_class()
            get_preset(arch, preset)(cfg, TrainConfig())
            values = PRESET_VALUES[arch, preset]
            assert {k: getattr(cfg, k.split(".")[1]) for k in values} == values
            assert wfd.STEP1_ARCH[arch] in ("transformer", "han_enc")


def test_discourse_files_and_options(doc_config):
    assert wfdis.align_args(doc_config) == (
        "--backend eflomal --samplers 1 --seed 1 --train-lines 3000")
    fast = {**doc_config, "align": {**doc_config["align"], "backend": "fast_align"}}
    assert wf.aligner_args(fast) == "--backend fast_align"  # samplers are eflomal's
    shorter = {**doc_config, "align": {**doc_config["align"],
                                       "eflomal_rel_iterations": 0.25}}
    assert wf.aligner_args(shorter) == (
        "--backend eflomal --samplers 1 --rel-iterations 0.25")
    fast["align"]["eflomal_rel_iterations"] = 0.25
    assert wf.aligner_args(fast) == "--backend fast_align"
    union = {**doc_config, "align": {**doc_config["align"], "symmetrize": "union"}}
    assert wfdis.align_args(union) == (  # the heuristic reaches pronoun accuracy too
        "--backend eflomal --samplers 1 --seed 1 --symmetrize union --train-lines 3000")
    assert wfdis.lsa_args(doc_config) == "--dims 100 --seed 1"
    assert wfdis.pronoun_tsv(EN_DE, "test", "han_enc", 2) == (
        f"results/{EN_DE}/analysis/pronouns/test/han_enc/seed2.tsv")
    hyps = wfdis.hypotheses(doc_config, EN_DE, "test")
    assert list(hyps) == ["transformer", *DOCUMENT_ROWS]
    assert hyps["transformer"] == (
        f"results/{EN_DE}/translations/transformer/seed1/test.tok")


# --- several seeds ------------------------------------------------------------


def test_seeds_global_per_model_and_inherited(doc_config):
    c = doc_config
    assert c["seeds"] == [1]  # the schema's default
    c["seeds"] = [1, 2, 3]
    c["models"]["pr_max"]["seeds"] = [4]
    assert runs.seeds(c, "transformer") == [1, 2, 3]
    assert runs.seeds(c, "pr_max") == [4] and runs.first_seed(c, "pr_max") == 4
    assert runs.run_dir(EN_DE, "pr_max", 4) == f"results/{EN_DE}/models/pr_max/seed4"
    files = wfpr.ablation_files(c, EN_DE)
    assert files["eval"]["pr_max"] == [f"results/{EN_DE}/eval/pr_max/test.json"]
    assert files["summary"]["transformer"] == [
        f"results/{EN_DE}/models/transformer/seed{s}/summary.json" for s in (1, 2, 3)]
    assert files["benchmark"]["pr_max"] == [
        f"results/benchmarks/translate/{EN_DE}.pr_max.seed4.test.tsv"]
    runs.check_seeds(c)


def test_a_run_loads_the_same_seed_of_its_init_model(doc_config):
    doc_config["models"]["transformer"]["seeds"] = [1, 2]
    doc_config["models"]["ctx_transformer"]["seeds"] = [2]
    runs.check_seeds(doc_config)  # seed 2 of ctx_transformer loads transformer's 2
    doc_config["models"]["ctx_transformer"]["seeds"] = [2, 3]
    with pytest.raises(InputError, match=re.escape(
            "models.ctx_transformer.seeds: seed 3 is not one of the seeds [1, 2] "
            "of 'transformer'")):
        runs.check_seeds(doc_config)
    doc_config["seeds"] = [1, 2, 3]
    del doc_config["models"]["ctx_transformer"]["seeds"]
    with pytest.raises(InputError, match="ctx_transformer.init_from: seed 3"):
        runs.check_seeds(doc_config)


@pytest.mark.parametrize("seeds, message", [
    ([], "seeds: [] should be non-empty"), ([1, 1], "has non-unique elements"),
    ([0], "0 is less than the minimum of 1"), ("1", "is not of type 'array'")])
def test_bad_seeds_are_one_line(seeds, message):
    config = yaml.safe_load(TEST_CONFIG.read_text())
    config["seeds"] = seeds
    with pytest.raises(InputError, match=re.escape(message)):
        validate_config(config)
    config["seeds"] = [1]
    config["models"]["transformer"]["seeds"] = seeds
    with pytest.raises(InputError, match="models.transformer.seeds"):
        validate_config(config)


@pytest.mark.parametrize("path", [("run_datasets",), ("models", "transformer", "datasets"),
                                  ("datasets", "synthetic_en_de", "testsets")])
def test_a_list_named_twice_is_one_line(path):
    """A dataset or split named twice in a list that picks them is refused, as
    a seed named twice is: the second would do nothing."""
    config = yaml.safe_load(TEST_CONFIG.read_text())
    *parents, key = path
    node = config
    for name in parents:
        node = node[name]
    node[key] = ["synthetic_en_de", "synthetic_en_de"] if key != "testsets" else ["test", "test"]
    with pytest.raises(InputError, match=re.escape(".".join(path)) + ".*non-unique"):
        validate_config(config)


def _gpu_rules() -> set[str]:
    """Rules of rules/*.smk whose resources ask for a GPU."""
    found = set()
    for path in (REPO / "rules").glob("*.smk"):
        for block in re.split(r"\n(?=rule )", path.read_text(encoding="utf-8")):
            head = re.match(r"rule (\w+):", block)
            if head and re.search(r"^\s+gpu=", block, re.MULTILINE):
                found.add(head.group(1))
    return found


def test_every_gpu_rule_gets_cpus_on_the_cluster():
    profile = yaml.safe_load((REPO / "profiles/slurm/config.yaml").read_text())
    gpu_rules = _gpu_rules()
    assert {"train", "train_document", "translate_document",
            "contrastive_score"} <= gpu_rules
    with_cpus = {r for r, res in profile["set-resources"].items()
                 if res.get("cpus_per_gpu")}
    assert with_cpus == gpu_rules
    cluster_test = (REPO / "tests/cluster/test_slurm.py").read_text(encoding="utf-8")
    listed = re.search(r"GPU_RULES = (\{.*?\})", cluster_test, re.DOTALL).group(1)
    assert set(re.findall(r'"(\w+)"', listed)) == gpu_rules


def test_lingeval_false_leaves_the_agreement_analysis_out(config):
    config["datasets"]["multi"] = {"source": "download", "name": "multi30k",
                                   "src": "en", "tgt": "de"}
    assert wfpr.lingeval_json(config, "multi") == "results/_lingeval97/lingeval97.json"
    assert wfpr.lingeval_json(config, EN_DE) == f"results/{EN_DE}/raw/test.lingeval.json"
    for ds in ("multi", EN_DE):
        config["datasets"][ds]["lingeval"] = False
        assert wfpr.lingeval_json(config, ds) is None
        assert wfpr.lingeval_models(config, ds) == []
        assert not any("agreement" in t for t in wfpr.phrase_targets(config, ds))


def test_a_local_side_is_prepared_with_the_other_file_of_its_split():
    """`prepare local` compares each file's script with its split's other file."""
    config = {"datasets": {"mine": {"source": "local", "src": "en", "tgt": "he", "local": {
        "train": {"src": "c/train.en", "tgt": "c/train.he"},
        "dev": {"src": "c/dev.en", "tgt": "c/dev.he"},
        "test": {"t1": {"src": "c/t1.en", "tgt": "c/t1.he"}}}}}}
    assert wfc.local_side_files(config, "mine", "dev", "he") == {
        "text": "c/dev.he", "pair": "c/dev.en"}
    files = wfc.local_side_files(config, "mine", "t1", "en")
    assert files == {"text": "c/t1.en", "pair": "c/t1.he"}
    options = wfc.local_script_options(config, "mine", "en",
                                       type("Input", (), {"pair": files["pair"]}))
    assert options == "--pair c/t1.he --side src --langs en he"
    config["datasets"]["mine"]["local"]["language_check"] = False  # the data job's too
    options = wfc.local_script_options(config, "mine", "en",
                                       type("Input", (), {"pair": files["pair"]}))
    assert options == "--pair c/t1.he --side src --langs en he --no-language-check"


def test_a_model_with_no_gpu_runs_every_job_on_the_cpu(config):
    """`gpus: 0` is a CPU job wherever it runs: on a machine with a GPU its
    training and decoding would otherwise use CUDA (`--device auto`) while
    holding no `gpu` resource."""
    config["models"]["npmt"]["gpus"] = 0
    assert runs.device(config, "npmt") == "cpu"
    assert runs.device(config, "npmt_lm") == "auto"  # its own gpus: 1
    assert runs.device(config, "transformer") == "auto"


def test_every_rule_that_asks_for_a_gpu_passes_the_model_s_device():
    """Each rule whose `gpu` resource comes from the model's `gpus` gives its
    command `--device` from the same key (`runs.device`)."""
    rules = {}
    for path in sorted((REPO / "rules").glob("*.smk")):
        for block in re.split(r"\n(?=rule )", path.read_text(encoding="utf-8")):
            if re.search(r"gpu=W\.runs\.(decode_)?gpus", block):
                rules[block.split(":")[0]] = block
    assert len(rules) >= 12, sorted(rules)
    for name, block in rules.items():
        assert "device=W.runs.device," in block, name
        assert "--device {params.device}" in block, name


def test_every_aligner_job_asks_for_the_one_thread_it_uses():
    """Every aligner run of the workflow is seeded, and a seeded aligner runs on
    one thread (`align.backends`): a job that reserved more cores left them idle
    beside it."""
    rules = {}
    for path in sorted((REPO / "rules").glob("*.smk")):
        for block in re.split(r"\n(?=rule )", path.read_text(encoding="utf-8")):
            if re.search(r"phrasenmt\.(align run|evaluate\.pronouns align)", block):
                rules[block.split(":")[0]] = block
    assert len(rules) == 3, sorted(rules)
    for name, block in rules.items():
        assert re.search(r"^\s+threads: 1\b", block, re.MULTILINE), name
        assert "--seed" in block or "params.args" in block, name
