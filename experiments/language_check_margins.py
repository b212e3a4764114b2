"""How far real text stays from the function-word language check's
thresholds, and how much mislabelled text the check finds.

The check (`phrasenmt.text.function_words`) warns when a file of a local
corpus looks like another listed language than declared, and refuses a split
whose two sides look swapped. This script scores real text on the machine in
samples of `--lines` consecutive lines, each declared as its own language:

* the Multi30k mirror (`--multi30k`: `*.en.gz`, `*.de.gz`, `*.fr.gz`),
* the corpora the workflow wrote (`--results`: `results/*/data/*.{lang}`),
* the gettext catalogs under /usr/share/locale (`--gettext`: English msgid
  and the translation, for every listed language with catalogs),
* the translated manual pages under /usr/share/man (`--man`: as groff
  writes them for a terminal; some pages are left in English in part).

For each source and language it prints the samples judged (at least
MIN_WORDS words), how many of them were warned of (`--show` lists them),
and how near the nearest sample came to a warning (`margins`). The exit
status is 1 when a sample of the mirror, the corpora or the catalogs is
warned of; some translated manual pages are left in English in part, and
those are rightly warned of. Then it declares every sample as each other
listed language and prints the share warned of as its own (`detection`),
and, for the Multi30k and gettext pairs, how many samples are refused as
swapped as they are (none) and with their two sides exchanged (`swaps`).

    PYTHONPATH=src python experiments/language_check_margins.py \\
        --multi30k MIRROR/data/task1/raw \\
        --results results --gettext --man --lines 2000 100
"""

from __future__ import annotations

import argparse
import glob
import gzip
import os
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator

# the experiment beside this one: run as a script, its folder is on the path
from gettext_corpus import catalog_pairs

from phrasenmt.text import function_words as fw


def chunks(lines: list[str], size: int) -> Iterator[list[str]]:
    """Consecutive samples of `size` lines (the last may be shorter)."""
    for start in range(0, len(lines), size):
        yield lines[start:start + size]


def read(path: str) -> list[str]:
    """A text file's lines, gzipped or not."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
        return fh.read().splitlines()


def man_text(path: str) -> list[str]:
    """The text of a manual page as groff writes it for a terminal (without
    hyphenation, on long lines), its empty lines left out."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as fh:
        source = fh.read()
    done = subprocess.run(["groff", "-Kutf-8", "-man", "-Tutf8", "-rHY=0", "-rLL=200n",
                           "-P-c", "-P-b", "-P-o", "-P-u"], input=source,
                          capture_output=True, check=False)
    return [line for line in done.stdout.decode("utf-8", "replace").splitlines()
            if line.strip()]


Texts = dict[str, list[tuple[str, list[str]]]]  # lang -> (name, lines) of each text


def multi30k(folder: str) -> Texts:
    """The mirror's files by language."""
    texts = defaultdict(list)
    for path in sorted(glob.glob(os.path.join(folder, "*.gz"))):
        lang = path[:-3].rsplit(".", 1)[1]
        if fw.known(lang):
            texts[lang].append((path, read(path)))
    return texts


def results(root: str) -> Texts:
    """The corpora the workflow wrote (results/*/data/*.{lang}) by language."""
    texts = defaultdict(list)
    for path in sorted(glob.glob(os.path.join(root, "*", "data", "*.*"))):
        lang = path.rsplit(".", 1)[1]
        if fw.known(lang) and os.path.basename(path).count(".") == 1:
            texts[lang].append((path, read(path)))
    return texts


def gettext() -> dict[str, tuple[list[str], list[str]]]:
    """(English, translation) lines of every listed language's catalogs."""
    pairs = {}
    for lang in fw.FUNCTION_WORDS:
        seen: set[tuple[str, str]] = set()
        src, tgt = [], []
        for path in sorted(glob.glob(f"/usr/share/locale/{lang}/LC_MESSAGES/*.mo")):
            try:
                found = catalog_pairs(path)
            except (UnicodeDecodeError, OSError):  # a catalog in a legacy charset
                continue
            for pair in found:
                if pair not in seen:
                    seen.add(pair)
                    src.append(pair[0])
                    tgt.append(pair[1])
        if tgt:
            pairs[lang] = (src, tgt)
    return pairs


def man() -> Texts:
    """The translated manual pages' text by language, a page a text."""
    texts = defaultdict(list)
    for lang in fw.FUNCTION_WORDS:
        for path in sorted(glob.glob(f"/usr/share/man/{lang}/man*/*")):
            if os.path.isfile(path) and not os.path.islink(path):
                texts[lang].append((path, man_text(path)))
    return texts


def margins(name: str, texts: Texts, size: int, show: bool = False) -> tuple[int, int]:
    """Print each language's samples judged and warned of, and how near the
    nearest came: the highest share of another language's list among those
    that pass the other two tests (MIN_RATIO, MIN_DISTINCT), and the highest
    ratio of the words only its list has to those only the declared
    language's list has, among those that pass MIN_RATE and MIN_DISTINCT.
    Returns the samples judged and warned of (with `show`, a line for each)."""
    judged_all = warned_all = 0
    for lang, files in sorted(texts.items()):
        judged = warned = 0
        by_rate, by_ratio = (0.0, "-"), (0.0, "-")
        for label, lines in files:
            for start, sample in enumerate(chunks(lines, size)):
                prof = fw.profile(sample, len(sample))
                if prof.words < fw.MIN_WORDS:
                    continue
                judged += 1
                looks = prof.looks_like(lang)
                warned += looks is not None
                if looks and show:
                    print(f"warned\t{label}:{start * size + 1}\t{lang}\t{looks}\t"
                          f"{prof.rate(lang):.3f}\t{prof.rate(looks):.3f}\t"
                          f"{' / '.join(sample[:3])[:150]}")
                for other in fw.FUNCTION_WORDS:
                    if other == lang or prof.distinct(other) < fw.MIN_DISTINCT:
                        continue
                    rate, own = prof.rate(other), prof.only(lang, other)
                    ratio = prof.only(other, lang) / own if own else float("inf")
                    if ratio >= fw.MIN_RATIO and rate > by_rate[0]:
                        by_rate = (rate, other)
                    if rate >= fw.MIN_RATE and ratio > by_ratio[0]:
                        by_ratio = (ratio, other)
        judged_all, warned_all = judged_all + judged, warned_all + warned
        if judged:
            print(f"{name}\t{lang}\t{size}\t{judged}\t{warned}\t"
                  f"{by_rate[0]:.3f} ({by_rate[1]})\t{by_ratio[0]:.2f} ({by_ratio[1]})")
    print(f"{name}\tall\t{size}\t{judged_all}\t{warned_all}")
    return judged_all, warned_all


def detection(name: str, texts: Texts, size: int) -> None:
    """Each sample declared as every other listed language (those warned of
    under their own language left out): the share of these warned of as
    their own language, per language and in all."""
    total = found = 0
    for actual, files in sorted(texts.items()):
        samples = [fw.profile(s, len(s)) for _, lines in files for s in chunks(lines, size)]
        samples = [p for p in samples if p.words >= fw.MIN_WORDS and not p.looks_like(actual)]
        hits, missed = 0, defaultdict(int)
        for declared in fw.FUNCTION_WORDS:
            if declared != actual:
                for prof in samples:
                    said = prof.looks_like(declared) == actual
                    hits += said
                    missed[declared] += not said
        tries = len(samples) * (len(fw.FUNCTION_WORDS) - 1)
        total, found = total + tries, found + hits
        if tries:
            worst = [d for d in sorted(missed, key=missed.__getitem__, reverse=True)[:4]
                     if missed[d]]
            print(f"detect\t{name}\t{actual}\t{size}\t{len(samples)}\t"
                  f"{hits / tries:.3f}\tmissed most as: {' '.join(worst) or '-'}")
    if total:
        print(f"detect\t{name}\tall\t{size}\t{total}\t{found / total:.3f}")


Pairs = list[tuple[tuple[str, str], list[str], list[str]]]  # (src, tgt), lines of each


def swaps(name: str, pairs: Pairs, size: int) -> None:
    """Samples of parallel pairs refused as swapped as they are (should be
    none) and with the two sides exchanged (the check's catch)."""
    judged = kept = refused = 0
    for (src, tgt), a, b in pairs:
        for sa, sb in zip(chunks(a, size), chunks(b, size), strict=True):
            pa, pb = fw.profile(sa, len(sa)), fw.profile(sb, len(sb))
            if min(pa.words, pb.words) < fw.MIN_WORDS:
                continue
            judged += 1
            kept += fw.swapped(pa, pb, (src, tgt))
            refused += fw.swapped(pb, pa, (src, tgt))
    print(f"swapped\t{name}\t{size}\t{judged}\trefused as they are: {kept}\t"
          f"refused swapped: {refused}")


def multi30k_pairs(texts: Texts) -> Pairs:
    """Every two languages of each of the mirror's splits."""
    by_split: defaultdict[str, dict[str, list[str]]] = defaultdict(dict)
    for lang, files in texts.items():
        for path, lines in files:
            by_split[os.path.basename(path).rsplit(".", 2)[0]][lang] = lines
    out = []
    for sides in by_split.values():
        langs = sorted(sides)
        out += [((a, b), sides[a], sides[b]) for i, a in enumerate(langs)
                for b in langs[i + 1:]]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--multi30k", help="folder of the mirror's *.{en,de,fr}.gz")
    parser.add_argument("--results", help="a results folder (its */data/ corpora)")
    parser.add_argument("--gettext", action="store_true",
                        help="the gettext catalogs under /usr/share/locale")
    parser.add_argument("--man", action="store_true",
                        help="the manual pages under /usr/share/man/LANG")
    parser.add_argument("--show", action="store_true",
                        help="a line for each sample warned of")
    parser.add_argument("--lines", type=int, nargs="+", default=[fw.SAMPLE_LINES],
                        help="sample sizes in lines")
    args = parser.parse_args(argv)
    sources = {}
    if args.multi30k:
        sources["multi30k"] = multi30k(args.multi30k)
    if args.results:
        sources["results"] = results(args.results)
    gettext_pairs = gettext() if args.gettext else {}
    if gettext_pairs:
        sources["gettext"] = {lang: [(f"gettext-{lang}", tgt)]
                              for lang, (_, tgt) in gettext_pairs.items()}
        sources["gettext"]["en"] = [(f"gettext-{lang}.en", src)
                                    for lang, (src, _) in gettext_pairs.items()]
    if args.man:
        sources["man"] = man()
    print(f"thresholds: MIN_WORDS {fw.MIN_WORDS}, MIN_RATE {fw.MIN_RATE}, "
          f"MIN_RATIO {fw.MIN_RATIO}, MIN_DISTINCT {fw.MIN_DISTINCT}")
    print("source\tlang\tlines\tjudged\twarned\tshare_max\tratio_max")
    warned = 0  # in text that is all in its own language (not the manual pages)
    for size in args.lines:
        for name, texts in sources.items():
            found = margins(name, texts, size, args.show)[1]
            warned += found if name != "man" else 0
    print("detect\tsource\tlang\tlines\tsamples\twarned as it")
    for size in args.lines:
        for name, texts in sources.items():
            detection(name, texts, size)
    pairs = {"multi30k": multi30k_pairs(sources.get("multi30k", {})),
             "gettext": [(("en", lang), src, tgt) for lang, (src, tgt) in gettext_pairs.items()]}
    for size in args.lines:
        for name, found in pairs.items():
            if found:
                swaps(name, found, size)
    print(f"samples of the mirror, the corpora and the catalogs warned of: {warned}")
    return 1 if warned else 0


if __name__ == "__main__":
    sys.exit(main())
