"""SWAN: the segment DP against brute force, gradients, posteriors, batched
segment scores against a per-segment loop, greedy and beam decoding (Eq. 3)."""

from __future__ import annotations

import itertools
import math

import pytest
import torch
from torch.autograd import gradcheck

from phrasenmt.models import swan
from phrasenmt.models.swan import (
    SegmentDecoder,
    gather_log_softmax,
    segment_log_likelihood,
    segment_posteriors,
)
from phrasenmt.models.swan_search import (
    beam_segments,
    combine_segments,
    greedy_segments,
    segment_candidates,
)
from phrasenmt.text.vocab import BOS, EOS, PAD

NEG_INF = float("-inf")

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


def valid_mask(P: int, T: int, L: int, src_len: torch.Tensor,
               tgt_len: torch.Tensor) -> torch.Tensor:
    """(B, P, T+1, L+1): real position and s + l <= T_b."""
    s = torch.arange(T + 1)[:, None]
    l = torch.arange(L + 1)[None, :]
    inside = (s + l)[None] <= tgt_len[:, None, None]
    return (torch.arange(P)[None, :, None, None] < src_len[:, None, None, None]) \
        & inside[:, None]


def random_seg(B: int, P: int, T: int, L: int, src_len, tgt_len, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    seg = torch.randn(B, P, T + 1, L + 1, generator=g, dtype=torch.float64) - 1.0
    return torch.where(valid_mask(P, T, L, src_len, tgt_len), seg, NEG_INF)


def brute_force(seg: torch.Tensor, P: int, T: int, L: int) -> float:
    """log Σ over every segmentation of y_1..y_T into P segments of 0..L tokens."""
    totals = []
    for lengths in itertools.product(range(L + 1), repeat=P):
        if sum(lengths) != T:
            continue
        start, total = 0, 0.0
        for t, n in enumerate(lengths):
            total += float(seg[t, start, n])
            start += n
        totals.append(total)
    if not totals:
        return NEG_INF
    return float(torch.logsumexp(torch.tensor(totals, dtype=torch.float64), 0))


# (source lengths, target lengths, L): padding, empty segments, the L limit,
# an impossible pair (|y| > L·|x|) and an empty target.
CASES = [([4, 3, 2], [5, 3, 5], 2), ([3, 3], [6, 0], 2), ([5, 1], [3, 1], 1),
         ([2, 4, 3], [0, 7, 4], 3)]


@pytest.mark.parametrize("src_lens,tgt_lens,L", CASES)
def test_dp_equals_brute_force(src_lens, tgt_lens, L):
    src_len, tgt_len = torch.tensor(src_lens), torch.tensor(tgt_lens)
    P, T = max(src_lens), max(tgt_lens)
    seg = random_seg(len(src_lens), P, T, L, src_len, tgt_len)
    ll = segment_log_likelihood(seg, src_len, tgt_len)
    assert ll.dtype == torch.float64
    for b, (p, t) in enumerate(zip(src_lens, tgt_lens, strict=True)):
        expected = brute_force(seg[b], p, t, L)
        if expected == NEG_INF:
            assert t > L * p and ll[b] == NEG_INF
        else:
            assert float(ll[b]) == pytest.approx(expected, abs=1e-12)


def test_dp_gradient_passes_gradcheck():
    src_len, tgt_len = torch.tensor([4, 3, 2]), torch.tensor([5, 3, 4])
    seg = random_seg(3, 4, 5, 2, src_len, tgt_len).requires_grad_(True)
    assert gradcheck(lambda s: segment_log_likelihood(s, src_len, tgt_len), (seg,))


def test_impossible_pair_gives_minus_inf_and_zero_gradients():
    src_len, tgt_len = torch.tensor([2, 3]), torch.tensor([5, 2])  # 5 > 2·2
    seg = random_seg(2, 3, 5, 2, src_len, tgt_len).requires_grad_(True)
    ll = segment_log_likelihood(seg, src_len, tgt_len)
    assert ll[0] == NEG_INF and torch.isfinite(ll[1])
    (grad,) = torch.autograd.grad(torch.where(torch.isfinite(ll), ll, 0.0).sum(), seg)
    assert not grad.isnan().any()
    assert grad[0].abs().sum() == 0 and grad[1].abs().sum() > 0


def test_posteriors_sum_to_one_and_expect_y_words():
    src_len, tgt_len = torch.tensor([4, 3, 5]), torch.tensor([5, 3, 2])
    L = 2
    seg = random_seg(3, 5, 5, L, src_len, tgt_len, seed=3)
    post = segment_posteriors(seg, src_len, tgt_len)  # (B, P, T+1, L+1)
    per_position = post.sum(dim=(2, 3))
    for b, n in enumerate(src_len.tolist()):
        assert torch.allclose(per_position[b, :n], torch.ones(n, dtype=post.dtype))
        assert per_position[b, n:].abs().sum() == 0  # padded positions emit nothing
    words = (post * torch.arange(L + 1, dtype=post.dtype)).sum(dim=(1, 2, 3))
    assert torch.allclose(words, tgt_len.to(post.dtype))
    assert (post[:, :, :, 2] > 1e-6).any()  # two-token segments do occur


# ---------------------------------------------------------------------------
# Segment scores from the decoder.


def decoder(cell: str = "gru", vocab: int = 9, seed: int = 0) -> SegmentDecoder:
    torch.manual_seed(seed)
    return SegmentDecoder(6, vocab, 5, 7, 2, cell, 0.0).double().eval()


def batch(B: int = 3, P: int = 4, T: int = 5, vocab: int = 9, seed: int = 1):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(B, P, 6, generator=g, dtype=torch.float64)
    src_len, tgt_len = torch.tensor([4, 3, 2])[:B], torch.tensor([5, 3, 5])[:B]
    tgt = torch.randint(3, vocab, (B, T), generator=g)
    tgt[torch.arange(T)[None, :] >= tgt_len[:, None]] = PAD
    return x, src_len, tgt, tgt_len


@torch.no_grad()
def naive_segment(dec: SegmentDecoder, x: torch.Tensor, tokens: list[int]) -> float:
    """log p(tokens $ | x) token by token from the start state."""
    hidden, total = dec.initial_hidden(x[None]), 0.0
    for prev, nxt in zip([BOS, *tokens], [*tokens, EOS], strict=True):
        out, hidden = dec.run(torch.tensor([[prev]]), hidden)
        total += float(torch.log_softmax(dec.output(out[0, 0]), -1)[nxt])
    return total


@pytest.mark.parametrize("cell", ["gru", "lstm"])
def test_batched_segment_scores_equal_a_per_segment_loop(cell):
    dec, L = decoder(cell), 2
    x, src_len, tgt, tgt_len = batch()
    seg = dec.segment_scores(x, src_len, tgt, tgt_len, L)
    reference = torch.full_like(seg, NEG_INF)
    for b in range(3):
        for t in range(int(src_len[b])):
            for s in range(int(tgt_len[b]) + 1):
                for n in range(min(L, int(tgt_len[b]) - s) + 1):
                    reference[b, t, s, n] = naive_segment(
                        dec, x[b, t], tgt[b, s: s + n].tolist())
    usable = torch.isfinite(seg)  # cells no segmentation can use may be skipped
    assert torch.allclose(seg[usable], reference[usable], atol=1e-12)
    assert torch.equal(segment_log_likelihood(seg, src_len, tgt_len),
                       segment_log_likelihood(reference, src_len, tgt_len)) or \
        torch.allclose(segment_log_likelihood(seg, src_len, tgt_len),
                       segment_log_likelihood(reference, src_len, tgt_len), atol=1e-12)
    assert (~torch.isfinite(seg) & torch.isfinite(reference)).any()  # rows pruned


def test_chunked_scoring_gives_the_same_values_and_gradients():
    dec, L = decoder("lstm"), 2
    x, src_len, tgt, tgt_len = batch()
    x.requires_grad_(True)

    def run(max_rollouts: int):
        dec.zero_grad()
        x.grad = None
        seg = dec.segment_scores(x, src_len, tgt, tgt_len, L, max_rollouts)
        ll = segment_log_likelihood(seg, src_len, tgt_len)
        ll[:2].sum().backward()  # the third pair is impossible (5 > 2·2)
        return ll.detach(), x.grad.clone(), [p.grad.clone() for p in dec.parameters()]

    whole, chunked = run(1 << 30), run(4)
    assert torch.allclose(whole[0][:2], chunked[0][:2], atol=1e-12)
    assert torch.allclose(whole[1], chunked[1], atol=1e-12)
    for a, b in zip(whole[2], chunked[2], strict=True):
        assert torch.allclose(a, b, atol=1e-12)


@pytest.mark.parametrize("keep", [True, False])
def test_fused_log_softmax_matches_autograd_and_gradcheck(keep, monkeypatch):
    if not keep:  # recompute in chunks of two rows
        monkeypatch.setattr(swan, "KEEP_LOGITS", 0)
        monkeypatch.setattr(swan, "LOGIT_CHUNK", 22)
    torch.manual_seed(0)
    h = torch.randn(7, 5, dtype=torch.float64, requires_grad=True)
    layer = torch.nn.Linear(5, 11).double()
    index = torch.randint(0, 11, (7, 3))
    expected = torch.log_softmax(layer(h), -1).gather(1, index)
    assert torch.allclose(gather_log_softmax(h, layer, index), expected, atol=1e-12)
    assert gradcheck(lambda a, w, b: swan._GatherLogSoftmax.apply(a, w, b, index),
                     (h, layer.weight, layer.bias))


# ---------------------------------------------------------------------------
# Decoding.


def peaky_decoder(vocab: int = 7, seed: int = 0) -> SegmentDecoder:
    dec = decoder(vocab=vocab, seed=seed)
    with torch.no_grad():
        dec.output.weight.mul_(3.0)
    return dec


@torch.no_grad()
def test_greedy_equals_per_position_argmax():
    dec = peaky_decoder(vocab=9)
    x, src_len, _, _ = batch()
    L = 3
    hyps = greedy_segments(dec, x, src_len, L)
    for b in range(3):
        expected = []
        for t in range(int(src_len[b])):
            hidden, prev, seg = dec.initial_hidden(x[b, t][None]), BOS, []
            for k in range(L + 1):
                out, hidden = dec.run(torch.tensor([[prev]]), hidden)
                lp = torch.log_softmax(dec.output(out[0, 0]), -1)
                lp[PAD] = lp[BOS] = NEG_INF
                prev = EOS if k == L else int(lp.argmax())
                if prev == EOS:
                    break
                seg.append(prev)
            expected.append(seg)
        assert hyps[b].segments == expected
        assert hyps[b].tokens == [w for seg in expected for w in seg]
    assert any(hyps[b].tokens for b in range(3))  # not all empty


@torch.no_grad()
def dp_log_prob(dec: SegmentDecoder, x: torch.Tensor, n_pos: int, tokens: list[int],
                L: int) -> float:
    """log p(tokens | x) of one sentence by the training DP."""
    tgt = torch.tensor([tokens or [PAD]])
    seg = dec.segment_scores(x[None, :n_pos], torch.tensor([n_pos]), tgt,
                             torch.tensor([len(tokens)]), L)
    return float(segment_log_likelihood(seg, torch.tensor([n_pos]),
                                        torch.tensor([len(tokens)]))[0])


def test_unpruned_beam_scores_are_the_dp_log_likelihood():
    dec, L = peaky_decoder(vocab=6), 2  # 3 emittable words: 13 segments
    x, src_len, _, _ = batch(B=2, P=3)
    src_len = torch.tensor([3, 2])
    hyps = beam_segments(dec, x, src_len, L, beam=5000)
    for b in range(2):
        assert len(hyps[b]) == len({tuple(h.tokens) for h in hyps[b]})  # merged
        best = hyps[b][0]
        assert best.score == pytest.approx(dp_log_prob(dec, x[b], int(src_len[b]),
                                                       best.tokens, L), abs=1e-9)
        for h in hyps[b][1:20]:  # every output's merged score is its log p(y|x)
            assert h.log_prob == pytest.approx(
                dp_log_prob(dec, x[b], int(src_len[b]), h.tokens, L), abs=1e-9)
        # All outputs found: their mass is Π_t Σ_a p(a | x_t) over the segments a
        # of emittable tokens (<pad>/<s> take the rest of the softmax's mass).
        words = [(), *[(w,) for w in (3, 4, 5)],
                 *itertools.product((3, 4, 5), repeat=2)]
        expected = sum(float(torch.logsumexp(torch.tensor(
            [naive_segment(dec, x[b, t], list(a)) for a in words],
            dtype=torch.float64), 0))
            for t in range(int(src_len[b])))
        total = torch.logsumexp(torch.tensor([h.log_prob for h in hyps[b]],
                                             dtype=torch.float64), 0)
        assert float(total) == pytest.approx(expected, abs=1e-9)


def test_lambda1_adds_exactly_lambda1_times_length():
    dec, L = peaky_decoder(vocab=6), 2
    x, src_len, _, _ = batch(B=2, P=3)
    src_len = torch.tensor([3, 2])
    plain = beam_segments(dec, x, src_len, L, beam=5000)
    longer = beam_segments(dec, x, src_len, L, beam=5000, lambda1=0.7)
    for b in range(2):
        base = {tuple(h.tokens): h.score for h in plain[b]}
        for h in longer[b]:
            assert h.score == pytest.approx(base[tuple(h.tokens)] + 0.7 * len(h.tokens),
                                            abs=1e-12)
        assert len(longer[b][0].tokens) >= len(plain[b][0].tokens)


class FakeLM:
    """A bigram-ish LM over words: the LM interface of phrasenmt.lm."""

    def begin(self) -> str:
        return "<s>"

    def advance(self, state: str, word: str) -> tuple[str, float]:
        return word, -0.5 - 0.25 * (len(word) + len(state)) % 3

    def end(self, state: str) -> float:
        return -1.0 if state == "<s>" else -0.3

    def score(self, words: list[str]) -> float:
        state, total = self.begin(), 0.0
        for word in words:
            state, logp = self.advance(state, word)
            total += logp
        return total + self.end(state)


def test_lm_term_adds_lambda2_times_the_sentence_lm_score():
    dec, L = peaky_decoder(vocab=6), 2
    x, src_len, _, _ = batch(B=1, P=3)
    src_len = torch.tensor([3])
    words = ["<pad>", "<s>", "</s>", "<unk>", "aa", "b"]
    lm = FakeLM()
    with_lm = beam_segments(dec, x, src_len, L, beam=5000, lambda1=0.2, lambda2=0.5,
                            lm=lm, words=words)[0]
    for h in with_lm[:20]:
        lm_score = lm.score([words[i] for i in h.tokens])
        assert h.score == pytest.approx(h.log_prob + 0.2 * len(h.tokens)
                                        + 0.5 * lm_score, abs=1e-12)
    assert [h.score for h in with_lm] == sorted((h.score for h in with_lm),
                                                reverse=True)


def test_pruned_beam_segmentation_concatenates_to_the_output():
    dec, L = peaky_decoder(vocab=9), 3
    x, src_len, _, _ = batch()
    for hyps in beam_segments(dec, x, src_len, L, beam=3, lambda1=0.5):
        for h in hyps:
            assert len(h.segments) <= 4
            assert [w for seg in h.segments for w in seg] == h.tokens
            assert all(len(seg) <= L for seg in h.segments)
    for h, n in zip(greedy_segments(dec, x, src_len, L), src_len.tolist(), strict=True):
        assert len(h.segments) == n
        assert [w for seg in h.segments for w in seg] == h.tokens


def test_segment_candidates_are_exact_and_include_the_empty_segment():
    dec, L = peaky_decoder(vocab=9), 2
    x, _, _, _ = batch(B=1, P=2)
    cands = segment_candidates(dec, x, torch.tensor([2]), L, width=2)[0]
    for t, position in enumerate(cands):
        segments = dict(position)
        assert () in segments and len(segments) <= 3
        for seg, score in segments.items():
            assert score == pytest.approx(naive_segment(dec, x[0, t], list(seg)),
                                          abs=1e-12)


def test_merging_is_log_sum_exp_and_keeps_the_best_path():
    a, b = math.log(0.2), math.log(0.3)
    cands = [[((), math.log(0.5)), ((4,), a)], [((), b), ((4,), math.log(0.1))]]
    hyps = combine_segments(cands, beam=10, lambda1=0.0, lambda2=0.0, lm=None,
                            max_tokens=10)
    by_words = {tuple(h.tokens): h for h in hyps}
    # "4" = [4][] (0.2·0.3) or [][4] (0.5·0.1)
    assert by_words[(4,)].log_prob == pytest.approx(math.log(0.2 * 0.3 + 0.5 * 0.1))
    assert by_words[(4,)].segments == [[4], []]
    assert by_words[(4, 4)].log_prob == pytest.approx(math.log(0.2 * 0.1))
    limited = combine_segments(cands, beam=10, lambda1=0.0, lambda2=0.0, lm=None,
                               max_tokens=1)
    assert max(len(h.tokens) for h in limited) == 1


@pytest.mark.parametrize("keep", [True, False])
def test_fused_log_softmax_in_float32_with_graphs_alive_at_once(keep, monkeypatch):
    if not keep:
        monkeypatch.setattr(swan, "KEEP_LOGITS", 0)
        monkeypatch.setattr(swan, "LOGIT_CHUNK", 50)
    torch.manual_seed(0)
    layer = torch.nn.Linear(6, 13)
    index = torch.randint(0, 13, (9, 2))
    inputs = [torch.randn(9, 6, requires_grad=True) for _ in range(2)]
    outs = [gather_log_softmax(h, layer, index) for h in inputs]  # two live graphs
    for h, out in zip(inputs, outs, strict=True):
        expected = torch.log_softmax(layer(h), -1).gather(1, index)
        assert torch.allclose(out, expected, atol=1e-5)
        (grad,) = torch.autograd.grad(out.sum(), h)
        (ref,) = torch.autograd.grad(expected.sum(), h)
        assert torch.allclose(grad, ref, atol=1e-5)
