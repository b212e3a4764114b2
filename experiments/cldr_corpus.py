"""A real English-X corpus with document ids, built offline from the Unicode
CLDR tables that Babel ships (for languages whose machine has few catalogs).

The gettext catalogs of a Debian machine (``gettext_corpus.py``) hold 6,000
Thai pairs but only 77 Lao ones. CLDR, which every localised program reads
for its names and formats, holds a few thousand per language, translated
by people: the names of languages, territories, scripts, currencies,
cities, time zones and units, each unit in a sentence-like form with a
number ("3 kilometers", CLDR's own plural patterns through
``babel.units.format_unit``), and relative times ("in 3 days", "3 days
ago", through ``babel.dates.format_timedelta``).

One table is cut into documents of ``--doc-size`` consecutive entries (in
CLDR key order); whole documents go to dev and test (``--dev-docs``,
``--test-docs``, drawn with ``--seed``), so no document has lines on two
sides. A pair whose two sides are equal (an untranslated code), whose
translated side has no letter of the language's script, or that was seen
before is skipped. Like a catalog, a document is a list, not discourse: a
document model should find little in its context.

    python experiments/cldr_corpus.py --lang lo --out my_docs
    # my_docs/{train,dev,test}.{en,lo,docs}, and a line per table on stdout

It needs Babel (``pip install babel``; the docs extra installs it).
"""

from __future__ import annotations

import argparse
import datetime
import os
import random
import sys
import unicodedata

NUMBERS = (1, 3, 25)  # one unit in the singular, two plurals (CLDR plural forms)
TIME_UNITS = (("year", 365), ("month", 30), ("week", 7), ("day", 1))
CLOCK_UNITS = (("hour", 3600), ("minute", 60), ("second", 1))


def _clean(text: str) -> str:
    return " ".join(str(text).replace("\t", " ").split())


def _script_of(lang: str) -> str:
    """The Unicode script name of a language's letters ("LAO" for lo)."""
    from babel import Locale
    sample = "".join(Locale(lang).languages.get(lang, ""))
    for char in sample:
        if char.isalpha():
            return unicodedata.name(char, "").split(" ")[0]
    return ""


def _names(table_en, table_x, keys=None):
    keys = sorted(table_x) if keys is None else keys
    return [(table_en.get(key), table_x.get(key)) for key in keys]


def _city(locale, zone: str) -> str | None:
    city = locale.time_zones.get(zone, {}).get("city")
    if city is None and locale.language == "en":
        city = zone.rsplit("/", 1)[-1].replace("_", " ")  # CLDR's English fallback
    return city


def tables(lang: str) -> dict[str, list[tuple[str, str]]]:
    """(English, translation) pairs per CLDR table, in key order."""
    from babel import Locale, dates, units
    en, x = Locale("en"), Locale(lang)
    out = {
        "languages": _names(en.languages, x.languages),
        "territories": _names(en.territories, x.territories),
        "scripts": _names(en.scripts, x.scripts),
        "currencies": _names(en.currencies, x.currencies),
        "variants": _names(en.variants, x.variants),
        "cities": [(_city(en, zone), _city(x, zone)) for zone in sorted(x.time_zones)],
    }
    zones = []
    for name in sorted(x.meta_zones):
        long_en, long_x = en.meta_zones.get(name, {}).get("long", {}), x.meta_zones[name].get("long", {})
        zones += [(long_en.get(kind), long_x.get(kind)) for kind in ("generic", "standard", "daylight")]
    out["time zones"] = zones
    measures = []
    for unit in sorted(x.unit_display_names):
        measures.append((en.unit_display_names.get(unit, {}).get("long"),
                         x.unit_display_names[unit].get("long")))
        for number in NUMBERS:
            try:
                measures.append(tuple(units.format_unit(number, unit, length="long", locale=loc)
                                      for loc in (en, x)))
            except (KeyError, ValueError, units.UnknownUnitError):
                continue  # a display name without a count pattern
    out["units"] = measures
    relative = []
    for name, seconds in TIME_UNITS + CLOCK_UNITS:
        scale = 86400 if (name, seconds) in TIME_UNITS else 1
        for number in NUMBERS:
            for sign in (1, -1):
                delta = datetime.timedelta(seconds=sign * number * seconds * scale)
                relative.append(tuple(
                    dates.format_timedelta(delta, granularity=name, threshold=2 ** 31,
                                           add_direction=True, locale=loc)
                    for loc in (en, x)))
    out["relative times"] = relative
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="folder for {train,dev,test}.{en,LANG,docs}")
    parser.add_argument("--lang", default="lo", help="a CLDR language code (the file suffix)")
    parser.add_argument("--doc-size", type=int, default=20, help="entries per document")
    parser.add_argument("--dev-docs", type=int, default=12, help="documents drawn for dev")
    parser.add_argument("--test-docs", type=int, default=12, help="documents drawn for test")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        import babel  # noqa: F401  (the CLDR tables)
        from babel import Locale, UnknownLocaleError
    except ImportError:
        print("cldr_corpus: needs Babel: pip install babel", file=sys.stderr)
        return 2
    try:
        Locale(args.lang)
    except (UnknownLocaleError, ValueError):
        print(f"cldr_corpus: --lang {args.lang}: Babel has no CLDR locale of that name", file=sys.stderr)
        return 2
    if args.doc_size < 1 or args.dev_docs < 1 or args.test_docs < 1:
        print("cldr_corpus: --doc-size, --dev-docs and --test-docs must be at least 1", file=sys.stderr)
        return 2
    script = _script_of(args.lang)

    def usable(pair) -> bool:
        src, tgt = pair
        return bool(src and tgt and src != tgt and any(
            char.isalpha() and unicodedata.name(char, "").startswith(script + " ") for char in tgt))

    seen: set[tuple[str, str]] = set()
    documents: list[tuple[str, list[tuple[str, str]]]] = []
    for table, pairs in tables(args.lang).items():
        fresh = []
        for pair in ((_clean(s or ""), _clean(t or "")) for s, t in pairs):
            if usable(pair) and pair not in seen:
                seen.add(pair)
                fresh.append(pair)
        chunks = [fresh[i:i + args.doc_size] for i in range(0, len(fresh), args.doc_size)]
        documents += [(f"cldr/{table.replace(' ', '_')}/{n}", chunk) for n, chunk in enumerate(chunks)]
        print(f"table\t{table}\t{len(fresh)} pairs\t{len(chunks)} documents")
    if args.dev_docs + args.test_docs >= len(documents):
        print(f"cldr_corpus: {len(documents)} documents cannot give {args.dev_docs} dev and "
              f"{args.test_docs} test documents and leave some for training", file=sys.stderr)
        return 2
    order = list(range(len(documents)))
    random.Random(args.seed).shuffle(order)
    split_of = {n: "dev" for n in order[:args.dev_docs]}
    split_of.update({n: "test" for n in order[args.dev_docs:args.dev_docs + args.test_docs]})
    out: dict[str, dict[str, list[str]]] = {
        split: {"en": [], args.lang: [], "docs": []} for split in ("train", "dev", "test")}
    for n, (doc, pairs) in enumerate(documents):
        sides = out[split_of.get(n, "train")]
        sides["en"] += [src for src, _ in pairs]
        sides[args.lang] += [tgt for _, tgt in pairs]
        sides["docs"] += [doc] * len(pairs)
    from phrasenmt.io import write_all

    os.makedirs(args.out, exist_ok=True)
    write_all([(os.path.join(args.out, f"{split}.{ext}"), lines)
               for split, sides in out.items() for ext, lines in sides.items()])
    print("pairs\t" + "\t".join(f"{split} {len(sides['en'])}" for split, sides in out.items()))
    print("documents\t" + "\t".join(f"{split} {len(set(sides['docs']))}"
                                      for split, sides in out.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
