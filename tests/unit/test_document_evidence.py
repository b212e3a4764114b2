"""Document-level evidence: antecedents at several distances, dev and test
contrastive items split by document, budgets chosen on the dev items alone, and
the bad input of their settings."""

from __future__ import annotations

import copy
import json
import math
import random
import zlib
from collections import Counter, defaultdict
from pathlib import Path

import pytest
import yaml

from phrasenmt import experiment
from phrasenmt.evaluate import contrastive
from phrasenmt.evaluate.contrastive_formats import document_sides
from phrasenmt.io import InputError
from phrasenmt.synthetic import documents, german, lexicon
from phrasenmt.synthetic.builder import GrammarConfig, Mention, Pools
from phrasenmt.synthetic.corpus import build_corpus, generate_split, main
from phrasenmt.synthetic.documents import DistanceMix, Limits
from phrasenmt.synthetic.tree import Sentence
from tests.conftest import TEST_CONFIG

MIX = {1: 0.5, 2: 0.3, 3: 0.2}


# --- the generator's mix of antecedent distances ---------------------------------


def _fake_sentences(monkeypatch, rng: random.Random) -> None:
    """make_sentence without the grammar: one to three random mentions, so that
    10,000 documents take a second; a pronoun sentence records it."""
    nouns = lexicon.load().all_nouns
    count = iter(range(10**9))

    def fake(_rng, _cfg, _pools, mention, _limits):
        mentions = [Mention(rng.choice(nouns), rng.random() < 0.3)
                    for _ in range(rng.randint(1, 3))]
        if mention is not None:
            mentions.append(mention)
        sent = Sentence([f"s{next(count)}"], [], "", [], mentions=mentions)
        sent.pronoun = mention  # type: ignore[attr-defined]
        return sent

    monkeypatch.setattr(documents, "make_sentence", fake)


def test_the_distance_mix_of_10000_documents_is_the_configured_one(monkeypatch):
    rng = random.Random(7)
    _fake_sentences(monkeypatch, rng)
    mix, cfg, pools = DistanceMix(dict(MIX)), GrammarConfig(), Pools(lexicon.load())
    found: Counter = Counter()
    for _ in range(10_000):
        doc = documents.document(rng, cfg, pools, rng.randint(3, 8), Limits(), None,
                                 mix)
        for i, sent in enumerate(doc):
            if sent.pronoun is None:
                continue
            d = sent.antecedent_distance
            assert sent.pronoun in doc[i - d].mentions  # the antecedent, d back
            for between in doc[i - d + 1:i]:  # unambiguous, with a distractor
                assert sent.pronoun.pronoun_key not in {
                    m.pronoun_key for m in between.mentions}
                assert any(not m.plural and m.g != sent.pronoun.g
                           for m in between.mentions)
            found[d] += 1
    total = sum(found.values())
    assert total > 10_000
    for d, share in MIX.items():
        sd = math.sqrt(share * (1 - share) / total)
        assert abs(found[d] / total - share) < 4 * sd, (d, found[d] / total)


def _in_between_genders(mix: DistanceMix, rng: random.Random) -> dict[str, Counter]:
    """For each antecedent gender, how many "it" pronouns 2 or more back (the
    pronouns of the contrastive items) have a singular noun of each gender between
    antecedent and pronoun ("#": pronouns)."""
    cfg, pools = GrammarConfig(), Pools(lexicon.load())
    seen: dict[str, Counter] = defaultdict(Counter)
    for _ in range(10_000):
        doc = documents.document(rng, cfg, pools, rng.randint(3, 8), Limits(), None,
                                 mix)
        for i, sent in enumerate(doc):
            d = sent.antecedent_distance
            if sent.pronoun is None or d < 2 or sent.pronoun.pronoun_key != "it":
                continue
            r = sent.pronoun.g
            genders = {m.g for between in doc[i - d + 1:i] for m in between.mentions
                       if not m.plural}
            seen[r]["#"] += 1
            seen[r].update(genders)
    return seen


def test_in_between_nouns_of_any_gender_say_nothing_about_the_antecedent(monkeypatch):
    """distractor_gender "any": the share of pronouns with a noun of gender g in
    between is the same whatever the antecedent's gender; "other": a noun of
    another gender is always there, and one of the antecedent's more rarely."""
    rng = random.Random(11)
    _fake_sentences(monkeypatch, rng)
    seen = _in_between_genders(DistanceMix({2: 0.5, 3: 0.5}, distractor_gender="any"),
                               rng)
    for g in ("m", "f", "n"):
        total = sum(c[g] for c in seen.values()) / sum(c["#"] for c in seen.values())
        for r, c in seen.items():
            assert c["#"] > 1000
            sd = math.sqrt(total * (1 - total) / c["#"])
            assert abs(c[g] / c["#"] - total) <= 4 * sd, (r, g, c[g] / c["#"], total)
    seen = _in_between_genders(DistanceMix({2: 0.5, 3: 0.5}), rng)  # "other"
    for r, c in seen.items():  # every pronoun has another gender between
        assert c[r] / c["#"] < 0.9 and sum(c[g] for g in "mfn" if g != r) >= c["#"], (
            r, c)


def test_a_rule_blind_to_the_antecedent_scores_only_on_other_gender_distractors(
        tmp_path):
    """experiments/distractor_shortcut.py: ruling out the pronouns of the
    in-between nouns resolves the mirrored items 2 back well above chance with
    "other" distractors, and at chance with "any"."""
    from experiments import distractor_shortcut

    other = distractor_shortcut.measure("other", 6000, 1, tmp_path)
    anyg = distractor_shortcut.measure("any", 6000, 1, tmp_path)
    assert other[2][0] > 500 and anyg[2][0] > 500
    assert other[2][1] > 0.6 and other[3][1] > 0.57
    assert abs(anyg[2][1] - 0.5) < 0.04 and abs(anyg[3][1] - 0.5) < 0.04


def test_a_mix_of_distance_one_writes_the_corpus_as_before(tmp_path):
    """No draw for a one-distance mix: the default corpus keeps its bytes."""
    pools, cfg = Pools(lexicon.load()), GrammarConfig()
    old = generate_split("test", 60, 1, cfg, pools, Limits(), (3, 8))
    new = generate_split("test", 60, 1, cfg, pools, Limits(), (3, 8), None, {1: 1.0})
    assert [s.en for _, s in old] == [s.en for _, s in new]
    assert {s.antecedent_distance for _, s in new} == {1}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """A real test split with antecedents 1-3 sentences back."""
    out = tmp_path_factory.mktemp("dist")
    build_corpus(out, 1, {"test": 600}, "en-de", GrammarConfig(), Limits(), (3, 8),
                 0, MIX)
    return out


def test_pronoun_items_name_their_distance_and_its_distractors(corpus):
    genders = {n.de_sg: n.gender for n in lexicon.load().all_nouns}
    de = (corpus / "test.de").read_text().splitlines()
    docs = (corpus / "test.docs").read_text().splitlines()
    seen: Counter = Counter()
    for item in json.loads((corpus / "test.lingeval.json").read_text()):
        for err in item["errors"]:
            if err["type"] != "pronoun_gender":
                continue
            line, d = item["line"], err["distance"]
            assert docs[line - d] == docs[line]
            g = err["antecedent_gender"]  # the noun, or a pronoun for it (a chain)
            forms = {err["antecedent"], *(german.personal_pronoun(c, g)
                                          for c in ("nom", "acc", "dat"))}
            assert forms & {w.lower() if w.lower() in forms else w
                            for w in de[line - d].split()}
            for k in range(line - d + 1, line):  # a noun of another gender between
                assert any(genders.get(w, err["antecedent_gender"])
                           != err["antecedent_gender"] for w in de[k].split())
            seen[d] += 1
    assert set(seen) == {1, 2, 3} and seen[3] >= 10


# --- dev and test items ------------------------------------------------------------


def _prepare(tmp: Path, corpus: Path, fraction: str = "0.5") -> dict:
    outs = ["--out-items", tmp / "items.json", "--out-src", tmp / "pairs.src",
            "--out-tgt", tmp / "pairs.tgt", "--out-context", tmp / "pairs.ctx.jsonl"]
    args = ["prepare", "--format", "lingeval", "--context", "3",
            "--json", corpus / "test.lingeval.json", "--src-text", corpus / "test.en",
            "--tgt-text", corpus / "test.de", "--docs", corpus / "test.docs",
            "--mirror-pronouns", "--dev-fraction", fraction, "--split-seed", "1", *outs]
    assert contrastive.main(list(map(str, args))) == 0
    return json.loads((tmp / "items.json").read_text())


def test_no_document_has_items_on_both_sides(tmp_path, corpus):
    header = _prepare(tmp_path, corpus)
    sides = defaultdict(set)
    for item in header["items"]:
        for doc in (item["doc"], item.get("context_doc")):
            if doc is not None:
                sides[doc].add(item["split"])
    assert all(len(s) == 1 for s in sides.values())
    dev = sum(s == {"dev"} for s in sides.values())
    assert 0.35 < dev / len(sides) < 0.65
    pronouns = [it for it in header["items"] if it["type"] == "pronoun_gender"]
    assert {it["split"] for it in pronouns} == {"dev", "test"}
    assert {it["distance"] for it in pronouns if it["split"] == "test"} == {1, 2, 3}


def test_a_model_blind_to_context_scores_half_in_every_distance_bin(tmp_path, corpus):
    """A mirror's donor is as far back as its item: 50 % per bin and side."""
    header = _prepare(tmp_path, corpus)
    src = (tmp_path / "pairs.src").read_text().splitlines()
    tgt = (tmp_path / "pairs.tgt").read_text().splitlines()
    scores = [-(zlib.crc32(f"{s}|{t}".encode()) % 1000) / 100 - 0.01
              for s, t in zip(src, tgt, strict=True)]
    for split in ("dev", "test"):
        by_bin = defaultdict(list)
        for row in contrastive.outcomes(header, scores, split):
            if row["category"] == "pronoun_gender":
                by_bin[row["bin"]].append(row["correct"])
        assert set(by_bin) == {"1", "2", "3"}, split
        assert all(sum(v) * 2 == len(v) for v in by_bin.values()), by_bin


def test_sides_are_seeded_and_leave_none_empty():
    docs = [f"d{i}" for i in range(9)]
    assert document_sides(docs, 0.5, 1) == document_sides(list(reversed(docs)), 0.5, 1)
    assert document_sides(docs, 0.5, 1) != document_sides(docs, 0.5, 2)
    assert set(document_sides(docs, 0.01, 1).values()) == {"dev", "test"}
    assert set(document_sides(docs, None, 1).values()) == {"test"}
    strata = {d: "1" if i < 4 else "1,3" if i < 8 else "" for i, d in enumerate(docs)}
    sides = document_sides(docs, 0.5, 1, strata)  # each kind split evenly
    for kind in ("1", "1,3"):
        assert sorted(sides[d] for d in docs if strata[d] == kind) == [
            "dev", "dev", "test", "test"]


def _header() -> dict:
    """Four pronoun items, two per side, one line each for reference and variant."""
    items = [{"type": "pronoun_gender", "distance": 1, "split": s,
              "lines": [2 * i, 2 * i + 1]} for i, s in
             enumerate(("dev", "test", "dev", "test"))]
    return {"items": items, "lines": 8, "max_bin": 3}


def test_a_budget_is_chosen_on_dev_items_alone():
    header = _header()
    # run 100 wins both dev items and no test item; run 200 the opposite
    runs = {100: [-1, -2, -2, -1, -1, -2, -2, -1], 200: [-2, -1, -1, -2, -2, -1, -1, -2]}
    assert contrastive.choose_on_dev(header, runs) == 100
    changed = copy.deepcopy(runs)  # other test scores: the same choice
    for k in changed:
        changed[k][2:4] = [-0.5, -3.0]
        changed[k][6:8] = [-3.0, -0.5]
    assert contrastive.choose_on_dev(header, changed) == 100
    changed[200][0:2] = [-0.1, -9.0]  # dev decides: now 200 wins one more dev item
    changed[200][4:6] = [-0.1, -9.0]
    changed[100][0:2] = [-9.0, -0.1]
    assert contrastive.choose_on_dev(header, changed) == 200
    # 100 wins both dev items and no test item, 200 one dev item and both test
    # items: dev alone picks 100, dev and test together (3 of 4) would pick 200
    split = {100: [-1, -2, -2, -1, -1, -2, -2, -1], 200: [-2, -1, -1, -2, -1, -2, -1, -2]}
    assert [contrastive.split_accuracy(header, split[k], s) for k in (100, 200)
            for s in ("dev", "test")] == [(2, 2), (0, 2), (1, 2), (2, 2)]
    assert contrastive.choose_on_dev(header, split) == 100
    assert contrastive.choose_on_dev(header, split, "pronoun_gender") == 100
    test_only = {"items": [{**it, "split": "test"} for it in header["items"]],
                 "lines": 8}
    with pytest.raises(InputError, match="no dev side"):
        contrastive.choose_on_dev(test_only, runs)


def test_the_sweep_summary_reports_dev_and_test_and_chooses_on_dev(tmp_path, capsys):
    """experiments/context_sweep_summary.py: each checkpoint's dev/test pronoun
    accuracy, the dev losses, and the checkpoint of the best dev accuracy even
    where another has the better test (and dev and test) accuracy."""
    from experiments import context_sweep_summary

    data, out = tmp_path / "data", tmp_path / "out"
    job = out / "hanenc_k3"
    (job / "run").mkdir(parents=True)
    data.mkdir()
    (data / "items.json").write_text(json.dumps({**_header(), "max_bin": 3}))

    def scores(name: Path, values: list[int]) -> None:
        name.write_text("".join(f"{v:.1f}\n" for v in values))

    scores(out / "base_scores.txt", [-1, -2, -1, -2, -2, -1, -2, -1])  # dev 1, test 1
    scores(job / "scores_100.txt", [-1, -2, -2, -1, -1, -2, -2, -1])  # dev 2, test 0
    scores(job / "scores_200.txt", [-2, -1, -1, -2, -1, -2, -1, -2])  # dev 1, test 2
    (job / "time.txt").write_text("han_enc K=3 lr 1e-3\n")
    (job / "run" / "metrics.tsv").write_text(
        "step\tloss\tnll\tlr\ttokens_per_s\tdev_loss\ttrain_seconds\n"
        "50\t4.0\t3.9\t1e-3\t900\t\t5.0\n"
        "100\t3.5\t3.4\t1e-3\t900\t3.25\t10.0\n"
        "200\t3.0\t2.9\t1e-3\t900\t3.125\t20.0\n")
    context_sweep_summary.main(data, out)
    assert capsys.readouterr().out.splitlines() == [
        "step 1: dev 50.0 % of 2, test 50.0 % of 2 pronoun items; test d1:50.0(2)",
        ("han_enc K=3 lr 1e-3 100:100.0/0.0 200:50.0/100.0 dev:100=3.2500,200=3.1250"
         " chosen on dev: 100 (dev 100.0, test 0.0; d1:0.0(2))")]


def test_tables_read_test_items_only(tmp_path):
    header = _header()
    (tmp_path / "items.json").write_text(json.dumps(header))
    (tmp_path / "s.txt").write_text("\n".join(["-1", "-2"] * 2 + ["-2", "-1"] * 2))
    assert contrastive.split_accuracy(header, [-1, -2] * 2 + [-2, -1] * 2, "test") \
        == (1, 2)
    contrastive.main(["evaluate", "--items", str(tmp_path / "items.json"), "--scores",
                      f"m={tmp_path / 's.txt'}", "--out", str(tmp_path / "t.tsv")])
    rows = (tmp_path / "t.tsv").read_text().splitlines()
    assert rows[-1].split("\t")[-3:] == ["2", "1", "0.5000"]


# --- bad input -----------------------------------------------------------------------

BASE = yaml.safe_load(TEST_CONFIG.read_text(encoding="utf-8"))


def _synthetic(**keys) -> dict:
    config = copy.deepcopy(BASE)
    config["datasets"]["synthetic_en_de"].setdefault("synthetic", {}).update(keys)
    return config


def _dev_fraction(value: float) -> dict:
    config = copy.deepcopy(BASE)
    config["datasets"]["synthetic_en_de"]["contrastive"] = {"cs": {
        "format": "voita", "json": "v.json", "dev_fraction": value}}
    return config


KEY = "datasets.synthetic_en_de"


@pytest.mark.parametrize("config, message", [
    (_synthetic(antecedent_distance={1: 0.5, 2: 0.3, 3: 0.1}),
     f"{KEY}.synthetic.antecedent_distance: the shares sum to 0.9, not 1"),
    (_synthetic(antecedent_distance={1: 0.5, 8: 0.5}),
     (f"{KEY}.synthetic.antecedent_distance: distance 8 does not fit in a document of "
     "at most max_doc_sentences 8 sentences")),
    (_synthetic(antecedent_distance={0: 1.0}),
     f"{KEY}.synthetic.antecedent_distance: distance 0: an antecedent is at least"),
    (_synthetic(contrastive_dev_fraction=1.0),
     (f"{KEY}.synthetic.contrastive_dev_fraction: 1.0 is greater than or equal to the "
     "maximum of 1")),
    (_dev_fraction(0.0), (f"{KEY}.contrastive.cs.dev_fraction: 0.0 is less than or "
     "equal to the minimum of 0")),
    (_synthetic(distractor_gender="some"),
     f"{KEY}.synthetic.distractor_gender: 'some' is not one of any, other"),
], ids=["sum", "too far", "zero", "synthetic fraction", "set fraction", "distractors"])
def test_bad_settings_are_one_line_naming_the_key(config, message):
    with pytest.raises(InputError) as err:
        experiment.start(config)
    assert str(err.value).startswith(message), str(err.value)
    assert "\n" not in str(err.value)


def test_the_generator_refuses_an_unknown_distractor_setting(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["--outdir", str(tmp_path), "--distractor-gender", "same"])
    assert "--distractor-gender: invalid choice: 'same'" in capsys.readouterr().err
    with pytest.raises(ValueError, match="gender 'same'"):
        documents.distractors(random.Random(1), GrammarConfig(), Pools(lexicon.load()),
                              Mention(lexicon.load().all_nouns[0], False), 1, Limits(),
                              None, gender="same")


def test_bad_command_line_values(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["--outdir", str(tmp_path), "--antecedent-distance", "1=0.5,2=0.4"])
    assert "the shares sum to 0.9, not 1" in capsys.readouterr().err
    with pytest.raises(InputError, match="--antecedent-distance: distance 4 does not "
                       "fit in a document of at most 4 sentences"):
        main(["--outdir", str(tmp_path / "o"), "--max-doc-sentences", "4",
              "--antecedent-distance", "1=0.5,4=0.5"])
    with pytest.raises(SystemExit):
        contrastive.main(["prepare", "--format", "voita", "--json", "v.json",
                          "--dev-fraction", "1.5", *(f"--out-{k}" for k in ()),
                          "--out-items", str(tmp_path / "i"), "--out-src",
                          str(tmp_path / "s"), "--out-tgt", str(tmp_path / "t"),
                          "--out-context", str(tmp_path / "c")])
    assert "--dev-fraction: must be" in capsys.readouterr().err
