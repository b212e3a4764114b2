"""Can a linear probe read a noun's German gender from a sentence-level model?

    python experiments/gender_probe.py [--results results/synthetic_en_de]
        [--model transformer] [--folds 5] [--seed 1]

A source-side document model (the context-aware Transformer, the HAN encoder)
can only resolve "it" -> er / sie / es if it can tell, from the English
context, the German gender of the antecedent. This script asks where a trained
sentence-level model carries that information. For every singular non-person
noun of the synthetic lexicon (what "it" refers to) it builds the source
"the <noun> ." (BPE'd with the dataset's codes) and takes two feature vectors:

* `embedding`: the mean of the noun's subword embeddings (the input of the
  context encoder of `ctx_transformer`, which shares them);
* `encoder`: the mean of the encoder's output states at the noun's subwords
  (what the HAN encoder reads of a context sentence).

and prints the accuracy of a multinomial logistic regression predicting the
gender (m / f / n) from each, by stratified k-fold cross-validation over nouns,
against always predicting the most frequent gender. Runs on the CPU in seconds.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from phrasenmt.bpe import Segmenter, read_codes, read_vocabulary
from phrasenmt.synthetic import lexicon
from phrasenmt.text.vocab import EOS
from phrasenmt.training.checkpoint import load_model


def nouns() -> list[tuple[str, str]]:
    """(English singular, German gender) of every non-person noun, once each."""
    seen: dict[str, str] = {}
    for noun in lexicon.load().all_nouns:
        if noun.cls != "p" and noun.gender in ("m", "f", "n"):
            seen.setdefault(" ".join(noun.en_sg), noun.gender)
    return sorted(seen.items())


def features(model: torch.nn.Module, vocab, seg: Segmenter,
             items: list[tuple[str, str]]) -> dict[str, np.ndarray]:
    """The `embedding` and `encoder` feature matrices, one row per noun."""
    emb, enc = [], []
    table = model.encoder.embed.tokens.weight
    with torch.no_grad():
        for english, _ in items:
            noun = seg.line(english).split()
            ids = vocab.encode(" ".join(["the", *noun, "."]))
            span = slice(1, 1 + len(noun))
            src = torch.tensor([[*ids, EOS]])
            emb.append(table[src[0, span]].mean(dim=0).numpy())
            memory = model.encoder(src)["memory"][0]
            enc.append(memory[span].mean(dim=0).numpy())
    return {"embedding": np.stack(emb), "encoder": np.stack(enc)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--results", type=Path, default=Path("results/synthetic_en_de"))
    p.add_argument("--model", default="transformer")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    torch.set_num_threads(1)
    model, src_vocab, _, _ = load_model(
        args.results / f"models/{args.model}/seed1/averaged.pt", torch.device("cpu"))
    model.eval()
    bpe = args.results / "bpe"
    seg = Segmenter(read_codes(bpe / "codes"), read_vocabulary(bpe / "vocab.en", 1))
    items = nouns()
    labels = np.array([g for _, g in items])
    counts = {g: int((labels == g).sum()) for g in ("m", "f", "n")}
    print(f"{args.model}: {len(items)} nouns, genders {counts}; majority "
          f"{max(counts.values()) / len(items):.3f}")
    folds = StratifiedKFold(args.folds, shuffle=True, random_state=args.seed)
    for name, x in features(model, src_vocab, seg, items).items():
        probe = make_pipeline(StandardScaler(),
                              LogisticRegression(max_iter=2000, C=1.0))
        scores = cross_val_score(probe, x, labels, cv=folds)
        print(f"  {name:9s} probe accuracy {scores.mean():.3f} "
              f"(folds {', '.join(f'{s:.2f}' for s in scores)})")


if __name__ == "__main__":
    main()
