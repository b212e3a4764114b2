"""Tokenize (Moses), lowercase and filter parallel text, with sidecars in lockstep.

`--raw` (bpe.backend sentencepiece) keeps raw text instead of Moses tokens:
words are what spaces separate, and a side in a language written without spaces
is cut into words by its segmenter (jieba, MeCab, PyThaiNLP, LaoNLP,
khmer-nltk or mmdt-tokenizer: phrasenmt.text.words). The filters count a side
in tokens, and in characters one that is still written without spaces after
this step (zh, ja, th, ... by language code unless a segmenter cut it, or text
that looks unsegmented). When the two sides count units of different kinds (characters against tokens, or
one segmenter's words against words between spaces), the length ratio first
divides the source length by the corpus's median source length per target
length, so that `max_ratio` means "this many times longer than usual". In
`--raw` mode a side split by spaces keeps its punctuation on its words
("[OPTION]...") while jieba cuts it off ("[ 选项 ] ..."): there the filters count
only tokens with a letter or a digit, on both sides. `--stats` reports what each
rule dropped.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path
from typing import TYPE_CHECKING

import regex

from phrasenmt.cli import ArgumentParser, field_type, output_file, positive_int
from phrasenmt.config_entries import Clean
from phrasenmt.io import InputError, describe_removed, read_lines, run_cli, write_all
from phrasenmt.log import get_logger, share_over
from phrasenmt.text.punctuation import (
    SPACED_AS_FRENCH,
    attach_punctuation,
    hide_quotes,
    show_quotes,
)
from phrasenmt.text.scripts import detect_unsegmented, warn_if_unsegmented
from phrasenmt.text.words import (
    SEGMENTABLE,
    ZERO_WIDTH_SPACE,
    counts_characters,
    line_length,
    word_segmenter,
)

if TYPE_CHECKING:
    from sacremoses import MosesDetokenizer, MosesTokenizer

_log = get_logger(__name__)

REASONS = ("empty", "too_long", "ratio")
WARN_SHARE = 0.05  # a rule that drops more than this share of the pairs warns
WORD_LEVEL_STEPS = "Moses tokenization, BPE and word alignment"
_GRAPHEME = regex.compile(r"\X")  # one user-perceived character (UAX #29)
# The code points that can join another into one cluster (UAX #29 rules GB6-GB13:
# marks, format characters such as ZWJ, spacing marks, prepends, Hangul jamo,
# regional indicators); a line without any splits like its code points.
_JOINER = regex.compile(
    r"[\p{M}\p{Cf}\p{Grapheme_Cluster_Break=Extend}\p{Grapheme_Cluster_Break=ZWJ}"
    r"\p{Grapheme_Cluster_Break=SpacingMark}\p{Grapheme_Cluster_Break=Prepend}"
    r"\p{Grapheme_Cluster_Break=Regional_Indicator}\p{Grapheme_Cluster_Break=L}"
    r"\p{Grapheme_Cluster_Break=V}\p{Grapheme_Cluster_Break=T}]")


# marks written after a letter, inside its word or at its end: the Armenian
# marks on a stressed vowel, emphasis ՛, exclamation ՜, question ՞ (ինչո՞ւ,
# "why?") and the abbreviation mark ՟; the Hebrew geresh and gershayim
# (ג׳ורג׳, סנדוויץ׳, צה״ל)
_IN_WORD_MARKS = "\u055b\u055c\u055e\u055f\u05f3\u05f4"
# between two letters, inside a word: the middle dot of Catalan col·lecció, the
# turned comma of Uzbek o‘zbek and g‘arbiy, the Hebrew and Yiddish maqaf (כל־הארץ)
_BETWEEN_LETTERS = "\u00b7\u2018\u05be"
# between two letters or digits, written without spaces: a slash (and/or, km/h),
# an en or em dash (1990–2000, Москва—Петербург), an underscore (key_id), an at
# sign (user@example.org) and a colon (10:30, S:t) stay in their token, as Moses
# keeps an ASCII hyphen there; spaced, they are tokens of their own
_BETWEEN_ALNUMS = "/\u2013\u2014_@:"
# Hebrew typed on a keyboard without ״ and ׳: an ASCII `"` as gershayim inside
# an acronym (צה"ל, ארה"ב, דו"ח) and `'` as geresh after an abbreviation (מס')
# stay in their word (`_hebrew_in_word`); the maqaf after a letter stays on it
# (ל־100, ב־"שמור"), and detokenization joins it to what follows
_HEBREW_LETTER = regex.compile(r"(?=\p{Hebrew})[\p{L}\p{M}]")  # letters and points
_HEBREW_QUOTE = regex.compile(r"""(?<=(?=\p{Hebrew})[\p{L}\p{M}])["']""")
# the one-letter prefixes written before a word (and, the, in, as, to, from, that):
# a `"` after them opens a quotation (ה"עומק"), unless a single letter follows (ש"ח)
HEBREW_PREFIXES = "והבכלמש"
MAQAF = "\u05be"
_ZWJ = "\u200d"
_MARK = regex.compile(r"\p{M}")
_PICTOGRAPH = regex.compile(r"\p{Extended_Pictographic}")
_ASTRAL_ALNUM = regex.compile(r"[\U00010000-\U0010ffff]")  # Moses knows no letter there
# Moses splits an ASCII apostrophe off by its English, French and Italian clitic
# rules, which its detokenizer undoes; in any other language it splits "S'ha",
# "аб'ект" into three tokens and detokenizes them as a quotation ("S 'ha"), so
# there an apostrophe between two letters stays in its word
_MOSES_APOSTROPHE_LANGS = frozenset({"en", "fr", "it"})
# a printf or strftime conversion (%s, %d, %5.2f, %.*s, %lu, %1$s, %%, %Y) is
# one token: Moses sees a letter in its place
_PRINTF = regex.compile(r"%(?:\d+\$)?[-+#0']*(?:\d+|\*)?(?:\.(?:\d+|\*))?"
                        r"(?:hh|ll|[hlLqjzt])?[A-Za-z%]")  # strftime's %Y, %H too
# a run of one of these marks is one token (***, ===), as Moses keeps "..."
_RUNS = "*=~#+"


def _in_word_pattern(between_letters: str) -> regex.Pattern:
    """Where `_moses_on_clusters` may keep something in a token that Moses
    would split, built from the same sets: a cheap test that lets every other
    line go to Moses directly."""
    def one_of(chars: str) -> str:
        return "[" + regex.escape(chars) + "]"

    return regex.compile("|".join([
        rf"[\p{{L}}\p{{N}}]{one_of(_BETWEEN_ALNUMS)}[\p{{L}}\p{{N}}%]",
        rf"\p{{L}}{one_of(between_letters)}\p{{L}}",
        rf"\p{{L}}{one_of(_IN_WORD_MARKS)}",
        _HEBREW_QUOTE.pattern, rf"\p{{L}}{MAQAF}\S",
        r"%[-+#0'*.\d$hlLqjztA-Za-z%]",  # how every `_PRINTF` match begins
        *(regex.escape(c * 2) for c in _RUNS),
        r"[\p{L}\p{N}]\(\)"]))


_IN_WORD_PATTERN = _in_word_pattern(_BETWEEN_LETTERS + "'")
_IN_WORD_PATTERN_MOSES = _in_word_pattern(_BETWEEN_LETTERS)
_IN_WORD_CHARS = frozenset(_IN_WORD_MARKS + _BETWEEN_LETTERS + _BETWEEN_ALNUMS + _RUNS
                           + "'\"%(")  # a line without any of these needs no search


@functools.cache
def _tokenizer(lang: str) -> MosesTokenizer:
    """One cached Moses tokenizer per language (sacremoses compiles its
    patterns when imported, about 0.9 s: only a run that tokenizes pays it)."""
    from sacremoses import MosesTokenizer

    return MosesTokenizer(lang=lang)


@functools.cache
def _detokenizer(lang: str) -> MosesDetokenizer:
    """One cached Moses detokenizer per language (French's for the languages
    that space ":", ";", "!", "?" as French does)."""
    from sacremoses import MosesDetokenizer

    return MosesDetokenizer(lang="fr" if lang in SPACED_AS_FRENCH else lang)


def tokenize(line: str, lang: str) -> str:
    """Moses-tokenize one raw line (no escaping, no aggressive dash splits),
    never splitting a grapheme cluster, a word at a mark written inside it,
    nor a word of letters Moses does not know (see `_moses_on_clusters`)."""
    line = line.strip()
    pattern = _IN_WORD_PATTERN_MOSES if lang in _MOSES_APOSTROPHE_LANGS else _IN_WORD_PATTERN
    marks = not _IN_WORD_CHARS.isdisjoint(line) and pattern.search(line)
    clusters = not line.isascii() and (_JOINER.search(line) or _ASTRAL_ALNUM.search(line))
    if not (marks or clusters):  # no mark inside a word, printf conversion or run,
        return _moses(line, lang)  # and no cluster of several code points
    return _moses_on_clusters(line, lang)


def _moses(line: str, lang: str) -> str:
    return _tokenizer(lang).tokenize(line, escape=False,
                                     aggressive_dash_splits=False, return_str=True)


def _moses_on_clusters(line: str, lang: str) -> str:
    """Moses on the first code point of each grapheme cluster, then the clusters
    put back whole.

    Moses classifies code points one at a time, so it would cut an emoji ZWJ
    sequence (👩‍💻), a flag (two regional indicators), a skin-tone modifier or a
    combining accent (e + U+0301) off its base. It sees each cluster's base
    character instead (a letter stays inside its word, an emoji a token of its
    own); each base in its output then gets its cluster's other code points back.
    A mark after a letter that Unicode does not count into its cluster (the
    Shan tone marks, ႇ), an Armenian in-word mark after a letter
    (`_IN_WORD_MARKS`), a middle dot, an Uzbek ‘ or a maqaf between two letters
    (`_BETWEEN_LETTERS`), and a slash or a dash between two letters or digits
    (`_BETWEEN_ALNUMS`) ride on the character before the same way, and so does
    an apostrophe between two letters where Moses has no clitic rules for the
    language (`_MOSES_APOSTROPHE_LANGS`). A printf conversion (%s, %.*s) reaches
    Moses as one letter. Moses's
    letter and digit classes hold only the Basic Multilingual Plane, so it
    would split every letter of Adlam, Chakma or Hmong from the next: it sees
    "a" (or "0" for a digit) in their place.
    """
    between_letters = _BETWEEN_LETTERS + ("" if lang in _MOSES_APOSTROPHE_LANGS else "'")
    printf = {m.start(): m.end() for m in _PRINTF.finditer(line)} if "%" in line else {}
    hebrew = _hebrew_in_word(line)
    clusters: list[str] = []
    bases: list[str] = []
    graphemes = list(line) if line.isascii() else _GRAPHEME.findall(line)
    last = len(graphemes) - 1
    pos = skip_to = 0
    for i, cluster in enumerate(graphemes):  # a mark after a space: on its own
        start, pos = pos, pos + len(cluster)
        if start < skip_to:  # inside a printf conversion; a joiner or non-joiner
            clusters[-1] += line[skip_to:pos]  # after it (%s + U+200C) stays on it
            continue
        if printf and start in printf:
            skip_to = printf[start]
            clusters.append(line[start:skip_to])
            bases.append("a")
            continue
        if (cluster.isalnum() or cluster == " ") and (  # a letter, digit or space:
                cluster.isascii() or not _MARK.match(cluster)):  # joins nothing
            clusters.append(cluster)
            bases.append(_moses_base(cluster[0]))
            continue
        after = graphemes[i + 1] if i < last else " "
        before = bases[-1] if bases else " "  # a printf conversion counts as a letter
        after_alnum = after[0].isalnum() or pos in printf
        if start in hebrew or (before.isalpha() and (
                cluster in _IN_WORD_MARKS or _MARK.match(cluster) or (
                cluster in between_letters and after[0].isalpha()) or (
                cluster == MAQAF and not after.isspace()))) or (
                before.isalnum() and cluster in _BETWEEN_ALNUMS and after_alnum) or (
                cluster in _RUNS and clusters and clusters[-1][-1] == cluster
                and set(clusters[-1]) == {cluster}) or (
                # a call's empty brackets after a name: atk_object_get_parent()
                (cluster == "(" and after == ")" and before.isalnum())
                or (cluster == ")" and clusters and clusters[-1].endswith("("))):
            clusters[-1] += cluster
            continue
        if len(cluster) > 1 and _dropped_by_moses(cluster[0]):
            clusters += [cluster[0], cluster[1:]]
            bases += [_moses_base(cluster[0]), _moses_base(cluster[1])]
        else:
            clusters.append(cluster)
            bases.append(_moses_base(cluster[0]))
    if len(clusters) == len(line) and "".join(bases) == line:  # nothing to hide
        return _moses(line, lang)
    out, k = [], 0
    for char in _moses("".join(bases), lang):
        if char == " ":
            out.append(char)
            continue
        while k < len(clusters) and bases[k] != char and _dropped_by_moses(bases[k]):
            k += 1
        out.append(clusters[k] if k < len(clusters) and bases[k] == char
                   else char)  # a character Moses changed stays as Moses wrote it
        k += 1
    return "".join(out)


def _hebrew_in_word(line: str) -> set[int]:
    """Where an ASCII `"` or `'` after a Hebrew letter stays in its word: as
    gershayim inside an acronym (צה"ל, דו"ח, ש"ח) or at a word's end, and as a
    geresh (מס', ג'ורג'). Not kept: a quotation mark that closes one opened
    earlier in the line (after a space, a maqaf or a bracket: ו־"הארץ"), and a
    `"` after a one-letter prefix with more than one letter after it, which
    opens a quotation (ה"עומק", ב"שמור צבע כאן")."""
    kept: set[int] = set()
    if not _HEBREW_QUOTE.search(line):
        return kept
    open_quote = {'"': False, "'": False}
    for match in regex.finditer(r"""["']""", line):
        at, quote = match.start(), match.group()
        before = line[at - 1] if at else " "
        if not _HEBREW_LETTER.match(before):
            # after a space, a maqaf or a bracket it opens; after other text it closes
            open_quote[quote] = not (before.isalnum() or open_quote[quote])
            continue
        word = regex.match(r"(?:(?=\p{Hebrew})[\p{L}\p{M}])+", line[at + 1:])
        if word and quote == '"' and _opens_after_prefix(line[:at], word.group()):
            open_quote[quote] = True
        elif not word and open_quote[quote]:
            open_quote[quote] = False  # it closes a quotation
        else:
            kept.add(at)
    return kept


def _opens_after_prefix(before: str, after: str) -> bool:
    """Whether a `"` between the Hebrew letters of `before` and `after` opens a
    quotation: a one-letter prefix before it (ה, ו, ב) and more than one letter
    after it (ה"עומק"; ש"ח is an acronym). Detokenization joins such a prefix
    to the quotation again (`phrasenmt.text.punctuation`)."""
    word = regex.search(r"(?:(?=\p{Hebrew})[\p{L}\p{M}])+$", before)
    prefix = [c for c in word.group() if not _MARK.match(c)] if word else []
    letters = [c for c in after if not _MARK.match(c)]
    return len(letters) > 1 and len(prefix) == 1 and prefix[0] in HEBREW_PREFIXES


def _moses_base(char: str) -> str:
    """What Moses sees of a cluster that starts with `char`: the character,
    or a stand-in for a letter or digit outside the Basic Multilingual Plane."""
    if ord(char) <= 0xFFFF or not char.isalnum():
        return char
    return "0" if char.isdigit() else "a"


def _dropped_by_moses(char: str) -> bool:
    """Whether Moses may drop this base: white space or a control character."""
    return char.isspace() or unicodedata.category(char)[0] == "C"


def _tokenize_pair(args: tuple[str, str]) -> str:
    """Pool helper: tokenize (line, lang)."""
    return tokenize(*args)


def tokenize_lines(lines: list[str], lang: str, workers: int = 1) -> list[str]:
    """Tokenize many lines, optionally in a process pool."""
    if workers <= 1 or len(lines) < 5000:
        return [tokenize(line, lang) for line in lines]
    with Pool(workers) as pool:
        return pool.map(_tokenize_pair, ((line, lang) for line in lines),
                        chunksize=2000)


def detokenize(lines: list[str], lang: str) -> list[str]:
    """Moses-detokenize whitespace-tokenized lines (for sacreBLEU); tokens that
    are pieces of one grapheme cluster are joined again (`join_clusters`), and
    the punctuation of other scripts than Latin, which Moses leaves spaced, is
    put back (`attach_punctuation`)."""
    detok = _detokenizer(lang)
    out = []
    for line in lines:
        tokens = line.split()
        text = detok.detokenize(hide_quotes(tokens), return_str=True, unescape=True)
        text = attach_punctuation(join_clusters(show_quotes(text, tokens)), lang)
        if ZERO_WIDTH_SPACE in text:  # a token of its own after Moses: unspace it
            text = text.replace(f" {ZERO_WIDTH_SPACE}", ZERO_WIDTH_SPACE).replace(
                f"{ZERO_WIDTH_SPACE} ", ZERO_WIDTH_SPACE)
        out.append(text)
    return out


def join_clusters(text: str) -> str:
    """Drop every space that cuts a grapheme cluster ("👍 🏽" -> "👍🏽", "e ́" -> "é",
    "🇩 🇪" -> "🇩🇪"), as a tokenizer that split them would have left it: where
    the word after the space begins with a code point that joins another
    (`_JOINER`), or the word before ends in a zero-width joiner and this one is
    a pictograph (👨‍ 👩). A word
    that begins with a letter stays a word, even where Unicode's conjunct rule
    would make one cluster of a virama at the end of the word before and that
    letter (Telugu "చినూక్ జార్గన్")."""
    if text.isascii():
        return text
    words = text.split(" ")
    out = [words[0]]
    for word in words[1:]:
        joins = word and out[-1] and (_JOINER.match(word) or (
            out[-1][-1] == _ZWJ and _PICTOGRAPH.match(word)))
        if joins and len(_GRAPHEME.findall(
                _GRAPHEME.findall(out[-1])[-1] + _GRAPHEME.match(word)[0])) == 1:
            out[-1] += word
        else:
            out.append(word)
    return " ".join(out)


def drop_reason(src: str, tgt: str, max_len: int, max_ratio: float,
                units: tuple[bool, bool] = (False, False),
                scale: float = 1.0) -> str | None:
    """Why a tokenized training pair is dropped, or None to keep it; `units`
    says which side counts characters instead of tokens, `scale` how many
    units of the source make one of the target in a usual pair of the corpus
    (`ratio_scale`): the source length is divided by it before the ratio."""
    ns, nt = line_length(src, units[0]), line_length(tgt, units[1])
    if ns == 0 or nt == 0:
        return "empty"
    if ns > max_len or nt > max_len:
        return "too_long"
    rs = ns / scale
    if max(rs, nt) / min(rs, nt) > max_ratio:
        return "ratio"
    return None


def ratio_scale(src: list[str], tgt: list[str], units: tuple[bool, bool]) -> float:
    """The median over the pairs of source length per target length (each side
    in its unit, `units`): what a pair of this corpus usually has, so that the
    ratio rule drops what is unusual for it, not every pair of a script with
    short words or of a segmenter that cuts finely.

    Chinese characters against English Moses tokens run about 1.9 a token, so
    an unscaled 2.5 drops a large share of a real corpus."""
    rates = sorted(ns / nt for s, t in zip(src, tgt, strict=True)
                   if (ns := line_length(s, units[0])) and (nt := line_length(t, units[1])))
    if not rates:
        return 1.0
    mid = len(rates) // 2
    return rates[mid] if len(rates) % 2 else (rates[mid - 1] + rates[mid]) / 2


@dataclass
class Options:
    """How to turn raw lines into model text."""

    src_lang: str
    tgt_lang: str
    tokenize: bool = True  # False: input is already tokenized, only re-split
    raw: bool = False  # True: raw text for SentencePiece (words: spaces, or jieba)
    lowercase: bool = False
    filter: bool = False  # training data: drop and count bad pairs
    max_len: int = 100
    max_ratio: float = 2.5
    workers: int = 1


def process_side(lines: list[str], lang: str, opts: Options) -> list[str]:
    """Tokenize (or re-split pre-tokenized) lines and optionally lowercase them."""
    if opts.raw:
        words = word_segmenter(lang)
        out = [words(line) for line in lines]
    elif opts.tokenize:
        out = tokenize_lines(lines, lang, opts.workers)
    else:
        out = [" ".join(line.split()) for line in lines]
    return [line.lower() for line in out] if opts.lowercase else out


def model_text(lines: Iterable[str], lang: str, opts: Options,
               chunk: int = 256) -> Iterator[str]:
    """Lines as cleaning writes them before its filters drop any (the idle
    zero-width spaces dropped, then `process_side`), a chunk at a time: for a
    reader that stops early."""
    lines = iter(lines)
    while batch := list(itertools.islice(lines, chunk)):
        yield from process_side([drop_idle_zero_width_spaces(line) for line in batch],
                                lang, opts)


# a zero-width space beside white space or at either end of a line: it marks
# a break where there is one already
_IDLE_ZERO_WIDTH_SPACE = regex.compile(r"(?:^|(?<=\s))\u200b+|\u200b+(?=\s|$)")


def drop_idle_zero_width_spaces(line: str) -> str:
    """`line` without the zero-width spaces that mark no break (beside a space,
    at an end), which would become tokens that detokenization cannot place.

    Removed from the text before tokenization and from the reference alike,
    so both hold the same zero-width characters: a zero-width space between
    two words (Khmer, Lao, Burmese word breaks), the zero-width joiner and
    non-joiner (Persian می‌خواهم, Indic half forms and chillus, emoji
    sequences) are kept in both."""
    return _IDLE_ZERO_WIDTH_SPACE.sub("", line) if ZERO_WIDTH_SPACE in line else line


def references(raw: list[str], tokens: list[str], opts: Options) -> list[str]:
    """Target lines as sacreBLEU should see them: raw, or detokenized tokens.
    A zero-width space in a language written without spaces is a word-break
    hint that its segmenter read (`--raw`) and no translation writes, so it is
    dropped; Moses keeps it as a token, and detokenization writes it back."""
    if opts.tokenize or opts.raw:
        refs = [line.strip() for line in raw]
        if segmented_here(opts.tgt_lang, opts):
            refs = [line.replace(ZERO_WIDTH_SPACE, "") for line in refs]
        return [line.lower() for line in refs] if opts.lowercase else refs
    return detokenize(tokens, opts.tgt_lang)


_WORDLIKE = regex.compile(r"[\p{L}\p{N}]")


def length_view(line: str) -> str:
    """The line's tokens with a letter or a digit (the line itself when it has
    none): what `--raw` mode counts, so that punctuation a segmenter cut off
    on one side and left on the words of the other does not weigh."""
    words = [token for token in line.split() if _WORDLIKE.search(token)]
    return " ".join(words) if words else line


def segmented_here(lang: str, opts: Options) -> bool:
    """Whether this step cuts the side's words itself (jieba, MeCab, PyThaiNLP,
    LaoNLP, khmer-nltk or mmdt-tokenizer; `--raw` only)."""
    return opts.raw and lang in SEGMENTABLE


def needs_scale(units: tuple[bool, bool], opts: Options) -> bool:
    """Whether the two sides count units of different kinds: characters against
    tokens, or one segmenter's words (`SEGMENTABLE`) against another's or against
    words between spaces. Then the ratio rule compares each pair with the
    corpus's usual ratio (`ratio_scale`)."""
    tools = tuple(SEGMENTABLE[lang] if segmented_here(lang, opts) else None
                  for lang in (opts.src_lang, opts.tgt_lang))
    return units[0] != units[1] or tools[0] != tools[1]


def length_units(src: list[str], tgt: list[str], opts: Options) -> tuple[bool, bool]:
    """Which side counts characters (`counts_characters`), which tokens: a side
    whose words a segmenter cut here counts them, unless they still look like
    unsegmented text."""
    def chars(lang: str, lines: list[str]) -> bool:
        if segmented_here(lang, opts):
            return detect_unsegmented(lines) is not None
        return counts_characters(lang, lines)

    return chars(opts.src_lang, src), chars(opts.tgt_lang, tgt)


def select(src: list[str], tgt: list[str], opts: Options,
           units: tuple[bool, bool] = (False, False),
           scale: float = 1.0) -> tuple[list[int], Counter]:
    """Indices of kept pairs and drop counts by reason (nothing dropped unfiltered)."""
    counts: Counter = Counter({reason: 0 for reason in REASONS})
    if not opts.filter:
        return list(range(len(src))), counts
    keep = []
    for i, (a, b) in enumerate(zip(src, tgt, strict=True)):
        reason = drop_reason(a, b, opts.max_len, opts.max_ratio, units, scale)
        if reason is None:
            keep.append(i)
        else:
            counts[reason] += 1
    return keep, counts


def rule_notes(opts: Options, units: tuple[bool, bool],
               scale: float | None = None) -> dict[str, str]:
    """What each rule tests, with the unit each side is counted in."""
    if not opts.filter:
        return dict.fromkeys(REASONS, "not filtered")
    langs = (opts.src_lang, opts.tgt_lang)
    token = "words" if opts.raw else "tokens"  # raw: tokens with a letter or a digit
    sides = ", ".join(f"{lang}: {'characters' if chars else token}"
                      for lang, chars in zip(langs, units, strict=True))
    ratio_sides = sides
    if scale is not None:  # the ratio rule compared with the corpus's usual ratio
        unit = [("characters" if chars else token)[:-1] for chars in units]
        ratio_sides = (f"{sides}; the {langs[0]} side divided by {scale:.2f}, the "
                       f"corpus's median {langs[0]} {unit[0]}s per {langs[1]} {unit[1]}")
    return {"empty": "a side without a token",
            "too_long": f"a side longer than {opts.max_len} ({sides})",
            "ratio": f"longer side over {opts.max_ratio:g} x the shorter ({ratio_sides})"}


def stats_rows(counts: Counter, kept: int, total: int,
               notes: dict[str, str] | None = None) -> list[str]:
    """TSV lines of the per-rule cleaning report: rule, pairs, percent, what."""
    notes = notes or {}

    def row(rule: str, pairs: int, what: str) -> str:
        share = 100 * pairs / total if total else 0.0
        return f"{rule}\t{pairs}\t{share:.2f}\t{what}"

    return (["rule\tpairs\tpercent\trule_tests"]
            + [row(r, counts[r], notes.get(r, "")) for r in REASONS]
            + [row("kept", kept, "pairs left"), row("total", total, "pairs read")])


def warn_heavy_rules(counts: Counter, total: int, path: Path,
                     notes: dict[str, str]) -> list[str]:
    """One warning per rule that dropped more than WARN_SHARE of the pairs."""
    lines = []
    for rule in REASONS:
        if total and counts[rule] > WARN_SHARE * total:
            lines.append(f"{path}: cleaning rule {rule} dropped "
                         f"{counts[rule]} of {total} pairs "
                         f"({share_over(counts[rule], total, WARN_SHARE)}): "
                         f"{notes[rule]}; see clean.max_len "
                         "and clean.max_ratio")
    for line in lines:
        _log.warning(line)
    return lines


def read_side(path: Path, allow_empty: bool) -> list[str]:
    """One side's lines; the bidirectional controls removed are logged."""
    removed: Counter = Counter()
    lines = read_lines(path, allow_empty=allow_empty, removed=removed)
    if removed:
        _log.info(f"{path}: removed {describe_removed(removed)}")
    return lines


def read_inputs(args: argparse.Namespace, opts: Options):
    """Read source, target and sidecars; check UTF-8, emptiness and line counts.

    The reader removes bidirectional control characters; how many each side
    had goes to the log (stderr).
    """
    src = read_side(args.src_in, opts.filter)
    tgt = read_side(args.tgt_in, opts.filter)
    if len(src) != len(tgt):
        raise InputError(f"has {len(src)} lines but {args.tgt_in} has {len(tgt)}; "
                         "parallel files must match", args.src_in)
    sidecars = []
    for path, out in args.sidecar or []:
        lines = read_lines(path)
        if len(lines) != len(src):
            raise InputError(f"sidecar has {len(lines)} lines but source "
                             f"{args.src_in} has {len(src)}", path)
        sidecars.append((lines, Path(out)))
    return src, tgt, sidecars


def check_not_empty(src: Path, total: int, kept: int, counts: Counter,
                    opts: Options) -> None:
    """Stop here, not at training, when cleaning leaves a split without pairs."""
    if total == 0:
        raise InputError("no sentence pairs (the file is empty)", src)
    if kept == 0:
        why = ", ".join(f"{counts[r]} {r.replace('_', ' ')}" for r in REASONS
                        if counts[r])
        raise InputError(f"every one of its {total} pairs was dropped ({why}; "
                         f"--max-len {opts.max_len}, --max-ratio {opts.max_ratio})",
                         src)


def clean(args: argparse.Namespace, opts: Options) -> tuple[int, int]:
    """Run the whole cleaning step; returns (kept, total)."""
    src_raw, tgt_raw, sidecars = read_inputs(args, opts)
    src_raw = [drop_idle_zero_width_spaces(line) for line in src_raw]
    tgt_raw = [drop_idle_zero_width_spaces(line) for line in tgt_raw]
    for path, lines, lang in ((args.src_in, src_raw, opts.src_lang),
                              (args.tgt_in, tgt_raw, opts.tgt_lang)):
        if not segmented_here(lang, opts):  # else jieba cuts its words
            warn_if_unsegmented(path, lines, WORD_LEVEL_STEPS, moses=opts.tokenize)
    src = process_side(src_raw, opts.src_lang, opts)
    tgt = process_side(tgt_raw, opts.tgt_lang, opts)
    counted = (src, tgt)
    if opts.raw:  # punctuation: cut off by jieba, attached on a side split by spaces
        counted = ([length_view(line) for line in src], [length_view(line) for line in tgt])
    units = length_units(*counted, opts)
    scaled = opts.filter and needs_scale(units, opts)
    scale = ratio_scale(*counted, units) if scaled else 1.0
    keep, counts = select(*counted, opts, units, scale)
    check_not_empty(args.src_in, len(src), len(keep), counts, opts)
    notes = rule_notes(opts, units, scale if scaled else None)
    warn_heavy_rules(counts, len(src), args.src_in, notes)

    def pick(lines: list[str]) -> list[str]:
        return [lines[i] for i in keep]

    outputs = [(args.src_out, pick(src)), (args.tgt_out, pick(tgt))]
    outputs += [(out, pick(lines)) for lines, out in sidecars]
    if args.ref_out:
        outputs.append((args.ref_out, pick(references(tgt_raw, tgt, opts))))
    outputs.append((args.stats, stats_rows(counts, len(keep), len(src), notes)))
    write_all(outputs)
    return len(keep), len(src)


MAX_LEN, MAX_RATIO = 100, 2.5  # --filter's defaults


def build_parser() -> argparse.ArgumentParser:
    """Command-line interface of the cleaning step."""
    p = ArgumentParser(prog="python -m phrasenmt.data.clean",
                       description=__doc__)
    for side, name in (("src", "source"), ("tgt", "target")):
        p.add_argument(f"--{side}-in", required=True, type=Path,
                       help=f"{name} text, one sentence per line")
        p.add_argument(f"--{side}-out", required=True, type=output_file,
                       help=f"output: the cleaned {name} text")
        p.add_argument(f"--{side}-lang", required=True,
                       help=f"{name} language code: Moses' rules, the word "
                       "segmenter of --raw, and the length units of --filter")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--tokenize", dest="tokenize", action="store_true",
                      default=True, help="input is raw text: Moses-tokenize (default)")
    mode.add_argument("--pretokenized", dest="tokenize", action="store_false",
                      help="input is already tokenized: only normalise spaces")
    mode.add_argument("--raw", action="store_true",
                      help="keep raw text for SentencePiece: words are space-"
                      "separated (Chinese: jieba's words), no Moses")
    p.add_argument("--lowercase", action="store_true",
                   help="lowercase both sides after tokenization, and the "
                   "--ref-out reference (config datasets.NAME.lowercase)")
    p.add_argument("--filter", action="store_true",
                   help="training data: drop empty, too long, badly ratioed pairs")
    p.add_argument("--max-len", type=field_type(Clean, "max_len"), default=None,
                   help=f"--filter: tokens per side (default {MAX_LEN})")
    p.add_argument("--max-ratio", type=field_type(Clean, "max_ratio"), default=None,
                   help=f"--filter: longest/shortest side token ratio (default "
                   f"{MAX_RATIO})")
    p.needs("--max-len", "--filter")  # without --filter nothing is dropped
    p.needs("--max-ratio", "--filter")
    p.add_argument("--sidecar", nargs=2, action="append", metavar=("IN", "OUT"),
                   help="per-line file filtered in lockstep; repeatable")
    p.add_argument("--ref-out", type=output_file,
                   help="target as sacreBLEU's reference")
    p.add_argument("--stats", required=True, type=output_file,
                   help="TSV per rule: pairs dropped, percent, what it tests")
    p.add_argument("--workers", type=positive_int, default=1,
                   help="tokenizer processes")
    return p


def options_from(args: argparse.Namespace) -> Options:
    """Build Options from parsed arguments (the parser checked their ranges)."""
    return Options(args.src_lang, args.tgt_lang, args.tokenize and not args.raw,
                   args.raw, args.lowercase,
                   args.filter, MAX_LEN if args.max_len is None else args.max_len,
                   MAX_RATIO if args.max_ratio is None else args.max_ratio,
                   args.workers)


def main(argv: list[str] | None = None) -> int:
    """Clean one parallel split."""
    args = build_parser().parse_args(argv)
    kept, total = clean(args, options_from(args))
    _log.info(f"kept {kept} of {total} pairs")
    return 0


if __name__ == "__main__":
    run_cli(main)
