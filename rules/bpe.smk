# Joint BPE (subword-nmt): merges learned on both training sides, one vocabulary
# per language for apply-bpe's threshold, then every split segmented.


rule learn_bpe:
    input:
        unpack(W.corpus.train_pair),
    output:
        codes="results/{dataset}/bpe/codes",
    params:
        merges=W.corpus.bpe_merges,
    log:
        "results/logs/learn_bpe/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.bpe learn --src {input.src} --tgt {input.tgt} "
        "--merges {params.merges} --codes {output.codes} > {log} 2>&1"


rule bpe_vocab:
    input:
        codes="results/{dataset}/bpe/codes",
        text="results/{dataset}/data/train.{lang}",
    output:
        "results/{dataset}/bpe/vocab.{lang}",
    log:
        "results/logs/bpe_vocab/{dataset}.{lang}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.bpe vocab --codes {input.codes} --in {input.text} "
        "--out {output} > {log} 2>&1"


rule apply_bpe:
    input:
        codes="results/{dataset}/bpe/codes",
        vocab="results/{dataset}/bpe/vocab.{lang}",
        text="results/{dataset}/data/{split}.{lang}",
    output:
        "results/{dataset}/bpe/{split}.bpe.{lang}",
    params:
        threshold=W.corpus.bpe_threshold,
    log:
        "results/logs/apply_bpe/{dataset}.{split}.{lang}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.bpe apply --codes {input.codes} --vocab {input.vocab} "
        "--threshold {params.threshold} --in {input.text} --out {output} > {log} 2>&1"
