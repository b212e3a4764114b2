"""Two-step training (Zhang et al. 2018): initialise from step 1, freeze θ_s.

Step 1 trains a sentence-level model (θ_s); step 2 builds the document model,
loads step 1's (averaged) weights into it, and trains only the document-level
parameters θ_d, which a model names through `Seq2Seq.document_modules`. The
load is strict in both directions that matter: every step-1 key must find its
place (same shape), and the only keys the document model may lack are θ_d's;
a model may also name θ_d modules that must come from the loaded file
(`init_modules`: a later step that starts from an earlier document model).
What trains is `train.freeze` (part of the run's spec, so resuming with
another choice is refused):
  sentence  θ_s frozen, every θ_d trains (the default; the paper's step 2);
  loaded    every loaded weight frozen, only the new keys train;
  none      nothing frozen: joint fine-tuning of everything.
Frozen parameters get requires_grad=False and stay out of the optimizer, so
they stay `torch.equal` to the loaded ones; dropout inside them runs as
configured. Nothing here knows a particular model: it works from the model's
parameter split.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Any

from torch import nn

from phrasenmt.io import InputError

# train.freeze -> how the log names the frozen and the trained part
FREEZE_LABELS = {"sentence": ("θ_s", "θ_d"), "loaded": ("loaded weights", "new"),
                 "none": ("parameters", "everything")}


@dataclass
class Split:
    """What was frozen and what trains, for the log and the summary."""

    frozen: dict[str, nn.Parameter]  # requires_grad False
    trained: dict[str, nn.Parameter]  # in the optimizer
    mode: str = "sentence"  # the train.freeze it follows

    def describe(self, model: nn.Module) -> str:
        """One log line: counts and module names of both parts."""
        def part(params: dict[str, nn.Parameter]) -> str:
            if not params:
                return "nothing"
            count = sum(p.numel() for p in params.values())
            groups = ", ".join(module_groups(model, list(params)))
            return f"{len(params)} tensors, {count} parameters ({groups})"
        frozen, trained = FREEZE_LABELS[self.mode]
        return (f"frozen {frozen}: {part(self.frozen)}; "
                f"training {trained}: {part(self.trained)}")


def module_groups(model: nn.Module, names: list[str]) -> list[str]:
    """Parameter names -> the modules holding them: the top-level module, or the
    path to a document module with layer numbers as `*`."""
    document = set(getattr(model, "document_modules", ()))
    groups = set()
    for name in names:
        parts = name.split(".")
        hit = next((i for i, p in enumerate(parts) if p in document), None)
        if hit is None:
            groups.add(parts[0])
        else:
            groups.add(".".join("*" if p.isdigit() else p for p in parts[: hit + 1]))
    return sorted(groups)


def key_patterns(names: list[str]) -> list[str]:
    """State-dict names with layer numbers as `*`, each pattern once, sorted."""
    return sorted({".".join("*" if p.isdigit() else p for p in n.split("."))
                   for n in names})


def check_same_architecture(cfg: Any, step1_args: dict[str, Any],
                            path: str | os.PathLike) -> None:
    """Fields the two configs share must agree (dropout rates and fields marked
    `metadata={"architecture": False}` may differ)."""
    for field in dataclasses.fields(cfg):
        name = field.name
        training_only = field.metadata.get("architecture", True) is False
        if name in step1_args and "dropout" not in name and not training_only:
            mine, theirs = getattr(cfg, name), step1_args[name]
            if mine != theirs:
                raise InputError(f"model.{name} is {mine!r} in this spec but "
                                 f"{theirs!r} in the step-1 checkpoint", path)


def load_step1(model: nn.Module, payload: dict[str, Any],
               path: str | os.PathLike) -> list[str]:
    """Load step 1's weights; returns the θ_d keys the step-1 file did not have."""
    check_same_architecture(model.cfg, payload["model_args"], path)
    state, own = payload["model"], model.state_dict()
    unused = sorted(set(state) - set(own))
    if unused:
        raise InputError(f"step-1 key {unused[0]!r} ({len(unused)} in all) has no "
                         "place in this model; every step-1 key must be used", path)
    missing = sorted(set(own) - set(state))
    sentence_level = [k for k in missing if not model.is_document_key(k)]
    if sentence_level:
        raise InputError(f"lacks the sentence-level key {sentence_level[0]!r} "
                         f"({len(sentence_level)} in all); only document-level "
                         "parameters may be new", path)
    inherited = set(getattr(model, "init_modules", ()))
    required = [k for k in missing if not inherited.isdisjoint(k.split("."))]
    if required:
        raise InputError(f"lacks {required[0]!r} ({len(required)} in all): this "
                         f"model starts from one that has trained "
                         f"{', '.join(sorted(inherited))}", path)
    for key, value in state.items():
        if value.shape != own[key].shape:
            raise InputError(f"{key} has shape {tuple(value.shape)} but this model "
                             f"needs {tuple(own[key].shape)}", path)
    model.load_state_dict(state, strict=False)
    return missing


def freeze_parameters(model: nn.Module, mode: str, loaded: set[str]) -> Split:
    """Freeze by `train.freeze` (see the module doc); `loaded` are the state-dict
    keys taken from the file. Raises if nothing would train."""
    params = dict(model.named_parameters())
    if mode == "sentence":
        frozen = model.sentence_parameters()
    elif mode == "loaded":
        frozen = {n: p for n, p in params.items() if n in loaded}
    elif mode == "none":
        frozen = {}
    else:
        raise InputError(f"must be one of {', '.join(FREEZE_LABELS)}, got {mode!r}",
                         "train.freeze")
    trained = {n: p for n, p in params.items() if n not in frozen}
    if not trained:
        what = ("the sentence-level parameters, but this model has no "
                "document-level ones" if mode == "sentence" else
                "every loaded parameter (train.freeze: loaded), but this model "
                "has no new ones")
        raise InputError(f"--init-from freezes {what} to train", "--init-from")
    for param in frozen.values():
        param.requires_grad_(False)
    return Split(frozen, trained, mode)



# Step 1 trained on this data's BPE leaves no training token unknown; a few
# per cent mean other data or another BPE, and step 2 would learn from <unk>.
MAX_UNKNOWN = 0.01


def check_vocabulary_coverage(corpus: Any, unk: int, step1: str | os.PathLike
                              ) -> None:
    """Refuse a step-1 model whose vocabularies miss more than MAX_UNKNOWN of
    the training tokens (`corpus`: encoded with step 1's vocabularies)."""
    for side in ("src", "tgt"):
        rows = getattr(corpus, side)
        total = sum(len(r) for r in rows)
        unknown = sum(r.count(unk) for r in rows)
        if total and unknown / total > MAX_UNKNOWN:
            word = "source" if side == "src" else "target"
            raise InputError(
                f"its {word} vocabulary misses {100 * unknown / total:.1f}% of the "
                f"training data's {word} tokens ({unknown} of {total}; at most "
                f"{100 * MAX_UNKNOWN:g}% allowed): step 1 was trained on other data "
                "or another BPE; train step 1 on this data", step1)
