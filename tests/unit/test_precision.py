"""Precision (auto | fp32 | bf16): how auto decides, that bf16 trains, scores and
decodes every model family on CPU with float32 weights and losses, that a bf16
checkpoint decodes the same in fp32, and that bf16 resumes bit for bit.

bf16 runs on any CPU (where it has no amx_bf16/avx512_bf16, its matrix
products run as float32 products of bf16 inputs: `Bf16MatmulInFp32`), so
nothing here is skipped but the check that the trainer uses that path. Tolerance of bf16 against fp32 decoding of
the same checkpoint: the same hypothesis on at least 90% of the test sentences
and forced-decoding scores within 0.1 nats per sentence (bf16 keeps 8 bits of
mantissa: a relative error of 0.4% per product; measured: at most 0.02 nats).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from phrasenmt import precision as prec
from phrasenmt.config import validate_config
from phrasenmt.io import InputError
from phrasenmt.models.registry import MODELS, get_model_class
from phrasenmt.models.swan import segment_log_likelihood
from phrasenmt.models.vmf import vmf_loss
from phrasenmt.nn.loss import sequence_loss
from phrasenmt.train import main as train_main
from phrasenmt.train_fertility import main as fertility_main
from phrasenmt.training.checkpoint import load_file, load_model
from phrasenmt.training.data import DataPaths
from phrasenmt.training.spec import resolve_spec
from phrasenmt.training.trainer import Trainer
from phrasenmt.translate import main as translate_main
from phrasenmt.workflow import runs
from tests.conftest import REPO, TEST_CONFIG

CPU = torch.device("cpu")
NATIVE = prec.cpu_has_native_bf16(prec.cpu_flags())  # avx512_bf16 or amx_bf16
AMX = "amx_bf16" in prec.cpu_flags()  # where auto picks bf16 on a CPU
TRANSFORMER = {"d_model": 16, "d_ff": 32, "n_heads": 2, "encoder_layers": 1,
               "decoder_layers": 1, "dropout": 0.0}
RNN = {"embed_size": 8, "hidden_size": 16, "dropout": 0.0}
NPMT = {"embed_size": 8, "encoder_hidden": 8, "decoder_hidden": 8,
        "encoder_layers": 1, "decoder_layers": 1, "max_segment_len": 2, "window": 3}
# One arch per family trains long enough to translate (non-empty outputs) and
# is held to the tolerance on translations; the other archs of a family share
# its code and train 3 steps (near-uniform outputs: bf16 flips near-ties), held
# to the tolerance on scores only.
FAMILY_HEADS = {"transformer": 40, "pr_max_attn_ta": 40, "attn_rnn": 100,
                "conmt": 20, "pconmt_fert2": 20, "npmt": 40, "ctx_transformer": 30,
                "han_enc_dec": 30}  # attn_rnn_reorder: attn_rnn + npmt's reordering
STEPS = {arch: FAMILY_HEADS.get(arch, 3) for arch in sorted(MODELS)
         if not arch.startswith("test_")}  # test_* archs: other tests' registrations

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


# -- how auto decides -------------------------------------------------------------


@pytest.mark.parametrize("flags, expected", [
    ({"avx2", "fma"}, "fp32"),  # no native bf16
    ({"avx2", "avx512f", "avx512_bf16"}, "fp32"),  # Zen 4, Cooper Lake: bf16 slower
    ({"avx512f", "avx512_bf16", "amx_tile", "amx_bf16"}, "bf16"),  # Sapphire Rapids
    ({"amx_bf16"}, "bf16"),
    (set(), "fp32"),  # flags unreadable
])
def test_auto_follows_the_cpu_flags(flags, expected, capsys):
    assert prec.resolve("auto", CPU, flags) == expected
    assert prec.resolve("fp32", CPU, flags) == "fp32"
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("width, expected", [
    (None, "bf16"), (64, "fp32"), (128, "fp32"), (255, "fp32"), (256, "bf16"), (1024, "bf16")])
def test_auto_on_amx_picks_bf16_only_for_a_model_at_least_256_wide(width, expected):
    """Below 256 the casts cost more than AMX saves (the module doc's figures);
    a width not known is judged by the flags alone; asked-for bf16 stays."""
    assert prec.resolve("auto", CPU, {"amx_bf16"}, width=width) == expected
    assert prec.resolve("auto", CPU, {"avx2"}, width=width) == "fp32"
    assert prec.resolve("bf16", CPU, {"amx_bf16"}, width=64) == "bf16"


@pytest.mark.parametrize("arch, preset, width", [
    ("transformer", "tiny", 128), ("transformer", "base", 512), ("han_dec", "tiny", 128),
    ("attn_rnn", "tiny", 128), ("attn_rnn", "base", 1024), ("conmt", "tiny", 128),
    ("npmt", "tiny", 64), ("npmt", "iwslt", 512), ("pr_max_attn_ta", "base", 512)])
def test_model_width_of_every_family(arch, preset, width):
    spec = resolve_spec({"arch": arch, "preset": preset, "model": {}, "train": {}})
    assert prec.model_width(spec.model) == width
    assert prec.model_width(object()) is None


def test_bf16_without_native_support_warns_once_and_stays_bf16(capsys):
    assert prec.resolve("bf16", CPU, {"avx2"}) == "bf16"  # never silently fp32
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("warning: --precision bf16: this "
                                                   "CPU has no native bf16")
    assert prec.resolve("bf16", CPU, {"amx_bf16"}) == "bf16"
    assert capsys.readouterr().err == ""


def test_cpu_flags_are_read_from_cpuinfo(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: X\nflags\t\t: fpu avx2 amx_bf16\n"
                    "\nprocessor\t: 1\nflags\t\t: fpu\n")
    assert prec.cpu_flags(info) == {"fpu", "avx2", "amx_bf16"}
    assert prec.cpu_flags(tmp_path / "missing") == frozenset()
    assert prec.resolve("auto", CPU) == ("bf16" if AMX else "fp32")


def test_avx512_bf16_without_amx_is_native_but_not_auto(capsys):
    zen4 = {"avx512f", "avx512_bf16"}
    assert prec.cpu_has_native_bf16(zen4) and not prec.bf16_pays(CPU, zen4)
    assert prec.resolve("bf16", CPU, zen4) == "bf16"  # asked for: honoured, no warning
    assert capsys.readouterr().err == ""
    assert prec.bf16_pays(CPU, {"amx_bf16"}) and not prec.bf16_pays(CPU, set())


def test_autocast_and_full_precision():
    a = torch.randn(4, 4)
    with prec.autocast("bf16", CPU):
        assert (a @ a).dtype == torch.bfloat16
        seen = prec.full_precision(lambda x: (x.dtype, (x @ x).dtype))(a @ a)
        assert seen == (torch.float32, torch.float32)
    with prec.autocast("fp32", CPU):
        assert (a @ a).dtype == torch.float32
    with pytest.raises(ValueError, match="resolve precision 'auto' first"):
        prec.autocast("auto", CPU)


# -- bf16 matrix products through float32 kernels (CPUs without native bf16) ------

BF = torch.bfloat16


def matmul_cases() -> dict[str, tuple]:
    g = torch.Generator().manual_seed(0)

    def r(*shape):
        return torch.randn(*shape, generator=g).to(BF)

    return {"mm": (torch.mm, r(64, 96), r(96, 80)),
            "addmm": (torch.addmm, r(80), r(64, 96), r(96, 80)),
            "bmm": (torch.bmm, r(3, 32, 48), r(3, 48, 40)),
            "baddbmm": (torch.baddbmm, r(3, 32, 40), r(3, 32, 48), r(3, 48, 40)),
            "mv": (torch.mv, r(64, 96), r(96)),
            "addmv": (torch.addmv, r(64), r(64, 96), r(96)),
            "dot": (torch.dot, r(96), r(96))}


@pytest.mark.parametrize("name", sorted(matmul_cases()))
def test_bf16_products_in_fp32_kernels_equal_bf16_kernels(name):
    """What torch's own bf16 kernel returns, up to float32 summation order."""
    fn, *args = matmul_cases()[name]
    native = fn(*args)
    with prec.Bf16MatmulInFp32():
        emulated = fn(*args)
    exact = fn(*(a.double() for a in args))
    assert emulated.dtype == native.dtype == BF and emulated.shape == native.shape
    # At most one bf16 step (2^-8 relative) from the other kernel, and from
    # the float64 product rounded to bf16: a single rounding of a float32 sum.
    step = 2.0 ** -7 * exact.abs().clamp_min(1e-2)
    assert ((emulated.double() - native.double()).abs() <= step).all()
    assert ((emulated.double() - exact).abs() <= step).all()
    assert (emulated == native).double().mean() >= 0.99
    assert fn(*(a.float() for a in args)).dtype == torch.float32  # fp32: untouched
    with prec.Bf16MatmulInFp32():
        assert fn(*(a.float() for a in args)).dtype == torch.float32


def test_emulated_bf16_gradients_match_bf16_kernels_not_fp32():
    """A Transformer's loss and gradients under autocast + kernels are those of
    bf16: over 10x closer to torch's own bf16 kernels than fp32 is (30x here)."""
    from phrasenmt.models import build_model
    from phrasenmt.models.transformer import TransformerConfig
    from phrasenmt.nn.batching import collate
    cfg = TransformerConfig(src_vocab_size=50, tgt_vocab_size=50, d_model=32,
                            d_ff=64, n_heads=2, encoder_layers=1, decoder_layers=1,
                            dropout=0.0)
    torch.manual_seed(0)
    model = build_model("transformer", cfg)
    g = torch.Generator().manual_seed(1)
    rows = [torch.randint(4, 50, (12,), generator=g).tolist() for _ in range(16)]
    batch = collate(rows, rows)

    def grads(cast, kernels) -> torch.Tensor:
        model.zero_grad()
        with kernels:
            with cast:
                loss, _ = model.loss(batch, 0.1)
            loss.backward()
        return torch.cat([p.grad.flatten() for p in model.parameters()])

    fp32 = grads(contextlib.nullcontext(), contextlib.nullcontext())
    native = grads(torch.autocast("cpu", dtype=BF), contextlib.nullcontext())
    emulated = grads(torch.autocast("cpu", dtype=BF), prec.Bf16MatmulInFp32())
    to_native = (emulated - native).norm() / native.norm()
    assert to_native < (fp32 - native).norm() / native.norm() / 10


def test_autocast_adds_the_fp32_kernels_only_where_bf16_is_not_native():
    from torch.utils._python_dispatch import _get_current_dispatch_mode_stack as modes
    assert prec.emulates_bf16("bf16", CPU) is not NATIVE
    assert not prec.emulates_bf16("fp32", CPU)
    with prec.autocast("bf16", CPU):
        assert any(isinstance(m, prec.Bf16MatmulInFp32) for m in modes()) is not NATIVE
        with prec.kernels("bf16", CPU):  # already on: not stacked twice
            assert sum(isinstance(m, prec.Bf16MatmulInFp32) for m in modes()) <= 1
    assert not modes()
    with prec.autocast("fp32", CPU):
        assert not modes()


@pytest.mark.skipif(NATIVE, reason="this CPU has native bf16: torch's bf16 kernels run")
def test_trainer_runs_forward_and_backward_bf16_products_in_fp32_kernels(
        corpus, tmp_path, monkeypatch):
    seen = []  # grad mode at each bf16 product: on in forward, off in backward
    dispatch = prec.Bf16MatmulInFp32.__torch_dispatch__

    def spy(self, func, types, args=(), kwargs=None):
        if func in prec.BF16_MATMULS and any(getattr(a, "dtype", None) == BF
                                             for a in args):
            seen.append(torch.is_grad_enabled())
        return dispatch(self, func, types, args, kwargs)

    monkeypatch.setattr(prec.Bf16MatmulInFp32, "__torch_dispatch__", spy)
    t = trainer("transformer", corpus, tmp_path, 1)
    t.train_step()
    assert True in seen and False in seen, seen


# -- config and options -----------------------------------------------------------


def base_config() -> dict:
    import yaml

    return yaml.safe_load(TEST_CONFIG.read_text(encoding="utf-8"))


@pytest.mark.parametrize("where", ["global", "model"])
def test_config_rejects_fp16(where):
    config = base_config()
    target = config if where == "global" else config["models"]["transformer"]
    target["precision"] = "fp16"
    with pytest.raises(InputError) as err:
        validate_config(config, "config.yaml")
    key = "precision" if where == "global" else "models.transformer.precision"
    assert f"config.yaml: {key}: 'fp16' is not one of auto, fp32, bf16" in str(err.value)


def test_model_precision_overrides_the_global_one():
    config = base_config()
    config["precision"] = "fp32"
    config["models"]["npmt"]["precision"] = "bf16"
    validate_config(config, "config.yaml")
    assert runs.precision(config, "transformer") == "fp32"
    assert runs.precision(config, "npmt") == "bf16"
    assert runs.precision(config, "npmt_lm") == "bf16"  # checkpoint_of npmt
    config["models"]["npmt_lm"]["precision"] = "fp32"
    assert runs.precision(config, "npmt_lm") == "fp32"
    del config["precision"]
    validate_config(config, "config.yaml")
    assert config["precision"] == "auto"


@pytest.mark.parametrize("main, argv", [
    (train_main, ["--spec", "{}"]), (translate_main, []),
    (translate_main, ["score"]), (fertility_main, [])])
def test_every_cli_refuses_fp16_on_one_line(main, argv, capsys):
    with pytest.raises(SystemExit) as done:
        main([*argv, "--precision", "fp16"])
    err = capsys.readouterr().err
    assert done.value.code == 2 and err.count("\n") == 1
    assert "--precision: invalid choice: 'fp16'" in err


# -- every family in bf16 ----------------------------------------------------------


def write_corpus(root: Path) -> None:
    """Copy task (w3 w1 -> W3 W1) in documents, with phrase ids per token."""
    g = torch.Generator().manual_seed(0)
    for split, n in (("train", 80), ("dev", 8), ("test", 16)):
        src, docs = [], []
        while len(src) < n:
            size = min(int(torch.randint(1, 4, (1,), generator=g)), n - len(src))
            docs += [f"{split}{len(src)}"] * size
            for _ in range(size):
                k = int(torch.randint(2, 6, (1,), generator=g))
                src.append(" ".join(f"w{int(i)}" for i in torch.randint(
                    0, 10, (k,), generator=g)))
        lines = {"src": src, "tgt": [s.upper() for s in src], "docs": docs,
                 "phrases": [" ".join(str(i // 2) for i in range(len(s.split())))
                             for s in src],
                 "fert": [" ".join(str(int(w in ("w1", "w2"))) for w in s.split())
                          for s in src]}
        for ext, rows in lines.items():
            (root / f"{split}.{ext}").write_text("".join(r + "\n" for r in rows))
    vec = ["</s>", *(f"W{i}" for i in range(10))]
    gv = torch.Generator().manual_seed(1)
    (root / "words.vec").write_text(f"{len(vec)} 8\n" + "".join(
        t + " " + " ".join(f"{x:.4f}" for x in torch.randn(8, generator=gv)) + "\n"
        for t in vec))
    (root / "phrases.vec").write_text("1 8\nW1_W2 " + " ".join(["0.1"] * 8) + "\n")


def model_settings(arch: str, root: Path) -> dict:
    if arch.startswith("npmt"):
        return NPMT
    if "conmt" in arch:
        tables = {"embed_dim": 8, "word_table": str(root / "words.vec")}
        if arch.startswith("pconmt"):
            tables["phrase_table"] = str(root / "phrases.vec")
        return {**RNN, **tables}
    return RNN if arch.startswith("attn_rnn") else TRANSFORMER


def spec(arch: str, root: Path, steps: int, **overrides) -> dict:
    train = {"max_steps": steps, "max_tokens": 200, "update_tokens": 100, "lr": 1e-2,
             "warmup_steps": 1, "save_interval": steps, "valid_interval": steps,
             "log_interval": steps, "keep_last": 1, "average_last": 1, **overrides}
    if arch.startswith("npmt"):
        train["label_smoothing"] = 0.0  # NPMT maximizes a marginal likelihood
    return {"arch": arch, "preset": "tiny", "model": model_settings(arch, root),
            "train": train}


def extra_args(arch: str, root: Path, splits: tuple[str, ...]) -> list[str]:
    """--side phrases=... and --docs ... as the arch needs them."""
    args = []
    if "phrases" in get_model_class(arch).side_inputs:
        args += ["--side", "phrases=" + ",".join(f"{root}/{s}.phrases" for s in splits)]
    if get_model_class(arch).context_sides:
        args += ["--docs", ",".join(f"{root}/{s}.docs" for s in splits)]
    return args


def train_args(arch: str, root: Path, outdir: Path, steps: int,
               precision: str = "bf16", **overrides) -> list[str]:
    return ["--spec", json.dumps(spec(arch, root, steps, **overrides)),
            *(f"--{s}-{side}={root}/{s}.{side}" for s in ("train", "dev")
              for side in ("src", "tgt")),
            "--outdir", str(outdir), "--seed", "1", "--device", "cpu", "--no-progress",
            "--precision", precision, *extra_args(arch, root, ("train", "dev"))]


def decode(arch: str, root: Path, model: Path, precision: str) -> tuple[list, list]:
    """Beam-2 hypotheses (CoNMT: its greedy search) and forced-decoding scores
    of the test set (scores: [])."""
    extra = extra_args(arch, root, ("test",))
    hyp, scores = root / f"{arch}.{precision}.hyp", root / f"{arch}.{precision}.scores"
    common = ["--checkpoint", str(model), "--precision", precision, "--device", "cpu",
              *extra]
    beam = [] if "conmt" in arch else ["--beam", "2"]  # nearest neighbour: no beam
    assert translate_main([*common, "--input", str(root / "test.src"), *beam,
                           "--output", str(hyp)]) == 0
    if "conmt" in arch:  # vectors, not token probabilities: no forced scoring
        return hyp.read_text().splitlines(), []
    assert translate_main(["score", *common, "--src", str(root / "test.src"), "--tgt",
                           str(root / "test.tgt"), "--output", str(scores)]) == 0
    return hyp.read_text().splitlines(), [float(x) for x in scores.read_text().split()]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("precision")
    write_corpus(root)
    return root


def assert_float32_checkpoint(path: Path) -> None:
    model = load_file(path)["model"]
    floats = {k: v.dtype for k, v in model.items() if v.is_floating_point()}
    assert floats and set(floats.values()) == {torch.float32}


@pytest.mark.parametrize("arch", sorted(STEPS))
def test_bf16_trains_scores_and_decodes_like_fp32(arch, corpus, capsys):
    outdir = corpus / arch
    assert train_main(train_args(arch, corpus, outdir, STEPS[arch])) == 0
    err = capsys.readouterr().err
    assert "precision: bf16" in err
    assert ("no native bf16" in err) is not NATIVE
    summary = json.loads((outdir / "summary.json").read_text())
    assert summary["precision"] == "bf16" and summary["steps"] == STEPS[arch]
    assert math.isfinite(summary["best_dev_loss"])
    model = outdir / "checkpoints" / f"checkpoint_{STEPS[arch]}.pt"
    assert_float32_checkpoint(model)
    if arch.startswith("pconmt_fert"):  # decoded once its fertility module trained
        with pytest.raises(InputError, match="fertility module .* was not trained"):
            decode(arch, corpus, model, "bf16")  # (next test: after train_fertility)
        return
    hyp16, score16 = decode(arch, corpus, model, "bf16")
    hyp32, score32 = decode(arch, corpus, model, "fp32")  # loads in fp32
    assert len(hyp16) == len(hyp32) == 16
    for a, b in zip(score16, score32, strict=True):
        assert abs(a - b) <= 0.1 and a < 0
    if arch in FAMILY_HEADS:  # trained: ties are rare (not so after 3 steps)
        # At most 2 of the 16 differ: bf16 rounds each product, so a search can
        # take the other branch of a near tie. Without AMX every family agreed
        # on 15 or 16; with AMX's bf16 kernels han_enc_dec on 14, three on 15.
        differ = sum(a != b for a, b in zip(hyp16, hyp32, strict=True))
        assert differ <= 2, list(zip(hyp16, hyp32, strict=True))
        assert sum(bool(h) for h in hyp32) >= 4  # it translates: not all empty


def test_two_step_and_fertility_training_in_bf16(corpus, capsys):
    step1 = corpus / "step1"
    assert train_main(train_args("transformer", corpus, step1, 3, "fp32")) == 0
    step2 = corpus / "han_step2"
    args = train_args("han_enc", corpus, step2, 3)
    init = step1 / "checkpoints" / "checkpoint_3.pt"
    assert train_main([*args, "--init-from", str(init)]) == 0
    assert "two-step: loaded" in capsys.readouterr().err
    assert json.loads((step2 / "summary.json").read_text())["precision"] == "bf16"
    assert_float32_checkpoint(step2 / "checkpoints" / "checkpoint_3.pt")
    run = corpus / "pconmt_fert"
    assert train_main(train_args("pconmt_fert2", corpus, run, 3)) == 0
    out = corpus / "fertility.pt"
    assert fertility_main([
        "--checkpoint", str(run / "checkpoints" / "checkpoint_3.pt"), "--out",
        str(out), "--precision", "bf16",
        *(f"--{s}-{k}={corpus}/{s}.{e}" for s in ("train", "dev")
          for k, e in (("src", "src"), ("labels", "fert")))]) == 0
    assert "precision: bf16" in capsys.readouterr().err
    assert_float32_checkpoint(out)
    hyp16, _ = decode("pconmt_fert2", corpus, out, "bf16")
    hyp32, _ = decode("pconmt_fert2", corpus, out, "fp32")
    assert sum(a == b for a, b in zip(hyp16, hyp32, strict=True)) >= 0.9 * len(hyp32)


# -- losses stay float32 ------------------------------------------------------------


def trainer(arch: str, root: Path, outdir: Path, steps: int,
            precision: str = "bf16") -> Trainer:
    paths = DataPaths(*(root / f for f in ("train.src", "train.tgt", "dev.src",
                                           "dev.tgt")))
    cls = get_model_class(arch)
    if "phrases" in cls.side_inputs:
        paths.side = {"phrases": (root / "train.phrases", root / "dev.phrases")}
    if cls.context_sides:
        paths.docs = (root / "train.docs", root / "dev.docs")
    return Trainer(resolve_spec(spec(arch, root, steps)), paths, outdir, seed=2,
                   device="cpu", progress_bar=False, precision=precision)


@pytest.mark.parametrize("arch", ["transformer", "pr_max_attn_ta", "attn_rnn",
                                  "conmt", "npmt", "ctx_transformer", "han_enc_dec"])
def test_losses_are_float32_while_the_forward_pass_is_bf16(arch, corpus, tmp_path):
    t = trainer(arch, corpus, tmp_path, 1)
    linear_out = []
    hooks = [m.register_forward_hook(lambda m, i, o: linear_out.append(o.dtype))
             for m in t.model.modules() if isinstance(m, torch.nn.Linear)]
    batch = t._batch(t.train_data, list(range(8)))
    with t._autocast():
        loss, nll = t.model.loss(batch, t.cfg.label_smoothing)
    assert loss.dtype == nll.dtype == torch.float32
    assert torch.bfloat16 in linear_out  # autocast did run the products in bf16
    loss.backward()
    for hook in hooks:
        hook.remove()
    grads = {p.grad.dtype for p in t.model.parameters() if p.grad is not None}
    assert grads == {torch.float32}
    assert {p.dtype for p in t.model.parameters()} == {torch.float32}


def loss_cases() -> dict:
    """Each loss on bf16 inputs -> (function, bf16 args, float64-or-32 result dtype)."""
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(2, 3, 7, generator=g).to(torch.bfloat16)
    target = torch.tensor([[4, 5, 2], [6, 0, 0]])
    pred = torch.randn(5, 8, generator=g).to(torch.bfloat16)
    unit = torch.nn.functional.normalize(torch.randn(5, 8, generator=g), dim=-1)
    seg = torch.randn(1, 3, 3, 3, generator=g).to(torch.bfloat16)  # (B, P, T+1, L+1)
    lengths = (torch.tensor([3]), torch.tensor([2]))
    return {"label-smoothed CE": (sequence_loss, (logits, target, 0.1), torch.float32),
            "vMF": (vmf_loss, (pred, unit, 0.02, 0.1), torch.float32),
            "SWAN DP": (segment_log_likelihood, (seg, *lengths), torch.float64)}


@pytest.mark.parametrize("name", ["label-smoothed CE", "vMF", "SWAN DP"])
def test_losses_upcast_bf16_inputs_under_autocast(name):
    fn, args, dtype = loss_cases()[name]
    with prec.autocast("bf16", CPU):
        got = fn(*args)
    up = [a.float() if a.is_floating_point() else a for a in args
          if isinstance(a, torch.Tensor)]
    want = fn(*up, *args[len(up):])  # the same numbers in fp32, no autocast
    for g, w in zip(got if isinstance(got, tuple) else (got,),
                    want if isinstance(want, tuple) else (want,), strict=True):
        assert g.dtype == dtype and torch.equal(g, w)


# -- resuming ----------------------------------------------------------------------


def test_bf16_resume_is_bit_exact(corpus, tmp_path):
    full = trainer("transformer", corpus, tmp_path / "full", 9)
    full.run()
    trainer("transformer", corpus, tmp_path / "parts", 4).run()
    resumed = trainer("transformer", corpus, tmp_path / "parts", 9)
    assert resumed.state.step == 4
    resumed.run()
    a, b = full.model.state_dict(), resumed.model.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    opt_a, opt_b = full.optimizer.state_dict(), resumed.optimizer.state_dict()
    for pid, state in opt_a["state"].items():
        assert all(torch.equal(v, opt_b["state"][pid][k]) for k, v in state.items())


def test_resuming_in_another_precision_works(corpus, tmp_path):
    trainer("transformer", corpus, tmp_path, 3, "fp32").run()
    fp32_keys = set(load_file(tmp_path / "checkpoints" / "checkpoint_3.pt"))
    resumed = trainer("transformer", corpus, tmp_path, 6, "bf16")
    assert resumed.state.step == 3
    resumed.run()
    payload = load_file(tmp_path / "checkpoints" / "checkpoint_6.pt")
    assert set(payload) == fp32_keys  # the format does not depend on precision
    assert_float32_checkpoint(tmp_path / "checkpoints" / "checkpoint_6.pt")
    assert json.loads((tmp_path / "summary.json").read_text())["precision"] == "bf16"
    model, *_ = load_model(tmp_path / "checkpoints" / "checkpoint_6.pt")
    assert {p.dtype for p in model.parameters()} == {torch.float32}


def test_killed_bf16_run_resumes_to_the_same_weights(corpus, tmp_path):
    at = 3 + int(time.time()) % 6  # a varying kill point; printed if the test fails
    print(f"killing after checkpoint_{at}.pt appears")
    steps, killed = 12, tmp_path / "killed"
    args = train_args("transformer", corpus, killed, steps, save_interval=1,
                      keep_last=steps)
    cmd = [sys.executable, "-m", "phrasenmt.train", *args, "--threads", "1"]
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    proc = subprocess.Popen(cmd, stderr=subprocess.DEVNULL, env=env)
    deadline = time.time() + 120
    while not (killed / "checkpoints" / f"checkpoint_{at}.pt").exists():
        assert time.time() < deadline and proc.poll() is None
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (killed / "summary.json").exists()
    # resumed in this process (a Python with torch costs 5 s of CPU to start),
    # before the whole run, so it reads only the killed run's files
    assert train_main([*args, "--threads", "1"]) == 0
    whole = [a if a != str(killed) else str(tmp_path / "whole") for a in args]
    assert train_main([*whole, "--threads", "1"]) == 0
    a = load_file(killed / "checkpoints" / f"checkpoint_{steps}.pt")["model"]
    b = load_file(tmp_path / "whole" / "checkpoints" / f"checkpoint_{steps}.pt")["model"]
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("supported", [True, False])
def test_auto_on_cuda_follows_bf16_support_not_cpu_flags(monkeypatch, supported):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: supported)
    cuda = torch.device("cuda")
    assert prec.bf16_pays(cuda, set()) is supported  # no AMX needed on a GPU
    assert prec.resolve("auto", cuda, set()) == ("bf16" if supported else "fp32")
