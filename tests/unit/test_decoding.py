"""Decoding: greedy vs beam, scores vs forced decoding, limits, translate CLI."""

from __future__ import annotations

import pytest
import torch

from phrasenmt.decoding.postprocess import remove_bpe
from phrasenmt.decoding.scoring import forced_log_probs
from phrasenmt.decoding.search import beam_search, greedy_search, length_penalty
from phrasenmt.io import InputError
from phrasenmt.models import build_model
from phrasenmt.models.transformer import TransformerConfig
from phrasenmt.nn.batching import pad_sequences
from phrasenmt.text.vocab import BOS, EOS, PAD, Vocabulary
from phrasenmt.training.checkpoint import model_payload, save_file
from phrasenmt.translate import main as translate_main

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


def make_model(seed: int = 0, vocab: int = 12):
    """A tiny random model whose outputs vary (EOS made rarer by a bias)."""
    torch.manual_seed(seed)
    cfg = TransformerConfig(src_vocab_size=10, tgt_vocab_size=vocab, d_model=16,
                            d_ff=32, n_heads=2, encoder_layers=1, decoder_layers=2)
    model = build_model("transformer", cfg).eval()
    with torch.no_grad():
        model.decoder.output.weight.mul_(4.0)  # peakier distributions
    return model


def sources() -> torch.Tensor:
    """Four sources of different lengths, with </s>, right-padded."""
    return pad_sequences([[4, 5, 6, EOS], [7, EOS], [9, 8, 7, 6, 5, EOS], [4, EOS]])


def forced(model, src: torch.Tensor, tokens: list[int], row: int) -> float:
    """Forced-decoding log-prob of `tokens` (+ </s>) for source `row`."""
    tgt_in = torch.tensor([[BOS, *tokens]])
    tgt_out = torch.tensor([[*tokens, EOS]])
    return float(forced_log_probs(model, src[row: row + 1], tgt_in, tgt_out)[0])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_beam_size_one_equals_greedy(seed):
    model, src = make_model(seed), sources()
    greedy = greedy_search(model, src, 1.5, 3)
    beam = beam_search(model, src, beam=1, lenpen=0.0, max_len_a=1.5, max_len_b=3)
    for g, b in zip(greedy, beam, strict=True):
        assert len(b) == 1 and b[0].tokens == g.tokens
        assert b[0].score == pytest.approx(g.score, abs=1e-5)


@pytest.mark.parametrize("seed", [0, 3])
def test_beam_scores_equal_forced_decoding(seed):
    model, src = make_model(seed), sources()
    nbest = beam_search(model, src, beam=4, lenpen=0.0, max_len_a=1.0, max_len_b=4)
    lengths = {len(h.tokens) for hyps in nbest for h in hyps}
    assert len(lengths) > 1  # hypotheses of different lengths were found
    for row, hyps in enumerate(nbest):
        assert len(hyps) == 4
        assert [h.score for h in hyps] == sorted((h.score for h in hyps), reverse=True)
        for h in hyps:
            assert h.score == pytest.approx(forced(model, src, h.tokens, row), abs=1e-4)


def test_beam_search_is_batch_independent():
    model, src = make_model(4), sources()
    together = beam_search(model, src, beam=3, lenpen=0.6)
    for row in range(src.size(0)):
        alone_src = src[row: row + 1, : int(src[row].ne(PAD).sum())]
        alone = beam_search(model, alone_src, beam=3, lenpen=0.6)[0]
        assert [h.tokens for h in alone] == [h.tokens for h in together[row]]


def test_length_limit_and_penalty():
    model, src = make_model(5, vocab=6), sources()
    for hyps in beam_search(model, src, beam=2, max_len_a=0.0, max_len_b=2):
        assert all(len(h.tokens) + 1 <= 2 for h in hyps)
    for hyp in greedy_search(model, src, 0.0, 1):
        assert hyp.tokens == []
    assert length_penalty(1, 0.0) == 1.0
    assert length_penalty(7, 1.0) == pytest.approx(2.0)
    hyp = beam_search(model, src, beam=2, lenpen=1.0)[0][0]
    assert hyp.normalized == pytest.approx(hyp.score / ((5 + len(hyp.tokens) + 1) / 6))


def test_min_len_forbids_early_eos_unless_the_cap_comes_first():
    model, src = make_model(11, vocab=6), sources()
    free = greedy_search(model, src, 0.0, 8)
    early = beam_search(model, src, beam=3, max_len_a=0.0, max_len_b=8)
    assert min(len(h.tokens) for h in free) < 5  # some stop early on their own
    assert min(len(hyps[0].tokens) for hyps in early) < 5
    for hyp in greedy_search(model, src, 0.0, 8, min_len=5):
        assert len(hyp.tokens) >= 5
    for hyps in beam_search(model, src, beam=3, max_len_a=0.0, max_len_b=8, min_len=5):
        assert hyps and all(len(h.tokens) >= 5 for h in hyps)
    for hyps in beam_search(model, src, beam=2, max_len_a=0.0, max_len_b=3, min_len=9):
        assert hyps and all(len(h.tokens) == 2 for h in hyps)  # cap 3 incl. </s>


def test_remove_bpe():
    assert remove_bpe("the new@@ er cat@@ s") == "the newer cats"
    assert remove_bpe("a@@") == "a"
    # a hypothesis that stops inside a word keeps the subword, without the mark
    assert remove_bpe("the new@@ er hou@@") == "the newer hou"


@pytest.mark.parametrize("command", ["translate", "score src", "score tgt"])
def test_input_cut_inside_a_word_names_file_and_line(tmp_path, checkpoint, command):
    (tmp_path / "in.txt").write_text("a b\nc d@@ e\n")
    (tmp_path / "ref.txt").write_text("x y@@ z\nu\n")
    (tmp_path / "cut.txt").write_text("a b\nc d@@\n" if command != "score tgt"
                                      else "x y@@ z\nu v@@\n")
    if command == "translate":
        argv = ["--input", str(tmp_path / "cut.txt")]
    elif command == "score src":
        argv = ["score", "--src", str(tmp_path / "cut.txt"),
                "--tgt", str(tmp_path / "ref.txt")]
    else:
        argv = ["score", "--src", str(tmp_path / "in.txt"),
                "--tgt", str(tmp_path / "cut.txt")]
    last = "v@@" if command == "score tgt" else "d@@"
    with pytest.raises(InputError, match=(
            rf"cut\.txt:2: the line ends inside a word: its last subword '{last}' "
            "carries the continuation mark '@@'")):
        translate_main([*argv, "--checkpoint", str(checkpoint), "--output",
                        str(tmp_path / "o"), "--device", "cpu"])
    assert not (tmp_path / "o").exists()


@pytest.fixture
def checkpoint(tmp_path):
    """A loadable model file with small real vocabularies."""
    src_vocab = Vocabulary.build(["a b c d e f"])
    tgt_vocab = Vocabulary.build(["x y@@ z u v w v@@ u"])
    torch.manual_seed(0)
    cfg = TransformerConfig(src_vocab_size=len(src_vocab),
                            tgt_vocab_size=len(tgt_vocab), d_model=16, d_ff=32,
                            n_heads=2, encoder_layers=1, decoder_layers=1)
    model = build_model("transformer", cfg)
    path = tmp_path / "model.pt"
    save_file(model_payload("transformer", model, src_vocab, tgt_vocab, {}), path)
    return path


def test_translate_and_score_cli(tmp_path, checkpoint):
    (tmp_path / "in.txt").write_text("a b c\nd e\nf a b c d e\n")
    (tmp_path / "ref.txt").write_text("x y@@ z\nu\nv w\n")
    out = tmp_path / "out.txt"
    assert translate_main(["--checkpoint", str(checkpoint), "--input",
                           str(tmp_path / "in.txt"), "--output", str(out),
                           "--batch-size", "2", "--device", "cpu"]) == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 3 and not any("@@" in line for line in lines)
    scores = tmp_path / "scores.txt"
    assert translate_main(["score", "--checkpoint", str(checkpoint), "--src",
                           str(tmp_path / "in.txt"), "--tgt", str(tmp_path / "ref.txt"),
                           "--output", str(scores), "--device", "cpu"]) == 0
    values = [float(v) for v in scores.read_text().split()]
    assert len(values) == 3 and all(v < 0 for v in values)


def test_translate_cli_errors(tmp_path, checkpoint):
    (tmp_path / "in.txt").write_text("a b\n\nc\n")
    with pytest.raises(InputError, match=r"in\.txt:2: empty line"):
        translate_main(["--checkpoint", str(checkpoint), "--input",
                        str(tmp_path / "in.txt"), "--output", str(tmp_path / "o")])
    with pytest.raises(InputError, match=r"nothing\.pt: checkpoint not found"):
        translate_main(["--checkpoint", str(tmp_path / "nothing.pt"), "--input",
                        str(tmp_path / "in.txt"), "--output", str(tmp_path / "o")])
    (tmp_path / "s.txt").write_text("a\nb\n")
    (tmp_path / "t.txt").write_text("x\n")
    with pytest.raises(InputError, match="has 2 lines but"):
        translate_main(["score", "--checkpoint", str(checkpoint), "--src",
                        str(tmp_path / "s.txt"), "--tgt", str(tmp_path / "t.txt"),
                        "--output", str(tmp_path / "o")])
    assert not (tmp_path / "o").exists()


def test_translate_cli_min_len(tmp_path, checkpoint, monkeypatch):
    import phrasenmt.translate as tr

    seen = []
    real = tr.beam_search
    monkeypatch.setattr(tr, "beam_search", lambda *a, **k: (
        seen.append(a[-1]), real(*a, **k))[1])
    (tmp_path / "in.txt").write_text("a b c\nd e\n")
    argv = ["--checkpoint", str(checkpoint), "--input", str(tmp_path / "in.txt"),
            "--output", str(tmp_path / "out.txt"), "--device", "cpu"]
    assert translate_main([*argv, "--min-len", "4"]) == 0
    assert seen == [4]  # the CLI's --min-len reaches the search
    model, src_vocab, tgt_vocab, _ = tr.load_model(checkpoint)
    model.generate = lambda *a: []  # a model with its own search (e.g. CoNMT)
    with pytest.raises(InputError, match="own search, which has no minimum"):
        tr.translate_lines(model, src_vocab, tgt_vocab, ["a b"], min_len=2)


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")
def test_device_cuda_without_cuda_is_one_line_saying_why(tmp_path, checkpoint):
    (tmp_path / "in.txt").write_text("a b c\n")
    out = tmp_path / "out.txt"
    with pytest.raises(InputError) as err:
        translate_main(["--checkpoint", str(checkpoint), "--input",
                        str(tmp_path / "in.txt"), "--output", str(out),
                        "--device", "cuda"])
    message = str(err.value)
    assert message.startswith("--device cuda: ") and "\n" not in message
    assert "--device cpu (in the workflow: the model's gpus: 0)" in message
    assert not out.exists()


@pytest.mark.parametrize(("version", "cuda", "visible", "words"), [
    ("2.13.0+cpu", None, None, ("this PyTorch (2.13.0+cpu) is built without CUDA: "
     "install a CUDA build of torch on the GPU machine, or run it on the CPU with "
     "--device cpu (in the workflow: the model's gpus: 0)")),
    ("2.4.1+cu121", "12.1", "", ("no CUDA device is visible to this process "
     "(PyTorch 2.4.1+cu121 for CUDA 12.1; CUDA_VISIBLE_DEVICES ''): run it in a job "
     "that was given a GPU, or run it on the CPU with --device cpu (in the workflow: "
     "the model's gpus: 0)")),
    ("2.4.1+cu121", "12.1", None, "CUDA_VISIBLE_DEVICES unset"),
])
def test_no_cuda_says_whether_the_build_or_the_job_lacks_it(monkeypatch, version, cuda,
                                                           visible, words):
    """A CPU build of torch on a GPU node and a job given no GPU need different
    fixes; both were 'no CUDA device is available'."""
    from phrasenmt.training import trainer

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.version, "cuda", cuda)
    monkeypatch.setattr(torch, "__version__", version)
    if visible is None:
        monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    else:
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", visible)
    with pytest.raises(InputError) as err:
        trainer.resolve_device("cuda")
    assert words in str(err.value)
    assert trainer.resolve_device("auto") == torch.device("cpu")
