"""What a word is in a script written without spaces, and how long a line is.

Every word-level step (alignment, phrase extraction, the continuous-output
models' word tables, fastText) takes a space as the end of a word. In Chinese a
word is what the jieba segmenter (dictionary + HMM, deterministic) cuts, in
Japanese what MeCab with the IPA dictionary cuts (the words of sacreBLEU's
`ja-mecab` tokenizer); that is the word cleaning writes for `bpe.backend:
sentencepiece`, and SentencePiece then cuts pieces inside those words, never
across them, so the word-level files and the subword files hold the same words.
Other languages written without spaces (th, lo, km, my) have no segmenter here:
their text must come pre-segmented (`tokenize: false`).

Lengths for cleaning (`line_length`): a side in an unsegmented script counts its
characters (grapheme clusters, spaces left out), so a clause that was not
segmented is not one "word"; other text counts its space-separated tokens.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import regex

from phrasenmt.io import InputError
from phrasenmt.text.scripts import UNSEGMENTED_LANGUAGES, detect_unsegmented

# languages whose words a segmenter here can cut: language code -> tool
SEGMENTABLE = {"zh": "jieba", "zho": "jieba", "yue": "jieba", "ja": "MeCab", "jpn": "MeCab"}
# what each tool imports, and how a user installs it
_MODULES = {"jieba": ("jieba",), "MeCab": ("MeCab", "ipadic")}
_INSTALL = {"jieba": "pip install jieba (or pip install 'phrasenmt[zh]')",
            "MeCab": "pip install 'sacrebleu[ja]' (MeCab and its IPA dictionary, "
                     "as sacreBLEU's ja-mecab uses them; or pip install 'phrasenmt[ja]')"}
_GRAPHEME = regex.compile(r"\X")
# a space between two characters of scripts without spaces (or their
# punctuation: CJK symbols, full-width forms) is one segmentation put there
_JOINED = regex.compile(
    r"(?<=[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}"
    r"\u3000-\u303f\uff00-\uffef]) +(?=[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}"
    r"\p{Lao}\p{Khmer}\p{Myanmar}\u3000-\u303f\uff00-\uffef])")


def is_unsegmented(lang: str) -> bool:
    """Whether the language code names a language written without spaces."""
    return lang in UNSEGMENTED_LANGUAGES


def counts_characters(lang: str, lines: list[str]) -> bool:
    """Whether a side's length is counted in characters: its language code is
    one written without spaces, or its text looks unsegmented (Unicode script
    and mean word length, `phrasenmt.text.scripts.detect_unsegmented`)."""
    return is_unsegmented(lang) or detect_unsegmented(lines) is not None


def line_length(line: str, in_characters: bool) -> int:
    """Tokens of a line, or its characters (grapheme clusters, not spaces)."""
    if not in_characters:
        return len(line.split())
    return sum(len(_GRAPHEME.findall(word)) for word in line.split())


def segmenter_missing(lang: str) -> str | None:
    """Why text in `lang` cannot be cut into words here, or None when it can
    (or needs no cutting)."""
    if not is_unsegmented(lang):
        return None
    tool = SEGMENTABLE.get(lang)
    if tool is None:
        return (f"{lang!r} ({UNSEGMENTED_LANGUAGES[lang]}) puts no space between "
                "words and has no word segmenter here: give pre-segmented text "
                "(words separated by spaces) and set tokenize: false")
    try:
        for module in _MODULES[tool]:
            __import__(module)
    except ImportError:
        return f"{lang!r} text needs the {tool} word segmenter: {_INSTALL[tool]}"
    return None


def word_segmenter(lang: str) -> Callable[[str], str]:
    """A function from a raw line to its words joined by single spaces: jieba's
    words for Chinese, the space-separated words of any other language."""
    missing = segmenter_missing(lang)
    if missing is not None:
        raise InputError(missing)
    if lang not in SEGMENTABLE:
        return lambda line: " ".join(line.split())
    if SEGMENTABLE[lang] == "MeCab":
        return _mecab_words()
    import jieba

    jieba.setLogLevel(logging.WARNING)  # "Building prefix dict..." on every start
    return lambda line: " ".join(w for w in jieba.lcut(line.strip()) if w.strip())


def _mecab_words() -> Callable[[str], str]:
    """MeCab's words (IPA dictionary, `-Owakati`), as sacreBLEU's ja-mecab."""
    import ipadic
    import MeCab

    tagger = MeCab.Tagger(ipadic.MECAB_ARGS + " -Owakati")
    return lambda line: " ".join(tagger.parse(line.strip()).split())


def join_unsegmented(line: str) -> str:
    """Drop the spaces a word segmenter put between two characters of a script
    written without spaces ("我们 去 学校 。" -> "我们去学校。")."""
    return line if line.isascii() else _JOINED.sub("", line)
