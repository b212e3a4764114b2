"""Cached decoding (keys/values kept once per sentence) equals recomputing everything.

The reference reruns the decoder on the whole prefix at every step, with the
encoder state copied to every hypothesis and no cache at all; the cached path is
what `beam_search`/`greedy_search` use for the Transformer and every pr_* arch.
"""

from __future__ import annotations

import pytest
import torch
from torch import Tensor, nn

from phrasenmt.decoding.scoring import forced_log_probs
from phrasenmt.decoding.search import beam_search, greedy_search
from phrasenmt.models import build_model, get_model_class
from phrasenmt.models.phrase_transformer import VARIANTS
from phrasenmt.nn.batching import pad_sequences
from phrasenmt.text.vocab import BOS, EOS

ARCHS = ["transformer", *VARIANTS]
V_SRC, V_TGT = 13, 9

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


class Uncached(nn.Module):
    """`model` decoded without a cache: the whole prefix at every step."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model, self.cfg = model, model.cfg

    def encode(self, src: Tensor, **side: Tensor) -> dict[str, Tensor]:
        """The model's encoder state (beam search copies it per hypothesis)."""
        return self.model.encode(src, **side)

    def decode_step(self, state: dict[str, Tensor], prefix: Tensor,
                    cache: dict) -> Tensor:
        """Log-probs of the next token from a full decoder pass over `prefix`."""
        logits = self.model.decoder(prefix, state)  # (N, t, V)
        return torch.log_softmax(logits[:, -1].float(), dim=-1)

    @staticmethod
    def reorder_state(state: dict[str, Tensor], cache: dict, order: Tensor):
        """Every state row follows its hypothesis."""
        return {k: v.index_select(0, order) for k, v in state.items()}, cache


def make_model(arch: str, seed: int = 0) -> nn.Module:
    """A tiny seeded model with peaky outputs, in eval mode."""
    torch.manual_seed(seed)
    cfg = get_model_class(arch).config_class(
        src_vocab_size=V_SRC, tgt_vocab_size=V_TGT, d_model=16, d_ff=24, n_heads=2,
        encoder_layers=2, decoder_layers=2, max_positions=64)
    model = build_model(arch, cfg).eval()
    with torch.no_grad():
        model.decoder.output.weight.mul_(4.0)
    return model


def inputs(arch: str) -> tuple[Tensor, dict[str, Tensor]]:
    """Five right-padded sources of different lengths and their phrase ids."""
    rows = [[4, 5, 6, 7, 8, 9, 10], [11, 4], [5, 6, 7, 12], [9], [4, 6, 8, 10, 12]]
    src = pad_sequences([[*r, EOS] for r in rows])  # (5, 8)
    if arch == "transformer":
        return src, {}
    phrases = [[i // 2 for i in range(len(r))] for r in rows]  # </s>: -1
    return src, {"phrases": pad_sequences(phrases, -1, length=src.size(1))}


@pytest.mark.parametrize("arch", ARCHS)
def test_beam_search_equals_the_uncached_decoder(arch):
    model = make_model(arch)
    src, side = inputs(arch)
    kwargs = {"beam": 3, "lenpen": 0.6, "max_len_a": 1.0, "max_len_b": 5,
              "side": side}
    cached = beam_search(model, src, **kwargs)
    plain = beam_search(Uncached(model), src, **kwargs)
    lengths = {len(h.tokens) for hyps in cached for h in hyps}
    assert len(lengths) > 2  # sentences finish at different steps
    for a, b in zip(cached, plain, strict=True):
        assert [h.tokens for h in a] == [h.tokens for h in b]
        assert torch.allclose(torch.tensor([h.score for h in a]),
                              torch.tensor([h.score for h in b]), atol=1e-5)


@pytest.mark.parametrize("arch", ARCHS)
def test_greedy_search_equals_the_uncached_decoder(arch):
    model = make_model(arch, seed=1)
    src, side = inputs(arch)
    cached = greedy_search(model, src, 1.0, 5, side)
    plain = greedy_search(Uncached(model), src, 1.0, 5, side)
    assert [h.tokens for h in cached] == [h.tokens for h in plain]
    assert torch.allclose(torch.tensor([h.score for h in cached]),
                          torch.tensor([h.score for h in plain]), atol=1e-5)


@pytest.mark.parametrize("arch", ARCHS)
def test_cached_beam_scores_equal_forced_scores(arch):
    model = make_model(arch, seed=2)
    src, side = inputs(arch)
    nbest = beam_search(model, src, beam=3, lenpen=0.0, max_len_a=1.0, max_len_b=5,
                        side=side)
    hyps = [(row, h) for row, row_hyps in enumerate(nbest) for h in row_hyps]
    rows = torch.tensor([row for row, _ in hyps])
    tgt_in = pad_sequences([[BOS, *h.tokens] for _, h in hyps])
    tgt_out = pad_sequences([[*h.tokens, EOS] for _, h in hyps])
    forced = forced_log_probs(model, src[rows], tgt_in, tgt_out,
                              {k: v[rows] for k, v in side.items()})
    assert torch.allclose(torch.tensor([h.score for _, h in hyps]), forced, atol=1e-5)


@pytest.mark.parametrize("arch", ["transformer", "pr_max_attn_ta"])
def test_source_side_keys_and_values_are_kept_once_per_sentence(arch):
    model = make_model(arch)
    src, side = inputs(arch)  # 5 sentences
    state, cache = model.encode(src, **side), {}
    prefix = torch.full((5 * 3, 1), BOS)  # 3 hypotheses per sentence
    model.decode_step(state, prefix, cache)
    names = ("mem_k", "phr_k") if arch != "transformer" else ("mem_k",)
    assert all(cache[j][n].size(0) == 5 for j in cache for n in names)
    assert all(cache[j]["k"].size(0) == 15 for j in cache)
    keep = torch.tensor([1, 3])  # two sentences go on, their hypotheses reordered
    order = torch.tensor([5, 3, 4, 11, 9, 9])
    state, cache = model.reorder_state(state, cache, order, keep)
    assert state["memory"].size(0) == 2 and state["memory"].equal(
        model.encode(src, **side)["memory"][keep])
    assert all(cache[j]["mem_k"].size(0) == 2 for j in cache)
    assert all(cache[j]["k"].size(0) == 6 for j in cache)
