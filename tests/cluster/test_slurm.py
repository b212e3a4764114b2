"""The tiny workflow on a real single-node SLURM cluster, compared with a local run.

tests/cluster/setup_slurm.sh installs and starts munge, slurmctld, slurmd and
slurmdbd (MariaDB) with one gres GPU backed by a device file; the test runs the
tiny configuration through `snakemake --profile profiles/slurm`, checks with
`sacct` that every rule ran as a SLURM job and that training and decoding asked
for a GPU, and that the results equal a local run of the same configuration
(CPU training is deterministic given the seed). teardown_slurm.sh then stops
only the daemons that this test's setup started (their PIDs are in a state
folder of this test; daemons that were already running are left alone).

The setup changes the system (apt-get installs, /etc/slurm/slurm.conf,
/etc/munge, a MariaDB database), so these tests run only when asked:
`make test-cluster`, which sets PHRASENMT_CLUSTER_TESTS=1. `make test` and CI
skip them, saying why.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
import yaml

from tests.conftest import REPO

ENABLE = "PHRASENMT_CLUSTER_TESTS"
NOT_ASKED = (f"changes the system (installs SLURM and MariaDB with apt-get, writes "
             f"/etc/slurm/slurm.conf): run with make test-cluster ({ENABLE}=1)")
pytestmark = [pytest.mark.cluster,
              pytest.mark.skipif(os.environ.get(ENABLE) != "1", reason=NOT_ASKED)]

HERE = Path(__file__).resolve().parent
TINY = {
    "seed": 3,
    "run_datasets": ["tiny"],
    "datasets": {"tiny": {
        "source": "synthetic", "src": "en", "tgt": "de", "tokenize": False,
        "synthetic": {"train_size": 300, "dev_size": 20, "test_size": 30},
        "bpe": {"merges": 200},
    }},
    "models": {"transformer": {
        "arch": "transformer", "preset": "tiny", "gpus": 1,
        "model": {"d_model": 16, "d_ff": 32, "n_heads": 2},
        "train": {"max_steps": 6, "valid_interval": 3, "save_interval": 3,
                  "average_last": 2},
    }},
    "baseline": "transformer",
    "decode": {"beam": 2},
    "evaluate": {"significance_trials": 20},
    "embeddings": {"dim": 8, "epoch": 1},
}
# Rules that run a model ask for a GPU (rules/*.smk `resources: gpu=`): training,
# decoding and forced-decoding scores (tests/unit/test_workflow_helpers.py checks
# this list against the rules and the profile's cpus_per_gpu).
GPU_RULES = {"train", "translate", "lingeval_score", "train_continuous",
             "translate_continuous", "train_npmt", "translate_npmt",
             "translate_npmt_greedy", "translate_decoding", "train_document",
             "translate_document", "contrastive_score", "cxmi"}
SUBMITTED = re.compile(r"submitted with SLURM jobid (\d+) \(log: \S*/rule_(\w+)/")


def skip_reason() -> str | None:
    """Why this machine cannot host the test cluster (None when it can)."""
    if os.environ.get(ENABLE) != "1":
        return NOT_ASKED
    if os.geteuid() != 0:
        return "needs root to install and start the SLURM daemons"
    if shutil.which("sbatch") is None and shutil.which("apt-get") is None:
        return "needs apt-get (Debian/Ubuntu) to install SLURM"
    return None


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A running single-node SLURM cluster; stops only the daemons it started."""
    reason = skip_reason()
    if reason:
        print(f"SKIP tests/cluster: {reason}", file=sys.stderr)
        pytest.skip(reason)
    env = {**os.environ, "STATE_DIR": str(tmp_path_factory.mktemp("slurm-state")),
           "CPUS": "4"}
    setup = subprocess.run(["bash", str(HERE / "setup_slurm.sh")], env=env,
                           capture_output=True, text=True, timeout=600, check=False)
    try:
        assert setup.returncode == 0, setup.stdout[-3000:] + setup.stderr[-3000:]
        yield env
    finally:
        subprocess.run(["bash", str(HERE / "teardown_slurm.sh")], env=env,
                       capture_output=True, text=True, timeout=120, check=False)


def _workdir(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "config.yaml").write_text(yaml.safe_dump(TINY))
    return root


def _start(workdir: Path, *extra: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile"),
           "--directory", str(workdir), "--configfile", str(workdir / "config.yaml"),
           *extra]
    return subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def _finish(proc: subprocess.Popen, timeout: float) -> str:
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.terminate()  # Snakemake cancels its SLURM jobs on SIGTERM
        out, _ = proc.communicate(timeout=60)
        pytest.fail(f"snakemake ran over {timeout}s:\n{out[-4000:]}")
    assert proc.returncode == 0, out[-4000:]
    return out


@pytest.fixture(scope="module")
def runs(cluster, tmp_path_factory):
    """Run the tiny config on SLURM and locally (at the same time); time both."""
    root = tmp_path_factory.mktemp("runs")
    start = time.monotonic()
    slurm = _start(_workdir(root / "slurm"), "--profile", "profiles/slurm",
                   "--slurm-init-seconds-before-status-checks", "2",
                   "--slurm-keep-successful-logs")
    local = _start(_workdir(root / "local"), "--cores", "1")
    local_out = _finish(local, timeout=420)
    # The SLURM run took 480 s on an idle 2-core machine (sacct polling between
    # dependent jobs) and over 600 s beside other work: 420 s was too tight.
    slurm_out = _finish(slurm, timeout=720)
    print(f"SLURM run took {time.monotonic() - start:.0f}s", file=sys.stderr)
    return {"slurm": root / "slurm", "local": root / "local",
            "slurm_out": slurm_out, "local_out": local_out}


def _rules_run(output: str) -> set[str]:
    """Rules in the 'Job stats' table of a Snakemake run (without `all`)."""
    table = output.split("Job stats:", 1)[1].split("total", 1)[0]
    rules = {line.split()[0] for line in table.splitlines()[3:] if line.strip()}
    return rules - {"all"}


def _sacct(job_ids: list[str]) -> dict[str, dict[str, str]]:
    fields = ["JobID", "State", "ReqTRES", "AllocTRES"]
    out = subprocess.run(["sacct", "-X", "-n", "-P", "-j", ",".join(job_ids),
                          "-o", ",".join(fields)],
                         capture_output=True, text=True, check=True).stdout
    rows = [dict(zip(fields, line.split("|"), strict=True))
            for line in out.splitlines() if line]
    return {row["JobID"]: row for row in rows}


def test_every_rule_ran_as_a_slurm_job(runs):
    submitted = SUBMITTED.findall(runs["slurm_out"])
    rules = {rule for _, rule in submitted}
    assert rules == _rules_run(runs["local_out"])
    accounting = _sacct([job for job, _ in submitted])
    for job, rule in submitted:
        row = accounting[job]
        assert row["State"] == "COMPLETED", (rule, row)
        asked_gpu = "gres/gpu" in row["ReqTRES"] and "gres/gpu" in row["AllocTRES"]
        assert asked_gpu == (rule in GPU_RULES), (rule, row)


def _losses(metrics: Path) -> list[tuple[str, ...]]:
    """Step, loss, nll and dev loss of each logged step (not the speed)."""
    lines = [line.split("\t") for line in metrics.read_text().splitlines()]
    cols = [lines[0].index(c) for c in ("step", "loss", "nll", "dev_loss")]
    return [tuple(row[c] for c in cols) for row in lines[1:]]


def test_results_equal_a_local_run(runs):
    rel = "results/tiny"
    for name in ("translations/transformer/seed1/test.txt", "bpe/codes"):
        slurm = (runs["slurm"] / rel / name).read_text()
        assert slurm == (runs["local"] / rel / name).read_text(), name
    losses = [_losses(runs[k] / rel / "models/transformer/seed1/metrics.tsv")
              for k in ("slurm", "local")]
    assert losses[0] == losses[1] and losses[0]
    evals = [json.loads((runs[k] / rel / "eval/transformer/seed1/test.json").read_text())
             for k in ("slurm", "local")]
    for key in ("bleu", "bleu_tok", "chrf"):
        assert evals[0][key] == evals[1][key], key
    weights = [torch.load(runs[k] / rel / "models/transformer/seed1/averaged.pt",
                          map_location="cpu", weights_only=False)["model"]
               for k in ("slurm", "local")]
    assert weights[0].keys() == weights[1].keys()
    for name, tensor in weights[0].items():
        assert torch.equal(tensor, weights[1][name]), name
