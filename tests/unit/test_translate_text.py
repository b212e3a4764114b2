"""`python -m phrasenmt.translate_text`: new text through the workflow's steps.

A tiny Transformer is trained for a few updates on BPE'd text laid out as the
workflow lays out config.yaml's synthetic_en_de (results/DATASET/bpe/,
results/DATASET/models/MODEL/seedN/); the command's output must be what the
stage commands give one after the other (bpe apply, translate, detokenize),
from a file or stdin, and a document-level model translates with --docs.
Bad input is one line naming the run folder, the file or the option.
"""

from __future__ import annotations

import io
import shlex
import shutil
import sys
from pathlib import Path

import pytest
import torch
import yaml

from phrasenmt import bpe
from phrasenmt import segment as segment_cli
from phrasenmt import translate as translate_cli
from phrasenmt.data import detokenize as detokenize_cli
from phrasenmt.io import InputError, run_cli
from phrasenmt.models import build_model
from phrasenmt.models.registry import get_model_class
from phrasenmt.text.vocab import Vocabulary
from phrasenmt.training.checkpoint import model_payload, save_file
from phrasenmt.training.data import DataPaths
from phrasenmt.training.spec import resolve_spec
from phrasenmt.training.trainer import Trainer
from phrasenmt.translate_text import Run, build_parser, decode_options, main
from phrasenmt.workflow import npmt as wfn
from tests.conftest import REPO

TINY = {"d_model": 16, "d_ff": 32, "n_heads": 2, "dropout": 0.0}
NEW_TEXT = "w1 w2 w3 .\nw4 w5 , w6 w7 w8 !\nw9 w19\n"  # "!" is not in training

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


@pytest.fixture(autouse=True)
def in_the_repository(monkeypatch):
    """The command reads config.yaml of the working folder, as Snakemake does
    (synthetic_en_de: tokenize false, vocab_threshold 1)."""
    monkeypatch.chdir(REPO)


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    """results/synthetic_en_de with BPE files, a trained transformer run and an
    untrained ctx_transformer run (documents)."""
    root = tmp_path_factory.mktemp("tt") / "results" / "synthetic_en_de"
    g = torch.Generator().manual_seed(0)
    words = [f"w{i}" for i in range(20)]
    text = {}
    for split, n in (("train", 200), ("dev", 10)):
        lines = [" ".join(words[int(i)] for i in torch.randint(0, 20, (int(k),),
                                                               generator=g)) + " ."
                 for k in torch.randint(2, 8, (n,), generator=g)]
        text[split] = (lines, [line.upper() for line in lines])
    (root / "bpe").mkdir(parents=True)
    codes = bpe.learn_codes(bpe.word_counts(text["train"][0] + text["train"][1]), 30)
    (root / "bpe" / "codes").write_text(codes)
    seg = bpe.Segmenter(codes)
    (root / "bpe" / "vocab.en").write_text(
        "\n".join(bpe.subword_vocabulary(seg, text["train"][0])) + "\n")
    for split, (src, tgt) in text.items():
        for lang, lines in (("en", src), ("de", tgt)):
            (root / "bpe" / f"{split}.bpe.{lang}").write_text(
                "".join(seg.line(line) + "\n" for line in lines))
    bpe_file = root / "bpe"
    paths = DataPaths(bpe_file / "train.bpe.en", bpe_file / "train.bpe.de",
                      bpe_file / "dev.bpe.en", bpe_file / "dev.bpe.de")
    run = root / "models" / "transformer" / "seed1"
    spec = resolve_spec({"model": TINY, "train": {
        "max_steps": 6, "max_tokens": 200, "update_tokens": 150, "save_interval": 6,
        "valid_interval": 6, "keep_last": 1, "average_last": 1}})
    trainer = Trainer(spec, paths, run, seed=1, device="cpu", progress_bar=False)
    trainer.run()
    shutil.copy(run / "checkpoints" / "checkpoint_6.pt", run / "averaged.pt")
    for arch, extra in (("ctx_transformer", {"context_size": 1}),
                        ("pr_max_attn_ta", {}), ("pr_max_attn_ta_parse", {})):
        untrained(trainer, arch, extra, root / "models" / arch / "seed1")
    return root


def untrained(trainer: Trainer, arch: str, extra: dict, run: Path) -> None:
    """An untrained `arch` model with the trained run's vocabularies in `run`."""
    run.mkdir(parents=True)
    cls = get_model_class(arch)
    src_vocab, tgt_vocab = trainer.src_vocab, trainer.tgt_vocab
    cfg = cls.config_class(src_vocab_size=len(src_vocab), tgt_vocab_size=len(tgt_vocab),
                           **TINY, **extra)
    torch.manual_seed(0)
    save_file(model_payload(arch, build_model(arch, cfg), src_vocab, tgt_vocab,
                            {"arch": arch}), run / "averaged.pt")


def test_new_text_is_translated_as_the_stage_commands_do(results: Path, tmp_path: Path):
    (tmp_path / "new.en").write_text(NEW_TEXT)
    run = results / "models" / "transformer" / "seed1"
    assert main(["--run", str(run), "--input", str(tmp_path / "new.en"),
                 "--output", str(tmp_path / "out.de"),
                 "--device", "cpu", "--threads", "1"]) == 0
    # the workflow's steps on a pre-tokenized dataset: apply_bpe, translate, detokenize
    bpe.main(["apply", "--codes", str(results / "bpe" / "codes"), "--vocab",
              str(results / "bpe" / "vocab.en"), "--threshold", "1",
              "--in", str(tmp_path / "new.en"), "--out", str(tmp_path / "new.bpe")])
    translate_cli.main(["--checkpoint", str(run / "averaged.pt"), "--input",
                        str(tmp_path / "new.bpe"), "--output", str(tmp_path / "new.tok"),
                        "--beam", "4", "--lenpen", "0.6", "--max-len-a", "1.5",
                        "--max-len-b", "10", "--device", "cpu"])
    detokenize_cli.main(["--lang", "de", "--in", str(tmp_path / "new.tok"),
                         "--out", str(tmp_path / "want.de")])
    got = (tmp_path / "out.de").read_text()
    assert got == (tmp_path / "want.de").read_text()
    assert len(got.splitlines()) == 3 and "@@" not in got


def test_an_empty_line_gets_an_empty_line(results: Path, tmp_path: Path, monkeypatch,
                                          capsys):
    """Paragraphs apart by empty lines keep their lines: each empty line (or
    one of invisible format characters only) gets an empty line, and every
    other line the translation it gets without them; a line too long is named
    by its own line number."""
    run = results / "models" / "transformer" / "seed1"
    (tmp_path / "new.en").write_text(NEW_TEXT)
    lines = NEW_TEXT.splitlines()
    (tmp_path / "gaps.en").write_text(f"\n{lines[0]}\n\n\u200b\n{lines[1]}\n{lines[2]}\n\n")
    for name in ("new", "gaps"):
        assert main(["--run", str(run), "--input", str(tmp_path / f"{name}.en"),
                     "--output", str(tmp_path / f"{name}.de"), "--device", "cpu"]) == 0
    want = (tmp_path / "new.de").read_text().splitlines()
    got = (tmp_path / "gaps.de").read_text().splitlines()
    assert got == ["", want[0], "", "", want[1], want[2], ""]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\n\n")))
    capsys.readouterr()
    assert main(["--run", str(run), "--device", "cpu"]) == 0
    assert capsys.readouterr().out == "\n\n"
    (tmp_path / "long.en").write_text("\nw1\n\n" + "w2 " * 2000 + ".\n")
    with pytest.raises(InputError, match=r"long.en:4: line has 2001 tokens"):
        main(["--run", str(run), "--input", str(tmp_path / "long.en"),
              "--output", str(tmp_path / "long.de"), "--device", "cpu"])


def test_ngram_phrases_are_made_as_the_segment_rule_makes_them(results: Path,
                                                               tmp_path: Path,
                                                               monkeypatch):
    (tmp_path / "new.en").write_text(NEW_TEXT)
    run = results / "models" / "pr_max_attn_ta" / "seed1"
    sides = []
    decode = translate_cli.decode_lines
    monkeypatch.setattr(translate_cli, "decode_lines",
                        lambda *a: sides.append(a[3:]) or decode(*a))
    main(["--run", str(run), "--input", str(tmp_path / "new.en"), "--output",
          str(tmp_path / "out.de"), "--device", "cpu"])
    bpe.main(["apply", "--codes", str(results / "bpe" / "codes"), "--vocab",
              str(results / "bpe" / "vocab.en"), "--threshold", "1",
              "--in", str(tmp_path / "new.en"), "--out", str(tmp_path / "new.bpe")])
    segment_cli.main(["--method", "ngram", "--bpe", str(tmp_path / "new.bpe"),
                      "--out", str(tmp_path / "new.phrases")])
    translate_cli.main(["--checkpoint", str(run / "averaged.pt"), "--input",
                        str(tmp_path / "new.bpe"), "--output", str(tmp_path / "new.tok"),
                        "--side", f"phrases={tmp_path / 'new.phrases'}",
                        "--beam", "4", "--lenpen", "0.6", "--device", "cpu"])
    detokenize_cli.main(["--lang", "de", "--in", str(tmp_path / "new.tok"),
                         "--out", str(tmp_path / "want.de")])
    assert (tmp_path / "out.de").read_text() == (tmp_path / "want.de").read_text()
    phrases = (tmp_path / "new.phrases").read_text().splitlines()
    assert sides[0] == ({"phrases": [[int(v) for v in line.split()] for line in phrases]},)


def test_a_word_level_model_reads_the_tokens_without_subwords(tmp_path: Path):
    """NPMT (config.yaml's npmt, synthetic_de_en) decodes the cleaned words with
    the search settings the workflow passes (phrasenmt.workflow.npmt)."""
    data = tmp_path / "results" / "synthetic_de_en"
    run = data / "models" / "npmt" / "seed1"
    run.mkdir(parents=True)
    src_vocab = Vocabulary.build(NEW_TEXT.lower().splitlines())
    tgt_vocab = Vocabulary.build(NEW_TEXT.upper().splitlines())
    cls = get_model_class("npmt")
    cfg = cls.config_class(src_vocab_size=len(src_vocab), tgt_vocab_size=len(tgt_vocab),
                           embed_size=8, encoder_hidden=8, decoder_hidden=8,
                           encoder_layers=1, decoder_layers=1, max_segment_len=2)
    torch.manual_seed(0)
    save_file(model_payload("npmt", build_model("npmt", cfg), src_vocab, tgt_vocab,
                            {"arch": "npmt"}), run / "averaged.pt")
    (tmp_path / "new.de").write_text(NEW_TEXT)
    main(["--run", str(run), "--input", str(tmp_path / "new.de"), "--output",
          str(tmp_path / "out.en"), "--device", "cpu"])
    search = shlex.split(wfn.translate_args(
        experiment_config(), "npmt", "beam"))
    translate_cli.main(["--checkpoint", str(run / "averaged.pt"), "--input",
                        str(tmp_path / "new.de"), "--output", str(tmp_path / "new.tok"),
                        *search, "--device", "cpu"])
    detokenize_cli.main(["--lang", "en", "--in", str(tmp_path / "new.tok"),
                         "--out", str(tmp_path / "want.en")])
    assert (tmp_path / "out.en").read_text() == (tmp_path / "want.en").read_text()
    assert "--lambda1" in search


def experiment_config() -> dict:
    """config.yaml after the workflow's start-up checks."""
    from phrasenmt import experiment
    from phrasenmt.config import read_config_file

    config = read_config_file(REPO / "config.yaml")
    experiment.start(config, [REPO / "config.yaml"])
    return config


def test_decoding_options_are_the_workflows(results: Path, tmp_path: Path):
    """Beam, length penalty, length cap, batch size and precision as the
    translate rule passes them, from config.yaml and a --configfile over it."""
    override = tmp_path / "over.yaml"
    override.write_text("decode: {beam: 3, max_len_b: 7}\n"
                        "models: {transformer: {precision: bf16}}\n")
    run = results / "models" / "transformer" / "seed1"
    decode = yaml.safe_load((REPO / "config.yaml").read_text())["decode"]
    shipped = (str(decode["beam"]), str(decode["lenpen"]), f"{decode['max_len_b']:g}")
    for files, want in (([], (*shipped, "auto")),
                        ([str(override)], ("3", shipped[1], "7", "bf16"))):
        extra = ["--configfile", *files] if files else []
        args = build_parser().parse_args(["--run", str(run), *extra])
        opts = decode_options(Run(args.run, args.configfile), args, "x")
        assert (str(opts.beam), str(opts.lenpen), f"{opts.max_len_b:g}",
                opts.precision) == want


def test_stdin_to_stdout_and_documents(results: Path, tmp_path: Path, monkeypatch,
                                       capsys):
    run = results / "models" / "transformer" / "seed1"
    (tmp_path / "new.en").write_text(NEW_TEXT)
    main(["--run", str(run), "--input", str(tmp_path / "new.en"), "--output",
          str(tmp_path / "file.de"), "--device", "cpu"])
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(NEW_TEXT.encode())))
    capsys.readouterr()
    assert main(["--run", str(run), "--device", "cpu"]) == 0
    assert capsys.readouterr().out == (tmp_path / "file.de").read_text()
    (tmp_path / "new.docs").write_text("d1\nd1\nd2\n")
    ctx = results / "models" / "ctx_transformer" / "seed1"
    assert main(["--run", str(ctx), "--input", str(tmp_path / "new.en"), "--docs",
                 str(tmp_path / "new.docs"), "--output", str(tmp_path / "ctx.de"),
                 "--device", "cpu"]) == 0
    assert len((tmp_path / "ctx.de").read_text().splitlines()) == 3


def test_a_closed_stdin_or_stdout_is_one_line(results: Path, monkeypatch, capsys):
    run = results / "models" / "transformer" / "seed1"
    for stream, message in (("stdin", "error: <stdin>: closed: nothing to read"),
                            ("stdout", "error: <stdout>: closed: nowhere to write")):
        monkeypatch.setattr(sys, stream, None)
        with pytest.raises(SystemExit) as stop:
            run_cli(main, ["--run", str(run), "--device", "cpu"])
        monkeypatch.undo()
        err = capsys.readouterr().err.strip().splitlines()
        assert stop.value.code == 1 and len(err) == 1 and err[0].startswith(message)


@pytest.mark.parametrize("case, message", [
    ("no run folder", "error: {run_missing}: run folder not found"),
    ("no checkpoint", ("error: {run_empty}: no averaged.pt in the run folder: train "
     "and average it first (snakemake --cores 1 ")),
    ("document model without --docs", ("error: --docs: the model reads document "
     "context: give --docs FILE, one document id per input line")),
    ("sentence-level model with --docs", ("error: --docs: the model reads no "
     "document context; drop the option")),
    ("docs of another length", ("error: {tmp}/short.docs: has 1 lines but "
     "{tmp}/new.en has 3; a docs file needs one document id per text line")),
    ("run of another config", ("error: --configfile: model 'transformer_big' of "
     "{run_other} is not in the config (config.yaml); give the --configfile the "
     "run was made with")),
    ("empty line in a document", ("error: {tmp}/gap.en:2: empty line; a "
     "document-level model reads each line in its document's context: remove the "
     "line and its line of --docs")),
    ("invisible line in a document", ("error: {tmp}/invisible.en:2: empty line: it "
     "holds only invisible format characters (U+00AD, U+200B, U+2060); a "
     "document-level model")),
    ("line too long", ("error: {tmp}/long.en:2: line has 2001 tokens as the model "
     "reads it, more than 1023 (its longest input)")),
    ("parse-based phrases", ("error: {run_parse}: model pr_max_attn_ta_parse reads "
     "parse-based source phrases, which the workflow's constituency parse of a test "
     "set provides: add the text as a test set of a local dataset instead")),
])
def test_bad_input_is_one_line(results: Path, tmp_path: Path, capsys, case: str,
                               message: str):
    models = results / "models"
    (tmp_path / "new.en").write_text(NEW_TEXT)
    (tmp_path / "gap.en").write_text("w1 w2\n\nw3\n")
    (tmp_path / "invisible.en").write_text("w1 w2\n\u200b \u2060\u00ad\nw3\n")
    (tmp_path / "long.en").write_text("w1\n" + "w2 " * 2000 + ".\n")
    (tmp_path / "short.docs").write_text("d1\n")
    (tmp_path / "new.docs").write_text("d1\nd1\nd2\n")
    (models / "empty" / "seed1").mkdir(parents=True, exist_ok=True)
    (models / "transformer_big" / "seed1").mkdir(parents=True, exist_ok=True)
    names = {"run_missing": models / "transformer" / "seed9",
             "run_empty": models / "transformer" / "seed1",
             "run_other": models / "transformer_big" / "seed1",
             "run_parse": models / "pr_max_attn_ta_parse" / "seed1",
             "tmp": tmp_path}
    run, extra, text = {
        "no run folder": (names["run_missing"], [], "new.en"),
        "no checkpoint": (results / "models" / "transformer" / "seed2", [], "new.en"),
        "document model without --docs": (models / "ctx_transformer" / "seed1", [],
                                          "new.en"),
        "sentence-level model with --docs": (models / "transformer" / "seed1",
                                             ["--docs", str(tmp_path / "new.docs")],
                                             "new.en"),
        "docs of another length": (models / "ctx_transformer" / "seed1",
                                   ["--docs", str(tmp_path / "short.docs")], "new.en"),
        "run of another config": (names["run_other"], [], "new.en"),
        "empty line in a document": (models / "ctx_transformer" / "seed1",
                                     ["--docs", str(tmp_path / "new.docs")], "gap.en"),
        "invisible line in a document": (models / "ctx_transformer" / "seed1",
                                         ["--docs", str(tmp_path / "new.docs")],
                                         "invisible.en"),
        "line too long": (models / "transformer" / "seed1", [], "long.en"),
        "parse-based phrases": (names["run_parse"], [], "new.en"),
    }[case]
    if case == "no checkpoint":
        run.mkdir(parents=True, exist_ok=True)
        names["run_empty"] = run
    out = tmp_path / "out.de"
    with pytest.raises(SystemExit) as stop:
        run_cli(main, ["--run", str(run), "--input", str(tmp_path / text),
                       "--output", str(out),
                       "--device", "cpu", *extra])
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 1
    assert len(err) == 1 and err[0].startswith(message.format(**names)), err
    assert not out.exists()


def test_a_model_that_decodes_with_the_lm_gets_it_or_a_clear_line(tmp_path: Path,
                                                                  monkeypatch):
    """A model with decode.lm is decoded with the dataset's n-gram LM, as the
    workflow decodes it; without the built LM the command stops naming it."""
    shutil.copy(REPO / "config.yaml", tmp_path / "config.yaml")
    monkeypatch.chdir(tmp_path)  # a working folder of its own: no LM built yet
    run = Path("results/synthetic_de_en/models/npmt/seed1")
    run.mkdir(parents=True)
    over = tmp_path / "lm.yaml"
    over.write_text("models: {npmt: {decode: {lm: true}}}\n")
    lm = Path(wfn.lm_path("synthetic_de_en"))
    with pytest.raises(InputError, match="decode.lm") as err:
        Run(run, [over]).search_args()
    assert str(lm) in str(err.value)
    lm.parent.mkdir(parents=True)
    lm.write_bytes(b"")
    args = Run(run, [over]).search_args()
    assert args[args.index("--lm") + 1] == str(lm) and "--lambda2" in args


def test_a_checkpoint_of_entry_decodes_the_run_with_its_own_settings(
        tmp_path: Path, monkeypatch):
    """--model npmt_lm decodes npmt's run as the workflow decodes the LM row
    (config.yaml: decode {lm: true, lambda2: 0.2}); a name that does not decode
    the run's checkpoint is one line naming --model."""
    shutil.copy(REPO / "config.yaml", tmp_path / "config.yaml")
    monkeypatch.chdir(tmp_path)
    run = Path("results/synthetic_de_en/models/npmt/seed1")
    run.mkdir(parents=True)
    lm = Path(wfn.lm_path("synthetic_de_en"))
    lm.parent.mkdir(parents=True)
    lm.write_bytes(b"")
    assert "--lm" not in Run(run, []).search_args()
    args = Run(run, [], "npmt_lm").search_args()
    assert args == [*shlex.split(wfn.translate_args(experiment_config(), "npmt_lm",
                                                    "beam")), "--lm", str(lm)]
    assert args[args.index("--lambda2") + 1] == "0.2"
    with pytest.raises(InputError) as err:
        Run(run, [], "transformer")
    assert str(err.value).startswith("--model: 'transformer' is not a model of the "
                                     "config")
    assert "(npmt_lm)" in str(err.value)


def test_a_model_with_no_gpu_is_decoded_on_the_cpu(results: Path, tmp_path: Path):
    """`gpus: 0` gives --device cpu, as the workflow's translate rule; --device
    still chooses."""
    over = tmp_path / "cpu.yaml"
    over.write_text("models: {transformer: {gpus: 0}}\n")
    run = results / "models" / "transformer" / "seed1"
    for extra, want in (([], "auto"), (["--configfile", str(over)], "cpu"),
                        (["--configfile", str(over), "--device", "cuda"], "cuda")):
        args = build_parser().parse_args(["--run", str(run), *extra])
        assert decode_options(Run(args.run, args.configfile), args, "x").device == want


def test_an_empty_input_path_and_a_checkpoint_for_a_run_folder(results: Path, capsys):
    run = results / "models" / "transformer" / "seed1"
    with pytest.raises(SystemExit) as stop:
        run_cli(main, ["--run", str(run), "--input", ""])
    assert stop.value.code == 2
    assert "argument --input: an empty path; give a file, or - for stdin" in (
        capsys.readouterr().err)
    with pytest.raises(SystemExit) as stop:
        run_cli(main, ["--run", str(run / "averaged.pt"), "--input", "-"])
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 1
    assert err == (f"error: {run / 'averaged.pt'}: is a file; give the run folder "
                   f"that holds it ({run})")


def test_a_config_whose_entry_differs_from_the_run_s_own_is_refused(results: Path,
                                                                    tmp_path: Path,
                                                                    capsys):
    """The same model name in another experiment's config file: its preset or
    model keys would decode this run with other settings."""
    run = results / "models" / "transformer" / "seed1"
    other = tmp_path / "other.yaml"
    other.write_text("models:\n  transformer:\n    model: {dropout: 0.25}\n")
    with pytest.raises(SystemExit) as stop:
        run_cli(main, ["--run", str(run), "--input", "-", "--configfile", str(other)])
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 1
    assert err.startswith("error: --configfile: models.transformer.model.dropout is 0.25 "
                          "in the config"), err


def test_a_model_file_from_another_run_is_refused(results: Path, tmp_path: Path,
                                                  capsys):
    """averaged.pt copied in from another run (another arch here): refused, not
    translated with that model."""
    copy = tmp_path / "results" / "synthetic_en_de"
    shutil.copytree(results, copy)
    run = copy / "models" / "transformer" / "seed1"
    shutil.copy(copy / "models" / "ctx_transformer" / "seed1" / "averaged.pt",
                run / "averaged.pt")
    (tmp_path / "in.txt").write_text("w1 w2 .\n")
    with pytest.raises(SystemExit) as stop:
        run_cli(main, ["--run", str(run), "--input", str(tmp_path / "in.txt")])
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 1
    assert err.startswith(f"error: {run / 'averaged.pt'}: was not trained by this run: "
                          "its arch is 'ctx_transformer'"), err


def test_text_settings_that_did_not_make_the_run_s_files_are_refused(
        results: Path, tmp_path: Path, capsys):
    """Another experiment's dataset keys (a vocabulary threshold here), or a
    codes file cut since: the dev source, segmented here, is not what the
    workflow wrote, so the model would read pieces it was not trained on."""
    copy = tmp_path / "results" / "synthetic_en_de"
    shutil.copytree(results, copy)
    (copy / "data").mkdir()
    segmented = (copy / "bpe" / "dev.bpe.en").read_text()
    (copy / "data" / "dev.en").write_text(segmented.replace("@@ ", ""))
    run = copy / "models" / "transformer" / "seed1"
    (tmp_path / "in.txt").write_text("w1 w2 .\n")
    argv = ["--run", str(run), "--input", str(tmp_path / "in.txt"),
            "--output", str(tmp_path / "out.txt")]
    with pytest.raises(SystemExit) as stop:  # the run's own settings: the same pieces
        run_cli(main, argv)
    assert (stop.value.code, capsys.readouterr().err) == (0, "")
    other = tmp_path / "other.yaml"
    other.write_text("datasets:\n  synthetic_en_de:\n    bpe: {vocab_threshold: 1000}\n")
    codes = copy / "bpe" / "codes"
    cut = codes.read_text().splitlines()[:5]
    for extra, damage in ((["--configfile", str(other)], None),
                          ([], "\n".join(cut) + "\n")):
        if damage is not None:
            codes.write_text(damage)
        with pytest.raises(SystemExit) as stop:
            run_cli(main, [*argv, *extra])
        err = capsys.readouterr().err.strip()
        assert stop.value.code == 1
        assert err.startswith("error: --configfile: the config's text settings do not "
                              "make the run's files: line 1 of "), err
        assert "(datasets.synthetic_en_de.bpe, or a changed" in err


def test_a_zero_width_space_beside_a_space_goes_as_the_cleaning_step_drops_it(
        results: Path, tmp_path: Path, capsys):
    """The cleaning step removes a zero-width space beside a space before it
    tokenizes; new text goes through the same step."""
    run = results / "models" / "transformer" / "seed1"
    outs = []
    for text in ("w1 w2 .\n", "w1 \u200bw2 .\u200b\n"):
        (tmp_path / "in.txt").write_text(text)
        with pytest.raises(SystemExit) as stop:
            run_cli(main, ["--run", str(run), "--input", str(tmp_path / "in.txt"),
                           "--output", str(tmp_path / "out.txt")])
        assert (stop.value.code, capsys.readouterr().err) == (0, "")
        outs.append((tmp_path / "out.txt").read_text())
    assert outs[0] == outs[1]


def test_new_text_for_a_local_corpus_is_put_in_nfc_as_its_files_were(results: Path):
    """A local corpus is copied in NFC; text typed in another normalisation
    (macOS writes e + U+0301) must reach the model in the same form."""
    from phrasenmt.translate_text import Run

    run = Run(results / "models" / "transformer" / "seed1", [])
    decomposed = "Cafe\u0301 w1 ."
    assert run.tokenize([decomposed]) == [decomposed]  # the synthetic corpus: as is
    run.config["datasets"][run.dataset]["source"] = "local"
    assert run.tokenize([decomposed]) == ["Caf\u00e9 w1 ."]


def test_text_mostly_unknown_to_the_model_is_translated_with_a_warning(
        results: Path, tmp_path: Path, capsys):
    """Text in another language than the model's source: its subwords are
    not in the model's vocabulary, and the warning says so."""
    run = results / "models" / "transformer" / "seed1"
    (tmp_path / "in.txt").write_text("zebra quokka w1 axolotl .\n")
    with pytest.raises(SystemExit) as stop:
        run_cli(main, ["--run", str(run), "--input", str(tmp_path / "in.txt"),
                       "--output", str(tmp_path / "out.txt")])
    err = capsys.readouterr().err
    assert stop.value.code == 0
    assert f"warning: {tmp_path / 'in.txt'}: the model's source vocabulary misses" in err
    (tmp_path / "in.txt").write_text("w1 w2 .\n")
    with pytest.raises(SystemExit):
        run_cli(main, ["--run", str(run), "--input", str(tmp_path / "in.txt"),
                       "--output", str(tmp_path / "out.txt")])
    assert "vocabulary misses" not in capsys.readouterr().err
