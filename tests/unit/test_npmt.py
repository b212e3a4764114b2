"""NPMT: padding invariance, the loss (impossible pairs, label smoothing),
bad configs, training through the trainer, and the translate/score CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from phrasenmt.evaluate.gates import main as gates_main
from phrasenmt.io import InputError
from phrasenmt.models import build_model
from phrasenmt.models.npmt import NPMT, NPMTConfig
from phrasenmt.models.swan import segment_log_likelihood
from phrasenmt.nn.batching import collate, pad_sequences
from phrasenmt.text.vocab import EOS, Vocabulary
from phrasenmt.train import main as train_main
from phrasenmt.training.checkpoint import model_payload, save_file
from phrasenmt.translate import main as translate_main

SIZES = {"embed_size": 8, "encoder_hidden": 8, "encoder_layers": 1,
         "decoder_hidden": 16, "decoder_layers": 1, "dropout": 0.0, "window": 3,
         "max_segment_len": 2}

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


def tiny_npmt(seed: int = 0, arch: str = "npmt", **cfg) -> NPMT:
    torch.manual_seed(seed)
    config = NPMTConfig(src_vocab_size=12, tgt_vocab_size=10, **{**SIZES, **cfg})
    model = build_model(arch, config).eval()
    with torch.no_grad():
        model.decoder.output.weight.mul_(3.0)  # peakier: greedy emits words
    return model


def test_sentence_alone_equals_inside_a_padded_batch():
    model = tiny_npmt()
    short_src, short_tgt = [4, 5, 6], [7, 8, 9, 4]
    src = pad_sequences([[4, 5, 6, 7, 8, 9, 10, EOS], [*short_src, EOS],
                         [11, 5, 4, 6, 7, EOS]])
    tgt_out = pad_sequences([[4, 5, 6, 7, 8, 9, 4, 5, EOS], [*short_tgt, EOS],
                             [5, 6, EOS]])
    batched = model.score_pairs(src, tgt_out)
    alone = model.score_pairs(torch.tensor([[*short_src, EOS]]),
                              torch.tensor([[*short_tgt, EOS]]))
    assert torch.isfinite(batched).all()
    assert float(batched[1]) == pytest.approx(float(alone[0]), abs=1e-5)
    greedy = model.decode_segments(src)
    greedy_alone = model.decode_segments(torch.tensor([[*short_src, EOS]]))
    assert greedy[1].segments == greedy_alone[0].segments
    assert len(greedy[1].segments) == len(short_src) + 1  # </s> position included
    assert any(h.tokens for h in greedy)


def test_reordering_sees_no_padding_but_changes_the_encoding():
    model = tiny_npmt()
    src = pad_sequences([[4, 5, 6, EOS], [7, EOS]])
    x = model.encode(src)["x"]
    with torch.no_grad():
        model.encoder.reorder.gate.bias.add_(2.0)
    assert not torch.allclose(model.encode(src)["x"], x)
    assert tiny_npmt(arch="npmt_noreorder", use_reordering=False).encoder.reorder is None


def test_loss_skips_and_counts_impossible_pairs():
    model = tiny_npmt().train()
    ok = collate([[4, 5, 6]], [[7, 8, 9, 4]])
    mixed = collate([[4, 5, 6], [4]], [[7, 8, 9, 4], [5, 6, 7, 8, 9]])  # 5 > 2·2
    loss, nll = model.loss(mixed, 0.0)
    expected, _ = model.loss(ok, 0.0)
    assert torch.isfinite(loss) and loss == nll
    assert loss.item() == pytest.approx(expected.item(), rel=1e-5)
    assert int(model.skipped_pairs) == 1
    model.eval()
    model.loss(mixed, 0.0)
    assert int(model.skipped_pairs) == 1  # counted in training only
    loss.backward()
    assert all(torch.isfinite(p.grad).all() for p in model.parameters()
               if p.grad is not None)
    with pytest.raises(InputError, match="train.label_smoothing"):
        model.loss(ok, 0.1)


def test_training_data_note_counts_the_pairs_no_segmentation_produces():
    model = tiny_npmt()  # L = 2: |y| <= 2 (|x| + 1)
    assert model.training_data_note([3, 1], [8, 4]) is None
    note = model.training_data_note([3, 1, 0], [9, 5, 2])
    assert note is not None and note.startswith("note: 2 of 3 training pairs")
    assert "L = 2" in note and "skipped_pairs" in note


def test_loss_is_the_negative_dp_log_likelihood():
    model = tiny_npmt()
    batch = collate([[4, 5, 6], [7, 8]], [[7, 8, 9], [4, 5]])
    seg, src_len, tgt_len = model.segment_scores(batch.src, batch.tgt_out)
    assert src_len.tolist() == [4, 3] and tgt_len.tolist() == [3, 2]  # y has no </s>
    ll = segment_log_likelihood(seg, src_len, tgt_len)
    assert model.loss(batch, 0.0)[0].item() == pytest.approx(-ll.sum().item(), rel=1e-6)


@pytest.mark.parametrize("key,value", [("max_segment_len", 0), ("window", 4),
                                       ("window", 0), ("cell", "rnn")])
def test_bad_config_is_one_input_error_naming_the_key(key, value):
    with pytest.raises(InputError, match=f"model.{key}"):
        tiny_npmt(**{key: value})


def corpus(folder: Path) -> list[str]:
    """A tiny word-level 'translation' task: reversed-pair word mapping."""
    g = torch.Generator().manual_seed(0)
    words = [f"w{i}" for i in range(8)]
    src, tgt = [], []
    for n in torch.randint(2, 6, (80,), generator=g).tolist():
        ids = torch.randint(0, 8, (n,), generator=g).tolist()
        src.append(" ".join(words[i] for i in ids))
        tgt.append(" ".join(f"W{i}" for i in ids))
    for name, lines in (("train.src", src), ("train.tgt", tgt), ("dev.src", src[:6]),
                        ("dev.tgt", tgt[:6])):
        (folder / name).write_text("\n".join(lines) + "\n")
    return [str(folder / n) for n in ("train.src", "train.tgt", "dev.src", "dev.tgt")]


def train_args(folder: Path, spec: dict, outdir: Path) -> list[str]:
    files = corpus(folder)
    return ["--spec", json.dumps(spec), "--train-src", files[0], "--train-tgt",
            files[1], "--dev-src", files[2], "--dev-tgt", files[3], "--outdir",
            str(outdir), "--seed", "1", "--device", "cpu", "--no-progress"]


def test_trains_through_the_trainer_and_loss_falls(tmp_path):
    spec = {"arch": "npmt", "preset": "tiny", "model": SIZES,
            "train": {"max_steps": 30, "max_tokens": 200, "update_tokens": 100,
                      "lr": 0.01, "warmup_steps": 1, "valid_interval": 30,
                      "save_interval": 30, "log_interval": 10}}
    assert train_main(train_args(tmp_path, spec, tmp_path / "run")) == 0
    rows = (tmp_path / "run" / "metrics.tsv").read_text().splitlines()[1:]
    nll = [float(r.split("\t")[2]) for r in rows]
    assert nll[-1] < 0.8 * nll[0]


@pytest.mark.parametrize("override", [{"max_segment_len": 0}, {"window": 6}])
def test_bad_config_in_the_train_cli_writes_nothing(tmp_path, override):
    spec = {"arch": "npmt", "preset": "tiny", "model": override}
    with pytest.raises(InputError, match="model."):
        train_main(train_args(tmp_path, spec, tmp_path / "run"))
    assert not (tmp_path / "run").exists()


@pytest.fixture
def checkpoint(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A saved tiny NPMT with word vocabularies, a source and a target file."""
    src_vocab = Vocabulary.build(["a b c d e f g h"])
    tgt_vocab = Vocabulary.build(["x y z w v u"])
    model = tiny_npmt()
    save_file(model_payload("npmt", model, src_vocab, tgt_vocab, {}), tmp_path / "m.pt")
    (tmp_path / "src").write_text("a b c\nd e q f g h\nh\n")
    (tmp_path / "tgt").write_text("x y\nz w v u x\nu x y z w\n")  # 5 > 2·2
    return tmp_path / "m.pt", tmp_path / "src", tmp_path / "tgt"


@pytest.mark.parametrize("beam", ["1", "3"])
def test_translate_writes_segments_that_concatenate_to_the_output(checkpoint, beam):
    model, src, _ = checkpoint
    out, segs = src.parent / "out.tok", src.parent / "out.segments"
    eq3 = [] if beam == "1" else ["--lambda1", "0.5", "--lambda2", "0"]  # greedy: none
    translate_main(["--checkpoint", str(model), "--input", str(src), "--output",
                    str(out), "--beam", beam, *eq3,
                    "--segments-out", str(segs), "--max-len-a", "3", "--max-len-b",
                    "3", "--batch-size", "2", "--threads", "1"])
    lines = out.read_text().splitlines()
    records = [json.loads(r) for r in segs.read_text().splitlines()]
    sources = src.read_text().splitlines()
    assert len(lines) == len(records) == 3
    for line, record, source in zip(lines, records, sources, strict=True):
        assert len(record["segments"]) == len(source.split()) + 1
        assert [w for seg in record["segments"] for w in seg] == line.split()
    assert any(lines)


def test_score_gives_the_dp_log_likelihood(checkpoint):
    model_path, src, tgt = checkpoint
    out = src.parent / "scores"
    translate_main(["score", "--checkpoint", str(model_path), "--src", str(src),
                    "--tgt", str(tgt), "--output", str(out), "--batch-size", "2",
                    "--precision", "fp32"])  # the reference below is fp32 (auto: bf16 with AMX)
    scores = [float(v) for v in out.read_text().split()]
    src_vocab = Vocabulary.build(["a b c d e f g h"])
    tgt_vocab = Vocabulary.build(["x y z w v u"])
    expected = tiny_npmt().score_pairs(
        torch.tensor([[*src_vocab.encode("a b c"), EOS]]),
        torch.tensor([[*tgt_vocab.encode("x y"), EOS]]))
    assert scores[0] == pytest.approx(float(expected[0]), abs=1e-5)
    assert scores[2] == float("-inf")  # no segmentation can produce it


def test_beam_zero_is_a_usage_error(checkpoint, capsys):
    model, src, _ = checkpoint
    out = src.parent / "out.tok"
    with pytest.raises(SystemExit) as done:
        translate_main(["--checkpoint", str(model), "--input", str(src), "--output",
                        str(out), "--beam", "0"])
    assert done.value.code == 2
    assert "argument --beam: must be in [1, 1000], got 0" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("extra,key", [
    (["--lambda2", "0.3"], "--lambda2"),
    (["--lm", "missing.arpa"], "missing.arpa")])
def test_bad_decoding_options_are_one_input_error(checkpoint, extra, key):
    model, src, _ = checkpoint
    out = src.parent / "out.tok"
    with pytest.raises(InputError, match=key):
        translate_main(["--checkpoint", str(model), "--input", str(src), "--output",
                        str(out), *extra])
    assert not out.exists()


def test_gates_of_a_model_without_reordering_is_an_input_error(tmp_path):
    model = tiny_npmt(arch="npmt_noreorder", use_reordering=False)
    vocab = Vocabulary.build(["a b c"])
    save_file(model_payload("npmt_noreorder", model, vocab, vocab, {}),
              tmp_path / "m.pt")
    (tmp_path / "src").write_text("a b\n")
    with pytest.raises(InputError, match="no reordering layer"):
        gates_main(["--checkpoint", str(tmp_path / "m.pt"), "--input",
                    str(tmp_path / "src"), "--line", "1", "--out", str(tmp_path / "o")])
    assert not (tmp_path / "o").exists()


def bigram_arpa(path: Path, words: list[str]) -> Path:
    """A hand-written ARPA model over `words` (KenLM needs order >= 2)."""
    rows = ["-1.0\t<unk>\t0", "-99\t<s>\t-0.3", "-0.6\t</s>\t0"]
    rows += [f"{-0.3 - 0.2 * i:.1f}\t{w}\t-0.1" for i, w in enumerate(words)]
    unigrams = "\n".join(rows)
    path.write_text(f"\\data\\\nngram 1={len(rows)}\nngram 2=1\n\n\\1-grams:\n"
                    f"{unigrams}\n\n\\2-grams:\n-0.2\t<s> {words[0]}\n\n\\end\\\n")
    return path


def test_translate_with_a_kenlm_language_model(checkpoint):
    pytest.importorskip("kenlm")
    model, src, _ = checkpoint
    lm = bigram_arpa(src.parent / "lm.arpa", ["u", "v", "w", "x", "y", "z"])
    out, segs = src.parent / "out.tok", src.parent / "out.segments"
    translate_main(["--checkpoint", str(model), "--input", str(src), "--output",
                    str(out), "--beam", "3", "--lambda1", "0.5", "--lambda2", "0.5",
                    "--lm", str(lm), "--segments-out", str(segs)])
    for line, record in zip(out.read_text().splitlines(), segs.read_text().splitlines(),
                            strict=True):
        assert [w for seg in json.loads(record)["segments"] for w in seg] == line.split()
    other = bigram_arpa(src.parent / "other.arpa", ["p", "q", "r", "s", "t", "o"])
    with pytest.raises(InputError, match="another vocabulary"):
        translate_main(["--checkpoint", str(model), "--input", str(src), "--output",
                        str(src.parent / "other.tok"), "--beam", "3", "--lambda2", "0.5",
                        "--lm", str(other)])
    assert not (src.parent / "other.tok").exists()
