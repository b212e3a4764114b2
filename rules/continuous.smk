# Continuous-output family (Park & Tsvetkov 2019): attn_rnn, conmt, pconmt_*.
# Word-level data (no BPE); PCoNMT targets have the listed phrases joined; the
# fertility module is trained after the translation network (frozen); greedy
# decoding; then multi-word BLEU, fertility F1 and training efficiency tables.
# Fertility labels of every split come from the aligner (train: rules/align.smk;
# dev/test: heldout_fertility); a synthetic corpus' gold alignments give a second
# set of test labels (gold_fertility), scored as an extra row.


rule join_phrases:
    input:
        text=W.text("{split}", "tgt"),
        phrases="results/{dataset}/phrases/phrases.tsv",
    output:
        "results/{dataset}/phrases/{split}.joined",
    log:
        "results/logs/join_phrases/{dataset}.{split}.log",
    conda:
        "../envs/align.yaml"
    shell:
        "python -m phrasenmt.embeddings concat --text {input.text} "
        "--phrases {input.phrases} --out {output} > {log} 2>&1"


rule heldout_fertility:
    input:
        src=W.text("{split}", "src"),
        tgt=W.text("{split}", "tgt"),
        alignment="results/{dataset}/align/{split}.sym",
        phrases="results/{dataset}/phrases/phrases.tsv",
    output:
        fert4="results/{dataset}/phrases/{split}.fert4",
        fert2="results/{dataset}/phrases/{split}.fert2",
    wildcard_constraints:
        split=HELDOUT_SPLIT,
    params:
        max_length=config["phrases"]["max_length"],
    log:
        "results/logs/heldout_fertility/{dataset}.{split}.log",
    conda:
        "../envs/align.yaml"
    shell:
        "python -m phrasenmt.fertility --src {input.src} --tgt {input.tgt} "
        "--alignment {input.alignment} --phrases {input.phrases} "
        "--max-length {params.max_length} --out-fert4 {output.fert4} "
        "--out-fert2 {output.fert2} > {log} 2>&1"


rule gold_fertility:
    input:
        src=W.text("{split}", "src"),
        tgt=W.text("{split}", "tgt"),
        alignment="results/{dataset}/data/{split}.align",
        phrases="results/{dataset}/phrases/phrases.tsv",
    output:
        fert4="results/{dataset}/phrases/{split}.gold.fert4",
        fert2="results/{dataset}/phrases/{split}.gold.fert2",
    wildcard_constraints:
        dataset=W.datasets_regex("synthetic"),
    params:
        max_length=config["phrases"]["max_length"],
    log:
        "results/logs/gold_fertility/{dataset}.{split}.log",
    conda:
        "../envs/align.yaml"
    shell:
        "python -m phrasenmt.fertility --src {input.src} --tgt {input.tgt} "
        "--alignment {input.alignment} --phrases {input.phrases} "
        "--max-length {params.max_length} --out-fert4 {output.fert4} "
        "--out-fert2 {output.fert2} > {log} 2>&1"


rule train_continuous:
    input:
        unpack(W.continuous.train_inputs),
    output:
        summary="results/{dataset}/models/{model}/seed{seed}/summary.json",
    wildcard_constraints:
        model=W.models_regex("continuous"),
    params:
        launcher=W.runs.launcher,
        precision=W.runs.precision,
        device=W.runs.device,
        spec=W.continuous.continuous_spec,
        outdir="results/{dataset}/models/{model}/seed{seed}",
    threads: 1
    resources:
        gpu=W.runs.gpus,
        mem_mb=8000,
        runtime=24 * 60,
    log:
        "results/logs/train/{dataset}.{model}.seed{seed}.log",
    benchmark:
        "results/benchmarks/train/{dataset}.{model}.seed{seed}.tsv"
    conda:
        "../envs/torch.yaml"
    shell:
        "exec {params.launcher} -m phrasenmt.train --spec {params.spec:q} --train-src {input.src} "
        "--train-tgt {input.tgt} --dev-src {input.dev_src} --dev-tgt {input.dev_tgt} "
        "--outdir {params.outdir} --seed {wildcards.seed} --threads {threads} "
        "--precision {params.precision} --device {params.device} "
        "--no-progress > {log} 2>&1"


rule average_continuous:
    input:
        summary="results/{dataset}/models/{model}/seed{seed}/summary.json",
    output:
        "results/{dataset}/models/{model}/seed{seed}/averaged.pt",
    wildcard_constraints:
        model=W.models_regex("continuous"),
    params:
        checkpoints="results/{dataset}/models/{model}/seed{seed}/checkpoints",
    log:
        "results/logs/average/{dataset}.{model}.seed{seed}.log",
    conda:
        "../envs/torch.yaml"
    shell:
        "python -m phrasenmt.average --checkpoint-dir {params.checkpoints} "
        "--summary {input.summary} --out {output} > {log} 2>&1"


rule train_fertility:
    input:
        model="results/{dataset}/models/{model}/seed{seed}/averaged.pt",
        src=W.text("train", "src"),
        dev_src=W.text("dev", "src"),
        labels=W.continuous.fertility_labels.given(split="train", kind=""),
        dev_labels=W.continuous.fertility_labels.given(split="dev", kind=""),
    output:
        "results/{dataset}/models/{model}/seed{seed}/fertility.pt",
    wildcard_constraints:
        model=W.regex(W.continuous.fertility_models),
    params:
        precision=W.runs.precision,
    threads: 1
    log:
        "results/logs/train_fertility/{dataset}.{model}.seed{seed}.log",
    benchmark:
        "results/benchmarks/train_fertility/{dataset}.{model}.seed{seed}.tsv"
    conda:
        "../envs/torch.yaml"
    shell:
        "python -m phrasenmt.train_fertility --checkpoint {input.model} "
        "--train-src {input.src} --train-labels {input.labels} "
        "--dev-src {input.dev_src} --dev-labels {input.dev_labels} --out {output} "
        "--seed {wildcards.seed} --threads {threads} "
        "--precision {params.precision} > {log} 2>&1"


rule translate_continuous:
    input:
        model=W.continuous.decode_model,
        src=W.text("{testset}", "src"),
    output:
        "results/{dataset}/translations/{model}/seed{seed}/{testset}.tok",
    wildcard_constraints:
        model=W.models_regex("continuous"),
    params:
        precision=W.runs.precision,
        device=W.runs.device,
        search=W.base.search_args,
        max_len_a=config["decode"]["max_len_a"],
        max_len_b=config["decode"]["max_len_b"],
        batch_size=config["decode"]["batch_size"],
    threads: 1
    resources:
        gpu=W.runs.decode_gpus,
        mem_mb=8000,
        runtime=4 * 60,
    log:
        "results/logs/translate/{dataset}.{model}.seed{seed}.{testset}.log",
    benchmark:
        "results/benchmarks/translate/{dataset}.{model}.seed{seed}.{testset}.tsv"
    conda:
        "../envs/torch.yaml"
    shell:
        "python -m phrasenmt.translate --checkpoint {input.model} --input {input.src} "
        "--output {output} {params.search} --max-len-a {params.max_len_a} "
        "--max-len-b {params.max_len_b} --batch-size {params.batch_size} "
        "--threads {threads} --precision {params.precision} --device {params.device} > {log} 2>&1"


rule multiword_bleu:
    input:
        hyps=W.evaluation.all_hyps,
        ref=W.text("{testset}", "tgt"),
        phrases="results/{dataset}/phrases/phrases.tsv",
    output:
        "results/{dataset}/analysis/multiword_{testset}.tsv",
    params:
        hyps=W.evaluation.all_hyp_args,
    log:
        "results/logs/multiword_bleu/{dataset}.{testset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.evaluate.multiword --phrases {input.phrases} "
        "--ref {input.ref} --hyp {params.hyps} --testset {wildcards.testset} "
        "--out {output} > {log} 2>&1"


rule fertility_scores:
    input:
        unpack(W.continuous.fertility_test_labels),
        model=W.continuous.decode_model,
        src=W.text("{testset}", "src"),
    output:
        "results/{dataset}/analysis/fertility/{testset}/{model}.seed{seed}.tsv",
    wildcard_constraints:
        model=W.regex(W.continuous.fertility_models),
    params:
        labels=W.continuous.fertility_test_label_args,
    log:
        "results/logs/fertility_scores/{dataset}.{model}.seed{seed}.{testset}.log",
    conda:
        "../envs/torch.yaml"
    shell:
        "python -m phrasenmt.evaluate.fertility --checkpoint {input.model} "
        "--src {input.src} --labels {params.labels} --system {wildcards.model} "
        "--out {output} --threads 1 > {log} 2>&1"


rule multiword_table:
    input:
        "results/{dataset}/analysis/multiword_{testset}.tsv",
    output:
        md=report(
            "results/{dataset}/report/multiword_{testset}.md",
            caption="../report/multiword_table.rst",
            category="Continuous-output NMT",
            labels={"dataset": "{dataset}", "table": "multi-word BLEU ({testset})"},
        ),
        tex="results/{dataset}/report/multiword_{testset}.tex",
        csv="results/{dataset}/report/multiword_{testset}.csv",
    params:
        order=W.evaluation.model_order,
    log:
        "results/logs/multiword_table/{dataset}.{testset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.continuous multiword --tsv {input} "
        "--order {params.order} --out-md {output.md} --out-tex {output.tex} "
        "--out-csv {output.csv} > {log} 2>&1"


rule fertility_table:
    input:
        W.continuous.fertility_tsvs,
    output:
        md=report(
            "results/{dataset}/report/fertility_{testset}.md",
            caption="../report/fertility_table.rst",
            category="Continuous-output NMT",
            labels={"dataset": "{dataset}", "table": "fertility F1 ({testset})"},
        ),
        tex="results/{dataset}/report/fertility_{testset}.tex",
        csv="results/{dataset}/report/fertility_{testset}.csv",
    params:
        order=W.evaluation.model_order,
    log:
        "results/logs/fertility_table/{dataset}.{testset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.continuous fertility --tsv {input} "
        "--order {params.order} --out-md {output.md} --out-tex {output.tex} "
        "--out-csv {output.csv} > {log} 2>&1"


rule efficiency_table:
    input:
        summaries=W.continuous.run_summaries,
        targets=W.continuous.efficiency_targets,
    output:
        md=report(
            "results/{dataset}/report/efficiency.md",
            caption="../report/efficiency_table.rst",
            category="Continuous-output NMT",
            labels={"dataset": "{dataset}", "table": "training efficiency"},
        ),
        tex="results/{dataset}/report/efficiency.tex",
        csv="results/{dataset}/report/efficiency.csv",
        timing="results/{dataset}/timing/efficiency.csv",
    params:
        runs=W.continuous.efficiency_args,
        order=W.continuous.family_order,
    log:
        "results/logs/efficiency_table/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.report.continuous efficiency {params.runs} "
        "--order {params.order} --out-md {output.md} --out-tex {output.tex} "
        "--out-csv {output.csv} --out-timing-csv {output.timing} > {log} 2>&1"
