# Beam search on every test set with each seed's averaged model, then
# detokenization.


include: "translate_functions.smk"


rule translate:
    input:
        model="results/{dataset}/models/{model}/seed{seed}/averaged.pt",
        src=expand_bpe("{testset}", "src"),
        side=test_side_files,
    wildcard_constraints:
        model=DEFAULT_MODELS,
    output:
        "results/{dataset}/translations/{model}/seed{seed}/{testset}.tok",
    params:
        precision=model_precision,
        side=test_side_args,
        search=decode_search,
        max_len_a=config["decode"]["max_len_a"],
        max_len_b=config["decode"]["max_len_b"],
        batch_size=config["decode"]["batch_size"],
    threads: 1
    resources:
        gpu=decode_gpus,
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
        "--precision {params.precision} {params.side} "
        "> {log} 2>&1"


rule detokenize:
    input:
        "results/{dataset}/translations/{model}/seed{seed}/{testset}.tok",
    output:
        "results/{dataset}/translations/{model}/seed{seed}/{testset}.txt",
    params:
        lang=tgt_lang,
    log:
        "results/logs/detokenize/{dataset}.{model}.seed{seed}.{testset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.data.detokenize --lang {params.lang} --in {input} "
        "--out {output} > {log} 2>&1"
