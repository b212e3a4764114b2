# Word alignment on the word-level training data (before BPE), symmetrization,
# one-to-many phrase extraction with the five filters, and fertility labels.
# The dev and test splits are aligned in the same aligner run, after the training
# text (align/heldout/), so their fertility labels come from the same
# word-alignment model as the training labels (Park & Tsvetkov 2019, Tables 4-5).


rule align:
    input:
        unpack(W.corpus.align_inputs),
    output:
        fwd="results/{dataset}/align/train.fwd",
        rev="results/{dataset}/align/train.rev",
        heldout=directory("results/{dataset}/align/heldout"),
    params:
        aligner=W.base.aligner_args,
        seed=config["seed"],
        splits=W.corpus.align_split_args,
    threads: 1  # a seeded aligner runs on one thread (phrasenmt.align.backends)
    log:
        "results/logs/align/{dataset}.log",
    benchmark:
        "results/benchmarks/align/{dataset}.tsv"
    conda:
        "../envs/align.yaml"
    shell:
        "python -m phrasenmt.align run {params.aligner} --src {input.src} "
        "--tgt {input.tgt} {params.splits} --heldout-dir {output.heldout} "
        "--fwd {output.fwd} --rev {output.rev} --seed {params.seed} "
        "--threads {threads} > {log} 2>&1"


rule symmetrize:
    input:
        unpack(W.corpus.train_pair),
        fwd="results/{dataset}/align/train.fwd",
        rev="results/{dataset}/align/train.rev",
    output:
        "results/{dataset}/align/train.sym",
    params:
        method=config["align"]["symmetrize"],
    log:
        "results/logs/symmetrize/{dataset}.log",
    conda:
        "../envs/align.yaml"
    shell:
        "python -m phrasenmt.align symmetrize --fwd {input.fwd} --rev {input.rev} "
        "--method {params.method} --src {input.src} --tgt {input.tgt} --out {output} "
        "> {log} 2>&1"


rule symmetrize_heldout:
    input:
        src=W.text("{split}", "src"),
        tgt=W.text("{split}", "tgt"),
        heldout="results/{dataset}/align/heldout",
    output:
        "results/{dataset}/align/{split}.sym",
    wildcard_constraints:
        split=HELDOUT_SPLIT,
    params:
        method=config["align"]["symmetrize"],
    log:
        "results/logs/symmetrize_heldout/{dataset}.{split}.log",
    conda:
        "../envs/align.yaml"
    shell:
        "python -m phrasenmt.align symmetrize --fwd {input.heldout}/{wildcards.split}.fwd "
        "--rev {input.heldout}/{wildcards.split}.rev --method {params.method} "
        "--src {input.src} --tgt {input.tgt} --out {output} > {log} 2>&1"


rule alignment_error_rate:
    input:
        unpack(W.corpus.train_pair),
        gold="results/{dataset}/data/train.align",
        pred="results/{dataset}/align/train.sym",
    output:
        "results/{dataset}/analysis/aer.json",
    wildcard_constraints:
        dataset=W.datasets_regex("synthetic"),
    log:
        "results/logs/alignment_error_rate/{dataset}.log",
    conda:
        "../envs/align.yaml"
    shell:
        "python -m phrasenmt.evaluate.aer --gold {input.gold} --pred {input.pred} "
        "--src {input.src} --tgt {input.tgt} --out {output} > {log} 2>&1"


rule phrases:
    input:
        unpack(W.corpus.train_pair),
        alignment="results/{dataset}/align/train.sym",
    output:
        phrases="results/{dataset}/phrases/phrases.tsv",
        filters="results/{dataset}/phrases/filters.tsv",
        fertility="results/{dataset}/phrases/train.fert4",
        fertility2="results/{dataset}/phrases/train.fert2",
    params:
        lang=W.corpus.tgt_lang,
        min_count=config["phrases"]["min_count"],
        max_length=config["phrases"]["max_length"],
    log:
        "results/logs/phrases/{dataset}.log",
    conda:
        "../envs/align.yaml"
    shell:
        "python -m phrasenmt.phrases --src {input.src} --tgt {input.tgt} "
        "--alignment {input.alignment} --tgt-lang {params.lang} "
        "--min-count {params.min_count} --max-length {params.max_length} "
        "--out-phrases {output.phrases} --out-filters {output.filters} "
        "--out-fertility {output.fertility} --out-fertility2 {output.fertility2} "
        "> {log} 2>&1"
