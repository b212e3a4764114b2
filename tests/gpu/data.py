"""The GPU check's data, made on the spot with the project's own CLIs.

`synthetic`: the built-in synthetic corpus (phrasenmt.synthetic, en->de, word
level: no BPE, so every family reads the same files), the phrase side input
(phrasenmt.segment, n-gram method: the parse method needs stanza), and for
PCoNMT the phrase list from the corpus' gold alignments (phrasenmt.phrases),
the phrase-joined targets (phrasenmt.embeddings concat), the dev fertility
labels (phrasenmt.fertility) and seeded random word and phrase tables in
word2vec text format (fastText, a compiled package, is not carried).

`random_tokens`: a corpus of random tokens for the timing runs, sized so that a
few updates of 25k-token batches never run out of pairs.
"""

from __future__ import annotations

import contextlib
import io
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from phrasenmt.embeddings import main as embeddings_main
from phrasenmt.fertility import main as fertility_main
from phrasenmt.io import InputError
from phrasenmt.phrases import main as phrases_main
from phrasenmt.segment import main as segment_main
from phrasenmt.synthetic.corpus import main as synthetic_main

SPLITS = ("train", "dev", "test")
SRC, TGT = "en", "de"


@dataclass
class Corpus:
    """Where a check corpus lies: {split}.{ext} files in `root`."""

    root: Path
    embed_dim: int = 0  # dimension of words.vec and phrases.vec (0: not made)
    pconmt_error: str = ""  # why the PCoNMT inputs could not be made ("" = made)

    def path(self, split: str, ext: str) -> Path:
        """The file of one split: ext en, de, docs, phrases, de_phr, fert2, ..."""
        return self.root / f"{split}.{ext}"


def quiet(fn, argv: list[str]) -> int:
    """Run a CLI entry point with its stdout and stderr kept out of the way.

    A usage error (argparse's exit 2) or a non-zero status raises InputError
    with the command's last line of output, which would otherwise be lost.
    """
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            code = fn(argv)
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else 1
    if code:
        lines = sink.getvalue().strip().splitlines()
        raise InputError(f"{fn.__module__}: {lines[-1] if lines else f'exit {code}'}")
    return code or 0


def synthetic(root: Path, seed: int, train_size: int, test_size: int,
              embed_dim: int) -> Corpus:
    """The synthetic corpus with every side input the families read."""
    root.mkdir(parents=True, exist_ok=True)
    quiet(synthetic_main, ["--outdir", str(root), "--seed", str(seed),
                           "--train-size", str(train_size), "--dev-size", "64",
                           "--test-size", str(test_size), "--direction", "en-de"])
    corpus = Corpus(root, embed_dim)
    for split in SPLITS:
        quiet(segment_main, ["--method", "ngram", "--bpe", str(corpus.path(split, SRC)),
                             "--out", str(corpus.path(split, "phrases"))])
    try:
        pconmt_inputs(corpus, embed_dim, seed)
    except Exception as err:  # noqa: BLE001  (only PCoNMT needs these files)
        corpus.pconmt_error = f"PCoNMT inputs: {type(err).__name__}: {err}"
    return corpus


def pconmt_inputs(corpus: Corpus, dim: int, seed: int) -> None:
    """Phrase list, joined targets, fertility labels and the two vector tables."""
    c, phrases = corpus, str(corpus.root / "phrases.tsv")
    quiet(phrases_main, [
        "--src", str(c.path("train", SRC)), "--tgt", str(c.path("train", TGT)),
        "--alignment", str(c.path("train", "align")), "--tgt-lang", TGT,
        "--out-phrases", phrases, "--out-filters", str(c.root / "filters.tsv"),
        "--out-fertility", str(c.path("train", "fert4")),
        "--out-fertility2", str(c.path("train", "fert2"))])
    quiet(fertility_main, [
        "--src", str(c.path("dev", SRC)), "--tgt", str(c.path("dev", TGT)),
        "--alignment", str(c.path("dev", "align")), "--phrases", phrases,
        "--out-fert4", str(c.path("dev", "fert4")),
        "--out-fert2", str(c.path("dev", "fert2"))])
    for split in SPLITS:
        quiet(embeddings_main, ["concat", "--text", str(c.path(split, TGT)),
                                "--phrases", phrases,
                                "--out", str(c.path(split, "de_phr"))])
    tokens = sorted({t for line in c.path("train", "de_phr").read_text("utf-8").split("\n")
                     for t in line.split()})
    rng = np.random.default_rng(seed)
    for name, keep in (("words", lambda t: "_" not in t), ("phrases", lambda t: "_" in t)):
        chosen = [t for t in tokens if keep(t)]
        rows = [t + " " + " ".join(f"{x:.5f}" for x in rng.standard_normal(dim))
                for t in chosen]
        (c.root / f"{name}.vec").write_text(
            f"{len(chosen)} {dim}\n" + "".join(r + "\n" for r in rows), "utf-8")


def random_tokens(root: Path, pairs: int, vocab: int, lengths: tuple[int, int],
                  seed: int) -> Corpus:
    """train/dev/test of random tokens (src s<i>, tgt t<i>), docs of 5 lines,
    n-gram phrase ids; every one of the `vocab` ids per side occurs in train."""
    root.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    corpus = Corpus(root)
    for split, n in (("train", pairs), ("dev", 16), ("test", 16)):
        for side, prefix in ((SRC, "s"), (TGT, "t")):
            ids = list(range(vocab)) if split == "train" else []
            lines = []
            for _ in range(n):
                k = rng.randint(*lengths)
                row = [ids.pop() if ids else rng.randrange(vocab) for _ in range(k)]
                lines.append(" ".join(f"{prefix}{i}" for i in row))
            corpus.path(split, side).write_text("\n".join(lines) + "\n", "utf-8")
        corpus.path(split, "docs").write_text(
            "".join(f"{split}-{i // 5}\n" for i in range(n)), "utf-8")
        quiet(segment_main, ["--method", "ngram", "--bpe", str(corpus.path(split, SRC)),
                             "--out", str(corpus.path(split, "phrases"))])
    return corpus
