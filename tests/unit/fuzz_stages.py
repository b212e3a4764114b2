"""Every stage's CLI as the fuzz suite drives it, on a tiny pipeline of real files.

`STAGES` lists each command in pipeline order with an argv template: `{r}/...`
is a file of the pipeline folder (an input), `{o}/...` an output (a trailing
`/` marks an output folder). `build` runs every command once on the pipeline
folder with `{o}` = `{r}`, asserting success, so every later command reads
real outputs of the earlier ones and every baseline is known to work; the
fuzz tests (test_fuzz_cli.py) then break one input, option or output path at
a time. Commands that need the network (download) or stanza's models (parse
stanza) are driven only with bad options and output paths (`build=False`).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from phrasenmt.io import run_cli
from tests.conftest import REPO

TINY = json.dumps({"arch": "transformer", "preset": "tiny", "model": {
    "d_model": 16, "d_ff": 32, "n_heads": 2}, "train": {
    "max_steps": 2, "max_tokens": 400, "update_tokens": 100, "save_interval": 1,
    "valid_interval": 2, "keep_last": 2, "average_last": 2, "warmup_steps": 1}},
    separators=(",", ":"))
NPMT = json.dumps({"arch": "npmt", "preset": "tiny", "model": {
    "embed_size": 8, "encoder_hidden": 8, "decoder_hidden": 8, "encoder_layers": 1,
    "decoder_layers": 1, "max_segment_len": 2}, "train": {
    "max_steps": 2, "max_tokens": 300, "update_tokens": 60, "save_interval": 1,
    "valid_interval": 2, "keep_last": 2, "average_last": 2, "max_len": 40}},
    separators=(",", ":"))
ORDER = "transformer"


@dataclass
class Stage:
    """One CLI command: module, argv template and what may be broken in it."""

    name: str  # test id
    module: str  # python -m module
    args: str  # argv template (shlex), {r}/x inputs, {o}/x outputs
    ints: dict[str, int] = field(default_factory=dict)  # option -> minimum
    floats: dict[str, float | None] = field(default_factory=dict)  # -> minimum
    aligned: tuple[str, ...] = ()  # inputs that must have equal line counts
    empty_ok: tuple[str, ...] = ()  # inputs for which an empty file is valid
    whole_words: tuple[str, ...] = ()  # BPE'd inputs whose lines must end a word
    build: bool = True  # run it while building the pipeline

    def argv(self, root: Path, out: Path) -> list[str]:
        """The argv with real folders."""
        return [a.replace("{o}", str(out)).removesuffix("/") if a.startswith("{o}/")
                else a.replace("{r}", str(root)) for a in shlex.split(self.args)]

    def inputs(self) -> list[str]:
        """Pipeline-relative paths of the files the command reads."""
        found = []
        for arg in shlex.split(self.args):
            for part in arg.replace("=", ",").split(","):
                if part.startswith("{r}/"):
                    found.append(part.removeprefix("{r}/"))
        return found

    def outputs(self) -> list[tuple[str, str, bool]]:
        """(option, relative path, is a folder) of every output."""
        argv = shlex.split(self.args)
        return [(argv[i - 1], a.removeprefix("{o}/").rstrip("/"), a.endswith("/"))
                for i, a in enumerate(argv) if a.startswith("{o}/")]

    def main(self):
        """The module's entry point."""
        return importlib.import_module(self.module).main


def run_stage(stage: Stage, argv: list[str]) -> tuple[int, str]:
    """Run a CLI in-process as `python -m` would: (exit status, stderr)."""
    err = io.StringIO()
    code: int | str | None = 0
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            run_cli(stage.main(), argv)
        except SystemExit as done:
            code = done.code
    return (code if isinstance(code, int) else 1), err.getvalue()


def build(root: Path) -> None:
    """Run every buildable stage once, in order, on the pipeline folder."""
    (root / "benchmark.tsv").write_text(  # as Snakemake's benchmark: writes it
        "s\th:m:s\tmax_rss\n1.5\t0:00:01\t100\n", encoding="utf-8")
    (root / "config").mkdir(exist_ok=True)  # a config file of the user's
    (root / "config/over.yaml").write_text(
        "models:\n  transformer:\n    train: {lr: 0.001}\n", encoding="utf-8")
    for stage in STAGES:
        if stage.build:
            code, err = run_stage(stage, stage.argv(root, root))
            assert code == 0, f"{stage.name}: {err}"


TEXT = "--pretokenized --src-lang en --tgt-lang de"
STAGES = [
    Stage("synthetic", "phrasenmt.synthetic.corpus",
          "--outdir {o}/raw/ --train-size 150 --dev-size 12 --test-size 12 "
          "--agreement-items-per-bin 1 --max-doc-sentences 4",
          ints={"--train-size": 1, "--dev-size": 1, "--seed": 0,
                "--max-sentence-tokens": 8, "--agreement-items-per-bin": 0},
          floats={"--rate-pp": 0.0}),
    Stage("clean train", "phrasenmt.data.clean",
          f"--src-in {{r}}/raw/train.en --tgt-in {{r}}/raw/train.de {TEXT} "
          "--filter --max-len 60 --max-ratio 3 "
          "--sidecar {r}/raw/train.docs {o}/data/train.docs "
          "--sidecar {r}/raw/train.align {o}/data/train.align "
          "--src-out {o}/data/train.en --tgt-out {o}/data/train.de "
          "--stats {o}/data/train.stats",
          ints={"--max-len": 1, "--workers": 1}, floats={"--max-ratio": 1.0},
          aligned=("raw/train.en", "raw/train.de", "raw/train.docs",
                   "raw/train.align")),
    *[Stage(f"clean {split}", "phrasenmt.data.clean",
            f"--src-in {{r}}/raw/{split}.en --tgt-in {{r}}/raw/{split}.de {TEXT} "
            f"--sidecar {{r}}/raw/{split}.docs {{o}}/data/{split}.docs "
            f"--sidecar {{r}}/raw/{split}.trees {{o}}/data/{split}.trees "
            f"--sidecar {{r}}/raw/{split}.align {{o}}/data/{split}.align "
            f"--src-out {{o}}/data/{split}.en --tgt-out {{o}}/data/{split}.de "
            f"--ref-out {{o}}/data/{split}.ref.de --stats {{o}}/data/{split}.stats",
            aligned=(f"raw/{split}.en", f"raw/{split}.de", f"raw/{split}.docs"))
      for split in ("dev", "test")],
    Stage("cleaning table", "phrasenmt.report.cleaning",
          "--stats {r}/data/train.stats --dataset tiny --out {o}/report/cleaning.md"),
    Stage("stats", "phrasenmt.data.stats",
          "--lang-pair en-de --split train {r}/data/train.en {r}/data/train.de "
          "--split dev {r}/data/dev.en {r}/data/dev.de --out {o}/data/stats.tsv",
          aligned=("data/train.en", "data/train.de")),
    Stage("prepare local", "phrasenmt.data.prepare",
          "local --in {r}/raw/test.en --out {o}/local/test.en"),
    Stage("prepare docs", "phrasenmt.data.prepare",
          "local --in {r}/raw/test.docs --docs-for {r}/raw/test.en "
          "--out {o}/local/test.docs", aligned=("raw/test.docs", "raw/test.en")),
    Stage("download", "phrasenmt.data.download",
          "--dataset multi30k --outdir {o}/download/ --mirror {r}/mirror "
          "--manifest {o}/download/MANIFEST", ints={"--retries": 0},
          floats={"--timeout": None}, build=False),
    Stage("bpe learn", "phrasenmt.bpe",
          "learn --src {r}/data/train.en --tgt {r}/data/train.de --merges 60 "
          "--codes {o}/bpe/codes --vocab-src {o}/bpe/learned.en "
          "--vocab-tgt {o}/bpe/learned.de", ints={"--merges": 1,
                                                  "--min-frequency": 1}),
    *[Stage(f"bpe vocab {lang}", "phrasenmt.bpe",
            f"vocab --codes {{r}}/bpe/codes --in {{r}}/data/train.{lang} "
            f"--out {{o}}/bpe/vocab.{lang}") for lang in ("en", "de")],
    *[Stage(f"bpe apply {split}.{lang}", "phrasenmt.bpe",
            f"apply --codes {{r}}/bpe/codes --vocab {{r}}/bpe/vocab.{lang} "
            f"--threshold 1 --in {{r}}/data/{split}.{lang} "
            f"--out {{o}}/bpe/{split}.bpe.{lang}", ints={"--threshold": 0})
      for split in ("train", "dev", "test") for lang in ("en", "de")],
    Stage("spm learn", "phrasenmt.bpe",
          "spm-learn --in {r}/data/train.en {r}/data/train.de --vocab-size 90 "
          "--model {o}/bpe/spm.joint.model --seed 1",
          ints={"--vocab-size": 1, "--seed": 1},
          floats={"--character-coverage": 0.9}),
    Stage("spm copy", "phrasenmt.bpe",
          "spm-copy --in {r}/bpe/spm.joint.model --model {o}/bpe/spm.copy.model"),
    Stage("spm apply", "phrasenmt.bpe",
          "apply --sentencepiece {r}/bpe/spm.joint.model --in {r}/data/test.de "
          "--out {o}/bpe/test.spm.de"),
    # one eflomal sampler, not its default 3, sampling a fifth of its default
    # iterations: each of the stage's runs (the full-disk test of
    # test_output_sets.py runs it once per output, and once whole) costs little
    Stage("align run", "phrasenmt.align.__main__",
          "run --backend eflomal --samplers 1 --rel-iterations 0.2 "
          "--src {r}/data/train.en "
          "--tgt {r}/data/train.de --heldout test {r}/data/test.en {r}/data/test.de "
          "--heldout-dir {o}/align/heldout/ "
          "--fwd {o}/align/train.fwd --rev {o}/align/train.rev --seed 1",
          ints={"--seed": 0, "--threads": 1, "--samplers": 1},
          floats={"--rel-iterations": 0.0},
          aligned=("data/train.en", "data/train.de")),
    Stage("align symmetrize", "phrasenmt.align.__main__",
          "symmetrize --fwd {r}/align/train.fwd --rev {r}/align/train.rev "
          "--src {r}/data/train.en --tgt {r}/data/train.de "
          "--out {o}/align/train.sym",
          aligned=("align/train.fwd", "align/train.rev", "data/train.en",
                   "data/train.de")),
    Stage("aer", "phrasenmt.evaluate.aer",
          "--gold {r}/data/train.align --pred {r}/align/train.sym "
          "--src {r}/data/train.en --tgt {r}/data/train.de --out {o}/eval/aer.json",
          aligned=("data/train.align", "align/train.sym", "data/train.en")),
    Stage("phrases", "phrasenmt.phrases",
          "--src {r}/data/train.en --tgt {r}/data/train.de "
          "--alignment {r}/align/train.sym --tgt-lang de --min-count 1 "
          "--out-phrases {o}/phrases/phrases.tsv --out-filters "
          "{o}/phrases/filters.tsv --out-fertility {o}/phrases/train.fert4 "
          "--out-fertility2 {o}/phrases/train.fert2",
          ints={"--min-count": 1, "--max-length": 2},
          aligned=("data/train.en", "data/train.de", "align/train.sym")),
    Stage("fertility", "phrasenmt.fertility",
          "--src {r}/data/test.en --tgt {r}/data/test.de "
          "--alignment {r}/data/test.align --phrases {r}/phrases/phrases.tsv "
          "--out-fert4 {o}/phrases/test.gold.fert4 "
          "--out-fert2 {o}/phrases/test.gold.fert2", ints={"--max-length": 1},
          aligned=("data/test.en", "data/test.de", "data/test.align")),
    Stage("parse gold", "phrasenmt.parse",
          "gold --text {r}/data/test.en --gold {r}/data/test.trees "
          "--out {o}/parse/test.trees", aligned=("data/test.en", "data/test.trees")),
    Stage("parse stanza", "phrasenmt.parse",
          "stanza --text {r}/data/test.en --stanza-dir {r}/stanza "
          "--out {o}/parse/stanza.trees", build=False),
    Stage("segment ngram", "phrasenmt.segment",
          "--method ngram --bpe {r}/bpe/test.bpe.en --out {o}/parse/test.ngram",
          ints={"--max-phrase": 1}),
    Stage("segment parse", "phrasenmt.segment",
          "--method parse --bpe {r}/bpe/test.bpe.en --trees {r}/parse/test.trees "
          "--out {o}/parse/test.parse", aligned=("bpe/test.bpe.en",
                                                 "parse/test.trees")),
    Stage("embeddings concat", "phrasenmt.embeddings",
          "concat --text {r}/data/train.de --phrases {r}/phrases/phrases.tsv "
          "--out {o}/emb/train.joined"),
    Stage("embeddings train", "phrasenmt.embeddings",
          "train --text {r}/emb/train.joined --phrases {r}/phrases/phrases.tsv "
          "--out-dir {o}/emb/ --dim 8 --epoch 1 --threads 1",
          ints={"--dim": 1, "--epoch": 1, "--minn": 0, "--maxn": 0,
                "--threads": 1, "--seed": 0, "--bucket": 1}),
    Stage("train", "phrasenmt.train",
          f"--spec {shlex.quote(TINY)} --train-src {{r}}/bpe/train.bpe.en "
          "--train-tgt {r}/bpe/train.bpe.de --dev-src {r}/bpe/dev.bpe.en "
          "--dev-tgt {r}/bpe/dev.bpe.de --outdir {o}/models/transformer/ --seed 1 "
          "--threads 1 --device cpu --no-progress",
          ints={"--seed": 0, "--threads": 1},
          aligned=("bpe/train.bpe.en", "bpe/train.bpe.de")),
    Stage("average", "phrasenmt.average",
          "--checkpoint-dir {r}/models/transformer/checkpoints "
          "--summary {r}/models/transformer/summary.json "
          "--out {o}/models/transformer/averaged.pt"),
    Stage("translate", "phrasenmt.translate",
          "--checkpoint {r}/models/transformer/averaged.pt "
          "--input {r}/bpe/test.bpe.en --output {o}/tr/test.tok --beam 2 "
          "--batch-size 4 --threads 1 --device cpu",
          ints={"--beam": 1, "--batch-size": 1, "--threads": 1},
          floats={"--lenpen": 0.0, "--max-len-a": 0.0, "--max-len-b": 0.0},
          empty_ok=("bpe/test.bpe.en",), whole_words=("bpe/test.bpe.en",)),
    Stage("translate score", "phrasenmt.translate",
          "score --checkpoint {r}/models/transformer/averaged.pt "
          "--src {r}/bpe/test.bpe.en --tgt {r}/bpe/test.bpe.de "
          "--output {o}/tr/test.scores --batch-size 4 --threads 1 --device cpu",
          ints={"--batch-size": 1, "--threads": 1},
          aligned=("bpe/test.bpe.en", "bpe/test.bpe.de"),
          empty_ok=("bpe/test.bpe.en", "bpe/test.bpe.de"),
          whole_words=("bpe/test.bpe.en", "bpe/test.bpe.de")),
    Stage("detokenize", "phrasenmt.data.detokenize",
          "--lang de --in {r}/tr/test.tok --out {o}/tr/test.txt",
          empty_ok=("tr/test.tok",)),
    Stage("bleu", "phrasenmt.evaluate.bleu",
          "--system transformer --testset test --hyp {r}/tr/test.txt "
          "--ref {r}/data/test.ref.de --hyp-tok {r}/tr/test.tok "
          "--ref-tok {r}/data/test.de --baseline-name transformer "
          "--baseline-hyp {r}/tr/test.txt --bootstrap 20 --seed 1 "
          "--out {o}/eval/transformer/test.json", ints={"--bootstrap": 1,
                                                       "--seed": 1},
          aligned=("tr/test.txt", "data/test.ref.de", "tr/test.tok",
                   "data/test.de")),
    Stage("multiseed", "phrasenmt.evaluate.multiseed",
          "--system transformer --baseline-name copy --testset test "
          "--ref {r}/data/test.ref.de --hyp {r}/tr/test.txt "
          "--baseline-hyp {r}/tr/test.txt --seeds 1 --trials 20 --seed 1 "
          "--out {o}/eval/transformer/multiseed.json",
          ints={"--trials": 1, "--seed": 0, "--seeds": 0},
          aligned=("tr/test.txt", "data/test.ref.de")),
    Stage("length", "phrasenmt.evaluate.length",
          "--src {r}/data/test.en --ref {r}/data/test.de "
          "--hyp transformer={r}/tr/test.tok --bins 5,10,20 --testset test "
          "--out {o}/analysis/length_test.tsv",
          aligned=("data/test.en", "data/test.de", "tr/test.tok")),
    Stage("reordering", "phrasenmt.evaluate.reordering",
          "--src {r}/data/test.en --ref {r}/data/test.de --align {r}/data/test.align "
          "--hyp transformer:1={r}/tr/test.tok --bins 0,3 --testset test "
          "--out {o}/analysis/reordering_test.tsv",
          aligned=("data/test.en", "data/test.de", "data/test.align", "tr/test.tok")),
    Stage("reordering table", "phrasenmt.report.segments",
          "reordering --tsv {r}/analysis/reordering_test.tsv --order transformer "
          "--out-md {o}/report/reordering.md --out-tex {o}/report/reordering.tex "
          "--out-csv {o}/report/reordering.csv"),
    Stage("lingeval prepare", "phrasenmt.evaluate.lingeval",
          "prepare --json {r}/raw/test.lingeval.json --out-src {o}/lingeval/pairs.en "
          "--out-tgt {o}/lingeval/pairs.de --out-trees {o}/lingeval/pairs.trees"),
    *[Stage(f"lingeval bpe {lang}", "phrasenmt.bpe",
            f"apply --codes {{r}}/bpe/codes --in {{r}}/lingeval/pairs.{lang} "
            f"--out {{o}}/lingeval/pairs.bpe.{lang}") for lang in ("en", "de")],
    Stage("lingeval score", "phrasenmt.translate",
          "score --checkpoint {r}/models/transformer/averaged.pt "
          "--src {r}/lingeval/pairs.bpe.en --tgt {r}/lingeval/pairs.bpe.de "
          "--output {o}/lingeval/transformer.txt --device cpu",
          aligned=("lingeval/pairs.bpe.en", "lingeval/pairs.bpe.de"),
          whole_words=("lingeval/pairs.bpe.en", "lingeval/pairs.bpe.de")),
    Stage("lingeval evaluate", "phrasenmt.evaluate.lingeval",
          "evaluate --json {r}/raw/test.lingeval.json "
          "--scores transformer={r}/lingeval/transformer.txt "
          "--out {o}/analysis/agreement.tsv"),
    Stage("multiword", "phrasenmt.evaluate.multiword",
          "--phrases {r}/phrases/phrases.tsv --ref {r}/data/test.de "
          "--hyp transformer={r}/tr/test.tok --testset test "
          "--out {o}/analysis/multiword_test.tsv",
          aligned=("data/test.de", "tr/test.tok")),
    Stage("multiseed against itself", "phrasenmt.evaluate.multiseed",
          "--system transformer --baseline-name transformer --testset test "
          "--ref {r}/data/test.ref.de --hyp {r}/tr/test.txt "
          "--baseline-hyp {r}/tr/test.txt --seeds 1 --trials 20 --seed 1 "
          "--out {o}/eval/transformer/test.all.json",
          aligned=("tr/test.txt", "data/test.ref.de")),
    Stage("results table", "phrasenmt.report.tables",
          "main --eval {r}/eval/transformer/test.all.json "
          "--seed-eval {r}/eval/transformer/test.json "
          "--summary transformer={r}/models/transformer/summary.json "
          "--baseline transformer --order transformer --alpha 0.05 "
          "--out-md {o}/report/results.md --out-tex {o}/report/results.tex "
          "--out-csv {o}/report/results.csv "
          "--out-timing-csv {o}/timing/results.csv", floats={"--alpha": 0.0}),
    Stage("length figure", "phrasenmt.report.figures",
          "length --tsv {r}/analysis/length_test.tsv --testset test "
          "--order transformer --out-png {o}/report/length.png "
          "--out-svg {o}/report/length.svg"),
    Stage("agreement figure", "phrasenmt.report.figures",
          "agreement --tsv {r}/analysis/agreement.tsv --order transformer "
          "--out-png {o}/report/agreement.png --out-svg {o}/report/agreement.svg"),
    Stage("learning curves", "phrasenmt.report.learning_curves",
          "--metrics transformer:1={r}/models/transformer/metrics.tsv "
          "--out {o}/analysis/learning_curves.tsv"),
    Stage("training runs table", "phrasenmt.report.training_runs",
          "--summary transformer:1={r}/models/transformer/summary.json "
          "--out-md {o}/report/training_runs.md --out-csv {o}/report/training_runs.csv "
          "--out-timing-csv {o}/timing/training_runs.csv"),
    Stage("learning curves figure", "phrasenmt.report.learning_curves_figure",
          "--tsv {r}/analysis/learning_curves.tsv --order transformer --dataset toy "
          "--out-png {o}/report/learning_curves.png "
          "--out-svg {o}/report/learning_curves.svg"),
    Stage("ablation table", "phrasenmt.report.ablation",
          "--eval transformer={r}/eval/transformer/test.all.json "
          "--seed-eval transformer={r}/eval/transformer/test.json "
          "--summary transformer={r}/models/transformer/summary.json "
          "--benchmark transformer={r}/benchmark.tsv "
          "--hyp transformer={r}/tr/test.tok --baseline transformer "
          "--order transformer --testset test --alpha 0.05 "
          "--out-md {o}/report/ablation.md --out-tex {o}/report/ablation.tex "
          "--out-csv {o}/report/ablation.csv "
          "--out-timing-csv {o}/timing/ablation.csv", floats={"--alpha": 0.0}),
    Stage("claims table", "phrasenmt.report.claims",
          "--dataset toy --direction en-de --models pr_max_attn_ta transformer "
          "--ref {r}/data/test.ref.de --src {r}/data/test.en "
          "--lingeval-json {r}/raw/test.lingeval.json "
          # the reference as both "translations": models that learned, so the
          # baseline guard lets every claim read its files
          "--run pr_max_attn_ta 1 hyp={r}/data/test.ref.de "
          "lingeval={r}/lingeval/transformer.txt "
          "--run transformer 1 hyp={r}/data/test.ref.de "
          "lingeval={r}/lingeval/transformer.txt --trials 20 --seed 1 "
          "--out-md {o}/report/claims.md --out-tex {o}/report/claims.tex "
          "--out-csv {o}/report/claims.csv --out-timing-csv {o}/timing/claims.csv",
          ints={"--trials": 1, "--seed": 0}, floats={"--alpha": 0.0},
          aligned=("data/test.ref.de", "data/test.en")),
    # the other families' commands: bad options and output paths only (their
    # inputs need models and data the tiny pipeline above does not build)
    Stage("cohesion fit", "phrasenmt.evaluate.cohesion",
          "fit --train {r}/data/train.de --dims 4 --seed 1 --max-lines 100 "
          "--out {o}/cohesion/lsa.pkl",
          ints={"--dims": 1, "--seed": 0, "--max-lines": 1}, build=False),
    Stage("contrastive prepare", "phrasenmt.evaluate.contrastive",
          "prepare --format lingeval --json {r}/raw/test.lingeval.json --context 1 "
          "--out-items {o}/contrastive/items.json --out-src {o}/contrastive/pairs.src "
          "--out-tgt {o}/contrastive/pairs.tgt "
          "--out-context {o}/contrastive/pairs.ctx.jsonl",
          ints={"--context": 0, "--extracted": 0}, build=False),
    Stage("contrastive bpe", "phrasenmt.evaluate.contrastive",
          "bpe --codes {r}/bpe/codes --vocab-src {r}/bpe/vocab.en "
          "--vocab-tgt {r}/bpe/vocab.de --threshold 1 "
          "--in {r}/contrastive/pairs.ctx.jsonl "
          "--out {o}/contrastive/pairs.ctx.bpe.jsonl", ints={"--threshold": 0},
          build=False),
    Stage("fertility eval", "phrasenmt.evaluate.fertility",
          "--checkpoint {r}/models/conmt/averaged.pt --src {r}/data/test.en "
          "--gold {r}/phrases/test.gold.fert4 --system conmt "
          "--out {o}/analysis/fertility.tsv --threads 1", ints={"--threads": 1},
          build=False),
    Stage("pronouns align", "phrasenmt.evaluate.pronouns",
          "align --src {r}/data/test.en --tgt {r}/data/test.de --train-lines 10 "
          "--seed 1 --threads 1 --out {o}/pronouns/ref.links",
          ints={"--train-lines": 1, "--seed": 0, "--threads": 1}, build=False),
    Stage("segments examples", "phrasenmt.evaluate.segments",
          "examples --src {r}/data/test.en --segments npmt={r}/tr/npmt.segments "
          "--testset test --ref {r}/data/test.de --n 2 --max-words 10 --seed 1 "
          "--out {o}/analysis/examples.tsv",
          ints={"--n": 1, "--max-words": 1, "--seed": 0}, build=False),
    Stage("lm train", "phrasenmt.lm",
          "train --text {r}/data/train.de --order 3 --out {o}/lm/train.arpa",
          ints={"--order": 1}, build=False),
    Stage("reordering gates", "phrasenmt.evaluate.gates",
          "--checkpoint {r}/models/attn_rnn_reorder/averaged.pt "
          "--input {r}/bpe/test.bpe.en --line 1 --out {o}/analysis/gates.tsv",
          ints={"--line": 1}, build=False),
    Stage("gates figure", "phrasenmt.report.gates",
          "--tsv {r}/analysis/gates.tsv --segments {r}/tr/npmt.segments --line 1 "
          "--model npmt --out-png {o}/report/gates.png --out-svg {o}/report/gates.svg",
          ints={"--line": 1}, build=False),
    Stage("train fertility", "phrasenmt.train_fertility",
          "--checkpoint {r}/models/conmt/averaged.pt --train-src {r}/bpe/train.bpe.en "
          "--train-labels {r}/phrases/train.fert4 --dev-src {r}/bpe/dev.bpe.en "
          "--dev-labels {r}/phrases/dev.fert4 --out {o}/models/conmt/fertility.pt "
          "--epochs 1 --lr 0.001 --max-tokens 100 --seed 1 --threads 1",
          ints={"--epochs": 1, "--max-tokens": 1, "--seed": 0, "--threads": 1},
          floats={"--lr": 0.0}, build=False),
    Stage("continuous table", "phrasenmt.report.continuous",
          "multiword --tsv {r}/analysis/multiword_test.tsv --order transformer "
          "--out-md {o}/report/multiword.md --out-tex {o}/report/multiword.tex "
          "--out-csv {o}/report/multiword.csv", build=False),
    Stage("discourse table", "phrasenmt.report.discourse",
          "bleu --eval {r}/eval/transformer/test.json --baseline transformer "
          "--alpha 0.05 --order transformer "
          "--out-md {o}/report/discourse.md --out-tex {o}/report/discourse.tex "
          "--out-csv {o}/report/discourse.csv",
          floats={"--alpha": 0.0}, build=False),
    Stage("npmt table", "phrasenmt.report.npmt",
          "table --eval transformer:greedy={r}/eval/transformer/test.json "
          "--order transformer --testset test --alpha 0.01 "
          "--out-md {o}/report/npmt.md --out-tex {o}/report/npmt.tex "
          "--out-csv {o}/report/npmt.csv",
          floats={"--alpha": 0.0}, build=False),
    Stage("segments table", "phrasenmt.report.segments",
          "segments --tsv {r}/analysis/segments.tsv --order npmt "
          "--out-md {o}/report/segments.md --out-tex {o}/report/segments.tex "
          "--out-csv {o}/report/segments.csv",
          build=False),
    Stage("docs reference", "phrasenmt.docs_reference",
          "--out {o}/docs/reference.md", build=False),
    Stage("docs cli", "phrasenmt.docs_cli", "--out {o}/docs/cli.md", build=False),
    Stage("config schema", "phrasenmt.config_schema", "--out {o}/schemas/config.yaml",
          build=False),
    # the workflow's config.yaml with a file of the user's over it (build() writes it)
    Stage("config check", "phrasenmt.config_check",
          f"--base {REPO / 'config.yaml'} {{r}}/config/over.yaml"),
    # a run folder laid out as the workflow's, results/DATASET/models/MODEL/seedN,
    # with its dataset in config.yaml: its own tests (test_translate_text.py)
    Stage("translate text", "phrasenmt.translate_text",
          "--run {r}/results/synthetic_en_de/models/transformer/seed1 "
          "--input {r}/data/test.en --output {o}/tr/new.de --batch-size 4 "
          "--threads 1 --device cpu", ints={"--batch-size": 1, "--threads": 1},
          build=False),
    Stage("cxmi", "phrasenmt.evaluate.cxmi",
          "--model han_dec --test {r}/bpe/test.bpe.de {r}/scores/own.txt "
          "{r}/scores/none.txt {r}/scores/random.txt --samples 10 --seed 1 "
          "--out {o}/analysis/cxmi.json", ints={"--samples": 1, "--seed": 1},
          build=False),
    Stage("context usage table", "phrasenmt.report.context_usage",
          "table --contrastive {r}/analysis/contrastive.tsv "
          "--eval {r}/eval/transformer/test.json --order transformer "
          "--out-md {o}/report/context.md --out-tex {o}/report/context.tex "
          "--out-csv {o}/report/context.csv", build=False),
]
