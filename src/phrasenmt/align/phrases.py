"""Target phrases from one-to-many alignments, the paper's five filters, fertility.

Park & Tsvetkov (2019), section 2.2: every source word aligned to two or more
target words in the symmetrized alignment proposes a target phrase.

Non-contiguous targets: the candidate is the span from the first to the last
target word aligned to the source word. Gap words that are aligned to no
source word at all are absorbed (as in phrase-table extraction: "quality
[of] life" when "of" is unaligned); if a gap word is aligned to another source
word the candidate is dropped and counted as `non_contiguous`. Spans longer
than --max-length words are dropped and counted as `too_long`.

The five filters, each counted alone and in order in the filters TSV (`python -m phrasenmt.phrases`):
 1. min_count: the phrase occurs at least --min-count times as a contiguous
    n-gram of the target side of the corpus (the paper's "appears at least
    twice in the parallel corpus"). Occurrences, not extractions: one 2x2
    aligned block proposes its phrase once per source word, so counting
    extractions would let a phrase seen once pass "at least twice". The
    phrase list's frequency column is this occurrence count;
 2. punctuation: no token contains a Unicode punctuation character (P*);
 3. positive_pmi: PMI(w1..wn) = log( p(w1..wn) / prod_i p(wi) ) > 0, with
    p(w1..wn) = c(w1..wn) / N_n and p(w) = c(w) / N_1, where c counts
    occurrences in the target side of the corpus and N_n is the number of
    n-gram positions, sum over sentences of max(0, len - n + 1);
 4. bigram_repeat: a two-word phrase does not repeat the same word;
 5. stopwords_only: not all words are stopwords (stopwordsiso, --tgt-lang).

Fertility labels, one per source token (the PCoNMT fertility module's gold):
with --fertility-from phrases (default) a source word's label is the length
of its candidate phrase, capped at 3, when that phrase survived the filters;
a word with several aligned target words whose phrase did not survive is
labelled 1 (the decoder must produce it word by word, from the word table);
otherwise the label is its number of aligned target words (0 or 1). With
--fertility-from alignment the label is simply min(#aligned target words, 3).
The binary labels are 0 (word: label 0 or 1) and 1 (phrase: label 2 or 3).
"""

from __future__ import annotations

import math
import os
import unicodedata
from collections import Counter
from dataclasses import dataclass, field

from phrasenmt.align.pharaoh import Link
from phrasenmt.io import InputError, read_lines, write_lines

Phrase = tuple[str, ...]
FILTERS = ("min_count", "punctuation", "positive_pmi", "bigram_repeat",
           "stopwords_only")
HEADER = "phrase\tfrequency\tpmi"


@dataclass
class Extraction:
    """Candidates with their counts, and per-sentence source-word spans."""

    counts: Counter = field(default_factory=Counter)
    spans: list[dict[int, tuple[int, int]]] = field(default_factory=list)
    one_to_many: int = 0
    non_contiguous: int = 0
    too_long: int = 0


def candidate_span(targets: list[int], tgt_aligned: set[int]) -> tuple[int, int] | None:
    """Span (first, last) of a source word's targets; None if a gap is aligned."""
    first, last = min(targets), max(targets)
    own = set(targets)
    for j in range(first, last + 1):
        if j not in own and j in tgt_aligned:
            return None
    return first, last


def extract(tgt: list[list[str]], alignments: list[set[Link]],
            max_length: int) -> Extraction:
    """Collect one-to-many candidate phrases from symmetrized alignments."""
    ex = Extraction()
    for words, links in zip(tgt, alignments):
        by_src: dict[int, list[int]] = {}
        for i, j in links:
            by_src.setdefault(i, []).append(j)
        tgt_aligned = {j for _, j in links}
        spans = {}
        for i, targets in sorted(by_src.items()):
            if len(targets) < 2:
                continue
            ex.one_to_many += 1
            span = candidate_span(targets, tgt_aligned)
            if span is None:
                ex.non_contiguous += 1
            elif span[1] - span[0] + 1 > max_length:
                ex.too_long += 1
            else:
                spans[i] = span
                ex.counts[tuple(words[span[0]:span[1] + 1])] += 1
        ex.spans.append(spans)
    return ex


def ngram_counts(sents: list[list[str]], phrases: set[Phrase]) -> Counter:
    """Occurrences of each phrase as a contiguous n-gram of the sentences."""
    lengths = sorted({len(p) for p in phrases})
    firsts = {p[0] for p in phrases}
    counts: Counter = Counter()
    for words in sents:
        for k, word in enumerate(words):
            if word not in firsts:
                continue
            for n in lengths:
                gram = tuple(words[k:k + n])
                if len(gram) == n and gram in phrases:
                    counts[gram] += 1
    return counts


def corpus_counts(sents: list[list[str]], phrases: set[Phrase]) -> Counter:
    """Occurrences in `sents` of every phrase (0 included), for filter 1."""
    grams = ngram_counts(sents, phrases)
    return Counter({p: grams[p] for p in phrases})


def pmi_scores(sents: list[list[str]], phrases: set[Phrase],
               grams: Counter | None = None) -> dict[Phrase, float]:
    """PMI of each phrase: log p(w1..wn) / prod p(wi), counts over `sents`."""
    unigrams = Counter(w for words in sents for w in words)
    grams = ngram_counts(sents, phrases) if grams is None else grams
    positions = Counter()
    for words in sents:
        for n in {len(p) for p in phrases}:
            positions[n] += max(0, len(words) - n + 1)
    n_words = sum(unigrams.values())
    scores = {}
    for p in phrases:
        if grams[p] == 0 or any(unigrams[w] == 0 for w in p):
            scores[p] = float("-inf")
            continue
        log_joint = math.log(grams[p] / positions[len(p)])
        scores[p] = log_joint - sum(math.log(unigrams[w] / n_words) for w in p)
    return scores


def has_punctuation(phrase: Phrase) -> bool:
    """Whether any token contains a Unicode punctuation character."""
    return any(unicodedata.category(ch).startswith("P") for w in phrase for ch in w)


def stopword_set(lang: str) -> set[str]:
    """The stopwordsiso list for a language; unknown languages raise InputError."""
    import stopwordsiso

    if not stopwordsiso.has_lang(lang):
        raise InputError(f"stopwordsiso has no stopword list for language {lang!r}")
    return {w.lower() for w in stopwordsiso.stopwords(lang)}


def filter_verdicts(phrase: Phrase, freq: int, pmi: float, min_count: int,
                    stopwords: set[str]) -> dict[str, bool]:
    """For each of the five filters, whether it removes the phrase."""
    return {
        "min_count": freq < min_count,
        "punctuation": has_punctuation(phrase),
        "positive_pmi": not pmi > 0,
        "bigram_repeat": len(phrase) == 2 and phrase[0].lower() == phrase[1].lower(),
        "stopwords_only": all(w.lower() in stopwords for w in phrase),
    }


def apply_filters(counts: Counter, pmi: dict[Phrase, float], min_count: int,
                  stopwords: set[str]) -> tuple[set[Phrase], list[tuple]]:
    """Kept phrases and filter rows (filter, removed alone, in order, remaining).

    `counts` holds each candidate's occurrences in the target corpus.
    """
    alone, in_order = Counter(), Counter()
    kept = set()
    for phrase, freq in counts.items():
        verdicts = filter_verdicts(phrase, freq, pmi[phrase], min_count, stopwords)
        alone.update(name for name, removed in verdicts.items() if removed)
        first = next((name for name in FILTERS if verdicts[name]), None)
        if first is None:
            kept.add(phrase)
        else:
            in_order[first] += 1
    rows, remaining = [], len(counts)
    for name in FILTERS:
        remaining -= in_order[name]
        rows.append((name, "types", alone[name], in_order[name], remaining))
    return kept, rows


def fertility(n_src: int, tgt: list[str], links: set[Link],
              spans: dict[int, tuple[int, int]], kept: set[Phrase],
              from_alignment: bool = False) -> list[int]:
    """Four-class fertility label (0..3) of every source token of one sentence."""
    aligned = Counter(i for i, _ in links)
    labels = []
    for i in range(n_src):
        n = aligned[i]
        if n >= 2 and not from_alignment:
            first, last = spans.get(i, (0, -1))
            ok = last >= first and tuple(tgt[first:last + 1]) in kept
            n = last - first + 1 if ok else 1
        labels.append(min(n, 3))
    return labels


def write_phrases(path: str | os.PathLike, kept: set[Phrase], counts: Counter,
                  pmi: dict[Phrase, float]) -> None:
    """Phrase list TSV sorted by frequency (descending), then phrase."""
    order = sorted(kept, key=lambda p: (-counts[p], " ".join(p)))
    write_lines(path, [HEADER] + [f"{' '.join(p)}\t{counts[p]}\t{pmi[p]:.4f}"
                                  for p in order])


def read_phrase_list(path: str | os.PathLike) -> list[Phrase]:
    """Read a phrase list TSV written by this module (header, then rows)."""
    lines = read_lines(path)
    if not lines or lines[0] != HEADER:
        raise InputError(f"expected the header line {HEADER!r}", path, 1)
    phrases = []
    for n, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != 3 or len(fields[0].split()) < 2:
            raise InputError("expected 'phrase<TAB>frequency<TAB>pmi' with a "
                             "phrase of two or more words", path, n)
        phrases.append(tuple(fields[0].split()))
    return phrases
