"""A config field declares its type and bound once, in its annotation, and every
reader holds a value to it with the same line: the model and training configs'
validation (`phrasenmt.hparams.validate`, start-up and `phrasenmt.train
--spec`) and the CLI options that set the field (`phrasenmt.cli.field_type`)."""

from __future__ import annotations

import argparse
import dataclasses
import math
from typing import Annotated, Literal

import pytest
from pydantic import Field

from phrasenmt import bpe, embeddings, fields, phrases, translate_text
from phrasenmt.align import __main__ as align_main
from phrasenmt.cli import ArgumentParser, field_type
from phrasenmt.config_entries import Bpe, Clean
from phrasenmt.config_model import Align, Decode, Embeddings, Phrases
from phrasenmt.data import clean
from phrasenmt.hparams import validate
from phrasenmt.hparams.npmt import NPMTConfig
from phrasenmt.io import InputError
from phrasenmt.training.spec import resolve_spec
from phrasenmt.translate import translate_parser


@dataclasses.dataclass
class Toy:
    width: Annotated[int, Field(ge=1, description="a size")] = 4
    rate: Annotated[float, Field(ge=0, lt=1, description="a share")] = 0.5
    weight: Annotated[float, Field(description="any finite number")] = 1.0
    cell: Annotated[Literal["gru", "lstm"], Field(description="a choice")] = "gru"
    on: Annotated[bool, Field(description="a switch")] = True


@pytest.mark.parametrize("name,value,line", [
    ("width", 0, "must be >= 1, got 0"),
    ("width", True, "expected int, got True"),
    ("width", 2.0, "expected int, got 2.0"),
    ("width", "4", "expected int, got '4'"),
    ("rate", 1.0, "must be in [0, 1), got 1.0"),
    ("rate", -0.1, "must be in [0, 1), got -0.1"),
    ("rate", math.nan, "must be a finite number, got nan"),
    ("weight", math.inf, "must be a finite number, got inf"),
    ("cell", "rnn", "must be one of gru, lstm, got 'rnn'"),
    ("on", "yes", "expected bool, got 'yes'"),
])
def test_a_value_outside_its_field_is_one_line(name, value, line):
    with pytest.raises(fields.FieldError) as err:
        fields.check_value(Toy, name, value)
    assert str(err.value) == line


def test_an_int_given_to_a_float_field_becomes_a_float():
    value = fields.check_value(Toy, "weight", 2)
    assert value == 2.0 and isinstance(value, float)


def test_validate_checks_every_field_naming_its_section():
    validate(Toy())
    with pytest.raises(InputError, match=r"^model\.rate: must be in \[0, 1\), got 1\.5$"):
        validate(Toy(rate=1.5))
    with pytest.raises(InputError, match=r"^train\.width: must be >= 1, got -2$"):
        validate(Toy(width=-2), "train")


def parse_error(capsys, parser: ArgumentParser, *argv: str) -> str:
    with pytest.raises(SystemExit):
        parser.parse_args(list(argv))
    return capsys.readouterr().err


def test_the_cli_option_and_the_config_key_give_the_same_line(capsys):
    parser = ArgumentParser(prog="toy")
    parser.add_argument("--width", type=field_type(Toy, "width"))
    parser.add_argument("--rate", type=field_type(Toy, "rate"))
    assert parser.parse_args(["--width", "3", "--rate", "0.25"]).rate == 0.25
    with pytest.raises(InputError) as err:
        validate(Toy(width=0))
    assert f"argument --width: {err.value.message} (see --help)" in parse_error(
        capsys, parser, "--width", "0")
    assert "argument --rate: must be in [0, 1), got 1 (see --help)" in parse_error(
        capsys, parser, "--rate", "1")
    assert "expected an integer (ASCII digits), got '٣'" in parse_error(
        capsys, parser, "--width", "٣")


def test_field_type_takes_numbers_only():
    with pytest.raises(TypeError, match="Toy.cell"):
        field_type(Toy, "cell")


# translate's options that set a config key, the key's class and field, and a
# value outside the field's bound
TRANSLATE_OPTIONS = [("--beam", Decode, "beam", "0"),
                     ("--lenpen", Decode, "lenpen", "-1"),
                     ("--max-len-a", Decode, "max_len_a", "-0.5"),
                     ("--batch-size", Decode, "batch_size", "0"),
                     ("--lambda2", NPMTConfig, "lambda2", "-0.5")]


@pytest.mark.parametrize("option,cls,name,value", TRANSLATE_OPTIONS)
def test_translate_options_take_their_bound_from_the_config_field(
        capsys, option, cls, name, value):
    parser = translate_parser()
    (action,) = [a for a in parser._actions if option in a.option_strings]
    assert action.type.field == (cls, name)
    number = float(value) if fields.type_name(fields.field_info(cls, name)) == "float" \
        else int(value)
    with pytest.raises(fields.FieldError) as err:
        fields.check_value(cls, name, number, shown=value)
    assert f"argument {option}: {err.value} (see --help)" in parse_error(
        capsys, parser, "--checkpoint", "c.pt", "--output", "out.txt",
        "--input", "in.txt", option, value)


def test_a_model_key_is_held_to_its_bound_at_start_up_and_by_translate(capsys):
    """models.<name>.model.lambda2 and translate's --lambda2 set one field."""
    with pytest.raises(InputError) as err:
        resolve_spec({"arch": "npmt", "preset": "tiny", "model": {"lambda2": -0.5}},
                     where=None, prefix="models.npmt.")
    assert str(err.value) == "models.npmt.model.lambda2: must be >= 0, got -0.5"
    assert "argument --lambda2: must be >= 0, got -0.5" in parse_error(
        capsys, translate_parser(), "--checkpoint", "c.pt", "--output", "out.txt",
        "--input", "in.txt", "--lambda2", "-0.5")


# Other stages' options that set a workflow config key: (module, subcommand,
# option, the key's class, its field)
STAGE_OPTIONS = [
    (bpe, "learn", "--merges", Bpe, "merges"),
    (bpe, "apply", "--threshold", Bpe, "vocab_threshold"),
    (phrases, None, "--min-count", Phrases, "min_count"),
    (phrases, None, "--max-length", Phrases, "max_length"),
    (clean, None, "--max-len", Clean, "max_len"),
    (clean, None, "--max-ratio", Clean, "max_ratio"),
    (align_main, "run", "--samplers", Align, "eflomal_samplers"),
    (align_main, "run", "--rel-iterations", Align, "eflomal_rel_iterations"),
    (embeddings, "train", "--dim", Embeddings, "dim"),
    (embeddings, "train", "--epoch", Embeddings, "epoch"),
    (embeddings, "train", "--min-count", Embeddings, "min_count"),
    (embeddings, "train", "--minn", Embeddings, "minn"),
    (embeddings, "train", "--maxn", Embeddings, "maxn"),
    (translate_text, None, "--batch-size", Decode, "batch_size"),
]


def option_action(parser: argparse.ArgumentParser, command: str | None, option: str):
    if command is not None:
        (sub,) = [a for a in parser._actions
                  if isinstance(a, argparse._SubParsersAction)]
        parser = sub.choices[command]
    (action,) = [a for a in parser._actions if option in a.option_strings]
    return action


@pytest.mark.parametrize("module,command,option,cls,name", STAGE_OPTIONS,
                         ids=[f"{m.__name__} {o}" for m, _, o, _, _ in STAGE_OPTIONS])
def test_stage_options_take_their_bound_from_the_config_field(
        capsys, module, command, option, cls, name):
    parser = module.build_parser()
    assert option_action(parser, command, option).type.field == (cls, name)
    info = fields.field_info(cls, name)
    kind, limits = fields.value_type(info), fields.limits(info)
    low = limits["ge"] if "ge" in limits else limits["gt"]  # gt: the bound is out too
    bad = low - 1 if kind is int else low - 0.5
    with pytest.raises(fields.FieldError) as err:
        fields.check_value(cls, name, bad, shown=None if kind is int else f"{bad:g}")
    argv = [*([command] if command else []), option, str(bad)]
    assert f"argument {option}: {err.value} (see --help)" in parse_error(
        capsys, parser, *argv)
