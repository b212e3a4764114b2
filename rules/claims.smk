# The claims table: every claim of claims.yaml that the dataset's models can
# test, with all training seeds (phrasenmt.report.claims); the files each claim
# reads come from phrasenmt.workflow.claims.


include: "claims_functions.smk"


rule claims_table:
    input:
        unpack(claims_inputs),
    output:
        md=report(
            "results/{dataset}/report/claims.md",
            caption="../report/claims_table.rst",
            category="Claims",
            labels={"dataset": "{dataset}", "table": "claims of the papers"},
        ),
        tex="results/{dataset}/report/claims.tex",
        csv="results/{dataset}/report/claims.csv",
        timing="results/{dataset}/timing/claims.csv",
    params:
        args=claims_args,
        alpha=config["evaluate"]["alpha"],
        trials=config["evaluate"]["significance_trials"],
        seed=config["seed"],
        min_gain=config["evaluate"]["baseline_guard"]["min_bleu_gain"],
        max_share=config["evaluate"]["baseline_guard"]["max_output_share"],
    log:
        "results/logs/claims_table/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.claims {params.args} --alpha {params.alpha} "
        "--trials {params.trials} --seed {params.seed} "
        "--min-bleu-gain {params.min_gain} --max-output-share {params.max_share} "
        "--out-md {output.md} "
        "--out-tex {output.tex} --out-csv {output.csv} "
        "--out-timing-csv {output.timing} > {log} 2>&1"
