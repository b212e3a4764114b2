"""Data-parallel training across processes (torchrun), and a no-op single process.

`torchrun --standalone --nproc-per-node N -m phrasenmt.train ...` starts N
ranks with RANK/WORLD_SIZE/LOCAL_RANK set; each joins one process group (NCCL
on GPUs, gloo on CPU; PHRASENMT_DIST_BACKEND=gloo|nccl chooses, and gloo lets
the ranks of a node share its GPUs: rank r on GPU r mod the GPUs, e.g. two
ranks on a workstation's one GPU to try DDP before a cluster). Every rank picks the same list of batches for an update
and collates only its disjoint share of it (batch k goes to rank k mod N), so
N ranks see exactly the batches one process would; DistributedDataParallel sums
their gradients. The trainer's own sums (losses, the stop flag) are reduced on
the group's device: NCCL refuses host tensors. Only rank 0 writes files.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import torch
import torch.distributed as dist
from torch import nn

from phrasenmt.io import InputError

BACKEND_VARIABLE = "PHRASENMT_DIST_BACKEND"
BACKENDS = ("auto", "nccl", "gloo")


def backend_for(cuda: bool, gpus: int, local_world: int) -> str:
    """The process group's backend: PHRASENMT_DIST_BACKEND, `auto` (the default)
    being NCCL on GPUs and gloo on CPU; NCCL needs a GPU of its own per rank."""
    asked = os.environ.get(BACKEND_VARIABLE, "auto") or "auto"
    if asked not in BACKENDS:
        raise InputError(f"is {asked!r}; choose one of {', '.join(BACKENDS)}",
                         BACKEND_VARIABLE)
    backend = ("nccl" if cuda else "gloo") if asked == "auto" else asked
    if backend == "nccl" and not cuda:
        raise InputError("is nccl, but NCCL reduces GPU memory and this run trains "
                         "on the CPU (use gloo)", BACKEND_VARIABLE)
    if backend == "nccl" and local_world > gpus:
        raise InputError(f"NCCL needs one GPU per rank, but this node runs "
                         f"{local_world} ranks on {gpus} GPU(s): start at most {gpus} "
                         f"(--nproc-per-node), or set {BACKEND_VARIABLE}=gloo to let "
                         "ranks share a GPU", BACKEND_VARIABLE)
    return backend


class LossModule(nn.Module):
    """Wraps a model so that DDP's forward is the model's loss (DDP syncs on it)."""

    def __init__(self, model: nn.Module):
        super().__init__()
        self.model = model

    def forward(self, batch: object, label_smoothing: float) -> tuple:
        return self.model.loss(batch, label_smoothing)


class Distributed:
    """Rank, world size and the collective operations the trainer needs."""

    def __init__(self) -> None:
        self.world = int(os.environ.get("WORLD_SIZE", "1"))
        self.rank = int(os.environ.get("RANK", "0"))
        self.local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        self.local_world = int(os.environ.get("LOCAL_WORLD_SIZE", str(self.world)))
        if self.world > 1 and not dist.is_initialized():
            cuda = torch.cuda.is_available()
            dist.init_process_group(backend_for(
                cuda, torch.cuda.device_count() if cuda else 0, self.local_world))
        # Where the group's collectives take their tensors: NCCL reduces GPU
        # memory only, gloo host memory.
        self.backend = dist.get_backend() if self.world > 1 else None
        self.collective_device = torch.device("cpu")
        if self.backend == "nccl":
            self.collective_device = torch.device("cuda", self.local_rank)

    @property
    def is_main(self) -> bool:
        """Rank 0: the process that writes checkpoints, metrics and the summary."""
        return self.rank == 0

    def device(self, device: torch.device) -> torch.device:
        """This rank's GPU when training on CUDA: GPU `local_rank` (NCCL: one
        per rank), or under gloo `local_rank` mod the node's GPUs (shared)."""
        if device.type == "cuda" and self.world > 1:
            index = self.local_rank % torch.cuda.device_count()
            torch.cuda.set_device(index)
            return torch.device("cuda", index)
        return device

    def wrap(self, model: nn.Module) -> nn.Module:
        """The module to call for the loss: DDP across ranks, else the model."""
        loss_module = LossModule(model)
        if self.world == 1:
            return loss_module
        param = next(model.parameters())
        ids = [param.device.index] if param.is_cuda else None
        return nn.parallel.DistributedDataParallel(loss_module, device_ids=ids)

    def share(self, n: int) -> list[int]:
        """Indices of this rank's batches among an update's `n` batches."""
        return list(range(self.rank, n, self.world))

    def sum(self, values: Sequence[float] | torch.Tensor) -> list[float]:
        """Element-wise sum over ranks, read back to the host (one synchronisation).

        A tensor must be on the group's device (`collective_device`); numbers
        are put there. Under gloo a GPU tensor is copied to the host first
        (gloo reduces host memory, and the copy is the read-back anyway)."""
        if not isinstance(values, torch.Tensor):
            values = torch.tensor(values, dtype=torch.float64,
                                  device=self.collective_device)
        if self.world > 1:
            if self.backend == "gloo":
                values = values.cpu()
            self.check_device(values)
            dist.all_reduce(values)
        return values.tolist()

    def check_device(self, tensor: torch.Tensor) -> None:
        """Refuse a tensor that the process group's backend cannot reduce."""
        if tensor.device != self.collective_device:
            raise ValueError(
                f"a collective got a tensor on {tensor.device}, but this process "
                f"group reduces tensors on {self.collective_device} "
                f"({dist.get_backend() if dist.is_initialized() else 'no group'}); "
                "move it there first")

    def close(self) -> None:
        """Leave the process group."""
        if self.world > 1 and dist.is_initialized():
            dist.destroy_process_group()
