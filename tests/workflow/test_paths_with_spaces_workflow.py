"""Your files in folders whose names hold spaces (`My Drive/corpus`), and a
working folder whose name holds one: every job that reads one gets the whole
path. The shell commands had pasted the
paths unquoted, so `--in My Drive/corpus/train.en` reached the data job as
two arguments."""

from __future__ import annotations

import shlex
from pathlib import Path
from types import SimpleNamespace

from phrasenmt.io import read_lines
from phrasenmt.text import spm
from phrasenmt.workflow import continuous, corpus
from tests.conftest import snakemake
from tests.unit.test_function_words import ENGLISH, GERMAN, REPEATS
from tests.workflow.local_corpus import SPLITS, local_en_de, split_lines

FOLDER = "my corpus"
TEXT = {"en": ENGLISH * REPEATS, "de": GERMAN * REPEATS}


def test_local_files_models_and_docs_under_a_folder_with_spaces(tmp_path: Path):
    work = tmp_path / "my work"  # Snakemake runs in a folder with a space too
    (work / FOLDER).mkdir(parents=True)
    texts = {f"{FOLDER}/{split}.{lang}": split_lines(TEXT[lang], split)
             for split in SPLITS for lang in ("en", "de")}
    n = len(TEXT["en"])
    texts[f"{FOLDER}/dev.docs"] = [f"doc{i // 4}" for i in range(n)]
    (work / FOLDER / "my model.model").write_bytes(
        spm.train(TEXT["en"] + TEXT["de"], "bpe", 150, 1))
    local = {s: {"src": f"{FOLDER}/{s}.en", "tgt": f"{FOLDER}/{s}.de"}
             for s in ("train", "dev")}
    local["dev"]["docs"] = f"{FOLDER}/dev.docs"
    local["test"] = {"test": {"src": f"{FOLDER}/test.en", "tgt": f"{FOLDER}/test.de"}}
    texts[f"{FOLDER}/more text.de"] = ["ein weiterer satz ."]
    args = local_en_de(work, texts, local=local,
                       bpe={"backend": "sentencepiece", "model": f"{FOLDER}/my model.model"})
    (work / "more.yaml").write_text(f"embeddings: {{extra_mono: '{FOLDER}/more text.de'}}\n")
    args += [str(work / "more.yaml")]  # after --configfile mine.yaml
    targets = ["results/mine/bpe/train.bpe.en", "results/mine/bpe/dev.bpe.de",
               "results/mine/raw/dev.docs", "results/mine/embeddings/plain/train.txt"]
    result = snakemake(*targets, "--cores", "1", *args)
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    assert read_lines(work / "results/mine/raw/dev.docs")[:5] == ["doc0"] * 4 + ["doc1"]
    assert (work / "results/mine/bpe/spm.joint.model").read_bytes() == \
        (work / FOLDER / "my model.model").read_bytes()
    assert len(read_lines(work / "results/mine/bpe/train.bpe.en")) == n
    assert read_lines(work / "results/mine/embeddings/plain/train.txt")[-1] == \
        "ein weiterer satz ."


def test_folder_options_keep_their_spaces():
    assert shlex.split(str(corpus.mirror_arg({"mirror": "/data/My Drive/mirror"}))) == \
        ["--mirror", "/data/My Drive/mirror"]
    assert shlex.split(corpus.stanza_dir_arg({"stanza_dir": "/data/My Drive/stanza"})) == \
        ["--stanza-dir", "/data/My Drive/stanza"]
    given = continuous.extra_mono_input({"embeddings": {"extra_mono": "/data/My Drive/m.de"}})
    extra = continuous.extra_mono_arg(SimpleNamespace(extra=given))
    assert shlex.split(extra) == ["--extra-mono", "/data/My Drive/m.de"]
    assert continuous.extra_mono_arg(SimpleNamespace(extra=[])) == ""
