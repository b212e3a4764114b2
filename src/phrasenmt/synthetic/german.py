"""German inflection for the synthetic corpus: articles, adjectives, pronouns.

Keys: case is nom/acc/dat; ``g`` is the gender m/f/n or ``pl`` for any plural.
"""

from __future__ import annotations

_CASES = ("nom", "acc", "dat")
_GENDERS = ("m", "f", "n", "pl")


def _table(rows: str) -> dict[tuple[str, str], str]:
    """Build a {(case, g): form} table from three lines of four forms each."""
    table = {}
    for case, line in zip(_CASES, rows.strip().splitlines(), strict=True):
        for g, form in zip(_GENDERS, line.split(), strict=True):
            table[case, g] = "" if form == "-" else form
    return table


DEFINITE = _table("""
der die das die
den die das die
dem der dem den
""")
# Strong endings: dieser/dieses, and adjectives with no article (zwei große Hunde).
STRONG = _table("""
er e es e
en e es e
em er em en
""")
# Endings of ein/mein/unser (plural only for possessives).
EIN = _table("""
- e - e
en e - e
em er em en
""")
WEAK = _table("""
e e e en
en e e en
en en en en
""")
MIXED = _table("""
er e es en
en e es en
en en en en
""")
RELATIVE = _table("""
der die das die
den die das die
dem der dem denen
""")
PERSONAL = _table("""
er sie es sie
ihn sie es sie
ihm ihr ihm ihnen
""")
# Preposition + definite article contractions used in standard German.
CONTRACTIONS = {
    ("in", "dem"): "im", ("in", "das"): "ins", ("an", "dem"): "am",
    ("an", "das"): "ans", ("zu", "dem"): "zum", ("zu", "der"): "zur",
    ("von", "dem"): "vom", ("bei", "dem"): "beim",
}
# English personal pronouns by (case, key); the key is m/f/it/pl.
ENGLISH_PRONOUNS = {
    "nom": {"m": "he", "f": "she", "it": "it", "pl": "they"},
    "obj": {"m": "him", "f": "her", "it": "it", "pl": "them"},
}


def gkey(gender: str, plural: bool) -> str:
    """Declension key: the gender, or 'pl' for plurals."""
    return "pl" if plural else gender


def determiner(kind: str, case: str, g: str, stem: str = "") -> str:
    """German determiner form for kind def/dies/ein/poss ('' when there is none)."""
    if kind == "def":
        return DEFINITE[case, g]
    if kind == "dies":
        return "dies" + STRONG[case, g]
    if kind in ("ein", "poss"):
        return stem + EIN[case, g]
    return ""


def adjective_ending(kind: str, case: str, g: str) -> str:
    """Attributive ending after a determiner kind: weak, mixed or strong."""
    if kind in ("def", "dies") or (kind == "poss" and g == "pl"):
        return WEAK[case, g]
    if kind in ("ein", "poss"):
        return MIXED[case, g]
    return STRONG[case, g]


def contract(prep: str, article: str) -> str | None:
    """The contracted form of preposition + article (in dem -> im), if standard."""
    return CONTRACTIONS.get((prep, article))


def personal_pronoun(case: str, g: str) -> str:
    """German 3rd person pronoun for case and gender key."""
    return PERSONAL[case, g]


def relative_pronoun(case: str, g: str) -> str:
    """German relative pronoun der/die/das/denen... for case and gender key."""
    return RELATIVE[case, g]


def other_genders(case: str, g: str) -> list[str]:
    """Pronoun forms of the other singular genders that differ from this one."""
    return [form for form, _ in other_gender_forms(case, g)]


def other_gender_forms(case: str, g: str) -> list[tuple[str, str]]:
    """(form, gender) of the other singular genders whose form differs from this
    one's, each form once, with the first gender (m, f, n) that has it."""
    own = PERSONAL[case, g]
    forms: list[tuple[str, str]] = []
    for other in ("m", "f", "n"):
        form = PERSONAL[case, other]
        if other != g and form != own and form not in (f for f, _ in forms):
            forms.append((form, other))
    return forms
