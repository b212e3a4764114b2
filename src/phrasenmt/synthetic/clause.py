"""Clauses of the synchronous grammar: verb frames, German word order, agreement.

German order: verb-second in main clauses (the separable particle at the clause
end), verb-final in subordinate and relative clauses (particle joined: anruft).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace

from phrasenmt.synthetic import german
from phrasenmt.synthetic.lexicon import CLASSES, Lexicon, Noun, Verb, Word
from phrasenmt.synthetic.phrases import Mention, Phrase, noun_phrase
from phrasenmt.synthetic.tree import Agreement, De, Leaf, Node, PronounUse

COPULA = Verb((("be", "VB"),), "ist", "sind", "", "cop", False, None, CLASSES, "-")
WRAP = {"RP": "PRT", "JJ": "ADJP", "VBN": "VP", "NN": "NP", "RB": "ADVP"}
_SUBJECT_WEIGHTS = {"p": 45, "a": 20, "t": 14, "f": 6, "l": 5, "x": 10}
# German middle-field ranks: pronouns, dative, definite accusative, adverb,
# indefinite accusative, adjunct PP, prepositional object, predicate.
PRON_ACC, PRON_DAT, DAT, ACC_DEF, ADV, ACC_INDEF, ADJUNCT, PREP_OBJ, PRED = range(9)


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


@dataclass
class Clause:
    """One clause in both languages before German word order is fixed."""

    verb: Verb
    plural: bool
    subj: Phrase | None
    verb_leaf: Leaf
    keys: dict[str, list[int]]
    vp: list = field(default_factory=list)
    pre_vp: list = field(default_factory=list)
    items: list[tuple[int, list[De]]] = field(default_factory=list)
    extra: list[De] = field(default_factory=list)
    acc_objects: list[tuple[bool, bool]] = field(default_factory=list)
    gap_case: str = ""


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

    def relative_clause(self, head: Phrase) -> tuple[Node, list[De]]:
        """A relative clause on `head`: subject gap (who sees) or object gap."""
        gap = "subj"
        if self.rng.random() < 0.4 and self.pools.verbs(None, head.cls, True, False):
            gap = "obj"
        c = make_clause(self, 1, gap=gap, head=head)
        if gap == "subj" and head.cls == "p":
            rel = self.leaf("WP", "who")
        else:
            rel = self.leaf("WDT", "that")
        case = c.gap_case or "nom"
        lead = [De(","), De(german.relative_pronoun(case, head.g), (rel.key,))]
        de = realize(self, c, "rel", lead=lead) + [De(",")]
        return Node("SBAR", [Node("WHNP", [rel]), english_clause(c)]), de


def _verb_keys(verb: Verb, head: int, extras: list[Leaf]) -> dict[str, list[int]]:
    """Which English leaves each German verb part (verb, particle, sich, prep) gets."""
    keys = {"verb": [head], "particle": [head], "refl": [head], "prep": []}
    for leaf in extras:
        if leaf.tag in ("IN", "TO"):
            slot = "prep" if verb.prep else "particle" if verb.particle else "verb"
            keys[slot].append(leaf.key)
        else:
            keys["particle" if verb.particle else "verb"].append(leaf.key)
            keys["refl"].append(leaf.key)
    return keys


def _choose_verb(s: Builder, depth: int, cls: str | None,
                 obj_cls: str | None) -> tuple[Verb, str]:
    """Pick the verb and the subject class that goes with it."""
    if obj_cls is not None:
        verb = s.pick_verb(None, obj_cls, depth > 0)
        return verb, s.rng.choice(verb.subj)
    cls = cls or s.subject_class()
    if s.rng.random() < s.cfg.rate_copula:
        return COPULA, cls
    return s.pick_verb(cls, None, depth > 0), cls


def make_clause(s: Builder, depth: int, subj: Phrase | None = None, gap: str = "",
                head: Phrase | None = None, obj: Mention | None = None) -> Clause:
    """Build a clause; gap 'subj'/'obj' leaves that slot to a relative pronoun.

    `obj` makes the object a pronoun for an earlier mention.
    """
    from phrasenmt.synthetic.arguments import add_adverbials, add_arguments

    obj_cls = head.cls if gap == "obj" else obj.noun.cls if obj is not None else None
    known = head.cls if gap == "subj" else subj.cls if subj is not None else None
    verb, cls = _choose_verb(s, depth, known, obj_cls)
    if subj is None and gap != "subj":
        subj = noun_phrase(s, "nom", cls, 0 if depth == 0 else 1)
    plural = subj.plural if subj is not None else head.plural
    if verb is COPULA:
        verb_leaf = s.leaf("VBP" if plural else "VBZ", "are" if plural else "is")
    else:
        verb_leaf = s.leaf("VBP" if plural else "VBZ", verb.en_form(plural))
    extras = [s.leaf(tag, word) for word, tag in verb.en[1:]]
    if verb.multiword:
        s.mwus.append(" ".join(w for w, _ in verb.en))
    c = Clause(verb, plural, subj, verb_leaf, _verb_keys(verb, verb_leaf.key, extras))
    add_arguments(s, c, extras, depth, gap, head, obj)
    add_adverbials(s, c, depth)
    return c


def english_clause(c: Clause) -> Node:
    """The English S node of a clause (subject, pre-verbal adverb, VP)."""
    kids = ([c.subj.en] if c.subj is not None else []) + c.pre_vp
    return Node("S", kids + [Node("VP", [c.verb_leaf] + c.vp)])


def realize(s: Builder, c: Clause, kind: str, lead: list[De] | None = None,
            front: list[De] | None = None) -> list[De]:
    """German tokens of a clause: kind 'main' (V2) or 'sub'/'rel' (verb-final)."""
    joined = kind != "main"
    keys = c.keys["verb"] + (c.keys["particle"] if joined and c.verb.particle else [])
    verb = De(c.verb.de_form(c.plural, joined), sorted(set(keys)))
    refl = [De("sich", c.keys["refl"])] if c.verb.reflexive else []
    ordered = sorted(c.items, key=lambda item: item[0])
    clitics = refl + [t for rank, toks in ordered if rank <= PRON_DAT for t in toks]
    rest = [t for rank, toks in ordered if rank > PRON_DAT for t in toks]
    subj = c.subj.de if c.subj is not None else []
    if kind != "main":
        out = (lead or []) + subj + clitics + rest + [verb]
    elif front is None:
        out = subj + [verb] + clitics + rest
    elif c.subj is not None and c.subj.pronoun:
        out = front + [verb] + subj + clitics + rest
    else:
        out = front + [verb] + clitics + subj + rest
    if kind == "main" and c.verb.particle:
        out.append(De(c.verb.particle, c.keys["particle"]))
    if front is None:
        _record_agreement(s, c, verb, joined)
    return out + c.extra


def _record_agreement(s: Builder, c: Clause, verb: De, joined: bool) -> None:
    """Keep a subject-verb pair unless the wrong number could still be grammatical."""
    subj = c.subj
    if subj is None or (subj.pronoun and subj.head.word == "sie"):
        return
    if subj.syncretic and any(sync and plural != subj.plural
                              for sync, plural in c.acc_objects):
        return
    wrong = c.verb.de_form(not c.plural, joined)
    s.agreements.append(Agreement(subj.head, verb, wrong))
