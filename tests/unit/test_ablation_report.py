"""Table 2 (ablation) and Figure 4 (agreement by distance) of the report."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from phrasenmt.io import InputError
from phrasenmt.report import ablation, figures


def _files(tmp: Path, model: str, bleu: float, p: float | None, seconds: float,
           tokens: int, decode_s: float, hyp_tokens: int) -> dict[str, str]:
    sig = None if p is None else {"baseline": "transformer", "baseline_score": 30.0,
                                  "system_score": bleu, "p_value": p}
    ev = tmp / f"{model}.json"
    ev.write_text(json.dumps({"system": model, "testset": "test",
                              "bleu_tok": {"score": bleu}, "significance": sig}))
    summary = tmp / f"{model}.summary.json"
    summary.write_text(json.dumps({"params": 2_000_000, "train_seconds": seconds,
                                   "target_tokens": tokens}))
    bench = tmp / f"{model}.tsv"
    bench.write_text(f"s\th:m:s\n{decode_s}\t0:00:01\n")
    hyp = tmp / f"{model}.tok"
    hyp.write_text(" ".join(["w"] * (hyp_tokens - 1)) + "\n")  # + </s> = hyp_tokens
    return {"eval": f"{model}={ev}", "summary": f"{model}={summary}",
            "benchmark": f"{model}={bench}", "hyp": f"{model}={hyp}"}


def _run(tmp: Path, rows: list[dict[str, str]]) -> pd.DataFrame:
    argv = []
    for kind in ("eval", "summary", "benchmark", "hyp"):
        argv += [f"--{kind}", *[r[kind] for r in rows]]
    out = {k: tmp / f"ablation.{k}" for k in ("md", "tex", "csv")}
    argv += ["--baseline", "transformer", "--order", "transformer,pr_max_attn_ta",
             "--testset", "test", "--out-md", str(out["md"]),
             "--out-tex", str(out["tex"]), "--out-csv", str(out["csv"])]
    assert ablation.main(argv) == 0
    assert "†" in out["md"].read_text() and r"$^\dagger$" in out["tex"].read_text()
    return pd.read_csv(out["csv"]).set_index("model")


def test_ablation_relative_times_and_delta(tmp_path):
    rows = [_files(tmp_path, "transformer", 30.0, None, 100.0, 1000, 2.0, 100),
            _files(tmp_path, "pr_max_attn_ta", 31.0, 0.001, 150.0, 1000, 3.0, 100)]
    df = _run(tmp_path, rows)
    assert df.loc["pr_max_attn_ta", "delta"] == pytest.approx(1.0)
    assert df.loc["pr_max_attn_ta", "train_rel"] == pytest.approx(1.5)
    assert df.loc["pr_max_attn_ta", "decode_rel"] == pytest.approx(1.5)
    assert df.loc["transformer", "train_rel"] == 1.0
    assert bool(df.loc["pr_max_attn_ta", "significant"])


def test_ablation_missing_input_names_the_option(tmp_path):
    rows = [_files(tmp_path, "transformer", 30.0, None, 100.0, 1000, 2.0, 100),
            _files(tmp_path, "pr_max_attn_ta", 31.0, 0.001, 150.0, 1000, 3.0, 100)]
    rows[1]["benchmark"] = rows[0]["benchmark"]
    with pytest.raises(InputError, match="given twice"):
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
