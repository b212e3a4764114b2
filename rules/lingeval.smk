# Lingeval97 contrastive agreement analysis (Sennrich 2017) of the en->de
# datasets: the items become (source, target) pairs, BPE'd with the dataset's
# codes and segmented for phrase models; every model scores every pair by
# forced decoding; accuracy per category and distance bin; Figure 4.
# Synthetic datasets bring their own items; others use the real lingeval97.json.


rule lingeval97_download:
    output:
        json="results/_lingeval97/lingeval97.json",
        manifest="results/_lingeval97/MANIFEST.sha256",
    params:
        mirror=W.corpus.mirror_arg,
    log:
        "results/logs/lingeval97_download.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.data.download --dataset lingeval97 "
        "--outdir results/_lingeval97 {params.mirror} --manifest {output.manifest} "
        "> {log} 2>&1"


rule lingeval_prepare:
    input:
        json=W.phrase_repr.lingeval_json,
    output:
        src="results/{dataset}/lingeval/pairs.en",
        tgt="results/{dataset}/lingeval/pairs.de",
    params:
        args=W.phrase_repr.lingeval_prepare_args,
    log:
        "results/logs/lingeval_prepare/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.evaluate.lingeval prepare --json {input.json} "
        "--out-src {output.src} --out-tgt {output.tgt} {params.args} > {log} 2>&1"


rule lingeval_trees_gold:
    input:
        json=W.phrase_repr.lingeval_json,
    output:
        "results/{dataset}/lingeval/pairs.trees",
    wildcard_constraints:
        dataset=W.datasets_regex("synthetic"),
    params:
        scratch="results/{dataset}/lingeval/.gold",
    log:
        "results/logs/lingeval_trees_gold/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.evaluate.lingeval prepare --json {input.json} "
        "--out-src {params.scratch}.en --out-tgt {params.scratch}.de "
        "--out-trees {output} > {log} 2>&1 && rm -f {params.scratch}.en {params.scratch}.de"


rule lingeval_trees_stanza:
    input:
        "results/{dataset}/lingeval/pairs.en",
    output:
        "results/{dataset}/lingeval/pairs.trees",
    wildcard_constraints:
        dataset=W.datasets_regex("download", "local"),
    params:
        stanza_dir=W.corpus.stanza_dir_arg,
    threads: 2
    log:
        "results/logs/lingeval_trees_stanza/{dataset}.log",
    conda:
        "../envs/parse.yaml"
    shell:
        "python -m phrasenmt.parse stanza --text {input} --lang en {params.stanza_dir} "
        "--out {output} > {log} 2>&1"


rule lingeval_bpe:
    input:
        unpack(W.corpus.subword_model),
        text="results/{dataset}/lingeval/pairs.{lang}",
    output:
        "results/{dataset}/lingeval/pairs.bpe.{lang}",
    params:
        args=W.corpus.subword_apply_args,
    log:
        "results/logs/lingeval_bpe/{dataset}.{lang}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.bpe apply {params.args} --in {input.text} --out {output} "
        "> {log} 2>&1"


rule lingeval_segment:
    input:
        unpack(W.phrase_repr.lingeval_segment_inputs),
    output:
        "results/{dataset}/lingeval/pairs.{segmentation}.phrases",
    wildcard_constraints:
        segmentation="ngram|parse",
    params:
        trees=W.corpus.segment_trees_arg,
    log:
        "results/logs/lingeval_segment/{dataset}.{segmentation}.log",
    conda:
        "../envs/parse.yaml"
    shell:
        "python -m phrasenmt.segment --method {wildcards.segmentation} "
        "--bpe {input.bpe} {params.trees} --out {output} > {log} 2>&1"


rule lingeval_score:
    input:
        model="results/{dataset}/models/{model}/seed{seed}/averaged.pt",
        src="results/{dataset}/lingeval/pairs.bpe.en",
        tgt="results/{dataset}/lingeval/pairs.bpe.de",
        side=W.phrase_repr.lingeval_side_files,
    wildcard_constraints:
        model=W.models_regex("default"),
    output:
        "results/{dataset}/lingeval/scores/{model}/seed{seed}.txt",
    params:
        precision=W.runs.precision,
        device=W.runs.device,
        side=W.phrase_repr.lingeval_side_args,
        batch_size=config["decode"]["batch_size"],
    threads: 1
    resources:
        gpu=W.runs.decode_gpus,
        mem_mb=8000,
        runtime=4 * 60,
    log:
        "results/logs/lingeval_score/{dataset}.{model}.seed{seed}.log",
    benchmark:
        "results/benchmarks/lingeval_score/{dataset}.{model}.seed{seed}.tsv"
    conda:
        "../envs/torch.yaml"
    shell:
        "python -m phrasenmt.translate score --checkpoint {input.model} "
        "--src {input.src} --tgt {input.tgt} --output {output} "
        "--batch-size {params.batch_size} --threads {threads} "
        "--precision {params.precision} --device {params.device} {params.side} "
        "> {log} 2>&1"


rule lingeval_evaluate:
    input:
        json=W.phrase_repr.lingeval_json,
        scores=W.phrase_repr.lingeval_scores,
    output:
        "results/{dataset}/analysis/agreement.tsv",
    params:
        scores=W.phrase_repr.lingeval_score_args,
    log:
        "results/logs/lingeval_evaluate/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.evaluate.lingeval evaluate --json {input.json} "
        "--scores {params.scores} --out {output} > {log} 2>&1"
