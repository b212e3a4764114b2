"""Word aligners behind one interface: each returns (forward, reverse) links.

Both directions come back indexed source-target (`i` source, `j` target):
forward is the source->target model (every target word has at most one
link), reverse the target->source model (every source word has at most one).

* `eflomal`: the eflomal package (HMM + fertility, Gibbs sampling). It writes
  both directions source-target already. It has no seed option (it seeds from
  /dev/urandom), so its output is not bit-reproducible across runs. `samplers`
  is its number of independent samplers (eflomal's default 3); the others
  have no such option, and `align` refuses it for them.
* `fast_align`: the fast_align model (IBM Model 1 reparameterised, Dyer et al.
  2013) trained by EM in the systran-align package. That package only returns
  a grow-diag-final-and alignment, so we read the two lexical tables it trains
  (its binary format: int32 version, int32 vocabulary size, NUL-terminated
  words with 1-based ids where id 1 is `<eps>` = NULL, int32 row count, then
  non-empty rows of int32 conditioning id, int32 n, n x (int32 id, float32
  probability)) and take
  fast_align's Viterbi decision per generated word: argmax over NULL (prior
  p0 = 0.08) and every conditioning word i (prior (1 - p0) times the
  diagonal-favouring exp(-4 |j/m - i/n|), normalised) of prior x t(word | i),
  NULL winning ties, a missing table entry counting as 1e-9 as in fast_align.
  Training uses the same diagonal prior (fast_align's `-d`). A unit test checks
  that our own grow-diag-final-and of these two directions reproduces the
  package's symmetrized output.
* `fast_align-bin`: a `fast_align` executable on PATH, run as `-d -o -v` (and
  `-r` for the reverse direction), if one is installed.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import math
import os
import shutil
import struct
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from phrasenmt.align.pharaoh import Link
from phrasenmt.cli import positive_int
from phrasenmt.io import InputError

Sentences = list[list[str]]
Alignments = list[set[Link]]
MISSING_PROB = 1e-9
NULL_ID = 1
DIAGONAL_TENSION = 4.0  # fast_align's default
P_NULL = 0.08  # fast_align's default prob_align_null


@contextlib.contextmanager
def _omp_threads(threads: int) -> Iterator[None]:
    """Set OMP_NUM_THREADS for the aligner only, restoring it afterwards."""
    old = os.environ.get("OMP_NUM_THREADS")
    os.environ["OMP_NUM_THREADS"] = str(max(threads, 1))
    try:
        yield
    finally:
        if old is None:
            del os.environ["OMP_NUM_THREADS"]
        else:
            os.environ["OMP_NUM_THREADS"] = old


def align_eflomal(src: Sentences, tgt: Sentences, threads: int = 1,
                  seed: int | None = None,
                  samplers: int = 3) -> tuple[Alignments, Alignments]:
    """Align with eflomal; `seed` is ignored because eflomal cannot be seeded."""
    import eflomal

    with (_omp_threads(threads),
          tempfile.TemporaryDirectory(prefix="phrasenmt-eflomal-") as tmp):
        fwd_path, rev_path = Path(tmp, "fwd"), Path(tmp, "rev")
        aligner = eflomal.Aligner(n_samplers=samplers)
        aligner.align([" ".join(s) for s in src], [" ".join(t) for t in tgt],
                      links_filename_fwd=str(fwd_path),
                      links_filename_rev=str(rev_path), quiet=True)
        return _read_links(fwd_path), _read_links(rev_path)


def _read_links(path: Path) -> Alignments:
    """Read a Pharaoh file written by an aligner (trusted, unvalidated)."""
    with open(path, encoding="utf-8") as fh:
        return [{tuple(map(int, tok.split("-"))) for tok in line.split()}
                for line in fh]


def _write_joint(path: str | os.PathLike, src: Sentences, tgt: Sentences) -> None:
    """Write fast_align's input format, `source ||| target` per line."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.writelines(f"{' '.join(s)} ||| {' '.join(t)}\n" for s, t in zip(src, tgt))


def read_fast_align_table(path: str | os.PathLike) -> tuple[dict, dict]:
    """Read a systran-align probability table: (word -> id, id -> {id: prob})."""
    data = Path(path).read_bytes()
    _version, n_words = struct.unpack_from("<ii", data, 0)
    offset, vocab = 8, {}
    for word_id in range(1, n_words + 1):
        end = data.index(b"\0", offset)
        vocab[data[offset:end].decode("utf-8")] = word_id
        offset = end + 1
    table: dict[int, dict[int, float]] = {}
    offset += 4  # the row count; empty rows are not stored, so read to the end
    while offset < len(data):
        row, count = struct.unpack_from("<ii", data, offset)
        pairs = struct.unpack_from(f"<{2 * count}i", data, offset + 8)
        probs = struct.unpack_from(f"<{2 * count}f", data, offset + 8)
        table[row] = dict(zip(pairs[0::2], probs[1::2]))
        offset += 8 + 8 * count
    return vocab, table


@functools.lru_cache(maxsize=4096)
def diagonal_weights(n_gen: int, n_given: int, tension: float,
                     p_null: float) -> tuple[tuple[float, ...], ...]:
    """fast_align's alignment prior p(i | j, m, n) favouring the diagonal."""
    weights = []
    for j in range(1, n_gen + 1):
        row = [math.exp(-tension * abs(j / n_gen - i / n_given))
               for i in range(1, n_given + 1)]
        z = sum(row)
        weights.append(tuple((1.0 - p_null) * w / z for w in row))
    return tuple(weights)


def viterbi(given: Sentences, generated: Sentences, vocab: dict, table: dict,
            tension: float = DIAGONAL_TENSION,
            p_null: float = P_NULL) -> list[list[int]]:
    """fast_align's argmax: per generated word, the index of its given word or -1."""
    null_row = table.get(NULL_ID, {})
    out = []
    for cond, gen in zip(given, generated):
        rows = [table.get(vocab.get(w, -1), {}) for w in cond]
        prior = diagonal_weights(len(gen), len(cond), tension, p_null)
        links = []
        for word, weights in zip(gen, prior):
            wid = vocab.get(word, -1)
            best, best_p = -1, null_row.get(wid, MISSING_PROB) * p_null
            for i, (row, w) in enumerate(zip(rows, weights)):
                p = row.get(wid, MISSING_PROB) * w
                if p > best_p:
                    best, best_p = i, p
            links.append(best)
        out.append(links)
    return out


def align_fast_align(src: Sentences, tgt: Sentences, threads: int = 1,
                     seed: int | None = None,
                     iterations: int = 5) -> tuple[Alignments, Alignments]:
    """Train fast_align (systran-align EM) and decode both directions."""
    import systran_align

    with (_omp_threads(threads),
          tempfile.TemporaryDirectory(prefix="phrasenmt-fastalign-") as tmp):
        corpus, fwd_p, rev_p = (str(Path(tmp, n)) for n in ("in", "fwd", "rev"))
        _write_joint(corpus, src, tgt)
        systran_align.generate_alignment_probabilities(
            corpus, fwd_p, rev_p, iterations=iterations, favor_diagonal=True,
            diagonal_tension=DIAGONAL_TENSION, prob_align_null=P_NULL)
        vocab, fwd_table = read_fast_align_table(fwd_p)
        _, rev_table = read_fast_align_table(rev_p)
    fwd = [{(i, j) for j, i in enumerate(row) if i >= 0}
           for row in viterbi(src, tgt, vocab, fwd_table)]
    rev = [{(i, j) for i, j in enumerate(row) if j >= 0}
           for row in viterbi(tgt, src, vocab, rev_table)]
    return fwd, rev


def align_fast_align_binary(src: Sentences, tgt: Sentences, threads: int = 1,
                            seed: int | None = None) -> tuple[Alignments, Alignments]:
    """Run a `fast_align` executable from PATH in both directions."""
    exe = shutil.which("fast_align")
    if exe is None:
        raise RuntimeError("no fast_align executable on PATH")
    with tempfile.TemporaryDirectory(prefix="phrasenmt-fastalign-") as tmp:
        corpus = Path(tmp, "in")
        _write_joint(corpus, src, tgt)
        result = []
        for extra in ([], ["-r"]):
            out = subprocess.run([exe, "-i", str(corpus), "-d", "-o", "-v", *extra],
                                 check=True, capture_output=True, text=True).stdout
            result.append([{tuple(map(int, tok.split("-"))) for tok in line.split()}
                           for line in out.splitlines()])
    return result[0], result[1]


BACKENDS = {"eflomal": align_eflomal, "fast_align": align_fast_align,
            "fast_align-bin": align_fast_align_binary}


def add_aligner_options(parser: argparse.ArgumentParser, default: str) -> None:
    """`--backend` (default `default`) and `--samplers`, for every CLI that aligns."""
    parser.add_argument("--backend", choices=sorted(BACKENDS), default=default)
    parser.add_argument("--samplers", type=positive_int,
                        help="eflomal's independent samplers (default: eflomal's 3)")


def align(backend: str, src: Sentences, tgt: Sentences, threads: int = 1,
          seed: int | None = None,
          samplers: int | None = None) -> tuple[Alignments, Alignments]:
    """Run `backend`; `samplers` (None: the backend's default) is eflomal's only."""
    if samplers is not None and backend != "eflomal":
        raise InputError(f"--samplers applies to the eflomal backend only, "
                         f"not to {backend}", "--samplers")
    options = {} if samplers is None else {"samplers": samplers}
    return BACKENDS[backend](src, tgt, threads=threads, seed=seed, **options)
