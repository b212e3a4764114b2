"""Transformer: shapes, masks, padding invariance, incremental decoding, registry."""

from __future__ import annotations

import pytest
import torch

from phrasenmt.io import InputError
from phrasenmt.models import build_model
from phrasenmt.models.registry import apply_overrides, get_model_class, get_preset
from phrasenmt.models.transformer import TransformerConfig
from phrasenmt.text.vocab import BOS, EOS, PAD
from phrasenmt.training.config import TrainConfig
from phrasenmt.training.spec import load_spec, resolve_spec

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


def make_model(pre_norm: bool = False, share: bool = False, seed: int = 0):
    """A tiny seeded Transformer in eval mode."""
    torch.manual_seed(seed)
    cfg = TransformerConfig(src_vocab_size=13, tgt_vocab_size=11, d_model=16, d_ff=24,
                            n_heads=2, encoder_layers=2, decoder_layers=2,
                            pre_norm=pre_norm, share_decoder_embeddings=share,
                            max_positions=64)
    return build_model("transformer", cfg).eval()


def batch(seed: int = 1):
    """Right-padded src (3, 6) and tgt_in (3, 5) with different lengths."""
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(4, 13, (3, 6), generator=g)
    src[:, -1] = EOS
    src[1, 3:] = PAD
    src[1, 3] = EOS
    src[2, 5:] = PAD
    src[2, 4] = EOS
    tgt = torch.randint(4, 11, (3, 5), generator=g)
    tgt[:, 0] = BOS
    tgt[2, 3:] = PAD
    return src, tgt


def pad_right(x: torch.Tensor, extra: int) -> torch.Tensor:
    return torch.cat([x, torch.full((x.size(0), extra), PAD)], dim=1)


def test_shapes_and_log_probs():
    model = make_model()
    src, tgt = batch()
    assert model(src, tgt).shape == (3, 5, 11)
    state = model.encode(src)
    assert state["memory"].shape == (3, 6, 16)
    assert state["src_mask"].shape == (3, 1, 1, 6)
    lp = model.decode_step(state, tgt[:, :1], {})
    assert lp.shape == (3, 11)
    assert torch.allclose(lp.exp().sum(-1), torch.ones(3), atol=1e-5)


@pytest.mark.parametrize("pre_norm", [False, True])
def test_padding_changes_nothing(pre_norm):
    model = make_model(pre_norm)
    src, tgt = batch()
    real = src.ne(PAD)
    mem = model.encode(src)["memory"]
    mem_padded = model.encode(pad_right(src, 4))["memory"][:, :6]
    assert torch.allclose(mem[real], mem_padded[real], atol=1e-6)
    logits = model(src, tgt)
    logits_padded = model(pad_right(src, 4), pad_right(tgt, 3))[:, :5]
    real_t = tgt.ne(PAD)
    assert torch.allclose(logits[real_t], logits_padded[real_t], atol=1e-5)


def test_pad_content_is_ignored_but_real_tokens_matter():
    model = make_model()
    src, tgt = batch()
    base = model(src, tgt)
    changed = src.clone()
    changed[1, 0] = 4 if src[1, 0] != 4 else 5  # a real token of sentence 1
    out = model(changed, tgt)
    assert not torch.allclose(out[1], base[1])  # masks must not hide real tokens
    assert torch.allclose(out[0], base[0]) and torch.allclose(out[2], base[2])


def test_decoder_is_causal():
    model = make_model()
    src, tgt = batch()
    changed = tgt.clone()
    changed[:, 3] = 4 if int(tgt[0, 3]) != 4 else 5
    a, b = model(src, tgt), model(src, changed)
    assert torch.allclose(a[:, :3], b[:, :3], atol=1e-6)
    assert not torch.allclose(a[0, 3:], b[0, 3:])


@pytest.mark.parametrize("pre_norm", [False, True])
def test_incremental_decoding_equals_full_forward(pre_norm):
    model = make_model(pre_norm)
    src, tgt = batch()
    full = torch.log_softmax(model(src, tgt), dim=-1)  # (B, T, V)
    state, cache = model.encode(src), {}
    for t in range(1, tgt.size(1) + 1):
        step = model.decode_step(state, tgt[:, :t], cache)
        assert torch.allclose(step, full[:, t - 1], atol=1e-5), t


def test_reorder_state_selects_rows():
    model = make_model()
    src, tgt = batch()
    state, cache = model.encode(src), {}
    model.decode_step(state, tgt[:, :1], cache)
    order = torch.tensor([2, 2, 0])
    state2, cache2 = model.reorder_state(state, cache, order)
    lp = model.decode_step(state2, tgt[order, :2], cache2)
    full = torch.log_softmax(model(src[order], tgt[order, :2]), dim=-1)[:, 1]
    assert torch.allclose(lp, full, atol=1e-5)


def expected_params(v_src: int, v_tgt: int, d: int, f: int, n_enc: int, n_dec: int,
                    share: bool) -> int:
    """Hand count: embeddings, attention (W + b), FFN, layer norms, output."""
    attn = 4 * d * d + 4 * d
    ffn = d * f + f + f * d + d
    norm = 2 * d
    enc_layer = attn + ffn + 2 * norm
    dec_layer = 2 * attn + ffn + 3 * norm
    out = 0 if share else d * v_tgt
    return v_src * d + v_tgt * d + n_enc * enc_layer + n_dec * dec_layer + out


@pytest.mark.parametrize("share", [False, True])
def test_parameter_count_matches_hand_computation(share):
    model = make_model(share=share)
    assert model.num_parameters() == expected_params(13, 11, 16, 24, 2, 2, share)


def test_pre_norm_adds_final_norms():
    assert (make_model(pre_norm=True).num_parameters()
            == make_model().num_parameters() + 2 * 2 * 16)


def test_presets_set_defaults_and_overrides_win():
    cfg, train = TransformerConfig(), TrainConfig()
    get_preset("transformer", "base")(cfg, train)
    assert (cfg.d_model, cfg.d_ff, cfg.n_heads, cfg.encoder_layers) == (512, 2048, 8, 6)
    assert train.average_last == 5 and train.label_smoothing == 0.1
    spec = resolve_spec({"arch": "transformer", "preset": "big",
                         "model": {"dropout": 0.1}, "train": {"max_steps": 7}})
    assert spec.model.d_model == 1024 and spec.model.dropout == 0.1
    assert spec.train.max_steps == 7 and spec.train.average_last == 20


@pytest.mark.parametrize("raw, key", [
    ({"arch": "nope"}, "nope"),
    ({"preset": "huge"}, "huge"),
    ({"model": {"d_modle": 3}}, "model.d_modle"),
    ({"train": {"lr": "fast"}}, "train.lr"),
    ({"optimizer": {}}, "optimizer"),
])
def test_bad_spec_names_the_key(raw, key):
    with pytest.raises(InputError, match=key.replace(".", r"\.")):
        resolve_spec(raw, "spec.json")


def test_spec_from_yaml_file(tmp_path):
    path = tmp_path / "spec.yaml"
    path.write_text("arch: transformer\npreset: small\nmodel:\n  d_model: 64\n")
    spec = resolve_spec(*load_spec(str(path)))
    assert spec.model.d_model == 64 and spec.model.encoder_layers == 3
    with pytest.raises(InputError, match="not a file"):
        load_spec(str(tmp_path / "missing.yaml"))


def test_registry_lookup_and_type_checks():
    assert get_model_class("transformer").config_class is TransformerConfig
    with pytest.raises(InputError, match="expected bool"):
        apply_overrides(TransformerConfig(), {"pre_norm": 1}, "model")
