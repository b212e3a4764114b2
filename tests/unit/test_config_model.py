"""The typed config model's rules: NaN and infinity are refused in every
number key (typed or passed on as an override), and names that refer to other
entries are checked, each problem one line naming the key."""

from __future__ import annotations

import copy
import math
from collections.abc import Iterator
from typing import Any

import pytest

from phrasenmt import config_schema
from phrasenmt.config import validate_config
from phrasenmt.io import InputError

PAIR = {"src": "a.en", "tgt": "a.de"}
# A config that gives every section, and a value to every number key.
FULL: dict = {
    "seed": 1, "seeds": [1, 2],
    "datasets": {
        "syn": {"source": "synthetic", "src": "en", "tgt": "de",
                "synthetic": {"rates": {"pronoun": 0.5}},
                "contrastive": {"c": {
                    "format": "contrapro", "json": "c.json", "text_src": "t.en",
                    "text_tgt": "t.de", "context_src": "c.en", "context_tgt": "c.de",
                    "extracted": 1, "dev_fraction": 0.5}}},
        "m30k": {"source": "download", "name": "multi30k", "src": "en", "tgt": "de"},
        "own": {"source": "local", "src": "en", "tgt": "de",
                "local": {"train": PAIR, "dev": PAIR, "test": {"t": PAIR}}}},
    "models": {
        "t": {"arch": "transformer", "preset": "tiny", "datasets": ["syn"], "seeds": [1],
              "model": {"dropout": 0.1, "sizes": [1, 2]},
              "train": {"lr": 0.001, "max_steps": 10},
              "decode": {"beam": 2, "lenpen": 0.6, "lambda1": 0.5, "lambda2": 0.0}},
        "c": {"arch": "ctx_transformer", "preset": "tiny", "init_from": "t",
              "joint_finetune": {"train": {"lr": 0.0001}}},
        "t_again": {"checkpoint_of": "t"}},
    "baseline": {"syn": "t", "m30k": "c", "own": "c"},
    "families": {"f": ["t", "c"]},
    "embeddings": {"dim": 32},
    "discourse": {"align_train_lines": 10, "lsa_train_lines": 10},
    "sweeps": {"s": {"model": "t", "key": "train.lr", "values": [0.001, 2],
                     "seeds": [1]}},
}


def _resolved(schema: dict, root: dict) -> dict:
    while "$ref" in schema:
        schema = root["$defs"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _schema_numbers(schema: dict, root: dict, path: tuple = ()) -> Iterator[tuple]:
    """Generalized paths (`*` any name, `[]` any item) of every number key."""
    schema = _resolved(schema, root)
    types = schema.get("type", ())
    if {"integer", "number"} & set([types] if isinstance(types, str) else types):
        yield path
    for key, sub in schema.get("properties", {}).items():
        yield from _schema_numbers(sub, root, (*path, key))
    for key, part in (("additionalProperties", "*"), ("items", "[]")):
        if isinstance(schema.get(key), dict):
            yield from _schema_numbers(schema[key], root, (*path, part))
    for sub in (*schema.get("anyOf", ()), *schema.get("oneOf", ())):
        yield from _schema_numbers(sub, root, path)


def _config_numbers(value: Any, schema: dict, root: dict, path: tuple = (),
                    general: tuple = ()) -> Iterator[tuple[tuple, tuple]]:
    """(path, generalized path) of every number in a config."""
    schema = _resolved(schema, root)
    if isinstance(value, float | int) and not isinstance(value, bool):
        yield path, general
    elif isinstance(value, dict):
        props = schema.get("properties", {})
        for key, item in value.items():
            sub = props.get(key, schema.get("additionalProperties"))
            part = key if key in props else "*"
            yield from _config_numbers(item, sub if isinstance(sub, dict) else {},
                                       root, (*path, key), (*general, part))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _config_numbers(item, schema.get("items", {}), root,
                                       (*path, i), (*general, "[]"))


SCHEMA = config_schema.generate()
FILLED = validate_config(copy.deepcopy(FULL), None, SCHEMA)
NUMBERS: dict[tuple, tuple] = {}  # generalized path -> its first path in FILLED
for _path, _general in _config_numbers(FILLED, SCHEMA, SCHEMA):
    NUMBERS.setdefault(_general, _path)


def test_the_config_gives_every_number_key_of_the_model():
    keys = set(NUMBERS)
    missing = set(_schema_numbers(SCHEMA, SCHEMA)) - keys
    assert not missing, sorted(missing)
    assert ("models", "*", "train", "*") in keys  # an untyped override, too
    assert ("sweeps", "*", "values", "[]") in keys


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("path", sorted(NUMBERS.values(), key=str),
                         ids=lambda p: ".".join(map(str, p)))
def test_nan_and_infinity_are_refused_naming_the_key(path, bad):
    config = copy.deepcopy(FILLED)  # a validated config validates again as it is
    node = config
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = bad
    with pytest.raises(InputError) as err:
        validate_config(config, "c.yaml", SCHEMA)
    key = ".".join(map(str, path))
    assert str(err.value).startswith(f"c.yaml: {key}: "), str(err.value)
    # "must be a finite number, got nan", "nan is not of type 'integer'",
    # "-inf is less than the minimum of 0"
    assert str(bad) in str(err.value).removeprefix(f"c.yaml: {key}: ")


@pytest.mark.parametrize("mutate, message", [
    (lambda c: c["datasets"]["own"].pop("local"),
     "datasets.own.local: required when source is local"),
    (lambda c: c.update(baseline={"syn": "t", "nope": "t"}),
     "baseline.nope: unknown dataset 'nope'"),
    (lambda c: c.update(baseline={"syn": "t"}),
     "baseline: no baseline for dataset 'm30k', which trains c"),  # not t_again
    (lambda c: c.update(baseline={"syn": "t", "m30k": "t", "own": "c"}),
     "baseline.m30k: model 't' does not train on 'm30k'"),
    (lambda c: c["models"]["t_again"].update(train={"lr": 0.5}),
     "models.t_again.train: a checkpoint_of entry takes it from 't'; leave it out"),
    (lambda c: c["models"]["t_again"].update(train={"lr": 0.001, "max_steps": 10},
                                             preset="tiny"), None),
])
def test_references_between_entries(mutate, message):
    config = copy.deepcopy(FULL)
    mutate(config)
    if message is None:  # the same value as the model's is no value of its own
        validate_config(config)
        assert config["models"]["t_again"]["datasets"] == ["syn"]
        return
    with pytest.raises(InputError) as err:
        validate_config(config, "c.yaml")
    assert str(err.value) == f"c.yaml: {message}"


@pytest.mark.parametrize("path, value, message", [
    (("decode", "lenpen"), 1e308, "1e+308 is greater than the maximum of 10.0"),
    (("decode", "beam"), 1_000_000, "1000000 is greater than the maximum of 1000"),
    (("models", "t", "decode", "lenpen"), 500.0,
     "500.0 is greater than the maximum of 10.0"),
    (("models", "t", "decode", "beam"), 10**12,
     "1000000000000 is greater than the maximum of 1000"),
])
def test_decoding_settings_have_an_upper_bound(path, value, message):
    config = copy.deepcopy(FILLED)
    node = config
    for part in path[:-1]:
        node = node.setdefault(part, {})
    node[path[-1]] = value
    with pytest.raises(InputError) as err:
        validate_config(config, "c.yaml", SCHEMA)
    assert str(err.value) == f"c.yaml: {'.'.join(path)}: {message}"
