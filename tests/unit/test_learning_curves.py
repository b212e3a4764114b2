"""Learning curves: the tidy TSV from metrics.tsv files, and its figure."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from phrasenmt.report import learning_curves as lc
from phrasenmt.report import learning_curves_figure as lcf

HEADER = "step\tloss\tnll\tlr\ttokens_per_s\tdev_loss\ttrain_seconds"


def metrics(path: Path, rows: list[tuple], header: str = HEADER) -> Path:
    """A metrics.tsv with rows (step, nll, dev_loss or "", train_seconds)."""
    lines = [header] + [f"{s}\t{n + 0.1:.4f}\t{n:.4f}\t1.000e-03\t900\t{d}\t{t}"
                        for s, n, d, t in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(tmp_path: Path, name: str, steps: int, valid: int = 4,
        start: float = 0.0) -> Path:
    """A run's metrics.tsv: a row per update, dev NLL every `valid` updates."""
    rows = [(s, 8.0 / s, f"{9.0 / s:.4f}" if s % valid == 0 else "",
             f"{start + 1.5 * s:.3f}") for s in range(1, steps + 1)]
    return metrics(tmp_path / f"{name}.tsv", rows)


def build(tmp_path: Path, *args: str) -> pd.DataFrame:
    out = tmp_path / "curves.tsv"
    assert lc.main([*args, "--out", str(out)]) == 0
    return pd.read_csv(out, sep="\t")


def test_rows_per_split_and_dev_only_where_validated(tmp_path):
    a, b = run(tmp_path, "a", 10), run(tmp_path, "b", 6, valid=3)
    df = build(tmp_path, "--metrics", f"transformer:1={a}", f"conmt:2={b}",
               "--vmf", "conmt")
    assert list(df.columns) == list(lc.COLUMNS)
    t = df[df.model == "transformer"]
    assert t.seed.unique().tolist() == [1]
    assert t[t.split == "train"].step.tolist() == list(range(1, 11))
    assert t[t.split == "dev"].step.tolist() == [4, 8]  # validation rows only
    assert t[t.split == "dev"].nll.tolist() == pytest.approx([2.25, 1.125])
    assert t.objective.unique().tolist() == ["cross-entropy"]
    c = df[df.model == "conmt"]
    assert c.objective.unique().tolist() == ["vMF"] and c.seed.unique().tolist() == [2]
    assert c[c.split == "dev"].train_seconds.tolist() == [4.5, 9.0]


def test_resumed_run_continues_steps_and_time(tmp_path):
    """After a resume the trainer keeps the rows up to the checkpoint and goes on
    from the checkpoint's step and time: every step once, time never falling."""
    rows = [(s, 8.0 / s, "", f"{1.5 * s:.3f}") for s in range(1, 6)]
    rows += [(s, 8.0 / s, "2.0", f"{7.5 + 1.2 * (s - 5):.3f}") for s in range(6, 9)]
    path = metrics(tmp_path / "resumed.tsv", rows)
    df = build(tmp_path, "--metrics", f"m:1={path}")
    train = df[df.split == "train"]
    assert train.step.tolist() == list(range(1, 9))
    assert train.train_seconds.is_monotonic_increasing


@pytest.mark.parametrize("content, expected", [
    ("", "the file is empty"),
    (HEADER + "\n", "no rows"),
    ("step\tloss\tnll\tlr\ttokens_per_s\tdev_loss\n1\t2\t2\t1\t9\t\n",
     ":1: no train_seconds column"),
    ("loss\tnll\n2\t2\n", ":1: not a metrics.tsv"),
    (HEADER + "\n1\t2\t2\t1\t9\t\t0.5\n2\t2\tabc\t1\t9\t\t1.0\n",
     ":3: nll is 'abc', not a finite number"),
    (HEADER + "\n1\t2\tnan\t1\t9\t\t0.5\n", ":2: nll is 'nan'"),
    (HEADER + "\n1\t2\t2\t1\t9\t\n", ":2: 6 fields, the header has 7"),
    (HEADER + "\n2\t2\t2\t1\t9\t\t0.5\n2\t2\t2\t1\t9\t\t0.6\n",
     ":3: step 2 does not come after step 2"),
    (HEADER + "\n1\t2\t2\t1\t9\t\t5.0\n2\t2\t2\t1\t9\t\t4.0\n",
     ":3: train_seconds 4 is less than"),
    (HEADER + "\nx\t2\t2\t1\t9\t\t5.0\n", ":2: step is 'x'"),
    (HEADER + "\n1\t2\t2\t1\t9\t\t5.0\n2\t2\t2\t1\t9\t\t6\0\0\0\n",
     ":3: NUL byte"),
    (HEADER + "\n1\t2\t2\t1\t9\t\t5.0\n2\t2\t2\t1\t9\t\t6.",
     ":3: the last line has no newline: the file was cut short?"),
])
def test_bad_metrics_give_one_line_naming_file_and_line(tmp_path, capsys, content,
                                                        expected):
    path = tmp_path / "metrics.tsv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SystemExit) as err:
        lc.run_cli(lc.main, ["--metrics", f"m:1={path}", "--out",
                             str(tmp_path / "out.tsv")])
    assert err.value.code == 1
    message = capsys.readouterr().err
    assert message.count("\n") == 1 and str(path) in message and expected in message
    assert not (tmp_path / "out.tsv").exists()


def test_bad_arguments(tmp_path, capsys):
    a = run(tmp_path, "a", 3)
    with pytest.raises(SystemExit):
        lc.run_cli(lc.main, ["--metrics", f"m={a}", "--out", str(tmp_path / "o")])
    assert "expected NAME:SEED=FILE" in capsys.readouterr().err
    for args, expected in ((["--metrics", f"m:1={a}", f"m:1={a}"], "given twice"),
                           (["--metrics", f"m:1={a}", f"m:2={a}"],
                            "m:1 and m:2 name one file"),
                           (["--metrics", f"m:1={a}", "--vmf", "x"],
                            "--vmf: model(s) x have no --metrics"),
                           (["--metrics", f"m:1={tmp_path / 'nope.tsv'}"],
                            "nope.tsv: file not found")):
        with pytest.raises(SystemExit):
            lc.run_cli(lc.main, [*args, "--out", str(tmp_path / "o.tsv")])
        assert expected in capsys.readouterr().err


def figure(tmp_path: Path, tsv: Path, order: str = "transformer,conmt") -> list[str]:
    return ["--tsv", str(tsv), "--order", order, "--dataset", "toy",
            "--out-png", str(tmp_path / "c.png"), "--out-svg", str(tmp_path / "c.svg")]


@pytest.fixture()
def curves(tmp_path: Path) -> Path:
    a, b, c = run(tmp_path, "a", 12), run(tmp_path, "b", 8), run(tmp_path, "c", 8)
    out = tmp_path / "curves.tsv"
    lc.main(["--metrics", f"transformer:1={a}", f"transformer:2={b}", f"conmt:1={c}",
             "--vmf", "conmt", "--out", str(out)])
    return out


def test_figure_writes_png_and_svg_reproducibly(tmp_path, curves):
    assert lcf.main(figure(tmp_path, curves)) == 0
    png, svg = (tmp_path / "c.png").read_bytes(), (tmp_path / "c.svg").read_bytes()
    assert png.startswith(b"\x89PNG") and b"<svg" in svg
    lcf.main(figure(tmp_path, curves))
    assert (tmp_path / "c.png").read_bytes() == png
    assert (tmp_path / "c.svg").read_bytes() == svg


def test_figure_draws_every_run_in_its_model_style(tmp_path, curves, monkeypatch):
    drawn = []
    monkeypatch.setattr(lcf, "save_figure", lambda fig, png, svg: drawn.append(fig))
    lcf.main(figure(tmp_path, curves, "conmt,transformer"))
    (fig,) = drawn
    axes = fig.axes
    assert len(axes) == 4  # a row per objective, updates and time
    assert axes[0].get_xlabel() == "updates"
    assert axes[1].get_xlabel() == "training time (s; validation included)"
    assert "cross-entropy" in axes[0].get_ylabel() and "vMF" in axes[2].get_ylabel()
    lines = axes[0].get_lines()  # transformer: 2 seeds x (train, dev)
    assert len(lines) == 4
    style = lcf.model_style("transformer", ["conmt", "transformer"])
    assert {line.get_color() for line in lines} == {style.colour}
    dev = [line for line in lines if line.get_marker() not in (None, "None", "")]
    assert len(dev) == 2 and dev[0].get_marker() == style.marker
    assert list(dev[0].get_xdata()) == [4, 8, 12]
    legend = [t.get_text() for t in axes[1].get_legend().get_texts()]
    assert legend[:2] == ["conmt", "transformer"]


@pytest.mark.parametrize("seconds, unit", [(59.0, "s"), (600.0, "min"),
                                           (4 * 3600.0, "h")])
def test_time_unit(seconds, unit):
    assert lcf.time_unit(seconds)[0] == unit


@pytest.mark.parametrize("edit, expected", [
    (lambda t: t.replace("transformer", "big"), "model(s) big not in --order"),
    (lambda t: t.replace("\tdev\t", "\tvalid\t"), "unknown split value(s) valid"),
    (lambda t: t.replace("\t0.6667", "\tabc"), "column nll has a value that is not"),
    (lambda t: t.split("\n")[0] + "\n", "no points to draw"),
    (lambda t: t.replace("train_seconds", "time"), "missing column(s) train_seconds"),
])
def test_figure_bad_input_one_line(tmp_path, curves, capsys, edit, expected):
    curves.write_text(edit(curves.read_text(encoding="utf-8")), encoding="utf-8")
    with pytest.raises(SystemExit) as err:
        lcf.run_cli(lcf.main, figure(tmp_path, curves))
    message = capsys.readouterr().err
    assert err.value.code == 1 and message.count("\n") == 1
    assert str(curves) in message and expected in message
    assert not (tmp_path / "c.png").exists()


def test_a_curves_table_cut_inside_its_last_row_is_refused(tmp_path, curves, capsys):
    cut = tmp_path / "cut.tsv"
    cut.write_bytes(curves.read_bytes()[:-3])
    with pytest.raises(SystemExit):
        lcf.run_cli(lcf.main, figure(tmp_path, cut))
    message = capsys.readouterr().err
    assert message.count("\n") == 1 and message.startswith(f"error: {cut}:")
    assert "the last line has no newline: the file was cut short?" in message
    assert not (tmp_path / "c.png").exists()
