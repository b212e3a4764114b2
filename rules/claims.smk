# The claims table: every claim of claims.yaml that the dataset's models can
# test, with all training seeds (phrasenmt.report.claims); the files each claim
# reads come from phrasenmt.workflow.claims. claims_<family>: a family's table
# (config key `families`), the claims whose system and baseline are both models
# of the family, from those models' runs only, so that a family can be trained
# and judged on its own (configs/converged_families.yaml).


rule claims_table:
    input:
        unpack(W.claims.table_inputs),
    output:
        md=report(
            "results/{dataset}/report/{table}.md",
            caption="../report/claims_table.rst",
            category="Claims",
            labels={"dataset": "{dataset}", "table": "{table}"},
        ),
        tex="results/{dataset}/report/{table}.tex",
        csv="results/{dataset}/report/{table}.csv",
        timing="results/{dataset}/timing/{table}.csv",
    wildcard_constraints:
        table=W.claims.table_regex.now(),
    params:
        args=W.claims.table_args,
        alpha=config["evaluate"]["alpha"],
        trials=config["evaluate"]["significance_trials"],
        seed=config["seed"],
        min_gain=config["evaluate"]["baseline_guard"]["min_bleu_gain"],
        max_share=config["evaluate"]["baseline_guard"]["max_output_share"],
    log:
        "results/logs/claims_table/{dataset}.{table}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.claims {params.args} --alpha {params.alpha} "
        "--trials {params.trials} --seed {params.seed} "
        "--min-bleu-gain {params.min_gain} --max-output-share {params.max_share} "
        "--out-md {output.md} "
        "--out-tex {output.tex} --out-csv {output.csv} "
        "--out-timing-csv {output.timing} > {log} 2>&1"
