# Input and params functions of rules/claims.smk, which includes this file at its top
# (the claims table; logic in phrasenmt.workflow.claims). Those that rules of several
# stages use are in rules/common.smk.

from phrasenmt.workflow import claims as wfc


def claims_table_regex():
    return wfc.table_regex(config)


def claims_inputs(wildcards):
    return wfc.claims_inputs(config, wildcards.dataset,
                             wfc.table_family(config, wildcards.dataset, wildcards.table))


def claims_args(wildcards):
    return wfc.claims_args(config, wildcards.dataset,
                           wfc.table_family(config, wildcards.dataset, wildcards.table))
