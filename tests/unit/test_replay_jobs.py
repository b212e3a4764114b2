"""tools/replay_jobs.py: a Snakemake dry run's jobs run without Snakemake."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "replay_jobs.py"


def block(rule: str, inputs: list[str], outputs: list[str], command: str,
          benchmark: str = "") -> str:
    lines = ["[Thu Nov 26 11:08:36 2026]", f"rule {rule}:"]
    if inputs:
        lines.append("    input: " + ", ".join(inputs))
    lines += ["    output: " + ", ".join(outputs), f"    log: logs/{rule}.log",
              "    jobid: 1"]
    if benchmark:
        lines.append(f"    benchmark: {benchmark}")
    lines += ["    reason: Missing output files", f"Shell command: {command}", ""]
    return "\n".join(lines) + "\n"


DRY_RUN = ("Building DAG of jobs...\nJob stats:\njob count\n\n"
           + block("second", ["out/a.txt"], ["out/b.txt"],
                   "tr a-z A-Z < out/a.txt > out/b.txt", "bench/second.tsv")
           + block("first", ["in.txt"], ["out/a.txt"], "cat in.txt > out/a.txt")
           + block("second", ["out/missing.txt"], ["out/c.txt"], "cp out/missing.txt out/c.txt")
           + block("elsewhere", [], ["out/missing.txt"], "echo x > out/missing.txt")
           + block("broken", ["in.txt"], ["out/d.txt"], "echo half > out/d.txt; exit 3")
           + "This was a dry-run (flag -n).\n")


def replay(folder: Path, *args: str) -> subprocess.CompletedProcess:
    (folder / "dry.log").write_text(DRY_RUN)
    return subprocess.run([sys.executable, str(SCRIPT), "--dry-run", "dry.log", *args],
                          cwd=folder, capture_output=True, text=True, timeout=60,
                          check=False)


def test_jobs_run_in_dependency_order_and_write_benchmarks(tmp_path):
    (tmp_path / "in.txt").write_text("abc\n")
    out = replay(tmp_path, "--rules", "first", "second", "broken", "--jobs", "2",
                 "--report", "report.json")
    assert out.returncode == 1  # the broken job failed
    assert (tmp_path / "out/b.txt").read_text() == "ABC\n"  # first ran before second
    assert not (tmp_path / "out/d.txt").exists()  # a failed job's output is deleted
    assert not (tmp_path / "out/c.txt").exists()
    report = json.loads((tmp_path / "report.json").read_text())
    by_output = {r["outputs"][0]: r for r in report}
    assert by_output["out/c.txt"]["skipped"] == (
        "input out/missing.txt comes from rule elsewhere, not chosen")
    assert by_output["out/d.txt"]["rc"] == 3
    header, row = (tmp_path / "bench/second.tsv").read_text().splitlines()
    assert header.split("\t")[0] == "s" and header.split("\t")[-1] == "cpu_time"
    assert row.split("\t")[1].count(":") == 2  # h:m:s as Snakemake writes it
    # Done jobs are not run again.
    (tmp_path / "out/b.txt").write_text("kept\n")
    replay(tmp_path, "--rules", "first", "second")
    assert (tmp_path / "out/b.txt").read_text() == "kept\n"


def test_a_job_waits_for_its_producer_to_end_not_for_its_output_to_appear(tmp_path):
    # The producer opens its output at once and fills it a second later; another
    # job ends in between, so the scheduler looks again while the file is
    # empty: a consumer started on the file's existence would read it empty.
    dry = ("Building DAG of jobs...\n"
           + block("slow", ["in.txt"], ["out/a.txt"],
                   "touch out/a.txt; sleep 1; cat in.txt > out/a.txt")
           + block("quick", ["in.txt"], ["out/q.txt"], "sleep 0.3; touch out/q.txt")
           + block("upper", ["out/a.txt"], ["out/b.txt"],
                   "tr a-z A-Z < out/a.txt > out/b.txt")
           + "This was a dry-run (flag -n).\n")
    (tmp_path / "in.txt").write_text("abc\n")
    (tmp_path / "dry.log").write_text(dry)
    out = subprocess.run([sys.executable, str(SCRIPT), "--dry-run", "dry.log",
                          "--rules", "slow", "quick", "upper", "--jobs", "3"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=60,
                         check=False)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "out/b.txt").read_text() == "ABC\n"


def test_list_inputs_names_what_the_node_needs(tmp_path):
    (tmp_path / "in.txt").write_text("abc\n")
    out = replay(tmp_path, "--rules", "first", "second", "--list-inputs")
    assert out.returncode == 1 and "out/missing.txt" in out.stderr  # made by another rule
    (tmp_path / "out").mkdir()
    (tmp_path / "out/missing.txt").write_text("x\n")
    out = replay(tmp_path, "--rules", "first", "second", "--list-inputs")
    assert out.stdout.split() == ["in.txt", "out/missing.txt"]


def test_unknown_rule_is_refused(tmp_path):
    out = replay(tmp_path, "--rules", "trian")
    assert out.returncode == 2 and "--rules: no job of trian in dry.log" in out.stderr


def test_a_stop_ends_running_jobs_and_still_reports(tmp_path):
    (tmp_path / "dry.log").write_text(
        block("slow", [], ["a"], "sleep 30; touch a")
        + block("slow", [], ["b"], "sleep 30; touch b"))
    proc = subprocess.Popen([sys.executable, str(SCRIPT), "--dry-run", "dry.log",
                             "--rules", "slow", "--jobs", "1", "--report", "r.json"],
                            cwd=tmp_path, stdout=subprocess.PIPE, text=True)
    time.sleep(1.5)
    start = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=20)  # the pipe closes: no job holds it
    assert time.monotonic() - start < 10
    report = json.loads((tmp_path / "r.json").read_text())
    assert [r.get("skipped") for r in report] == [None, "stopped"]
    assert report[0]["rc"] != 0 and not (tmp_path / "a").exists()


def test_node_runs_trainings_checkpoint_readers_and_their_missing_inputs(tmp_path):
    (tmp_path / "dry.log").write_text(
        block("prepare", [], ["data/train.txt"], "echo x > data/train.txt")
        + block("tmp_text", ["data/train.txt"], ["tmp/joined.txt"], "cp data/train.txt tmp/joined.txt")
        + block("train", ["tmp/joined.txt"], ["models/m/seed1/summary.json"],
                "echo '{}' > models/m/seed1/summary.json")
        + block("average", ["models/m/seed1/summary.json"], ["models/m/seed1/averaged.pt"],
                "touch models/m/seed1/averaged.pt")
        + block("translate", ["models/m/seed1/averaged.pt", "data/train.txt"], ["hyp.tok"],
                "cp data/train.txt hyp.tok")
        + block("bleu", ["hyp.tok"], ["bleu.json"], "echo 1 > bleu.json"))
    (tmp_path / "data").mkdir()
    (tmp_path / "data/train.txt").write_text("x\n")  # made here; tmp/joined.txt is not
    args = [sys.executable, str(SCRIPT), "--dry-run", "dry.log", "--node"]
    listed = subprocess.run([*args, "--list-inputs"], cwd=tmp_path, capture_output=True,
                            text=True, check=True)
    assert listed.stdout.split() == ["data/train.txt"]
    subprocess.run([*args, "--report", "r.json"], cwd=tmp_path, check=True,
                   capture_output=True)
    ran = [r["rule"] for r in json.loads((tmp_path / "r.json").read_text())]
    assert sorted(ran) == ["average", "tmp_text", "train", "translate"]
    assert not (tmp_path / "bleu.json").exists()  # evaluation stays for the workflow


def test_rest_runs_what_the_node_left(tmp_path):
    (tmp_path / "dry.log").write_text(
        block("train", [], ["models/m/seed1/summary.json"],
              "echo '{}' > models/m/seed1/summary.json")
        + block("translate", ["models/m/seed1/summary.json"], ["hyp.tok"], "echo y > hyp.tok")
        + block("bleu", ["hyp.tok"], ["bleu.json"], "cat hyp.tok > bleu.json"))
    (tmp_path / "models/m/seed1").mkdir(parents=True)
    (tmp_path / "models/m/seed1/summary.json").write_text("{}\n")  # came back
    (tmp_path / "hyp.tok").write_text("z\n")
    args = [sys.executable, str(SCRIPT), "--dry-run", "dry.log"]
    out = subprocess.run([*args, "--rest"], cwd=tmp_path, capture_output=True, text=True,
                         check=False)
    assert out.returncode == 2 and "give --node too" in out.stderr
    subprocess.run([*args, "--node", "--rest"], cwd=tmp_path, check=True,
                   capture_output=True)
    assert (tmp_path / "bleu.json").read_text() == "z\n"
