"""Which fastText tables each continuous model reads, and the size they have."""

from __future__ import annotations

import json

import pytest

from phrasenmt import experiment
from phrasenmt.embeddings import main as embeddings_main
from phrasenmt.io import InputError
from phrasenmt.models.registry import PRESETS
from phrasenmt.training.spec import resolve_spec
from phrasenmt.workflow import continuous as wfe
from tests.unit.test_experiment import merged, model

DS = "synthetic_de_en"


def resolved(config: dict, name: str):
    """The model config the train rule's --spec resolves to."""
    return resolve_spec(json.loads(wfe.continuous_spec(config, DS, name))).model


def test_conmt_reads_the_unjoined_tables_and_pconmt_the_joined_ones():
    config = merged({})
    experiment.start(config)
    conmt, pconmt = resolved(config, "conmt"), resolved(config, "pconmt_fert2")
    root = f"results/{DS}/embeddings"
    assert (conmt.word_table, conmt.fasttext_model, conmt.phrase_table) == (
        f"{root}/plain/words.vec", f"{root}/plain/model.bin", "")
    assert (pconmt.word_table, pconmt.phrase_table, pconmt.fasttext_model) == (
        f"{root}/words.vec", f"{root}/phrases.vec", f"{root}/model.bin")


def _vec_tokens(path) -> set[str]:
    return {line.split(" ")[0] for line in path.read_text().splitlines()[1:]}


def test_conmt_table_has_a_whole_word_vector_for_every_target_word(tmp_path):
    # `brigade` occurs only inside the listed phrase `fire brigade`
    text = tmp_path / "train.en"
    text.write_text("the fire brigade comes\nthe dog comes home\n" * 10)
    phrases = tmp_path / "phrases.tsv"
    phrases.write_text("phrase\tfrequency\tpmi\nfire brigade\t10\t1.0\n")
    opts = ["--dim", "8", "--epoch", "1", "--threads", "1", "--bucket", "1000"]
    joined, plain = tmp_path / "joined", tmp_path / "plain"
    embeddings_main(["concat", "--text", str(text), "--phrases", str(phrases),
                     "--out", str(tmp_path / "train.concat")])
    embeddings_main(["train", "--text", str(tmp_path / "train.concat"), "--phrases",
                     str(phrases), "--out-dir", str(joined), *opts])
    embeddings_main(["concat", "--text", str(text), "--out", str(tmp_path / "t.txt")])
    assert (tmp_path / "t.txt").read_text() == text.read_text()
    embeddings_main(["train", "--text", str(tmp_path / "t.txt"), "--out-dir",
                     str(plain), *opts])
    words = set(text.read_text().split())
    emb = f"results/{DS}/embeddings"
    here = {f"{emb}/plain/words.vec": plain / "words.vec",
            f"{emb}/words.vec": joined / "words.vec"}

    def word_table(arch: str) -> set[str]:  # the table the rules give the model
        return _vec_tokens(here[wfe.table_files(DS, arch)["word_table"]])

    assert words <= word_table("conmt")
    assert not (plain / "phrases.vec").exists()
    # PCoNMT's word table (the joined text's) lacks it: the phrase table has it
    assert "brigade" not in word_table("pconmt_nofert")
    assert "fire_brigade" in _vec_tokens(joined / "phrases.vec")


def test_the_base_preset_sets_the_fasttext_dimension():
    config = merged(model("conmt", preset="base"))
    experiment.start(config)
    assert wfe.embedding_dim(config, DS) == 300  # the fastText rules' --dim
    assert resolved(config, "conmt").embed_dim == 300
    assert resolved(config, "pconmt_fert2").embed_dim == 300  # shares the tables
    assert wfe.embedding_dim(config, "synthetic_en_de") == 100
    tiny = merged({"embeddings": {"dim": 16}})
    experiment.start(tiny)
    assert wfe.embedding_dim(tiny, DS) == 16 and resolved(tiny, "conmt").embed_dim == 16


@pytest.mark.parametrize("override, message", [
    ({"embeddings": {"dim": 100}, **model("conmt", preset="base")},
     ("embeddings.dim: is 100 but models.conmt.preset 'base' gives 300-dimensional "
      "output tables")),
    ({"models": {"conmt": {"preset": "base"},
                 "pconmt_fert2": {"model": {"embed_dim": 64}}}},
     ("models.pconmt_fert2.model.embed_dim: gives 64-dimensional output tables but "
      "models.conmt.preset 'base' gives 300, and the models of dataset "
      "synthetic_de_en share its fastText tables")),
])
def test_table_sizes_that_disagree_fail_at_start_up(override, message):
    with pytest.raises(InputError) as err:
        experiment.start(merged(override))
    assert str(err.value).startswith(message), str(err.value)
    assert "\n" not in str(err.value)


def test_preset_table_sizes_mirror_the_registered_presets():
    for arch in wfe.TABLE_ARCHS:
        for preset in PRESETS[arch]:
            dim = resolve_spec({"arch": arch, "preset": preset}).model.embed_dim
            assert dim == wfe.PRESET_TABLE_DIMS.get(preset, wfe.DEFAULT_TABLE_DIM)
