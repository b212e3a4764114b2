"""Side inputs: per-source-token integers carried from files to the model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from torch import Tensor, nn

from phrasenmt import train, translate
from phrasenmt.hparams import registry as hparams_registry
from phrasenmt.hparams.registry import register_config
from phrasenmt.io import InputError
from phrasenmt.models.registry import (
    MODELS,
    get_preset,
    register_model,
    register_preset,
)
from phrasenmt.models.transformer import Transformer, TransformerConfig
from phrasenmt.nn.batching import SIDE_PAD, collate
from phrasenmt.training.data import read_side

TINY = {"d_model": 16, "d_ff": 32, "n_heads": 2, "encoder_layers": 1,
        "decoder_layers": 1, "dropout": 0.0}
SRC = ["a b c", "b c", "c a b a", "a"]
TGT = ["x y z", "y z", "z x y x", "x"]
TAGS = ["0 1 2", "1 2", "2 0 1 0", "0"]  # one tag per source token


class TaggedTransformer(Transformer):
    """A Transformer that adds an embedding of a per-token tag to its memory."""

    config_class = TransformerConfig
    side_inputs = ("tags",)
    side_classes = {"tags": 3}  # noqa: RUF012

    def __init__(self, cfg: TransformerConfig):
        super().__init__(cfg)
        self.tag_embed = nn.Embedding(4, cfg.d_model)

    def encode(self, src: Tensor, tags: Tensor) -> dict[str, Tensor]:
        state = super().encode(src)
        state["memory"] = state["memory"] + self.tag_embed(tags + 1)  # pad -1 -> 0
        return state


@pytest.fixture(scope="module", autouse=True)
def tagged_arch():
    """The arch `test_tagged`, registered as a family registers its own (an arch
    declares its config, torch-free, then its model class) while this module's
    tests run, and removed after them: the package's own archs are what the
    schema and the configuration reference list."""
    register_config("test_tagged", TransformerConfig)
    register_model("test_tagged")(TaggedTransformer)
    register_preset("test_tagged", "tiny")(get_preset("transformer", "tiny"))
    yield
    for table in (hparams_registry.CONFIGS, hparams_registry.PRESETS, MODELS):
        table.pop("test_tagged", None)


def _write(tmp: Path, name: str, lines: list[str]) -> Path:
    path = tmp / name
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_collate_pads_side_inputs_to_the_source_length():
    batch = collate([[5, 6], [7]], [[8], [9, 10]], {"tags": [[1, 2], [3]]})
    assert batch.side["tags"].tolist() == [[1, 2, SIDE_PAD], [3, SIDE_PAD, SIDE_PAD]]
    assert batch.side["tags"].shape == batch.src.shape


@pytest.mark.parametrize("lines, message", [
    (["0 1 2", "1 2", "2 0 1 0"], "has 3 lines but the source has 4"),
    (["0 1", "1 2", "2 0 1 0", "0"], ":1: has 2 values but the source line has 3"),
    (["0 1 2", "1 x", "2 0 1 0", "0"], ":2: side input must be integers"),
    (["0 1 2", "1 ١", "2 0 1 0", "0"], ":2: side input must be integers"),
    (["0 1 2", "1 --1", "2 0 1 0", "0"], ":2: side input must be integers"),
    (["0 1 2", "1 -1", "2 0 1 0", "0"], (":2: value 2 is -1, out of range: labels "
     "of 3 classes are 0..2")),
    (["0 1 2", "1 2", "2 0 1000000000 0", "0"], ":3: value 3 is 1000000000"),
])
def test_side_files_are_validated(tmp_path: Path, lines: list[str], message: str):
    path = _write(tmp_path, "tags", lines)
    with pytest.raises(InputError, match=message):
        read_side(path, SRC, 3)


@pytest.mark.parametrize("value", ["-1", "3", "1000000000"])
def test_phrase_ids_are_bounded_by_the_line_before_any_allocation(
        tmp_path: Path, value: str):
    path = _write(tmp_path, "phrases", ["0 1 " + value, "0 0", "0 0 1 1", "0"])
    with pytest.raises(InputError, match=f":1: value 3 is {value}, out of range: "
                       "phrase ids of a line of 3 tokens are 0..2"):
        read_side(path, SRC)


def _train(tmp: Path, arch: str, side: list[str]) -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    files = {n: _write(tmp, n, lines) for n, lines in
             (("src", SRC), ("tgt", TGT), ("tags", TAGS))}
    spec = {"arch": arch, "preset": "tiny", "model": TINY,
            "train": {"max_steps": 3, "valid_interval": 3, "save_interval": 3,
                      "max_tokens": 64, "update_tokens": 1, "warmup_steps": 2}}
    argv = ["--spec", json.dumps(spec), "--train-src", str(files["src"]),
            "--train-tgt", str(files["tgt"]), "--dev-src", str(files["src"]),
            "--dev-tgt", str(files["tgt"]), "--outdir", str(tmp / "run"),
            "--seed", "1", "--no-progress"]
    for value in side:
        argv += ["--side", value.format(tags=files["tags"])]
    assert train.main(argv) == 0
    return tmp / "run"


def test_a_model_reads_its_side_input_in_training_and_decoding(tmp_path: Path):
    run = _train(tmp_path, "test_tagged", ["tags={tags},{tags}"])
    ckpt = next((run / "checkpoints").glob("checkpoint_*.pt"))
    src, tags = tmp_path / "src", tmp_path / "tags"
    out = tmp_path / "out"
    assert translate.main(["--checkpoint", str(ckpt), "--input", str(src),
                           "--output", str(out), "--beam", "2",
                           "--side", f"tags={tags}"]) == 0
    assert len(out.read_text().splitlines()) == len(SRC)
    # the side input changes the model's scores, so it really reaches the model
    other = _write(tmp_path, "tags2", ["2 2 2", "2 2", "2 2 2 2", "2"])
    scores = []
    for side in (tags, other):
        dest = tmp_path / f"scores.{side.name}"
        translate.main(["score", "--checkpoint", str(ckpt), "--src", str(src),
                        "--tgt", str(tmp_path / "tgt"), "--output", str(dest),
                        "--side", f"tags={side}"])
        scores.append([float(v) for v in dest.read_text().split()])
    assert not torch.allclose(torch.tensor(scores[0]), torch.tensor(scores[1]))


def test_missing_or_unexpected_side_inputs_are_clear_errors(tmp_path: Path):
    with pytest.raises(InputError, match="needs side input"):
        _train(tmp_path / "a", "test_tagged", [])
    with pytest.raises(InputError, match="does not read side input"):
        _train(tmp_path / "b", "transformer", ["tags={tags},{tags}"])
    with pytest.raises(InputError, match="expected NAME=TRAIN,DEV"):
        _train(tmp_path / "c", "test_tagged", ["tags={tags}"])
