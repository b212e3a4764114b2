"""Context-aware Transformer: context by document index, batch invariance, the
empty context, context gating, parameter names, decoding with context."""

from __future__ import annotations

import math

import pytest
import torch

from phrasenmt.data.documents import context_indices
from phrasenmt.decoding.context import (
    ContextSource,
    Search,
    score_with_context,
    translate_with_context,
)
from phrasenmt.decoding.search import beam_search, greedy_search
from phrasenmt.io import InputError
from phrasenmt.models import build_model
from phrasenmt.models.ctx_transformer import (
    VARIANTS,
    GatedResidual,
    context_gate,
)
from phrasenmt.models.transformer import TransformerConfig
from phrasenmt.nn.batching import collate
from phrasenmt.text.vocab import Vocabulary
from phrasenmt.training.data import DocContext
from phrasenmt.training.spec import resolve_spec

ARCHS = sorted(VARIANTS)
SIZES = {"d_model": 16, "d_ff": 24, "n_heads": 2, "encoder_layers": 2,
         "decoder_layers": 2, "max_positions": 64}
# make_model's θ_d starts random, so that a fresh model's output depends on its
# context (the default, identity, starts with the context branches at zero)
RANDOM_INIT = {"context_init": "random"}
# Two documents of 6 and 3 sentences (plain words: the vocabulary is tiny).
SRC = ["a b c", "d e", "f g h i", "b b", "c a e", "g f",
       "h i", "a a d", "e f"]
TGT = ["A B C", "D E", "F G H I", "B B", "C A E", "G F", "H I", "A A D", "E F"]
DOCS = ["x"] * 6 + ["y"] * 3
VOCAB = Vocabulary.build(SRC + ["z"])
TGT_VOCAB = Vocabulary.build(TGT)

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


def make_model(arch: str = "ctx_transformer", seed: int = 0, **overrides):
    """A tiny seeded context-aware Transformer in eval mode."""
    torch.manual_seed(seed)
    cfg = VARIANTS[arch](src_vocab_size=len(VOCAB), tgt_vocab_size=len(TGT_VOCAB),
                         **{**SIZES, **RANDOM_INIT, **overrides})
    return build_model(arch, cfg).eval()


def logits_of(model, src: list[str], rows: list[int], docs=DOCS) -> dict[int, torch.Tensor]:
    """Per line in `rows`, its logits when the lines `rows` form one batch; the
    context goes through the training data path (document ids -> indices)."""
    encoded = [VOCAB.encode(s) for s in src]
    ctx = DocContext(model.cfg.context_size, {"src": encoded},
                     context_indices(docs, model.cfg.context_size))
    batch = collate([encoded[i] for i in rows], [TGT_VOCAB.encode(TGT[i])
                                                 for i in rows], context=ctx.batch(rows))
    with torch.no_grad():
        out = model(batch.src, batch.tgt_in, context=batch.context)
    return {i: out[b, : len(TGT[i].split()) + 1] for b, i in enumerate(rows)}


def perturbed(j: int) -> list[str]:
    """SRC with sentence j's words replaced (same length)."""
    return [" ".join("z" for _ in s.split()) if k == j else s
            for k, s in enumerate(SRC)]


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("gating", [True, False])
def test_context_is_the_k_previous_sentences_of_the_document(arch, gating):
    model = make_model(arch, gating=gating)
    i, batch = 4, [4, 7]  # K = 2: sentence 4 reads sentences 2 and 3
    base = logits_of(model, SRC, batch)[i]
    for j in (5, 7, 1):  # later sentence, another document, i - K - 1
        assert torch.equal(logits_of(model, perturbed(j), batch)[i], base), j
    for j in (3, 2):  # i - 1, i - 2
        assert not torch.allclose(logits_of(model, perturbed(j), batch)[i], base,
                                  atol=1e-4), j


@pytest.mark.parametrize("arch", ARCHS)
def test_logits_do_not_depend_on_the_batch(arch):
    model = make_model(arch, pre_norm=arch.endswith("dec"))
    everything = logits_of(model, SRC, [8, 3, 0, 5, 1, 7, 4, 2, 6])
    for i in range(len(SRC)):
        alone = logits_of(model, SRC, [i])[i]
        others = [j for j in range(len(SRC)) if DOCS[j] != DOCS[i]]
        mixed = logits_of(model, SRC, [*others, i])[i]
        assert torch.allclose(alone, everything[i], atol=1e-5), i
        assert torch.allclose(alone, mixed, atol=1e-5), i


@pytest.mark.parametrize("arch", ARCHS)
def test_first_sentence_has_empty_context_and_equals_the_sentence_model(arch):
    model = make_model(arch)
    sentence = build_model("transformer", TransformerConfig(
        src_vocab_size=len(VOCAB), tgt_vocab_size=len(TGT_VOCAB), **SIZES)).eval()
    sentence.load_state_dict({k: v for k, v in model.state_dict().items()
                              if not model.is_document_key(k)})
    got = logits_of(model, SRC, [0, 6, 4])  # 0 and 6 open their documents
    for i in (0, 6):
        src = torch.tensor([[*VOCAB.encode(SRC[i]), 2]])
        tgt = torch.tensor([[1, *TGT_VOCAB.encode(TGT[i])]])
        with torch.no_grad():
            ref = sentence(src, tgt)[0]
        assert torch.isfinite(got[i]).all()
        assert torch.allclose(got[i], ref, atol=1e-5)


def sentence_model_of(model):
    """The Transformer holding `model`'s θ_s."""
    sentence = build_model("transformer", TransformerConfig(
        src_vocab_size=len(VOCAB), tgt_vocab_size=len(TGT_VOCAB), **SIZES)).eval()
    sentence.load_state_dict({k: v for k, v in model.state_dict().items()
                              if not model.is_document_key(k)})
    return sentence


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("gating", [True, False])
def test_identity_init_starts_as_the_sentence_model(arch, gating):
    """context_init: identity -> the context branches add exactly nothing, so the
    output does not depend on the context and, with θ_s's layer norms at their
    start (γ = 1, β = 0: LN of a normalized state is itself), equals the
    sentence-level model's; random θ_d does neither."""
    model = make_model(arch, gating=gating, context_init="identity")
    sentence = sentence_model_of(model)
    i, batch = 4, [4, 7]  # sentence 4 reads sentences 2 and 3
    got = logits_of(model, SRC, batch)[i]
    assert torch.equal(logits_of(model, perturbed(3), batch)[i], got)
    src = torch.tensor([[*VOCAB.encode(SRC[i]), 2]])
    tgt = torch.tensor([[1, *TGT_VOCAB.encode(TGT[i])]])
    with torch.no_grad():
        ref = sentence(src, tgt)[0]
    assert torch.allclose(got, ref, atol=1e-4)
    random = make_model(arch, gating=gating)  # the same θ_s, random θ_d
    assert not torch.allclose(logits_of(random, SRC, batch)[i], ref, atol=1e-2)


def test_context_init_is_checked():
    with pytest.raises(InputError, match="model.context_init"):
        make_model(context_init="zeros")


def test_empty_context_trains_without_nan():
    model = make_model(dropout=0.3, context_dropout=0.3).train()
    batch = context_batch([0, 6, 1])
    loss, nll = model.loss(batch, 0.1)
    loss.backward()
    assert math.isfinite(loss.item()) and math.isfinite(nll.item())
    assert all(torch.isfinite(p.grad).all() for p in model.parameters()
               if p.grad is not None)


def test_gate_equals_the_formula_on_a_hand_computed_example():
    w_i = torch.nn.Linear(2, 2, bias=False)
    w_s = torch.nn.Linear(2, 2, bias=False)
    w_i.weight.data = torch.tensor([[1.0, 0.0], [0.0, 2.0]])
    w_s.weight.data = torch.tensor([[0.0, 1.0], [-1.0, 0.0]])
    h, s = torch.tensor([[[1.0, -1.0]]]), torch.tensor([[[0.5, 2.0]]])
    # W_i h = (1, -2); W_s s = (2, -0.5); λ = σ(3, -2.5) = (0.952574, 0.075858)
    # λH + (1-λ)S = (0.952574 + 0.047426 * 0.5, -0.075858 + 0.924142 * 2)
    expected = torch.tensor([[[0.9762871, 1.7724254]]])
    assert torch.allclose(context_gate(h, s, w_i, w_s), expected, atol=1e-6)
    res = GatedResidual(2, dropout=0.0, pre_norm=False, gating=True).eval()
    res.gate_h.weight.data, res.gate_s.weight.data = w_i.weight.data, w_s.weight.data
    out = res(h, lambda x: s)  # post-norm: LayerNorm(Gating(H))
    assert torch.allclose(out, torch.nn.functional.layer_norm(expected, (2,)),
                          atol=1e-5)
    plain = GatedResidual(2, dropout=0.0, pre_norm=False, gating=False).eval()
    assert plain.gate_h is None
    assert torch.allclose(plain(h, lambda x: s),
                          torch.nn.functional.layer_norm(h + s, (2,)), atol=1e-5)


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("pre_norm", [False, True])
def test_sentence_parameters_have_the_transformer_names(arch, pre_norm):
    model = make_model(arch, pre_norm=pre_norm)
    plain = build_model("transformer", TransformerConfig(
        src_vocab_size=len(VOCAB), tgt_vocab_size=len(TGT_VOCAB), pre_norm=pre_norm,
        **SIZES))
    assert set(model.sentence_parameters()) == dict(plain.named_parameters()).keys()
    new = set(model.state_dict()) - set(plain.state_dict())
    assert new == set(model.document_parameters())
    assert any(k.startswith("context_encoder.") for k in new)
    assert any(k.startswith("encoder.") for k in new) == (arch != "ctx_transformer_dec")
    assert any(k.startswith("decoder.") for k in new) == (arch != "ctx_transformer_enc")
    gates = [k for k in new if "gate_" in k]
    assert gates and not [k for k in make_model(arch, gating=False).state_dict()
                          if "gate_" in k]


def context_batch(rows: list[int]):
    """A training batch of the lines `rows` with their document context."""
    encoded = [VOCAB.encode(s) for s in SRC]
    ctx = DocContext(2, {"src": encoded}, context_indices(DOCS, 2))
    batch = collate([encoded[i] for i in rows], [TGT_VOCAB.encode(TGT[i])
                                                 for i in rows], context=ctx.batch(rows))
    return batch


@pytest.mark.parametrize("arch", ARCHS)
def test_incremental_decoding_and_beam_with_context(arch):
    model = make_model(arch)
    batch = context_batch([4, 0, 8])
    extra = {"context": batch.context}
    full = torch.log_softmax(model(batch.src, batch.tgt_in, **extra), dim=-1)
    state, cache = model.encode(batch.src, **extra), {}
    for t in range(1, batch.tgt_in.size(1) + 1):
        step = model.decode_step(state, batch.tgt_in[:, :t], cache)
        assert torch.allclose(step, full[:, t - 1], atol=1e-5), t
    greedy = greedy_search(model, batch.src, side=extra)
    beam1 = beam_search(model, batch.src, beam=1, lenpen=0.0, side=extra)
    assert [h.tokens for h in greedy] == [b[0].tokens for b in beam1]
    beams = beam_search(model, batch.src, beam=3, side=extra)
    assert all(len(b) == 3 for b in beams)


def test_scoring_and_decoding_see_the_context_training_sees():
    model = make_model()
    docs = ContextSource(doc_ids=DOCS)
    # The explicit form gives up to 5 previous sentences; the model keeps 2.
    explicit = ContextSource(entries=[{"src": [SRC[j] for j in row], "tgt": []}
                                      for row in context_indices(DOCS, 5)])
    trained = logits_of(model, SRC, list(range(len(SRC))))
    for source in (docs, explicit):
        scores = score_with_context(model, VOCAB, TGT_VOCAB, SRC, TGT, source, 4)
        for i, score in enumerate(scores):
            gold = torch.tensor([*TGT_VOCAB.encode(TGT[i]), 2])
            lp = torch.log_softmax(trained[i], -1).gather(1, gold[:, None]).sum()
            assert score == pytest.approx(float(lp), abs=1e-4), i
    hyps = [translate_with_context(model, VOCAB, TGT_VOCAB, SRC, source,
                                   Search(beam=2, batch_size=3))
            for source in (docs, explicit)]
    assert hyps[0] == hyps[1] and len(hyps[0]) == len(SRC)


def test_missing_or_misshapen_context_is_an_error():
    model = make_model()
    batch = context_batch([1])
    with pytest.raises(InputError, match="reads document context"):
        model(batch.src, batch.tgt_in)
    with pytest.raises(ValueError, match="context must be"):
        model(batch.src, batch.tgt_in, context={"src": batch.context["src"][:, :1]})


def test_presets_and_model_keys():
    spec = resolve_spec({"arch": "ctx_transformer", "preset": "tiny"})
    m = spec.model
    assert (m.context_size, m.context_layers, m.gating, m.d_model) == (2, 1, True, 128)
    spec = resolve_spec({"arch": "ctx_transformer_enc", "preset": "small",
                         "model": {"gating": False, "context_size": 3}})
    assert spec.model.integration == "encoder" and not spec.model.gating
    assert spec.model.d_model == 256 and spec.model.context_size == 3
    with pytest.raises(InputError, match="model.integration"):
        make_model(integration="x")


def test_row_groups_cut_rows_sorted_by_length_into_runs():
    from phrasenmt.models.ctx_transformer import row_groups
    assert row_groups([5, 0, 3, 9, 1], 2) == [([1, 4, 2], 3), ([0, 3], 9)]
    assert row_groups([0, 0], 4) == [([0], 1), ([1], 1)]  # a run is at least 1 long
    assert row_groups([4, 2], 1) == [([1, 0], 4)]


@pytest.mark.parametrize("arch", ARCHS)
def test_context_groups_give_the_loss_and_gradients_of_one_padded_tensor(arch, monkeypatch):
    """On a CPU the context encoder runs on rows grouped by context length (and
    `loss` orders the rows first): the logits, the loss and every gradient are
    those of one padded tensor."""
    from phrasenmt.models import ctx_transformer
    encoded = [VOCAB.encode(s) for s in SRC]
    ctx = DocContext(2, {"src": encoded}, context_indices(DOCS, 2))
    rows = [8, 0, 4, 2, 6, 1, 5, 3, 7]  # context lengths in no order
    batch = collate([encoded[i] for i in rows], [TGT_VOCAB.encode(TGT[i]) for i in rows],
                    context=ctx.batch(rows))

    def run(groups: int):
        monkeypatch.setattr(ctx_transformer, "CPU_CONTEXT_GROUPS", groups)
        model = make_model(arch, context_size=2, dropout=0.0, attention_dropout=0.0,
                           activation_dropout=0.0, context_dropout=0.0).train()
        with torch.no_grad():
            logits = model(batch.src, batch.tgt_in, context=batch.context)
        loss, _ = model.loss(batch, 0.1)
        loss.backward()
        return logits, loss, {n: p.grad for n, p in model.named_parameters()
                              if p.grad is not None}

    (l1, loss1, g1), (l4, loss4, g4) = run(1), run(4)
    assert torch.allclose(l1, l4, atol=1e-5)
    assert torch.allclose(loss1, loss4, rtol=1e-5)
    assert g1.keys() == g4.keys() and any("context_encoder" in n for n in g1)
    for name in g1:
        assert torch.allclose(g1[name], g4[name], atol=1e-5), name
