# NPMT (Huang et al. 2018): npmt, npmt_noreorder, attn_rnn_reorder and LM rows.
# Word-level data (no BPE) like the continuous family. Every row of the NPMT table
# is decoded greedily and with beam search: {testset}.tok is beam search for the
# NPMT family (what the main results table reads) and {testset}.greedy.tok the
# greedy decoding (+ .greedy.segments for SWAN models); the attention baseline
# keeps its greedy {testset}.tok and gets {testset}.beam.tok. A checkpoint_of row
# (NPMT+LM) decodes its model's checkpoint with a 4-gram KenLM model (Eq. 3).
# Helpers: phrasenmt.workflow.npmt.


wildcard_constraints:
    decoding="greedy|beam",
    sweep="[A-Za-z0-9][A-Za-z0-9_-]*",


rule train_npmt:
    input:
        src=W.text("train", "src"),
        tgt=W.text("train", "tgt"),
        dev_src=W.text("dev", "src"),
        dev_tgt=W.text("dev", "tgt"),
    output:
        summary="results/{dataset}/models/{model}/seed{seed}/summary.json",
    wildcard_constraints:
        model=W.regex(W.npmt.trained_models),
    params:
        launcher=W.runs.launcher,
        precision=W.runs.precision,
        device=W.runs.device,
        spec=W.base.model_spec,
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


rule average_npmt:
    input:
        summary="results/{dataset}/models/{model}/seed{seed}/summary.json",
    output:
        "results/{dataset}/models/{model}/seed{seed}/averaged.pt",
    wildcard_constraints:
        model=W.regex(W.npmt.trained_models),
    params:
        checkpoints="results/{dataset}/models/{model}/seed{seed}/checkpoints",
    log:
        "results/logs/average/{dataset}.{model}.seed{seed}.log",
    conda:
        "../envs/torch.yaml"
    shell:
        "python -m phrasenmt.average --checkpoint-dir {params.checkpoints} "
        "--summary {input.summary} --out {output} > {log} 2>&1"


# --discount-fallback: lmplz uses fixed discounts only where its closed-form
# Kneser-Ney estimate fails (small or repetitive text, e.g. the synthetic corpus).
rule train_lm:
    input:
        W.text("train", "tgt"),
    output:
        "results/{dataset}/lm/target.4gram.bin",
    threads: 1
    resources:
        mem_mb=4000,
    log:
        "results/logs/train_lm/{dataset}.log",
    conda:
        "../envs/kenlm.yaml"
    shell:
        "python -m phrasenmt.lm train --text {input} --order 4 --out {output} "
        "--discount-fallback > {log} 2>&1"


rule translate_npmt:
    input:
        model=W.npmt.checkpoint,
        src=W.text("{testset}", "src"),
        lm=W.npmt.lm_inputs,
    output:
        "results/{dataset}/translations/{model}/seed{seed}/{testset}.tok",
    wildcard_constraints:
        model=W.models_regex("npmt"),
    params:
        precision=W.runs.precision,
        device=W.runs.device,
        search=W.npmt.translate_args.given(decoding="beam"),
        lm=W.npmt.lm_arg,
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
        "--output {output} {params.search} {params.lm} "
        "--max-len-a {params.max_len_a} --max-len-b {params.max_len_b} "
        "--batch-size {params.batch_size} --threads {threads} "
        "--precision {params.precision} --device {params.device} > {log} 2>&1"


rule translate_npmt_greedy:
    input:
        model=W.npmt.checkpoint,
        src=W.text("{testset}", "src"),
    output:
        tok="results/{dataset}/translations/{model}/seed{seed}/{testset}.greedy.tok",
        segments="results/{dataset}/translations/{model}/seed{seed}/{testset}.greedy.segments",
    wildcard_constraints:
        model=W.regex(W.npmt.greedy_models),
    params:
        precision=W.runs.precision,
        device=W.runs.device,
        search=W.npmt.translate_args.given(decoding="greedy"),
        max_len_a=config["decode"]["max_len_a"],
        max_len_b=config["decode"]["max_len_b"],
        batch_size=config["decode"]["batch_size"],
    threads: 1
    resources:
        gpu=W.runs.decode_gpus,
        mem_mb=8000,
        runtime=4 * 60,
    log:
        "results/logs/translate_greedy/{dataset}.{model}.seed{seed}.{testset}.log",
    benchmark:
        "results/benchmarks/translate_greedy/{dataset}.{model}.seed{seed}.{testset}.tsv"
    conda:
        "../envs/torch.yaml"
    shell:
        "python -m phrasenmt.translate --checkpoint {input.model} --input {input.src} "
        "--output {output.tok} --segments-out {output.segments} {params.search} "
        "--max-len-a {params.max_len_a} --max-len-b {params.max_len_b} "
        "--batch-size {params.batch_size} --threads {threads} "
        "--precision {params.precision} --device {params.device} > {log} 2>&1"


rule translate_decoding:
    input:
        model=W.npmt.checkpoint,
        src=W.text("{testset}", "src"),
    output:
        "results/{dataset}/translations/{model}/seed{seed}/{testset}.{decoding}.tok",
    wildcard_constraints:
        model=W.regex(W.npmt.attention_models),
    params:
        precision=W.runs.precision,
        device=W.runs.device,
        search=W.npmt.translate_args,
        max_len_a=config["decode"]["max_len_a"],
        max_len_b=config["decode"]["max_len_b"],
        batch_size=config["decode"]["batch_size"],
    threads: 1
    resources:
        gpu=W.runs.decode_gpus,
        mem_mb=8000,
        runtime=4 * 60,
    log:
        "results/logs/translate_{decoding}/{dataset}.{model}.seed{seed}.{testset}.log",
    benchmark:
        "results/benchmarks/translate_{decoding}/{dataset}.{model}.seed{seed}.{testset}.tsv"
    conda:
        "../envs/torch.yaml"
    shell:
        "python -m phrasenmt.translate --checkpoint {input.model} --input {input.src} "
        "--output {output} {params.search} "
        "--max-len-a {params.max_len_a} --max-len-b {params.max_len_b} "
        "--batch-size {params.batch_size} --threads {threads} "
        "--precision {params.precision} --device {params.device} > {log} 2>&1"


rule detokenize_decoding:
    input:
        "results/{dataset}/translations/{model}/seed{seed}/{testset}.{decoding}.tok",
    output:
        "results/{dataset}/translations/{model}/seed{seed}/{testset}.{decoding}.txt",
    params:
        args=W.corpus.detokenize_args,
    log:
        "results/logs/detokenize/{dataset}.{model}.seed{seed}.{testset}.{decoding}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.data.detokenize {params.args} --in {input} "
        "--out {output} > {log} 2>&1"


rule bleu_decoding:
    input:
        unpack(W.npmt.eval_inputs),
        ref=W.text("{testset}", "ref"),
        ref_tok=W.text("{testset}", "tgt"),
    output:
        "results/{dataset}/eval/{model}/seed{seed}/{testset}.{decoding}.json",
    params:
        lang=W.corpus.tgt_lang,
    log:
        "results/logs/bleu/{dataset}.{model}.seed{seed}.{testset}.{decoding}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.evaluate.bleu --system {wildcards.model} "
        "--testset {wildcards.testset} --hyp {input.hyp} --ref {input.ref} "
        "--lang {params.lang} --hyp-tok {input.hyp_tok} --ref-tok {input.ref_tok} --out {output} "
        "> {log} 2>&1"


# All seeds of an NPMT-table row against all seeds of the baseline's same
# decoding (a row without a baseline: against itself, p = 1).
rule bleu_seeds_decoding:
    input:
        unpack(W.npmt.aggregate_inputs),
        ref=W.text("{testset}", "ref"),
    output:
        "results/{dataset}/eval/{model}/{testset}.{decoding}.json",
    params:
        baseline=W.npmt.aggregate_baseline,
        seeds=W.runs.seed_args,
        trials=config["evaluate"]["significance_trials"],
        alpha=config["evaluate"]["alpha"],
        seed=config["seed"],
        lang=W.corpus.tgt_lang,
    log:
        "results/logs/bleu_seeds/{dataset}.{model}.{testset}.{decoding}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.evaluate.multiseed --system {wildcards.model} "
        "--baseline-name {params.baseline} --testset {wildcards.testset} "
        "--ref {input.ref} --lang {params.lang} --hyp {input.hyps} "
        "--baseline-hyp {input.baseline} "
        "--seeds {params.seeds} --trials {params.trials} --alpha {params.alpha} "
        "--seed {params.seed} --out {output} > {log} 2>&1"
