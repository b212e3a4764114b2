"""Typed access to the English-German lexicon used by the synthetic corpus."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from phrasenmt.synthetic.lexicon_multiword import COMPOUNDS, EXPRESSIONS
from phrasenmt.synthetic.lexicon_nouns import NOUNS
from phrasenmt.synthetic.lexicon_words import (
    ADJECTIVES,
    ADVERBS,
    NUMERALS,
    PREPOSITIONS,
    SUBORDINATORS,
    VERBS,
)

CLASSES = "patflx"
_TAGS = {
    "in": "IN", "at": "IN", "on": "IN", "of": "IN", "by": "IN", "for": "IN",
    "from": "IN", "after": "IN", "before": "IN", "without": "IN", "with": "IN",
    "near": "IN", "under": "IN", "behind": "IN", "above": "IN", "opposite": "IN",
    "because": "IN", "when": "WRB", "if": "IN", "although": "IN", "while": "IN",
    "the": "DT", "a": "DT", "every": "DT", "this": "DT", "to": "TO",
    "next": "JJ", "last": "JJ", "first": "JJ", "least": "JJS",
}


def default_tag(word: str) -> str:
    """Penn Treebank tag of a function word, NN for anything else."""
    return _TAGS.get(word, "NN")


def tagged(text: str) -> tuple[tuple[str, str], ...]:
    """Split 'as/RB soon/RB' into (word, tag) pairs, filling in default tags."""
    pairs = []
    for item in text.split():
        word, _, tag = item.partition("/")
        pairs.append((word, tag or default_tag(word)))
    return tuple(pairs)


@dataclass(frozen=True)
class Noun:
    """A noun with English and German singular/plural, German gender and class."""

    en_sg: tuple[str, ...]
    en_pl: tuple[str, ...] | None
    de_sg: str
    de_pl: str | None
    gender: str
    cls: str

    @property
    def multiword(self) -> bool:
        """True when the English side has several words (a compound)."""
        return len(self.en_sg) > 1

    def de_form(self, plural: bool, case: str) -> str:
        """German form; dative plural adds -n unless the plural ends in n or s."""
        if not plural:
            return self.de_sg
        form = self.de_pl or self.de_sg
        if case == "dat" and not form.endswith(("n", "s")):
            form += "n"
        return form


@dataclass(frozen=True)
class Verb:
    """A verb: English words with tags, German 3sg/3pl, particle and frame."""

    en: tuple[tuple[str, str], ...]
    de_sg: str
    de_pl: str
    particle: str
    frame: str
    reflexive: bool
    prep: tuple[str, str] | None
    subj: str
    obj: str

    @property
    def multiword(self) -> bool:
        """True for phrasal and prepositional verbs (give up, wait for)."""
        return len(self.en) > 1

    def en_form(self, plural: bool) -> str:
        """English present tense of the head verb for a 3rd person subject."""
        base = self.en[0][0]
        return base if plural else third_singular(base)

    def de_form(self, plural: bool, joined: bool) -> str:
        """German 3sg/3pl; joined puts the separable particle in front (anruft)."""
        form = self.de_pl if plural else self.de_sg
        return self.particle + form if joined and self.particle else form


@dataclass(frozen=True)
class Adjective:
    """An adjective: English, German predicative form and inflection stem."""

    en: str
    de_pred: str
    de_stem: str
    classes: str


@dataclass(frozen=True)
class Word:
    """A simple translation pair with a kind/case field and class restriction."""

    en: tuple[tuple[str, str], ...]
    de: str
    kind: str
    classes: str = CLASSES


def third_singular(base: str) -> str:
    """English 3rd person singular present: see -> sees, wash -> washes."""
    if base.endswith(("s", "sh", "ch", "x", "z", "o")):
        return base + "es"
    if base.endswith("y") and base[-2] not in "aeiou":
        return base[:-1] + "ies"
    return base + "s"


def _rows(table: str) -> list[list[str]]:
    return [line.split("|") for line in table.strip().splitlines()]


def _classes(text: str) -> str:
    return CLASSES if text == "*" else text


def _noun(row: list[str]) -> Noun:
    en_sg, en_pl, de_sg, de_pl, gender, cls = row
    return Noun(tuple(en_sg.split()), None if en_pl == "-" else tuple(en_pl.split()),
                de_sg, None if de_pl == "-" else de_pl, gender, cls)


def _verb(row: list[str]) -> Verb:
    en, de_sg, de_pl, particle, frame, subj, obj = row
    words = en.split()
    en_pairs = ((words[0], "VB"),) + tuple(tuple(w.split(":")) for w in words[1:])
    reflexive = frame.startswith("refl+")
    frame = frame.removeprefix("refl+")
    prep = None
    if frame.startswith("prep:"):
        _, p, case = frame.split(":")
        frame, prep = "prep", (p, case)
    return Verb(en_pairs, de_sg, de_pl, "" if particle == "-" else particle, frame,
                reflexive, prep, _classes(subj), _classes(obj))


@dataclass(frozen=True)
class Lexicon:
    """All word lists, parsed once."""

    nouns: tuple[Noun, ...]
    compounds: tuple[Noun, ...]
    verbs: tuple[Verb, ...]
    adjectives: tuple[Adjective, ...]
    adverbs: tuple[Word, ...]
    prepositions: tuple[Word, ...]
    numerals: tuple[Word, ...]
    subordinators: tuple[Word, ...]
    expressions: tuple[Word, ...]

    @property
    def all_nouns(self) -> tuple[Noun, ...]:
        """Simple nouns followed by compounds."""
        return self.nouns + self.compounds


@cache
def load() -> Lexicon:
    """Parse the lexicon tables (cached)."""
    return Lexicon(
        nouns=tuple(_noun(r) for r in _rows(NOUNS)),
        compounds=tuple(_noun(r) for r in _rows(COMPOUNDS)),
        verbs=tuple(_verb(r) for r in _rows(VERBS)),
        adjectives=tuple(Adjective(r[0], r[1], r[2], _classes(r[3]))
                         for r in _rows(ADJECTIVES)),
        adverbs=tuple(Word(((r[0], "RB"),), r[1], r[2]) for r in _rows(ADVERBS)),
        prepositions=tuple(Word(tagged(r[0]), r[1], r[2], _classes(r[3]))
                           for r in _rows(PREPOSITIONS)),
        numerals=tuple(Word(((r[0], "CD"),), r[1], "num") for r in _rows(NUMERALS)),
        subordinators=tuple(Word(tagged(r[0]), r[1], "sub")
                            for r in _rows(SUBORDINATORS)),
        expressions=tuple(Word(tagged(r[0]), r[1], "front" if r[2] == "y" else "end")
                          for r in _rows(EXPRESSIONS)),
    )
