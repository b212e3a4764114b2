"""An empty test set is valid input: every family translates (and scores) it to
an empty output, and the evaluation that follows says clearly what it can do.

One tiny model per decoding path (beam search, side inputs, SWAN's segment
search, the nearest-neighbour search of continuous-output models, document
context by index and in rounds), trained for one update through the trainer
CLI, then driven through `phrasenmt.translate` as a user would.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest
import torch

from phrasenmt.io import run_cli
from phrasenmt.train import main as train_main
from phrasenmt.translate import main as translate_main
from tests.unit.test_checkpoint import data

TRAIN = {"max_steps": 1, "max_tokens": 400, "update_tokens": 100, "save_interval": 1,
         "valid_interval": 1, "keep_last": 1}
SMALL = {"d_model": 16, "d_ff": 32, "n_heads": 2}
# name: (arch, model options, what training and translation add)
FAMILIES = {
    "transformer": ("transformer", SMALL, []),
    "pr_max": ("pr_max", SMALL, ["--side", "phrases={phrases}"]),
    "npmt": ("npmt", {"embed_size": 8, "encoder_hidden": 8, "decoder_hidden": 8,
                      "encoder_layers": 1, "decoder_layers": 1,
                      "max_segment_len": 2}, []),
    "conmt": ("conmt", {"embed_dim": 8, "word_table": "{vec}"}, []),
    "ctx_transformer": ("ctx_transformer", SMALL, ["--docs", "{docs}"]),
    "han_dec": ("han_dec", SMALL, ["--docs", "{docs}"]),
}


def cli(main, argv: list[str]) -> tuple[int, str]:
    """Run a CLI in-process as `python -m` would: (exit status, stderr)."""
    err = io.StringIO()
    code: int | str | None = 0
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            run_cli(main, argv)
        except SystemExit as done:
            code = done.code
    return (code if isinstance(code, int) else 1), err.getvalue()


@pytest.fixture(scope="module")
def folder(tmp_path_factory, one_thread) -> Path:
    """Tiny data with document ids, phrase ids and a word table."""
    root = tmp_path_factory.mktemp("empty")
    paths = data(root)
    for split, path in (("train", paths.train_src), ("dev", paths.dev_src)):
        lines = path.read_text().splitlines()
        (root / f"{split}.docs").write_text(
            "".join(f"d{i // 4}\n" for i in range(len(lines))))
        (root / f"{split}.phrases").write_text(
            "".join(" ".join(str(k // 2) for k in range(len(line.split()))) + "\n"
                    for line in lines))
    words = sorted({w for line in paths.train_tgt.read_text().splitlines()
                    for w in line.split()})
    gen = torch.Generator().manual_seed(0)
    (root / "words.vec").write_text(f"{len(words)} 8\n" + "".join(
        w + "".join(f" {x:.4f}" for x in torch.randn(8, generator=gen).tolist()) + "\n"
        for w in words))
    (root / "empty.txt").write_text("")
    return root


def fill(args: list[str], root: Path, split: str) -> list[str]:
    """Family options with the files of `split` (train,dev for training)."""
    names = {"phrases": "phrases", "docs": "docs"}
    out = []
    for a in args:
        for key, ext in names.items():
            if "{" + key + "}" in a:
                files = ([str(root / f"{s}.{ext}") for s in ("train", "dev")]
                         if split == "train" else [str(root / "empty.txt")])
                a = a.replace("{" + key + "}", ",".join(files))
        out.append(a)
    return out


def trained(root: Path, name: str) -> Path:
    """The checkpoint of a one-update model of family `name`."""
    arch, model, extra = FAMILIES[name]
    model = {k: (v.format(vec=root / "words.vec") if isinstance(v, str) else v)
             for k, v in model.items()}
    spec = json.dumps({"arch": arch, "preset": "tiny", "model": model, "train": TRAIN})
    out = root / name
    code, err = cli(train_main, [
        "--spec", spec, "--train-src", str(root / "train.src"),
        "--train-tgt", str(root / "train.tgt"), "--dev-src", str(root / "dev.src"),
        "--dev-tgt", str(root / "dev.tgt"), "--outdir", str(out), "--seed", "1",
        "--threads", "1", "--device", "cpu", "--no-progress",
        *fill(extra, root, "train")])
    assert code == 0, err
    return out / "checkpoints" / "checkpoint_1.pt"


@pytest.mark.parametrize("name", FAMILIES)
def test_an_empty_test_set_translates_to_an_empty_output(folder: Path, name: str):
    checkpoint = trained(folder, name)
    extra = fill(FAMILIES[name][2], folder, "test")
    if name == "npmt":
        extra += ["--segments-out", str(folder / f"{name}.segments")]
    for beam in ("1",) if name == "conmt" else ("1", "2"):  # conmt: greedy only
        out = folder / f"{name}.beam{beam}.txt"
        code, err = cli(translate_main, [
            "--checkpoint", str(checkpoint), "--input", str(folder / "empty.txt"),
            "--output", str(out), "--device", "cpu", "--beam", beam, *extra])
        assert code == 0, err
        assert out.read_bytes() == b""
    if name == "npmt":
        assert (folder / f"{name}.segments").read_bytes() == b""
    if name != "conmt":  # continuous output has no forced-decoding score
        scores = folder / f"{name}.scores"
        code, err = cli(translate_main, [
            "score", "--checkpoint", str(checkpoint), "--src", str(folder / "empty.txt"),
            "--tgt", str(folder / "empty.txt"), "--output", str(scores),
            "--device", "cpu", *[a for a in extra if not a.endswith(".segments")
                                 and a != "--segments-out"]])
        assert code == 0, err
        assert scores.read_bytes() == b""


def test_bleu_of_an_empty_test_set_is_one_clear_line(folder: Path):
    from phrasenmt.evaluate.bleu import main as bleu_main

    empty = str(folder / "empty.txt")
    out = folder / "bleu.json"
    code, err = cli(bleu_main, ["--system", "m", "--testset", "test", "--hyp", empty,
                                "--ref", empty, "--hyp-tok", empty, "--ref-tok", empty,
                                "--out", str(out)])
    assert code == 1 and "Traceback" not in err
    assert err.strip().splitlines() == [(
        f"error: {empty}: no lines to score: BLEU and chrF of an empty test set are "
        "undefined (sacreBLEU has no score for 0 sentences)")]
    assert not out.exists()
