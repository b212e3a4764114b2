"""Pronoun and noun translation accuracy, aligned through the source.

  align: python -m phrasenmt.evaluate.pronouns align --src S --tgt T
         [--train-src TS --train-tgt TT] [--train-lines N] [--backend fast_align]
         --out LINKS
         grow-diag-final-and links (Pharaoh `i-j`, source-target) of every line
         of S/T, from the project's aligner (`phrasenmt.align`) run on the
         training text (if given) followed by S/T, so that the test lines borrow
         the training statistics. Run it once for the reference and once per
         model's hypotheses. An empty line gets no links.
  score: python -m phrasenmt.evaluate.pronouns score --model NAME --lang de
         --src S --ref R --ref-align A --hyp H --hyp-align B --out TSV

The method (after Miculicich et al. 2018, "accuracy of pronoun/noun translation"):
every reference token that is a pronoun or a noun is looked up through the
source. Its source positions are the source tokens linked to it in the
source-reference alignment; its hypothesis positions are the hypothesis tokens
linked to any of those source tokens in the source-hypothesis alignment. It
counts as translated when a token at one of these hypothesis positions is the
same word (compared lowercased). A reference word with no source link cannot
be looked up: it is counted in `total` but not in `aligned`, and accuracy is
correct / aligned (the same reference links, hence the same denominator, for
every model); coverage = aligned / total.

Pronouns are the personal, reflexive and possessive pronouns of the target
language (lists below, for de, en and fr). Nouns need a part-of-speech free
rule: `capitalised` (German, cased text): a capitalised alphabetic token that
is not sentence-initial (not first, not after . ! ? : or an opening quote) and
not a pronoun (Sie, Ihnen, ...); `content` (any language, or lowercased text):
an alphabetic token of two or more letters that is neither a stopword
(stopwordsiso) nor a pronoun, a proxy that also admits verbs and adjectives.
`auto` is `capitalised` for German, else `content`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from phrasenmt.align.backends import THREADS_HELP, add_aligner_options
from phrasenmt.align.backends import align as align_corpus
from phrasenmt.align.pharaoh import Link, format_links, parse_line
from phrasenmt.align.symmetrize import METHODS, symmetrize
from phrasenmt.cli import (
    ArgumentParser,
    nonnegative_int,
    output_file,
    positive_int,
    thread_count,
)
from phrasenmt.io import (
    InputError,
    atomic_open,
    read_lines,
    read_parallel,
    run_cli,
    write_lines,
)
from phrasenmt.log import get_logger
from phrasenmt.text.pronouns import PRONOUNS

_log = get_logger(__name__)

_OPENERS = frozenset((".", "!", "?", ":", ";", '"', "„", "“", "«", "»", "(", "'", "-",
                      "–", "—"))
NOUN_RULES = ("auto", "capitalised", "content")
COLUMNS = ["model", "category", "word", "noun_rule", "total", "aligned", "correct",
           "accuracy", "coverage"]


def pronoun_list(lang: str) -> frozenset[str]:
    """The target language's pronoun list; unknown languages raise."""
    if lang not in PRONOUNS:
        raise InputError(f"no pronoun list for language {lang!r} (have: "
                         f"{', '.join(sorted(PRONOUNS))})", "--lang")
    return PRONOUNS[lang]


def noun_rule(rule: str, lang: str) -> str:
    """Resolve `auto`: capitalisation for German, the content-word proxy otherwise."""
    return ("capitalised" if lang == "de" else "content") if rule == "auto" else rule


def word_class(tokens: list[str], k: int, pronouns: frozenset[str], rule: str,
               stop: frozenset[str]) -> str | None:
    """'pronoun', 'noun' or None for token k of a reference sentence."""
    word = tokens[k].lower()
    if word in pronouns:
        return "pronoun"
    if not tokens[k].isalpha():
        return None
    if rule == "capitalised":
        initial = k == 0 or tokens[k - 1] in _OPENERS
        return "noun" if tokens[k][0].isupper() and not initial else None
    return "noun" if len(word) > 1 and word not in stop else None


def pivot(ref: list[str], hyp: list[str], ref_links: set[Link], hyp_links: set[Link],
          j: int) -> tuple[bool, bool]:
    """(aligned, translated) of reference token j, looked up through the source."""
    sources = {i for i, jj in ref_links if jj == j}
    targets = {k for i, k in hyp_links if i in sources}
    return bool(sources), any(hyp[k].lower() == ref[j].lower() for k in targets)


def sentence_rows(ref: list[str], hyp: list[str], links: tuple[set[Link], set[Link]],
                  classify) -> list[dict]:
    """One row per reference pronoun/noun of one sentence."""
    rows = []
    for j in range(len(ref)):
        kind = classify(ref, j)
        if kind is not None:
            aligned, correct = pivot(ref, hyp, *links, j)
            rows.append({"category": kind, "word": ref[j].lower(), "aligned": aligned,
                         "correct": aligned and correct})
    return rows


def summary(model: str, rows: list[dict], rule: str) -> pd.DataFrame:
    """Totals per category (word 'all') and per pronoun word."""
    df = pd.DataFrame(rows, columns=["category", "word", "aligned", "correct"])
    groups = [(cat, "all", g) for cat, g in df.groupby("category", sort=True)]
    groups += [("pronoun", w, g) for w, g in
               df[df.category == "pronoun"].groupby("word", sort=True)]
    out = []
    for cat, word, g in groups:
        total, aligned, correct = len(g), int(g.aligned.sum()), int(g.correct.sum())
        out.append([model, cat, word, rule, total, aligned, correct,
                    correct / aligned if aligned else float("nan"), aligned / total])
    return pd.DataFrame(out, columns=COLUMNS)


def read_links(path: Path, src: list[list[str]], tgt: list[list[str]]
               ) -> list[set[Link]]:
    """A Pharaoh file checked against sentence lengths (empty lines allowed)."""
    lines = read_lines(path)
    if len(lines) != len(src):
        raise InputError(f"has {len(lines)} lines but the text has {len(src)}", path)
    return [parse_line(text, len(s), len(t), path, n)
            for n, (text, s, t) in enumerate(zip(lines, src, tgt), start=1)]


def scored_items(src_path: Path, ref_path: Path, ref_align: Path, hyp_path: Path,
                 hyp_align: Path, lang: str, nouns: str = "auto"
                 ) -> tuple[list[dict], str]:
    """(one row per reference pronoun/noun, noun rule) of one model's hypotheses."""
    pronouns, rule = pronoun_list(lang), noun_rule(nouns, lang)
    src = [s.split() for s in read_lines(src_path)]
    ref, hyp = (read_parallel(src_path, path)[1] for path in (ref_path, hyp_path))
    ref, hyp = [r.split() for r in ref], [h.split() for h in hyp]
    links = (read_links(ref_align, src, ref), read_links(hyp_align, src, hyp))
    stop = _stopwords(lang) if rule == "content" else frozenset()
    if rule == "capitalised" and not any(
            t[:1].isupper() for sent in ref for t in sent[1:]):
        raise InputError("no capitalised word after the first of any line: the "
                         "reference looks lowercased; use --nouns content", ref_path)

    def classify(tokens: list[str], j: int) -> str | None:
        return word_class(tokens, j, pronouns, rule, stop)

    rows = [row for n in range(len(ref)) for row in sentence_rows(
        ref[n], hyp[n], (links[0][n], links[1][n]), classify)]
    if not rows:
        raise InputError("the reference has no pronoun or noun to score", ref_path)
    return rows, rule


def score(args: argparse.Namespace) -> pd.DataFrame:
    """Accuracy table of one model's hypotheses."""
    rows, rule = scored_items(args.src, args.ref, args.ref_align, args.hyp,
                              args.hyp_align, args.lang, args.nouns)
    return summary(args.model, rows, rule)


def _stopwords(lang: str) -> frozenset[str]:
    """stopwordsiso's list for a language (lowercased)."""
    import stopwordsiso

    if not stopwordsiso.has_lang(lang):
        raise InputError(f"stopwordsiso has no list for {lang!r}", "--lang")
    return frozenset(w.lower() for w in stopwordsiso.stopwords(lang))


def align_lines(src: list[list[str]], tgt: list[list[str]], train: tuple[list, list],
                backend: str, seed: int, threads: int,
                samplers: int | None = None,
                rel_iterations: float | None = None,
                method: str = "grow-diag-final-and") -> list[set[Link]]:
    """Symmetrized links (heuristic `method`) of each (src, tgt) line, aligned
    after the training text."""
    keep = [n for n in range(len(src)) if src[n] and tgt[n]]
    corpus = (train[0] + [src[n] for n in keep], train[1] + [tgt[n] for n in keep])
    fwd, rev = align_corpus(backend, *corpus, threads=threads, seed=seed,
                            samplers=samplers, rel_iterations=rel_iterations)
    out: list[set[Link]] = [set() for _ in src]
    for k, n in enumerate(keep, start=len(train[0])):
        out[n] = symmetrize(fwd[k], rev[k], method)
    return out


def align(args: argparse.Namespace) -> None:
    """The align command."""
    src, tgt = ([s.split() for s in side]
                for side in read_parallel(args.src, args.tgt))
    train: tuple[list, list] = ([], [])
    if (args.train_src is None) != (args.train_tgt is None):
        raise InputError("give both --train-src and --train-tgt, or neither")
    if args.train_src is not None:
        a, b = read_parallel(args.train_src, args.train_tgt, allow_empty=False)
        n = len(a) if args.train_lines is None else args.train_lines
        train = ([s.split() for s in a[:n]], [t.split() for t in b[:n]])
    links = align_lines(src, tgt, train, args.backend, args.seed, args.threads,
                        args.samplers, args.rel_iterations, args.symmetrize)
    write_lines(args.out, [format_links(x) for x in links])


def build_parser() -> argparse.ArgumentParser:
    """Command-line options."""
    p = ArgumentParser(prog="python -m phrasenmt.evaluate.pronouns",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    a = sub.add_parser("align", help="source-target links of a test set")
    a.add_argument("--src", type=Path, required=True, help="tokenized source")
    a.add_argument("--tgt", type=Path, required=True,
                   help="tokenized reference or hypotheses")
    a.add_argument("--train-src", type=Path, help="tokenized training source")
    a.add_argument("--train-tgt", type=Path, help="tokenized training target")
    a.add_argument("--train-lines", type=positive_int,
                   help="use the first N training lines")
    add_aligner_options(a, "fast_align")
    a.add_argument("--symmetrize", choices=METHODS, default="grow-diag-final-and",
                   help="symmetrization heuristic (config align.symmetrize)")
    a.add_argument("--seed", type=nonnegative_int, default=1,
                   help="random seed (eflomal: seeds its sampler; fast_align: "
                   "unused, it is deterministic)")
    a.add_argument("--threads", type=thread_count, default=1, help=THREADS_HELP)
    a.add_argument("--out", type=output_file, required=True, help="Pharaoh links")
    s = sub.add_parser("score", help="pronoun/noun accuracy of one model")
    s.add_argument("--model", required=True, help="name in the TSV")
    s.add_argument("--lang", required=True, help="target language (de, en, fr)")
    s.add_argument("--nouns", choices=NOUN_RULES, default="auto",
                   help="noun rule (default: %(default)s)")
    for opt, text in (("--src", "tokenized source"), ("--ref", "tokenized reference"),
                      ("--ref-align", "links source-reference (align)"),
                      ("--hyp", "tokenized hypotheses"),
                      ("--hyp-align", "links source-hypotheses (align)"),
                      ("--out", "tidy TSV")):
        s.add_argument(opt, type=Path, required=True, help=text)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    args = build_parser().parse_args(argv)
    if args.command == "align":
        align(args)
    else:
        df = score(args)
        with atomic_open(args.out) as fh:
            df.to_csv(fh, sep="\t", index=False, float_format="%.4f")
        all_rows = df[df.word == "all"]
        for row in all_rows.itertuples():
            _log.info(f"{row.category}: {row.correct}/{row.aligned} = "
                      f"{row.accuracy:.4f}")
    return 0


if __name__ == "__main__":
    run_cli(main)
