"""Training: label smoothing, lr schedule, learning a toy task, CLI errors."""

from __future__ import annotations

import itertools
import json
import math
import random
import re
from pathlib import Path

import pytest
import torch

from phrasenmt import precision
from phrasenmt.io import InputError
from phrasenmt.nn.loss import (
    label_smoothed_nll_loss,
    linear_sequence_loss,
    sequence_loss,
)
from phrasenmt.text.vocab import UNK
from phrasenmt.train import main as train_main
from phrasenmt.training.data import DataPaths
from phrasenmt.training.schedule import LRSchedule, inverse_sqrt_lr, linear_lr
from phrasenmt.training.spec import resolve_spec
from phrasenmt.training.trainer import Trainer
from phrasenmt.translate import translate_lines

TINY = {"d_model": 32, "d_ff": 64, "n_heads": 2, "dropout": 0.0}
# What precision auto picks on this machine's CPU for a model of TINY's width
# (fp32: bf16 only with AMX and at least AUTO_BF16_CPU_MIN_WIDTH wide).
AUTO = precision.resolve("auto", torch.device("cpu"), width=TINY["d_model"])

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


def reverse_task(folder: Path, n_train: int = 1000, n_dev: int = 20) -> DataPaths:
    """Source: random letters; target: the same letters reversed, upper-cased."""
    rng = random.Random(0)
    for name, n in (("train", n_train), ("dev", n_dev)):
        pairs = [[rng.choice("abcdefgh") for _ in range(rng.randint(2, 6))]
                 for _ in range(n)]
        (folder / f"{name}.src").write_text("".join(" ".join(p) + "\n" for p in pairs))
        (folder / f"{name}.tgt").write_text(
            "".join(" ".join(reversed(p)).upper() + "\n" for p in pairs))
    return DataPaths(*(folder / f for f in ("train.src", "train.tgt", "dev.src",
                                            "dev.tgt")))


def test_label_smoothing_equals_smoothed_cross_entropy():
    torch.manual_seed(0)
    lp = torch.log_softmax(torch.randn(5, 7), dim=-1)
    target = torch.tensor([4, 5, 0, 6, 1])  # 0 is <pad>: ignored
    eps = 0.1
    loss, nll = label_smoothed_nll_loss(lp, target, eps)
    q = torch.full((5, 7), eps / 6)
    q[torch.arange(5), target] = 1 - eps
    keep = target.ne(0)
    assert torch.allclose(loss, -(q * lp).sum(-1)[keep].sum(), atol=1e-5)
    assert torch.allclose(nll, -lp[torch.arange(5), target][keep].sum())
    assert torch.allclose(label_smoothed_nll_loss(lp, target, 0.0)[0], nll)


@pytest.mark.parametrize("eps", [0.1, 0.0])
@pytest.mark.parametrize("vocab,chunk", [(37, 4), (40, 512), (41, 7)])
def test_fused_output_loss_equals_logits_then_loss(eps, vocab, chunk):
    """The chunked output layer + loss: the same sums and gradients as the
    unfused path, for vocabularies that are and are not a multiple of 8 and for
    chunks that do and do not divide the rows; padding rows contribute nothing."""
    g = torch.Generator().manual_seed(vocab)
    h = torch.randn(3, 9, 16, generator=g, requires_grad=True)
    w = torch.randn(vocab, 16, generator=g).requires_grad_()
    target = torch.randint(4, vocab, (3, 9), generator=g)
    target[0, 5:] = 0  # <pad>
    target[2, 1:] = 0
    loss, nll = sequence_loss(h @ w.t(), target, eps)
    loss.backward()
    want = h.grad.clone(), w.grad.clone()
    h.grad = w.grad = None
    fused, fused_nll = linear_sequence_loss(h, w, target, eps, chunk)
    (2.0 * fused).backward()  # the upstream gradient is multiplied in
    assert torch.allclose(fused, loss, rtol=1e-5) and torch.allclose(fused_nll, nll, rtol=1e-5)
    assert torch.allclose(h.grad, 2 * want[0], atol=1e-5)
    assert torch.allclose(w.grad, 2 * want[1], atol=1e-5)
    assert h.grad.view(-1, 16)[[5, 6, 7, 8, 19, 26]].abs().sum() == 0  # padding rows
    assert not fused_nll.requires_grad


def test_fused_output_loss_refuses_bf16_outside_autocast():
    h, w, t = torch.randn(2, 3, 8), torch.randn(10, 8), torch.randint(4, 10, (2, 3))
    with pytest.raises(ValueError, match="outside autocast is for float32"):
        linear_sequence_loss(h.bfloat16(), w, t, 0.1)


@pytest.mark.parametrize("arch,tied", [("transformer", False), ("transformer", True),
                                       ("pr_max_attn_ta", False), ("ctx_transformer", False)])
def test_model_loss_fused_equals_unfused(arch, tied):
    """Transformer.loss (fused in float32) gives Seq2Seq.loss's values and
    gradients for the Transformer (output layer tied to the decoder's embeddings
    or not) and the variants that reuse its forward."""
    from phrasenmt.models import build_model
    from phrasenmt.models.base import Seq2Seq
    from phrasenmt.models.registry import get_model_class
    from phrasenmt.models.transformer import Transformer
    from phrasenmt.nn.batching import collate, pad_context

    cls = get_model_class(arch)
    cfg = cls.config_class(src_vocab_size=23, tgt_vocab_size=29,
                           share_decoder_embeddings=tied, **TINY)
    torch.manual_seed(0)
    model = build_model(arch, cfg).eval()
    rows = [[5, 6, 7, 8], [9, 10, 11]]
    side = {"phrases": [[0, 0, 1, 1], [0, 1, 1]]} if "phrases" in cls.side_inputs else None
    context = ({s: pad_context([[r] for r in rows], cfg.context_size)
                for s in cls.context_sides} if cls.context_sides else None)
    batch = collate(rows, [[12, 13], [14, 15, 16, 17]], side, context)
    assert type(model).forward is Transformer.forward  # so its loss is the fused one
    results = []
    for loss_fn in (Seq2Seq.loss, type(model).loss):
        model.zero_grad()
        loss, nll = loss_fn(model, batch, 0.1)
        loss.backward()
        results.append((loss.detach(), nll.detach(),
                        [p.grad.clone() for p in model.parameters() if p.grad is not None]))
    (l1, n1, g1), (l2, n2, g2) = results
    assert torch.allclose(l1, l2, rtol=1e-5) and torch.allclose(n1, n2, rtol=1e-5)
    assert len(g1) == len(g2) and all(torch.allclose(a, b, atol=1e-5) for a, b in zip(g1, g2))


def test_inverse_sqrt_schedule():
    assert inverse_sqrt_lr(1, 1e-3, 100) == pytest.approx(1e-5)
    assert inverse_sqrt_lr(100, 1e-3, 100) == pytest.approx(1e-3)
    assert inverse_sqrt_lr(400, 1e-3, 100) == pytest.approx(5e-4)
    lrs = [inverse_sqrt_lr(s, 1.0, 10) for s in range(1, 30)]
    assert lrs.index(max(lrs)) == 9


def test_linear_schedule_warms_up_then_reaches_zero_at_total_steps():
    assert linear_lr(1, 1e-3, 100, 1100) == pytest.approx(1e-5)
    assert linear_lr(100, 1e-3, 100, 1100) == pytest.approx(1e-3)
    assert linear_lr(600, 1e-3, 100, 1100) == pytest.approx(5e-4)
    assert linear_lr(1100, 1e-3, 100, 1100) == 0.0
    assert linear_lr(1200, 1e-3, 100, 1100) == 0.0  # never negative
    lrs = [linear_lr(s, 1.0, 10, 40) for s in range(1, 41)]
    assert lrs.index(max(lrs)) == 9
    assert all(a > b for a, b in itertools.pairwise(lrs[9:]))  # strictly falls after warm-up
    optimizer = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
    schedule = LRSchedule(optimizer, 2.0, 10, "linear", 40)
    assert [schedule.step() for _ in range(40)] == [2 * lr for lr in lrs]
    assert optimizer.param_groups[0]["lr"] == 0.0
    with pytest.raises(ValueError, match="unknown lr schedule 'cosine'"):
        LRSchedule(optimizer, 1.0, 10, "cosine")


@pytest.mark.parametrize("train, message", [
    ({"lr_schedule": "cosine"}, "train.lr_schedule: must be one of inverse_sqrt, linear"),
    ({"lr_schedule": "linear", "max_steps": 100, "warmup_steps": 100},
     "train.max_steps: lr_schedule linear decays to 0 at max_steps"),
])
def test_lr_schedule_settings_are_checked(train, message):
    with pytest.raises(InputError, match=re.escape(message)):
        resolve_spec({"train": train})


def test_loss_falls_and_model_learns_to_reverse(tmp_path):
    paths = reverse_task(tmp_path)
    spec = resolve_spec({"model": TINY, "train": {
        "max_steps": 300, "lr": 3e-3, "warmup_steps": 50, "max_tokens": 400,
        "update_tokens": 200, "valid_interval": 50, "save_interval": 300,
        "log_interval": 50, "label_smoothing": 0.0}})
    trainer = Trainer(spec, paths, tmp_path / "run", seed=0, progress_bar=False)
    assert trainer.optimizer.defaults["fused"]  # one kernel for every parameter
    summary = trainer.run()
    rows = (tmp_path / "run" / "metrics.tsv").read_text().splitlines()
    dev = [float(r.split("\t")[5]) for r in rows[1:]]
    assert dev[0] > 1.0 and dev[-1] < 0.25 * dev[0]
    assert summary["best_dev_loss"] == pytest.approx(min(dev), abs=1e-4)
    src = paths.dev_src.read_text().splitlines()
    hyps = translate_lines(trainer.model.eval(), trainer.src_vocab, trainer.tgt_vocab,
                           src, beam=4)
    refs = paths.dev_tgt.read_text().splitlines()
    assert sum(h == r for h, r in zip(hyps, refs, strict=True)) >= 16


@pytest.mark.parametrize("d_model, expected", [(32, "fp32"), (256, "bf16")])
def test_the_trainer_resolves_auto_for_its_models_width(d_model, expected, tmp_path,
                                                         monkeypatch):
    """On a CPU with AMX, `auto` trains a model narrower than 256 in fp32 and
    one at least 256 wide in bf16 (`precision.bf16_pays`)."""
    monkeypatch.setattr(precision, "cpu_flags", lambda *a: frozenset({"amx_bf16"}))
    paths = reverse_task(tmp_path, 20, 5)
    spec = resolve_spec({"model": {**TINY, "d_model": d_model, "d_ff": 2 * d_model},
                         "train": {"max_steps": 1}})
    trainer = Trainer(spec, paths, tmp_path / "run", seed=0, progress_bar=False)
    assert trainer.precision == expected


def cli_args(paths: DataPaths, outdir: Path, spec: dict) -> list[str]:
    return ["--spec", json.dumps(spec), "--train-src", str(paths.train_src),
            "--train-tgt", str(paths.train_tgt), "--dev-src", str(paths.dev_src),
            "--dev-tgt", str(paths.dev_tgt), "--outdir", str(outdir), "--seed", "1",
            "--no-progress", "--device", "cpu"]


def test_cli_writes_outputs(tmp_path):
    paths = reverse_task(tmp_path, 60, 5)
    spec = {"arch": "transformer", "preset": "tiny", "model": TINY,
            "train": {"max_steps": 3, "max_tokens": 200, "update_tokens": 100,
                      "save_interval": 2, "valid_interval": 2, "log_interval": 1}}
    assert train_main(cli_args(paths, tmp_path / "run", spec)) == 0
    run = tmp_path / "run"
    summary = json.loads((run / "summary.json").read_text())
    assert set(summary) == {"arch", "preset", "params", "steps", "train_seconds",
                            "target_tokens", "tokens_per_second", "best_dev_loss",
                            "stopped_by", "average_last", "precision", "compile",
                            "max_steps", "warmup_steps", "max_minutes", "schedule"}
    assert summary["stopped_by"] == "max_steps"
    assert summary["precision"] == AUTO  # auto: fp32 at this width, whatever the CPU
    assert summary["steps"] == 3 and summary["params"] > 0
    assert math.isfinite(summary["best_dev_loss"])
    assert (run / "config.yaml").read_text().count("d_model: 32") == 1
    header, *rows = (run / "metrics.tsv").read_text().splitlines()
    assert header.split("\t")[:2] == ["step", "loss"] and len(rows) == 3
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == [
        "checkpoint_2.pt", "checkpoint_2.pt.sha256", "checkpoint_3.pt",
        "checkpoint_3.pt.sha256", "latest"]


def plateau_trainer(tmp_path: Path, **train) -> Trainer:
    paths = reverse_task(tmp_path, 60, 5)
    spec = resolve_spec({"model": TINY, "train": {
        "max_steps": 200, "max_tokens": 200, "update_tokens": 100, "valid_interval": 2,
        "save_interval": 2, "keep_last": 2, "average_last": 1, **train}})
    return Trainer(spec, paths, tmp_path / "run", seed=0, progress_bar=False)


def test_patience_counts_evaluations_without_a_gain_of_min_delta(tmp_path):
    trainer = plateau_trainer(tmp_path, patience=2, min_delta=0.1)
    stale = []
    for loss in (5.0, 4.0, 3.95, 3.92, 3.85, 3.99, 4.2):
        trainer._note_dev_loss(loss)
        stale.append(trainer.state.stale_validations)
    # 3.95 and 3.92 are within 0.1 of 4.0; 3.85 is not; then two without a gain
    assert stale == [0, 0, 1, 2, 0, 1, 2]
    assert trainer.state.best_dev_loss == 3.85 and trainer.state.plateau_ref == 3.85
    assert trainer._plateaued()


def test_training_stops_at_a_dev_loss_plateau_and_stays_stopped(tmp_path):
    # no fall of 100 nats ever counts as a gain: the evaluation at step 2 sets
    # the reference, those at 4 and 6 are the two without a gain
    summary = plateau_trainer(tmp_path, patience=2, min_delta=100.0).run()
    assert summary["steps"] == 6 and summary["stopped_by"] == "patience"
    dev_rows = [r for r in (tmp_path / "run" / "metrics.tsv").read_text().splitlines()[1:]
                if r.split("\t")[5]]
    assert [r.split("\t")[0] for r in dev_rows] == ["2", "4", "6"]
    assert (tmp_path / "run" / "checkpoints" / "checkpoint_6.pt").exists()
    # rerun (the same spec): it resumes at the plateau and trains no further
    again = plateau_trainer(tmp_path, patience=2, min_delta=100.0)
    assert again.state.step == 6 and again.run()["steps"] == 6
    # patience is resumable: without it the run goes on to max_steps
    longer = plateau_trainer(tmp_path, patience=0, min_delta=100.0, max_steps=10)
    assert longer.run()["steps"] == 10


@pytest.mark.parametrize("train, message", [
    ({"patience": -1}, "train.patience"),
    ({"min_delta": -0.5}, "train.min_delta"),
])
def test_patience_settings_are_checked(train, message):
    with pytest.raises(InputError, match=re.escape(message)):
        resolve_spec({"train": train})


@pytest.mark.parametrize("breakage, expected", [
    ("mismatch", "train.src: has 60 lines but"),
    ("empty", "dev.tgt:3: empty line"),
    ("preset", "unknown preset 'huge'"),
    ("key", "train.max_stepz: unknown key"),
])
def test_cli_bad_input_gives_one_clear_error(tmp_path, breakage, expected):
    paths = reverse_task(tmp_path, 60, 5)
    spec = {"preset": "tiny", "model": TINY, "train": {"max_steps": 1}}
    if breakage == "mismatch":
        paths.train_tgt.write_text("".join(paths.train_tgt.read_text().splitlines(
            keepends=True)[:-1]))
    elif breakage == "empty":
        lines = paths.dev_tgt.read_text().splitlines()
        lines[2] = ""
        paths.dev_tgt.write_text("\n".join(lines) + "\n")
    elif breakage == "preset":
        spec["preset"] = "huge"
    else:
        spec["train"] = {"max_stepz": 1}
    with pytest.raises(InputError, match=expected):
        train_main(cli_args(paths, tmp_path / "run", spec))
    assert not (tmp_path / "run" / "summary.json").exists()


def test_vocab_min_freq_maps_rare_training_tokens_to_unk(tmp_path):
    paths = reverse_task(tmp_path, 60, 5)
    with paths.train_src.open("a") as f:
        f.write("a b zzz\n")  # zzz and its target ZZZ occur once
    with paths.train_tgt.open("a") as f:
        f.write("ZZZ B A\n")
    train = {"max_steps": 1, "valid_interval": 1, "save_interval": 1, "log_interval": 1}
    kept = Trainer(resolve_spec({"model": TINY, "train": train}), paths,
                   tmp_path / "all", seed=0, progress_bar=False)
    pruned = Trainer(resolve_spec({"model": TINY, "train": {**train, "vocab_min_freq": 2}}),
                     paths, tmp_path / "pruned", seed=0, progress_bar=False)
    assert "zzz" in kept.src_vocab.stoi and "ZZZ" in kept.tgt_vocab.stoi
    assert "zzz" not in pruned.src_vocab.stoi and "ZZZ" not in pruned.tgt_vocab.stoi
    assert len(pruned.src_vocab) == len(kept.src_vocab) - 1
    assert pruned.src_vocab.encode("a zzz") == [pruned.src_vocab.stoi["a"], UNK]


def test_vocab_min_freq_is_refused_by_models_that_cannot_learn_unk(tmp_path):
    paths = reverse_task(tmp_path, 20, 5)
    spec = resolve_spec({"arch": "conmt", "preset": "tiny",
                         "train": {"vocab_min_freq": 2}})
    with pytest.raises(InputError, match=re.escape(
            "train.vocab_min_freq: is 2, but conmt predicts the embedding")):
        Trainer(spec, paths, tmp_path / "run", seed=0, progress_bar=False)


@pytest.mark.parametrize("cut", ["train_src", "train_tgt", "dev_src", "dev_tgt"])
def test_training_data_cut_inside_a_word_names_file_and_line(tmp_path, cut):
    from phrasenmt.training.data import load_data

    files = {}
    for name in ("train_src", "train_tgt", "dev_src", "dev_tgt"):
        text = "a b@@ c\nd e\n" if name != cut else "a b@@ c\nd e@@\n"
        files[name] = tmp_path / name
        files[name].write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=rf"{cut}:2: the line ends inside a word: "
                       r"its last subword 'e@@'"):
        load_data(DataPaths(**files), 50)
