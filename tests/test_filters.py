"""Filter functions (002 §5.3): the Krylov filter factors rebuild the iterates; fixed filters."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from sdpkern.errors import DataError, ParameterError
from sdpkern.kernels import Gaussian
from sdpkern.native.filters import (
    cg_residual_recurrence,
    filter_factors,
    filtered_solution,
    iteration_polynomials,
    landweber_filter,
    residual_polynomials,
    ridge_filter,
    tikhonov_filter,
    tsf_filter,
)
from sdpkern.native.krylov import SOLVERS, mr

N = 200


@pytest.fixture(autouse=True)
def _one_blas_thread():
    with threadpool_limits(1):
        yield


def _system(kind: str, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((N, N)))
    lam = rng.uniform(2.0, 10.0, N)
    if kind == "indefinite":
        lam *= np.where(rng.random(N) < 0.5, -1.0, 1.0)
    A = (Q * lam) @ Q.T
    return (A + A.T) / 2, rng.standard_normal(N)


@pytest.mark.parametrize("kind", ["spd", "indefinite"])
@pytest.mark.parametrize("method", sorted(SOLVERS))
def test_filter_factors_rebuild_every_iterate(method: str, kind: str) -> None:
    """Acceptance: Σ_i φ(λ_i, k) ⟨y, u_i⟩/λ_i u_i = α_k for every k, to 1e-8 relative."""
    A, y = _system(kind)
    lam, U = np.linalg.eigh(A)
    res = SOLVERS[method](A, y, rtol=1e-10, return_iterates=True)
    phi = filter_factors(res, lam)
    assert phi.shape == (res.iterations + 1, N)
    for k in range(1, res.iterations + 1):
        rebuilt = filtered_solution(A, y, phi[k], eig=(lam, U))
        assert np.linalg.norm(rebuilt - res.iterates[k]) <= 1e-8 * np.linalg.norm(res.iterates[k])
    # converged: every filter factor is 1 (the unregularised inverse)
    np.testing.assert_allclose(phi[-1], 1.0, atol=1e-6)


@pytest.mark.parametrize("method", ["cg", "mr"])
def test_three_term_recurrence_agrees(method: str) -> None:
    """002 eq. (5.3) (Proposition 35) gives the same residual polynomials as the replay."""
    A, y = _system("spd", seed=3)
    lam = np.linalg.eigvalsh(A)
    res = SOLVERS[method](A, y, max_iter=20, rtol=0.0)
    np.testing.assert_allclose(cg_residual_recurrence(res, lam), residual_polynomials(res, lam), atol=1e-9)


def test_krylov_filters_on_a_kernel_are_sharper_than_fixed_ones() -> None:
    """002 Figures 5.3-5.7: a few iterations already set the leading eigenvalues' factors near 1."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((150, 3))
    K = Gaussian(gamma=0.5)(X)
    K /= np.linalg.norm(K, 2)
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(150)
    lam = np.linalg.eigvalsh(K)
    res = mr(K, y, max_iter=8, rtol=0.0)
    phi = filter_factors(res, lam)
    top = np.argsort(lam)[-3:]
    assert np.all(np.abs(phi[8, top] - 1.0) < 0.05)
    small = np.abs(lam) < 1e-6
    assert np.all(np.abs(phi[8, small]) < 1e-3)  # noise directions stay filtered out
    # the polynomial can be evaluated anywhere, e.g. on a plotting grid
    grid = np.linspace(-0.1, 1.0, 50)
    assert iteration_polynomials(res, grid).shape == (9, 50)


def test_fixed_filters() -> None:
    lam = np.array([-2.0, -0.1, 0.0, 0.1, 0.5, 2.0])
    np.testing.assert_array_equal(tsf_filter(lam, 0.5), [1, 0, 0, 0, 1, 1])
    np.testing.assert_allclose(tikhonov_filter(lam[3:], 5.0), lam[3:] / (lam[3:] + 5.0))
    np.testing.assert_allclose(ridge_filter(lam, 5.0), lam**2 / (lam**2 + 5.0))
    np.testing.assert_allclose(landweber_filter(lam, 0.2, 7), 1 - (1 - 0.2 * lam) ** 7)
    # Tikhonov filter = the solution of (K + γI)α = y (002 §5.3.2), Landweber = k gradient steps
    rng = np.random.default_rng(0)
    B = rng.standard_normal((30, 30))
    K = B @ B.T / 30
    y = rng.standard_normal(30)
    ev, U = np.linalg.eigh(K)
    np.testing.assert_allclose(
        filtered_solution(K, y, tikhonov_filter(ev, 0.3)), np.linalg.solve(K + 0.3 * np.eye(30), y), rtol=1e-9
    )
    np.testing.assert_allclose(
        filtered_solution(K, y, ridge_filter(ev, 0.3)), np.linalg.solve(K @ K + 0.3 * np.eye(30), K @ y), rtol=1e-8
    )
    g, a = 0.5 / ev.max(), np.zeros(30)
    for _ in range(7):
        a = a - g * (K @ a - y)  # Landweber on K α = y, symmetric K
    np.testing.assert_allclose(filtered_solution(K, y, landweber_filter(ev, g, 7)), a, rtol=1e-9)


def test_filter_errors() -> None:
    with pytest.raises(ParameterError, match="gamma"):
        ridge_filter([1.0], 0.0)
    with pytest.raises(ParameterError, match="k must be"):
        landweber_filter([1.0], 0.1, -1)
    with pytest.raises(DataError, match="phi must have one value per eigenvalue"):
        filtered_solution(np.eye(3), np.ones(3), np.ones(2))
