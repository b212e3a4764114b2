# One training job per (dataset, model); resumable from its checkpoints, which
# are not declared outputs so that Snakemake keeps them when a job is killed.
# Averaging takes the number of checkpoints the preset asks for from summary.json.


rule train:
    input:
        src=expand_bpe("train", "src"),
        tgt=expand_bpe("train", "tgt"),
        dev_src=expand_bpe("dev", "src"),
        dev_tgt=expand_bpe("dev", "tgt"),
        side=train_side_files,
    wildcard_constraints:
        model=DEFAULT_MODELS,
    output:
        summary="results/{dataset}/models/{model}/summary.json",
    params:
        launcher=train_launcher,
        side=train_side_args,
        spec=model_spec,
        seed=config["seed"],
        outdir="results/{dataset}/models/{model}",
    threads: 1
    resources:
        gpu=model_gpus,
        mem_mb=8000,
        runtime=24 * 60,
    log:
        "results/logs/train/{dataset}.{model}.log",
    benchmark:
        "results/benchmarks/train/{dataset}.{model}.tsv"
    conda:
        "../envs/torch.yaml"
    shell:
        "{params.launcher} -m phrasenmt.train --spec {params.spec:q} --train-src {input.src} "
        "--train-tgt {input.tgt} --dev-src {input.dev_src} --dev-tgt {input.dev_tgt} "
        "--outdir {params.outdir} --seed {params.seed} --threads {threads} "
        "{params.side} > {log} 2>&1"


rule average:
    input:
        summary="results/{dataset}/models/{model}/summary.json",
    wildcard_constraints:
        model=DEFAULT_MODELS,
    output:
        "results/{dataset}/models/{model}/averaged.pt",
    params:
        checkpoints="results/{dataset}/models/{model}/checkpoints",
    log:
        "results/logs/average/{dataset}.{model}.log",
    conda:
        "../envs/torch.yaml"
    shell:
        "python -m phrasenmt.average --checkpoint-dir {params.checkpoints} "
        "--summary {input.summary} --out {output} > {log} 2>&1"
