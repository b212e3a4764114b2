"""Turn downloaded archives (or the user's own files) into raw {split}.{lang} text.

Every split also gets `{split}.docs`, one document id per line: the talks of the
IWSLT TED files (`phrasenmt.data.ted`), a local dataset's docs file, or, for a
dataset without documents, every line its own document (`{split}-NNNNNN`).
"""

from __future__ import annotations

import argparse
import gzip
import re
import shutil
import sys
import tarfile
from collections.abc import Callable, Iterator
from pathlib import Path

from phrasenmt.cli import ArgumentParser, output_dir, output_file
from phrasenmt.data import local
from phrasenmt.data.archives import (
    Pair,
    Split,
    iter_text,
    line_docs,
    member,
    one_line,
    require,
    tar_lines,
    write_pair,
)
from phrasenmt.data.datasets import (
    IWSLT17_ARCHIVE,
    IWSLT17_TESTS,
    MULTI30K_SPLITS,
    WMT14_DEV_ARCHIVE,
    WMT14_TEST_ARCHIVE,
    WMT14_TRAIN,
    check_direction,
    dataset_names,
    get_dataset,
)
from phrasenmt.data.documents import check_doc_ids
from phrasenmt.data.ted import (
    fairseq_filter,
    iwslt_split,
    sgm_segments,
    ted_set,
    ted_train,
    text_only_filter,
)
from phrasenmt.io import (
    InputError,
    atomic_path,
    output_set,
    read_json,
    run_cli,
    write_lines,
)
from phrasenmt.log import get_logger

_log = get_logger(__name__)

DOCS = "docs"  # the `--lang` value (and file extension) of the document ids


# --- multi30k ---------------------------------------------------------------

def prepare_multi30k(ddir: Path, src: str, tgt: str) -> Iterator[Split]:
    """Yield every split from the gzipped raw files."""
    for split, stem in MULTI30K_SPLITS.items():
        yield Split(split, *(_gz_lines(ddir / f"data/task1/raw/{stem}.{lang}.gz")
                             for lang in (src, tgt)))


def _gz_lines(path: Path) -> list[str]:
    """Normalised lines of a gzipped text file."""
    with gzip.open(require(path), "rb") as fh:
        return list(iter_text(fh, str(path)))


# --- IWSLT TED: iwslt14 (fairseq prepare-iwslt14.sh) and iwslt17_en_de ---------

IWSLT14_TEST = ("IWSLT14.TED.dev2010", "IWSLT14.TEDX.dev2012", "IWSLT14.TED.tst2010",
                "IWSLT14.TED.tst2011", "IWSLT14.TED.tst2012")


def prepare_iwslt14(ddir: Path, src: str, tgt: str) -> Iterator[Split]:
    """Yield train/dev/test from de-en.tgz the way fairseq splits them."""
    archive = require(ddir / "de-en.tgz")
    with tarfile.open(archive) as tar:
        yield from iwslt_split(*ted_train(tar, archive, "train.tags.de-en",
                                          (src, tgt), fairseq_filter))
        yield Split("test", *ted_set(tar, archive, IWSLT14_TEST,
                                     "{name}.de-en.{lang}.xml", (src, tgt)))


def prepare_iwslt17(ddir: Path, src: str, tgt: str) -> Iterator[Split]:
    """Yield train (text lines of train.tags), dev (dev2010) and tst2010..2015."""
    archive = require(ddir / IWSLT17_ARCHIVE)
    pattern = "IWSLT17.TED.{name}.en-de.{lang}.xml"
    with tarfile.open(archive) as tar:
        yield Split("train", *ted_train(tar, archive, "train.tags.en-de", (src, tgt),
                                        text_only_filter))
        yield Split("dev", *ted_set(tar, archive, ["dev2010"], pattern, (src, tgt)))
        for name in IWSLT17_TESTS:
            yield Split(name, *ted_set(tar, archive, [name], pattern, (src, tgt)))


# --- wmt14 en-de (fairseq prepare-wmt14en2de.sh) ------------------------------

def _wmt_train(ddir: Path, lang: str) -> Iterator[str]:
    """Stream one side of the concatenated WMT14 training corpora."""
    for rel, corpus in WMT14_TRAIN.items():
        archive = require(ddir / rel)
        with tarfile.open(archive) as tar:
            info = member(tar, f"{corpus}.{lang}", archive)
            yield from iter_text(tar.extractfile(info), f"{archive}:{info.name}")


def _newstest(archive: Path, name: str, lang: str) -> list[str]:
    """Segments of newstestNNNN for one language from a WMT dev/test sgm archive."""
    with tarfile.open(require(archive)) as tar:
        names = [i.name.rsplit("/", 1)[-1] for i in tar.getmembers() if i.isfile()]
        for kind in ("src", "ref"):
            pattern = re.compile(rf"{name}(-\w+)?-{kind}\.{lang}\.sgm$")
            hits = [n for n in names if pattern.match(n)]
            if hits:
                return sgm_segments(tar_lines(
                    tar, member(tar, min(hits), archive), str(archive)))
    raise InputError(f"no {name} sgm file for language {lang!r}", archive)


def prepare_wmt14(ddir: Path, src: str, tgt: str) -> Iterator[Split]:
    """Yield train (streamed), dev (newstest2012+2013) and newstest2014."""
    yield Split("train", _wmt_train(ddir, src), _wmt_train(ddir, tgt))
    dev = ddir / WMT14_DEV_ARCHIVE
    yield Split("dev", *(_newstest(dev, "newstest2012", lang)
                         + _newstest(dev, "newstest2013", lang) for lang in (src, tgt)))
    test = ddir / WMT14_TEST_ARCHIVE
    yield Split("newstest2014", *(_newstest(test, "newstest2014", lang)
                                  for lang in (src, tgt)))


# --- iwslt15 en-vi (Stanford NMT) ------------------------------------------

def prepare_iwslt15(ddir: Path, src: str, tgt: str) -> Iterator[Split]:
    """Yield train, dev (tst2012) and tst2013 from the Stanford files."""
    for split, stem in (("train", "train"), ("dev", "tst2012"), ("tst2013", "tst2013")):
        yield Split(split, *(_plain_lines(ddir / f"{stem}.{lang}")
                             for lang in (src, tgt)))


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
            raise InputError(f"entry {n} lacks source/reference/errors",
                             where) from None
        src += [one_line(source)] * len(variants)
        tgt += [one_line(v) for v in variants]
    return src, tgt


def prepare_lingeval97(ddir: Path, src: str, tgt: str) -> Iterator[Split]:
    """Yield the contrastive pairs as one evaluation split."""
    path = require(ddir / "lingeval97.json")
    entries = read_json(path)
    yield Split("lingeval97", *lingeval_pairs(entries, path))


PREPARERS: dict[str, Callable[[Path, str, str], Iterator[Split]]] = {
    "multi30k": prepare_multi30k,
    "iwslt14": prepare_iwslt14,
    "iwslt17": prepare_iwslt17,
    "wmt14": prepare_wmt14,
    "iwslt15": prepare_iwslt15,
    "lingeval97": prepare_lingeval97,
}


def write_split(split: Split, outdir: Path, src: str, tgt: str, where: Path) -> int:
    """Write {name}.{src}/.{tgt}/.docs of one split; ids are checked first."""
    if split.docs is not None:
        check_doc_ids(split.docs, where)
    n = write_pair(outdir / f"{split.name}.{src}", outdir / f"{split.name}.{tgt}",
                   (split.src, split.tgt))
    docs = line_docs(split.name, n) if split.docs is None else split.docs
    if len(docs) != n:
        raise InputError(f"split {split.name!r} has {n} lines but {len(docs)} "
                         "document ids", where)
    write_lines(outdir / f"{split.name}.{DOCS}", docs)
    return n


def prepare_dataset(name: str, ddir: Path, outdir: Path, src: str, tgt: str,
                    log=_log.info) -> dict[str, int]:
    """Write outdir/{split}.{lang} and .docs of a registered dataset; line counts."""
    ds = get_dataset(name)
    check_direction(name, src, tgt)
    counts = {}
    with output_set():  # every split's files, or none
        for split in PREPARERS[ds.preparer](ddir, src, tgt):
            counts[split.name] = write_split(split, outdir, src, tgt, ddir)
            log(f"{split.name}: {counts[split.name]} lines")
        if ds.name == "lingeval97":
            with atomic_path(outdir / "lingeval97.json") as tmp:
                shutil.copyfile(ddir / "lingeval97.json", tmp)
    return counts


def _split_docs(split: Split, where: Path) -> list[str]:
    """The document ids of a split (one per line where it has no documents)."""
    if split.docs is not None:
        check_doc_ids(split.docs, where)
        return split.docs
    return line_docs(split.name, sum(1 for _ in split.src))


def prepare_one(name: str, ddir: Path, split: str, lang: str, out: Path) -> int:
    """Write one split of one language, or its document ids when lang is 'docs'."""
    ds = get_dataset(name)
    pairs = [d for d in ds.directions if lang in d or lang == DOCS]
    if not pairs:
        raise InputError(f"dataset {name!r} has no language {lang!r}; it has "
                         f"{', '.join(ds.languages)} (and {DOCS!r})")
    src, tgt = pairs[0]
    for found in PREPARERS[ds.preparer](ddir, src, tgt):
        if found.name != split:
            continue
        if lang == DOCS:
            docs = _split_docs(found, ddir)
            write_lines(out, docs)
            return len(docs)
        side = (found.src, found.tgt) if lang == src else (found.tgt, found.src)
        return write_pair(out, None, side)
    raise InputError(f"dataset {name!r} has no split {split!r}; it has "
                     f"{', '.join([*ds.train_splits, *ds.eval_splits])}")


def build_parser() -> argparse.ArgumentParser:
    """Command-line interface of the prepare step."""
    p = ArgumentParser(
        prog="python -m phrasenmt.data.prepare", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Subcommands `local` (check and copy one file) and `docs` (one "
               "document per line) have their own --help.")
    p.add_argument("--dataset", required=True,
                   help=f"one of {dataset_names()} or 'local'")
    p.add_argument("--download-dir", type=Path, help="where download put the files")
    p.add_argument("--outdir", type=output_dir,
                   help="writes OUTDIR/{split}.{lang} and OUTDIR/{split}.docs")
    p.add_argument("--src", help="source language code")
    p.add_argument("--tgt", help="target language code")
    for split in ("train", "dev"):
        for side in ("src", "tgt", "docs"):
            p.add_argument(f"--{split}-{side}", type=Path,
                           help=f"(local) {split} {side} file"
                           + (" (optional: document id per line)" if side == DOCS
                              else ""))
    p.add_argument("--test", action="append", metavar="NAME=SRC,TGT[,DOCS]",
                   help="(local) a test set, with an optional docs file; repeatable")
    p.add_argument("--no-language-check", action="store_const", const=True,
                   help="(local) neither refuse a split whose two files' function "
                   "words say source and target are swapped, nor warn of a file "
                   "whose words say it is in another language than its own")
    p.add_argument("--split", help="write only this split of --lang to --out")
    p.add_argument("--lang", help=f"(with --split) the language, or {DOCS!r} for "
                                  "the document ids")
    p.add_argument("--out", type=output_file, help="(with --split) the file to write")
    return p


def main(argv: list[str] | None = None) -> int:
    """Prepare raw splits of a registered dataset or of local files."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] in (["local"], [DOCS]):
        return local.main(argv)
    args = build_parser().parse_args(argv)

    check_mode_options(args)
    if args.dataset == "local":
        _check_langs(args)
        local.prepare_local(local.local_splits(args), args.outdir, args.src,
                            args.tgt, _log.info, not args.no_language_check)
        return 0
    get_dataset(args.dataset)
    if args.download_dir is None:
        raise InputError(f"--download-dir is required for --dataset {args.dataset}")
    if args.split is not None:
        if args.lang is None or args.out is None:
            raise InputError("--split needs --lang and --out")
        n = prepare_one(args.dataset, args.download_dir, args.split, args.lang,
                        args.out)
        _log.info(f"{args.split}.{args.lang}: {n} lines")
        return 0
    _check_langs(args)
    prepare_dataset(args.dataset, args.download_dir, args.outdir, args.src,
                    args.tgt, _log.info)
    return 0


def check_mode_options(args: argparse.Namespace) -> None:
    """Refuse an option the chosen mode does not read (it would do nothing):
    the (local) files with a registered dataset, --download-dir and --split
    with local files, --lang/--out without --split, --outdir/--src/--tgt with it."""
    local_files = [f"--{split}-{side}" for split in ("train", "dev")
                   for side in ("src", "tgt", DOCS)] + ["--test", "--no-language-check"]
    if args.dataset == "local":
        unused, mode = ["--download-dir", "--split", "--lang", "--out"], "local"
    elif args.split is not None:
        unused, mode = [*local_files, "--outdir", "--src", "--tgt"], "--split"
    else:
        unused, mode = [*local_files, "--lang", "--out"], "a whole dataset"
    for option in unused:
        if getattr(args, option[2:].replace("-", "_")) is not None:
            where = ("--dataset local" if mode == "local" else
                     f"--dataset {args.dataset} with --split" if mode == "--split"
                     else f"--dataset {args.dataset} without --split")
            raise InputError(f"not read with {where}; drop it", option)


def _check_langs(args: argparse.Namespace) -> None:
    """Whole-dataset mode needs --outdir, --src and --tgt, with src != tgt."""
    if None in (args.outdir, args.src, args.tgt):
        raise InputError("--outdir, --src and --tgt are required (or use --split)")
    if args.src == args.tgt:
        raise InputError("--src and --tgt must differ")


if __name__ == "__main__":
    run_cli(main)
