"""External n-gram language model for NPMT's beam search: KenLM train + query.

Huang et al. (2018), Eq. 3, rescore a hypothesis y of source x with
`log p(y|x) + λ1·|y| + λ2·log p_LM(y)`. p_LM is a modified Kneser–Ney n-gram
model of the target training text, estimated by KenLM's `lmplz` (a C++ program
that is not on PyPI: `make kenlm` builds it into the virtual environment) and
queried on words (not ids) with the `kenlm` Python module, with `<s>`/`</s>`
as KenLM scores them. KenLM gives log10 probabilities; every score here is a
natural log, so that λ2 multiplies a log-probability in the same base as the
NMT model's. The query side, `LanguageModel`, is `phrasenmt.decoding.lm`.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from phrasenmt.cli import ArgumentParser, output_file, positive_int
from phrasenmt.decoding.lm import LanguageModel
from phrasenmt.io import InputError, atomic_path, read_lines, run_cli, write_lines
from phrasenmt.log import get_logger

_log = get_logger(__name__)

KENLM_SPECIALS = ("<s>", "</s>", "<unk>")  # lmplz refuses these in its training text
# --discount_fallback's values, given explicitly: upstream lmplz implies these
# (KenLM's D1, D2, D3+) when the option has none, kenlm-ex's requires them.
FALLBACK_DISCOUNTS = ("0.5", "1", "1.5")
HOWTO = ("lmplz not found: KenLM's estimator is built into the virtual environment "
         "by 'make kenlm' (needs a C++ compiler, g++; docs/kenlm.md), or comes with "
         "'conda env create -f envs/kenlm.yaml'")
_SIZE = re.compile(r"^[0-9]+(\.[0-9]+)?[%bKMGTPEZY]?$")


def find_tool(name: str) -> Path | None:
    """A KenLM program next to the running Python (the venv's bin/), else on PATH."""
    local = Path(sys.executable).parent / name
    if local.is_file() and os.access(local, os.X_OK):
        return local
    found = shutil.which(name)
    return Path(found) if found else None


def lmplz_path() -> Path | None:
    """Path of a `lmplz` that runs here, or None (then the LM row cannot be built)."""
    path = find_tool("lmplz")
    if path is None:
        return None
    try:  # a copied venv can hold an lmplz whose shared libraries are gone
        probe = subprocess.run([str(path), "--help"], check=False,
                               capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return path if b"--order" in probe.stdout + probe.stderr else None


def check_training_text(path: Path) -> None:
    """Validate lmplz's input: UTF-8, no <s>, </s> or <unk>, at least one word."""
    lines = read_lines(path)
    words = 0
    for n, line in enumerate(lines, start=1):
        tokens = line.split()
        bad = next((t for t in tokens if t in KENLM_SPECIALS), None)
        if bad is not None:
            raise InputError(f"token {bad} is reserved by KenLM and may not appear "
                             "in its training text", path, n)
        words += len(tokens)
    if words == 0:
        raise InputError("no words to train a language model on", path)


def lmplz_error(stderr: str, returncode: int) -> str:
    """What went wrong, in one line, from a failed KenLM program's stderr."""
    lines = [" ".join(line.split()) for line in stderr.splitlines() if line.strip()]
    threw = [i for i, line in enumerate(lines) if " threw " in line]
    if threw and threw[-1] + 1 < len(lines):  # KenLM: "<where> threw <what>" + why
        return " ".join(lines[threw[-1] + 1:])
    errors = [line for line in lines if line.startswith("ERROR")]
    if errors:
        return errors[-1]
    if returncode < 0:  # lmplz also aborts (SIGABRT) on its own exceptions
        return f"killed by signal {-returncode} (out of memory? see --memory)"
    return lines[-1] if lines else f"exit status {returncode}"


def run_lmplz(lmplz: Path, text: Path, arpa: Path, order: int, memory: str,
              discount_fallback: bool) -> None:
    """Estimate a modified Kneser–Ney ARPA model of `text` with lmplz."""
    cmd = [str(lmplz), "--order", str(order), "--memory", memory,
           "--temp_prefix", str(arpa.parent) + os.sep, "--text", str(text),
           "--arpa", str(arpa)]
    if discount_fallback:  # last: it takes every value after it
        cmd += ["--discount_fallback", *FALLBACK_DISCOUNTS]
    done = subprocess.run(cmd, check=False, capture_output=True, text=True)
    if done.returncode != 0:
        why = lmplz_error(done.stderr, done.returncode)
        if "discount" in why and "discount_fallback" not in why:
            why += " (tiny or repetitive text: try --discount-fallback)"
        raise InputError(f"lmplz failed on this text: {why}", text)


def train(text: Path, out: Path, order: int, memory: str,
          discount_fallback: bool = False) -> str:
    """Train an `order`-gram LM of `text` into `out`; says which format it wrote."""
    lmplz = lmplz_path()
    if lmplz is None:
        raise InputError(HOWTO)
    if not 2 <= order <= 6:  # 6 = KENLM_MAX_ORDER of the sdist's default build
        raise InputError(f"--order must be 2..6 (KenLM's maximum order), not {order}")
    if not _SIZE.match(memory):
        raise InputError(f"--memory must be a size like 1G, 500M or 20%, not {memory!r}")
    check_training_text(text)
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f".{out.name}.", dir=out.parent) as tmp:
        arpa = Path(tmp) / "lm.arpa"
        run_lmplz(lmplz, text, arpa, order, memory, discount_fallback)
        build_binary = find_tool("build_binary")
        with atomic_path(out) as part:
            if build_binary is None:
                os.replace(arpa, part)
                return "ARPA text (build_binary not found)"
            done = subprocess.run([str(build_binary), str(arpa), str(part)],
                                  check=False, capture_output=True, text=True)
            if done.returncode != 0:
                raise InputError("build_binary failed on lmplz's model of this text: "
                                 f"{lmplz_error(done.stderr, done.returncode)}", text)
    return "KenLM binary (probing)"


def score_file(lm: Path, text: Path, out: Path) -> int:
    """Write ln p(line) for each whitespace-tokenized line; returns the line count."""
    model = LanguageModel(lm)
    lines = read_lines(text)
    write_lines(out, [f"{model.score(line.split()):.6f}" for line in lines])
    return len(lines)


def build_parser() -> argparse.ArgumentParser:
    """Command-line interface: `train`, `score` and `available` subcommands."""
    p = ArgumentParser(prog="python -m phrasenmt.lm", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    tp = sub.add_parser("train", help="estimate a KenLM model with lmplz")
    tp.add_argument("--text", required=True, type=Path,
                    help="training text, one tokenized sentence per line")
    tp.add_argument("--order", type=positive_int, default=4,
                    help="n-gram order (default 4)")
    tp.add_argument("--out", required=True, type=output_file,
                    help="model file to write")
    tp.add_argument("--memory", default="1G", help="lmplz sorting memory (1G)")
    tp.add_argument("--discount-fallback", "--discount_fallback", action="store_true",
                    help="fixed discounts when the text is too small or repetitive "
                         "for KenLM's closed-form Kneser–Ney estimate")
    sp = sub.add_parser("score", help="natural-log LM score of each line")
    sp.add_argument("--lm", required=True, type=Path, help="KenLM model file")
    sp.add_argument("--text", required=True, type=Path, help="tokenized sentences")
    sp.add_argument("--out", required=True, type=output_file, help="one score per line")
    sub.add_parser("available", help="print lmplz's path; exit 1 if there is none")
    return p


def main(argv: list[str] | None = None) -> int:
    """Train or query the external language model."""
    args = build_parser().parse_args(argv)
    if args.command == "available":
        path = lmplz_path()
        if path is None:
            raise InputError(HOWTO)
        print(path)
    elif args.command == "train":
        kind = train(args.text, args.out, args.order, args.memory,
                     args.discount_fallback)
        _log.info(f"lm train: wrote {args.order}-gram {kind} to {args.out}")
    else:
        n = score_file(args.lm, args.text, args.out)
        _log.info(f"lm score: {n} lines scored to {args.out}")
    return 0


if __name__ == "__main__":
    run_cli(main)
