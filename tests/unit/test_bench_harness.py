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
    results = harness.Results("demo", args, argv)
    results.add("part", {"x": 1})
    data = json.loads(out.read_text())
    assert data["settings"] == {"threads": 1, "device": "cpu", "against": None}
    assert data["figures"] == {"part": {"x": 1}}
    assert data["command"] == f"python -m benchmarks.speed --suite demo --out {out}"


def test_the_shapes_suite_counts_fewer_shapes_with_buckets(tmp_path):
    import json

    from benchmarks import speed

    src, tgt = tmp_path / "s", tmp_path / "t"
    src.write_text("".join("a " * (1 + i % 37) + "\n" for i in range(600)))
    tgt.write_text("".join("b " * (1 + i % 37 + i % 3) + "\n" for i in range(600)))
    out = tmp_path / "shapes.json"
    assert speed.main(["--suite", "shapes", "--src", str(src), "--tgt", str(tgt),
                       "--max-tokens", "400", "--out", str(out)]) == 0
    fig = json.loads(out.read_text())["figures"]
    assert fig["plain"]["batches"] > 10 and fig["plain"]["buckets"] == []
    assert fig["buckets"]["shapes"] < fig["plain"]["shapes"] / 2
    assert 0 <= fig["plain"]["padding"] < fig["buckets"]["padding"] < 1


def test_the_shapes_suite_counts_less_context_padding_in_groups(tmp_path):
    """Documents of 4 lines of random lengths: a batch's rows have similar
    lengths but their previous lines do not, so as one tensor a batch the packed
    context is mostly padding, in groups much less."""
    import json
    import random

    from benchmarks import speed

    src, tgt, docs = tmp_path / "s", tmp_path / "t", tmp_path / "d"
    rng = random.Random(0)
    lengths = [rng.choice((2, 3, 30)) for _ in range(400)]
    src.write_text("".join("a " * n + "\n" for n in lengths))
    tgt.write_text("".join("b " * n + "\n" for n in lengths))
    docs.write_text("".join(f"doc{i // 4}\n" for i in range(400)))
    out = tmp_path / "shapes.json"
    assert speed.main(["--suite", "shapes", "--src", str(src), "--tgt", str(tgt),
                       "--docs", str(docs), "--max-tokens", "400", "--out", str(out)]) == 0
    fig = json.loads(out.read_text())["figures"]["context"]
    assert fig["k"] == 1 and fig["context_padding"] > 0.4
    assert fig["grouped_context_padding"] < fig["context_padding"] - 0.2


def test_the_shapes_suite_refuses_one_file_and_unequal_files(tmp_path, capsys):
    from benchmarks import speed

    (tmp_path / "s").write_text("a\nb\n")
    (tmp_path / "t").write_text("a\n")
    for argv, message in ((["--src", str(tmp_path / "s")], "give both or neither"),
                          (["--src", str(tmp_path / "s"), "--tgt", str(tmp_path / "t")],
                           "--src has 2 lines but --tgt has 1"),
                          (["--buckets", "16", "8"], "must be increasing"),
                          (["--docs", str(tmp_path / "t")], "it needs --src and --tgt of as many")):
        with pytest.raises(SystemExit):
            speed.main(["--suite", "shapes", *argv, "--out", str(tmp_path / "o.json")])
        assert message in capsys.readouterr().err


def test_the_context_suite_counts_less_work_per_token_in_a_han_step_2(tmp_path):
    """θ_s frozen: a HAN decoder's step 2 runs θ_s forward only, so each target
    token costs fewer FLOPs than a step-1 update's; the context-aware
    Transformer's context encoder and attention in every layer cost more."""
    from benchmarks import context
    from benchmarks.datapath import write_corpus

    write_corpus(tmp_path, 80, 200, [8, 12], 1, 10, 8)
    figures = context.measure({
        "data": str(tmp_path), "archs": ["transformer", "han_dec", "ctx_transformer"],
        "preset": "tiny", "k": 3, "max_tokens": 512, "warmup": 1, "updates": 1,
        "threads": 1, "device": "cpu", "flops": 1})
    work = {arch: f["mflop_per_token"] for arch, f in figures.items()}
    assert 0 < work["han_dec"] < work["transformer"] < work["ctx_transformer"]
