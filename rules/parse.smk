# Constituency parses of the (English) source and the phrase segmentations the
# phrase-representation models read as side input `phrases`: n-gram phrases
# and Algorithm 1 phrases over the trees (Xu et al. 2020). Synthetic datasets
# use the generator's gold trees; others are parsed with stanza.


rule parse_gold:
    input:
        text=W.text("{split}", "src"),
        gold="results/{dataset}/data/{split}.trees",
    output:
        "results/{dataset}/parse/{split}.trees",
    wildcard_constraints:
        dataset=W.datasets_regex("synthetic"),
    log:
        "results/logs/parse_gold/{dataset}.{split}.log",
    conda:
        "../envs/parse.yaml"
    shell:
        "python -m phrasenmt.parse gold --text {input.text} --gold {input.gold} "
        "--out {output} > {log} 2>&1"


rule parse_stanza:
    input:
        text=W.text("{split}", "src"),
    output:
        "results/{dataset}/parse/{split}.trees",
    wildcard_constraints:
        dataset=W.datasets_regex("download", "local"),
    params:
        lang=W.corpus.src_lang,
        stanza_dir=W.corpus.stanza_dir_arg,
    threads: 2
    log:
        "results/logs/parse_stanza/{dataset}.{split}.log",
    benchmark:
        "results/benchmarks/parse_stanza/{dataset}.{split}.tsv"
    conda:
        "../envs/parse.yaml"
    shell:
        "python -m phrasenmt.parse stanza --text {input.text} --lang {params.lang} "
        "{params.stanza_dir} --out {output} > {log} 2>&1"


rule segment:
    input:
        unpack(W.corpus.segment_inputs),
    output:
        "results/{dataset}/parse/{split}.{segmentation}.phrases",
    wildcard_constraints:
        segmentation="ngram|parse",
    params:
        trees=W.corpus.segment_trees_arg,
    log:
        "results/logs/segment/{dataset}.{split}.{segmentation}.log",
    conda:
        "../envs/parse.yaml"
    shell:
        "python -m phrasenmt.segment --method {wildcards.segmentation} "
        "--bpe {input.bpe} {params.trees} --out {output} > {log} 2>&1"
