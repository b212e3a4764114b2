"""Pharaoh `i-j` alignment files: parse, validate against sentence lengths, format.

Every alignment file in this project is indexed source-target: `i-j` links the
0-based source token `i` to the 0-based target token `j`.
"""

from __future__ import annotations

import os
import re

from phrasenmt.io import InputError, read_lines

Link = tuple[int, int]
_INDEX = re.compile(r"[0-9]+")  # ASCII digits: str.isdigit takes '²' and '١'


def parse_line(text: str, n_src: int, n_tgt: int, path: str | os.PathLike,
               line: int) -> set[Link]:
    """Parse one Pharaoh line; malformed or out-of-range links raise InputError."""
    links: set[Link] = set()
    for token in text.split():
        i_txt, sep, j_txt = token.partition("-")
        if not sep or not _INDEX.fullmatch(i_txt) or not _INDEX.fullmatch(j_txt):
            raise InputError(f"malformed alignment link {token!r}, expected i-j "
                             "(ASCII digits)", path, line)
        i, j = int(i_txt), int(j_txt)
        if i >= n_src or j >= n_tgt:
            raise InputError(
                f"link {token} out of range for a sentence pair with {n_src} "
                f"source and {n_tgt} target tokens", path, line)
        links.add((i, j))
    return links


def read_alignments(path: str | os.PathLike, src: list[list[str]],
                    tgt: list[list[str]]) -> list[set[Link]]:
    """Read and validate a Pharaoh file against tokenized source/target sentences."""
    lines = read_lines(path)
    if len(lines) != len(src):
        raise InputError(
            f"has {len(lines)} lines but the corpus has {len(src)} sentence pairs",
            path)
    return [parse_line(text, len(s), len(t), path, n)
            for n, (text, s, t) in enumerate(zip(lines, src, tgt), start=1)]


def format_links(links: set[Link] | list[Link]) -> str:
    """Format links as a Pharaoh line, sorted by source then target index."""
    return " ".join(f"{i}-{j}" for i, j in sorted(links))


def read_corpus(src: str | os.PathLike,
                tgt: str | os.PathLike) -> tuple[list[list[str]], list[list[str]]]:
    """Read a tokenized parallel corpus; empty lines raise InputError."""
    src_sents, tgt_sents = [], []
    for path, out in ((src, src_sents), (tgt, tgt_sents)):
        for n, text in enumerate(read_lines(path), start=1):
            tokens = text.split()
            if not tokens:
                raise InputError("empty sentence", path, n)
            out.append(tokens)
    if len(src_sents) != len(tgt_sents):
        raise InputError(f"has {len(src_sents)} lines but {tgt} has "
                         f"{len(tgt_sents)}; parallel files must match", src)
    return src_sents, tgt_sents
