"""Sentences and documents: fronting, subordinate clauses, pronoun chains."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

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


def document(rng: random.Random, cfg: GrammarConfig, pools: Pools, n: int,
             limits: Limits, avoid: set[str] | None = None) -> list[Sentence]:
    """n sentences; later ones may refer back to the previous one with a pronoun."""
    doc: list[Sentence] = []
    for _ in range(n):
        mention = None
        if doc and rng.random() < cfg.rate_pronoun:
            mention = pick_antecedent(rng, doc[-1].mentions)
        long = rng.random() < cfg.rate_long_sentence
        for _ in range(10):
            sent = make_sentence(rng, cfg.boosted() if long else cfg, pools, mention,
                                 limits)
            if avoid is None or " ".join(sent.en) not in avoid:
                break
        doc.append(sent)
    return doc
