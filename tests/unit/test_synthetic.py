"""Tests for the synthetic English-German corpus generator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from phrasenmt.io import InputError
from phrasenmt.synthetic import german, lexicon
from phrasenmt.synthetic.builder import GrammarConfig
from phrasenmt.synthetic.corpus import build_corpus, main
from phrasenmt.synthetic.documents import Limits

PUNCT = {".", ","}
FILES = ("en", "de", "docs", "trees", "align")


def _corpus(outdir: Path, seed: int = 1, direction: str = "en-de",
            sizes: dict | None = None, per_bin: int = 0) -> dict:
    sizes = sizes or {"train": 300, "dev": 40, "test": 120}
    return build_corpus(outdir, seed, sizes, direction, GrammarConfig(), Limits(),
                        (3, 8), per_bin)


def _lines(outdir: Path, name: str) -> list[str]:
    return (outdir / name).read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("syn")
    _corpus(out)
    return out


@pytest.fixture(scope="module")
def test_split(tmp_path_factory) -> Path:
    """Only the test split at the default size, with distance bins topped up."""
    out = tmp_path_factory.mktemp("syntest")
    _corpus(out, sizes={"test": 1000}, per_bin=20)
    return out


def _verb_forms() -> set[str]:
    forms = {"ist", "sind"}
    for v in lexicon.load().verbs:
        for plural in (False, True):
            forms |= {v.de_form(plural, False), v.de_form(plural, True)}
    return forms


def test_lexicon_sizes_and_forms():
    lex = lexicon.load()
    assert len(lex.all_nouns) >= 300 and len(lex.verbs) >= 80
    assert sum(bool(v.particle) for v in lex.verbs) >= 20
    assert len(lex.compounds) + len(lex.expressions) >= 150
    assert all(n.gender in "mfn" for n in lex.all_nouns)
    assert all(v.de_sg != v.de_pl for v in lex.verbs)
    call = next(v for v in lex.verbs if v.en[0][0] == "call")
    assert (call.de_form(False, False), call.de_form(False, True)) == ("ruft", "anruft")
    genders = {}
    for n in lex.all_nouns:
        assert genders.setdefault(n.de_sg, n.gender) == n.gender


def test_german_inflection():
    assert german.determiner("ein", "acc", "m", "ein") == "einen"
    assert german.adjective_ending("ein", "acc", "m") == "en"
    assert german.adjective_ending("ein", "nom", "n") == "es"
    assert german.adjective_ending("def", "nom", "m") == "e"
    assert german.adjective_ending("num", "nom", "pl") == "e"
    assert german.adjective_ending("num", "dat", "pl") == "en"
    assert german.determiner("dies", "dat", "f") == "dieser"
    assert german.determiner("poss", "dat", "pl", "unser") == "unseren"
    assert german.contract("in", "dem") == "im"
    assert german.relative_pronoun("dat", "pl") == "denen"
    assert german.other_genders("dat", "n") == ["ihr"]
    assert german.other_gender_forms("dat", "f") == [("ihm", "m")]
    assert german.other_gender_forms("acc", "n") == [("ihn", "m"), ("sie", "f")]


def test_same_seed_is_byte_identical(tmp_path, corpus):
    _corpus(tmp_path / "again")
    names = [f"{s}.{f}" for s in ("train", "dev", "test") for f in FILES]
    names += ["test.lingeval.json", "stats.json"]
    for name in names:
        assert (tmp_path / "again" / name).read_bytes() == (corpus / name).read_bytes()
    _corpus(tmp_path / "other", seed=2)
    assert (tmp_path / "other" / "train.de").read_bytes() != (
        corpus / "train.de").read_bytes()


def test_text_format(corpus):
    for split in ("train", "dev", "test"):
        en, de = _lines(corpus, f"{split}.en"), _lines(corpus, f"{split}.de")
        assert len(en) == len(de) == len(_lines(corpus, f"{split}.docs"))
        for line in en + de:
            assert line and line == " ".join(line.split())
            assert line.endswith(" .") and line[0].isupper()


def test_documents_have_three_to_eight_sentences(corpus):
    for split in ("train", "dev", "test"):
        docs = _lines(corpus, f"{split}.docs")
        counts: dict[str, int] = {}
        for d in docs:
            assert d.startswith(split + "-")
            counts[d] = counts.get(d, 0) + 1
        assert all(3 <= n <= 8 for n in counts.values())


def test_trees_match_tokens_and_read_with_stanza(corpus):
    from stanza.models.constituency.tree_reader import read_trees

    lines = _lines(corpus, "dev.trees")
    trees = read_trees("\n".join(lines))
    assert len(trees) == len(lines)
    for tree, en in zip(trees, _lines(corpus, "dev.en"), strict=True):
        assert tree.label == "ROOT"
        assert list(tree.leaf_labels()) == en.split()


def _pairs(line: str) -> list[tuple[int, int]]:
    return [tuple(map(int, p.split("-"))) for p in line.split()]


def test_alignments_cover_english_words_and_compounds(corpus):
    lex = lexicon.load()
    compound = {}
    for n in lex.compounds:
        words = set(n.en_sg) | set(n.en_pl or ())
        for form in {n.de_sg, n.de_form(True, "nom"), n.de_form(True, "dat")}:
            compound[form] = compound.get(form, set()) | words
    seen_compound = 0
    en_lines, de_lines = _lines(corpus, "train.en"), _lines(corpus, "train.de")
    for en, de, al in zip(en_lines, de_lines, _lines(corpus, "train.align"),
                          strict=True):
        en, de, pairs = en.split(), de.split(), _pairs(al)
        assert pairs == sorted(pairs)
        assert all(0 <= i < len(en) and 0 <= j < len(de) for i, j in pairs)
        aligned = {i for i, _ in pairs}
        assert all(i in aligned for i, w in enumerate(en) if w not in PUNCT)
        for j, word in enumerate(de):
            if word in compound:
                linked = {en[i].lower() for i, jj in pairs if jj == j}
                assert len(linked) >= 2 and linked - {"to"} <= compound[word]
                seen_compound += 1
    assert seen_compound > 20


def test_separable_verb_aligned_to_both_parts(corpus):
    found = 0
    for en, de, al in zip(_lines(corpus, "train.en"), _lines(corpus, "train.de"),
                          _lines(corpus, "train.align"), strict=True):
        en, de = en.split(), de.split()
        for i, w in enumerate(en):
            if w in ("calls", "call"):
                targets = [de[j] for ii, j in _pairs(al) if ii == i]
                assert targets[-1] == "an" or targets == ["anruft"] or \
                    targets == ["anrufen"]
                found += 1
    assert found > 0


def test_direction_de_en_swaps_alignments(tmp_path, corpus):
    _corpus(tmp_path, direction="de-en")
    fwd, rev = _lines(corpus, "dev.align"), _lines(tmp_path, "dev.align")
    for a, b in zip(fwd, rev, strict=True):
        assert sorted((j, i) for i, j in _pairs(a)) == _pairs(b)
    assert _lines(tmp_path, "dev.en") == _lines(corpus, "dev.en")


def test_agreement_contrast_changes_only_the_verb(test_split):
    items = json.loads((test_split / "test.lingeval.json").read_text())
    verbs = _verb_forms()
    n = 0
    for item in items:
        ref = item["reference"].split()
        for err in item["errors"]:
            if err["type"] != "subj_verb_agreement":
                continue
            con = err["contrastive"].split()
            diff = [k for k, (a, b) in enumerate(zip(ref, con, strict=True)) if a != b]
            assert len(diff) == 1
            assert ref[diff[0]] in verbs and con[diff[0]] in verbs
            n += 1
    assert n > 300


def test_agreement_distances_cover_all_bins(test_split):
    stats = json.loads((test_split / "stats.json").read_text())
    per_bin = stats["agreement_items_per_distance"]
    for label in [str(d) for d in range(1, 16)] + [">15"]:
        assert per_bin.get(label, 0) >= 20, label
    natural = [it for it in json.loads((test_split / "test.lingeval.json").read_text())
               if it["line"] is not None]
    assert len(natural) > 300


def test_pronoun_items_follow_antecedent_gender(test_split):
    genders = {n.de_sg: n.gender for n in lexicon.load().all_nouns}
    items = json.loads((test_split / "test.lingeval.json").read_text())
    de_lines, docs = _lines(test_split, "test.de"), _lines(test_split, "test.docs")
    n = 0
    for item in items:
        ref = item["reference"].split()
        for err in item["errors"]:
            if err["type"] != "pronoun_gender":
                continue
            con = err["contrastive"].split()
            k = next(k for k, (a, b) in enumerate(zip(ref, con, strict=True)) if a != b)
            g = genders[err["antecedent"]]
            own = {german.personal_pronoun(c, g) for c in ("nom", "acc", "dat")}
            assert ref[k].lower() in own and con[k].lower() not in own
            assert err["antecedent_gender"] == g != err["contrastive_gender"]
            assert con[k].lower() in {german.personal_pronoun(c, err["contrastive_gender"])
                                      for c in ("nom", "acc", "dat")}
            line = item["line"]
            assert "it" in item["source"].lower().split()
            assert docs[line - 1] == docs[line]
            earlier = [de_lines[k].split() for k in range(line) if docs[k] == docs[line]]
            assert any(err["antecedent"] in words for words in earlier)
            n += 1
    assert n > 20


def test_bad_cli_values_raise(tmp_path):
    with pytest.raises(SystemExit):  # a range the parser checks: exit 2
        main(["--outdir", str(tmp_path), "--train-size", "0"])
    with pytest.raises(InputError, match="--max-doc-sentences: is 3, less than"):
        main(["--outdir", str(tmp_path), "--min-doc-sentences", "5",
              "--max-doc-sentences", "3"])
    with pytest.raises(SystemExit):
        main(["--outdir", str(tmp_path), "--rate-pp", "1.5"])


def test_long_sentence_settings_put_sentences_over_45_tokens_in_the_test_set(tmp_path):
    """The default corpus has almost no sentence over 45 tokens (the long bin of Xu
    et al.'s Figure 3); a higher long-sentence rate and token limit put many there,
    none past the limit."""
    default = _corpus(tmp_path / "default", sizes={"test": 300})
    rare = default["splits"]["test"]["length_bins_en"][">45"]
    assert rare <= 2
    out = tmp_path / "long"
    result = build_corpus(out, 1, {"test": 300}, "en-de",
                          GrammarConfig(rate_long_sentence=0.5), Limits(90, 60), (3, 8), 0)
    test = result["splits"]["test"]
    assert test["length_bins_en"][">45"] >= 5 * max(rare, 1)
    assert test["max_len_en"] <= 90
    assert max(len(s.split()) for s in _lines(out, "test.en")) == test["max_len_en"]
