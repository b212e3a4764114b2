"""Seeds as the unit of inference: size under seed noise, TOST, ratio intervals,
Holm, and items resampled in clusters."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from phrasenmt.evaluate.multiseed import compare_items
from phrasenmt.evaluate.seed_inference import (
    NullModel,
    cluster_stats,
    holm,
    holm_levels,
    ratio_interval,
    ratio_p,
    simulate_size,
    t_inference,
    t_interval,
    t_ppf,
    tost_p,
)
from phrasenmt.report.claim_checks import mirror_clusters


def test_size_stays_at_its_level_when_seeds_differ_by_8_points():
    # 200 null comparisons, 3 vs 3 seeds whose scores spread over 8 points
    # (uniform seed effect) around 100 items of noise sd 20. At alpha 0.05 a
    # test of the right size rejects Binomial(200, 0.05) times: mean 10, sd
    # 3.1; P(X >= 19) = 0.003, so 18 is the bound. A test that resamples items
    # only (the stratified randomization it replaces) rejects about half.
    model = NullModel(seeds=3, items=100, spread=8.0)
    assert simulate_size(model, 200, 60, 0.05, seed=3) <= 18


@pytest.mark.parametrize("spread", [0.0, 4.0, 8.0])
@pytest.mark.parametrize(("alpha", "bound"), [(0.05, 31), (0.01, 10)])
def test_size_at_the_verdicts_level_for_each_seed_spread(spread, alpha, bound):
    # 400 null comparisons, 3 vs 3 seeds. A test of the right size rejects
    # Binomial(400, alpha) times: at 0.05 mean 20, P(X >= 32) = 0.005; at 0.01
    # (the verdicts' level) mean 4, P(X >= 11) = 0.003.
    model = NullModel(seeds=3, items=100, spread=spread)
    assert simulate_size(model, 400, 60, alpha, seed=5) <= bound


def test_a_real_gain_is_still_found():
    # the same noise with a true gain of 10 points: a test that never rejects
    # would pass the size check above; this one must reject most of the time
    model = NullModel(seeds=3, items=100, spread=2.0, effect=10.0)
    assert simulate_size(model, 40, 100, 0.05, seed=4) >= 32


def test_t_inference_on_known_inputs():
    out = t_inference(2.0, 1.0, math.inf, 0.05)  # the normal
    assert out.p == pytest.approx(0.0455003, abs=1e-6)
    assert (out.ci_low, out.ci_high) == pytest.approx((2 - 1.959964, 2 + 1.959964))
    four = t_inference(2.0, 1.0, 4.0, 0.01)  # t(4): 99% half-width 4.604
    assert four.ci_high - 2.0 == pytest.approx(4.604095, abs=1e-6)
    assert four.p == pytest.approx(0.116117, abs=1e-5)
    assert t_inference(0.0, 0.0, 3.0, 0.01).p == 1.0


def test_tost_on_known_inputs():
    # delta 0.2, se 0.5, normal, margin 1: the two one-sided p are
    # P(Z > 1.2 / 0.5) = 0.0082 and P(Z < -0.8 / 0.5) = 0.0548; TOST takes the larger
    assert tost_p(0.2, 0.5, math.inf, 1.0) == pytest.approx(0.0547993, abs=1e-6)
    assert tost_p(-0.2, 0.5, math.inf, 1.0) == pytest.approx(0.0547993, abs=1e-6)
    assert tost_p(0.0, 0.1, 10.0, 1.0) < 1e-6  # tight and centred: equivalent
    assert tost_p(1.5, 0.1, 10.0, 1.0) > 0.99  # outside the margin
    assert tost_p(0.3, 0.0, 10.0, 1.0) == 0.0
    with pytest.raises(ValueError, match="margin must be positive"):
        tost_p(0.0, 1.0, 5.0, 0.0)


def test_ratio_interval_on_known_inputs():
    # log speeds log(100) + (-0.1, 0, 0.1) against log(10) + the same: ratio 10,
    # se of the log ratio sqrt(2 * 0.01 / 3) = 0.08165, Welch df 4,
    # t(0.995, 4) = 4.604: 99% interval 10 * exp(-+0.37592)
    offsets = np.exp([-0.1, 0.0, 0.1])
    r = ratio_interval(list(100 * offsets), list(10 * offsets), 0.01)
    assert r.ratio == pytest.approx(10.0)
    assert r.df == pytest.approx(4.0) and r.se_log == pytest.approx(0.0816497)
    assert r.ci_low == pytest.approx(10 * math.exp(-0.3759218), rel=1e-6)
    assert r.ci_high == pytest.approx(10 * math.exp(0.3759218), rel=1e-6)
    assert r.level == 0.99
    assert ratio_p(r, 10.0) == pytest.approx(1.0)
    assert ratio_p(r, 28.0) < 0.001  # "28 times faster" is far outside
    one = ratio_interval([300.0], [100.0, 110.0], 0.01)
    assert one.ci_low is None and ratio_p(one, 1.0) is None
    with pytest.raises(ValueError, match="positive"):
        ratio_interval([0.0, 1.0], [1.0, 2.0], 0.01)


def test_holm_levels_and_the_interval_at_them():
    # ranks of the tested p-values: 0.01 first of 3, 0.02 second, 0.03 third
    assert holm_levels([0.03, None, 0.01, 0.02], 0.05) == [
        pytest.approx(0.95), None, pytest.approx(1 - 0.05 / 3),
        pytest.approx(0.975)]
    low, high = t_interval(2.0, 1.0, None, 0.95)  # the normal
    assert (low, high) == pytest.approx((2 - 1.959964, 2 + 1.959964))
    assert t_interval(2.0, 1.0, 4, 0.99) == pytest.approx((2 - 4.604095,
                                                           2 + 4.604095))


def test_holm_levels_stop_where_the_step_down_stops():
    # 0.004 * 3 = 0.012: Holm stops at the first step, and no row is rejected.
    # At their own steps the second row's interval would be at 99.5 %, which
    # excludes 0 for p = 0.0045 beside "inconclusive after Holm"; every row
    # takes the stopping step's level, 1 - 0.01 / 3, instead
    pvalues = [0.004, 0.0045, 0.5]
    assert holm(pvalues) == pytest.approx([0.012, 0.012, 0.5])
    assert holm_levels(pvalues, 0.01) == pytest.approx([1 - 0.01 / 3] * 3)
    low, high = t_interval(normal_delta(0.0045), 1.0, None, holm_levels(
        pvalues, 0.01)[1])
    assert low < 0 < high
    # a stop at the second step: the first row keeps its own level
    assert holm_levels([0.001, 0.04, 0.03, None], 0.05) == [
        pytest.approx(1 - 0.05 / 3), pytest.approx(1 - 0.05 / 2),
        pytest.approx(1 - 0.05 / 2), None]


def normal_delta(p: float) -> float:
    """The difference (se 1) whose two-sided normal p is p."""
    from scipy.special import ndtri

    return float(-ndtri(p / 2))


# a family of tests: per row its comparisons (one, or two for a row with a
# random-context control whose p is the larger), each a p-value (drawn from a
# few values, so that ties occur), a sign, a standard error and a t df
comparison = st.tuples(st.integers(0, 5), st.booleans(),
                       st.floats(0.1, 10.0), st.sampled_from([2.0, 4.5, 30.0,
                                                              math.inf]))
family = st.tuples(
    st.lists(st.floats(1e-6, 1.0), min_size=1, max_size=6, unique=True),
    st.lists(st.one_of(st.none(), st.lists(comparison, min_size=1, max_size=2)),
             min_size=1, max_size=12),
    st.sampled_from([0.01, 0.05, 0.1]))


@settings(max_examples=300, deadline=None)
@given(family)
def test_holm_intervals_exclude_0_exactly_when_holm_rejects(drawn):
    values, rows, alpha = drawn
    tests = []  # per row: None or [(delta, se, df, p)]
    for row in rows:
        if row is None:
            tests.append(None)
            continue
        tests.append([])
        for k, positive, se, df in row:
            p = values[k % len(values)]
            t = t_ppf(1 - p / 2, df)  # the p and the interval: one statistic
            tests[-1].append(((t if positive else -t) * se, se, df, p))
    pvalues = [None if c is None else max(x[3] for x in c) for c in tests]
    adjusted, levels = holm(pvalues), holm_levels(pvalues, alpha)
    for c, p_holm, level in zip(tests, adjusted, levels, strict=True):
        if c is None:
            assert p_holm is None and level is None
            continue
        excluded = [not (low <= 0 <= high) for low, high in
                    (t_interval(d, se, df, level) for d, se, df, _ in c)]
        assert all(excluded) == (p_holm < alpha)


def test_holm_on_a_known_vector():
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([None, 0.02, None, 0.5]) == [None, pytest.approx(0.04), None, 0.5]
    assert holm([0.4, 0.6]) == [0.8, 0.8]  # monotone, capped at 1


def pair_items(k: int) -> list[dict]:
    """k contrastive items, each followed by its mirror."""
    out = []
    for i in range(k):
        item = {"type": "pronoun_gender", "source": f"s{i}", "reference": "er",
                "contrastive": ["sie"]}
        out += [item, {**item, "reference": "sie", "contrastive": ["er"]}]
    return out


def test_mirrored_items_are_one_cluster():
    items = pair_items(3)
    other = {"type": "pronoun_gender", "source": "t", "reference": "a",
             "contrastive": ["b"]}
    assert mirror_clusters(items) == [0, 0, 1, 1, 2, 2]
    assert mirror_clusters([other, *items[:2], items[0], other]) == [0, 1, 1, 2, 3]
    stats = np.arange(12, dtype=float).reshape(1, 6, 2)
    assert cluster_stats(stats, [0, 0, 1, 1, 2, 2]).tolist() == [
        [[2, 4], [10, 12], [18, 20]]]


def test_pairs_resampled_together_widen_the_interval_of_correlated_pairs():
    # 138 pairs whose two items are right or wrong together, the same in every
    # seed (the test items, not training, make the noise): 138 observations,
    # not 276; resampled as pairs the interval is about sqrt(2) wider
    rng = np.random.default_rng(0)

    def seeds(rate: float) -> list[list[float]]:
        outcome = list(np.repeat((rng.random(138) < rate).astype(float), 2))
        return [outcome] * 3

    system, baseline = seeds(0.8), seeds(0.6)
    clusters = mirror_clusters(pair_items(138))
    together = compare_items(baseline, system, trials=400, clusters=clusters)
    apart = compare_items(baseline, system, trials=400)
    assert together["clusters"] == 138 and together["items"] == 276
    assert together["delta"] == apart["delta"]
    width = (together["ci_high"] - together["ci_low"]) / (apart["ci_high"]
                                                          - apart["ci_low"])
    assert 1.15 < width < 1.6


def test_student_t_is_scipy_stats_t_without_importing_it():
    """The t functions come from scipy.special (scipy.stats costs 1 s of each
    evaluation job's start-up); they equal scipy.stats.t bit for bit."""
    import subprocess
    import sys

    from scipy.stats import t

    from phrasenmt.evaluate.seed_inference import t_cdf, t_ppf, t_sf

    rng = np.random.default_rng(0)
    for x, df, q in zip(rng.normal(0, 4, 300), rng.uniform(0.3, 200, 300),
                        rng.uniform(0.001, 0.999, 300), strict=True):
        assert t_sf(x, df) == float(t.sf(x, df))
        assert t_cdf(x, df) == float(t.cdf(x, df))
        assert t_ppf(q, df) == float(t.ppf(q, df))
    for df in (0.0, -1.0, math.nan):  # outside t's support: nan, as scipy.stats gives
        assert math.isnan(t_sf(1.0, df)) and math.isnan(float(t.sf(1.0, df)))
    code = ("import sys; from phrasenmt.evaluate.seed_inference import t_inference; "
            "t_inference(1.0, 0.5, 4.5, 0.05); print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["False"]
