"""The benchmark harness's shared options (benchmarks/harness.py): the CPU-only
refusal, --against, and what a result file records of them."""

from __future__ import annotations

import json

import pytest

from benchmarks import harness


def parser(**kw):
    return harness.parser("demo", "a demo suite", **kw)


def test_a_cpu_only_suite_refuses_cuda_in_one_line_naming_device(capsys):
    with pytest.raises(SystemExit):
        harness.parse(parser(cpu_only="the demo runs on the CPU"), ["--device", "cuda"])
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].endswith("error: --device: the demo runs on the CPU (see --help)")


def test_against_must_hold_a_phrasenmt_package(tmp_path, capsys):
    with pytest.raises(SystemExit):
        harness.parse(parser(against=True), ["--against", str(tmp_path)])
    assert (f"argument --against: {tmp_path}: no phrasenmt package there"
            in capsys.readouterr().err)
    (tmp_path / "phrasenmt").mkdir()
    args = harness.parse(parser(against=True), ["--against", str(tmp_path)])
    assert args.against == tmp_path


def test_the_result_file_holds_the_options_not_the_refusal(tmp_path):
    out = tmp_path / "r.json"
    argv = ["--out", str(out)]
    args = harness.parse(parser(cpu_only="CPU only", against=True), argv)
    results = harness.Results("demo", args, ["--suite", "demo", *argv])
    results.add("part", {"x": 1})
    data = json.loads(out.read_text())
    assert data["settings"] == {"threads": 1, "device": "cpu", "against": None}
    assert data["figures"] == {"part": {"x": 1}}
    assert data["command"] == f"python -m benchmarks.speed --suite demo --out {out}"
