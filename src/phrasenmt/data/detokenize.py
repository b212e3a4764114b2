"""Moses-detokenize translations so sacreBLEU sees text as a reader would."""

from __future__ import annotations

from phrasenmt.cli import ArgumentParser, output_file
from phrasenmt.data.clean import detokenize
from phrasenmt.io import read_lines, run_cli, write_lines


def main(argv: list[str] | None = None) -> int:
    """Detokenize one file line by line (empty hypotheses stay empty)."""
    parser = ArgumentParser(prog="python -m phrasenmt.data.detokenize",
                            description=__doc__)
    parser.add_argument("--lang", required=True, help="language code of the text")
    parser.add_argument("--in", dest="inp", required=True, help="tokenized text")
    parser.add_argument("--out", type=output_file, required=True,
                        help="detokenized text (atomic)")
    args = parser.parse_args(argv)
    write_lines(args.out, detokenize(read_lines(args.inp), args.lang))
    return 0


if __name__ == "__main__":
    run_cli(main)
