# Beam search on every test set with each seed's averaged model, then
# detokenization (Moses, or SentencePiece's decoding for bpe.backend sentencepiece).


rule translate:
    input:
        model="results/{dataset}/models/{model}/seed{seed}/averaged.pt",
        src=W.bpe("{testset}", "src"),
        side=W.phrase_repr.test_side_files,
    wildcard_constraints:
        model=W.models_regex("default"),
    output:
        "results/{dataset}/translations/{model}/seed{seed}/{testset}.tok",
    params:
        precision=W.runs.precision,
        device=W.runs.device,
        side=W.phrase_repr.test_side_args,
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
        "--output {output} {params.search} "
        "--max-len-a {params.max_len_a} --max-len-b {params.max_len_b} "
        "--batch-size {params.batch_size} --threads {threads} "
        "--precision {params.precision} --device {params.device} {params.side} "
        "> {log} 2>&1"


rule detokenize:
    input:
        "results/{dataset}/translations/{model}/seed{seed}/{testset}.tok",
    output:
        "results/{dataset}/translations/{model}/seed{seed}/{testset}.txt",
    params:
        args=W.corpus.detokenize_args,
    log:
        "results/logs/detokenize/{dataset}.{model}.seed{seed}.{testset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.data.detokenize {params.args} --in {input} "
        "--out {output} > {log} 2>&1"
