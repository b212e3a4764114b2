"""The base of the workflow helpers: datasets, models, families, the external LM.

Every family module of `phrasenmt.workflow` imports this one (and `runs`, the
paths of one training run); this one imports no family module.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
import shutil
import sys
from pathlib import Path

from phrasenmt.io import InputError
from phrasenmt.sweeps import derive_sweeps, derived_models, sweep_points, sweeps
from phrasenmt.workflow import runs

__all__ = ["derive_sweeps", "derived_models", "sweep_points", "sweeps"]  # re-exported

SYNTHETIC_SPLITS = ("train", "dev", "test")
SIDECARS = ("docs", "trees", "align")


def put_interpreter_on_path() -> None:
    """Make `python` in rules the interpreter running Snakemake (the .venv).

    Rules call `python -m phrasenmt...`; this holds also when snakemake is started
    as .venv/bin/snakemake without activating the environment. With --use-conda
    the activated environment's python comes first instead.
    """
    here = str(Path(sys.executable).parent)
    path = os.environ.get("PATH", "")
    if path.split(os.pathsep)[0] != here:
        os.environ["PATH"] = os.pathsep.join([here, path])


# The command a cluster executor cannot submit a job without.
EXECUTOR_COMMANDS = {"slurm": "sbatch"}


def executor_unavailable(executor: str | None) -> str | None:
    """Why a cluster executor cannot run here (its submit command is not on
    PATH: a laptop given `--profile profiles/slurm`), else None. Without this,
    every job fails its submission in turn, with the plugin's FileNotFoundError
    of one of SLURM's commands, and the run ends after the retries."""
    command = EXECUTOR_COMMANDS.get(executor or "")
    if command is None or shutil.which(command) is not None:
        return None
    return (f"the {executor} executor (--executor {executor}, or a profile's "
            f"`executor: {executor}`) submits jobs with `{command}`, which is not on "
            f"PATH here: run it on the cluster's login node, or leave the profile out "
            f"to run on this machine")


def local_splits(local: dict) -> list[tuple[str, dict]]:
    """A local dataset's splits as (key under `local`, its pair of files):
    train, dev, then each test set as `test.NAME`."""
    return [("train", local["train"]), ("dev", local["dev"]),
            *((f"test.{name}", pair) for name, pair in local["test"].items())]


def datasets(config: dict) -> list[str]:
    """Datasets `rule all` builds: `run_datasets` if given, else every entry."""
    names = config.get("run_datasets") or list(config["datasets"])
    for name in names:
        if name not in config["datasets"]:
            raise InputError(f"run_datasets: unknown dataset {name!r}", "config")
    return names


def unsegmented_language_warnings(config: dict) -> list[str]:
    """One warning per built dataset side whose language puts no space between
    words (zh, ja, th, ...) and that the Moses tokenizer is to split."""
    from phrasenmt.text.scripts import language_warning

    lines = []
    for name in datasets(config):
        ds = config["datasets"][name]
        backend = ds.get("bpe", {}).get("backend")
        if ds.get("tokenize", True) and backend == "sentencepiece":
            continue  # raw text cut into words by a segmenter (others refused at start-up)
        for side in ("src", "tgt"):
            where = f"config datasets.{name}.{side}"
            line = (language_warning(ds[side], where) if ds.get("tokenize", True)
                    else None) or _unsegmented_file(ds, side, where)
            if line:
                lines.append(line)
    return lines


def local_language_warnings(config: dict) -> list[str]:
    """One warning per file of a built local dataset whose function words say
    it is in another language than its side's (`local.language_check`)."""
    from phrasenmt.data.local import file_profile, language_warning
    from phrasenmt.text.function_words import known

    lines = []
    for name in datasets(config):
        ds = config["datasets"][name]
        if ds["source"] != "local" or not ds["local"].get("language_check", True):
            continue
        for split, pair in local_splits(ds["local"]):
            for side in ("src", "tgt"):
                path = Path(pair[side])
                if known(ds[side]) is None or not path.is_file():
                    continue  # no list; or the data job names what is missing
                line = language_warning(f"config datasets.{name}.local.{split} ({path})",
                                        file_profile(path), side, ds[side])
                if line:
                    lines.append(line)
    return lines


def has_stopword_list(config: dict, dataset: str) -> bool:
    """Whether stopwordsiso has a list of the dataset's target language, which
    Park & Tsvetkov's phrase filters (and so the phrase table and its fastText
    embeddings) and the lexical-cohesion score need; Lao, Khmer, Burmese and
    others have none."""
    import stopwordsiso

    return stopwordsiso.has_lang(langs(config, dataset)[1])


def phrase_table_warnings(config: dict) -> list[str]:
    """One start-up line per built dataset whose target has no stopword list:
    what is left out (a model that needs the phrase table is refused)."""
    return [f"warning: config datasets.{name}.tgt: stopwordsiso has no stopword list "
            f"for {langs(config, name)[1]!r}, so neither the phrase table with its "
            "fastText embeddings (which only the continuous-output models read) nor "
            "the lexical-cohesion table is built"
            for name in datasets(config) if not has_stopword_list(config, name)]


def log_warnings(root: str | Path, since: float) -> list[str]:
    """The `warning:` lines of the stage logs under `root` written since `since`
    (a time.time()), each with its log: a stage's stderr goes to its log, so
    that a warning (a cleaning rule that dropped over 5 % of the pairs, a time
    budget that ends inside warm-up) would otherwise reach no console."""
    lines = []
    for path in sorted(Path(root).rglob("*.log")):
        try:
            if path.stat().st_mtime < since:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:  # a log removed or unreadable meanwhile: nothing to repeat
            continue
        lines += [f"{line.rstrip()} ({path})" for line in text.splitlines()
                  if line.startswith("warning:")]
    return lines


def _unsegmented_file(ds: dict, side: str, where: str) -> str | None:
    """A warning for a local training file whose first lines look unsegmented
    (given as pre-tokenized, or in a language code not known to lack spaces)."""
    from itertools import islice

    from phrasenmt.text.scripts import unsegmented_warning

    path = Path(ds["local"]["train"][side]) if ds.get("local") else None
    if path is None or not path.is_file():
        return None
    with open(path, encoding="utf-8", errors="replace") as fh:
        sample = list(islice(fh, 2000))
    return unsegmented_warning(f"{where} ({path})", sample, "BPE and word alignment",
                               moses=ds.get("tokenize", True))


def source(config: dict, dataset: str) -> str:
    """How a dataset is obtained: synthetic, download or local."""
    return config["datasets"][dataset]["source"]


def langs(config: dict, dataset: str) -> tuple[str, str]:
    """(source language, target language) of a dataset."""
    ds = config["datasets"][dataset]
    return ds["src"], ds["tgt"]


def all_splits(config: dict, dataset: str) -> list[str]:
    """Every split of a dataset: train, dev and the test sets."""
    return ["train", "dev", *all_testsets(config, dataset)]


def all_testsets(config: dict, dataset: str) -> list[str]:
    """Every evaluation split the dataset provides (besides dev)."""
    ds = config["datasets"][dataset]
    if ds["source"] == "synthetic":
        return ["test"]
    if ds["source"] == "local":
        return list(ds["local"]["test"])
    from phrasenmt.data.datasets import eval_splits

    return [s for s in eval_splits(ds["name"]) if s not in ("train", "dev")]


def testsets(config: dict, dataset: str) -> list[str]:
    """Test sets to translate and score: the configured subset or all."""
    available = all_testsets(config, dataset)
    chosen = config["datasets"][dataset].get("testsets") or available
    for name in chosen:
        if name not in available:
            raise InputError(f"datasets.{dataset}.testsets: unknown test set {name!r} "
                             f"(available: {', '.join(available)})", "config")
    return chosen


def models(config: dict, dataset: str) -> list[str]:
    """Models trained on `dataset`, in config order (the fixed order of every table).

    Models that decode with the external LM are left out when `lmplz` is missing
    (`apply_lm_availability`); their files can still be asked for explicitly.
    """
    return [name for name, m in config["models"].items()
            if dataset in m.get("datasets", config["datasets"])
            and not (config.get(LM_MISSING) and uses_lm(config, name))]


def model_spec(config: dict, model: str) -> str:
    """The JSON spec `phrasenmt.train --spec` reads for a model."""
    m = config["models"][model]
    spec = {"arch": m["arch"], "preset": m["preset"],
            "model": m.get("model", {}), "train": m.get("train", {})}
    if m.get("context", "real") != "real":  # a context control: the run's seed draws it
        spec["model"] = {**spec["model"], "context": m["context"],
                         "context_seed": config["seed"]}
    return json.dumps(spec, sort_keys=True)


# The keys of models.<m>.decode each search reads; a key a model's search does
# not read is refused (`check_decode_keys`), never silently ignored.
BEAM_KEYS = ("beam", "lenpen")  # beam search of the attention models
SWAN_KEYS = ("beam", "lambda1", "lambda2", "lm")  # Eq. 3 segment search


def decode_keys(config: dict, model: str) -> tuple[str, ...]:
    """The models.<m>.decode keys the model's decoding reads."""
    arch = config["models"][model]["arch"]
    if arch in SWAN_ARCHS:
        return SWAN_KEYS
    if model_family(config, model) == "continuous" and arch != "attn_rnn":
        return ()  # nearest neighbour in the output table: no beam
    return BEAM_KEYS


def beam_settings(config: dict, model: str) -> dict:
    """beam and lenpen of a model's main decoding: its own decode > global
    decode; greedy for the continuous family (Kumar & Tsvetkov's attention
    baseline decodes greedily; its own decode keys set the NPMT table's beam
    row, `phrasenmt.workflow.npmt.decode_settings`)."""
    settings = {k: config["decode"][k] for k in BEAM_KEYS}
    if model_family(config, model) == "continuous":
        return {**settings, "beam": 1}
    settings.update({k: v for k, v in config["models"][model].get("decode", {}).items()
                     if k in BEAM_KEYS})
    return settings


def check_decode_keys(config: dict) -> None:
    """Every models.<m>.decode key takes effect for its model, or is refused."""
    for name, entry in config["models"].items():
        known, own = decode_keys(config, name), entry.get("decode", {})
        for key in own:
            if key not in known:
                reads = (f"reads only {', '.join(known)}" if known else
                         "decodes greedily (nearest neighbour in the output table)")
                raise InputError(f"models.{name}.decode.{key}: not used by arch "
                                 f"{entry['arch']!r}, whose search {reads}")
        if (model_family(config, name) != "continuous"  # npmt.check_npmt_models
                and "lenpen" in own and beam_settings(config, name)["beam"] == 1):
            raise InputError(f"models.{name}.decode.lenpen: has no effect with beam "
                             "1 (greedy search); set decode.beam above 1 too")


def search_args(config: dict, model: str) -> str:
    """--beam (and --lenpen) of a model's search (the translate rules); greedy
    search (beam 1) has no length penalty, and translate refuses one."""
    if not decode_keys(config, model):
        return "--beam 1"
    settings = beam_settings(config, model)
    if settings["beam"] == 1:
        return "--beam 1"
    return f"--beam {settings['beam']} --lenpen {settings['lenpen']}"


def antecedent_distances(synthetic: dict) -> dict[int, float]:
    """A synthetic dataset's mix of antecedent distances, {sentences back: share}
    (YAML and the schema's default may key it by strings)."""
    mix = synthetic.get("antecedent_distance") or {1: 1.0}
    return {int(d): float(p) for d, p in sorted(mix.items(), key=lambda x: int(x[0]))}


def distance_mix_arg(synthetic: dict) -> str:
    """`--antecedent-distance` of the generator: D=P,..."""
    return ",".join(f"{d}={p:g}" for d, p in antecedent_distances(synthetic).items())


def synthetic_args(config: dict, dataset: str) -> str:
    """Command-line options of `phrasenmt.synthetic` for a dataset."""
    ds = config["datasets"][dataset]
    syn = ds["synthetic"]
    args = ["--seed", config["seed"], "--direction", f"{ds['src']}-{ds['tgt']}",
            "--train-size", syn["train_size"], "--dev-size", syn["dev_size"],
            "--test-size", syn["test_size"],
            "--min-doc-sentences", syn["min_doc_sentences"],
            "--max-doc-sentences", syn["max_doc_sentences"],
            "--max-sentence-tokens", syn["max_sentence_tokens"],
            "--max-distance-words", syn["max_distance_words"],
            "--antecedent-distance", distance_mix_arg(syn)]
    # the generator's default is "other"; a corpus of antecedents 1 back has no
    # sentences between, and keeps its command
    if max(antecedent_distances(syn)) > 1 and syn["distractor_gender"] != "other":
        args += ["--distractor-gender", syn["distractor_gender"]]
    for name, rate in sorted(syn.get("rates", {}).items()):
        args += [f"--rate-{name.replace('_', '-')}", rate]
    return shlex.join(map(str, args))


def local_args(config: dict, dataset: str) -> str:
    """Command-line options of `phrasenmt.data.prepare` for a local dataset."""
    loc = config["datasets"][dataset]["local"]
    args = ["--train-src", loc["train"]["src"], "--train-tgt", loc["train"]["tgt"],
            "--dev-src", loc["dev"]["src"], "--dev-tgt", loc["dev"]["tgt"]]
    for name, pair in loc["test"].items():
        args += ["--test", f"{name}={pair['src']},{pair['tgt']}"]
    return shlex.join(args)


def aligner_args(config: dict) -> str:
    """`--backend` of `phrasenmt.align run` and `pronouns align`, and eflomal's
    samplers and relative iterations (the latter only when not eflomal's own)."""
    align = config["align"]
    args = ["--backend", align["backend"]]
    if align["backend"] == "eflomal":
        args += ["--samplers", str(align["eflomal_samplers"])]
        if align["eflomal_rel_iterations"] != 1.0:
            args += ["--rel-iterations", f"{align['eflomal_rel_iterations']:g}"]
    return shlex.join(args)


def clean_args(config: dict, dataset: str, split: str) -> str:
    """Options of `phrasenmt.data.clean`: tokenization, and filtering on train only."""
    ds = config["datasets"][dataset]
    args = ["--tokenize" if ds["tokenize"] else "--pretokenized"]
    if ds["tokenize"] and ds["bpe"].get("backend") == "sentencepiece":
        args = ["--raw"]  # SentencePiece reads raw text (jieba's words for zh)
    if ds["lowercase"]:
        args.append("--lowercase")
    if split == "train":
        args += ["--filter", "--max-len", str(ds["clean"]["max_len"]),
                 "--max-ratio", str(ds["clean"]["max_ratio"])]
    return shlex.join(args)


def sidecars(config: dict, dataset: str) -> list[str]:
    """Per-line files that travel with the text through cleaning: the document ids
    of every dataset, plus the gold trees and alignments of a synthetic one."""
    return list(SIDECARS) if source(config, dataset) == "synthetic" else ["docs"]


def baseline(config: dict, dataset: str) -> str:
    """The model others are compared against on `dataset` (config `baseline`)."""
    base = config["baseline"]
    return base if isinstance(base, str) else base[dataset]


def name_regex(names: list[str]) -> str:
    """A wildcard constraint matching exactly `names` (or nothing when empty)."""
    return "|".join(names) if names else "(?!x)x"


def datasets_from(config: dict, kind: str) -> list[str]:
    """Configured datasets obtained in one way (synthetic, download or local)."""
    return [name for name in config["datasets"] if source(config, name) == kind]


def local_file(config: dict, dataset: str, split: str, lang: str) -> str:
    """The user's file of one split and language of a local dataset."""
    ds = config["datasets"][dataset]
    loc = ds["local"]
    side = "src" if lang == ds["src"] else "tgt"
    pair = loc[split] if split in ("train", "dev") else loc["test"][split]
    return pair[side]


# -- model families: which rules train and decode a model ----------------------

# Continuous-output family (Park & Tsvetkov 2019): word-level data, its own
# train/fertility/translate rules (rules/continuous.smk, helpers in
# phrasenmt.workflow.continuous).
CONTINUOUS_ARCHS = ("attn_rnn", "conmt", "pconmt_nofert", "pconmt_fert2",
                    "pconmt_fert4")
PHRASE_OUTPUT_ARCHS = ("pconmt_nofert", "pconmt_fert2", "pconmt_fert4")
FERTILITY_CLASSES = {"pconmt_fert2": 2, "pconmt_fert4": 4}
# NPMT family (Huang et al. 2018): word-level data like the continuous family,
# its own rules (rules/npmt.smk, helpers in phrasenmt.workflow.npmt).
SWAN_ARCHS = ("npmt", "npmt_noreorder")  # sleep-wake segment output, Eq. 3 search
NPMT_ARCHS = (*SWAN_ARCHS, "attn_rnn_reorder")
# Document-level family (Zhang et al. 2018; Miculicich et al. 2018): BPE'd data
# with document ids, trained from a step-1 model (rules/documents.smk, helpers in
# phrasenmt.workflow.documents).
CTX_ARCHS = ("ctx_transformer", "ctx_transformer_enc", "ctx_transformer_dec")
HAN_ARCHS = ("han_enc", "han_dec", "han_enc_dec")
DOCUMENT_ARCHS = (*CTX_ARCHS, *HAN_ARCHS)
FAMILIES = {"continuous": CONTINUOUS_ARCHS,  # family -> archs; others: "default"
            "npmt": NPMT_ARCHS, "documents": DOCUMENT_ARCHS}


def model_family(config: dict, model: str) -> str:
    """The family whose rules build `model` ("default": rules/train.smk)."""
    arch = config["models"][model]["arch"]
    return next((name for name, archs in FAMILIES.items() if arch in archs),
                "default")


def family_models(config: dict, family: str, dataset: str | None = None) -> list[str]:
    """Models of one family (trained on `dataset` when given), in config order."""
    names = models(config, dataset) if dataset else list(config["models"])
    return [m for m in names if model_family(config, m) == family]


def model_regex(config: dict, family: str) -> str:
    """Wildcard constraint matching exactly the models of one family."""
    return name_regex(family_models(config, family))


def arch_models(config: dict, archs: tuple[str, ...] | dict) -> list[str]:
    """Models whose arch is one of `archs`."""
    return [m for m, spec in config["models"].items() if spec["arch"] in archs]


def models_datasets(config: dict, model: str) -> list[str]:
    """Datasets a model trains on."""
    return list(config["models"][model].get("datasets", config["datasets"]))



# --- models that decode another model's checkpoint; the external LM -----------
LM_MISSING = "_lm_missing"  # config key set at start-up when lmplz is not usable


def checkpoint_owner(config: dict, model: str) -> str:
    """The model whose trained checkpoint `model` decodes (config `checkpoint_of`)."""
    return config["models"][model].get("checkpoint_of") or model


def summary_path(config: dict, dataset: str, model: str, seed: int) -> str:
    """The training summary.json of the checkpoint `model` decodes for `seed`."""
    return runs.run_file(dataset, checkpoint_owner(config, model), seed, "summary.json")


def uses_lm(config: dict, model: str) -> bool:
    """Whether `model` decodes with the dataset's n-gram LM (`decode.lm`)."""
    return bool(config["models"][model].get("decode", {}).get("lm", False))


def lm_unavailable_reason() -> str | None:
    """None if the LM row can run (lmplz and the kenlm module), else how to get it."""
    from phrasenmt import lm  # here: only the Snakefile needs it

    if lm.lmplz_path() is None:
        return lm.HOWTO
    if importlib.util.find_spec("kenlm") is None:
        return "the kenlm Python module is missing: run 'make install'"
    return None


def apply_lm_availability(config: dict, reason: str | None) -> None:
    """Record that LM rows cannot be built (reason) so model lists leave them out."""
    if reason and any(uses_lm(config, m) for m in config["models"]):
        config[LM_MISSING] = reason
    else:
        config.pop(LM_MISSING, None)


def skipped_lm_models(config: dict, dataset: str) -> list[str]:
    """LM rows of `dataset` that are not built because lmplz is missing."""
    if not config.get(LM_MISSING):
        return []
    return [m for m, spec in config["models"].items() if uses_lm(config, m)
            and dataset in spec.get("datasets", config["datasets"])]

