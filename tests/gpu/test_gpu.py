"""GPU acceptance: every registered architecture trains (fp32, resumed, bf16)
and decodes on CUDA, and DDP through the training rule's launcher follows one
process. Skipped where torch sees no CUDA device.

    pytest -q tests/gpu

The same checks, with the speed measurements and a summary file, are one
command, `python -m tests.gpu.check` (docs/gpu.md); its CPU path is tested in
tests/unit/test_gpu_check.py.
"""

from __future__ import annotations

import pytest
import torch

from tests.gpu import ddp
from tests.gpu import families as fam
from tests.gpu.data import synthetic

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(),
                                reason="no CUDA device: the GPU acceptance checks "
                                       "need one")


@pytest.fixture(scope="module")
def settings(tmp_path_factory) -> fam.Settings:
    """The check's defaults on CUDA: tiny presets, 50 updates, 4,000 pairs."""
    work = tmp_path_factory.mktemp("gpu")
    torch.backends.cudnn.allow_tf32 = False  # fp32 means fp32, as the check sets it
    return fam.Settings("cuda", 50, "tiny", synthetic(work / "data", 1, 4000, 32, 100),
                        work)


@pytest.mark.parametrize("arch", fam.architectures(None))
def test_architecture_trains_resumes_and_decodes_on_cuda(arch, settings):
    row = fam.check_arch(arch, settings)
    assert row["status"] == "PASS", row["reason"]
    assert row["fp32"]["last"] < row["fp32"]["first"]
    assert row["resume"]["rel_diff"] <= fam.RESUME_TOL_CUDA
    assert row["bf16"]["dev_rel_diff_to_fp32"] <= fam.BF16_TOL
    assert row["decode"]["greedy_device_vs_cpu"] >= fam.GREEDY_AGREE


@pytest.mark.parametrize("procs", [1, 2])
def test_ddp_through_the_launcher_follows_one_process(procs, settings):
    # more ranks than GPUs share them over gloo (NCCL needs a GPU per rank)
    backend = "gloo" if procs > torch.cuda.device_count() else "auto"
    row = ddp.check_ddp(settings, procs, timeout=600, backend=backend)
    assert row["status"] == "PASS", row["reason"]
    assert row["max_rel_diff"] <= ddp.DDP_TOL
