"""Sleep-Wake Networks (SWAN; Wang et al. 2017, as used by Huang et al. 2018).

Every input position t emits one segment a_t of 0..L target tokens, closed by
the end-of-segment symbol $ (the target vocabulary's </s> id; SWAN's y has no
</s> of its own, the output ends where the input ends). Eq. 1:

    log p(y|x) = log Σ_{a ∈ S_y} Π_t p(a_t | x_t)

Segment scores come from one segment decoder (a GRU or LSTM) per position,
whose first layer starts from the encoder state x_t (a linear map of it when
the widths differ; `SegmentDecoder.initial_hidden`). For every (t, s) one
rollout over `<s>, y_{s+1} … y_{s+L}` scores all segment lengths at once:

    seg[t, s, l] = Σ_{k<l} log p(y_{s+k+1} | x_t, y_{s+1..s+k}) + log p($ | …)

The first step (input <s>) is the same for every s and runs once per t; only
states that some segmentation can use are projected onto the vocabulary,
through a fused log-softmax-and-gather (`gather_log_softmax`) that reads two
columns per state and bounds the logits it holds (KEEP_LOGITS); rollouts
beyond `max_rollouts` rows go in chunks whose activations are recomputed in
the backward pass.

The dynamic program (`segment_log_likelihood`) runs over a loop on t only,
in float64: the segment scores are float32 sums of at most L+1 log-probs,
but the forward variables of a 50-word pair reach −10³, where a float32
step is 6e-5, and the DP's gradients (the segment posteriors) are exps of
differences of such numbers; float64 keeps them exact to ~1e-12 (what the
brute-force and gradcheck tests check) at no visible cost, the DP being a
few small tensors per position. Impossible cells hold a true −inf (no
sentinels) and `safe_logsumexp` keeps their gradients at zero instead of NaN.
Segment posteriors are the DP's gradients with respect to the segment scores.
Shapes: B batch, T' (P) input positions, T target length, L max segment length,
D encoder width, H decoder width, V target vocabulary.
"""

from __future__ import annotations

import weakref
from typing import Any

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.utils.checkpoint import checkpoint

from phrasenmt.nn.dropout import Dropout
from phrasenmt.precision import full_precision, run_rnn
from phrasenmt.text.vocab import BOS, EOS, PAD

NEG_INF = float("-inf")
Hidden = Tensor | tuple[Tensor, Tensor]  # GRU: h; LSTM: (h, c), each (layers, N, H)
KEEP_LOGITS = 1 << 27  # softmax entries kept for backward (512 MB in fp32) ...
LOGIT_CHUNK = 1 << 22  # ... else recomputed; rows go in chunks of this many logits
DEVICE_LOGIT_CHUNK = 1 << 26  # ... on a GPU (LOGIT_CHUNK: 16 MB, a CPU's caches)


def logit_chunk(device: torch.device) -> int:
    """Logits per chunk of the fused projection on `device`: a CPU's caches
    hold LOGIT_CHUNK; a GPU takes DEVICE_LOGIT_CHUNK (fewer, larger kernels)."""
    return LOGIT_CHUNK if device.type == "cpu" else DEVICE_LOGIT_CHUNK


def _acc(x: Tensor) -> Tensor:
    """Scores in at least float32 (bf16/fp16 -> fp32; fp64 stays, for tests)."""
    return x.to(torch.promote_types(x.dtype, torch.float32))


# ---------------------------------------------------------------------------
# The dynamic program (free functions: the loss math apart from the modules).


def safe_logsumexp(x: Tensor, dim: int) -> Tensor:
    """log Σ exp(x) over `dim`; all −inf gives −inf with zero (not NaN) gradients."""
    m = x.amax(dim, keepdim=True).detach()
    m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
    total = torch.exp(x - m).sum(dim)
    ok = total > 0
    log_total = torch.log(torch.where(ok, total, torch.ones_like(total)))
    return torch.where(ok, log_total + m.squeeze(dim), NEG_INF)


def scores_by_end(seg: Tensor) -> Tensor:
    """seg (B, P, T+1, L+1) by start s -> (B, P, T+1, L+1) by end j = s + l."""
    T1, L1 = seg.shape[-2:]
    j = torch.arange(T1, device=seg.device)[:, None]
    start = j - torch.arange(L1, device=seg.device)[None, :]  # (T+1, L+1)
    index = start.clamp(min=0).expand(*seg.shape[:2], T1, L1)
    by_end = seg.gather(2, index)  # by_end[..., j, l] = seg[..., j - l, l]
    return torch.where(start >= 0, by_end, NEG_INF)


@full_precision
def segment_log_likelihood(seg: Tensor, src_len: Tensor, tgt_len: Tensor) -> Tensor:
    """Eq. 1 by dynamic programming -> log p(y|x) (B,) float64 (−inf: impossible).

    seg (B, P, T+1, L+1): seg[b, t, s, l] = log p(y_{s+1..s+l} $ | x_t) (−inf
    where invalid); src_len (B,) positions per sentence (P_b <= P); tgt_len (B,)
    target tokens (T_b <= T). alpha[t][j] = log p(y_1..y_j from positions < t);
    positions past P_b are identity steps and the answer is alpha[P_b][T_b].
    """
    B, P, T1, L1 = seg.shape
    by_end = scores_by_end(seg.to(torch.float64))
    alpha = torch.full((B, T1), NEG_INF, dtype=torch.float64, device=seg.device)
    alpha[:, 0] = 0.0
    for t in range(P):
        shifted = F.pad(alpha, (L1 - 1, 0), value=NEG_INF).unfold(1, L1, 1)
        prev = shifted.flip(-1)  # (B, T+1, L+1): prev[b, j, l] = alpha[b, j - l]
        new = safe_logsumexp(prev + by_end[:, t], dim=-1)  # (B, T+1)
        alpha = torch.where((src_len > t)[:, None], new, alpha)
    return alpha.gather(1, tgt_len[:, None].long()).squeeze(1)


def segment_posteriors(seg: Tensor, src_len: Tensor, tgt_len: Tensor) -> Tensor:
    """p(a_t = y_{s+1..s+l} | x, y) (B, P, T+1, L+1): d log p(y|x) / d seg."""
    with torch.enable_grad():
        leaf = seg.detach().to(torch.float64).requires_grad_(True)
        ll = segment_log_likelihood(leaf, src_len, tgt_len)
        total = torch.where(torch.isfinite(ll), ll, 0.0).sum()
        (grad,) = torch.autograd.grad(total, leaf, allow_unused=True)
    return torch.zeros_like(leaf) if grad is None else grad


def possible(src_len: Tensor, tgt_len: Tensor, max_len: int) -> Tensor:
    """Pairs some segmentation can produce: |y| <= L · |x| (B,) bool."""
    return tgt_len <= max_len * src_len


# ---------------------------------------------------------------------------
# Fused projection + log-softmax + gather, chunked over rows.


def _exp_logits(ha: Tensor, wa: Tensor, index: Tensor, out: Tensor | None = None
                ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """[h 1] (m, H+1), [W b] (V, H+1) -> eᵀ = exp(logits - max)ᵀ (V, m), max (m,),
    log Σ exp(logits) (m,), logits[index] (m, C). The bias rides in the product,
    which is taken as W hᵀ (V, m): MKL runs that shape 2x faster than h Wᵀ on
    CPU. `out` (V·m,) is an optional buffer to hold eᵀ."""
    if out is None:
        logits = _acc(wa @ ha.t())  # (V, m)
    else:
        logits = torch.mm(wa, ha.t(), out=out.view(wa.size(0), ha.size(0)))
    picked = logits.gather(0, index.t()).t()  # (m, C)
    top = logits.amax(dim=0)
    e = logits.sub_(top).exp_()
    return e, top, e.sum(dim=0).log_().add_(top), picked


_BUFFER: dict[str, Any] = {"tensor": None, "users": []}


def _cpu_buffer(numel: int, like: Tensor, users: list[Tensor] | None = None
                ) -> Tensor | None:
    """A reused float CPU buffer (None on GPUs, for other dtypes or while views of
    it are alive): a fresh allocation of hundreds of MB page-faults for about as
    long as the product that fills it takes. `users` will hold views of it."""
    if like.device.type != "cpu" or like.dtype != torch.float32:
        return None
    if any(ref() is not None for ref in _BUFFER["users"]):
        return None  # e.g. a graph kept alive (retain_graph) still reads it
    if _BUFFER["tensor"] is None or _BUFFER["tensor"].numel() < numel:
        _BUFFER["tensor"] = torch.empty(numel, dtype=like.dtype)
    _BUFFER["users"] = users if users is not None else []
    return _BUFFER["tensor"][:numel]


def _with_ones(h: Tensor) -> Tensor:
    """(m, H) -> [h 1] (m, H+1)."""
    return torch.cat([h, h.new_ones(h.size(0), 1)], dim=1)


class _GatherLogSoftmax(torch.autograd.Function):
    """log_softmax(h Wᵀ + b)[row, index], rows in chunks of `logit_chunk` logits.

    Up to KEEP_LOGITS (M·V) the exponentials are kept for the backward pass
    (three matrix products in all); above it, the backward pass recomputes
    them chunk by chunk (four products, bounded memory). The gradient of the
    logits, e·scale + scatter(g), is never formed: its products with W and
    [h 1] are taken term by term (no pass over (M, V) in the backward).
    """

    @staticmethod
    @torch.amp.custom_fwd(device_type="cuda")
    def forward(ctx, h: Tensor, weight: Tensor, bias: Tensor, index: Tensor) -> Tensor:
        M, V = h.size(0), weight.size(0)
        ha, wa = _with_ones(h), torch.cat([weight, bias[:, None]], dim=1)  # (.., H+1)
        rows = max(1, logit_chunk(h.device) // V)
        keep = M * V <= KEEP_LOGITS and any(ctx.needs_input_grad)
        views: list = []
        buffer = _cpu_buffer(M * V if keep else min(M, rows) * V, ha, views)
        out, tops, lses, kept = [], [], [], []
        for a in range(0, M, rows):
            m = min(rows, M - a)
            part = None if buffer is None else buffer[a * V: (a + m) * V] if keep \
                else buffer[: m * V]
            e, top, lse, picked = _exp_logits(ha[a: a + m], wa, index[a: a + m], part)
            out.append(picked - lse[:, None])
            tops.append(top)
            lses.append(lse)
            kept += [e] if keep else []
        views += [weakref.ref(e) for e in kept]
        ctx.save_for_backward(ha, wa, index, torch.cat(tops), torch.cat(lses), *kept)
        ctx.rows = rows
        return torch.cat(out)

    @staticmethod
    @torch.amp.custom_bwd(device_type="cuda")
    def backward(ctx, grad_out: Tensor) -> tuple[Tensor, Tensor, Tensor, None]:
        ha, wa, index, top, lse, *kept = ctx.saved_tensors
        dtype = lse.dtype
        w = wa[:, :-1].to(dtype)  # (V, H)
        grad_h = torch.empty((ha.size(0), w.size(1)), dtype=ha.dtype, device=ha.device)
        grad_wa = torch.zeros(wa.shape, dtype=dtype, device=ha.device)  # (V, H+1)
        for n, a in enumerate(range(0, ha.size(0), ctx.rows)):
            sl = slice(a, a + ctx.rows)
            h, g, idx = ha[sl].to(dtype), grad_out[sl].to(dtype), index[sl]
            e = kept[n] if kept else _exp_logits(
                ha[sl], wa, idx, _cpu_buffer(h.size(0) * wa.size(0), ha))[0]  # (V, m)
            # d out[c] / d logits = onehot(index[c]) - softmax; softmax = e·e^(top-lse)
            scale = -g.sum(1) * torch.exp(top[sl] - lse[sl])  # (m,)
            grad_wa.addmm_(e.to(dtype), h * scale[:, None])
            grad_wa.index_add_(0, idx.reshape(-1), (g[..., None] * h[:, None]).flatten(0, 1))
            grad = (e.t().to(dtype) @ w) * scale[:, None] + (g[..., None] * w[idx]).sum(1)
            grad_h[sl] = grad.to(ha.dtype)
        grad_wa = grad_wa.to(wa.dtype)
        return grad_h, grad_wa[:, :-1], grad_wa[:, -1], None


# The kernel's entry point; torch.compiler.disable of it after eager_under_compile().
_gather_impl = _GatherLogSoftmax.apply


def gather_log_softmax(h: Tensor, output: nn.Linear, index: Tensor) -> Tensor:
    """h (M, H), index (M, C) -> log_softmax(output(h))[row, index] (M, C) >= fp32."""
    return _gather_impl(h, output.weight, output.bias, index)


def eager_under_compile() -> None:
    """Run the kernel eager under train.compile: its buffer reuse and the
    exponentials kept for backward (weak references) are outside what TorchDynamo
    can capture. Not a decorator at import: `torch.compiler.disable` imports
    TorchDynamo, 1.5 s of every CLI's start-up, so only the compile path calls it."""
    global _gather_impl
    _gather_impl = torch.compiler.disable(_GatherLogSoftmax.apply)


# ---------------------------------------------------------------------------
# The segment decoder.


def select_hidden(hidden: Hidden, index: Tensor) -> Hidden:
    """Rows `index` of a hidden state (layers, N, H) (or an LSTM's pair)."""
    if isinstance(hidden, tuple):
        return hidden[0][:, index], hidden[1][:, index]
    return hidden[:, index]


class SegmentDecoder(nn.Module):
    """p(a_t | x_t): an RNN started from x_t that emits tokens until $ (= </s>)."""

    def __init__(self, input_size: int, vocab_size: int, embed_size: int,
                 hidden_size: int, layers: int, cell: str, dropout: float):
        super().__init__()
        rnn = {"gru": nn.GRU, "lstm": nn.LSTM}[cell]
        self.layers, self.hidden_size, self.is_lstm = layers, hidden_size, cell == "lstm"
        self.embed = nn.Embedding(vocab_size, embed_size, padding_idx=PAD)
        self.rnn = rnn(embed_size, hidden_size, layers, batch_first=True,
                       dropout=dropout if layers > 1 else 0.0)
        # The first layer starts from x_t itself when the widths agree (the
        # paper's de-en: 2 × 256 = 512), else from a linear map of it; deeper
        # layers and an LSTM's cells start at zero.
        self.bridge = (nn.Identity() if input_size == hidden_size
                       else nn.Linear(input_size, hidden_size))
        self.output = nn.Linear(hidden_size, vocab_size)
        self.dropout = Dropout(dropout)

    def initial_hidden(self, x: Tensor) -> Hidden:
        """Encoder states x (N, D) -> the decoder's start state (layers, N, H)."""
        first = self.bridge(x)[None]  # (1, N, H)
        h = torch.cat([first, first.new_zeros(self.layers - 1, *first.shape[1:])])
        return (h, torch.zeros_like(h)) if self.is_lstm else h

    def run(self, tokens: Tensor, hidden: Hidden) -> tuple[Tensor, Hidden]:
        """Feed tokens (N, K) from `hidden` -> output states (N, K, H), new hidden."""
        out, hidden = run_rnn(self.rnn, self.embed(tokens), hidden)
        return self.dropout(out), hidden

    def log_probs(self, states: Tensor) -> Tensor:
        """Output states (N, H) -> next-token log-probs (N, V), float32."""
        return torch.log_softmax(_acc(self.output(states)), dim=-1)

    def segment_scores(self, x: Tensor, src_len: Tensor, tgt: Tensor, tgt_len: Tensor,
                       max_len: int, max_rollouts: int = 1 << 30) -> Tensor:
        """x (B, P, D), tgt (B, T) -> seg (B, P, T+1, L+1) float32, −inf = invalid.

        Rollouts of more than `max_rollouts` rows are scored in chunks whose
        activations are recomputed in the backward pass (a memory bound).
        """
        B, P, _ = x.shape
        T, L, dev = tgt.size(1), max_len, x.device
        at = torch.arange(P, device=dev)[None, :] < src_len[:, None]  # (B, P) real
        bt = at.nonzero()  # (N, 2) -> (b, t)
        lp0, hidden1 = self._first_step(x[bt[:, 0], bt[:, 1]], tgt[bt[:, 0]])
        parent = torch.full((B, P), -1, dtype=torch.long, device=dev)
        parent[bt[:, 0], bt[:, 1]] = torch.arange(bt.size(0), device=dev)
        # k >= 1: eos_k[b, t, s, k-1] = log p($ | y_{s+1..s+k}),
        #         tok_k[b, t, s, k-1] = log p(y_{s+k+1} | y_{s+1..s+k})
        like = {"dtype": lp0.dtype, "device": dev}
        eos_k = torch.full((B, P, T + 1, L), NEG_INF, **like)
        tok_k = torch.full((B, P, T + 1, L), NEG_INF, **like)
        rows = self._rollout_rows(at, src_len, tgt_len, L, T)  # (R, 3): b, t, s
        ywin = F.pad(tgt, (0, L), value=PAD).unfold(1, L, 1)  # (B, T+1, L)
        for a in range(0, rows.size(0), max_rollouts):
            chunk = rows[a: a + max_rollouts]
            hid = select_hidden(hidden1, parent[chunk[:, 0], chunk[:, 1]])
            need, cols = _needed_states(chunk, tgt, tgt_len, L)
            args = (ywin[chunk[:, 0], chunk[:, 2]], need, cols,
                    *(hid if isinstance(hid, tuple) else (hid,)))
            if rows.size(0) > max_rollouts and torch.is_grad_enabled():
                lp = checkpoint(self._rollout, *args, use_reentrant=False)
            else:
                lp = self._rollout(*args)  # (M, 2): log p($), log p(next token)
            i, k = need.nonzero().unbind(1)
            where = (chunk[i, 0], chunk[i, 1], chunk[i, 2], k)
            eos_k = eos_k.index_put(where, lp[:, 0])
            tok_k = tok_k.index_put(where, lp[:, 1])
        return _segment_table(lp0, bt, eos_k, tok_k, at, tgt_len)

    def _first_step(self, x: Tensor, tgt: Tensor) -> tuple[Tensor, Hidden]:
        """Step <s> from every x_t (N, D) -> log p of [$, y_1..y_T] (N, T+1), hidden."""
        start = torch.full((x.size(0), 1), BOS, dtype=torch.long, device=x.device)
        out, hidden = self.run(start, self.initial_hidden(x))
        cols = torch.cat([torch.full_like(tgt[:, :1], EOS), tgt], dim=1)  # (N, T+1)
        return gather_log_softmax(out[:, 0], self.output, cols), hidden

    def _rollout(self, inputs: Tensor, need: Tensor, cols: Tensor, *hid: Tensor
                 ) -> Tensor:
        """Rows' rollouts over y_{s+1..s+L} -> (M, 2) log-probs of the needed states."""
        hidden = hid if self.is_lstm else hid[0]
        out, _ = self.run(inputs, hidden)  # (r, L, H): state after y_{s+1..s+k}
        return gather_log_softmax(out[need], self.output, cols)

    @staticmethod
    def _rollout_rows(at: Tensor, src_len: Tensor, tgt_len: Tensor, L: int, T: int
                      ) -> Tensor:
        """(b, t, s) whose segments of length >= 1 some segmentation can use (R, 3);
        T >= every tgt_len (the padded width: no read-back of the lengths)."""
        P, dev = at.size(1), at.device
        t = torch.arange(P, device=dev)[None, :, None]
        s = torch.arange(T, device=dev)[None, None, :]
        ok = at[:, :, None] & (s < tgt_len[:, None, None])
        ok &= s <= L * t  # positions before t emit at most L·t tokens
        ok &= tgt_len[:, None, None] - s <= L * (src_len[:, None, None] - t)
        return ok.nonzero()


def _needed_states(rows: Tensor, tgt: Tensor, tgt_len: Tensor, L: int
                   ) -> tuple[Tensor, Tensor]:
    """Which rollout states (r, k-1) are inside y (s + k <= T_b), and the columns
    to read there: [$, y_{s+k+1}] ($ again where there is no next token) (M, 2)."""
    b, s = rows[:, 0], rows[:, 2]
    k = torch.arange(1, L + 1, device=rows.device)[None, :]  # (1, L)
    need = s[:, None] + k <= tgt_len[b][:, None]  # (r, L)
    i, kk = need.nonzero().unbind(1)
    nxt = s[i] + kk + 1  # 0-based index of y_{s+k+1}
    has_next = (kk + 1 < L) & (nxt < tgt_len[b[i]])
    token = tgt[b[i], nxt.clamp(max=tgt.size(1) - 1)]
    token = torch.where(has_next, token, EOS)
    return need, torch.stack([torch.full_like(token, EOS), token], dim=1)


def _segment_table(lp0: Tensor, bt: Tensor, eos_k: Tensor, tok_k: Tensor,
                   at: Tensor, tgt_len: Tensor) -> Tensor:
    """First-step log-probs lp0 (N, T+1) at positions bt, and eos_k/tok_k
    (B, P, T+1, L) of the rollouts -> seg (B, P, T+1, L+1), −inf = invalid."""
    B, P, T1, L = eos_k.shape
    like = {"dtype": eos_k.dtype, "device": eos_k.device}
    eos0 = torch.full((B, P), NEG_INF, **like).index_put(
        (bt[:, 0], bt[:, 1]), lp0[:, 0])  # log p($ | <s>): the empty segment
    tok0 = torch.full((B, P, T1), NEG_INF, **like).index_put(
        (bt[:, 0], bt[:, 1]), F.pad(lp0[:, 1:], (0, 1), value=NEG_INF))
    eos = torch.cat([eos0[:, :, None, None].expand(-1, -1, T1, 1), eos_k], -1)
    tok = torch.cat([tok0.unsqueeze(-1), tok_k[..., :-1]], -1)  # (B, P, T+1, L)
    seg = F.pad(tok.cumsum(-1), (1, 0)) + eos  # Σ_{k<l} tok[k] + eos[l]
    return torch.where(_valid_segments(at, tgt_len, T1 - 1, L), seg, NEG_INF)


def _valid_segments(at: Tensor, tgt_len: Tensor, T: int, L: int) -> Tensor:
    """(b, t, s, l) with a real position t and s + l <= T_b -> (B, P, T+1, L+1)."""
    s = torch.arange(T + 1, device=at.device)[:, None]
    l = torch.arange(L + 1, device=at.device)[None, :]
    inside = (s + l)[None] <= tgt_len[:, None, None]  # (B, T+1, L+1)
    return at[:, :, None, None] & inside[:, None]
