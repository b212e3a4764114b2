"""Soft local reordering (Eq. 2): the window, edges and padding, the gates CLI,
and the attention RNN with the layer in front (attn_rnn_reorder)."""

from __future__ import annotations

import pytest
import torch

from phrasenmt.evaluate.gates import main
from phrasenmt.io import InputError
from phrasenmt.models import build_model
from phrasenmt.models.attn_rnn import RNNConfig
from phrasenmt.models.reordering import (
    AttnRNNReorder,
    ReorderRNNConfig,
    SoftLocalReordering,
)
from phrasenmt.nn.batching import pad_sequences
from phrasenmt.text.vocab import Vocabulary
from phrasenmt.training.checkpoint import model_payload, save_file

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


def layer(window: int = 7, embed: int = 8, seed: int = 0) -> SoftLocalReordering:
    torch.manual_seed(seed)
    return SoftLocalReordering(embed, window)


@pytest.mark.parametrize("window", [3, 7])
def test_output_depends_on_the_window_only(window):
    tau, S, t = window // 2, 12, 5
    reorder = layer(window)
    e = torch.randn(1, S, 8)
    mask = torch.ones(1, S, dtype=torch.bool)
    h, gates = reorder(e, mask)
    assert h.shape == (1, S, 8) and gates.shape == (1, S, window)
    assert ((gates > 0) & (gates < 1)).all()
    for offset, inside in ((tau + 1, False), (-(tau + 1), False), (tau, True),
                           (-tau, True)):
        moved = e.clone()
        moved[0, t + offset] += 5.0
        changed = not torch.allclose(reorder(moved, mask)[0][0, t], h[0, t])
        assert changed == inside, offset


def test_matches_equation_2_with_zeros_beyond_the_edges():
    reorder, S, tau = layer(5), 4, 2
    e = torch.randn(1, S, 8)
    h, gates = reorder(e, torch.ones(1, S, dtype=torch.bool))
    padded = torch.cat([torch.zeros(tau, 8), e[0], torch.zeros(tau, 8)])
    for t in range(S):
        window = padded[t: t + 2 * tau + 1]  # e_{t-τ} .. e_{t+τ}
        g = torch.sigmoid(reorder.gate(window.reshape(-1)))
        assert torch.allclose(g, gates[0, t], atol=1e-6)
        assert torch.allclose(torch.tanh((g[:, None] * window).sum(0)), h[0, t],
                              atol=1e-6)


def test_padding_reads_as_zero_vectors():
    reorder = layer(7)
    e = torch.randn(2, 9, 8)
    mask = torch.ones(2, 9, dtype=torch.bool)
    mask[1, 4:] = False  # sentence 2 has 4 tokens; garbage after them
    h, _ = reorder(e, mask)
    alone, _ = reorder(e[1:, :4], torch.ones(1, 4, dtype=torch.bool))
    assert torch.allclose(h[1, :4], alone[0], atol=1e-6)


@pytest.mark.parametrize("window", [0, 4, -3])
def test_even_or_empty_window_is_an_input_error(window):
    with pytest.raises(InputError, match="model.window"):
        SoftLocalReordering(8, window)
    with pytest.raises(InputError, match="model.window"):
        AttnRNNReorder(ReorderRNNConfig(src_vocab_size=9, tgt_vocab_size=9,
                                        window=window))


def tiny_attn(seed: int = 0) -> AttnRNNReorder:
    torch.manual_seed(seed)
    cfg = ReorderRNNConfig(src_vocab_size=12, tgt_vocab_size=10, embed_size=8,
                           hidden_size=16, dropout=0.0, window=5)
    return build_model("attn_rnn_reorder", cfg).eval()


def test_attn_rnn_reorder_reads_reordered_embeddings():
    model = tiny_attn()
    assert isinstance(model.encoder.embed.reorder, SoftLocalReordering)
    assert set(RNNConfig.__dataclass_fields__) < set(ReorderRNNConfig.__dataclass_fields__)
    src = pad_sequences([[4, 5, 6, 7, 2], [8, 9, 2]])
    logits = model(src, pad_sequences([[1, 4, 5], [1, 6]]))
    assert logits.shape == (2, 3, 10)
    memory = model.encode(src)["memory"]
    alone = model.encode(src[1:, :3])["memory"]
    assert torch.allclose(memory[1, :3], alone[0], atol=1e-6)  # padding changes nothing
    with torch.no_grad():
        model.encoder.embed.reorder.gate.bias.add_(3.0)  # the layer is on the path
    assert not torch.allclose(model.encode(src)["memory"], memory)


def test_gates_cli_writes_a_tidy_tsv(tmp_path):
    model = tiny_attn()
    src_vocab = Vocabulary.build(["a b c d e f g h"])
    tgt_vocab = Vocabulary.build(["x y z w v u"])
    save_file(model_payload("attn_rnn_reorder", model, src_vocab, tgt_vocab, {}),
              tmp_path / "m.pt")
    (tmp_path / "src.txt").write_text("a b c\nd e q f\n")
    out = tmp_path / "gates.tsv"
    main(["--checkpoint", str(tmp_path / "m.pt"), "--input",
          str(tmp_path / "src.txt"), "--line", "2", "--out", str(out)])
    rows = [r.split("\t") for r in out.read_text().splitlines()]
    assert rows[0] == ["position", "source_token", "offset", "gate"]
    assert len(rows) == 1 + 5 * 5  # (4 words + </s>) x window 5
    assert [r[1] for r in rows[1::5]] == ["d", "e", "q", "f", "</s>"]
    assert [int(r[2]) for r in rows[1:6]] == [-2, -1, 0, 1, 2]
    assert all(0.0 < float(r[3]) < 1.0 for r in rows[1:])
    with pytest.raises(InputError, match="--line"):
        main(["--checkpoint", str(tmp_path / "m.pt"), "--input",
              str(tmp_path / "src.txt"), "--line", "3", "--out", str(tmp_path / "x")])
    assert not (tmp_path / "x").exists()


def test_module_runs_as_a_cli():
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "phrasenmt.evaluate.gates", "--help"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "--line" in done.stdout and "Traceback" not in done.stderr
