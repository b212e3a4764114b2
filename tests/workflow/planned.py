"""`python -m tests.workflow.planned ARGS`: `snakemake ARGS` with the external LM
treated as built, so that a dry run plans the NPMT+LM rows whether or not this
machine has `lmplz` (it is only looked up, never run): tests/workflow/plans.py."""

from phrasenmt.workflow import base

assert callable(base.lm_unavailable_reason), "rules/common.smk's LM check moved"
base.lm_unavailable_reason = lambda: None

if __name__ == "__main__":
    from snakemake.cli import main

    main()
