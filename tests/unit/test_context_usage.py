"""The context-usage table and figure, the workflow's controls and CXMI inputs,
and the dry-run checks of `models.<m>.context`."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
import yaml

from phrasenmt.io import InputError
from phrasenmt.report.context_usage import bucket, main
from phrasenmt.workflow import base as wf
from phrasenmt.workflow import discourse as wfdis
from phrasenmt.workflow import documents as wfd
from tests.conftest import TEST_CONFIG
from tests.unit.test_workflow_helpers import REPO, validate_config


def load_config() -> dict:
    with open(TEST_CONFIG, encoding="utf-8") as fh:
        return validate_config(yaml.safe_load(fh))


def shipped_with(override: dict) -> dict:
    """The shipped config.yaml updated with `override` (a shipped override file,
    written against it) the way Snakemake merges configs."""
    from tests.unit.test_experiment import merged

    shipped = yaml.safe_load((REPO / "config.yaml").read_text(encoding="utf-8"))
    return merged(override, shipped)


def test_distance_buckets():
    assert [bucket(b) for b in ("0", "1", "2", "3", "7", ">3")] == \
        ["0", "1", "2", ">=3", ">=3", ">=3"]
    with pytest.raises(ValueError):
        bucket("all")


def write_scores(tmp: Path, name: str, right: dict[int, int]) -> Path:
    """Scores of ITEMS' lines: per distance d, the first right[d] items correct."""
    lines, seen = [], {}
    for _, distance in ITEMS:
        k = seen[distance] = seen.get(distance, 0) + 1
        lines += ["-1", "-2"] if k <= right.get(distance, 99) else ["-2", "-1"]
    path = tmp / f"{name}.scores"
    path.write_text("\n".join(lines) + "\n")
    return path


# 14 pronoun items (10 at distance 1, 4 at distance 3), 7 of another type
ITEMS = [("pronoun_gender", 1)] * 10 + [("pronoun_gender", 3)] * 4 + \
    [("subj_verb_agreement", 5)] * 7


def write_inputs(tmp: Path) -> list[str]:
    """items.json, score files (distances 1 and 3), eval JSONs and CXMI JSONs."""
    items = tmp / "items.json"
    items.write_text(json.dumps({"format": "lingeval", "lines": 2 * len(ITEMS),
                                 "max_bin": 15, "items": [
                                     {"type": t, "lines": [2 * k, 2 * k + 1],
                                      "distance": d}
                                     for k, (t, d) in enumerate(ITEMS)]}))
    scores = [f"{model}={write_scores(tmp, model, {1: d1, 3: d3})}"
              for model, d1, d3 in (("transformer", 5, 1), ("han_dec", 9, 2),
                                    ("han_dec_random", 5, 1))]
    evals, cxmi = [], []
    for model, score in (("transformer", 50.0), ("han_dec", 53.0),
                         ("han_dec_random", 52.0)):
        path = tmp / f"{model}.json"
        path.write_text(json.dumps({"system": model, "baseline": "transformer",
                                    "testset": "test", "seeds": [1],
                                    "scores": [score], "mean": score, "p": 0.5,
                                    "delta": score - 50.0}))
        evals.append(str(path))
    for model, value in (("han_dec", 0.05), ("han_dec_random", 0.0)):
        path = tmp / f"{model}.cxmi.json"
        block = {"cxmi": value + 0.02, "ci95": [value, value + 0.04],
                 "cxmi_random": value, "ci95_random": [value - 0.01, value + 0.01]}
        gates = {"lambda": 0.9 + value, "norm_ratio": 1.5, "gates": {}}
        path.write_text(json.dumps({"test": block, "items": block, "gates": gates}))
        cxmi.append(f"{model}={path}")
    return ["--items", str(items), "--scores", *scores, "--eval", *evals, "--cxmi",
            *cxmi,
            "--control", "han_dec_random=han_dec",
            "--order", "transformer,han_dec,han_dec_random"]


def test_table_and_figure(tmp_path):
    args = write_inputs(tmp_path)
    outs = [f"--out-{e}={tmp_path / ('t.' + e)}" for e in ("md", "tex", "csv")]
    assert main(["table", *args, *outs]) == 0
    df = pd.read_csv(tmp_path / "t.csv").set_index("model")
    assert df.loc["han_dec", "accuracy"] == pytest.approx(100 * 11 / 14)
    assert df.loc["han_dec", "accuracy_d1"] == pytest.approx(90.0)
    assert df.loc["han_dec", "accuracy_d>=3"] == pytest.approx(50.0)
    assert math.isnan(df.loc["han_dec", "accuracy_d2"])  # no items at distance 2
    assert df.loc["transformer", "reads"] == "no context"
    assert df.loc["han_dec_random", "reads"] == "random-context control of han_dec"
    assert df.loc["han_dec", "bleu"] == 53.0
    assert math.isnan(df.loc["transformer", "test_cxmi"])
    assert df.loc["han_dec", "test_cxmi_random"] == pytest.approx(0.05)
    md = (tmp_path / "t.md").read_text()
    assert "+0.050 [+0.040, +0.060]" in md and "78.57 (n=14)" in md
    assert df.loc["han_dec", "gate_lambda"] == pytest.approx(0.95)
    assert math.isnan(df.loc["transformer", "gate_lambda"])
    assert "| 0.950 | 1.50 |" in md
    png, svg = tmp_path / "f.png", tmp_path / "f.svg"
    assert main(["figure", "--csv", str(tmp_path / "t.csv"), "--order",
                 "transformer,han_dec,han_dec_random", "--out-png", str(png),
                 "--out-svg", str(svg)]) == 0
    assert png.stat().st_size > 1000 and svg.read_text().startswith("<?xml")


def test_a_row_without_contrastive_scores_names_the_file(tmp_path):
    args = write_inputs(tmp_path)
    args[args.index("--order") + 1] += ",han_enc"
    outs = [f"--out-{e}={tmp_path / ('t.' + e)}" for e in ("md", "tex", "csv")]
    with pytest.raises(InputError, match="han_enc of --order has no pronoun_gender "
                       "items with a distance scored"):
        main(["table", *args, *outs])


def test_controls_cxmi_inputs_and_specs_of_the_default_config():
    config = load_config()
    assert wfdis.control_of(config, "han_dec_random") == "han_dec"
    assert wfdis.control_of(config, "ctx_transformer_random") == "ctx_transformer"
    assert wfdis.control_of(config, "han_dec") is None
    override = yaml.safe_load((REPO / "configs" / "converged_families.yaml")
                              .read_text(encoding="utf-8"))
    converged = validate_config(shipped_with(override))
    assert wfdis.control_of(converged, "han_enc_random") == "han_enc"
    # its step 1 is han_enc_random, the real model's han_enc: still its control
    assert wfdis.control_of(converged, "han_enc_dec_random") == "han_enc_dec"
    rows = wfdis.context_usage_models(config, "synthetic_en_de")
    assert {"transformer", "han_dec", "han_dec_random"} <= set(rows)
    assert not any("context_size" in m for m in rows)  # the sweeps are off here
    files = wfdis.cxmi_inputs(config, "synthetic_en_de")
    assert files["test_docs"] == "results/synthetic_en_de/data/test.docs"
    assert files["pairs_items"].endswith("contrastive/synthetic/items.json")
    spec = json.loads(wf.model_spec(config, "han_dec_random"))
    assert spec["model"]["context"] == "random"
    assert spec["model"]["context_seed"] == config["seed"]
    assert "context" not in json.loads(wf.model_spec(config, "han_dec"))["model"]
    # the control shares its base's step 2 and data order
    assert config["models"]["han_dec_random"]["train"] == \
        config["models"]["han_dec"]["train"]


@pytest.mark.parametrize(("change", "message"), [
    (lambda c: c["models"]["transformer"].update(context="random"),
     "models.transformer.context: arch 'transformer' reads no document context"),
    (lambda c: c["models"]["han_dec"].setdefault("model", {}).update(
        context="random"), "models.han_dec.model.context: set models.han_dec.context"),
    (lambda c: c["models"]["transformer"].setdefault("train", {}).update(
        empty_context_rate=0.3),
     "models.transformer.train.empty_context_rate: arch 'transformer' reads no"),
])
def test_bad_context_settings_fail_at_dry_run(change, message):
    config = load_config()
    change(config)
    with pytest.raises(InputError, match=message):
        wfd.check_document_models(config)


def test_several_seeds_give_means_and_the_seeds_range(tmp_path):
    args = write_inputs(tmp_path)
    # a second han_dec seed: 7 of 10 at distance 1, 4 of 4 at 3; CXMI vs random 0.01
    second = write_scores(tmp_path, "han_dec2", {1: 7, 3: 4})
    args[args.index("--scores") + 1:args.index("--scores") + 1] = [f"han_dec={second}"]
    path = tmp_path / "han_dec2.cxmi.json"
    block = {"cxmi": 0.03, "ci95": [0.0, 0.06], "cxmi_random": 0.01,
             "ci95_random": [-0.01, 0.03]}
    path.write_text(json.dumps({"test": block, "items": block,
                                "gates": {"lambda": 0.75, "norm_ratio": 0.5}}))
    outs = [f"--out-{e}={tmp_path / ('t.' + e)}" for e in ("md", "tex", "csv")]
    # one CXMI file for two seeds' scores: refused, naming the counts
    with pytest.raises(InputError, match="han_dec has 2 --scores file.s. but 1 --cxmi"):
        main(["table", *args, *outs])
    args.insert(args.index("--cxmi") + 1, f"han_dec={path}")
    assert main(["table", *args, *outs]) == 0
    df = pd.read_csv(tmp_path / "t.csv").set_index("model")
    assert df.loc["han_dec", "seeds"] == 2 and df.loc["transformer", "seeds"] == 1
    assert df.loc["han_dec", "accuracy"] == pytest.approx((100 * 11 / 14 + 100 * 11 / 14) / 2)
    assert df.loc["han_dec", "accuracy_d1"] == pytest.approx(80.0)  # 90 and 70
    assert df.loc["han_dec", "accuracy_d>=3"] == pytest.approx(75.0)  # 50 and 100
    assert df.loc["han_dec", "test_cxmi_random"] == pytest.approx(0.03)  # 0.05, 0.01
    assert (df.loc["han_dec", "test_cxmi_random_low"],
            df.loc["han_dec", "test_cxmi_random_high"]) == pytest.approx((0.01, 0.05))
    assert df.loc["han_dec", "gate_lambda"] == pytest.approx((0.95 + 0.75) / 2)
    assert df.loc["han_dec", "items"] == 14
    md = (tmp_path / "t.md").read_text()
    assert "+0.030 [+0.010, +0.050]" in md


def test_the_table_reads_every_seed_of_every_row():
    config = load_config()
    config["seeds"] = [1, 2, 3]
    files = wfdis.context_usage_files(config, "synthetic_en_de")
    assert files["items"] == ("results/synthetic_en_de/discourse/contrastive/"
                              "synthetic/items.json")
    scores = [p for m, p in files["scores"] if m == "transformer"]
    assert scores == [wfdis.score_file("synthetic_en_de", "synthetic", "transformer", s)
                      for s in (1, 2, 3)]
    cxmi = [m for m, _ in files["cxmi"]]
    assert cxmi.count("han_dec") == 3 and "transformer" not in cxmi


def test_without_a_contrastive_set_the_table_has_bleu_and_cxmi_only(tmp_path):
    args = write_inputs(tmp_path)
    cut = args.index("--eval")
    args = args[cut:]  # no --items, no --scores
    path = tmp_path / "han_dec.cxmi.json"
    data = json.loads(path.read_text())
    data["test"].update(cxmi_sentence=1.25, ci95_sentence=[1.0, 1.5],
                        cxmi_random_sentence=0.5, ci95_random_sentence=[0.25, 0.75],
                        words=[{"word": "sie", "count": 12, "pcxmi": 0.8,
                                "pcxmi_random": 0.6},
                               {"word": "Fischer", "count": 5, "pcxmi": 0.1,
                                "pcxmi_random": 0.0}])
    del data["items"]
    path.write_text(json.dumps(data))
    outs = [f"--out-{e}={tmp_path / ('t.' + e)}" for e in ("md", "tex", "csv")]
    assert main(["table", *args, *outs]) == 0
    df = pd.read_csv(tmp_path / "t.csv").set_index("model")
    assert df.loc["han_dec", "bleu"] == 53.0 and df.loc["han_dec", "seeds"] == 1
    assert df.loc["han_dec", "test_cxmi_sentence"] == pytest.approx(1.25)
    assert df.loc["han_dec_random", "reads"] == "random-context control of han_dec"
    assert math.isnan(df.loc["han_dec", "accuracy"])
    md = (tmp_path / "t.md").read_text()
    assert "pronouns" not in md.split("\n\n")[0] and "d=1" not in md
    assert "+1.250 [+1.000, +1.500]" in md  # per sentence, as published
    assert "+0.500 [+0.250, +0.750]" in md
    assert "sie +0.800 / +0.600 (n=12), Fischer +0.100" in md
    png, svg = tmp_path / "f.png", tmp_path / "f.svg"
    assert main(["figure", "--csv", str(tmp_path / "t.csv"), "--order",
                 "transformer,han_dec,han_dec_random", "--out-png", str(png),
                 "--out-svg", str(svg)]) == 0
    assert png.stat().st_size > 1000
    with pytest.raises(SystemExit):  # items without scores
        main(["table", "--items", str(tmp_path / "items.json"), *args, *outs])


def test_a_row_stopped_in_warm_up_is_marked_as_in_the_results_table(tmp_path):
    args = write_inputs(tmp_path)
    args = args[args.index("--eval"):]
    summaries = []
    for model, steps in (("han_dec", 90), ("han_dec_random", 400)):
        path = tmp_path / f"{model}.summary.json"
        path.write_text(json.dumps({"steps": steps, "max_steps": 600,
                                    "warmup_steps": 150, "stopped_by": "max_minutes",
                                    "schedule": "steps"}))
        summaries.append(f"{model}={path}")
    outs = [f"--out-{e}={tmp_path / ('t.' + e)}" for e in ("md", "tex", "csv")]
    assert main(["table", *args, "--summary", *summaries, *outs]) == 0
    df = pd.read_csv(tmp_path / "t.csv", keep_default_na=False).set_index("model")
    assert df.loc["han_dec", "stop_note"] == ("stopped in warm-up at update 90 of "
                                             "600 (warm-up 150)")
    assert df.loc["han_dec_random", "stop_note"] == ""  # past half of its budget
    assert df.loc["transformer", "stop_note"] == ""  # no summary given
    md = (tmp_path / "t.md").read_text()
    assert "| han_dec (stopped in warm-up at update 90 of 600 (warm-up 150)) |" in md


def test_a_control_that_drew_its_own_context_again_is_named(tmp_path):
    args = write_inputs(tmp_path)
    args = args[args.index("--eval"):]
    outs = [f"--out-{e}={tmp_path / ('t.' + e)}" for e in ("md", "tex", "csv")]
    assert main(["table", *args, *outs]) == 0
    assert "drawn" not in (tmp_path / "t.md").read_text()  # no counts: no sentence
    path = tmp_path / "han_dec_random.cxmi.json"
    data = json.loads(path.read_text())
    data["test"]["random_drawn_again"] = {"lines": 306, "same": 306, "sources": 2}
    path.write_text(json.dumps(data))
    assert main(["table", *args, *outs]) == 0
    md = (tmp_path / "t.md").read_text()
    assert ("was the control's own random context again for han_dec_random on 306 "
            "of its 306 test lines with a context (2 documents to draw from)") in md
    data["test"]["random_drawn_again"]["same"] = 30  # under a tenth: nothing said
    path.write_text(json.dumps(data))
    assert main(["table", *args, *outs]) == 0
    assert "own random context again" not in (tmp_path / "t.md").read_text()


def test_a_document_dataset_without_a_contrastive_set_gets_context_usage():
    from phrasenmt.workflow import documents_report as wfdr

    example = REPO / "configs" / "examples" / "own_documents.yaml"
    config = validate_config(shipped_with(yaml.safe_load(example.read_text())))
    assert wfdis.contrastive_sets(config, "my_docs") == {}
    targets = wfdis.document_targets(config, "my_docs")
    for ext in ("md", "tex", "csv", "png", "svg"):
        assert f"results/my_docs/report/context_usage.{ext}" in targets
    assert not any("discourse_contrastive" in t for t in targets)
    files = wfdis.context_usage_files(config, "my_docs")
    assert files["items"] is None and files["scores"] == []
    assert [m for m, _ in files["cxmi"]] == [
        "ctx_transformer", "ctx_transformer_random", "han_dec", "han_dec_random"]
    args = wfdr.context_usage_args(config, "my_docs")
    assert "--items" not in args and "--scores" not in args
    assert "--control ctx_transformer_random=ctx_transformer" in args
    assert "item_file" not in wfdr.context_usage_inputs(config, "my_docs")
    assert "pairs_items" not in wfdis.cxmi_inputs(config, "my_docs")


def test_converged_document_models_read_every_antecedent_and_sweep_k():
    """The converged corpus puts antecedents 1 to 3 sentences back: every document
    model reads K = 3, and the K sweeps add K = 1 and 2 (first seed only) as rows
    of the context-usage table, after the family's own rows."""
    override = yaml.safe_load((REPO / "configs" / "converged_families.yaml")
                              .read_text(encoding="utf-8"))
    converged = validate_config(shipped_with(override))
    wf.derive_sweeps(converged)
    distances = converged["datasets"]["converged_en_de"]["synthetic"][
        "antecedent_distance"]
    docs = [m for m in converged["families"]["document"] if m != "transformer"]
    for model in docs:
        spec = json.loads(wf.model_spec(converged, model))
        assert spec["model"]["context_size"] == max(distances), model
    rows = wfdis.context_usage_models(converged, "converged_en_de")
    points = ["ctx_transformer_context_size1", "ctx_transformer_context_size2",
              "han_dec_context_size1", "han_dec_context_size2"]
    assert rows == ["transformer", *docs, *points]
    for model in points:
        assert converged["models"][model]["seeds"] == [1]
    files = wfdis.context_usage_files(converged, "converged_en_de")
    assert [s for m, s in files["cxmi"] if m == "han_dec_context_size1"] == [
        "results/converged_en_de/analysis/cxmi/han_dec_context_size1/seed1.json"]


def test_the_three_seed_target_trains_the_default_run_s_corpus_and_models():
    """`make seeds-document` gives the default run's document rows their
    verdicts only if it trains the same corpus and the same models: its
    dataset must resolve to synthetic_en_de's settings, name aside."""
    override = yaml.safe_load((REPO / "configs" / "seeds_document.yaml").read_text(
        encoding="utf-8"))
    config = validate_config(shipped_with(override))
    default = validate_config(shipped_with({}))
    assert config["datasets"]["seeds_en_de"] == default["datasets"]["synthetic_en_de"]
    for model in override["models"]:
        ours = {k: v for k, v in config["models"][model].items() if k != "datasets"}
        theirs = {k: v for k, v in default["models"][model].items() if k != "datasets"}
        assert ours == theirs, model
    assert config["seed"] == default["seed"] and config["seeds"] == [1, 2, 3]


class Named(dict):
    """A job's named input as Snakemake gives it: keys, and each name an attribute."""

    __getattr__ = dict.__getitem__


def test_a_contrastive_set_of_ones_own_reaches_cxmi_and_the_table(tmp_path):
    """A Bawden, ContraPro or Voita set's item types are its own (Bawden: the set
    name, no distance): the CXMI job and the context-usage table asked for
    pronoun_gender items and failed on it; they take every item of such a set."""
    from phrasenmt.report.context_usage import accuracy_cells
    from phrasenmt.workflow import documents_report as wfdr

    example = REPO / "configs" / "examples" / "own_documents.yaml"
    own = yaml.safe_load(example.read_text())
    own["datasets"]["my_docs"]["contrastive"] = {"mine": {
        "format": "bawden", "current_src": "c.src", "current_tgt": "c.tgt",
        "prev_src": "p.src", "prev_tgt": "p.tgt"}}
    config = validate_config(shipped_with(own))
    inputs = wfdis.cxmi_inputs(config, "my_docs")
    assert "--type all" in wfdr.cxmi_args(config, "my_docs", Named(inputs))
    assert "--category all" in wfdr.context_usage_args(config, "my_docs")
    default = load_config()  # the synthetic set: its pronoun_gender items
    inputs = wfdis.cxmi_inputs(default, "synthetic_en_de")
    assert "--type" not in wfdr.cxmi_args(default, "synthetic_en_de", Named(inputs))
    assert "--category" not in wfdr.context_usage_args(default, "synthetic_en_de")
    header = {"lines": 4, "max_bin": None, "items": [
        {"type": "mine", "lines": [0, 1], "distance": None},
        {"type": "mine", "lines": [2, 3], "distance": None}]}
    scores = tmp_path / "s.scores"
    scores.write_text("-1\n-2\n-2\n-1\n")
    assert accuracy_cells(header, scores, "all") == {"all": (1, 2)}
    assert accuracy_cells(header, scores, "pronoun_gender") == {}


def test_cxmi_of_every_item_type(tmp_path):
    from phrasenmt.evaluate.cxmi import item_set

    tgt = tmp_path / "pairs.tgt"
    tgt.write_text("a b\nc d\ne f\ng h\n")
    (tmp_path / "items.json").write_text(json.dumps({"lines": 4, "items": [
        {"type": "es:sie", "lines": [0, 1], "distance": 1},
        {"type": "es:er", "lines": [2, 3], "distance": 0}]}))
    runs = []
    for name, value in (("own", "-1"), ("none", "-2"), ("random", "-2")):
        (tmp_path / name).write_text(f"{value}\n" * 4)
        runs.append(tmp_path / name)
    result = item_set(tmp_path / "items.json", tgt, *runs, "all", 50, 1)
    assert result["type"] == "all" and result["cxmi"] > 0
    with pytest.raises(InputError, match="no test items of type 'pronoun_gender'"):
        item_set(tmp_path / "items.json", tgt, *runs, "pronoun_gender", 50, 1)
