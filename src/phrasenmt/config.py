"""Experiment configuration: reading config files, and validation against the
schema generated from `phrasenmt.config_model` (defaults filled in) and the
model's rules, each problem one line naming the key."""

from __future__ import annotations

import copy
import functools
import json
import os
import re
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from phrasenmt.config_model import INHERITED, rule_error
from phrasenmt.io import InputError, read_text, safe_yaml_loader

SCHEMA = Path(__file__).resolve().parents[2] / "schemas" / "config.schema.yaml"


class NumberLoader(yaml.SafeLoader):
    """PyYAML's safe loader reading numbers as YAML 1.2 and JSON do.

    PyYAML implements YAML 1.1, where a float needs a dot and a signed exponent:
    `1e-05` (how Python prints 0.00001), `1e-5` and `5e3` would be strings, so
    a learning rate written in config.yaml as `1.0e-5` came back from a spec as
    text. `load_yaml` (config files, specs) reads with it.
    """


NumberLoader.yaml_implicit_resolvers = {
    first: list(resolvers)
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
NumberLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."))


def plain_scalar(text: str) -> Any:
    """`text` read as an unquoted YAML scalar the way `NumberLoader` reads one:
    '4' -> 4, '1e-5' -> 1e-05, 'true' -> True, 'null' -> None; other text as is."""
    loader = NumberLoader("")
    try:
        tag = loader.resolve(yaml.ScalarNode, text, (True, False))
        if tag == "tag:yaml.org,2002:str":
            return text
        return loader.construct_object(yaml.ScalarNode(tag, text))
    finally:
        loader.dispose()


def _with_defaults(validator_class: type) -> type:
    """Extend a jsonschema validator so that `properties` defaults are filled in."""
    validate_properties = validator_class.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema):
        if isinstance(instance, dict):
            for key, sub in properties.items():
                if "default" in sub and key not in instance:
                    instance[key] = _copy(sub["default"])
        yield from validate_properties(validator, properties, instance, schema)

    return jsonschema.validators.extend(validator_class, {"properties": set_defaults})


def _copy(value: Any) -> Any:
    """Deep-copy plain YAML data so defaults are never shared between entries."""
    return copy.deepcopy(value)


# Keys that were renamed: old dotted key -> (new key, what it is).
RENAMED = {"evaluate.bootstrap": ("evaluate.significance_trials",
                                  "the number of bootstrap samples over test items")}


def _key_path(error: jsonschema.ValidationError) -> str:
    """Dotted config key an error is about, e.g. datasets.synthetic_en_de.bpe.merges."""
    parts = [str(p) for p in error.absolute_path]
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set(error.schema.get("properties", {}))
        extra = sorted(k for k in error.instance if k not in allowed)
        if extra:
            parts.append(extra[0])
            old = ".".join(parts)
            if old in RENAMED:
                new, what = RENAMED[old]
                return f"{old}: unknown key: renamed to {new} ({what})"
            known = ", ".join(sorted(allowed))
            return f"{'.'.join(parts)}: unknown key (known keys: {known})"
    return ".".join(parts) or "<top level>"


def _message(error: jsonschema.ValidationError) -> str:
    """One line naming the key and what is wrong with it."""
    where = _key_path(error)
    if ": unknown key" in where:
        return where
    if error.validator == "enum":
        choices = ", ".join(map(str, error.validator_value))
        return f"{where}: {error.instance!r} is not one of {choices}"
    if error.instance is None and error.validator == "type":  # `seed:` or --config seed=
        return f"{where}: no value given (expected {error.validator_value})"
    return f"{where}: {error.message}{_entry_key_hint(error)}"


def _entry_key_hint(error: jsonschema.ValidationError) -> str:
    """Where a mapping of named entries (models, datasets, a dataset's
    contrastive sets) was given an entry's own key (`contrastive: {dev_fraction:
    0.5}`), say that the key goes inside a named entry."""
    parts = [str(p) for p in error.absolute_path]
    if (error.validator != "type" or error.validator_value != "object"
            or len(parts) < 2 or parts[-1] not in error.schema.get("properties", {})):
        return ""
    parent, key = ".".join(parts[:-1]), parts[-1]
    return (f"; {parts[-2]} maps a name to each entry, and {key} is a key of an "
            f"entry: {parent}: {{NAME: {{{key}: ...}}}}")


@functools.lru_cache(maxsize=8)
def _parsed_schema(path: str, mtime_ns: int, size: int) -> dict:
    with open(path, encoding="utf-8") as fh:
        return yaml.load(fh, Loader=safe_yaml_loader())


def load_schema(path: str | os.PathLike = SCHEMA) -> dict:
    """Load the YAML JSON-Schema (parsed once per process and file version; a
    copy each call, so that a caller may change it)."""
    stat = os.stat(path)
    return copy.deepcopy(_parsed_schema(os.fspath(path), stat.st_mtime_ns, stat.st_size))


def validate_config(config: dict, source: str | None = "config",
                    schema: dict | None = None) -> dict:
    """Validate `config` in place, filling defaults; raise InputError naming the key."""
    schema = schema or load_schema()
    validator_class = _with_defaults(jsonschema.Draft202012Validator)
    errors = sorted(validator_class(schema).iter_errors(config),
                    key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    if errors:
        raise InputError(_message(errors[0]), source)
    _as_declared(config, schema, schema)
    problem = rule_error(config)  # the model's rules across keys and entries
    if problem:
        raise InputError(problem, source)
    _take_checkpoint_owner(config)
    return config


def declared_number(value: Any, types: Iterable[str]) -> Any:
    """The one rule for numbers from the config to the commands: a whole float
    (`4.0`, `1e3`) where only an integer is declared is that integer, so every
    rule and file name sees `4`, `1000`, `seed1`; anything else is returned as
    is (`4.5` is then refused naming its key, by the schema or the field type)."""
    types = set(types)
    if (isinstance(value, float) and value.is_integer() and "integer" in types
            and "number" not in types):
        return int(value)
    return value


def _as_declared(value: Any, schema: dict, root: dict) -> Any:
    """`value` with `declared_number` applied to it and (in place) to every value
    inside it whose schema declares a type: the schema finds every integer key."""
    while "$ref" in schema:  # local references only: "#/$defs/model"
        target = root
        for part in schema["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        schema = target
    for alternative in (*schema.get("oneOf", ()), *schema.get("anyOf", ())):
        value = _as_declared(value, alternative, root)
    if isinstance(value, dict):
        props, extra = schema.get("properties", {}), schema.get("additionalProperties")
        for key in value:
            sub = props.get(key, extra)
            if isinstance(sub, dict):
                value[key] = _as_declared(value[key], sub, root)
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        value[:] = [_as_declared(item, schema["items"], root) for item in value]
    declared = schema.get("type", ())
    return declared_number(value, [declared] if isinstance(declared, str) else declared)


def _take_checkpoint_owner(config: dict) -> None:
    """Give each checkpoint_of entry its model's arch, preset, model and train
    (and datasets), in place; the config model has checked the names."""
    models = config["models"]
    for entry in models.values():
        owner = models.get(entry.get("checkpoint_of"))
        if owner is not None:
            entry.update({k: owner[k] for k in INHERITED})
            if "datasets" in owner:
                entry["datasets"] = list(owner["datasets"])


def _duplicate(node: yaml.Node, path: list[str]) -> tuple[str, int, int] | None:
    """(dotted key, line, first line) of the first mapping key written twice."""
    if isinstance(node, yaml.SequenceNode):
        items = [(str(i), item) for i, item in enumerate(node.value)]
    elif isinstance(node, yaml.MappingNode):
        items, seen = [], {}
        for key_node, value in node.value:
            key = str(key_node.value)
            line = key_node.start_mark.line + 1
            if key in seen and key != "<<":  # YAML merge keys may repeat
                return ".".join([*path, key]), line, seen[key]
            seen[key] = line
            items.append((key, value))
    else:
        return None
    for key, child in items:
        found = _duplicate(child, [*path, key])
        if found:
            return found
    return None


def load_yaml(text: str, where: str | os.PathLike) -> Any:
    """Parse YAML (or JSON); bad syntax or a key written twice raises naming it.

    PyYAML (and Snakemake, which loads --configfile itself) keeps the last of
    two equal keys; two models with the same name would silently become one.
    """
    loader = NumberLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        found = _duplicate(node, [])
        if found:
            key, line, first = found
            raise InputError(f"{key}: key written twice (first at line {first}); "
                             "the first would be silently dropped", where, line)
        return loader.construct_document(node)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        lines = text.splitlines()
        if mark and "'\\t'" in problem and mark.line < len(lines) and not lines[
                mark.line][:mark.column].strip(" \t"):
            raise InputError("a tab character in indentation; YAML indents with "
                             "spaces", where, mark.line + 1) from None
        raise InputError(f"invalid YAML: {problem}", where,
                         mark.line + 1 if mark else None) from None
    except RecursionError:
        raise InputError("invalid YAML: nested too deeply", where) from None
    finally:
        loader.dispose()


# What a config file holds at top level, in words, when it is no mapping.
KINDS = {list: "a list", str: "a single string", int: "a single number",
         float: "a single number", bool: "a single true/false value"}


def read_config_file(path: str | os.PathLike) -> dict:
    """Read one YAML (or JSON) config file, not yet validated; a file that is no
    mapping of keys, or no YAML, raises naming the file (and the line)."""
    text = read_text(path)
    try:
        config = load_yaml(text, path)
    except InputError as err:
        def once(pairs: list) -> dict:
            keys = [k for k, _ in pairs]
            twice = next((k for k in keys if keys.count(k) > 1), None)
            if twice is not None:
                raise InputError(f"{twice}: key written twice; the first would be "
                                 "silently dropped", path)
            return dict(pairs)

        try:  # JSON, which Snakemake reads first, allows tabs that YAML does not
            config = json.loads(text, object_pairs_hook=once)
        except ValueError:
            raise err from None
    if config is None:
        return {}
    if not isinstance(config, dict):
        kind = KINDS.get(type(config), "no mapping")
        raise InputError(f"the file holds {kind}; a config is a mapping of keys",
                         path)
    return config


def check_config_file(path: str | os.PathLike) -> None:
    """In the Snakefile, before Snakemake reads `path` itself: a file there that is
    not a YAML mapping stops the run with one line naming the file and line (a
    WorkflowError would add the frames of the Snakefile and of this module)."""
    if Path(path).is_file():
        try:
            read_config_file(path)
        except InputError as err:
            print(f"invalid configuration: {err}", file=sys.stderr)
            sys.exit(1)


def restore_numbers(config: Any, parsed: Any) -> None:
    """Put the numbers of a config file, as `NumberLoader` reads them, back into
    the config Snakemake built from it (in place).

    Snakemake parses config files itself, with YAML 1.1 rules: `lr: 1e-5` comes
    to it as the string '1e-5'. Where the file holds a number and the config
    the same number as text, the config gets the number.
    """
    if isinstance(config, dict) and isinstance(parsed, dict):
        keys = [k for k in parsed if k in config]
    elif isinstance(config, list) and isinstance(parsed, list) and len(
            config) == len(parsed):  # a sweep's values: [1e-4, 1e-5]
        keys = range(len(parsed))
    else:
        return
    for key in keys:
        value = parsed[key]
        if isinstance(value, float) and isinstance(config[key], str):
            try:
                same = float(config[key]) == value
            except ValueError:
                same = False
            if same:
                config[key] = value
        else:
            restore_numbers(config[key], value)


def restore_given_numbers(config: Any, given: Any) -> None:
    """Put the numbers of `snakemake --config` values back into the config (in
    place): Snakemake reads a nested value (`models={m: {train: {lr: 1e-5}}}`)
    with YAML's base loader, which makes every number text ('1e-5', '4').
    Each text of `given` the config still holds is read as `plain_scalar`, the
    way a config file's value is (`restore_numbers`)."""
    if isinstance(config, dict) and isinstance(given, Mapping):
        keys = [k for k in given if k in config]
    elif isinstance(config, list) and isinstance(given, list) and len(
            config) == len(given):
        keys = range(len(given))
    else:
        return
    for key in keys:
        value = given[key]
        if isinstance(value, str) and config[key] == value:
            config[key] = plain_scalar(value)
        else:
            restore_given_numbers(config[key], value)


def load_config(path: str | os.PathLike) -> dict:
    """Read and validate a YAML config file."""
    if not Path(path).is_file():
        raise InputError("config file not found", path)
    return validate_config(read_config_file(path), str(path))
