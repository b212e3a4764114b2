# Input and params functions of rules/data.smk, which includes this file at its top
# (datasets). Those that rules of several stages use are in rules/common.smk.

from phrasenmt.workflow import documents as wfd


def synthetic_args(wildcards):
    return wf.synthetic_args(config, wildcards.dataset)


def local_args(wildcards):
    return wf.local_args(config, wildcards.dataset)


def download_name(wildcards):
    return config["datasets"][wildcards.dataset]["name"]


def raw_split(wildcards):
    """Raw source and target files of one split."""
    src, tgt = wf.langs(config, wildcards.dataset)
    raw = f"{RESULTS}/{wildcards.dataset}/raw/{wildcards.split}"
    return {"src": f"{raw}.{src}", "tgt": f"{raw}.{tgt}"}


def raw_sidecars(wildcards):
    raw = f"{RESULTS}/{wildcards.dataset}/raw/{wildcards.split}"
    return [f"{raw}.{kind}" for kind in wf.sidecars(config, wildcards.dataset)]


def clean_args(wildcards):
    return wf.clean_args(config, wildcards.dataset, wildcards.split)


def sidecar_args(wildcards):
    ds = f"{RESULTS}/{wildcards.dataset}"
    return " ".join(
        f"--sidecar {ds}/raw/{wildcards.split}.{k} {ds}/data/{wildcards.split}.{k}"
        for k in wf.sidecars(config, wildcards.dataset)
    )


def stats_inputs(wildcards):
    """Word-level and BPE files of every split, for the data statistics table."""
    ds = f"{RESULTS}/{wildcards.dataset}"
    src, tgt = wf.langs(config, wildcards.dataset)
    files = []
    for split in ["train", "dev", *wf.testsets(config, wildcards.dataset)]:
        files += [f"{ds}/data/{split}.{src}", f"{ds}/data/{split}.{tgt}"]
        files += [f"{ds}/bpe/{split}.bpe.{src}", f"{ds}/bpe/{split}.bpe.{tgt}"]
    return files


def stats_args(wildcards):
    ds = f"{RESULTS}/{wildcards.dataset}"
    src, tgt = wf.langs(config, wildcards.dataset)
    args = []
    for split in ["train", "dev", *wf.testsets(config, wildcards.dataset)]:
        args.append(f"--split {split} {ds}/data/{split}.{src} {ds}/data/{split}.{tgt}")
        args.append(
            f"--split {split}.bpe {ds}/bpe/{split}.bpe.{src} {ds}/bpe/{split}.bpe.{tgt}"
        )
    return " ".join(args)


DOWNLOADED = wf.name_regex(wf.datasets_from(config, "download"))


LOCAL = wf.name_regex(wf.datasets_from(config, "local"))


def local_file(wildcards):
    return wf.local_file(config, wildcards.dataset, wildcards.split, wildcards.lang)


def lang_pair(wildcards):
    return "-".join(wf.langs(config, wildcards.dataset))


def local_docs_inputs(wildcards):
    """The split's source text, and the user's docs file when there is one."""
    src = wf.langs(config, wildcards.dataset)[0]
    files = {"text": f"{RESULTS}/{wildcards.dataset}/raw/{wildcards.split}.{src}"}
    docs = wfd.local_docs(config, wildcards.dataset, wildcards.split)
    return {**files, "docs": docs} if docs else files


def local_docs_command(wildcards, input, output):
    """`local --docs-for` with a docs file, else `docs` (one document per line)."""
    if "docs" in input.keys():
        return f"local --in {input.docs} --docs-for {input.text} --out {output}"
    return f"docs --text {input.text} --split {wildcards.split} --out {output}"
