"""Table 2 (ablation) and Figure 4 (agreement by distance) of the report."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from phrasenmt.io import InputError
from phrasenmt.report import ablation, figures
from tests.unit import eval_files as ef


def _files(tmp: Path, model: str, bleu: float | list[float], p: float | None,
           seconds: float, tokens: int, decode_s: float, hyp_tokens: int
           ) -> dict[str, list[str]]:
    """One model's inputs, once per seed (tokenized BLEU = `bleu`)."""
    scores = bleu if isinstance(bleu, list) else [bleu]
    out: dict[str, list[str]] = {k: [] for k in ablation.KINDS}
    out["--eval"] = [f"{model}={ef.aggregate(tmp, model, 'test', scores, p)}"]
    for seed, score in enumerate(scores, 1):
        ev = ef.seed_eval(tmp, model, "test", score - 1, seed, tok=score)
        summary = tmp / f"{model}.{seed}.summary.json"
        summary.write_text(json.dumps({"params": 2_000_000, "train_seconds": seconds,
                                       "target_tokens": tokens, "precision": "fp32"}))
        bench = tmp / f"{model}.{seed}.tsv"
        bench.write_text(f"s\th:m:s\n{decode_s}\t0:00:01\n")
        hyp = tmp / f"{model}.{seed}.tok"
        hyp.write_text(" ".join(["w"] * (hyp_tokens - 1)) + "\n")  # + </s>
        for opt, path in (("--seed-eval", ev), ("--summary", summary),
                          ("--benchmark", bench), ("--hyp", hyp)):
            out[opt].append(f"{model}={path}")
    return out


def _run(tmp: Path, rows: list[dict[str, str]]) -> pd.DataFrame:
    argv = []
    for kind in ablation.KINDS:
        argv += [kind, *[f for r in rows for f in r[kind]]]
    out = {k: tmp / f"ablation.{k}" for k in ("md", "tex", "csv")}
    argv += ["--baseline", "transformer", "--order", "transformer,pr_max_attn_ta",
             "--testset", "test", "--out-md", str(out["md"]),
             "--out-tex", str(out["tex"]), "--out-csv", str(out["csv"]),
             "--out-timing-csv", str(tmp / "timing.csv")]
    assert ablation.main(argv) == 0
    assert "†" in out["md"].read_text() and r"$^\dagger$" in out["tex"].read_text()
    df = pd.read_csv(out["csv"]).set_index("model")
    timing = pd.read_csv(tmp / "timing.csv").set_index("model")  # the wall clock's
    assert not set(df.columns) & set(ablation.WALL_CLOCK_COLUMNS)
    assert list(timing.columns) == ablation.WALL_CLOCK_COLUMNS
    return df.join(timing)


def test_ablation_relative_times_and_delta(tmp_path):
    rows = [_files(tmp_path, "transformer", 30.0, None, 100.0, 1000, 2.0, 100),
            _files(tmp_path, "pr_max_attn_ta", [30.5, 31.5], 0.001, 150.0, 1000, 3.0,
                   100)]
    df = _run(tmp_path, rows)
    assert df.loc["pr_max_attn_ta", "delta"] == pytest.approx(1.0)
    assert df.loc["pr_max_attn_ta", "train_rel"] == pytest.approx(1.5)
    assert df.loc["pr_max_attn_ta", "decode_rel"] == pytest.approx(1.5)
    assert df.loc["transformer", "train_rel"] == 1.0
    assert bool(df.loc["pr_max_attn_ta", "significant"])
    assert df["precision"].tolist() == ["fp32", "fp32"]  # from each summary.json


def test_ablation_missing_input_names_the_option(tmp_path):
    rows = [_files(tmp_path, "transformer", 30.0, None, 100.0, 1000, 2.0, 100),
            _files(tmp_path, "pr_max_attn_ta", 31.0, 0.001, 150.0, 1000, 3.0, 100)]
    extra = tmp_path / "extra.tsv"
    extra.write_text("s\th:m:s\n2.0\t0:00:01\n")
    rows[0]["--benchmark"].append(f"transformer={extra}")
    with pytest.raises(InputError, match="--benchmark: model 'transformer': 2 "
                                         "file"):
        _run(tmp_path, rows)
    rows[0]["--benchmark"][1] = rows[0]["--benchmark"][0]  # one run counted twice
    with pytest.raises(SystemExit) as usage:
        _run(tmp_path, rows)
    assert usage.value.code == 2


def test_ablation_three_seeds_mean_sd_and_each_seed(tmp_path):
    rows = [_files(tmp_path, "transformer", 30.0, None, 100.0, 1000, 2.0, 100),
            _files(tmp_path, "pr_max_attn_ta", [31.0, 33.0, 35.0], 0.003, 150.0,
                   1000, 3.0, 100)]
    df = _run(tmp_path, rows)
    row = df.loc["pr_max_attn_ta"]
    assert (row.bleu_tok, row.bleu_tok_sd, row.delta) == (33.0, 2.0, 3.0)
    assert row.seeds == "1;2;3" and row.p_value == 0.003
    md = (tmp_path / "ablation.md").read_text()
    assert "| pr_max_attn_ta | 33.00 ± 2.00 | 1: 31.00, 2: 33.00, 3: 35.00 | " \
           "+3.00† | 0.003 |" in md
    assert "| transformer (baseline) | 30.00 (1 seed) |" in md
    rows[1]["--hyp"].pop()
    with pytest.raises(InputError, match="--hyp: .*2 file.*one per seed"):
        _run(tmp_path, rows)


def test_agreement_figure_draws_bins_in_order(tmp_path):
    tsv = tmp_path / "agreement.tsv"
    rows = [["transformer", "subj_verb_agreement", b, 10, 8, 0.8]
            for b in ("all", "1", "2", "10", ">15")]
    rows += [["pr_max", "subj_verb_agreement", b, 10, 9, 0.9] for b in ("1", ">15")]
    pd.DataFrame(rows, columns=figures.AGREEMENT_COLUMNS).to_csv(tsv, sep="\t",
                                                               index=False)
    png, svg = tmp_path / "a.png", tmp_path / "a.svg"
    assert figures.main(["agreement", "--tsv", str(tsv), "--order",
                         "transformer,pr_max", "--out-png", str(png),
                         "--out-svg", str(svg)]) == 0
    assert png.stat().st_size > 1000 and svg.exists()
    with pytest.raises(InputError, match="not in --order"):
        figures.main(["agreement", "--tsv", str(tsv), "--order", "transformer",
                      "--out-png", str(png), "--out-svg", str(svg)])


def test_agreement_figure_without_distances_draws_categories(tmp_path, monkeypatch):
    tsv = tmp_path / "agreement.tsv"  # a Lingeval-format set with no `distance`
    rows = [[m, c, "all", 10, k, k / 10] for m, k in (("transformer", 7),
                                                      ("pr_max", 8))
            for c in ("subj_verb_agreement", "det_gender")]
    pd.DataFrame(rows, columns=figures.AGREEMENT_COLUMNS).to_csv(tsv, sep="\t",
                                                               index=False)
    seen = {}

    def keep(fig, out_png, out_svg):
        ax = fig.axes[0]
        seen["title"] = ax.get_title()
        seen["bars"] = [round(b.get_height()) for b in ax.patches]
        seen["xticks"] = [t.get_text() for t in ax.get_xticklabels()]

    argv = ["agreement", "--tsv", str(tsv), "--order", "transformer,pr_max",
            "--out-png", str(tmp_path / "a.png"), "--out-svg", str(tmp_path / "a.svg")]
    assert figures.main(argv) == 0
    assert (tmp_path / "a.png").stat().st_size > 1000
    monkeypatch.setattr(figures, "save_figure", keep)
    figures.main(argv)
    assert "no distance information" in seen["title"]
    assert seen["xticks"] == ["det_gender", "subj_verb_agreement"]
    assert seen["bars"] == [70, 70, 80, 80]
