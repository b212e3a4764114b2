"""The fused output layer + loss under bf16 autocast, and training forwards
that read nothing back from the device."""

from __future__ import annotations

import contextlib
import importlib
import os
import sys

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from phrasenmt.models import build_model
from phrasenmt.models.registry import get_model_class
from phrasenmt.nn.batching import collate
from phrasenmt.nn.loss import chunk_rows, linear_sequence_loss, sequence_loss

BF16 = torch.bfloat16


@pytest.fixture(autouse=True, scope="module")
def one_thread_and_dynamo(one_thread):
    importlib.import_module("torch._dynamo")  # what a dispatch mode imports at first


def problem(rows: int, vocab: int, width: int = 16, seed: int = 0):
    """Hidden states (2, rows, C) and weight (V, C) with gradients, targets with
    padding at the end of the first row and most of the second."""
    g = torch.Generator().manual_seed(seed)
    h = torch.randn(2, rows, width, generator=g).requires_grad_()
    w = (0.3 * torch.randn(vocab, width, generator=g)).requires_grad_()
    target = torch.randint(4, vocab, (2, rows), generator=g)
    target[0, rows - 3:] = 0  # <pad>
    target[1, rows // 3:] = 0
    return h, w, target, int(target.ne(0).sum())


def grads(fn, h, w):
    h.grad = w.grad = None
    loss, nll = fn()
    (2.0 * loss).backward()  # the upstream gradient is multiplied in
    return loss.detach(), nll.detach(), h.grad.clone(), w.grad.clone()


def reference_bf16(h, w, target, eps):
    """The unfused path under autocast: bf16 logits, then the float32 loss."""
    with torch.autocast("cpu", dtype=BF16):
        return sequence_loss(torch.nn.functional.linear(h, w), target, eps)


@pytest.mark.parametrize("eps", [0.1, 0.0])
@pytest.mark.parametrize("chunk,real", [(8, True), (7, False), (512, True)])
def test_bf16_fused_loss_equals_the_unfused_path(eps, chunk, real):
    """Under bf16 autocast: the unfused path's loss and NLL to 1e-3 relative,
    and its gradients to 2 % of their largest entry (bf16 products, rounded in
    another order); padding rows get no gradient; only real rows (`real`:
    ntokens given) or all rows go through the product."""
    h, w, target, n = problem(24, 45)
    want = grads(lambda: reference_bf16(h, w, target, eps), h, w)

    def fused():
        with torch.autocast("cpu", dtype=BF16):
            return linear_sequence_loss(h, w, target, eps, chunk, n if real else None)

    got = grads(fused, h, w)
    assert got[0].dtype == got[1].dtype == torch.float32
    assert torch.allclose(got[0], want[0], rtol=1e-3)
    assert torch.allclose(got[1], want[1], rtol=1e-3)
    for a, b in zip(got[2:], want[2:], strict=True):
        assert a.dtype == b.dtype == torch.float32
        assert (a - b).abs().max() <= 0.02 * b.abs().max()
    assert got[2][target.eq(0)].abs().sum() == 0  # padding rows
    assert not got[1].requires_grad


@pytest.mark.parametrize("eps", [0.1, 0.0])
def test_fp32_fused_loss_over_real_rows_equals_the_unfused_path(eps):
    """In float32, with only the real rows through the product: the unfused
    path's sums and gradients to 1e-6."""
    h, w, target, n = problem(24, 45)
    want = grads(lambda: sequence_loss(h @ w.t(), target, eps), h, w)
    got = grads(lambda: linear_sequence_loss(h, w, target, eps, 8, n), h, w)
    for a, b in zip(got, want, strict=True):
        assert torch.allclose(a, b, rtol=1e-6, atol=1e-6)


def test_fp32_fused_loss_with_a_frozen_output_layer_computes_no_weight_gradient():
    """Step 2 freezes the output layer: the fused loss then gives the hidden
    states the unfused path's gradient and spends no product on the weight's."""
    h, w, target, n = problem(24, 45)
    w.requires_grad_(False)
    want = sequence_loss(h @ w.t(), target, 0.1)
    (2.0 * want[0]).backward()
    want_h, h.grad = h.grad.clone(), None
    products = []
    real_addmm = torch.Tensor.addmm_
    torch.Tensor.addmm_ = lambda self, *a, **k: products.append(1) or real_addmm(self, *a, **k)
    try:
        got = linear_sequence_loss(h, w, target, 0.1, 8, n)
    finally:
        torch.Tensor.addmm_ = real_addmm
    (2.0 * got[0]).backward()
    assert torch.allclose(got[0], want[0], rtol=1e-6)
    assert torch.allclose(h.grad, want_h, rtol=1e-6, atol=1e-6)
    assert w.grad is None and not products


class LargestFloat32(TorchDispatchMode):
    """The most elements of any float32 tensor an operator returns."""

    def __init__(self):
        super().__init__()
        self.largest = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in out if isinstance(out, (tuple, list)) else (out,):
            if isinstance(t, torch.Tensor) and t.dtype == torch.float32:
                self.largest = max(self.largest, t.numel())
        return out


def test_bf16_fused_loss_holds_one_chunk_of_float32_logits():
    """Forward and backward of the bf16 path: no float32 tensor larger than one
    chunk of logits (rows x V), where the unfused path holds positions x V."""
    rows, vocab, chunk = 64, 96, 8
    h, w, target, n = problem(rows, vocab, width=8)
    assert n * vocab > 10 * chunk * vocab  # many chunks
    sizes = []
    for fn in (lambda: reference_bf16(h, w, target, 0.1),
               lambda: linear_sequence_loss(h, w, target, 0.1, chunk, n)):
        mode = LargestFloat32()
        with mode:
            with torch.autocast("cpu", dtype=BF16):
                loss, _ = fn()
            loss.backward()
        sizes.append(mode.largest)
    unfused, fused = sizes
    bound = max(chunk * vocab, h.numel(), w.numel())  # a chunk; inputs, gradients
    assert bound < n * vocab
    assert unfused >= 2 * rows * vocab  # the float32 logits of every position
    assert fused <= bound


def test_chunk_rows_by_device():
    assert chunk_rows(torch.device("cpu"), 32000) == 512
    rows = chunk_rows(torch.device("cuda"), 32000)
    assert rows % 8 == 0 and rows * 32000 <= 1 << 28 and rows >= 8000


# ---------------------------------------------------------------------------
# No read-back of a device value in a training forward.


def in_packed_rnn() -> bool:
    """Whether torch's packed-sequence RNN code is on the stack: it reads the
    PackedSequence's batch sizes, a host tensor by design (not a device read)."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename.endswith(PACKED_RNN_FILES):
            return True
        frame = frame.f_back
    return False


PACKED_RNN_FILES = (os.path.join("torch", "nn", "modules", "rnn.py"),
                    os.path.join("torch", "nn", "utils", "rnn.py"))


class NoReadBack(TorchDispatchMode):
    """Raises on an operator that reads a value back to the host: a scalar
    (.item(), int(t), bool(t), float(t)) or, unless `shapes`, an output whose
    shape depends on the values (nonzero, masked_select). With `shapes`, the
    packed RNNs' reads of their host batch sizes pass too."""

    SHAPES = frozenset({torch.ops.aten.nonzero.default, torch.ops.aten.masked_select.default})

    def __init__(self, shapes: bool = False):
        super().__init__()
        self.shapes = shapes

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if func is torch.ops.aten._local_scalar_dense.default and not (
                self.shapes and in_packed_rnn()):
            raise AssertionError("a scalar read back from a tensor (item/int/bool)")
        if not self.shapes and func in self.SHAPES:
            raise AssertionError(f"{func}: a shape read back from the values")
        return func(*args, **(kwargs or {}))


@contextlib.contextmanager
def no_read_back(shapes: bool = False):
    """NoReadBack, and Tensor.tolist refused (it reads without dispatching)."""
    def refuse(*_args, **_kwargs):
        raise AssertionError("Tensor.tolist in a training forward")

    original = torch.Tensor.tolist
    torch.Tensor.tolist = refuse
    try:
        with NoReadBack(shapes):
            yield
    finally:
        torch.Tensor.tolist = original


def test_the_detector_catches_read_backs():
    t = torch.tensor([1, 2])
    for read in (lambda: t.max().item(), lambda: int(t.max()), lambda: bool(t.all()),
                 lambda: t.nonzero(), lambda: t.tolist()):
        with pytest.raises(AssertionError), no_read_back():
            read()


def model_and_batch(arch: str, **cfg):
    cls = get_model_class(arch)
    torch.manual_seed(0)
    model = build_model(arch, cls.config_class(src_vocab_size=23, tgt_vocab_size=29,
                                               **cfg)).train()
    src = [[5, 6, 7, 8], [9, 10, 11]]
    side = {"phrases": [[0, 0, 1, 2], [0, 1, 1]]} if "phrases" in cls.side_inputs else None
    return model, collate(src, [[12, 13], [14, 15, 16, 17]], side)


TINY = {"d_model": 16, "d_ff": 32, "n_heads": 2, "dropout": 0.1,
        "encoder_layers": 1, "decoder_layers": 1}


@pytest.mark.parametrize("arch", ["transformer", "pr_max_attn_ta", "pr_mean"])
@pytest.mark.parametrize("bf16", [False, True])
def test_transformer_training_step_reads_nothing_back(arch, bf16):
    """The Transformer and phrase-representation models: loss and backward
    without a scalar or a value-dependent shape read back (the phrase count
    comes with the batch, counted when it was collated)."""
    model, batch = model_and_batch(arch, **TINY)
    assert batch.side_sizes == ({"phrases": 3} if "phrases" in batch.side else {})
    amp = torch.autocast("cpu", dtype=BF16) if bf16 else contextlib.nullcontext()
    with no_read_back():
        with amp:
            loss, _ = model.loss(batch, 0.1)
        loss.backward()
    assert torch.isfinite(loss)


@pytest.mark.parametrize("arch", ["npmt", "npmt_noreorder"])
def test_npmt_training_forward_reads_no_scalar_back(arch):
    """NPMT's loss (encoder, segment scores, DP, the count of skipped pairs)
    reads no scalar back; its rollouts are still selected by nonzero, and its
    packed RNNs take their lengths on the host (shapes: allowed here)."""
    model, _ = model_and_batch(arch, embed_size=8, encoder_hidden=8, decoder_hidden=16,
                               max_segment_len=2, dropout=0.0, window=3)
    batch = collate([[4, 5, 6], [4]], [[7, 8, 9, 4], [5, 6, 7, 8, 9]])  # one impossible
    with no_read_back(shapes=True):
        loss, _ = model.loss(batch, 0.0)
        loss.backward()
    assert torch.isfinite(loss) and int(model.skipped_pairs) == 1
