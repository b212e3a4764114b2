# Tables and figures, each a report() output with a caption, so that
# `snakemake --report report.html` collects them into one HTML report.


rule results_table:
    input:
        evals=W.evaluation.eval_jsons,
        seed_evals=W.evaluation.seed_eval_jsons,
        summaries=W.evaluation.summaries,
    output:
        md=report(
            "results/{dataset}/report/results.md",
            caption="../report/results_table.rst",
            category="Results",
            labels={"dataset": "{dataset}", "table": "main results"},
        ),
        tex="results/{dataset}/report/results.tex",
        csv="results/{dataset}/report/results.csv",
        timing="results/{dataset}/timing/results.csv",
    params:
        summaries=W.evaluation.summary_args,
        baseline=W.base.baseline,
        order=W.evaluation.model_order,
        alpha=config["evaluate"]["alpha"],
    log:
        "results/logs/results_table/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.tables main --eval {input.evals} "
        "--seed-eval {input.seed_evals} --summary {params.summaries} "
        "--baseline {params.baseline} "
        "--order {params.order} --alpha {params.alpha} --out-md {output.md} "
        "--out-tex {output.tex} --out-csv {output.csv} "
        "--out-timing-csv {output.timing} > {log} 2>&1"


rule length_figure:
    input:
        "results/{dataset}/analysis/length_{testset}.tsv",
    output:
        png=report(
            "results/{dataset}/report/length_{testset}.png",
            caption="../report/length_figure.rst",
            category="Figures",
            labels={"dataset": "{dataset}", "figure": "BLEU by length ({testset})"},
        ),
        svg="results/{dataset}/report/length_{testset}.svg",
    params:
        order=W.evaluation.model_order,
    log:
        "results/logs/length_figure/{dataset}.{testset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.figures length --tsv {input} --order {params.order} "
        "--testset {wildcards.testset} --out-png {output.png} --out-svg {output.svg} "
        "> {log} 2>&1"


rule learning_curves:
    input:
        W.curves.curve_summaries,
    output:
        "results/{dataset}/analysis/learning_curves.tsv",
    params:
        runs=W.curves.curve_args,
    log:
        "results/logs/learning_curves/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.learning_curves {params.runs} --out {output} "
        "> {log} 2>&1"


rule training_runs_table:
    input:
        W.curves.curve_summaries,
    output:
        md=report(
            "results/{dataset}/report/training_runs.md",
            caption="../report/training_runs.rst",
            category="Results",
            labels={"dataset": "{dataset}", "table": "training runs"},
        ),
        csv="results/{dataset}/report/training_runs.csv",
        timing="results/{dataset}/timing/training_runs.csv",
    params:
        runs=W.curves.summary_run_args,
    log:
        "results/logs/training_runs_table/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.training_runs {params.runs} --out-md {output.md} "
        "--out-csv {output.csv} --out-timing-csv {output.timing} > {log} 2>&1"


rule learning_curves_figure:
    input:
        "results/{dataset}/analysis/learning_curves.tsv",
    output:
        png=report(
            "results/{dataset}/report/learning_curves.png",
            caption="../report/learning_curves.rst",
            category="Figures",
            labels={"dataset": "{dataset}", "figure": "learning curves"},
        ),
        svg="results/{dataset}/report/learning_curves.svg",
    params:
        order=W.evaluation.model_order,
    log:
        "results/logs/learning_curves_figure/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.learning_curves_figure --tsv {input} "
        "--order {params.order} --dataset {wildcards.dataset} --out-png {output.png} "
        "--out-svg {output.svg} > {log} 2>&1"


# Source phrase representations (Xu et al. 2020): Table 2 and Figure 4.


rule ablation_table:
    input:
        unpack(W.phrase_repr.ablation_inputs),
    output:
        md=report(
            "results/{dataset}/report/ablation.md",
            caption="../report/ablation_table.rst",
            category="Results",
            labels={"dataset": "{dataset}", "table": "ablation (Table 2)"},
        ),
        tex="results/{dataset}/report/ablation.tex",
        csv="results/{dataset}/report/ablation.csv",
        timing="results/{dataset}/timing/ablation.csv",
    params:
        files=W.phrase_repr.ablation_args,
        order=W.phrase_repr.ablation_order,
        baseline=W.base.baseline,
        testset=W.evaluation.first_testset,
        alpha=config["evaluate"]["alpha"],
    log:
        "results/logs/ablation_table/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.ablation {params.files} "
        "--baseline {params.baseline} --order {params.order} --testset {params.testset} "
        "--alpha {params.alpha} --out-md {output.md} --out-tex {output.tex} "
        "--out-csv {output.csv} --out-timing-csv {output.timing} > {log} 2>&1"


rule agreement_figure:
    input:
        "results/{dataset}/analysis/agreement.tsv",
    output:
        png=report(
            "results/{dataset}/report/agreement.png",
            caption="../report/agreement_figure.rst",
            category="Figures",
            labels={"dataset": "{dataset}", "figure": "agreement by distance"},
        ),
        svg="results/{dataset}/report/agreement.svg",
    params:
        order=W.phrase_repr.ablation_order,
    log:
        "results/logs/agreement_figure/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.figures agreement --tsv {input} "
        "--order {params.order} --out-png {output.png} --out-svg {output.svg} "
        "> {log} 2>&1"


rule cleaning_table:
    input:
        "results/{dataset}/data/train.clean.tsv",
    output:
        report(
            "results/{dataset}/report/cleaning.md",
            caption="../report/cleaning_table.rst",
            category="Data",
            labels={"dataset": "{dataset}", "table": "cleaning"},
        ),
    log:
        "results/logs/cleaning_table/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.cleaning --stats {input} "
        "--dataset {wildcards.dataset} --out {output} > {log} 2>&1"
