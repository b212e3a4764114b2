"""configs/multi30k_families.yaml: every sentence-level family, in its paper's direction."""

from __future__ import annotations

import json
import re

from tests.conftest import REPO, snakemake
from tests.workflow.plans import plan

CONFIG = REPO / "configs" / "multi30k_families.yaml"
WORD_LEVEL = ["attn_rnn", "attn_rnn_30min", "attn_rnn_reorder", "conmt", "pconmt_nofert", "pconmt_fert2",
              "pconmt_fert4", "npmt", "npmt_noreorder"]  # German -> English
REAL_TEXT = ["attn_rnn_256", "attn_rnn_256_lr1e2"]  # attn_rnn with a network for real text
BPE = ["transformer", "pr_mean", "pr_max", "pr_max_attn", "pr_max_attn_ta",
       "pr_max_attn_ta_30min"]  # English -> German


def train_specs(text: str) -> dict[tuple[str, str], dict]:
    """(dataset, model) -> the --spec of each training job of a dry run's commands."""
    specs = {}
    for spec, outdir in re.findall(
            r"phrasenmt\.train --spec '(\{.*?\})' .*?--outdir (\S+)", text):
        _, dataset, _, model, _ = outdir.split("/", 4)
        specs[dataset, model] = json.loads(spec)
    return specs


def test_every_family_trains_in_its_papers_direction_within_its_budget():
    # --forceall: every job is listed, also where results/ holds finished runs
    result = plan(CONFIG)
    specs = train_specs(result.stdout)
    assert set(specs) == ({("multi30k_de_en", m) for m in WORD_LEVEL + REAL_TEXT}
                          | {("multi30k_en_de", m) for m in BPE})
    steps = {model: spec["train"]["max_steps"] for (_, model), spec in specs.items()}
    for (_, model), spec in specs.items():
        train = spec["train"]
        assert "max_minutes" not in train, model  # updates, not the clock: reruns agree
        assert steps[model] > 0, model
        if model in BPE:  # equal updates with the transformer, but the equal-time row
            if model.endswith("30min"):
                assert steps[model] < steps["transformer"], model
            else:
                assert steps[model] == steps["transformer"], model
        elif model in REAL_TEXT:  # one budget and one network for real text
            assert steps[model] == steps[REAL_TEXT[0]], model
            assert train["vocab_min_freq"] > 1, model  # drops words seen once
            assert (spec["model"]["hidden_size"]
                    == specs["multi30k_de_en", REAL_TEXT[0]]["model"]["hidden_size"])
        elif model == "attn_rnn_30min":  # attn_rnn's first updates: 30 CPU-minutes
            assert steps[model] < steps["attn_rnn"] and "lr_schedule" not in train
        else:  # the word-level families: equal updates
            assert steps[model] == steps["attn_rnn"], model
    for dataset in ("multi30k_de_en", "multi30k_en_de"):
        assert f"results/{dataset}/report/claims.md" in result.stdout
    assert "synthetic" not in result.stdout  # only the two Multi30k datasets build


def test_each_papers_claims_table_reads_only_its_familys_runs():
    tables = {"multi30k_de_en": {"npmt": ["attn_rnn", "attn_rnn_reorder", "npmt", "npmt_lm",
                                          "npmt_noreorder"],
                                 "continuous": ["attn_rnn", "conmt", "pconmt_fert2",
                                                "pconmt_fert4", "pconmt_nofert"]},
              "multi30k_en_de": {"phrase": ["pr_max_attn_ta", "transformer"]}}
    targets = [f"results/{d}/report/claims_{f}.md" for d, fs in tables.items() for f in fs]
    result = plan(CONFIG).needed_for(*targets)
    commands = re.findall(r"phrasenmt\.report\.claims (.*)", result.stdout)
    assert len(commands) == len(targets)
    for command in commands:
        dataset = re.search(r"--dataset (\S+)", command).group(1)
        family = re.search(r"claims_(\S+)\.md", command).group(1)
        models = re.search(r"--models (.*?) --", command).group(1).split()
        assert sorted(models) == tables[dataset][family], (dataset, family)
        assert "--family-only" in command
        runs = set(re.findall(r"--run (\S+) 1 ", command))
        assert runs == set(models), (dataset, family)  # every model's run, no other


def test_mirror_is_given_on_the_command_line(tmp_path):
    """The config names no mirror (a folder of one machine): without one the
    download rule fetches the checksummed files; `--config mirror=DIR` copies
    them from DIR, as docs/datasets.md says."""
    target = "results/multi30k_en_de/download/MANIFEST.sha256"
    result = snakemake("-n", "-p", "--forceall", "--configfile", str(CONFIG),
                       "--config", f"mirror={tmp_path}", "--", target)
    with_mirror = result.stdout + result.stderr
    assert result.returncode == 0, with_mirror[-2000:]
    for out, expected in (
            (plan(CONFIG).needed_for(target).text,
             "--outdir results/multi30k_en_de/download  --manifest"),
            (with_mirror, f"--outdir results/multi30k_en_de/download --mirror {tmp_path} ")):
        assert "phrasenmt.data.download --dataset multi30k" in out
        assert expected in out, out[-2000:]


def test_where_the_files_came_from_reruns_nothing(tmp_path):
    """A download copied from a mirror is not fetched again by a later run
    without `--config mirror=` (nor with another mirror), and so nothing built
    from it reruns: the mirror is no rerun trigger. Lingeval97's file has no
    checksum in the registry, so a stand-in of it can be mirrored here."""
    mirror, work = tmp_path / "mirror", tmp_path / "work"
    mirror.mkdir()
    work.mkdir()
    (mirror / "lingeval97.json").write_text("[]\n", encoding="utf-8")
    (work / "config.yaml").write_text((REPO / "config.yaml").read_text(encoding="utf-8"),
                                      encoding="utf-8")
    target = "results/_lingeval97/lingeval97.json"
    common = ("--snakefile", str(REPO / "Snakefile"), "--directory", str(work))
    first = snakemake("--cores", "1", *common, "--config", f"mirror={mirror}", "--", target)
    assert first.returncode == 0, (first.stdout + first.stderr)[-2000:]
    assert (work / target).read_text(encoding="utf-8") == "[]\n"
    for config in ((), ("--config", f"mirror={tmp_path}")):
        again = snakemake("-n", *common, *config, "--", target)
        out = again.stdout + again.stderr
        assert again.returncode == 0, out[-2000:]
        assert "Nothing to be done" in out, out[-2000:]
