"""The pronoun lists of the target languages whose pronoun translation is
scored (`phrasenmt.evaluate.pronouns`); the workflow reads which languages
have one, so that a dataset whose target has none asks for no pronoun table.
"""

from __future__ import annotations

_POSSESSIVE_ENDINGS = ("", "e", "er", "es", "em", "en")
_DE_PERSONAL = ("ich", "mich", "mir", "du", "dich", "dir", "er", "ihn", "ihm", "sie",
                "es", "wir", "uns", "ihr", "euch", "ihnen", "sich")
PRONOUNS: dict[str, frozenset[str]] = {
    "de": frozenset(
        _DE_PERSONAL
        + tuple(stem + end for stem in ("mein", "dein", "sein", "ihr", "unser")
                for end in _POSSESSIVE_ENDINGS)
        + tuple(f"eur{end}" for end in _POSSESSIVE_ENDINGS[1:]) + ("euer",)),
    "en": frozenset((
        "i", "me", "my", "mine", "myself", "you", "your", "yours", "yourself",
        "yourselves", "he", "him", "his", "himself", "she", "her", "hers", "herself",
        "it", "its", "itself", "we", "us", "our", "ours", "ourselves", "they", "them",
        "their", "theirs", "themselves")),
    "fr": frozenset((
        "je", "j'", "me", "m'", "moi", "tu", "te", "t'", "toi", "il", "elle", "on",
        "nous", "vous", "ils", "elles", "lui", "leur", "eux", "se", "s'", "soi", "mon",
        "ma", "mes", "ton", "ta", "tes", "son", "sa", "ses", "notre", "nos", "votre",
        "vos", "leurs", "mien", "mienne", "miens", "miennes", "tien", "tienne",
        "siens", "sienne", "siennes")),
}


def has_pronoun_list(lang: str) -> bool:
    """Whether pronoun translation can be scored for a target language."""
    return lang in PRONOUNS
