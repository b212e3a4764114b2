"""Every option translate accepts takes effect for the model's family, or the
command refuses it with one line naming the option and the model.

One tiny model per decoding path (see test_empty_input), driven through
`phrasenmt.translate` as a user would: beam search (transformer, with document
context), SWAN's segment search (npmt) and the nearest-neighbour search of
continuous-output models (conmt).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from phrasenmt.translate import main as translate_main
from tests.unit.test_empty_input import cli, folder, trained  # noqa: F401 (fixture)

# (case, family, options, the error line)
REFUSED = [
    ("beam on nearest neighbour", "conmt", ["--beam", "2"],
     ("error: --beam: ContinuousOutputNMT decodes with its own greedy search (nearest neighbour in "
      "its output table), which has no beam; drop the option or give --beam 1")),
    ("lenpen on nearest neighbour", "conmt", ["--lenpen", "0.6"],
     ("error: --lenpen: ContinuousOutputNMT decodes with its own greedy search (nearest neighbour "
      "in its output table), which has no length penalty")),
    ("lenpen on SWAN", "npmt", ["--beam", "2", "--lenpen", "1.0"],
     ("error: --lenpen: NPMT ranks its segment search by Eq. 3 (--lambda1, "
      "--lambda2), which has no length penalty")),
    ("Eq. 3 weight on greedy SWAN", "npmt", ["--beam", "1", "--lambda1", "0.5"],
     ("error: --lambda1: NPMT's greedy segment search (--beam 1) is the model's own "
      "argmax, which reads no LM and no Eq. 3 weights; give --beam above 1 for Eq. 3")),
    ("lenpen on greedy search", "transformer", ["--beam", "1", "--lenpen", "0.6"],
     ("error: --lenpen: has no effect with --beam 1 (greedy search) of Transformer; "
      "give --beam above 1 too")),
    ("document ids for a sentence model", "transformer", ["--docs", "{docs}"],
     "error: --docs: the model reads no document context; drop the option"),
    ("segments of a non-SWAN model", "transformer", ["--segments-out", "{out}.seg"],
     ("error: --segments-out: only for models that decode segments (npmt, "
      "npmt_noreorder)")),
]
# options each family reads (the workflow's own commands among them)
ACCEPTED = [
    ("conmt", ["--beam", "1"]),
    ("npmt", ["--beam", "1", "--lambda1", "0", "--lambda2", "0"]),
    ("npmt", ["--beam", "2", "--lambda1", "0.5"]),
    ("transformer", ["--beam", "2", "--lenpen", "0.6"]),
    ("transformer", ["--beam", "1"]),
]


def _translate(root: Path, family: str, options: list[str], out: Path
               ) -> tuple[int, str]:
    options = [o.replace("{docs}", str(root / "dev.docs")).replace("{out}", str(out))
               for o in options]
    return cli(translate_main, [
        "--checkpoint", str(trained(root, family)), "--input", str(root / "dev.src"),
        "--output", str(out), "--device", "cpu", *options])


@pytest.mark.parametrize("family, options, message", [c[1:] for c in REFUSED],
                         ids=[c[0] for c in REFUSED])
def test_an_option_the_search_does_not_read_is_refused(folder: Path, family: str,  # noqa: F811
                                                        options: list[str],
                                                        message: str):
    out = folder / f"refused-{family}.txt"
    code, err = _translate(folder, family, options, out)
    assert code == 1 and "Traceback" not in err, err
    assert err.strip().splitlines() == [message]
    assert not out.exists() and not Path(f"{out}.seg").exists()


@pytest.mark.parametrize("family, options", ACCEPTED)
def test_the_options_a_search_reads_are_accepted(folder: Path, family: str,  # noqa: F811
                                                  options: list[str]):
    out = folder / f"accepted-{family}.txt"
    code, err = _translate(folder, family, options, out)
    assert code == 0, err
    assert len(out.read_text().splitlines()) == len(
        (folder / "dev.src").read_text().splitlines())


def test_input_the_model_mostly_does_not_know_is_warned_about(folder: Path):  # noqa: F811
    checkpoint = str(trained(folder, "transformer"))
    runs = {}
    for name in ("dev.src", "dev.tgt"):  # the source language, then the target's
        out = folder / f"unknown-{name}.txt"
        runs[name] = cli(translate_main, [
            "--checkpoint", checkpoint, "--input", str(folder / name), "--output",
            str(out), "--device", "cpu"])
        assert runs[name][0] == 0 and out.exists(), runs[name][1]
    assert "warning" not in runs["dev.src"][1]
    [line] = runs["dev.tgt"][1].strip().splitlines()
    assert line.startswith(f"warning: {folder / 'dev.tgt'}: the model's source "
                           "vocabulary misses 100.0% of the input's tokens ("), line
    assert "more than 10%): the input is another language" in line
