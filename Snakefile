# phrasenmt: one DAG from dataset to report. Rules live in rules/*.smk; every
# rule calls `python -m phrasenmt.<stage>`; helpers are in phrasenmt.workflow,
# reached through W (rules/common.smk).
# rules/common.smk comes first: the others use what it defines.
import time

from snakemake.utils import min_version

min_version("9.0")

sys.path.insert(0, str(Path(workflow.basedir) / "src"))
from phrasenmt.config import check_config_file
from phrasenmt.workflow.scheduler import coalesce_reevaluation_timers

# Stages started on this machine run in a warm server that has imported PyTorch
# once (phrasenmt/warm.py); PHRASENMT_WARM=0 in the environment switches it off.
os.environ.setdefault("PHRASENMT_WARM", "1")

# Snakemake's scheduler otherwise gathers one timer per finished job, each waking
# it every second (phrasenmt/workflow/scheduler.py).
coalesce_reevaluation_timers()

# Snakemake's own message for a config.yaml that is not a mapping (a YAML list,
# tab indentation) names neither the file nor the line; this one does.
check_config_file("config.yaml")


configfile: "config.yaml"


include: "rules/common.smk"
include: "rules/data.smk"
include: "rules/bpe.smk"
include: "rules/align.smk"
include: "rules/embeddings.smk"
include: "rules/parse.smk"
include: "rules/train.smk"
include: "rules/translate.smk"
include: "rules/evaluate.smk"
include: "rules/lingeval.smk"
include: "rules/report.smk"
include: "rules/continuous.smk"
include: "rules/npmt.smk"
include: "rules/npmt_report.smk"
include: "rules/documents.smk"
include: "rules/documents_report.smk"
include: "rules/claims.smk"


# A stage writes its stderr to its log; the warnings written in this run are
# repeated on the console at its end (phrasenmt.workflow.base.log_warnings).
RUN_STARTED = time.time()


onstart:
    unavailable = wf.executor_unavailable(getattr(workflow.executor_plugin, "name", None))
    if unavailable:  # one line, before every job fails its submission in turn
        print(f"error: {unavailable}", file=sys.stderr)
        sys.exit(1)


onsuccess:
    for line in wf.log_warnings("results/logs", RUN_STARTED):
        print(line, file=sys.stderr)


onerror:
    for line in wf.log_warnings("results/logs", RUN_STARTED):
        print(line, file=sys.stderr)


rule all:
    default_target: True
    input:
        W.targets.final_targets.now(),
