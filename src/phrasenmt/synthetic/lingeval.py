"""Lingeval97-style contrastive items (agreement by distance, pronoun gender)."""

from __future__ import annotations

import random

from phrasenmt.synthetic.builder import GrammarConfig, Pools
from phrasenmt.synthetic.documents import Limits, distance, make_sentence
from phrasenmt.synthetic.tree import Sentence

MAX_BIN = 15


def distance_bin(d: int) -> str:
    """Label of a distance bin: '0'..'15' or '>15'."""
    return str(d) if d <= MAX_BIN else f">{MAX_BIN}"


def agreement_errors(sent: Sentence) -> list[dict]:
    """One subj_verb_agreement error per recorded subject-verb pair."""
    errors = []
    for i, j, wrong in sent.agreements:
        if wrong == sent.de[j]:
            continue
        tokens = sent.de[:j] + [wrong] + sent.de[j + 1:]
        errors.append({"type": "subj_verb_agreement", "contrastive": " ".join(tokens),
                       "distance": distance(sent.de, i, j)})
    return errors


def pronoun_errors(sent: Sentence) -> list[dict]:
    """pronoun_gender errors: the pronoun swapped for another gender's form, with
    the antecedent's gender and the gender the swapped form stands for (what
    `contrastive prepare --mirror-pronouns` pairs items by)."""
    errors = []
    for j, alternatives, antecedent, gender, alt_genders in sent.pronouns:
        for alt, alt_gender in zip(alternatives, alt_genders, strict=True):
            tokens = sent.de[:j] + [alt] + sent.de[j + 1:]
            errors.append({"type": "pronoun_gender", "contrastive": " ".join(tokens),
                           "distance": sent.antecedent_distance, "antecedent": antecedent,
                           "antecedent_gender": gender,
                           "contrastive_gender": alt_gender})
    return errors


def item(sent: Sentence, errors: list[dict], doc: str | None,
         line: int | None) -> dict:
    """A Lingeval item; doc/line locate it in test.* (null for targeted items);
    source_tree is the gold English tree (for parse-based source phrases)."""
    return {"source": " ".join(sent.en), "reference": " ".join(sent.de),
            "errors": errors, "doc": doc, "line": line, "source_tree": sent.tree}


def split_items(entries: list[tuple[str, Sentence]]) -> list[dict]:
    """Items for every test sentence that has an agreement pair or a pronoun."""
    items = []
    for line, (doc, sent) in enumerate(entries):
        errors = agreement_errors(sent) + pronoun_errors(sent)
        if errors:
            items.append(item(sent, errors, doc, line))
    return items


def bin_counts(items: list[dict]) -> dict[str, int]:
    """Agreement errors per distance bin."""
    counts: dict[str, int] = {}
    for it in items:
        for err in it["errors"]:
            if err["type"] == "subj_verb_agreement":
                key = distance_bin(err["distance"])
                counts[key] = counts.get(key, 0) + 1
    return counts


def targeted_items(rng: random.Random, cfg: GrammarConfig, pools: Pools,
                   have: dict[str, int], per_bin: int, avoid: set[str],
                   max_tries: int = 40000) -> list[dict]:
    """Extra sentences, sampled with long subjects, for bins 1..15 and >15 short of per_bin."""
    need = {distance_bin(d): per_bin - have.get(distance_bin(d), 0)
            for d in range(1, MAX_BIN + 2)}
    boosted = cfg.boosted()
    limits = Limits(max_tokens=60, max_distance=40, tries=1)
    items = []
    for _ in range(max_tries):
        if all(n <= 0 for n in need.values()):
            break
        sent = make_sentence(rng, boosted, pools, None, limits)
        line = " ".join(sent.en)
        wanted = [e for e in agreement_errors(sent)
                  if need.get(distance_bin(e["distance"]), 0) > 0]
        if not wanted or line in avoid:
            continue
        avoid.add(line)
        for e in wanted:
            need[distance_bin(e["distance"])] -= 1
        items.append(item(sent, wanted, None, None))
    return items
