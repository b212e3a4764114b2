"""Config-driven sweeps: one model per value of one config key.

    sweeps:
      npmt_window: {model: npmt, key: model.window, values: [5, 7, 9, 11]}

derives one model per value (npmt_window5, ...) that trains and decodes like its
base model; the value the base already has is the base itself, so it is not
trained twice. The derivation runs once at workflow start-up, after validation,
so every rule and every model list sees the derived models.
"""

from __future__ import annotations

import json

from phrasenmt.io import InputError

# Preset values a sweep may vary, mirrored from the registered presets so that
# building the DAG does not import torch (tests check them against the registry).
PRESET_VALUES = {(arch, preset): {"model.window": 7}
                 for arch in ("npmt", "npmt_noreorder")
                 for preset in ("tiny", "iwslt", "iwslt_en_de", "iwslt_en_vi")}
# Document-level models (the slides' K, N_c, integration and gating tables): the
# values every Transformer size preset of each arch has.
_CTX = {"ctx_transformer": "both", "ctx_transformer_enc": "encoder",
        "ctx_transformer_dec": "decoder"}
_DOCUMENT_VALUES = {
    **{arch: {"model.context_size": 2, "model.context_layers": 1,
              "model.gating": True, "model.integration": where}
       for arch, where in _CTX.items()},
    **{arch: {"model.context_size": 3} for arch in ("han_enc", "han_dec",
                                                     "han_enc_dec")}}
PRESET_VALUES.update({(arch, preset): values
                      for arch, values in _DOCUMENT_VALUES.items()
                      for preset in ("tiny", "small", "iwslt", "base", "big")})


def _get_dotted(entry: dict, key: str) -> object:
    """The value at a dotted key of a model entry (KeyError when not set)."""
    value: object = entry
    for part in key.split("."):
        if not isinstance(value, dict):
            raise KeyError(key)
        value = value[part]
    return value


def sweep_base_value(config: dict, model: str, key: str) -> object:
    """The value `model` has for `key`: its config's, else its preset's (or None)."""
    entry = config["models"][model]
    try:
        return _get_dotted(entry, key)
    except KeyError:
        return PRESET_VALUES.get((entry["arch"], entry["preset"]), {}).get(key)


def sweep_point_name(base: str, key: str, value: object) -> str:
    """Name of the model a sweep derives, e.g. npmt_window5 (dots become 'p')."""
    text = str(value).lower().replace(".", "p").replace("-", "m")
    return f"{base}_{key.rsplit('.', 1)[-1]}{text}"


def sweeps(config: dict) -> list[str]:
    """Names of the enabled sweeps (whose base model is configured)."""
    return [n for n, s in config.get("sweeps", {}).items()
            if s.get("enabled", True) and s["model"] in config["models"]]


def sweep_points(config: dict, name: str) -> list[tuple[object, str]]:
    """(value, model) of each point of a sweep, in the configured order."""
    sweep = config["sweeps"][name]
    base, key = sweep["model"], sweep["key"]
    own = sweep_base_value(config, base, key)
    return [(v, base if v == own else sweep_point_name(base, key, v))
            for v in sweep["values"]]


def derived_models(config: dict) -> set[str]:
    """Models the enabled sweeps add (not their bases)."""
    return {m for name in sweeps(config) for _, m in sweep_points(config, name)
            if m != config["sweeps"][name]["model"]}


def _derived_entry(base: dict, key: str, value: object) -> dict:
    """A copy of the base entry with `key` set to `value`."""
    entry = json.loads(json.dumps(base))
    *parents, leaf = key.split(".")
    node = entry
    for part in parents:
        node = node.setdefault(part, {})
    node[leaf] = value
    return entry


def derive_sweeps(config: dict) -> None:
    """Add the models of every enabled sweep to config["models"] (idempotent)."""
    for name, sweep in config.get("sweeps", {}).items():
        if not sweep.get("enabled", True):
            continue
        where = f"sweeps.{name}"
        base = sweep["model"]
        if base not in config["models"]:
            raise InputError(f"{where}.model: unknown model {base!r}", "config")
        if config["models"][base].get("checkpoint_of"):
            raise InputError(f"{where}.model: {base!r} decodes another model's "
                             "checkpoint; sweep a model that trains", "config")
        own_seeds = config["models"][base].get("seeds") or config.get("seeds", [])
        extra = sorted(set(sweep.get("seeds") or []) - set(own_seeds))
        if extra:
            raise InputError(f"{where}.seeds: {extra} are not seeds of {base!r} "
                             f"({sorted(own_seeds)})", "config")
        for value, model in sweep_points(config, name):
            if model == base:
                continue
            entry = _derived_entry(config["models"][base], sweep["key"], value)
            if sweep.get("seeds"):
                entry["seeds"] = list(sweep["seeds"])
            if config["models"].get(model, entry) != entry:
                raise InputError(f"{where}: derived model {model!r} is already a "
                                 "different entry of models", "config")
            config["models"][model] = entry
