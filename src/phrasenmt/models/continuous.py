"""Continuous-output NMT: CoNMT (Kumar & Tsvetkov 2019) and PCoNMT (Park & Tsvetkov 2019).

The attention RNN of `attn_rnn` whose output layer predicts a vector ê in the
target embedding space (a linear map of the attentional state, no softmax);
training minimizes the vMF loss against the frozen unit-norm fastText vector
of the reference token (phrasenmt.models.vmf). Decoding is greedy: at every
step the nearest table row by cosine, one batched matrix product over the
whole table.

PCoNMT's output space is the word table plus the phrase table (its targets
are the training text with listed phrases joined into `_` tokens). Its
fertility module, φ_e = softmax(FFNN([x_e; h_e])), predicts per source word
how many target words it yields: Fertility 4 (0, 1, 2, 3 words) or Fertility 2
(word, phrase). It is trained after the translation network, which stays frozen
(`python -m phrasenmt.train_fertility`). At decoding step d,
π_word = Σ_e a_{d,e} (φ_e0 + φ_e1) (Fertility 4) or Σ_e a_{d,e} φ_e0 (Fertility 2),
π_phrase = 1 - π_word, and the nearest neighbour is searched in the word table
when π_word >= π_phrase, else in the phrase table (the paper does not say
how π is used; this hard choice is ours). The source </s> position always
counts as a word (it aligns to </s>). Without a fertility module
(`pconmt_nofert`) the search runs over the union. Deviation: the output space
holds the tokens of the target training vocabulary (words and phrases that
occur in the joined training text), the table rows aligned with their ids.
Deviation (`center_table`, on by default): the mean table vector is subtracted
before unit-normalizing. fastText vectors of a small corpus share a large
common direction (mean pairwise cosine 0.55 on synthetic_de_en), and
nearest-neighbour search then collapses onto a few hub words; centring removes
it (mean cosine 0.002) and roughly triples the tiny CoNMT's BLEU there.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from phrasenmt.hparams.continuous import (  # noqa: F401
    CONTINUOUS_ARCHS,
    PHRASE_ARCHS,
    ContinuousConfig,
)
from phrasenmt.io import InputError
from phrasenmt.models.attn_rnn import RNNSeq2Seq, State
from phrasenmt.models.output_table import build_output_table, phrase_words
from phrasenmt.models.registry import register_model
from phrasenmt.models.vmf import vmf_loss
from phrasenmt.nn.search import Hypothesis, mask_log_probs, max_lengths
from phrasenmt.text.vocab import BOS, EOS, PAD, UNK, Vocabulary


class ContinuousOutputNMT(RNNSeq2Seq):
    """CoNMT and PCoNMT: vMF training, nearest-neighbour greedy decoding."""

    config_class = ContinuousConfig
    forced_scoring = False  # predicts vectors: no token probabilities to score
    learns_unk = False  # its targets are fastText vectors, and <unk> has none

    def __init__(self, cfg: ContinuousConfig):
        super().__init__(cfg)  # runs cfg.check()
        self.head = nn.Linear(cfg.hidden_size, cfg.embed_dim)
        self.register_buffer("table", torch.zeros(cfg.tgt_vocab_size, cfg.embed_dim))
        self.register_buffer("is_phrase", torch.zeros(cfg.tgt_vocab_size,
                                                      dtype=torch.bool))
        self.fertility = None  # created last: the network's init stays the same
        if cfg.fertility_classes:
            self.fertility = nn.Sequential(
                nn.Linear(cfg.embed_size + cfg.hidden_size, cfg.fertility_hidden),
                nn.Tanh(), nn.Linear(cfg.fertility_hidden, cfg.fertility_classes))

    def trained_apart(self) -> list[nn.Parameter]:
        """The fertility module: trained after the network, which is then frozen
        (phrasenmt.train_fertility)."""
        return [] if self.fertility is None else list(self.fertility.parameters())

    def attach_vocabularies(self, src_vocab: Vocabulary, tgt_vocab: Vocabulary) -> None:
        """Fill the frozen table (V, m) from the embedding files, by target id."""
        cfg = self.cfg
        if not cfg.word_table:
            raise InputError("the model needs model.word_table (a .vec file)", "spec")
        table, is_phrase = build_output_table(tgt_vocab, cfg.embed_dim, cfg.word_table,
                                              cfg.phrase_table, cfg.fasttext_model,
                                              cfg.center_table)
        self.table.copy_(table)
        self.is_phrase.copy_(is_phrase)

    # -- training ---------------------------------------------------------------

    def forward(self, src: Tensor, tgt_in: Tensor, **side: Tensor) -> Tensor:
        """src (B, S), tgt_in (B, T) -> predicted vectors ê (B, T, m)."""
        return self.head(self.attentional(src, tgt_in))

    def loss(self, batch, label_smoothing: float) -> tuple[Tensor, Tensor]:
        """(regularized vMF loss sum, NLLvMF sum) over real target tokens."""
        pred = self(batch.src, batch.tgt_in)  # (B, T, m)
        keep = batch.tgt_out.ne(PAD)  # (B, T)
        target = self.table[batch.tgt_out[keep]]  # (N, m)
        loss, nll = vmf_loss(pred[keep], target, self.cfg.lambda1, self.cfg.lambda2,
                             self.cfg.approximate_logc)
        return loss.sum(), nll.sum()

    # -- fertility ----------------------------------------------------------------

    def fertility_probs(self, state: State) -> Tensor:
        """φ (B, S, N) from [x_e; h_e]; requires a fertility module."""
        features = torch.cat([state["src_embed"], state["memory"]], dim=-1)
        return torch.softmax(self.fertility(features).float(), dim=-1)

    def word_mass(self, phi: Tensor, src_mask: Tensor) -> Tensor:
        """Per source position the probability of yielding at most one word (B, S)."""
        mass = phi[..., :2].sum(-1) if phi.size(-1) == 4 else phi[..., 0]  # (B, S)
        last = src_mask.sum(dim=1, keepdim=True) - 1  # (B, 1) the </s> position
        is_eos = torch.arange(mass.size(1), device=mass.device)[None, :].eq(last)
        return torch.where(is_eos | ~src_mask, 1.0, mass)

    @staticmethod
    def word_probability(attn: Tensor, word_mass: Tensor) -> Tensor:
        """π_word (B,) = Σ_e a_{d,e} · word mass_e; attn (B, S)."""
        return (attn.float() * word_mass).sum(dim=-1)

    # -- decoding -----------------------------------------------------------------

    def _candidates(self, scores: Tensor, attn: Tensor, word_mass: Tensor | None
                    ) -> Tensor:
        """Mask scores (B, V) to the table fertility chooses (union without it)."""
        scores[:, UNK] = float("-inf")
        if word_mass is None:
            return scores
        use_phrase = self.word_probability(attn, word_mass) < 0.5  # (B,)
        banned = use_phrase[:, None] != self.is_phrase[None, :]  # (B, V)
        return scores.masked_fill(banned, float("-inf"))

    @torch.no_grad()
    def generate(self, src: Tensor, side: dict[str, Tensor] | None = None,
                 max_len_a: float = 1.5, max_len_b: float = 10) -> list[Hypothesis]:
        """Greedy nearest-neighbour decoding; src (B, S) -> B hypotheses."""
        B, device = src.size(0), src.device
        state, cache = self.encode(src), {}
        word_mass = None
        if self.fertility is not None:
            word_mass = self.word_mass(self.fertility_probs(state), state["src_mask"])
        table = self.table.t()  # (m, V) unit rows
        limits = max_lengths(src, max_len_a, max_len_b)  # (B,)
        tokens = torch.full((B, 1), BOS, dtype=torch.long, device=device)
        scores = torch.zeros(B, device=device)
        done = torch.zeros(B, dtype=torch.bool, device=device)
        for step in range(1, int(limits.max()) + 1):
            h_tilde, attn = self.step(state, tokens, cache)  # (B, H), (B, S)
            cosine = F.normalize(self.head(h_tilde).float(), dim=-1) @ table  # (B, V)
            cosine = self._candidates(cosine, attn, word_mass)
            best_cos, best = mask_log_probs(cosine, limits, step).max(dim=-1)
            scores += torch.where(done, 0.0, best_cos)
            tokens = torch.cat([tokens, torch.where(done, PAD, best)[:, None]], dim=1)
            done |= best.eq(EOS) | limits.le(step)
            if done.all():
                break
        return [Hypothesis(_cut(row[1:].tolist()), float(s), float(s))
                for row, s in zip(tokens, scores, strict=True)]

    def output_words(self, ids: list[int], vocab: Vocabulary) -> list[str]:
        """Target ids -> words; a phrase token is written out as its words."""
        words: list[str] = []
        for i in ids:
            token = vocab.itos[i]
            words += phrase_words(token) if bool(self.is_phrase[i]) else [token]
        return words


def _cut(ids: list[int]) -> list[int]:
    """Ids up to </s>, padding dropped."""
    ids = [i for i in ids if i != PAD]
    return ids[: ids.index(EOS)] if EOS in ids else ids


for _arch in CONTINUOUS_ARCHS:  # one class; the table and fertility set by the preset
    register_model(_arch)(ContinuousOutputNMT)
