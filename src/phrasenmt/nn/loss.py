"""Label-smoothed cross entropy: the math is a free function (fairseq style).

Both functions run outside autocast on float32 (or wider) inputs
(`precision.full_precision`): under bf16 autocast the logits may come in bf16,
the log-softmax, its log-sum-exp and the sums over tokens never do.
`linear_sequence_loss` fuses the output layer into the loss, a chunk of rows
at a time, in float32 and under autocast alike.
"""

from __future__ import annotations

import torch
from torch import Tensor

from phrasenmt.precision import any_autocast, full_precision
from phrasenmt.text.vocab import PAD


@full_precision
def label_smoothed_nll_loss(log_probs: Tensor, target: Tensor, epsilon: float,
                            ignore_index: int = PAD) -> tuple[Tensor, Tensor]:
    """Summed (label-smoothed loss, NLL) over non-pad targets.

    log_probs (N, V) float, target (N,). As in fairseq, the smoothing mass
    epsilon is spread over the V - 1 wrong classes.
    """
    keep = target.ne(ignore_index)  # (N,)
    nll = -log_probs.gather(-1, target.unsqueeze(-1)).squeeze(-1)  # (N,)
    smooth = -log_probs.sum(dim=-1)  # (N,)
    nll = torch.where(keep, nll, 0.0).sum()
    smooth = torch.where(keep, smooth, 0.0).sum()
    eps_i = epsilon / (log_probs.size(-1) - 1)
    loss = (1.0 - epsilon - eps_i) * nll + eps_i * smooth
    return loss, nll


@full_precision
def sequence_loss(logits: Tensor, target: Tensor,
                  epsilon: float) -> tuple[Tensor, Tensor]:
    """Logits (B, T, V) and targets (B, T) -> summed (smoothed loss, NLL)."""
    log_probs = torch.log_softmax(logits.float(), dim=-1)
    return label_smoothed_nll_loss(log_probs.view(-1, log_probs.size(-1)),
                                   target.reshape(-1), epsilon)


class _LinearSmoothedCE(torch.autograd.Function):
    """`label_smoothed_nll_loss(log_softmax(h @ w.T), ...)`, a chunk of rows at a time.

    The unfused path writes the (N, V) logits, their log-softmax and, in the
    backward pass, two more (N, V) gradients, each far larger than the CPU's
    caches; the matrix product that writes the logits ran at half the speed of
    the model's other products on the 2-core dev machine (47.9 against
    90.6-93.0 GFLOP/s, `benchmarks/flops_ceiling.py`). Here each chunk of rows goes through the
    product, the log-sum-exp and the gradient with respect to its logits while
    it is in cache, and the gradients of h and w are finished in the forward
    pass (the loss is linear in its upstream gradient, a scalar that backward
    multiplies in). The gradient of the smoothed loss with respect to a row's
    logits z, with p = softmax(z), y the one-hot target and eps_i = eps / (V - 1):
        (1 - eps - eps_i) (p - y) + eps_i (V p - 1)
    and zero for padding rows. The NLL is returned without a gradient.
    """

    @staticmethod
    def forward(ctx, h: Tensor, w: Tensor, target: Tensor, epsilon: float,
                chunk: int) -> tuple[Tensor, Tensor]:
        n, v = h.size(0), w.size(0)
        eps_i = epsilon / (v - 1)
        a = 1.0 - epsilon - eps_i
        need_h, need_w = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        grad = need_h or need_w  # a frozen output layer (step 2) takes no gradient
        # A row count that is a multiple of 8 keeps the product on the fast
        # kernels (4096 positions x 5781 rows: 47.9 GFLOP/s; 5784 rows: 64.9;
        # 512 positions x 5784 rows: 87.7; `benchmarks/flops_ceiling.py`).
        pad = -v % 8
        wp = torch.cat([w, w.new_zeros(pad, w.size(1))]) if pad else w
        keep = target.ne(PAD)
        nll_sum = h.new_zeros(())
        smooth_sum = h.new_zeros(())
        grad_h = torch.empty_like(h) if need_h else None
        grad_w = torch.zeros_like(w) if need_w else None
        for start in range(0, n, chunk):
            hc, tc = h[start:start + chunk], target[start:start + chunk]
            kc = keep[start:start + chunk].unsqueeze(1)  # (c, 1)
            z = torch.mm(hc, wp.t())[:, :v]  # (c, V) logits
            lse = torch.logsumexp(z, dim=-1, keepdim=True)  # (c, 1)
            nll = lse.squeeze(1) - z.gather(1, tc.unsqueeze(1)).squeeze(1)
            smooth = v * lse.squeeze(1) - z.sum(dim=-1)
            nll_sum += torch.where(kc.squeeze(1), nll, 0.0).sum()
            smooth_sum += torch.where(kc.squeeze(1), smooth, 0.0).sum()
            if grad:
                g = (z - lse).exp_().mul_(a + v * eps_i).sub_(eps_i)  # (c, V)
                g.scatter_add_(1, tc.unsqueeze(1), g.new_full((tc.size(0), 1), -a))
                g.mul_(kc)
                if need_h:
                    torch.mm(g, w, out=grad_h[start:start + chunk])
                if need_w:
                    grad_w.addmm_(g.t(), hc)
        ctx.save_for_backward(grad_h, grad_w)
        ctx.mark_non_differentiable(nll_sum)
        return a * nll_sum + eps_i * smooth_sum, nll_sum

    @staticmethod
    def backward(ctx, grad_loss: Tensor, _grad_nll: Tensor):
        grad_h, grad_w = ctx.saved_tensors
        return (grad_h * grad_loss if grad_h is not None else None,
                grad_w * grad_loss if grad_w is not None else None, None, None, None)


class _LinearSmoothedCELowPrecision(torch.autograd.Function):
    """`_LinearSmoothedCE` under autocast: the logits in the autocast dtype.

    The reference is the unfused path under autocast: the output layer's
    product in `dtype` (bf16: a float32 accumulation rounded to bf16), then
    `sequence_loss`, whose log-softmax runs in float32 on those rounded logits.
    Here each chunk of rows takes the same product in `dtype` and only that
    chunk's logits are read in float32 (its log-sum-exp, the target's logit and
    the row sums), so the largest float32 tensor is one chunk (rows x V), never
    positions x V. The forward pass keeps the rows' inputs in `dtype` and their
    log-sum-exps; the backward pass recomputes each chunk's logits and takes the
    gradient of its logits (`_LinearSmoothedCE`'s formula) in float32, then
    rounds it to `dtype` for the two products, as autocast's backward does.
    """

    @staticmethod
    def forward(ctx, h: Tensor, w: Tensor, target: Tensor, epsilon: float,
                chunk: int, dtype: torch.dtype) -> tuple[Tensor, Tensor]:
        n, v = h.size(0), w.size(0)
        with torch.autocast(h.device.type, enabled=False):
            hl, wl = h.to(dtype), w.to(dtype)
            keep = target.ne(PAD)
            lse = torch.empty(n, dtype=torch.float32, device=h.device)
            nll_sum = torch.zeros((), dtype=torch.float32, device=h.device)
            smooth_sum = torch.zeros((), dtype=torch.float32, device=h.device)
            for start in range(0, n, chunk):
                rows = slice(start, start + chunk)
                z = torch.mm(hl[rows], wl.t()).float()  # (c, V): one chunk in fp32
                lse_c = torch.logsumexp(z, dim=-1)  # (c,)
                lse[rows] = lse_c
                nll = lse_c - z.gather(1, target[rows, None]).squeeze(1)
                smooth = v * lse_c - z.sum(dim=-1)
                nll_sum += torch.where(keep[rows], nll, 0.0).sum()
                smooth_sum += torch.where(keep[rows], smooth, 0.0).sum()
        ctx.save_for_backward(hl, wl, target, lse)
        ctx.epsilon, ctx.chunk, ctx.h_dtype = epsilon, chunk, h.dtype
        ctx.mark_non_differentiable(nll_sum)
        eps_i = epsilon / (v - 1)
        return (1.0 - epsilon - eps_i) * nll_sum + eps_i * smooth_sum, nll_sum

    @staticmethod
    def backward(ctx, grad_loss: Tensor, _grad_nll: Tensor):
        hl, wl, target, lse = ctx.saved_tensors
        v = wl.size(0)
        eps_i = ctx.epsilon / (v - 1)
        a = 1.0 - ctx.epsilon - eps_i
        keep = target.ne(PAD)
        grad_h = torch.empty_like(hl) if ctx.needs_input_grad[0] else None
        grad_w = (torch.zeros(wl.shape, dtype=torch.float32, device=wl.device)
                  if ctx.needs_input_grad[1] else None)
        for start in range(0, hl.size(0), ctx.chunk):
            rows = slice(start, start + ctx.chunk)
            hc, tc = hl[rows], target[rows]
            g = torch.mm(hc, wl.t()).float().sub_(lse[rows, None]).exp_()  # p (c, V)
            g.mul_(a + v * eps_i).sub_(eps_i)
            g.scatter_add_(1, tc[:, None], g.new_full((tc.size(0), 1), -a))
            g.mul_(keep[rows, None] * grad_loss)
            gl = g.to(hl.dtype)
            if grad_h is not None:
                torch.mm(gl, wl, out=grad_h[rows])
            if grad_w is not None:
                grad_w.add_(torch.mm(gl.t(), hc))
        return (None if grad_h is None else grad_h.to(ctx.h_dtype), grad_w,
                None, None, None, None)


CPU_CHUNK_ROWS = 512  # rows per chunk on a CPU: a chunk's logits stay in its caches
DEVICE_CHUNK_LOGITS = 1 << 28  # elsewhere (CUDA): logits per chunk (1 GiB in fp32):
# a 25k-token batch at V = 32k in 3 chunks (2^26: 12, each a dozen kernels a pass)


def chunk_rows(device: torch.device, vocab: int) -> int:
    """Rows per chunk of the fused loss on `device` (a multiple of 8)."""
    if device.type == "cpu":
        return CPU_CHUNK_ROWS
    return max(8, DEVICE_CHUNK_LOGITS // vocab // 8 * 8)


def linear_sequence_loss(hidden: Tensor, weight: Tensor, target: Tensor, epsilon: float,
                         chunk: int | None = None, ntokens: int | None = None
                         ) -> tuple[Tensor, Tensor]:
    """As `_linear_sequence_loss`; eager under torch.compile after
    `eager_under_compile()`."""
    return _linear_impl(hidden, weight, target, epsilon, chunk, ntokens)


def _linear_sequence_loss(hidden: Tensor, weight: Tensor, target: Tensor,
                          epsilon: float, chunk: int | None = None,
                          ntokens: int | None = None) -> tuple[Tensor, Tensor]:
    """Hidden states (B, T, C), output weight (V, C) and targets (B, T) ->
    summed (smoothed loss, NLL), as `sequence_loss(hidden @ weight.T, ...)`.

    Fused and chunked: `_LinearSmoothedCE` in float32, or under autocast
    `_LinearSmoothedCELowPrecision`, whose logits are in the autocast dtype
    (the unfused path's numbers: its output layer runs in that dtype too).
    `ntokens`, the targets that are not <pad> (`Batch.ntokens`, known on the
    host), lets only those rows through the output layer (read without a host
    synchronisation); without it every row goes through and padding is masked.
    `chunk`: rows per chunk (default `chunk_rows` of the device).
    """
    device = hidden.device.type
    if any_autocast() and not torch.is_autocast_enabled(device):
        raise ValueError(f"linear_sequence_loss: autocast is on for another device "
                         f"than the hidden states' ({device})")
    lowp = torch.get_autocast_dtype(device) if torch.is_autocast_enabled(device) else None
    if lowp is None and (hidden.dtype != torch.float32 or weight.dtype != torch.float32):
        raise ValueError("linear_sequence_loss outside autocast is for float32 inputs")
    h, t = hidden.reshape(-1, hidden.size(-1)), target.reshape(-1)
    if ntokens is not None and ntokens < t.numel():
        rows = torch.nonzero_static(t.ne(PAD), size=ntokens).view(-1)  # (n,)
        h, t = h.index_select(0, rows), t.index_select(0, rows)
    chunk = chunk or chunk_rows(hidden.device, weight.size(0))
    if lowp is not None and lowp != torch.float32:
        return _LinearSmoothedCELowPrecision.apply(h, weight, t, epsilon, chunk, lowp)
    return _LinearSmoothedCE.apply(h, weight, t, epsilon, chunk)


_linear_impl = _linear_sequence_loss  # replaced by eager_under_compile()


def eager_under_compile() -> None:
    """Run the fused loss eager under train.compile (a graph break before it):
    its Python loop over chunks of the batch's rows would specialise a compiled
    graph on the row count, one recompilation per batch shape whatever
    `dynamic=True` says. Not a decorator at import: `torch.compiler.disable`
    imports TorchDynamo, so only the compile path calls it."""
    global _linear_impl
    _linear_impl = torch.compiler.disable(_linear_sequence_loss)
