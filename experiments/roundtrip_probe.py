"""Does detokenization give back what tokenization was given, in every
language CLDR writes? A probe of the Moses path (`tokenize: true`).

For each language Babel has CLDR data for, its names of languages,
territories and currencies (real text in that language's script, with its
brackets, apostrophes, dashes and in-word marks) go through
`phrasenmt.data.clean.tokenize` and back through `detokenize`, as a target
side does between cleaning and BLEU. A name that does not come back as it
was counts as a failure; the figures, per language with a few examples, go
to a JSON file, and the languages with the most failures to stdout.

    python experiments/roundtrip_probe.py --out roundtrip.json
    PYTHONPATH=OLD/src python experiments/roundtrip_probe.py --out old.json  # another checkout

It needs Babel (``pip install babel``; the docs extra installs it).
"""

from __future__ import annotations

import argparse
import json
import sys

TABLES = ("languages", "territories", "currencies")


def names(locale, limit: int) -> list[str]:
    """Up to `limit` names of each table, in CLDR key order, each once."""
    out: list[str] = []
    for table in TABLES:
        values = [v for _, v in sorted(getattr(locale, table).items()) if isinstance(v, str)]
        out += values[:limit]
    return list(dict.fromkeys(out))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="JSON file of the figures")
    parser.add_argument("--limit", type=int, default=200, help="names per table and language")
    parser.add_argument("--examples", type=int, default=3, help="failures kept per language")
    parser.add_argument("--top", type=int, default=25, help="languages printed")
    parser.add_argument("--langs", nargs="+", help="only these CLDR language codes")
    args = parser.parse_args(argv)
    try:
        from babel import Locale, localedata
    except ImportError:
        print("roundtrip_probe: needs Babel: pip install babel", file=sys.stderr)
        return 2
    from phrasenmt.data.clean import detokenize, tokenize

    langs = args.langs or sorted({code.split("_")[0] for code in localedata.locale_identifiers()})
    per_lang = {}
    for lang in langs:
        try:
            lines = names(Locale(lang), args.limit)
        except (ValueError, KeyError):
            continue  # a code without its own data
        if not lines:
            continue
        back = detokenize([tokenize(line, lang) for line in lines], lang)
        failed = [(line, out) for line, out in zip(lines, back, strict=True) if out != line]
        per_lang[lang] = {"names": len(lines), "failed": len(failed),
                          "examples": failed[:args.examples]}
    total = sum(v["names"] for v in per_lang.values())
    failed = sum(v["failed"] for v in per_lang.values())
    summary = {"languages": len(per_lang), "names": total, "failed": failed,
               "languages_with_failures": sum(1 for v in per_lang.values() if v["failed"])}
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump({"summary": summary, "per_language": per_lang}, handle,
                  ensure_ascii=False, indent=1)
    worst = sorted(per_lang.items(), key=lambda kv: -kv[1]["failed"])[:args.top]
    for lang, v in worst:
        if v["failed"]:
            example = " || ".join(f"{a} -> {b}" for a, b in v["examples"][:2])
            print(f"{lang}\t{v['failed']}/{v['names']}\t{example}")
    print(f"all\t{failed}/{total} names in {summary['languages_with_failures']} of "
          f"{summary['languages']} languages do not come back")
    return 0


if __name__ == "__main__":
    sys.exit(main())
