"""`python -m phrasenmt.synthetic`: the corpus generator (phrasenmt.synthetic.corpus)."""

from phrasenmt.io import run_cli
from phrasenmt.synthetic.corpus import main

run_cli(main)
