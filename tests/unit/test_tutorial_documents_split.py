"""The tutorial's split of a corpus of documents (docs/tutorial.md, "Your own
documents") holds out whole documents: run as the page gives it, on a corpus
whose plain cuts would fall inside documents."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.conftest import REPO


def split_snippet() -> str:
    """The page's shell block that writes my_docs/{train,dev,test}.docs."""
    text = (REPO / "docs" / "tutorial.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL)
    found = [b for b in blocks if "my_docs/dev.$f" in b and "corpus.$f" in b]
    assert len(found) == 1, "no single block that splits corpus.* into my_docs/"
    return found[0]


def test_the_split_keeps_every_document_in_one_split(tmp_path: Path):
    # 3,000 lines in documents of 7: the plain cuts (lines 1,001 and 2,001) fall
    # inside documents 143 and 286
    ids = [f"d{i // 7:04d}" for i in range(3000)]
    (tmp_path / "corpus.docs").write_text("".join(f"{d}\n" for d in ids))
    for lang in ("en", "de"):
        (tmp_path / f"corpus.{lang}").write_text(
            "".join(f"{lang} line {i}\n" for i in range(3000)))
    subprocess.run(["bash", "-euc", split_snippet()], cwd=tmp_path, check=True)
    splits = {s: (tmp_path / "my_docs" / f"{s}.docs").read_text().split()
              for s in ("train", "dev", "test")}
    assert sum(map(len, splits.values())) == 3000
    assert splits["train"] + splits["dev"] + splits["test"] == ids  # in order
    for a, b in (("train", "dev"), ("dev", "test"), ("train", "test")):
        assert not set(splits[a]) & set(splits[b]), (a, b)
    assert all(splits.values())
    for lang in ("en", "de"):  # the text is cut where its ids are
        for s, lines in splits.items():
            text = (tmp_path / "my_docs" / f"{s}.{lang}").read_text().splitlines()
            assert len(text) == len(lines)
