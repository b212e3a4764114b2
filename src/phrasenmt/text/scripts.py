"""Scripts written without spaces between words, and text that looks unsegmented.

Moses tokenization, BPE learned on whitespace words and word alignment all take
a space as the end of a word. Chinese, Japanese, Thai, Lao, Khmer, Burmese and
Tibetan put no space between words, so unsegmented text of theirs reaches these
steps as clause-sized "words" (an aligner then links a whole clause to one
token).
Such a corpus is valid input, so the steps warn, once per file, and go on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import regex

from phrasenmt.log import get_logger

_log = get_logger(__name__)

# the scripts whose writing puts no space between words
UNSEGMENTED_SCRIPTS = ("Han", "Hiragana", "Katakana", "Thai", "Lao", "Khmer",
                       "Myanmar", "Tibetan")
_SCRIPT = {name: regex.compile(rf"(?=\p{{L}})\p{{Script={name}}}")  # letters, not marks
           for name in UNSEGMENTED_SCRIPTS}
_ANY = regex.compile("|".join(p.pattern for p in _SCRIPT.values()))
_LETTER = regex.compile(r"\p{L}")
_GRAPHEME = regex.compile(r"\X")
_MOSES_WORD_END = regex.compile(r"[\s\p{P}]+")

# language codes (ISO 639-1 and -3) of languages written without spaces
UNSEGMENTED_LANGUAGES = {
    "zh": "Chinese", "zho": "Chinese", "yue": "Cantonese", "ja": "Japanese",
    "jpn": "Japanese", "th": "Thai", "tha": "Thai", "lo": "Lao", "lao": "Lao",
    "km": "Khmer", "khm": "Khmer", "my": "Burmese", "mya": "Burmese",
    "bo": "Tibetan", "bod": "Tibetan", "dz": "Dzongkha", "dzo": "Dzongkha",
}
# those of them written with thousands of characters (Han, kana), for which
# SentencePiece advises a character coverage below 1 (Thai, Lao, Khmer and
# Burmese are alphabets of about a hundred letters and marks), and whose wide
# characters take no spaces beside their punctuation (`phrasenmt.text.punctuation`)
LARGE_CHARACTER_SET_LANGUAGES = frozenset({"zh", "zho", "yue", "ja", "jpn"})
# the word segmenter phrasenmt runs for each language (`phrasenmt.text.words`)
SEGMENTERS = {"Chinese": "jieba", "Cantonese": "jieba", "Japanese": "MeCab",
              "Thai": "PyThaiNLP", "Lao": "LaoNLP", "Khmer": "khmer-nltk",
              "Burmese": "mmdt-tokenizer", "Tibetan": "tsheg syllables",
              "Dzongkha": "tsheg syllables"}
# languages that mark every syllable's end (the Tibetan tsheg), where Moses,
# which splits off every punctuation mark, cuts syllables, not clauses
SYLLABLE_MARKED = frozenset({"Tibetan", "Dzongkha"})

SAMPLE_LINES = 2000  # lines looked at, from the start of the file
MIN_SHARE = 0.5  # of the letters in unsegmented scripts
# Mean characters (grapheme clusters) per word of those scripts above which the
# text counts as unsegmented: segmented Chinese and Japanese words average under
# 2, Thai words about 3; unsegmented text has clauses of 6 to 30 per "word".
MIN_MEAN_LENGTH = 4.0


@dataclass(frozen=True)
class Unsegmented:
    """What makes a text look unsegmented: its script, their share, word length."""

    script: str  # "Han", "Han and Kana", "Thai", ...
    language: str  # the language that script suggests: "Chinese", "Japanese", ...
    share: float  # of all letters
    mean_length: float  # characters per word of those scripts

    def advice(self) -> str:
        """What to do: segment with a named tool, or give pre-tokenized text."""
        tool = SEGMENTERS.get(self.language)
        how = f"e.g. {tool} for {self.language}" if tool else \
            f"with a word segmenter for {self.language}"
        return f"segment it first ({how}) or give pre-tokenized text"


def _language(counts: Counter) -> tuple[str, str]:
    """(script, language) of the letter counts by unsegmented script."""
    kana = counts["Hiragana"] + counts["Katakana"]
    cjk = counts["Han"] + kana
    others = ("Thai", "Lao", "Khmer", "Myanmar", "Tibetan")
    if cjk >= max(counts[name] for name in others):
        if kana >= 0.05 * cjk:  # Japanese sentences almost always hold kana
            return ("Han and Kana" if counts["Han"] else "Kana"), "Japanese"
        return "Han", "Chinese"
    script = max(others, key=counts.__getitem__)
    return script, {"Myanmar": "Burmese"}.get(script, script)


def detect_unsegmented(lines: Iterable[str], sample: int = SAMPLE_LINES,
                       moses: bool = False) -> Unsegmented | None:
    """How the first `sample` lines look unsegmented, or None if they do not;
    `moses`: raw text that Moses is to tokenize, whose words end at spaces and
    at every punctuation mark (Chinese text at its commas, Tibetan at each
    syllable's tsheg)."""
    split = _MOSES_WORD_END.split if moses else str.split
    counts: Counter = Counter()
    letters = words = length = 0
    for n, line in enumerate(lines):
        if n == sample:
            break
        if line.isascii():
            letters += sum(c.isalpha() for c in line)
            continue
        letters += len(_LETTER.findall(line))
        for name, pattern in _SCRIPT.items():
            counts[name] += len(pattern.findall(line))
        for word in split(line):
            if _ANY.search(word):
                words += 1
                length += len(_GRAPHEME.findall(word))
    total = sum(counts.values())
    if not words or total < MIN_SHARE * letters:
        return None
    mean = length / words
    if mean < MIN_MEAN_LENGTH:
        return None
    script, language = _language(counts)
    return Unsegmented(script, language, total / letters, mean)


def unsegmented_warning(path: object, lines: Iterable[str], steps: str,
                        moses: bool = False) -> str | None:
    """The one warning line for a file that looks unsegmented, or None."""
    message = _unsegmented_message(path, lines, steps, moses)
    return None if message is None else f"warning: {message}"


def _unsegmented_message(path: object, lines: Iterable[str], steps: str,
                         moses: bool = False) -> str | None:
    """What is wrong with a file that looks unsegmented, or None."""
    found = detect_unsegmented(lines, moses=moses)
    if found is None:
        return None
    return (f"{path}: {found.share:.0%} of its letters are {found.script} "
            f"and its mean word is {found.mean_length:.1f} characters long: the "
            f"text looks unsegmented ({found.language} puts no space between "
            f"words), so {steps} will see clause-sized words; {found.advice()}")


def warn_if_unsegmented(path: object, lines: Iterable[str], steps: str,
                        moses: bool = False) -> None:
    """Log `unsegmented_warning` as a warning when there is one."""
    message = _unsegmented_message(path, lines, steps, moses)
    if message:
        _log.warning(message)


def language_warning(lang: str, where: str) -> str | None:
    """A start-up warning for a language written without spaces that is to be
    Moses-tokenized (split only at spaces and punctuation), or None."""
    language = UNSEGMENTED_LANGUAGES.get(lang)
    if language is None or language in SYLLABLE_MARKED:
        return None
    tool = SEGMENTERS.get(language)
    how = f"e.g. with {tool}" if tool else f"with a word segmenter for {language}"
    return (f"warning: {where}: {lang!r} ({language}) puts no space between words "
            "and tokenize: true (Moses) splits only at spaces and punctuation, so "
            "BPE and word alignment would see clause-sized words; segment the text "
            f"first ({how}) and set tokenize: false"
            + (f", or set bpe.backend: sentencepiece ({tool}'s words)" if tool else ""))


# -- the script a language is written in --------------------------------------

# Language codes (ISO 639-1 and -3) by the Unicode scripts of their letters.
# Languages written in more than one script today (Serbian, Kazakh, Uzbek,
# Azerbaijani, Punjabi, Kurdish, Mongolian, Malay, ...) are left out, and so
# are all codes not listed: their files are not checked.
_CODES_BY_SCRIPTS = {
    ("Latin",): "en eng de deu ger fr fra fre es spa it ita pt por nl nld dut "
                "ca cat ro ron rum pl pol cs ces cze sk slk slo sl slv hr hrv "
                "hu hun fi fin et est lv lav lt lit sv swe da dan nb nob nn nno "
                "no nor is isl ice ga gle cy cym wel eu eus baq gl glg mt mlt "
                "sq sqi alb tr tur vi vie id ind tl tgl sw swa af afr eo epo",
    ("Cyrillic",): "ru rus uk ukr be bel bg bul mk mkd mac ky kir tg tgk",
    ("Greek",): "el ell gre",
    ("Hebrew",): "he heb yi yid",
    ("Arabic",): "ar ara fa fas per ur urd ps pus ug uig",
    ("Armenian",): "hy hye arm",
    ("Georgian",): "ka kat geo",
    ("Devanagari",): "hi hin mr mar ne nep sa san",
    ("Bengali",): "bn ben as asm",
    ("Gujarati",): "gu guj",
    ("Oriya",): "or ori",
    ("Tamil",): "ta tam",
    ("Telugu",): "te tel",
    ("Kannada",): "kn kan",
    ("Malayalam",): "ml mal",
    ("Sinhala",): "si sin",
    ("Thai",): "th tha",
    ("Lao",): "lo lao",
    ("Khmer",): "km khm",
    ("Myanmar",): "my mya bur",
    ("Tibetan",): "bo bod tib dz dzo",
    ("Ethiopic",): "am amh ti tir",
    ("Hangul",): "ko kor",
    ("Han",): "zh zho chi yue",
    ("Han", "Hiragana", "Katakana"): "ja jpn",
}
LANGUAGE_SCRIPTS = {code: scripts for scripts, codes in _CODES_BY_SCRIPTS.items()
                    for code in codes.split()}
# what a message calls a language's scripts
SCRIPT_NAMES = {("Han", "Hiragana", "Katakana"): "Han and Kana"}
MIN_SCRIPT_LETTERS = 50  # letters of the two scripts below which nothing is said


def script_name(scripts: tuple[str, ...]) -> str:
    """What a message calls a language's scripts: "Hebrew", "Han and Kana"."""
    return SCRIPT_NAMES.get(scripts, " and ".join(scripts))


def distinct_scripts(lang: str, other: str) -> bool:
    """Whether both languages' scripts are known and share no script (en-he,
    not en-de, not zh-ja, not a language the table does not know)."""
    mine, theirs = LANGUAGE_SCRIPTS.get(lang), LANGUAGE_SCRIPTS.get(other)
    return bool(mine and theirs) and not set(mine) & set(theirs)


def _script_pattern(scripts: tuple[str, ...]) -> regex.Pattern:
    """Letters (not marks, digits or punctuation) of any of `scripts`."""
    alternatives = "".join(rf"\p{{Script={name}}}" for name in scripts)
    return regex.compile(rf"(?=\p{{L}})[{alternatives}]")


@dataclass(frozen=True)
class ScriptMix:
    """The letters of a text's first lines in its language's script and in
    the script of the other language of its pair."""

    letters: int  # all letters
    own: int  # in the script of the text's language
    other: int  # in the script of the other language

    def share(self, count: int) -> float:
        """`count` as a share of all letters."""
        return count / self.letters if self.letters else 0.0

    def looks_other(self) -> bool:
        """Whether most of the letters of the two scripts are the other's."""
        counted = self.own + self.other
        return counted >= MIN_SCRIPT_LETTERS and self.other > MIN_SHARE * counted


def script_mix(lines: Iterable[str], lang: str, other: str,
               sample: int = SAMPLE_LINES) -> ScriptMix | None:
    """How the letters of the first `sample` lines of a text in `lang` fall on
    its script and on `other`'s; None where `distinct_scripts` is false. Letters
    of neither script (a Latin name in Hebrew-English text) count only as letters."""
    if not distinct_scripts(lang, other):
        return None
    own_scripts, other_scripts = LANGUAGE_SCRIPTS[lang], LANGUAGE_SCRIPTS[other]
    mine, theirs = _script_pattern(own_scripts), _script_pattern(other_scripts)
    letters = own = foreign = 0
    for n, line in enumerate(lines):
        if n == sample:
            break
        if line.isascii():  # Latin letters only: the common case, fast
            latin = sum(c.isalpha() for c in line)
            letters += latin
            own += latin if "Latin" in own_scripts else 0
            foreign += latin if "Latin" in other_scripts else 0
            continue
        letters += len(_LETTER.findall(line))
        own += len(mine.findall(line))
        foreign += len(theirs.findall(line))
    return ScriptMix(letters, own, foreign)


# Hebrew's final letters end a word in logical order; text stored in visual
# order (reversed, as some old catalogs are) begins its words with them
_FINAL_LETTERS = "ךםןףץ"
_HEBREW_WORD = regex.compile(r"(?:(?=\p{Hebrew})\p{L}){2,}")
FINAL_FORM_LANGS = ("he", "yi")  # written with Hebrew's final letters


def visual_order_lines(lines: Iterable[str]) -> list[int]:
    """1-based numbers of the lines whose Hebrew words begin with a final
    letter more often than they end with one: text in visual order."""
    found = []
    for n, line in enumerate(lines, start=1):
        words = _HEBREW_WORD.findall(line)
        starts = sum(w[0] in _FINAL_LETTERS for w in words)
        ends = sum(w[-1] in _FINAL_LETTERS for w in words)
        if starts > ends:
            found.append(n)
    return found


def visual_order_warning(path: object, lines: list[str], lang: str,
                         minimum: int = 3) -> str | None:
    """A warning for a Hebrew (or Yiddish) file with `minimum` or more lines in
    visual order, naming how many and the first; None otherwise."""
    if lang not in FINAL_FORM_LANGS:
        return None
    found = visual_order_lines(lines)
    if len(found) < minimum:
        return None
    return (f"{path}: {len(found)} of {len(lines)} lines look like text in visual "
            f"order (reversed: their words begin with the final letters "
            f"{' '.join(_FINAL_LETTERS)}), first line {found[0]}; reverse those "
            "lines or leave them out, or the model learns reversed words")
