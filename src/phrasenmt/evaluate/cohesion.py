"""Lexical cohesion and LSA coherence of translated documents.

  fit:   python -m phrasenmt.evaluate.cohesion fit --train TRAIN.tgt [--dims 100]
         [--seed 1] [--max-lines N] --out lsa.pkl
  score: python -m phrasenmt.evaluate.cohesion score --lsa lsa.pkl --lang de
         --docs test.docs --system NAME=HYP ... [--reference REF] --out TSV

Lexical cohesion, after Wong and Kit (2012): the share of content words of a
document that repeat a content word of an earlier sentence of the same
document, counted over every content-word token of the test set (micro
average). Content words are tokens with a letter that are not in the
stopwordsiso list of the target language, compared lowercased. Wong and Kit
also count synonyms, near-synonyms and superordinates from WordNet; here only
repetition is counted, so the numbers are lower bounds of theirs.

Coherence, after Foltz et al. (1998): the mean cosine similarity of the LSA
vectors of adjacent sentences of a document (pairs never cross documents). The
LSA model is fitted with scikit-learn on the target side of the training text:
TfidfVectorizer (whitespace tokens, lowercased) then TruncatedSVD (`--dims`
components, seeded); a sentence's vector is its tf-idf vector projected onto
the components, a tf-idf weighted sum of term vectors where Foltz et al. use
log-entropy weights. A sentence with no known term has a zero vector and a
cosine of 0 with its neighbours.

The reference (`--reference`) is scored the same way and is the ceiling row.
"""

from __future__ import annotations

import argparse
import pickle
from pathlib import Path

import numpy as np
import pandas as pd

from phrasenmt.cli import (
    ArgumentParser,
    named_file,
    nonnegative_int,
    output_file,
    positive_int,
)
from phrasenmt.data.documents import documents, read_docs
from phrasenmt.io import InputError, atomic_open, read_lines, run_cli
from phrasenmt.log import get_logger

_log = get_logger(__name__)

COLUMNS = ["system", "kind", "documents", "sentences", "content_words", "repeated",
           "cohesion", "pairs", "coherence"]
REFERENCE = "reference"


def content_words(line: str, stop: frozenset[str]) -> list[str]:
    """Lowercased tokens with a letter that are not stopwords."""
    words = (t.lower() for t in line.split())
    return [w for w in words if any(c.isalpha() for c in w) and w not in stop]


def cohesion_counts(docs: list[list[str]], stop: frozenset[str]) -> tuple[int, int]:
    """(content words, content words seen in an earlier sentence of the document)."""
    total = repeated = 0
    for doc in docs:
        seen: set[str] = set()
        for line in doc:
            words = content_words(line, stop)
            total += len(words)
            repeated += sum(w in seen for w in words)
            seen.update(words)
    return total, repeated


def fit_lsa(lines: list[str], dims: int, seed: int):
    """TfidfVectorizer + TruncatedSVD fitted on the training target text."""
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(lowercase=True, tokenizer=str.split,
                                 token_pattern=None)
    matrix = vectorizer.fit_transform(lines)
    if not 1 <= dims < matrix.shape[1]:
        raise InputError(f"--dims {dims}: must be between 1 and the vocabulary size "
                         f"of the training text - 1 ({matrix.shape[1] - 1}) (config "
                         f"discourse.lsa_dims; lower it or give more text)")
    svd = TruncatedSVD(n_components=dims, random_state=seed).fit(matrix)
    return {"vectorizer": vectorizer, "svd": svd, "dims": dims, "seed": seed}


def adjacent_cosines(lsa: dict, docs: list[list[str]]) -> list[float]:
    """Cosine similarity of each pair of adjacent sentences within a document."""
    out = []
    for doc in docs:
        if len(doc) < 2:
            continue
        vec = lsa["svd"].transform(lsa["vectorizer"].transform(doc))  # (S, dims)
        norm = np.linalg.norm(vec, axis=1)  # (S,)
        dots = (vec[:-1] * vec[1:]).sum(axis=1)  # (S - 1,)
        denom = norm[:-1] * norm[1:]
        out += np.divide(dots, denom, out=np.zeros_like(dots),
                         where=denom > 0).tolist()
    return out


def system_row(name: str, kind: str, docs: list[list[str]], lsa: dict,
               stop: frozenset[str]) -> list:
    """One table row: cohesion and coherence of one system's documents."""
    total, repeated = cohesion_counts(docs, stop)
    cosines = adjacent_cosines(lsa, docs)
    return [name, kind, len(docs), sum(map(len, docs)), total, repeated,
            repeated / total if total else float("nan"), len(cosines),
            float(np.mean(cosines)) if cosines else float("nan")]


def split_documents(lines: list[str], doc_ids: list[str]) -> list[list[str]]:
    """Lines grouped into their documents, in file order."""
    return [[lines[i] for i in doc] for doc in documents(doc_ids)]


def stopwords(lang: str) -> frozenset[str]:
    """stopwordsiso's list of a language (lowercased)."""
    import stopwordsiso

    if not stopwordsiso.has_lang(lang):
        raise InputError(f"stopwordsiso has no list for {lang!r}", "--lang")
    return frozenset(w.lower() for w in stopwordsiso.stopwords(lang))


def load_lsa(path: Path) -> dict:
    """An LSA model written by `fit`."""
    if not path.is_file():
        raise InputError("file not found", path)
    try:
        with open(path, "rb") as fh:
            lsa = pickle.load(fh)
    except (pickle.UnpicklingError, EOFError, AttributeError) as err:
        raise InputError(f"not an LSA model written by `cohesion fit` ({err})",
                         path) from None
    if not isinstance(lsa, dict) or not {"vectorizer", "svd"} <= set(lsa):
        raise InputError("not an LSA model written by `cohesion fit`", path)
    return lsa


def fit(args: argparse.Namespace) -> None:
    """The fit command."""
    lines = read_lines(args.train)[:args.max_lines]
    if not any(line.strip() for line in lines):
        raise InputError("no training text", args.train)
    lsa = fit_lsa(lines, args.dims, args.seed)
    with atomic_open(args.out, "wb") as fh:
        pickle.dump(lsa, fh)
    _log.info(f"LSA: {len(lines)} lines, {len(lsa['vectorizer'].vocabulary_)} terms, "
              f"{args.dims} dimensions")


def score(args: argparse.Namespace) -> pd.DataFrame:
    """The score command's table."""
    lsa, stop = load_lsa(args.lsa), stopwords(args.lang)
    doc_ids = read_docs(args.docs)
    runs = [(*_named(spec), "model") for spec in args.system or []]
    if args.reference is not None:
        runs.append((REFERENCE, args.reference, REFERENCE))
    if not runs:
        raise InputError("give --system NAME=FILE and/or --reference FILE")
    rows = []
    for name, path, kind in runs:
        lines = read_lines(path)
        if len(lines) != len(doc_ids):
            raise InputError(f"has {len(lines)} lines but {args.docs} has "
                             f"{len(doc_ids)} document ids", path)
        rows.append(system_row(name, kind, split_documents(lines, doc_ids), lsa, stop))
    return pd.DataFrame(rows, columns=COLUMNS)


def _named(spec: tuple[str, Path]) -> tuple[str, Path]:
    """A --system NAME=FILE whose NAME is not the reference's."""
    if spec[0] == REFERENCE:
        raise InputError(f"expected NAME=FILE (NAME not {REFERENCE!r}), got "
                         f"'{spec[0]}={spec[1]}'", "--system")
    return spec


def build_parser() -> argparse.ArgumentParser:
    """Command-line options."""
    p = ArgumentParser(prog="python -m phrasenmt.evaluate.cohesion",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    f = sub.add_parser("fit", help="fit the LSA model on the training target text")
    f.add_argument("--train", type=Path, required=True, help="tokenized target text")
    f.add_argument("--dims", type=positive_int, default=100, help="LSA dimensions")
    f.add_argument("--seed", type=nonnegative_int, default=1,
                   help="TruncatedSVD random state")
    f.add_argument("--max-lines", type=positive_int, help="use the first N lines only")
    f.add_argument("--out", type=output_file, required=True, help="pickled LSA model")
    s = sub.add_parser("score", help="cohesion and coherence per system")
    s.add_argument("--lsa", type=Path, required=True, help="model from `fit`")
    s.add_argument("--lang", required=True, help="target language (stopwords)")
    s.add_argument("--docs", type=Path, required=True, help="test document ids")
    s.add_argument("--system", type=named_file, nargs="+", metavar="NAME=FILE",
                   help="tokenized hypotheses of each model")
    s.add_argument("--reference", type=Path, help="tokenized reference (ceiling)")
    s.add_argument("--out", type=output_file, required=True, help="tidy TSV")
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    args = build_parser().parse_args(argv)
    if args.command == "fit":
        fit(args)
        return 0
    df = score(args)
    with atomic_open(args.out) as fh:
        df.to_csv(fh, sep="\t", index=False, float_format="%.4f")
    return 0


if __name__ == "__main__":
    run_cli(main)
