# Config validation, wildcard constraints and the input/param functions the rules
# use. The logic lives in phrasenmt.workflow (unit-tested); these are thin adapters.
import gc
import shlex
import sys

sys.path.insert(0, str(Path(workflow.basedir) / "src"))

from phrasenmt import experiment
from phrasenmt import workflow as wf
from phrasenmt import workflow_claims as wfc
from phrasenmt import workflow_discourse as wfdis
from phrasenmt import workflow_documents as wfd
from phrasenmt import workflow_embeddings as wfe
from phrasenmt import workflow_npmt as wfn
from phrasenmt import workflow_runs as runs
from phrasenmt.io import InputError

wf.put_interpreter_on_path()

try:
    # schema, the families' checks, derived models, then every model entry
    # resolved as its train rule will and every dataset's settings
    experiment.start(config, workflow.configfiles)
    wf.apply_lm_availability(config, wf.lm_unavailable_reason())
    DATASETS = wf.datasets(config)
except InputError as err:
    raise WorkflowError(f"invalid configuration: {err}") from None
# experiment.start imported torch: its objects need no garbage collection, and
# leaving them out of it makes building a large DAG ~1.5 s faster.
gc.freeze()
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


def model_precision(wildcards):
    """--precision of the model's training, scoring and decoding jobs."""
    return runs.precision(config, wildcards.model)


def model_gpus(wildcards):
    return config["models"][wildcards.model]["gpus"]


def decode_gpus(wildcards):
    """Beam search uses one GPU, however many the model trained on."""
    return min(model_gpus(wildcards), 1)


def train_launcher(wildcards):
    """`python`, or torchrun with one process per GPU (DDP) for gpus > 1."""
    gpus = model_gpus(wildcards)
    return f"torchrun --standalone --nproc-per-node {gpus}" if gpus > 1 else "python"


def first_hyps(wildcards):
    """Tokenized hypotheses of every model's first seed on one test set."""
    ds, t = wildcards.dataset, wildcards.testset
    return {m: runs.hyp_file(ds, m, runs.first_seed(config, m), t)
            for m in wf.models(config, ds)}


def testset_hyps(wildcards):
    return list(first_hyps(wildcards).values())


def length_hyp_args(wildcards):
    return " ".join(f"{m}={path}" for m, path in first_hyps(wildcards).items())


def baseline_name(wildcards):
    return wf.baseline(config, wildcards.dataset)


def seed_hyps(ext):
    """Input function: hypotheses (ext txt or tok) of every seed of the model."""

    def inner(wildcards):
        ds, m, t = wildcards.dataset, wildcards.model, wildcards.testset
        return runs.per_seed(config, m, lambda s: runs.hyp_file(ds, m, s, t, ext))

    return inner


def baseline_seed_hyps(wildcards):
    """Detokenized hypotheses of every seed of the dataset's baseline."""
    ds, t, base = wildcards.dataset, wildcards.testset, baseline_name(wildcards)
    return runs.per_seed(config, base, lambda s: runs.hyp_file(ds, base, s, t, "txt"))


def model_seeds(wildcards):
    return " ".join(map(str, runs.seeds(config, wildcards.model)))


def eval_jsons(wildcards):
    """All-seed evaluations of every (model, test set), for the tables."""
    ds = wildcards.dataset
    return [runs.aggregate_eval(ds, m, t)
            for m in wf.models(config, ds) for t in wf.testsets(config, ds)]


def seed_eval_jsons(wildcards):
    """Every seed's evaluation of every (model, test set), in seed order."""
    ds = wildcards.dataset
    return [runs.seed_eval(ds, m, s, t) for m in wf.models(config, ds)
            for t in wf.testsets(config, ds) for s in runs.seeds(config, m)]


def summary_paths(wildcards):
    """(model, summary.json) of every seed (a checkpoint_of model's: its model's)."""
    ds = wildcards.dataset
    return [(m, wf.summary_path(config, ds, m, s)) for m in wf.models(config, ds)
            for s in runs.seeds(config, m)]


def summaries(wildcards):
    return [path for _, path in summary_paths(wildcards)]


def summary_args(wildcards):
    return " ".join(f"{m}={path}" for m, path in summary_paths(wildcards))


def model_order(wildcards):
    return ",".join(wf.models(config, wildcards.dataset))


SYNTHETIC = wf.name_regex(wf.datasets_from(config, "synthetic"))
# dev and test splits: every split but train (aligned after the training text)
HELDOUT_SPLIT = r"(?!train\b)[A-Za-z0-9_]+"
DOWNLOADED = wf.name_regex(wf.datasets_from(config, "download"))
LOCAL = wf.name_regex(wf.datasets_from(config, "local"))
# Models built by rules/train.smk + translate.smk; families with their own rules
# (rules/continuous.smk) are kept out of those rules by this constraint.
DEFAULT_MODELS = wf.model_regex(config, "default")


def local_file(wildcards):
    return wf.local_file(config, wildcards.dataset, wildcards.split, wildcards.lang)


def train_pair(wildcards):
    """Cleaned word-level training files of a dataset."""
    src, tgt = wf.langs(config, wildcards.dataset)
    data = f"{RESULTS}/{wildcards.dataset}/data"
    return {"src": f"{data}/train.{src}", "tgt": f"{data}/train.{tgt}"}


def heldout_splits(wildcards):
    """Dev and test splits aligned with the training text: {split: (src, tgt)}."""
    splits = ["dev", *wf.testsets(config, wildcards.dataset)]
    return {s: (expand_data(s, "src")(wildcards), expand_data(s, "tgt")(wildcards))
            for s in splits}


def align_inputs(wildcards):
    files = train_pair(wildcards)
    for split, (src, tgt) in heldout_splits(wildcards).items():
        files.update({f"{split}_src": src, f"{split}_tgt": tgt})
    return files


def aligner_args(wildcards):
    return wf.aligner_args(config)


def heldout_align_args(wildcards):
    return " ".join(f"--heldout {split} {src} {tgt}"
                    for split, (src, tgt) in heldout_splits(wildcards).items())


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


def embedding_dim(wildcards):
    """fastText dimension of a dataset: its continuous models' table size."""
    return wfe.embedding_dim(config, wildcards.dataset)


def output_dir(wildcards, output):
    """The folder of a rule's first output (for CLIs that take an --out-dir)."""
    return str(Path(output[0]).parent)


# -- continuous-output family (rules/continuous.smk) ---------------------------

CONTINUOUS_MODELS = wf.model_regex(config, "continuous")
FERTILITY_MODELS = wf.name_regex(wf.arch_models(config, wf.FERTILITY_CLASSES))


def continuous_spec(wildcards):
    return wf.continuous_spec(config, wildcards.dataset, wildcards.model)


def continuous_train_inputs(wildcards):
    """Word-level source, the model's target text, and its embedding tables."""
    ds, model = wildcards.dataset, wildcards.model
    files = {
        "src": expand_data("train", "src")(wildcards),
        "dev_src": expand_data("dev", "src")(wildcards),
        "tgt": wf.continuous_target(config, ds, model, "train"),
        "dev_tgt": wf.continuous_target(config, ds, model, "dev"),
    }
    arch = config["models"][model]["arch"]
    if arch in wfe.TABLE_ARCHS:  # CoNMT: the un-joined text's tables
        files.update((k, v) for k, v in wfe.table_files(ds, arch).items() if v)
    return files


def fertility_labels(split, kind):
    """Input function: fertility labels of a split, as the model's classes need."""

    def inner(wildcards):
        n = wf.FERTILITY_CLASSES[config["models"][wildcards.model]["arch"]]
        name = split.format(**wildcards)
        return f"{RESULTS}/{wildcards.dataset}/phrases/{name}.{kind}fert{n}"

    return inner


def fertility_test_labels(wildcards):
    """The test labels to score against: the aligner's, and gold ones if synthetic."""
    files = {"aligner": fertility_labels("{testset}", "")(wildcards)}
    if wf.source(config, wildcards.dataset) == "synthetic":
        files["gold"] = fertility_labels("{testset}", "gold.")(wildcards)
    return files


def fertility_test_label_args(wildcards, input):
    kinds = fertility_test_labels(wildcards)
    return " ".join(f"{kind}={getattr(input, kind)}" for kind in kinds)


def decode_model(wildcards):
    """The model file to decode: with the trained fertility module if it has one."""
    arch = config["models"][wildcards.model]["arch"]
    name = "fertility.pt" if arch in wf.FERTILITY_CLASSES else "averaged.pt"
    return runs.run_file(wildcards.dataset, wildcards.model, wildcards.seed, name)


def all_seed_hyps(wildcards):
    """(model, tokenized hypotheses) of every seed of every model on a test set."""
    ds, t = wildcards.dataset, wildcards.testset
    return [(m, runs.hyp_file(ds, m, s, t)) for m in wf.models(config, ds)
            for s in runs.seeds(config, m)]


def all_model_hyps(wildcards):
    return [path for _, path in all_seed_hyps(wildcards)]


def all_model_hyp_args(wildcards):
    return " ".join(f"{m}={path}" for m, path in all_seed_hyps(wildcards))


def fertility_tsv(dataset, model, seed, testset):
    return f"{RESULTS}/{dataset}/analysis/fertility/{testset}/{model}.seed{seed}.tsv"


def fertility_tsvs(wildcards):
    """Fertility scores of every seed of every fertility model."""
    ds, t = wildcards.dataset, wildcards.testset
    models = set(wf.arch_models(config, wf.FERTILITY_CLASSES))
    return [fertility_tsv(ds, m, s, t) for m in wf.models(config, ds) if m in models
            for s in runs.seeds(config, m)]


def continuous_run_dirs(wildcards):
    """(model, run folder) of every seed of the continuous family."""
    ds = wildcards.dataset
    return [(m, runs.run_dir(ds, m, s))
            for m in wf.family_models(config, "continuous", ds)
            for s in runs.seeds(config, m)]


def continuous_runs(wildcards):
    return [f"{d}/summary.json" for _, d in continuous_run_dirs(wildcards)]


def efficiency_args(wildcards):
    ds = wildcards.dataset
    models = wf.family_models(config, "continuous", ds)
    dirs = " ".join(f"{m}={d}" for m, d in continuous_run_dirs(wildcards))
    tgts = " ".join(f"{m}={wf.continuous_target(config, ds, m, 'train')}" for m in models)
    return f"--run {dirs} --train-tgt {tgts}"


def efficiency_targets(wildcards):
    ds = wildcards.dataset
    return [
        wf.continuous_target(config, ds, m, "train")
        for m in wf.family_models(config, "continuous", ds)
    ]


def family_order(wildcards):
    return ",".join(wf.family_models(config, "continuous", wildcards.dataset))


# --- source phrase representations: parse/segment side inputs, Lingeval97,
# Table 2 (rules/parse.smk, rules/lingeval.smk, rules/report.smk) ---


def stanza_dir_arg(wildcards):
    return f"--stanza-dir {config['stanza_dir']}" if config.get("stanza_dir") else ""


def segment_inputs(wildcards):
    """The BPE'd source, plus its trees for parse-based phrases."""
    src = wf.langs(config, wildcards.dataset)[0]
    inputs = {"bpe": f"{RESULTS}/{wildcards.dataset}/bpe/{wildcards.split}.bpe.{src}"}
    if wildcards.segmentation == "parse":
        inputs["trees"] = f"{RESULTS}/{wildcards.dataset}/parse/{wildcards.split}.trees"
    return inputs


def segment_trees_arg(wildcards, input):
    return f"--trees {input.trees}" if "trees" in input.keys() else ""


def train_side_files(wildcards):
    files = wf.side_inputs(config, wildcards.dataset, wildcards.model, ["train", "dev"])
    return [f for paths in files.values() for f in paths]


def train_side_args(wildcards):
    return wf.side_args(config, wildcards.dataset, wildcards.model, ["train", "dev"])


def test_side_files(wildcards):
    files = wf.side_inputs(config, wildcards.dataset, wildcards.model, [wildcards.testset])
    return [f for paths in files.values() for f in paths]


def test_side_args(wildcards):
    return wf.side_args(config, wildcards.dataset, wildcards.model, [wildcards.testset])


def lingeval_json_input(wildcards):
    return wf.lingeval_json(config, wildcards.dataset)


def lingeval_prepare_args(wildcards):
    ds = config["datasets"][wildcards.dataset]
    return " ".join(flag for flag, on in (("--tokenize", ds["tokenize"]),
                                          ("--lowercase", ds["lowercase"])) if on)


def lingeval_segment_inputs(wildcards):
    root = f"{RESULTS}/{wildcards.dataset}/lingeval"
    inputs = {"bpe": f"{root}/pairs.bpe.en"}
    if wildcards.segmentation == "parse":
        inputs["trees"] = f"{root}/pairs.trees"
    return inputs


def lingeval_side_files(wildcards):
    seg = wf.segmentation(config, wildcards.model)
    return [f"{RESULTS}/{wildcards.dataset}/lingeval/pairs.{seg}.phrases"] if seg else []


def lingeval_side_args(wildcards, input):
    return f"--side phrases={input.side[0]}" if input.side else ""


def lingeval_score_file(dataset, model, seed):
    return f"{RESULTS}/{dataset}/lingeval/scores/{model}/seed{seed}.txt"


def lingeval_first_scores(wildcards):
    """Agreement scores of every model's first seed (the figure shows those)."""
    ds = wildcards.dataset
    return {m: lingeval_score_file(ds, m, runs.first_seed(config, m))
            for m in wf.lingeval_models(config, ds)}


def lingeval_scores(wildcards):
    return list(lingeval_first_scores(wildcards).values())


def lingeval_score_args(wildcards):
    return " ".join(f"{m}={f}" for m, f in lingeval_first_scores(wildcards).items())


def ablation_inputs(wildcards):
    files = wf.ablation_files(config, wildcards.dataset)
    return {kind: [p for paths in files[kind].values() for p in paths]
            for kind in ("eval", "seed_eval", "summary", "hyp")}


def ablation_args(wildcards):
    files = wf.ablation_files(config, wildcards.dataset)
    return " ".join(
        f"--{kind.replace('_', '-')} "
        + " ".join(f"{m}={p}" for m, paths in files[kind].items() for p in paths)
        for kind in wf.ABLATION_KINDS
    )


def ablation_order(wildcards):
    return ",".join(wf.ablation_models(config, wildcards.dataset))


def first_testset(wildcards):
    return wf.testsets(config, wildcards.dataset)[0]


# --- NPMT family (rules/npmt.smk; helpers in phrasenmt.workflow_npmt) ---

NPMT_TRAINED = wf.name_regex(wfn.trained_models(config))
NPMT_MODELS = wf.model_regex(config, "npmt")
SWAN_GREEDY = wf.name_regex(wfn.greedy_models(config))
# attention models' second decoding: greedy for attn_rnn_reorder, beam for attn_rnn
ATTN_DECODINGS = wf.name_regex(wfn.attention_models(config))


def npmt_checkpoint(wildcards):
    """The averaged model a row decodes (a checkpoint_of row: its model's run of
    the same seed)."""
    owner = wf.checkpoint_owner(config, wildcards.model)
    return runs.run_file(wildcards.dataset, owner, wildcards.seed, "averaged.pt")


def npmt_lm(wildcards):
    return wfn.lm_inputs(config, wildcards.dataset, wildcards.model)


def npmt_lm_arg(wildcards, input):
    return f"--lm {input.lm}" if input.lm else ""


def beam_args(wildcards):
    return wfn.translate_args(config, wildcards.model, "beam")


def greedy_args(wildcards):
    return wfn.translate_args(config, wildcards.model, "greedy")


def decoding_args(wildcards):
    return wfn.translate_args(config, wildcards.model, wildcards.decoding)


def decoding_eval_inputs(wildcards):
    w = wildcards
    return wfn.eval_inputs(config, w.dataset, w.model, w.testset, w.decoding, w.seed)


def decoding_aggregate_inputs(wildcards):
    w = wildcards
    return wfn.aggregate_inputs(config, w.dataset, w.model, w.testset, w.decoding)


def decoding_baseline(wildcards):
    return wfn.aggregate_baseline(config, wildcards.dataset, wildcards.model)


def npmt_table_evals(wildcards):
    w = wildcards
    evals = wfn.table_evals(config, w.dataset, w.testset)
    return [*evals.values(), *(p for _, p in wfn.table_seed_evals(config, w.dataset,
                                                                    w.testset))]


def npmt_table_args(wildcards):
    """--eval, --seed-eval, --decode, --baseline and --note options of the table."""
    ds = wildcards.dataset
    evals = wfn.table_evals(config, ds, wildcards.testset)
    seed_evals = wfn.table_seed_evals(config, ds, wildcards.testset)
    args = ["--eval", *(f"{k}={v}" for k, v in evals.items()), "--seed-eval",
            *(f"{k}={v}" for k, v in seed_evals), "--decode"]
    args += [f"{m}={label}" for m, label in wfn.decode_labels(config, ds).items()]
    base = wfn.npmt_baseline(config, ds)
    args += ["--baseline", base] if base else []
    for note in wfn.table_notes(config, ds):
        args += ["--note", note]
    return shlex.join(args)


def npmt_table_order(wildcards):
    return ",".join(wfn.table_models(config, wildcards.dataset))


def segment_files(wildcards):
    """Greedy segmentations of every SWAN row's first seed."""
    w = wildcards
    return {m: wfn.segments_file(w.dataset, m, w.testset, runs.first_seed(config, m))
            for m in wfn.segment_models(config, w.dataset)}


def segment_args(wildcards):
    return " ".join(f"{m}={path}" for m, path in segment_files(wildcards).items())


def segment_order(wildcards):
    return ",".join(wfn.segment_models(config, wildcards.dataset))


def main_segments(wildcards):
    main = wfn.npmt_main(config, wildcards.dataset)
    return wfn.segments_file(wildcards.dataset, main, first_testset(wildcards),
                             runs.first_seed(config, main))


def main_gates(wildcards):
    testset = first_testset(wildcards)
    return f"{RESULTS}/{wildcards.dataset}/analysis/npmt_gates_{testset}.tsv"


def main_checkpoint(wildcards):
    """The averaged model of the gates figure: the NPMT model's first seed."""
    main = wfn.npmt_main(config, wildcards.dataset)
    return runs.run_file(wildcards.dataset, main, runs.first_seed(config, main),
                         "averaged.pt")


def main_name(wildcards):
    return wfn.npmt_main(config, wildcards.dataset)


def sweep_evals(wildcards):
    return [path for _, path in wfn.sweep_evals(config, wildcards.dataset, wildcards.sweep)]


def sweep_args(wildcards):
    sweep = config["sweeps"][wildcards.sweep]
    evals = wfn.sweep_evals(config, wildcards.dataset, wildcards.sweep)
    args = ["--name", wildcards.sweep, "--key", sweep["key"], "--base", sweep["model"],
            "--eval", *(f"{k}={v}" for k, v in evals)]
    return shlex.join(args)


# --- document-level family (rules/documents.smk, rules/documents_report.smk;
# helpers in phrasenmt.workflow_documents and phrasenmt.workflow_discourse) ---

DOCUMENT_MODELS = wf.model_regex(config, "documents")
CONTRASTIVE_SETS = wf.name_regex(
    sorted({s for ds in config["datasets"] for s in wfdis.contrastive_sets(config, ds)})
)


def docs_file(split):
    """Input function: the cleaned document ids of `split` ('{testset}' allowed)."""

    def inner(wildcards):
        return f"{RESULTS}/{wildcards.dataset}/data/{split.format(**wildcards)}.docs"

    return inner


def expand_bpe_vocab(side):
    """Input function: the BPE vocabulary of the source or target language."""

    def inner(wildcards):
        lang = wf.langs(config, wildcards.dataset)[side == "tgt"]
        return f"{RESULTS}/{wildcards.dataset}/bpe/vocab.{lang}"

    return inner


def step1_checkpoint(wildcards):
    w = wildcards
    return wfd.step1_checkpoint(config, w.dataset, w.model, w.seed)


def local_docs_inputs(wildcards):
    """The split's source text, and the user's docs file when there is one."""
    src = wf.langs(config, wildcards.dataset)[0]
    files = {"text": f"{RESULTS}/{wildcards.dataset}/raw/{wildcards.split}.{src}"}
    docs = wfd.local_docs(config, wildcards.dataset, wildcards.split)
    return {**files, "docs": docs} if docs else files


def local_docs_command(wildcards, input, output):
    """`local --docs-for` with a docs file, else `docs` (one document per line)."""
    if "docs" in input.keys():
        return f"local --in {input.docs} --docs-for {input.text} --out {output}"
    return f"docs --text {input.text} --split {wildcards.split} --out {output}"


def contrastive_inputs(wildcards):
    return list(wfdis.contrastive_files(config, wildcards.dataset, wildcards.cset).values())


def contrastive_prepare_args(wildcards):
    return wfdis.contrastive_args(config, wildcards.dataset, wildcards.cset)


def contrastive_context(wildcards):
    """The BPE'd context of the pairs, for a document-level model (else none)."""
    if not wfd.is_document(config, wildcards.model):
        return []
    return f"{wfdis.contrastive_root(wildcards.dataset, wildcards.cset)}/pairs.ctx.bpe.jsonl"


def contrastive_context_arg(wildcards, input):
    return f"--context {input.context}" if input.context else ""


def contrastive_scores(wildcards):
    return wfdis.contrastive_scores(config, wildcards.dataset, wildcards.cset)


def contrastive_score_args(wildcards):
    return wfdis.contrastive_score_args(config, wildcards.dataset, wildcards.cset)


def align_args(wildcards):
    return wfdis.align_args(config)


def lsa_args(wildcards):
    return wfdis.lsa_args(config)


def discourse_hyps(wildcards):
    return list(wfdis.hypotheses(config, wildcards.dataset, wildcards.testset).values())


def discourse_hyp_args(wildcards):
    hyps = wfdis.hypotheses(config, wildcards.dataset, wildcards.testset)
    return " ".join(f"{m}={path}" for m, path in hyps.items())


def discourse_order(wildcards):
    return ",".join(wfd.discourse_models(config, wildcards.dataset))


def discourse_evals(wildcards):
    ds = wildcards.dataset
    return [runs.aggregate_eval(ds, m, t) for m in wfd.discourse_models(config, ds)
            for t in wf.testsets(config, ds)]


def discourse_notes(wildcards):
    return shlex.join(f"--note={n}" for n in wfdis.notes(config, wildcards.dataset))


def contrastive_tsv_args(wildcards):
    ds = wildcards.dataset
    return " ".join(f"{s}={wfdis.contrastive_tsv(ds, s)}"
                    for s in wfdis.contrastive_sets(config, ds))


def contrastive_tsvs(wildcards):
    ds = wildcards.dataset
    return [wfdis.contrastive_tsv(ds, s) for s in wfdis.contrastive_sets(config, ds)]


def pronoun_tsvs(wildcards):
    ds, t = wildcards.dataset, wildcards.testset
    return [wfdis.first_pronoun_tsv(config, ds, t, m)
            for m in wfd.discourse_models(config, ds)]


def han_evals(wildcards):
    ds = wildcards.dataset
    return [runs.aggregate_eval(ds, m, t) for m in wfd.han_models(config, ds)
            for t in wf.testsets(config, ds)]


def han_order(wildcards):
    return ",".join(wfd.han_models(config, wildcards.dataset))


def doc_sweep_evals(wildcards):
    """Every seed's BLEU of every point of a sweep (first test set)."""
    ds, t = wildcards.dataset, first_testset(wildcards)
    return [runs.seed_eval(ds, m, s, t)
            for m in wfdis.sweep_models(config, wildcards.sweep)
            for s in runs.seeds(config, m)]


def doc_sweep_pronouns(wildcards):
    ds, testset = wildcards.dataset, first_testset(wildcards)
    return [wfdis.first_pronoun_tsv(config, ds, testset, m)
            for m in wfdis.sweep_models(config, wildcards.sweep)]


def doc_sweep_args(wildcards):
    parameter = shlex.quote(wfdis.sweep_parameter(config, wildcards.sweep))
    points = wfdis.sweep_point_args(config, wildcards.sweep)
    return f"--parameter {parameter} {points}"


# --- the claims table (rules/claims.smk; helpers in phrasenmt.workflow_claims) ---


def claims_inputs(wildcards):
    return wfc.claims_inputs(config, wildcards.dataset)


def claims_args(wildcards):
    return wfc.claims_args(config, wildcards.dataset)
