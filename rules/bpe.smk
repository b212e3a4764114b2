# Subwords, by datasets.<name>.bpe.backend. subword-nmt: joint BPE merges learned
# on both training sides, one vocabulary per language for apply-bpe's threshold.
# sentencepiece: one BPE or unigram model on both sides (joint) or one per
# language, or the user's own model (bpe.model: joint, checked and copied).
# Either way every split is segmented into `@@ `-marked subwords.


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


rule learn_sentencepiece_joint:
    input:
        unpack(W.corpus.train_pair),
    output:
        "results/{dataset}/bpe/spm.joint.model",
    wildcard_constraints:
        dataset=W.regex(W.corpus.learned_spm_datasets),
    params:
        args=W.corpus.spm_learn_args.given(lang="joint"),
    log:
        "results/logs/learn_sentencepiece/{dataset}.joint.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.bpe spm-learn --in {input.src} {input.tgt} "
        "--model {output} {params.args} > {log} 2>&1"


# The user's model (bpe.model) is an input like a data file: a new file makes
# the model, and everything segmented with it, again.
rule given_sentencepiece:
    input:
        W.corpus.given_spm_model,
    output:
        "results/{dataset}/bpe/spm.joint.model",
    wildcard_constraints:
        dataset=W.regex(W.corpus.given_spm_datasets),
    log:
        "results/logs/given_sentencepiece/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.bpe spm-copy --in {input:q} --model {output} > {log} 2>&1"


rule learn_sentencepiece:
    input:
        "results/{dataset}/data/train.{lang}",
    output:
        "results/{dataset}/bpe/spm.{lang}.model",
    params:
        args=W.corpus.spm_learn_args,
    log:
        "results/logs/learn_sentencepiece/{dataset}.{lang}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.bpe spm-learn --in {input} --model {output} "
        "{params.args} > {log} 2>&1"


rule apply_bpe:
    input:
        unpack(W.corpus.subword_model),
        text="results/{dataset}/data/{split}.{lang}",
    output:
        "results/{dataset}/bpe/{split}.bpe.{lang}",
    params:
        args=W.corpus.subword_apply_args,
    log:
        "results/logs/apply_bpe/{dataset}.{split}.{lang}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.bpe apply {params.args} --in {input.text} --out {output} "
        "> {log} 2>&1"
