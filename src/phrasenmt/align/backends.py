"""Word aligners behind one interface: each returns (forward, reverse) links.

Both directions come back indexed source-target (`i` source, `j` target):
forward is the source->target model (every target word has at most one
link), reverse the target->source model (every source word has at most one).

* `eflomal`: the eflomal package (HMM + fertility, Gibbs sampling). It writes
  both directions source-target already. It has no seed option: its binary
  seeds its sampler from 8 bytes of /dev/urandom. Given a `seed`, we run it
  with a small preloaded library (`LD_PRELOAD`, compiled here with `cc` on
  first use) whose `fopen("/dev/urandom")` returns those 8 bytes made from the
  seed, and on one OpenMP thread: its samplers, and with two threads its two
  directions, take their states from one shared generator in the order the
  threads get there, which under load differed between runs. Same seed, same
  links; without a C compiler a seeded eflomal run is refused (one line).
  `samplers` is its number of independent samplers (eflomal's default 3) and
  `rel_iterations` scales its number of Gibbs iterations per model (its
  default falls with corpus size, about 5000 / sqrt(sentence pairs)); the
  others have no such options, and `align` refuses them for them.
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
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from phrasenmt.align.pharaoh import Link
from phrasenmt.cli import field_type
from phrasenmt.config_model import Align
from phrasenmt.io import InputError

Sentences = list[list[str]]
Alignments = list[set[Link]]
MISSING_PROB = 1e-9
NULL_ID = 1
DIAGONAL_TENSION = 4.0  # fast_align's default
P_NULL = 0.08  # fast_align's default prob_align_null


@contextlib.contextmanager
def _scoped_env(**values: str) -> Iterator[None]:
    """Set environment variables for the aligner only, restoring them afterwards."""
    old = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in old.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value


def _omp_threads(threads: int) -> contextlib.AbstractContextManager[None]:
    """Set OMP_NUM_THREADS for the aligner only."""
    return _scoped_env(OMP_NUM_THREADS=str(max(threads, 1)))


# eflomal's binary reads its 8-byte seed with fopen("/dev/urandom"); this
# library, preloaded, answers that one call with the bytes of
# PHRASENMT_EFLOMAL_SEED (a decimal uint64) and notes the call in the file
# PHRASENMT_EFLOMAL_SEEDED names, so that a run it missed is caught.
SEED_SHIM = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static _Thread_local uint64_t seed;

FILE *fopen(const char *path, const char *mode) {
    static FILE *(*real)(const char *, const char *);
    const char *value = getenv("PHRASENMT_EFLOMAL_SEED");
    if (value != NULL && strcmp(path, "/dev/urandom") == 0) {
        const char *note = getenv("PHRASENMT_EFLOMAL_SEEDED");
        int fd = note ? open(note, O_WRONLY | O_CREAT | O_APPEND, 0600) : -1;
        if (fd >= 0) { (void)!write(fd, "s", 1); close(fd); }
        seed = strtoull(value, NULL, 10);
        return fmemopen(&seed, sizeof seed, "r");
    }
    if (real == NULL)
        real = (FILE *(*)(const char *, const char *))dlsym(RTLD_NEXT, "fopen");
    return real(path, mode);
}
"""


def splitmix64(seed: int) -> int:
    """A well-mixed non-zero 64-bit state from a small seed (eflomal's xorshift
    generator is stuck at 0 when started from 0)."""
    z = (seed + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return (z ^ (z >> 31)) or 1


def build_seed_shim(folder: Path) -> Path:
    """Compile SEED_SHIM into `folder` with the C compiler ($CC, cc or gcc)."""
    compiler = next((c for c in (os.environ.get("CC"), "cc", "gcc")
                     if c and shutil.which(c)), None)
    if compiler is None:
        raise InputError("a seeded eflomal run needs a C compiler (cc) to build "
                         "its seed library: install gcc, or set align.backend: "
                         "fast_align (deterministic, no compiler)")
    source, library = folder / "eflomal_seed.c", folder / "eflomal_seed.so"
    source.write_text(SEED_SHIM, encoding="utf-8")
    done = subprocess.run([compiler, "-shared", "-fPIC", "-O2", "-o", str(library),
                           str(source), "-ldl"], check=False,
                          capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise RuntimeError(f"compiling eflomal's seed library failed: {last}")
    return library


def _seeded(seed: int | None, threads: int, tmp: Path
            ) -> contextlib.AbstractContextManager[None]:
    """The environment of one eflomal run: its OpenMP threads and, given a
    seed, the seed library (one thread: directions and samplers in turn)."""
    if seed is None:
        return _omp_threads(threads)
    preload = " ".join(filter(None, [str(build_seed_shim(tmp)),
                                     os.environ.get("LD_PRELOAD")]))
    del threads  # one thread: the shared generator's draws stay in one order
    return _scoped_env(OMP_NUM_THREADS="1,1",
                       LD_PRELOAD=preload,
                       PHRASENMT_EFLOMAL_SEED=str(splitmix64(seed)),
                       PHRASENMT_EFLOMAL_SEEDED=str(tmp / "seeded"))


def align_eflomal(src: Sentences, tgt: Sentences, threads: int = 1,
                  seed: int | None = None, samplers: int = 3,
                  rel_iterations: float = 1.0) -> tuple[Alignments, Alignments]:
    """Align with eflomal, seeded by `seed` (None: eflomal's own random seed),
    sampling `rel_iterations` times as long as eflomal's default."""
    import eflomal

    with tempfile.TemporaryDirectory(prefix="phrasenmt-eflomal-") as name:
        tmp = Path(name)
        fwd_path, rev_path = tmp / "fwd", tmp / "rev"
        with _seeded(seed, threads, tmp):
            aligner = eflomal.Aligner(n_samplers=samplers, rel_iterations=rel_iterations)
            aligner.align([" ".join(s) for s in src], [" ".join(t) for t in tgt],
                          links_filename_fwd=str(fwd_path),
                          links_filename_rev=str(rev_path), quiet=True)
        if seed is not None and not (tmp / "seeded").is_file():
            raise RuntimeError("eflomal did not read its seed through the seed "
                               "library (LD_PRELOAD ignored?): its links would "
                               "not be reproducible")
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


def train_fast_align(corpus: str, fwd_p: str, rev_p: str, iterations: int) -> None:
    """systran-align's EM in a child process on one OpenMP thread: with several,
    its expected counts are summed in the order the threads finish, and OpenMP
    reads OMP_NUM_THREADS once per process, so this process cannot set it."""
    code = ("import sys, systran_align\n"
            "systran_align.generate_alignment_probabilities(sys.argv[1], sys.argv[2], "
            "sys.argv[3], iterations=int(sys.argv[4]), favor_diagonal=True, "
            f"diagonal_tension={DIAGONAL_TENSION}, prob_align_null={P_NULL})")
    done = subprocess.run([sys.executable, "-c", code, corpus, fwd_p, rev_p,
                           str(iterations)], check=False, capture_output=True,
                          text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise RuntimeError(f"fast_align (systran-align) failed: {last}")


def align_fast_align(src: Sentences, tgt: Sentences, threads: int = 1,
                     seed: int | None = None,
                     iterations: int = 5) -> tuple[Alignments, Alignments]:
    """Train fast_align (systran-align EM, one thread: `train_fast_align`) and
    decode both directions."""
    del threads
    with tempfile.TemporaryDirectory(prefix="phrasenmt-fastalign-") as tmp:
        corpus, fwd_p, rev_p = (str(Path(tmp, n)) for n in ("in", "fwd", "rev"))
        _write_joint(corpus, src, tgt)
        train_fast_align(corpus, fwd_p, rev_p, iterations)
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


# what --threads of a command that aligns does: the run is always seeded (its
# --seed has a default), and `_seeded` runs a seeded eflomal on one thread
THREADS_HELP = ("unused: every run is seeded (--seed), a seeded eflomal runs on one "
                "thread so that its links are reproducible, and the fast_align "
                "backends take no thread count")


def add_aligner_options(parser: argparse.ArgumentParser, default: str) -> None:
    """`--backend` (default `default`), `--samplers` and `--rel-iterations`, for
    every CLI that aligns."""
    parser.add_argument("--backend", choices=sorted(BACKENDS), default=default,
                        help="word aligner (config align.backend; default: "
                        "%(default)s): eflomal, fast_align (systran-align's EM, "
                        "fast_align's model), or fast_align-bin (a fast_align "
                        "executable on PATH)")
    parser.add_argument("--samplers", type=field_type(Align, "eflomal_samplers"),
                        help="eflomal's independent samplers (default: eflomal's 3)")
    parser.add_argument("--rel-iterations",
                        type=field_type(Align, "eflomal_rel_iterations"),
                        help="eflomal's iterations relative to its default (1)")


def align(backend: str, src: Sentences, tgt: Sentences, threads: int = 1,
          seed: int | None = None, samplers: int | None = None,
          rel_iterations: float | None = None) -> tuple[Alignments, Alignments]:
    """Run `backend`; `samplers` and `rel_iterations` (None: the backend's
    default) are eflomal's only."""
    eflomal_only = {"samplers": samplers, "rel_iterations": rel_iterations}
    for name, value in eflomal_only.items():
        option = "--" + name.replace("_", "-")
        if value is not None and backend != "eflomal":
            raise InputError(f"{option} applies to the eflomal backend only, "
                             f"not to {backend}", option)
    options = {k: v for k, v in eflomal_only.items() if v is not None}
    return BACKENDS[backend](src, tgt, threads=threads, seed=seed, **options)
