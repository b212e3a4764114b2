"""The training loop: resumable, deterministic on CPU, fp32 or bf16 autocast.

A run lives in one folder: `checkpoints/` (checkpoint_{step}.pt + `latest`),
`metrics.tsv` (its rows' values also in a TensorBoard event file per start:
`events`), and at the end `config.yaml` and, last, `summary.json`.
Restarting the same command continues from the latest good checkpoint; on CPU
the result equals an uninterrupted run bit for bit, kept checkpoints and
metrics rows included. SIGTERM/SIGUSR1/SIGINT save a checkpoint and stop
(`stopping.Preempted`); a NaN/inf loss stops before that
update touches the weights. Under torchrun the ranks share each update's
batches (`distributed`); only rank 0 writes files. Forward passes run in the
`precision` (bf16 autocast or fp32); weights, optimizer state and losses stay
fp32, so checkpoints do not depend on it (summary.json records it).
`train.compile: true` runs the loss forward through `torch.compile` (inductor,
dynamic shapes); backward and Adam are unchanged, validation stays eager.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import random
import shutil
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
import yaml
from tqdm import tqdm

from phrasenmt import precision as prec
from phrasenmt.data.documents import context_mode
from phrasenmt.io import AppendFile, InputError, atomic_open, remove_created
from phrasenmt.log import get_logger, shows_progress
from phrasenmt.models.registry import build_model, get_model_class
from phrasenmt.models.swan import eager_under_compile
from phrasenmt.nn.batching import Batch, collate, make_batches
from phrasenmt.nn.loss import eager_under_compile as loss_eager_under_compile
from phrasenmt.text.vocab import UNK, Vocabulary
from phrasenmt.training import checkpoint as ckpt
from phrasenmt.training.context_states import context_caches, with_states
from phrasenmt.training.data import (
    Corpus,
    DataPaths,
    fingerprint,
    load_data,
)
from phrasenmt.training.distributed import Distributed
from phrasenmt.training.events import EventFile, NoEvents, new_event_path
from phrasenmt.training.loader import UpdateLoader
from phrasenmt.training.run_folder import RunLock, metrics_rows, remove_stale_temps
from phrasenmt.training.schedule import LRSchedule
from phrasenmt.training.spec import RunSpec, field_defaults, spec_differences
from phrasenmt.training.stopping import NonFiniteLoss, Preempted, SignalFlag
from phrasenmt.training.two_step import (
    check_vocabulary_coverage,
    freeze_parameters,
    key_patterns,
    load_step1,
)

_log = get_logger(__name__)

# train_seconds: updates and validation so far (Progress.train_seconds)
METRICS_HEADER = "step\tloss\tnll\tlr\ttokens_per_s\tdev_loss\ttrain_seconds\n"


@dataclass
class Progress:
    """Counters saved in every checkpoint."""

    step: int = 0  # updates done
    train_seconds: float = 0.0  # time spent in updates and validation
    target_tokens: int = 0  # target tokens (</s> included) trained on
    best_dev_loss: float | None = None  # lowest dev NLL per target token
    plateau_ref: float | None = None  # dev NLL of the last evaluation that gained min_delta
    stale_validations: int = 0  # evaluations since then (train.patience stops at it)
    # sums since the last metrics row (loss, nll, tokens, seconds): saved, so
    # that a resumed run's next row averages what an uninterrupted run's does
    window: dict[str, float] = field(default_factory=lambda: dict.fromkeys(
        ("loss", "nll", "tokens", "seconds"), 0.0))


def resolve_device(name: str) -> torch.device:
    """auto -> cuda when present, else cpu; asking for an absent GPU raises."""
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise InputError(no_cuda_reason(), "--device cuda")
    return torch.device(name)


def no_cuda_reason() -> str:
    """Why `--device cuda` has no device: a PyTorch built without CUDA, or no
    GPU visible to this process; and what to do instead."""
    cpu = "or run it on the CPU with --device cpu (in the workflow: the model's gpus: 0)"
    if torch.version.cuda is None:
        return (f"this PyTorch ({torch.__version__}) is built without CUDA: install "
                f"a CUDA build of torch on the GPU machine, {cpu}")
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    shown = "unset" if visible is None else repr(visible)
    return (f"no CUDA device is visible to this process (PyTorch {torch.__version__} "
            f"for CUDA {torch.version.cuda}; CUDA_VISIBLE_DEVICES {shown}): run it "
            f"in a job that was given a GPU, {cpu}")


def rng_state() -> dict[str, Any]:
    """Python, torch and CUDA random states."""
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() else []
    return {"python": random.getstate(), "torch": torch.get_rng_state(), "cuda": cuda}


def set_rng_state(state: dict[str, Any]) -> None:
    """Restore what `rng_state` returned."""
    random.setstate(state["python"])
    torch.set_rng_state(state["torch"])
    if state["cuda"] and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def check_side_inputs(model: torch.nn.Module | type, given: set[str], where: str) -> None:
    """The side inputs given must be exactly those the model reads."""
    wanted = set(getattr(model, "side_inputs", ()))
    if wanted - given:
        raise InputError(f"the model needs side input(s) {', '.join(sorted(wanted - given))}"
                         f" (give NAME=FILE...)", where)
    if given - wanted:
        raise InputError(f"the model does not read side input(s) "
                         f"{', '.join(sorted(given - wanted))}", where)


def check_context(arch: str, has_docs: bool, where: str = "--docs") -> None:
    """Models that read document context need docs files; others must not get any."""
    sides = get_model_class(arch).context_sides
    if sides and not has_docs:
        raise InputError(f"arch {arch!r} reads document context: give the document "
                         "ids (--docs TRAIN.docs,DEV.docs)", where)
    if has_docs and not sides:
        raise InputError(f"arch {arch!r} reads no document context; drop --docs",
                         where)


def compiled(module: torch.nn.Module, device: torch.device) -> torch.nn.Module:
    """`module` through torch.compile (inductor, dynamic shapes: batches differ).

    Inductor writes C++ for a CPU and compiles it with the system's compiler:
    without one the first update would fail deep inside torch, so say it here.
    """
    cxx = os.environ.get("CXX") or "g++"
    if device.type == "cpu" and not (shutil.which(cxx) or shutil.which("clang++")):
        raise InputError(f"is true, but torch.compile on a CPU needs a C++ compiler "
                         f"and neither {cxx} (CXX) nor clang++ is on PATH; install "
                         "g++ or set train.compile: false", "train.compile")
    eager_under_compile()
    loss_eager_under_compile()
    return torch.compile(module, dynamic=True)


class Trainer:
    """Trains one model described by a RunSpec on one data set into `outdir`.

    With `init_from` (two-step training) the model starts from that checkpoint's
    weights and `train.freeze` says what trains: by default only its
    document-level parameters (`two_step`). `precision` is auto, fp32 or bf16
    (`phrasenmt.precision`), resolved for the device.
    """

    def __init__(self, spec: RunSpec, paths: DataPaths, outdir: str | Path,
                 seed: int, device: str = "auto", progress_bar: bool = True,
                 init_from: str | Path | None = None, precision: str = "auto"):
        self.spec, self.cfg, self.seed = spec, spec.train, seed
        self.outdir, self.ckpt_dir = Path(outdir), Path(outdir) / "checkpoints"
        self.dist = Distributed()
        self.device = self.dist.device(resolve_device(device))
        self.precision = prec.resolve(precision, self.device, warn=self.dist.is_main,
                                      width=prec.model_width(spec.model))
        self.progress_bar = progress_bar
        check_context(spec.arch, paths.docs is not None)
        if self.cfg.empty_context_rate and not get_model_class(spec.arch).context_sides:
            raise InputError(f"is {self.cfg.empty_context_rate}, but arch {spec.arch!r} "
                             "reads no document context to replace",
                             "train.empty_context_rate")
        check_side_inputs(get_model_class(spec.arch), set(paths.side), "--side")
        self.run_spec = {**spec.to_dict(), "seed": seed, "data": fingerprint(paths)}
        self.init_from, self.step1 = init_from, None
        if init_from is None and self.cfg.freeze != "sentence":
            raise InputError(f"is {self.cfg.freeze!r}, but it only applies to a run "
                             "that starts from --init-from", "train.freeze")
        if init_from is not None:  # a different step 1 makes a different run
            self.step1 = ckpt.load_file(init_from)
            self.run_spec["init_from"] = ckpt.sha256(init_from)
        resume = self._load_resume_checkpoint()
        source = resume if resume is not None else self.step1
        if self.cfg.vocab_min_freq > 1 and not get_model_class(spec.arch).learns_unk:
            raise InputError(f"is {self.cfg.vocab_min_freq}, but {spec.arch} predicts the "
                             "embedding of each target word and has none for <unk>: "
                             "keep 1", "train.vocab_min_freq")
        vocabs = None
        if source is not None:
            vocabs = (Vocabulary.from_list(source["src_vocab"]),
                      Vocabulary.from_list(source["tgt_vocab"]))
        self.src_vocab, self.tgt_vocab, self.train_data, self.dev_data = load_data(
            paths, self.cfg.max_len, vocabs, get_model_class(spec.arch).context_sides,
            getattr(spec.model, "context_size", 0), context_mode(spec.model),
            get_model_class(spec.arch).side_classes, self.cfg.vocab_min_freq)
        if self.step1 is not None:
            check_vocabulary_coverage(self.train_data, UNK, init_from)
        self._build()
        self.loss_module = self.dist.wrap(self.model)
        if self.cfg.compile:
            self.loss_module = compiled(self.loss_module, self.device)
        self.state = Progress()
        if resume is not None:
            self._restore(resume)

    # -- setup ---------------------------------------------------------------

    def _load_resume_checkpoint(self) -> dict[str, Any] | None:
        """The latest good checkpoint if any; a different spec raises InputError."""
        found = ckpt.load_latest_good(self.ckpt_dir)
        if found is None:
            return None
        self.resumed_from, payload = found
        diffs = spec_differences(payload.get("run_spec", {}), self.run_spec,
                                 ignore=self.cfg.resumable_fields(),
                                 defaults=field_defaults(self.spec))
        if diffs:
            raise InputError(
                f"checkpoints here were made with a different spec ({'; '.join(diffs)})"
                f"; delete {self.ckpt_dir} to start afresh, or use another --outdir",
                self.ckpt_dir)
        step = payload["progress"]["step"]
        if step > self.cfg.max_steps:  # lowering max_steps cannot undo updates
            raise InputError(
                f"checkpoints here reach step {step}, past train.max_steps "
                f"{self.cfg.max_steps}; delete {self.ckpt_dir} to start afresh, "
                "or use another --outdir", self.ckpt_dir)
        return payload

    def _build(self) -> None:
        """Seeded model init, optimizer, schedule, and the batch iterator."""
        random.seed(self.seed)
        torch.manual_seed(self.seed)
        self.spec.model.src_vocab_size = len(self.src_vocab)
        self.spec.model.tgt_vocab_size = len(self.tgt_vocab)
        self.model = build_model(self.spec.arch, self.spec.model).to(self.device)
        self.model.attach_vocabularies(self.src_vocab, self.tgt_vocab)
        for param in self.model.trained_apart():
            param.requires_grad_(False)
        note = self.model.training_data_note([len(s) for s in self.train_data.src],
                                             [len(t) for t in self.train_data.tgt])
        if note and self.dist.is_main:  # e.g. pairs NPMT cannot produce
            _log.info(note)
        if self.step1 is not None:
            self._init_from_step1()
        cfg = self.cfg
        # Fused Adam (one kernel over all parameters) where PyTorch has it: the
        # same update as the per-tensor loop, 2-5x faster (tiny Transformer on
        # one CPU thread: 13.2 -> 5.8 ms of a ~190 ms update).
        self.optimizer = torch.optim.Adam(
            [p for p in self.model.parameters() if p.requires_grad], lr=cfg.lr,
            betas=(cfg.adam_beta1, cfg.adam_beta2), eps=cfg.adam_eps,
            weight_decay=cfg.weight_decay,
            fused=True if self.device.type in ("cpu", "cuda") else None)
        self.scheduler = LRSchedule(
            self.optimizer, cfg.lr, cfg.warmup_steps, cfg.lr_schedule, cfg.max_steps,
            60 * cfg.max_minutes if cfg.schedule == "time" else 0.0,
            cfg.warmup_fraction)
        # frozen context states computed once per sentence (HAN step 2)
        self.context_states = context_caches(
            self.model, {"train": self.train_data, "dev": self.dev_data},
            cfg.context_cache_mb, self.dist.is_main)
        batches = make_batches([len(s) for s in self.train_data.src],
                               [len(t) for t in self.train_data.tgt],
                               cfg.max_tokens, self.seed, cfg.length_buckets)
        # Collates the next update's batches while this one computes (loader).
        self.iterator = UpdateLoader(self.train_data, batches, self.seed,
                                     cfg.update_tokens, self.dist.share, self.device,
                                     empty_context_rate=cfg.empty_context_rate,
                                     buckets=cfg.length_buckets)

    def _init_from_step1(self) -> None:
        """Step 2: load step 1's weights (θ_d new), freeze per train.freeze, say so."""
        new = load_step1(self.model, self.step1, self.init_from)
        split = freeze_parameters(self.model, self.cfg.freeze, set(self.step1["model"]))
        if self.dist.is_main:
            _log.info(f"two-step: loaded {self.init_from} ({len(self.step1['model'])} "
                      f"keys); {split.describe(self.model)}\ntwo-step: new θ_d keys "
                      f"({len(new)}): {', '.join(key_patterns(new))}")

    def _restore(self, payload: dict[str, Any]) -> None:
        """Continue exactly where the checkpoint stopped."""
        ckpt.load_weights(self.model, payload["model"], self.resumed_from)
        self.optimizer.load_state_dict(payload["optimizer"])
        self.scheduler.load_state_dict(payload["scheduler"])
        self.iterator.load_state_dict(payload["data_state"])
        self.state = Progress(**payload["progress"])
        set_rng_state(payload["rng"])
        _log.info(f"resuming from {self.resumed_from} (step {self.state.step})")

    # -- one update ------------------------------------------------------------

    def _autocast(self) -> contextlib.AbstractContextManager:
        """bf16 autocast on the device for a bf16 run, nothing for fp32."""
        return prec.autocast(self.precision, self.device)

    def _batch(self, corpus: Corpus, indices: list[int]) -> Batch:
        side = {name: [rows[i] for i in indices] for name, rows in corpus.side.items()}
        # Context by the pairs' own indices, never from the batch's other rows.
        context = (corpus.context.batch(indices, buckets=self.cfg.length_buckets)
                   if corpus.context else None)
        return collate([corpus.src[i] for i in indices],
                       [corpus.tgt[i] for i in indices], side, context,
                       self.cfg.length_buckets).to(self.device)

    def _next_update(self) -> tuple[list[tuple[Batch, float]], int]:
        """This rank's share of the next update's batches, each with its weight,
        and the update's target tokens (at least `update_tokens`)."""
        return self.iterator.next_update()

    def _backward(self, work: list[tuple[Batch, float]], total: int) -> torch.Tensor:
        """This rank's weighted batches -> (loss sum, NLL sum), float64 on the
        device: read back once per update (train_step), not per batch."""
        world = self.dist.world  # DDP averages gradients over ranks: undo that
        sums = torch.zeros(2, dtype=torch.float64, device=self.device)
        for k, (batch, weight) in enumerate(work):
            sync = (contextlib.nullcontext() if k == len(work) - 1
                    or self.dist.world == 1 else self.loss_module.no_sync())
            # (a compiled DDP module passes no_sync through to the DDP module)
            # kernels: bf16 products of the backward pass too (prec.kernels)
            with sync, prec.kernels(self.precision, self.device):
                with self._autocast():
                    loss, nll = self.loss_module(
                        with_states(batch, self.context_states.get("train")),
                        self.cfg.label_smoothing)
                (loss * weight * world / total).backward()
            sums += weight * torch.stack([loss.detach(), nll.detach()]).double()
        return sums

    def train_step(self) -> tuple[float, float, int, float]:
        """One update -> (loss sum, NLL sum, target tokens, lr)."""
        self.model.train()
        work, total = self._next_update()
        lr = self.scheduler.step(self.state.train_seconds)  # (a time schedule's clock)
        sums = self._backward(work, total)
        if self.dist.world > 1:  # whether a rank has a signal: in the same reduce
            flag = 0.0 if self.signals is None or self.signals.received is None else 1.0
            sums = torch.cat([sums, sums.new_tensor([flag])])
        loss_sum, nll_sum, *flag = self.dist.sum(sums)
        self.signalled = bool(flag and flag[0] > 0)
        if not math.isfinite(loss_sum):
            self.optimizer.zero_grad(set_to_none=True)
            last = ckpt.latest_checkpoint(self.ckpt_dir)
            raise NonFiniteLoss(
                f"loss is {loss_sum / total} at step {self.state.step + 1}; stopped "
                f"before updating the weights; last good checkpoint: "
                f"{last.name if last else 'none'}", self.ckpt_dir)
        if self.cfg.clip_norm > 0:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.clip_norm)
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        return loss_sum, nll_sum, total, lr

    @torch.no_grad()
    def validate(self) -> float:
        """Dev NLL per target token."""
        self.model.eval()
        batches = make_batches([len(s) for s in self.dev_data.src],
                               [len(t) for t in self.dev_data.tgt],
                               self.cfg.max_tokens, 0, self.cfg.length_buckets)
        nll_sum, ntokens = torch.zeros((), dtype=torch.float64, device=self.device), 0
        for indices in batches:
            batch = self._batch(self.dev_data, indices)
            with self._autocast():
                batch = with_states(batch, self.context_states.get("dev"))
                nll_sum += self.model.loss(batch, 0.0)[1].double()
            ntokens += batch.ntokens
        return nll_sum.item() / ntokens  # one read-back for the whole dev set

    # -- checkpoints and logs ----------------------------------------------------

    def save(self) -> Path:
        """Write a full training checkpoint for the current step (rank 0 only)."""
        path = self.ckpt_dir / f"checkpoint_{self.state.step}.pt"
        if not self.dist.is_main:
            return path
        payload = ckpt.model_payload(self.spec.arch, self.model, self.src_vocab,
                                     self.tgt_vocab, self.spec.to_dict())
        payload.update(
            run_spec=self.run_spec, optimizer=self.optimizer.state_dict(),
            scheduler=self.scheduler.state_dict(),
            data_state=self.iterator.state_dict(),
            progress={**vars(self.state), "window": dict(self.state.window)},
            rng=rng_state())
        return ckpt.save_checkpoint(payload, self.ckpt_dir, self.state.step,
                                    self.cfg.keep_last, self.cfg.save_interval)

    def _open_metrics(self) -> Any:
        """metrics.tsv for appending, without rows past the resumed step."""
        if not self.dist.is_main:
            return AppendFile(os.devnull)
        path = self.outdir / "metrics.tsv"
        rows = metrics_rows(path, self.state.step) if self.state.step else []
        with atomic_open(path) as fh:
            fh.write(METRICS_HEADER + "".join(r + "\n" for r in rows))
        return AppendFile(path)

    @contextlib.contextmanager
    def _open_events(self) -> Iterator[EventFile | NoEvents]:
        """This start's TensorBoard event file beside metrics.tsv (rank 0 only);
        a fresh run that fails before its first checkpoint takes it away."""
        if not self.dist.is_main:
            yield NoEvents()
            return
        events = EventFile(new_event_path(self.outdir), self.state.step + 1)
        try:
            with events:
                yield events
        except BaseException:
            if ckpt.latest_checkpoint(self.ckpt_dir) is None:
                events.path.unlink(missing_ok=True)
            raise

    # -- the loop ----------------------------------------------------------------

    def _time_is_up(self) -> bool:
        minutes = self.cfg.max_minutes
        return minutes > 0 and self.state.train_seconds >= 60 * minutes

    def _plateaued(self) -> bool:
        """Whether the dev loss has not gained min_delta in `patience` evaluations."""
        return 0 < self.cfg.patience <= self.state.stale_validations

    def _finished(self) -> bool:
        return (self.state.step >= self.cfg.max_steps or self._time_is_up()
                or self._plateaued())

    def _note_dev_loss(self, dev_loss: float) -> None:
        """Best dev loss, and the patience count: an evaluation gains when it
        is at least min_delta below the last one that gained (Keras's rule)."""
        s = self.state
        if s.best_dev_loss is None or dev_loss < s.best_dev_loss:
            s.best_dev_loss = dev_loss
        if s.plateau_ref is None or dev_loss <= s.plateau_ref - self.cfg.min_delta:
            s.plateau_ref, s.stale_validations = dev_loss, 0
        else:
            s.stale_validations += 1

    def _update_and_log(self, metrics: Any, events: EventFile | NoEvents,
                        window: dict[str, float]) -> tuple[str | None, bool]:
        """One update with its periodic validation, metrics row (and its
        TensorBoard scalars) and checkpoint.

        Returns the metrics row written (if any) and whether training is done.
        """
        start = time.perf_counter()
        loss, nll, ntokens, lr = self.train_step()
        window["seconds"] += time.perf_counter() - start  # tokens/s of updates only
        s, cfg = self.state, self.cfg
        s.step, s.target_tokens = s.step + 1, s.target_tokens + ntokens
        last = self._stop_after(start)
        for key, value in (("loss", loss), ("nll", nll), ("tokens", ntokens)):
            window[key] += value
        dev, dev_loss = "", None
        if s.step % cfg.valid_interval == 0 or last:
            dev_loss = self.validate()
            self._note_dev_loss(dev_loss)
            last = last or self._plateaued()
            dev = f"{dev_loss:.4f}"
        s.train_seconds += time.perf_counter() - start
        if dev:
            self._warn_short_budget()
        row = None
        if dev or s.step % cfg.log_interval == 0:
            w = window
            values = {"loss": w["loss"] / w["tokens"], "nll": w["nll"] / w["tokens"],
                      "lr": lr, "tokens_per_s": w["tokens"] / max(w["seconds"], 1e-9),
                      "dev_loss": dev_loss}
            row = (f"{s.step}\t{values['loss']:.4f}\t{values['nll']:.4f}\t{lr:.3e}\t"
                   f"{values['tokens_per_s']:.0f}\t{dev}\t{s.train_seconds:.3f}")
            metrics.write(row + "\n")
            events.scalars(s.step, values)
            window.update(loss=0.0, nll=0.0, tokens=0.0, seconds=0.0)
        if s.step % cfg.save_interval == 0 or last:
            self.save()
        return row, last

    _pace_checked = False  # whether _warn_short_budget has looked
    signals: SignalFlag | None = None  # while `run` trains
    signalled = False  # under DDP: whether a rank had a signal at the last reduce

    def _warn_short_budget(self) -> None:
        """At the first validation: warn when max_minutes, at this pace, stops
        the run inside its warm-up (a step schedule's)."""
        if self._pace_checked:
            return
        self._pace_checked = True
        s, cfg = self.state, self.cfg
        if cfg.max_minutes <= 0 or cfg.schedule != "steps" or not self.dist.is_main:
            return
        projected = int(s.step * 60 * cfg.max_minutes / max(s.train_seconds, 1e-9))
        if projected < min(cfg.warmup_steps, cfg.max_steps):
            _log.warning(
                f"train.max_minutes ({cfg.max_minutes:g}) allows about {projected:,} "
                f"updates at this run's pace ({s.step:,} in {s.train_seconds:.0f} s), "
                f"inside its warm-up of {cfg.warmup_steps:,} (train.warmup_steps): "
                "it stops before the learning rate peaks; raise max_minutes, "
                "lower warmup_steps, or use train.schedule: time")

    def _stop_after(self, start: float) -> bool:
        """Whether the update that began at `start` is the last one."""
        if self.state.step >= self.cfg.max_steps:
            return True
        elapsed = self.state.train_seconds + time.perf_counter() - start
        return self.cfg.max_minutes > 0 and elapsed >= 60 * self.cfg.max_minutes

    def run(self) -> dict[str, Any]:
        """Train to max_steps (or max_minutes, or a dev-loss plateau: patience);
        write config.yaml, summary.json.

        A fresh run that fails before its first checkpoint takes away what it
        wrote (metrics.tsv, empty folders): a failed start leaves nothing behind.
        Rank 0 holds the run folder's lock (`run_folder.RunLock`) throughout.
        """
        lock = RunLock(self.outdir) if self.dist.is_main else contextlib.nullcontext()
        with lock:
            made = [p for p in (self.ckpt_dir, self.outdir / "metrics.tsv")
                    if not p.exists()]
            try:
                return self._run()
            except BaseException:
                if self.dist.is_main and ckpt.latest_checkpoint(self.ckpt_dir) is None:
                    remove_created(made)
                raise

    def _run(self) -> dict[str, Any]:
        """The loop of `run`."""
        if self.dist.is_main:
            (self.outdir / "summary.json").unlink(missing_ok=True)
            remove_stale_temps(self.outdir, self.ckpt_dir)  # left by a kill
        window = self.state.window
        bar = tqdm(total=self.cfg.max_steps, initial=self.state.step, file=sys.stderr,
                   disable=not (self.progress_bar and self.dist.is_main
                                and shows_progress()),  # --quiet hides it
                   mininterval=2.0, unit="upd")
        self._narrow_context_states()
        with (self._open_metrics() as metrics, self._open_events() as events, bar,
              SignalFlag() as signals):
            self.signals = signals
            done = self._finished()
            while not done:
                row, done = self._update_and_log(metrics, events, window)
                bar.update(1)
                if row is not None:
                    bar.set_postfix_str(row.replace("\t", " "))
                # under DDP the ranks learnt in the update's loss reduce whether
                # one has a signal (a later one stops after the next update)
                stop = (self.signalled if self.dist.world > 1
                        else signals.received is not None)
                if not done and stop:
                    self._stop_on_signal(signals.received or "a signal on another rank")
        return self._write_outputs() if self.dist.is_main else {}

    def _narrow_context_states(self) -> None:
        """The training split's frozen context states: only the lines that the
        updates left to max_steps read (a short step 2 reads a fraction of the
        corpus; computing every line first took longer than the updates)."""
        store = self.context_states.get("train")
        if store is None or not store.empty:
            return
        pairs = self.iterator.pairs_ahead(max(0, self.cfg.max_steps - self.state.step))
        if pairs is None:
            return
        every = len(store.needed)
        store.needed = self.train_data.context.needed(pairs)
        if self.dist.is_main:
            _log.info(f"context cache: the {self.cfg.max_steps - self.state.step:,} "
                      f"updates to max_steps read {len(store.needed):,} of the "
                      f"{every:,} context sentences; only those are computed")

    def _stop_on_signal(self, signame: str) -> None:
        """Save a checkpoint of the finished update (unless just saved) and stop."""
        path = self.ckpt_dir / f"checkpoint_{self.state.step}.pt"
        if self.state.step % self.cfg.save_interval != 0:
            path = self.save()
        raise Preempted(signame, self.state.step, path)

    def _stop_reason(self) -> str:
        """What ended training: max_steps, max_minutes or patience."""
        if self.state.step >= self.cfg.max_steps:
            return "max_steps"
        return "patience" if self._plateaued() else "max_minutes"

    def _write_outputs(self) -> dict[str, Any]:
        """config.yaml (the resolved spec) then, last, summary.json."""
        with atomic_open(self.outdir / "config.yaml") as fh:
            fh.write(f"# resolved spec of this run (seed {self.seed})\n")
            yaml.safe_dump(self.spec.to_dict(), fh, sort_keys=False)
        s = self.state
        summary = {
            "arch": self.spec.arch, "preset": self.spec.preset,
            "params": sum(p.numel() for p in self.model.parameters()
                          if p.requires_grad),
            "steps": s.step, "train_seconds": round(s.train_seconds, 3),
            "target_tokens": s.target_tokens,
            "tokens_per_second": round(s.target_tokens / max(s.train_seconds, 1e-9), 1),
            "best_dev_loss": s.best_dev_loss, "stopped_by": self._stop_reason(),
            "average_last": self.cfg.average_last,
            "precision": self.precision, "compile": self.cfg.compile,
            # the budgets, for the tables' note on a run stopped early
            "max_steps": self.cfg.max_steps, "warmup_steps": self.cfg.warmup_steps,
            "max_minutes": self.cfg.max_minutes, "schedule": self.cfg.schedule}
        with atomic_open(self.outdir / "summary.json") as fh:
            json.dump(summary, fh, indent=2)
            fh.write("\n")
        return summary
