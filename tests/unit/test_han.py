"""HAN (Miculicich et al. 2018): the equations by hand, context by document
index, batch invariance, caching in decoding, decoding from the model's own
translations, the HAN step's frozen θ_s, and the joint model's initialisation."""

from __future__ import annotations

import math

import pytest
import torch

from phrasenmt.average import average_checkpoints
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
from phrasenmt.models.han import (
    VARIANTS,
    HanConfig,
    HierarchicalAttention,
    shift_right,
)
from phrasenmt.models.transformer import TransformerConfig
from phrasenmt.nn.batching import collate
from phrasenmt.text.vocab import EOS, PAD, Vocabulary
from phrasenmt.training.checkpoint import load_file, save_file
from phrasenmt.training.data import DocContext
from phrasenmt.training.spec import resolve_spec
from tests.unit.test_two_step import trainer, write_corpus

ARCHS = sorted(VARIANTS)
TARGET_ARCHS = [a for a in ARCHS if "tgt" in VARIANTS[a].context_sides]
SIZES = {"d_model": 16, "d_ff": 24, "n_heads": 2, "encoder_layers": 1,
         "decoder_layers": 2, "max_positions": 64}
# make_model's θ_d starts random, so that a fresh model's output depends on its
# context (the default, identity, starts with the context branches at zero)
RANDOM_INIT = {"context_init": "random"}
# Two documents of 7 and 3 sentences; K = 3 (the default).
SRC = ["a b c", "d e", "f g h i", "b b", "c a e", "g f", "h i a", "a a d", "e f",
       "d c"]
TGT = [s.upper() for s in SRC]
DOCS = ["x"] * 7 + ["y"] * 3
VOCAB = Vocabulary.build(SRC + ["z"])
TGT_VOCAB = Vocabulary.build(TGT + ["Z"])

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


def make_model(arch: str, seed: int = 0, **overrides):
    """A tiny seeded HAN model in eval mode."""
    torch.manual_seed(seed)
    cfg = HanConfig(src_vocab_size=len(VOCAB), tgt_vocab_size=len(TGT_VOCAB),
                    **{**SIZES, **RANDOM_INIT, **overrides})
    return build_model(arch, cfg).eval()


# -- the equations -------------------------------------------------------------

def set_weights(linear: torch.nn.Linear, weight: list, bias: list | None = None):
    linear.weight.data = torch.tensor(weight, dtype=torch.float32)
    if linear.bias is not None:
        linear.bias.data = torch.tensor(bias or [0.0] * len(weight))


def test_han_equals_the_equations_on_numbers_by_hand():
    """C = 2, one head; f_w = f_s = 0 make both attentions uniform, every other
    map the identity, so the slides' equations can be followed on paper."""
    han = HierarchicalAttention(HanConfig(d_model=2, n_heads=1, d_ff=2,
                                          reference_norms=False,
                                          context_dropout=0.0)).eval()
    eye, zero = [[1.0, 0.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]]
    for attn in (han.word_attn, han.sent_attn):
        set_weights(attn.q_proj, eye)
        set_weights(attn.kv_proj, eye + eye)
        set_weights(attn.out_proj, eye)
    for linear, weight in ((han.f_w, zero), (han.f_s, zero), (han.ffn.fc1, eye),
                           (han.ffn.fc2, eye), (han.gate_h, eye), (han.gate_d, eye)):
        set_weights(linear, weight)
    h = torch.tensor([[[1.0, -1.0]]])  # (B=1, T=1, C=2)
    pad = [100.0, 100.0]  # padding states must not count
    states = torch.tensor([[[[2.0, 0.0], [0.0, 2.0]],  # h^1: mean (1, 1)
                            [[3.0, -1.0], pad],  # h^2: mean (3, -1)
                            [pad, pad]]])  # no third sentence
    real = torch.tensor([[[True, True], [True, False], [False, False]]])
    # s^1 = (1, 1), s^2 = (3, -1); sentence level: mean (2, 0); FFN: relu -> (2, 0)
    # λ = σ(h + d) = σ(3, -1) = (0.952574, 0.268941)
    # out = λh + (1 − λ)d = (0.952574 + 0.047426 * 2, -0.268941 + 0)
    expected = torch.tensor([[[1.0474259, -0.2689414]]])
    with torch.no_grad():
        out = han(h, han.memory(states, real))
    assert torch.allclose(out, expected, atol=1e-6)
    real[:] = False  # no context at all: h passes unchanged
    with torch.no_grad():
        assert torch.equal(han(h, han.memory(states, real)), h)


def multihead_by_hand(attn, query: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    """MultiHead(q, K) for one query (C,) over keys (N, C), head by head."""
    C, H = query.numel(), attn.n_heads
    q = attn.q_proj.weight @ query + attn.q_proj.bias
    kv = keys @ attn.kv_proj.weight.T + attn.kv_proj.bias  # (N, 2C): keys, values
    heads = []
    for a in range(H):
        cols = slice(a * C // H, (a + 1) * C // H)
        weights = torch.softmax(kv[:, cols] @ q[cols] / math.sqrt(C // H), dim=0)
        heads.append(weights @ kv[:, C:][:, cols])
    return attn.out_proj.weight @ torch.cat(heads) + attn.out_proj.bias


def han_by_hand(han, h: torch.Tensor, states: torch.Tensor, real: torch.Tensor):
    """The slides' equations one position and one sentence at a time."""
    out = torch.empty_like(h)
    for b in range(h.size(0)):
        sentences = [states[b, j][real[b, j]] for j in range(states.size(1))
                     if real[b, j].any()]
        for t in range(h.size(1)):
            ht = h[b, t]
            if not sentences:
                out[b, t] = ht
                continue
            q_w = han.f_w.weight @ ht + han.f_w.bias
            s = torch.stack([multihead_by_hand(han.word_attn, q_w, hj)
                             for hj in sentences])  # (K', C)
            q_s = han.f_s.weight @ ht + han.f_s.bias
            m = multihead_by_hand(han.sent_attn, q_s, s)
            d = han.ffn.fc2(torch.relu(han.ffn.fc1(m)))
            lam = torch.sigmoid(han.gate_h.weight @ ht + han.gate_d.weight @ d)
            out[b, t] = lam * ht + (1 - lam) * d
    return out


def test_han_equals_the_equations_computed_by_hand():
    torch.manual_seed(3)
    han = HierarchicalAttention(HanConfig(d_model=8, n_heads=2, d_ff=12,
                                          reference_norms=False)).eval()
    for p in han.parameters():  # biases too, so a lost bias would show
        torch.nn.init.normal_(p, std=0.5)
    h = torch.randn(3, 4, 8)  # (B, T, C)
    states = torch.randn(3, 3, 5, 8)  # (B, K, Lc, C)
    real = torch.zeros(3, 3, 5, dtype=torch.bool)
    real[0, 0, :2] = real[0, 1, :5] = real[0, 2, :1] = True  # all three sentences
    real[1, 2, :3] = True  # only the previous sentence
    # row 2: no context (a document's first sentence)
    with torch.no_grad():
        got = han(h, han.memory(states, real))
        assert torch.allclose(got, han_by_hand(han, h, states, real), atol=1e-5)
        assert torch.equal(got[2], h[2])


def test_shift_right_gives_one_state_per_target_token():
    ids = torch.tensor([[7, 8, EOS, PAD], [9, EOS, PAD, PAD], [PAD] * 4])
    assert shift_right(ids).tolist() == [[1, 7, 8, PAD], [1, 9, PAD, PAD], [PAD] * 4]


# -- context by document index ---------------------------------------------------

def logits_of(model, src: list[str], tgt: list[str], rows: list[int],
              docs=DOCS) -> dict[int, torch.Tensor]:
    """Per line in `rows`, its logits when the lines `rows` form one batch; the
    context goes through the training data path (document ids -> indices)."""
    lines = {"src": [VOCAB.encode(s) for s in src],
             "tgt": [TGT_VOCAB.encode(t) for t in tgt]}
    size = model.cfg.context_size
    ctx = DocContext(size, {s: lines[s] for s in model.context_sides},
                     context_indices(docs, size))
    batch = collate([lines["src"][i] for i in rows], [lines["tgt"][i] for i in rows],
                    context=ctx.batch(rows))
    with torch.no_grad():
        out = model(batch.src, batch.tgt_in, context=batch.context)
    return {i: out[b, : len(tgt[i].split()) + 1] for b, i in enumerate(rows)}


def perturbed(j: int, sides=("src", "tgt")) -> tuple[list[str], list[str]]:
    """SRC, TGT with sentence j's words replaced on `sides` (same length)."""
    def noise(lines: list[str], word: str) -> list[str]:
        return [" ".join(word for _ in s.split()) if k == j else s
                for k, s in enumerate(lines)]
    return (noise(SRC, "z") if "src" in sides else SRC,
            noise(TGT, "Z") if "tgt" in sides else TGT)


@pytest.mark.parametrize("arch", ARCHS)
def test_context_is_the_k_previous_sentences_of_the_document(arch):
    model = make_model(arch)
    i, batch = 5, [5, 8]  # K = 3: sentence 5 reads sentences 2, 3, 4
    base = logits_of(model, SRC, TGT, batch)[i]
    for j in (1, 6, 8):  # i - K - 1, a later sentence, another document
        assert torch.equal(logits_of(model, *perturbed(j), batch)[i], base), j
    for j in (4, 2):  # i - 1, i - K
        assert not torch.allclose(logits_of(model, *perturbed(j), batch)[i], base,
                                  atol=1e-4), j


@pytest.mark.parametrize("arch", TARGET_ARCHS)
def test_decoder_variants_read_the_target_side_of_the_context(arch):
    model = make_model(arch)
    i, batch = 5, [5, 8]
    base = logits_of(model, SRC, TGT, batch)[i]
    assert torch.equal(logits_of(model, *perturbed(1, ["tgt"]), batch)[i], base)
    assert not torch.allclose(logits_of(model, *perturbed(4, ["tgt"]), batch)[i],
                              base, atol=1e-4)


@pytest.mark.parametrize("arch", ARCHS)
def test_logits_do_not_depend_on_the_batch(arch):
    model = make_model(arch, pre_norm=arch == "han_dec")
    everything = logits_of(model, SRC, TGT, [8, 3, 0, 5, 1, 9, 7, 4, 2, 6])
    for i in range(len(SRC)):
        alone = logits_of(model, SRC, TGT, [i])[i]
        others = [j for j in range(len(SRC)) if DOCS[j] != DOCS[i]]
        mixed = logits_of(model, SRC, TGT, [*others, i])[i]
        assert torch.allclose(alone, everything[i], atol=1e-5), i
        assert torch.allclose(alone, mixed, atol=1e-5), i


@pytest.mark.parametrize("arch", ARCHS)
def test_first_sentence_equals_the_sentence_model(arch):
    model = make_model(arch)
    sentence = build_model("transformer", TransformerConfig(
        src_vocab_size=len(VOCAB), tgt_vocab_size=len(TGT_VOCAB), **SIZES)).eval()
    sentence.load_state_dict({k: v for k, v in model.state_dict().items()
                              if not model.is_document_key(k)})
    got = logits_of(model, SRC, TGT, [0, 7, 4])  # 0 and 7 open their documents
    for i in (0, 7):
        src = torch.tensor([[*VOCAB.encode(SRC[i]), EOS]])
        tgt = torch.tensor([[1, *TGT_VOCAB.encode(TGT[i])]])
        with torch.no_grad():
            assert torch.allclose(got[i], sentence(src, tgt)[0], atol=1e-5)


@pytest.mark.parametrize("arch", ARCHS)
def test_identity_init_starts_as_the_sentence_model(arch):
    """context_init: identity -> d_t = 0 and λ = 1/2: the output does not depend
    on the context and, with θ_s's layer norms at their start (LN of a normalized
    state is itself), equals the sentence-level model's; random θ_d does neither."""
    model = make_model(arch, context_init="identity")
    sentence = build_model("transformer", TransformerConfig(
        src_vocab_size=len(VOCAB), tgt_vocab_size=len(TGT_VOCAB), **SIZES)).eval()
    sentence.load_state_dict({k: v for k, v in model.state_dict().items()
                              if not model.is_document_key(k)})
    i, batch = 5, [5, 8]  # sentence 5 reads sentences 2, 3, 4
    got = logits_of(model, SRC, TGT, batch)[i]
    assert torch.equal(logits_of(model, *perturbed(4), batch)[i], got)
    src = torch.tensor([[*VOCAB.encode(SRC[i]), EOS]])
    tgt = torch.tensor([[1, *TGT_VOCAB.encode(TGT[i])]])
    with torch.no_grad():
        ref = sentence(src, tgt)[0]
    assert torch.allclose(got, ref, atol=1e-4)
    random = make_model(arch)  # the same θ_s, random θ_d
    assert not torch.allclose(logits_of(random, SRC, TGT, batch)[i], ref, atol=1e-2)


# -- decoding --------------------------------------------------------------------

def context_batch(model, rows: list[int]):
    """A batch of the lines `rows` with their document context."""
    lines = {"src": [VOCAB.encode(s) for s in SRC],
             "tgt": [TGT_VOCAB.encode(t) for t in TGT]}
    size = model.cfg.context_size
    ctx = DocContext(size, {s: lines[s] for s in model.context_sides},
                     context_indices(DOCS, size))
    return collate([lines["src"][i] for i in rows], [lines["tgt"][i] for i in rows],
                   context=ctx.batch(rows))


@pytest.mark.parametrize("arch", ARCHS)
def test_incremental_decoding_reuses_the_cached_context(arch):
    model = make_model(arch)
    batch = context_batch(model, [5, 0, 9])
    extra = {"context": batch.context}
    full = torch.log_softmax(model(batch.src, batch.tgt_in, **extra), dim=-1)
    state, cache = model.encode(batch.src, **extra), {}
    assert ("han_dec.k" in state) == (arch in TARGET_ARCHS)
    for t in range(1, batch.tgt_in.size(1) + 1):
        step = model.decode_step(state, batch.tgt_in[:, :t], cache)
        assert torch.allclose(step, full[:, t - 1], atol=1e-5), t
    greedy = greedy_search(model, batch.src, side=extra)
    beam1 = beam_search(model, batch.src, beam=1, lenpen=0.0, side=extra)
    assert [h.tokens for h in greedy] == [b[0].tokens for b in beam1]
    beams = beam_search(model, batch.src, beam=3, lenpen=0.0, side=extra)
    for row, hyps in enumerate(beams):  # beam scores = forced scores: reordering ok
        for hyp in hyps:
            tgt = torch.tensor([[1, *hyp.tokens]])
            with torch.no_grad():
                lp = torch.log_softmax(model(batch.src[row: row + 1], tgt, context={
                    k: v[row: row + 1] for k, v in batch.context.items()}), dim=-1)
            gold = torch.tensor([*hyp.tokens, EOS])
            assert hyp.score == pytest.approx(float(lp[0].gather(
                1, gold[:, None]).sum()), abs=1e-4)


@pytest.mark.parametrize("arch", TARGET_ARCHS)
def test_decoding_reads_its_own_translations_never_the_references(arch):
    model = make_model(arch, seed=1)
    size, seen = model.cfg.context_size, {}
    encode = model.encode

    def recording_encode(src, context=None, **side):  # what the model is given
        for b, row in enumerate(src.tolist()):
            seen[tuple(t for t in row if t not in (PAD, EOS))] = [
                [t for t in s if t not in (PAD, EOS)]
                for s in context["tgt"][b].tolist() if s[0] != PAD]
        return encode(src, context, **side)

    model.encode = recording_encode
    search = Search(beam=2, batch_size=3)
    hyps = translate_with_context(model, VOCAB, TGT_VOCAB, SRC,
                                  ContextSource(doc_ids=DOCS), search)
    indices = context_indices(DOCS, size)
    for i, row in enumerate(indices):
        own = [TGT_VOCAB.encode(hyps[j]) for j in row]
        assert seen[tuple(VOCAB.encode(SRC[i]))] == own, i
    assert any(hyps[j] != TGT[j] for row in indices for j in row)

    def explicit(targets: list[str]) -> ContextSource:
        return ContextSource(entries=[{"src": [SRC[j] for j in row],
                                       "tgt": [targets[j] for j in row]}
                                      for row in indices])
    # Decoding document by document from its own translations is what --docs does;
    noise = [" ".join("Z" for _ in t.split()) for t in TGT]
    assert translate_with_context(model, VOCAB, TGT_VOCAB, SRC, explicit(hyps),
                                  search) == hyps
    # and the model does read its target context: references and noise in that
    # place give other scores, so a decoder fed references would have shown.
    refs, noisy = (score_with_context(model, VOCAB, TGT_VOCAB, SRC, TGT,
                                      explicit(t)) for t in (TGT, noise))
    assert refs[0] == pytest.approx(noisy[0]) and refs[7] == pytest.approx(noisy[7])
    assert all(abs(a - b) > 1e-4 for k, (a, b) in enumerate(zip(refs, noisy))
               if indices[k])


# -- parameters, gradients, configuration ------------------------------------------

@pytest.mark.parametrize("arch", ARCHS)
def test_sentence_parameters_have_the_transformer_names(arch):
    model = make_model(arch)
    plain = build_model("transformer", TransformerConfig(
        src_vocab_size=len(VOCAB), tgt_vocab_size=len(TGT_VOCAB), **SIZES))
    assert set(model.sentence_parameters()) == dict(plain.named_parameters()).keys()
    new = set(model.state_dict()) - set(plain.state_dict())
    assert new == set(model.document_parameters())
    expected = {"han_enc": {"han_encoder"}, "han_dec": {"han_decoder"},
                "han_enc_dec": {"han_encoder", "han_decoder"}}[arch]
    assert {k.split(".")[0] for k in new} == expected


def test_detach_context_stops_gradients_at_the_context_states():
    grads = {}
    for detach in (False, True):
        model = make_model("han_enc_dec", detach_context=detach, dropout=0.0)
        model.loss(context_batch(model, [5, 9, 2]), 0.1)[0].backward()
        grads[detach] = {n: p.grad.clone() for n, p in model.named_parameters()}
    # The decoder's own gradients do not pass through the context states ...
    out = "decoder.output.weight"
    assert torch.allclose(grads[False][out], grads[True][out], atol=1e-6)
    # ... the encoder's do (it encodes the context sentences, too).
    emb = "encoder.embed.tokens.weight"
    assert not torch.allclose(grads[False][emb], grads[True][emb], atol=1e-6)


@pytest.mark.parametrize("arch", ARCHS)
def test_loss_is_the_fused_output_layer_and_equals_the_logits_path(arch, monkeypatch):
    """Training goes through the fused output layer + loss over the HAN
    decoder's output (`Transformer.loss` with the model's `features`), and its
    sums and gradients are those of the logits path (`sequence_loss` on
    `model(...)`), with θ_s frozen as in step 2 and with every weight training."""
    from phrasenmt.models import transformer as transformer_module
    from phrasenmt.nn.loss import sequence_loss
    fused = []
    real = transformer_module.linear_sequence_loss
    monkeypatch.setattr(transformer_module, "linear_sequence_loss",
                        lambda *a, **k: fused.append(1) or real(*a, **k))
    for frozen in (True, False):
        model = make_model(arch, dropout=0.0, context_dropout=0.0).train()
        for name, p in model.named_parameters():
            p.requires_grad_(not frozen or model.is_document_key(name))
        batch = context_batch(model, [5, 0, 9])
        got = model.loss(batch, 0.1)
        got[0].backward()
        got_grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
        model.zero_grad(set_to_none=True)
        want = sequence_loss(model(batch.src, batch.tgt_in, context=batch.context),
                             batch.tgt_out, 0.1)
        want[0].backward()
        want_grads = {n: p.grad for n, p in model.named_parameters() if p.grad is not None}
        assert torch.allclose(got[0], want[0], rtol=1e-5)
        assert torch.allclose(got[1], want[1], rtol=1e-5)
        assert got_grads.keys() == want_grads.keys() and got_grads
        for name, g in got_grads.items():
            assert torch.allclose(g, want_grads[name], atol=1e-5), name
    assert len(fused) == 2


def test_presets_and_bad_context():
    spec = resolve_spec({"arch": "han_enc_dec", "preset": "small"})
    assert (spec.model.context_size, spec.model.d_model) == (3, 256)
    spec = resolve_spec({"arch": "han_dec", "model": {"context_size": 7}})
    assert spec.model.context_size == 7
    with pytest.raises(InputError, match="model.context_size"):
        make_model("han_enc", context_size=0)
    model = make_model("han_dec")
    batch = context_batch(model, [3])
    with pytest.raises(InputError, match="reads document context"):
        model(batch.src, batch.tgt_in, context={"src": batch.context["src"]})
    with pytest.raises(ValueError, match=r"context\['tgt'\] must be"):
        model(batch.src, batch.tgt_in, context={
            "src": batch.context["src"], "tgt": batch.context["tgt"][:, :1]})
    orphan = {"src": batch.context["src"].clone(), "tgt": batch.context["tgt"]}
    orphan["src"][:, 0] = PAD  # a target sentence without its source
    with pytest.raises(InputError, match="has no source sentence"):
        model(batch.src, batch.tgt_in, context=orphan)


# -- training steps ----------------------------------------------------------------

@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The corpus, step 1's averaged Transformer and the HAN-encoder step's."""
    root = tmp_path_factory.mktemp("han")
    paths = write_corpus(root)
    files = {}
    for name, arch, init in (("step1", "transformer", None),
                             ("han_enc", "han_enc", "step1")):
        trainer(arch, paths, root / name, 3, init and files[init]).run()
        files[name] = root / name / "averaged.pt"
        ckpts = sorted((root / name / "checkpoints").glob("checkpoint_*.pt"))
        save_file(average_checkpoints(ckpts), files[name])
    return paths, files


@pytest.mark.parametrize("arch", ["han_enc", "han_dec"])
def test_han_step_keeps_the_sentence_parameters(runs, tmp_path, arch):
    paths, files = runs
    step1 = load_file(files["step1"])["model"]
    t = trainer(arch, paths, tmp_path, 3, files["step1"])
    theta_d = t.model.document_parameters()
    start = {n: p.detach().clone() for n, p in theta_d.items()}
    in_optimizer = {id(p) for g in t.optimizer.param_groups for p in g["params"]}
    assert in_optimizer == {id(p) for p in theta_d.values()}
    t.run()
    state = t.model.state_dict()
    assert set(step1) == set(state) - set(theta_d)
    for name, value in step1.items():
        assert torch.equal(state[name], value), name
    assert all(not torch.equal(p, start[n]) for n, p in theta_d.items())


def test_joint_model_starts_from_the_encoder_variant(runs, tmp_path, capsys):
    paths, files = runs
    han_enc = load_file(files["han_enc"])["model"]
    t = trainer("han_enc_dec", paths, tmp_path, 2, files["han_enc"])
    state = t.model.state_dict()
    assert {k for k in han_enc if k.startswith("han_encoder.")}
    for name, value in han_enc.items():  # every HAN-encoder weight, and θ_s
        assert torch.equal(state[name], value), name
    assert set(state) - set(han_enc) == {k for k in state
                                         if k.startswith("han_decoder.")}
    assert "new θ_d keys (" in capsys.readouterr().err


def test_reference_norms_keep_the_output_on_the_scale_of_a_layer_norm():
    """With the reference code's norms the gated output of a row with context is
    layer-normed (mean 0, variance 1 at initialisation), whatever |h| is; the
    paper's equations (reference_norms=False) let it follow the input's scale."""
    torch.manual_seed(0)
    h = 50 * torch.randn(2, 3, 16)  # (B, T, C), far from unit scale
    states = torch.randn(2, 3, 4, 16)  # (B, K, Lc, C)
    real = torch.ones(2, 3, 4, dtype=torch.bool)
    for norms in (True, False):
        han = HierarchicalAttention(HanConfig(d_model=16, n_heads=2, d_ff=24,
                                              reference_norms=norms)).eval()
        with torch.no_grad():
            out = han(h, han.memory(states, real))
        if norms:
            torch.testing.assert_close(out.mean(-1), torch.zeros(2, 3), atol=1e-4,
                                       rtol=0)
            torch.testing.assert_close(out.var(-1, unbiased=False),
                                       torch.ones(2, 3), atol=1e-3, rtol=0)
        else:
            assert out.abs().mean() > 5  # the paper's gate keeps h's scale
