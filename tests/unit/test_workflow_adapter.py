"""W, the one object the rules reach phrasenmt.workflow through (workflow/adapter.py)."""

from __future__ import annotations

import importlib
import re
import types

import pytest
from snakemake.common import get_input_function_aux_params
from snakemake.iocontainers import InputFiles, Wildcards

from phrasenmt.workflow.adapter import MODULES, Adapter, JobFunction, Module
from tests.conftest import REPO

# a frozen config: only the keys the helpers under test read
CONFIG = {"datasets": {"toy": {"src": "en", "tgt": "de", "source": "synthetic"},
                       "mine": {"src": "fr", "tgt": "en", "source": "local"}},
          "models": {"m": {"arch": "transformer"}}}


def _helpers() -> types.ModuleType:
    """A workflow module of helpers named after the wildcards."""
    mod = types.ModuleType("phrasenmt.workflow.fake")
    exec(  # noqa: S102 - a module written in the test
        "NAMES = ('a', 'b')\n"
        "def hyp(config, dataset, model, testset, ext='tok'):\n"
        "    return f'{dataset}/{model}/{testset}.{ext}:{len(config)}'\n"
        "def lm_arg(input):\n"
        "    return f'--lm {input.lm}'\n"
        "def labels(dataset, split, kind):\n"
        "    return f'{dataset}/{split}.{kind}'\n"
        "def names(config):\n"
        "    return ['x', 'y.z']\n", mod.__dict__)
    return mod


def _call(func, wildcards: dict, **aux):
    """Call `func` as Snakemake does: the wildcards, and the aux values it names."""
    given = get_input_function_aux_params(func, aux)
    return func(Wildcards(fromdict=wildcards), **given)


def test_wildcards_are_passed_by_name():
    hyp = Module(_helpers(), CONFIG).hyp
    wc = {"dataset": "toy", "model": "m", "testset": "t", "seed": "1"}
    assert _call(hyp, wc, input=InputFiles()) == "toy/m/t.tok:2"
    assert list(JobFunction(_helpers().hyp, CONFIG).wildcards) == [
        "dataset", "model", "testset"]


def test_snakemake_passes_input_only_to_a_helper_that_names_it():
    fake = Module(_helpers(), CONFIG)
    files = InputFiles(["x.bin"])
    files._set_name("lm", 0)
    assert _call(fake.lm_arg, {"dataset": "toy"}, input=files, output=[]) == "--lm x.bin"
    assert get_input_function_aux_params(fake.hyp, {"input": files}) == {}


def test_given_fixes_parameters_and_fills_wildcards():
    labels = Module(_helpers(), CONFIG).labels
    assert _call(labels.given(split="train", kind=""), {"dataset": "toy"}) == "toy/train."
    fixed = labels.given(split="{testset}", kind="gold")
    assert _call(fixed, {"dataset": "toy", "testset": "t2"}) == "toy/t2.gold"


def test_now_reads_values_while_the_rules_are_read():
    fake = Module(_helpers(), CONFIG)
    assert fake.hyp.now(dataset="d", model="m", testset="t") == "d/m/t.tok:2"
    assert fake.NAMES == ("a", "b")  # constants pass through
    with pytest.raises(TypeError, match="reads the job's input"):
        fake.lm_arg.now()


def test_a_missing_wildcard_names_the_helper_and_the_job():
    hyp = Module(_helpers(), CONFIG).hyp
    with pytest.raises(KeyError, match=r"fake.hyp needs the wildcard \{testset\}; "
                                       r"the job has dataset, model"):
        _call(hyp, {"dataset": "toy", "model": "m"})


def test_a_parameter_left_unset_is_an_error():
    with pytest.raises(TypeError, match="'kind' is neither the config, a wildcard"):
        _call(Module(_helpers(), CONFIG).labels, {"dataset": "toy"})


def test_adapter_text_files_and_regexes():
    w = Adapter(CONFIG)
    assert _call(w.text("{testset}", "ref"), {"dataset": "toy", "testset": "t"}) \
        == "results/toy/data/t.ref.de"
    assert _call(w.bpe("train", "src"), {"dataset": "mine"}) \
        == "results/mine/bpe/train.bpe.fr"
    assert w.regex(Module(_helpers(), CONFIG).names) == "x|y.z"
    assert w.datasets_regex("local") == "mine"
    assert w.datasets_regex("download") == "(?!x)x"
    assert w.datasets_regex("synthetic", "local") == "toy|mine"


REFERENCE = re.compile(r"\bW\.(\w+)\.(\w+)")


def test_every_helper_the_rules_name_exists():
    """A rules file names `W.<module>.<name>`: the module is one of MODULES and
    holds that function or constant."""
    found = 0
    for path in sorted((REPO / "rules").glob("*.smk")):
        for module, name in REFERENCE.findall(path.read_text(encoding="utf-8")):
            assert module in MODULES, f"{path.name}: W.{module} is no workflow module"
            mod = importlib.import_module(f"phrasenmt.workflow.{module}")
            assert hasattr(mod, name), f"{path.name}: W.{module}.{name} does not exist"
            found += 1
    assert found > 100


def test_no_rules_file_defines_a_function():
    assert not list((REPO / "rules").glob("*_functions.smk"))
    for path in [REPO / "Snakefile", *(REPO / "rules").glob("*.smk")]:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"^\s*def ", text, re.MULTILINE), path.name
        assert "lambda" not in text, path.name
