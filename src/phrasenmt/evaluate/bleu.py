"""Corpus BLEU (detokenized and tokenized), chrF and paired bootstrap significance.

Detokenized BLEU is sacreBLEU with the tokenizer of the target language
(`bleu_tokenizer`: zh for Chinese, ja-mecab for Japanese where MeCab is
installed, char for the other scripts written without spaces, 13a otherwise);
the signature says which. Tokenized BLEU is the
number the papers report (multi-bleu.perl on Moses-tokenized, case-sensitive
text): sacreBLEU with ``tokenize='none'``. The paired bootstrap test uses
sacreBLEU's ``PairedTest`` on the detokenized BLEU.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.metrics.base import Metric
from sacrebleu.significance import PairedTest

from phrasenmt.cli import ArgumentParser, output_file, positive_int
from phrasenmt.io import InputError, atomic_open, ends_with_newline, read_lines, run_cli
from phrasenmt.log import get_logger

_log = get_logger(__name__)

DEFAULT_SAMPLES = 1000
DEFAULT_SEED = 12345  # sacreBLEU's own default seed


DEFAULT_TOKENIZER = "13a"
CHINESE = ("zh", "zho", "yue")
JAPANESE = ("ja", "jpn")
# the other languages written without spaces: 13a would score clauses as words
CHARACTER_SCRIPTS = ("th", "tha", "lo", "lao", "km", "khm", "my", "mya", "bo", "bod", "dz",
                     "dzo")


def bleu_tokenizer(lang: str | None) -> tuple[str, str | None]:
    """sacreBLEU's tokenizer for a target language, and a note when the one it
    should have is not installed."""
    if lang in CHINESE:
        return "zh", None
    if lang in JAPANESE:
        if all(importlib.util.find_spec(m) for m in ("MeCab", "ipadic")):
            return "ja-mecab", None
        return "char", ("ja-mecab needs MeCab (pip install 'sacrebleu[ja]'); "
                        "Japanese BLEU is counted on characters (tok:char)")
    if lang in CHARACTER_SCRIPTS:
        return "char", None
    return DEFAULT_TOKENIZER, None


def detok_bleu(tokenize: str = DEFAULT_TOKENIZER) -> BLEU:
    """sacreBLEU BLEU on detokenized text with a tokenizer (13a by default)."""
    return BLEU(tokenize=tokenize)


def tok_bleu() -> BLEU:
    """Case-sensitive BLEU on already tokenized text (multi-bleu.perl equivalent)."""
    return BLEU(tokenize="none", force=True)


def chrf() -> CHRF:
    """sacreBLEU chrF with its default settings."""
    return CHRF()


def score_entry(metric: Metric, hyps: Sequence[str], refs: Sequence[str]
                ) -> dict[str, Any]:
    """Score a corpus; return the score, the signature and BLEU's details."""
    score = metric.corpus_score(list(hyps), [list(refs)])
    entry: dict[str, Any] = {
        "score": score.score,
        "signature": metric.get_signature().format(),
    }
    if isinstance(metric, BLEU):
        entry.update(precisions=list(score.precisions), bp=score.bp,
                     sys_len=score.sys_len, ref_len=score.ref_len)
    return entry


@contextlib.contextmanager
def _sacrebleu_seed(seed: int) -> Iterator[None]:
    """Set SACREBLEU_SEED, the only way PairedTest takes a seed, then restore it."""
    old = os.environ.get("SACREBLEU_SEED")
    os.environ["SACREBLEU_SEED"] = str(seed)
    try:
        yield
    finally:
        if old is None:
            del os.environ["SACREBLEU_SEED"]
        else:
            os.environ["SACREBLEU_SEED"] = old


def paired_bootstrap(system: tuple[str, Sequence[str]],
                     baseline: tuple[str, Sequence[str]], refs: Sequence[str],
                     samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED,
                     tokenize: str = DEFAULT_TOKENIZER) -> dict[str, Any]:
    """Paired bootstrap resampling of detokenized BLEU, system against baseline."""
    if seed < 1:
        raise ValueError("seed must be >= 1 (sacreBLEU treats 0 as unseeded)")
    named = [(baseline[0], list(baseline[1])), (system[0], list(system[1]))]
    with _sacrebleu_seed(seed):
        test = PairedTest(named, {"BLEU": detok_bleu(tokenize)},
                          references=[list(refs)],
                          test_type="bs", n_samples=samples)
        signatures, scores = test()
    base, sys_ = scores["BLEU"]
    p_value = sys_.p_value
    identical = list(system[1]) == list(baseline[1])
    if identical:
        # sacreBLEU counts resampled differences strictly greater than the
        # observed one; with identical outputs all are 0 and p becomes 1/(n+1).
        p_value = 1.0
    return {
        "baseline": baseline[0], "metric": "BLEU (detok)",
        "test": "paired bootstrap resampling", "samples": samples, "seed": seed,
        "signature": signatures["BLEU"].format(),
        "baseline_score": base.score, "baseline_mean": base.mean,
        "baseline_ci95": base.ci,
        "system_score": sys_.score, "system_mean": sys_.mean, "system_ci95": sys_.ci,
        "p_value": p_value, "identical_outputs": identical,
    }


def read_pair(hyp: Path, ref: Path) -> tuple[list[str], list[str]]:
    """Read hypotheses and references; line-count mismatch names both files."""
    hyps, refs = read_lines(hyp), read_lines(ref)
    if len(hyps) != len(refs):
        raise InputError(f"has {len(hyps)} lines but the reference {ref} has "
                         f"{len(refs)}; they must match", hyp)
    if not hyps:  # sacreBLEU's corpus scores fail on 0 sentences (IndexError)
        raise InputError("no lines to score: BLEU and chrF of an empty test set "
                         "are undefined (sacreBLEU has no score for 0 sentences)", hyp)
    if not ends_with_newline(Path(hyp)):  # scored, but said: it may be cut short
        _log.warning(f"{hyp}: the last line has no newline: a file cut short? (every "
                     "translation the workflow writes ends its lines with one)")
    return hyps, refs


def evaluate(args: argparse.Namespace) -> dict[str, Any]:
    """Compute every score the CLI arguments ask for, as a JSON-ready dict."""
    hyps, refs = read_pair(args.hyp, args.ref)
    hyps_tok, refs_tok = read_pair(args.hyp_tok, args.ref_tok)
    if len(hyps_tok) != len(hyps):
        raise InputError(f"has {len(hyps_tok)} lines but the detokenized "
                         f"hypotheses {args.hyp} have {len(hyps)}", args.hyp_tok)
    tokenize, note = bleu_tokenizer(args.lang)
    bleu = score_entry(detok_bleu(tokenize), hyps, refs)
    if note:
        bleu["note"] = note
        _log.warning(f"note: {note}")
    result: dict[str, Any] = {
        "system": args.system, "testset": args.testset, "lines": len(hyps),
        "lang": args.lang, "bleu": bleu,
        "bleu_tok": score_entry(tok_bleu(), hyps_tok, refs_tok),
        "chrf": score_entry(chrf(), hyps, refs),
        "significance": None,
        "inputs": {k: str(getattr(args, k)) for k in
                   ("hyp", "ref", "hyp_tok", "ref_tok", "baseline_hyp")
                   if getattr(args, k) is not None},
    }
    if args.baseline_name is not None and args.baseline_name != args.system:
        base_hyps, _ = read_pair(args.baseline_hyp, args.ref)
        result["significance"] = paired_bootstrap(
            (args.system, hyps), (args.baseline_name, base_hyps), refs,
            args.bootstrap, args.seed, tokenize)
    return result


def build_parser() -> argparse.ArgumentParser:
    """The command-line interface of the BLEU/chrF evaluation."""
    p = ArgumentParser(prog="python -m phrasenmt.evaluate.bleu",
                       description=__doc__.splitlines()[0])
    p.add_argument("--system", required=True, help="name of the evaluated system")
    p.add_argument("--testset", required=True, help="name of the test set")
    p.add_argument("--hyp", type=Path, required=True,
                   help="detokenized hypotheses, one per line")
    p.add_argument("--ref", type=Path, required=True,
                   help="detokenized reference, as sacreBLEU should see it")
    p.add_argument("--lang", help="target language code: picks sacreBLEU's "
                   "tokenizer (zh, ja-mecab, char; default 13a)")
    p.add_argument("--hyp-tok", type=Path, required=True,
                   help="Moses-tokenized hypotheses")
    p.add_argument("--ref-tok", type=Path, required=True,
                   help="Moses-tokenized reference")
    p.add_argument("--baseline-name", help="name of the baseline system")
    p.add_argument("--baseline-hyp", type=Path,
                   help="detokenized hypotheses of the baseline")
    p.add_argument("--bootstrap", type=positive_int, default=DEFAULT_SAMPLES,
                   help="bootstrap samples (default: %(default)s)")
    p.add_argument("--seed", type=positive_int, default=DEFAULT_SEED,
                   help="bootstrap seed, >= 1 (default: %(default)s)")
    p.add_argument("--out", type=output_file, required=True, help="output JSON file")
    return p


def main(argv: list[str] | None = None) -> int:
    """Evaluate one system on one test set and write the scores as JSON."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.baseline_hyp is not None and args.baseline_name is None:
        parser.error("--baseline-hyp needs --baseline-name")
    if (args.baseline_name not in (None, args.system)
            and args.baseline_hyp is None):
        parser.error("--baseline-name of another system needs --baseline-hyp")
    result = evaluate(args)
    with atomic_open(args.out) as fh:
        json.dump(result, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
    return 0


if __name__ == "__main__":
    run_cli(main)
