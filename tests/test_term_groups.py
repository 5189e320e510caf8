"""The dictionary's relevance groups: one compiled pass per column for all widths, shared caches.

Second routes: the single-term compiled loop (``ard_columns``) and the dense NumPy block
(``term_block``); tolerances are stated per test.
"""

import numpy as np
import pytest

from sdpkern import HyperkernelL2SVC, HyperkernelNuSVC
from sdpkern._hkcore import ard_columns, ard_scale_columns
from sdpkern.kernels import ARDDictionary, hyperkernel_terms
from sdpkern.kernels.gram import SumGram
from sdpkern.kernels.hyperkernel_terms import (
    TermGram,
    _dictionary_groups,
    _dictionary_term,
    term_block,
    term_grams,
)


def _basis(m=60, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, d))
    relevances = np.array([np.ones(d), np.r_[np.ones(2), np.zeros(d - 2)]])
    hk = ARDDictionary(relevances=relevances).fitted(X)
    return hk, hk.basis(X), X


def test_scale_columns_match_the_single_term_loop():
    hk, B, X = _basis()
    XT = np.ascontiguousarray(X.T)
    cols = np.array([0, 7, 59])
    for rows, args in _dictionary_groups(hk, B.features):
        g, A, lam, inv_c, sq = args
        w = np.ascontiguousarray(B.features[rows, -1])
        blk = ard_scale_columns(XT, np.ascontiguousarray(X[cols]), g, A, lam, inv_c, sq, w)[:, 0]
        for s, l in enumerate(rows):
            ref = ard_columns(XT, np.ascontiguousarray(X[cols]), *_dictionary_term(hk, B.features[l]))[0]
            # the group squares the widest width's exponentials (up to 2·5 times on the ladder: a
            # relative error of 2^10 ulp per factor); the single term takes its own exponentials
            np.testing.assert_allclose(blk[s], ref, rtol=1e-12, atol=0)
        # one scale: the same arithmetic as ard_columns, bit for bit
        one = ard_scale_columns(XT, np.ascontiguousarray(X[cols]), g, A[:1], lam, inv_c[:1], sq[:1], w[:1])[0, 0]
        same = ard_columns(XT, np.ascontiguousarray(X[cols]), g, A[:1], lam, inv_c[:1], sq[:1], w[:1])[0]
        assert np.array_equal(one, same)


@pytest.mark.parametrize(("m", "d"), [(1037, 20), (77, 3), (500, 100), (300, 7)])
def test_column_loop_gives_the_same_bits_in_either_build_and_any_tile(m, d):
    # the column loop's products run in tiles of points, in an AVX2 and a baseline build (chosen
    # at run time): each entry gets the same operations in the same order in both, wherever its
    # point falls in a tile. Second routes: the other build, and each column point against one
    # row at a time (a tile of one point, the builds' scalar tail) -- exact equality
    from sdpkern import _hkcore

    rng = np.random.default_rng(m + d)
    X = rng.normal(size=(m, d))
    relevances = np.array([np.ones(d), (np.arange(d) % 3 == 0).astype(float)])
    hk = ARDDictionary(relevances=relevances).fitted(X)
    B = hk.basis(X)
    XT, Xc = np.ascontiguousarray(X.T), np.ascontiguousarray(X[[0, m // 2, m - 1]])
    rows = [0, 1, 15, 16, 17, m // 3, m - 1]
    had = _hkcore.simd()
    try:
        for group, args in _dictionary_groups(hk, B.features):
            w = np.ascontiguousarray(B.features[group, -1])
            out = {}
            for avx2 in (True, False):
                _hkcore.simd(avx2)
                out[avx2] = ard_scale_columns(XT, Xc, *args, w)
            assert np.array_equal(out[True], out[False])
            for i in rows:
                one = ard_scale_columns(np.ascontiguousarray(XT[:, i : i + 1]), Xc, *args, w)
                assert np.array_equal(one[..., 0], out[True][..., i])
    finally:
        _hkcore.simd(had)


@pytest.mark.parametrize(("d", "kept"), [(20, 2), (100, 70), (100, 1)])
def test_columns_skip_ignored_dimensions_and_match_the_pair_loop(d, kept):
    # a relevance vector's zero widths are skipped by the column loop (their factor is the same
    # constant at every pair) and not by the pair loop (ard_block, the dense block's route): the
    # two agree at 1e-12, across the 64-factor chunks (kept = 70) and with one dimension kept
    from sdpkern._hkcore import ard_block

    rng = np.random.default_rng(d + kept)
    X = rng.normal(size=(40, d))
    relevances = np.array([np.r_[np.ones(kept), np.zeros(d - kept)]])
    hk = ARDDictionary(relevances=relevances).fitted(X)
    B = hk.basis(X)
    XT, cols = np.ascontiguousarray(X.T), np.array([0, 5, 39])
    for rows, args in _dictionary_groups(hk, B.features):
        assert np.count_nonzero(args[0]) == kept
        w = np.ascontiguousarray(B.features[rows, -1])
        blk = ard_scale_columns(XT, np.ascontiguousarray(X[cols]), *args, w)[:, 0]
        for s in range(len(rows)):
            # scale s alone (no squaring from a previous scale) through the pair loop
            one = (args[0], args[1][s : s + 1], args[2], args[3][s : s + 1], np.zeros(1, dtype=np.int64), w[s : s + 1])
            ref = ard_block(np.ascontiguousarray(X[cols]), X, *one)[0]
            np.testing.assert_allclose(blk[s], ref, rtol=1e-12, atol=0)


@pytest.mark.parametrize("cache_columns", [60, 7, 1])
def test_grouped_terms_and_their_sum_match_the_dense_block(cache_columns):
    hk, B, X = _basis()
    m = X.shape[0]
    ops = term_grams(hk, B.features, X, cache_bytes=8 * m * cache_columns)
    assert sum(op.group is not None for op in ops) == B.size  # two relevance vectors × six widths
    dense = term_block(hk, B.features, X, X)
    beta = np.linspace(0.0, 1.0, B.size)
    K = SumGram(ops, beta, cache_bytes=8 * m * cache_columns)
    cols = np.array([3, 4, 40, 41, 42, 5, 6, 7, 8, 9])
    np.testing.assert_allclose(K.columns(cols), np.tensordot(beta, dense, axes=1)[:, cols], rtol=1e-12, atol=1e-14)
    for l, op in enumerate(ops):  # filled by the sum's passes (offers), then their own requests
        np.testing.assert_allclose(op.columns(cols), dense[l][:, cols], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(op.block(cols[:3], cols), dense[l][np.ix_(cols[:3], cols)], rtol=1e-12, atol=1e-14)
    v = np.zeros(m)
    v[[1, 10, 30]] = [0.5, -1.0, 2.0]
    np.testing.assert_allclose(K.matvec(v), np.tensordot(beta, dense, axes=1) @ v, rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_sum_columns_from_the_lower_triangle_have_each_column_s_own_bits(n_jobs, monkeypatch):
    # terms whose caches cannot keep every column: a request for many columns of K(β) is one pass
    # per chunk over the rows not among the earlier chunks' columns, the rest written from those
    # chunks by symmetry. Second routes: each column asked for alone (a pass over every row,
    # exact equality: the compiled entries are symmetric bit for bit) and the dense block (1e-12).
    # Chunks of 3 columns: many chunks, each a different set of rows; a Gaussian term beside the
    # groups adds its own columns
    from sdpkern.kernels import Gaussian
    from sdpkern.kernels.gram import KernelGram
    from sdpkern.kernels.hyperkernel_terms import TermGroup

    hk, B, X = _basis(m=61)
    m = X.shape[0]
    monkeypatch.setattr(hyperkernel_terms, "_FILL_ENTRIES", 3 * m)
    beta = np.linspace(0.1, 1.0, B.size)
    rbf = KernelGram(Gaussian(gamma=0.3), X)
    dense = np.tensordot(beta, term_block(hk, B.features, X, X), axes=1) + 0.5 * rbf.to_dense()
    cols = np.array([0, 2, 3, 7, 8, 9, 10, 11, 20, 30, 31, 33, 40, 52, 59, 60])

    def gram(jobs):
        ops = term_grams(hk, B.features, X, cache_bytes=8 * m * 5, n_jobs=jobs)
        return SumGram([*ops, rbf], [*beta, 0.5], cache_bytes=8 * m * m)

    calls = []
    real = TermGroup.add_columns
    monkeypatch.setattr(TermGroup, "add_columns", lambda self, *a: calls.append(1) or real(self, *a))
    K = gram(n_jobs)
    bulk = K.columns(cols)
    assert len(calls) == 2  # one fill per relevance vector: the triangle route was taken
    alone = gram(1)
    each = np.stack([alone.column(int(j)) for j in cols], axis=1)
    assert np.array_equal(bulk, each)
    assert np.array_equal(bulk[cols], bulk[cols].T)
    np.testing.assert_allclose(bulk, dense[:, cols], rtol=1e-12, atol=1e-14)
    # the terms' caches, which could not keep every column, were offered none
    assert not any(bool(t.op.cached(cols).any()) for t in K.terms[:-1])


def test_a_column_computed_once_serves_every_width():
    hk, B, X = _basis()
    ops = term_grams(hk, B.features, X)
    ops[0].columns(np.array([2, 11]))
    group = ops[0].group
    members = [op for op in ops if op.group is group]
    assert len(members) == 6
    assert all(bool(np.all(op.cached(np.array([2, 11])))) for op in members)
    assert sum(op.columns_computed for op in members) == 2  # one pass: the others were offered them
    # a term of the other relevance vector computed nothing
    assert all(op.columns_computed == 0 for op in ops if op.group is not group)


def test_offer_keeps_what_fits_and_never_evicts_columns_in_use():
    hk, B, X = _basis()
    m = X.shape[0]
    op = TermGram(hk, B.features[0], X, cache_bytes=8 * m * 3)
    op.ensure(np.array([0, 1, 2]))  # three slots, all stamped at this tick
    values = np.ones((2, m))
    assert op.cache.offer(np.array([5, 6], dtype=np.intp), values) == 0
    assert not np.any(op.cached(np.array([5, 6])))
    op.ensure(np.array([0]))  # a new tick: 1 and 2 become evictable
    assert op.cache.offer(np.array([5, 6], dtype=np.intp), values) == 2
    assert np.array_equal(op.columns(np.array([5, 6])), values.T)
    assert op.cached(np.array([0]))[0]
    with pytest.raises(ValueError, match="one row of n entries"):
        op.cache.offer(np.array([7], dtype=np.intp), np.ones((1, m + 1)))
    out = np.zeros((2, m))
    op.cache.add_to(out, np.array([5, 6], dtype=np.intp), 2.0)
    assert np.array_equal(out, 2.0 * values)
    with pytest.raises(ValueError, match="not cached"):
        op.cache.add_to(np.zeros((1, m)), np.array([9], dtype=np.intp), 1.0)


@pytest.mark.parametrize("estimator", [HyperkernelNuSVC, HyperkernelL2SVC])
def test_training_decisions_from_the_solve_match_the_model(estimator, monkeypatch):
    """The collapse check reads the solve's outputs K(β)u − b as the training decision values; the
    fitted model's decision function (the learned kernel evaluated afresh) must agree."""
    seen = {}
    original = estimator._separates_nothing

    def spy(self, X, y_pm, weights, decision):
        seen["decision"] = decision
        return original(self, X, y_pm, weights, decision)

    monkeypatch.setattr(estimator, "_separates_nothing", spy)
    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 4))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 > 0.3, 1, -1)
    clf = estimator(solver="native").fit(X, y)
    assert clf.status_ == "optimal"
    assert seen["decision"] is not None
    np.testing.assert_allclose(seen["decision"], clf.decision_function(X), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("cached_columns", [60, 45, 20])
def test_master_quadratics_from_partly_cached_terms_match_the_pair_pass(cached_columns):
    """½uᵀK_l u from the caches plus one pass over the missing columns (caches holding all of the
    support, most of it, or less than half) against the pass over the support's pairs (1e-12)."""
    from sdpkern.kernels.hyperkernel_terms import term_quadratics
    from sdpkern.native.hyperkernel_master import _CSVCFamily, _Master, _master_options

    hk, B, X = _basis()
    m = X.shape[0]
    rng = np.random.default_rng(1)
    y = np.where(rng.random(m) > 0.5, 1.0, -1.0)
    opts = _master_options(B, B.size, 8 * m * cached_columns * 2 * B.size, 1e-7, 10**6, 1)
    master = _Master(B, _CSVCFamily(y), 1.0, opts)
    terms = np.arange(B.size)
    ops = [master.term_op(int(l)) for l in terms]
    assert ops[0].cache.capacity == cached_columns
    u = np.zeros(m)
    u[:50] = rng.normal(size=50)  # a support of 50 points
    for op in ops[::2]:  # half the terms hold the first 40 of them, or what fits
        op.ensure(np.arange(min(40, cached_columns)))
    got = master.quadratics(terms, u)
    want = term_quadratics(hk, B.features, X, u)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
