"""Training and decoding time per target token of every phrase variant vs. the baseline.

All models get the same preset, the same random batches (source lengths 10-40
tokens, n-gram phrases from the per-sentence formula) and the same optimizer;
updates and decoding runs rotate over the models so that machine load affects
all alike. Prints one row per model, times relative to `transformer`.

Decoding (beam search, time per generated token incl. </s>) is measured twice:
"decode@init" on the freshly initialised models, whose outputs run to the
length limit (1.5 * source length + 10), so the time is that of decoding
steps as in translating a test set; and "decode@trained" after the training
updates, where the models (trained on random pairs) emit </s> first, so that
time is mostly the encoder's and the first step's (tok/sent shows the lengths).

    python benchmarks/phrase_repr_speed.py [--preset tiny] [--threads 1] [--device cpu]

`--train-batches 0` skips training (and decode@trained); `--decode-rounds N`
repeats each decoding rotation N times (an extra first run of each model is
warm-up); `--archs` picks the phrase variants.
"""

from __future__ import annotations

import argparse
import time

import torch
from torch import Tensor

from phrasenmt.decoding.search import beam_search
from phrasenmt.models import build_model, get_model_class
from phrasenmt.models.phrase_transformer import VARIANTS
from phrasenmt.models.registry import get_preset
from phrasenmt.nn.loss import sequence_loss
from phrasenmt.text.segmentation import ngram_phrases
from phrasenmt.text.vocab import BOS, EOS, PAD
from phrasenmt.training.config import TrainConfig

Batch = tuple[Tensor, Tensor, Tensor, Tensor]  # src, phrases, tgt_in, tgt_out


def random_batch(size: int, vocab: int, g: torch.Generator) -> Batch:
    """`size` sentence pairs, right-padded, with n-gram phrase ids."""
    lens = torch.randint(10, 41, (size,), generator=g).tolist()
    S = max(lens) + 1
    src = torch.full((size, S), PAD)
    phrases = torch.full((size, S), -1)
    for i, n in enumerate(lens):
        src[i, :n] = torch.randint(4, vocab, (n,), generator=g)
        src[i, n] = EOS
        phrases[i, :n] = torch.tensor(ngram_phrases(n))
    tgt = src.clone()  # same lengths on the target side
    tgt_in = torch.cat([torch.full((size, 1), BOS), tgt[:, :-1]], dim=1)
    tgt_in[tgt_in.eq(EOS)] = PAD
    return src, phrases, tgt_in, tgt


def make(arch: str, preset: str, vocab: int, device: str):
    """A model of `arch` with the preset's sizes."""
    torch.manual_seed(0)
    cfg = get_model_class(arch).config_class(src_vocab_size=vocab, tgt_vocab_size=vocab)
    get_preset(arch, preset)(cfg, TrainConfig())
    return build_model(arch, cfg).to(device)


def side(arch: str, phrases: Tensor) -> dict[str, Tensor]:
    """The phrase side input for phrase models, nothing for the baseline."""
    return {} if arch == "transformer" else {"phrases": phrases}


def train_time(models: dict, batches: list[Batch], device: str) -> dict[str, float]:
    """Seconds per target token of forward+backward+step, rotating over models."""
    opts = {a: torch.optim.Adam(m.parameters(), lr=1e-4) for a, m in models.items()}
    spent = dict.fromkeys(models, 0.0)
    tokens = 0
    for n, (src, ph, tin, tout) in enumerate(batches):
        src, ph, tin, tout = (t.to(device) for t in (src, ph, tin, tout))
        if n:  # the first batch is warm-up
            tokens += int(tout.ne(PAD).sum())
        for arch, model in models.items():
            model.train()
            start = time.perf_counter()
            loss, _ = sequence_loss(model(src, tin, **side(arch, ph)), tout, 0.1)
            opts[arch].zero_grad()
            loss.backward()
            opts[arch].step()
            if device == "cuda":
                torch.cuda.synchronize()
            if n:
                spent[arch] += time.perf_counter() - start
    return {a: s / tokens for a, s in spent.items()}


def decode_time(models: dict, batches: list[Batch], beam: int, rounds: int = 1
                ) -> tuple[dict[str, float], dict[str, float]]:
    """Seconds per generated token of beam search, rotating over models, and
    generated tokens per sentence."""
    spent, made = dict.fromkeys(models, 0.0), dict.fromkeys(models, 0)
    sentences = 0
    for n, (src, ph, _, _) in enumerate([batches[0], *batches * rounds]):
        sentences += src.size(0) if n else 0
        for arch, model in models.items():
            model.eval()
            device = next(model.parameters()).device
            start = time.perf_counter()
            hyps = beam_search(model, src.to(device), beam, 0.6, 1.5, 10,
                               side(arch, ph.to(device)))
            if device.type == "cuda":
                torch.cuda.synchronize()
            if n:  # the first run is warm-up
                spent[arch] += time.perf_counter() - start
                made[arch] += sum(len(h[0].tokens) + 1 for h in hyps)
    return ({a: spent[a] / made[a] for a in models},
            {a: made[a] / sentences for a in models})


def print_table(args: argparse.Namespace, models: dict,
                columns: dict[str, dict[str, float]], lengths: dict) -> None:
    """One row per model: each column in ms/token and relative to transformer."""
    print(f"preset={args.preset} device={args.device} threads={args.threads} "
          f"batch={args.batch_size} beam={args.beam}")
    head = "".join(f"{c + ' ms/tok':>22}{'rel':>7}" for c in columns)
    tail = "".join(f"{'tok/sent@' + w:>18}" for w in lengths)
    print(f"{'model':<22}{'params(M)':>10}{head}{tail}")
    for a, m in models.items():
        cells = "".join(f"{col[a] * 1e3:>22.4f}{col[a] / col['transformer']:>6.2f}x"
                        for col in columns.values())
        toks = "".join(f"{n[a]:>18.1f}" for n in lengths.values())
        print(f"{a:<22}{m.num_parameters() / 1e6:>10.2f}{cells}{toks}")


def main() -> None:
    """Run the benchmark and print a table."""
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--preset", default="tiny")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    p.add_argument("--train-batches", type=int, default=20,
                   help="0 measures decoding at initialisation only")
    p.add_argument("--batch-size", type=int, default=64, help="sentences per batch")
    p.add_argument("--decode-batches", type=int, default=3)
    p.add_argument("--decode-rounds", type=int, default=1,
                   help="times the decoding rotation is repeated")
    p.add_argument("--beam", type=int, default=4)
    p.add_argument("--archs", nargs="+", default=list(VARIANTS),
                   choices=list(VARIANTS),
                   help="phrase variants to compare with the transformer")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    g = torch.Generator().manual_seed(1)
    vocab = 4000
    models = {a: make(a, args.preset, vocab, args.device)
              for a in ["transformer", *args.archs]}
    batches = [random_batch(args.batch_size, vocab, g)
               for _ in range(max(args.train_batches + 1, args.decode_batches))]
    decoding = (batches[: args.decode_batches], args.beam, args.decode_rounds)
    columns, lengths = {}, {}
    columns["decode@init"], lengths["init"] = decode_time(models, *decoding)
    if args.train_batches:
        columns["train"] = train_time(models, batches, args.device)
        columns["decode@trained"], lengths["trained"] = decode_time(models,
                                                                    *decoding)
    print_table(args, models, columns, lengths)

if __name__ == "__main__":
    main()
