# One training job per (dataset, model, seed); resumable from its checkpoints,
# which are not declared outputs so that Snakemake keeps them when a job is
# killed. The run with seed N trains with --seed N (config `seeds`).
# Averaging takes the number of checkpoints the preset asks for from summary.json.


rule train:
    input:
        src=W.bpe("train", "src"),
        tgt=W.bpe("train", "tgt"),
        dev_src=W.bpe("dev", "src"),
        dev_tgt=W.bpe("dev", "tgt"),
        side=W.phrase_repr.train_side_files,
    wildcard_constraints:
        model=W.models_regex("default"),
    output:
        summary="results/{dataset}/models/{model}/seed{seed}/summary.json",
    params:
        precision=W.runs.precision,
        device=W.runs.device,
        launcher=W.runs.launcher,
        side=W.phrase_repr.train_side_args,
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
        "{params.side} > {log} 2>&1"


rule average:
    input:
        summary="results/{dataset}/models/{model}/seed{seed}/summary.json",
    wildcard_constraints:
        model=W.models_regex("default"),
    output:
        "results/{dataset}/models/{model}/seed{seed}/averaged.pt",
    params:
        checkpoints="results/{dataset}/models/{model}/seed{seed}/checkpoints",
    log:
        "results/logs/average/{dataset}.{model}.seed{seed}.log",
    conda:
        "../envs/torch.yaml"
    shell:
        "python -m phrasenmt.average --checkpoint-dir {params.checkpoints} "
        "--summary {input.summary} --out {output} > {log} 2>&1"
