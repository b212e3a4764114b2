"""The experiment configuration as one typed model: every key, type, bound,
default and description, and the rules that tie keys together.

`schemas/config.schema.yaml` is generated from it (`phrasenmt.config_schema`),
start-up validation (`phrasenmt.config.validate_config`) checks a config
against that schema and then against the model's cross-key rules
(`rule_error`), and the configuration reference page
(`phrasenmt.docs_reference`) lists its keys.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, ValidationError, model_validator

from phrasenmt.config_entries import (
    MAX_BEAM,
    MAX_LENPEN,
    Dataset,
    Model,
    Name,
    PathText,
    Precision,
    RuleError,
    Seeds,
    Strict,
    Sweep,
    mapping,
    optional,
    section,
    unique_list,
)


class Decode(Strict):
    beam: int = Field(4, ge=1, le=MAX_BEAM, description=(
        "beam size (1 = greedy) of the Transformer family, the document-level models "
        "and the beam decodings of the attention RNNs; NPMT's segment search takes "
        "its preset's beam (models.NAME.decode.beam sets it), the continuous-output "
        "models decode by nearest neighbour, and the attention RNN's main decoding is "
        "greedy, as the papers decode"))
    lenpen: float = Field(0.6, ge=0, le=MAX_LENPEN, description=(
        "length penalty alpha of the same beam searches (not NPMT's, whose Eq. 3 "
        "weighs length with models.NAME.decode.lambda1)"))
    max_len_a: float = Field(1.5, ge=0, description="max length = a * source length + b")
    max_len_b: int = Field(10, ge=0, description="max length = a * source length + b")
    batch_size: int = Field(64, ge=1, description="sentences per decoding batch")

    @model_validator(mode="after")
    def _room_for_a_word(self) -> Decode:
        cap = int(self.max_len_a + self.max_len_b)  # a one-token source, </s> included
        if cap < 2:
            raise RuleError("max_len_b", f"with max_len_a {self.max_len_a:g} the "
                            "output cap a * source length + b (</s> included) is "
                            f"{cap} for a one-token sentence: no room for a word")
        return self


class Align(Strict):
    backend: Literal["eflomal", "fast_align", "fast_align-bin"] = Field(
        "eflomal", description="word aligner, seeded by `seed`: eflomal through a small "
        "seed library built with the C compiler on first use, fast_align deterministic "
        "by itself (fast_align-bin needs a fast_align binary on PATH; "
        "docs/reproducibility.md)")
    symmetrize: Literal["grow-diag-final-and", "grow-diag-final", "grow-diag",
                        "intersection", "union"] = Field(
        "grow-diag-final-and", description="symmetrization heuristic, for the "
        "training alignment and pronoun accuracy")
    eflomal_samplers: int = Field(
        3, ge=1, description="eflomal's independent Gibbs samplers, for the training "
        "alignment and pronoun accuracy (eflomal's default 3; unused by the other "
        "backends)")
    eflomal_rel_iterations: float = Field(
        1.0, gt=0, description="eflomal's Gibbs iterations relative to its default, "
        "which falls with corpus size (about 5000 / sqrt(sentence pairs) per model, "
        "at least 2): 0.5 samples half as long; for the training alignment and "
        "pronoun accuracy (unused by the other backends)")


class Phrases(Strict):
    min_count: int = Field(
        2, ge=1, description="filter 1: a phrase must occur at least this often in the "
        "target side of the training corpus (occurrences, not extractions)")
    max_length: int = Field(6, ge=2, description="longest target phrase kept (words)")


class Embeddings(Strict):
    dim: int | None = Field(
        None, ge=1, description="fastText vector dimension = the output table size of "
        "the continuous models of a dataset; null: their model.embed_dim or preset's "
        "size (base: 300), else 100. A value that disagrees with a model's size fails "
        "at start-up")
    epoch: int = Field(5, ge=1, description="fastText epochs")
    min_count: int = Field(1, ge=1, description="fastText minimum word count")
    minn: int = Field(3, ge=0, description="shortest character n-gram")
    maxn: int = Field(6, ge=0, description="longest character n-gram")
    extra_mono: PathText | None = Field(
        None, description="a file of extra target-language text, one sentence per "
        "line, appended to the embeddings' training text (an input of their jobs: a "
        "new file makes the tables again)")

    @model_validator(mode="after")
    def _ngrams(self) -> Embeddings:
        if self.maxn and self.minn > self.maxn:
            raise RuleError("minn", f"{self.minn} is more than maxn {self.maxn} "
                            "(maxn 0 turns subword n-grams off)")
        return self


class BaselineGuard(Strict):
    min_bleu_gain: float = Field(
        5.0, ge=0, description="a model learned only if its test BLEU beats its own "
        "outputs paired with random other test sentences by at least this many points "
        "(0: no floor)")
    max_output_share: float = Field(
        0.2, ge=0, le=1, description="a model did not learn if its most frequent "
        "output line covers more of the test set than the reference's most frequent "
        "line by more than this share (1: never)")


def _increasing(values: list[int]) -> list[int]:
    for a, b in pairwise(values):
        if a >= b:
            raise ValueError(f"must increase strictly, but {b} follows {a}")
    return values


def bins(minimum: int) -> Any:
    """Upper bounds of groups: at least one, each >= minimum, increasing."""
    return Annotated[list[Annotated[int, Field(ge=minimum)]], Field(min_length=1),
                     AfterValidator(_increasing)]


class Evaluate(Strict):
    significance_trials: int = Field(
        1000, ge=1, description="bootstrap samples over test items of the all-seed "
        "comparison of every model with its baseline (training seeds and test items "
        "both enter its p-value and interval; docs/evaluation.md#significance); "
        "renamed from evaluate.bootstrap")
    alpha: float = Field(0.01, gt=0, le=1,
                         description="significance level of the daggers and the claims "
                         "table's verdicts; every interval is at 1 - alpha")
    length_bins: bins(1) = Field(
        [15, 25, 35, 45], description="upper bounds of the source-length groups; the "
        "last group is above the last bound")
    reordering_bins: bins(0) = Field(
        [0, 3, 7], description="NPMT: upper bounds of the reordering-distance groups of "
        "the BLEU-by-reordering table (synthetic data, gold alignments); the last "
        "group is above the last bound")
    segment_examples: int = Field(
        3, ge=1, description="NPMT: test sentences shown with their greedy "
        "segmentations (Huang et al. 2018, Table 2), a seeded sample")
    example_max_words: int = Field(
        25, ge=1, description="NPMT: the examples are drawn from test sentences of at "
        "most this many source words")
    phrase_mappings: int = Field(
        10, ge=1, description="NPMT: most frequent phrase mappings shown per category "
        "(Appendix C)")
    gates_line: int = Field(
        1, ge=1, description="NPMT: 1-based test-set line whose reordering gates are "
        "drawn (Appendix A, Figure 5)")
    baseline_guard: BaselineGuard = section(
        BaselineGuard, "claims table: a quality claim gets no verdict ('not tested: "
        "the baseline did not learn') when a seed of its baseline or system did not "
        "learn (docs/baseline-guard.md)")


class Discourse(Strict):
    align_train_lines: int | None = Field(
        None, ge=1, description="pronoun accuracy: the aligner (align.backend) sees the "
        "first N training lines with the test set (null: all of them)")
    lsa_dims: int = Field(100, ge=1, description="coherence: LSA dimensions "
                          "(TruncatedSVD of tf-idf over the target training text)")
    lsa_train_lines: int | None = Field(
        None, ge=1, description="coherence: fit the LSA on the first N target training "
        "lines (null: all)")


class Experiment(Strict):
    """phrasenmt experiment configuration"""

    seed: int = Field(
        1, ge=1, description="one seed drives data generation, BPE, alignment, "
        "phrases, embeddings, parses and the significance tests (>= 1; sacreBLEU "
        "treats 0 as unseeded); training uses `seeds`")
    seeds: Seeds = Field(
        [1], description="training seeds: every model trains once per seed "
        "(results/<dataset>/models/<model>/seed<N>/, everything downstream of training "
        "per seed), the run with seed N passes --seed N to training; tables show the "
        "mean, sd and each seed's score, significance uses all seeds; a model's own "
        "`seeds` overrides it")
    mirror: PathText | None = Field(
        None, description="local folder laid out like the download URLs' paths, used "
        "instead of the network")
    stanza_dir: PathText | None = Field(
        None, description="stanza resources folder (real datasets' constituency parses)")
    run_datasets: unique_list(str) | None = optional(
        description="datasets that `rule all` builds (default every entry of "
        "datasets); override files set it to pick theirs")
    datasets: dict[Name, Dataset] = Field(
        min_length=1, description="datasets by name; results go to results/<name>/")
    models: dict[Name, Model] = Field(
        min_length=1, description="models by name; each is trained once per dataset")
    baseline: str | Annotated[dict[str, str], Field(min_length=1)] = Field(
        description="the model every other model is compared against (must be in "
        "models); a mapping dataset -> model gives each dataset its own (every dataset "
        "that trains models needs one)")
    families: dict[Name, unique_list(str)] = mapping(
        "named groups of models, e.g. a paper's systems with their baselines: for each "
        "dataset that trains a family's models, "
        "results/<dataset>/report/claims_<family>.md (.tex, .csv) is the claims table "
        "of the claims whose models are all in the family "
        "(configs/converged_families.yaml: one per paper)")
    precision: Precision = Field(
        "auto", description="numeric precision of training, forced scoring and "
        "decoding (phrasenmt.precision): bf16 runs the forward passes under bf16 "
        "autocast, fp32 without; weights, optimizer state, losses and log-sum-exp "
        "reductions stay float32 either way, so checkpoints do not depend on it. auto: "
        "bf16 on a CUDA device with bf16 support, and on a CPU whose /proc/cpuinfo "
        "flags list amx_bf16 (AMX) for a model at least 256 wide (d_model, "
        "hidden_size or NPMT's decoder_hidden), else fp32 (narrower models and "
        "avx512_bf16 alone trained slower in bf16 than in fp32: "
        "docs/reproducibility.md). A model's own `precision` overrides it. The "
        "fertility F1 table and the reordering-gates figure read the model in fp32 "
        "on the CPU whatever it says (small analyses, at the checkpoint's own "
        "precision)")
    decode: Decode = section(Decode)
    align: Align = section(Align)
    phrases: Phrases = section(Phrases)
    embeddings: Embeddings = section(Embeddings)
    evaluate: Evaluate = section(Evaluate)
    discourse: Discourse = section(
        Discourse, "discourse evaluation of document-level models (datasets that train "
        "one): pronoun/noun accuracy, cohesion and coherence; contrastive sets are per "
        "dataset (datasets.<name>.contrastive)")
    sweeps: dict[Name, Sweep] = mapping(
        "config-driven sweeps: each derives one model per value of one key of a base "
        "model (named BASE_<key><value>), trained and decoded like the base; the "
        "base's own value is the base itself")

    @model_validator(mode="after")
    def _references(self) -> Experiment:
        """Names that must refer to other entries, in the order of the keys."""
        for name, model in self.models.items():
            for ds in model.datasets or ():
                if ds not in self.datasets:
                    raise RuleError(f"models.{name}.datasets", f"unknown dataset "
                                    f"{ds!r} (known: {', '.join(self.datasets)})")
        for name in self.models:
            _checkpoint_of(self, name)
        _baseline(self)
        for family, names in self.families.items():
            unknown = [m for m in names if m not in self.models]
            if unknown:
                raise RuleError(f"families.{family}", f"{unknown[0]!r} is not one of "
                                f"the models ({', '.join(self.models)})")
        return self


# Keys a checkpoint_of entry takes from the model whose checkpoint it decodes.
INHERITED = ("arch", "preset", "model", "train")


def _checkpoint_of(config: Experiment, name: str) -> None:
    """A checkpoint_of entry names another model that trains, and gives none of
    the keys it takes from it (or the same value), nor other datasets."""
    models, entry = config.models, config.models[name]
    owner, key = entry.checkpoint_of, f"models.{name}.checkpoint_of"
    if owner is None:
        return
    if owner not in models or owner == name:
        raise RuleError(key, f"{owner!r} is not another model "
                        f"(known: {', '.join(models)})")
    if models[owner].checkpoint_of:
        raise RuleError(key, f"{owner!r} decodes another model's checkpoint itself; "
                        "name the model that trains")
    given = [k for k in INHERITED  # model/train default to {}: that is unset
             if getattr(entry, k) not in (None, {})
             and getattr(entry, k) != getattr(models[owner], k)]
    if given:
        raise RuleError(f"models.{name}.{given[0]}", "a checkpoint_of entry takes it "
                        f"from {owner!r}; leave it out")
    if entry.gpus > 1:  # runs.decode_gpus: decoding and scoring take one GPU
        raise RuleError(f"models.{name}.gpus", f"{entry.gpus}, but a checkpoint_of "
                        "entry trains nothing, and decoding and scoring use one GPU: "
                        "give 1 (or 0 for the CPU)")
    trains_on = models[owner].datasets
    if trains_on is None:
        trains_on = list(config.datasets)
    if entry.datasets is not None and entry.datasets != trains_on:
        raise RuleError(f"models.{name}.datasets", f"must be those {owner!r} trains "
                        "on (leave it out to take them)")


def _baseline(config: Experiment) -> None:
    """`baseline` names a model; a mapping names one per dataset that trains models."""
    models, base = config.models, config.baseline
    built = config.run_datasets or list(config.datasets)  # others are idle
    base = {"": base} if isinstance(base, str) else base

    def trains(model: str, ds: str) -> bool:
        entry = models[model]  # a checkpoint_of entry decodes where its model trains
        given = entry.datasets if entry.checkpoint_of is None else (
            entry.datasets or models[entry.checkpoint_of].datasets)
        return given is None or ds in given

    for ds, name in base.items():
        key = f"baseline.{ds}" if ds else "baseline"
        if ds and ds not in config.datasets:
            raise RuleError(key, f"unknown dataset {ds!r}")
        if name not in models:
            raise RuleError(key, f"{name!r} is not one of the models "
                            f"({', '.join(models)})")
        if ds in built and not trains(name, ds):
            raise RuleError(key, f"model {name!r} does not train on {ds!r}")
    if "" in base:  # one model for every dataset: it must train on each built one
        for ds in built:
            trained = [m for m in models if trains(m, ds)]
            if trained and not trains(base[""], ds):
                raise RuleError("baseline", f"model {base['']!r} does not train on "
                                f"{ds!r}, which trains {', '.join(trained)}: give a "
                                "mapping dataset -> model")
        return
    for ds in config.datasets:
        trained = [m for m in models if trains(m, ds)]
        if trained and ds not in base:
            raise RuleError("baseline", f"no baseline for dataset {ds!r}, which "
                            f"trains {', '.join(trained)}")


def rule_error(config: dict) -> str | None:
    """The first cross-key rule `config` breaks, as `key: what is wrong`, or None.

    `config` has passed the generated schema (types, bounds, defaults); the
    model's validators add what a schema cannot say: bins that increase, a
    decoding cap with room for a word, n-gram lengths in order, names that
    refer to other entries (a model's datasets, checkpoint_of, baseline,
    families), ...
    """
    try:
        Experiment.model_validate(config)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        where = ".".join(map(str, first["loc"]))
        cause = first.get("ctx", {}).get("error")
        text = str(cause) if isinstance(cause, ValueError) else first["msg"]
        if first["type"] == "finite_number":  # the words of phrasenmt.fields
            text = f"must be a finite number, got {first['input']}"
        if isinstance(cause, RuleError):
            where, text = ".".join(filter(None, (where, cause.key))), cause.text
        return f"{where}: {text}" if where else text
    return None
