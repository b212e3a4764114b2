"""configs/converged_families.yaml: every model of config.yaml, three seeds, per family."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import yaml
from snakemake.utils import update_config

from phrasenmt.config import validate_config
from phrasenmt.sweeps import sweep_points as points_of
from phrasenmt.sweeps import sweeps
from tests.conftest import REPO
from tests.workflow.plans import plan

CONFIG = REPO / "configs" / "converged_families.yaml"
FAMILY_TARGETS = {"phrase": "converged_en_de", "phrase-pooling": "converged_en_de",
                  "phrase-ablation": "converged_en_de",
                  "continuous": "converged_de_en",
                  "npmt": "converged_de_en", "document": "converged_en_de"}


def sweep_points(*overlays: Path) -> dict[str, tuple[str, object]]:
    """The models the family's enabled sweeps derive (the document family's K
    sweeps), each with its swept key and value: taken from the configs (the
    family's, then `overlays`), so that tuning a K or a sweep's values turns no
    test red."""
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    for path in (CONFIG, *overlays):
        update_config(config, yaml.safe_load(path.read_text()))
    return {model: (config["sweeps"][name]["key"], value)
            for name in sweeps(config)
            for value, model in points_of(config, name)
            if model != config["sweeps"][name]["model"]}


SWEEP_POINTS = sweep_points()


def train_runs(text: str) -> dict[tuple[str, str, int], dict]:
    """(dataset, model, seed) -> --spec of each training job of a dry run's commands."""
    runs = {}
    for spec, dataset, model, seed in re.findall(
            r"phrasenmt\.train --spec '(\{.*?\})' .*?--outdir "
            r"results/(\w+)/models/(\w+)/seed(\d+)", text):
        runs[dataset, model, int(seed)] = json.loads(spec)
    return runs


def test_every_default_model_trains_three_seeds_in_its_family():
    default = validate_config(yaml.safe_load((REPO / "config.yaml").read_text()))
    families = yaml.safe_load(CONFIG.read_text())["families"]
    assert set(families) == set(FAMILY_TARGETS)
    in_families = set().union(*map(set, families.values()))
    assert set(default["models"]) <= in_families  # every model of the default run
    result = plan(CONFIG)
    runs = train_runs(result.stdout)
    trained = in_families - {"npmt_lm"}  # decodes npmt's checkpoints
    points = set(SWEEP_POINTS)  # the K sweeps: seed 1 only
    assert {model for _, model, _ in runs} == trained | points
    assert {(ds, m, s) for ds, m, s in runs if m in points} == {
        ("converged_en_de", m, 1) for m in points}
    runs = {key: spec for key, spec in runs.items() if key[1] not in points}
    assert set(runs) == {(ds, m, s) for ds, m, _ in runs for s in (1, 2, 3)}
    step2 = {m for m, entry in default["models"].items() if entry.get("init_from")}
    budgets = {True: set(), False: set()}  # step 2 or not -> the budgets seen
    for (dataset, model, seed), spec in runs.items():
        assert dataset in ("converged_en_de", "converged_de_en"), dataset
        train = spec["train"]
        assert train["max_steps"] > 0, model
        if model in step2:
            assert "patience" not in train  # a document step 2: fixed updates
            budgets[True].add(train["lr"])  # its length: each model's own
        else:  # stopped at a dev-loss plateau, capped
            assert train["patience"] >= 1, model
            budgets[False].add((train["patience"], train["max_steps"]))
        if model.endswith("_random"):  # a control: its model's step 2 and K
            real = runs[dataset, model.removesuffix("_random"), seed]
            assert spec["train"] == real["train"], model
            assert (spec["model"].get("context_size")
                    == real["model"].get("context_size")), model
    # every step 2 trains at the same rate (for as many updates as its model's
    # dev items chose, its control as many), and every other run stops by the
    # same rule under the same cap
    assert len(budgets[True]) == 1 and len(budgets[False]) == 1, budgets
    for family, dataset in FAMILY_TARGETS.items():
        assert f"results/{dataset}/report/claims_{family}.md" in result.stdout
    assert "synthetic_en_de" not in result.stdout  # the default run's data is not touched


def make_words(target: str) -> list[str]:
    """The command `make <target>` runs, as words."""
    printed = subprocess.run(["make", "-s", "-n", target, "STAMP="],
                             cwd=REPO, capture_output=True, text=True, check=True)
    return shlex.split(printed.stdout.replace("\\\n", " "))


def make_targets(family: str) -> list[str]:
    """The Snakemake targets `make converged-<family>` asks for."""
    words = make_words(f"converged-{family}")
    return words[words.index("--") + 1:]


def test_each_family_target_builds_only_its_models():
    families = yaml.safe_load(CONFIG.read_text())["families"]
    for family, dataset in FAMILY_TARGETS.items():
        targets = make_targets(family)
        assert targets[0] == f"results/{dataset}/report/claims_{family}.md"
        result = plan(CONFIG).needed_for(*targets)
        runs = train_runs(result.stdout)
        trained = {m for _, m, _ in runs}
        points = set(SWEEP_POINTS) if family == "document" else set()
        assert trained == set(families[family]) - {"npmt_lm"} | points, family
        for (_, model, _), spec in runs.items():
            if model in points:  # the K sweep, on the family's step 2
                key, value = SWEEP_POINTS[model]
                assert key.startswith("model.")
                assert spec["model"][key.removeprefix("model.")] == value
        assert "--family-only" in result.stdout


def test_document_dev_target_trains_the_two_dev_chosen_models_as_the_family_does():
    overlay = REPO / "configs" / "overlays" / "converged_document_dev.yaml"
    words = make_words("converged-document-dev")
    at = words.index(str(CONFIG.relative_to(REPO)))
    assert words[at + 1] == str(overlay.relative_to(REPO))
    family = yaml.safe_load(overlay.read_text())["families"]["document"]
    runs = train_runs(plan((CONFIG, overlay)).needed_for(
        "results/converged_en_de/report/claims_document.md",
        "results/converged_en_de/report/context_usage.md").stdout)
    assert set(runs) == {("converged_en_de", m, s) for m in family for s in (1, 2, 3)}
    whole = train_runs(plan(CONFIG).stdout)
    for key, spec in runs.items():  # the same step 2 as the whole family's
        assert spec == whole[key], key


def test_document_any_target_trains_the_family_s_step_2_on_the_new_corpus():
    """converged-document-any: the whole document family (the Transformer, four
    document models and their controls) and ctx_transformer's K = 2, each with
    the whole family's --spec but the step-2 length where this corpus's dev
    items chose another (han_dec 3,000, han_enc 4,000), on a corpus generated with
    --distractor-gender any; converged_en_de's corpus keeps its command."""
    overlay = REPO / "configs" / "overlays" / "converged_document_any.yaml"
    words = make_words("converged-document-any")
    assert words[words.index(str(CONFIG.relative_to(REPO))) + 1] == str(
        overlay.relative_to(REPO))
    family = yaml.safe_load(overlay.read_text())["families"]["document"]
    result = plan((CONFIG, overlay)).needed_for(*words[words.index("--") + 1:])
    runs = train_runs(result.stdout)
    points = sweep_points(overlay)  # ctx_transformer's K sweep, the first seed
    assert points and {k for k, _ in points.values()} == {"model.context_size"}
    assert set(runs) == {("converged_en_de_any", m, s) for m in family
                         for s in (1, 2, 3)} | {("converged_en_de_any", m, 1)
                                                for m in points}
    whole = train_runs(plan(CONFIG).stdout)
    for (_, model, seed), spec in runs.items():  # the same but the length
        family = whole["converged_en_de", model, seed]
        steps = spec["train"]["max_steps"]
        assert spec == {**family, "train": {**family["train"], "max_steps": steps}}, model
        if model.endswith("_random"):  # a control: as long as its model
            assert steps == runs["converged_en_de_any", model.removesuffix("_random"),
                                 seed]["train"]["max_steps"], model
    # the HAN encoder models' own claims table trains them and the Transformer only
    han = yaml.safe_load(overlay.read_text())["families"]["document_han_encoders"]
    alone = train_runs(plan((CONFIG, overlay)).needed_for(
        "results/converged_en_de_any/report/claims_document_han_encoders.md").stdout)
    assert set(alone) == {("converged_en_de_any", m, s) for m in han for s in (1, 2, 3)}
    assert set(han) == {"transformer", "han_enc", "han_enc_random", "han_enc_dec",
                        "han_enc_dec_random"}
    synthetic = re.findall(r"phrasenmt\.synthetic --outdir results/(\w+)/raw.*", result.stdout)
    assert synthetic == ["converged_en_de_any"]
    assert "--distractor-gender any" in result.stdout
    assert "--distractor-gender" not in plan(CONFIG).stdout
