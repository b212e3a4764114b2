"""Attention RNN, CoNMT and PCoNMT: decoding, fertility, phrases, training, resume."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch

from phrasenmt.io import InputError
from phrasenmt.models.attn_rnn import AttnRNN, RNNConfig
from phrasenmt.models.continuous import ContinuousConfig, ContinuousOutputNMT
from phrasenmt.models.output_table import build_output_table
from phrasenmt.nn.batching import collate
from phrasenmt.text.vocab import EOS, Vocabulary
from phrasenmt.training.data import DataPaths
from phrasenmt.training.spec import resolve_spec
from phrasenmt.training.trainer import Trainer
from phrasenmt.translate import translate_lines

SIZES = {"embed_size": 8, "hidden_size": 16, "dropout": 0.0}
WORDS = ["the", "quality", "of", "life", "is", "good"]

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


def write_vec(path: Path, tokens: list[str], dim: int, seed: int) -> Path:
    g = torch.Generator().manual_seed(seed)
    rows = [f"{t} " + " ".join(f"{x:.5f}" for x in torch.randn(dim, generator=g))
            for t in tokens]
    path.write_text(f"{len(tokens)} {dim}\n" + "\n".join(rows) + "\n")
    return path


def tables(tmp: Path, dim: int = 8) -> tuple[Path, Path]:
    words = write_vec(tmp / "words.vec", ["</s>", *WORDS], dim, 1)
    phrases = write_vec(tmp / "phrases.vec", ["quality_of_life", "is_good"], dim, 2)
    return words, phrases


def pconmt(tmp: Path, classes: int = 2, **loss: float
           ) -> tuple[ContinuousOutputNMT, Vocabulary]:
    """A tiny PCoNMT whose target vocabulary has words and two phrases."""
    words, phrases = tables(tmp)
    vocab = Vocabulary.build(["the quality_of_life is_good quality of life is good"])
    cfg = ContinuousConfig(src_vocab_size=10, tgt_vocab_size=len(vocab), embed_dim=8,
                           word_table=str(words), phrase_table=str(phrases),
                           fertility_classes=classes, **SIZES, **loss)
    torch.manual_seed(0)
    model = ContinuousOutputNMT(cfg)
    model.attach_vocabularies(Vocabulary.build(["a"]), vocab)
    return model.eval(), vocab


def force_output(model: ContinuousOutputNMT, vector: torch.Tensor) -> None:
    """Make the output layer predict `vector` at every step."""
    with torch.no_grad():
        model.head.weight.zero_()
        model.head.bias.copy_(3.0 * vector)


def test_output_table_rows_follow_the_vocabulary(tmp_path: Path):
    words, phrases = tables(tmp_path)
    vocab = Vocabulary.build(["quality_of_life good unseen"])
    table, is_phrase = build_output_table(vocab, 8, str(words), str(phrases))
    assert table.shape == (len(vocab), 8)
    assert torch.allclose(table[4:].norm(dim=-1), torch.ones(len(vocab) - 4))
    assert table[0].abs().sum() == 0  # <pad>
    assert is_phrase.tolist() == [t == "quality_of_life" for t in vocab.itos]


def test_nearest_neighbour_returns_the_word_whose_vector_is_predicted(tmp_path):
    model, vocab = pconmt(tmp_path, classes=0)
    life = vocab.stoi["life"]
    force_output(model, model.table[life])
    src = torch.tensor([[4, 5, 6, EOS]])
    hyp = model.generate(src, max_len_a=0, max_len_b=4)[0]  # 3 words + </s>
    assert hyp.tokens == [life, life, life]
    force_output(model, model.table[EOS])
    assert model.generate(src)[0].tokens == []


def test_a_chosen_phrase_is_written_out_as_its_words(tmp_path: Path):
    model, vocab = pconmt(tmp_path, classes=0)
    ids = [vocab.stoi[t] for t in ("the", "quality_of_life", "is_good")]
    assert model.output_words(ids, vocab) == ["the", "quality", "of", "life", "is",
                                              "good"]
    force_output(model, model.table[vocab.stoi["quality_of_life"]])
    lines = translate_lines(model, Vocabulary.build(["a b"]), vocab, ["a b"],
                            max_len_a=0, max_len_b=2)
    assert lines == ["quality of life"]


def test_word_probability_on_a_hand_example(tmp_path: Path):
    model, _ = pconmt(tmp_path, classes=4)
    # two source words + </s>; φ rows over fertility 0..3
    phi = torch.tensor([[[0.1, 0.2, 0.6, 0.1], [0.0, 0.9, 0.1, 0.0],
                         [0.5, 0.0, 0.5, 0.0]]])
    mask = torch.tensor([[True, True, True]])
    mass = model.word_mass(phi, mask)
    assert torch.allclose(mass, torch.tensor([[0.3, 0.9, 1.0]]))  # </s>: a word
    attn = torch.tensor([[0.5, 0.25, 0.25]])
    pi_word = model.word_probability(attn, mass)
    assert pi_word.item() == pytest.approx(0.5 * 0.3 + 0.25 * 0.9 + 0.25 * 1.0)
    two = pconmt(tmp_path, classes=2)[0]
    phi2 = torch.tensor([[[0.2, 0.8], [0.7, 0.3], [0.0, 1.0]]])
    assert torch.allclose(two.word_mass(phi2, mask), torch.tensor([[0.2, 0.7, 1.0]]))


def test_fertility_picks_the_table(tmp_path: Path):
    model, vocab = pconmt(tmp_path, classes=2)
    scores = torch.zeros(2, len(vocab))
    attn = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    word_mass = torch.tensor([[0.2, 1.0], [0.2, 1.0]])  # row 0 attends to a phrase
    allowed = model._candidates(scores, attn, word_mass).isfinite()
    phrase_ids = {vocab.stoi["quality_of_life"], vocab.stoi["is_good"]}
    assert set(allowed[0].nonzero().flatten().tolist()) == phrase_ids
    assert not allowed[1, list(phrase_ids)].any() and allowed[1, EOS]


def toy_batch() -> tuple:
    g = torch.Generator().manual_seed(0)
    src = [[int(x) for x in torch.randint(4, 10, (5,), generator=g)] for _ in range(16)]
    tgt = [[4 + (x - 4) % 6 for x in reversed(s)] for s in src]  # ids 4..9
    return collate(src, tgt)


@pytest.mark.parametrize("arch", ["attn_rnn", "pconmt"])
def test_loss_falls_on_a_tiny_task(tmp_path: Path, arch: str):
    batch = toy_batch()
    torch.manual_seed(0)
    if arch == "attn_rnn":
        model = AttnRNN(RNNConfig(src_vocab_size=10, tgt_vocab_size=10, **SIZES))
    else:
        model = pconmt(tmp_path, lambda1=0.0, lambda2=1.0)[0]  # plain NLLvMF
        table = torch.randn(model.table.shape)
        model.table.copy_(torch.nn.functional.normalize(table, dim=-1))
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    losses = []
    for _ in range(40):
        loss, _ = model.loss(batch, 0.0)
        opt.zero_grad()
        (loss / batch.ntokens).backward()
        opt.step()
        losses.append(loss.item() / batch.ntokens)
    assert losses[-1] < losses[0] - 0.5


def corpus(folder: Path) -> DataPaths:
    g = torch.Generator().manual_seed(0)
    for name, n in (("train", 60), ("dev", 6)):
        rows = [[WORDS[int(i)] for i in torch.randint(0, 6, (4,), generator=g)]
                for _ in range(n)]
        (folder / f"{name}.src").write_text("".join(" ".join(r).upper() + "\n"
                                                    for r in rows))
        (folder / f"{name}.tgt").write_text("".join(" ".join(r) + "\n" for r in rows))
    return DataPaths(*(folder / f for f in ("train.src", "train.tgt", "dev.src",
                                            "dev.tgt")))


def run(paths: DataPaths, outdir: Path, steps: int, words: Path) -> Trainer:
    spec = resolve_spec({"arch": "conmt", "preset": "tiny", "model": {
        **SIZES, "embed_dim": 8, "word_table": str(words)}, "train": {
        "max_steps": steps, "max_tokens": 60, "update_tokens": 50,
        "save_interval": 2, "valid_interval": 2, "log_interval": 1}})
    trainer = Trainer(spec, paths, outdir, seed=3, device="cpu", progress_bar=False)
    trainer.run()
    return trainer


def test_resume_equals_uninterrupted(tmp_path: Path):
    paths, (words, _) = corpus(tmp_path), tables(tmp_path)
    full = run(paths, tmp_path / "full", 6, words)
    run(paths, tmp_path / "parts", 4, words)
    resumed = run(paths, tmp_path / "parts", 6, words)
    assert resumed.state.step == 6
    a, b = full.model.state_dict(), resumed.model.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert torch.equal(resumed.model.table, full.model.table)
    assert resumed.model.table.abs().sum() > 0


def check_untrained_fertility_is_refused(tmp_path: Path, checkpoint: Path) -> None:
    """Scoring or decoding with a fertility module still at its random init
    (a checkpoint of the network's training, before train_fertility) raises."""
    from phrasenmt.evaluate.fertility import main as score_main
    from phrasenmt.translate import main as translate_main

    message = (f"{checkpoint}: the fertility module of this checkpoint was not "
               "trained; use the file written by phrasenmt.train_fertility")
    with pytest.raises(InputError, match=re.escape(message)):
        score_main(["--checkpoint", str(checkpoint), "--src", str(tmp_path / "dev.src"),
                    "--labels", f"aligner={tmp_path}/dev.fert", "--system", "m",
                    "--out", str(tmp_path / "untrained.tsv")])
    with pytest.raises(InputError, match=re.escape(message)):
        translate_main(["--checkpoint", str(checkpoint), "--input",
                        str(tmp_path / "dev.src"), "--output",
                        str(tmp_path / "untrained.txt"), "--device", "cpu"])
    assert not list(tmp_path.glob("untrained.*"))


def test_fertility_phase_trains_only_the_fertility_module(tmp_path: Path):
    from phrasenmt.evaluate.fertility import main as score_main
    from phrasenmt.train_fertility import main as fertility_main
    from phrasenmt.training.checkpoint import load_file
    from phrasenmt.translate import main as translate_main

    paths, (words, _) = corpus(tmp_path), tables(tmp_path)
    spec = resolve_spec({"arch": "pconmt_fert2", "preset": "tiny", "model": {
        **SIZES, "embed_dim": 8, "word_table": str(words)}, "train": {
        "max_steps": 2, "max_tokens": 60, "update_tokens": 50, "save_interval": 2,
        "valid_interval": 2}})
    Trainer(spec, paths, tmp_path / "run", seed=3, device="cpu",
            progress_bar=False).run()
    for split in ("train", "dev"):  # label: the source word is QUALITY or LIFE
        lines = (tmp_path / f"{split}.src").read_text().splitlines()
        (tmp_path / f"{split}.fert").write_text("".join(
            " ".join(str(int(w in ("QUALITY", "LIFE"))) for w in line.split()) + "\n"
            for line in lines))
    before = tmp_path / "run/checkpoints/checkpoint_2.pt"
    after = tmp_path / "fertility.pt"
    check_untrained_fertility_is_refused(tmp_path, before)
    fertility_main(["--checkpoint", str(before), "--out", str(after),
                    "--epochs", "30", *(f"--{s}-{k}={tmp_path}/{s}.{e}"
                                        for s in ("train", "dev")
                                        for k, e in (("src", "src"),
                                                     ("labels", "fert")))])
    old, new = load_file(before)["model"], load_file(after)["model"]
    changed = {k for k in old if not torch.equal(old[k], new[k])}
    assert changed and all(k.startswith("fertility.") for k in changed)
    out = tmp_path / "scores.tsv"
    score_main(["--checkpoint", str(after), "--src", str(tmp_path / "dev.src"),
                "--labels", f"aligner={tmp_path}/dev.fert", f"gold={tmp_path}/dev.fert",
                "--system", "m", "--out", str(out)])
    rows = [line.split("\t") for line in out.read_text().splitlines()[1:]]
    assert [(r[1], r[3]) for r in rows] == [("aligner", "0"), ("aligner", "1"),
                                            ("gold", "0"), ("gold", "1")]
    assert min(float(r[6]) for r in rows) > 0.9
    translate_main(["--checkpoint", str(after), "--input", str(tmp_path / "dev.src"),
                    "--output", str(tmp_path / "dev.out"), "--device", "cpu"])
    assert (tmp_path / "dev.out").read_text()
