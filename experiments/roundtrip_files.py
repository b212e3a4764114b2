"""How many lines of a text file do not come back from tokenization and
detokenization (the Moses path, `tokenize: true`) as they were?

    python experiments/roundtrip_files.py --lang he FILE... [--having REGEX]
        [--show 5]

Each line goes through `phrasenmt.data.clean.process_side` and back through
`detokenize` in the file's language, as a target side does between cleaning
and BLEU. Prints, per file, the lines read, those that differ, and with
--having the same two counts over the lines that match REGEX (e.g. lines
with a Hebrew acronym quote); --show prints the first differing lines.
"""

from __future__ import annotations

import argparse

import regex

from phrasenmt.data.clean import Options, detokenize, process_side
from phrasenmt.io import read_lines


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="+")
    p.add_argument("--lang", required=True)
    p.add_argument("--having", help="also count the lines that match this regex")
    p.add_argument("--show", type=int, default=0, help="differing lines to print")
    args = p.parse_args()
    having = regex.compile(args.having) if args.having else None
    opts = Options("en", args.lang, tokenize=True, raw=False, lowercase=False)
    for path in args.files:
        lines = read_lines(path)
        back = detokenize(process_side(lines, args.lang, opts), args.lang)
        differ = [(a, b) for a, b in zip(lines, back, strict=True) if a != b]
        text = f"{path}: {len(differ)} of {len(lines)} lines differ"
        if having is not None:
            picked = [(a, b) for a, b in zip(lines, back, strict=True)
                      if having.search(a)]
            text += (f"; of the {len(picked)} lines matching --having, "
                     f"{sum(a != b for a, b in picked)} differ")
        print(text)
        for a, b in differ[:args.show]:
            print(f"  {a!r}\n  {b!r}")


if __name__ == "__main__":
    main()
