"""SentencePiece at start-up: a `vocab_size` the training text cannot give,
and a model of the user's (`bpe.model`) that does not fit the data or the keys
beside it, refused by `experiment.start` in one line naming the key.

The bound the start-up uses (`spm.piece_bound`) is held to SentencePiece
itself: trained on the same text, it never holds more pieces."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from phrasenmt import bpe, experiment
from phrasenmt.data import clean, prepare
from phrasenmt.io import InputError, read_lines
from phrasenmt.text import spm

# small texts of several kinds: one-letter words, repeats, words longer than a
# piece can be, Chinese, accents, a ligature and full-width letters (which an
# NFKC fold would change: the model keeps them), digits and Cyrillic
TEXTS = {
    "letters": ["a b", "c d", "e f"],
    "repeats": ["a b c", "a b d"] * 20,
    "english": ["the cat sat on the mat", "a dog ran", "hello world"] * 5,
    "long words": ["abcdefghijklmnopqrstuvwxyz0123456789 ABCDEFGHIJ"] * 3,
    "chinese": ["我们 去 学校 。", "他们 在 家 。"] * 20,
    "mixed": ["Straße naïve ﬁle ＡＢＣ abc123def x-y", "1990–2000 km/h Москва"] * 4,
    "one line": ["supercalifragilistic expialidocious"],
}


def _largest(lines: list[str], model_type: str, size: int) -> int | None:
    """SentencePiece's own answer at `size`: None if it trains a model of that
    size, else the largest size it says the text can give."""
    try:
        spm.train(lines, model_type, size, 1)
    except InputError as err:
        found = re.search(r"SentencePiece finds at most (\d+)", str(err))
        assert found, str(err)
        return int(found.group(1))
    return None


def test_the_bound_counts_pieces_of_words_with_their_word_start():
    # ▁ab: ▁ ▁a ▁ab a ab b; ▁b adds ▁b; and <unk> <s> </s>
    assert spm.piece_bound(["ab ab", " b  "], 10**6) == 7 + 3
    word = "x" * 10 + "abcdefghij"  # 20 characters: no piece of 17 or more
    pieces = {("▁" + word)[i:j] for i in range(21) for j in range(i + 1, min(21, i + 16) + 1)}
    assert spm.piece_bound([word], 10**6) == len(pieces) + 3
    assert spm.MAX_PIECE_LENGTH == 16 and spm.META_PIECES == 3


def test_the_bound_stops_reading_once_it_reaches_the_size():
    read = []

    def lines():
        for n in range(100_000):
            read.append(n)
            yield f"w{n} v{n}"

    assert spm.piece_bound(lines(), 500) >= 500
    first = [f"w{n} v{n}" for n in read]  # it read the lines it needed, no more
    assert spm.piece_bound(first[:-1], 10**6) < 500 <= spm.piece_bound(first, 10**6)
    assert spm.piece_bound(iter(["a b"] * 100_000), 8000) == 8  # small: read whole


@pytest.mark.parametrize("model_type", spm.MODEL_TYPES)
@pytest.mark.parametrize("name", TEXTS)
def test_sentencepiece_never_holds_more_pieces_than_the_bound(name, model_type):
    """At the bound + 1 SentencePiece refuses, naming a largest size no
    greater than the bound; it trains at that size, which the start-up lets
    through. Between the two it refuses too, when the job runs."""
    lines = TEXTS[name]
    bound = spm.piece_bound(lines, 10**9)
    largest = _largest(lines, model_type, bound + 1)
    assert largest is not None and largest <= bound, (largest, bound)
    assert _largest(lines, model_type, largest) is None
    assert spm.piece_bound(lines, largest) >= largest  # the start-up's test passes
    if largest < bound:  # too large, but only training shows it
        assert _largest(lines, model_type, largest + 1) == largest


# each split its own lines: a held-out copy of a training file is refused
SPLIT_TEXT = {"train": "a b\nc d\ne f\n", "dev": "g h\ni j\nk l\n", "test": "m n\no p\nq r\n"}


def _config(tmp: Path, files: dict[str, str | bytes] | None = None, src: str = "en",
            tgt: str = "de", **bpe_keys) -> dict:
    """A config of one local SentencePiece dataset `mine` whose files (train.src
    and so on) hold `files` (default: 'a b', 'c d', 'e f')."""
    local = {}
    for split in ("train", "dev", "test"):
        for side in ("src", "tgt"):
            text = (files or {}).get(f"{split}.{side}", SPLIT_TEXT[split])
            path = tmp / f"{split}.{side}"
            path.write_bytes(text if isinstance(text, bytes) else text.encode())
            local.setdefault(split, {})[side] = str(path)
    return {"seed": 1, "run_datasets": ["mine"],
            "datasets": {"mine": {
                "source": "local", "src": src, "tgt": tgt,
                "bpe": {"backend": "sentencepiece", **bpe_keys},
                "local": {"train": local["train"], "dev": local["dev"],
                          "test": {"t1": local["test"]}, "language_check": False}}},
            "models": {"transformer": {"arch": "transformer", "preset": "tiny",
                                       "datasets": ["mine"]}},
            "baseline": {"mine": "transformer"}}


def _refusal(config: dict) -> str:
    with pytest.raises(InputError) as err:
        experiment.start(config)
    return str(err.value)


def test_a_vocab_size_the_training_text_cannot_give_is_refused_at_start(tmp_path):
    assert _refusal(_config(tmp_path, vocab_size=17)) == (
        f"datasets.mine.bpe.vocab_size: 17 pieces is more than {tmp_path}/train.src + "
        f"{tmp_path}/train.tgt can give (at most 16 distinct pieces of up to 16 "
        "characters, with <unk>, <s> and </s>); lower it")
    experiment.start(_config(tmp_path, vocab_size=16))
    # one model per language: each learned on its side alone
    files = {"train.tgt": "a b\nc d\ne f\ng h\n", "train.src": "a b\nc d\ne f\ng h\n"}
    assert _refusal(_config(tmp_path, files, vocab_size=21, joint=False)) == (
        f"datasets.mine.bpe.vocab_size: 21 pieces is more than {tmp_path}/train.src "
        "can give (at most 20 distinct pieces of up to 16 characters, with <unk>, <s> "
        "and </s>); lower it")
    experiment.start(_config(tmp_path, files, vocab_size=20, joint=False))


def test_the_start_up_reads_a_large_corpus_only_as_far_as_the_size_needs(tmp_path):
    """A bad byte on line 50,001: the start-up has stopped reading long before
    (the data job will name it); with a size the text cannot give, it reads
    on and names the line under the dataset's train split."""
    lines = "".join(f"word{n} other{n}\n" for n in range(50_000)).encode()
    files = {"train.src": lines + b"\xff\n", "train.tgt": lines + b"x\n"}
    experiment.start(_config(tmp_path, files, vocab_size=8000))
    assert _refusal(_config(tmp_path, files, vocab_size=10**7)) == (
        f"datasets.mine.local.train: {tmp_path}/train.src:50001: invalid UTF-8 at "
        "byte 0")


def test_the_bound_is_counted_on_the_text_the_model_will_be_learned_on(tmp_path):
    """The start-up's count is that of the text the data jobs write (NFC,
    bidirectional controls and idle zero-width spaces dropped, jieba's words,
    lowercased), not of the user's file."""
    zh = "我经常在学校写新衣服。\n他每天在上海买\u200f苹果，而且她写书。\n"
    en = "Cafe\u0301 \u200bIS open.\nHe buys APPLES in Shanghai.\n"
    config = _config(tmp_path, {"train.src": zh, "train.tgt": en}, src="zh",
                     tgt="en", vocab_size=10**6, joint=False)
    config["datasets"]["mine"]["lowercase"] = True
    message = _refusal(config)
    counted = int(re.search(r"at most (\d+)", message).group(1))
    out = {}
    for lang, side in (("zh", "src"), ("en", "tgt")):  # as the data jobs run
        prepare.main(["local", "--in", str(tmp_path / f"train.{side}"),
                      "--out", str(tmp_path / f"raw.{lang}")])
    clean.main(["--src-in", str(tmp_path / "raw.zh"), "--tgt-in",
                str(tmp_path / "raw.en"), "--src-lang", "zh", "--tgt-lang", "en",
                "--src-out", str(tmp_path / "clean.zh"), "--tgt-out",
                str(tmp_path / "clean.en"), "--raw", "--lowercase",
                "--stats", str(tmp_path / "stats.tsv")])
    for lang in ("zh", "en"):
        out[lang] = read_lines(tmp_path / f"clean.{lang}")
    assert out["en"][0] == "café is open."
    assert counted == spm.piece_bound(out["zh"], 10**6)
    assert counted != spm.piece_bound(read_lines(tmp_path / "train.src"), 10**6)


def _model(path: Path, lines: list[str], model_type: str = "bpe", size: int = 12
           ) -> Path:
    path.write_bytes(spm.train(lines, model_type, size, 1))
    return path


def test_a_model_of_the_user_s_is_checked_at_start(tmp_path):
    ours = _model(tmp_path / "ours.model", ["a b", "c d", "e f"])
    # a model is used as it is: the default vocab_size, larger than the text
    # could give, is not the size of anything here
    experiment.start(_config(tmp_path, model=str(ours)))
    experiment.start(_config(tmp_path, model=str(ours), vocab_size=12, model_type="bpe"))
    missing, text = tmp_path / "none.model", tmp_path / "train.src"
    for path, why in ((missing, "file not found"),
                      (tmp_path, "is a folder; give the model's file"),
                      (text, "not a SentencePiece model file")):
        assert _refusal(_config(tmp_path, model=str(path))) == (
            f"datasets.mine.bpe.model: {path}: {why}")


@pytest.mark.parametrize("keys, message", [
    ({"vocab_size": 40}, ("datasets.mine.bpe.vocab_size: 40, but bpe.model {m} has "
     "vocab_size 12, and it is used as it is; remove vocab_size or give 12")),
    ({"model_type": "unigram"}, ("datasets.mine.bpe.model_type: unigram, but bpe.model "
     "{m} has model_type bpe, and it is used as it is; remove model_type or give bpe")),
    ({"joint": False}, ("datasets.mine.bpe.joint: false, but bpe.model gives one model, "
     "which segments both languages")),
    ({"backend": "subword-nmt"}, ("datasets.mine.bpe.model: not read with backend "
     "subword-nmt")),
])
def test_keys_that_a_given_model_would_leave_unread_are_refused(tmp_path, keys, message):
    ours = _model(tmp_path / "ours.model", ["a b", "c d", "e f"])
    refusal = _refusal(_config(tmp_path, model=str(ours), **keys))
    assert refusal.startswith(message.format(m=ours)), refusal


def test_a_model_that_does_not_know_the_text_is_refused_at_start(tmp_path):
    chinese = _model(tmp_path / "zh.model", ["我们 去 学校 。", "他们 在 家 。"] * 20,
                     size=20)
    files = {"train.src": "we go to school\n" * 3000, "train.tgt": "我们 去 学校 。\n" * 3000}
    assert _refusal(_config(tmp_path, files, model=str(chinese))) == (
        f"datasets.mine.bpe.model: 100.0% of the characters of the first 2000 lines "
        f"of {tmp_path}/train.src (24000 of 24000; more than 10%) are unknown to "
        f"{chinese} ('o', 'w', 'e', 'g', 't'): a model of another language, script "
        "or corpus; give one learned on text like this, or remove bpe.model to "
        "learn one")
    both = _model(tmp_path / "both.model", ["we go to school", "我们 去 学校 。"] * 20,
                  size=40)
    experiment.start(_config(tmp_path, files, model=str(both)))


def test_spm_copy_copies_a_whole_model_and_refuses_anything_else(tmp_path):
    ours = _model(tmp_path / "ours.model", ["a b", "c d", "e f"])
    assert bpe.main(["spm-copy", "--in", str(ours), "--model",
                     str(tmp_path / "copy.model")]) == 0
    assert (tmp_path / "copy.model").read_bytes() == ours.read_bytes()
    (tmp_path / "text").write_text("a b\n")
    with pytest.raises(InputError, match=f"^{tmp_path}/text: not a SentencePiece "
                                         "model file$"):
        bpe.main(["spm-copy", "--in", str(tmp_path / "text"), "--model",
                  str(tmp_path / "bad.model")])
    assert not (tmp_path / "bad.model").exists()
