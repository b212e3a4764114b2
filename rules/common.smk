# Config validation, wildcard constraints and the input/param functions the rules
# use. The logic lives in phrasenmt.workflow (unit-tested); these are thin adapters.
import os
import sys

sys.path.insert(0, str(Path(workflow.basedir) / "src"))
# Rules call `python -m phrasenmt...`: make that the interpreter running Snakemake
# (the project's .venv), also when snakemake is started without activating it.
# With --use-conda the activated environment's python comes first instead.
os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])

from phrasenmt import workflow as wf
from phrasenmt.config import validate_config
from phrasenmt.io import InputError

try:
    validate_config(config, None)
    DATASETS = wf.datasets(config)
except InputError as err:
    raise WorkflowError(f"invalid configuration: {err}") from None

RESULTS = "results"
# Multi-threaded helpers (aligner, fastText) take half the cores, so that they run
# next to single-threaded training jobs instead of waiting for every core.
HALF_CORES = max(1, int(workflow.cores or 2) // 2)


wildcard_constraints:
    dataset="|".join(config["datasets"]),
    model="|".join(config["models"]),
    split="[A-Za-z0-9_]+",
    testset="[A-Za-z0-9_]+",
    lang="[a-z]{2,3}",


def src_lang(wildcards):
    return wf.langs(config, wildcards.dataset)[0]


def tgt_lang(wildcards):
    return wf.langs(config, wildcards.dataset)[1]


def synthetic_args(wildcards):
    return wf.synthetic_args(config, wildcards.dataset)


def local_args(wildcards):
    return wf.local_args(config, wildcards.dataset)


def download_name(wildcards):
    return config["datasets"][wildcards.dataset]["name"]


def mirror_arg(wildcards):
    return f"--mirror {config['mirror']}" if config.get("mirror") else ""


def raw_split(wildcards):
    """Raw source and target files of one split."""
    src, tgt = wf.langs(config, wildcards.dataset)
    raw = f"{RESULTS}/{wildcards.dataset}/raw/{wildcards.split}"
    return {"src": f"{raw}.{src}", "tgt": f"{raw}.{tgt}"}


def raw_sidecars(wildcards):
    raw = f"{RESULTS}/{wildcards.dataset}/raw/{wildcards.split}"
    return [f"{raw}.{kind}" for kind in wf.sidecars(config, wildcards.dataset)]



def clean_args(wildcards):
    return wf.clean_args(config, wildcards.dataset, wildcards.split)


def sidecar_args(wildcards):
    ds = f"{RESULTS}/{wildcards.dataset}"
    return " ".join(
        f"--sidecar {ds}/raw/{wildcards.split}.{k} {ds}/data/{wildcards.split}.{k}"
        for k in wf.sidecars(config, wildcards.dataset)
    )


def stats_inputs(wildcards):
    """Word-level and BPE files of every split, for the data statistics table."""
    ds = f"{RESULTS}/{wildcards.dataset}"
    src, tgt = wf.langs(config, wildcards.dataset)
    files = []
    for split in ["train", "dev", *wf.testsets(config, wildcards.dataset)]:
        files += [f"{ds}/data/{split}.{src}", f"{ds}/data/{split}.{tgt}"]
        files += [f"{ds}/bpe/{split}.bpe.{src}", f"{ds}/bpe/{split}.bpe.{tgt}"]
    return files


def stats_args(wildcards):
    ds = f"{RESULTS}/{wildcards.dataset}"
    src, tgt = wf.langs(config, wildcards.dataset)
    args = []
    for split in ["train", "dev", *wf.testsets(config, wildcards.dataset)]:
        args.append(f"--split {split} {ds}/data/{split}.{src} {ds}/data/{split}.{tgt}")
        args.append(
            f"--split {split}.bpe {ds}/bpe/{split}.bpe.{src} {ds}/bpe/{split}.bpe.{tgt}"
        )
    return " ".join(args)


def model_spec(wildcards):
    return wf.model_spec(config, wildcards.model)


def model_gpus(wildcards):
    return config["models"][wildcards.model]["gpus"]


def decode_gpus(wildcards):
    """Beam search uses one GPU, however many the model trained on."""
    return min(model_gpus(wildcards), 1)


def testset_hyps(wildcards):
    """Detokenized and tokenized hypotheses of every model on one test set."""
    ds = f"{RESULTS}/{wildcards.dataset}/translations"
    return [
        f"{ds}/{m}/{wildcards.testset}.tok"
        for m in wf.models(config, wildcards.dataset)
    ]


def length_hyp_args(wildcards):
    ds = f"{RESULTS}/{wildcards.dataset}/translations"
    return " ".join(
        f"{m}={ds}/{m}/{wildcards.testset}.tok"
        for m in wf.models(config, wildcards.dataset)
    )


def baseline_hyp(wildcards):
    ds = f"{RESULTS}/{wildcards.dataset}/translations"
    return f"{ds}/{config['baseline']}/{wildcards.testset}.txt"


def eval_jsons(wildcards):
    ds = f"{RESULTS}/{wildcards.dataset}/eval"
    return [
        f"{ds}/{m}/{t}.json"
        for m in wf.models(config, wildcards.dataset)
        for t in wf.testsets(config, wildcards.dataset)
    ]


def summaries(wildcards):
    ds = f"{RESULTS}/{wildcards.dataset}/models"
    return [f"{ds}/{m}/summary.json" for m in wf.models(config, wildcards.dataset)]


def summary_args(wildcards):
    ds = f"{RESULTS}/{wildcards.dataset}/models"
    return " ".join(
        f"{m}={ds}/{m}/summary.json" for m in wf.models(config, wildcards.dataset)
    )


def model_order(wildcards):
    return ",".join(wf.models(config, wildcards.dataset))


SYNTHETIC = wf.name_regex(wf.datasets_from(config, "synthetic"))
DOWNLOADED = wf.name_regex(wf.datasets_from(config, "download"))
LOCAL = wf.name_regex(wf.datasets_from(config, "local"))


def local_file(wildcards):
    return wf.local_file(config, wildcards.dataset, wildcards.split, wildcards.lang)


def train_pair(wildcards):
    """Cleaned word-level training files of a dataset."""
    src, tgt = wf.langs(config, wildcards.dataset)
    data = f"{RESULTS}/{wildcards.dataset}/data"
    return {"src": f"{data}/train.{src}", "tgt": f"{data}/train.{tgt}"}


def bpe_merges(wildcards):
    return config["datasets"][wildcards.dataset]["bpe"]["merges"]


def bpe_threshold(wildcards):
    return config["datasets"][wildcards.dataset]["bpe"]["vocab_threshold"]


def lang_pair(wildcards):
    return "-".join(wf.langs(config, wildcards.dataset))


def expand_bpe(split, side):
    """Input function: the BPE'd file of `split` ('{testset}' allowed) on one side."""

    def inner(wildcards):
        lang = wf.langs(config, wildcards.dataset)[side == "tgt"]
        name = split.format(**wildcards)
        return f"{RESULTS}/{wildcards.dataset}/bpe/{name}.bpe.{lang}"

    return inner


def expand_data(split, side):
    """Input function: a cleaned word-level file (side src, tgt or ref)."""

    def inner(wildcards):
        src, tgt = wf.langs(config, wildcards.dataset)
        name = split.format(**wildcards)
        data = f"{RESULTS}/{wildcards.dataset}/data/{name}"
        return {"src": f"{data}.{src}", "tgt": f"{data}.{tgt}", "ref": f"{data}.ref.{tgt}"}[side]

    return inner



def extra_mono_arg(wildcards):
    extra = config["embeddings"].get("extra_mono")
    return f"--extra-mono {extra}" if extra else ""


def output_dir(wildcards, output):
    """The folder of a rule's first output (for CLIs that take an --out-dir)."""
    return str(Path(output[0]).parent)
