"""Document ids and context: validation, lookup by index, batching, decoding order."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

import pytest
import torch

from phrasenmt.data.documents import (
    context_indices,
    documents,
    read_context_file,
    read_docs,
)
from phrasenmt.decoding.context import (
    ContextSource,
    Search,
    context_rows,
    translate_with_context,
)
from phrasenmt.io import InputError
from phrasenmt.nn.batching import collate, pad_context
from phrasenmt.text.vocab import EOS, PAD, Vocabulary
from phrasenmt.training.data import DataPaths, DocContext, load_data

DOCS = ["a", "a", "a", "a", "b", "c", "c"]


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_context_indices_are_previous_lines_of_the_same_document():
    assert context_indices(DOCS, 2) == [[], [0], [0, 1], [1, 2], [], [], [5]]
    assert context_indices(DOCS, 0) == [[]] * 7
    assert context_indices(DOCS, 9)[3] == [0, 1, 2]


def test_context_indices_match_brute_force_on_random_documents():
    rng = random.Random(3)
    ids = [f"d{k}" for k in range(12) for _ in range(rng.randint(1, 5))]
    for size in (1, 2, 3):
        for i, row in enumerate(context_indices(ids, size)):
            same = [j for j in range(i) if ids[j] == ids[i]]  # earlier, same doc
            assert row == same[-size:] if same else row == []


def test_documents_groups_contiguous_lines():
    assert documents(DOCS) == [[0, 1, 2, 3], [4], [5, 6]]


def test_read_docs_keeps_the_synthetic_format(tmp_path):
    path = write(tmp_path / "dev.docs", ["dev-000000", "dev-000000", "dev-000001"])
    assert read_docs(path, 3) == ["dev-000000", "dev-000000", "dev-000001"]


@pytest.mark.parametrize("lines, n, message", [
    (["a", "a"], 3, "x.docs: has 2 lines but t.en has 3"),
    (["a", "b", "a"], 3, "x.docs:3: document 'a' reappears after document 'b'"),
    (["a", "", "b"], 3, "x.docs:2: a document id must be one token"),
    (["a", "b c", "b c"], 3, "x.docs:2: a document id must be one token"),
])
def test_bad_docs_name_file_and_line(tmp_path, lines, n, message):
    path = write(tmp_path / "x.docs", lines)
    with pytest.raises(InputError) as err:
        read_docs(path, n, "t.en")
    assert str(err.value).replace(f"{tmp_path}/", "").startswith(message)


def test_context_file_reads_and_validates(tmp_path):
    items = [{"src": ["a b", "c"], "tgt": ["A"]}, {"src": []}, {}]
    path = write(tmp_path / "c.jsonl", [json.dumps(i) for i in items])
    got = read_context_file(path, 3)
    assert got == [{"src": ["a b", "c"], "tgt": ["A"]}, {"src": [], "tgt": []},
                   {"src": [], "tgt": []}]
    write(path, [json.dumps(items[0]), "{bad", json.dumps(items[1])])
    with pytest.raises(InputError, match=r"c.jsonl:2: invalid JSON"):
        read_context_file(path, 3)
    write(path, [json.dumps({"src": "a b"})])
    with pytest.raises(InputError, match=r"c.jsonl:1: 'src' must be a list"):
        read_context_file(path, 1)
    with pytest.raises(InputError, match="has 1 lines but the text has 2"):
        read_context_file(path, 2)


def test_pad_context_layout():
    ctx = pad_context([[], [[5, 6]], [[7], [8, 9, 10]]], 2)  # (B=3, K=2, Lc=4)
    assert ctx.shape == (3, 2, 4)
    assert ctx[0].eq(PAD).all()  # first sentence of a document: no context
    assert ctx[1, 0].eq(PAD).all()  # missing i-2 is all padding
    assert ctx[1, 1].tolist() == [5, 6, EOS, PAD]  # slot K-1 = previous sentence
    assert ctx[2].tolist() == [[7, EOS, PAD, PAD], [8, 9, 10, EOS]]  # oldest first
    with pytest.raises(ValueError):
        pad_context([[[1], [2], [3]]], 2)


def test_batch_context_comes_from_indices_not_from_the_batch():
    sentences = [[4 + i] * (i + 1) for i in range(len(DOCS))]
    ctx = DocContext(2, {"src": sentences}, context_indices(DOCS, 2))
    alone = {i: ctx.batch([i])["src"][0] for i in range(len(DOCS))}
    for order in ([6, 3, 0, 5], [3], [2, 3, 4, 5, 6, 0, 1]):
        batch = collate([sentences[i] for i in order], [[4] for _ in order],
                        context=ctx.batch(order))
        for row, i in enumerate(order):
            got, ref = batch.context["src"][row], alone[i]
            assert torch.equal(got[:, : ref.size(1)], ref)
            assert got[:, ref.size(1):].eq(PAD).all()
    assert alone[3][0].tolist()[:3] == [5, 5, EOS] and alone[3][1][3] == EOS


def test_training_context_survives_skipped_pairs(tmp_path):
    src = ["a b", "c " * 9, "d e", "f", "g h"]
    tgt = ["A B", "C", "D E", "F", "G H"]
    for split in ("train", "dev"):
        write(tmp_path / f"{split}.src", src)
        write(tmp_path / f"{split}.tgt", tgt)
        write(tmp_path / f"{split}.docs", ["x", "x", "x", "y", "y"])
    paths = DataPaths(*(tmp_path / f for f in ("train.src", "train.tgt", "dev.src",
                                              "dev.tgt")),
                      docs=(tmp_path / "train.docs", tmp_path / "dev.docs"))
    sv, tv, train, dev = load_data(paths, 5, None, ("src", "tgt"), 2)
    assert train.lines == [0, 2, 3, 4]  # the long pair 1 is skipped ...
    assert train.context.indices == [[], [0, 1], [], [3]]  # ... yet is context
    batch = train.context.batch([1])
    assert batch["src"][0, 1].tolist() == [sv.stoi["c"]] * 9 + [EOS]
    assert batch["tgt"][0, 1, :2].tolist() == [tv.stoi["C"], EOS]
    assert len(dev.context.indices) == 5


def test_context_rows_from_an_explicit_file_keep_the_last_k():
    vocab = Vocabulary.build(["a b c d"])
    source = ContextSource(entries=[{"src": ["a", "b c", "d"], "tgt": []}])
    rows = context_rows(source, 2, {"src": []}, {"src": vocab})
    assert rows["src"][0] == [vocab.encode("b c"), vocab.encode("d")]


@dataclass
class _Hyp:
    tokens: list[int]


class EchoModel(torch.nn.Module):
    """Test double with target context: 'translates' a sentence by echoing its
    source ids plus one, and records the context each sentence was given."""

    context_sides = ("src", "tgt")

    def __init__(self, size: int):
        super().__init__()
        self.cfg = type("Cfg", (), {"context_size": size})()
        self.weight = torch.nn.Parameter(torch.zeros(1))
        self.seen: list[tuple[list[int], dict]] = []

    def generate(self, src, extra, max_len_a, max_len_b):
        rows = [[t for t in row.tolist() if t not in (PAD, EOS)] for row in src]
        for b, row in enumerate(rows):
            self.seen.append((row, {k: v[b] for k, v in extra["context"].items()}))
        return [_Hyp([t + 1 for t in row]) for row in rows]


def test_target_context_is_the_models_own_translation_in_document_order():
    vocab = Vocabulary([*Vocabulary.build([]).itos, *[f"t{i}" for i in range(40)]])
    lines = ["t1 t2", "t5", "t9 t9", "t20", "t30 t31"]
    doc_ids = ["a", "a", "a", "b", "b"]
    model = EchoModel(2)
    out = translate_with_context(model, vocab, vocab, lines,
                                 ContextSource(doc_ids=doc_ids), Search(batch_size=2))
    assert out == ["t2 t3", "t6", "t10 t10", "t21", "t31 t32"]
    seen = {tuple(row): ctx for row, ctx in model.seen}
    third = seen[tuple(vocab.encode("t9 t9"))]["tgt"]  # (K, Lc)
    own = [[t for t in s.tolist() if t not in (PAD, EOS)] for s in third]
    assert own == [vocab.encode("t2 t3"), vocab.encode("t6")]  # hypotheses
    order = [vocab.decode(row) for row, _ in model.seen]
    assert order.index(["t9", "t9"]) > order.index(["t5"]) > order.index(["t1", "t2"])
    assert seen[tuple(vocab.encode("t20"))]["tgt"].eq(PAD).all()


IDS = [d for d, n in zip("abcde", (3, 5, 2, 4, 6), strict=True) for _ in range(n)]


def test_a_random_draw_without_avoid_is_the_one_it_always_was():
    # seed 1, K = 2: the contexts drawn before the draw learnt to avoid one, so
    # that the random-context CXMI of a model that reads its real context and
    # every control's training contexts stay as they were
    assert context_indices(IDS, 2, "random", 1) == [
        [], [3], [14, 15], [], [0], [8, 9], [1, 2], [12, 13], [], [10], [], [3],
        [0, 1], [1, 2], [], [10], [10, 11], [1, 2], [12, 13], [8, 9]]


def test_a_draw_that_avoids_another_never_meets_it_where_a_third_exists():
    docs = documents(IDS)
    doc_of = {i: d for d, lines in enumerate(docs) for i in lines}
    for seed in range(1, 30):
        own = context_indices(IDS, 2, "random", seed)
        scored = context_indices(IDS, 2, "random", seed + 1, seed)
        for i, (a, b) in enumerate(zip(own, scored, strict=True)):
            assert len(a) == len(b)
            if b:
                assert a != b and doc_of[b[0]] != doc_of[i]
                assert len({doc_of[j] for j in b}) == 1
    two = IDS[:8]  # documents a and b: nothing else to draw, so the draws agree
    assert context_indices(two, 1, "random", 2, 1) == context_indices(two, 1, "random", 1)
