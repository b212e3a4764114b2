"""The one object the rules reach `phrasenmt.workflow` through: `W` of rules/common.smk.

A rule names a helper as `W.<module>.<function>` (`input: W.npmt.lm_inputs`).
The helper is a plain function of the config and of wildcard values, its
parameters named after the wildcards (`def lm_inputs(config, dataset, model)`);
the adapter hands it the config and the job's wildcards by name, and Snakemake's
`input`/`output` to a params function that names them. So every helper is
unit-tested without Snakemake, no rules file defines a function, and a family's
change touches its rules file and its module only.

    W.npmt.lm_inputs                         an input or params function
    W.continuous.fertility_labels.given(split="train", kind="")
                                             some parameters fixed by the rule
                                             (a "{testset}" value is filled in)
    W.base.langs.now(dataset="iwslt14")      called while the rules are read
    W.regex(W.npmt.trained_models)           a wildcard constraint of names
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from types import FunctionType, ModuleType
from typing import Any

from phrasenmt.workflow import base

# the wildcards of the rules; a helper's other parameters are the config, what
# Snakemake passes a params function (AUX), or have defaults
WILDCARDS = frozenset({"dataset", "model", "seed", "testset", "split", "lang",
                       "sweep", "cset", "table", "decoding", "segmentation"})
AUX = ("input", "output")
# W.<name> -> phrasenmt.workflow.<name>, the modules rules read (see MODULES' docs
# in docs/development-layout.md); targets is what `rule all` asks for
MODULES = ("base", "runs", "corpus", "evaluation", "phrase_repr", "curves",
           "continuous", "npmt", "npmt_report", "documents", "discourse",
           "documents_report", "claims", "targets")


class JobFunction:
    """How one helper takes a job's wildcards; `function()` is what Snakemake calls."""

    def __init__(self, func: Callable, config: Mapping, fixed: Mapping | None = None):
        self.func, self.config, self.fixed = func, config, dict(fixed or {})
        self.name = f"{func.__module__}.{func.__qualname__}"
        params = inspect.signature(func).parameters
        self.takes_config = "config" in params
        self.aux = tuple(a for a in AUX if a in params and a not in self.fixed)
        self.wildcards = tuple(p for p in params if p in WILDCARDS and p not in self.fixed)
        # a parameter the rule has to fix with .given() (checked when called)
        self.unset = tuple(name for name, param in params.items()
                           if name not in ("config", *AUX, *WILDCARDS, *self.fixed)
                           and param.default is param.empty)

    def call(self, wildcards: Mapping | None, aux: Mapping[str, Any]) -> Any:
        """The helper's result for a job's wildcards (and input/output)."""
        if self.unset:
            raise TypeError(f"{self.name}: parameter {self.unset[0]!r} is neither the "
                            f"config, a wildcard ({', '.join(sorted(WILDCARDS))}) nor "
                            "input/output; the rule sets it with .given()")
        values = dict(wildcards or {})
        kwargs = {"config": self.config} if self.takes_config else {}
        for name, value in self.fixed.items():
            kwargs[name] = value.format(**values) if isinstance(value, str) else value
        for name in self.wildcards:
            if name not in values:
                raise KeyError(f"{self.name} needs the wildcard {{{name}}}; the job "
                               f"has {', '.join(values) or 'none'}")
            kwargs[name] = values[name]
        return self.func(**kwargs, **aux)

    def function(self) -> FunctionType:
        """A function of (wildcards[, input][, output]), as Snakemake inspects it."""

        def job_function(wildcards, **aux):
            return self.call(wildcards, aux)

        job_function.__signature__ = inspect.Signature(
            [inspect.Parameter("wildcards", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
            + [inspect.Parameter(a, inspect.Parameter.KEYWORD_ONLY) for a in self.aux])
        job_function.__name__ = self.func.__name__
        job_function.__qualname__ = self.name
        job_function.given = self.given
        job_function.now = self.now
        return job_function

    def given(self, **fixed: Any) -> FunctionType:
        """The same helper with some parameters set by the rule ("{testset}": filled)."""
        return JobFunction(self.func, self.config, {**self.fixed, **fixed}).function()

    def now(self, **values: Any) -> Any:
        """The helper's result while the rules are read: `values` for the wildcards."""
        if self.aux:
            raise TypeError(f"{self.name} reads the job's {self.aux[0]}: it has no "
                            "value before a job")
        return self.call(values, {})


class Module:
    """The rules' view of one `phrasenmt.workflow` module: its functions as job
    functions, its other names (constants) as they are."""

    def __init__(self, module: ModuleType, config: Mapping):
        self._module, self._config = module, config

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._module, name)
        if inspect.isfunction(value):
            return JobFunction(value, self._config).function()
        return value

    def __repr__(self) -> str:
        return f"<workflow module {self._module.__name__}>"


class Adapter:
    """`W` of rules/common.smk: `W.<module>` for each of MODULES, and the
    input functions and wildcard constraints that rules of every stage use."""

    def __init__(self, config: Mapping):
        self.config = config
        for name in MODULES:
            module = importlib.import_module(f"phrasenmt.workflow.{name}")
            setattr(self, name, Module(module, config))

    def text(self, split: str, side: str) -> FunctionType:
        """Input function: a cleaned word-level file (side src, tgt or ref) of
        `split` ("{testset}" and "{split}" allowed)."""
        return self.corpus.text_file.given(split=split, side=side)

    def bpe(self, split: str, side: str) -> FunctionType:
        """Input function: the BPE'd file of `split` on one side (src or tgt)."""
        return self.corpus.bpe_file.given(split=split, side=side)

    def regex(self, names: Callable) -> str:
        """A wildcard constraint matching exactly the names a helper of the
        config returns (`W.regex(W.npmt.trained_models)`)."""
        return base.name_regex(list(names.now()))

    def datasets_regex(self, *sources: str) -> str:
        """The datasets obtained in one of these ways (synthetic, download, local)."""
        return base.name_regex([d for s in sources for d in base.datasets_from(self.config, s)])

    def models_regex(self, family: str) -> str:
        """The models of one family (`default`, `continuous`, `npmt`, `documents`)."""
        return base.model_regex(self.config, family)
