"""Detokenize translations so sacreBLEU sees text as a reader would.

Moses, or for bpe.backend sentencepiece the decoding of its pieces (words
joined by spaces) with the spaces a word segmenter put inside Chinese text
removed."""

from __future__ import annotations

from phrasenmt.cli import ArgumentParser, output_file
from phrasenmt.data.clean import detokenize
from phrasenmt.io import read_lines, run_cli, write_lines
from phrasenmt.text.words import join_unsegmented


def main(argv: list[str] | None = None) -> int:
    """Detokenize one file line by line (empty hypotheses stay empty)."""
    parser = ArgumentParser(prog="python -m phrasenmt.data.detokenize",
                            description=__doc__)
    parser.add_argument("--lang", required=True, help="language code of the text")
    parser.add_argument("--in", dest="inp", required=True, help="tokenized text")
    parser.add_argument("--out", type=output_file, required=True,
                        help="detokenized text (atomic)")
    parser.add_argument("--sentencepiece", action="store_true",
                        help="the text was segmented by SentencePiece, not Moses")
    args = parser.parse_args(argv)
    lines = read_lines(args.inp)
    if args.sentencepiece:
        out = [join_unsegmented(" ".join(line.split())) for line in lines]
    else:
        out = detokenize(lines, args.lang)
    write_lines(args.out, out)
    return 0


if __name__ == "__main__":
    run_cli(main)
