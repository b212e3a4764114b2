"""Our side of the fairseq comparison in a fresh process, as fairseq's side runs.

    python -m tests.gpu.ours_worker SETTINGS_JSON  # the row: stdout's last line

A process that has trained on the same corpus before (the GPU check's timing,
the data-path A/B) has met the first batches' shapes already, and PyTorch's
cuDNN attention keeps the plan it built for each: timed in that process, our
first updates would skip the planning that fairseq's fresh process pays.
`fresh` runs `timing.guarded` here instead, on the corpus already written.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.gpu.data import Corpus
from tests.gpu.ddp import subprocess_env
from tests.gpu.families import one_line

SETTINGS = ("root", "preset", "batch", "device", "outdir", "peak", "warmup", "timed")


def fresh(corpus: Corpus, preset: str, batch: int, device: str, outdir: Path,
          peak: float | None, warmup: int, timed: int,
          timeout: float = 600.0) -> dict[str, Any]:
    """`timing.guarded` of the Transformer in a new process -> its row (a FAIL
    row with the reason where the process fails)."""
    settings = {"root": str(corpus.root), "preset": preset, "batch": batch,
                "device": device, "outdir": str(outdir), "peak": peak,
                "warmup": warmup, "timed": timed}
    try:
        result = subprocess.run([sys.executable, "-m", "tests.gpu.ours_worker",
                                 json.dumps(settings)], capture_output=True, text=True,
                                env=subprocess_env(), timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"arch": "transformer", "preset": preset, "status": "FAIL",
                "reason": f"timed out after {timeout:.0f} s"}
    lines = result.stdout.strip().splitlines()
    if result.returncode != 0 or not lines:
        tail = [x for x in result.stderr.splitlines() if x.strip()][-1:] or [""]
        return {"arch": "transformer", "preset": preset, "status": "FAIL",
                "reason": f"exit {result.returncode}: {one_line(tail[0])}"}
    return json.loads(lines[-1])


def main(argv: list[str]) -> int:
    """Time the Transformer as `fresh` asked -> print its row."""
    from tests.gpu.timing import guarded

    s = json.loads(argv[0])
    row = guarded("transformer", s["preset"], Corpus(Path(s["root"])), s["batch"],
                  s["device"], Path(s["outdir"]), s["peak"], s["warmup"], s["timed"],
                  False)
    print(json.dumps(row))
    return 0 if row["status"] == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
