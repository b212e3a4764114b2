"""Building a clause in English and German: its verb, the verb's arguments,
adverbials, and relative clauses on noun phrases."""

from __future__ import annotations

from phrasenmt.synthetic import german
from phrasenmt.synthetic.builder import COPULA, Builder, Mention
from phrasenmt.synthetic.clause import (
    ACC_DEF,
    ACC_INDEF,
    ADJUNCT,
    ADV,
    DAT,
    PRED,
    PREP_OBJ,
    PRON_ACC,
    PRON_DAT,
    WRAP,
    Clause,
    english_clause,
    realize,
)
from phrasenmt.synthetic.lexicon import Verb, Word
from phrasenmt.synthetic.phrases import (
    Phrase,
    noun_phrase,
    prep_phrase,
    pronoun_phrase,
)
from phrasenmt.synthetic.tree import De, Leaf, Node


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
    obj_cls = head.cls if gap == "obj" else obj.noun.cls if obj is not None else None
    known = head.cls if gap == "subj" else subj.cls if subj is not None else None
    verb, cls = _choose_verb(s, depth, known, obj_cls)
    if subj is None and gap != "subj":
        subj = noun_phrase(s, "nom", cls, 0 if depth == 0 else 1, relative_clause)
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


def relative_clause(s: Builder, head: Phrase) -> tuple[Node, list[De]]:
    """A relative clause on `head`: subject gap (who sees) or object gap."""
    gap = "subj"
    if s.rng.random() < 0.4 and s.pools.verbs(None, head.cls, True, False):
        gap = "obj"
    c = make_clause(s, 1, gap=gap, head=head)
    if gap == "subj" and head.cls == "p":
        rel = s.leaf("WP", "who")
    else:
        rel = s.leaf("WDT", "that")
    case = c.gap_case or "nom"
    lead = [De(","), De(german.relative_pronoun(case, head.g), (rel.key,))]
    de = realize(s, c, "rel", lead=lead) + [De(",")]
    return Node("SBAR", [Node("WHNP", [rel]), english_clause(c)]), de


def _wrap(leaf: Leaf) -> Node:
    """Put a verb's extra word in its phrase: up -> (PRT (RP up))."""
    return Node(WRAP.get(leaf.tag, "PRT"), [leaf])


def _object_rank(case: str, obj: Phrase) -> int:
    """German middle-field rank of an object."""
    if obj.pronoun:
        return PRON_ACC if case == "acc" else PRON_DAT
    if case == "dat":
        return DAT
    return ACC_DEF if obj.definite else ACC_INDEF


def _english_object(extras: list[Leaf], obj: Phrase | None) -> list:
    """English VP material after the verb: particles, stranded or heading a PP."""
    if extras and extras[-1].tag in ("IN", "TO"):
        pp_kids = [extras[-1]] + ([obj.en] if obj is not None else [])
        return [_wrap(x) for x in extras[:-1]] + [Node("PP", pp_kids)]
    wrapped = [_wrap(x) for x in extras]
    if obj is None:
        return wrapped
    return [obj.en] + wrapped if obj.pronoun else wrapped + [obj.en]


def _object(s: Builder, c: Clause, case: str, depth: int, obj: Phrase | None,
            classes: str) -> Phrase:
    """The given object or a new noun phrase, filed in the middle field."""
    if obj is None:
        obj = noun_phrase(s, case, classes, 0 if depth == 0 else 1, relative_clause)
    c.items.append((_object_rank(case, obj), obj.de))
    if case == "acc":
        c.acc_objects.append((obj.syncretic, obj.plural))
    return obj


def add_arguments(s: Builder, c: Clause, extras: list[Leaf], depth: int, gap: str,
                  head: Phrase | None, obj: Mention | None) -> None:
    """Fill objects, complements and predicates according to the verb frame."""
    frame = c.verb.frame
    if frame == "cop":
        _predicate(s, c, depth)
    elif frame in ("acc", "dat") and gap == "obj":
        c.gap_case = frame
        if frame == "acc":
            c.acc_objects.append((head.g != "m", head.plural))
        c.vp += _english_object(extras, None)
    elif frame in ("acc", "dat"):
        given = pronoun_phrase(s, obj, frame) if obj is not None else None
        o = _object(s, c, frame, depth, given, c.verb.obj)
        c.vp += _english_object(extras, o)
    elif frame == "ditr":
        _ditransitive(s, c, depth)
    elif frame == "prep":
        _prep_object(s, c, extras, depth)
    elif frame == "clause":
        _complement(s, c)
    else:
        c.vp += [_wrap(x) for x in extras]


def _predicate(s: Builder, c: Clause, depth: int) -> None:
    """Copula complement: a predicative adjective or a place."""
    cls = c.subj.cls if c.subj is not None else "p"
    adjs = s.pools.adjectives[cls]
    if s.rng.random() < 0.65:
        adj = s.rng.choice(adjs)
        leaf = s.leaf("JJ", adj.en)
        c.vp.append(Node("ADJP", [leaf]))
        c.items.append((PRED, [De(adj.de_pred, (leaf.key,))]))
    else:
        en, de = prep_phrase(s, 1 if depth == 0 else 2, None, adjunct=True)
        c.vp.append(en)
        c.items.append((PRED, de))


def _ditransitive(s: Builder, c: Clause, depth: int) -> None:
    """give the book to the woman -> gibt der Frau das Buch."""
    thing = _object(s, c, "acc", depth, None, c.verb.obj)
    to = s.leaf("TO", "to")
    person = noun_phrase(s, "dat", "p", 1)
    person.de[0] = De(person.de[0].word, person.de[0].keys + (to.key,))
    c.items.append((DAT, person.de))
    c.vp += [thing.en, Node("PP", [to, person.en])]


def _prep_object(s: Builder, c: Clause, extras: list[Leaf], depth: int) -> None:
    """wait for the bus -> wartet auf den Bus (with im/vom contractions)."""
    prep, case = c.verb.prep
    obj = noun_phrase(s, case, c.verb.obj, 0 if depth == 0 else 1, relative_clause)
    de = obj.de
    short = german.contract(prep, de[0].word) if not obj.has_rel else None
    if short:
        de = [De(short, tuple(c.keys["prep"]) + de[0].keys)] + de[1:]
    else:
        de = [De(prep, c.keys["prep"])] + de
    c.items.append((PREP_OBJ, de))
    c.vp += _english_object(extras, obj)


def _complement(s: Builder, c: Clause) -> None:
    """says that S -> sagt , dass S (verb-final)."""
    that = s.leaf("IN", "that")
    sub = make_clause(s, 1)
    de = realize(s, sub, "sub", lead=[De(","), De("dass", (that.key,))])
    c.vp.append(Node("SBAR", [that, english_clause(sub)]))
    c.extra += de


def adverbial(s: Builder, word: Word) -> tuple[Node, list[De]]:
    """An adverb or fixed expression; every German word links to every English one."""
    en_leaves = [s.leaf(tag, w) for w, tag in word.en]
    keys = tuple(x.key for x in en_leaves)
    if len(en_leaves) > 1:
        s.mwus.append(" ".join(w for w, _ in word.en))
    first = en_leaves[0].tag
    label = "PP" if first in ("IN", "TO") else "NP" if first in (
        "DT", "PDT", "JJ", "NN", "NNP") else "ADVP"
    return Node(label, en_leaves), [De(w, keys) for w in word.de.split()]


def add_adverbials(s: Builder, c: Clause, depth: int) -> None:
    """Maybe add a locative PP and one adverb or fixed expression."""
    if c.verb.frame != "cop" and s.rng.random() < s.cfg.rate_pp * 0.5:
        en, de = prep_phrase(s, 1 if depth == 0 else 2, None, adjunct=True)
        c.vp.append(en)
        c.items.append((ADJUNCT, de))
    if s.rng.random() >= s.cfg.rate_adverb:
        return
    r = s.rng.random()
    if r < 0.35:
        word = s.rng.choice(s.pools.freq_adverbs)
    elif r < 0.6:
        word = s.rng.choice(s.pools.time_adverbs)
    else:
        word = s.rng.choice(s.lex.expressions)
    en, de = adverbial(s, word)
    c.items.append((ADV, de))
    if word.kind == "freq" and c.verb.frame != "cop":
        c.pre_vp.append(en)
    elif word.kind == "freq":
        c.vp.insert(0, en)
    else:
        c.vp.append(en)
