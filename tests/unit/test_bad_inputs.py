"""Every stage CLI meets each kind of bad input with one clear line and no output.

Each case runs `python -m phrasenmt.<stage>` as a user would (in a fork of a
warm interpreter: tests/forkrun.py) and checks: a
non-zero exit, no traceback, one `error:` line naming the file and line (or the
key), and that the output file was not created. The tables of docs/bad-input.md
quote these messages.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

from phrasenmt.training.checkpoint import load_file, save_file
from tests import forkrun
from tests.conftest import LOCAL_ENV, REPO
from tests.unit.test_checkpoint import data, run
from tests.unit.test_function_words import ENGLISH, GERMAN, REPEATS

FILES = {
    "s3": b"a b\nc d\ne f\n",
    "t2": b"A B\nC D\n",
    "t3_empty": b"A B\n\nE F\n",
    "s3_utf8": b"a b\n\xff\xfe c\ne f\n",
    "long": b"w1 " * 2000 + b"\n",
    "fwd": b"0-0 1-1\n0-9\n1-0\n",
    "rev": b"0-0\n0-0\n0-0\n",
    "trees": b"(ROOT (S (NP a) (VP b))\n(ROOT (S c d))\n(ROOT (S e f))\n",
    "bad.pt": b"not a checkpoint",
    "lingeval.json": json.dumps([{"source": "a b", "errors": []}]).encode(),
    "s3.docs": b"d1\nd1\nd2\n",
    "short.docs": b"d1\nd1\n",
    "back.docs": b"d1\nd2\nd1\n",
    "u16.en": "a b\nc d\ne f\n".encode("utf-16"),
    "nul.en": b"a\x00b\nc d\ne f\n",
    "midbom.en": b"a b\n\xef\xbb\xbfc d\ne f\n",
    "cr.en": b"a b\rc d\ne f\n",
    "deep.json": b"[" * 50000 + b"]" * 50000,
    "two.json": json.dumps([{"source": "a b", "reference": "c d", "errors": []},
                            {"source": "e f", "reference": "g h", "errors": []}]
                           ).encode(),
    "nan.scores": b"-1.5\nnan\n",
    "sup.align": "0-0 1-\u00b2\n0-0\n0-0\n".encode(),
    "header.vec": b"six hundred 2\nA 0.1 0.2\n",
    "cut.vec": b"615 2\nA 0.1 0.2\nB 0.3 0.1\n",
    "nan.vec": b"2 2\nA 0.1 nan\nB 0.3 0.1\n",
    "zero.vec": b"0 2\n",
    "other.vec": b"2 2\nzz 0.1 0.2\nyy 0.3 0.1\n",
    "neg.summary.json": json.dumps({"steps": 10, "stopped_by": "max_steps",
                                    "best_dev_loss": 1.5, "train_seconds": -7136.0}
                                   ).encode(),
    "e.en": b"",
    "ja.txt": "猫が好きです。\n".encode() * 3,
    "dev.en": "הפגישה עם Sarah ביום שני בבוקר; אין נייר במדפסת, הוסף נייר ונסה שוב.\n"
              .encode() * 20,  # swapped: Hebrew in the English file
    "dev.he": b"The meeting with Sarah is on Monday; add paper and try again.\n" * 20,
    # swapped in one script: German in the English file, English in the German
    "swap.en": "".join(line + "\n" for line in GERMAN * REPEATS).encode(),
    "swap.de": "".join(line + "\n" for line in ENGLISH * REPEATS).encode(),
    "e.de": b"",
    "cut.bpe": b"a b\nc d@@\ne f\n",
    "good.scores": b"-1.0\n-2.0\n-3.0\n",
    "nomargin.yaml": b"claims:\n  - {id: a, paper: P, where: T, statement: s, "
                     b"metric: bleu, system: a, baseline: b, expect: not_higher, "
                     b"source: paper_text, quote: q}\n",
    "badsource.yaml": b"claims:\n  - {id: a, paper: P, where: T, statement: s, "
                      b"metric: bleu, system: a, baseline: b, expect: higher, "
                      b"source: paper, quote: q}\n",
    "positive.scores": b"-1.0\n2.5\n-3.0\n",
    "positive2.scores": b"-1.0\n0.5\n",
    "nolines.json": json.dumps({"lines": 3, "items": [
        {"type": "pronoun_gender", "lines": [0, 1]}, {"type": "pronoun_gender"}]}
        ).encode(),
    "beyond.json": json.dumps({"lines": 3, "items": [
        {"type": "pronoun_gender", "lines": [0, 1]},
        {"type": "pronoun_gender", "lines": [7, 1]}]}).encode(),
    "fert_cut.tsv": (b"system\tlabels\tclasses\tclass\tprecision\trecall\tf1\t"
                     b"support\npconmt_fert2\taligner\t2\t0\t0.92\t0.96\t0.94\t"
                     b"1201\npconmt_fert2\taligner\t2\t1\t0."),
    "mw_cut.tsv": (b"model\ttestset\tsubset\tsentences\tbleu\nconmt\ttest\tall\t"
                   b"100\t23.31\nconmt\ttest\tmultiword\t70\t22.99\npconm"),
}
VEC_SPEC = ('{"arch": "conmt", "preset": "tiny", "model": {"embed_dim": 2, '
            '"word_table": "%s"}}')
CLEAN = ["phrasenmt.data.clean", "--src-lang", "en", "--tgt-lang", "de",
         "--pretokenized", "--src-out", "OUT", "--tgt-out", "OUT.de",
         "--stats", "OUT.tsv"]
TRAIN = ["phrasenmt.train", "--train-tgt", "s3", "--dev-src", "s3", "--dev-tgt", "s3",
         "--outdir", "OUT", "--seed", "1", "--device", "cpu"]
SPEC = '{"arch": "transformer", "preset": "tiny"}'
CTX_SPEC = '{"arch": "ctx_transformer", "preset": "tiny"}'
CXMI = ["phrasenmt.evaluate.cxmi", "--model", "m", "--out", "OUT"]

# (case, argv with OUT for the output, expected message)
CLAIMS = ["phrasenmt.report.claims", "--dataset", "d", "--direction", "en-de",
          "--out-md", "OUT", "--out-tex", "OUT.tex", "--out-csv", "OUT.csv",
          "--out-timing-csv", "OUT.t.csv"]
CASES = [
    ("claim of no gain without a margin", [*CLAIMS, "--claims", "nomargin.yaml"],
     ("error: nomargin.yaml: claim 1 (a): a claim of no gain (expect: not_higher) "
     "needs margin, the equivalence margin in the metric's unit (a positive number, "
     "e.g. 0.5 BLEU)")),
    ("claim of an unknown source kind", [*CLAIMS, "--claims", "badsource.yaml"],
     ("error: badsource.yaml: claim 1 (a): source must be one of paper_table, "
     "paper_text, slides, derived, got 'paper'")),
    ("mismatched line counts", [*CLEAN, "--src-in", "s3", "--tgt-in", "t2"],
     "error: s3: has 3 lines but t2 has 2; parallel files must match"),
    ("empty line", [*CLEAN, "--src-in", "s3", "--tgt-in", "t3_empty"],
     "error: t3_empty:2: empty line"),
    ("invalid UTF-8", [*CLEAN, "--src-in", "s3_utf8", "--tgt-in", "s3"],
     "error: s3_utf8:2: invalid UTF-8 at byte 0"),
    ("over-long line", ["phrasenmt.translate", "--checkpoint", "model.pt",
                        "--input", "long", "--output", "OUT"],
     "error: long:1: line has 2000 tokens, more than"),
    ("unbalanced tree", ["phrasenmt.parse", "gold", "--text", "s3", "--gold", "trees",
                         "--out", "OUT"],
     "error: trees:1: malformed tree"),
    ("alignment index out of range", ["phrasenmt.align", "symmetrize", "--fwd", "fwd",
                                      "--rev", "rev", "--src", "s3", "--tgt", "s3",
                                      "--out", "OUT"],
     "error: fwd:2: link 0-9 out of range"),
    ("unknown architecture", [*TRAIN, "--train-src", "s3", "--spec",
                              '{"arch": "lstmx", "preset": "tiny"}'],
     "error: spec: arch: unknown arch 'lstmx'"),
    ("missing data file", [*TRAIN, "--train-src", "missing.en", "--spec", SPEC],
     "error: missing.en: file not found"),
    ("training source cut inside a word", [*TRAIN, "--train-src", "cut.bpe",
                                           "--spec", SPEC],
     ("error: cut.bpe:2: the line ends inside a word: its last subword 'd@@' "
      "carries the continuation mark '@@' (a line cut short after BPE?)")),
    ("corrupt checkpoint (translate)", ["phrasenmt.translate", "--checkpoint", "bad.pt",
                                        "--input", "s3", "--output", "OUT"],
     "error: bad.pt: corrupt or truncated checkpoint"),
    ("corrupt checkpoint (average)", ["phrasenmt.average", "--checkpoint-dir", "ckpts",
                                      "--last", "1", "--out", "OUT"],
     "error: ckpts/checkpoint_1.pt: corrupt or truncated checkpoint"),
    ("Lingeval JSON missing a field", ["phrasenmt.evaluate.lingeval", "prepare",
                                       "--json", "lingeval.json", "--out-src", "OUT",
                                       "--out-tgt", "OUT.de"],
     "error: lingeval.json: item 0: missing key 'reference'"),
    ("docs file with a different line count",
     [*TRAIN, "--train-src", "s3", "--spec", CTX_SPEC, "--docs", "short.docs,s3.docs"],
     "error: short.docs: has 2 lines but s3 has 3"),
    ("document id that reappears",
     [*TRAIN, "--train-src", "s3", "--spec", CTX_SPEC, "--docs", "s3.docs,back.docs"],
     "error: back.docs:3: document 'd1' reappears after document 'd2'"),
    ("docs for a sentence-level model", ["phrasenmt.translate", "--checkpoint",
                                         "model.pt", "--input", "s3", "--docs",
                                         "s3.docs", "--output", "OUT"],
     "error: --docs: the model reads no document context"),
    ("UTF-16 file", [*CLEAN, "--src-in", "u16.en", "--tgt-in", "s3"],
     "error: u16.en:1: UTF-16 text; convert it to UTF-8"),
    ("NUL byte", [*CLEAN, "--src-in", "nul.en", "--tgt-in", "s3"],
     "error: nul.en:1: NUL byte at column 2"),
    ("byte-order mark inside a file", [*CLEAN, "--src-in", "midbom.en", "--tgt-in", "s3"],
     "error: midbom.en:2: byte-order mark at column 1"),
    ("old-Mac line ends", [*CLEAN, "--src-in", "cr.en", "--tgt-in", "s3"],
     "error: cr.en:1: carriage return (a line ending inside the line) at column 4"),
    ("JSON nested too deeply", ["phrasenmt.evaluate.lingeval", "prepare",
                                "--json", "deep.json", "--out-src", "OUT",
                                "--out-tgt", "OUT.de"],
     "error: deep.json: invalid JSON: nested too deeply"),
    ("NaN score", ["phrasenmt.evaluate.lingeval", "evaluate", "--json", "two.json",
                   "--scores", "m=nan.scores", "--out", "OUT"],
     ("error: nan.scores:2: a log-probability expected a finite number (ASCII "
      "digits), got 'nan'")),
    ("positive log-probability (lingeval)",
     ["phrasenmt.evaluate.lingeval", "evaluate", "--json", "two.json",
      "--scores", "m=positive2.scores", "--out", "OUT"],
     "error: positive2.scores:2: a log-probability must be <= 0.0, got 0.5"),
    ("Pharaoh link in superscript digits", ["phrasenmt.align", "symmetrize", "--fwd",
                                            "sup.align", "--rev", "rev", "--src", "s3",
                                            "--tgt", "s3", "--out", "OUT"],
     "error: sup.align:1: malformed alignment link '1-\u00b2', expected i-j (ASCII"),
    ("zero output length cap", ["phrasenmt.translate", "--checkpoint", "model.pt",
                                "--input", "s3", "--max-len-a", "0", "--max-len-b",
                                "0", "--output", "OUT"],
     ("error: --max-len-b: --max-len-a 0 --max-len-b 0 cap the output of line 1 "
     "(2 tokens) at 0 token(s) (</s> included): no room for a word")),
    ("embedding table header not two integers",
     [*TRAIN, "--train-src", "s3", "--spec", VEC_SPEC % "header.vec"],
     "error: header.vec:1: header 'six hundred 2' is not two integers"),
    ("embedding table cut short", [*TRAIN, "--train-src", "s3", "--spec",
                                   VEC_SPEC % "cut.vec"],
     "error: cut.vec:1: header says 615 vectors but the file has 2"),
    ("NaN in an embedding table", [*TRAIN, "--train-src", "s3", "--spec",
                                   VEC_SPEC % "nan.vec"],
     "error: nan.vec:2: component 2 is not a finite number"),
    ("word table with no words", [*TRAIN, "--train-src", "s3", "--spec",
                                  VEC_SPEC % "zero.vec"],
     "error: zero.vec:1: header says 0 vectors: a word table without words"),
    ("word table of other data", [*TRAIN, "--train-src", "s3", "--spec",
                                  VEC_SPEC % "other.vec"],
     "error: other.vec: covers none of the 6 target tokens (e.g. 'a' is not in it)"),
    ("negative training time in a summary", [
        "phrasenmt.report.training_runs", "--summary", "t:1=neg.summary.json",
        "--out-md", "OUT", "--out-csv", "OUT.csv", "--out-timing-csv", "OUT.t.csv"],
     "error: neg.summary.json: key 'train_seconds' is -7136.0, not a non-negative"),
    ("train.max_len that no training pair fits", [
        *TRAIN, "--train-src", "s3", "--spec",
        '{"arch": "transformer", "preset": "tiny", "train": {"max_len": 1}}'],
     ("error: s3: no training pairs of at most 1 tokens (train.max_len 1, in BPE "
      "pieces): raise it")),
    ("empty training file (--dataset local)", [
        "phrasenmt.data.prepare", "--dataset", "local", "--src", "en", "--tgt", "de",
        "--train-src", "e.en", "--train-tgt", "e.de", "--dev-src", "s3", "--dev-tgt",
        "s3", "--test", "t=s3,s3", "--outdir", "OUT"],
     "error: e.en: the file is empty: no sentences"),
    ("BPE'd input cut inside a word", ["phrasenmt.translate", "--checkpoint",
                                       "model.pt", "--input", "cut.bpe", "--output",
                                       "OUT"],
     ("error: cut.bpe:2: the line ends inside a word: its last subword 'd@@' "
      "carries the continuation mark '@@' (a line cut short after BPE?)")),
    ("NaN weights (translate)", ["phrasenmt.translate", "--checkpoint", "nan.pt",
                                 "--input", "s3", "--output", "OUT"],
     ("error: nan.pt: parameter encoder.layers.0.ff.fc1.weight has NaN values (1 of "
      "512); the file was altered or made by a diverged run")),
    ("NaN weights (average)", ["phrasenmt.average", "--checkpoint-dir", "nanckpts",
                               "--last", "1", "--out", "OUT"],
     ("error: nanckpts/checkpoint_1.pt: parameter encoder.layers.0.ff.fc1.weight has "
      "NaN values")),
    ("positive log-probability (CXMI)", [*CXMI, "--test", "s3", "positive.scores",
                                         "good.scores", "good.scores"],
     "error: positive.scores:2: a log-probability must be <= 0.0, got 2.5"),
    ("contrastive item without lines (CXMI)", [*CXMI, "--items", "nolines.json",
                                               "s3", *["good.scores"] * 3],
     "error: nolines.json: item 1: missing key 'lines'"),
    ("contrastive item line out of range (CXMI)",
     [*CXMI, "--items", "beyond.json", "s3", *["good.scores"] * 3],
     ("error: beyond.json: item 1: line 7 is out of range: the file's 'lines' is 3 "
      "(valid: 0..2)")),
    ("SentencePiece vocabulary larger than the text gives",
     ["phrasenmt.bpe", "spm-learn", "--in", "s3", "--model", "OUT",
      "--vocab-size", "5000"],
     ("error: --vocab-size: 5000 pieces is more than this text can give: "
      "SentencePiece finds at most")),
    ("results TSV cut inside its last row (fertility)",
     ["phrasenmt.report.continuous", "fertility", "--tsv", "fert_cut.tsv", "--order",
      "pconmt_fert2", "--out-md", "OUT", "--out-tex", "OUT.tex", "--out-csv",
      "OUT.csv"],
     "error: fert_cut.tsv:3: the last line has no newline: the file was cut short?"),
    ("results TSV cut inside its last row (multiword)",
     ["phrasenmt.report.continuous", "multiword", "--tsv", "mw_cut.tsv", "--order",
      "conmt", "--out-md", "OUT", "--out-tex", "OUT.tex", "--out-csv", "OUT.csv"],
     "error: mw_cut.tsv:4: the last line has no newline: the file was cut short?"),
    ("beam past its bound", ["phrasenmt.translate", "--checkpoint", "model.pt",
                             "--input", "s3", "--output", "OUT", "--beam",
                             "1000000000000"],
     ("python -m phrasenmt.translate: error: argument --beam: must be in [1, 1000], "
      "got 1000000000000 (see --help)")),
    ("length penalty past its bound", ["phrasenmt.translate", "--checkpoint",
                                       "model.pt", "--input", "s3", "--output", "OUT",
                                       "--lenpen", "500"],
     ("python -m phrasenmt.translate: error: argument --lenpen: must be in [0, 10.0], "
      "got 500 (see --help)")),
    ("source and target swapped (prepare local)", [
        "phrasenmt.data.prepare", "local", "--in", "dev.en", "--out", "OUT",
        "--evaluation", "--pair", "dev.he", "--side", "src", "--langs", "en", "he"],
     ("error: dev.en: 91 % of its letters are Hebrew, the script of the target "
      "language he, and 9 % Latin: source and target swapped?")),
    ("source and target swapped in one script (prepare local)", [
        "phrasenmt.data.prepare", "local", "--in", "swap.en", "--out", "OUT",
        "--pair", "swap.de", "--side", "src", "--langs", "en", "de"],
     ("error: swap.en: looks like de, not en (51 % of its words are de function "
      "words, 2 % en ones), and swap.de like en, not de (55 % en, 2 % de): source "
      "and target swapped?")),
    ("not a SentencePiece model", ["phrasenmt.bpe", "apply", "--sentencepiece", "s3",
                                   "--in", "s3", "--out", "OUT"],
     "error: s3: not a SentencePiece model file"),
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """The bad files, a tiny trained model and a checkpoint folder with a bad file."""
    root = tmp_path_factory.mktemp("bad")
    for name, content in FILES.items():
        (root / name).write_bytes(content)
    run(data(root), root / "model", 1)
    (root / "model.pt").write_bytes(
        (root / "model" / "checkpoints" / "checkpoint_1.pt").read_bytes())
    (root / "ckpts").mkdir()
    (root / "ckpts" / "checkpoint_1.pt").write_bytes(b"truncated")
    payload = load_file(root / "model.pt")
    payload["model"]["encoder.layers.0.ff.fc1.weight"][0, 0] = math.nan
    (root / "nanckpts").mkdir()
    for path in (root / "nan.pt", root / "nanckpts" / "checkpoint_1.pt"):
        save_file(payload, path)
    return root


@pytest.mark.parametrize("argv, message", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_input_gives_one_clear_line(folder: Path, argv: list[str], message: str):
    out = folder / f"out-{abs(hash(message))}"
    argv = [str(out) if a == "OUT" else a.replace("OUT", str(out)) for a in argv]
    result = forkrun.run([sys.executable, "-m", *argv], cwd=folder, timeout=120)
    lines = result.stderr.strip().splitlines()
    assert result.returncode != 0
    assert "Traceback" not in result.stderr, result.stderr
    assert lines[-1].startswith(message), result.stderr
    assert not [p for p in folder.iterdir() if p.name.startswith(out.name)]


@pytest.mark.parametrize("override, message", [
    ("models={'transformer': {'arch': 'lstmx', 'preset': 'tiny'}}",
     "invalid configuration: models.transformer.arch: 'lstmx' is not one of"),
    ("decode={'beam': 'wide'}",
     "invalid configuration: decode.beam: 'wide' is not of type 'integer'"),
])
def test_bad_config_names_the_key(override: str, message: str):
    cmd = [sys.executable, "-m", "snakemake", "-n", "--config", override]
    result = forkrun.run(cmd, cwd=REPO, timeout=120, env=LOCAL_ENV)
    assert result.returncode != 0
    assert message in result.stdout + result.stderr, result.stderr[-2000:]
    assert "Traceback" not in result.stdout + result.stderr
