"""Translate or score with a checkpoint: `python -m phrasenmt.translate ...`.

  translate: --checkpoint F --input F(BPE'd) --output F [--beam 4] [--lenpen 0.6]
             writes one tokenized hypothesis per line, BPE removed.
  score:     python -m phrasenmt.translate score --checkpoint F --src F --tgt F
             --output F writes log P(tgt | src) per line (forced decoding, sum
             of token log-probs including </s>).
Beam search ranks finished hypotheses by score / ((5 + len) / 6) ** lenpen
(GNMT); --lenpen 0 ranks by the raw log-probability. Output length is capped
at max_len_a * source_len + max_len_b tokens; --min-len N forbids </s> before
N tokens (beam and greedy search of sentence-level models).

SWAN models (npmt, npmt_noreorder; word-level text) decode segments instead:
--beam 1 is greedy, a wider beam ranks by Eq. 3, log p(y|x) + lambda1 |y| +
lambda2 log p_LM(y), with --lm FILE a KenLM model; --beam, --lambda1 default
to the model's preset, --lambda2 to the preset's with --lm and 0 without;
--segments-out writes JSON Lines {"segments": [[tok, ...], ...]}, one list per
source position (</s> included). The greedy segment search (--beam 1) is the
model's own argmax: it takes no --lm and no non-zero --lambda1/--lambda2.

An option the model's search does not read is refused, naming the option and
the model, never silently ignored: --lenpen with --beam 1 (greedy) or on a SWAN
model (Eq. 3 has no length penalty); --beam above 1 or --lenpen on a model with
its own greedy search (the nearest-neighbour output of conmt/pconmt). `score` gives log p(y|x) by the segment DP
(-inf where no segmentation can produce y).

Both commands take --precision auto|fp32|bf16 (`phrasenmt.precision`): the
model's forward passes in bf16 autocast or fp32, log-probabilities summed in
float32 (or wider) either way; a checkpoint decodes in any precision.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from phrasenmt import precision as prec
from phrasenmt.cli import (
    ArgumentParser,
    field_type,
    nonnegative_float,
    nonnegative_int,
    output_file,
    thread_count,
)
from phrasenmt.config_model import Decode
from phrasenmt.decoding import context as doc_context
from phrasenmt.decoding.postprocess import remove_bpe
from phrasenmt.decoding.scoring import forced_log_probs
from phrasenmt.decoding.search import beam_search, greedy_search, max_lengths
from phrasenmt.hparams.npmt import NPMTConfig
from phrasenmt.io import (
    InputError,
    read_lines,
    read_parallel,
    run_cli,
    write_all,
    write_lines,
)
from phrasenmt.log import get_logger
from phrasenmt.nn.batching import pad_sequences, pad_side
from phrasenmt.text.subwords import check_whole_words
from phrasenmt.text.vocab import BOS, EOS, Vocabulary
from phrasenmt.training.checkpoint import check_fertility_trained, load_model
from phrasenmt.training.data import parse_side, read_side
from phrasenmt.training.trainer import check_side_inputs, resolve_device

Side = dict[str, list[list[int]]]
LENPEN = 0.6  # the default GNMT length penalty of beam search
# Input of this model's data and BPE leaves few tokens unknown (as a step-1 model
# must leave at most 1 % of its step 2's training tokens); past this share the
# input is another language, other data or another BPE: a warning
MAX_UNKNOWN_INPUT = 0.10
_log = get_logger(__name__)


def side_batch(side: Side, chunk: list[int], length: int,
               device: torch.device) -> dict[str, torch.Tensor]:
    """The side inputs of the sentences in `chunk`, padded to `length`."""
    rows = {name: [values[i] for i in chunk] for name, values in side.items()}
    return {k: v.to(device) for k, v in pad_side(rows, length).items()}


def length_sorted_chunks(lengths: list[int], size: int) -> Iterator[list[int]]:
    """Indices in chunks of `size`, sorted by length (longest first)."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    for start in range(0, len(order), size):
        yield order[start: start + size]


def translate_lines(model: nn.Module, src_vocab: Vocabulary, tgt_vocab: Vocabulary,
                    lines: list[str], beam: int = 4, lenpen: float = 0.6,
                    max_len_a: float = 1.5, max_len_b: float = 10,
                    batch_size: int = 64, side: Side | None = None,
                    min_len: int = 0) -> list[str]:
    """Translate BPE'd lines -> tokenized hypotheses (BPE removed), in order."""
    device = next(model.parameters()).device
    own_search = getattr(model, "generate", None)  # e.g. nearest-neighbour
    if min_len and own_search is not None:
        raise InputError(f"{type(model).__name__} decodes with its own search, "
                         "which has no minimum length", "--min-len")
    encoded = [src_vocab.encode(line) for line in lines]
    out = [""] * len(lines)
    for chunk in length_sorted_chunks([len(e) for e in encoded], batch_size):
        src = pad_sequences([[*encoded[i], EOS] for i in chunk]).to(device)
        extra = side_batch(side or {}, chunk, src.size(1), device)
        if own_search is not None:
            best = own_search(src, extra, max_len_a, max_len_b)
        elif beam == 1:
            best = greedy_search(model, src, max_len_a, max_len_b, extra, min_len)
        else:
            best = [h[0] for h in beam_search(model, src, beam, lenpen, max_len_a,
                                              max_len_b, extra, min_len)]
        for i, hyp in zip(chunk, best, strict=True):
            out[i] = remove_bpe(" ".join(output_tokens(model, tgt_vocab, hyp.tokens)))
    return out


def output_tokens(model: nn.Module, tgt_vocab: Vocabulary, ids: list[int]
                  ) -> list[str]:
    """A hypothesis' tokens; a model may write out its own (phrases as words)."""
    expand = getattr(model, "output_words", None)
    return expand(ids, tgt_vocab) if expand is not None else tgt_vocab.decode(ids)


def score_lines(model: nn.Module, src_vocab: Vocabulary, tgt_vocab: Vocabulary,
                src: list[str], tgt: list[str], batch_size: int = 64,
                side: Side | None = None) -> list[float]:
    """log P(tgt | src) per pair (sum over tokens, </s> included)."""
    device = next(model.parameters()).device
    src_ids = [src_vocab.encode(s) for s in src]
    tgt_ids = [tgt_vocab.encode(t) for t in tgt]
    out = [0.0] * len(src)
    for chunk in length_sorted_chunks([len(t) for t in tgt_ids], batch_size):
        src_batch = pad_sequences([[*src_ids[i], EOS] for i in chunk]).to(device)
        tgt_out = pad_sequences([[*tgt_ids[i], EOS] for i in chunk]).to(device)
        own_scoring = getattr(model, "score_pairs", None)  # e.g. SWAN's DP
        if own_scoring is not None:
            scores = own_scoring(src_batch, tgt_out)
        else:
            scores = forced_log_probs(
                model, src_batch,
                pad_sequences([[BOS, *tgt_ids[i]] for i in chunk]).to(device),
                tgt_out, side_batch(side or {}, chunk, src_batch.size(1), device))
        for i, s in zip(chunk, scores.tolist(), strict=True):
            out[i] = s
    return out


@dataclass
class SegmentSearch:
    """Decoding settings of a SWAN model (Eq. 3)."""

    beam: int  # 1 = greedy
    lambda1: float  # word-count weight
    lambda2: float  # LM weight
    lm: Any  # phrasenmt.decoding.lm.LanguageModel or None
    max_len_a: float  # output length cap a * source length + b
    max_len_b: float


def translate_segments(model: nn.Module, src_vocab: Vocabulary, tgt_vocab: Vocabulary,
                       lines: list[str], search: SegmentSearch, batch_size: int = 64
                       ) -> tuple[list[str], list[list[list[str]]]]:
    """Word-level lines -> (hypotheses, per sentence one token list per position)."""
    device = next(model.parameters()).device
    encoded = [src_vocab.encode(line) for line in lines]
    out, segments = [""] * len(lines), [[] for _ in lines]
    for chunk in length_sorted_chunks([len(e) for e in encoded], batch_size):
        src = pad_sequences([[*encoded[i], EOS] for i in chunk]).to(device)
        limits = max_lengths(src, search.max_len_a, search.max_len_b).tolist()
        hyps = model.decode_segments(src, search.beam, search.lambda1, search.lambda2,
                                     search.lm, tgt_vocab.itos, limits)
        for i, hyp in zip(chunk, hyps, strict=True):
            segments[i] = [[tgt_vocab.itos[t] for t in seg] for seg in hyp.segments]
            out[i] = remove_bpe(" ".join(w for seg in segments[i] for w in seg))
    return out, segments


def segment_search(model: nn.Module, args: argparse.Namespace, tgt_vocab: Vocabulary
                   ) -> SegmentSearch | None:
    """Resolve --beam/--lambda1/--lambda2/--lm (None for non-SWAN models)."""
    own = ("lambda1", "lambda2", "lm", "segments_out")
    if not hasattr(model, "decode_segments"):
        given = [k for k in own if getattr(args, k) is not None]
        if given:
            raise InputError("only for models that decode segments (npmt, "
                             "npmt_noreorder)", "--" + given[0].replace("_", "-"))
        args.beam = 4 if args.beam is None else args.beam
        return None
    cfg = model.cfg
    lambda2 = args.lambda2 if args.lambda2 is not None else (
        cfg.lambda2 if args.lm is not None else 0.0)
    if lambda2 != 0.0 and args.lm is None:
        raise InputError(f"is {lambda2}, but an LM weight needs --lm FILE", "--lambda2")
    lm = None
    if args.lm is not None:
        from phrasenmt.decoding.lm import LanguageModel  # KenLM only where asked for

        lm = LanguageModel(args.lm)
        lm.check_vocabulary(tgt_vocab.itos, f"the target vocabulary of "
                            f"{args.checkpoint}")
    return SegmentSearch(cfg.beam if args.beam is None else args.beam,
                         cfg.lambda1 if args.lambda1 is None else args.lambda1,
                         lambda2, lm, args.max_len_a, args.max_len_b)


def _common_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--checkpoint", required=True, type=Path,
                   help="training checkpoint or averaged model")
    p.add_argument("--output", required=True, type=output_file, help="file to write")
    p.add_argument("--batch-size", type=field_type(Decode, "batch_size"), default=64,
                   help="sentences per batch")
    p.add_argument("--threads", type=thread_count, default=None,
                   help="CPU threads for torch")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto",
                   help="auto: CUDA when present, else CPU")
    prec.add_precision_argument(p)
    p.add_argument("--side", action="append", default=[], metavar="NAME=FILE",
                   help="a side input the model reads, line-aligned with the "
                   "source (repeatable)")
    doc_context.add_context_arguments(p)  # --docs, --context


def translate_parser() -> argparse.ArgumentParser:
    """Options of the translate command."""
    p = ArgumentParser(prog="python -m phrasenmt.translate",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    _common_args(p)
    p.add_argument("--input", required=True, type=Path, help="BPE'd source text")
    # the options that set a config key take its bound from the key's field
    p.add_argument("--beam", type=field_type(Decode, "beam"), default=None,
                   help="beam size, 1 = greedy (default 4; SWAN: the preset's)")
    p.add_argument("--lenpen", type=field_type(Decode, "lenpen"), default=None,
                   help=f"GNMT length penalty alpha of beam search (0 = off; "
                   f"default {LENPEN})")
    p.add_argument("--max-len-a", type=field_type(Decode, "max_len_a"), default=1.5,
                   help="a of the output length cap a * source length + b, in "
                   "tokens (config decode.max_len_a; default %(default)s)")
    p.add_argument("--max-len-b", type=nonnegative_float, default=10,
                   help="b of the output length cap a * source length + b (config "
                   "decode.max_len_b; default %(default)s)")
    p.add_argument("--min-len", type=nonnegative_int, default=0,
                   help="at least this many tokens before </s> (fairseq's "
                        "--min-len; the length cap still ends a hypothesis)")
    p.add_argument("--lambda1", type=field_type(NPMTConfig, "lambda1"), default=None,
                   help="SWAN: Eq. 3 word-count weight (default: the preset's)")
    p.add_argument("--lambda2", type=field_type(NPMTConfig, "lambda2"), default=None,
                   help="SWAN: Eq. 3 LM weight (default: the preset's with --lm, "
                   "else 0)")
    p.add_argument("--lm", type=Path, default=None,
                   help="SWAN: KenLM language model (ARPA or binary) for Eq. 3")
    p.add_argument("--segments-out", type=output_file, default=None,
                   help="SWAN: JSON Lines of each sentence's segments")
    return p


def score_parser() -> argparse.ArgumentParser:
    """Options of the score command."""
    p = ArgumentParser(prog="python -m phrasenmt.translate score",
                       description="Forced-decoding log P(tgt | src), "
                       "one float per line.")
    _common_args(p)
    p.add_argument("--src", required=True, type=Path, help="BPE'd source text")
    p.add_argument("--tgt", required=True, type=Path, help="BPE'd target text")
    return p


def load(args: argparse.Namespace,
         check: Callable[[dict[str, Any]], None] | None = None
         ) -> tuple[nn.Module, Vocabulary, Vocabulary,
                    contextlib.AbstractContextManager]:
    """The model, its vocabularies and the autocast context of --precision;
    `check` sees the model file's payload first (e.g. that it is the run's)."""
    if args.threads:
        torch.set_num_threads(args.threads)
    device = resolve_device(args.device)
    model, src_vocab, tgt_vocab, payload = load_model(args.checkpoint, device)
    if check is not None:
        check(payload)
    check_fertility_trained(model, payload, args.checkpoint)
    precision = prec.resolve(args.precision, device,
                             width=prec.model_width(getattr(model, "cfg", None)))
    return model, src_vocab, tgt_vocab, prec.autocast(precision, device)


def max_input_tokens(model: nn.Module) -> int | None:
    """Longest input the model's position table allows, if it has one."""
    positions = getattr(getattr(model, "cfg", None), "max_positions", None)
    return None if positions is None else positions - 1


def load_side_inputs(model: nn.Module, options: list[str], src: list[str]) -> Side:
    """Read --side NAME=FILE inputs, checked against the model and the source."""
    paths = parse_side(options, 1)
    check_side_inputs(model, set(paths), "--side")
    return {name: read_side(files[0], src, model.side_classes.get(name))
            for name, files in paths.items()}


def score_main(argv: list[str]) -> int:
    """The `score` command."""
    args = score_parser().parse_args(argv)
    model, src_vocab, tgt_vocab, cast = load(args)
    if not getattr(model, "forced_scoring", True):
        raise InputError("the model predicts embeddings (continuous output), not "
                         "token probabilities: it has no forced-decoding score",
                         args.checkpoint)
    src, tgt = read_parallel(args.src, args.tgt, allow_empty=False,
                             max_tokens=max_input_tokens(model))
    check_whole_words(src, args.src)
    check_whole_words(tgt, args.tgt)
    side = load_side_inputs(model, args.side, src)
    context = doc_context.context_source(model, args, args.src, len(src))
    with cast:
        if context is not None:  # document-level model: context by line index
            scores = doc_context.score_with_context(model, src_vocab, tgt_vocab, src,
                                                    tgt, context, args.batch_size, side)
        else:
            scores = score_lines(model, src_vocab, tgt_vocab, src, tgt,
                                 args.batch_size, side)
    write_lines(args.output, [f"{s:.6f}" for s in scores])
    return 0


def warn_unknown_input(lines: list[str], vocab: Vocabulary,
                       path: str | os.PathLike) -> None:
    """Warn when more than MAX_UNKNOWN_INPUT of the input's tokens are not in
    the model's source vocabulary: the input is another language, other data
    or another BPE than the model's, and is translated from <unk>."""
    tokens = [t for line in lines for t in line.split()]
    unknown = sum(t not in vocab.stoi for t in tokens)
    if tokens and unknown / len(tokens) > MAX_UNKNOWN_INPUT:
        _log.warning(f"{path}: the model's source vocabulary misses "
                     f"{100 * unknown / len(tokens):.1f}% of the input's tokens "
                     f"({unknown} of {len(tokens)}; more than "
                     f"{100 * MAX_UNKNOWN_INPUT:g}%): the input is another language, "
                     "other data or another BPE than the model was trained on, and "
                     "these tokens are translated as <unk>")


def main(argv: list[str] | None = None) -> int:
    """Entry point: translate (default) or `score`."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "score":
        return score_main(argv[1:])
    args = translate_parser().parse_args(argv)
    loaded = load(args)
    lines = read_lines(args.input, allow_empty=False,
                       max_tokens=max_input_tokens(loaded[0]))
    check_whole_words(lines, args.input)
    warn_unknown_input(lines, loaded[1], args.input)
    hyps, segments = decode_lines(args, loaded, lines)
    if segments is not None:  # SWAN: with the segments, both or neither
        outputs = [(args.output, hyps)]
        if args.segments_out is not None:
            outputs.append((args.segments_out,
                            [json.dumps({"segments": s}, ensure_ascii=False)
                             for s in segments]))
        write_all(outputs)
        return 0
    write_lines(args.output, hyps)
    return 0


def decode_lines(args: argparse.Namespace,
                 loaded: tuple[nn.Module, Vocabulary, Vocabulary,
                               contextlib.AbstractContextManager],
                 lines: list[str], side: Side | None = None
                 ) -> tuple[list[str], list[list[list[str]]] | None]:
    """Translate the lines of `args.input` as the command's options say:
    (hypotheses, SWAN's segments or None). `loaded` is what `load` returns;
    `side`, the side inputs when they were not read from --side files."""
    model, src_vocab, tgt_vocab, cast = loaded
    if side is None:
        side = load_side_inputs(model, args.side, lines)
    context = doc_context.context_source(model, args, args.input, len(lines))
    check_search_options(model, args)
    swan = segment_search(model, args, tgt_vocab)
    args.lenpen = LENPEN if args.lenpen is None else args.lenpen
    check_length_cap(lines, args.max_len_a, args.max_len_b, counts_eos=swan is None)
    if args.min_len and (swan is not None or context is not None):
        raise InputError("the segment search of SWAN models and the document "
                         "search have no minimum length", "--min-len")
    with cast:
        if swan is not None:  # SWAN: segments, Eq. 3
            return translate_segments(model, src_vocab, tgt_vocab, lines, swan,
                                      args.batch_size)
        return _translate(model, (src_vocab, tgt_vocab), lines, args, context,
                          side), None


def check_search_options(model: nn.Module, args: argparse.Namespace) -> None:
    """Refuse a search option given for a model whose search does not read it
    (it would be silently ignored), naming the option and the model."""
    name = type(model).__name__
    if getattr(model, "generate", None) is not None:  # nearest neighbour
        own = f"{name} decodes with its own greedy search (nearest neighbour in " \
              "its output table)"
        if args.beam not in (None, 1):
            raise InputError(f"{own}, which has no beam; drop the option or give "
                             "--beam 1", "--beam")
        if args.lenpen is not None:
            raise InputError(f"{own}, which has no length penalty", "--lenpen")
        return
    if hasattr(model, "decode_segments"):  # SWAN: Eq. 3
        if args.lenpen is not None:
            raise InputError(f"{name} ranks its segment search by Eq. 3 "
                             "(--lambda1, --lambda2), which has no length penalty",
                             "--lenpen")
        beam = model.cfg.beam if args.beam is None else args.beam
        if beam == 1:
            given = [k for k in ("lm", "lambda1", "lambda2")
                     if getattr(args, k) not in (None, 0, 0.0)]
            if given:
                raise InputError(f"{name}'s greedy segment search (--beam 1) is "
                                 "the model's own argmax, which reads no LM and no "
                                 "Eq. 3 weights; give --beam above 1 for Eq. 3",
                                 "--" + given[0])
        return
    if args.beam == 1 and args.lenpen is not None:
        raise InputError(f"has no effect with --beam 1 (greedy search) of {name}; "
                         "give --beam above 1 too", "--lenpen")


def check_length_cap(lines: list[str], a: float, b: float, counts_eos: bool) -> None:
    """Refuse --max-len-a/-b that leave some input line no room for an output token.

    The cap is floor(a * source tokens + b); beam and greedy search count </s>
    in it, the segment search of SWAN does not. An empty input has no line to cap.
    """
    if not lines:
        return
    lengths = [len(line.split()) for line in lines]
    shortest = min(range(len(lines)), key=lengths.__getitem__)
    cap = math.floor(a * lengths[shortest] + b)
    if cap - counts_eos < 1:
        eos = " (</s> included)" if counts_eos else ""
        raise InputError(f"--max-len-a {a:g} --max-len-b {b:g} cap the output of "
                         f"line {shortest + 1} ({lengths[shortest]} tokens) at "
                         f"{cap} token(s){eos}: no room for a word; raise "
                         "--max-len-b", "--max-len-b")


def _translate(model: nn.Module, vocabs: tuple[Vocabulary, Vocabulary],
               lines: list[str], args: argparse.Namespace,
               context: doc_context.ContextSource | None, side: Side) -> list[str]:
    """Beam or greedy search of a sentence- or document-level model."""
    if context is not None:  # document-level model: context by line index
        search = doc_context.Search(args.beam, args.lenpen, args.max_len_a,
                                    args.max_len_b, args.batch_size)
        return doc_context.translate_with_context(model, *vocabs, lines, context,
                                                  search, side)
    return translate_lines(model, *vocabs, lines, args.beam, args.lenpen,
                           args.max_len_a, args.max_len_b, args.batch_size, side,
                           args.min_len)


if __name__ == "__main__":
    run_cli(main)
