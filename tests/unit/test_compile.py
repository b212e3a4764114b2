"""`train.compile: true`: the loss forward of every family through torch.compile.

Inductor's C++ code generation takes minutes per model on a 2-core machine, so
these tests compile with lighter backends. TorchDynamo's capture of each
family's loss (graph breaks, guards, dynamic shapes) is what depends on our
code, and every test has it. The Transformer also goes through AOTAutograd
(`aot_eager`: its forward and backward traced as inductor would get them);
the other families use the `eager` backend, which runs Dynamo's graphs as
captured, at half the tracing time (measured: npmt 41 s -> 20 s,
pr_max_attn_ta 38 s -> 13 s). Our code's own autograd Functions (the fused
loss, SWAN's gathers) run behind graph breaks, so AOTAutograd never traces
them. Inductor's code generation is PyTorch's (`python -m benchmarks.speed
--suite precision --parts compile` runs the real thing and times it).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from phrasenmt.io import InputError
from phrasenmt.train import main as train_main
from phrasenmt.training import trainer as trainer_module
from phrasenmt.training.checkpoint import load_file
from tests.unit.test_precision import train_args, write_corpus

# One arch per family of forward code: CoNMT shares attn_rnn's network. The
# document-level models (Transformer subclasses) also compile and match eager
# (conmt, ctx_transformer and han_enc were checked once: 7 families, 250 s on
# 2 busy cores) but take 70 s each here: they are left out of the suite.
HEADS = ["transformer", "pr_max_attn_ta", "attn_rnn", "npmt"]
STEPS = 3


AOT_EAGER = {"transformer"}  # the archs traced through AOTAutograd as well


@pytest.fixture(autouse=True)
def one_thread_and_fast_backend(one_thread, monkeypatch, request):
    """One torch thread; torch.compile with a light backend (module doc), counted."""
    calls = []
    real = torch.compile
    arch = getattr(request.node, "callspec", None) and request.node.callspec.params.get("arch")
    backend = "aot_eager" if arch in AOT_EAGER else "eager"

    def light(module, **kwargs):
        calls.append(kwargs)
        return real(module, **{**kwargs, "backend": backend})

    monkeypatch.setattr(trainer_module.torch, "compile", light)
    torch._dynamo.reset()
    yield calls
    torch._dynamo.reset()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("compile")
    write_corpus(root)
    return root


def weights(outdir: Path) -> dict[str, torch.Tensor]:
    return load_file(outdir / "checkpoints" / f"checkpoint_{STEPS}.pt")["model"]


@pytest.mark.parametrize("arch", HEADS)
def test_compiled_training_equals_eager(arch, corpus, one_thread_and_fast_backend):
    eager, comp = corpus / f"{arch}.eager", corpus / f"{arch}.compiled"
    assert train_main(train_args(arch, corpus, eager, STEPS, "fp32")) == 0
    assert not one_thread_and_fast_backend
    assert train_main(train_args(arch, corpus, comp, STEPS, "fp32", compile=True)) == 0
    assert one_thread_and_fast_backend == [{"dynamic": True}]
    assert json.loads((comp / "summary.json").read_text())["compile"] is True
    assert json.loads((eager / "summary.json").read_text())["compile"] is False
    a, b = weights(eager), weights(comp)
    assert a.keys() == b.keys()
    for key in a:  # three updates at lr 1e-2 from the same init on the same batches
        assert torch.allclose(a[key], b[key], atol=1e-5), key


def test_resuming_with_compile_switched_on(corpus, one_thread_and_fast_backend):
    """The trainer's resume under compile, for any family: attn_rnn's loss traces
    in a third of the Transformer's time."""
    outdir = corpus / "resume"
    assert train_main(train_args("attn_rnn", corpus, outdir, 2, "fp32",
                                 save_interval=1, valid_interval=1)) == 0
    assert train_main(train_args("attn_rnn", corpus, outdir, STEPS, "fp32",
                                 save_interval=1, valid_interval=1, compile=True)) == 0
    assert one_thread_and_fast_backend == [{"dynamic": True}]
    assert json.loads((outdir / "summary.json").read_text())["steps"] == STEPS


def test_a_cpu_without_a_cxx_compiler_is_one_clear_error(monkeypatch):
    monkeypatch.setattr(trainer_module.shutil, "which", lambda name: None)
    with pytest.raises(InputError, match=r"train\.compile.*C\+\+ compiler"):
        trainer_module.compiled(torch.nn.Linear(2, 2), torch.device("cpu"))


def test_compile_must_be_a_boolean(corpus):
    args = train_args("transformer", corpus, corpus / "bad", STEPS, "fp32",
                      compile="yes")
    with pytest.raises(InputError, match="train.compile: expected bool, got 'yes'"):
        train_main(args)


def test_command_lines_do_not_import_torchdynamo():
    """TorchDynamo costs 1.5 s of every job's start-up: only train.compile may
    import it (swan.eager_under_compile), not the modules every rule runs."""
    code = ("import sys, phrasenmt.train, phrasenmt.translate, phrasenmt.average, "
            "phrasenmt.models.registry; print('torch._dynamo' in sys.modules, "
            "'scipy.special' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False"]


@pytest.mark.slow  # 20 s: TorchDynamo traces the model's forward and backward
def test_the_fused_loss_compiles_once_for_every_batch_shape():
    """Under train.compile the fused output layer + loss runs eager behind one
    graph break (`nn.loss.eager_under_compile`): its loop over chunks of rows
    would otherwise specialise the graph on the row count, a compilation per
    batch shape until TorchDynamo's cache limit sends the model back to eager."""
    from benchmarks.harness import random_batches
    from phrasenmt.models import build_model
    from phrasenmt.models.registry import get_model_class
    from phrasenmt.nn import loss as loss_module
    from phrasenmt.training.distributed import LossModule

    cfg = get_model_class("transformer").config_class(
        src_vocab_size=50, tgt_vocab_size=60, d_model=16, d_ff=32, n_heads=2,
        encoder_layers=1, decoder_layers=1)
    model = build_model("transformer", cfg).train()
    from torch._dynamo.utils import counters

    counters.clear()  # process-wide: the other compile tests of this process count too
    real = loss_module._linear_impl
    loss_module.eager_under_compile()
    try:
        # graphs are counted by TorchDynamo, before any backend
        compiled = torch.compile(LossModule(model), dynamic=True, backend="eager")
        for batch in random_batches(6, 4, 50, (3, 12), seed=3):  # 6 shapes
            loss, _ = compiled(batch, 0.1)
            loss.backward()
    finally:
        loss_module._linear_impl = real
    assert counters["stats"]["unique_graphs"] <= 3  # before, after the loss (+1)
