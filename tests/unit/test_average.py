"""Checkpoint averaging: exact on identical inputs, a mean otherwise, loadable."""

from __future__ import annotations

import pytest
import torch

from phrasenmt.average import average_state_dicts
from phrasenmt.average import main as average_main
from phrasenmt.io import InputError
from phrasenmt.models import build_model
from phrasenmt.models.transformer import TransformerConfig
from phrasenmt.text.vocab import Vocabulary
from phrasenmt.training.checkpoint import load_model, model_payload, save_file

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


def write_checkpoints(folder, seeds, vocab_words="a b c"):
    """checkpoint_{i}.pt files from models initialised with the given seeds."""
    folder.mkdir(exist_ok=True)
    vocab = Vocabulary.build([vocab_words])
    models = []
    for step, seed in enumerate(seeds, start=1):
        torch.manual_seed(seed)
        cfg = TransformerConfig(src_vocab_size=len(vocab), tgt_vocab_size=len(vocab),
                                d_model=8, d_ff=16, n_heads=2, encoder_layers=1,
                                decoder_layers=1, share_decoder_embeddings=True)
        models.append(build_model("transformer", cfg))
        save_file(model_payload("transformer", models[-1], vocab, vocab, {}),
                  folder / f"checkpoint_{step}.pt")
    return models


def test_identical_checkpoints_average_to_the_same_weights(tmp_path):
    models = write_checkpoints(tmp_path / "c", [3, 3, 3])
    assert average_main(["--checkpoint-dir", str(tmp_path / "c"), "--last", "3",
                         "--out", str(tmp_path / "avg.pt")]) == 0
    model, *_ = load_model(tmp_path / "avg.pt")
    for key, value in models[0].state_dict().items():
        assert torch.equal(model.state_dict()[key], value), key


def test_average_is_the_mean_of_the_last_n(tmp_path, capsys):
    models = write_checkpoints(tmp_path / "c", [1, 2, 3])
    average_main(["--checkpoint-dir", str(tmp_path / "c"), "--last", "2",
                  "--out", str(tmp_path / "avg.pt")])
    model, *_ = load_model(tmp_path / "avg.pt")
    w = "encoder.layers.0.ff.fc1.weight"
    mean = (models[1].state_dict()[w] + models[2].state_dict()[w]) / 2
    assert torch.allclose(model.state_dict()[w], mean, atol=1e-7)
    assert not torch.allclose(model.state_dict()[w], models[0].state_dict()[w])
    average_main(["--checkpoint-dir", str(tmp_path / "c"), "--last", "5",
                  "--out", str(tmp_path / "avg5.pt")])
    assert "only 3 checkpoints" in capsys.readouterr().err


def test_last_n_from_summary(tmp_path, capsys):
    write_checkpoints(tmp_path / "c", [1, 2, 3])
    (tmp_path / "summary.json").write_text('{"average_last": 2}')
    average_main(["--checkpoint-dir", str(tmp_path / "c"), "--summary",
                  str(tmp_path / "summary.json"), "--out", str(tmp_path / "a.pt")])
    assert "checkpoint_2.pt, checkpoint_3.pt ->" in capsys.readouterr().err
    (tmp_path / "summary.json").write_text("{}")
    with pytest.raises(InputError, match="summary.json: not a training summary"):
        average_main(["--checkpoint-dir", str(tmp_path / "c"), "--summary",
                      str(tmp_path / "summary.json"), "--out", str(tmp_path / "a.pt")])
    for bad in ("0", "-2", "2.0"):
        (tmp_path / "summary.json").write_text(f'{{"average_last": {bad}}}')
        with pytest.raises(InputError, match=f"summary.json: average_last must be a "
                           f"positive integer, got {bad}"):
            average_main(["--checkpoint-dir", str(tmp_path / "c"), "--summary",
                          str(tmp_path / "summary.json"), "--out",
                          str(tmp_path / "b.pt")])
    assert not (tmp_path / "b.pt").exists()


def test_float64_accumulation_is_exact():
    x = {"w": torch.randn(100), "n": torch.tensor(3)}
    out = average_state_dicts([x, x, x])
    assert torch.equal(out["w"], x["w"]) and torch.equal(out["n"], x["n"])


def test_bad_inputs(tmp_path):
    with pytest.raises(InputError, match="no checkpoint"):
        average_main(["--checkpoint-dir", str(tmp_path), "--last", "2",
                      "--out", str(tmp_path / "a.pt")])
    write_checkpoints(tmp_path / "c", [1])
    write_checkpoints(tmp_path / "d", [1, 2], vocab_words="a b c d")
    (tmp_path / "d" / "checkpoint_1.pt").rename(tmp_path / "c" / "checkpoint_2.pt")
    with pytest.raises(InputError, match="checkpoint_2.pt: .* differs"):
        average_main(["--checkpoint-dir", str(tmp_path / "c"), "--last", "2",
                      "--out", str(tmp_path / "a.pt")])
