"""Sentences and documents: fronting, subordinate clauses, pronoun chains."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from phrasenmt.synthetic.arguments import adverbial, make_clause
from phrasenmt.synthetic.builder import Builder, GrammarConfig, Mention, Pools
from phrasenmt.synthetic.clause import ADV, Clause, english_clause, realize
from phrasenmt.synthetic.phrases import pronoun_phrase
from phrasenmt.synthetic.tree import PUNCT, De, Node, Sentence, finish


@dataclass(frozen=True)
class Limits:
    """Hard limits a sentence must meet (it is resampled otherwise)."""

    max_tokens: int = 50  # English tokens per sentence, final "." included
    max_distance: int = 30  # German words between subject head and verb
    tries: int = 30  # resampling attempts before keeping the last sentence


def distance(tokens: list[str], i: int, j: int) -> int:
    """Number of words (punctuation excluded) strictly between positions i and j."""
    lo, hi = min(i, j), max(i, j)
    return sum(1 for t in tokens[lo + 1:hi] if t not in PUNCT)


def _subordinate(s: Builder, c: Clause) -> tuple[list, list[De] | None]:
    """Attach a weil/wenn/... clause, fronted (returned) or after the main clause."""
    conj = s.rng.choice(s.lex.subordinators)
    conj_leaves = [s.leaf(tag, w) for w, tag in conj.en]
    if len(conj_leaves) > 1:
        s.mwus.append(" ".join(w for w, _ in conj.en))
    sub = make_clause(s, 1)
    lead = [De(conj.de, tuple(x.key for x in conj_leaves))]
    sbar = Node("SBAR", conj_leaves + [english_clause(sub)])
    de = realize(s, sub, "sub", lead=lead)
    if s.rng.random() < 0.35:
        comma = s.leaf(",", ",")
        return [sbar, comma], de + [De(",", (comma.key,))]
    c.vp.append(sbar)
    c.extra += [De(",")] + de
    return [], None


def _front(s: Builder, c: Clause) -> tuple[list, list[De] | None]:
    """What opens the sentence before the subject, if anything."""
    if c.verb.frame != "clause" and s.rng.random() < s.cfg.rate_subordinate:
        return _subordinate(s, c)
    has_adverb = any(rank == ADV for rank, _ in c.items)
    if not has_adverb and s.rng.random() < s.cfg.rate_front:
        word = s.rng.choice(s.pools.time_adverbs + s.pools.front_expressions)
        en, de = adverbial(s, word)
        return [en], de
    return [], None


def build_sentence(s: Builder, mention: Mention | None) -> tuple[Node, list[De]]:
    """A main clause (maybe referring back to `mention` with a pronoun)."""
    subj, obj = None, None
    if mention is not None:
        transitive = s.pools.verbs(None, mention.noun.cls, False, False)
        if transitive and s.rng.random() < 0.45:
            obj = mention
        else:
            subj = pronoun_phrase(s, mention, "nom")
    c = make_clause(s, 0, subj=subj, obj=obj)
    front_en, front_de = _front(s, c)
    de = realize(s, c, "main", front=front_de)
    period = s.leaf(".", ".")
    en = english_clause(c)
    en.kids = front_en + en.kids + [period]
    return en, de + [De(".", (period.key,))]


def make_sentence(rng: random.Random, cfg: GrammarConfig, pools: Pools,
                  mention: Mention | None, limits: Limits) -> Sentence:
    """A finished sentence within the limits (resampled up to limits.tries times)."""
    for _ in range(limits.tries):
        s = Builder(rng, cfg, pools)
        tree, de = build_sentence(s, mention)
        sent = finish(tree, de, s.agreements, s.pronouns, s.mwus, s.mentions)
        if len(sent.en) <= limits.max_tokens and all(
                distance(sent.de, i, j) <= limits.max_distance
                for i, j, _ in sent.agreements):
            break
    return sent


def pick_antecedent(rng: random.Random, mentions: list[Mention]) -> Mention | None:
    """A mention the English pronoun picks out unambiguously; 'it' preferred."""
    counts = Counter(m.pronoun_key for m in mentions)
    unique = [m for m in mentions if counts[m.pronoun_key] == 1]
    its = [m for m in unique if m.pronoun_key == "it"]
    if its and rng.random() < 0.75:
        return rng.choice(its)
    return rng.choice(unique) if unique else None


@dataclass
class DistanceMix:
    """How many sentences back a pronoun's antecedent is: `weights` by distance
    (they sum to 1). A distance drawn where it does not fit (too near the end of
    the document) or whose sentences cannot be built is owed and placed at the
    next pronoun that can take it, so that the pronouns of a split follow the mix
    whatever the document lengths. A mix of distance 1 alone draws nothing."""

    weights: dict[int, float]
    owed: list[int] = field(default_factory=list)
    distractor_gender: str = "other"  # the in-between nouns' gender (`distractors`)

    def draw(self, rng: random.Random, room: int) -> int | None:
        """The distance of the next pronoun, at most `room`; None (and owed) if
        the one drawn does not fit."""
        fits = next((d for d in self.owed if d <= room), None)
        if fits is not None:
            self.owed.remove(fits)
            return fits
        if len(self.weights) == 1:
            (d,) = self.weights
        else:
            d = rng.choices(list(self.weights), list(self.weights.values()))[0]
        if d > room:
            self.owed.append(d)
            return None
        return d

    def owe(self, d: int) -> None:
        """A distance drawn but not placed."""
        self.owed.append(d)


DISTRACTOR_GENDERS = ("any", "other")


def distractors(rng: random.Random, cfg: GrammarConfig, pools: Pools,
                mention: Mention, n: int, limits: Limits, avoid: set[str] | None,
                tries: int = 40, gender: str = "other") -> list[Sentence] | None:
    """n sentences between an antecedent and its pronoun: none mentions anything
    the English pronoun could stand for (so it stays unambiguous), and each
    mentions a singular noun, so that the previous sentence alone does not give
    the pronoun. `gender` "other": that noun has another German gender than the
    antecedent (the in-between nouns then tell which pronoun is wrong); "any":
    the sentences are drawn without regard to the antecedent's gender, so that
    their nouns say nothing about it. None if `tries` samples per sentence do
    not get one."""
    if gender not in DISTRACTOR_GENDERS:
        raise ValueError(f"gender {gender!r}: expected one of {DISTRACTOR_GENDERS}")
    out = []
    for _ in range(n):
        for _ in range(tries):
            sent = make_sentence(rng, cfg, pools, None, limits)
            keys = {m.pronoun_key for m in sent.mentions}
            if (mention.pronoun_key not in keys
                    and any(not m.plural and (gender == "any" or m.g != mention.g)
                            for m in sent.mentions)
                    and (avoid is None or " ".join(sent.en) not in avoid)):
                out.append(sent)
                break
        else:
            return None
    return out


def _antecedent(rng: random.Random, cfg: GrammarConfig, pools: Pools, doc: list,
                n: int, limits: Limits, avoid: set[str] | None,
                mix: DistanceMix) -> tuple[Mention | None, int]:
    """Whether the next sentence refers back, to what, and how far: a mention of
    the last sentence so far, with the distractor sentences of a distance d > 1
    appended to `doc` (the pronoun's sentence comes d sentences after it)."""
    if not doc or rng.random() >= cfg.rate_pronoun:
        return None, 1
    d = mix.draw(rng, n - len(doc))
    if d is None:
        return None, 1
    mention = pick_antecedent(rng, doc[-1].mentions)
    fillers = [] if mention is None or d == 1 else distractors(
        rng, cfg, pools, mention, d - 1, limits, avoid,
        gender=mix.distractor_gender)
    if mention is None or fillers is None:
        mix.owe(d)
        return None, 1
    doc += fillers
    return mention, d


def document(rng: random.Random, cfg: GrammarConfig, pools: Pools, n: int,
             limits: Limits, avoid: set[str] | None = None,
             mix: DistanceMix | None = None) -> list[Sentence]:
    """n sentences; later ones may refer back with a pronoun to a noun 1, 2, ...
    sentences back (`mix`; default: the previous sentence)."""
    mix = mix if mix is not None else DistanceMix({1: 1.0})
    doc: list[Sentence] = []
    while len(doc) < n:
        mention, d = _antecedent(rng, cfg, pools, doc, n, limits, avoid, mix)
        long = rng.random() < cfg.rate_long_sentence
        for _ in range(10):
            sent = make_sentence(rng, cfg.boosted() if long else cfg, pools, mention,
                                 limits)
            if avoid is None or " ".join(sent.en) not in avoid:
                break
        sent.antecedent_distance = d
        doc.append(sent)
    return doc
