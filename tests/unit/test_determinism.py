"""Same seed, same bytes: alignment, phrase extraction and fastText run twice.

Each run is a fresh Python process with its own PYTHONHASHSEED (so set and
dict orders of strings differ between the runs) and its own aligner thread
count; the two runs' files must still be byte-identical. A different seed must
change the links, so the seed is not ignored.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from phrasenmt.synthetic.corpus import main as synthetic

STAGES = """
import sys
from phrasenmt.align.__main__ import main as align
from phrasenmt.embeddings import main as embeddings
from phrasenmt.phrases import main as phrases

data, out, seed, threads, backend = sys.argv[1:]
d, o = data + "/", out + "/"
steps = [
    (align, ["run", "--backend", backend, "--src", d + "train.de", "--tgt",
             d + "train.en", "--heldout", "dev", d + "dev.de", d + "dev.en",
             "--heldout-dir", o + "heldout", "--fwd", o + "train.fwd",
             "--rev", o + "train.rev", "--seed", seed, "--threads", threads]
     + (["--samplers", "2"] if backend == "eflomal" else [])),
    (align, ["symmetrize", "--fwd", o + "train.fwd", "--rev", o + "train.rev",
             "--src", d + "train.de", "--tgt", d + "train.en", "--out",
             o + "train.sym"]),
    (phrases, ["--src", d + "train.de", "--tgt", d + "train.en", "--alignment",
               o + "train.sym", "--tgt-lang", "en", "--min-count", "2",
               "--out-phrases", o + "phrases.tsv", "--out-filters",
               o + "filters.tsv", "--out-fertility", o + "train.fert4",
               "--out-fertility2", o + "train.fert2"]),
    (embeddings, ["concat", "--text", d + "train.en", "--phrases",
                  o + "phrases.tsv", "--out", o + "train.concat"]),
    (embeddings, ["train", "--text", o + "train.concat", "--phrases",
                  o + "phrases.tsv", "--out-dir", o + "emb", "--dim", "16",
                  "--epoch", "2", "--bucket", "20000", "--threads", "1",
                  "--seed", seed]),
]
for main, argv in steps:
    if main(argv) != 0:
        sys.exit(f"stage {argv[0]} failed")
"""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """A few hundred German-English sentence pairs from the synthetic grammar."""
    out = tmp_path_factory.mktemp("corpus")
    assert synthetic(["--outdir", str(out), "--seed", "3", "--train-size", "400",
                      "--dev-size", "30", "--test-size", "10",
                      "--direction", "de-en"]) == 0
    return out


def run_stages(data: Path, out: Path, seed: int, threads: int, hash_seed: int,
               backend: str = "eflomal") -> dict[str, bytes]:
    """Run the stages in a fresh interpreter; every output file's bytes by name."""
    env = dict(os.environ, PYTHONHASHSEED=str(hash_seed))
    done = subprocess.run([sys.executable, "-c", STAGES, str(data), str(out),
                           str(seed), str(threads), backend],
                          check=False, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return {str(p.relative_to(out)): p.read_bytes()
            for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("backend", ["eflomal", "fast_align"])
def test_two_runs_give_byte_identical_files(corpus, tmp_path, backend):
    first = run_stages(corpus, tmp_path / "a", seed=1, threads=1, hash_seed=1,
                       backend=backend)
    second = run_stages(corpus, tmp_path / "b", seed=1, threads=2, hash_seed=2,
                        backend=backend)
    assert {"train.fwd", "train.sym", "heldout/dev.fwd", "phrases.tsv",
            "train.fert4", "emb/words.vec", "emb/phrases.vec",
            "emb/model.bin"} <= set(first)
    assert sorted(first) == sorted(second)
    differ = [name for name in first if first[name] != second[name]]
    assert not differ, f"differ between two runs of the same seed: {differ}"


def test_another_seed_gives_other_eflomal_links(corpus, tmp_path):
    from phrasenmt.align.backends import align_eflomal
    from phrasenmt.align.pharaoh import read_corpus

    src, tgt = read_corpus(corpus / "train.de", corpus / "train.en")
    one, again, two = (align_eflomal(src, tgt, seed=s, samplers=1)
                       for s in (1, 1, 2))
    assert one == again
    assert one != two


def test_seeded_eflomal_without_a_compiler_says_so(monkeypatch):
    from phrasenmt.align import backends
    from phrasenmt.io import InputError

    monkeypatch.delenv("CC", raising=False)
    monkeypatch.setattr(backends.shutil, "which", lambda name: None)
    with pytest.raises(InputError, match="needs a C compiler .* fast_align"):
        backends.align_eflomal([["a", "b"]], [["x", "y"]], seed=1, samplers=1)
