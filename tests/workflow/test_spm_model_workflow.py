"""A SentencePiece dataset through Snakemake itself: the dry run refuses a
`vocab_size` the local training text cannot give, and a dataset with a model
of the user's (`bpe.model`) is segmented with exactly that model, which is an
input like a data file (a new model makes everything segmented with it again).
Only the subword files are built: no training."""

from __future__ import annotations

import os
from pathlib import Path

from phrasenmt.io import read_lines
from phrasenmt.text import spm
from tests.conftest import snakemake
from tests.unit.test_function_words import ENGLISH, GERMAN, REPEATS
from tests.workflow.local_corpus import SPLITS, local_en_de, split_lines

TEXT = {"en": ENGLISH * REPEATS, "de": GERMAN * REPEATS}
TARGETS = [f"results/mine/bpe/{split}.bpe.{lang}" for split in ("train", "dev")
           for lang in ("en", "de")]


def _corpus(workdir: Path, **bpe) -> list[str]:
    """The en-de files of every split, a config of one local SentencePiece
    dataset reading them, and the Snakemake options."""
    texts = {f"{split}.{lang}": split_lines(TEXT[lang], split) for split in SPLITS
             for lang in ("en", "de")}
    return local_en_de(workdir, texts, bpe={"backend": "sentencepiece", **bpe})


def test_the_dry_run_refuses_a_vocab_size_the_training_text_cannot_give(tmp_path):
    result = snakemake("-n", *_corpus(tmp_path, vocab_size=8000))
    out = result.stdout + result.stderr
    assert result.returncode == 1, out[-2000:]
    line = next(x for x in out.splitlines() if x.startswith("invalid configuration"))
    assert line.startswith("invalid configuration: datasets.mine.bpe.vocab_size: 8000 "
                           "pieces is more than train.en + train.de can give (at most "), line
    assert "Traceback" not in out and "Building DAG of jobs" not in out


def _user_model(path: Path, size: int) -> Path:
    path.write_bytes(spm.train(TEXT["en"] + TEXT["de"], "bpe", size, 1))
    return path


def test_a_dataset_with_bpe_model_is_segmented_with_that_model(tmp_path):
    model = _user_model(tmp_path / "user.model", 150)
    args = _corpus(tmp_path, model="user.model")
    result = snakemake(*TARGETS, "--cores", "1", *args)
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    assert (tmp_path / "results/mine/bpe/spm.joint.model").read_bytes() == \
        model.read_bytes()
    sp = spm.load(model)
    for target in TARGETS:
        split, _, lang = Path(target).name.split(".")
        words = read_lines(tmp_path / f"results/mine/data/{split}.{lang}")
        assert read_lines(tmp_path / target) == [spm.encode(sp, w) for w in words]
    # the model is an input: a new one makes the model and the subwords again
    assert "Nothing to be done" in snakemake("-n", *TARGETS, *args).stdout
    _user_model(model, 120)
    os.utime(model, (os.stat(model).st_atime, os.stat(model).st_mtime + 10))
    plan = snakemake("-n", *TARGETS, *args)
    out = plan.stdout + plan.stderr
    assert plan.returncode == 0, out[-2000:]
    assert "given_sentencepiece" in out and "apply_bpe" in out
    assert "learn_sentencepiece" not in out.replace("given_sentencepiece", "")
