"""Hyperkernels (002 §2.5) against their closed forms, and the low-rank basis (002 §3.2.1)."""

import numpy as np
import pytest

from sdpkern.errors import DataError, ParameterError
from sdpkern.kernels import Gaussian, Polynomial
from sdpkern.kernels.hyperkernels import (
    ExplicitHyperkernel,
    HarmonicARD,
    HarmonicHyperkernel,
    PowerSeriesHyperkernel,
    auto_widths,
)
from sdpkern.kernels.lowrank import hyperkernel_basis, incomplete_cholesky

rng = np.random.default_rng(1)
X = rng.normal(size=(9, 3)) * np.array([1.0, 10.0, 0.1])


def brute_harmonic_ard(lam, w, a, b, c, d):
    s = ((a - b) ** 2 + (c - d) ** 2) / w
    return np.prod((1 - lam) / (1 - lam * np.exp(-s)))


def test_harmonic_ard_closed_form():
    hk = HarmonicARD(0.6, np.array([2.0, 30.0, 0.5]))
    K = hk.base_kernel(X[1], X[4], X)
    for a in range(X.shape[0]):
        for b in range(X.shape[0]):
            assert K[a, b] == pytest.approx(brute_harmonic_ard(0.6, hk.widths, X[1], X[4], X[a], X[b]), rel=1e-12)


def test_harmonic_isotropic_closed_form_and_series():
    hk = HarmonicHyperkernel(lambda_h=0.3, gamma=0.2)
    K = hk.base_kernel(X[0], X[2], X)
    d01 = np.sum((X[0] - X[2]) ** 2)
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    np.testing.assert_allclose(K, 0.7 / (1 - 0.3 * np.exp(-0.2 * (d01 + D))), rtol=1e-12)
    # (2.20) is the power series with c_i = (1 − λ)λ^i: the geometric construction agrees
    ps = PowerSeriesHyperkernel("geometric", Gaussian(0.2), scale=0.3)
    np.testing.assert_allclose(0.7 * ps.base_kernel(X[0], X[2], X), K, rtol=1e-12)


def test_table_2_2_functions():
    base = Gaussian(0.5)
    k_pair = base(X[0:1], X[3:4])[0, 0]
    Kb = base(X)
    for name, f in [("exp", np.exp), ("sinh", np.sinh), ("cosh", np.cosh)]:
        np.testing.assert_allclose(PowerSeriesHyperkernel(name, base).base_kernel(X[0], X[3], X), f(k_pair * Kb))
    for name, f in [("arctanh", np.arctanh), ("neglog", lambda t: -np.log(1 - t))]:
        hk = PowerSeriesHyperkernel(name, base, scale=0.5)
        # the naive −log(1 − t) loses digits for tiny t (we use log1p): compare absolutely
        np.testing.assert_allclose(hk.base_kernel(X[0], X[3], X), f(0.5 * k_pair * Kb), rtol=1e-12, atol=1e-14)


def test_explicit_expansion_eq_2_24():
    k1, k2 = Polynomial(degree=2, coef0=1.0), Gaussian(0.3)
    hk = ExplicitHyperkernel([k1, k2], [0.5, 2.0])
    K = hk.base_kernel(X[2], X[5], X)
    expected = 0.5 * k1(X[2:3], X[5:6])[0, 0] * k1(X) + 2.0 * k2(X[2:3], X[5:6])[0, 0] * k2(X)
    np.testing.assert_allclose(K, expected, rtol=1e-12)


@pytest.mark.parametrize(
    "hk",
    [
        HarmonicARD(0.6, np.array([1.0, 50.0, 0.2])),
        HarmonicHyperkernel(0.5, 0.1),
        PowerSeriesHyperkernel("exp", Gaussian(0.1)),
        ExplicitHyperkernel([Polynomial(degree=2), Gaussian(1.0)], [1.0, 0.5]),
    ],
)
def test_columns_and_diagonal_without_the_full_matrix(hk):
    m = X.shape[0]
    F = hk.gram_features(X)
    pairs = F.reshape(m * m, -1)
    full = hk.hyper_gram(pairs)  # small m: the m²×m² matrix for reference
    np.testing.assert_allclose(hk.hyper_diagonal(pairs), np.diag(full), rtol=1e-12)
    for j in (0, 7, m * m - 1):
        np.testing.assert_allclose(hk.hyper_column(pairs, j), full[:, j], rtol=1e-12)
    # the hyperkernel matrix is PSD (it is a kernel on pairs)
    assert np.linalg.eigvalsh(full)[0] > -1e-10 * np.abs(full).max()
    # each base kernel matrix is PSD (for fixed pair, k̲(pair, ·) is a kernel)
    assert np.linalg.eigvalsh(hk.base_kernel(X[0], X[1], X))[0] > -1e-10


def test_validity_conditions():
    with pytest.raises(ParameterError, match="lambda_h"):
        HarmonicARD(1.0, np.ones(3)).check()
    with pytest.raises(ParameterError, match="lambda_h"):
        HarmonicHyperkernel(0.0).check()
    with pytest.raises(ParameterError, match="widths"):
        HarmonicARD(0.6, np.array([1.0, -1.0, 1.0])).check()
    with pytest.raises(ParameterError, match="radius of convergence"):
        PowerSeriesHyperkernel("arctanh", Gaussian(1.0), scale=1.0).check()
    with pytest.raises(ParameterError, match="non-negative"):
        # an odd polynomial takes negative values: (2.19) needs k ≥ 0
        PowerSeriesHyperkernel("exp", Polynomial(degree=1, coef0=0.0), bound=1e6).base_kernel(X[0], -X[0], X)
    with pytest.raises(DataError, match="widths"):
        HarmonicARD(0.6, np.ones(2)).fitted(X)


def test_auto_widths_rule():
    Z = rng.normal(size=(300, 2)) * np.array([1000.0, 1.0])
    w = auto_widths(Z, n_sample=300)
    diffs = np.abs(Z[:, None, :] - Z[None, :, :])[np.triu_indices(300, 1)]
    np.testing.assert_allclose(w, 50 * np.quantile(diffs, 0.9, axis=0), rtol=1e-12)
    assert w[0] / w[1] > 100  # scale-free per dimension


def test_incomplete_cholesky_exact_and_lazy():
    A = rng.normal(size=(40, 6))
    A = A @ A.T  # rank 6
    calls = []

    def column(j):
        calls.append(j)
        return A[:, j]

    r = incomplete_cholesky(np.diag(A), column, eta=1e-10)
    assert r.G.shape[1] == 6 and len(calls) == 6  # only the chosen columns are computed
    np.testing.assert_allclose(r.G @ r.G.T, A, atol=1e-8)
    np.testing.assert_allclose(r.G[r.pivots], np.tril(r.G[r.pivots]), atol=1e-12)
    capped = incomplete_cholesky(np.diag(A), lambda j: A[:, j], eta=0.0, max_rank=3)
    assert capped.G.shape[1] == 3 and capped.residual_max > 0
    assert capped.residual_trace >= capped.residual_max


def test_basis_deduplicates_and_reproduces_regulariser():
    hk = HarmonicARD(0.6, np.array([2.0, 30.0, 0.5]))
    B = hyperkernel_basis(hk, X, eta=1e-12)
    # only pairs i ≤ j, and at most one diagonal pair (all diagonal pairs coincide for the harmonic family)
    assert np.all(B.pairs[:, 0] <= B.pairs[:, 1])
    assert np.sum(B.pairs[:, 0] == B.pairs[:, 1]) <= 1
    Kss = hk.hyper_gram(B.features)
    np.testing.assert_allclose(B.L @ B.L.T, Kss, atol=1e-10)
    # the learned kernel of a weight vector equals the explicit sum of base kernels
    beta = rng.random(B.size)
    K = B.learned_kernel(beta)
    K2 = sum(b * hk.base_kernel(X[i], X[j], X) for b, (i, j) in zip(beta, B.pairs))
    np.testing.assert_allclose(K, K2, rtol=1e-10)
    np.testing.assert_allclose(B.learned_kernel(beta, X[:4], X), K[:4], rtol=1e-10)


def test_basis_memory_is_linear_in_terms():
    Z = rng.normal(size=(120, 3))
    B = hyperkernel_basis(HarmonicARD(0.6).fitted(Z), Z, eta=1e-4, max_terms=40)
    assert B.size <= 40 and B.L.shape == (B.size, B.size)


def test_harmonic_ard_width_ladder_is_the_mean_over_scales():
    # HarmonicARD(scales=c) = (1/S) Σ_s HarmonicARD at widths c_s σ (a sum of hyperkernels)
    X = np.random.default_rng(5).normal(size=(12, 3))
    multi = HarmonicARD(0.6, "auto", "ladder").fitted(X)
    assert np.allclose(multi.scale_array(), [4.0**-k for k in range(6)])
    singles = [HarmonicARD(0.6, multi.widths * c).fitted(X) for c in multi.scale_array()]
    f = multi.pair_features(X[:4], X[4:8])
    g = multi.gram_features(X)
    ref = np.mean([hk.combine(hk.pair_features(X[:4], X[4:8])[1], hk.gram_features(X)) for hk in singles], axis=0)
    assert np.allclose(multi.combine(f[1], g), ref, rtol=1e-13)
    assert np.all(np.linalg.eigvalsh(multi.hyper_gram(multi.gram_features(X).reshape(-1, 3))) > -1e-10)
    for bad in ("wide", [], [1.0, -0.5], [[1.0]]):
        with pytest.raises(ParameterError, match="scales"):
            HarmonicARD(0.6, np.ones(3), bad).check()
