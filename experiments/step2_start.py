"""Where does step 2 start? The dev loss of each document model before its
first update, with its context modules initialised as the identity or at random.

    python experiments/step2_start.py
        [--results results/synthetic_en_de] [--model transformer_converged]
        [--archs ctx_transformer han_enc han_dec] [--dropout 0.1]

Step 2 of the two-step training loads a trained sentence-level model (θ_s,
frozen) and adds the document modules (θ_d). For every architecture and both
values of `model.context_init` this builds the model exactly as the trainer
does (the same seed, data and step-1 file; nothing is trained) and prints its
dev NLL per target token, next to the step-1 model's own: the same
architecture given no context (`context: none`), which passes every sentence
through θ_s unchanged. A start far above step 1's loss is damage that the
first updates of step 2 must repair. Runs on the CPU in under a minute.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from phrasenmt.training.data import DataPaths
from phrasenmt.training.spec import resolve_spec
from phrasenmt.training.trainer import Trainer


def dev_loss(arch: str, results: Path, step1: Path, model: dict) -> float:
    """Dev NLL per target token of `arch` right after loading step 1."""
    paths = DataPaths(results / "bpe/train.bpe.en", results / "bpe/train.bpe.de",
                      results / "bpe/dev.bpe.en", results / "bpe/dev.bpe.de",
                      docs=(results / "data/train.docs", results / "data/dev.docs"))
    spec = resolve_spec({"arch": arch, "preset": "tiny", "model": model})
    with tempfile.TemporaryDirectory() as outdir:
        trainer = Trainer(spec, paths, outdir, seed=1, device="cpu",
                          progress_bar=False, init_from=step1)
        return trainer.validate()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", type=Path, default=Path("results/synthetic_en_de"))
    parser.add_argument("--model", default="transformer_converged",
                        help="the step-1 model (its seed1/averaged.pt)")
    parser.add_argument("--archs", nargs="+",
                        default=["ctx_transformer", "han_enc", "han_dec"])
    parser.add_argument("--dropout", type=float, default=0.1,
                        help="the step-1 model's dropout (the configs' model.dropout)")
    args = parser.parse_args()
    step1 = args.results / "models" / args.model / "seed1" / "averaged.pt"
    if not step1.is_file():
        parser.error(f"{step1}: no such step-1 model (train it first)")
    base = {"dropout": args.dropout}
    print(f"step 1: {step1}")
    print("| arch | step 1 (context: none) | identity | random |")
    print("|---|---:|---:|---:|")
    for arch in args.archs:
        none = dev_loss(arch, args.results, step1, {**base, "context": "none"})
        losses = [dev_loss(arch, args.results, step1, {**base, "context_init": init})
                  for init in ("identity", "random")]
        print(f"| {arch} | {none:.4f} | {losses[0]:.4f} | {losses[1]:.4f} |")


if __name__ == "__main__":
    main()
