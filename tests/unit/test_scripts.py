"""Text of any script: unsegmented scripts are noticed, punctuation of every script
survives tokenization and detokenization, bidirectional controls never become
tokens."""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from phrasenmt import bpe
from phrasenmt.align import __main__ as align_cli
from phrasenmt.data import clean
from phrasenmt.io import BIDI_CONTROLS, read_lines
from phrasenmt.text.scripts import (
    detect_unsegmented,
    distinct_scripts,
    script_mix,
    unsegmented_warning,
)
from phrasenmt.workflow import base as wf
from tests import forkrun

# --- the script a language is written in -------------------------------------

@pytest.mark.parametrize("lang, other, distinct", [
    ("en", "he", True), ("heb", "eng", True), ("ru", "ja", True), ("ko", "zh", True),
    ("en", "de", False),  # one script
    ("zh", "ja", False),  # Han in both
    ("sr", "en", False),  # Serbian: Cyrillic and Latin, not in the table
    ("xx", "he", False),  # a code the table does not know
])
def test_scripts_are_compared_where_both_are_known_and_differ(lang, other, distinct):
    assert distinct_scripts(lang, other) is distinct


def test_script_mix_counts_the_two_scripts_among_all_letters():
    mix = script_mix(["שלום Sarah, 42!", "Hello world"], "he", "en")
    assert (mix.letters, mix.own, mix.other) == (19, 4, 15)
    assert mix.share(mix.other) == 15 / 19
    assert not mix.looks_other()  # under 50 letters of the two scripts: not judged
    assert mix.__class__(200, 20, 180).looks_other()
    assert not mix.__class__(200, 120, 80).looks_other()
    assert script_mix(["Hallo Welt"], "de", "en") is None


# --- unsegmented scripts ------------------------------------------------------

CHINESE = ["今天天气很好，我们去公园散步吧。", "我昨天在图书馆看了一本很有意思的书。",
           "他说明天会下雨，所以我们应该带伞。", "这个问题比我们想象的要复杂得多。"]
CHINESE_SEGMENTED = ["今天 天气 很 好 ， 我们 去 公园 散步 吧 。",
                     "我 昨天 在 图书馆 看 了 一 本 很 有意思 的 书 。",
                     "他 说 明天 会 下雨 ， 所以 我们 应该 带 伞 。",
                     "这个 问题 比 我们 想象 的 要 复杂 得 多 。"]
JAPANESE = ["今日は天気がとても良いので、公園に散歩に行きましょう。",
            "昨日図書館でとても面白い本を読みました。",
            "明日は雨が降るそうなので、傘を持って行きます。",
            "この問題は私たちが考えていたよりずっと難しい。"]
ENGLISH = ["The weather is nice today, so let us go for a walk.",
           "Yesterday I read a very interesting book in the library.",
           "He says it will rain tomorrow, so we should take an umbrella.",
           "This problem is much harder than we thought."]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("lines, script", [(CHINESE, "Han"),
                                           (JAPANESE, "Han and Kana")])
def test_unsegmented_chinese_and_japanese_are_noticed(lines, script):
    found = detect_unsegmented(lines)
    assert found is not None and found.script == script
    assert found.share > 0.9 and found.mean_length > 10


# Tibetan: a tsheg (་) after every syllable, a space only after a shad (།)
TIBETAN = ["ང་ཚོ་སློབ་གྲྭར་འགྲོ་གི་ཡིན། བཀྲ་ཤིས་བདེ་ལེགས།",
           "དེ་རིང་གནམ་གཤིས་ཡག་པོ་འདུག། ང་ཚོ་གླིང་ཀར་འགྲོ།"]


def test_unsegmented_tibetan_is_noticed_unless_moses_cuts_its_syllables():
    found = detect_unsegmented(TIBETAN)
    assert found is not None and (found.script, found.language) == ("Tibetan", "Tibetan")
    assert "e.g. tsheg syllables for Tibetan" in found.advice()
    # Moses splits off every punctuation mark, the tsheg among them: syllables
    assert detect_unsegmented(TIBETAN, moses=True) is None
    assert unsegmented_warning("x", TIBETAN, "BPE", moses=True) is None
    # Chinese stays clause-sized when Moses cuts it at its commas
    assert detect_unsegmented(CHINESE, moses=True) is not None


@pytest.mark.parametrize("lines", [ENGLISH, CHINESE_SEGMENTED])
def test_english_and_segmented_chinese_are_not(lines):
    assert detect_unsegmented(lines) is None
    assert unsegmented_warning("x", lines, "BPE") is None


def _clean(tmp_path: Path, src: list[str], lang: str, capsys) -> str:
    _write(tmp_path / f"train.{lang}", src)
    _write(tmp_path / "train.en", ENGLISH)
    clean.main(["--src-in", str(tmp_path / f"train.{lang}"),
                "--tgt-in", str(tmp_path / "train.en"), "--src-lang", lang,
                "--tgt-lang", "en", "--src-out", str(tmp_path / "out/x.src"),
                "--tgt-out", str(tmp_path / "out/x.tgt"),
                "--stats", str(tmp_path / "out/x.tsv")])
    return capsys.readouterr().err


@pytest.mark.parametrize("lines, lang, tool", [(CHINESE, "zh", "jieba"),
                                               (JAPANESE, "ja", "MeCab")])
def test_clean_warns_once_per_unsegmented_file(tmp_path, capsys, lines, lang, tool):
    err = _clean(tmp_path, lines, lang, capsys)
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1, err
    assert warnings[0].startswith(f"warning: {tmp_path / f'train.{lang}'}: 100% of "
                                  "its letters are Han")
    assert "looks unsegmented" in warnings[0] and tool in warnings[0]
    assert (tmp_path / "out/x.src").is_file()  # a warning, not an error


def test_clean_is_silent_on_segmented_chinese(tmp_path, capsys):
    assert "warning" not in _clean(tmp_path, CHINESE_SEGMENTED, "zh", capsys)


def test_clean_is_silent_on_tibetan_that_moses_cuts_into_syllables(tmp_path, capsys):
    assert "warning" not in _clean(tmp_path, TIBETAN * 2, "bo", capsys)
    first = (tmp_path / "out/x.src").read_text("utf-8").splitlines()[0]
    assert first.startswith("ང ་ ཚོ ་ སློབ ་")  # Moses splits off every tsheg


def test_bpe_learn_and_align_warn_on_unsegmented_text(tmp_path, capsys):
    zh = _write(tmp_path / "train.zh", CHINESE * 3)
    en = _write(tmp_path / "train.en", ENGLISH * 3)
    bpe.main(["learn", "--src", str(zh), "--tgt", str(en), "--merges", "10",
              "--codes", str(tmp_path / "codes")])
    err = capsys.readouterr().err
    assert err.count("warning:") == 1 and f"warning: {zh}: " in err
    assert "BPE (learned on whitespace-separated words)" in err
    align_cli.main(["run", "--src", str(zh), "--tgt", str(en), "--backend",
                    "fast_align", "--fwd", str(tmp_path / "fwd"),
                    "--rev", str(tmp_path / "rev"), "--seed", "1"])
    err = capsys.readouterr().err
    assert err.count("warning:") == 1 and f"warning: {zh}: " in err
    assert "word alignment will see clause-sized words" in err
    # a side cleaning cut with its segmenter (a test set of long names): no warning
    align_cli.main(["run", "--src", str(zh), "--tgt", str(en), "--backend",
                    "fast_align", "--fwd", str(tmp_path / "fwd"),
                    "--rev", str(tmp_path / "rev"), "--seed", "1",
                    "--heldout", "test", str(zh), str(en),
                    "--heldout-dir", str(tmp_path / "held"), "--segmented", "src"])
    assert "warning" not in capsys.readouterr().err


def test_alignment_is_told_which_sides_cleaning_segmented():
    from phrasenmt.workflow import corpus

    ds = {"source": "local", "tokenize": True, "src": "my", "tgt": "en",
          "bpe": {"backend": "sentencepiece"}, "local": {"test": {}}}
    config = {"datasets": {"my_en": ds}}
    assert corpus.align_split_args(config, "my_en").endswith("--segmented src")
    ds["tokenize"] = False  # the user's own words: the check stays
    assert "--segmented" not in corpus.align_split_args(config, "my_en")
    ds.update(tokenize=True, bpe={"backend": "subword-nmt"})  # Moses: the check stays
    assert "--segmented" not in corpus.align_split_args(config, "my_en")


def test_start_up_warns_on_a_language_without_spaces_to_moses_tokenize():
    ds = {"source": "local", "tokenize": True}
    config = {"datasets": {"zh_en": {**ds, "src": "zh", "tgt": "en"},
                           "ja_en_tok": {**ds, "src": "ja", "tgt": "en",
                                         "tokenize": False},
                           "de_en": {**ds, "src": "de", "tgt": "en"}}}
    lines = wf.unsegmented_language_warnings(config)
    assert len(lines) == 1
    assert lines[0].startswith("warning: config datasets.zh_en.src: 'zh' (Chinese) "
                               "puts no space between words")


# --- punctuation of every script survives tokenize + detokenize ---------------
#
# The equivalence checked: detokenize(tokenize(s)) == s for a sentence s written
# the way its script spaces punctuation (one space between words, none between
# Han characters; closing marks on the word before, opening marks on the word
# after, paired quotes around their words) made of letters and punctuation:
# Moses normalises nothing else in such text. Not covered, because the tokens
# alone cannot tell: dashes (a – b or a–b) and symbols, which come back spaced;
# an apostrophe ’ after a plural in English before a clitic-like word.

SCRIPTS = {
    "en": ("abcdefghijklmnopqrstuvwxyz", " ", ",.;:?!…", ["()", "[]", "“”", "‘’"]),
    "ar": ("ابتثجحخدذرزسشصضطظعغفقكلمنهوي", " ", "،؛؟.!:", ["()", "«»"]),
    "he": ("אבגדהוזחטיכלמנסעפצקרשת", " ", "׃,.?!", ["()", "“”", '""']),
    "ru": ("абвгдежзиклмнопрстуфхцчшщыэюя", " ", ",.;:?!…", ["()", "«»", "„“"]),
    "hi": ("कखगघचछजझटठडढणतथदधनपफबभमयरलवशसह", " ", "।॥,?!", ["()"]),
    "zh": ("的一是不了人我在有他这中大来上们到说国和地也子时道出而要于就下得可你年生",
           "", "，。？！、；：", ["（）", "「」", "『』", "“”"]),
    "hy": ("աբգդեզէըթժիլխծկհձղճմյնշոչպջռսվտրցւփքօֆ", " ", "։՝,", ["()", "«»"]),
    "ca": ("abcdeilmnorstu", " ", ",.;:?!", ["()", "«»"]),
    "te": ("కగచజటడతదనపబమయరలవసహ", " ", ",.?!", ["()"]),
}
TELUGU_SIGNS = "ాిుె్"  # vowel signs and the virama: clusters with their consonant
MATRAS = "ािीुूेैोौं"  # Devanagari vowel signs: clusters with their consonant
# Armenian emphasis, exclamation and question marks, written on a word's stressed vowel
ARMENIAN_IN_WORD = "՛՜՞"


@st.composite
def sentences(draw, lang: str) -> str:
    letters, space, closes, pairs = SCRIPTS[lang]
    letter = st.sampled_from(letters)
    if lang == "hi":
        letter = st.builds(lambda c, m: c + m, letter,
                           st.sampled_from(["", *MATRAS]))
    if lang == "hy":  # a mark inside the word, or at its end
        letter = st.builds(lambda c, m: c + m, letter,
                           st.sampled_from(["", "", "", *ARMENIAN_IN_WORD]))
    if lang == "te":  # a word may end in a virama, the next begin with a consonant
        letter = st.builds(lambda c, m: c + m, letter, st.sampled_from(["", *TELUGU_SIGNS]))
    if lang == "ca":  # the middle dot of l·l
        letter = st.one_of(letter, st.just("l·l"))
    words = draw(st.lists(st.lists(letter, min_size=1, max_size=6).map("".join),
                          min_size=1, max_size=8))
    out, i = [], 0
    while i < len(words):
        span = draw(st.integers(1, 3))
        part = space.join(words[i:i + span])
        quoted = draw(st.booleans())
        if quoted:
            pair = draw(st.sampled_from(pairs))
            part = pair[0] + part + pair[1]
            quoted = pair in ('""', "“”")
        if lang == "he" and draw(st.booleans()):  # a prefix and a maqaf, or a
            part = draw(st.sampled_from(["ו־", "ל־", *("ה" * quoted)])) + part  # quotation
        if draw(st.booleans()):
            part += draw(st.sampled_from(closes))
        out.append(part)
        i += span
    if lang == "he" and draw(st.booleans()):  # an acronym with gershayim, typed
        mark = draw(st.sampled_from(["״", '"']))  # with ״ or an ASCII "
        out.append(draw(letter) + draw(letter) + mark + draw(letter))
    if lang == "he" and draw(st.booleans()):  # an abbreviation with a geresh
        out.append(draw(letter) + draw(letter) + draw(st.sampled_from(["׳", "'"])))
    return space.join(out)


@pytest.mark.parametrize("lang", list(SCRIPTS))
@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_detokenize_undoes_tokenize_in_every_script(lang, data):
    line = data.draw(sentences(lang))
    tokens = clean.tokenize(line, lang)
    assert clean.detokenize([tokens], lang) == [line], tokens


@pytest.mark.parametrize("line, lang", [
    ("مرحبا، كيف حالك؟ بخير؛ شكرا", "ar"),
    ("نعم (مرحبا) «نعم»، لا؟", "ar"),
    ("٣٫٥ و ١٠٬٠٠٠ و ٥٠٪", "ar"),
    ("नमस्ते। कैसे हो॥", "hi"),
    ("צה״ל אמר׃ כן", "he"),
    # Hebrew typed with ASCII quotes: a quotation after a one-letter prefix or a
    # maqaf, a two-letter word before one
    ('ה"עומק" של הצבע.', "he"),
    ('ולבחור ב־"שמור צבע כאן".', "he"),
    ("יש לסיימו ב־'/'", "he"),
    ('הקובץ של "%s" נמחק', "he"),
    ("我爱你。你呢？好，走吧！「你好」他说（笑）。", "zh"),
    ("“a” and “b” end", "en"),
    ("don’t, the students’ books", "en"),
    ("l’homme dit « bonjour » !", "fr"),
    ("»Hallo« und „so“ ende", "de"),
    ("Ինչո՞ւ ես ուշացել։ Նա ասաց՝ վաղը կգա՞։ Վա՜յ, լավ է։", "hy"),
    # every elision of a line, not every other one
    ("l’homme et l’enfant d’abord, « l’ami »", "fr"),
    ("dell’anno e l’altro", "it"),
    ("don’t and can’t, ‘so’ and isn’t", "en"),
    ("O’Brien of Côte d’Ivoire and the students’ books", "en"),
    # an ellipsis that opens a line; no space after full-width punctuation
    ("...Kahjuks on su aeg otsas!", "et"),
    ("無法讀取串流：%s", "zh"),
    ("设置过滤器，如：installed（已安装）", "zh"),
    # Scottish Gaelic and Maltese elisions end before a space
    ("Roinn a’ Chuain Sèimh", "gd"),
    ("Sorbjan ta’ Fuq", "mt"),
    # a tsheg before a closing bracket, and before the next syllable
    ("དབྱིན་ཇིའི་སྐད། (ཁེ་ན་ཌ་)", "bo"),
    # Chinese and Japanese: no space beside a bracket between wide characters,
    # the writer's spaces kept beside one around Latin text
    ("東部クリー語(南部)です。", "ja"),
    ("法语(加拿大)和英语", "zh"),
    ("使用 Python (3.11) 编程", "zh"),
])
def test_detokenize_rejoins_punctuation_of_other_scripts(line, lang):
    assert clean.tokenize(line, lang) != line  # the marks were split off
    assert clean.detokenize([clean.tokenize(line, lang)], lang) == [line]


@pytest.mark.parametrize("line, lang", [
    ("చినూక్ జార్గన్", "te"), ("ചിനൂഗ് ജാർഗൺ", "ml"), ("ଚିନୁକ୍ ଜାରଗାଁନ୍", "or"),
    ("ଆର୍ଜେଣ୍ଟାଇନ୍\u200d ପେସୋ", "or")])  # a zero-width joiner ends the word
def test_a_word_after_a_virama_stays_a_word(line, lang):
    # Unicode's conjunct rule makes one cluster of "క్" + "జ"; the space between
    # two words is no cut inside a cluster
    assert clean.detokenize([clean.tokenize(line, lang)], lang) == [line]


@pytest.mark.parametrize("line, lang", [
    ("គ្រីខាងកើត\u200bប៉ែកខាងត្បូង", "km"),
    ("ສະ\u200bຫະ\u200bລັດ\u200bອາ\u200bຣັບ ເດີ\u200bແຮມ", "lo"),
])
def test_a_zero_width_space_comes_back_unspaced(line, lang):
    """Khmer and Lao writers mark word breaks with zero-width spaces; Moses makes
    each a token of its own, and detokenization puts it back without the spaces
    around it."""
    tokens = clean.tokenize(line, lang)
    assert " \u200b " in tokens  # a token of its own, a word break for BPE
    assert clean.detokenize([tokens], lang) == [line]


@pytest.mark.parametrize("line, lang, tokens", [
    # Armenian marks on a stressed vowel stay inside their word
    ("Ինչո՞ւ ես ուշացել։", "hy", "Ինչո՞ւ ես ուշացել ։"),
    ("Վա՜յ, կգա՞։", "hy", "Վա՜յ , կգա՞ ։"),
    # Catalan's l·l is one word; a middle dot between spaces stays a token
    ("La col·lecció és intel·ligent.", "ca", "La col·lecció és intel·ligent ."),
    ("Inici · Contacte", "ca", "Inici · Contacte"),
    # Uzbek's turned comma in o‘ and g‘; an opening quote after a space is a quote
    ("g‘arbiy o‘zbek tili", "uz", "g‘arbiy o‘zbek tili"),
    ("‘so’ and", "en", "‘ so ’ and"),
    # the Hebrew and Yiddish maqaf joins two words into one
    ("כל־הארץ", "he", "כל־הארץ"),
    # an ASCII apostrophe inside a word where Moses has no clitic rules for the
    # language (Catalan, Ukrainian); English and French keep Moses's rules
    ("S'ha intentat l'accés", "ca", "S'ha intentat l'accés"),
    ("м'ята", "uk", "м'ята"),
    ("don't", "en", "don 't"),
    ("l'homme", "fr", "l' homme"),
    # printf conversions, identifiers and addresses stay whole
    ("%s Dateien, %d%% fertig, %.*s und %lu", "de", "%s Dateien , %d%% fertig , %.*s und %lu"),
    ("key_id bei eu@exemplo.com, 50% of", "de", "key_id bei eu@exemplo.com , 50 % of"),
    ("%Y/%m/%d (%a) %H:%M:%S", "ja", "%Y/%m/%d ( %a ) %H:%M:%S"),
    ("an pam_item() übergeben (x)", "de", "an pam_item() übergeben ( x )"),
    # a colon between digits or letters; a run of one mark
    ("At 10:30, S:t Lucia *** done", "en", "At 10:30 , S:t Lucia *** done"),
    # a cluster of several letters (decomposed Hangul) beside such a mark
    ("\u1100\u1161 10:30", "ko", "\u1100\u1161 10:30"),
    # Occitan spaces high punctuation as French does
    ("Paquets concernits : « %s »", "oc", "Paquets concernits : « %s »"),
    # a geresh at the end of a word, and gershayim inside one
    ("ואיי סנדוויץ׳ הדרומיים של צה״ל", "he", "ואיי סנדוויץ׳ הדרומיים של צה״ל"),
    # the same typed with ASCII quotes, on a keyboard without ״ and ׳; a maqaf
    # stays on the letter before it, a quotation after it is split off
    ('צה"ל הודיע כי ארה"ב ודו"ח מס\' 3 פורסם ב־2020 ו־"הארץ" דיווח.', "he",
     'צה"ל הודיע כי ארה"ב ודו"ח מס\' 3 פורסם ב־2020 ו־ " הארץ " דיווח .'),
    ('פ"ב ש"ח ג\'ורג\'', "he", 'פ"ב ש"ח ג\'ורג\''),
    ("בין 0 ל־100 ו־%s, נמחק מ־%1$s", "he", "בין 0 ל־100 ו־%s , נמחק מ־%1$s"),
    # Shan tone marks, which Unicode leaves out of their letter's cluster
    ("ဢႃးၾႃႇ ၵေႇ", "shn", "ဢႃးၾႃႇ ၵေႇ"),
    # letters and digits beyond the Basic Multilingual Plane, unknown to Moses:
    # Chakma, Adlam
    ("𑄃𑄜𑄢𑄴 𑄃𑄝𑄴𑄈𑄎𑄨𑄠𑄚𑄴.", "ccp", "𑄃𑄜𑄢𑄴 𑄃𑄝𑄴𑄈𑄎𑄨𑄠𑄚𑄴 ."),
    ("𞤀𞤁𞤂, 𞤃 𞥑𞥒", "ff", "𞤀𞤁𞤂 , 𞤃 𞥑𞥒"),
    # a slash or a dash between letters or digits, unspaced; spaced, a token
    ("and/or the 1990–2000 period, km/h", "en", "and/or the 1990–2000 period , km/h"),
    ("Москва—Петербург", "ru", "Москва—Петербург"),
    ("a / b and a – b", "en", "a / b and a – b"),
])
def test_marks_written_inside_a_word_stay_inside_its_token(line, lang, tokens):
    assert clean.tokenize(line, lang) == tokens
    assert clean.detokenize([tokens], lang) == [line]


# --- bidirectional controls ---------------------------------------------------

def test_every_bidi_control_is_removed_by_the_reader(tmp_path):
    lines = [f"word{c} {c}next{c} end" for c in BIDI_CONTROLS]
    path = _write(tmp_path / "in.ar", lines)
    assert read_lines(path) == ["word next end"] * len(BIDI_CONTROLS)
    assert {unicodedata.name(c) for c in BIDI_CONTROLS} >= {
        "LEFT-TO-RIGHT MARK", "RIGHT-TO-LEFT MARK", "ARABIC LETTER MARK",
        "RIGHT-TO-LEFT OVERRIDE", "POP DIRECTIONAL ISOLATE"}


@pytest.mark.parametrize("mode", ["--tokenize", "--pretokenized"])
def test_clean_never_makes_a_bidi_control_a_token_and_logs_the_count(tmp_path, mode):
    src = _write(tmp_path / "in.ar", ["مرحبا \u200f، كيف حالك\u200f؟",
                                      "\u2067שלום\u2069 \u202b x \u202c"])
    tgt = _write(tmp_path / "in.en", ["hello , how are you ?", "hi x"])
    cmd = [sys.executable, "-m", "phrasenmt.data.clean", "--src-in", str(src),
           "--tgt-in", str(tgt), "--src-lang", "ar", "--tgt-lang", "en", mode,
           "--src-out", str(tmp_path / "x.ar"), "--tgt-out", str(tmp_path / "x.en"),
           "--stats", str(tmp_path / "x.tsv")]
    proc = forkrun.run(cmd, capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    assert (f"{src}: removed 6 bidirectional control characters (2 U+200F "
            "RIGHT-TO-LEFT MARK, ") in proc.stderr
    assert str(tgt) not in proc.stderr
    out = (tmp_path / "x.ar").read_text(encoding="utf-8")
    assert not set(out) & set(BIDI_CONTROLS)
    assert all(token.isprintable() for token in out.split())


def test_a_line_of_only_bidi_controls_is_an_empty_line(tmp_path):
    src = _write(tmp_path / "in.ar", ["نعم", "\u200f\u200e"])
    tgt = _write(tmp_path / "in.en", ["yes", "no"])
    cmd = [sys.executable, "-m", "phrasenmt.data.clean", "--src-in", str(src),
           "--tgt-in", str(tgt), "--src-lang", "ar", "--tgt-lang", "en",
           "--src-out", str(tmp_path / "x.ar"), "--tgt-out", str(tmp_path / "x.en"),
           "--stats", str(tmp_path / "x.tsv")]
    proc = forkrun.run(cmd, capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 1
    assert proc.stderr.strip() == (f"error: {src}:2: empty line: it holds only "
                                   "invisible format characters (U+200E, U+200F)")
    assert not (tmp_path / "x.ar").exists()
