"""Data-parallel training across processes (torchrun), and a no-op single process.

`torchrun --standalone --nproc-per-node N -m phrasenmt.train ...` starts N
ranks with RANK/WORLD_SIZE/LOCAL_RANK set; each joins one process group (NCCL
on GPUs, gloo on CPU). Every rank picks the same list of batches for an update
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
        if self.world > 1 and not dist.is_initialized():
            backend = "nccl" if torch.cuda.is_available() else "gloo"
            dist.init_process_group(backend)
        # Where the group's collectives take their tensors: NCCL reduces GPU
        # memory only, gloo host memory.
        self.collective_device = torch.device("cpu")
        if self.world > 1 and dist.get_backend() == "nccl":
            self.collective_device = torch.device("cuda", self.local_rank)

    @property
    def is_main(self) -> bool:
        """Rank 0: the process that writes checkpoints, metrics and the summary."""
        return self.rank == 0

    def device(self, device: torch.device) -> torch.device:
        """This rank's GPU when training on CUDA (one GPU per rank)."""
        if device.type == "cuda" and self.world > 1:
            torch.cuda.set_device(self.local_rank)
            return torch.device("cuda", self.local_rank)
        return device

    def wrap(self, model: nn.Module) -> nn.Module:
        """The module to call for the loss: DDP across ranks, else the model."""
        loss_module = LossModule(model)
        if self.world == 1:
            return loss_module
        ids = [self.local_rank] if next(model.parameters()).is_cuda else None
        return nn.parallel.DistributedDataParallel(loss_module, device_ids=ids)

    def share(self, n: int) -> list[int]:
        """Indices of this rank's batches among an update's `n` batches."""
        return list(range(self.rank, n, self.world))

    def sum(self, values: Sequence[float] | torch.Tensor) -> list[float]:
        """Element-wise sum over ranks, read back to the host (one synchronisation).

        A tensor must be on the group's device (`collective_device`); numbers
        are put there."""
        if not isinstance(values, torch.Tensor):
            values = torch.tensor(values, dtype=torch.float64,
                                  device=self.collective_device)
        if self.world > 1:
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

    def any(self, flag: bool) -> bool:
        """Whether any rank's flag is set (every rank gets the same answer)."""
        return bool(self.sum([float(flag)])[0]) if self.world > 1 else flag

    def close(self) -> None:
        """Leave the process group."""
        if self.world > 1 and dist.is_initialized():
            dist.destroy_process_group()
