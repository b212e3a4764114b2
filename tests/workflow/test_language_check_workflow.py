"""A local corpus whose sides are in the wrong language in one script (en-de):
the start-up refuses a swapped split and warns of a file in another language,
the data job does the same, and `local.language_check: false` reaches both."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import snakemake
from tests.unit.test_function_words import ENGLISH, FRENCH, GERMAN, REPEATS
from tests.workflow.local_corpus import SPLITS, local_en_de, split_lines

TEXT = {"en": ENGLISH * REPEATS, "de": GERMAN * REPEATS, "fr": FRENCH * REPEATS}


def _corpus(workdir: Path, contents: dict[str, str], check: bool = True) -> list[str]:
    """Files {split}.{en,de} holding the language `contents` names (default
    their own), an en-de config reading them, and the Snakemake options."""
    texts = {f"{split}.{lang}": split_lines(TEXT[contents.get(f"{split}.{lang}", lang)], split)
             for split in SPLITS for lang in ("en", "de")}
    return local_en_de(workdir, texts, **({} if check else {"local": {"language_check": False}}))


def test_start_up_refuses_a_swapped_split_unless_the_check_is_off(tmp_path: Path):
    swapped = {"train.en": "de", "train.de": "en"}
    result = snakemake("-n", *_corpus(tmp_path, swapped))
    out = result.stdout + result.stderr
    assert result.returncode == 1, out[-2000:]
    assert ("invalid configuration: datasets.mine.local.train: train.en: looks like "
            "de, not en (51 % of its words are de function words, 2 % en ones), and "
            "train.de like en, not de (55 % en, 2 % de): source and target "
            "swapped?") in out
    assert "Traceback" not in out and "Building DAG of jobs" not in out
    result = snakemake("-n", *_corpus(tmp_path, swapped, check=False))
    assert result.returncode == 0, (result.stdout + result.stderr)[-2000:]
    assert "looks like" not in result.stdout + result.stderr


def test_the_data_job_warns_of_a_french_target_file_and_obeys_the_key(tmp_path: Path):
    """The warning comes at start-up, in the data job's log and again at the
    end of the run; with the check off, the data job copies a swapped split."""
    args = _corpus(tmp_path, {"dev.de": "fr"})
    result = snakemake(*args, "--cores", "1", "results/mine/raw/dev.de")
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-3000:]
    line = ("looks like fr, not de, the target language (48 % of its words are fr "
            "function words, 2 % de ones): the wrong file, or a wrong language code?")
    assert f"warning: config datasets.mine.local.dev (dev.de): {line}" in out
    log = "results/logs/prepare_local/mine.dev.de.log"
    assert f"warning: dev.de: {line}" in (tmp_path / log).read_text()
    assert f"warning: dev.de: {line} ({log})" in out  # the run's end repeats it
    assert (tmp_path / "results/mine/raw/dev.de").read_text().splitlines() == split_lines(TEXT["fr"], "dev")
    args = _corpus(tmp_path, {"train.en": "de", "train.de": "en"}, check=False)
    result = snakemake(*args, "--cores", "1", "results/mine/raw/train.en")
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    assert (tmp_path / "results/mine/raw/train.en").read_text().splitlines() == TEXT["de"]
