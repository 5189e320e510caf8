"""Krylov solvers (002 Figures 5.1-5.2): one contract suite over CG, MR, CGNE and MR-II."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator, minres
from threadpoolctl import threadpool_limits

from sdpkern.errors import BreakdownError, DataError, ParameterError
from sdpkern.native.early_stopping import cv_stopping_index, discrepancy_stop
from sdpkern.native.krylov import SOLVERS, KrylovResult, cg, get_solver, mr, mr_ii

N = 200


@pytest.fixture(autouse=True)
def _one_blas_thread():
    with threadpool_limits(1):
        yield


def _system(kind: str, seed: int = 0, low: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric A = Q diag(λ) Qᵀ with |λ| in [low, 10]; half the signs negative if indefinite."""
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((N, N)))
    lam = rng.uniform(low, 10.0, N)
    if kind == "indefinite":
        lam *= np.where(rng.random(N) < 0.5, -1.0, 1.0)
    A = (Q * lam) @ Q.T
    return (A + A.T) / 2, rng.standard_normal(N)


@pytest.mark.parametrize("kind", ["spd", "indefinite"])
@pytest.mark.parametrize("method", sorted(SOLVERS))
def test_matches_numpy_solve(method: str, kind: str) -> None:
    """Acceptance: every solver run to convergence matches numpy.linalg.solve to 1e-8 relative."""
    A, b = _system(kind)
    res = SOLVERS[method](A, b, rtol=1e-13)
    x_ref = np.linalg.solve(A, b)
    assert res.info == 0
    assert np.linalg.norm(res.x - x_ref) / np.linalg.norm(x_ref) < 1e-8


@pytest.mark.parametrize("method", sorted(SOLVERS))
def test_linear_operator_and_sparse_give_same_iterates(method: str) -> None:
    A, b = _system("indefinite", seed=1)
    dense = SOLVERS[method](A, b, max_iter=15, rtol=0.0)
    op = SOLVERS[method](LinearOperator(A.shape, matvec=lambda v: A @ v, dtype=float), b, max_iter=15, rtol=0.0)
    sparse = SOLVERS[method](sp.csr_matrix(A), b, max_iter=15, rtol=0.0)
    np.testing.assert_allclose(op.x, dense.x, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(sparse.x, dense.x, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind", ["spd", "indefinite"])
def test_mr_residuals_match_scipy_minres_every_step(kind: str) -> None:
    """Acceptance: MR's residual norms equal MINRES's at every step, to 1e-8 (relative to ‖b‖)."""
    A, b = _system(kind, seed=2)
    ref: list[float] = []
    minres(A, b, rtol=1e-12, maxiter=400, callback=lambda xk: ref.append(float(np.linalg.norm(b - A @ xk))))
    res = mr(A, b, rtol=1e-12, return_iterates=True)
    m = min(len(ref), res.iterations)
    assert m > 20
    ours = np.linalg.norm(b[None, :] - res.iterates[1 : m + 1] @ A, axis=1)
    assert np.max(np.abs(ours - np.array(ref[:m]))) / np.linalg.norm(b) < 1e-8
    # the recurrence-updated residual norms agree with the true ones
    assert np.max(np.abs(ours - res.residual_norms[1 : m + 1])) / np.linalg.norm(b) < 1e-8


@pytest.mark.parametrize("method", sorted(SOLVERS))
def test_minimal_residual_properties(method: str) -> None:
    """MR and MR-II never increase ‖r‖ (they minimise it over nested spaces); CGNE neither."""
    A, b = _system("indefinite", seed=3)
    res = SOLVERS[method](A, b, max_iter=40, rtol=0.0)
    if method in ("mr", "mr_ii", "cgne"):
        assert np.all(np.diff(res.residual_norms) <= 1e-12 * np.linalg.norm(b))


def test_mr_ii_beats_over_shifted_krylov_space() -> None:
    """MR-II minimises ‖b − Ax‖ over span{Ab, …, A^k b}: compare with a direct least squares."""
    A, b = _system("indefinite", seed=4)
    k = 6
    res = mr_ii(A, b, max_iter=k, rtol=0.0)
    basis = np.column_stack([np.linalg.matrix_power(A, j) @ b for j in range(1, k + 1)])
    Qb, _ = np.linalg.qr(basis)
    c = np.linalg.lstsq(A @ Qb, b, rcond=None)[0]
    assert abs(np.linalg.norm(b - A @ res.x) - np.linalg.norm(b - A @ Qb @ c)) < 1e-9 * np.linalg.norm(b)


@pytest.mark.parametrize("method", sorted(SOLVERS))
def test_callback_streams_the_iterates(method: str) -> None:
    A, b = _system("spd", seed=5)
    seen: list[np.ndarray] = []
    res = SOLVERS[method](A, b, max_iter=7, rtol=0.0, callback=lambda xk: seen.append(xk.copy()), return_iterates=True)
    assert isinstance(res, KrylovResult)
    assert res.iterations == 7 == len(seen)
    assert res.info == 7  # not converged: iteration count
    np.testing.assert_array_equal(np.array(seen), res.iterates[1:])
    assert res.residual_norms.shape == (8,)


@pytest.mark.parametrize("method", sorted(SOLVERS))
def test_x0_is_used(method: str) -> None:
    A, b = _system("spd", seed=6)
    x_ref = np.linalg.solve(A, b)
    res = SOLVERS[method](A, b, x0=x_ref, rtol=1e-10)
    assert res.iterations == 0 and res.info == 0


# --- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize("method", sorted(SOLVERS))
def test_non_symmetric_matrix_is_refused(method: str) -> None:
    A, b = _system("spd")
    A[0, 1] += 1.0
    with pytest.raises(DataError, match="A must be symmetric"):
        SOLVERS[method](A, b)


def test_non_symmetric_operator_is_refused() -> None:
    rng = np.random.default_rng(0)
    M = rng.standard_normal((20, 20))
    with pytest.raises(DataError, match="symmetric operator"):
        cg(LinearOperator((20, 20), matvec=lambda v: M @ v, dtype=float), np.ones(20))


@pytest.mark.parametrize("method", ["cg", "mr"])
def test_breakdown_raises_with_partial_result(method: str) -> None:
    """diag(1, −1) with b = (1, 1): bᵀAb = 0, a zero denominator in CG and in MR at step 0."""
    A = np.diag([1.0, -1.0])
    with pytest.raises(BreakdownError, match=rf"{method}: Krylov breakdown at iteration 0") as err:
        SOLVERS[method](A, np.ones(2))
    assert err.value.result.info < 0
    assert err.value.status == "breakdown"


def test_mr_ii_does_not_break_down_where_cg_does() -> None:
    A = np.diag([1.0, -1.0])
    res = mr_ii(A, np.ones(2), rtol=1e-12)
    np.testing.assert_allclose(res.x, [1.0, -1.0], atol=1e-12)


@pytest.mark.parametrize("method", sorted(SOLVERS))
@pytest.mark.parametrize("max_iter", [0, -3, 2.5, True])
def test_max_iter_below_one_is_refused(method: str, max_iter: object) -> None:
    A, b = _system("spd")
    with pytest.raises(ParameterError, match="max_iter must be an integer >= 1"):
        SOLVERS[method](A, b, max_iter=max_iter)


@pytest.mark.parametrize("method", sorted(SOLVERS))
def test_scipy_name_maxiter_is_deprecated_but_works(method: str) -> None:
    A, b = _system("spd")
    with pytest.warns(FutureWarning, match="'maxiter' is deprecated") as record:
        old = SOLVERS[method](A, b, maxiter=5, rtol=0.0)
    assert record[0].filename == __file__  # the warning points at the caller's line
    new = SOLVERS[method](A, b, max_iter=5, rtol=0.0)
    np.testing.assert_array_equal(old.x, new.x)
    assert old.iterations == new.iterations == 5


def test_shape_and_tolerance_errors() -> None:
    A, b = _system("spd")
    with pytest.raises(DataError, match="b must be a vector of length"):
        cg(A, b[:-1])
    with pytest.raises(DataError, match="A must be square"):
        cg(A[:, :-1], b)
    with pytest.raises(DataError, match="x0"):
        cg(A, b, x0=np.ones(3))
    with pytest.raises(ParameterError, match="rtol"):
        cg(A, b, rtol=-1.0)
    with pytest.raises(ParameterError, match="method must be one of"):
        get_solver("gmres")


# --- early stopping --------------------------------------------------------------------------


def _noisy_problem(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    rng = np.random.default_rng(seed)
    n = 120
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    lam = 0.9 ** np.arange(n)  # ill-posed: fast decay
    K = (Q * lam) @ Q.T
    K = (K + K.T) / 2
    x_true = Q[:, :5] @ rng.standard_normal(5)
    noise = 1e-3 * rng.standard_normal(n)
    return K, K @ x_true + noise, x_true, float(np.linalg.norm(noise))


def test_semi_convergence_and_discrepancy_rule() -> None:
    """002 §5.4: the error of MR first falls then grows; the discrepancy rule stops near its minimum."""
    K, y, x_true, delta = _noisy_problem()
    res = mr(K, y, max_iter=60, rtol=0.0, return_iterates=True)
    err = np.linalg.norm(res.iterates - x_true, axis=1)
    k_best = int(np.argmin(err))
    assert 0 < k_best < res.iterations and err[-1] > 2 * err[k_best]
    stop = discrepancy_stop(K, y, delta, method="mr", tau=1.1, max_iter=60)
    assert stop.info == 0 and stop.residual_norms[-1] <= 1.1 * delta
    assert stop.residual_norms[-2] > 1.1 * delta  # the first such k
    assert np.linalg.norm(stop.x - x_true) < 2 * err[k_best]


def test_cv_stopping_index_picks_the_validation_minimum() -> None:
    K, y, x_true, _ = _noisy_problem(1)

    def make_fold(tr, va):
        return K[np.ix_(tr, tr)], y[tr], lambda a: float(np.mean((K[np.ix_(va, tr)] @ a - y[va]) ** 2))

    choice = cv_stopping_index(make_fold, K.shape[0], method="cgne", max_iter=25, cv=4)
    assert choice.mean_loss.shape == (25,) and choice.fold_loss.shape == (4, 25)
    assert choice.n_iter == int(np.argmin(choice.mean_loss)) + 1
    with pytest.raises(ParameterError, match="max_iter"):
        cv_stopping_index(make_fold, K.shape[0], max_iter=0)
    with pytest.raises(ParameterError, match="tau must be > 1"):
        discrepancy_stop(K, y, 1.0, tau=0.5)
