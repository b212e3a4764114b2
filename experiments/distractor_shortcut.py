"""How far the sentences between an antecedent and its pronoun give the pronoun
away, without a model: a rule that never looks at the antecedent.

The rule reads only the sentences between the antecedent and the pronoun (a
context of d - 1 sentences for an item d back) and rules out each candidate
pronoun that could stand for a singular noun there: "ihn" when a masculine noun
is in between, "sie" when a feminine one is. It scores an item 1 when it rules
out the contrastive pronoun alone, 0 when it rules out the reference alone, and
1/2 otherwise (a coin). On the mirrored items of the synthetic contrastive set
(docs/context-usage.md) a rule that learns nothing from the in-between
sentences scores 50 %.

The synthetic generator's `--distractor-gender other` gives every in-between
sentence a noun of another gender than the antecedent, so the rule scores well
above 50 % there; `any` draws those sentences without regard to the antecedent,
and the rule sits at 50 %. The script builds a test split with each setting
(same seed and size), prepares its mirrored pronoun items with K = 3, as the
workflow does, and prints the rule's accuracy on the items 2 and 3 back:

    .venv/bin/python experiments/distractor_shortcut.py [--size 6000] [--seeds 1 2 3 4 5]

All the items (dev and test sides) count: the rule chooses nothing. With
`--items`, the script scores the test items of a dataset's prepared set instead
(the items the context-usage table reports).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from phrasenmt.evaluate import contrastive
from phrasenmt.synthetic import german, lexicon
from phrasenmt.synthetic.builder import GrammarConfig
from phrasenmt.synthetic.corpus import build_corpus
from phrasenmt.synthetic.documents import DISTRACTOR_GENDERS, Limits

MIX = {1: 0.5, 2: 0.3, 3: 0.2}  # configs/converged_families.yaml's
SINGULAR = ("m", "f", "n")


def pronoun_genders() -> dict[str, set[str]]:
    """The singular genders each German personal pronoun form can stand for."""
    out: dict[str, set[str]] = {}
    for case in ("nom", "acc", "dat"):
        for g in SINGULAR:
            out.setdefault(german.personal_pronoun(case, g), set()).add(g)
    return out


def noun_genders() -> dict[str, str]:
    """Gender of each singular German noun form of the lexicon."""
    return {n.de_sg: n.gender for n in lexicon.load().all_nouns}


def candidates(item: dict) -> tuple[str, str]:
    """The reference's and the contrastive variant's pronoun (the one word in
    which they differ)."""
    ref, alt = item["reference"].split(), item["contrastive"][0].split()
    diff = [(r, a) for r, a in zip(ref, alt, strict=True) if r != a]
    if len(diff) != 1:
        raise ValueError(f"item of line {item['lines']}: expected one differing "
                         f"word, got {len(diff)}")
    return diff[0][0].lower(), diff[0][1].lower()  # "Es" opens a sentence


def rule_score(item: dict, nouns: dict[str, str], pronouns: dict[str, set[str]]
               ) -> float:
    """1, 0 or 1/2: the rule's verdict on one pronoun item (module docstring)."""
    d = item["distance"]
    between = item["context_tgt"][-(d - 1):]  # d >= 2
    seen = {nouns[w] for sent in between for w in sent.split() if w in nouns}
    ref, alt = candidates(item)
    out_ref, out_alt = bool(pronouns[ref] & seen), bool(pronouns[alt] & seen)
    if out_alt and not out_ref:
        return 1.0
    if out_ref and not out_alt:
        return 0.0
    return 0.5


def measure(setting: str, size: int, seed: int, workdir: Path) -> dict[int, tuple[int, float]]:
    """{distance: (items, rule accuracy)} on the mirrored pronoun items 2 or
    more back of a `size`-sentence test split generated with `setting`."""
    out = workdir / setting
    build_corpus(out, seed, {"test": size}, "en-de", GrammarConfig(), Limits(),
                 (3, 8), 0, MIX, setting)
    files = {name: out / name for name in ("items.json", "pairs.src", "pairs.tgt",
                                           "pairs.ctx.jsonl")}
    args = ["prepare", "--format", "lingeval", "--context", "3",
            "--json", out / "test.lingeval.json", "--src-text", out / "test.en",
            "--tgt-text", out / "test.de", "--docs", out / "test.docs",
            "--mirror-pronouns", "--dev-fraction", "0.5", "--split-seed", str(seed),
            "--out-items", files["items.json"], "--out-src", files["pairs.src"],
            "--out-tgt", files["pairs.tgt"], "--out-context", files["pairs.ctx.jsonl"]]
    if contrastive.main(list(map(str, args))) != 0:
        raise RuntimeError(f"contrastive prepare failed on {out}")
    return score_items(files["items.json"])


def score_items(path: Path, split: str | None = None) -> dict[int, tuple[int, float]]:
    """{distance: (items, rule accuracy)} on the pronoun items 2 or more back of
    a prepared items.json (`split`: only its dev or test items)."""
    items = json.loads(path.read_text(encoding="utf-8"))["items"]
    nouns, pronouns = noun_genders(), pronoun_genders()
    scores: dict[int, list[float]] = {}
    for item in items:
        if (item["type"] == "pronoun_gender" and item["distance"] >= 2
                and split in (None, item.get("split"))):
            scores.setdefault(item["distance"], []).append(
                rule_score(item, nouns, pronouns))
    return {d: (len(s), sum(s) / len(s)) for d, s in sorted(scores.items())}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=6000, help="test sentences per corpus")
    p.add_argument("--seeds", type=int, nargs="+", default=[1],
                   help="generator seeds, one corpus per seed and setting")
    p.add_argument("--items", type=Path, nargs="+", default=[],
                   help="instead, the test items of these prepared sets (a dataset's "
                   "results/<dataset>/discourse/contrastive/synthetic/items.json)")
    args = p.parse_args(argv)
    if args.items:
        print("| items | d | test items | rule accuracy |")
        print("|---|---:|---:|---:|")
        for path in args.items:
            for d, (n, acc) in score_items(path, "test").items():
                print(f"| {path} | {d} | {n} | {100 * acc:.2f} % |")
        return 0
    print("| --distractor-gender | d | seed | items | rule accuracy |")
    print("|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for setting in sorted(DISTRACTOR_GENDERS, reverse=True):
            found = {seed: measure(setting, args.size, seed, Path(tmp) / str(seed))
                     for seed in args.seeds}
            for d in sorted({d for by_d in found.values() for d in by_d}):
                accs = []
                for seed, by_d in found.items():
                    n, acc = by_d[d]
                    accs.append(acc)
                    print(f"| {setting} | {d} | {seed} | {n} | {100 * acc:.2f} % |")
                if len(accs) > 1:
                    print(f"| {setting} | {d} | mean | | {100 * sum(accs) / len(accs):.2f} % |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
