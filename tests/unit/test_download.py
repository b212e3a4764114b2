"""Tests for the dataset registry and the resumable, checksummed download."""

from __future__ import annotations

import hashlib
import http.server
import re
import threading
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

import pytest

from phrasenmt.data import datasets, download
from phrasenmt.data.datasets import MULTI30K
from phrasenmt.io import InputError, run_cli

MIRROR = Path("/work/shared/data/multi30k")
PAYLOAD = bytes(range(256)) * 400  # 100 kB, not text: any corruption shows
DIGEST = hashlib.sha256(PAYLOAD).hexdigest()


class RangeHandler(http.server.SimpleHTTPRequestHandler):
    """Static file handler that honours 'Range: bytes=N-' and logs requests."""

    honour_range = True
    seen: ClassVar[list[str | None]] = []

    def log_message(self, *args) -> None:  # keep pytest output quiet
        pass

    def do_GET(self) -> None:
        """Serve the file, or its tail for a Range request."""
        type(self).seen.append(self.headers.get("Range"))
        path = Path(self.translate_path(self.path))
        if not path.is_file():
            self.send_error(404)
            return
        data = path.read_bytes()
        m = re.fullmatch(r"bytes=(\d+)-", self.headers.get("Range") or "")
        if m and self.honour_range:
            start = int(m.group(1))
            if start >= len(data):
                self.send_error(416)
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/"
                                              f"{len(data)}")
            data = data[start:]
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def _serve(folder: Path, honour_range: bool):
    """Start a threaded HTTP server on 127.0.0.1 serving folder."""
    handler = type("Handler", (RangeHandler,),
                   {"honour_range": honour_range, "seen": []})

    def make(*args, **kwargs):
        return handler(*args, directory=str(folder), **kwargs)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), make)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, handler


@pytest.fixture
def site(tmp_path):
    """A local web site with one binary file at files/blob.bin (Range honoured)."""
    root = tmp_path / "site"
    (root / "files").mkdir(parents=True)
    (root / "files" / "blob.bin").write_bytes(PAYLOAD)
    server, handler = _serve(root, honour_range=True)
    yield f"http://127.0.0.1:{server.server_address[1]}/", handler, root
    server.shutdown()
    server.server_close()


def _fake(base: str, digest: str | None = DIGEST) -> datasets.Dataset:
    """A one-file dataset served from base."""
    return replace(MULTI30K, name="fake", base_url=base,
                   files={"files/blob.bin": digest})


def _quiet(_msg: str) -> None:
    pass


def test_registry_api():
    assert "multi30k" in datasets.dataset_names()
    assert len(datasets.download_files("multi30k")) == 18
    assert datasets.eval_splits("multi30k")[0] == "dev"
    assert "test_2016_flickr" in datasets.eval_splits("multi30k")
    assert datasets.eval_splits("iwslt14") == ["dev", "test"]
    assert all(d is not None for d in MULTI30K.files.values())
    with pytest.raises(InputError, match="known datasets: .*multi30k"):
        datasets.get_dataset("nope")
    with pytest.raises(InputError, match="offers"):
        datasets.check_direction("iwslt14", "en", "fr")


@pytest.mark.skipif(not MIRROR.is_dir(), reason="shared multi30k mirror absent")
def test_mirror_copy_passes_checksums(tmp_path):
    assert download.main(["--dataset", "multi30k", "--outdir", str(tmp_path / "d"),
                          "--mirror", str(MIRROR)]) == 0
    for rel, digest in MULTI30K.files.items():
        assert download.sha256_of(tmp_path / "d" / rel) == digest
    assert not list((tmp_path / "d").rglob("*.tmp"))


def test_mirror_missing_file_names_path(tmp_path):
    (tmp_path / "mirror").mkdir()
    with pytest.raises(InputError, match="missing in the mirror") as err:
        download.fetch_dataset(MULTI30K, tmp_path / "out", tmp_path / "mirror",
                               log=_quiet)
    assert "data/task1/raw/train.de.gz" in str(err.value)


def test_mirror_checksum_mismatch_leaves_nothing(tmp_path):
    mirror = tmp_path / "mirror" / "files"
    mirror.mkdir(parents=True)
    (mirror / "blob.bin").write_bytes(PAYLOAD[:-1] + b"x")
    with pytest.raises(InputError) as err:
        download.fetch_dataset(_fake("http://unused/"), tmp_path / "out",
                               tmp_path / "mirror", log=_quiet)
    assert DIGEST in str(err.value) and "blob.bin" in str(err.value)
    assert not [p for p in (tmp_path / "out").rglob("*") if p.is_file()]


def test_http_download_and_skip_when_present(site, tmp_path, monkeypatch):
    base, handler, _ = site
    monkeypatch.setitem(datasets.DATASETS, "fake", _fake(base))
    download.main(["--dataset", "fake", "--outdir", str(tmp_path / "out"),
                   "--manifest", str(tmp_path / "MANIFEST")])
    assert (tmp_path / "out/files/blob.bin").read_bytes() == PAYLOAD
    assert (tmp_path / "MANIFEST").read_text() == f"{DIGEST}  files/blob.bin\n"
    logs = []
    download.fetch_dataset(_fake(base), tmp_path / "out", log=logs.append)
    assert len(handler.seen) == 1 and "present" in logs[0]


def test_http_checksum_mismatch_is_clear_and_removes_file(site, tmp_path):
    base, _, _ = site
    wrong = "0" * 64
    with pytest.raises(InputError) as err:
        download.fetch_dataset(_fake(base, wrong), tmp_path / "out", log=_quiet)
    message = str(err.value)
    assert f"{base}files/blob.bin" in message
    assert wrong in message and DIGEST in message
    assert not [p for p in (tmp_path / "out").rglob("*") if p.is_file()]


def test_resume_uses_range_request(site, tmp_path):
    base, handler, _ = site
    part = tmp_path / "out/files/blob.bin.part"
    part.parent.mkdir(parents=True)
    half = len(PAYLOAD) // 2
    part.write_bytes(PAYLOAD[:half])
    download.fetch_dataset(_fake(base), tmp_path / "out", log=_quiet)
    assert handler.seen == [f"bytes={half}-"]
    assert download.sha256_of(tmp_path / "out/files/blob.bin") == DIGEST
    assert not part.exists()


def test_server_ignoring_range_restarts_cleanly(tmp_path):
    root = tmp_path / "site"
    (root / "files").mkdir(parents=True)
    (root / "files" / "blob.bin").write_bytes(PAYLOAD)
    server, handler = _serve(root, honour_range=False)
    try:
        part = tmp_path / "out/files/blob.bin.part"
        part.parent.mkdir(parents=True)
        part.write_bytes(b"garbage that must not survive")
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        download.fetch_dataset(_fake(base), tmp_path / "out", log=_quiet)
    finally:
        server.shutdown()
        server.server_close()
    assert handler.seen[0] is not None  # it asked to resume, server said no
    assert (tmp_path / "out/files/blob.bin").read_bytes() == PAYLOAD


def test_offline_failure_names_url_and_mirror(tmp_path):
    fake = _fake("http://127.0.0.1:9/")  # discard port: nothing listens
    with pytest.raises(InputError) as err:
        download.fetch_dataset(fake, tmp_path / "out", retries=0, timeout=2,
                               log=_quiet)
    message = str(err.value)
    assert "http://127.0.0.1:9/files/blob.bin" in message
    assert "--mirror" in message and "mirror:" in message
    assert "lingeval: false" not in message


def test_offline_lingeval_failure_says_how_to_leave_it_out(tmp_path):
    """Lingeval97's items are an analysis a run can do without: offline, with
    no copy to mirror, the message names the key that leaves it out."""
    from dataclasses import replace

    from phrasenmt.data.datasets import get_dataset

    lingeval = replace(get_dataset("lingeval97"), base_url="http://127.0.0.1:9/")
    with pytest.raises(InputError) as err:
        download.fetch_dataset(lingeval, tmp_path / "out", retries=0, timeout=2,
                               log=_quiet)
    assert str(err.value).endswith("pass --mirror FOLDER (config key `mirror:`), or "
                                   "leave the agreement analysis out: `lingeval: "
                                   "false` in the dataset's config")


def test_cli_error_is_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        run_cli(download.main, ["--dataset", "multi30k", "--outdir",
                                str(tmp_path), "--mirror", str(tmp_path / "no")])
    assert exit_info.value.code == 1
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "mirror folder not found" in err


@pytest.mark.parametrize("option", [["--timeout", "5"], ["--retries", "0"]])
def test_network_options_with_a_mirror_are_refused(tmp_path, capsys, option):
    """A mirror copy makes no request: --timeout/--retries would do nothing."""
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    with pytest.raises(SystemExit) as stop:
        download.main(["--dataset", "multi30k", "--outdir", str(tmp_path / "d"),
                       "--mirror", str(mirror), *option])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and f"{option[0]} sets network requests" in err
    assert not (tmp_path / "d").exists() or not any((tmp_path / "d").iterdir())
