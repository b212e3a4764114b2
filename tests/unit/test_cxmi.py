"""CXMI: the ratio over target tokens, its bootstrap interval, the item subset,
and exactly 0 for a model whose context path contributes nothing."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from phrasenmt.data.documents import context_mode
from phrasenmt.decoding.context import (
    ContextSource,
    random_drawn_again,
    score_with_context,
    scored_context,
    token_scores_with_context,
)
from phrasenmt.evaluate.cxmi import cxmi, gate_statistics, main
from phrasenmt.evaluate.pcxmi import top_words, word_pcxmi, word_spans
from phrasenmt.io import InputError
from tests.unit.test_ctx_transformer import make_model as make_ctx_model
from tests.unit.test_documents import write
from tests.unit.test_han import DOCS, SRC, TGT, TGT_VOCAB, VOCAB, make_model


def test_cxmi_is_the_token_weighted_mean_difference_with_an_interval():
    diff = np.array([2.0, -1.0, 4.0])
    tokens = np.array([2.0, 1.0, 3.0])
    out = cxmi(diff, tokens, 500, 1)
    assert out["cxmi"] == pytest.approx(5.0 / 6.0)
    lo, hi = out["ci95"]
    assert lo <= out["cxmi"] <= hi
    assert out == cxmi(diff, tokens, 500, 1)  # seeded
    zero = cxmi(np.zeros(4), np.ones(4), 200, 1)
    assert zero["cxmi"] == 0.0 and zero["ci95"] == [0.0, 0.0]


def test_cli_on_the_test_set_and_on_items(tmp_path):
    tgt = write(tmp_path / "t.bpe", ["a b", "c", "d e f"])
    own = write(tmp_path / "w.txt", ["-1.0", "-2.0", "-3.0"])
    none = write(tmp_path / "n.txt", ["-2.0", "-2.0", "-5.0"])
    rand = write(tmp_path / "r.txt", ["-1.0", "-2.5", "-3.0"])
    items = tmp_path / "items.json"
    items.write_text(json.dumps({"lines": 3, "items": [
        {"type": "pronoun_gender", "lines": [0, 1]},
        {"type": "other", "lines": [1, 2]},
        {"type": "pronoun_gender", "lines": [2, 1]}]}))
    out = tmp_path / "cxmi.json"
    scores = [str(own), str(none), str(rand)]
    assert main(["--model", "m", "--test", str(tgt), *scores,
                 "--items", str(items), str(tgt), *scores, "--out", str(out)]) == 0
    got = json.loads(out.read_text())
    assert got["test"]["cxmi"] == pytest.approx(3.0 / 9.0)  # (1 + 0 + 2) / 9
    assert got["test"]["cxmi_random"] == pytest.approx(0.5 / 9.0)
    assert got["items"]["cxmi"] == pytest.approx(3.0 / 7.0)  # lines 0, 2: 3 / 7
    assert got["items"]["cxmi_random"] == 0.0 and got["items"]["sentences"] == 2
    # a dev item (it chose a budget) counts nowhere: line 0 drops out
    data = json.loads(items.read_text())
    data["items"][0]["split"] = "dev"
    items.write_text(json.dumps(data))
    assert main(["--model", "m", "--items", str(items), str(tgt), *scores,
                 "--out", str(out)]) == 0
    got = json.loads(out.read_text())["items"]
    assert got["sentences"] == 1 and got["cxmi"] == pytest.approx(2.0 / 4.0)


def test_bad_scores_name_the_file_and_line(tmp_path):
    tgt = write(tmp_path / "t.bpe", ["a b", "c"])
    bad = write(tmp_path / "w.txt", ["-1.0", "nan"])
    good = write(tmp_path / "n.txt", ["-1.0", "-1.0"])
    with pytest.raises(InputError, match=r"w\.txt.*2"):
        main(["--model", "m", "--test", str(tgt), str(bad), str(good), str(good),
              "--out", str(tmp_path / "o.json")])
    short = write(tmp_path / "s.txt", ["-1.0"])
    with pytest.raises(InputError, match="1 scores but the targets have 2"):
        main(["--model", "m", "--test", str(tgt), str(short), str(good), str(good),
              "--out", str(tmp_path / "o.json")])


@pytest.mark.parametrize("text, message", [
    ("-1.0\n2.5\n-3.0\n", r"w\.txt:2: a log-probability must be <= 0\.0, got 2\.5"),
    ("-1.0\n-\u0662.5\n-3.0\n",
     r"w\.txt:2: a log-probability expected a finite number \(ASCII digits\)"),
    ("-1.0\n-inf\n-3.0\n", r"w\.txt:2: a log-probability expected a finite"),
    ("-1.0\nx\n-3.0\n", r"w\.txt:2: a log-probability expected a finite"),
])
def test_a_score_that_is_no_log_probability_names_file_and_line(tmp_path, text,
                                                                 message):
    tgt = write(tmp_path / "t.bpe", ["a b", "c", "d"])
    (tmp_path / "w.txt").write_text(text, encoding="utf-8")
    good = write(tmp_path / "n.txt", ["-1.0", "-1.0", "-1.0"])
    with pytest.raises(InputError, match=message):
        main(["--model", "m", "--test", str(tgt), str(tmp_path / "w.txt"), str(good),
              str(good), "--out", str(tmp_path / "o.json")])
    assert not (tmp_path / "o.json").exists()


@pytest.mark.parametrize("header, message", [
    ({"lines": 3, "items": [{"type": "p", "lines": [0, 1]}, {"type": "p"}]},
     "items.json: item 1: missing key 'lines'"),
    ({"lines": 3, "items": [{"type": "p", "lines": [0, 1]},
                            {"type": "p", "lines": [7, 1]}]},
     (r"items.json: item 1: line 7 is out of range: the file's 'lines' is 3 "
      r"\(valid: 0..2\)")),
    ({"lines": 3, "items": [{"type": "p", "lines": [0, "1"]}]},
     "items.json: item 0: line '1' is out of range"),
    ({"lines": 3, "items": [{"type": "p", "lines": [0]}]},
     "items.json: item 0: 'lines' must list the reference's line and at least one"),
    ({"lines": 3, "items": [{"lines": [0, 1]}]}, "item 0: missing key 'type'"),
    ({"lines": 3, "items": [{"type": "p", "lines": [0, 1], "distance": -1}]},
     "item 0: 'distance' must be a non-negative integer or null, got -1"),
    ({"lines": 9, "items": [{"type": "p", "lines": [0, 1]}]},
     r"items.json: lines: is 9, but .*t\.bpe has 3 lines"),
    ({"items": [{"type": "p", "lines": [0, 1]}]},
     "items.json: not an items file written by `contrastive prepare`"),
])
def test_a_bad_items_file_names_the_item(tmp_path, header, message):
    tgt = write(tmp_path / "t.bpe", ["a b", "c", "d"])
    good = write(tmp_path / "n.txt", ["-1.0", "-1.0", "-1.0"])
    items = tmp_path / "items.json"
    items.write_text(json.dumps(header), encoding="utf-8")
    with pytest.raises(InputError, match=message):
        main(["--model", "m", "--type", "p", "--items", str(items), str(tgt),
              str(good), str(good), str(good), "--out", str(tmp_path / "o.json")])
    assert not (tmp_path / "o.json").exists()


def score(model, mode) -> np.ndarray:
    source = ContextSource(doc_ids=DOCS, mode=mode)
    return np.array(score_with_context(model, VOCAB, TGT_VOCAB, SRC, TGT, source))


@pytest.mark.parametrize("arch", ["han_enc", "han_dec"])
def test_cxmi_is_exactly_zero_when_the_context_attention_is_zeroed(arch):
    model = make_model(arch)
    tokens = np.array([len(t.split()) + 1 for t in TGT], dtype=float)
    own = context_mode(model.cfg)
    real = score(model, own)
    assert cxmi(real - score(model, ("none", 1)), tokens, 100, 1)["cxmi"] != 0.0
    assert cxmi(real - score(model, ("random", 2)), tokens, 100, 1)["cxmi"] != 0.0
    for han in (model.han_encoder, model.han_decoder):
        if han is not None:  # the HAN's output is h_t itself: context unused
            han.forward = lambda h, mem: h
    for other in (("none", 1), ("random", 2)):
        out = cxmi(score(model, own) - score(model, other), tokens, 100, 1)
        assert out["cxmi"] == 0.0 and out["ci95"] == [0.0, 0.0]


def test_a_random_context_control_meets_a_random_context_of_another_seed():
    assert scored_context(("random", 4), "own") == ("random", 4)
    # ... that avoids, line by line, the control's own draw (seed 4)
    assert scored_context(("random", 4), "random") == ("random", 5, 4)
    assert scored_context(("real", 4), "random") == ("random", 5)
    assert scored_context(("real", 4), "none") == ("none", 5)


def test_gate_statistics_cover_the_lines_with_context_and_each_gate():
    model = make_model("han_enc_dec")
    with torch.no_grad():  # λ = σ(0) = 1/2 at every position of both HANs
        for han in (model.han_encoder, model.han_decoder):
            han.gate_h.weight.zero_()
            han.gate_d.weight.zero_()
    source = ContextSource(doc_ids=DOCS, mode=context_mode(model.cfg))
    stats = gate_statistics(model, VOCAB, TGT_VOCAB, SRC, TGT, source)
    assert set(stats["gates"]) == {"han_encoder", "han_decoder"}
    assert stats["lambda"] == pytest.approx(0.5)
    # the first line of each document has no context and is left out: source
    # positions (tokens + </s>) at the encoder, target positions at the decoder
    with_context = [i for i in range(len(SRC)) if i and DOCS[i] == DOCS[i - 1]]
    positions = sum(len(SRC[i].split()) + 1 for i in with_context)
    assert stats["gates"]["han_encoder"]["positions"] == positions
    assert stats["gates"]["han_decoder"]["positions"] == positions  # TGT = SRC.upper()
    assert all(g["norm_ratio"] > 0 for g in stats["gates"].values())


def test_gate_statistics_of_a_model_without_gates_are_empty():
    model = make_ctx_model(gating=False)
    source = ContextSource(doc_ids=DOCS, mode=context_mode(model.cfg))
    stats = gate_statistics(model, VOCAB, TGT_VOCAB, SRC, TGT, source)
    assert stats == {"lambda": None, "norm_ratio": None, "gates": {}}
    gated = gate_statistics(make_ctx_model(), VOCAB, TGT_VOCAB, SRC, TGT, source)
    assert set(gated["gates"]) == {f"{side}.layers.{i}.res_ctx"
                                   for side in ("encoder", "decoder") for i in (0, 1)}
    assert 0 < gated["lambda"] < 1


def test_per_sentence_cxmi_is_the_published_mean_over_sentences(tmp_path):
    # hand-computed: sentence differences own - none = 1, 0, 2 (mean 1.0 nats per
    # sentence), own - random = 0, 0.5, 0 (mean 0.5 / 3); per token (2+1, 1+1,
    # 3+1 = 9 tokens) the same sums give 3 / 9 and 0.5 / 9
    tgt = write(tmp_path / "t.bpe", ["a b", "c", "d e f"])
    own = write(tmp_path / "w.txt", ["-1.0", "-2.0", "-3.0"])
    none = write(tmp_path / "n.txt", ["-2.0", "-2.0", "-5.0"])
    rand = write(tmp_path / "r.txt", ["-1.0", "-2.5", "-3.0"])
    out = tmp_path / "cxmi.json"
    main(["--model", "m", "--test", str(tgt), str(own), str(none), str(rand),
          "--out", str(out)])
    got = json.loads(out.read_text())["test"]
    assert got["cxmi_sentence"] == pytest.approx(1.0)
    assert got["cxmi_random_sentence"] == pytest.approx(0.5 / 3)
    assert got["cxmi"] == pytest.approx(3.0 / 9.0)  # the per-token figure beside it
    assert got["sentence_cxmi"] == [1.0, 0.0, 2.0]
    assert got["sentence_cxmi_random"] == [0.0, 0.5, 0.0]
    lo, hi = got["ci95_sentence"]
    assert 0.0 <= lo <= 1.0 <= hi <= 2.0


def test_word_spans_join_bpe_pieces_and_end_with_eos():
    assert word_spans("Fisch@@ er hält sie .") == [
        ("Fischer", 0, 2), ("hält", 2, 3), ("sie", 3, 4), (".", 4, 5),
        ("</s>", 5, 6)]
    assert word_spans("") == [("</s>", 0, 1)]


@pytest.mark.parametrize("arch", ["han_enc", "han_dec"])
def test_pcxmi_sums_back_to_each_sentences_cxmi(arch):
    model = make_model(arch)
    own, other = context_mode(model.cfg), ("none", 1)
    tokens = {mode: token_scores_with_context(
        model, VOCAB, TGT_VOCAB, SRC, TGT, ContextSource(doc_ids=DOCS, mode=mode))
        for mode in (own, other)}
    sentence = score(model, own) - score(model, other)
    assert np.abs(sentence).max() > 1e-4  # the context changes the scores
    by_word = word_pcxmi(TGT, tokens[own], tokens[other])
    for i, words in enumerate(by_word):
        assert len(tokens[own][i]) == len(TGT[i].split()) + 1
        assert sum(v for _, v in words) == pytest.approx(sentence[i], abs=1e-5)
    rows = top_words(TGT, tokens[own], tokens[other], tokens[other], 50, 1)
    total = sum(r["pcxmi"] * r["count"] for r in rows)
    assert total == pytest.approx(sentence.sum(), abs=1e-4)
    assert [r["pcxmi"] for r in rows] == sorted((r["pcxmi"] for r in rows),
                                                reverse=True)
    with pytest.raises(InputError, match="line 1: 2 and"):
        word_pcxmi(TGT[:1], [[0.0, 0.0]], tokens[other][:1])


def test_from_a_checkpoint_the_json_has_both_means_and_the_top_words(tmp_path):
    from phrasenmt.training.checkpoint import model_payload, save_file

    model = make_model("han_dec")
    ckpt = tmp_path / "m.pt"
    save_file(model_payload("han_dec", model, VOCAB, TGT_VOCAB, {}), ckpt)
    src, tgt = write(tmp_path / "s.bpe", SRC), write(tmp_path / "t.bpe", TGT)
    docs = write(tmp_path / "d.docs", DOCS)
    out = tmp_path / "cxmi.json"
    assert main(["--model", "han_dec", "--checkpoint", str(ckpt), "--test-files",
                 str(src), str(tgt), str(docs), "--device", "cpu", "--min-count",
                 "2", "--top-words", "3", "--samples", "50", "--out", str(out)]) == 0
    got = json.loads(out.read_text())["test"]
    diffs = np.array(got["sentence_cxmi"])
    assert got["cxmi_sentence"] == pytest.approx(diffs.mean(), abs=1e-6)
    assert got["cxmi"] == pytest.approx(diffs.sum() / got["tokens"], abs=1e-6)
    words = got["words"]
    assert 0 < len(words) <= 3 and all(w["count"] >= 2 for w in words)
    assert words[0]["pcxmi"] >= words[-1]["pcxmi"]


def test_a_control_on_two_documents_draws_its_own_random_context_again():
    two = ["a"] * 4 + ["b"] * 3  # one other document to draw from: always the same
    assert random_drawn_again(ContextSource(doc_ids=two, mode=("random", 1)), 2) == {
        "lines": 5, "same": 5, "sources": 2}
    # with a third document the scoring draw never gives the control's own
    for docs in ("abc", "abcde", "abcdefghij"):
        many = [d for d in docs for _ in range(4)]
        again = random_drawn_again(ContextSource(doc_ids=many, mode=("random", 1)), 1)
        assert again == {"lines": 3 * len(docs), "same": 0, "sources": len(docs)}
    # a model reading its real context draws nothing of its own
    assert random_drawn_again(ContextSource(doc_ids=two, mode=("real", 1)), 2) is None


def test_a_control_on_explicit_contexts_counts_the_same_draws():
    entries = [{"src": ["x"], "tgt": []}, {"src": ["x"], "tgt": []},
               {"src": ["y"], "tgt": []}, {"src": [], "tgt": []}]
    again = random_drawn_again(ContextSource(entries=entries, mode=("random", 3)), 1)
    assert again == {"lines": 3, "same": 3, "sources": 2}  # two contexts: swapped alike
    entries.append({"src": ["z"], "tgt": []})  # a third: the scoring draw avoids
    for seed in range(1, 20):
        again = random_drawn_again(ContextSource(entries=entries, mode=("random", seed)), 1)
        assert again == {"lines": 4, "same": 0, "sources": 3}


def test_the_json_of_a_control_on_two_documents_says_so(tmp_path, capsys):
    from phrasenmt.training.checkpoint import model_payload, save_file

    model = make_model("han_dec")
    model.cfg.context, model.cfg.context_seed = "random", 1
    ckpt = tmp_path / "m.pt"
    save_file(model_payload("han_dec", model, VOCAB, TGT_VOCAB, {}), ckpt)
    two = [d for d in ("a", "b") for _ in range(len(DOCS) // 2)]
    two += ["b"] * (len(DOCS) - len(two))
    src, tgt = write(tmp_path / "s.bpe", SRC), write(tmp_path / "t.bpe", TGT)
    docs = write(tmp_path / "d.docs", two)
    out = tmp_path / "cxmi.json"
    assert main(["--model", "han_dec_random", "--checkpoint", str(ckpt), "--test-files",
                 str(src), str(tgt), str(docs), "--device", "cpu", "--samples", "20",
                 "--out", str(out)]) == 0
    got = json.loads(out.read_text())["test"]
    lines = len(two) - 2  # each document's first line has no context
    assert got["random_drawn_again"] == {"lines": lines, "same": lines, "sources": 2}
    assert got["cxmi_random"] == 0.0
    assert "is this control's own (2 documents to draw from)" in capsys.readouterr().err
