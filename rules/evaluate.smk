# BLEU (detokenized, with the target language's sacreBLEU tokenizer, and
# tokenized) and chrF of every seed's hypotheses per
# (model, test set); then one job per (model, test set) that compares all the
# model's seeds with all the baseline's (phrasenmt.evaluate.multiseed: mean, sd,
# p and an interval at 1 - evaluate.alpha over training seeds and test
# sentences): what the tables read. BLEU by source length per test set (each model's first seed).


rule bleu:
    input:
        hyp="results/{dataset}/translations/{model}/seed{seed}/{testset}.txt",
        hyp_tok="results/{dataset}/translations/{model}/seed{seed}/{testset}.tok",
        ref=W.text("{testset}", "ref"),
        ref_tok=W.text("{testset}", "tgt"),
    output:
        "results/{dataset}/eval/{model}/seed{seed}/{testset}.json",
    params:
        lang=W.corpus.tgt_lang,
    log:
        "results/logs/bleu/{dataset}.{model}.seed{seed}.{testset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.evaluate.bleu --system {wildcards.model} "
        "--testset {wildcards.testset} --hyp {input.hyp} --ref {input.ref} "
        "--lang {params.lang} --hyp-tok {input.hyp_tok} --ref-tok {input.ref_tok} --out {output} "
        "> {log} 2>&1"


rule bleu_seeds:
    input:
        hyps=W.evaluation.seed_hyps,
        baseline=W.evaluation.baseline_seed_hyps,
        ref=W.text("{testset}", "ref"),
    output:
        "results/{dataset}/eval/{model}/{testset}.json",
    params:
        baseline=W.base.baseline,
        seeds=W.runs.seed_args,
        trials=config["evaluate"]["significance_trials"],
        alpha=config["evaluate"]["alpha"],
        seed=config["seed"],
        lang=W.corpus.tgt_lang,
    log:
        "results/logs/bleu_seeds/{dataset}.{model}.{testset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.evaluate.multiseed --system {wildcards.model} "
        "--baseline-name {params.baseline} --testset {wildcards.testset} "
        "--ref {input.ref} --lang {params.lang} --hyp {input.hyps} "
        "--baseline-hyp {input.baseline} "
        "--seeds {params.seeds} --trials {params.trials} --alpha {params.alpha} "
        "--seed {params.seed} --out {output} > {log} 2>&1"


rule length_analysis:
    input:
        src=W.text("{testset}", "src"),
        ref=W.text("{testset}", "tgt"),
        hyps=W.evaluation.testset_hyps,
    output:
        "results/{dataset}/analysis/length_{testset}.tsv",
    params:
        hyps=W.evaluation.length_hyp_args,
        bins=",".join(map(str, config["evaluate"]["length_bins"])),
    log:
        "results/logs/length_analysis/{dataset}.{testset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.evaluate.length --src {input.src} --ref {input.ref} "
        "--hyp {params.hyps} --bins {params.bins} --testset {wildcards.testset} "
        "--out {output} > {log} 2>&1"
