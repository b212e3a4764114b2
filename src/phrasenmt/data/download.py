"""Fetch a dataset's files: resumable HTTP (Range) or a local mirror, sha256-checked."""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import time
import urllib.error
import urllib.request
from pathlib import Path

from phrasenmt.cli import (
    ArgumentParser,
    nonnegative_int,
    output_dir,
    output_file,
    positive_float,
)
from phrasenmt.data.datasets import Dataset, dataset_names, get_dataset
from phrasenmt.io import InputError, atomic_path, run_cli, write_lines
from phrasenmt.log import get_logger

_log = get_logger(__name__)

CHUNK = 1 << 20
MIRROR_HINT = ("on an offline machine put the files in a folder laid out like the "
               "URL paths and pass --mirror FOLDER (config key `mirror:`)")


class _Transient(Exception):
    """A network failure worth retrying (connection, timeout, 5xx)."""


def sha256_of(path: str | os.PathLike) -> str:
    """Hex sha256 digest of a file."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(CHUNK), b""):
            digest.update(block)
    return digest.hexdigest()


def verify(path: Path, expected: str | None, name: str) -> None:
    """Check a file against its sha256; on mismatch remove it and raise."""
    if expected is None:
        return
    actual = sha256_of(path)
    if actual != expected:
        path.unlink(missing_ok=True)
        raise InputError(
            f"sha256 mismatch: expected {expected}, got {actual}; bad file removed",
            name)


def is_done(dest: Path, expected: str | None) -> bool:
    """True when dest exists and matches its checksum (or has none)."""
    return dest.is_file() and (expected is None or sha256_of(dest) == expected)


def copy_from_mirror(src: Path, dest: Path, expected: str | None) -> None:
    """Copy one file from a mirror folder, verifying it before it appears."""
    if not src.is_file():
        raise InputError("missing in the mirror folder (expected the same relative "
                         "path as in the dataset's URL)", src)
    with atomic_path(dest) as tmp:
        shutil.copyfile(src, tmp)
        verify(tmp, expected, str(src))


def _open(url: str, offset: int, timeout: float):
    """Open url, asking for bytes from offset on; returns (response, resumed)."""
    req = urllib.request.Request(url, headers={"User-Agent": "phrasenmt/0.1"})
    if offset:
        req.add_header("Range", f"bytes={offset}-")
    try:
        resp = urllib.request.urlopen(req, timeout=timeout)
    except urllib.error.HTTPError as err:
        if err.code == 416 and offset:
            return None, False
        if err.code >= 500 or err.code == 429:
            raise _Transient(f"HTTP {err.code} {err.reason}") from None
        raise InputError(f"download failed: HTTP {err.code} {err.reason} for {url}")
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        raise _Transient(str(reason)) from None
    return resp, resp.status == 206


def _fetch_once(url: str, part: Path, timeout: float) -> None:
    """One attempt: continue part with a Range request, or restart it cleanly."""
    offset = part.stat().st_size if part.exists() else 0
    resp, resumed = _open(url, offset, timeout)
    if resp is None:  # 416: the range is past the end; start over
        part.unlink()
        resp, resumed = _open(url, 0, timeout)
    with resp, open(part, "ab" if resumed else "wb") as out:
        try:
            out.writelines(iter(lambda: resp.read(CHUNK), b""))
        except OSError as err:
            raise _Transient(f"connection lost: {err}") from None
        length = resp.headers.get("Content-Length")
    if length is not None and part.stat().st_size != int(length) + (
            offset if resumed else 0):
        raise _Transient("incomplete transfer")


def fetch_url(url: str, dest: Path, expected: str | None, timeout: float = 60,
              retries: int = 3, log=None, hint: str = MIRROR_HINT) -> None:
    """Download url to dest via dest.part (resumed), verify, then rename; `hint`
    ends the message of a download that failed every try."""
    part = dest.with_name(dest.name + ".part")
    part.parent.mkdir(parents=True, exist_ok=True)
    for attempt in range(retries + 1):
        try:
            _fetch_once(url, part, timeout)
            break
        except _Transient as err:
            if attempt == retries:
                raise InputError(
                    f"could not download {url}: {err}; {hint}") from None
            if log:
                log(f"retrying {url} ({err})")
            time.sleep(min(0.5 * 2 ** attempt, 10))
    verify(part, expected, url)
    os.replace(part, dest)


def fetch_dataset(ds: Dataset, outdir: Path, mirror: Path | None = None,
                  timeout: float = 60, retries: int = 3, log=_log.info) -> list[Path]:
    """Fetch every file of a dataset into outdir/<relative path>."""
    done = []
    for rel, expected in ds.files.items():
        dest = outdir / rel
        if is_done(dest, expected):
            log(f"ok (present) {dest}")
        elif mirror is not None:
            copy_from_mirror(mirror / rel, dest, expected)
            log(f"copied {mirror / rel} -> {dest}")
        else:
            log(f"fetching {ds.url(rel)}")
            hint = f"{MIRROR_HINT}, {ds.offline}" if ds.offline else MIRROR_HINT
            fetch_url(ds.url(rel), dest, expected, timeout, retries, log, hint)
        done.append(dest)
    return done


TIMEOUT, RETRIES = 60.0, 3  # seconds per request; extra attempts per file


def build_parser() -> argparse.ArgumentParser:
    """Command-line interface of the download step."""
    p = ArgumentParser(
        prog="python -m phrasenmt.data.download", description=__doc__)
    p.add_argument("--dataset", required=True, help=f"one of {dataset_names()}")
    p.add_argument("--outdir", required=True, type=output_dir,
                   help="files land in OUTDIR/<path relative to the base URL>")
    p.add_argument("--mirror", type=Path,
                   help="copy from MIRROR/<relative path> instead of the network")
    p.add_argument("--timeout", type=positive_float,
                   help=f"seconds per request (default {TIMEOUT:g}; not with --mirror)")
    p.add_argument("--retries", type=nonnegative_int,
                   help=f"extra attempts per file after a network failure (default "
                   f"{RETRIES}; not with --mirror)")
    p.add_argument("--manifest", type=output_file,
                   help="also write 'SHA256  PATH' lines of every file here")
    return p


def check_manifest_path(manifest: Path | None, outdir: Path, ds: Dataset) -> None:
    """A manifest path that is one of the dataset's files raises (it would
    overwrite the file it lists); beside them in OUTDIR is where it belongs."""
    if manifest is None:
        return
    for rel in ds.files:
        if os.path.realpath(outdir / rel) == os.path.realpath(manifest):
            raise InputError(f"is {rel}, a file of dataset {ds.name} in --outdir; "
                             "give the manifest a path of its own", manifest)


def write_manifest(path: Path, outdir: Path, files: list[Path]) -> None:
    """Write a sha256sum-style manifest (paths relative to outdir), atomically."""
    write_lines(path, [f"{sha256_of(f)}  {f.relative_to(outdir)}" for f in files])


def main(argv: list[str] | None = None) -> int:
    """Download (or mirror-copy) one dataset."""
    parser = build_parser()
    args = parser.parse_args(argv)
    network = [o for o, v in (("--timeout", args.timeout), ("--retries", args.retries))
               if v is not None]
    if args.mirror is not None and network:  # a mirror copy makes no request
        parser.error(f"{network[0]} sets network requests; with --mirror the files "
                     "are copied and it would do nothing")
    args.timeout = TIMEOUT if args.timeout is None else args.timeout
    args.retries = RETRIES if args.retries is None else args.retries
    ds = get_dataset(args.dataset)
    if args.mirror is not None and not args.mirror.is_dir():
        raise InputError("mirror folder not found", args.mirror)
    check_manifest_path(args.manifest, args.outdir, ds)

    files = fetch_dataset(ds, args.outdir, args.mirror, args.timeout, args.retries,
                          _log.info)
    if args.manifest is not None:
        write_manifest(args.manifest, args.outdir, files)
    _log.info(f"{ds.name}: {len(files)} files in {args.outdir}")
    return 0


if __name__ == "__main__":
    run_cli(main)
