# Datasets: built-in synthetic generator, registered downloads (with mirror and
# checksums), or the user's own files; then cleaning/tokenization per split.


rule synthetic:
    output:
        expand(
            "results/{{dataset}}/raw/{split}.{ext}",
            split=W.base.SYNTHETIC_SPLITS,
            ext=["en", "de", *W.base.SIDECARS],
        ),
        lingeval="results/{dataset}/raw/test.lingeval.json",
        stats="results/{dataset}/raw/stats.json",
    wildcard_constraints:
        dataset=W.datasets_regex("synthetic"),
    params:
        args=W.base.synthetic_args,
    log:
        "results/logs/synthetic/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.synthetic --outdir results/{wildcards.dataset}/raw "
        "{params.args} > {log} 2>&1"


rule download:
    output:
        manifest="results/{dataset}/download/MANIFEST.sha256",
    wildcard_constraints:
        dataset=W.datasets_regex("download"),
    params:
        name=W.corpus.download_name,
        mirror=W.corpus.mirror_arg,
    log:
        "results/logs/download/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.data.download --dataset {params.name} "
        "--outdir results/{wildcards.dataset}/download {params.mirror} "
        "--manifest {output.manifest} > {log} 2>&1"


rule prepare:
    input:
        manifest="results/{dataset}/download/MANIFEST.sha256",
    output:
        "results/{dataset}/raw/{split}.{lang}",
    wildcard_constraints:
        dataset=W.datasets_regex("download"),
    params:
        name=W.corpus.download_name,
    log:
        "results/logs/prepare/{dataset}.{split}.{lang}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.data.prepare --dataset {params.name} "
        "--download-dir results/{wildcards.dataset}/download "
        "--split {wildcards.split} --lang {wildcards.lang} --out {output} > {log} 2>&1"


# Document ids (raw/{split}.docs): the talks of a TED dataset, or one document
# per line for a dataset without documents (phrasenmt.data.prepare --lang docs).
rule prepare_docs:
    input:
        manifest="results/{dataset}/download/MANIFEST.sha256",
    output:
        "results/{dataset}/raw/{split}.docs",
    wildcard_constraints:
        dataset=W.datasets_regex("download"),
    params:
        name=W.corpus.download_name,
    log:
        "results/logs/prepare_docs/{dataset}.{split}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.data.prepare --dataset {params.name} "
        "--download-dir results/{wildcards.dataset}/download "
        "--split {wildcards.split} --lang docs --out {output} > {log} 2>&1"


rule prepare_local:
    input:
        # the split's other file too: a split whose two files are each in the
        # other language's script (source and target swapped) stops here
        unpack(W.corpus.local_side_files),
    output:
        "results/{dataset}/raw/{split}.{lang}",
    wildcard_constraints:
        dataset=W.datasets_regex("local"),
    params:
        # a dev or test line is translated and scored: an empty one stops here,
        # naming the user's file (training drops it as `empty` when cleaning)
        evaluation=W.corpus.local_text_options,
        scripts=W.corpus.local_script_options,
    log:
        "results/logs/prepare_local/{dataset}.{split}.{lang}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.data.prepare local --in {input.text:q} --out {output} "
        "{params.evaluation} {params.scripts} > {log} 2>&1"


# A local split's docs file (`docs:` of the split), checked against its source's
# line count; without one, every line is its own document.
rule prepare_local_docs:
    input:
        unpack(W.documents.local_docs_inputs),
    output:
        "results/{dataset}/raw/{split}.docs",
    wildcard_constraints:
        dataset=W.datasets_regex("local"),
    params:
        command=W.corpus.local_docs_command,
    log:
        "results/logs/prepare_local_docs/{dataset}.{split}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.data.prepare {params.command} > {log} 2>&1"


# Cleaning turns a pair of files into a pair of files, so its outputs name both
# languages; they differ per dataset, hence one rule per dataset.
for _ds in config["datasets"]:
    _src, _tgt = W.base.langs.now(dataset=_ds)
    _side = {f"side_{k}": f"results/{{dataset}}/data/{{split}}.{k}" for k in W.base.sidecars.now(dataset=_ds)}

    rule:
        name:
            f"clean_train_{_ds}"
        input:
            unpack(W.corpus.raw_split),
            W.corpus.raw_sidecars,
        output:
            src=f"results/{{dataset}}/data/{{split}}.{_src}",
            tgt=f"results/{{dataset}}/data/{{split}}.{_tgt}",
            stats=f"results/{{dataset}}/data/{{split}}.clean.tsv",
            **_side,
        wildcard_constraints:
            dataset=_ds,
            split="train",
        params:
            args=W.base.clean_args,
            sidecars=W.corpus.sidecar_args,
            src=_src,
            tgt=_tgt,
        log:
            "results/logs/clean/{dataset}.{split}.log",
        conda:
            "../envs/phrasenmt.yaml"
        shell:
            "python -m phrasenmt.data.clean --src-in {input.src} --tgt-in {input.tgt} "
            "--src-out {output.src} --tgt-out {output.tgt} --src-lang {params.src} "
            "--tgt-lang {params.tgt} {params.args} {params.sidecars} "
            "--stats {output.stats} > {log} 2>&1"

    rule:
        name:
            f"clean_eval_{_ds}"
        input:
            unpack(W.corpus.raw_split),
            W.corpus.raw_sidecars,
        output:
            src=f"results/{{dataset}}/data/{{split}}.{_src}",
            tgt=f"results/{{dataset}}/data/{{split}}.{_tgt}",
            ref=f"results/{{dataset}}/data/{{split}}.ref.{_tgt}",
            stats=f"results/{{dataset}}/data/{{split}}.clean.tsv",
            **_side,
        wildcard_constraints:
            dataset=_ds,
            split=r"(?!train\b)[A-Za-z0-9_]+",
        params:
            args=W.base.clean_args,
            sidecars=W.corpus.sidecar_args,
            src=_src,
            tgt=_tgt,
        log:
            "results/logs/clean/{dataset}.{split}.log",
        conda:
            "../envs/phrasenmt.yaml"
        shell:
            "python -m phrasenmt.data.clean --src-in {input.src} --tgt-in {input.tgt} "
            "--src-out {output.src} --tgt-out {output.tgt} --src-lang {params.src} "
            "--tgt-lang {params.tgt} {params.args} {params.sidecars} "
            "--ref-out {output.ref} --stats {output.stats} > {log} 2>&1"


rule data_stats:
    input:
        W.corpus.stats_inputs,
    output:
        "results/{dataset}/analysis/data_stats.tsv",
    params:
        args=W.corpus.stats_args,
        pair=W.corpus.lang_pair,
    log:
        "results/logs/data_stats/{dataset}.log",
    conda:
        "../envs/phrasenmt.yaml"
    shell:
        "python -m phrasenmt.data.stats --lang-pair {params.pair} {params.args} "
        "--out {output} > {log} 2>&1"
