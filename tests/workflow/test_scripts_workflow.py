"""A dataset in a language written without spaces between words, to be
Moses-tokenized, gets one start-up warning per side and the dry run goes on."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import snakemake


def test_start_up_warns_on_chinese_with_the_word_level_tokenizer(tmp_path: Path):
    split = {}
    for n, name in enumerate(("train", "dev", "test")):  # each split its own bytes
        for lang, text in (("zh", f"今天天气很好，我们去公园散步吧。{n}\n"),
                           ("en", f"The weather is nice today. {n}\n")):
            (tmp_path / f"{name}.{lang}").write_text(text, encoding="utf-8")
        split[name] = (f"{{src: {tmp_path}/{name}.zh, "
                       f"tgt: {tmp_path}/{name}.en}}")
    config = tmp_path / "zh.yaml"
    config.write_text(
        "datasets:\n  my_zh_en:\n    source: local\n    src: zh\n    tgt: en\n"
        f"    local:\n      train: {split['train']}\n      dev: {split['dev']}\n"
        f"      test:\n        test: {split['test']}\n"
        "run_datasets: [my_zh_en]\n", encoding="utf-8")
    result = snakemake("-n", "results/my_zh_en/data/train.zh",
                       "--configfile", str(config))
    out = result.stdout + result.stderr
    assert result.returncode == 0, out[-2000:]
    warnings = [line for line in out.splitlines() if line.startswith("warning:")]
    assert warnings == [(
        "warning: config datasets.my_zh_en.src: 'zh' (Chinese) puts no space between "
        "words and tokenize: true (Moses) splits only at spaces and punctuation, so "
        "BPE and word alignment would see clause-sized words; segment the text first "
        "(e.g. with jieba) and set tokenize: false, or set bpe.backend: "
        "sentencepiece (jieba's words)")]
