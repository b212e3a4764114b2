"""Token vocabulary built from BPE'd training text; stored inside checkpoints."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

PAD, BOS, EOS, UNK = 0, 1, 2, 3
SPECIALS = ("<pad>", "<s>", "</s>", "<unk>")


class Vocabulary:
    """A fixed token <-> id mapping with <pad>=0, <s>=1, </s>=2, <unk>=3."""

    def __init__(self, tokens: Iterable[str]):
        self.itos: list[str] = list(tokens)
        if tuple(self.itos[: len(SPECIALS)]) != SPECIALS:
            raise ValueError(f"vocabulary must start with {SPECIALS}")
        self.stoi: dict[str, int] = {tok: i for i, tok in enumerate(self.itos)}
        if len(self.stoi) != len(self.itos):
            raise ValueError("vocabulary has duplicate tokens")

    @classmethod
    def build(cls, lines: Iterable[str], min_freq: int = 1,
              max_size: int | None = None) -> Vocabulary:
        """Count whitespace tokens; order by frequency, ties alphabetically."""
        counts = Counter(tok for line in lines for tok in line.split())
        for special in SPECIALS:
            counts.pop(special, None)
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        tokens = [tok for tok, n in ranked if n >= min_freq]
        if max_size is not None:
            tokens = tokens[: max(0, max_size - len(SPECIALS))]
        return cls([*SPECIALS, *tokens])

    def __len__(self) -> int:
        return len(self.itos)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vocabulary) and self.itos == other.itos

    def encode(self, line: str) -> list[int]:
        """Map a whitespace-tokenized line to ids (no <s> or </s> added)."""
        return [self.stoi.get(tok, UNK) for tok in line.split()]

    def decode(self, ids: Iterable[int], strip_specials: bool = True) -> list[str]:
        """Map ids back to tokens, stopping at </s> and dropping <pad>/<s>."""
        out = []
        for i in ids:
            i = int(i)
            if strip_specials and i == EOS:
                break
            if strip_specials and i in (PAD, BOS):
                continue
            out.append(self.itos[i])
        return out

    def to_list(self) -> list[str]:
        """The tokens in id order, for storing in a checkpoint."""
        return list(self.itos)

    @classmethod
    def from_list(cls, tokens: list[str]) -> Vocabulary:
        """Rebuild a vocabulary stored with `to_list`."""
        return cls(tokens)
