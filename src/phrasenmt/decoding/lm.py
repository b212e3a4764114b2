"""Querying an external KenLM n-gram language model, for NPMT's beam search.

Huang et al. (2018), Eq. 3: a hypothesis is rescored with `λ2·log p_LM(y)`,
p_LM queried on words (not ids) with the `kenlm` Python module, with `<s>`/`</s>`
as KenLM scores them. KenLM gives log10 probabilities; every score here is a
natural log, so that λ2 multiplies a log-probability in the same base as the
NMT model's. `python -m phrasenmt.lm` trains such a model.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Any

from phrasenmt.io import InputError
from phrasenmt.text.vocab import SPECIALS

LN10 = math.log(10.0)
MIN_SHARE = 0.5  # an LM knowing fewer of the model's words is over another vocabulary
_THREW = re.compile(r" threw \w+(?: because `.*?'\.)?\.?\s*(.*)$")

State = Any  # a kenlm.State: the n-gram context KenLM carries between words


def kenlm_reason(message: str) -> str:
    """The human part of a KenLM exception ("<where> threw <Type>[ because ...]. why")."""
    message = " ".join(message.split())
    found = _THREW.search(message)
    return found.group(1).rstrip(")") if found and found.group(1) else message


class LanguageModel:
    """A KenLM model (ARPA or binary) scoring words with natural-log probabilities."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        if not self.path.is_file():
            raise InputError("language model file not found", self.path)
        try:
            import kenlm
        except ImportError:
            raise InputError("the kenlm Python module is missing: make kenlm",
                             self.path) from None
        self._kenlm = kenlm
        config = kenlm.Config()
        config.show_progress = False  # KenLM's C++ code would draw on stderr
        config.arpa_complain = 2  # lm::ngram::Config::NONE: no "build a binary" note
        try:
            self.model = kenlm.Model(str(self.path), config)
        except (OSError, RuntimeError) as err:
            raise InputError("not a KenLM language model (ARPA or binary): "
                             f"{kenlm_reason(str(err))}", self.path) from None
        self.order: int = self.model.order

    def check_vocabulary(self, words: list[str], where: str) -> None:
        """Raise InputError if under half of `where`'s non-special words are known."""
        real = [w for w in dict.fromkeys(words) if w not in SPECIALS]
        if not real:
            raise InputError(f"{where} has no words besides {', '.join(SPECIALS)} "
                             "to check the language model against", self.path)
        known = sum(w in self.model for w in real)
        if known < MIN_SHARE * len(real):
            raise InputError(
                f"language model is over another vocabulary: only {known} of the "
                f"{len(real)} words of {where} are in it (at least "
                f"{MIN_SHARE:.0%} must be)", self.path)

    def begin(self) -> State:
        """The context at the start of a sentence (`<s>`)."""
        state = self._kenlm.State()
        self.model.BeginSentenceWrite(state)
        return state

    def advance(self, state: State, word: str) -> tuple[State, float]:
        """Next context and ln p(word | context); an unknown word scores as <unk>."""
        out = self._kenlm.State()
        return out, self.model.BaseScore(state, word, out) * LN10

    def end(self, state: State) -> float:
        """ln p(`</s>` | context): the cost of ending the sentence here."""
        return self.model.BaseScore(state, "</s>", self._kenlm.State()) * LN10

    def score(self, words: list[str]) -> float:
        """ln p(<s> words </s>): KenLM's full-sentence log10 score times ln 10."""
        for word in words:
            if not word or word != "".join(word.split()):
                raise ValueError(f"not a single word: {word!r}")
        return self.model.score(" ".join(words), bos=True, eos=True) * LN10
