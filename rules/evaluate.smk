# BLEU (detokenized 13a and tokenized), chrF and paired bootstrap against the
# baseline per (model, test set); BLEU by source length per test set.


rule bleu:
    input:
        hyp="results/{dataset}/translations/{model}/{testset}.txt",
        hyp_tok="results/{dataset}/translations/{model}/{testset}.tok",
        ref=expand_data("{testset}", "ref"),
        ref_tok=expand_data("{testset}", "tgt"),
        baseline=baseline_hyp,
    output:
        "results/{dataset}/eval/{model}/{testset}.json",
    params:
        baseline=baseline_name,
        bootstrap=config["evaluate"]["bootstrap"],
        seed=config["seed"],
    log:
        "results/logs/bleu/{dataset}.{model}.{testset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.evaluate.bleu --system {wildcards.model} "
        "--testset {wildcards.testset} --hyp {input.hyp} --ref {input.ref} "
        "--hyp-tok {input.hyp_tok} --ref-tok {input.ref_tok} "
        "--baseline-name {params.baseline} --baseline-hyp {input.baseline} "
        "--bootstrap {params.bootstrap} --seed {params.seed} --out {output} > {log} 2>&1"


rule length_analysis:
    input:
        src=expand_data("{testset}", "src"),
        ref=expand_data("{testset}", "tgt"),
        hyps=testset_hyps,
    output:
        "results/{dataset}/analysis/length_{testset}.tsv",
    params:
        hyps=length_hyp_args,
        bins=",".join(map(str, config["evaluate"]["length_bins"])),
    log:
        "results/logs/length_analysis/{dataset}.{testset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.evaluate.length --src {input.src} --ref {input.ref} "
        "--hyp {params.hyps} --bins {params.bins} --testset {wildcards.testset} "
        "--out {output} > {log} 2>&1"
