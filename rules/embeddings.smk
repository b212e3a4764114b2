# fastText skipgram embeddings of the target language. PCoNMT's word and phrase
# tables: the training text with every listed phrase joined into one token.
# CoNMT's word table: the un-joined text (embeddings/plain/), so that a word seen
# only inside a listed phrase has a vector of its own (phrasenmt.workflow.continuous).


rule concat_phrases:
    input:
        text=W.text("train", "tgt"),
        phrases="results/{dataset}/phrases/phrases.tsv",
        extra=W.continuous.extra_mono_input,
    output:
        temp("results/{dataset}/embeddings/train.concat"),
    params:
        extra=W.continuous.extra_mono_arg,
    log:
        "results/logs/concat_phrases/{dataset}.log",
    conda:
        "../envs/align.yaml"
    shell:
        "python -m phrasenmt.embeddings concat --text {input.text} {params.extra} "
        "--phrases {input.phrases} --out {output} > {log} 2>&1"


rule fasttext:
    input:
        text="results/{dataset}/embeddings/train.concat",
        phrases="results/{dataset}/phrases/phrases.tsv",
    output:
        words="results/{dataset}/embeddings/words.vec",
        phrases="results/{dataset}/embeddings/phrases.vec",
        model="results/{dataset}/embeddings/model.bin",
    params:
        outdir=W.corpus.output_dir,
        dim=W.continuous.embedding_dim,
        epoch=config["embeddings"]["epoch"],
        min_count=config["embeddings"]["min_count"],
        minn=config["embeddings"]["minn"],
        maxn=config["embeddings"]["maxn"],
        seed=config["seed"],
    threads: 1  # fastText is bit-reproducible only on one thread (Hogwild updates)
    log:
        "results/logs/fasttext/{dataset}.log",
    benchmark:
        "results/benchmarks/fasttext/{dataset}.tsv"
    conda:
        "../envs/align.yaml"
    shell:
        "python -m phrasenmt.embeddings train --text {input.text} "
        "--phrases {input.phrases} --out-dir {params.outdir} --dim {params.dim} "
        "--epoch {params.epoch} --min-count {params.min_count} --minn {params.minn} "
        "--maxn {params.maxn} --threads {threads} --seed {params.seed} > {log} 2>&1"


rule plain_text:
    input:
        text=W.text("train", "tgt"),
        extra=W.continuous.extra_mono_input,
    output:
        temp("results/{dataset}/embeddings/plain/train.txt"),
    params:
        extra=W.continuous.extra_mono_arg,
    log:
        "results/logs/plain_text/{dataset}.log",
    conda:
        "../envs/align.yaml"
    shell:
        "python -m phrasenmt.embeddings concat --text {input.text} {params.extra} "
        "--out {output} > {log} 2>&1"


rule fasttext_plain:
    input:
        text="results/{dataset}/embeddings/plain/train.txt",
    output:
        words="results/{dataset}/embeddings/plain/words.vec",
        model="results/{dataset}/embeddings/plain/model.bin",
    params:
        outdir=W.corpus.output_dir,
        dim=W.continuous.embedding_dim,
        epoch=config["embeddings"]["epoch"],
        min_count=config["embeddings"]["min_count"],
        minn=config["embeddings"]["minn"],
        maxn=config["embeddings"]["maxn"],
        seed=config["seed"],
    threads: 1  # fastText is bit-reproducible only on one thread (Hogwild updates)
    log:
        "results/logs/fasttext_plain/{dataset}.log",
    benchmark:
        "results/benchmarks/fasttext_plain/{dataset}.tsv"
    conda:
        "../envs/align.yaml"
    shell:
        "python -m phrasenmt.embeddings train --text {input.text} "
        "--out-dir {params.outdir} --dim {params.dim} "
        "--epoch {params.epoch} --min-count {params.min_count} --minn {params.minn} "
        "--maxn {params.maxn} --threads {threads} --seed {params.seed} > {log} 2>&1"
