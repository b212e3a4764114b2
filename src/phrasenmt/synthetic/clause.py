"""Clauses of the synchronous grammar: verb frames, German word order, agreement.

German order: verb-second in main clauses (the separable particle at the clause
end), verb-final in subordinate and relative clauses (particle joined: anruft).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from phrasenmt.synthetic.builder import Builder
from phrasenmt.synthetic.lexicon import Verb
from phrasenmt.synthetic.phrases import Phrase
from phrasenmt.synthetic.tree import Agreement, De, Leaf, Node

WRAP = {"RP": "PRT", "JJ": "ADJP", "VBN": "VP", "NN": "NP", "RB": "ADVP"}
# German middle-field ranks: pronouns, dative, definite accusative, adverb,
# indefinite accusative, adjunct PP, prepositional object, predicate.
PRON_ACC, PRON_DAT, DAT, ACC_DEF, ADV, ACC_INDEF, ADJUNCT, PREP_OBJ, PRED = range(9)


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
