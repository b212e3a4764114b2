"""Start-up checks of the SentencePiece datasets (`bpe.backend: sentencepiece`).

A local dataset's training files are there when the workflow starts, so
`snakemake -n` refuses what they show already: a `vocab_size` above
`text.spm.piece_bound` of the text the model would be learned on (a size no
model of it can hold), and a model of the user's (`bpe.model`) that does not
know the text's characters. The text is read as the jobs will hold it (the
data job's NFC, cleaning's words and lowercasing: `data.local.kept_lines`,
`data.clean.model_text`), and only as far as each check needs. The training
text of a synthetic or downloaded dataset is made by its jobs, and a size
below the bound that the text still cannot fill shows only in training: the
learn job refuses those (`text.spm.vocab_size_message`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

from phrasenmt.io import InputError
from phrasenmt.workflow import base as wf
from phrasenmt.workflow import corpus

UNKNOWN_SAMPLE_LINES = 2000  # the lines of each side a given model is tried on


def check_sentencepiece(config: dict, dataset: str) -> None:
    """A SentencePiece dataset's model, and its size, against its training
    text where that is there (a local dataset's files)."""
    bpe = config["datasets"][dataset]["bpe"]
    key = f"datasets.{dataset}.bpe"
    files = training_files(config, dataset)
    if bpe.get("model") is not None:
        model = load_given(config, dataset)
        for lang, path in files.items():
            _check_unknown(key, bpe["model"], model, path,
                           model_lines(config, dataset, lang, path))
    elif bpe["joint"] and len(files) == 2:
        _check_vocab_size(key, bpe["vocab_size"], list(files.values()),
                          itertools.chain.from_iterable(
                              model_lines(config, dataset, lang, path)
                              for lang, path in files.items()))
    elif not bpe["joint"]:
        for lang, path in files.items():
            _check_vocab_size(key, bpe["vocab_size"], [path],
                              model_lines(config, dataset, lang, path))


def training_files(config: dict, dataset: str) -> dict[str, str]:
    """{language: file} of a local dataset's training text that is there now
    (the user's files); none for a dataset whose jobs make its text."""
    if wf.source(config, dataset) != "local":
        return {}
    files = {lang: wf.local_file(config, dataset, "train", lang)
             for lang in wf.langs(config, dataset)}
    return {lang: path for lang, path in files.items() if Path(path).is_file()}


def model_lines(config: dict, dataset: str, lang: str, path: str) -> Iterator[str]:
    """A user's training file as the SentencePiece jobs read it (before
    cleaning drops pairs), line by line."""
    from phrasenmt.data.clean import Options, model_text
    from phrasenmt.data.local import kept_lines

    ds = config["datasets"][dataset]
    raw = corpus.raw_words(config, dataset)
    opts = Options(ds["src"], ds["tgt"], tokenize=ds["tokenize"] and not raw, raw=raw,
                   lowercase=ds["lowercase"])
    return model_text(_train_split(dataset, kept_lines(Path(path))), lang, opts)


def _train_split(dataset: str, lines: Iterator[str]) -> Iterator[str]:
    """The lines; a bad one (a bad byte far down the file, which the data job
    would refuse) named under the dataset's train split, as the start-up's
    other checks of local files name theirs."""
    try:
        yield from lines
    except InputError as err:
        raise InputError(f"datasets.{dataset}.local.train: {err}") from None


def load_given(config: dict, dataset: str):
    """The user's model (`bpe.model`): a file that loads as a whole
    SentencePiece model, else one line naming the key."""
    from phrasenmt.text import spm

    path = config["datasets"][dataset]["bpe"]["model"]
    where = f"datasets.{dataset}.bpe.model: {path}"
    if Path(path).is_dir():
        raise InputError(f"{where}: is a folder; give the model's file")
    if not Path(path).is_file():
        raise InputError(f"{where}: file not found")
    try:
        return spm.load(path)
    except InputError as err:
        raise InputError(f"datasets.{dataset}.bpe.model: {err}") from None


def _check_vocab_size(key: str, vocab_size: int, paths: list[str], lines) -> None:
    """Refuse a size above what any model of these lines can hold."""
    from phrasenmt.text import spm

    bound = spm.piece_bound(lines, vocab_size)
    if bound < vocab_size:
        raise InputError(
            f"{key}.vocab_size: {vocab_size} pieces is more than {' + '.join(paths)} "
            f"can give (at most {bound:,} distinct pieces of up to "
            f"{spm.MAX_PIECE_LENGTH} characters, with <unk>, <s> and </s>); lower it")


def _check_unknown(key: str, model_path: str, model, path: str, lines) -> None:
    """Refuse a model that does not know more than spm.MAX_UNKNOWN_CHARACTERS
    of the characters of the first UNKNOWN_SAMPLE_LINES lines of a side."""
    from phrasenmt.text import spm

    sample = list(itertools.islice(lines, UNKNOWN_SAMPLE_LINES))
    found = spm.unknown_characters(model, sample)
    if found.too_many():
        raise InputError(
            f"{key}.model: {found.percent()} of the characters of the first "
            f"{len(sample)} lines of {path} ({found.unknown} of {found.total}; more "
            f"than {100 * spm.MAX_UNKNOWN_CHARACTERS:g}%) are unknown to {model_path} "
            f"({found.examples()}): a model of another language, script or corpus; "
            "give one learned on text like this, or remove bpe.model to learn one")


def check_given_model_keys(config: dict, written: dict[str, dict]) -> None:
    """`vocab_size` and `model_type` written beside `bpe.model` must be the
    model file's: the file is used as it is, so another value would be a
    setting that was never tried."""
    from phrasenmt.text import spm

    for name in corpus.given_spm_datasets(config):
        bpe = config["datasets"][name]["bpe"]
        model_type, vocab_size = spm.trainer_settings(bpe["model"])
        given = written.get(name, {}).get("bpe", set())
        for field, value in (("model_type", model_type), ("vocab_size", vocab_size)):
            if field in given and bpe[field] != value:
                raise InputError(
                    f"datasets.{name}.bpe.{field}: {bpe[field]}, but bpe.model "
                    f"{bpe['model']} has {field} {value}, and it is used as it is; "
                    f"remove {field} or give {value}")
