# Discourse evaluation and report of the document-level models, per dataset
# that trains one: pronoun and noun accuracy (source-pivoted alignments of the
# reference and of each model's output), lexical cohesion and LSA coherence (the
# reference as the ceiling row), and the tables: BLEU against the baseline (with
# the sweeps that were not run), contrastive accuracy with and without context
# (rules/documents.smk), pronouns, cohesion, the HAN table (the slides' rows) and
# one table per sweep of a document-level model (K, N_c, integration, gating).


rule pronoun_align_reference:
    input:
        src=W.text("{testset}", "src"),
        ref=W.text("{testset}", "tgt"),
        train_src=W.text("train", "src"),
        train_tgt=W.text("train", "tgt"),
    output:
        "results/{dataset}/discourse/align/{testset}.ref",
    params:
        args=W.discourse.align_args,
    threads: 1  # a seeded aligner runs on one thread (phrasenmt.align.backends)
    log:
        "results/logs/pronoun_align_reference/{dataset}.{testset}.log",
    conda:
        "../envs/align.yaml"
    shell:
        "python -m phrasenmt.evaluate.pronouns align --src {input.src} "
        "--tgt {input.ref} --train-src {input.train_src} --train-tgt {input.train_tgt} "
        "{params.args} --threads {threads} --out {output} > {log} 2>&1"


rule pronoun_align:
    input:
        src=W.text("{testset}", "src"),
        hyp="results/{dataset}/translations/{model}/seed{seed}/{testset}.tok",
        train_src=W.text("train", "src"),
        train_tgt=W.text("train", "tgt"),
    output:
        "results/{dataset}/discourse/align/{testset}/{model}/seed{seed}.align",
    params:
        args=W.discourse.align_args,
    threads: 1  # a seeded aligner runs on one thread (phrasenmt.align.backends)
    log:
        "results/logs/pronoun_align/{dataset}.{testset}.{model}.seed{seed}.log",
    conda:
        "../envs/align.yaml"
    shell:
        "python -m phrasenmt.evaluate.pronouns align --src {input.src} "
        "--tgt {input.hyp} --train-src {input.train_src} --train-tgt {input.train_tgt} "
        "{params.args} --threads {threads} --out {output} > {log} 2>&1"


rule pronoun_score:
    input:
        src=W.text("{testset}", "src"),
        ref=W.text("{testset}", "tgt"),
        ref_align="results/{dataset}/discourse/align/{testset}.ref",
        hyp="results/{dataset}/translations/{model}/seed{seed}/{testset}.tok",
        hyp_align="results/{dataset}/discourse/align/{testset}/{model}/seed{seed}.align",
    output:
        "results/{dataset}/analysis/pronouns/{testset}/{model}/seed{seed}.tsv",
    params:
        lang=W.corpus.tgt_lang,
    log:
        "results/logs/pronoun_score/{dataset}.{testset}.{model}.seed{seed}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.evaluate.pronouns score --model {wildcards.model} "
        "--lang {params.lang} --src {input.src} --ref {input.ref} "
        "--ref-align {input.ref_align} --hyp {input.hyp} "
        "--hyp-align {input.hyp_align} --out {output} > {log} 2>&1"


rule lsa_fit:
    input:
        W.text("train", "tgt"),
    output:
        "results/{dataset}/discourse/lsa.pkl",
    params:
        args=W.discourse.lsa_args,
    log:
        "results/logs/lsa_fit/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.evaluate.cohesion fit --train {input} {params.args} "
        "--out {output} > {log} 2>&1"


rule cohesion_score:
    input:
        lsa="results/{dataset}/discourse/lsa.pkl",
        docs=W.documents.docs_file.given(split="{testset}"),
        ref=W.text("{testset}", "tgt"),
        hyps=W.documents_report.hyps,
    output:
        "results/{dataset}/analysis/cohesion_{testset}.tsv",
    params:
        lang=W.corpus.tgt_lang,
        hyps=W.documents_report.hyp_args,
    log:
        "results/logs/cohesion_score/{dataset}.{testset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.evaluate.cohesion score --lsa {input.lsa} "
        "--lang {params.lang} --docs {input.docs} --system {params.hyps} "
        "--reference {input.ref} --out {output} > {log} 2>&1"


# --- tables (category "Document-level NMT" of the HTML report) -----------------


rule discourse_bleu_table:
    input:
        W.documents_report.evals,
    output:
        md=report(
            "results/{dataset}/report/discourse_bleu.md",
            caption="../report/discourse_bleu.rst",
            category="Document-level NMT",
            labels={"dataset": "{dataset}", "table": "BLEU"},
        ),
        tex="results/{dataset}/report/discourse_bleu.tex",
        csv="results/{dataset}/report/discourse_bleu.csv",
    params:
        baseline=W.base.baseline,
        order=W.documents_report.order,
        alpha=config["evaluate"]["alpha"],
        notes=W.documents_report.notes,
    log:
        "results/logs/discourse_bleu_table/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.discourse bleu --eval {input} "
        "--baseline {params.baseline} --order {params.order} --alpha {params.alpha} "
        "{params.notes} --out-md {output.md} --out-tex {output.tex} "
        "--out-csv {output.csv} > {log} 2>&1"


rule han_table:
    input:
        W.documents_report.han_evals,
    output:
        md=report(
            "results/{dataset}/report/han_bleu.md",
            caption="../report/han_table.rst",
            category="Document-level NMT",
            labels={"dataset": "{dataset}", "table": "HAN (BLEU)"},
        ),
        tex="results/{dataset}/report/han_bleu.tex",
        csv="results/{dataset}/report/han_bleu.csv",
    params:
        baseline=W.base.baseline,
        order=W.documents_report.han_order,
        alpha=config["evaluate"]["alpha"],
    log:
        "results/logs/han_table/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.discourse bleu --eval {input} "
        "--baseline {params.baseline} --order {params.order} --alpha {params.alpha} "
        "--out-md {output.md} --out-tex {output.tex} --out-csv {output.csv} "
        "> {log} 2>&1"


rule discourse_contrastive_table:
    input:
        W.documents_report.contrastive_tsvs,
    output:
        md=report(
            "results/{dataset}/report/discourse_contrastive.md",
            caption="../report/discourse_contrastive.rst",
            category="Document-level NMT",
            labels={"dataset": "{dataset}", "table": "contrastive accuracy"},
        ),
        tex="results/{dataset}/report/discourse_contrastive.tex",
        csv="results/{dataset}/report/discourse_contrastive.csv",
    params:
        tsvs=W.documents_report.contrastive_tsv_args,
        order=W.documents_report.order,
    log:
        "results/logs/discourse_contrastive_table/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.discourse contrastive --tsv {params.tsvs} "
        "--order {params.order} --out-md {output.md} --out-tex {output.tex} "
        "--out-csv {output.csv} > {log} 2>&1"


rule discourse_pronouns_table:
    input:
        W.documents_report.pronoun_tsvs,
    output:
        md=report(
            "results/{dataset}/report/discourse_pronouns_{testset}.md",
            caption="../report/discourse_pronouns.rst",
            category="Document-level NMT",
            labels={"dataset": "{dataset}", "table": "pronouns and nouns ({testset})"},
        ),
        tex="results/{dataset}/report/discourse_pronouns_{testset}.tex",
        csv="results/{dataset}/report/discourse_pronouns_{testset}.csv",
    params:
        order=W.documents_report.order,
    log:
        "results/logs/discourse_pronouns_table/{dataset}.{testset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.discourse pronouns --tsv {input} "
        "--order {params.order} --out-md {output.md} --out-tex {output.tex} "
        "--out-csv {output.csv} > {log} 2>&1"


rule discourse_cohesion_table:
    input:
        "results/{dataset}/analysis/cohesion_{testset}.tsv",
    output:
        md=report(
            "results/{dataset}/report/discourse_cohesion_{testset}.md",
            caption="../report/discourse_cohesion.rst",
            category="Document-level NMT",
            labels={"dataset": "{dataset}", "table": "cohesion, coherence ({testset})"},
        ),
        tex="results/{dataset}/report/discourse_cohesion_{testset}.tex",
        csv="results/{dataset}/report/discourse_cohesion_{testset}.csv",
    params:
        order=W.documents_report.order,
    log:
        "results/logs/discourse_cohesion_table/{dataset}.{testset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.discourse cohesion --tsv {input} "
        "--order {params.order} --out-md {output.md} --out-tex {output.tex} "
        "--out-csv {output.csv} > {log} 2>&1"


rule discourse_sweep_table:
    input:
        evals=W.documents_report.sweep_evals,
        pronouns=W.documents_report.sweep_pronouns,
    output:
        md=report(
            "results/{dataset}/report/discourse_sweep_{sweep}.md",
            caption="../report/discourse_sweep.rst",
            category="Document-level NMT",
            labels={"dataset": "{dataset}", "table": "sweep {sweep}"},
        ),
        tex="results/{dataset}/report/discourse_sweep_{sweep}.tex",
        csv="results/{dataset}/report/discourse_sweep_{sweep}.csv",
    params:
        args=W.documents_report.sweep_args,
    log:
        "results/logs/discourse_sweep_table/{dataset}.{sweep}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.discourse sweep --eval {input.evals} "
        "--pronouns {input.pronouns} {params.args} --out-md {output.md} "
        "--out-tex {output.tex} --out-csv {output.csv} > {log} 2>&1"


# --- context usage: CXMI and the random-context controls ------------------------


rule cxmi:
    input:
        unpack(W.discourse.cxmi_inputs),
        model="results/{dataset}/models/{model}/seed{seed}/averaged.pt",
    output:
        "results/{dataset}/analysis/cxmi/{model}/seed{seed}.json",
    wildcard_constraints:
        model=W.models_regex("documents"),
    params:
        args=W.documents_report.cxmi_args,
        precision=W.runs.precision,
        device=W.runs.device,
        batch_size=config["decode"]["batch_size"],
        seed=config["seed"],
    threads: 1
    resources:
        gpu=W.runs.decode_gpus,
        mem_mb=8000,
        runtime=4 * 60,
    log:
        "results/logs/cxmi/{dataset}.{model}.seed{seed}.log",
    conda:
        "../envs/torch.yaml"
    shell:
        "python -m phrasenmt.evaluate.cxmi --model {wildcards.model} "
        "--checkpoint {input.model} {params.args} --batch-size {params.batch_size} "
        "--threads {threads} --precision {params.precision} --device {params.device} --seed {params.seed} "
        "--out {output} > {log} 2>&1"


rule context_usage_table:
    input:
        unpack(W.documents_report.context_usage_inputs),
    output:
        md=report(
            "results/{dataset}/report/context_usage.md",
            caption="../report/context_usage.rst",
            category="Document-level NMT",
            labels={"dataset": "{dataset}", "table": "context usage"},
        ),
        tex="results/{dataset}/report/context_usage.tex",
        csv="results/{dataset}/report/context_usage.csv",
    params:
        args=W.documents_report.context_usage_args,
        order=W.documents_report.context_usage_order,
    log:
        "results/logs/context_usage_table/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.context_usage table "
        "--eval {input.evals} {params.args} --order {params.order} "
        "--out-md {output.md} --out-tex {output.tex} --out-csv {output.csv} > {log} 2>&1"


rule context_usage_figure:
    input:
        "results/{dataset}/report/context_usage.csv",
    output:
        png=report(
            "results/{dataset}/report/context_usage.png",
            caption="../report/context_usage_figure.rst",
            category="Document-level NMT",
            labels={"dataset": "{dataset}", "figure": "context usage"},
        ),
        svg="results/{dataset}/report/context_usage.svg",
    params:
        order=W.documents_report.context_usage_order,
    log:
        "results/logs/context_usage_figure/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.context_usage figure --csv {input} "
        "--order {params.order} --out-png {output.png} --out-svg {output.svg} "
        "> {log} 2>&1"
