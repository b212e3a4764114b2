"""The named entries of the experiment configuration (datasets, models,
sweeps) and the field helpers `phrasenmt.config_model` builds on."""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    model_validator,
)


class RuleError(ValueError):
    """A broken rule of the model, naming the key under the entry it is about."""

    def __init__(self, key: str, text: str) -> None:
        super().__init__(f"{key}: {text}")
        self.key, self.text = key, text


LANG = re.compile(r"[a-z]{2,3}")  # rules/common.smk's `lang` wildcard constraint
# ISO 639-1 codes withdrawn in 1989 and their current codes: the tools behind
# each stage (Moses, sacreBLEU, stopwordsiso, the word segmenters) know only
# the current ones, and Java and old locales still write the old ones
WITHDRAWN_LANGS = {"iw": ("he", "Hebrew"), "in": ("id", "Indonesian"),
                   "ji": ("yi", "Yiddish"), "jw": ("jv", "Javanese")}
NAME_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_-]*$"  # dataset, model, sweep, set names
# Decoding bounds: a wider beam only costs memory (a beam of 10^6 filled the RAM,
# 10^12 failed to allocate), and GNMT's length penalty alpha is used in [0, 2]
# (((5 + |y|) / 6) ** 500 overflowed a float)
MAX_BEAM = 1000
MAX_LENPEN = 10.0
Name = Annotated[str, StringConstraints(pattern=NAME_PATTERN)]
PathText = Annotated[str, StringConstraints(min_length=1)]  # a file or folder: "" is none
ARCHS = ("transformer", "pr_mean", "pr_max", "pr_max_attn", "pr_max_attn_ta",
         "pr_max_attn_ta_parse", "attn_rnn", "conmt", "pconmt_nofert",
         "pconmt_fert2", "pconmt_fert4", "npmt", "npmt_noreorder",
         "attn_rnn_reorder", "ctx_transformer", "ctx_transformer_enc",
         "ctx_transformer_dec", "han_enc", "han_dec", "han_enc_dec")
PRESETS = ("tiny", "small", "iwslt", "iwslt_en_de", "iwslt_en_vi", "base", "big")
Precision = Literal["auto", "fp32", "bf16"]


def _unique(values: list) -> list:
    """A list without repeats (JSON Schema's uniqueItems)."""
    if len(values) != len({repr(v) for v in values}):
        raise ValueError("has non-unique elements")
    return values


def distinct_list(item: Any) -> Any:
    """`list[item]` whose elements are each given once."""
    return Annotated[list[item], AfterValidator(_unique),
                     Field(json_schema_extra={"uniqueItems": True})]


def unique_list(item: Any) -> Any:
    """`list[item]` of at least one element, each given once."""
    return Annotated[distinct_list(item), Field(min_length=1)]


Seeds = unique_list(Annotated[int, Field(ge=1)])


def _finite(value: Any, path: tuple[str, ...] = ()) -> Any:
    """`value` without NaN or infinity anywhere inside it (YAML reads .nan and
    .inf): an untyped value is held to what every typed number key is."""
    if isinstance(value, float) and not math.isfinite(value):
        raise RuleError(".".join(path), f"must be a finite number, got {value}")
    items = value.items() if isinstance(value, dict) else (
        enumerate(value) if isinstance(value, list) else ())
    for key, item in items:
        _finite(item, (*path, str(key)))
    return value


# Values passed on as they are (a model's `model:` and `train:` overrides):
# their own config classes check them, and the model refuses NaN in them.
Finite = Annotated[Any, AfterValidator(_finite)]
# A sweep's value; NaN is refused before the union, whose members would each
# name themselves in the message.
SweepValue = Annotated[int | float | str | bool, BeforeValidator(_finite)]


def _no_default(schema: dict) -> None:
    """A key that is left out is absent: no default, and null is no value of it."""
    schema.pop("default", None)
    given = [s for s in schema.pop("anyOf", ()) if s != {"type": "null"}]
    if given:
        (only,) = given
        schema.update(only)


def optional(**kwargs: Any) -> Any:
    """A key that may be left out and has no default: the schema fills nothing
    in, so code can tell a key not given (`"name" in entry`) from a value."""
    return Field(None, json_schema_extra=_no_default, **kwargs)


def section(cls: type, description: str | None = None) -> Any:
    """A nested mapping whose own keys carry the defaults (schema default {})."""
    return Field(default_factory=cls, description=description,
                 json_schema_extra={"default": {}})


def mapping(description: str | None = None) -> Any:
    """A free mapping, empty by default."""
    return Field(default_factory=dict, description=description,
                 json_schema_extra={"default": {}})


class Strict(BaseModel):
    """A mapping of known keys only; whole floats are no integers here either."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class Synthetic(Strict):
    train_size: int = Field(40000, ge=1, description="training sentence pairs")
    dev_size: int = Field(1000, ge=1, description="dev sentence pairs")
    test_size: int = Field(1000, ge=1, description="test sentence pairs")
    min_doc_sentences: int = Field(3, ge=1, description="shortest document")
    max_doc_sentences: int = Field(8, ge=1, description="longest document")
    max_sentence_tokens: int = Field(
        50, ge=8, description="resample English sentences longer than this (tokens); "
        "with rates.long_sentence, raise it to put sentences of over 45 tokens in the "
        "corpus")
    max_distance_words: int = Field(
        30, ge=1, description="resample sentences whose German subject and verb are "
        "further apart than this (words)")
    rates: dict[str, Annotated[float, Field(ge=0, le=1)]] = mapping(
        "phenomenon rates passed to the generator as --rate-<name> (see its --help)")
    antecedent_distance: dict[int, Annotated[float, Field(ge=0, le=1)]] = Field(
        default_factory=lambda: {1: 1.0}, min_length=1,
        json_schema_extra={"default": {"1": 1.0}},
        description="share of the pronouns whose antecedent is D sentences back, "
        "by D (the shares sum to 1; the sentences between mention nothing the "
        "pronoun could stand for, and a singular noun: distractor_gender), e.g. {1: 0.5, 2: "
        "0.3, 3: 0.2}; a document-level model with K below the largest D does not "
        "see the antecedents further back (about 50 % on their mirrored items)")
    distractor_gender: Literal["any", "other"] = Field(
        "any", description="the singular noun each sentence between an antecedent "
        "and its pronoun (antecedents 2 or more back) mentions: 'any' is drawn "
        "without regard to the antecedent's gender, so the in-between nouns say "
        "nothing about the pronoun; 'other' has another German gender than the "
        "antecedent, so that a model can pick the pronoun by ruling out the "
        "in-between nouns' gender without finding the antecedent (the corpus of "
        "configs/converged_families.yaml)")
    contrastive_dev_fraction: float = Field(
        0.5, gt=0, lt=1, description="share of the documents whose contrastive items "
        "are dev items (budgets are chosen on them; the tables report the others, "
        "the test items); seeded, no document on both sides")

    @model_validator(mode="after")
    def _documents(self) -> Synthetic:
        if self.max_doc_sentences < self.min_doc_sentences:
            raise RuleError("max_doc_sentences", f"{self.max_doc_sentences} is less "
                            f"than min_doc_sentences {self.min_doc_sentences}")
        near = min(self.antecedent_distance)
        if near < 1:
            raise RuleError("antecedent_distance", f"distance {near}: an antecedent is "
                            "at least 1 sentence back")
        total = sum(self.antecedent_distance.values())
        if abs(total - 1) > 1e-6:
            raise RuleError("antecedent_distance", f"the shares sum to {total:g}, "
                            "not 1")
        far = max(self.antecedent_distance)
        if far > self.max_doc_sentences - 1:
            raise RuleError("antecedent_distance", f"distance {far} does not fit in a "
                            f"document of at most max_doc_sentences "
                            f"{self.max_doc_sentences} sentences (at most "
                            f"{self.max_doc_sentences - 1} back)")
        return self


class Pair(Strict):
    src: PathText = Field(description="source-language file")
    tgt: PathText = Field(description="target-language file")
    docs: PathText | None = optional(
        description="document id per line (optional; a document's lines contiguous); "
        "without it every line is its own document, and document-level models refuse "
        "the dataset")


class Local(Strict):
    train: Pair
    dev: Pair
    test: dict[Name, Pair] = Field(
        min_length=1, description="test sets by name (any name but train and dev)")
    language_check: bool = Field(
        True, description="compare the words of each file's first 2,000 lines with "
        "built-in lists of function words of 23 languages written in Latin or "
        "Cyrillic letters (en, de, fr, ru, ...): start-up and the data job refuse "
        "a split whose source looks like the target language and whose target "
        "looks like the source language, and warn of a file that looks like "
        "another listed language than its own (docs/datasets.md); false turns "
        "both off, e.g. for a side that is meant to hold another language")

    @model_validator(mode="after")
    def _test_names(self) -> Local:
        for name in ("train", "dev"):
            if name in self.test:
                raise RuleError(f"test.{name}", f"a test set cannot be named {name}: "
                                f"its files would be the {name} split's; rename it")
        return self


class Clean(Strict):
    max_len: int = Field(100, ge=1,
                         description="drop training pairs longer than this (tokens)")
    max_ratio: float = Field(2.5, ge=1, description="drop training pairs whose "
                             "token-length ratio exceeds this")


class Bpe(Strict):
    backend: Literal["subword-nmt", "sentencepiece"] = Field(
        "subword-nmt", description="subword-nmt: joint BPE on Moses-tokenized words; "
        "sentencepiece: BPE or unigram pieces learned on raw text in any script "
        "(Chinese cut into words by jieba first; docs/datasets.md)")
    merges: int = Field(10000, ge=1, description="subword-nmt: joint BPE merge "
                        "operations")
    vocab_threshold: int = Field(1, ge=0, description="subword-nmt: apply-bpe "
                                 "vocabulary threshold")
    model_type: Literal["bpe", "unigram"] = Field(
        "bpe", description="sentencepiece: the model type")
    vocab_size: int = Field(8000, ge=8, description="sentencepiece: pieces per model "
                            "(at most what the training text can give; with "
                            "bpe.model, the file's)")
    joint: bool = Field(True, description="sentencepiece: one model learned on both "
                        "languages (false: one model per language)")
    model: PathText | None = optional(
        description="sentencepiece: the file of a SentencePiece model of yours, "
        "which segments both languages instead of one learned on the training "
        "text (vocab_size and model_type, if given, must be the file's)")

    @model_validator(mode="after")
    def _keys_of_its_backend(self) -> Bpe:
        unread = {"subword-nmt": ("model_type", "vocab_size", "joint", "model"),
                  "sentencepiece": ("merges", "vocab_threshold")}[self.backend]
        for key in unread:  # the defaults are filled in before: a changed value
            if getattr(self, key) != type(self).model_fields[key].default:
                raise RuleError(key, f"not read with backend {self.backend}")
        if self.model is not None and not self.joint:
            raise RuleError("joint", "false, but bpe.model gives one model, which "
                            "segments both languages; remove joint, or bpe.model to "
                            "learn one model per language")
        return self


def _text(description: str) -> Any:
    return optional(description=description)


OptText = PathText | None
SYNTHETIC_SET = "synthetic"  # the synthetic corpus's own contrastive items
# Contrastive formats given in the config: files each needs, and optional ones.
FORMAT_FILES = {"contrapro": ("json", "text_src", "text_tgt", "context_src",
                              "context_tgt"),
                "bawden": ("current_src", "current_tgt", "prev_src", "prev_tgt"),
                "voita": ("json",)}
OPTIONAL_FILES = {"voita": ("scoring_src", "scoring_dst")}


class ContrastiveSet(Strict):
    """one contrastive test set read by phrasenmt.evaluate.contrastive prepare; each
    format needs its own files"""

    format: Literal["contrapro", "bawden", "voita"] = Field(
        description="contrapro (Mueller et al. 2018), bawden (Bawden et al. 2018), "
        "voita (Voita et al. 2019 consistency sets)")
    json_file: OptText = Field(None, alias="json", json_schema_extra=_no_default,
                               description="contrapro: contrapro.json; voita: the "
                               "consistency JSON")
    text_src: OptText = _text("contrapro: contrapro.text.<src> of "
                              "json2text_and_context.pl")
    text_tgt: OptText = _text("contrapro: contrapro.text.<tgt>")
    context_src: OptText = _text("contrapro: contrapro.context.<src>")
    context_tgt: OptText = _text("contrapro: contrapro.context.<tgt>")
    extracted: Annotated[int, Field(ge=0)] | None = optional(
        description="contrapro: the --context N given to "
        "json2text_and_context.pl")
    current_src: OptText = _text("bawden: <set>.current.<src> of json2rawtext.py")
    current_tgt: OptText = _text("bawden: <set>.current.<tgt>")
    prev_src: OptText = _text("bawden: <set>.prev.<src>")
    prev_tgt: OptText = _text("bawden: <set>.prev.<tgt>")
    scoring_src: OptText = _text("voita (optional): scoring_data/<set>.src, checked "
                                 "line by line")
    scoring_dst: OptText = _text("voita (optional): scoring_data/<set>.dst")
    name: OptText = _text("bawden, voita: the type name of the items in the table "
                          "(default: from the file name)")
    dev_fraction: Annotated[float, Field(gt=0, lt=1)] | None = optional(
        description="share of the set's documents (contrapro: its document ids; "
        "bawden, voita: each example) whose items are dev items, on which budgets "
        "are chosen; the tables report the others (seeded, no document on both "
        "sides). Left out: every item is a test item")

    @model_validator(mode="after")
    def _files_of_its_format(self) -> ContrastiveSet:
        fields = type(self).model_fields
        given = [fields[k].alias or k for k in self.model_fields_set]
        needed = FORMAT_FILES[self.format]
        allowed = {*needed, *OPTIONAL_FILES.get(self.format, ()), "format",
                   "extracted", "dev_fraction"}
        if self.format != "contrapro":  # ContraPro's items carry their own types
            allowed.add("name")
        missing = [k for k in needed if k not in given]
        extra = sorted(k for k in given if k not in allowed)
        if missing or extra:
            what = "required" if missing else "not read"
            raise RuleError((missing or extra)[0], f"{what} for format {self.format}")
        if (self.format == "contrapro") != ("extracted" in given):
            raise RuleError("extracted", "the --context N given to "
                            "json2text_and_context.pl, for format contrapro (and only "
                            "there)")
        return self


class Dataset(Strict):
    source: Literal["synthetic", "download", "local"] = Field(
        description="built-in generator, a registered download, or the user's own "
        "files")
    name: OptText = _text("registered dataset to download (source download), e.g. "
                          "multi30k, iwslt14, wmt14_en_de, iwslt15_en_vi")
    src: str = Field(description="source language code")
    tgt: str = Field(description="target language code")
    tokenize: bool = Field(True, description="Moses-tokenize raw text (false when the "
                           "text is already tokenized)")
    lowercase: bool = Field(False, description="lowercase after tokenization")
    testsets: distinct_list(str) | None = optional(
        description="evaluation splits to translate (default all of the dataset's)")
    lingeval: bool = Field(
        True, description="en-de only: score the models on subject-verb agreement "
        "items (Lingeval97's lingeval97.json for real data, from its download or the "
        "mirror; the generator's own items for synthetic data); false leaves the "
        "agreement analysis out (e.g. offline, with no lingeval97.json in the mirror)")
    synthetic: Synthetic = section(
        Synthetic, "settings of the built-in generator (source synthetic)")
    local: Local | None = optional(
        description="the user's own parallel files (source local)")
    clean: Clean = section(Clean)
    contrastive: dict[Name, ContrastiveSet] = mapping(
        "contrastive test sets with context for the document-level models of this "
        "dataset, by name (a synthetic en-de corpus has its own items, named "
        "synthetic); paths to files you obtained (nothing downloads)")
    bpe: Bpe = section(Bpe)

    @model_validator(mode="after")
    def _languages_and_lengths(self) -> Dataset:
        for source in ("download", "local"):  # the key that names its files
            key = "name" if source == "download" else "local"
            if self.source == source and getattr(self, key) is None:
                raise RuleError(key, f"required when source is {source}")
            if self.source != source and key in self.model_fields_set:
                raise RuleError(key, f"is read for source {source} only, and this "
                                f"dataset's source is {self.source}")
        for side in ("src", "tgt"):
            code = getattr(self, side)
            if not LANG.fullmatch(code):
                raise RuleError(side, f"{code!r} is not a language code of 2-3 "
                                "lowercase letters (en, de, vi)")
            if code in WITHDRAWN_LANGS:
                now, name = WITHDRAWN_LANGS[code]
                raise RuleError(side, f"{code!r} is the withdrawn code for {name}; "
                                f"write {now!r}")
        if self.src == self.tgt:
            raise RuleError("tgt", f"{self.tgt!r} is also the source language")
        if self.contrastive and self.bpe.backend == "sentencepiece":
            raise RuleError("contrastive", "the contrastive sets are segmented with "
                            "subword-nmt codes: they need bpe.backend subword-nmt")
        if SYNTHETIC_SET in self.contrastive:
            raise RuleError(f"contrastive.{SYNTHETIC_SET}", "the name is reserved for "
                            "the synthetic corpus's own items")
        longest = self.synthetic.max_sentence_tokens
        if self.source == "synthetic" and longest > self.clean.max_len:
            raise RuleError("synthetic.max_sentence_tokens", f"{longest} is more than "
                            f"clean.max_len {self.clean.max_len}, which would drop "
                            "the longest training pairs; raise clean.max_len")
        return self


class JointFinetune(Strict):
    enabled: bool = Field(True, description="false leaves the joint fine-tuning out")
    train: dict[str, Finite] = mapping("overrides of this model's train settings for the "
                                    "fine-tuning step (e.g. max_steps, lr)")


class ModelDecode(Strict):
    beam: Annotated[int, Field(ge=1, le=MAX_BEAM)] | None = optional(
        description="beam size")
    lenpen: Annotated[float, Field(ge=0, le=MAX_LENPEN)] | None = optional(
        description="GNMT length penalty alpha (attention models)")
    lambda1: float | None = optional(
        description="word-count weight of Eq. 3, Q(y) = log p(y|x) + lambda1 |y| + "
        "lambda2 log p_lm(y) (NPMT)")
    lambda2: Annotated[float, Field(ge=0)] | None = optional(
        description="LM weight of Eq. 3 (NPMT; above 0 needs lm: true)")
    lm: bool | None = optional(
        description="decode with a 4-gram KenLM model of the dataset's target training "
        "text (NPMT; needs lmplz)")


def _arch_or_checkpoint(schema: dict) -> None:
    schema["anyOf"] = [{"required": ["arch", "preset"]},
                       {"required": ["checkpoint_of"]}]


class Model(Strict):
    model_config = ConfigDict(extra="forbid", json_schema_extra=_arch_or_checkpoint)

    arch: Literal[ARCHS] | None = optional(  # type: ignore[valid-type]
        description="registered architecture")
    preset: Literal[PRESETS] | None = optional(  # type: ignore[valid-type]
        description="named size preset that sets defaults")
    init_from: OptText = _text(
        "document-level models (ctx_transformer*, han_*), required: the model whose "
        "averaged checkpoint this one starts from, loaded strictly (same datasets, "
        "preset and sizes): a transformer for ctx_transformer*, han_enc and han_dec "
        "(step 1, its own run, not trained twice), a han_enc for han_enc_dec; "
        "train.freeze says what stays frozen (sentence: the sentence-level parameters, "
        "the default; loaded: every loaded weight; none: nothing)")
    context: Literal["real", "random", "none"] | None = _text(
        "document-level models: what they read as context (default real: the K "
        "previous sentences of the document); random: a random-context control (Li et "
        "al. 2020), as many sentences taken from another document, drawn with the "
        "run's seed, the same in training, scoring and decoding; none: no context at "
        "all. A control is an ordinary model: give it its base's init_from, preset, "
        "model and train, so that only the context differs (start-up refuses a "
        "control that differs from its model in anything else, or has no model)")
    joint_finetune: JointFinetune | None = _text(
        "document-level models: derive <name>_joint, a further step from this model's "
        "averaged checkpoint that trains every parameter (train.freeze: none), a row "
        "of its own in every table")
    checkpoint_of: OptText = _text(
        "decode the trained checkpoint of this other model (same datasets, itself not "
        "a checkpoint_of entry) with this entry's own decode settings instead of "
        "training again; arch, preset, model and train come from it (NPMT family)")
    decode: ModelDecode | None = _text(
        "this model's decoding settings over the global decode (NPMT models: beam, "
        "lambda1 and lambda2 default to the preset's, i.e. the paper's)")
    model: dict[str, Finite] = mapping("overrides of the architecture's config "
                                       "fields")
    train: dict[str, Finite] = mapping("overrides of the training config fields")
    gpus: int = Field(1, ge=0, description="GPUs the model's training job asks for "
                      "(a cluster's or --resources gpu=N); decoding and scoring take "
                      "one at most, and a checkpoint_of entry, which trains nothing, 0 "
                      "or 1. 0: a CPU job, whose training, decoding and scoring run "
                      "with --device cpu on any machine")
    precision: Precision | None = _text(
        "this model's precision (training, its fertility step, scoring, decoding) over "
        "the global `precision`; a checkpoint_of entry's default: its model's")
    seeds: Seeds | None = _text(
        "this model's training seeds over the global seeds (a checkpoint_of entry's "
        "default: its model's seeds; an init_from or checkpoint_of entry's seeds must "
        "be seeds of the model it loads: seed N loads that model's seed N)")
    datasets: distinct_list(str) | None = _text(
        "datasets to train on (default all; a checkpoint_of entry's default is its "
        "model's)")

    @model_validator(mode="after")
    def _trains_or_decodes(self) -> Model:
        if self.checkpoint_of is None and (self.arch is None or self.preset is None):
            raise RuleError("arch", "give arch and preset, or checkpoint_of")
        return self


SWEEP_KEY = r"^(model|train)\.[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$"


class Sweep(Strict):
    model: str = Field(description="the base model (one that trains)")
    key: Annotated[str, StringConstraints(pattern=SWEEP_KEY)] = Field(
        description="the dotted key varied, under the base's model: or train: "
        "overrides, e.g. model.window")
    values: unique_list(SweepValue) = Field(
        description="the values, in table order")
    enabled: bool = Field(True, description="false switches the sweep off (its models "
                          "are not derived)")
    seeds: Seeds | None = _text(
        "training seeds of the derived models (default: the base's); each must be a "
        "seed of the base, e.g. [1] for a sweep at the base's first seed only")
