"""One local en-de dataset written into a Snakemake working folder, for the
workflow tests of the start-up's checks of local corpora."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.conftest import REPO

SPLITS = ("train", "dev", "test")


def split_lines(lines: list[str], split: str) -> list[str]:
    """`lines` rotated by the split's place in SPLITS: each split other bytes
    (the start-up refuses a held-out file with a training file's bytes)."""
    n = SPLITS.index(split)
    return lines[n:] + lines[:n]


def local_en_de(workdir: Path, texts: dict[str, list[str]], **dataset) -> list[str]:
    """Files {train,dev,test}.{en,de} holding `texts` (by file name), the config
    of a local dataset `mine` that reads them (`dataset`: more of its keys; a
    `local` mapping is merged into the file names), and the Snakemake options
    that run it."""
    for name, lines in texts.items():
        (workdir / name).write_text("".join(t + "\n" for t in lines))
    local = {s: {"src": f"{s}.en", "tgt": f"{s}.de"} for s in ("train", "dev")}
    local["test"] = {"test": {"src": "test.en", "tgt": "test.de"}}
    local.update(dataset.pop("local", {}))
    config = {"run_datasets": ["mine"],
              "datasets": {"mine": {"source": "local", "src": "en", "tgt": "de",
                                    **dataset, "local": local}},
              "models": {"transformer": {"arch": "transformer", "preset": "tiny",
                                         "datasets": ["mine"]}},
              "baseline": {"mine": "transformer"}}
    (workdir / "mine.yaml").write_text(yaml.safe_dump(config))
    return ["--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir),
            "--configfile", str(workdir / "mine.yaml")]
