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
