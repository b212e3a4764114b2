"""The GPU check (tests/gpu/check.py), part 1: every registered architecture trains, resumes and decodes.

Per architecture, through the project's CLIs (phrasenmt.train, .translate,
.train_fertility) called in this process, on the synthetic corpus:

1. fp32: `updates` updates (NPMT 3x: UPDATE_FACTOR), a checkpoint at half
   way and at the end;
2. resume: a new run folder holding only the half-way checkpoint, the same
   command: it must say "resuming from" and end at the straight run's loss
   (CPU: bit-exact up to RESUME_TOL_CPU; CUDA: kernels with atomics make it
   nondeterministic, RESUME_TOL_CUDA relative);
3. bf16 autocast: the same updates; its dev loss within BF16_TOL (relative)
   of fp32's;
4. decoding the test set: the family's default search in bf16 on the device
   (beam 4; NPMT: Eq. 3 segment beam; CoNMT/PCoNMT: nearest neighbour;
   document models: the document search), then greedy (beam 1) in fp32 on the
   device and on the CPU from the same checkpoint: the two must agree on at
   least GREEDY_AGREE of the lines, and the default search must give words on
   at least NONEMPTY of them. PCoNMT with fertility first trains its fertility
   module (train_fertility, CPU, 1 epoch) and decodes with it.

Losses are finite and falling: every row of metrics.tsv is finite, and the mean
of the last fifth of the training losses is below the mean of the first fifth.
"""

from __future__ import annotations

import contextlib
import json
import math
import shutil
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from phrasenmt.models.registry import MODELS, get_model_class
from phrasenmt.train import main as train_main
from phrasenmt.train_fertility import main as fertility_main
from phrasenmt.training.checkpoint import checksum_path
from phrasenmt.training.stopping import passed_on
from phrasenmt.translate import main as translate_main
from tests.gpu.data import SRC, TGT, Corpus

BF16_TOL = 0.10  # |dev loss bf16 - fp32| / fp32 after `updates` updates
RESUME_TOL_CPU = 1e-6  # relative loss difference, resumed vs straight, on a CPU
RESUME_TOL_CUDA = 0.02  # the same on CUDA (nondeterministic kernels)
GREEDY_AGREE = 0.9  # fraction of identical greedy lines, device vs CPU
NONEMPTY = 0.5  # fraction of test lines the default search must give words on

# Model sizes: "tiny" is the registry's tiny presets as they are (the GPU
# default), "smaller" shrinks them further (the CPU default: every family in a
# few minutes on a few cores). Both train on batches of about 2,000 (tiny) or
# 1,000 (smaller, at lr 1e-2) target tokens: with fewer, 50 updates leave a
# model whose beam search still prefers the empty hypothesis.
SMALLER_MODEL = {
    "transformer": {"d_model": 32, "d_ff": 64, "n_heads": 2, "encoder_layers": 1,
                    "decoder_layers": 1},
    "rnn": {"embed_size": 16, "hidden_size": 32},
    "npmt": {"embed_size": 16, "encoder_hidden": 16, "decoder_hidden": 16,
             "max_segment_len": 2, "window": 3},
}
BATCH = {"tiny": {"max_tokens": 2048, "update_tokens": 2000},
         "smaller": {"max_tokens": 1000, "update_tokens": 1000, "lr": 1e-2}}
# NPMT's segment model decodes only empty segments for its first ~100 updates
# (tiny sizes: the segment end $ is the likeliest token until then), so it
# trains 3x the updates; the other families give words after 50.
UPDATE_FACTOR = {"npmt": 3}
FAMILIES = (("pr_", "phrase representations"), ("attn_rnn", "attention RNN"),
            ("pconmt", "PCoNMT"), ("conmt", "CoNMT"), ("npmt", "NPMT"),
            ("ctx_transformer", "context Transformer"), ("han_", "HAN"),
            ("transformer", "Transformer"))


FIRST = ("transformer", "pr_max_attn_ta", "npmt", "ctx_transformer", "han_enc_dec",
         "attn_rnn", "conmt", "pconmt_fert2")


class CheckFailed(Exception):
    """One check did not hold: the reason, in one line."""


@dataclass
class Settings:
    """What every architecture's check shares."""

    device: str  # "cuda" or "cpu"
    updates: int  # training updates per run
    sizes: str  # "tiny" (the presets) or "smaller" (SMALLER_MODEL)
    corpus: Corpus
    workdir: Path
    seed: int = 1
    notes: list[str] = field(default_factory=list)


def family(arch: str) -> str:
    """The paper family an architecture belongs to."""
    return next(name for prefix, name in FAMILIES if arch.startswith(prefix))


def kind(arch: str) -> str:
    """transformer, rnn or npmt: which SMALLER_MODEL shrink applies."""
    if arch.startswith("npmt"):
        return "npmt"
    return "rnn" if "conmt" in arch or arch.startswith("attn_rnn") else "transformer"


def architectures(selected: list[str] | None = None) -> list[str]:
    """Registered architectures (all, or those selected): one of each family
    first (FIRST, so that a run cut short by its budget has them), then the
    others in registry order."""
    known = [a for a in MODELS if not a.startswith("test_")]
    if not selected:
        return [a for a in FIRST if a in known] + [a for a in known if a not in FIRST]
    unknown = [a for a in selected if a not in known]
    if unknown:
        raise CheckFailed(f"unknown arch(s) {', '.join(unknown)} (known: "
                          f"{', '.join(known)})")
    return selected


def updates(arch: str, s: Settings) -> int:
    """Training updates of `arch`: s.updates, times UPDATE_FACTOR for NPMT."""
    return s.updates * UPDATE_FACTOR.get(arch.split("_")[0], 1)


def spec(arch: str, s: Settings) -> dict[str, Any]:
    """The run spec: the tiny preset, short warm-up, checkpoints at half and end."""
    u = updates(arch, s)
    train = {"max_steps": u, "warmup_steps": max(1, u // 5), "save_interval": u // 2,
             "valid_interval": u, "log_interval": 1, "keep_last": 2,
             "average_last": 1, **BATCH[s.sizes]}
    model = dict(SMALLER_MODEL[kind(arch)]) if s.sizes == "smaller" else {}
    if "conmt" in arch:
        model["embed_dim"] = s.corpus.embed_dim
        model["word_table"] = str(s.corpus.root / "words.vec")
        if arch.startswith("pconmt"):
            model["phrase_table"] = str(s.corpus.root / "phrases.vec")
    return {"arch": arch, "preset": "tiny", "model": model, "train": train}


def target_ext(arch: str) -> str:
    """PCoNMT trains on the phrase-joined targets."""
    return "de_phr" if arch.startswith("pconmt") else TGT


def side_args(arch: str, c: Corpus, splits: tuple[str, ...]) -> list[str]:
    """--side phrases=... and --docs ..., as the architecture reads them."""
    cls, args = get_model_class(arch), []
    if "phrases" in cls.side_inputs:
        args += ["--side", "phrases=" + ",".join(str(c.path(x, "phrases"))
                                                 for x in splits)]
    if cls.context_sides:
        args += ["--docs", ",".join(str(c.path(x, "docs")) for x in splits)]
    return args


def train_args(arch: str, s: Settings, outdir: Path, precision: str) -> list[str]:
    """phrasenmt.train's command line for one run."""
    c = s.corpus
    return ["--spec", json.dumps(spec(arch, s)),
            "--train-src", str(c.path("train", SRC)),
            "--train-tgt", str(c.path("train", target_ext(arch))),
            "--dev-src", str(c.path("dev", SRC)),
            "--dev-tgt", str(c.path("dev", target_ext(arch))),
            "--outdir", str(outdir), "--seed", str(s.seed), "--device", s.device,
            "--precision", precision, "--no-progress",
            *side_args(arch, c, ("train", "dev"))]


def call(fn, argv: list[str], log: Path) -> str:
    """Run a CLI entry point in-process, its stderr appended to `log` -> stderr.

    A non-zero status, an InputError or any other exception fails the check
    with the entry point's last stderr line or the exception."""
    err = _Tee(log)
    try:
        with contextlib.redirect_stderr(err):
            code = fn(argv)
    except SystemExit as stop:  # argparse
        raise CheckFailed(f"exit {stop.code}: {err.last_line()}") from None
    except Exception as exc:
        with log.open("a", encoding="utf-8") as fh:
            fh.write(traceback.format_exc())
        raise CheckFailed(f"{type(exc).__name__}: {one_line(str(exc))}") from exc
    passed_on(code)  # a training stopped by SIGTERM: the check stops too
    if code:
        raise CheckFailed(f"exit {code}: {err.last_line()}")
    return err.getvalue()


class _Tee:
    """A text stream that keeps what is written and appends it to a log file."""

    def __init__(self, log: Path):
        self.log, self.parts = log, []

    def write(self, text: str) -> int:
        self.parts.append(text)
        with self.log.open("a", encoding="utf-8") as fh:
            fh.write(text)
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def getvalue(self) -> str:
        return "".join(self.parts)

    def last_line(self) -> str:
        lines = [x for x in self.getvalue().splitlines() if x.strip()]
        return one_line(lines[-1]) if lines else "(no message)"


def one_line(text: str, limit: int = 240) -> str:
    """The first line of `text`, cut to `limit` characters."""
    line = (text.strip().splitlines() or [""])[0]
    return line if len(line) <= limit else line[: limit - 3] + "..."


def losses(run: Path) -> tuple[list[float], float]:
    """(training loss per update, dev loss at the end) from metrics.tsv."""
    rows = (run / "metrics.tsv").read_text("utf-8").splitlines()[1:]
    fields = [r.split("\t") for r in rows if r]
    train = [float(f[1]) for f in fields]
    dev = [float(f[5]) for f in fields if len(f) > 5 and f[5]]
    if not dev:
        raise CheckFailed(f"{run}/metrics.tsv has no dev loss")
    return train, dev[-1]


def check_falling(name: str, train: list[float], updates: int) -> dict[str, float]:
    """Finite losses, one per update, the last fifth's mean below the first's."""
    if len(train) != updates:
        raise CheckFailed(f"{name}: {len(train)} loss rows, expected {updates}")
    if not all(math.isfinite(x) for x in train):
        raise CheckFailed(f"{name}: a non-finite training loss")
    k = max(1, updates // 5)
    first, last = sum(train[:k]) / k, sum(train[-k:]) / k
    if not last < first:
        raise CheckFailed(f"{name}: loss did not fall ({first:.3f} -> {last:.3f})")
    return {"first": round(first, 4), "last": round(last, 4)}


def relative(a: float, b: float) -> float:
    """|a - b| / |b|."""
    return abs(a - b) / max(abs(b), 1e-12)


def train_three(arch: str, s: Settings, folder: Path) -> dict[str, Any]:
    """fp32, resumed fp32 and bf16 runs -> their numbers (checks applied)."""
    log, u, out = folder / "train.log", updates(arch, s), {}
    call(train_main, train_args(arch, s, folder / "fp32", "fp32"), log)
    fp32, dev32 = losses(folder / "fp32")
    out["fp32"] = {**check_falling("fp32", fp32, u), "dev": round(dev32, 4)}
    half = folder / "fp32" / "checkpoints" / f"checkpoint_{u // 2}.pt"
    resumed = folder / "resumed"
    (resumed / "checkpoints").mkdir(parents=True, exist_ok=True)
    for f in (half, checksum_path(half)):
        shutil.copy2(f, resumed / "checkpoints" / f.name)
    err = call(train_main, train_args(arch, s, resumed, "fp32"), log)
    if "resuming from" not in err:
        raise CheckFailed("resume: the second run did not resume from the checkpoint")
    again, _ = losses(resumed)  # the rows of updates u/2+1 .. u
    tol = RESUME_TOL_CPU if s.device == "cpu" else RESUME_TOL_CUDA
    diff = relative(again[-1], fp32[-1])
    out["resume"] = {"loss": round(again[-1], 4), "straight": round(fp32[-1], 4),
                     "rel_diff": diff, "tolerance": tol}
    if len(again) != u - u // 2 or diff > tol:
        raise CheckFailed(f"resume: loss at update {u} {again[-1]:.5f} vs "
                          f"{fp32[-1]:.5f} straight (rel. {diff:.2e} > {tol})")
    call(train_main, train_args(arch, s, folder / "bf16", "bf16"), log)
    bf16, dev16 = losses(folder / "bf16")
    out["bf16"] = {**check_falling("bf16", bf16, u), "dev": round(dev16, 4),
                   "dev_rel_diff_to_fp32": round(relative(dev16, dev32), 4),
                   "tolerance": BF16_TOL}
    if relative(dev16, dev32) > BF16_TOL:
        raise CheckFailed(f"bf16: dev loss {dev16:.4f} vs fp32 {dev32:.4f} (rel. "
                          f"{relative(dev16, dev32):.3f} > {BF16_TOL})")
    return out


def fertility_model(arch: str, s: Settings, model: Path, folder: Path) -> Path:
    """PCoNMT with fertility: train its fertility module (CPU CLI), 1 epoch."""
    c, labels = s.corpus, "fert" + arch.rsplit("fert", 1)[1]
    out = folder / "fertility.pt"
    call(fertility_main, ["--checkpoint", str(model),
                          "--train-src", str(c.path("train", SRC)),
                          "--train-labels", str(c.path("train", labels)),
                          "--dev-src", str(c.path("dev", SRC)),
                          "--dev-labels", str(c.path("dev", labels)),
                          "--out", str(out), "--epochs", "1"], folder / "train.log")
    return out


def decode(arch: str, s: Settings, model: Path, folder: Path, device: str,
           precision: str, beam: int | None) -> list[str]:
    """Translate the test set -> its lines (the file must have one per input)."""
    c = s.corpus
    name = f"test.{device}.{precision}.{'default' if beam is None else f'beam{beam}'}"
    out = folder / f"{name}.hyp"
    argv = ["--checkpoint", str(model), "--input", str(c.path("test", SRC)),
            "--output", str(out), "--device", device, "--precision", precision,
            *(["--beam", str(beam)] if beam is not None else []),
            *side_args(arch, c, ("test",))]
    call(translate_main, argv, folder / "decode.log")
    lines = out.read_text("utf-8").split("\n")[:-1]
    expected = len(c.path("test", SRC).read_text("utf-8").splitlines())
    if len(lines) != expected:
        raise CheckFailed(f"{out.name}: {len(lines)} lines for {expected} inputs")
    return lines


def decode_all(arch: str, s: Settings, model: Path, folder: Path) -> dict[str, Any]:
    """Default search (bf16, device), greedy fp32 on the device and on the CPU."""
    default = decode(arch, s, model, folder, s.device, "bf16", None)
    nonempty = sum(bool(x.strip()) for x in default) / len(default)
    greedy = decode(arch, s, model, folder, s.device, "fp32", 1)
    cpu = decode(arch, s, model, folder, "cpu", "fp32", 1)
    agree = sum(a == b for a, b in zip(greedy, cpu, strict=True)) / len(cpu)
    out = {"default_nonempty": round(nonempty, 3), "greedy_nonempty":
           round(sum(bool(x.strip()) for x in greedy) / len(greedy), 3),
           "greedy_device_vs_cpu": round(agree, 3), "example": default[0][:120]}
    if nonempty < NONEMPTY:
        raise CheckFailed(f"the default search gave words on "
                          f"{nonempty:.0%} of the lines (< {NONEMPTY:.0%})")
    if agree < GREEDY_AGREE:
        raise CheckFailed(f"greedy on {s.device} and on the CPU agree on "
                          f"{agree:.0%} of the lines (< {GREEDY_AGREE:.0%})")
    return out


def check_arch(arch: str, s: Settings) -> dict[str, Any]:
    """One architecture's whole check -> its result row (PASS or FAIL + reason)."""
    folder = s.workdir / arch
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    row: dict[str, Any] = {"arch": arch, "family": family(arch), "status": "FAIL",
                           "updates": updates(arch, s)}
    start = time.perf_counter()
    stage = "train"
    try:
        if "conmt" in arch and s.corpus.pconmt_error:
            raise CheckFailed(s.corpus.pconmt_error)
        row.update(train_three(arch, s, folder))
        row["train_seconds"] = round(time.perf_counter() - start, 1)
        stage = "decode"
        model = folder / "fp32" / "checkpoints" / f"checkpoint_{updates(arch, s)}.pt"
        if arch.startswith("pconmt_fert"):  # pconmt_nofert has no fertility module
            model = fertility_model(arch, s, model, folder)
        row["decode"] = decode_all(arch, s, model, folder)
        row["status"], row["reason"] = "PASS", ""
    except CheckFailed as err:
        row["reason"] = f"{stage}: {err}"
    except Exception as err:  # noqa: BLE001  (a defect of the check: one row)
        row["reason"] = f"{stage}: {type(err).__name__}: {one_line(str(err))}"
        with (folder / "check.log").open("a", encoding="utf-8") as fh:
            fh.write(traceback.format_exc())
    row["seconds"] = round(time.perf_counter() - start, 1)
    empty_cache(s.device)
    return row


def empty_cache(device: str) -> None:
    """Give cached CUDA memory back between architectures."""
    if device == "cuda":
        import torch

        torch.cuda.empty_cache()
