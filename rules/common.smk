# What all the rules files share: the config's start-up checks, wildcard
# constraints, and W, the one object rules reach phrasenmt.workflow through
# (phrasenmt/workflow/adapter.py): `input: W.npmt.lm_inputs` calls
# phrasenmt.workflow.npmt.lm_inputs with the config and the job's wildcards.
# No rules file defines a function. Included first (Snakefile).
import gc
import sys

sys.path.insert(0, str(Path(workflow.basedir) / "src"))

from phrasenmt import experiment
from phrasenmt.io import InputError
from phrasenmt.workflow import base as wf
from phrasenmt.workflow import runs
from phrasenmt.workflow.adapter import Adapter

wf.put_interpreter_on_path()

try:
    # schema, the families' checks, derived models, then every model entry
    # resolved as its train rule will and every dataset's settings
    experiment.start(config, workflow.configfiles, workflow.config_settings.config)
    wf.apply_lm_availability(config, wf.lm_unavailable_reason())
    DATASETS = wf.datasets(config)
except InputError as err:
    # one line, as every stage's bad input: Snakemake would add the frame of
    # this file to a WorkflowError
    where = err.message if err.path == "config" else err  # the key names it
    print(f"invalid configuration: {where}", file=sys.stderr)
    sys.exit(1)
# What start-up made (modules, the checked config) lives until the end: leaving
# it out of garbage collection saves about 1 s of CPU in building the DAG
# (docs/results/2026-11-28-house.md).
gc.freeze()
for line in (wf.unsegmented_language_warnings(config) + wf.local_language_warnings(config)
             + wf.phrase_table_warnings(config)):
    print(line, file=sys.stderr)  # valid, but worth a word
if config.get(wf.LM_MISSING):  # the NPMT table says so too
    print(f"NPMT+LM rows left out: {config[wf.LM_MISSING]}", file=sys.stderr)

RESULTS = "results"


wildcard_constraints:
    dataset="|".join(config["datasets"]),
    model="|".join(config["models"]),
    split="[A-Za-z0-9_]+",
    testset="[A-Za-z0-9_]+",
    lang="[a-z]{2,3}",
    seed=runs.SEED_REGEX,


W = Adapter(config)
# dev and test splits: every split but train (aligned after the training text)
HELDOUT_SPLIT = r"(?!train\b)[A-Za-z0-9_]+"
