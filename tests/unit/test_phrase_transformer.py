"""Phrase representations (Xu et al. 2020): pooling, TA, padding, decoding, params."""

from __future__ import annotations

import pytest
import torch

from phrasenmt.io import InputError
from phrasenmt.models import build_model, get_model_class
from phrasenmt.models.phrase_repr import PhrasePooling, Segments
from phrasenmt.models.phrase_transformer import VARIANTS
from phrasenmt.models.registry import get_preset
from phrasenmt.text.vocab import BOS, EOS, PAD
from phrasenmt.training.config import TrainConfig

ARCHS = list(VARIANTS)
D, F, H, N_ENC, N_DEC, V_SRC, V_TGT = 16, 24, 2, 2, 2, 13, 11

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


def make_model(arch: str, seed: int = 0, **overrides):
    """A tiny seeded phrase model in eval mode."""
    torch.manual_seed(seed)
    cfg = get_model_class(arch).config_class(
        src_vocab_size=V_SRC, tgt_vocab_size=V_TGT, d_model=D, d_ff=F, n_heads=H,
        encoder_layers=N_ENC, decoder_layers=N_DEC, max_positions=64, **overrides)
    return build_model(arch, cfg).eval()


def batch(seed: int = 1):
    """src (2, 8) with its phrases (pad and </s> = -1) and tgt_in (2, 5)."""
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(4, V_SRC, (2, 8), generator=g)
    src[0, 7] = EOS
    src[1, 4], src[1, 5:] = EOS, PAD
    phrases = torch.tensor([[0, 0, 0, 1, 1, 2, 2, -1], [0, 1, 1, 1, -1, -1, -1, -1]])
    tgt = torch.randint(4, V_TGT, (2, 5), generator=g)
    tgt[:, 0] = BOS
    return src, phrases, tgt


def test_segments_count_tokens_per_phrase():
    seg = Segments.build(torch.tensor([[0, 0, 1, -1], [0, -1, -1, -1]]))
    assert seg.n_phrases == 2
    assert seg.counts.tolist() == [[2, 1], [1, 0]]
    assert seg.phrase_mask().view(2, 2).tolist() == [[True, True], [True, False]]


def test_mean_and_max_glance_per_phrase():
    x = torch.tensor([[[1.0], [3.0], [-5.0], [100.0]]])  # last token is padding
    seg = Segments.build(torch.tensor([[0, 0, 1, -1]]))
    mean = PhrasePooling(1, "mean", False, 1)(x, seg)
    top = PhrasePooling(1, "max", False, 1)(x, seg)
    assert mean.view(-1).tolist() == [2.0, -5.0]
    assert top.view(-1).tolist() == [3.0, -5.0]  # the negative max is not clipped at 0


def test_attention_weights_sum_to_one_per_phrase_and_ignore_padding():
    torch.manual_seed(0)
    pool = PhrasePooling(D, "max", True, D)
    phrases = torch.tensor([[0, 0, 0, 1, 1, 2, -1, -1], [0, 1, 1, -1, -1, -1, -1, -1]])
    seg = Segments.build(phrases)
    x = torch.randn(2, 8, D)
    p = pool.token_weights(x, pool.glance_buckets(x, seg), seg)  # (B, S)
    assert torch.all(p[phrases < 0] == 0)
    sums = seg.to_phrases(seg.segment_sum(p[..., None]), 2).squeeze(-1)
    assert torch.allclose(sums[seg.counts > 0], torch.ones(5))
    assert not torch.allclose(p[0, :3], torch.full((3,), 1 / 3))  # not uniform


def test_transparent_attention_is_a_softmax_per_decoder_layer():
    model = make_model("pr_max_attn_ta")
    ta = model.encoder.ta
    assert ta.weights.shape == (N_DEC, N_ENC + 1)
    with torch.no_grad():
        ta.weights.copy_(torch.randn(N_DEC, N_ENC + 1))
    probs = ta.probabilities()
    assert torch.allclose(probs.sum(-1), torch.ones(N_DEC))
    assert torch.allclose(probs, torch.softmax(ta.weights, dim=-1))
    levels = [torch.randn(2, 3, D) for _ in range(N_ENC + 1)]
    mixed = ta(levels)  # (B, J, P, C)
    expected = sum(probs[1, i] * levels[i] for i in range(N_ENC + 1))
    assert torch.allclose(mixed[:, 1], expected, atol=1e-6)


def expected_params(arch: str) -> int:
    """Hand count: the Transformer plus attentive combination, pooling and TA."""
    attn, norm = 4 * D * D + 4 * D, 2 * D
    ffn = D * F + F + F * D + D
    base = (V_SRC * D + V_TGT * D + D * V_TGT + N_ENC * (attn + ffn + 2 * norm)
            + N_DEC * (2 * attn + ffn + 3 * norm))
    combine = attn + (2 * D * D + D) + (D * D + D) + norm  # MHA, W3, W4, layer norm
    total = base + (N_ENC + N_DEC) * combine
    if "attn" in arch:  # W1 (2D -> D), W2 (D -> 1) at the d+1 levels
        total += (N_ENC + 1) * ((2 * D * D + D) + (D + 1))
    if "ta" in arch:  # one weight per (decoder layer, encoder level)
        total += N_DEC * (N_ENC + 1)
    return total


@pytest.mark.parametrize("arch", ARCHS)
def test_parameter_count_matches_hand_computation(arch):
    assert make_model(arch).num_parameters() == expected_params(arch)


@pytest.mark.parametrize("arch", ARCHS)
def test_padding_never_changes_outputs(arch):
    model = make_model(arch)
    src, phrases, tgt = batch()
    alone = model(src[1:, :5], tgt[1:], phrases=phrases[1:, :5])
    together = model(src, tgt, phrases=phrases)  # a longer sentence, more phrases
    assert torch.allclose(alone[0], together[1], atol=1e-5)
    wider = model(torch.cat([src, torch.full((2, 3), PAD)], dim=1), tgt,
                  phrases=torch.cat([phrases, torch.full((2, 3), -1)], dim=1))
    assert torch.allclose(wider, together, atol=1e-5)  # extra padding columns


@pytest.mark.parametrize("arch", ARCHS)
def test_phrases_matter(arch):
    model = make_model(arch)
    src, phrases, tgt = batch()
    other = phrases.clone()
    other[0, :7] = torch.tensor([0, 1, 2, 3, 4, 5, 6])
    assert not torch.allclose(model(src, tgt, phrases=phrases)[0],
                              model(src, tgt, phrases=other)[0])


@pytest.mark.parametrize("arch", ["pr_mean", "pr_max_attn_ta"])
@pytest.mark.parametrize("pre_norm", [False, True])
def test_incremental_decoding_equals_full_forward(arch, pre_norm):
    model = make_model(arch, pre_norm=pre_norm)
    src, phrases, tgt = batch()
    full = torch.log_softmax(model(src, tgt, phrases=phrases), dim=-1)
    state, cache = model.encode(src, phrases=phrases), {}
    order = torch.tensor([1, 0, 1])
    state, cache = model.reorder_state(state, cache, order)
    for t in range(1, tgt.size(1) + 1):
        step = model.decode_step(state, tgt[order, :t], cache)
        assert torch.allclose(step, full[order, t - 1], atol=1e-5), t
        perm = torch.tensor([2, 0, 1])  # beam search reorders after every step
        state, cache = model.reorder_state(state, cache, perm)
        order = order[perm]
    assert "phrase_memory" not in state  # dropped once the phrases are cached


def test_missing_phrases_is_a_clear_error():
    src, _, tgt = batch()
    with pytest.raises(InputError, match="side input 'phrases'"):
        make_model("pr_max")(src, tgt)


def test_bad_glance_is_a_config_error():
    with pytest.raises(InputError, match="model.glance"):
        make_model("pr_max", glance="median")


def test_variants_differ_only_in_defaults_and_share_presets():
    assert {a: (c.glance, c.attentive, c.transparent, c.segmentation)
            for a, c in ((a, VARIANTS[a]()) for a in ARCHS)} == {
        "pr_mean": ("mean", False, False, "ngram"),
        "pr_max": ("max", False, False, "ngram"),
        "pr_max_attn": ("max", True, False, "ngram"),
        "pr_max_attn_ta": ("max", True, True, "ngram"),
        "pr_max_attn_ta_parse": ("max", True, True, "parse")}
    for arch in ARCHS:
        for size in ("tiny", "base", "big"):
            cfg, tcfg = VARIANTS[arch](), TrainConfig()
            get_preset(arch, size)(cfg, tcfg)
            assert cfg.d_model in (128, 512, 1024)


def test_loss_falls_on_a_tiny_copy_task():
    torch.manual_seed(0)
    model = make_model("pr_max_attn_ta").train()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(0)
    src = torch.randint(4, V_TGT, (16, 6), generator=g)
    phrases = torch.tensor([0, 0, 0, 1, 1, -1]).repeat(16, 1)
    src[:, -1] = EOS
    tgt_in = torch.cat([torch.full((16, 1), BOS), src[:, :-1]], dim=1)
    losses = []
    for _ in range(100):
        logits = model(src, tgt_in, phrases=phrases)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, V_TGT),
                                                 src.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]
