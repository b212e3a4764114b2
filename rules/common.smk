# What all the rules files share: the config's start-up checks, wildcard constraints,
# and the input and params functions that rules of several stages use. Those of
# one stage or family are in rules/<name>_functions.smk, included at the top of
# rules/<name>.smk. The logic lives in phrasenmt.workflow (unit-tested); these
# are thin adapters. Included first (Snakefile).
import gc
import sys

sys.path.insert(0, str(Path(workflow.basedir) / "src"))

from phrasenmt import experiment
from phrasenmt.io import InputError
from phrasenmt.workflow import base as wf
from phrasenmt.workflow import runs

wf.put_interpreter_on_path()

try:
    # schema, the families' checks, derived models, then every model entry
    # resolved as its train rule will and every dataset's settings
    experiment.start(config, workflow.configfiles, workflow.config_settings.config)
    wf.apply_lm_availability(config, wf.lm_unavailable_reason())
    DATASETS = wf.datasets(config)
except InputError as err:
    raise WorkflowError(f"invalid configuration: {err}") from None
# experiment.start imported torch: its objects need no garbage collection, and
# leaving them out of it makes building a large DAG ~1.5 s faster.
gc.freeze()
for line in wf.unsegmented_language_warnings(config):  # valid, but worth a word
    print(line, file=sys.stderr)
if config.get(wf.LM_MISSING):  # the NPMT table says so too
    print(f"NPMT+LM rows left out: {config[wf.LM_MISSING]}", file=sys.stderr)

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
    seed=runs.SEED_REGEX,


def tgt_lang(wildcards):
    return wf.langs(config, wildcards.dataset)[1]


def mirror_arg(wildcards):
    return f"--mirror {config['mirror']}" if config.get("mirror") else ""


def model_spec(wildcards):
    return wf.model_spec(config, wildcards.model)


def model_precision(wildcards):
    """--precision of the model's training, scoring and decoding jobs."""
    return runs.precision(config, wildcards.model)


def model_gpus(wildcards):
    return config["models"][wildcards.model]["gpus"]


def decode_search(wildcards):
    """--beam/--lenpen of a model: its own decode over its family's and the global."""
    return wf.search_args(config, wildcards.model)


def decode_gpus(wildcards):
    """Beam search uses one GPU, however many the model trained on."""
    return min(model_gpus(wildcards), 1)


def train_launcher(wildcards):
    """`python`, or torchrun with one process per GPU (DDP) for gpus > 1."""
    gpus = model_gpus(wildcards)
    return f"torchrun --standalone --nproc-per-node {gpus}" if gpus > 1 else "python"


def baseline_name(wildcards):
    return wf.baseline(config, wildcards.dataset)


def model_seeds(wildcards):
    return " ".join(map(str, runs.seeds(config, wildcards.model)))


def summary_paths(wildcards):
    """(model, summary.json) of every seed (a checkpoint_of model's: its model's)."""
    ds = wildcards.dataset
    return [(m, wf.summary_path(config, ds, m, s)) for m in wf.models(config, ds)
            for s in runs.seeds(config, m)]


def summaries(wildcards):
    return [path for _, path in summary_paths(wildcards)]


def model_order(wildcards):
    return ",".join(wf.models(config, wildcards.dataset))


SYNTHETIC = wf.name_regex(wf.datasets_from(config, "synthetic"))


# dev and test splits: every split but train (aligned after the training text)
HELDOUT_SPLIT = r"(?!train\b)[A-Za-z0-9_]+"


# Models built by rules/train.smk + translate.smk; families with their own rules
# (rules/continuous.smk) are kept out of those rules by this constraint.
DEFAULT_MODELS = wf.model_regex(config, "default")


def train_pair(wildcards):
    """Cleaned word-level training files of a dataset."""
    src, tgt = wf.langs(config, wildcards.dataset)
    data = f"{RESULTS}/{wildcards.dataset}/data"
    return {"src": f"{data}/train.{src}", "tgt": f"{data}/train.{tgt}"}


def bpe_threshold(wildcards):
    return config["datasets"][wildcards.dataset]["bpe"]["vocab_threshold"]


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


def first_testset(wildcards):
    return wf.testsets(config, wildcards.dataset)[0]
