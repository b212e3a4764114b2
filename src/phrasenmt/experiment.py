"""Start-up validation of the whole experiment, before any job runs.

`rules/common.smk` calls `start`: it checks the config files Snakemake read
(`check_config_files`), validates the merged config against the schema, runs
the families' checks, derives the models of sweeps and joint fine-tuning, and
then checks the result as a whole (`check_experiment`), so `snakemake -n`
stops in seconds with one line naming the key. Every model entry is resolved with
`training.spec.resolve_spec` from the very spec its train rule passes
(`phrasenmt.train --spec`), so the two cannot disagree; dataset settings are
checked against what the rules and stages accept.
"""

from __future__ import annotations

import filecmp
import functools
import json
import os
import types
import typing
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from phrasenmt.config import (
    declared_number,
    load_schema,
    read_config_file,
    restore_given_numbers,
    restore_numbers,
    validate_config,
)
from phrasenmt.io import InputError, check_text, count_lines, decode_line
from phrasenmt.workflow import base as wf
from phrasenmt.workflow import claims as wfc
from phrasenmt.workflow import continuous, phrase_repr, runs, subwords
from phrasenmt.workflow import discourse as wfdis
from phrasenmt.workflow import documents as wfd
from phrasenmt.workflow import npmt as wfn

SYNTHETIC_DIRECTIONS = ("en-de", "de-en")  # what the generator writes


def start(config: dict, files: Iterable[str | os.PathLike] = (),
          given: Mapping | None = None) -> None:
    """Everything the workflow does with its config at start-up, in order.

    `files` are the config files Snakemake read, `given` the values of
    `snakemake --config`. Fills the schema's defaults, makes every whole number
    of an integer key an int (`config.declared_number`) and derives the models
    of sweeps and joint fine-tuning (in place); any problem raises one
    InputError naming the key.
    """
    parsed = check_config_files(files, config)  # each file read once
    order_entries_as_written(config, parsed)
    keep_distance_mixes_whole(config, parsed, given or {})
    restore_given_numbers(config, given or {})
    written = _dataset_keys_written(config)  # before the schema fills its defaults
    validate_config(config, None)
    declare_field_numbers(config)
    check_experiment(config)  # each entry on its own before the families' checks
    check_dataset_keys_read(config, written)
    check_aligner_keys(config, parsed, given or {})
    phrase_repr.check_phrase_models(config)
    wfn.check_npmt_models(config)
    wfn.check_gates_line(config)
    wf.check_decode_keys(config)  # after NPMT's: its lines name its own keys
    wfd.derive_joint_finetune(config)
    wf.derive_sweeps(config)
    wfn.check_search_defaults(config)  # after derivation: a sweep of model.beam too
    continuous.check_embedding_dims(config)  # the continuous models' table sizes agree
    wfd.check_document_models(config)
    wfdis.check_controls(config)  # after derivation: a control's joint step too
    runs.check_seeds(config)  # after derivation: derived entries copy seeds
    check_models(config)  # the derived models too
    check_files_there(config)  # the machine's files, once every key is known good
    wfc.registry()  # claims.yaml, read here so that a broken entry stops the start


def check_config_files(paths: Iterable[str | os.PathLike],
                       config: dict | None = None) -> list[tuple[Path, dict]]:
    """Each config file parses, and no key in it is written twice; its numbers
    reach `config` as numbers (`config.restore_numbers`: `lr: 1e-5`). Returns
    each file with what it holds, for the checks that need to know which file
    wrote a key."""
    out = []
    for path in paths:
        parsed = read_config_file(path)
        check_holds_config_keys(path, parsed)
        if config is not None:
            restore_numbers(config, parsed)
        out.append((Path(path), parsed))
    return out


def check_holds_config_keys(path: str | os.PathLike, parsed: dict) -> None:
    """A file most of whose top-level keys are no config keys is no config file:
    most often a target written after `--configfile`, which Snakemake reads as one
    more config file (a run's `summary.json` is a JSON mapping and merges
    silently). One mistyped key is left to the schema's message."""
    known = set(load_schema()["properties"])
    unknown = [str(key) for key in parsed if key not in known]
    if len(unknown) >= 2 and 2 * len(unknown) > len(parsed):
        keys = ", ".join(unknown[:3]) + (", ..." if len(unknown) > 3 else "")
        raise InputError(f"{len(unknown)} of its {len(parsed)} top-level keys are no "
                         f"config keys ({keys}): snakemake reads every word after "
                         "--configfile as a config file, so name targets before "
                         "--configfile", path)


def _field_types(hint: Any) -> list[str]:
    """The JSON-Schema type names of a config dataclass field's type hint."""
    names = {int: "integer", float: "number", bool: "boolean", str: "string",
             type(None): "null"}
    if typing.get_origin(hint) is list:  # list[int]: ["items:integer"]
        return [f"items:{t}" for t in _field_types(typing.get_args(hint)[0])]
    args = typing.get_args(hint) if typing.get_origin(hint) in (
        typing.Union, types.UnionType) else (hint,)
    return [names[a] for a in args if a in names]


@functools.cache
def _class_field_types(cls: type) -> dict[str, list[str]]:
    """JSON type names of every field of a config dataclass (read only; cached:
    resolving the annotations is what costs)."""
    import dataclasses

    resolved = typing.get_type_hints(cls)
    return {f.name: _field_types(resolved[f.name]) for f in dataclasses.fields(cls)}


def declare_field_numbers(config: dict) -> None:
    """`config.declared_number` on the values of every model entry's `model:`,
    `train:` and `joint_finetune.train:` and every sweep's `values`, by the
    field types of the entry's arch (in place): `max_steps: 1125.0` is 1125."""
    from phrasenmt.hparams import config_class
    from phrasenmt.training.config import TrainConfig

    def hints(arch: str) -> dict[str, dict[str, list[str]]]:
        return {"model": _class_field_types(config_class(arch)),
                "train": _class_field_types(TrainConfig)}

    models = config["models"]
    for entry in models.values():
        fields = hints(entry["arch"])
        sections = [("model", entry.get("model")), ("train", entry.get("train")),
                    ("train", entry.get("joint_finetune", {}).get("train"))]
        for section, values in sections:
            if isinstance(values, dict):
                for key, value in values.items():
                    declared = fields[section].get(key, ())
                    items = [t.removeprefix("items:") for t in declared
                             if t.startswith("items:")]
                    if items and isinstance(value, list):  # length_buckets: [8.0]
                        values[key] = [declared_number(v, items) for v in value]
                    elif key in fields[section]:
                        values[key] = declared_number(value, declared)
    for sweep in config.get("sweeps", {}).values():
        section, _, key = sweep["key"].partition(".")
        if sweep["model"] in models and "." not in key:
            declared = hints(models[sweep["model"]]["arch"])[section].get(key, ())
            sweep["values"] = [declared_number(v, declared) for v in sweep["values"]]


def check_experiment(config: dict) -> None:
    """Every check below, in the order a reader of the config meets the keys."""
    check_datasets(config)
    check_settings(config)
    wfd.check_document_keys(config)  # before the specs: `context` travels in them
    check_models(config)


SHIPPED_CONFIG = Path(__file__).resolve().parents[2] / "config.yaml"


def order_entries_as_written(config: dict, files: list[tuple[Path, dict]]) -> None:
    """Models and datasets in the order the config files write them: those of
    config.yaml first, then each other file's new ones. Snakemake starts from
    the --configfile overrides and merges config.yaml into them, so an entry an
    override names came first in every table (and was the first attention RNN
    a dataset's NPMT table picks as its baseline)."""
    shipped_first = sorted(files, key=lambda f: f[0].resolve() != SHIPPED_CONFIG)
    order: dict[str, list[str]] = {"models": [], "datasets": []}
    for _, parsed in shipped_first:
        for section, names in order.items():
            entries = parsed.get(section)
            if isinstance(entries, dict):
                names += [k for k in entries if k not in names]
    for section, names in order.items():
        entries = config.get(section)
        if isinstance(entries, dict) and names:
            ranked = [k for k in names if k in entries]
            ranked += [k for k in entries if k not in ranked]
            config[section] = {k: entries[k] for k in ranked}


def _written_at(parsed: Any, *keys: str) -> Any:
    """The value a config file (or `--config`) writes at a key path, else None."""
    for key in keys:
        if not isinstance(parsed, Mapping):
            return None
        parsed = parsed.get(key)
    return parsed


def keep_distance_mixes_whole(config: dict, files: list[tuple[Path, dict]],
                              given: Mapping) -> None:
    """A dataset's `synthetic.antecedent_distance` is one distribution, taken
    whole from the source that wins (`--config`, else the last --configfile
    that writes it, else config.yaml). Snakemake merges mappings key by key, so
    a file's `{1: 1.0}` over config.yaml's `{1: 0.85, 2: 0.075, 3: 0.075}`
    became `{1: 1.0, 2: 0.075, 3: 0.075}` and was refused as summing to 1.15."""
    ranked = sorted(files, key=lambda f: f[0].resolve() != SHIPPED_CONFIG)
    sources = [parsed for _, parsed in ranked] + [given]
    for name, ds in (config.get("datasets") or {}).items():
        syn = ds.get("synthetic") if isinstance(ds, dict) else None
        if not isinstance(syn, dict):
            continue
        for parsed in reversed(sources):
            mix = _written_at(parsed, "datasets", name, "synthetic",
                              "antecedent_distance")
            if isinstance(mix, Mapping):
                syn["antecedent_distance"] = dict(mix)
                break


def check_aligner_keys(config: dict, files: list[tuple[Path, dict]],
                       given: Mapping) -> None:
    """eflomal's settings written in a config file of the user's or given with
    --config (config.yaml sets `eflomal_samplers` for every run) must meet
    eflomal: with another `align.backend` they would be read by nothing."""
    backend = config["align"]["backend"]
    if backend == "eflomal":
        return
    sources = [(str(path), parsed.get("align")) for path, parsed in files
               if path.resolve() != SHIPPED_CONFIG]
    sources.append(("--config", given.get("align")))
    for where, written in sources:
        for key in sorted(written) if isinstance(written, dict) else ():
            if key.startswith("eflomal_"):
                raise InputError(f"align.{key}: set in {where}, but align.backend is "
                                 f"{backend}: eflomal's settings are read by eflomal only")


def _dataset_keys_written(config: dict) -> dict[str, dict]:
    """Each dataset's keys as the config files wrote them (with the keys of its
    `synthetic:` and `bpe:` sections), before the schema's defaults are filled in."""
    written = {}
    for name, ds in (config.get("datasets") or {}).items():
        if isinstance(ds, dict):
            written[name] = {"keys": set(ds)} | {
                section: set(ds[section]) if isinstance(ds.get(section), dict) else set()
                for section in ("synthetic", "bpe")}
    return written


def check_dataset_keys_read(config: dict, written: dict[str, dict]) -> None:
    """A dataset key the config writes must be read for that dataset: the
    generator's settings on a dataset it does not generate, the synthetic
    pronoun items' settings where there are none, contrastive sets with no
    document-level model to score, Lingeval97 on another pair are refused, and
    a SentencePiece size or type beside a model of the user's must be its own."""
    for name, ds in config["datasets"].items():
        key, keys = f"datasets.{name}", written.get(name, {"keys": set(), "synthetic": set()})
        if ds["source"] != "synthetic" and "synthetic" in keys["keys"]:
            raise InputError(f"{key}.synthetic: is read for source synthetic only, "
                             f"and this dataset's source is {ds['source']}")
        syn = ds.get("synthetic", {})
        farthest = max((int(d) for d in syn.get("antecedent_distance", {"1": 1})), default=1)
        if "distractor_gender" in keys["synthetic"] and farthest < 2:
            raise InputError(f"{key}.synthetic.distractor_gender: picks the nouns of "
                             "the sentences between an antecedent and its pronoun, and "
                             "every antecedent is 1 sentence back "
                             "(synthetic.antecedent_distance)")
        sets = wfdis.contrastive_sets(config, name)
        if "contrastive_dev_fraction" in keys["synthetic"] and \
                wfdis.SYNTHETIC_SET not in sets:
            raise InputError(f"{key}.synthetic.contrastive_dev_fraction: splits the "
                             "synthetic pronoun items, which an en-de corpus has for "
                             "its document-level models only; this one has none")
        if ds.get("contrastive") and not wfd.document_models(config, name):
            raise InputError(f"{key}.contrastive: the contrastive sets are scored by "
                             "document-level models, and none trains on this dataset")
        if "lingeval" in keys["keys"] and (ds["src"], ds["tgt"]) != ("en", "de"):
            raise InputError(f"{key}.lingeval: Lingeval97's agreement items are "
                             f"en-de only, and this dataset is {ds['src']}-{ds['tgt']}")
    subwords.check_given_model_keys(config, written)


def check_datasets(config: dict) -> None:
    """What each dataset needs beyond the config model's rules: a stopword
    list, a direction the generator or download has, rates the generator
    knows, and local files that agree with each other."""
    for name, ds in config["datasets"].items():
        key = f"datasets.{name}"
        if any(config["models"][m].get("arch") in wf.CONTINUOUS_ARCHS
               for m in wf.models(config, name)):  # the phrase table's readers
            _check_stopwords(key, ds["tgt"])
        _check_word_segmenter(key, ds)
        if (ds.get("bpe", {}).get("backend") == "sentencepiece"
                and wfdis.SYNTHETIC_SET in wfdis.contrastive_sets(config, name)):
            raise InputError(
                f"{key}.bpe.backend: sentencepiece, but the document-level models "
                f"({', '.join(wfd.document_models(config, name))}) are scored on the "
                "synthetic corpus's contrastive pronoun items, which are segmented "
                "with subword-nmt codes: use bpe.backend subword-nmt")
        if ds["source"] == "synthetic":
            _check_synthetic(key, ds)
        elif ds["source"] == "local":
            controls = [m for m in wf.models(config, name)
                        if config["models"][m].get("context") == "random"]
            _check_local_files(key, ds["local"], controls[0] if controls else None,
                               (ds["src"], ds["tgt"]))
        elif ds["source"] == "download":
            from phrasenmt.data.datasets import check_direction

            try:
                check_direction(ds["name"], ds["src"], ds["tgt"])
            except InputError as err:
                raise InputError(f"{key}.name: {err.message}") from None
        if ds.get("bpe", {}).get("backend") == "sentencepiece":
            subwords.check_sentencepiece(config, name)  # after the files' own checks


def check_files_there(config: dict) -> None:
    """The user's files of the datasets of the run (a dataset left out of the
    run may name files still to come)."""
    for name in wf.datasets(config):
        _check_files_there(config, name)


def _check_files_there(config: dict, name: str) -> None:
    """Every file of the user's that a dataset reads: its local
    splits' sides and docs files and its contrastive sets' files. Snakemake
    would stop on the first missing one with a MissingInputException that
    names a rule's wildcards, not the key; a relative path is read from the
    folder Snakemake runs in, which the line names."""
    ds = config["datasets"][name]
    files = []
    if ds["source"] == "local":
        files += [(f"local.{split}.{side}", pair[side])
                  for split, pair in wf.local_splits(ds["local"])
                  for side in ("src", "tgt", "docs") if side in pair]
    if ds.get("contrastive") and wfd.document_models(config, name):  # their readers
        for set_name, spec in ds["contrastive"].items():
            files += [(f"contrastive.{set_name}.{k}", spec[k]) for k in spec
                      if k in wfdis.set_files(spec["format"])]
    for key, file in files:
        if not Path(file).exists():
            where = "" if Path(file).is_absolute() else f" in {Path.cwd()}"
            raise InputError(f"datasets.{name}.{key}: {file}: file not found{where}"
                             " (a relative path is read from the folder Snakemake "
                             "runs in)")


def _check_local_files(key: str, local: dict, random_control: str | None = None,
                       langs: tuple[str, str] | None = None) -> None:
    """The user's files that are there already, across files: each split's two
    sides and its docs file have equal line counts, the document ids are
    contiguous, where a random-context control trains on the dataset each
    split holds two documents or more, for it to draw other documents' lines
    from, and with `langs` the two sides are not each in the script of the
    other's language nor, unless `local.language_check` is false, each in the
    other language by their function words (source and target swapped:
    `check_scripts`, `check_languages`), as the first data or training job
    would find, hours later on a cluster."""
    from phrasenmt.data.documents import read_docs
    from phrasenmt.data.local import (
        check_languages,
        check_scripts,
        file_profile,
        first_lines,
    )
    from phrasenmt.text.function_words import known

    pairs = wf.local_splits(local)
    _check_held_out(key, pairs)
    for split, pair in pairs:
        files = [pair[k] for k in ("src", "tgt", "docs") if k in pair]
        try:
            for file in files:
                if Path(file).is_dir():
                    raise InputError("is a folder; give a file path", file)
            if Path(pair["src"]).resolve() == Path(pair["tgt"]).resolve():
                raise InputError("is both the source and the target file; give "
                                 "each language its own", pair["src"])
            if not all(Path(f).is_file() for f in files):
                continue  # a dataset outside the run, whose files may come later
            for file in files:  # before counting lines: UTF-16's are not b"\n"
                _check_first_line(file)
            lines = [count_lines(f) for f in files[:2]]
            for file, n in zip(files, lines):
                if n == 0:
                    raise InputError("the file is empty: no sentences", file)
            if lines[0] != lines[1]:
                raise InputError(f"has {lines[0]} lines but {files[1]} has "
                                 f"{lines[1]}; parallel files must match", files[0])
            if langs is not None:
                src, tgt = first_lines(pair["src"]), first_lines(pair["tgt"])
                check_scripts(pair["src"], src, tgt, "src", langs)
                if local.get("language_check", True) and all(map(known, langs)):
                    check_languages(pair["src"], file_profile(pair["src"]), pair["tgt"],
                                    file_profile(pair["tgt"]), "src", langs)
            if "docs" in pair:
                ids = read_docs(pair["docs"], lines[0], pair["src"])
                if random_control and len(set(ids)) < 2:
                    raise InputError(
                        f"holds one document, and the random-context control "
                        f"{random_control} reads other documents' sentences as "
                        "context: give this split two documents or more", pair["docs"])
        except InputError as err:
            raise InputError(f"{key}.local.{split}: {err}") from None


def _check_held_out(key: str, pairs: list[tuple[str, dict]]) -> None:
    """No text file of the train split is a dev or test file, and no dev file a
    test file: every line of that split would be a line the model was trained
    (or its checkpoints chosen) on, which the `data_stats` job reported only
    after the whole run. The same file is the same path, a link to it (hard
    or symbolic), or a copy of it (the same bytes)."""
    seen: dict[object, tuple[str, str]] = {}
    sizes: dict[int, list[tuple[str, str, str]]] = {}  # bytes -> (split, side, file)
    for split, pair in pairs:
        for side in ("src", "tgt"):
            ident = _file_identity(pair[side])
            same_size = sizes.setdefault(ident[2], []) if isinstance(ident, tuple) else []
            first = seen.get(ident)
            how = "is also"
            if first is None and same_size:
                first = _same_bytes(pair[side], same_size, split)
                how = "has the same bytes as"
            if first and _held_out_clash(first[0], split):
                use = ("the model was trained on" if first[0] == "train"
                       else "the checkpoints were chosen on")
                raise InputError(f"{key}.local.{split}.{side}: {pair[side]} {how} "
                                 f"the {first[0]} split's {first[1]} file: every line "
                                 f"of this split would be one {use}; hold out "
                                 "other lines for it")
            seen.setdefault(ident, (split, side))
            same_size.append((split, side, pair[side]))


def _held_out_clash(first: str, split: str) -> bool:
    """Whether a file of split `first` may not also serve `split` (two test
    sets may share files)."""
    return first != split and not (first.startswith("test.") and split.startswith("test."))


def _file_identity(file: str) -> object:
    """An existing file's (device, inode, size), the same for every path and
    link to it; else its resolved path."""
    try:
        st = os.stat(file)
    except OSError:
        return Path(file).resolve()
    return (st.st_dev, st.st_ino, st.st_size)


def _same_bytes(file: str, same_size: list[tuple[str, str, str]],
                split: str) -> tuple[str, str] | None:
    """The (split, side) of an earlier file of another split with `file`'s
    bytes, among those of its size: a copy of it."""
    for other_split, other_side, other in same_size:
        if _held_out_clash(other_split, split) and filecmp.cmp(file, other, shallow=False):
            return other_split, other_side
    return None


def _check_first_line(path: str | os.PathLike) -> None:
    """A file's first line decodes as UTF-8 text (`io.decode_line`,
    `io.check_text`): a file saved as UTF-16 is named so, where counting its
    lines would report a line count that differs from the other side's."""
    limit = 1 << 16
    with open(path, "rb") as fh:
        raw = fh.readline(limit)
    if len(raw) == limit and not raw.endswith(b"\n"):  # a prefix of a long line:
        while raw and raw[-1] & 0xC0 == 0x80:  # without the character cut in two
            raw = raw[:-1]
        raw = raw[:-1] if raw and raw[-1] >= 0xC0 else raw
    check_text(decode_line(raw, path, 1), path, 1)


def _check_word_segmenter(key: str, ds: dict) -> None:
    """Raw text for SentencePiece in a language written without spaces needs a
    word segmenter (`phrasenmt.text.words.SEGMENTABLE`: Chinese, Japanese, Thai,
    Lao, Khmer, Burmese) installed."""
    if not ds.get("tokenize", True) or (
            ds.get("bpe", {}).get("backend", "subword-nmt") != "sentencepiece"):
        return
    from phrasenmt.text.words import segmenter_missing

    for side in ("src", "tgt"):
        missing = segmenter_missing(ds[side])
        if missing:
            raise InputError(f"{key}.{side}: {missing}")


def _check_stopwords(key: str, lang: str) -> None:
    """The phrase filters (Park & Tsvetkov's filter 5), which the
    continuous-output models' phrase table goes through, need a stopword list."""
    import stopwordsiso

    if not stopwordsiso.has_lang(lang):
        raise InputError(f"{key}.tgt: stopwordsiso has no stopword list for {lang!r}"
                         ", which the phrase filters of the continuous-output models need")


def _check_synthetic(key: str, ds: dict) -> None:
    """The generator's direction and rate names."""
    from phrasenmt.synthetic.builder import GrammarConfig

    direction = f"{ds['src']}-{ds['tgt']}"
    if direction not in SYNTHETIC_DIRECTIONS:
        raise InputError(f"{key}.src: the synthetic generator writes "
                         f"{' or '.join(SYNTHETIC_DIRECTIONS)}, not {direction}")
    known = sorted(f.removeprefix("rate_") for f in GrammarConfig.__dataclass_fields__)
    for rate in ds["synthetic"].get("rates", {}):
        if rate not in known:
            raise InputError(f"{key}.synthetic.rates.{rate}: unknown rate (known: "
                             f"{', '.join(known)})")


def check_settings(config: dict) -> None:
    """Global settings checked against the machine: a mirror and the stanza
    models' folder are folders, the embeddings' extra text a file."""
    mirror = config.get("mirror")
    if mirror and Path(mirror).exists() and not Path(mirror).is_dir():
        raise InputError(f"mirror: {mirror} is a file; give the folder laid out "
                         "like the download URLs' paths")
    if mirror and not Path(mirror).exists():  # the download job would say so later
        raise InputError(f"mirror: {mirror}: folder not found; give the folder laid "
                         "out like the download URLs' paths")
    stanza = config.get("stanza_dir")
    what = stanza and _not_a(Path(stanza), folder=True)  # the parse jobs, hours later
    if what:
        raise InputError(f"stanza_dir: {stanza}: {what}; give the stanza_resources "
                         "folder that holds stanza's English models")
    extra = config.get("embeddings", {}).get("extra_mono")
    what = extra and _not_a(Path(extra), folder=False)  # else Snakemake's missing input
    if what:
        raise InputError(f"embeddings.extra_mono: {extra}: {what}; give a text file "
                         "of the target language, one sentence per line")


def _not_a(path: Path, folder: bool) -> str | None:
    """Why `path` is not the folder (or file) a key names, else None."""
    if folder:
        return None if path.is_dir() else (
            "is a file" if path.exists() else "folder not found")
    return None if path.is_file() else (
        "is a folder" if path.is_dir() else "file not found")


def check_models(config: dict) -> None:
    """Resolve every model entry as its train rule will; one line per problem."""
    from phrasenmt.training.spec import resolve_spec

    for name, entry in config["models"].items():
        for spec in sorted(set(rule_specs(config, name))):
            run = resolve_spec(json.loads(spec), None, f"models.{name}.")
            if run.train.freeze != "sentence" and not entry.get("init_from"):
                raise InputError(f"models.{name}.train.freeze: is "
                                 f"{run.train.freeze!r}, which only applies to a "
                                 "model with init_from")
            step = config["models"].get(entry.get("init_from") or "", {})
            if not (wfd.is_joint_step(config, name) and wfd.joint_enabled(step)):
                _check_keys_in_effect(f"models.{name}", entry, run)
            else:  # derived: it copies its step's keys; those written for it alone
                _check_keys_in_effect(f"models.{entry['init_from']}.joint_finetune", {
                    **entry, "model": {}, "train": step["joint_finetune"].get(
                        "train", {})}, run)


def _check_keys_in_effect(key: str, entry: dict, run: Any) -> None:
    """A `model:` or `train:` key the entry gives must change what it trains:
    one that builds or reads nothing for this arch and these settings is
    refused, naming why (a silently ignored key would pass for a setting that
    was tried)."""
    arch, model, train = run.arch, entry.get("model", {}), entry.get("train", {})
    m, t = run.model, run.train
    from phrasenmt.hparams.continuous import CONTINUOUS_ARCHS

    han = arch.startswith("han_")
    joint = entry.get("joint_finetune") or {}
    set_by_arch = (f"is set by the arch ({arch}: {CONTINUOUS_ARCHS.get(arch)}); the "
                   "fertility predictor trains for pconmt_fert2 and pconmt_fert4 only")
    frozen = ("matters only when the sentence model trains (train.freeze none, or "
              "joint_finetune), and it is frozen here")
    steps_only = ("is read by schedule: steps only (schedule time warms up for "
                  "warmup_fraction of max_minutes)")
    tables = ("is set by the workflow to the dataset's fastText run "
              "(results/DATASET/embeddings/), which the train rule waits for; "
              "remove it (embeddings.extra_mono adds text to that run)")
    no_cache = ("keeps the frozen context states of a HAN step 2 (han_*, with the "
                "sentence model frozen); this run has none")
    rules = [
        ("model", "src_vocab_size", True, "is set from the training data; remove it"),
        ("model", "tgt_vocab_size", True, "is set from the training data; remove it"),
        *(("model", table, arch in CONTINUOUS_ARCHS, tables) for table in continuous.TABLE_KEYS),
        ("model", "phrase_hidden", getattr(m, "attentive", True) is False,
         f"is W1's width in attentive pooling, which {arch} does not have"),
        ("model", "fertility_hidden", getattr(m, "fertility_classes", 1) == 0,
         f"is the fertility module's width, and {arch} has no fertility module"),
        ("model", "fertility_classes", arch in CONTINUOUS_ARCHS
         and model.get("fertility_classes") != CONTINUOUS_ARCHS.get(arch), set_by_arch),
        ("model", "use_reordering", arch in ("npmt", "npmt_noreorder")
         and model.get("use_reordering") != (arch == "npmt"),
         (f"is set by the arch ({arch}: {arch == 'npmt'}); the reordering layer is "
         "npmt's, and npmt_noreorder is NPMT without it (the gates figure and the "
         "segment analyses pick their model by arch): use that arch")),
        ("model", "window", getattr(m, "use_reordering", True) is False,
         f"is the reordering layer's window, and {arch} has no reordering layer"),
        ("model", "detach_context", han and t.freeze != "none"
         and not wfd.joint_enabled(entry), frozen),
        ("train", "label_smoothing", arch in CONTINUOUS_ARCHS,
         "the continuous-output models' loss (NLLvMF) has no label smoothing"),
        ("train", "vocab_min_freq", bool(entry.get("init_from")),
         "the vocabulary is the init_from model's"),
        ("train", "vocab_min_freq", arch in CONTINUOUS_ARCHS and t.vocab_min_freq > 1,
         (f"is {t.vocab_min_freq}, but {arch} predicts the embedding of each target "
         "word and has none for <unk>: keep 1")),
        ("train", "warmup_fraction", t.schedule != "time",
         "is read by schedule: time only (schedule steps warms up for warmup_steps)"),
        ("train", "warmup_steps", t.schedule == "time", steps_only),
        ("train", "min_delta", t.patience == 0,
         "is read by early stopping only, which patience 0 turns off"),
        ("train", "context_cache_mb", not (han and t.freeze != "none"), no_cache),
    ]
    for section, field, ignored, why in rules:
        given = model if section == "model" else train
        if field in given and ignored:
            raise InputError(f"{key}.{section}.{field}: {why}")
    if "freeze" in joint.get("train", {}):  # (a joint step's own keys: train is {})
        raise InputError(f"{key}.joint_finetune.train.freeze: joint fine-tuning "
                         "trains every parameter (freeze none); remove it")


def rule_specs(config: dict, model: str) -> list[str]:
    """The `--spec` strings the train rules pass for a model, one per dataset."""
    if wf.model_family(config, model) != "continuous":
        return [wf.model_spec(config, model)]
    return [continuous.continuous_spec(config, ds, model)
            for ds in wf.models_datasets(config, model)]
