"""experiments/gettext_corpus.py: a zh-en corpus from compiled gettext catalogs."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "gettext_corpus.py"


def write_mo(path: Path, messages: dict[str, str],
             header: bytes = b"Content-Type: text/plain; charset=UTF-8\n") -> None:
    """A compiled catalog (GNU .mo, little-endian) holding `messages`."""
    items = sorted({"": header, **messages}.items())
    ids = [k.encode() for k, _ in items]
    strs = [v if isinstance(v, bytes) else v.encode() for _, v in items]
    header = 7 * 4
    table = header + 2 * 8 * len(items)
    blob, offsets = b"", []
    for data in ids + strs:
        offsets.append((len(data), table + len(blob)))
        blob += data + b"\0"
    out = struct.pack("<7I", 0x950412DE, 0, len(items), header, header + 8 * len(items), 0, 0)
    out += b"".join(struct.pack("<2I", *o) for o in offsets) + blob
    path.write_bytes(out)


def test_catalogs_become_documents_and_held_out_ones_stay_apart(tmp_path):
    cat = tmp_path / "zh_CN" / "LC_MESSAGES"
    cat.mkdir(parents=True)
    write_mo(cat / "grep.mo", {"no match": "没有匹配", "shared": "共享",
                               "full month name\x04May": "五月"})  # msgctxt: left out
    write_mo(cat / "tar.mo", {"Usage:\nfoo": "用法：\n甲",    # two lines each: two pairs
                              "a\nb\nc": "一二三",            # 3 lines against 1: one pair
                              "shared": "共享",               # dev has it: skipped here
                              "same": "same"})               # untranslated: skipped
    write_mo(cat / "dup.mo", {"no match": "没有匹配"})         # nothing new: no document
    run = subprocess.run([sys.executable, str(SCRIPT), "--out", "out", "--dirs", str(cat),
                          "--dev", "grep"], cwd=tmp_path, capture_output=True, text=True,
                         check=True)
    assert run.stdout.splitlines()[-1] == "pairs\ttrain 3\tdev 3\ttest 0"
    out = tmp_path / "out"
    assert (out / "train.en").read_text().splitlines() == ["Usage:", "foo", "a b c"]
    assert (out / "train.zh").read_text().splitlines() == ["用法：", "甲", "一二三"]
    assert set((out / "train.docs").read_text().split()) == {"zh_CN/tar"}
    assert (out / "dev.docs").read_text().split() == ["zh_CN/grep"] * 3
    assert "May" in (out / "dev.en").read_text().splitlines()
    assert (out / "test.en").read_text() == ""


def test_an_unknown_catalog_name_is_one_line(tmp_path):
    write_mo(tmp_path / "grep.mo", {"x": "甲"})
    run = subprocess.run([sys.executable, str(SCRIPT), "--out", "out", "--dirs", str(tmp_path),
                          "--test", "nosuch"], cwd=tmp_path, capture_output=True, text=True,
                         check=False)
    assert run.returncode == 2
    assert run.stderr.strip() == "gettext_corpus: --dev/--test name no catalog: nosuch"


def test_a_language_without_a_locale_folder_is_one_line(tmp_path):
    run = subprocess.run([sys.executable, str(SCRIPT), "--out", "out", "--lang", "qqx"],
                         cwd=tmp_path, capture_output=True, text=True, check=False)
    assert run.returncode == 2
    assert run.stderr.strip() == (
        "gettext_corpus: no default folders for --lang qqx "
        "(/usr/share/locale/qqx/LC_MESSAGES does not exist): give --dirs")


def test_another_language_reads_its_locale_folder(tmp_path, monkeypatch):
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import gettext_corpus
    finally:
        sys.path.remove(str(SCRIPT.parent))
    seen = []
    monkeypatch.setattr(gettext_corpus.os.path, "isdir", lambda path: True)
    monkeypatch.setattr(gettext_corpus.glob, "glob", lambda pattern: seen.append(pattern) or [])
    assert gettext_corpus.main(["--out", str(tmp_path / "out"), "--lang", "ru"]) == 2
    assert seen == ["/usr/share/locale/ru/LC_MESSAGES/*.mo"]


def test_a_catalog_whose_header_is_not_utf8_is_left_out_with_a_line(tmp_path):
    """Old catalogs declare charset=iso-8859-1 and write their header in it
    (a translator's name with an umlaut), which Python's parser reads as UTF-8."""
    cat = tmp_path / "de" / "LC_MESSAGES"
    cat.mkdir(parents=True)
    write_mo(cat / "net-tools.mo", {"x": "y"},
             header=b"Last-Translator: Ralf B\xe4chle\n"
                    b"Content-Type: text/plain; charset=iso-8859-1\n")
    write_mo(cat / "grep.mo", {"no match": "keine Treffer"})
    run = subprocess.run([sys.executable, str(SCRIPT), "--out", "out", "--lang", "de",
                          "--dirs", str(cat)], cwd=tmp_path, capture_output=True,
                         text=True, check=True)
    assert run.stderr.strip() == (f"gettext_corpus: {cat / 'net-tools.mo'}: left out, "
                                  "its header is not UTF-8 (invalid continuation byte "
                                  "at byte 23)")
    assert (tmp_path / "out/train.de").read_text().splitlines() == ["keine Treffer"]
