"""The figures of the dated results pages, drawn from the numbers in their tables.

    .venv/bin/python tools/docs_figures.py   # docs/img/default-run-bleu.svg, multi30k-seeds.svg

The numbers are copied from docs/results/2026-11-28-default-run.md (the BLEU
column of both datasets' report/results.csv in a fresh clone's `make run` at
f966ca6) and docs/results/2026-11-24-multi30k.md: change both together.
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

# Byte-identical reruns: no date in the SVG metadata, fixed ids.
plt.rcParams["svg.hashsalt"] = "phrasenmt"
SVG = {"metadata": {"Date": None}}

OUT = Path(__file__).resolve().parents[1] / "docs" / "img"
EN_DE = [("transformer", 54.36),
         ("pr_mean", 40.03),
         ("pr_max", 41.07),
         ("pr_max_attn", 45.86),
         ("pr_max_attn_ta", 48.05),
         ("pr_max_attn_ta_parse", 42.22),
         ("ctx_transformer", 63.16),
         ("ctx_transformer_random", 62.12),
         ("han_enc", 56.65),
         ("han_dec", 56.36),
         ("han_dec_random", 55.58),
         ("han_enc_dec", 57.6)]
DE_EN = [("attn_rnn", 52.83),
         ("conmt", 30.31),
         ("pconmt_nofert", 39.47),
         ("pconmt_fert2", 36.1),
         ("pconmt_fert4", 35.49),
         ("npmt (beam 4)", 26.69),
         ("npmt_lm", 27.21),
         ("npmt_noreorder (beam 4)", 38.93),
         ("attn_rnn_reorder", 57.02)]
MULTI30K_SEEDS = [38.08, 37.20, 38.60, 38.16, 38.41]  # seeds 1-5, test_2016_flickr


def default_run() -> None:
    """BLEU of every model of the default run, the baseline dark."""
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2), sharex=True)
    panels = ((axes[0], EN_DE, "synthetic en→de", "transformer"),
              (axes[1], DE_EN, "synthetic de→en", "attn_rnn"))
    for ax, rows, title, baseline in panels:
        names = [name for name, _ in rows][::-1]
        scores = [score for _, score in rows][::-1]
        ax.barh(names, scores, color=["0.2" if n == baseline else "0.65" for n in names])
        for y, score in enumerate(scores):
            ax.text(score + 0.8, y, f"{score:.1f}", va="center", fontsize=8)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("sacreBLEU (13a, detokenized)")
        ax.set_xlim(0, 70)
        ax.tick_params(axis="y", labelsize=8)
    fig.suptitle("make run at f966ca6: every model at its tiny size, one seed (dark: the baseline)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(OUT / "default-run-bleu.svg", **SVG)


def multi30k() -> None:
    """Multi30k BLEU of each seed against its mean and JoeyNMT's score."""
    seeds = range(1, len(MULTI30K_SEEDS) + 1)
    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.plot(seeds, MULTI30K_SEEDS, "o", color="0.2",
            label="phrasenmt small, linear decay (each seed)")
    ax.axhline(38.09, color="0.2", lw=1, ls="--", label="its mean over 5 seeds: 38.09")
    ax.axhline(37.52, color="0.5", lw=1, ls=":",
               label="inverse sqrt schedule, seed 1: 37.52")
    ax.axhline(27.2, color="0.65", lw=2, label="JoeyNMT 2.3.0 small Transformer: 27.2")
    ax.set_xticks(list(seeds))
    ax.set_xlabel("training seed")
    ax.set_ylim(25, 40)
    ax.set_ylabel("sacreBLEU, test_2016_flickr")
    ax.set_title("Multi30k en→de, 30 training minutes on 2 CPU cores", fontsize=10)
    ax.legend(fontsize=7, loc="center")
    fig.tight_layout()
    fig.savefig(OUT / "multi30k-seeds.svg", **SVG)


if __name__ == "__main__":
    default_run()
    multi30k()
