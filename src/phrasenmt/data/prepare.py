"""Turn downloaded archives (or the user's own files) into raw {split}.{lang} text."""

from __future__ import annotations

import argparse
import contextlib
import gzip
import itertools
import json
import re
import shutil
import sys
import tarfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from phrasenmt.data.datasets import (
    MULTI30K_SPLITS,
    WMT14_DEV_ARCHIVE,
    WMT14_TEST_ARCHIVE,
    WMT14_TRAIN,
    check_direction,
    dataset_names,
    get_dataset,
)
from phrasenmt.io import (
    InputError,
    atomic_open,
    atomic_path,
    read_lines,
    read_parallel,
    run_cli,
)

# characters Python or text-mode readers treat as line breaks inside one line
_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_SEG = re.compile(r'<seg id="?\d+"?>\s*(.*?)\s*</seg>')
_IWSLT_DROP = ("<url>", "<talkid>", "<keywords>")
_IWSLT_STRIP = re.compile(r"</?(title|description)>")
IWSLT_VALID_EVERY = 23

Pair = tuple[Iterable[str], Iterable[str]]


def one_line(text: str) -> str:
    """Normalise a line: no embedded line breaks, no surrounding whitespace."""
    return _BREAKS.sub(" ", text).strip()


def _decode(raw: bytes, where: str, n: int) -> str:
    """Decode UTF-8 or raise naming the file and line."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"invalid UTF-8 at byte {err.start}", where, n) from None


def iter_text(fh, where: str) -> Iterator[str]:
    """Yield normalised lines of a binary stream, splitting on newline only."""
    for n, raw in enumerate(fh, start=1):
        yield one_line(_decode(raw, where, n))


def write_pair(out_src: Path, out_tgt: Path | None, pair: Pair) -> int:
    """Write two line iterables atomically (tgt may be None: only counted).

    Unequal lengths raise and leave nothing written.
    """
    tgt_ctx = atomic_open(out_tgt) if out_tgt else contextlib.nullcontext(None)
    with atomic_open(out_src) as fs, tgt_ctx as ft:
        n = 0
        for n, (a, b) in enumerate(itertools.zip_longest(*pair), start=1):
            if a is None or b is None:
                short = out_src if a is None else out_tgt or "the other side"
                raise InputError(f"ends before line {n} while its parallel side "
                                 "goes on; line counts must be equal", short)
            fs.write(a + "\n")
            if ft is not None:
                ft.write(b + "\n")
    return n


def require(path: Path) -> Path:
    """Return path if it is a file, else raise saying to run the download step."""
    if not path.is_file():
        raise InputError("not found; run `python -m phrasenmt.data.download` first",
                         path)
    return path


def _member(tar: tarfile.TarFile, basename: str, archive: Path) -> tarfile.TarInfo:
    """Find the archive member with this file name (any folder)."""
    for info in tar.getmembers():
        if info.isfile() and info.name.rsplit("/", 1)[-1] == basename:
            return info
    raise InputError(f"archive has no member named {basename}", archive)


def _tar_lines(tar: tarfile.TarFile, info: tarfile.TarInfo, where: str) -> list[str]:
    """All normalised lines of one archive member."""
    fh = tar.extractfile(info)
    return list(iter_text(fh, f"{where}:{info.name}"))


def sgm_segments(lines: Iterable[str]) -> list[str]:
    """Contents of the <seg> elements of an sgm/xml file, curly apostrophe fixed."""
    return [m.group(1).replace("\u2019", "'") for line in lines
            if (m := _SEG.search(line))]


# --- multi30k ---------------------------------------------------------------

def prepare_multi30k(ddir: Path, src: str, tgt: str) -> Iterator[tuple[str, Pair]]:
    """Yield (split, (src lines, tgt lines)) from the gzipped raw files."""
    for split, stem in MULTI30K_SPLITS.items():
        yield split, tuple(_gz_lines(ddir / f"data/task1/raw/{stem}.{lang}.gz")
                           for lang in (src, tgt))


def _gz_lines(path: Path) -> list[str]:
    """Normalised lines of a gzipped text file."""
    with gzip.open(require(path), "rb") as fh:
        return list(iter_text(fh, str(path)))


# --- iwslt14 (fairseq prepare-iwslt14.sh) ------------------------------------

def iwslt_train_lines(lines: Iterable[str]) -> list[str]:
    """fairseq's train.tags filter: drop url/talkid/keywords, strip title tags."""
    return [_IWSLT_STRIP.sub("", line).strip() for line in lines
            if not any(tag in line for tag in _IWSLT_DROP)]


IWSLT14_TEST = ("IWSLT14.TED.dev2010", "IWSLT14.TEDX.dev2012", "IWSLT14.TED.tst2010",
                "IWSLT14.TED.tst2011", "IWSLT14.TED.tst2012")


def iwslt_split(src: list[str], tgt: list[str]) -> dict[str, Pair]:
    """Drop pairs with an empty side, then every 23rd pair is dev, the rest train."""
    pairs = [(a, b) for a, b in zip(src, tgt, strict=True) if a and b]
    dev = [p for i, p in enumerate(pairs, 1) if i % IWSLT_VALID_EVERY == 0]
    train = [p for i, p in enumerate(pairs, 1) if i % IWSLT_VALID_EVERY != 0]
    return {"train": _unzip(train), "dev": _unzip(dev)}


def _unzip(pairs: list[tuple[str, str]]) -> Pair:
    """Split a list of pairs into two lists."""
    return [a for a, _ in pairs], [b for _, b in pairs]


def prepare_iwslt14(ddir: Path, src: str, tgt: str) -> Iterator[tuple[str, Pair]]:
    """Yield train/dev/test from de-en.tgz the way fairseq splits them."""
    archive = require(ddir / "de-en.tgz")
    with tarfile.open(archive) as tar:
        train = {lang: iwslt_train_lines(_tar_lines(
            tar, _member(tar, f"train.tags.de-en.{lang}", archive), str(archive)))
            for lang in (src, tgt)}
        if len(train[src]) != len(train[tgt]):
            raise InputError(f"train.tags.de-en.{src}/.{tgt} differ in line count "
                             "after dropping tag lines", archive)
        yield from iwslt_split(train[src], train[tgt]).items()
        yield "test", tuple([seg for name in IWSLT14_TEST for seg in sgm_segments(
            _tar_lines(tar, _member(tar, f"{name}.de-en.{lang}.xml", archive),
                       str(archive)))] for lang in (src, tgt))


# --- wmt14 en-de (fairseq prepare-wmt14en2de.sh) ------------------------------

def _wmt_train(ddir: Path, lang: str) -> Iterator[str]:
    """Stream one side of the concatenated WMT14 training corpora."""
    for rel, corpus in WMT14_TRAIN.items():
        archive = require(ddir / rel)
        with tarfile.open(archive) as tar:
            info = _member(tar, f"{corpus}.{lang}", archive)
            yield from iter_text(tar.extractfile(info), f"{archive}:{info.name}")


def _newstest(archive: Path, name: str, lang: str) -> list[str]:
    """Segments of newstestNNNN for one language from a WMT dev/test sgm archive."""
    with tarfile.open(require(archive)) as tar:
        names = [i.name.rsplit("/", 1)[-1] for i in tar.getmembers() if i.isfile()]
        for kind in ("src", "ref"):
            pattern = re.compile(rf"{name}(-\w+)?-{kind}\.{lang}\.sgm$")
            hits = [n for n in names if pattern.match(n)]
            if hits:
                return sgm_segments(_tar_lines(
                    tar, _member(tar, min(hits), archive), str(archive)))
    raise InputError(f"no {name} sgm file for language {lang!r}", archive)


def prepare_wmt14(ddir: Path, src: str, tgt: str) -> Iterator[tuple[str, Pair]]:
    """Yield train (streamed), dev (newstest2012+2013) and newstest2014."""
    yield "train", (_wmt_train(ddir, src), _wmt_train(ddir, tgt))
    dev = ddir / WMT14_DEV_ARCHIVE
    yield "dev", tuple(_newstest(dev, "newstest2012", lang)
                       + _newstest(dev, "newstest2013", lang) for lang in (src, tgt))
    test = ddir / WMT14_TEST_ARCHIVE
    yield "newstest2014", tuple(_newstest(test, "newstest2014", lang)
                                for lang in (src, tgt))


# --- iwslt15 en-vi (Stanford NMT) ------------------------------------------

def prepare_iwslt15(ddir: Path, src: str, tgt: str) -> Iterator[tuple[str, Pair]]:
    """Yield train, dev (tst2012) and tst2013 from the Stanford files."""
    for split, stem in (("train", "train"), ("dev", "tst2012"), ("tst2013", "tst2013")):
        yield split, tuple(_plain_lines(ddir / f"{stem}.{lang}") for lang in (src, tgt))


def _plain_lines(path: Path) -> list[str]:
    """Normalised lines of a plain text file."""
    with open(require(path), "rb") as fh:
        return list(iter_text(fh, str(path)))


# --- lingeval97 ---------------------------------------------------------------

def lingeval_pairs(entries: list[dict], where: Path) -> Pair:
    """Source/target lines as json_to_plaintext.py: reference, then contrastives."""
    src, tgt = [], []
    for n, entry in enumerate(entries, start=1):
        try:
            variants = [entry["reference"]]
            variants += [err["contrastive"] for err in entry["errors"]]
            source = entry["source"]
        except (KeyError, TypeError):
            raise InputError(f"entry {n} lacks source/reference/errors", where) from None
        src += [one_line(source)] * len(variants)
        tgt += [one_line(v) for v in variants]
    return src, tgt


def prepare_lingeval97(ddir: Path, src: str, tgt: str) -> Iterator[tuple[str, Pair]]:
    """Yield the contrastive pairs as one evaluation split."""
    path = require(ddir / "lingeval97.json")
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise InputError(f"not valid UTF-8 JSON: {err}", path) from None
    yield "lingeval97", lingeval_pairs(entries, path)


PREPARERS: dict[str, Callable[[Path, str, str], Iterator[tuple[str, Pair]]]] = {
    "multi30k": prepare_multi30k,
    "iwslt14": prepare_iwslt14,
    "wmt14": prepare_wmt14,
    "iwslt15": prepare_iwslt15,
    "lingeval97": prepare_lingeval97,
}


def prepare_dataset(name: str, ddir: Path, outdir: Path, src: str, tgt: str,
                    log=print) -> dict[str, int]:
    """Write outdir/{split}.{lang} for a registered dataset; returns line counts."""
    ds = get_dataset(name)
    check_direction(name, src, tgt)
    counts = {}
    for split, pair in PREPARERS[ds.preparer](ddir, src, tgt):
        counts[split] = write_pair(outdir / f"{split}.{src}", outdir / f"{split}.{tgt}",
                                   pair)
        log(f"{split}: {counts[split]} lines")
    if ds.name == "lingeval97":
        with atomic_path(outdir / "lingeval97.json") as tmp:
            shutil.copyfile(ddir / "lingeval97.json", tmp)
    return counts


def prepare_one(name: str, ddir: Path, split: str, lang: str, out: Path) -> int:
    """Write one split of one language (line count checked against its partner)."""
    ds = get_dataset(name)
    pairs = [d for d in ds.directions if lang in d]
    if not pairs:
        raise InputError(f"dataset {name!r} has no language {lang!r}; it has "
                         f"{', '.join(ds.languages)}")
    src, tgt = pairs[0]
    for found, pair in PREPARERS[ds.preparer](ddir, src, tgt):
        if found == split:
            side = pair if lang == src else (pair[1], pair[0])
            return write_pair(out, None, side)
    raise InputError(f"dataset {name!r} has no split {split!r}; it has "
                     f"{', '.join([*ds.train_splits, *ds.eval_splits])}")


def copy_checked(src: Path, out: Path) -> int:
    """Copy one user file after checking it exists and is valid UTF-8."""
    lines = [one_line(line) for line in read_lines(src)]
    with atomic_open(out) as fh:
        fh.writelines(line + "\n" for line in lines)
    return len(lines)


# --- the user's own parallel files -----------------------------------------

def parse_test(spec: str) -> tuple[str, Path, Path]:
    """Parse NAME=SRC,TGT into (name, src path, tgt path)."""
    m = re.fullmatch(r"([A-Za-z0-9_.-]+)=([^,]+),([^,]+)", spec)
    if not m:
        raise InputError(f"--test expects NAME=SRC_FILE,TGT_FILE, got {spec!r}")
    return m.group(1), Path(m.group(2)), Path(m.group(3))


def prepare_local(splits: dict[str, tuple[Path, Path]], outdir: Path, src: str,
                  tgt: str, log=print) -> dict[str, int]:
    """Validate (UTF-8, equal line counts) and copy the user's parallel files."""
    data = {split: read_parallel(a, b) for split, (a, b) in splits.items()}
    counts = {}
    for split, (a, b) in data.items():
        counts[split] = write_pair(outdir / f"{split}.{src}", outdir / f"{split}.{tgt}",
                                   ([one_line(x) for x in a], [one_line(x) for x in b]))
        log(f"{split}: {counts[split]} lines")
    return counts


def _local_splits(args: argparse.Namespace) -> dict[str, tuple[Path, Path]]:
    """Collect and check the --train/--dev/--test files of `--dataset local`."""
    given = [args.train_src, args.train_tgt, args.dev_src, args.dev_tgt]
    if None in given or not args.test:
        raise InputError("--dataset local needs --train-src, --train-tgt, --dev-src, "
                         "--dev-tgt and at least one --test NAME=SRC,TGT")
    splits = {"train": (args.train_src, args.train_tgt),
              "dev": (args.dev_src, args.dev_tgt)}
    for name, a, b in map(parse_test, args.test):
        if name in splits:
            raise InputError(f"split name {name!r} given twice")
        splits[name] = (a, b)
    for a, b in splits.values():
        for path in (a, b):
            read_lines(path)  # existence and UTF-8 first, with file:line errors
    return splits


def build_parser() -> argparse.ArgumentParser:
    """Command-line interface of the prepare step."""
    p = argparse.ArgumentParser(prog="python -m phrasenmt.data.prepare",
                                description=__doc__)
    p.add_argument("--dataset", required=True,
                   help=f"one of {dataset_names()} or 'local'")
    p.add_argument("--download-dir", type=Path, help="where download put the files")
    p.add_argument("--outdir", type=Path, help="writes OUTDIR/{split}.{lang}")
    p.add_argument("--src", help="source language code")
    p.add_argument("--tgt", help="target language code")
    for split in ("train", "dev"):
        for side in ("src", "tgt"):
            p.add_argument(f"--{split}-{side}", type=Path,
                           help=f"(local) {split} {side} file")
    p.add_argument("--test", action="append", metavar="NAME=SRC,TGT",
                   help="(local) a test set; repeat for several")
    p.add_argument("--split", help="write only this split of --lang to --out")
    p.add_argument("--lang", help="(with --split) the language to write")
    p.add_argument("--out", type=Path, help="(with --split) the file to write")
    return p


def copy_parser() -> argparse.ArgumentParser:
    """Interface of `prepare local --in F --out F`: check and copy one file."""
    p = argparse.ArgumentParser(prog="python -m phrasenmt.data.prepare local",
                                description="Check (UTF-8) and copy one file.")
    p.add_argument("--in", required=True, type=Path, metavar="IN")
    p.add_argument("--out", required=True, type=Path)
    return p


def main(argv: list[str] | None = None) -> int:
    """Prepare raw splits of a registered dataset or of local files."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["local"]:
        args = copy_parser().parse_args(argv[1:])
        copy_checked(getattr(args, "in"), args.out)
        return 0
    args = build_parser().parse_args(argv)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr)

    if args.dataset == "local":
        _check_langs(args)
        prepare_local(_local_splits(args), args.outdir, args.src, args.tgt, log)
        return 0
    get_dataset(args.dataset)
    if args.download_dir is None:
        raise InputError(f"--download-dir is required for --dataset {args.dataset}")
    if args.split is not None:
        if args.lang is None or args.out is None:
            raise InputError("--split needs --lang and --out")
        n = prepare_one(args.dataset, args.download_dir, args.split, args.lang,
                        args.out)
        log(f"{args.split}.{args.lang}: {n} lines")
        return 0
    _check_langs(args)
    prepare_dataset(args.dataset, args.download_dir, args.outdir, args.src,
                    args.tgt, log)
    return 0


def _check_langs(args: argparse.Namespace) -> None:
    """Whole-dataset mode needs --outdir, --src and --tgt, with src != tgt."""
    if None in (args.outdir, args.src, args.tgt):
        raise InputError("--outdir, --src and --tgt are required (or use --split)")
    if args.src == args.tgt:
        raise InputError("--src and --tgt must differ")


if __name__ == "__main__":
    run_cli(main)
