"""`python -m phrasenmt`: the `phrasenmt` command (phrasenmt.command)."""

from phrasenmt.command import main
from phrasenmt.io import run_cli

run_cli(main)
