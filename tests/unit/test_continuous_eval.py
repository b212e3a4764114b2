"""Gold fertility labels, fertility scores, multi-word BLEU, family tables, config."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from phrasenmt.config import validate_config
from phrasenmt.evaluate.fertility import class_scores
from phrasenmt.evaluate.multiword import multiword_subset
from phrasenmt.fertility import binary, gold_labels
from phrasenmt.io import InputError
from phrasenmt.report import continuous as tables
from phrasenmt.workflow import base as wf
from phrasenmt.workflow import continuous as wfcont
from phrasenmt.workflow.targets import final_targets
from tests.conftest import TEST_CONFIG

REPO = Path(__file__).resolve().parents[2]


def test_gold_fertility_labels_on_a_hand_example():
    # Lebensqualität ist gut -> quality of life is good
    src = [["Lebensqualität", "ist", "gut"]]
    tgt = [["quality", "of", "life", "is", "good"]]
    links = [{(0, 0), (0, 2), (1, 3), (2, 4)}]  # "of" unaligned: absorbed
    listed = gold_labels(src, tgt, links, {("quality", "of", "life")}, 6)
    assert listed == [[3, 1, 1]]
    assert gold_labels(src, tgt, links, set(), 6) == [[1, 1, 1]]  # not listed
    unaligned = [{(1, 3), (2, 4)}]  # the compound aligned to nothing
    assert gold_labels(src, tgt, unaligned, set(), 6) == [[0, 1, 1]]
    assert binary([0, 1, 2, 3]) == [0, 0, 1, 1]


def test_class_scores_precision_recall_f1():
    gold = [0, 0, 1, 1, 1, 2]
    pred = [0, 1, 1, 1, 0, 0]
    rows = {c: (p, r, f, n) for c, p, r, f, n in class_scores(gold, pred, 3)}
    assert rows[0][:2] == pytest.approx((1 / 3, 1 / 2))
    assert rows[0][2] == pytest.approx(2 * (1 / 3) * (1 / 2) / (1 / 3 + 1 / 2))
    assert rows[1][:3] == pytest.approx((2 / 3, 2 / 3, 2 / 3))
    assert rows[2] == (0.0, 0.0, 0.0, 1)


def test_multiword_subset_needs_a_contiguous_listed_phrase():
    refs = ["the quality of life is good", "quality and life", "a bus driver"]
    phrases = [("quality", "of", "life"), ("bus", "driver")]
    assert multiword_subset(refs, phrases) == [0, 2]


def test_efficiency_row_from_a_run(tmp_path: Path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "summary.json").write_text(json.dumps(
        {"target_tokens": 400, "train_seconds": 10.0, "steps": 40,
         "precision": "fp32"}))
    (run / "metrics.tsv").write_text(
        "step\tloss\tnll\tlr\ttokens_per_s\tdev_loss\n10\t1\t1\t1\t1\t5.0\n"
        "20\t1\t1\t1\t1\t4.0\n30\t1\t1\t1\t1\t\n40\t1\t1\t1\t1\t4.5\n")
    tgt = tmp_path / "train.en"
    tgt.write_text("a b c\nd e f g\nh\n")  # 3 sentences, 3 + 4 + 1 + 3 = 11 tokens
    row = tables.efficiency_row("m", run, tgt)
    epochs = 400 / 11
    assert row["samples/s"] == pytest.approx(epochs * 3 / 10)
    assert row["epochs to best dev"] == pytest.approx(20 * epochs / 40)
    assert row["precision"] == "fp32"
    seed2 = tmp_path / "seed2"
    seed2.mkdir()
    (seed2 / "metrics.tsv").write_text((run / "metrics.tsv").read_text())
    (seed2 / "summary.json").write_text(json.dumps(
        {"target_tokens": 400, "train_seconds": 10.0, "steps": 40,
         "precision": "bf16"}))
    df = tables.efficiency_table([("m", run), ("m", seed2)], [("m", tgt)], ["m"])
    assert df["precision"].tolist() == ["fp32/bf16"] and df["seeds"].tolist() == [2]
    out = {k: tmp_path / f"eff.{k}" for k in ("md", "tex", "csv")}
    assert tables.main(["efficiency", "--run", f"m={run}", f"m={seed2}", "--train-tgt",
                        f"m={tgt}", "--order", "m", "--out-md", str(out["md"]),
                        "--out-tex", str(out["tex"]), "--out-csv", str(out["csv"]),
                        "--out-timing-csv", str(tmp_path / "t.csv")]) == 0
    assert "samples/s" in out["md"].read_text()  # the table for reading has both
    assert out["csv"].read_text().splitlines()[0] == (
        "model,epochs to best dev,epochs trained,seeds,precision")
    assert (tmp_path / "t.csv").read_text().splitlines() == [
        "model,samples/s,training time", "m,10.9091,0:00:10"]
    (run / "summary.json").write_text(json.dumps(
        {"target_tokens": 400, "train_seconds": 10.0, "steps": 40}))
    with pytest.raises(InputError, match="missing key 'precision'"):
        tables.efficiency_row("m", run, tgt)


def test_family_tables_follow_the_model_order(tmp_path: Path):
    tsv = tmp_path / "m.tsv"
    tsv.write_text("model\ttestset\tsubset\tsentences\tbleu\n"
                   "b\ttest\tall\t10\t20.0\nb\ttest\tmultiword\t4\t15.0\n"
                   "a\ttest\tall\t10\t30.0\na\ttest\tmultiword\t4\t25.0\n")
    df = tables.multiword_table([tsv], ["a", "b"])
    assert df["model"].tolist() == ["a", "b"]
    assert df["BLEU multi-word"].tolist() == [25.0, 15.0]
    with pytest.raises(InputError, match="not in --order"):
        tables.multiword_table([tsv], ["a"])


def test_family_tables_average_the_seeds(tmp_path: Path):
    tsv = tmp_path / "m.tsv"  # model a twice: two seeds
    tsv.write_text("model\ttestset\tsubset\tsentences\tbleu\n"
                   "a\ttest\tall\t10\t30.0\na\ttest\tmultiword\t4\t25.0\n"
                   "a\ttest\tall\t10\t32.0\na\ttest\tmultiword\t4\t27.0\n")
    row = tables.multiword_table([tsv], ["a"]).iloc[0]
    assert (row["BLEU"], row["BLEU multi-word"], row["seeds"]) == (31.0, 26.0, 2)
    assert row["BLEU sd"] == pytest.approx(2 ** 0.5)
    fert = [tmp_path / f"f{i}.tsv" for i in (1, 2)]
    for path, f1 in zip(fert, (0.5, 0.7), strict=True):
        path.write_text("system\tlabels\tclasses\tclass\tprecision\trecall\tf1\tsupport\n"
                        f"a\taligner\t2\tphrase\t0.5\t0.5\t{f1}\t10\n")
    frow = tables.fertility_table(fert, ["a"]).iloc[0]
    assert frow["f1"] == pytest.approx(0.6) and frow["seeds"] == 2


def test_empty_multiword_subset_has_no_bleu_end_to_end(tmp_path: Path):
    from phrasenmt.align.phrases import HEADER
    from phrasenmt.evaluate import multiword

    (tmp_path / "phrases.tsv").write_text(f"{HEADER}\nice cream\t3\t1.5\n")
    (tmp_path / "ref").write_text("a b c d e\nf g h i\n")  # no listed phrase
    (tmp_path / "hyp").write_text("a b c d e\nf g h i\n")
    tsv = tmp_path / "m.tsv"
    assert multiword.main(["--phrases", str(tmp_path / "phrases.tsv"), "--ref",
                           str(tmp_path / "ref"), "--hyp", f"a={tmp_path / 'hyp'}",
                           "--testset", "test", "--out", str(tsv)]) == 0
    assert tsv.read_text().splitlines()[2] == "a\ttest\tmultiword\t0\tNaN"
    out = {ext: tmp_path / f"t.{ext}" for ext in ("md", "tex", "csv")}
    tables.main(["multiword", "--tsv", str(tsv), "--order", "a",
                 *[a for ext, p in out.items() for a in (f"--out-{ext}", str(p))]])
    row = out["md"].read_text().splitlines()[-1]
    assert row == "| a | test | 100.00 | – | – | – | 1 | 0 |", row


def test_empty_multiword_subset_of_an_older_tsv_shows_no_bleu(tmp_path: Path):
    tsv = tmp_path / "m.tsv"  # written as 0.00 BLEU of 0 sentences
    tsv.write_text("model\ttestset\tsubset\tsentences\tbleu\n"
                   "a\ttest\tall\t10\t30.0\na\ttest\tmultiword\t0\t0.0\n")
    row = tables.multiword_table([tsv], ["a"]).iloc[0]
    assert row["multi-word sentences"] == 0
    assert row["BLEU multi-word"] != row["BLEU multi-word"]  # NaN, shown "–"
    assert tables.cell(row["BLEU multi-word"]) == "–"


def default_config() -> dict:
    return yaml.safe_load(TEST_CONFIG.read_text())


def test_default_config_routes_the_family_to_its_own_rules():
    config = validate_config(default_config())
    family = wf.family_models(config, "continuous", "synthetic_de_en")
    assert family == ["attn_rnn", "conmt", "pconmt_nofert", "pconmt_fert2",
                      "pconmt_fert4"]
    assert "attn_rnn" not in wf.model_regex(config, "default").split("|")
    assert wf.baseline(config, "synthetic_de_en") == "attn_rnn"
    spec = json.loads(wfcont.continuous_spec(config, "synthetic_de_en",
                                             "pconmt_fert2"))
    assert spec["model"]["phrase_table"].endswith("embeddings/phrases.vec")
    assert wfcont.continuous_target(config, "synthetic_de_en", "pconmt_fert2",
                                "train").endswith("phrases/train.joined")
    assert wfcont.continuous_target(config, "synthetic_de_en", "conmt",
                                "dev").endswith("data/dev.en")
    targets = final_targets(config)
    assert "results/synthetic_de_en/report/fertility_test.md" in targets


def test_baseline_mapping_is_checked():
    config = default_config()
    bad = copy.deepcopy(config)
    del bad["baseline"]["synthetic_de_en"]
    with pytest.raises(InputError, match="no baseline for dataset 'synthetic_de_en'"):
        validate_config(bad)
    wrong = copy.deepcopy(config)
    wrong["baseline"]["synthetic_de_en"] = "transformer"
    with pytest.raises(InputError, match="does not train on"):
        validate_config(wrong)
