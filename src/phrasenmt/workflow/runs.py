"""Training seeds and precision, and the paths of every output of one training run.

Every model trains once per seed (config `seeds`; a model's own `seeds`
overrides it, a `checkpoint_of` entry takes its model's); the run with seed N
passes ``--seed N`` to training. Data, BPE, alignments, phrases, embeddings
and parses are shared by all seeds (they use the global `seed`). Everything
downstream of training is per seed:

    results/{dataset}/models/{model}/seed{seed}/     summary.json, averaged.pt, ...
    results/{dataset}/translations/{model}/seed{seed}/{testset}.tok | .txt
    results/{dataset}/eval/{model}/seed{seed}/{testset}.json   one seed's BLEU
    results/{dataset}/eval/{model}/{testset}.json              all seeds against
        the baseline's seeds (phrasenmt.evaluate.multiseed): what tables read

A run that loads another model's run (a document-level model's `init_from`, an
NPMT+LM row's `checkpoint_of`) loads that model's run of the same seed.
A model's `precision` (training, scoring, decoding: `--precision`) is its own,
else its checkpoint_of model's, else the global one.
Analyses that read one output per model (the length and agreement figures, the
segment, gate and discourse analyses) read the model's first seed.
This module is the one place that knows these paths.
"""

from __future__ import annotations

from collections.abc import Callable

from phrasenmt.io import InputError

SEED_REGEX = r"\d+"  # the {seed} wildcard's constraint


def seeds(config: dict, model: str) -> list[int]:
    """Training seeds of `model`: its own, its checkpoint_of model's, or global."""
    entry = config["models"][model]
    if entry.get("seeds"):
        return list(entry["seeds"])
    owner = entry.get("checkpoint_of")
    return seeds(config, owner) if owner else list(config["seeds"])


def precision(config: dict, model: str) -> str:
    """--precision of `model`'s jobs: its own, its checkpoint_of model's, or global."""
    entry = config["models"][model]
    if entry.get("precision"):
        return entry["precision"]
    owner = entry.get("checkpoint_of")
    return precision(config, owner) if owner else config.get("precision", "auto")


def first_seed(config: dict, model: str) -> int:
    """The seed whose outputs single-run analyses and figures read."""
    return seeds(config, model)[0]


def run_dir(dataset: str, model: str, seed: int | str) -> str:
    """The folder of one training run (summary.json, checkpoints/, averaged.pt)."""
    return f"results/{dataset}/models/{model}/seed{seed}"


def run_file(dataset: str, model: str, seed: int | str, name: str) -> str:
    """A file of one training run: summary.json, averaged.pt, fertility.pt, ..."""
    return f"{run_dir(dataset, model, seed)}/{name}"


def hyp_file(dataset: str, model: str, seed: int | str, testset: str,
             ext: str = "tok") -> str:
    """One run's hypotheses (ext: tok, txt, greedy.tok, beam.txt, ...)."""
    return f"results/{dataset}/translations/{model}/seed{seed}/{testset}.{ext}"


def seed_eval(dataset: str, model: str, seed: int | str, testset: str,
              ext: str = "json") -> str:
    """BLEU JSON of one run (phrasenmt.evaluate.bleu; ext e.g. beam.json)."""
    return f"results/{dataset}/eval/{model}/seed{seed}/{testset}.{ext}"


def aggregate_eval(dataset: str, model: str, testset: str, ext: str = "json") -> str:
    """All seeds of a model against its baseline (phrasenmt.evaluate.multiseed)."""
    return f"results/{dataset}/eval/{model}/{testset}.{ext}"


def log_name(dataset: str, model: str, seed: int | str) -> str:
    """The stem of one run's log and benchmark files."""
    return f"{dataset}.{model}.seed{seed}"


def benchmark(rule: str, dataset: str, model: str, seed: int | str,
              testset: str) -> str:
    """The Snakemake benchmark file of one run's job of `rule` on a test set."""
    return f"results/benchmarks/{rule}/{log_name(dataset, model, seed)}.{testset}.tsv"


def per_seed(config: dict, model: str, path: Callable[[int], str]) -> list[str]:
    """`path(seed)` for every seed of `model`, in seed order."""
    return [path(seed) for seed in seeds(config, model)]


def check_seeds(config: dict) -> None:
    """A run that loads another model's run of the same seed finds it configured."""
    for name, entry in config["models"].items():
        for key in ("checkpoint_of", "init_from"):
            other = entry.get(key)
            if other is None or other not in config["models"]:
                continue
            theirs = seeds(config, other)
            missing = [s for s in seeds(config, name) if s not in theirs]
            if missing:
                where = "seeds" if entry.get("seeds") else key
                raise InputError(f"models.{name}.{where}: seed {missing[0]} is not "
                                 f"one of the seeds {theirs} of {other!r} (the run "
                                 f"of seed N loads the run of seed N of {other!r})",
                                 "config")


def seed_args(config: dict, model: str) -> str:
    """`--seeds` of a model's all-seed evaluation: its seeds, space-separated."""
    return " ".join(map(str, seeds(config, model)))


def gpus(config: dict, model: str) -> int:
    """GPUs of a model's training job (its `gpus`)."""
    return config["models"][model]["gpus"]


def decode_gpus(config: dict, model: str) -> int:
    """Beam search and scoring use one GPU, however many the model trained on."""
    return min(gpus(config, model), 1)


def device(config: dict, model: str) -> str:
    """--device of a model's training, decoding and scoring jobs: cpu for a
    model with `gpus: 0`, which asks for no GPU (SLURM gives its job none, and
    on a machine with a GPU it would otherwise use one outside the `gpu`
    resource); else auto (CUDA when PyTorch sees a GPU)."""
    return "cpu" if gpus(config, model) == 0 else "auto"


def launcher(config: dict, model: str) -> str:
    """`python`, or torchrun with one process per GPU (DDP) for gpus > 1."""
    n = gpus(config, model)
    return f"torchrun --standalone --nproc-per-node {n}" if n > 1 else "python"
