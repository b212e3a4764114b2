# Document-level NMT: the context-aware Transformer (Zhang et al. 2018) and HAN
# (Miculicich et al. 2018). BPE'd data like the default family, plus the
# document id of every line. Step 1 is the model named by `init_from`, built by
# its own rules (the sentence-level transformer: rules/train.smk, trained once);
# step 2 loads its averaged checkpoint strictly and trains what train.freeze
# leaves (default: the document-level parameters only). han_enc_dec starts from
# han_enc, a <name>_joint model (joint_finetune) from <name>. Decoding reads the
# test set's document ids. Then the contrastive sets with context: prepared once,
# BPE'd with the dataset's codes, scored by every row of the discourse tables,
# document-level models with context, sentence-level ones without.
# Helpers: phrasenmt.workflow.documents and phrasenmt.workflow.discourse.


wildcard_constraints:
    cset=W.regex(W.documents_report.contrastive_set_names),


rule train_document:
    input:
        src=W.bpe("train", "src"),
        tgt=W.bpe("train", "tgt"),
        dev_src=W.bpe("dev", "src"),
        dev_tgt=W.bpe("dev", "tgt"),
        docs=W.documents.docs_file.given(split="train"),
        dev_docs=W.documents.docs_file.given(split="dev"),
        init=W.documents.step1_checkpoint,
    output:
        summary="results/{dataset}/models/{model}/seed{seed}/summary.json",
    wildcard_constraints:
        model=W.models_regex("documents"),
    params:
        precision=W.runs.precision,
        device=W.runs.device,
        launcher=W.runs.launcher,
        spec=W.base.model_spec,
        outdir="results/{dataset}/models/{model}/seed{seed}",
    threads: 1
    resources:
        gpu=W.runs.gpus,
        mem_mb=8000,
        runtime=24 * 60,
    log:
        "results/logs/train_document/{dataset}.{model}.seed{seed}.log",
    benchmark:
        "results/benchmarks/train_document/{dataset}.{model}.seed{seed}.tsv"
    conda:
        "../envs/torch.yaml"
    shell:
        "exec {params.launcher} -m phrasenmt.train --spec {params.spec:q} "
        "--train-src {input.src} --train-tgt {input.tgt} --dev-src {input.dev_src} "
        "--dev-tgt {input.dev_tgt} --docs {input.docs},{input.dev_docs} "
        "--init-from {input.init} --outdir {params.outdir} --seed {wildcards.seed} "
        "--threads {threads} --precision {params.precision} --device {params.device} --no-progress > {log} 2>&1"


rule average_document:
    input:
        summary="results/{dataset}/models/{model}/seed{seed}/summary.json",
    output:
        "results/{dataset}/models/{model}/seed{seed}/averaged.pt",
    wildcard_constraints:
        model=W.models_regex("documents"),
    params:
        checkpoints="results/{dataset}/models/{model}/seed{seed}/checkpoints",
    log:
        "results/logs/average_document/{dataset}.{model}.seed{seed}.log",
    conda:
        "../envs/torch.yaml"
    shell:
        "python -m phrasenmt.average --checkpoint-dir {params.checkpoints} "
        "--summary {input.summary} --out {output} > {log} 2>&1"


rule translate_document:
    input:
        model="results/{dataset}/models/{model}/seed{seed}/averaged.pt",
        src=W.bpe("{testset}", "src"),
        docs=W.documents.docs_file.given(split="{testset}"),
    output:
        "results/{dataset}/translations/{model}/seed{seed}/{testset}.tok",
    wildcard_constraints:
        model=W.models_regex("documents"),
    params:
        precision=W.runs.precision,
        device=W.runs.device,
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
        "results/logs/translate_document/{dataset}.{model}.seed{seed}.{testset}.log",
    benchmark:
        "results/benchmarks/translate_document/{dataset}.{model}.seed{seed}.{testset}.tsv"
    conda:
        "../envs/torch.yaml"
    shell:
        "python -m phrasenmt.translate --checkpoint {input.model} --input {input.src} "
        "--docs {input.docs} --output {output} {params.search} "
        "--max-len-a {params.max_len_a} "
        "--max-len-b {params.max_len_b} --batch-size {params.batch_size} "
        "--threads {threads} --precision {params.precision} --device {params.device} > {log} 2>&1"


# --- contrastive sets with context (phrasenmt.evaluate.contrastive) -------------


rule contrastive_prepare:
    input:
        W.documents_report.contrastive_inputs,
    output:
        item_file="results/{dataset}/discourse/contrastive/{cset}/items.json",
        src="results/{dataset}/discourse/contrastive/{cset}/pairs.src",
        tgt="results/{dataset}/discourse/contrastive/{cset}/pairs.tgt",
        context="results/{dataset}/discourse/contrastive/{cset}/pairs.ctx.jsonl",
    params:
        args=W.documents_report.contrastive_prepare_args,
    log:
        "results/logs/contrastive_prepare/{dataset}.{cset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.evaluate.contrastive prepare {params.args} "
        "--out-items {output.item_file} --out-src {output.src} --out-tgt {output.tgt} "
        "--out-context {output.context} > {log} 2>&1"


rule contrastive_bpe:
    input:
        codes="results/{dataset}/bpe/codes",
        vocab_src=W.corpus.bpe_vocab.given(side="src"),
        vocab_tgt=W.corpus.bpe_vocab.given(side="tgt"),
        src="results/{dataset}/discourse/contrastive/{cset}/pairs.src",
        tgt="results/{dataset}/discourse/contrastive/{cset}/pairs.tgt",
        context="results/{dataset}/discourse/contrastive/{cset}/pairs.ctx.jsonl",
    output:
        src="results/{dataset}/discourse/contrastive/{cset}/pairs.bpe.src",
        tgt="results/{dataset}/discourse/contrastive/{cset}/pairs.bpe.tgt",
        context="results/{dataset}/discourse/contrastive/{cset}/pairs.ctx.bpe.jsonl",
    params:
        threshold=W.corpus.bpe_threshold,
    log:
        "results/logs/contrastive_bpe/{dataset}.{cset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "(python -m phrasenmt.bpe apply --codes {input.codes} --vocab {input.vocab_src} "
        "--threshold {params.threshold} --in {input.src} --out {output.src} && "
        "python -m phrasenmt.bpe apply --codes {input.codes} --vocab {input.vocab_tgt} "
        "--threshold {params.threshold} --in {input.tgt} --out {output.tgt} && "
        "python -m phrasenmt.evaluate.contrastive bpe --codes {input.codes} "
        "--vocab-src {input.vocab_src} --vocab-tgt {input.vocab_tgt} "
        "--threshold {params.threshold} --in {input.context} "
        "--out {output.context}) > {log} 2>&1"


# Document-level models score with the items' context, sentence-level models the
# same pairs without it (what context buys).
rule contrastive_score:
    input:
        model="results/{dataset}/models/{model}/seed{seed}/averaged.pt",
        src="results/{dataset}/discourse/contrastive/{cset}/pairs.bpe.src",
        tgt="results/{dataset}/discourse/contrastive/{cset}/pairs.bpe.tgt",
        context=W.documents_report.contrastive_context,
    output:
        "results/{dataset}/discourse/contrastive/{cset}/scores/{model}/seed{seed}.txt",
    params:
        precision=W.runs.precision,
        device=W.runs.device,
        context=W.documents_report.contrastive_context_arg,
        batch_size=config["decode"]["batch_size"],
    threads: 1
    resources:
        gpu=W.runs.decode_gpus,
        mem_mb=8000,
        runtime=4 * 60,
    log:
        "results/logs/contrastive_score/{dataset}.{cset}.{model}.seed{seed}.log",
    benchmark:
        "results/benchmarks/contrastive_score/{dataset}.{cset}.{model}.seed{seed}.tsv"
    conda:
        "../envs/torch.yaml"
    shell:
        "python -m phrasenmt.translate score --checkpoint {input.model} "
        "--src {input.src} --tgt {input.tgt} {params.context} --output {output} "
        "--batch-size {params.batch_size} --threads {threads} "
        "--precision {params.precision} --device {params.device} > {log} 2>&1"


rule contrastive_evaluate:
    input:
        item_file="results/{dataset}/discourse/contrastive/{cset}/items.json",
        scores=W.documents_report.contrastive_scores,
    output:
        "results/{dataset}/analysis/contrastive_{cset}.tsv",
    params:
        scores=W.documents_report.contrastive_score_args,
    log:
        "results/logs/contrastive_evaluate/{dataset}.{cset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.evaluate.contrastive evaluate --items {input.item_file} "
        "{params.scores} --out {output} > {log} 2>&1"
