"""The files and options of the corpus stages: datasets, BPE, alignment, parses.

The inputs and params of rules/data.smk, bpe.smk, align.smk and parse.smk, and
the text files every later stage reads (`text_file`, `bpe_file`): which raw
split a cleaning job reads, which splits the aligner sees, which trees a
segmentation needs. The datasets' own options (synthetic generator, local
files, cleaning) are in `base`.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from phrasenmt.workflow import base as wf


def text_file(config: dict, dataset: str, split: str, side: str) -> str:
    """A cleaned word-level file of a split: side src, tgt or ref (detokenized)."""
    src, tgt = wf.langs(config, dataset)
    data = f"results/{dataset}/data/{split}"
    return {"src": f"{data}.{src}", "tgt": f"{data}.{tgt}", "ref": f"{data}.ref.{tgt}"}[side]


def bpe_file(config: dict, dataset: str, split: str, side: str) -> str:
    """The BPE'd file of a split on one side (src or tgt)."""
    lang = wf.langs(config, dataset)[side == "tgt"]
    return f"results/{dataset}/bpe/{split}.bpe.{lang}"


def bpe_vocab(config: dict, dataset: str, side: str) -> str:
    """The BPE vocabulary of the source or target language."""
    lang = wf.langs(config, dataset)[side == "tgt"]
    return f"results/{dataset}/bpe/vocab.{lang}"


def train_pair(config: dict, dataset: str) -> dict[str, str]:
    """Cleaned word-level training files of a dataset: {src, tgt}."""
    return {side: text_file(config, dataset, "train", side) for side in ("src", "tgt")}


def src_lang(config: dict, dataset: str) -> str:
    return wf.langs(config, dataset)[0]


def tgt_lang(config: dict, dataset: str) -> str:
    return wf.langs(config, dataset)[1]


def lang_pair(config: dict, dataset: str) -> str:
    """`src-tgt`, as the data statistics name the pair."""
    return "-".join(wf.langs(config, dataset))


class UntrackedArg:
    """A rule's params value that goes into its command as `str(value)` but is
    no rerun trigger: Snakemake records only params of plain types (str, int,
    list, ...) and compares them with the last run's, and leaves other objects
    out of both."""

    def __init__(self, text: str):
        self.text = text

    def __str__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UntrackedArg) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


def mirror_arg(config: dict) -> UntrackedArg:
    """`--mirror DIR` of the downloads when config `mirror` is set. Where the
    files come from is no reason to rerun: the download checks what it copies,
    so a later run that adds, drops or moves the mirror keeps the files (and
    everything built from them) instead of fetching them again."""
    return UntrackedArg(shlex.join(["--mirror", str(config["mirror"])])
                        if config.get("mirror") else "")


def stanza_dir_arg(config: dict) -> str:
    """`--stanza-dir DIR` of the parser when config `stanza_dir` is set."""
    return (shlex.join(["--stanza-dir", str(config["stanza_dir"])])
            if config.get("stanza_dir") else "")


def download_name(config: dict, dataset: str) -> str:
    """The registered dataset a `download` dataset fetches."""
    return config["datasets"][dataset]["name"]


def bpe_merges(config: dict, dataset: str) -> int:
    return config["datasets"][dataset]["bpe"]["merges"]


def bpe_threshold(config: dict, dataset: str) -> int:
    return config["datasets"][dataset]["bpe"]["vocab_threshold"]


def subword_backend(config: dict, dataset: str) -> str:
    """`subword-nmt` or `sentencepiece` (config datasets.<name>.bpe.backend)."""
    return config["datasets"][dataset]["bpe"].get("backend", "subword-nmt")


def uses_sentencepiece(config: dict, dataset: str) -> bool:
    return subword_backend(config, dataset) == "sentencepiece"


def subword_model(config: dict, dataset: str, lang: str) -> dict[str, str]:
    """What segments `lang`'s text: {codes, vocab} of subword-nmt, or {model},
    the SentencePiece model (joint, or the language's own)."""
    bpe = f"results/{dataset}/bpe"
    if not uses_sentencepiece(config, dataset):
        return {"codes": f"{bpe}/codes", "vocab": f"{bpe}/vocab.{lang}"}
    joint = config["datasets"][dataset]["bpe"]["joint"]
    return {"model": f"{bpe}/spm.{'joint' if joint else lang}.model"}


def given_spm_model(config: dict, dataset: str) -> str:
    """The user's SentencePiece model of a dataset (config datasets.<name>.bpe.model)."""
    return config["datasets"][dataset]["bpe"]["model"]


def given_spm_datasets(config: dict) -> list[str]:
    """The datasets segmented by a SentencePiece model of the user's."""
    return [name for name in config["datasets"]
            if uses_sentencepiece(config, name)
            and config["datasets"][name]["bpe"].get("model") is not None]


def learned_spm_datasets(config: dict) -> list[str]:
    """The SentencePiece datasets whose model is learned on their training text."""
    given = given_spm_datasets(config)
    return [name for name in config["datasets"]
            if uses_sentencepiece(config, name) and name not in given]


def subword_apply_args(config: dict, dataset: str, input) -> str:
    """`phrasenmt.bpe apply`'s model options for the job's `subword_model` inputs."""
    if "model" in names(input):
        return f"--sentencepiece {input.model}"
    return (f"--codes {input.codes} --vocab {input.vocab} "
            f"--threshold {bpe_threshold(config, dataset)}")


def spm_learn_args(config: dict, dataset: str, lang: str) -> str:
    """`phrasenmt.bpe spm-learn`'s options: model type, size, seed, and the
    character coverage SentencePiece advises for a model of Chinese or Japanese
    text (lang `joint`: either language); alphabets, Thai, Lao, Khmer and
    Burmese among them, keep every character."""
    from phrasenmt.text import spm
    from phrasenmt.text.scripts import LARGE_CHARACTER_SET_LANGUAGES

    bpe = config["datasets"][dataset]["bpe"]
    langs = wf.langs(config, dataset) if lang == "joint" else (lang,)
    coverage = (spm.CJK_COVERAGE if LARGE_CHARACTER_SET_LANGUAGES.intersection(langs)
                else spm.FULL_COVERAGE)
    return (f"--config-key datasets.{dataset}.bpe.vocab_size "
            f"--model-type {bpe['model_type']} --vocab-size {bpe['vocab_size']} "
            f"--seed {config['seed']} --character-coverage {coverage}")


def raw_words(config: dict, dataset: str) -> bool:
    """Whether cleaning keeps raw text for SentencePiece (`clean --raw`): backend
    sentencepiece on text that is not tokenized already."""
    return (uses_sentencepiece(config, dataset)
            and config["datasets"][dataset]["tokenize"])


def detokenize_args(config: dict, dataset: str) -> str:
    """`phrasenmt.data.detokenize`'s options: the target language, and
    `--sentencepiece` where the text was never Moses-tokenized (`raw_words`)."""
    args = f"--lang {tgt_lang(config, dataset)}"
    return args + " --sentencepiece" if raw_words(config, dataset) else args


def raw_split(config: dict, dataset: str, split: str) -> dict[str, str]:
    """Raw source and target files of one split: {src, tgt}."""
    src, tgt = wf.langs(config, dataset)
    raw = f"results/{dataset}/raw/{split}"
    return {"src": f"{raw}.{src}", "tgt": f"{raw}.{tgt}"}


def raw_sidecars(config: dict, dataset: str, split: str) -> list[str]:
    """The raw per-line files (docs, trees, align) that travel with a split."""
    return [f"results/{dataset}/raw/{split}.{kind}" for kind in wf.sidecars(config, dataset)]


def sidecar_args(config: dict, dataset: str, split: str) -> str:
    """`--sidecar RAW CLEANED` of every per-line file of a split."""
    ds = f"results/{dataset}"
    return " ".join(f"--sidecar {ds}/raw/{split}.{k} {ds}/data/{split}.{k}"
                    for k in wf.sidecars(config, dataset))


def stats_splits(config: dict, dataset: str) -> list[str]:
    return ["train", "dev", *wf.testsets(config, dataset)]


def stats_inputs(config: dict, dataset: str) -> list[str]:
    """Word-level and BPE files of every split, for the data statistics table."""
    files = []
    for split in stats_splits(config, dataset):
        files += [text_file(config, dataset, split, s) for s in ("src", "tgt")]
        files += [bpe_file(config, dataset, split, s) for s in ("src", "tgt")]
    return files


def stats_args(config: dict, dataset: str) -> str:
    """`--split NAME SRC TGT` of every split, word-level and BPE'd."""
    args = []
    for split in stats_splits(config, dataset):
        words = [text_file(config, dataset, split, s) for s in ("src", "tgt")]
        pieces = [bpe_file(config, dataset, split, s) for s in ("src", "tgt")]
        args += [f"--split {split} {' '.join(words)}",
                 f"--split {split}.bpe {' '.join(pieces)}"]
    return " ".join(args)


def names(files) -> list[str]:
    """The names of a job's named files (its input is a list: `in` sees paths)."""
    return list(files.keys())


def local_text_options(split: str) -> str:
    """`--evaluation` for a dev or test side of a local dataset: every line is
    translated and scored, so an empty one stops preparation naming the user's
    file (training drops it as `empty` when cleaning)."""
    return "" if split == "train" else "--evaluation"


def local_side(config: dict, dataset: str, lang: str) -> str:
    """The side ("src" or "tgt") that `lang` is of a dataset's pair."""
    return "src" if lang == wf.langs(config, dataset)[0] else "tgt"


def local_side_files(config: dict, dataset: str, split: str, lang: str) -> dict[str, str]:
    """The user's file of one split and language (`text`) and the split's
    other file (`pair`), whose script `prepare local` compares."""
    src, tgt = wf.langs(config, dataset)
    other = tgt if local_side(config, dataset, lang) == "src" else src
    return {"text": wf.local_file(config, dataset, split, lang),
            "pair": wf.local_file(config, dataset, split, other)}


def local_script_options(config: dict, dataset: str, lang: str, input) -> str:
    """`--pair`, `--side`, `--langs` of `prepare local`: a split whose two
    files are each in the script (or by their function words, the language)
    of the other's language stops preparation; `--no-language-check` where
    `local.language_check` is false."""
    src, tgt = wf.langs(config, dataset)
    off = not config["datasets"][dataset]["local"].get("language_check", True)
    return (f"--pair {shlex.quote(str(input.pair))} --side {local_side(config, dataset, lang)} "
            f"--langs {src} {tgt}" + (" --no-language-check" if off else ""))


def local_docs_command(split: str, input, output) -> str:
    """`local --docs-for` with a docs file, else `docs` (one document per line)."""
    if "docs" in names(input):
        return shlex.join(["local", "--in", str(input.docs), "--docs-for", str(input.text),
                           "--out", str(output)])
    return shlex.join(["docs", "--text", str(input.text), "--split", split,
                       "--out", str(output)])


def heldout_splits(config: dict, dataset: str) -> dict[str, tuple[str, str]]:
    """Dev and test splits aligned with the training text: {split: (src, tgt)}."""
    return {s: (text_file(config, dataset, s, "src"), text_file(config, dataset, s, "tgt"))
            for s in ["dev", *wf.testsets(config, dataset)]}


def align_inputs(config: dict, dataset: str) -> dict[str, str]:
    """The training pair, then {split}_src and {split}_tgt of every held-out split."""
    files = train_pair(config, dataset)
    for split, (src, tgt) in heldout_splits(config, dataset).items():
        files.update({f"{split}_src": src, f"{split}_tgt": tgt})
    return files


def align_split_args(config: dict, dataset: str) -> str:
    """`--heldout SPLIT SRC TGT` of every held-out split, and `--segmented SIDE`
    of each side whose words cleaning cut with its language's segmenter."""
    from phrasenmt.text.words import SEGMENTABLE

    args = [f"--heldout {split} {src} {tgt}"
            for split, (src, tgt) in heldout_splits(config, dataset).items()]
    if raw_words(config, dataset):
        args += [f"--segmented {side}" for side, lang
                 in zip(("src", "tgt"), wf.langs(config, dataset), strict=True)
                 if lang in SEGMENTABLE]
    return " ".join(args)


def segment_inputs(config: dict, dataset: str, split: str,
                   segmentation: str) -> dict[str, str]:
    """The BPE'd source, plus its trees for parse-based phrases."""
    inputs = {"bpe": bpe_file(config, dataset, split, "src")}
    if segmentation == "parse":
        inputs["trees"] = f"results/{dataset}/parse/{split}.trees"
    return inputs


def segment_trees_arg(input) -> str:
    """`--trees FILE` of a segmentation that reads trees."""
    return f"--trees {input.trees}" if "trees" in names(input) else ""


def output_dir(output) -> str:
    """The folder of a rule's first output (for CLIs that take an --out-dir)."""
    return str(Path(output[0]).parent)

