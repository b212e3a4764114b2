"""Text in any script: SentencePiece subwords, jieba's words for Chinese,
cleaning counted in characters, and BLEU with the target language's tokenizer,
on the small zh-en fixture in tests/data/zh_en (make_fixture.py writes it)."""

from __future__ import annotations

import io
import json
import shlex
from pathlib import Path

import pytest
import sentencepiece

from phrasenmt import bpe
from phrasenmt.data import clean, detokenize
from phrasenmt.evaluate import bleu
from phrasenmt.io import InputError, read_lines
from phrasenmt.text import spm, words

FIXTURE = Path(__file__).parents[1] / "data" / "zh_en"


def _clean(tmp_path: Path, mode: str, split: str = "train") -> list[list[str]]:
    """Clean a split of the fixture (zh -> en); the stats rows."""
    args = ["--src-in", str(FIXTURE / f"{split}.zh"),
            "--tgt-in", str(FIXTURE / f"{split}.en"),
            "--src-out", str(tmp_path / f"{split}.zh"),
            "--tgt-out", str(tmp_path / f"{split}.en"),
            "--src-lang", "zh", "--tgt-lang", "en", mode, "--filter",
            "--stats", str(tmp_path / f"{split}.clean.tsv")]
    assert clean.main(args) == 0
    return [line.split("\t") for line in read_lines(tmp_path / f"{split}.clean.tsv")]


def _mean_tokens(path: Path) -> float:
    lines = read_lines(path)
    return sum(len(line.split()) for line in lines) / len(lines)


@pytest.fixture(scope="module")
def segmented(tmp_path_factory) -> Path:
    """The fixture's training text cleaned in --raw mode, SentencePiece'd."""
    out = tmp_path_factory.mktemp("spm")
    _clean(out, "--raw")
    bpe.main(["spm-learn", "--in", str(out / "train.zh"), str(out / "train.en"),
              "--model", str(out / "joint.model"), "--vocab-size", "200",
              "--seed", "7", "--character-coverage", "0.9995"])
    for lang in ("zh", "en"):
        bpe.main(["apply", "--sentencepiece", str(out / "joint.model"),
                  "--in", str(out / f"train.{lang}"),
                  "--out", str(out / f"train.bpe.{lang}")])
    return out


def test_sentencepiece_gives_no_clause_sized_tokens(segmented):
    src, tgt = (_mean_tokens(segmented / f"train.bpe.{lang}") for lang in ("zh", "en"))
    assert tgt / 2 <= src <= 2 * tgt, (src, tgt)
    # the word files hold jieba's words, not clauses: a few characters each
    zh = read_lines(segmented / "train.zh")
    assert words.detect_unsegmented(zh) is None
    assert _mean_tokens(segmented / "train.zh") > 5


def test_subwords_join_back_to_the_words(segmented):
    for lang in ("zh", "en"):
        text = read_lines(segmented / f"train.{lang}")
        pieces = read_lines(segmented / f"train.bpe.{lang}")
        assert [bpe.remove_bpe(p) for p in pieces] == text
        assert [spm.decode(p) for p in pieces] == text


def test_training_is_deterministic(segmented, tmp_path):
    again = tmp_path / "again.model"
    bpe.main(["spm-learn", "--in", str(segmented / "train.zh"),
              str(segmented / "train.en"), "--model", str(again),
              "--vocab-size", "200", "--seed", "7", "--character-coverage", "0.9995"])
    assert again.read_bytes() == (segmented / "joint.model").read_bytes()


@pytest.mark.parametrize(("mode", "units"), [
    ("--tokenize", "(zh: characters, en: tokens; the zh side divided by "),  # Moses
    ("--raw", "(zh: words, en: words; the zh side divided by "),  # jieba's words
])
def test_cleaning_counts_chinese_in_characters_or_jieba_words(tmp_path, mode, units):
    rows = {r[0]: r for r in _clean(tmp_path, mode)}
    dropped = sum(int(rows[r][1]) for r in clean.REASONS)
    assert dropped <= 0.02 * int(rows["total"][1])
    assert units in rows["ratio"][3]


def test_the_ratio_rule_scales_characters_by_the_corpus_median():
    """Characters against tokens: 2.5 characters a word is this corpus's norm,
    so an unscaled 2.5 drops an ordinary pair (2.8 characters a word); scaled,
    it drops only the pair far from the norm."""
    zh = ["一二三四五六七八九十十一十二", "一二三四五", "一二三四五六七八九十"]
    en = ["a b c d e", "a b", "a b c d e f g h i j k l m n o p q r s t u v w x y z"]
    units = (True, False)
    scale = clean.ratio_scale(zh, en, units)
    assert scale == pytest.approx(2.5)  # median of 14/5, 5/2, 10/26
    assert clean.drop_reason(zh[0], en[0], 100, 2.5, units) == "ratio"  # unscaled: 2.8 x
    assert clean.drop_reason(zh[0], en[0], 100, 2.5, units, scale) is None
    assert clean.drop_reason(zh[1], en[1], 100, 2.5, units, scale) is None
    assert clean.drop_reason(zh[2], en[2], 100, 2.5, units, scale) == "ratio"  # 26 / (10 / 2.5) = 6.5 x
    # the character side may be the target: the scale is then source per target
    assert clean.ratio_scale(en, zh, (False, True)) == pytest.approx(1 / 2.5)
    assert clean.drop_reason(en[0], zh[0], 100, 2.5, (False, True), 1 / 2.5) is None


@pytest.mark.parametrize(("langs", "units", "raw", "scaled"), [
    (("en", "de"), (False, False), False, False),  # tokens against tokens: as before
    (("en", "de"), (False, False), True, False),   # words between spaces on both sides
    (("zh", "en"), (True, False), False, True),    # Moses: zh characters, en tokens
    (("zh", "en"), (False, False), True, True),    # jieba's words against spaces'
    (("ja", "en"), (False, False), True, True),    # MeCab's words against spaces'
    (("zh", "ja"), (False, False), True, True),    # two segmenters
])
def test_the_ratio_is_scaled_only_between_units_of_different_kinds(langs, units, raw,
                                                                    scaled):
    opts = clean.Options(*langs, raw=raw)
    assert clean.needs_scale(units, opts) is scaled


def test_raw_mode_counts_words_not_the_punctuation_jieba_cuts_off(tmp_path):
    """Raw English keeps "[OPTION]..." one token; jieba cuts "[ 选项 ] ..." into
    four. Counted as words (a letter or a digit), the pair is 4 against 4."""
    zh, en = tmp_path / "in.zh", tmp_path / "in.en"
    zh.write_text("用法：%s [选项]... [文件]\n……\n", encoding="utf-8")
    en.write_text("Usage: %s [OPTION]... [FILE]\n...\n", encoding="utf-8")
    assert clean.length_view("用法 ： % s [ 选项 ] ... [ 文件 ]") == "用法 s 选项 文件"
    assert clean.length_view("... ……") == "... ……"  # no word: the line itself
    args = ["--src-in", str(zh), "--tgt-in", str(en), "--src-lang", "zh",
            "--tgt-lang", "en", "--src-out", str(tmp_path / "out.zh"),
            "--tgt-out", str(tmp_path / "out.en"), "--raw", "--filter",
            "--stats", str(tmp_path / "stats.tsv")]
    assert clean.main(args) == 0
    assert len(read_lines(tmp_path / "out.zh")) == 2  # both kept, the first 4 : 4
    # counted as jieba's tokens the first pair would be 11 : 4, over 2.5
    assert clean.drop_reason(clean.process_side(["用法：%s [选项]... [文件]"], "zh",
                                                clean.Options("zh", "en", raw=True))[0],
                             "Usage: %s [OPTION]... [FILE]", 100, 2.5) == "ratio"


def test_the_warning_has_one_prefix(tmp_path, caplog, capsys):
    counts = clean.Counter({"empty": 0, "too_long": 0, "ratio": 3})
    lines = clean.warn_heavy_rules(counts, 10, Path("train.zh"), {"ratio": "r"})
    assert lines[0].startswith("train.zh: cleaning rule ratio dropped 3 of 10")
    assert "warning: warning:" not in capsys.readouterr().err


def test_word_counts_would_have_dropped_the_fixture():
    """The control: counted in Moses tokens, Chinese clauses are one 'word' each."""
    zh = [clean.tokenize(line, "zh") for line in read_lines(FIXTURE / "train.zh")]
    en = read_lines(FIXTURE / "train.en")
    dropped = sum(clean.drop_reason(a, b, 100, 2.5) is not None
                  for a, b in zip(zh, en, strict=True))
    assert dropped > 0.5 * len(zh)
    # and so a clause is one token: far fewer than the English side's words
    assert sum(len(line.split()) for line in zh) < 0.25 * sum(
        len(line.split()) for line in en)
    assert not any(clean.drop_reason(a, b, 100, 2.5, (True, False))
                   for a, b in zip(zh, en, strict=True))


def test_a_rule_that_drops_over_5_percent_warns(tmp_path, caplog):
    rows = [["x"] * 3] * 10
    counts = clean.Counter({"empty": 0, "too_long": 1, "ratio": 2})
    notes = {"empty": "e", "too_long": "t", "ratio": "longer side over 2.5 x"}
    lines = clean.warn_heavy_rules(counts, len(rows) * 2, Path("train.zh"), notes)
    assert len(lines) == 1 and "cleaning rule ratio dropped 2 of 20 pairs" in lines[0]
    assert "(10.0 %, more than 5%)" in lines[0]


def test_bleu_signature_says_tok_zh(tmp_path):
    ref = read_lines(FIXTURE / "test.zh")
    hyp = [line[:-2] + "。" for line in ref]  # one character short each
    for name, lines in (("hyp", hyp), ("ref", ref)):
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "eval.json"
    assert bleu.main(["--system", "m", "--testset", "test", "--lang", "zh",
                      "--hyp", str(tmp_path / "hyp"), "--ref", str(tmp_path / "ref"),
                      "--hyp-tok", str(tmp_path / "hyp"),
                      "--ref-tok", str(tmp_path / "ref"), "--out", str(out)]) == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    assert "tok:zh" in result["bleu"]["signature"]
    assert 30 < result["bleu"]["score"] < 100  # 13a would see one word per line
    assert "nc:6" in result["chrf"]["signature"] and result["chrf"]["score"] > 50


@pytest.mark.parametrize("lang, tokenizer", [("zh", "zh"), ("en", "13a"),
                                             ("de", "13a"), ("th", "char"),
                                             ("bo", "char"), ("dz", "char"),
                                             (None, "13a")])
def test_bleu_tokenizer_of_the_target_language(lang, tokenizer):
    assert bleu.bleu_tokenizer(lang) == (tokenizer, None)


def test_japanese_without_mecab_is_noted():
    tokenizer, note = bleu.bleu_tokenizer("ja")
    assert tokenizer in ("ja-mecab", "char")
    assert (note is None) == (tokenizer == "ja-mecab")


def test_pieces_in_subword_nmt_form():
    model = sentencepiece.SentencePieceProcessor(
        model_proto=spm.train(["hello world", "hello there"] * 20, "bpe", 20, 1))
    out = spm.encode(model, "hello world X")
    assert out.replace("@@ ", "").split() == ["hello", "world", "X"]
    assert "@@ " in out  # 20 pieces cannot hold both words whole
    assert spm.decode("he@@ llo X world") == "hello X world"


def test_a_model_that_normalises_keeps_one_word_of_pieces_per_word():
    """nmt_nfkc turns '¨' into a space and a combining mark, which split the
    word in two pieces of SentencePiece's own; the subword file keeps the
    word count of the word-level file (every later stage pairs the two)."""
    data = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(["die feuerwehr kommt a¨b ＡＢ"] * 30), model_writer=data,
        vocab_size=30, model_type="bpe", normalization_rule_name="nmt_nfkc",
        minloglevel=2)
    model = sentencepiece.SentencePieceProcessor(model_proto=data.getvalue())
    # SentencePiece itself starts a second word inside it
    assert sum(p.startswith("▁") for p in model.encode("a¨b", out_type=str)) == 2
    line = "kommt a¨b ＡＢ feuerwehr"
    out = spm.encode(model, line).replace("@@ ", "").split()
    assert len(out) == len(line.split())
    assert out[2] == "AB"  # the model's normalisation applies


def test_detokenize_joins_the_segmenters_spaces(tmp_path):
    (tmp_path / "in").write_text("我们 去 学校 。\nI use Python 3 .\n",
                                 encoding="utf-8")
    detokenize.main(["--lang", "zh", "--sentencepiece", "--in", str(tmp_path / "in"),
                     "--out", str(tmp_path / "out")])
    assert read_lines(tmp_path / "out") == ["我们去学校。", "I use Python 3 ."]


def test_vocab_size_too_large_is_one_line_naming_the_key(tmp_path):
    with pytest.raises(InputError) as err:
        spm.train(["a b c", "a b d"] * 20, "bpe", 5000, 1)
    message = str(err.value)
    assert "\n" not in message and "bpe.vocab_size" in message
    assert "at most" in message


def test_the_workflow_s_vocab_size_refusal_names_the_dataset_s_key(tmp_path):
    """The spm-learn job of a dataset names its key, not a bare bpe.vocab_size
    that a config of several datasets holds several times."""
    from phrasenmt.workflow import corpus

    config = {"seed": 1, "datasets": {"my_zh_en": {
        "src": "zh", "tgt": "en", "bpe": {"model_type": "bpe", "vocab_size": 5000}}}}
    args = shlex.split(corpus.spm_learn_args(config, "my_zh_en", "en"))
    (tmp_path / "train.en").write_text("a b c\na b d\n" * 20, encoding="utf-8")
    with pytest.raises(InputError) as err:
        bpe.main(["spm-learn", "--in", str(tmp_path / "train.en"), "--model",
                  str(tmp_path / "m.model"), *args])
    assert "(config datasets.my_zh_en.bpe.vocab_size; lower it" in str(err.value)
    assert not (tmp_path / "m.model").exists()


def test_vocab_size_too_small_is_one_line_naming_the_key():
    with pytest.raises(InputError) as err:
        spm.train(["abcdefghijklmnop qrstuvwxyz"] * 20, "unigram", 10, 1)
    assert "\n" not in str(err.value) and "raise it to at least" in str(err.value)


def test_a_file_that_is_not_a_model_is_refused(tmp_path):
    (tmp_path / "codes").write_text("#version: 0.2\na b\n", encoding="utf-8")
    with pytest.raises(InputError, match="not a SentencePiece model file"):
        spm.load(tmp_path / "codes")


def test_a_model_of_another_script_is_warned_of(tmp_path, capsys):
    """A SentencePiece model learned on Chinese applied to English text knows
    none of its letters: each word came out whole, with no word said."""
    model = tmp_path / "zh.model"
    model.write_bytes(spm.train(["我们 去 学校 。", "他们 在 家 。"] * 20, "bpe", 20, 1))
    (tmp_path / "en").write_text("we go to school .\n", encoding="utf-8")
    (tmp_path / "zh").write_text("我们 在 学校 。\n", encoding="utf-8")
    for text in ("en", "zh"):
        bpe.main(["apply", "--sentencepiece", str(model), "--in",
                  str(tmp_path / text), "--out", str(tmp_path / f"{text}.out")])
    assert read_lines(tmp_path / "en.out") == ["we go to school ."]
    warnings = [line for line in capsys.readouterr().err.splitlines()
                if line.startswith("warning:")]
    assert warnings == [(
        f"warning: {tmp_path}/en: 100.0% of its characters (13 of 13; more than 10%) "
        f"are ones {model} never saw: the model was learned on another language, "
        "script or corpus, and it leaves them whole as its unknown piece")]


def test_the_unknown_character_count_reads_a_sample_of_a_long_file(tmp_path, capsys,
                                                                  monkeypatch):
    model = tmp_path / "zh.model"
    model.write_bytes(spm.train(["我们 去 学校 。", "他们 在 家 。"] * 20, "bpe", 20, 1))
    monkeypatch.setattr(bpe, "UNKNOWN_SAMPLE_LINES", 2)
    (tmp_path / "mixed").write_text("我们 在 学校 。\n他们 去 家 。\nwe go\nto school\n",
                                    encoding="utf-8")
    (tmp_path / "foreign").write_text("we go\nto school\n我们 在 学校 。\n",
                                      encoding="utf-8")
    for text in ("mixed", "foreign"):
        bpe.main(["apply", "--sentencepiece", str(model), "--in",
                  str(tmp_path / text), "--out", str(tmp_path / f"{text}.out")])
    assert len(read_lines(tmp_path / "mixed.out")) == 4  # every line segmented
    warnings = [line for line in capsys.readouterr().err.splitlines()
                if line.startswith("warning:")]
    assert len(warnings) == 1 and warnings[0].startswith(
        f"warning: {tmp_path}/foreign: 100.0% of its characters in its first 2 lines "
        "(12 of 12;")


def test_the_dev_install_has_every_segmenter():
    assert words.segmenter_missing("en") is None
    for lang in ("ja", "th", "lo", "km", "my"):  # the dev install has their segmenters
        assert words.segmenter_missing(lang) is None
    assert words.word_segmenter("de")("a  b ") == "a b"
    assert words.line_length("我们 去", True) == 3
    assert words.line_length("我们 去", False) == 2


@pytest.mark.parametrize("bpe_section, message", [
    ({"backend": "spm"},
     "bpe.backend: 'spm' is not one of subword-nmt, sentencepiece"),
    ({"backend": "sentencepiece", "merges": 300},
     "bpe.merges: not read with backend sentencepiece"),
    ({"vocab_size": 300}, "bpe.vocab_size: not read with backend subword-nmt"),
    ({"backend": "sentencepiece", "vocab_size": 2},
     "bpe.vocab_size: 2 is less than the minimum of 8"),
])
def test_bad_bpe_config_names_the_key(bpe_section, message):
    import copy

    import yaml

    from phrasenmt.config import validate_config

    config = yaml.safe_load((FIXTURE.parent / "config.yaml").read_text("utf-8"))
    config = copy.deepcopy(config)
    name = next(iter(config["datasets"]))
    config["datasets"][name]["bpe"] = bpe_section
    with pytest.raises(InputError) as err:
        validate_config(config, None)
    assert str(err.value) == f"datasets.{name}.{message}"


def _without(monkeypatch, module: str) -> None:
    """`import module` raises ImportError from here on, as if not installed."""
    import builtins

    real_import = builtins.__import__

    def without(name, *args, **kwargs):
        if name == module:
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without)


def test_raw_text_without_its_segmenter_installed_is_refused_at_start_up(monkeypatch):
    from phrasenmt.experiment import _check_word_segmenter

    ds = {"src": "my", "tgt": "en", "tokenize": True,
          "bpe": {"backend": "sentencepiece"}}
    _check_word_segmenter("datasets.x", ds)  # mmdt-tokenizer cuts Burmese
    _without(monkeypatch, "mmdt_tokenizer")
    with pytest.raises(InputError, match=(
            r"^datasets.x.src: 'my' text needs the mmdt-tokenizer word segmenter: "
            r"pip install mmdt-tokenizer \(or pip install 'phrasenmt\[my\]'\)$")):
        _check_word_segmenter("datasets.x", ds)
    _check_word_segmenter("datasets.x", {**ds, "tokenize": False})  # pre-segmented
    _check_word_segmenter("datasets.x", {**ds, "src": "ja"})  # MeCab cuts Japanese


def test_every_language_written_without_spaces_has_a_segmenter():
    from phrasenmt.text.scripts import SEGMENTERS, UNSEGMENTED_LANGUAGES

    assert set(words.SEGMENTABLE) == set(UNSEGMENTED_LANGUAGES)
    for code, tool in words.SEGMENTABLE.items():
        assert SEGMENTERS[UNSEGMENTED_LANGUAGES[code]] == tool


def test_a_missing_mecab_is_named_with_its_install_line(monkeypatch):
    _without(monkeypatch, "MeCab")
    assert words.segmenter_missing("ja") == (
        "'ja' text needs the MeCab word segmenter: pip install 'sacrebleu[ja]' (MeCab "
        "and its IPA dictionary, as sacreBLEU's ja-mecab uses them; or pip install "
        "'phrasenmt[ja]')")


@pytest.mark.parametrize("lang, module, install", [
    ("th", "pythainlp", "pip install pythainlp (or pip install 'phrasenmt[th]')"),
    ("lo", "laonlp", "pip install laonlp (or pip install 'phrasenmt[lo]')"),
    ("km", "khmernltk", "pip install khmer-nltk (or pip install 'phrasenmt[km]')"),
    ("my", "mmdt_tokenizer",
     "pip install mmdt-tokenizer (or pip install 'phrasenmt[my]')"),
])
def test_a_missing_script_run_segmenter_is_named(monkeypatch, lang, module, install):
    _without(monkeypatch, module)
    assert words.segmenter_missing(lang).endswith(f"word segmenter: {install}")


def _spm_config(**bpe) -> dict:
    """tests/data/config.yaml with its first dataset on SentencePiece, validated."""
    import yaml

    from phrasenmt.config import validate_config

    config = yaml.safe_load((FIXTURE.parent / "config.yaml").read_text("utf-8"))
    name = next(iter(config["datasets"]))
    config["datasets"][name]["bpe"] = {"backend": "sentencepiece", **bpe}
    return validate_config(config, None)


@pytest.mark.parametrize("tgt, coverage", [
    ("zh", "0.9995"), ("ja", "0.9995"), ("th", "1.0"), ("lo", "1.0"), ("km", "1.0"),
    ("my", "1.0"), ("ru", "1.0")])
def test_sentencepiece_coverage_is_below_one_only_for_thousands_of_characters(tgt, coverage):
    # SentencePiece's advice: 0.9995 for Chinese and Japanese; an alphabet of
    # about a hundred letters and marks (Thai, Lao, ...) keeps every one
    from phrasenmt.workflow import corpus

    config = _spm_config(vocab_size=500)
    name = next(iter(config["datasets"]))
    config["datasets"][name]["tgt"] = tgt
    assert corpus.spm_learn_args(config, name, "joint").endswith(
        f"--character-coverage {coverage}")
    assert corpus.spm_learn_args(config, name, "en").endswith("--character-coverage 1.0")


def test_workflow_runs_sentencepiece_where_configured():
    from types import SimpleNamespace

    from phrasenmt.workflow import base, corpus

    config = _spm_config(vocab_size=500)
    name = next(iter(config["datasets"]))
    assert corpus.subword_model(config, name, "en") == {
        "model": f"results/{name}/bpe/spm.joint.model"}
    model = SimpleNamespace(model="m.model", keys=lambda: ["model"])
    assert corpus.subword_apply_args(config, name, model) == "--sentencepiece m.model"
    assert corpus.spm_learn_args(config, name, "joint") == (
        f"--config-key datasets.{name}.bpe.vocab_size --model-type bpe --vocab-size "
        "500 --seed 1 --character-coverage 1.0")
    config["datasets"][name]["tokenize"] = True
    assert base.clean_args(config, name, "test") == "--raw"
    assert corpus.detokenize_args(config, name).endswith("--sentencepiece")
    config["datasets"][name]["bpe"]["joint"] = False
    assert corpus.subword_model(config, name, "de") == {
        "model": f"results/{name}/bpe/spm.de.model"}
    config["datasets"][name]["bpe"]["backend"] = "subword-nmt"
    assert set(corpus.subword_model(config, name, "de")) == {"codes", "vocab"}
    assert not corpus.detokenize_args(config, name).endswith("--sentencepiece")


def test_start_up_warns_about_an_unsegmented_file_given_as_tokenized():
    from phrasenmt.workflow import base

    ds = {"source": "local", "src": "zh", "tgt": "en", "tokenize": False,
          "bpe": {"backend": "subword-nmt"},
          "local": {"train": {"src": str(FIXTURE / "train.zh"),
                              "tgt": str(FIXTURE / "train.en")}}}
    config = {"datasets": {"x": ds}}
    [line] = base.unsegmented_language_warnings(config)
    assert line.startswith("warning: config datasets.x.src (") and "Han" in line
    ds["tokenize"] = True  # Moses on zh: the language code says it
    [line] = base.unsegmented_language_warnings(config)
    assert "or set bpe.backend: sentencepiece" in line
    ds["bpe"]["backend"] = "sentencepiece"  # jieba cuts the words
    assert base.unsegmented_language_warnings(config) == []


def test_start_up_warns_about_raw_tibetan_only_where_nothing_cuts_its_syllables(tmp_path):
    from phrasenmt.workflow import base

    train = tmp_path / "train.bo"
    train.write_text("ང་ཚོ་སློབ་གྲྭར་འགྲོ་གི་ཡིན། བཀྲ་ཤིས་བདེ་ལེགས།\n" * 20, encoding="utf-8")
    ds = {"source": "local", "src": "bo", "tgt": "en", "tokenize": True,
          "bpe": {"backend": "subword-nmt"},
          "local": {"train": {"src": str(train), "tgt": str(FIXTURE / "train.en")}}}
    config = {"datasets": {"x": ds}}
    assert base.unsegmented_language_warnings(config) == []  # Moses cuts at each tsheg
    ds["src"] = "xx"  # a code not known to lack spaces: the script still tells
    assert base.unsegmented_language_warnings(config) == []
    ds["tokenize"] = False  # given as tokenized: BPE would see clauses
    [line] = base.unsegmented_language_warnings(config)
    assert "Tibetan" in line and "e.g. tsheg syllables for Tibetan" in line


def test_the_run_repeats_the_warnings_its_stages_logged(tmp_path):
    """A stage's stderr goes to its log; the warnings of this run's logs, and
    only those, come back on the console at its end (Snakefile onsuccess)."""
    import os

    from phrasenmt.workflow import base

    old = tmp_path / "clean" / "old.train.log"
    new = tmp_path / "clean" / "new.train.log"
    old.parent.mkdir()
    old.write_text("warning: from an earlier run\n", encoding="utf-8")
    os.utime(old, (1_000, 1_000))
    new.write_text("kept 9 of 10 pairs\nwarning: train.zh: cleaning rule ratio dropped\n",
                   encoding="utf-8")
    since = new.stat().st_mtime - 1
    assert base.log_warnings(tmp_path, since) == [
        f"warning: train.zh: cleaning rule ratio dropped ({new})"]
    assert base.log_warnings(tmp_path / "missing", since) == []


def test_a_warning_under_a_progress_bar_starts_its_own_line(tmp_path, monkeypatch):
    """A training log holds the bar's redraws; a warning logged while the bar
    is drawn must still start a line, or the end-of-run summary misses it."""
    import sys

    from tqdm import tqdm

    from phrasenmt.log import get_logger
    from phrasenmt.workflow import base

    log = tmp_path / "train" / "run.log"
    log.parent.mkdir()
    with open(log, "w", encoding="utf-8") as fh:
        monkeypatch.setattr(sys, "stderr", fh)
        with tqdm(total=10, file=fh, mininterval=0) as bar:
            bar.update(3)
            bar.set_postfix_str("100 5.1 4.9")
            get_logger("phrasenmt.training.trainer").warning("inside its warm-up")
            bar.update(1)
    assert base.log_warnings(tmp_path, 0) == [f"warning: inside its warm-up ({log})"]


def test_japanese_is_cut_into_mecabs_words_and_joined_back(tmp_path):
    """Raw Japanese for SentencePiece: MeCab's words (sacreBLEU's ja-mecab
    words), counted as words by cleaning, and joined back after decoding."""
    cut = words.word_segmenter("ja")
    assert cut("私は学校へ行きます。") == "私 は 学校 へ 行き ます 。"
    assert words.join_unsegmented(cut("私は学校へ行きます。")) == "私は学校へ行きます。"
    ja, en = tmp_path / "in.ja", tmp_path / "in.en"
    ja.write_text("私は学校へ行きます。\n使い方: %s [オプション]... [ファイル]\n", encoding="utf-8")
    en.write_text("I go to school.\nUsage: %s [OPTION]... [FILE]\n", encoding="utf-8")
    args = ["--src-in", str(ja), "--tgt-in", str(en), "--src-lang", "ja",
            "--tgt-lang", "en", "--src-out", str(tmp_path / "out.ja"),
            "--tgt-out", str(tmp_path / "out.en"), "--raw", "--filter",
            "--stats", str(tmp_path / "stats.tsv")]
    assert clean.main(args) == 0
    assert read_lines(tmp_path / "out.ja")[0] == "私 は 学校 へ 行き ます 。"
    ratio = read_lines(tmp_path / "stats.tsv")[3].split("\t")
    assert ratio[1] == "0" and "(ja: words, en: words; the ja side divided by" in ratio[3]


def test_the_start_up_warning_offers_sentencepiece_with_mecab_for_japanese():
    from phrasenmt.text.scripts import language_warning

    assert language_warning("ja", "config datasets.x.src").endswith(
        "or set bpe.backend: sentencepiece (MeCab's words)")
    assert language_warning("zh", "w").endswith("sentencepiece (jieba's words)")
    assert language_warning("th", "w").endswith("sentencepiece (PyThaiNLP's words)")
    assert language_warning("my", "w").endswith("sentencepiece (mmdt-tokenizer's words)")
    # Moses splits Tibetan at every tsheg: syllables, not clauses
    assert language_warning("bo", "w") is None and language_warning("dz", "w") is None


@pytest.mark.parametrize("lang, raw, cut", [
    # PyThaiNLP's newmm: "cannot open the file, please try again"
    ("th", "ไม่สามารถเปิดไฟล์ได้ กรุณาลองอีกครั้ง",
     "ไม่ สามารถ เปิด ไฟล์ ได้ กรุณา ลอง อีกครั้ง"),
    # khmer-nltk: a zero-width space is a break; "%.*s" and "libpam" stay whole
    ("km", "កម្មវិធី\u200bត្រូវ\u200bតែ\u200bហៅ libpam ម្ដង\u200bទៀត %.*s",
     "កម្មវិធី ត្រូវ តែ ហៅ libpam ម្ដង ទៀត %.*s"),
    # LaoNLP: "%s" and the full stop after the Lao run are kept as they were
    ("lo", "ສະບາຍດີ ທ່ານ %s ບໍ່ສາມາດເປີດໄດ້.", "ສະບາຍດີ ທ່ານ %s ບໍ່ສາມາດ ເປີດ ໄດ້ ."),
    # LaoNLP cuts CLDR's "Acehnese" as ແອ|ັກ|ຊີເນ|ັສ; no word starts with a vowel sign
    ("lo", "ແອັກຊີເນັສ", "ແອັກ ຊີເນັສ"),
    # CLDR's "Gulf Standard Time": a zero-width space before the cancellation mark is
    # no break (a mark cannot begin a word); the others are
    ("lo", "ເວ\u200bລາ\u200bກູ\u200bລ\u200b\u0eccຟ", "ເວ ລາ ກູ ລ\u0eccຟ"),
    # Tibetan and Dzongkha: a syllable with its tsheg, a shad on its own, the
    # space after the shad kept; "%s" and the Tibetan digits stay whole
    ("bo", "ང་ཚོ་སློབ་གྲྭར་འགྲོ་གི་ཡིན། བཀྲ་ཤིས་བདེ་ལེགས། %s ༢༠༢༤",
     "ང་ ཚོ་ སློབ་ གྲྭར་ འགྲོ་ གི་ ཡིན ། བཀྲ་ ཤིས་ བདེ་ ལེགས ། %s ༢༠༢༤"),
    ("dz", "འཛམ་གླིང༌", "འཛམ་ གླིང༌"),
    # mmdt-tokenizer (GTK's "a boolean that says whether the list is closed"):
    # the postpositions are words of their own, the comma it drops is kept as
    # one, and "GtkPackType" between the runs stays whole
    ("my", "စာရင်းမှတ် ပိတ်၊ မပိတ်ကို ညွှန်ပြတဲ့ GtkPackType တခု",
     "စာရင်းမှတ် ပိတ် ၊ မပိတ် ကို ညွှန်ပြ တဲ့ GtkPackType တခု"),
])
def test_thai_lao_khmer_and_burmese_are_cut_only_within_their_script(lang, raw, cut):
    words_of = words.word_segmenter(lang)
    assert words_of(raw) == cut
    joined = words.join_unsegmented(cut)
    assert joined.replace(" ", "") == raw.replace(" ", "").replace("\u200b", "")


def test_a_tibetan_translation_keeps_the_space_after_its_shad():
    # SentencePiece's path: the syllables joined, the writer's space after ། kept
    assert words.join_unsegmented("ང་ ཚོ་ ཡིན ། བཀྲ་ ཤིས་ ། %s") == "ང་ཚོ་ཡིན། བཀྲ་ཤིས་། %s"
    # Moses's path: the tsheg it split off joins both syllables again
    assert clean.detokenize(["ང ་ ཚོ ་ ཡིན ། བཀྲ ་ ཤིས ་ བདེ ་ ལེགས །"], "bo") == [
        "ང་ཚོ་ཡིན། བཀྲ་ཤིས་བདེ་ལེགས།"]


@pytest.mark.parametrize("words_of_tool, text, cut", [
    # a dropped comma is a word of its own; a dropped character before a word
    (["ဖမ်းကိုင်"], "ဖမ်းကိုင်၊", ["ဖမ်းကိုင်", "၊"]),
    (["က", "ခ"], "က၊ခ", ["က", "၊", "ခ"]),
    # the tool reorders the dot below and the asat: the text keeps its order
    (["ဖွင\u103a\u1037", "ပါ"], "ဖွင\u1037\u103aပါ", ["ဖွင\u1037\u103a", "ပါ"]),
    # a word that is not in the text adds no cut
    (["xyz", "ခ"], "ကခ", ["က", "ခ"]),
    ([], "ကခ", ["ကခ"]),
    # a cut inside a grapheme cluster (LaoNLP's ແອ|ັກ: the vowel sign cut from
    # its consonant) is undone
    (["ແອ", "ັກ", "ຊີເນ", "ັສ"], "ແອັກຊີເນັສ", ["ແອັກ", "ຊີເນັສ"]),
    (["ກ", "\u0eb1"], "ກ\u0eb1", ["ກ\u0eb1"]),
])
def test_words_are_slices_of_the_text_whatever_the_tool_did(words_of_tool, text, cut):
    assert words._slices(text, words_of_tool) == cut
    assert "".join(words._slices(text, words_of_tool)) == text


def test_a_khmer_reference_loses_its_zero_width_spaces(tmp_path):
    """Raw Khmer references for BLEU: the zero-width spaces the segmenter read
    as breaks are dropped, as no decoded translation writes them."""
    en, km = tmp_path / "in.en", tmp_path / "in.km"
    en.write_text("Sorry, your time is up!\n", encoding="utf-8")
    km.write_text("សូម\u200bទោស អ្នក\u200bអស់\u200bពេល\u200bហើយ !\n", encoding="utf-8")
    args = ["--src-in", str(en), "--tgt-in", str(km), "--src-lang", "en",
            "--tgt-lang", "km", "--src-out", str(tmp_path / "out.en"),
            "--tgt-out", str(tmp_path / "out.km"), "--ref-out", str(tmp_path / "ref.km"),
            "--raw", "--stats", str(tmp_path / "stats.tsv")]
    assert clean.main(args) == 0
    assert read_lines(tmp_path / "out.km") == ["សូម ទោស អ្នក អស់ ពេល ហើយ !"]
    assert read_lines(tmp_path / "ref.km") == ["សូមទោស អ្នកអស់ពេលហើយ !"]


def _cut_model(tmp_path: Path, keep_spec: bool) -> Path:
    """A trained model cut after half its pieces, as a file cut short at a piece
    boundary (the trainer and normalizer specs come after the pieces), or with
    its specs kept and half the pieces gone."""
    from sentencepiece import sentencepiece_model_pb2

    words_ = ["alpha beta gamma", "delta epsilon zeta", "eta theta iota"] * 20
    proto = sentencepiece_model_pb2.ModelProto()
    proto.ParseFromString(spm.train(words_, "bpe", 40, 1))
    del proto.pieces[len(proto.pieces) // 2:]
    if not keep_spec:
        proto.ClearField("trainer_spec")
        proto.ClearField("normalizer_spec")
    path = tmp_path / "cut.model"
    path.write_bytes(proto.SerializeToString())
    return path


def test_a_model_cut_short_is_refused(tmp_path):
    import sentencepiece

    path = _cut_model(tmp_path, keep_spec=False)
    assert sentencepiece.SentencePieceProcessor(model_file=str(path)).GetPieceSize()
    with pytest.raises(InputError, match="looks truncated: it has 20 pieces and no "
                                         "trainer spec"):
        spm.load(path)


def test_a_model_with_fewer_pieces_than_its_vocab_size_is_refused(tmp_path):
    with pytest.raises(InputError, match="looks truncated: it has 20 pieces, but its "
                                         "trainer spec says vocab_size 40"):
        spm.load(_cut_model(tmp_path, keep_spec=True))


def test_a_whole_model_loads(tmp_path):
    path = tmp_path / "whole.model"
    path.write_bytes(spm.train(["alpha beta gamma", "delta epsilon"] * 20, "bpe", 30, 1))
    assert spm.load(path).GetPieceSize() == 30


def test_unigram_pieces_are_no_clauses_and_join_back_to_the_words(segmented, tmp_path):
    """The unigram model type on the same fixture: pieces per line near the
    target's, and every line's pieces join back to its words."""
    model = tmp_path / "unigram.model"
    bpe.main(["spm-learn", "--in", str(segmented / "train.zh"),
              str(segmented / "train.en"), "--model", str(model), "--model-type",
              "unigram", "--vocab-size", "120", "--seed", "7",
              "--character-coverage", "0.9995"])
    for lang in ("zh", "en"):
        bpe.main(["apply", "--sentencepiece", str(model), "--in",
                  str(segmented / f"train.{lang}"), "--out",
                  str(tmp_path / f"train.uni.{lang}")])
        pieces = read_lines(tmp_path / f"train.uni.{lang}")
        assert [bpe.remove_bpe(p) for p in pieces] == read_lines(
            segmented / f"train.{lang}")
    src, tgt = (_mean_tokens(tmp_path / f"train.uni.{lang}") for lang in ("zh", "en"))
    assert tgt / 2 <= src <= 2 * tgt, (src, tgt)


def test_the_cleaning_table_shows_each_rule_s_count_and_share(tmp_path):
    """report.cleaning on the fixture's own report: one row per rule, the
    counts and shares of data.clean's TSV, the title naming the dataset."""
    from phrasenmt.report import cleaning

    rows = _clean(tmp_path, "--raw")
    out = tmp_path / "cleaning.md"
    assert cleaning.main(["--stats", str(tmp_path / "train.clean.tsv"),
                          "--dataset", "zh_en", "--out", str(out)]) == 0
    table = read_lines(out)
    assert table[0].startswith("Cleaning of the training pairs of zh_en")
    body = [line.split(" | ") for line in table[4:]]
    assert len(body) == len(rows) - 1  # the TSV's header is no row
    for (rule, pairs, pct, what), cells in zip(rows[1:], body, strict=True):
        assert cells[0] == f"| {rule}" and cells[1] == f"{int(pairs):,}"
        assert cells[2] == f"{float(pct):.2f}" and cells[3] == f"{what} |"
