"""Two-step training: step 1's averaged model loads strictly into the document
model, θ_s stay frozen and out of the optimizer, θ_d train, resuming works; a
third step starts from a document model (han_enc -> han_enc_dec) and freezes
what `train.freeze` says (joint fine-tuning with `none`)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from phrasenmt.average import average_checkpoints
from phrasenmt.io import InputError
from phrasenmt.training.checkpoint import load_file, save_file
from phrasenmt.training.config import FREEZE_MODES
from phrasenmt.training.data import DataPaths
from phrasenmt.training.spec import resolve_spec
from phrasenmt.training.trainer import Trainer
from phrasenmt.training.two_step import load_step1

TINY = {"d_model": 16, "d_ff": 32, "n_heads": 2, "encoder_layers": 1,
        "decoder_layers": 1, "dropout": 0.2}
TRAIN = {"max_tokens": 120, "update_tokens": 100, "save_interval": 2,
         "valid_interval": 2, "log_interval": 1, "keep_last": 2, "average_last": 2,
         "lr": 3e-3, "warmup_steps": 2}

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


def write_corpus(folder: Path) -> DataPaths:
    """Random documents of 1-5 sentences; the target reverses the source."""
    g = torch.Generator().manual_seed(0)
    for name, n in (("train", 60), ("dev", 10)):
        src, docs = [], []
        while len(src) < n:
            size = min(int(torch.randint(1, 6, (1,), generator=g)), n - len(src))
            docs += [f"{name}-{len(src):04d}"] * size  # named after its first line
            for _ in range(size):
                k = int(torch.randint(2, 7, (1,), generator=g))
                src.append(" ".join(f"w{int(i)}" for i in torch.randint(
                    0, 15, (k,), generator=g)))
        (folder / f"{name}.src").write_text("\n".join(src) + "\n")
        (folder / f"{name}.tgt").write_text(
            "\n".join(" ".join(reversed(s.split())).upper() for s in src) + "\n")
        (folder / f"{name}.docs").write_text("\n".join(docs) + "\n")
    return DataPaths(*(folder / f for f in ("train.src", "train.tgt", "dev.src",
                                            "dev.tgt")),
                     docs=(folder / "train.docs", folder / "dev.docs"))


def trainer(arch: str, paths: DataPaths, outdir: Path, steps: int,
            init_from: Path | None = None, freeze: str = "sentence",
            **model) -> Trainer:
    spec = resolve_spec({"arch": arch, "model": {**TINY, **model},
                         "train": {**TRAIN, "max_steps": steps, "freeze": freeze}})
    if arch == "transformer":
        paths = DataPaths(paths.train_src, paths.train_tgt, paths.dev_src,
                          paths.dev_tgt)
    return Trainer(spec, paths, outdir, seed=5, device="cpu", progress_bar=False,
                   init_from=init_from)


@pytest.fixture(scope="module")
def step1(tmp_path_factory) -> tuple[DataPaths, Path]:
    """The corpus and step 1's averaged sentence-level model."""
    root = tmp_path_factory.mktemp("two_step")
    paths = write_corpus(root)
    trainer("transformer", paths, root / "step1", 4).run()
    averaged = root / "step1" / "averaged.pt"
    ckpts = sorted((root / "step1" / "checkpoints").glob("checkpoint_*.pt"))
    save_file(average_checkpoints(ckpts), averaged)
    return paths, averaged


def test_step2_trains_only_document_parameters(step1, tmp_path, capsys):
    paths, averaged = step1
    step1_weights = load_file(averaged)["model"]
    t = trainer("ctx_transformer", paths, tmp_path / "step2", 4, averaged)
    model = t.model
    theta_s, theta_d = model.sentence_parameters(), model.document_parameters()
    start = {n: p.detach().clone() for n, p in theta_d.items()}
    in_optimizer = {id(p) for g in t.optimizer.param_groups for p in g["params"]}
    assert in_optimizer == {id(p) for p in theta_d.values()}
    assert not any(p.requires_grad for p in theta_s.values())
    t.run()
    state = model.state_dict()
    for name in step1_weights:  # embeddings and LayerNorms included
        assert torch.equal(state[name], step1_weights[name]), name
    assert {n for n in theta_s if "norm" in n} and {n for n in theta_s if "embed" in n}
    changed = [n for n, p in theta_d.items() if not torch.equal(p, start[n])]
    assert len(changed) == len(theta_d)
    log = capsys.readouterr().err
    assert f"new θ_d keys ({len(theta_d)}): context_encoder.layers.*.ff" in log
    assert f"frozen θ_s: {len(theta_s)} tensors" in log
    assert "(decoder, encoder)" in log and "context_encoder" in log


def test_step1_loads_strictly_with_only_document_keys_new(step1, tmp_path):
    paths, averaged = step1
    payload = load_file(averaged)
    model = trainer("ctx_transformer_dec", paths, tmp_path, 1).model
    missing = load_step1(model, payload, averaged)
    assert set(missing) == set(model.document_parameters())
    assert all(k.startswith(("context_encoder.", "decoder.")) for k in missing)
    extra = {**payload, "model": {**payload["model"], "encoder.extra": torch.zeros(1)}}
    with pytest.raises(InputError, match="step-1 key 'encoder.extra'.*must be used"):
        load_step1(model, extra, averaged)
    lacking = {**payload, "model": {k: v for k, v in payload["model"].items()
                                    if k != "encoder.layers.0.res1.norm.weight"}}
    with pytest.raises(InputError, match="lacks the sentence-level key"):
        load_step1(model, lacking, averaged)
    other = trainer("ctx_transformer", paths, tmp_path, 1, d_model=32).model
    with pytest.raises(InputError, match="model.d_model is 32 in this spec but 16"):
        load_step1(other, payload, averaged)


def test_resumed_step2_equals_uninterrupted(step1, tmp_path):
    paths, averaged = step1
    full = trainer("ctx_transformer", paths, tmp_path / "full", 6, averaged)
    full.run()
    trainer("ctx_transformer", paths, tmp_path / "parts", 2, averaged).run()
    resumed = trainer("ctx_transformer", paths, tmp_path / "parts", 6, averaged)
    assert resumed.state.step == 2
    resumed.run()
    a, b = full.model.state_dict(), resumed.model.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert not any(p.requires_grad for p in resumed.model.sentence_parameters().values())


def test_context_options_must_fit_the_model(step1, tmp_path):
    paths, averaged = step1
    with pytest.raises(InputError, match="reads no document context; drop --docs"):
        spec = resolve_spec({"arch": "transformer", "model": TINY})
        Trainer(spec, paths, tmp_path, seed=1, device="cpu")
    no_docs = DataPaths(paths.train_src, paths.train_tgt, paths.dev_src, paths.dev_tgt)
    with pytest.raises(InputError, match="reads document context: give the document"):
        trainer("ctx_transformer", no_docs, tmp_path, 1)
    with pytest.raises(InputError, match="no document-level ones to train"):
        trainer("transformer", paths, tmp_path / "t", 1, averaged)
    # Document-level data smaller than step 1's: the vocabularies are step 1's.
    small = DataPaths(paths.dev_src, paths.dev_tgt, paths.dev_src, paths.dev_tgt,
                      docs=(paths.docs[1], paths.docs[1]))
    t = trainer("ctx_transformer", small, tmp_path / "v", 1, averaged)
    step1_vocab = load_file(averaged)["src_vocab"]
    assert t.src_vocab.to_list() == step1_vocab
    assert len(trainer("ctx_transformer", small, tmp_path / "w", 1).src_vocab) < len(
        step1_vocab)


# -- a third step: han_enc_dec from han_enc ------------------------------------------

def averaged_run(arch: str, paths: DataPaths, outdir: Path, steps: int,
                 init_from: Path) -> Path:
    """Train `steps` updates from `init_from` and average the kept checkpoints."""
    trainer(arch, paths, outdir, steps, init_from).run()
    ckpts = sorted((outdir / "checkpoints").glob("checkpoint_*.pt"))
    save_file(average_checkpoints(ckpts), outdir / "averaged.pt")
    return outdir / "averaged.pt"


@pytest.fixture(scope="module")
def han_enc(step1, tmp_path_factory) -> Path:
    """The HAN-encoder step's averaged model (step 2 on top of step 1)."""
    paths, averaged = step1
    return averaged_run("han_enc", paths, tmp_path_factory.mktemp("han_enc"), 2,
                        averaged)


@pytest.mark.parametrize("freeze", FREEZE_MODES)
def test_third_step_trains_what_train_freeze_says(step1, han_enc, tmp_path, freeze,
                                                  capsys):
    paths, _ = step1
    # random θ_d: from identity (zero branch outputs) two updates would not yet
    # reach the first layer of the new HAN's FFN
    t = trainer("han_enc_dec", paths, tmp_path, 2, han_enc, freeze=freeze,
                context_init="random")
    params = dict(t.model.named_parameters())
    start = {n: p.detach().clone() for n, p in params.items()}
    part = {"sentence": set(t.model.sentence_parameters()),
            **{m: {n for n in params if n.startswith(m + ".")}
               for m in ("han_encoder", "han_decoder")}}
    trained = {"sentence": part["han_encoder"] | part["han_decoder"],
               "loaded": part["han_decoder"], "none": set(params)}[freeze]
    in_optimizer = {id(p) for g in t.optimizer.param_groups for p in g["params"]}
    assert in_optimizer == {id(params[n]) for n in trained}
    t.run()
    assert {n for n, p in params.items() if not torch.equal(p, start[n])} == trained
    log = capsys.readouterr().err
    frozen = len(params) - len(trained)
    assert {"sentence": f"frozen θ_s: {frozen} tensors",
            "loaded": f"frozen loaded weights: {frozen} tensors",
            "none": "frozen parameters: nothing; training everything: "}[freeze] in log


def test_joint_model_loads_the_encoder_variant_strictly(step1, han_enc, tmp_path):
    paths, averaged = step1
    model = trainer("han_enc_dec", paths, tmp_path, 1).model
    payload = load_file(han_enc)
    assert all(k.startswith("han_decoder.") for k in load_step1(model, payload,
                                                                han_enc))
    with pytest.raises(InputError, match="lacks 'han_encoder.*starts from one that "
                       "has trained han_encoder"):
        load_step1(model, load_file(averaged), averaged)  # a plain Transformer
    dropped = {**payload, "model": {k: v for k, v in payload["model"].items()
                                    if k != "han_encoder.f_w.weight"}}
    with pytest.raises(InputError, match="lacks 'han_encoder.f_w.weight' \\(1 in"):
        load_step1(model, dropped, han_enc)
    extra = {**payload, "model": {**payload["model"],
                                  "han_encoder.extra": torch.zeros(1)}}
    with pytest.raises(InputError, match="'han_encoder.extra'.*must be used"):
        load_step1(model, extra, han_enc)
    other = trainer("han_enc_dec", paths, tmp_path, 1, context_size=2).model
    with pytest.raises(InputError, match="model.context_size is 2 in this spec but 3"):
        load_step1(other, payload, han_enc)
    # Training-only fields may change between steps (joint fine-tuning may detach).
    detached = trainer("han_enc_dec", paths, tmp_path, 1, detach_context=True).model
    load_step1(detached, payload, han_enc)


def test_resuming_with_another_freeze_is_refused(step1, han_enc, tmp_path):
    paths, _ = step1
    trainer("han_enc_dec", paths, tmp_path, 1, han_enc, freeze="loaded").run()
    with pytest.raises(InputError, match='train.freeze: "loaded" -> "none"'):
        trainer("han_enc_dec", paths, tmp_path, 2, han_enc, freeze="none")
    assert trainer("han_enc_dec", paths, tmp_path, 2, han_enc,
                   freeze="loaded").state.step == 1


def test_freeze_needs_init_from_and_a_known_value(step1, tmp_path):
    paths, _ = step1
    with pytest.raises(InputError, match="train.freeze: is 'none', but it only "
                       "applies to a run that starts from --init-from"):
        trainer("han_enc", paths, tmp_path, 1, freeze="none")
    with pytest.raises(InputError, match="train.freeze: must be one of sentence, "
                       "loaded, none, got 'all'"):
        resolve_spec({"arch": "han_enc", "train": {"freeze": "all"}})


def test_step1_whose_vocabulary_misses_the_data_is_refused(step1, tmp_path):
    paths, averaged = step1
    other = tmp_path / "other"
    other.mkdir()
    for name in ("train", "dev"):  # about 1 token in 8 unknown to step 1
        for side, case in (("src", str.lower), ("tgt", str.upper)):
            lines = getattr(paths, f"{name}_{side}").read_text().splitlines()
            lines = [case(f"{line} new{i % 9}") if i % 4 == 0 else line
                     for i, line in enumerate(lines)]
            (other / f"{name}.{side}").write_text("\n".join(lines) + "\n")
        (other / f"{name}.docs").write_text(paths.docs[
            0 if name == "train" else 1].read_text())
    moved = DataPaths(*(other / f for f in ("train.src", "train.tgt", "dev.src",
                                            "dev.tgt")),
                      docs=(other / "train.docs", other / "dev.docs"))
    with pytest.raises(InputError) as err:
        trainer("ctx_transformer", moved, tmp_path / "step2", 2, averaged)
    assert str(err.value).startswith(
        f"{averaged}: its source vocabulary misses ")
    assert "% of the training data's source tokens" in str(err.value)
    assert "at most 1% allowed" in str(err.value)
    assert not (tmp_path / "step2").exists()
