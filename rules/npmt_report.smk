# NPMT analyses and report (Huang et al. 2018): segment lengths (footnote 4),
# Table 2 examples, Appendix C phrase mappings and the Appendix A gates from the
# greedy segmentations; the BLEU table (Tables 1/3/5) and sweep tables (Table 7).
# Decodings and BLEU JSONs come from rules/npmt.smk.


# --- analyses: segments (footnote 4, Table 2, Appendix C) and gates (Appendix A)


rule segment_stats:
    input:
        unpack(W.npmt_report.segment_files),
        src=W.text("{testset}", "src"),
    output:
        "results/{dataset}/analysis/npmt_segments_{testset}.tsv",
    params:
        segments=W.npmt_report.segment_args,
        bins=",".join(map(str, config["evaluate"]["length_bins"])),
    log:
        "results/logs/segment_stats/{dataset}.{testset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.evaluate.segments stats --src {input.src} "
        "--segments {params.segments} --bins {params.bins} "
        "--testset {wildcards.testset} --out {output} > {log} 2>&1"


rule segment_examples:
    input:
        unpack(W.npmt_report.segment_files),
        src=W.text("{testset}", "src"),
        ref=W.text("{testset}", "tgt"),
    output:
        "results/{dataset}/analysis/npmt_examples_{testset}.tsv",
    params:
        segments=W.npmt_report.segment_args,
        n=config["evaluate"]["segment_examples"],
        max_words=config["evaluate"]["example_max_words"],
        seed=config["seed"],
    log:
        "results/logs/segment_examples/{dataset}.{testset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.evaluate.segments examples --src {input.src} "
        "--ref {input.ref} --segments {params.segments} --n {params.n} "
        "--max-words {params.max_words} --seed {params.seed} "
        "--testset {wildcards.testset} --out {output} > {log} 2>&1"


rule phrase_mappings:
    input:
        unpack(W.npmt_report.segment_files),
        src=W.text("{testset}", "src"),
    output:
        "results/{dataset}/analysis/npmt_mappings_{testset}.tsv",
    params:
        segments=W.npmt_report.segment_args,
        top=config["evaluate"]["phrase_mappings"],
    log:
        "results/logs/phrase_mappings/{dataset}.{testset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.evaluate.segments mappings --src {input.src} "
        "--segments {params.segments} --top {params.top} "
        "--testset {wildcards.testset} --out {output} > {log} 2>&1"


rule reordering_gates:
    input:
        model=W.npmt_report.main_checkpoint,
        src=W.text("{testset}", "src"),
    output:
        "results/{dataset}/analysis/npmt_gates_{testset}.tsv",
    params:
        line=config["evaluate"]["gates_line"],
    log:
        "results/logs/reordering_gates/{dataset}.{testset}.log",
    conda:
        "../envs/torch.yaml"
    shell:
        "python -m phrasenmt.evaluate.gates --checkpoint {input.model} "
        "--input {input.src} --line {params.line} --out {output} > {log} 2>&1"


rule reordering_bleu:
    input:
        unpack(W.npmt.reordering_hyps),
        src=W.text("{testset}", "src"),
        ref=W.text("{testset}", "tgt"),
        align="results/{dataset}/data/{testset}.align",
    output:
        "results/{dataset}/analysis/npmt_reordering_{testset}.tsv",
    params:
        hyps=W.npmt_report.reordering_args,
        bins=",".join(map(str, config["evaluate"]["reordering_bins"])),
    log:
        "results/logs/reordering_bleu/{dataset}.{testset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.evaluate.reordering --src {input.src} --ref {input.ref} "
        "--align {input.align} --hyp {params.hyps} --bins {params.bins} "
        "--testset {wildcards.testset} --out {output} > {log} 2>&1"


# --- report: Tables 1/3/5, segments, Table 2, Appendix C, Figure 5, sweeps ---


rule npmt_table:
    input:
        W.npmt_report.table_eval_files,
    output:
        md=report(
            "results/{dataset}/report/npmt_bleu_{testset}.md",
            caption="../report/npmt_table.rst",
            category="NPMT",
            labels={"dataset": "{dataset}", "table": "BLEU greedy / beam ({testset})"},
        ),
        tex="results/{dataset}/report/npmt_bleu_{testset}.tex",
        csv="results/{dataset}/report/npmt_bleu_{testset}.csv",
    params:
        args=W.npmt_report.table_args,
        order=W.npmt_report.table_order,
        alpha=config["evaluate"]["alpha"],
    log:
        "results/logs/npmt_table/{dataset}.{testset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.npmt table {params.args} --order {params.order} "
        "--testset {wildcards.testset} --alpha {params.alpha} --out-md {output.md} "
        "--out-tex {output.tex} --out-csv {output.csv} > {log} 2>&1"


rule npmt_segments_table:
    input:
        "results/{dataset}/analysis/npmt_segments_{testset}.tsv",
    output:
        md=report(
            "results/{dataset}/report/npmt_segments_{testset}.md",
            caption="../report/npmt_segments.rst",
            category="NPMT",
            labels={"dataset": "{dataset}", "table": "segment length ({testset})"},
        ),
        tex="results/{dataset}/report/npmt_segments_{testset}.tex",
        csv="results/{dataset}/report/npmt_segments_{testset}.csv",
    params:
        order=W.npmt_report.segment_order,
    log:
        "results/logs/npmt_segments_table/{dataset}.{testset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.segments segments --tsv {input} "
        "--order {params.order} --out-md {output.md} --out-tex {output.tex} "
        "--out-csv {output.csv} > {log} 2>&1"


rule npmt_examples_table:
    input:
        "results/{dataset}/analysis/npmt_examples_{testset}.tsv",
    output:
        md=report(
            "results/{dataset}/report/npmt_examples_{testset}.md",
            caption="../report/npmt_examples.rst",
            category="NPMT",
            labels={"dataset": "{dataset}", "table": "segmented examples ({testset})"},
        ),
        tex="results/{dataset}/report/npmt_examples_{testset}.tex",
        csv="results/{dataset}/report/npmt_examples_{testset}.csv",
    params:
        order=W.npmt_report.segment_order,
    log:
        "results/logs/npmt_examples_table/{dataset}.{testset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.segments examples --tsv {input} "
        "--order {params.order} --out-md {output.md} --out-tex {output.tex} "
        "--out-csv {output.csv} > {log} 2>&1"


rule npmt_mappings_table:
    input:
        tsv="results/{dataset}/analysis/npmt_mappings_{testset}.tsv",
        stats="results/{dataset}/analysis/npmt_segments_{testset}.tsv",
    output:
        md=report(
            "results/{dataset}/report/npmt_mappings_{testset}.md",
            caption="../report/npmt_mappings.rst",
            category="NPMT",
            labels={"dataset": "{dataset}", "table": "phrase mappings ({testset})"},
        ),
        tex="results/{dataset}/report/npmt_mappings_{testset}.tex",
        csv="results/{dataset}/report/npmt_mappings_{testset}.csv",
    params:
        order=W.npmt_report.segment_order,
    log:
        "results/logs/npmt_mappings_table/{dataset}.{testset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.segments mappings --tsv {input.tsv} "
        "--stats {input.stats} "
        "--order {params.order} --out-md {output.md} --out-tex {output.tex} "
        "--out-csv {output.csv} > {log} 2>&1"


rule npmt_reordering_table:
    input:
        "results/{dataset}/analysis/npmt_reordering_{testset}.tsv",
    output:
        md=report(
            "results/{dataset}/report/npmt_reordering_{testset}.md",
            caption="../report/npmt_reordering.rst",
            category="NPMT",
            labels={"dataset": "{dataset}", "table": "BLEU by reordering distance ({testset})"},
        ),
        tex="results/{dataset}/report/npmt_reordering_{testset}.tex",
        csv="results/{dataset}/report/npmt_reordering_{testset}.csv",
    params:
        order=W.npmt_report.table_order,
    log:
        "results/logs/npmt_reordering_table/{dataset}.{testset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.segments reordering --tsv {input} "
        "--order {params.order} --out-md {output.md} --out-tex {output.tex} "
        "--out-csv {output.csv} > {log} 2>&1"


rule npmt_gates_figure:
    input:
        gates=W.npmt_report.main_gates,
        segments=W.npmt_report.main_segments,
    output:
        png=report(
            "results/{dataset}/report/npmt_gates.png",
            caption="../report/npmt_gates.rst",
            category="NPMT",
            labels={"dataset": "{dataset}", "figure": "reordering gates"},
        ),
        svg="results/{dataset}/report/npmt_gates.svg",
    params:
        line=config["evaluate"]["gates_line"],
        model=W.npmt.npmt_main,
    log:
        "results/logs/npmt_gates_figure/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.gates --tsv {input.gates} "
        "--segments {input.segments} --line {params.line} --model {params.model} "
        "--out-png {output.png} --out-svg {output.svg} > {log} 2>&1"


rule sweep_table:
    input:
        W.npmt_report.sweep_eval_files,
    output:
        md=report(
            "results/{dataset}/report/sweep_{sweep}.md",
            caption="../report/sweep_table.rst",
            category="Sweeps",
            labels={"dataset": "{dataset}", "table": "sweep {sweep}"},
        ),
        tex="results/{dataset}/report/sweep_{sweep}.tex",
        csv="results/{dataset}/report/sweep_{sweep}.csv",
    params:
        args=W.npmt_report.sweep_args,
    log:
        "results/logs/sweep_table/{dataset}.{sweep}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.npmt sweep {params.args} --out-md {output.md} "
        "--out-tex {output.tex} --out-csv {output.csv} > {log} 2>&1"
