"""Vocabulary: special ids, deterministic order, encode/decode, storage."""

from __future__ import annotations

import pytest

from phrasenmt.text.vocab import BOS, EOS, PAD, UNK, Vocabulary


def test_specials_come_first_with_fixed_ids():
    vocab = Vocabulary.build(["b a b", "c b a"])
    assert vocab.itos[:4] == ["<pad>", "<s>", "</s>", "<unk>"]
    assert (PAD, BOS, EOS, UNK) == (0, 1, 2, 3)
    assert vocab.itos[4:] == ["b", "a", "c"]  # by frequency, ties alphabetically


def test_build_is_deterministic_and_ignores_special_strings():
    lines = ["x y z", "z y", "<unk> </s> y"]
    assert Vocabulary.build(lines) == Vocabulary.build(list(reversed(lines)))
    assert Vocabulary.build(lines).itos.count("</s>") == 1


def test_min_freq_and_max_size():
    vocab = Vocabulary.build(["a a b"], min_freq=2)
    assert vocab.itos[4:] == ["a"]
    assert len(Vocabulary.build(["a b c d"], max_size=6)) == 6


def test_encode_unknown_and_decode_stops_at_eos():
    vocab = Vocabulary.build(["the cat@@ s sat"])
    ids = vocab.encode("the dog sat")
    assert ids[1] == UNK and vocab.itos[ids[0]] == "the"
    assert vocab.decode([BOS, ids[0], ids[2], EOS, ids[0], PAD]) == ["the", "sat"]


def test_round_trip_through_list():
    vocab = Vocabulary.build(["a b c"])
    assert Vocabulary.from_list(vocab.to_list()) == vocab
    with pytest.raises(ValueError):
        Vocabulary(["a", "b"])
