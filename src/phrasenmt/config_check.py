"""Check config files as the workflow's start-up does, without Snakemake.

    phrasenmt config_check my.yaml [more.yaml ...]

reads the workflow's `config.yaml`, then each file in turn over it, merged as
`snakemake --configfile my.yaml more.yaml` merges them, and runs every check of
the start-up (`snakemake -n`). A file that is no YAML or no mapping of keys
stops with one line naming the file and the line, where Snakemake's command
line, which parses `--configfile` files before any workflow code runs, says
only `Config file is not valid JSON or YAML` or `Config file must be given as
JSON or YAML with keys at top level`. Run it from the folder Snakemake runs
in: the files a config names are checked from there.
"""

from __future__ import annotations

from pathlib import Path

from snakemake.common.configfile import load_configfile
from snakemake.utils import update_config
from snakemake_interface_common.exceptions import WorkflowError

from phrasenmt import experiment
from phrasenmt.cli import ArgumentParser
from phrasenmt.config import read_config_file
from phrasenmt.io import InputError, run_cli
from phrasenmt.workflow import base as wf

WORKFLOW_CONFIG = "config.yaml"  # the Snakefile's `configfile:`


def merged(files: list[Path]) -> dict:
    """The config Snakemake would hold: each file read as Snakemake reads it and
    merged over the ones before, after our own reading of it has named any
    problem with its line."""
    config: dict = {}
    for path in files:
        read_config_file(path)  # no YAML, no mapping: one line naming the line
        try:
            update_config(config, load_configfile(str(path)))
        except WorkflowError:  # what ours reads as no keys: an empty file
            raise InputError("holds no keys; Snakemake refuses a config file without "
                             "one", path) from None
    return config


def check(files: list[Path], base: Path) -> str:
    """Every start-up check of `base` with `files` over it; the line printed."""
    if not base.is_file():
        raise InputError("the workflow's config file is not here: run this in the "
                         "folder Snakemake runs in, or give --base", base)
    config = merged([base, *files])
    experiment.start(config, [base, *files])
    datasets = wf.datasets(config)  # as rules/common.smk, after the start-up
    models = len(config["models"])
    return (f"{' + '.join(map(str, [base, *files]))}: the start-up's checks pass "
            f"({len(datasets)} dataset{'s' * (len(datasets) != 1)} to run, "
            f"{models} model entr{'ies' if models != 1 else 'y'})")


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(prog="python -m phrasenmt.config_check",
                            description=__doc__.split("\n\n")[0])
    parser.add_argument("files", type=Path, nargs="*", metavar="FILE",
                        help="config files, in --configfile order (none: config.yaml alone)")
    parser.add_argument("--base", type=Path, default=Path(WORKFLOW_CONFIG),
                        help="the workflow's own config, read first (default: %(default)s)")
    args = parser.parse_args(argv)
    print(check(args.files, args.base))


if __name__ == "__main__":
    run_cli(main)
