"""Noun phrases and prepositional phrases, built in English and German at once."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from phrasenmt.synthetic import german
from phrasenmt.synthetic.builder import Builder, Mention
from phrasenmt.synthetic.lexicon import Noun, Word
from phrasenmt.synthetic.tree import De, Leaf, Node, PronounUse

_EN_POSSESSIVE = (("my", "mein"), ("our", "unser"))


@dataclass
class Phrase:
    """A noun phrase in both languages plus what agreement and pronouns need."""

    en: Node
    de: list[De]
    head: De
    g: str
    cls: str
    plural: bool
    pronoun: bool = False
    noun: Noun | None = None
    has_rel: bool = False
    definite: bool = True

    @property
    def syncretic(self) -> bool:
        """True when nominative and accusative look alike (die/das/plural, sie/es)."""
        return self.g != "m"


# Builds a relative clause on a noun phrase: arguments.relative_clause, handed to
# noun_phrase by its callers (clauses are made of noun phrases, so this module
# cannot import the clause builder).
RelativeClause = Callable[[Builder, Phrase], tuple[Node, list[De]]]


def _determiner(s: Builder, noun: Noun, plural: bool) -> tuple[str, str, str]:
    """Pick (kind, English word, German stem); kind drives German inflection."""
    r = s.rng.random()
    if not plural:
        if r < 0.6:
            return "def", "the", ""
        if r < 0.85:
            return "ein", "a", "ein"
        if r < 0.9:
            return "dies", "this", ""
        return ("poss", *s.rng.choice(_EN_POSSESSIVE))
    if r < 0.5:
        return "def", "the", ""
    if r < 0.7:
        return "none", "", ""
    if r < 0.85:
        num = s.rng.choice(s.lex.numerals)
        return "num", num.en[0][0], num.de
    if r < 0.9:
        return "dies", "these", ""
    return ("poss", *s.rng.choice(_EN_POSSESSIVE))


def _noun_leaves(s: Builder, noun: Noun, plural: bool) -> tuple[list, list[Leaf]]:
    """English noun words as tree parts; 'X of Y' nouns get an inner PP."""
    words = noun.en_pl if plural else noun.en_sg
    if "of" not in words:
        tags = ["NN"] * (len(words) - 1) + ["NNS" if plural else "NN"]
        out = [s.leaf(t, w) for t, w in zip(tags, words, strict=True)]
        return out, out
    i = words.index("of")
    head = [s.leaf("NN", w) for w in words[:i]]
    if plural:
        head[-1].tag = "NNS"
    of = s.leaf("IN", "of")
    rest = [s.leaf("NN", w) for w in words[i + 1:]]
    return [head, Node("PP", [of, Node("NP", rest)])], head + [of] + rest


def _core(s: Builder, noun: Noun, plural: bool, case: str) -> Phrase:
    """Determiner + adjectives + noun, without modifiers."""
    kind, en_det, de_stem = _determiner(s, noun, plural)
    g = german.gkey(noun.gender, plural)
    adjs = s.pick_adjectives(noun.cls)
    en_parts, noun_leaves = _noun_leaves(s, noun, plural)
    first_word = adjs[0].en if adjs else noun_leaves[0].word
    pre_en: list[Leaf] = []
    de: list[De] = []
    if en_det:
        if en_det == "a" and first_word[0] in "aeiou":
            en_det = "an"
        det = s.leaf("CD" if kind == "num" else "DT", en_det)
        pre_en.append(det)
        de_word = de_stem if kind == "num" else german.determiner(kind, case, g, de_stem)
        de.append(De(de_word, (det.key,)))
    for adj in adjs:
        leaf = s.leaf("JJ", adj.en)
        pre_en.append(leaf)
        ending = german.adjective_ending(kind, case, g)
        de.append(De(adj.de_stem + ending, (leaf.key,)))
    head = De(noun.de_form(plural, case), tuple(x.key for x in noun_leaves))
    de.append(head)
    if noun.multiword:
        s.mwus.append(" ".join(noun.en_sg))
    if isinstance(en_parts[0], list):
        en = Node("NP", [Node("NP", pre_en + en_parts[0]), en_parts[1]])
    else:
        en = Node("NP", pre_en + en_parts)
    return Phrase(en, de, head, g, noun.cls, plural, noun=noun,
                  definite=kind in ("def", "dies", "poss"))


def noun_phrase(s: Builder, case: str, classes: str, depth: int = 0,
                relative_clause: RelativeClause | None = None) -> Phrase:
    """A noun phrase in `case` headed by a noun of one of `classes`; at depth 0,
    with `relative_clause`, it may get a relative clause."""
    noun = s.pick_noun(classes)
    plural = noun.de_pl is not None and s.rng.random() < s.cfg.rate_plural
    phrase = _core(s, noun, plural, case)
    s.mentions.append(Mention(noun, plural))
    kids = [phrase.en]
    if depth < 2 and s.rng.random() < s.cfg.rate_pp * (0.6 if depth else 1.0):
        pp_en, pp_de = prep_phrase(s, depth + 1, classes=None)
        kids.append(pp_en)
        phrase.de += pp_de
    if (depth == 0 and relative_clause is not None
            and s.rng.random() < s.cfg.rate_relative_clause):
        rel_en, rel_de = relative_clause(s, phrase)
        kids.append(rel_en)
        phrase.de += rel_de
        phrase.has_rel = True
    if len(kids) > 1:
        phrase.en = Node("NP", kids)
    return phrase


def pronoun_phrase(s: Builder, mention: Mention, case: str) -> Phrase:
    """A personal pronoun standing for `mention` in `case`."""
    key = mention.pronoun_key
    en_word = german.ENGLISH_PRONOUNS["nom" if case == "nom" else "obj"][key]
    leaf = s.leaf("PRP", en_word)
    head = De(german.personal_pronoun(case, mention.g), (leaf.key,))
    s.mentions.append(mention)
    if key == "it":
        others = german.other_gender_forms(case, mention.g)
        s.pronouns.append(PronounUse(head, [f for f, _ in others], mention.noun.de_sg,
                                     mention.g, [g for _, g in others]))
    return Phrase(Node("NP", [leaf]), [head], head, mention.g, mention.noun.cls,
                  mention.plural, pronoun=True, noun=mention.noun)


def with_preposition(s: Builder, prep: Word, obj: Phrase) -> tuple[Node, list[De]]:
    """Join a preposition to its object, contracting in dem -> im where standard."""
    en_leaves = [s.leaf(tag, word) for word, tag in prep.en]
    keys = tuple(x.key for x in en_leaves)
    if len(prep.en) > 1:
        s.mwus.append(" ".join(w for w, _ in prep.en))
    de = obj.de
    short = german.contract(prep.de, de[0].word) if not obj.has_rel else None
    if short:
        de = [De(short, keys + de[0].keys)] + de[1:]
    else:
        de = [De(prep.de, keys)] + de
    return Node("PP", en_leaves + [obj.en]), de


def prep_phrase(s: Builder, depth: int, classes: str | None,
                adjunct: bool = False) -> tuple[Node, list[De]]:
    """A prepositional phrase; adjuncts use locative prepositions only."""
    prep = s.pick_preposition(adjunct)
    obj = noun_phrase(s, prep.kind, prep.classes, depth)
    return with_preposition(s, prep, obj)
