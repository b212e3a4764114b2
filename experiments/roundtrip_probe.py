"""Does detokenization give back what tokenization was given, in every
language CLDR writes? A probe of the Moses path (`tokenize: true`).

For each language Babel has CLDR data for, its names of languages,
territories and currencies (real text in that language's script, with its
brackets, apostrophes, dashes and in-word marks) go through
`phrasenmt.data.clean.tokenize` and back through `detokenize`, as a target
side does between cleaning and BLEU. A name that does not come back as it
was counts as a failure; the figures, per language with a few examples, go
to a JSON file, and the languages with the most failures to stdout.
`--source gettext` reads sentences instead: the translated messages of the
machine's compiled gettext catalogs (`/usr/share/locale/LANG/LC_MESSAGES`),
with their format strings, quotes and ellipses.

    python experiments/roundtrip_probe.py --out roundtrip.json
    python experiments/roundtrip_probe.py --source gettext --out messages.json
    PYTHONPATH=OLD/src python experiments/roundtrip_probe.py --out old.json  # another checkout

The CLDR source needs Babel (``pip install babel``; the docs extra installs it).
"""

from __future__ import annotations

import argparse
import gettext
import glob
import json
import os
import sys

TABLES = ("languages", "territories", "currencies")
SKIPPED: list[str] = []  # catalogs the stdlib's parser cannot read


def names(locale, limit: int) -> list[str]:
    """Up to `limit` names of each table, in CLDR key order, each once."""
    out: list[str] = []
    for table in TABLES:
        values = [v for _, v in sorted(getattr(locale, table).items()) if isinstance(v, str)]
        out += values[:limit]
    return list(dict.fromkeys(out))


def messages(folder: str, limit: int) -> list[str]:
    """Up to `limit` translated message lines of the catalogs in `folder`, each once."""
    out: list[str] = []
    for path in sorted(glob.glob(os.path.join(folder, "*.mo"))):
        try:
            with open(path, "rb") as handle:
                catalog = gettext.GNUTranslations(handle)._catalog  # the stdlib's table
        except (OSError, ValueError, IndexError, KeyError):  # not UTF-8, a bad header
            SKIPPED.append(path)
            continue
        for msgid, msgstr in catalog.items():
            if isinstance(msgid, str) and msgid and msgstr and msgstr != msgid:
                out += [" ".join(line.split()) for line in msgstr.split("\n") if line.strip()]
    return list(dict.fromkeys(out))[:limit]


def cldr_sources(limit: int) -> dict[str, list[str]]:
    """Per CLDR language code, its names (`names`)."""
    from babel import Locale, localedata

    sources = {}
    for lang in sorted({code.split("_")[0] for code in localedata.locale_identifiers()}):
        try:
            sources[lang] = names(Locale(lang), limit)
        except (ValueError, KeyError):
            continue  # a code without its own data
    return sources


def gettext_sources(root: str, limit: int) -> dict[str, list[str]]:
    """Per locale folder under `root` (zh_CN, ca@valencia), its message lines."""
    return {os.path.basename(os.path.dirname(folder)): messages(folder, limit)
            for folder in sorted(glob.glob(os.path.join(root, "*", "LC_MESSAGES")))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="JSON file of the figures")
    parser.add_argument("--source", choices=("cldr", "gettext"), default="cldr")
    parser.add_argument("--locale-dir", default="/usr/share/locale",
                        help="gettext: the folder of LANG/LC_MESSAGES/*.mo")
    parser.add_argument("--limit", type=int, default=200,
                        help="cldr: names per table and language; gettext: lines per locale")
    parser.add_argument("--examples", type=int, default=3, help="failures kept per language")
    parser.add_argument("--top", type=int, default=25, help="languages printed")
    parser.add_argument("--langs", nargs="+", help="only these CLDR language codes")
    parser.add_argument("--speed", action="store_true",
                        help="also time tokenize over all the lines (best of 3 rounds)")
    args = parser.parse_args(argv)
    if args.source == "cldr":
        try:
            import babel  # noqa: F401
        except ImportError:
            print("roundtrip_probe: needs Babel: pip install babel", file=sys.stderr)
            return 2
        sources = cldr_sources(args.limit)
    else:
        sources = gettext_sources(args.locale_dir, args.limit)
        if not any(sources.values()):
            print(f"roundtrip_probe: no readable catalog under {args.locale_dir}/*/LC_MESSAGES",
                  file=sys.stderr)
            return 2
    if SKIPPED:
        print(f"roundtrip_probe: skipped {len(SKIPPED)} catalogs the stdlib's parser "
              f"cannot read (not UTF-8, or a malformed header), e.g. {SKIPPED[0]}",
              file=sys.stderr)
    from phrasenmt.data.clean import detokenize, tokenize

    per_lang = {}
    for name, lines in sources.items():
        lang = name.split("_")[0].split("@")[0]  # the language code Moses is given
        if not lines or (args.langs and name not in args.langs and lang not in args.langs):
            continue
        back = detokenize([tokenize(line, lang) for line in lines], lang)
        failed = [(line, out) for line, out in zip(lines, back, strict=True) if out != line]
        per_lang[name] = {"lines": len(lines), "failed": len(failed),
                          "examples": failed[:args.examples]}
    total = sum(v["lines"] for v in per_lang.values())
    failed = sum(v["failed"] for v in per_lang.values())
    summary = {"languages": len(per_lang), "lines": total, "failed": failed,
               "languages_with_failures": sum(1 for v in per_lang.values() if v["failed"])}
    if args.speed:
        import time

        work = [(line, name.split("_")[0].split("@")[0])
                for name, lines in sources.items() if name in per_lang for line in lines]
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            for line, lang in work:
                tokenize(line, lang)
            best = min(best, time.perf_counter() - start)
        summary["tokenize_lines_per_s"] = round(len(work) / best)
        print(f"tokenize\t{summary['tokenize_lines_per_s']} lines/s "
              f"({len(work)} lines, best of 3)")
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump({"summary": summary, "per_language": per_lang}, handle,
                  ensure_ascii=False, indent=1)
    worst = sorted(per_lang.items(), key=lambda kv: -kv[1]["failed"])[:args.top]
    for lang, v in worst:
        if v["failed"]:
            example = " || ".join(f"{a} -> {b}" for a, b in v["examples"][:2])
            print(f"{lang}\t{v['failed']}/{v['lines']}\t{example}")
    print(f"all\t{failed}/{total} lines in {summary['languages_with_failures']} of "
          f"{summary['languages']} languages do not come back")
    return 0


if __name__ == "__main__":
    sys.exit(main())
