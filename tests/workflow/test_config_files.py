"""A config.yaml that is not a YAML mapping stops the dry run with one line
naming the file and line (Snakemake's own message names neither)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO, snakemake


@pytest.mark.parametrize("text, message", [
    ("- a\n- b\n", ("invalid configuration: config.yaml: a config file must be a "
     "mapping of keys at top level")),
    ("seed: 1\ndatasets:\n\tx: 1\n", ("invalid configuration: config.yaml:3: invalid "
     "YAML: found character '\\t' that cannot start any token")),
])
def test_config_that_is_not_a_mapping_names_file_and_line(tmp_path: Path, text: str,
                                                          message: str):
    (tmp_path / "config.yaml").write_text(text, encoding="utf-8")
    result = snakemake("-n", "--snakefile", str(REPO / "Snakefile"), "--directory",
                       str(tmp_path))
    out = result.stdout + result.stderr
    assert result.returncode != 0
    assert message in out, out[-2000:]
    assert "Traceback" not in out
