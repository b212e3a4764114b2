"""Put punctuation back where the writer had it after Moses detokenization.

The Moses tokenizer splits off every punctuation mark, of any script, but the
Moses detokenizer only rejoins the ASCII ones (and „ “), so Arabic "، ؟ ؛",
Devanagari "। ॥", Hebrew "׃", full-width "，？！（）", guillemets and curly quotes
came back with spaces around them. `attach_punctuation` rejoins them by their
Unicode class, the way writing in their scripts spaces them:

- closing marks (close brackets, final quotes, the Unicode Terminal_Punctuation
  marks of every script, the Armenian comma "՝", "…", per cent and per mille
  signs, primes) attach to the word before;
- opening marks (open brackets, initial quotes, "¿", "¡") to the word after;
- paired quotes (“ ” „, ‘ ’ ‚, « », ‹ ›) open and close in turn, so both
  «так» and German »so« come back whole; French, Occitan and Breton keep
  the spaces inside their « ».
- marks written inside a word join both neighbours: Hebrew geresh and
  gershayim between letters (צה״ל), the Arabic decimal and thousands
  separators between digits (٣٫٥), the Tibetan tsheg after a syllable
  (བཀྲ་ཤིས), and the apostrophe ’ in an elision or
  contraction (l’homme, don’t; in English only before t, s, re, ve, ll, d, m
  or after a one-letter word, O’Brien, so "the students’ books" keeps its
  space).
- a Hebrew maqaf joins the word after it (ל־100, ו־"הארץ"), and so does a
  one-letter Hebrew prefix before an opening quotation mark (ה"עומק");
- an ellipsis that opens a line joins the word after it (...and then);
- between Han, kana and full-width characters there is no space at all, none
  beside full-width punctuation in Chinese and Japanese (：%s, name（名称）), and
  in Chinese and Japanese none between them and a bracket, full-width or not
  (東部クリー語(南部)です).

ASCII marks are left to Moses, as are dashes and symbols other than per cent
signs and primes, whose spacing the writer chooses (a – b, § 5): those come
back spaced. A slash or a dash written between two letters or digits (and/or,
1990–2000) never leaves its token (`phrasenmt.data.clean.tokenize`).
"""

from __future__ import annotations

import regex

from phrasenmt.text.scripts import LARGE_CHARACTER_SET_LANGUAGES

_QUOTES = ("“”„‟", "‘’‚‛", "«»", "‹›")
_QUOTE_KIND = {c: i for i, chars in enumerate(_QUOTES) for c in chars}
_GUILLEMETS = _QUOTE_KIND["«"]
_APOSTROPHE = "’"
# inside a word or number: Hebrew geresh and gershayim (acronyms, numerals),
# the Arabic decimal and thousands separators (٣٫٥, ١٠٬٠٠٠)
_IN_WORD = "׳״٫٬"
# the Hebrew maqaf, and the one-letter prefixes of a Hebrew word (and, the, in,
# as, to, from, that): neither ends a word, so what follows joins them
_MAQAF = "\u05be"
_HEBREW_PREFIXES = "והבכלמש"
# the Tibetan tsheg (and non-breaking tsheg): ends a syllable, and the next
# syllable follows without a space
_TSHEG = "\u0f0b\u0f0c"
_ENGLISH_CLITICS = {"t", "s", "re", "ve", "ll", "d", "m"}
# languages other than French that space their high punctuation (":", "« »")
# as French does: Occitan, Breton ("concernits : « %s »")
SPACED_AS_FRENCH = frozenset({"oc", "oci", "br", "bre"})
_SPACED_GUILLEMETS = SPACED_AS_FRENCH | {"fr", "fra"}
# languages whose elided words end in an apostrophe before a space: Scottish
# Gaelic "a’ Chuain", Maltese "ta’ Fuq"
_SPACE_AFTER_ELISION = {"gd", "gla", "mt", "mlt"}
_CLOSES = regex.compile(r"[\p{Pe}\p{Pf}\p{Terminal_Punctuation}…‰‱′″‴٪؉؊％՝]+")
_OPENS = regex.compile(r"[\p{Ps}\p{Pi}¿¡]+")
_LETTER = regex.compile(r"[\p{L}\p{M}\p{N}]")
_LETTERS = regex.compile(r"[\p{L}\p{M}\p{N}]+")
# wide characters, written without spaces between them (not Korean Hangul)
_WIDE = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\u3000-\u303f\uff00-\uffef]")
# an ellipsis that opens the line, and the space Moses put after it
_OPENING_ELLIPSIS = regex.compile(r"^(\.\.\.|…) (?=[\p{L}\p{N}])")
# full-width punctuation (ideographic comma and full stop, full-width colon, ...)
_FULLWIDTH_PUNCT = regex.compile(r"(?=\p{P})[\u3000-\u303f\uff00-\uffef]")


class _Line:
    """The chunks of one detokenized line and the quotes opened so far."""

    def __init__(self, lang: str):
        self.lang = lang
        # Chinese and Japanese set curly quotes full-width, without spaces
        self.wide_quotes = lang in LARGE_CHARACTER_SET_LANGUAGES
        self.open_quotes = [0] * len(_QUOTES)  # marks seen per kind
        self.apostrophe = False  # the last chunk glued was an apostrophe, no quote

    def count(self, chunk: str) -> None:
        if self.apostrophe:  # l’homme: opens or closes no quotation
            self.apostrophe = False
            return
        for char in chunk:
            if char in _QUOTE_KIND:
                self.open_quotes[_QUOTE_KIND[char]] += 1

    def wide(self, char: str) -> bool:
        return _wide(char) or (self.wide_quotes and char in _QUOTE_KIND)

    def glue(self, prev: str, chunk: str, after: str) -> tuple[bool, bool]:
        """(join `chunk` to `prev`, join the next chunk `after` to `chunk`);
        `prev` is "" at the start of the line."""
        join, next_too = self._glue(prev, chunk, after)
        return join or _hebrew_attached(prev, chunk, self.open_quotes), next_too

    def _glue(self, prev: str, chunk: str, after: str) -> tuple[bool, bool]:
        last, first = prev[-1:], after[:1]
        if self.wide_quotes and (_FULLWIDTH_PUNCT.match(last) or _FULLWIDTH_PUNCT.match(chunk)):
            return True, False  # no space beside "，" "：" "（" "。"
        if chunk.isascii() and not self.wide(last):
            return False, False  # Moses placed it
        if len(chunk) == 1 and chunk in _IN_WORD and _letter(last):
            return True, _letter(first)
        rest = chunk.lstrip(_TSHEG)  # a tsheg, or one before a closing mark: ་)
        if rest != chunk and _letter(last) and (not rest or _CLOSES.fullmatch(rest)):
            return True, not rest and _letter(first)
        if (chunk == _APOSTROPHE and self.open_quotes[_QUOTE_KIND["‘"]] % 2 == 0
                and _letter(last) and _letter(first)):
            self.apostrophe = True
            if self.lang in _SPACE_AFTER_ELISION:
                return True, False
            return True, (self.lang != "en" or len(prev) == 1  # O’Brien, Côte d’Ivoire
                          or _LETTERS.match(after)[0].lower() in _ENGLISH_CLITICS)
        if chunk[0] in _QUOTE_KIND and (len(chunk) == 1  # or Moses put "," after it
                                        or _CLOSES.fullmatch(chunk[1:])):
            kind = _QUOTE_KIND[chunk[0]]
            if kind == _GUILLEMETS and self.lang in _SPACED_GUILLEMETS:
                return False, False
            closing = self.open_quotes[kind] % 2 == 1  # none between wide text
            return (closing or self.wide(last),
                    (not closing and len(chunk) == 1) or self.wide(first))
        if _CLOSES.fullmatch(chunk):
            return True, False
        wide = self.wide(last) and self.wide(chunk[0])
        if self.wide_quotes and not wide:  # Chinese and Japanese: no space beside a
            opens = _OPENS.match(chunk)       # bracket between wide characters either
            inside = (chunk[opens.end():] or after)[:1] if opens else ""
            wide = (bool(opens) and self.wide(last) and self.wide(inside)) or (
                self.wide(chunk[0]) and bool(_CLOSES.fullmatch(last))
                and self.wide(prev[-2:-1]))
        if _OPENS.fullmatch(chunk):
            return wide, True
        return wide, False


# Moses pairs „ and “ with the ASCII '"' but leaves ” spaced, so after one
# “…” it takes the next “ for a closing mark. Tokens of curly quotes and
# guillemets go through Moses as Unicode noncharacters, which it leaves alone,
# and `attach_punctuation` places them.
_QUOTE_CHARS = "".join(_QUOTES)
_HIDDEN = "".join(chr(0xFDD0 + i) for i in range(len(_QUOTE_CHARS)))
_HIDE = str.maketrans(_QUOTE_CHARS, _HIDDEN)
_SHOW = str.maketrans(_HIDDEN, _QUOTE_CHARS)


def hide_quotes(tokens: list[str]) -> list[str]:
    """Tokens with each curly quote or guillemet token hidden from Moses."""
    if any(c in _HIDDEN for t in tokens for c in t):  # noncharacters in the text
        return tokens
    return [t.translate(_HIDE) if t in _QUOTE_KIND else t for t in tokens]


def show_quotes(text: str, tokens: list[str]) -> str:
    """`text` with the quotes `hide_quotes` hid put back."""
    if any(c in _HIDDEN for t in tokens for c in t):
        return text
    return text.translate(_SHOW)


def _hebrew_attached(prev: str, chunk: str, open_quotes: list[int]) -> bool:
    """Whether `chunk` joins a Hebrew `prev` that cannot end a word: a letter
    and a maqaf (ל־100, ו־"הארץ"), or a one-letter prefix before an opening
    quotation mark (ה"עומק", ב„כן”), which Moses left spaced. (A word of two
    such letters, של or כל, is a word: `של "%s"`.)"""
    if prev[-1:] == _MAQAF:
        return _letter(prev[-2:-1])
    if len(prev) != 1 or prev not in _HEBREW_PREFIXES:
        return False
    if chunk[0] in "\"'":  # Moses put an ASCII quotation mark on its word
        return len(chunk) > 1 and _letter(chunk[1])
    kind = _QUOTE_KIND.get(chunk[0])
    return kind is not None and open_quotes[kind] % 2 == 0


def _letter(char: str) -> bool:
    return bool(char) and bool(_LETTER.match(char))


def _wide(char: str) -> bool:
    return bool(char) and bool(_WIDE.match(char))


def attach_punctuation(text: str, lang: str) -> str:
    """Rejoin the non-ASCII punctuation the Moses detokenizer left spaced."""
    text = _OPENING_ELLIPSIS.sub(r"\1", text)
    if text.isascii():
        return text
    chunks = [c for c in text.split(" ") if c]
    out: list[str] = []
    line = _Line(lang)
    join_next = False
    for i, chunk in enumerate(chunks):
        after = chunks[i + 1] if i + 1 < len(chunks) else ""
        join, next_too = line.glue(out[-1] if out else "", chunk, after)
        if out and (join or join_next):
            out[-1] += chunk
        else:
            out.append(chunk)
        line.count(chunk)
        join_next = next_too
    return " ".join(out)
