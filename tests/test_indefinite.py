"""Indefinite-kernel building blocks (002 Ch. 4, 6): spline smoothing (4.6), KPCA, Fisher system."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from sdpkern.errors import LabelError, ParameterError
from sdpkern.kernels import Epanechnikov, Gaussian, SquaredEuclidean
from sdpkern.kernels.spectrum import center_kernel
from sdpkern.native.filters import filtered_solution, tikhonov_filter
from sdpkern.native.indefinite import best_offset, fisher_system, indefinite_kpca, krein_spline_smoothing
from sdpkern.native.krylov import mr_ii


@pytest.fixture(autouse=True)
def _one_blas_thread():
    with threadpool_limits(1):
        yield


def _X(n: int = 50, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, 2))


def test_spline_smoothing_is_a_stationary_point_of_eq_4_6() -> None:
    X = _X()
    K = Epanechnikov(sigma=3.0)(X)
    assert np.linalg.eigvalsh(K)[0] < -1e-3  # really indefinite
    y = np.sin(X[:, 0])
    lam = 0.01
    m = K.shape[0]
    alpha = krein_spline_smoothing(K, y, lam)

    def J(a: np.ndarray) -> float:
        return float(np.mean((y - K @ a) ** 2) + lam * a @ K @ a)

    # central-difference gradient of J vanishes at α (it is a saddle, not a minimum)
    h = 1e-6
    grad = np.array([(J(alpha + h * e) - J(alpha - h * e)) / (2 * h) for e in np.eye(m)])
    assert np.abs(grad).max() < 1e-6
    # independent route: the Tikhonov filter λ_i/(λ_i + mλ) of 002 §5.3.2
    ev = np.linalg.eigvalsh(K)
    np.testing.assert_allclose(alpha, filtered_solution(K, y, tikhonov_filter(ev, m * lam)), rtol=1e-8, atol=1e-10)
    # a negative eigenvalue makes J non-convex: some direction decreases J below the stationary value
    u = np.linalg.eigh(K)[1][:, 0]
    assert J(alpha + 1e-1 * u) < J(alpha) or J(alpha - 1e-1 * u) < J(alpha)


def test_spline_smoothing_refuses_lam_at_an_eigenvalue() -> None:
    X = _X()
    K = Epanechnikov(sigma=3.0)(X)
    ev = np.linalg.eigvalsh(K)
    m = K.shape[0]
    lam_bad = -ev[0] / m  # m·λ = −(most negative eigenvalue)
    with pytest.raises(ParameterError, match=r"lam=.*singular.*equals minus the eigenvalue"):
        krein_spline_smoothing(K, np.ones(m), lam_bad)
    with pytest.raises(ParameterError, match="lam must be > 0"):
        krein_spline_smoothing(K, np.ones(m), 0.0)


def test_indefinite_kpca_picks_largest_magnitudes() -> None:
    X = _X(seed=1)
    K = SquaredEuclidean()(X) + Gaussian(gamma=0.5)(X)  # centred: a negative block plus a positive one
    res = indefinite_kpca(K, 4)
    lam = np.linalg.eigvalsh(center_kernel(K))
    np.testing.assert_allclose(np.abs(res.eigenvalues), np.sort(np.abs(lam))[::-1][:4], rtol=1e-10)
    assert (res.eigenvalues < 0).any() and (res.eigenvalues > 0).any()
    Kc = center_kernel(K)
    np.testing.assert_allclose(Kc @ res.eigenvectors, res.eigenvectors * res.eigenvalues, atol=1e-8)
    with pytest.raises(ParameterError, match="n_components"):
        indefinite_kpca(K, 0)


def test_fisher_operator_matches_the_thesis_formula() -> None:
    X = _X(n=40, seed=2)
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    K = Epanechnikov(sigma=3.0)(X)
    N, rhs, means = fisher_system(K, y)
    pos, neg = y > 0, y < 0
    mu_p, mu_n = K @ pos / pos.sum(), K @ neg / neg.sum()
    N_ref = K @ K.T - pos.sum() * np.outer(mu_p, mu_p) - neg.sum() * np.outer(mu_n, mu_n)
    np.testing.assert_allclose(N @ np.eye(40), N_ref, atol=1e-10)
    np.testing.assert_allclose(rhs, mu_p - mu_n, atol=1e-12)
    assert np.linalg.eigvalsh(N_ref)[0] > -1e-8  # PSD even though K is indefinite
    # solving it gives a direction that separates the class means
    alpha = mr_ii(N, rhs, max_iter=10, rtol=0.0).x
    assert means[1] @ alpha > means[0] @ alpha
    with pytest.raises(LabelError, match="both classes"):
        fisher_system(K, np.ones(40))


def test_best_offset_minimises_training_errors() -> None:
    rng = np.random.default_rng(3)
    s = rng.standard_normal(200)
    y = np.where(s + 0.5 * rng.standard_normal(200) > 0.3, 1.0, -1.0)
    b = best_offset(s, y)
    err = np.mean(np.where(s + b > 0, 1.0, -1.0) != y)
    grid = np.linspace(-3, 3, 6001)
    assert err <= min(np.mean(np.where(s - t > 0, 1.0, -1.0) != y) for t in grid) + 1e-12


def test_gaussian_kpca_matches_sklearn() -> None:
    from sklearn.decomposition import KernelPCA

    X = _X(n=30, seed=4)
    res = indefinite_kpca(Gaussian(gamma=0.5)(X), 2)
    skl = KernelPCA(n_components=2, kernel="rbf", gamma=0.5).fit(X)
    np.testing.assert_allclose(res.eigenvalues, skl.eigenvalues_, rtol=1e-8)
