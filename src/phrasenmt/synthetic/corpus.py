"""Built-in synthetic English-German corpus from a seeded synchronous grammar.

Writes, per split, tokenized ``.en``/``.de`` text, ``.docs`` (document ids),
``.trees`` (gold PTB trees of the English side), ``.align`` (gold Pharaoh
alignments, source-target of --direction), plus ``test.lingeval.json`` and
``stats.json``. The same seed gives byte-identical files.

    python -m phrasenmt.synthetic --outdir DIR --seed 1 \\
        --train-size 40000 --dev-size 1000 --test-size 1000 --direction en-de
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
from collections import Counter
from dataclasses import fields
from pathlib import Path

from phrasenmt.cli import (
    ArgumentParser,
    int_range,
    nonnegative_int,
    output_dir,
    positive_int,
    rate,
)
from phrasenmt.io import InputError, atomic_open, output_set, run_cli, write_lines
from phrasenmt.synthetic import lexicon
from phrasenmt.synthetic.builder import RATE_HELP, GrammarConfig, Pools
from phrasenmt.synthetic.documents import (
    DISTRACTOR_GENDERS,
    DistanceMix,
    Limits,
    document,
)
from phrasenmt.synthetic.lingeval import bin_counts, split_items, targeted_items
from phrasenmt.synthetic.tree import Sentence

SPLITS = ("train", "dev", "test")
Entries = list[tuple[str, Sentence]]


def derive_seed(seed: int, name: str) -> int:
    """A sub-seed for one split or purpose, independent of PYTHONHASHSEED."""
    digest = hashlib.sha256(f"{seed}:{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def doc_length(rng: random.Random, remaining: int, lo: int, hi: int) -> int:
    """Sentences in the next document, so that the split ends on a whole document."""
    if remaining <= hi:
        return remaining
    n = rng.randint(lo, hi)
    if 0 < remaining - n < lo:
        n = remaining - lo if remaining - lo >= lo else n
    return n


def generate_split(name: str, size: int, seed: int, cfg: GrammarConfig,
                   pools: Pools, limits: Limits, doc_range: tuple[int, int],
                   avoid: set[str] | None = None,
                   distances: dict[int, float] | None = None,
                   distractor_gender: str = "other") -> Entries:
    """(document id, sentence) pairs of one split; `distances`: the mix of
    antecedent distances of its pronouns (default: all one sentence back);
    `distractor_gender`: the nouns between an antecedent and its pronoun
    (`documents.distractors`)."""
    rng = random.Random(derive_seed(seed, name))
    mix = DistanceMix(dict(distances or {1: 1.0}), distractor_gender=distractor_gender)
    entries: Entries = []
    k = 0
    while len(entries) < size:
        n = doc_length(rng, size - len(entries), *doc_range)
        doc_id = f"{name}-{k:06d}"
        entries += [(doc_id, s) for s in document(rng, cfg, pools, n, limits, avoid,
                                                  mix)]
        k += 1
    return entries


def align_line(sent: Sentence, direction: str) -> str:
    """Pharaoh 'i-j' pairs, i indexing the source side of `direction`."""
    pairs = sent.links if direction == "en-de" else sorted((j, i) for i, j in sent.links)
    return " ".join(f"{i}-{j}" for i, j in pairs)


def write_split(outdir: Path, name: str, entries: Entries, direction: str) -> None:
    """Write {split}.en/.de/.docs/.trees/.align atomically."""
    write_lines(outdir / f"{name}.en", [" ".join(s.en) for _, s in entries])
    write_lines(outdir / f"{name}.de", [" ".join(s.de) for _, s in entries])
    write_lines(outdir / f"{name}.docs", [d for d, _ in entries])
    write_lines(outdir / f"{name}.trees", [s.tree for _, s in entries])
    write_lines(outdir / f"{name}.align", [align_line(s, direction) for _, s in entries])


def write_json(path: Path, data: object) -> None:
    """Atomically write JSON with sorted keys (stable bytes)."""
    with atomic_open(path) as fh:
        json.dump(data, fh, ensure_ascii=False, indent=1, sort_keys=True)
        fh.write("\n")


def length_bins(lengths: list[int]) -> dict[str, int]:
    """Sentences per source-length bin of the length analysis."""
    edges = ((15, "<=15"), (25, "16-25"), (35, "26-35"), (45, "36-45"))
    out = {label: 0 for _, label in edges} | {">45": 0}
    for n in lengths:
        out[next((lab for top, lab in edges if n <= top), ">45")] += 1
    return out


def split_stats(entries: Entries) -> dict:
    """Counts for one split."""
    en = [len(s.en) for _, s in entries]
    de = [len(s.de) for _, s in entries]
    return {"sentences": len(entries), "documents": len({d for d, _ in entries}),
            "tokens_en": sum(en), "tokens_de": sum(de),
            "mean_len_en": round(sum(en) / len(en), 2), "max_len_en": max(en),
            "mean_len_de": round(sum(de) / len(de), 2), "max_len_de": max(de),
            "length_bins_en": length_bins(en)}


def stats(splits: dict[str, Entries], items: list[dict], n_targeted: int) -> dict:
    """Corpus statistics written to stats.json."""
    mwus = sorted({m for entries in splits.values() for _, s in entries for m in s.mwus})
    lex = lexicon.load()
    pronouns = [e for it in items for e in it["errors"] if e["type"] == "pronoun_gender"]
    by_distance = {str(d): n for d, n in sorted(Counter(e["distance"]
                                                        for e in pronouns).items())}
    return {"splits": {name: split_stats(e) for name, e in splits.items()},
            "distinct_multiword_units": len(mwus),
            "agreement_items_per_distance": bin_counts(items),
            "pronoun_gender_errors": len(pronouns),
            "pronoun_errors_per_distance": by_distance, "lingeval_items": len(items),
            "lingeval_targeted_items": n_targeted,
            "lexicon": {"nouns": len(lex.all_nouns), "compounds": len(lex.compounds),
                        "verbs": len(lex.verbs),
                        "separable_verbs": sum(bool(v.particle) for v in lex.verbs),
                        "adjectives": len(lex.adjectives),
                        "expressions": len(lex.expressions)}}


def build_corpus(outdir: Path, seed: int, sizes: dict[str, int], direction: str,
                 cfg: GrammarConfig, limits: Limits, doc_range: tuple[int, int],
                 per_bin: int = 20, distances: dict[int, float] | None = None,
                 distractor_gender: str = "other") -> dict:
    """Generate and write all splits, the Lingeval items and stats; return stats."""
    pools = Pools(lexicon.load())
    splits: dict[str, Entries] = {}
    seen: set[str] = set()
    for name in SPLITS:
        if sizes.get(name, 0) <= 0:
            continue
        avoid = seen if name != "train" else None
        splits[name] = generate_split(name, sizes[name], seed, cfg, pools, limits,
                                      doc_range, avoid, distances, distractor_gender)
        if name == "train":
            seen = {" ".join(s.en) for _, s in splits[name]}
        write_split(outdir, name, splits[name], direction)
    items: list[dict] = []
    n_targeted = 0
    if "test" in splits:
        items = split_items(splits["test"])
        avoid = seen | {" ".join(s.en) for _, s in splits["test"]}
        rng = random.Random(derive_seed(seed, "agreement"))
        extra = targeted_items(rng, cfg, pools, bin_counts(items), per_bin, avoid)
        n_targeted = len(extra)
        items += extra
        write_json(outdir / "test.lingeval.json", items)
    result = stats(splits, items, n_targeted)
    write_json(outdir / "stats.json", result)
    return result


def parser() -> argparse.ArgumentParser:
    """Command-line interface."""
    p = ArgumentParser(prog="python -m phrasenmt.synthetic",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("--outdir", type=output_dir, required=True,
                   help="output folder (created)")
    p.add_argument("--seed", type=nonnegative_int, default=1,
                   help="main seed; splits derive theirs")
    p.add_argument("--train-size", type=positive_int, default=40000,
                   help="train sentence pairs")
    p.add_argument("--dev-size", type=positive_int, default=1000,
                   help="dev sentence pairs")
    p.add_argument("--test-size", type=positive_int, default=1000,
                   help="test sentence pairs")
    p.add_argument("--direction", choices=("en-de", "de-en"), default="en-de",
                   help="source-target order of the .align files (i = source)")
    p.add_argument("--min-doc-sentences", type=positive_int, default=3,
                   help="shortest document")
    p.add_argument("--max-doc-sentences", type=positive_int, default=8,
                   help="longest document")
    p.add_argument("--max-sentence-tokens", type=int_range(8), default=50,
                   help="resample English sentences longer than this (tokens)")
    p.add_argument("--max-distance-words", type=positive_int, default=30,
                   help="resample when German subject and verb are further apart")
    p.add_argument("--antecedent-distance", type=distance_mix, default={1: 1.0},
                   metavar="D=P,...",
                   help="share of pronouns whose antecedent is D sentences back "
                   "(shares sum to 1; the sentences between mention no noun the "
                   "pronoun could stand for and a singular noun: --distractor-gender), e.g. "
                   "1=0.5,2=0.3,3=0.2 (default: 1=1)")
    p.add_argument("--distractor-gender", choices=DISTRACTOR_GENDERS, default="other",
                   help="the noun each sentence between an antecedent and its "
                   "pronoun mentions: 'other' German gender than the antecedent's "
                   "(the in-between nouns then tell which pronoun is wrong), or 'any' "
                   "(drawn without regard to it) (default: other)")
    p.add_argument("--agreement-items-per-bin", type=nonnegative_int, default=20,
                   help="top up agreement distance bins 1..15 and >15 to this many")
    for f in fields(GrammarConfig):
        p.add_argument("--" + f.name.replace("_", "-"), type=rate, default=f.default,
                       help=f"probability: {RATE_HELP[f.name]} (default {f.default})")
    return p


def distance_mix(text: str) -> dict[int, float]:
    """argparse type: `D=P,...`, distances >= 1 with shares that sum to 1."""
    mix: dict[int, float] = {}
    for part in text.split(","):
        d, sep, p = part.partition("=")
        try:
            d_int, share = int(d.strip()), float(p)
        except ValueError:
            d_int, share = 0, math.nan
        if not sep or d_int < 1 or not 0 <= share <= 1 or d_int in mix:
            raise argparse.ArgumentTypeError(
                f"expected D=P,... with distinct distances D >= 1 and shares P in "
                f"[0, 1], got {part!r}")
        mix[d_int] = share
    if abs(sum(mix.values()) - 1) > 1e-6:
        raise argparse.ArgumentTypeError(f"the shares sum to {sum(mix.values()):g}, "
                                         "not 1")
    return {d: p for d, p in sorted(mix.items()) if p > 0}


def validate(args: argparse.Namespace) -> None:
    """Reject limits that contradict each other (the parser checks each range)."""
    if args.max_doc_sentences < args.min_doc_sentences:
        raise InputError(f"is {args.max_doc_sentences}, less than --min-doc-sentences "
                         f"{args.min_doc_sentences}", "--max-doc-sentences")
    far = max(args.antecedent_distance)
    if far > args.max_doc_sentences - 1:
        raise InputError(f"distance {far} does not fit in a document of at most "
                         f"{args.max_doc_sentences} sentences (--max-doc-sentences: "
                         f"at most {args.max_doc_sentences - 1} sentences back)",
                         "--antecedent-distance")


def main(argv: list[str] | None = None) -> int:
    """Generate the corpus."""
    args = parser().parse_args(argv)
    validate(args)
    cfg = GrammarConfig(**{f.name: getattr(args, f.name) for f in fields(GrammarConfig)})
    limits = Limits(args.max_sentence_tokens, args.max_distance_words)
    sizes = {"train": args.train_size, "dev": args.dev_size, "test": args.test_size}
    with output_set():  # every split's files, or none
        result = build_corpus(Path(args.outdir), args.seed, sizes, args.direction,
                              cfg, limits,
                              (args.min_doc_sentences, args.max_doc_sentences),
                              args.agreement_items_per_bin, args.antecedent_distance,
                              args.distractor_gender)
    print(json.dumps({k: v for k, v in result.items() if k != "lexicon"},
                     ensure_ascii=False))
    return 0


if __name__ == "__main__":
    run_cli(main)
