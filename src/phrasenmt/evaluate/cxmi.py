"""Conditional cross-mutual information (CXMI): does a model use its context?

CXMI (Fernandes et al. 2021, "Measuring and Increasing Context Usage in
Context-Aware Machine Translation", Eq. 3) compares one model's forced-decoding
probabilities of the references with and without its context. As published,
a mean over sentences of the sentence log-probabilities' difference:

    CXMI = (1 / S) * sum over sentences of [log p(y | x, C) - log p(y | x)]

in nats per sentence (`cxmi_sentence`; log p(y | ...) sums the tokens' and
</s>'s). Beside it, the same sum over N target tokens (</s> included) divided
by N, nats per target token (`cxmi`), which does not grow with sentence length
and so compares corpora. Per token, the pointwise P-CXMI
log p(y_t | y_<t, x, C) - log p(y_t | y_<t, x) (`phrasenmt.evaluate.pcxmi`)
gives, from a checkpoint, the words whose prediction the context helps most
(`words` of the test set). "Without context" is the same model given an empty
context (`translate score --context-as none`): a document model here treats
such a sentence as a document's first, so its no-context probabilities are
those of its sentence-level part, which it has seen in training only at
documents' first sentences unless it was trained with `train.
empty_context_rate` (context dropout); CXMI also counts what the document
parameters learned about sentences in general (extra capacity and updates).
Hence a second
figure, CXMI against a random context: the same sum with log p(y | x, C') for
C' other documents' sentences (`--context-as random`, a seed the model was not
trained with). A model that uses what its context says scores its own context
above a random one; one that only uses the extra capacity, or a random-context
control, scores both alike (about 0). Each figure has a 95% interval from a
bootstrap over sentences (the ratio of the resampled sums), seeded. Sets: the
test set with its document context, and the reference lines of the contrastive
test items of one type (e.g. `pronoun_gender`) with the items' own context
(dev items, which choose budgets, are left out).

Scores come from a checkpoint (scored here, one model load; what the workflow
runs) or from files written by `translate score --context-as ...`. From a
checkpoint with --test-files the JSON also has `gates`: the mean value of each
context gate λ and the norm of its context vector against the sentence-level
state's, on the test set (`gate_statistics`; λ near 1 with a large norm ratio
is a context path the model has shut):

    python -m phrasenmt.evaluate.cxmi --model han_dec --checkpoint averaged.pt \\
        --test-files TEST.bpe.en TEST.bpe.de TEST.docs \\
        --item-files items.json pairs.bpe.src pairs.bpe.tgt pairs.ctx.bpe.jsonl \\
        --out cxmi.json
    python -m phrasenmt.evaluate.cxmi --model han_dec \\
        --test TEST.bpe.de OWN.txt NONE.txt RANDOM.txt \\
        --items items.json pairs.bpe.tgt OWN.txt NONE.txt RANDOM.txt --out cxmi.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from phrasenmt import precision as prec
from phrasenmt.cli import ArgumentParser, output_file, positive_int, thread_count
from phrasenmt.data.documents import drawn_again_often
from phrasenmt.evaluate.contrastive import item_split, load_header
from phrasenmt.evaluate.pcxmi import top_words
from phrasenmt.evaluate.scores import read_log_probabilities
from phrasenmt.io import InputError, atomic_open, read_lines, run_cli
from phrasenmt.log import get_logger

_log = get_logger(__name__)

METHOD = ("log p(y|x,C) - log p(y|x) (cxmi) and log p(y|x,C) - log p(y|x,C_random) "
          "(cxmi_random): mean over target tokens (</s> included), nats per token; "
          "*_sentence: mean over sentences of the sentence log-probabilities' "
          "difference (Fernandes et al. 2021), nats per sentence; 95% CI: "
          "bootstrap over sentences; words: mean P-CXMI per target word "
          "(BPE pieces summed)")
CHUNK = 256  # bootstrap samples drawn at once (bounds memory)


def cxmi(diff: np.ndarray, tokens: np.ndarray, samples: int, seed: int
         ) -> dict[str, Any]:
    """CXMI of per-sentence log-prob differences over per-sentence token counts,
    with a bootstrap 95% interval over sentences."""
    if not len(diff):
        raise InputError("no sentences to compute CXMI over")
    value = float(diff.sum() / tokens.sum())
    rng = np.random.default_rng(seed)
    n, stats = len(diff), []
    for start in range(0, samples, CHUNK):
        counts = rng.multinomial(n, np.full(n, 1.0 / n), size=min(CHUNK, samples - start))
        stats.append(counts @ diff / (counts @ tokens))
    lo, hi = np.percentile(np.concatenate(stats), [2.5, 97.5])
    return {"cxmi": value, "ci95": [float(lo), float(hi)],
            "sentences": int(n), "tokens": int(tokens.sum())}


def token_counts(targets: list[str]) -> np.ndarray:
    """Target tokens per line, </s> included (what forced scoring sums over)."""
    return np.array([len(t.split()) + 1 for t in targets], dtype=float)


def both(targets: list[str], scores: tuple[Path, Path, Path],
         pick: np.ndarray | None, samples: int, seed: int) -> dict[str, Any]:
    """CXMI against no context and against a random context, on lines `pick`."""
    own, none, rand = (np.array(read_log_probabilities(p, len(targets),
                                                       ("targets", "lines")))
                       for p in scores)
    tokens = token_counts(targets)
    if pick is not None:
        own, none, rand, tokens = own[pick], none[pick], rand[pick], tokens[pick]
    out = cxmi(own - none, tokens, samples, seed)
    ones = np.ones(len(tokens))
    for key, diff in (("cxmi", own - none), ("cxmi_random", own - rand)):
        if key != "cxmi":
            token_mean = cxmi(diff, tokens, samples, seed)
            out[key], out["ci95_random"] = token_mean["cxmi"], token_mean["ci95"]
        per_sentence = cxmi(diff, ones, samples, seed)  # the published mean
        suffix = "_random" if key != "cxmi" else ""
        out[f"{key}_sentence"] = per_sentence["cxmi"]
        out[f"ci95{suffix}_sentence"] = per_sentence["ci95"]
        out[f"sentence_{key}"] = [round(float(v), 6) for v in diff]
    return out


def test_set(tgt: Path, own: Path, none: Path, rand: Path, samples: int, seed: int
             ) -> dict[str, Any]:
    """CXMI over every line of a test set."""
    return both(read_lines(tgt), (own, none, rand), None, samples, seed)


ALL_TYPES = "all"  # --type: the test items of every type


def item_set(items: Path, tgt: Path, own: Path, none: Path, rand: Path, kind: str,
             samples: int, seed: int) -> dict[str, Any]:
    """CXMI over the reference lines of the contrastive test items of type
    `kind` (`all`: every type; dev items choose budgets and are reported nowhere)."""
    targets = read_lines(tgt)
    data = load_header(items, (tgt, len(targets)))
    lines = sorted({item["lines"][0] for item in data["items"]
                    if kind in (ALL_TYPES, item["type"]) and item_split(item) == "test"})
    if not lines:
        raise InputError(f"no test items of type {kind!r}", items)
    return {"type": kind, **both(targets, (own, none, rand), np.array(lines),
                                 samples, seed)}


def score_files(args: argparse.Namespace, out_dir: Path) -> None:
    """Score --test-files / --item-files with the checkpoint under own, none and
    random context into `out_dir` ({test,items}.{own,none,random}.txt)."""
    from phrasenmt.decoding import context as doc_context
    from phrasenmt.io import read_parallel, write_lines
    from phrasenmt.text.subwords import check_whole_words
    from phrasenmt.training.checkpoint import load_model
    from phrasenmt.training.trainer import resolve_device

    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    model, src_vocab, tgt_vocab, _ = load_model(args.checkpoint, device)
    if not getattr(model, "context_sides", ()):
        raise InputError("the model reads no document context: CXMI is for "
                         "document-level models", args.checkpoint)
    cast = prec.autocast(prec.resolve(args.precision, device,
                                      width=prec.model_width(model.cfg)), device)
    sets = {"test": args.test_files} if args.test_files else {}
    args.token_scores = {}
    if args.item_files:
        sets["items"] = args.item_files[1:]
    texts = {name: read_parallel(src_path, tgt_path, allow_empty=False)
             for name, (src_path, tgt_path, _) in sets.items()}
    for name, (src_path, tgt_path, _) in sets.items():
        for text, path in zip(texts[name], (src_path, tgt_path), strict=True):
            check_whole_words(text, path)
    if args.item_files:  # the whole items file, before any scoring
        load_header(args.item_files[0], (args.item_files[1], len(texts["items"][0])))
    pool = doc_context.state_pool(model)  # frozen context states, for every pass
    args.drawn_again = {}
    for name, (src_path, _, ctx_path) in sets.items():
        src, tgt = texts[name]
        option = {"docs": ctx_path, "context": None} if name == "test" else \
            {"docs": None, "context": ctx_path}
        for context_as in doc_context.CONTEXT_AS:
            ns = argparse.Namespace(**option, context_as=context_as)
            source = doc_context.context_source(model, ns, src_path, len(src))
            if context_as == "own":
                again = doc_context.random_drawn_again(source, model.cfg.context_size)
                if again is not None:
                    args.drawn_again[name] = again
                    warn_drawn_again(name, again)
            with cast:
                tokens = doc_context.token_scores_with_context(
                    model, src_vocab, tgt_vocab, src, tgt, source, args.batch_size,
                    pool)
            write_lines(out_dir / f"{name}.{context_as}.txt",
                        [f"{sum(v):.6f}" for v in tokens])
            if name == "test":  # P-CXMI per word
                args.token_scores[context_as] = tokens
            if name == "test" and context_as == "own":
                with cast:
                    args.gates = gate_statistics(model, src_vocab, tgt_vocab, src,
                                                 tgt, source, args.batch_size, pool)


def warn_drawn_again(name: str, again: dict[str, int]) -> None:
    """A warning when many lines of a random-context control get their own
    random context again as the "random" context of CXMI."""
    if drawn_again_often(again):
        part, what = (("test set", "documents") if name == "test"
                      else ("contrastive items", "distinct contexts"))
        _log.warning(f"{part}: on {again['same']} of {again['lines']} lines with a "
                     f"context the random context drawn for CXMI is this control's "
                     f"own ({again['sources']} {what} to draw from): those lines "
                     "add exactly 0 to its CXMI against a random context")


def gate_statistics(model: Any, src_vocab: Any, tgt_vocab: Any, src: list[str],
                    tgt: list[str], source: Any, batch_size: int = 64,
                    pool: Any = None) -> dict[str, Any]:
    """The context gates of a model on a test set with its own context.

    For every gate λ = σ(W H + W' S) of the model (per module name: the context
    sublayers of ctx_transformer, the HAN modules), over the positions of the
    lines that have a context: the mean of λ (the share of the sentence-level
    state H that is kept; 1 = the context is shut out) and the mean ratio
    |S| / |H| of the context vector's norm to the state's. `lambda` and
    `norm_ratio` are their means over the gates (null for a model without
    gates). Each forward pass holds lines of one source and one target length
    only, so no padding enters the means (`pool`: the frozen context states
    of the scoring passes)."""
    import torch

    from phrasenmt.decoding import context as doc_context
    from phrasenmt.models.ctx_transformer import observe_gates

    names = {id(m.gate_h): name for name, m in model.named_modules()
             if getattr(m, "gate_h", None) is not None}
    sums: dict[str, list[float]] = {}

    def observe(w_i: Any, lam: Any, h: Any, s: Any, keep: Any) -> None:
        rows = (keep.reshape(-1) if keep is not None
                else torch.ones(h.size(0), dtype=torch.bool, device=h.device))
        if not bool(rows.any()):
            return
        lam, h, s = lam[rows].float(), h[rows].float(), s[rows].float()
        ratio = s.norm(dim=-1) / h.norm(dim=-1).clamp_min(1e-12)  # (rows, T)
        acc = sums.setdefault(names[id(w_i)], [0.0, 0.0, 0.0])
        acc[0] += ratio.numel()
        acc[1] += float(lam.mean(dim=-1).sum())
        acc[2] += float(ratio.sum())

    with observe_gates(observe), torch.no_grad():
        doc_context.score_with_context(model, src_vocab, tgt_vocab, src, tgt,
                                       source, batch_size, pool=pool, exact=True)
    gates = {name: {"lambda": acc[1] / acc[0], "norm_ratio": acc[2] / acc[0],
                    "positions": int(acc[0])} for name, acc in sorted(sums.items())}
    mean = (lambda key: float(np.mean([g[key] for g in gates.values()]))
            if gates else None)
    return {"lambda": mean("lambda"), "norm_ratio": mean("norm_ratio"),
            "gates": gates}


def from_checkpoint(args: argparse.Namespace) -> None:
    """Fill args.test / args.items with score files made from --checkpoint."""
    import tempfile

    tmp = args.scratch = Path(tempfile.mkdtemp(prefix="cxmi-"))
    score_files(args, tmp)
    if args.test_files:
        args.test = [args.test_files[1], *(tmp / f"test.{c}.txt"
                                           for c in ("own", "none", "random"))]
    if args.item_files:
        args.items = [args.item_files[0], args.item_files[2],
                      *(tmp / f"items.{c}.txt" for c in ("own", "none", "random"))]


def build_parser() -> argparse.ArgumentParser:
    """Options of the CLI."""
    p = ArgumentParser(prog="python -m phrasenmt.evaluate.cxmi",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="model name (for the table)")
    p.add_argument("--test", nargs=4, type=Path,
                   metavar=("TGT", "OWN", "NONE", "RANDOM"),
                   help="BPE'd references and their scores with the model's own "
                   "context, no context and a random context (translate score "
                   "--context-as own | none | random)")
    p.add_argument("--items", nargs=5, type=Path,
                   metavar=("ITEMS", "TGT", "OWN", "NONE", "RANDOM"),
                   help="contrastive items.json, pairs.bpe.tgt and the scores of its "
                   "lines (as --test)")
    p.add_argument("--checkpoint", type=Path,
                   help="a document-level model: score --test-files/--item-files here")
    p.add_argument("--test-files", nargs=3, type=Path,
                   metavar=("SRC", "TGT", "DOCS"),
                   help="(--checkpoint) BPE'd test source, references, document ids")
    p.add_argument("--item-files", nargs=4, type=Path,
                   metavar=("ITEMS", "SRC", "TGT", "CONTEXT"),
                   help="(--checkpoint) contrastive items.json, pairs.bpe.src, "
                   "pairs.bpe.tgt, pairs.ctx.bpe.jsonl")
    p.add_argument("--batch-size", type=positive_int, default=64,
                   help="(--checkpoint) sentences per batch")
    p.add_argument("--threads", type=thread_count, default=None,
                   help="(--checkpoint) CPU threads for torch")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                   help="auto: CUDA when present, else CPU")
    prec.add_precision_argument(p)
    p.add_argument("--type", default="pronoun_gender",
                   help=f"item type of --items, or {ALL_TYPES} for every test item "
                   "(default: %(default)s)")
    p.add_argument("--top-words", type=positive_int, default=20,
                   help="(--checkpoint) words listed by mean P-CXMI on the test "
                   "set (default: %(default)s)")
    p.add_argument("--min-count", type=positive_int, default=5,
                   help="(--checkpoint) occurrences a listed word needs "
                   "(default: %(default)s)")
    p.add_argument("--samples", type=positive_int, default=1000,
                   help="bootstrap samples (default: %(default)s)")
    p.add_argument("--seed", type=positive_int, default=1, help="bootstrap seed")
    p.add_argument("--out", type=output_file, required=True, help="output JSON")
    return p


def main(argv: list[str] | None = None) -> int:
    """Compute CXMI on the given sets and write one JSON."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.checkpoint is not None:
        if args.test is not None or args.items is not None:
            parser.error("--checkpoint scores --test-files/--item-files itself; "
                         "drop --test/--items")
        if args.test_files is None and args.item_files is None:
            parser.error("--checkpoint needs --test-files and/or --item-files")
        try:
            from_checkpoint(args)
            return write_result(args)
        finally:
            import shutil

            if getattr(args, "scratch", None) is not None:
                shutil.rmtree(args.scratch, ignore_errors=True)
    elif args.test_files is not None or args.item_files is not None:
        parser.error("--test-files/--item-files need --checkpoint")
    if args.test is None and args.items is None:
        parser.error("give --test and/or --items (or --checkpoint)")
    return write_result(args)


def write_result(args: argparse.Namespace) -> int:
    """CXMI of the sets given by score files, as one JSON."""
    result: dict[str, Any] = {"model": args.model, "method": METHOD,
                              "samples": args.samples, "seed": args.seed}
    if args.test is not None:
        result["test"] = test_set(*args.test, args.samples, args.seed)
        tokens = getattr(args, "token_scores", None)
        if tokens:
            result["test"]["words"] = top_words(
                read_lines(args.test[0]), tokens["own"], tokens["none"],
                tokens["random"], args.top_words, args.min_count)
    if args.items is not None:
        result["items"] = item_set(*args.items, args.type, args.samples, args.seed)
    for name, again in (getattr(args, "drawn_again", None) or {}).items():
        result[name]["random_drawn_again"] = again
    if getattr(args, "gates", None) is not None:
        result["gates"] = args.gates
    with atomic_open(args.out) as fh:
        json.dump(result, fh, indent=2)
    return 0


if __name__ == "__main__":
    run_cli(main)
