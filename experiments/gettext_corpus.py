"""A real English-Chinese corpus with document ids, built offline from the
gettext catalogs a Linux machine already has.

Every program translated into Chinese ships its messages as a compiled
catalog (``/usr/share/locale/zh_CN/LC_MESSAGES/*.mo``): English ``msgid``,
Chinese ``msgstr``, written by people. One catalog is one document here, its
messages in catalog order. It is not discourse (a catalog is sorted by
``msgid``), so a document model should find little in its context; what the
corpus tests is the path a user's own non-Latin corpus takes: raw Chinese
without spaces, format strings, full-width punctuation, long help texts.

A message's context (``msgctxt``, e.g. "full month name") is not part of
its English text and is left out. Multi-line messages become one pair per line where both sides have as many
non-empty lines, one joined pair otherwise. Pairs seen before (in any
catalog) and untranslated messages are skipped, and so is a catalog whose
messages all appeared before (``iso_3166.mo`` beside ``iso_3166-1.mo``).
Whole catalogs go to dev and test (``--dev`` and ``--test`` name them), so no
document has lines on two sides.

    python experiments/gettext_corpus.py --out my_docs --dev grep sed xz \\
        --test tar wget make diffutils
    # my_docs/{train,dev,test}.{en,zh,docs}, and a line per catalog on stdout
    # (--lang ja or th: the Japanese or Thai catalogs, my_docs/*.ja, my_docs/*.th;
    # another code: /usr/share/locale/CODE/LC_MESSAGES, e.g. --lang ru or ar)
"""

from __future__ import annotations

import argparse
import gettext
import glob
import os
import sys

CONTEXT = "\x04"  # between a message's msgctxt and its msgid in a compiled catalog
DEFAULT_DIRS = {  # --lang: where a Debian machine keeps its catalogs
    "zh": ("/usr/share/locale/zh_CN/LC_MESSAGES",
           "/usr/share/vim/vim90/lang/zh_CN.UTF-8/LC_MESSAGES"),
    "ja": ("/usr/share/locale/ja/LC_MESSAGES",
           "/usr/share/vim/vim90/lang/ja.UTF-8/LC_MESSAGES"),
    "th": ("/usr/share/locale/th/LC_MESSAGES",),
}


def _clean(text: str) -> str:
    return " ".join(text.replace("\t", " ").split())


def catalog_pairs(path: str) -> list[tuple[str, str]]:
    """The (English, translation) line pairs of one compiled catalog, in order."""
    with open(path, "rb") as handle:
        catalog = gettext.GNUTranslations(handle)._catalog  # the stdlib parser's table
    pairs = []
    for msgid, msgstr in catalog.items():
        if not isinstance(msgid, str) or not msgid or not msgstr:
            continue  # the header, a plural form (a tuple key)
        msgid = msgid.rpartition(CONTEXT)[2]  # "full month name\x04August": the msgid
        if msgid == msgstr:
            continue  # untranslated
        src = [line for line in msgid.split("\n") if line.strip()]
        tgt = [line for line in msgstr.split("\n") if line.strip()]
        if len(src) == len(tgt):
            pairs.extend((_clean(s), _clean(t)) for s, t in zip(src, tgt))
        else:
            pairs.append((_clean(msgid), _clean(msgstr)))
    return [(s, t) for s, t in pairs if s and t]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="folder for {train,dev,test}.{en,LANG,docs}")
    parser.add_argument("--lang", default="zh", help="the translations' language code (file suffix)")
    parser.add_argument("--dirs", nargs="+", help="folders of .mo files (default: by --lang)")
    parser.add_argument("--dev", nargs="+", default=[], help="catalog names (without .mo) for dev")
    parser.add_argument("--test", nargs="+", default=[], help="catalog names (without .mo) for test")
    args = parser.parse_args(argv)
    if args.dirs is None:
        locale = f"/usr/share/locale/{args.lang}/LC_MESSAGES"
        if args.lang not in DEFAULT_DIRS and not os.path.isdir(locale):
            print(f"gettext_corpus: no default folders for --lang {args.lang} "
                  f"({locale} does not exist): give --dirs", file=sys.stderr)
            return 2
        args.dirs = list(DEFAULT_DIRS.get(args.lang, (locale,)))

    files = sorted(f for d in args.dirs for f in glob.glob(os.path.join(d, "*.mo")))
    if not files:
        print(f"gettext_corpus: no .mo files under {' '.join(args.dirs)}", file=sys.stderr)
        return 2
    names = {os.path.basename(f)[:-3] for f in files}
    unknown = sorted(set(args.dev + args.test) - names)
    if unknown:
        print(f"gettext_corpus: --dev/--test name no catalog: {' '.join(unknown)}", file=sys.stderr)
        return 2
    if set(args.dev) & set(args.test):
        print("gettext_corpus: a catalog is named in both --dev and --test", file=sys.stderr)
        return 2

    out: dict[str, dict[str, list[str]]] = {
        split: {"en": [], args.lang: [], "docs": []} for split in ("train", "dev", "test")}
    seen: set[tuple[str, str]] = set()
    # dev and test catalogs first, so that a pair they share with a training
    # catalog stays on their side and is skipped in training
    held_out = set(args.dev + args.test)
    for path in sorted(files, key=lambda f: os.path.basename(f)[:-3] not in held_out):
        name = os.path.basename(path)[:-3]
        split = "dev" if name in args.dev else "test" if name in args.test else "train"
        try:
            found = catalog_pairs(path)
        except UnicodeDecodeError as err:  # the stdlib reads the header as UTF-8
            print(f"gettext_corpus: {path}: left out, its header is not UTF-8 "
                  f"({err.reason} at byte {err.start})", file=sys.stderr)
            continue
        fresh = [p for p in found if p not in seen]
        seen.update(fresh)
        if not fresh:
            continue
        doc = f"{os.path.basename(os.path.dirname(os.path.dirname(path)))}/{name}"
        out[split]["en"] += [src for src, _ in fresh]
        out[split][args.lang] += [tgt for _, tgt in fresh]
        out[split]["docs"] += [doc] * len(fresh)
        print(f"{split}\t{doc}\t{len(fresh)}")
    from phrasenmt.io import write_all

    os.makedirs(args.out, exist_ok=True)
    write_all([(os.path.join(args.out, f"{split}.{ext}"), lines)
               for split, sides in out.items() for ext, lines in sides.items()])
    counts = {split: len(sides["en"]) for split, sides in out.items()}
    print("pairs\t" + "\t".join(f"{k} {v}" for k, v in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
