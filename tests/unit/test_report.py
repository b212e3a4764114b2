"""Tests for phrasenmt.report: main results table and the BLEU-by-length figure."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from phrasenmt.io import InputError
from phrasenmt.report import figures, style, tables
from tests.unit import eval_files as ef

ORDER = "transformer,pr,npmt"


def _eval(tmp: Path, system: str, testset: str, bleu: float | list[float],
          p: float | None, baseline: str = "transformer") -> tuple[Path, list[Path]]:
    """An all-seed JSON and its seeds' JSONs (tok = bleu + 1, chrF = bleu + 20)."""
    scores = bleu if isinstance(bleu, list) else [bleu]
    seeds = [ef.seed_eval(tmp, system, testset, b, i + 1)
             for i, b in enumerate(scores)]
    return ef.aggregate(tmp, system, testset, scores, p, baseline=baseline), seeds


def _summary(tmp: Path, name: str, params: int, seconds: float,
             precision: str = "fp32") -> str:
    path = tmp / f"{name}.summary.json"
    path.write_text(json.dumps({"params": params, "train_seconds": seconds,
                                "precision": precision}), encoding="utf-8")
    return f"{name}={path}"


@pytest.fixture()
def table_inputs(tmp_path: Path) -> dict[str, list[str]]:
    """Two test sets; pr (two seeds) is significantly better on t1 only, npmt is
    worse."""
    evals = [
        _eval(tmp_path, "npmt", "t1", 29.0, 0.001),       # worse: no mark
        _eval(tmp_path, "pr", "t1", [31.4, 31.6], 0.004),  # better, p < .01: mark
        _eval(tmp_path, "transformer", "t1", 30.0, None),
        _eval(tmp_path, "pr", "t2", [30.1, 30.3], 0.30),  # better, p large: no mark
        _eval(tmp_path, "transformer", "t2", 30.0, None),
    ]
    summaries = [_summary(tmp_path, "transformer", 61_200_000, 3723),
                 _summary(tmp_path, "pr", 63_000_000, 4000, "bf16"),
                 _summary(tmp_path, "npmt", 25_000_000, 59)]
    return {"eval": [str(a) for a, _ in evals], "summary": summaries,
            "seed_eval": [str(p) for _, seeds in evals for p in seeds]}


def _run_table(tmp: Path, inputs: dict[str, list[str]], alpha: str = "0.01"
               ) -> dict[str, Path]:
    out = {k: tmp / f"main.{k}" for k in ("md", "tex", "csv")} | {
        "timing": tmp / "timing.csv"}
    argv = ["main", "--eval", *inputs["eval"], "--seed-eval", *inputs["seed_eval"],
            "--summary", *inputs["summary"],
            "--baseline", "transformer", "--order", ORDER, "--alpha", alpha,
            "--out-md", str(out["md"]), "--out-tex", str(out["tex"]),
            "--out-csv", str(out["csv"]), "--out-timing-csv", str(out["timing"])]
    assert tables.main(argv) == 0
    return out


def test_csv_has_values_in_fixed_order(tmp_path, table_inputs):
    out = _run_table(tmp_path, table_inputs)
    df = pd.read_csv(out["csv"])
    assert list(df.columns) == [c for c in tables.MAIN_COLUMNS
                                if c not in tables.WALL_CLOCK_COLUMNS]
    timing = pd.read_csv(out["timing"])  # the wall clock's cells, apart
    assert list(timing.columns) == ["model", "testset", "train_seconds"]
    assert list(zip(timing.testset, timing.model)) == list(zip(df.testset, df.model))
    df["train_seconds"] = timing.train_seconds
    assert list(zip(df.testset, df.model)) == [
        ("t1", "transformer"), ("t1", "pr"), ("t1", "npmt"),
        ("t2", "transformer"), ("t2", "pr")]
    pr = df[(df.model == "pr") & (df.testset == "t1")].iloc[0]
    assert (pr.bleu, pr.bleu_tok, pr.chrf) == (31.5, 32.5, 51.5)
    assert pr.params_m == pytest.approx(63.0) and pr.train_seconds == 4000
    assert pr.p_value == 0.004 and pr.precision == "bf16"
    assert list(df.precision) == ["fp32", "bf16", "fp32", "fp32", "bf16"]
    assert math.isnan(df.p_value[0])
    assert list(df.significant) == [False, True, False, False, False]


def test_dagger_exactly_where_better_and_significant(tmp_path, table_inputs):
    out = _run_table(tmp_path, table_inputs)
    md = out["md"].read_text(encoding="utf-8").splitlines()
    marked = [line for line in md if line.startswith("|") and "†" in line]
    assert marked == [("| pr | 31.50 ± 0.14† | 1: 31.40, 2: 31.60 | 0.004 | "
                       "32.50 ± 0.14 | 51.50 ± 0.14 | 63.00 | 1:06:40 | bf16 |")]
    assert ("| transformer (baseline) | 30.00 (1 seed) | 1: 30.00 | – | "
            "31.00 (1 seed) | 50.00 (1 seed) | 61.20 | 1:02:03 | fp32 |") in md
    assert md[-1].startswith("† ") and "p < 0.01" in md[-1]
    tex = out["tex"].read_text(encoding="utf-8")
    assert tex.count(r"$^\dagger$") == 2  # the marked cell and the note
    assert r"pr & 31.50 $\pm$ 0.14$^\dagger$ & 1: 31.40" in tex
    assert r"\toprule" in tex and r"\bottomrule" in tex


def test_a_model_the_time_budget_stopped_in_warm_up_is_marked(tmp_path, table_inputs):
    npmt = Path(table_inputs["summary"][2].split("=", 1)[1])
    data = json.loads(npmt.read_text(encoding="utf-8"))
    npmt.write_text(json.dumps({**data, "steps": 179, "stopped_by": "max_minutes",
                                "max_steps": 100000, "warmup_steps": 2000,
                                "schedule": "steps"}), encoding="utf-8")
    out = _run_table(tmp_path, table_inputs)
    md = out["md"].read_text(encoding="utf-8")
    note = "stopped in warm-up at update 179 of 100,000 (warm-up 2,000)"
    assert f"| npmt ({note}) | 29.00 (1 seed) |" in md
    assert md.count("stopped in warm-up") == 1
    assert f"npmt ({note})" in out["tex"].read_text(encoding="utf-8")
    df = pd.read_csv(out["csv"])
    assert df.stop_note.fillna("").tolist() == ["", "", note, "", ""]


def test_alpha_moves_the_mark(tmp_path, table_inputs):
    df = pd.read_csv(_run_table(tmp_path, table_inputs, alpha="0.5")["csv"])
    assert list(df.significant) == [False, True, False, False, True]


def test_missing_key_names_file_and_key(tmp_path, table_inputs):
    bad = Path(table_inputs["seed_eval"][0])
    data = json.loads(bad.read_text(encoding="utf-8"))
    del data["chrf"]["score"]
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError, match="missing key 'chrf.score'") as err:
        _run_table(tmp_path, table_inputs)
    assert str(bad) in str(err.value)
    assert not (tmp_path / "main.md").exists()


def test_missing_summary_field_and_file(tmp_path, table_inputs):
    npmt = Path(table_inputs["summary"][2].split("=", 1)[1])
    npmt.write_text(json.dumps({"params": 5, "train_seconds": 9}), encoding="utf-8")
    with pytest.raises(InputError, match="missing key 'precision'"):
        _run_table(tmp_path, table_inputs)
    npmt.write_text(json.dumps({"params": 5}), encoding="utf-8")
    with pytest.raises(InputError, match="missing key 'train_seconds'"):
        _run_table(tmp_path, table_inputs)
    table_inputs["summary"] = table_inputs["summary"][:2]
    with pytest.raises(InputError, match="no --summary given for model 'npmt'"):
        _run_table(tmp_path, table_inputs)


def test_wrong_baseline_in_eval_is_an_error(tmp_path, table_inputs):
    agg, seeds = _eval(tmp_path, "npmt", "t2", 1.0, 0.5, baseline="pr")
    table_inputs["eval"].append(str(agg))
    table_inputs["seed_eval"] += [str(p) for p in seeds]
    with pytest.raises(InputError, match="key 'baseline' is 'pr'"):
        _run_table(tmp_path, table_inputs)


def test_three_seeds_show_mean_sd_each_seed_and_p(tmp_path, table_inputs):
    """Mean and sd of the seeds' scores, each seed listed, the all-seed p."""
    agg, seeds = _eval(tmp_path, "npmt", "t2", [30.0, 32.0, 34.0], 0.002)
    table_inputs["eval"].append(str(agg))
    table_inputs["seed_eval"] += [str(p) for p in seeds]
    out = _run_table(tmp_path, table_inputs)
    df = pd.read_csv(out["csv"])
    row = df[(df.model == "npmt") & (df.testset == "t2")].iloc[0]
    assert (row.bleu, row.bleu_sd, row.bleu_tok, row.seeds) == (32.0, 2.0, 33.0,
                                                                "1;2;3")
    assert row.p_value == 0.002 and row.significant
    md = out["md"].read_text(encoding="utf-8")
    assert "| npmt | 32.00 ± 2.00† | 1: 30.00, 2: 32.00, 3: 34.00 | 0.002 |" in md
    assert r"32.00 $\pm$ 2.00$^\dagger$" in out["tex"].read_text(encoding="utf-8")


def test_one_seed_gets_no_mark_and_an_indicative_p(tmp_path, table_inputs):
    """Better with p < alpha, but one seed: the figures, no verdict."""
    agg, seeds = _eval(tmp_path, "npmt", "t2", 34.0, 0.001)
    table_inputs["eval"].append(str(agg))
    table_inputs["seed_eval"] += [str(p) for p in seeds]
    out = _run_table(tmp_path, table_inputs)
    df = pd.read_csv(out["csv"])
    row = df[(df.model == "npmt") & (df.testset == "t2")].iloc[0]
    assert row.p_value == 0.001 and not row.significant
    md = out["md"].read_text(encoding="utf-8")
    assert ("| npmt | 34.00 (1 seed) | 1: 34.00 | 0.001 (one seed: indicative, no "
            "verdict) |") in md


def test_a_one_seed_baseline_makes_a_three_seed_p_indicative(tmp_path, table_inputs):
    """Three seeds against a baseline with one: no seed-level variance on the
    baseline's side, so the p is labelled and there is no mark."""
    scores = [30.0, 32.0, 34.0]
    agg = ef.aggregate(tmp_path, "npmt", "t2", scores, 0.002, base_scores=[20.0])
    table_inputs["eval"].append(str(agg))
    table_inputs["seed_eval"] += [str(ef.seed_eval(tmp_path, "npmt", "t2", b, i + 1))
                                  for i, b in enumerate(scores)]
    out = _run_table(tmp_path, table_inputs)
    row = pd.read_csv(out["csv"]).query("model == 'npmt' and testset == 't2'").iloc[0]
    assert row.p_one_seed and not row.significant
    md = out["md"].read_text(encoding="utf-8")
    assert "| 0.002 (one seed: indicative, no verdict) |" in md


def test_seed_files_must_match_the_aggregate(tmp_path, table_inputs):
    agg, seeds = _eval(tmp_path, "npmt", "t2", [30.0, 32.0], 0.002)
    table_inputs["eval"].append(str(agg))
    table_inputs["seed_eval"].append(str(seeds[0]))  # one of two seeds
    with pytest.raises(InputError, match="1 --seed-eval file.*seeds \\[1, 2\\]"):
        _run_table(tmp_path, table_inputs)
    table_inputs["seed_eval"].append(str(ef.seed_eval(tmp_path, "npmt", "t2", 40.0)))
    with pytest.raises(InputError, match="out of order"):
        _run_table(tmp_path, table_inputs)


def _length_tsv(tmp: Path) -> Path:
    """A BLEU-by-length TSV with models out of order and one empty group."""
    rows = []
    for model, base in (("npmt", 20), ("transformer", 25), ("pr", 27)):
        for i, (group, lower) in enumerate((("≤15", 0), ("16–25", 16), (">25", 26))):
            bleu = math.nan if group == ">25" and model == "npmt" else base - i
            rows.append([model, "t1", group, lower, 0, 5, bleu])
    df = pd.DataFrame(rows, columns=["model", "testset", "group", "lower", "upper",
                                     "sentences", "bleu"])
    path = tmp / "length.tsv"
    df.to_csv(path, sep="\t", index=False, na_rep="NaN")
    return path


def _draw(tmp: Path, tsv: Path, name: str) -> tuple[Path, Path]:
    png, svg = tmp / f"{name}.png", tmp / f"{name}.svg"
    assert figures.main(["length", "--tsv", str(tsv), "--order", ORDER,
                         "--testset", "t1", "--out-png", str(png),
                         "--out-svg", str(svg)]) == 0
    return png, svg


def test_length_figure_files_and_determinism(tmp_path):
    tsv = _length_tsv(tmp_path)
    png, svg = _draw(tmp_path, tsv, "a")
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n") and png.stat().st_size
    _, svg2 = _draw(tmp_path, tsv, "b")
    assert svg.read_bytes() == svg2.read_bytes()
    assert b"<svg" in svg.read_bytes()


def test_line_plot_respects_model_order(tmp_path, monkeypatch):
    seen = {}

    def keep(fig, out_png, out_svg):
        ax = fig.axes[0]
        seen["legend"] = [t.get_text() for t in ax.get_legend().get_texts()]
        seen["xticks"] = [t.get_text() for t in ax.get_xticklabels()]
        seen["styles"] = [(line.get_marker(), line.get_color())
                          for line in ax.get_lines()]
        seen["xlabel"], seen["ylabel"] = ax.get_xlabel(), ax.get_ylabel()

    monkeypatch.setattr(figures, "save_figure", keep)
    _draw(tmp_path, _length_tsv(tmp_path), "c")
    assert seen["legend"] == ["transformer", "pr", "npmt"]
    assert seen["xticks"] == ["≤15", "16–25", ">25"]
    order = ORDER.split(",")
    assert seen["styles"] == [(style.model_style(m, order).marker,
                               style.model_style(m, order).colour) for m in order]
    assert "(words)" in seen["xlabel"] and "BLEU" in seen["ylabel"]


def test_markers_and_linestyles_are_distinct():
    order = [f"m{i}" for i in range(8)]
    styles = [style.model_style(m, order) for m in order]
    assert len({s.marker for s in styles}) == 8
    assert len({str(s.linestyle) for s in styles}) == 8


def test_more_models_than_colours_still_look_different():
    order = [f"m{i}" for i in range(20)]  # e.g. a document family with its controls
    styles = [style.model_style(m, order) for m in order]
    assert len({(s.colour, s.hatch) for s in styles}) == 20
    assert len({(s.colour, s.marker) for s in styles}) == 20
    assert style.model_style("m8", order).colour == style.model_style("m0", order).colour
    # the hatch of a black bar is drawn in white, or it would not show
    assert style.model_style("m8", order).edge == "white"
    assert style.model_style("m0", order).edge == "black"


def test_figure_rejects_model_missing_from_order(tmp_path):
    with pytest.raises(InputError, match="not in --order"):
        figures.main(["length", "--tsv", str(_length_tsv(tmp_path)), "--order",
                      "transformer,pr", "--testset", "t1", "--out-png",
                      str(tmp_path / "x.png"), "--out-svg", str(tmp_path / "x.svg")])
    assert not (tmp_path / "x.png").exists()
