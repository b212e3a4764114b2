"""Self-contained checkpoints: model args + vocabularies + weights (+ train state).

Files are `checkpoint_{step}.pt` in a checkpoint folder, written atomically, with
a `latest` file naming the newest one. Any checkpoint (or averaged model) can
rebuild its model from the file alone with `load_model`. Every file written by
`save_file` gets a `<name>.sha256` next to it, renamed into place just before
the file itself; loading checks it, so a truncated or altered file is caught
even where torch.load would accept it. `load_latest_good` falls back to older
checkpoints.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import os
import re
from pathlib import Path
from typing import Any

import torch
from torch import nn

from phrasenmt.io import InputError, atomic_open, naming, output_set
from phrasenmt.log import get_logger
from phrasenmt.models.registry import build_model, config_from_dict, get_model_class
from phrasenmt.text.vocab import Vocabulary

_log = get_logger(__name__)

FORMAT = "phrasenmt-checkpoint-v1"
_NAME = re.compile(r"^checkpoint_([0-9]+)\.pt$")
_SHA256 = re.compile(rb"[0-9a-f]{64}")


def model_payload(arch: str, model: nn.Module, src_vocab: Vocabulary,
                  tgt_vocab: Vocabulary, spec: dict[str, Any]) -> dict[str, Any]:
    """What any loadable model file holds: arch, args, vocabularies, weights, spec."""
    return {"format": FORMAT, "arch": arch,
            "model_args": dataclasses.asdict(model.cfg),
            "src_vocab": src_vocab.to_list(), "tgt_vocab": tgt_vocab.to_list(),
            "model": {k: v.detach().cpu() for k, v in model.state_dict().items()},
            "spec": spec}


def sha256(path: str | os.PathLike) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def checksum_path(path: str | os.PathLike) -> Path:
    """Where the SHA-256 of a checkpoint file is kept."""
    return Path(f"{path}.sha256")


def save_file(payload: dict[str, Any], path: str | os.PathLike) -> None:
    """torch.save `payload` to `path` and its checksum file: both, or neither.

    torch serialises into memory and the bytes are written as a plain file:
    torch's own zip writer turns an OS error met after its first write (a disk
    that fills up during the second checkpoint) into an "[enforce fail at
    inline_container.cc] unexpected pos" RuntimeError naming neither the file
    nor the reason, while a plain write raises the OSError, which names both.
    The two files are one `output_set`, the checksum renamed first: a failed
    save leaves neither, and the previous checkpoint stays as it was.
    """
    path = Path(path)
    buffer = io.BytesIO()
    try:
        torch.save(payload, buffer)
    except OSError as err:  # not from a disk; named all the same
        raise naming(err, path) from None
    data = buffer.getbuffer()
    with output_set():
        with atomic_open(checksum_path(path)) as fh:
            fh.write(f"{hashlib.sha256(data).hexdigest()}  {path.name}\n")
        with atomic_open(path, "wb") as fh:
            fh.write(data)


def verify_checksum(path: Path) -> None:
    """A file whose bytes differ from its recorded SHA-256 raises InputError."""
    recorded = checksum_path(path)
    if not recorded.is_file():
        return  # files from before checksums, or copied without theirs
    expected = recorded.read_bytes().split()[:1]
    if not expected or not _SHA256.fullmatch(expected[0]):
        raise InputError(f"its checksum file {recorded.name} is damaged (not a "
                         "SHA-256 line); delete that file to load without the "
                         "check, or train again", path)
    if expected != [sha256(path).encode()]:
        raise InputError(f"corrupt or truncated checkpoint (SHA-256 differs from "
                         f"{recorded.name}); delete it or train again", path)


def load_file(path: str | os.PathLike) -> dict[str, Any]:
    """Load a checkpoint file; missing/corrupt/foreign files raise InputError."""
    path = Path(path)
    if not path.is_file():
        raise InputError("checkpoint not found", path)
    verify_checksum(path)
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # noqa: BLE001  (torch raises many types here)
        raise InputError("corrupt or truncated checkpoint (torch.load failed: "
                         f"{type(err).__name__}); delete it or train again",
                         path) from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise InputError(f"not a phrasenmt checkpoint (expected format {FORMAT})",
                         path)
    check_finite(payload.get("model"), path)
    return payload


def check_finite(state: Any, path: Path) -> None:
    """Every floating-point weight finite; else one line naming the first bad one.

    A NaN weight makes every output NaN, and decoding then picks arbitrary
    tokens (or fails deep inside the search); training never saves one (a
    non-finite loss stops it before the update), so such a file was altered or
    made by something else.
    """
    if not isinstance(state, dict):
        return  # load_weights names a file without weights
    for name, value in state.items():
        if isinstance(value, torch.Tensor) and value.is_floating_point():
            finite = torch.isfinite(value)
            if not bool(finite.all()):
                bad = value[~finite]
                kind = "NaN" if bool(torch.isnan(bad).any()) else "infinite"
                raise InputError(f"parameter {name} has {kind} values ({bad.numel()} "
                                 f"of {value.numel()}); the file was altered or "
                                 "made by a diverged run: use an earlier checkpoint "
                                 "or train again", path)


def list_checkpoints(ckpt_dir: str | os.PathLike) -> list[tuple[int, Path]]:
    """(step, path) of every checkpoint_{step}.pt in the folder, by step."""
    ckpt_dir = Path(ckpt_dir)
    if not ckpt_dir.is_dir():
        return []
    found = [(int(m.group(1)), p) for p in ckpt_dir.iterdir()
             if (m := _NAME.match(p.name))]
    return sorted(found)


def latest_checkpoint(ckpt_dir: str | os.PathLike) -> Path | None:
    """The checkpoint named by `latest` (else the highest step), or None."""
    ckpt_dir = Path(ckpt_dir)
    pointer = ckpt_dir / "latest"
    if pointer.is_file():
        name = pointer.read_bytes().decode("utf-8", "replace").strip()
        if _NAME.match(name) and (ckpt_dir / name).is_file():
            return ckpt_dir / name
        if not _NAME.match(name):  # a crash can leave it cut or full of NULs
            _log.warning(f"{pointer}: damaged (not a checkpoint name); using the "
                         "checkpoint with the highest step")
    found = list_checkpoints(ckpt_dir)
    return found[-1][1] if found else None


def load_latest_good(ckpt_dir: str | os.PathLike
                     ) -> tuple[Path, dict[str, Any]] | None:
    """The newest checkpoint that loads; bad ones are skipped with a warning."""
    newest = latest_checkpoint(ckpt_dir)
    older = [p for _, p in reversed(list_checkpoints(ckpt_dir)) if p != newest]
    for path in ([newest] if newest else []) + older:
        try:
            return path, load_file(path)
        except InputError as err:
            _log.warning(f"{err}; using the previous checkpoint")
    return None


def save_checkpoint(payload: dict[str, Any], ckpt_dir: str | os.PathLike,
                    step: int, keep_last: int, save_interval: int | None = None
                    ) -> Path:
    """Write checkpoint_{step}.pt, point `latest` at it, keep the last K files.

    With `save_interval`, a checkpoint off the interval that is older than this
    one goes first: it was written when a signal stopped the run, only to
    resume from, and an uninterrupted run has no such file, so keeping it
    would make the kept (and averaged) checkpoints depend on the interruption.
    The last checkpoint of a run is kept whatever its step."""
    ckpt_dir = Path(ckpt_dir)
    path = ckpt_dir / f"checkpoint_{step}.pt"
    save_file(payload, path)
    with atomic_open(ckpt_dir / "latest") as fh:
        fh.write(path.name + "\n")
    found = list_checkpoints(ckpt_dir)
    stale = [(s, p) for s, p in found if save_interval and s < step and s % save_interval]
    kept = [c for c in found if c not in stale]
    for _, old in stale + kept[:-keep_last]:
        old.unlink(missing_ok=True)
        checksum_path(old).unlink(missing_ok=True)
    return path


def weight_differences(own: dict[str, Any], stored: dict[str, Any]) -> list[str]:
    """Per differing weight: its name and how it differs, in name order."""
    diffs = []
    for key in sorted(set(own) | set(stored)):
        if key not in stored:
            diffs.append(f"{key} (not in the checkpoint)")
        elif key not in own:
            diffs.append(f"{key} (not in this model)")
        elif not isinstance(stored[key], torch.Tensor):
            diffs.append(f"{key} (not a tensor)")
        elif stored[key].shape != own[key].shape:
            diffs.append(f"{key} (shape {tuple(stored[key].shape)}, this model "
                         f"{tuple(own[key].shape)})")
    return diffs


def load_weights(model: nn.Module, state: Any, path: str | os.PathLike) -> None:
    """Load a state dict strictly; a mismatch is one line naming the first weight."""
    if not isinstance(state, dict):
        raise InputError("checkpoint holds no model weights", path)
    diffs = weight_differences(model.state_dict(), state)
    if diffs:
        raise InputError(f"checkpoint was trained with a different model "
                         f"configuration: {len(diffs)} weights differ, first: "
                         f"{diffs[0]}", path)
    model.load_state_dict(state)


def check_fertility_trained(model: nn.Module, payload: dict[str, Any],
                            path: str | os.PathLike) -> None:
    """Refuse a model whose fertility module was never trained: the network
    trains with it frozen at its random init, and `phrasenmt.train_fertility`
    trains it after (its file carries `fertility_training`). Decoding or
    scoring the module of a checkpoint or averaged.pt before that step reads
    random guidance. A model without a fertility module passes."""
    if getattr(model, "fertility", None) is not None and \
            "fertility_training" not in payload:
        raise InputError("the fertility module of this checkpoint was not trained; "
                         "use the file written by phrasenmt.train_fertility "
                         "(fertility.pt)", path)


def load_model(path: str | os.PathLike, device: str | torch.device = "cpu"
               ) -> tuple[nn.Module, Vocabulary, Vocabulary, dict[str, Any]]:
    """Rebuild (model in eval mode, src vocab, tgt vocab, payload) from a file."""
    payload = load_file(path)
    try:
        cls = get_model_class(payload["arch"], "arch")
        cfg = config_from_dict(cls.config_class, payload["model_args"])
        model = build_model(payload["arch"], cfg)
        state = payload["model"]
        vocabs = (Vocabulary.from_list(payload["src_vocab"]),
                  Vocabulary.from_list(payload["tgt_vocab"]))
    except KeyError as err:
        raise InputError(f"checkpoint cannot be loaded: no {err} in it", path) from None
    except (RuntimeError, ValueError, TypeError, InputError) as err:
        message = " ".join(str(err).split())  # library messages span lines
        raise InputError(f"checkpoint cannot be loaded: {message}", path) from None
    load_weights(model, state, path)  # its one line names the file already
    return model.to(device).eval(), *vocabs, payload
