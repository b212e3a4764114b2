# Word alignment on the word-level training data (before BPE), symmetrization,
# one-to-many phrase extraction with the five filters, and fertility labels.
# A dev or test split is aligned after the training text in one aligner run
# (align_heldout), so its fertility labels come from the same word-alignment
# model as the training labels (Park & Tsvetkov 2019, Tables 4-5).


rule align:
    input:
        unpack(train_pair),
    output:
        fwd="results/{dataset}/align/train.fwd",
        rev="results/{dataset}/align/train.rev",
    params:
        backend=config["align"]["backend"],
        seed=config["seed"],
    threads: HALF_CORES
    log:
        "results/logs/align/{dataset}.log",
    benchmark:
        "results/benchmarks/align/{dataset}.tsv"
    conda:
        "../envs/align.yaml"
    shell:
        "python -m phrasenmt.align run --backend {params.backend} --src {input.src} "
        "--tgt {input.tgt} --fwd {output.fwd} --rev {output.rev} --seed {params.seed} "
        "--threads {threads} > {log} 2>&1"


rule align_heldout:
    input:
        unpack(train_pair),
        heldout_src=expand_data("{split}", "src"),
        heldout_tgt=expand_data("{split}", "tgt"),
    output:
        fwd="results/{dataset}/align/{split}.fwd",
        rev="results/{dataset}/align/{split}.rev",
    wildcard_constraints:
        split=HELDOUT_SPLIT,
    params:
        backend=config["align"]["backend"],
        seed=config["seed"],
    threads: HALF_CORES
    log:
        "results/logs/align_heldout/{dataset}.{split}.log",
    benchmark:
        "results/benchmarks/align_heldout/{dataset}.{split}.tsv"
    conda:
        "../envs/align.yaml"
    shell:
        "python -m phrasenmt.align run --backend {params.backend} --src {input.src} "
        "--tgt {input.tgt} --heldout-src {input.heldout_src} "
        "--heldout-tgt {input.heldout_tgt} --fwd {output.fwd} --rev {output.rev} "
        "--seed {params.seed} --threads {threads} > {log} 2>&1"


rule symmetrize:
    input:
        src=expand_data("{split}", "src"),
        tgt=expand_data("{split}", "tgt"),
        fwd="results/{dataset}/align/{split}.fwd",
        rev="results/{dataset}/align/{split}.rev",
    output:
        "results/{dataset}/align/{split}.sym",
    params:
        method=config["align"]["symmetrize"],
    log:
        "results/logs/symmetrize/{dataset}.{split}.log",
    conda:
        "../envs/align.yaml"
    shell:
        "python -m phrasenmt.align symmetrize --fwd {input.fwd} --rev {input.rev} "
        "--method {params.method} --src {input.src} --tgt {input.tgt} --out {output} "
        "> {log} 2>&1"


rule alignment_error_rate:
    input:
        unpack(train_pair),
        gold="results/{dataset}/data/train.align",
        pred="results/{dataset}/align/train.sym",
    output:
        "results/{dataset}/analysis/aer.json",
    wildcard_constraints:
        dataset=SYNTHETIC,
    log:
        "results/logs/alignment_error_rate/{dataset}.log",
    conda:
        "../envs/align.yaml"
    shell:
        "python -m phrasenmt.evaluate.aer --gold {input.gold} --pred {input.pred} "
        "--src {input.src} --tgt {input.tgt} --out {output} > {log} 2>&1"


rule phrases:
    input:
        unpack(train_pair),
        alignment="results/{dataset}/align/train.sym",
    output:
        phrases="results/{dataset}/phrases/phrases.tsv",
        filters="results/{dataset}/phrases/filters.tsv",
        fertility="results/{dataset}/phrases/train.fert4",
        fertility2="results/{dataset}/phrases/train.fert2",
    params:
        lang=tgt_lang,
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
