"""Parallel sentence pieces: English tree nodes, German tokens and their links.

Every English leaf gets an integer key; each German token lists the keys of the
English leaves it translates, which is all the gold alignment needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

PUNCT = frozenset({".", ",", ";", ":", "!", "?"})


class Leaf:
    """An English word with its Penn Treebank tag and alignment key."""

    __slots__ = ("key", "tag", "word")

    def __init__(self, tag: str, word: str, key: int):
        self.tag, self.word, self.key = tag, word, key


class Node:
    """An English constituent: a label over leaves and nodes."""

    __slots__ = ("kids", "label")

    def __init__(self, label: str, kids: list):
        self.label, self.kids = label, kids


class De:
    """A German token with the keys of the English leaves it is aligned to."""

    __slots__ = ("keys", "word")

    def __init__(self, word: str, keys: tuple[int, ...] | list[int] = ()):
        self.word, self.keys = word, tuple(keys)


def leaves(node: Node | Leaf) -> list[Leaf]:
    """English leaves of a tree in order."""
    out: list[Leaf] = []
    stack: list[Node | Leaf] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, Leaf):
            out.append(item)
        else:
            stack.extend(reversed(item.kids))
    return out


def bracket(node: Node | Leaf) -> str:
    """Penn Treebank bracket string of a tree."""
    if isinstance(node, Leaf):
        return f"({node.tag} {node.word})"
    return "(" + node.label + " " + " ".join(bracket(k) for k in node.kids) + ")"


def capitalize(word: str) -> str:
    """Upper-case the first letter only."""
    return word[:1].upper() + word[1:]


@dataclass
class Agreement:
    """A subject head and its finite verb in the German sentence."""

    subject: De
    verb: De
    wrong_form: str


@dataclass
class PronounUse:
    """A German pronoun whose gender comes from an earlier noun."""

    token: De
    alternatives: list[str]
    antecedent: str
    gender: str  # the antecedent's gender (m/f/n)
    alternative_genders: list[str]  # the gender each alternative form stands for


@dataclass
class Sentence:
    """A finished sentence pair with tree, alignment and evaluation records."""

    en: list[str]
    de: list[str]
    tree: str
    links: list[tuple[int, int]]
    agreements: list[tuple[int, int, str]] = field(default_factory=list)
    # (position, alternative forms, antecedent, its gender, the alternatives' genders)
    pronouns: list[tuple[int, list[str], str, str, list[str]]] = field(
        default_factory=list)
    mwus: list[str] = field(default_factory=list)
    mentions: list = field(default_factory=list)
    antecedent_distance: int = 1  # sentences back to its pronouns' antecedent


def finish(tree: Node, de: list[De], agreements: list[Agreement],
           pronouns: list[PronounUse], mwus: list[str], mentions: list) -> Sentence:
    """Tidy commas, capitalise, index tokens and resolve links and records."""
    de = [t for i, t in enumerate(de)
          if not (t.word == "," and (i == 0 or de[i + 1].word in (",", ".")))]
    en_leaves = leaves(tree)
    en_leaves[0].word = capitalize(en_leaves[0].word)
    de[0].word = capitalize(de[0].word)
    where = {leaf.key: i for i, leaf in enumerate(en_leaves)}
    links = sorted({(where[k], j) for j, tok in enumerate(de) for k in tok.keys})
    position = {id(tok): j for j, tok in enumerate(de)}
    agree = [(position[id(a.subject)], position[id(a.verb)], a.wrong_form)
             for a in agreements]
    pron = [(position[id(p.token)],
             [capitalize(w) if position[id(p.token)] == 0 else w
              for w in p.alternatives], p.antecedent, p.gender, p.alternative_genders)
            for p in pronouns]
    return Sentence([leaf.word for leaf in en_leaves], [t.word for t in de],
                    "(ROOT " + bracket(tree) + ")", links, agree, pron, mwus, mentions)
