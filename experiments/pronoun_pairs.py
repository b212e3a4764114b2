"""Contrastive pronoun accuracy per (reference pronoun > contrastive pronoun) pair.

    python experiments/pronoun_pairs.py results/synthetic_en_de [MODEL ...]

Reads a finished run's synthetic contrastive set
(`discourse/contrastive/synthetic/items.json`) and each model's scores
(`.../scores/MODEL/seed1.txt`; default: every model scored there) and prints,
per model, how many `pronoun_gender` items of each pronoun pair it gets right:
`er>es 13/15` = 13 of the 15 items whose reference has "er" where the variant
has "es". A model that reads no context can only prefer one pronoun of a pair
for every item: where it moves from one pronoun to the other (a random-context
control against the sentence-level model), its accuracy moves with how many
items of each pair there are, not with the context.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path


def pair(item: dict) -> str:
    """'ref>variant' of the first word where reference and variant differ."""
    ref, alt = item["reference"].split(), item["contrastive"][0].split()
    j = next(i for i, (a, b) in enumerate(zip(ref, alt, strict=False)) if a != b)
    return f"{ref[j].lower()}>{alt[j].lower()}"


def main(results: Path, models: list[str]) -> None:
    root = results / "discourse/contrastive/synthetic"
    items = [it for it in json.loads((root / "items.json").read_text())["items"]
             if it["type"] == "pronoun_gender"]
    models = models or sorted(p.name for p in (root / "scores").iterdir())
    pairs = sorted({pair(it) for it in items})
    print("model".ljust(24), " ".join(p.rjust(8) for p in pairs), "    all")
    for model in models:
        scores = [float(x) for x in (root / "scores" / model / "seed1.txt").read_text()
                  .split()]
        won: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for it in items:
            ref, *alts = (scores[i] for i in it["lines"])
            won[pair(it)][0] += all(ref > a for a in alts)
            won[pair(it)][1] += 1
        total = sum(w for w, _ in won.values())
        print(model.ljust(24), " ".join(f"{won[p][0]}/{won[p][1]}".rjust(8)
                                        for p in pairs),
              f"{100 * total / len(items):6.2f}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__.splitlines()[2].strip())
    main(Path(sys.argv[1]), sys.argv[2:])
