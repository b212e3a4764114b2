"""`python -m phrasenmt.models.reordering gates ...`: the reordering gates as TSV.

A package's __main__, so that running the CLI does not execute the module the
model registry has already imported.
"""

from phrasenmt.io import run_cli
from phrasenmt.models.reordering import main

run_cli(main)
