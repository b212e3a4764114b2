"""A model's own `decode` settings reach its translate command in every family
(dry run, shell commands printed); keys a family's search does not read are
refused at start-up (tests/unit/test_experiment.py)."""

from __future__ import annotations

import re

import pytest

from tests.conftest import snakemake

OWN = """\
models:
  transformer: {decode: {beam: 7, lenpen: 1.1}}
  pr_max: {decode: {beam: 5, lenpen: 0.2}}
  attn_rnn: {decode: {beam: 3, lenpen: 0.9}}
  attn_rnn_reorder: {decode: {beam: 6}}
  ctx_transformer: {decode: {beam: 2, lenpen: 1.5}}
  ctx_transformer_random: {decode: {beam: 2, lenpen: 1.5}}  # its control: the same
  han_enc: {decode: {lenpen: 0.3}}
  han_enc_random: {decode: {lenpen: 0.3}}  # its control: the same
  npmt: {decode: {beam: 8}}
"""
# model -> the flags of its translate command (the global decode: beam 4,
# lenpen 0.6; continuous-family models: beam 1 unless their own says)
EXPECTED = {
    "transformer": "--beam 7 --lenpen 1.1",  # default family
    "pr_max": "--beam 5 --lenpen 0.2",  # phrase representations
    "pr_mean": "--beam 4 --lenpen 0.6",  # no own decode: the global one
    "attn_rnn": "--beam 3 --lenpen 0.9",  # continuous family, softmax output
    "conmt": "--beam 1",  # nearest neighbour: no beam to set
    "attn_rnn_reorder": "--beam 6 --lenpen 0.6",  # NPMT family, beam search
    "ctx_transformer": "--beam 2 --lenpen 1.5",  # document-level
    "han_enc": "--beam 4 --lenpen 0.3",
    "npmt": "--beam 8 --lambda1",  # SWAN's Eq. 3 search
}


@pytest.fixture(scope="module")
def commands(tmp_path_factory) -> str:
    """The shell commands of a dry run with the models' own decode settings."""
    config = tmp_path_factory.mktemp("decode") / "decode.yaml"
    config.write_text(OWN, encoding="utf-8")
    result = snakemake("-n", "-p", "--forceall", "--configfile", str(config))
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return result.stdout


@pytest.mark.parametrize("model", EXPECTED)
def test_own_decode_reaches_the_translate_command(commands: str, model: str):
    # the model's own translations (a checkpoint_of entry such as npmt_lm decodes
    # the same checkpoint with its own settings, into its own folder)
    found = [c for c in re.findall(r"phrasenmt\.translate --checkpoint \S+/models/"
                                   rf"{model}/seed1/\S+ (.*?)> ", commands)
             if f"/translations/{model}/" in c]
    beam_runs = [c for c in found if "--beam 1 " not in c or model == "conmt"]
    assert beam_runs, f"no translate command of {model}"
    for command in beam_runs:
        assert EXPECTED[model] in command, command

