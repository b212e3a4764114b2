"""Training updates with glibc's own malloc settings and with phrasenmt's
(phrasenmt/allocator.py), alternating, each in a fresh process.

    python experiments/malloc_ab.py RESULTS [--arch ctx_transformer|transformer]
        [--rounds 3] [--updates 40]

RESULTS is a default run's dataset folder (results/synthetic_en_de): its BPE
text, documents and step-1 Transformer. Each process builds the default run's
`ctx_transformer` step 2 (from that step 1) or `transformer` (`tiny`, from
scratch), one thread, fp32, draws `--updates` updates, and trains on them four
times; it prints the last three passes' milliseconds per update and its minor
page faults. Batches are built before the clock starts, so the figures are
the updates' own.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SPECS = {
    "ctx_transformer": ('{"arch": "ctx_transformer", "preset": "tiny", "model": '
                        '{"context_size": 1, "context_dropout": 0.0}, '
                        '"train": {"lr": 0.003, "warmup_steps": 100}}'),
    "transformer": '{"arch": "transformer", "preset": "tiny", "model": {}, "train": {}}',
}


def child(results: Path, updates: int, arch: str) -> None:
    """One process: the updates' ms (three passes) and the page faults."""
    from phrasenmt.allocator import tune

    tune()  # what a stage start does; nothing with PHRASENMT_MALLOC=default
    import torch

    from phrasenmt.training.data import DataPaths
    from phrasenmt.training.spec import load_spec, resolve_spec
    from phrasenmt.training.trainer import Trainer

    torch.set_num_threads(1)
    bpe = results / "bpe"
    step2 = arch == "ctx_transformer"
    paths = DataPaths(bpe / "train.bpe.en", bpe / "train.bpe.de", bpe / "dev.bpe.en",
                      bpe / "dev.bpe.de", {},
                      (results / "data/train.docs", results / "data/dev.docs")
                      if step2 else None)
    trainer = Trainer(resolve_spec(*load_spec(SPECS[arch])), paths, tempfile.mkdtemp(),
                      1, "cpu", progress_bar=False,
                      init_from=(results / "models/transformer/seed1/averaged.pt"
                                 if step2 else None),
                      precision="fp32")
    work = [trainer._next_update() for _ in range(updates)]
    trainer.model.train()
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    passes = []
    for _ in range(4):
        start = time.perf_counter()
        for batches, total in work:
            trainer._backward(batches, total)
            trainer.optimizer.step()
            trainer.optimizer.zero_grad(set_to_none=True)
        passes.append((time.perf_counter() - start) / updates * 1000)
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
    print(" ".join(f"{ms:.1f}" for ms in passes[1:]), faults)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results", type=Path)
    p.add_argument("--arch", choices=list(SPECS), default="ctx_transformer")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--updates", type=int, default=40)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args.results, args.updates, args.arch)
        return 0
    runs: dict[str, list[float]] = {"glibc": [], "phrasenmt": []}
    for r in range(args.rounds):
        for name in runs:
            env = dict(os.environ, OMP_NUM_THREADS="1", PHRASENMT_WARM="0")
            env.pop("PHRASENMT_MALLOC", None)
            if name == "glibc":
                env["PHRASENMT_MALLOC"] = "default"
            out = subprocess.run([sys.executable, __file__, str(args.results),
                                  "--arch", args.arch, "--updates", str(args.updates),
                                  "--child"], env=env,
                                 capture_output=True, text=True, check=True)
            *ms, faults = out.stdout.split()
            runs[name] += [float(m) for m in ms]
            print(f"round {r + 1} {name:9s} ms/update {' '.join(ms)}  "
                  f"minor faults {int(faults):,}", flush=True)
    for name, ms in runs.items():
        print(f"{name:9s} mean {sum(ms) / len(ms):.1f} ms/update over {len(ms)} passes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
