"""Per-sentence state of the synthetic grammar: its rates, the lexicon pools, and
the Builder that draws words, hands out alignment keys and collects what a
sentence records (multi-word units, mentions, agreement pairs, pronouns)."""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from phrasenmt.synthetic.lexicon import CLASSES, Lexicon, Noun, Verb, Word
from phrasenmt.synthetic.tree import Agreement, Leaf, PronounUse

COPULA = Verb((("be", "VB"),), "ist", "sind", "", "cop", False, None, CLASSES, "-")
_SUBJECT_WEIGHTS = {"p": 45, "a": 20, "t": 14, "f": 6, "l": 5, "x": 10}


@dataclass
class GrammarConfig:
    """Rates that shape the corpus (probabilities per opportunity)."""

    rate_relative_clause: float = 0.25  # top-level noun phrase gets a relative clause
    rate_pp: float = 0.3  # noun phrase gets a PP modifier (0.6x when nested)
    rate_subordinate: float = 0.25  # main clause gets a weil/wenn/... clause
    rate_compound: float = 0.3  # noun is a compound (train station / Bahnhof)
    rate_phrasal: float = 0.3  # verb is phrasal or prepositional (give up)
    rate_pronoun: float = 0.5  # later sentence refers back with a pronoun
    rate_adjective: float = 0.3  # noun phrase has an adjective (a quarter: two)
    rate_plural: float = 0.3  # noun is plural
    rate_adverb: float = 0.3  # clause has an adverb or fixed expression
    rate_front: float = 0.15  # adverbial opens the sentence (German inversion)
    rate_copula: float = 0.12  # main verb is "be" with an adjective or place
    rate_long_sentence: float = 0.04  # sentence drawn with boosted rates (long tail)

    def boosted(self) -> GrammarConfig:
        """Rates for long sentences: more clauses, PPs and modifiers."""
        return replace(self, rate_relative_clause=0.6, rate_pp=0.7,
                       rate_subordinate=0.5, rate_adjective=0.5, rate_adverb=0.5)


# --help text of each rate, the field comments above.
RATE_HELP = {
    "rate_relative_clause": "top-level noun phrase gets a relative clause",
    "rate_pp": "noun phrase gets a PP modifier (0.6x when nested)",
    "rate_subordinate": "main clause gets a weil/wenn/... clause",
    "rate_compound": "noun is a compound (train station / Bahnhof)",
    "rate_phrasal": "verb is phrasal or prepositional (give up)",
    "rate_pronoun": "later sentence refers back with a pronoun",
    "rate_adjective": "noun phrase has an adjective (a quarter: two)",
    "rate_plural": "noun is plural",
    "rate_adverb": "clause has an adverb or fixed expression",
    "rate_front": "adverbial opens the sentence (German inversion)",
    "rate_copula": "main verb is 'be' with an adjective or place",
    "rate_long_sentence": "sentence drawn with boosted rates (long tail)",
}


class Pools:
    """Lexicon entries grouped once for fast, deterministic sampling."""

    def __init__(self, lex: Lexicon):
        self.lex = lex
        self.adjectives = {c: tuple(a for a in lex.adjectives if c in a.classes)
                           for c in CLASSES}
        self.adjunct_preps = tuple(p for p in lex.prepositions
                                   if "l" in p.classes and p.de != "aus")
        self.front_expressions = tuple(e for e in lex.expressions if e.kind == "front")
        self.time_adverbs = tuple(a for a in lex.adverbs if a.kind == "time")
        self.freq_adverbs = tuple(a for a in lex.adverbs if a.kind == "freq")
        self._cache: dict = {}

    def nouns(self, classes: str, compound: bool) -> tuple[Noun, ...]:
        """Nouns (or compounds) of the given classes."""
        key = ("n", classes, compound)
        if key not in self._cache:
            src = self.lex.compounds if compound else self.lex.nouns
            self._cache[key] = tuple(n for n in src if n.cls in classes)
        return self._cache[key]

    def verbs(self, subj: str | None, obj: str | None, embedded: bool,
              multi: bool) -> tuple[Verb, ...]:
        """Verbs for a subject class, or transitive verbs for an object class."""
        key = ("v", subj, obj, embedded, multi)
        if key not in self._cache:
            self._cache[key] = tuple(
                v for v in self.lex.verbs
                if v.multiword == multi and (subj is None or subj in v.subj)
                and (obj is None or (v.frame in ("acc", "dat") and obj in v.obj))
                and not (embedded and v.frame == "clause"))
        return self._cache[key]


@dataclass(frozen=True)
class Mention:
    """A noun mentioned in a sentence, for later pronoun reference."""

    noun: Noun
    plural: bool

    @property
    def pronoun_key(self) -> str:
        """English pronoun class: m/f for persons, it, or pl."""
        if self.plural:
            return "pl"
        return self.noun.gender if self.noun.cls == "p" else "it"

    @property
    def g(self) -> str:
        """German gender key of the mention."""
        return "pl" if self.plural else self.noun.gender


class Builder:
    """Per-sentence state: random source, alignment keys and collected records."""

    def __init__(self, rng: random.Random, cfg: GrammarConfig, pools: Pools):
        self.rng, self.cfg, self.pools, self.lex = rng, cfg, pools, pools.lex
        self.next_key = 0
        self.mwus: list[str] = []
        self.mentions: list[Mention] = []
        self.agreements: list[Agreement] = []
        self.pronouns: list[PronounUse] = []

    def leaf(self, tag: str, word: str) -> Leaf:
        """A new English leaf with a fresh alignment key."""
        self.next_key += 1
        return Leaf(tag, word, self.next_key)

    def pick_noun(self, classes: str) -> Noun:
        """A noun of the classes; a compound with probability rate_compound."""
        if self.rng.random() < self.cfg.rate_compound:
            pool = self.pools.nouns(classes, True)
            if pool:
                return self.rng.choice(pool)
        return self.rng.choice(self.pools.nouns(classes, False))

    def pick_adjectives(self, cls: str) -> list:
        """Zero, one or two distinct adjectives suiting the noun class."""
        r = self.rng.random()
        n = 0 if r >= self.cfg.rate_adjective else 2 if r < self.cfg.rate_adjective / 4 else 1
        return self.rng.sample(self.pools.adjectives[cls], n) if n else []

    def pick_preposition(self, adjunct: bool) -> Word:
        """A preposition; adjuncts use locative ones."""
        pool = self.pools.adjunct_preps if adjunct else self.lex.prepositions
        return self.rng.choice(pool)

    def pick_verb(self, subj: str | None, obj: str | None, embedded: bool) -> Verb:
        """A verb, phrasal with probability rate_phrasal; copula if none fits."""
        multi = self.rng.random() < self.cfg.rate_phrasal
        pool = (self.pools.verbs(subj, obj, embedded, multi)
                or self.pools.verbs(subj, obj, embedded, not multi))
        return self.rng.choice(pool) if pool else COPULA

    def subject_class(self) -> str:
        """A subject noun class, persons and animals most often."""
        return self.rng.choices(list(_SUBJECT_WEIGHTS), list(_SUBJECT_WEIGHTS.values()))[0]
