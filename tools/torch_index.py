"""Where `make install` takes PyTorch from, and which wheel that gives.

On Linux, PyPI's torch wheel is the CUDA build (several GB with its nvidia-*
wheels). `make install` therefore asks for PyTorch's CPU index, unless

1. `TORCH_INDEX` is given (e.g. a CUDA index for a GPU machine): that index;
2. pip is configured with a package source of its own (index-url,
   extra-index-url, find-links or no-index in a pip.conf, or a PIP_INDEX_URL,
   PIP_EXTRA_INDEX_URL, PIP_FIND_LINKS or PIP_NO_INDEX variable): a wheelhouse
   or a mirror the machine was set up with, used as pip is configured;
3. otherwise: `--index-url https://download.pytorch.org/whl/cpu`.

    python tools/torch_index.py options [--torch-index URL]
        the pip options for torch, one per line (Makefile: install-package);
        the choice and its reason go to stderr
    python tools/torch_index.py wheel [--torch-index URL] TORCH_REQUIREMENT
        the wheel pip would install (`pip install --dry-run --report`, with
        --no-deps: nothing is installed, no dependency is resolved): name,
        version, where it comes from, and whether it is the CPU or the CUDA
        build (make torch-wheel)

Run it with the virtual environment's Python: it asks that pip.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Mapping

CPU_INDEX = "https://download.pytorch.org/whl/cpu"
# pip options that name where packages come from (pip.conf keys, PIP_* variables)
SOURCE_KEYS = ("index-url", "extra-index-url", "find-links", "no-index")
SOURCE_VARIABLES = tuple("PIP_" + key.upper().replace("-", "_") for key in SOURCE_KEYS)


def configured_sources(config_list: str, environ: Mapping[str, str]) -> list[str]:
    """The package sources pip is configured with: the `pip config list` lines
    (`global.find-links='/opt/wheels'`) and PIP_* variables that name one."""
    found = []
    for line in config_list.splitlines():
        key, sep, _ = line.partition("=")
        if key.startswith(":env:"):  # a PIP_* variable: read below
            continue
        if sep and key.rpartition(".")[2].strip() in SOURCE_KEYS:
            found.append(line.strip())
    for name in SOURCE_VARIABLES:
        value = environ.get(name, "").strip()
        if value and not (name == "PIP_NO_INDEX" and value.lower() in ("0", "false", "no", "off")):
            found.append(f"{name}={value}")
    return found


def torch_options(torch_index: str, sources: list[str]) -> tuple[list[str], str]:
    """The pip options for installing torch, and why."""
    if torch_index.strip():
        return ["--index-url", torch_index.strip()], "TORCH_INDEX"
    if sources:
        return [], "pip's configured package source (" + "; ".join(sources) + ")"
    reason = ("PyTorch's CPU index (pip has no package source configured, and on Linux "
              "PyPI's torch is the CUDA build; TORCH_INDEX=URL chooses another index)")
    return ["--index-url", CPU_INDEX], reason


def pip_config_list(python: str = sys.executable) -> str:
    """`pip config list` of this Python's pip (its pip.conf files and PIP_* variables)."""
    result = subprocess.run([python, "-m", "pip", "config", "list"], capture_output=True,
                            text=True, check=False)
    if result.returncode != 0:
        raise SystemExit(f"error: pip config list failed: {result.stderr.strip()}")
    return result.stdout


def choose(torch_index: str) -> tuple[list[str], str]:
    return torch_options(torch_index, configured_sources(pip_config_list(), os.environ))


def describe(report: dict) -> str:
    """One line about the wheel of a `pip install --dry-run --report` report."""
    items = report.get("install") or []
    if not items:
        return "pip would install nothing: a matching torch is already installed"
    item = items[0]
    meta = item.get("metadata", {})
    version = meta.get("version", "?")
    requires = meta.get("requires_dist") or []
    local = version.partition("+")[2]
    if any(r.lower().startswith("nvidia-") for r in requires) or local.startswith(("cu", "rocm")):
        build = "CUDA/ROCm build: several GB with its GPU libraries"
    elif local == "cpu" or sys.platform == "darwin":
        build = "CPU build"
    else:
        build = "build not told by its version or requirements"
    source = item.get("download_info", {}).get("url", "?")
    return f"{meta.get('name', '?')} {version} ({build}) from {source}"


def wheel(torch_index: str, requirement: str) -> str:
    options, reason = choose(torch_index)
    print(f"torch from {reason}", file=sys.stderr)
    cmd = [sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps",
           "--ignore-installed", "--quiet", "--report", "-", *options, requirement]
    print("$ pip " + " ".join(cmd[3:]), file=sys.stderr)
    result = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        lines = result.stderr.strip().splitlines() or ["(no message)"]
        raise SystemExit(f"error: pip cannot find {requirement}: {lines[-1]}")
    return describe(json.loads(result.stdout))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("options", "wheel"):
        p = sub.add_parser(name)
        p.add_argument("--torch-index", default="", help="TORCH_INDEX (empty: not given)")
        if name == "wheel":
            p.add_argument("requirement", help="e.g. torch==2.13.0")
    args = parser.parse_args(argv)
    if args.command == "options":
        options, reason = choose(args.torch_index)
        print(f"make: PyTorch from {reason}", file=sys.stderr)
        print("\n".join(options))
    else:
        print(wheel(args.torch_index, args.requirement))
    return 0


if __name__ == "__main__":
    sys.exit(main())
