"""What a word is in a script written without spaces, and how long a line is.

Every word-level step (alignment, phrase extraction, the continuous-output
models' word tables, fastText) takes a space as the end of a word. In Chinese a
word is what the jieba segmenter (dictionary + HMM, deterministic) cuts, in
Japanese what MeCab with the IPA dictionary cuts (the words of sacreBLEU's
`ja-mecab` tokenizer), in Thai what PyThaiNLP's `newmm` cuts (dictionary-based
maximal matching), in Lao what LaoNLP cuts, in Khmer what khmer-nltk cuts (a
CRF), in Burmese what mmdt-tokenizer cuts (syllables joined by grammar rules and
a lexicon: postpositions, particles and auxiliaries become words of their own),
in Tibetan and Dzongkha a syllable with the tsheg (་) that ends it: the one
Tibetan segmenter on PyPI, botok, fetches its dictionaries from GitHub on first
use, and nothing here downloads at run time.
That is the word cleaning writes for `bpe.backend: sentencepiece`, and
SentencePiece then cuts pieces inside those words, never across them, so the
word-level files and the subword files hold the same words. The Thai, Lao,
Khmer, Burmese and Tibetan cutters cut only the runs of their own script: a format string
(`%.*s`), a program name or a number between them stays one token, as spaces
left it. A zero-width space (U+200B, which Khmer, Lao and Burmese writers put
between some words) counts as a space, except before a combining mark.

A segmenter only decides where words end: the words written are slices of the
text it was given, cut only between grapheme clusters (LaoNLP cuts some vowel
signs from their consonants; such a cut is undone). mmdt-tokenizer drops the
Burmese comma and full stop (`၊`, `။`) and puts some stacked marks in another order (the dot below, U+1037, and
the asat, U+103A); here a dropped character becomes a word of its own and a
reordered word keeps the text's own order, so no character is lost or changed
(`_slices`).

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
SEGMENTABLE = {"zh": "jieba", "zho": "jieba", "yue": "jieba", "ja": "MeCab", "jpn": "MeCab",
               "th": "PyThaiNLP", "tha": "PyThaiNLP", "lo": "LaoNLP", "lao": "LaoNLP",
               "km": "khmer-nltk", "khm": "khmer-nltk",
               "my": "mmdt-tokenizer", "mya": "mmdt-tokenizer",
               "bo": "tsheg syllables", "bod": "tsheg syllables", "dz": "tsheg syllables",
               "dzo": "tsheg syllables"}
# what each tool imports, and how a user installs it
_MODULES = {"jieba": ("jieba",), "MeCab": ("MeCab", "ipadic"), "PyThaiNLP": ("pythainlp",),
            "LaoNLP": ("laonlp",), "khmer-nltk": ("khmernltk",),
            "mmdt-tokenizer": ("mmdt_tokenizer",), "tsheg syllables": ()}
_INSTALL = {"jieba": "pip install jieba (or pip install 'phrasenmt[zh]')",
            "MeCab": "pip install 'sacrebleu[ja]' (MeCab and its IPA dictionary, "
                     "as sacreBLEU's ja-mecab uses them; or pip install 'phrasenmt[ja]')",
            "PyThaiNLP": "pip install pythainlp (or pip install 'phrasenmt[th]')",
            "LaoNLP": "pip install laonlp (or pip install 'phrasenmt[lo]')",
            "khmer-nltk": "pip install khmer-nltk (or pip install 'phrasenmt[km]')",
            "mmdt-tokenizer": "pip install mmdt-tokenizer (or pip install 'phrasenmt[my]')"}
# the letters (and marks, digits) a script-run segmenter cuts; the rest of a
# space-separated token is kept whole
_SCRIPT_RUN = {"PyThaiNLP": regex.compile(r"\p{Thai}+"), "LaoNLP": regex.compile(r"\p{Lao}+"),
               "khmer-nltk": regex.compile(r"\p{Khmer}+"),
               "mmdt-tokenizer": regex.compile(r"\p{Myanmar}+"),
               "tsheg syllables": regex.compile(r"\p{Tibetan}+")}
# the Tibetan tsheg and non-breaking tsheg, and the shad-like marks (shad, nyis
# shad, tsheg shad, rin chen spungs shad, ...), as regex class contents
_TSHEGS, _SHADS = r"\u0f0b\u0f0c", r"\u0f0d-\u0f12\u0f14"
# a Tibetan syllable with the tsheg that ends it, or a run of shad-like marks
_SYLLABLE = regex.compile(
    rf"[{_SHADS}]+|[^{_TSHEGS}{_SHADS}]+[{_TSHEGS}]*|[{_TSHEGS}]+")
ZERO_WIDTH_SPACE = "\u200b"
# a zero-width space is a break between words, except before a combining mark
# (CLDR's Lao "ກູ​ລ​໌ຟ": a mark cannot begin a word), where it is dropped
_ZERO_WIDTH_BREAK = regex.compile(r"\u200b(?!\p{M})")
_GRAPHEME = regex.compile(r"\X")
# a space between two characters of scripts without spaces (or their
# punctuation: CJK symbols, full-width forms) is one segmentation put there,
# except after a Tibetan shad, where Tibetan writes a space
_JOINED = regex.compile(
    r"(?<=[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}"
    r"\p{Tibetan}\u3000-\u303f\uff00-\uffef])(?<![" + _SHADS + r"]) +"
    r"(?=[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}"
    r"\p{Tibetan}\u3000-\u303f\uff00-\uffef])")


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
    tool = SEGMENTABLE[lang]  # every language written without spaces has one
    try:
        for module in _MODULES[tool]:
            __import__(module)
    except ImportError:
        return f"{lang!r} text needs the {tool} word segmenter: {_INSTALL[tool]}"
    return None


def word_segmenter(lang: str) -> Callable[[str], str]:
    """A function from a raw line to its words joined by single spaces: the
    words of the language's segmenter (`SEGMENTABLE`), the space-separated
    words of any other language."""
    missing = segmenter_missing(lang)
    if missing is not None:
        raise InputError(missing)
    tool = SEGMENTABLE.get(lang)
    if tool is None:
        return lambda line: " ".join(line.split())
    if tool == "MeCab":
        return _mecab_words()
    if tool in _SCRIPT_RUN:
        return _script_run_words(_script_cutter(tool), _SCRIPT_RUN[tool])
    import jieba

    jieba.setLogLevel(logging.WARNING)  # "Building prefix dict..." on every start
    return lambda line: " ".join(w for w in jieba.lcut(line.strip()) if w.strip())


def _mecab_words() -> Callable[[str], str]:
    """MeCab's words (IPA dictionary, `-Owakati`), as sacreBLEU's ja-mecab."""
    import ipadic
    import MeCab

    tagger = MeCab.Tagger(ipadic.MECAB_ARGS + " -Owakati")
    return lambda line: " ".join(tagger.parse(line.strip()).split())


def _script_cutter(tool: str) -> Callable[[str], list[str]]:
    """The tool's word cutter for a run of its script's characters."""
    if tool == "PyThaiNLP":
        from pythainlp.tokenize import word_tokenize

        return lambda run: word_tokenize(run, engine="newmm", keep_whitespace=False)
    if tool == "LaoNLP":
        from laonlp.tokenize import word_tokenize

        return word_tokenize
    if tool == "tsheg syllables":
        return _SYLLABLE.findall
    if tool == "mmdt-tokenizer":
        from mmdt_tokenizer import MyanmarWordTokenizer

        tokenizer = MyanmarWordTokenizer()
        return lambda run: tokenizer.tokenize(run)[0]
    logging.getLogger("khmer-nltk").setLevel(logging.WARNING)  # "Loaded model from ..."
    from khmernltk import word_tokenize

    return word_tokenize


def _script_run_words(cut: Callable[[str], list[str]],
                      script: regex.Pattern) -> Callable[[str], str]:
    """Words of a line: each space-separated token with the runs of `script`
    in it cut by `cut`, and what lies between those runs kept whole."""
    def words(line: str) -> str:
        out: list[str] = []
        line = _ZERO_WIDTH_BREAK.sub(" ", line).replace(ZERO_WIDTH_SPACE, "")
        for token in line.split():
            start = 0
            for run in script.finditer(token):
                if run.start() > start:
                    out.append(token[start:run.start()])
                out.extend(_slices(run.group(), cut(run.group())))
                start = run.end()
            if start < len(token):
                out.append(token[start:])
        return " ".join(out)

    return words


SLACK = 4  # characters a segmenter may have dropped before a word


def _slices(text: str, words: list[str]) -> list[str]:
    """`text` cut where a segmenter's `words` end: slices of `text`, so that
    their concatenation is `text` whatever the tool dropped or reordered. A word
    is found at the cursor, or up to `SLACK` characters on (what lay between is
    a word of its own), with its characters in the text's order or in another;
    a word not found there adds no cut, and its characters go to the next."""
    out: list[str] = []
    start = pos = 0
    for word in (w.strip() for w in words):
        if not word:
            continue
        found = _find(text, word, pos)
        if found is None:
            continue
        if found > start:
            out.append(text[start:found])
        out.append(text[found:found + len(word)])
        start = pos = found + len(word)
    if start < len(text):
        out.append(text[start:])
    return [piece for piece in _whole_graphemes(text, out) if piece.strip()]


def _whole_graphemes(text: str, pieces: list[str]) -> list[str]:
    """`pieces` (which join to `text`) with every cut inside a grapheme
    cluster undone: LaoNLP cuts "ແອັກຊີເນັສ" into ແອ|ັກ|ຊີເນ|ັສ, a vowel sign
    cut from its consonant, which no word can begin with."""
    bounds = {match.start() for match in _GRAPHEME.finditer(text)}
    out: list[str] = []
    at = 0
    for piece in pieces:
        if out and at not in bounds:
            out[-1] += piece
        else:
            out.append(piece)
        at += len(piece)
    return out


def _find(text: str, word: str, pos: int) -> int | None:
    """Where `word` (its characters in any order) starts in `text`, at `pos` or
    up to `SLACK` characters later."""
    letters = sorted(word)
    for at in range(pos, min(pos + SLACK, len(text) - len(word)) + 1):
        piece = text[at:at + len(word)]
        if piece == word or sorted(piece) == letters:
            return at
    return None


def join_unsegmented(line: str) -> str:
    """Drop the spaces a word segmenter put between two characters of a script
    written without spaces ("我们 去 学校 。" -> "我们去学校。")."""
    return line if line.isascii() else _JOINED.sub("", line)
