"""Primal Newton SVM (004; Chapelle 2007) against the same squared-hinge problem in CVXPY."""

from __future__ import annotations

import warnings

import cvxpy as cp
import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from sdpkern.datasets import load_keel
from sdpkern.errors import DataError, LabelError, NotPSDError, ParameterError
from sdpkern.estimators import PrimalSVC
from sdpkern.kernels import Gaussian, SquaredEuclidean
from sdpkern.kernels.gram import CallableGram, KernelGram, PrecomputedGram
from sdpkern.native.primal_svm import (
    exact_line_search,
    primal_svm_kernel,
    primal_svm_linear,
    primal_svm_lowrank,
    squared_hinge_objective,
)


@pytest.fixture(autouse=True)
def _one_blas_thread():
    with threadpool_limits(1):
        yield


def _data(n: int = 200, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    ds = load_keel("pima")
    rng = np.random.default_rng(seed)
    idx = rng.permutation(ds.y.shape[0])[:n]
    X = ds.X[idx]
    return (X - X.mean(0)) / X.std(0), ds.y[idx]


def _cvxpy_kernel(K: np.ndarray, y: np.ndarray, C: float) -> float:
    lam, V = np.linalg.eigh(K)
    F = V * np.sqrt(np.clip(lam, 0.0, None))
    beta, b = cp.Variable(K.shape[0]), cp.Variable()
    obj = 0.5 * cp.sum_squares(F.T @ beta) + C * cp.sum_squares(cp.pos(1 - cp.multiply(y, K @ beta + b)))
    prob = cp.Problem(cp.Minimize(obj))
    prob.solve(solver="CLARABEL")
    return float(prob.value)


def _cvxpy_linear(X: np.ndarray, y: np.ndarray, C: float) -> float:
    w, b = cp.Variable(X.shape[1]), cp.Variable()
    obj = 0.5 * cp.sum_squares(w) + C * cp.sum_squares(cp.pos(1 - cp.multiply(y, X @ w + b)))
    prob = cp.Problem(cp.Minimize(obj))
    prob.solve(solver="CLARABEL")
    return float(prob.value)


@pytest.mark.parametrize("C", [0.1, 1.0, 30.0])
def test_kernel_newton_reaches_cvxpy_objective(C: float) -> None:
    """Acceptance: PrimalSVC's objective equals CVXPY's on the same problem to 1e-6 relative."""
    X, y = _data()
    K = Gaussian(gamma=0.1)(X)
    res = primal_svm_kernel(PrecomputedGram(K), y, C)
    assert res.converged and res.iterations <= 10
    ref = _cvxpy_kernel(K, y, C)
    assert abs(res.objective - ref) <= 1e-6 * ref
    # the objective reported is the one of the returned point
    out = K @ res.coef + res.intercept
    assert res.objective == pytest.approx(squared_hinge_objective(0.5 * float(res.coef @ K @ res.coef), out, y, C))
    # optimality: β_i = 2C y_i ξ_i on the support vectors, 0 elsewhere (stationarity of F)
    xi = np.maximum(0.0, 1 - y * out)
    np.testing.assert_allclose(res.coef, 2 * C * y * xi, atol=1e-8)
    assert abs(np.sum(res.coef)) < 1e-8


@pytest.mark.parametrize("C", [0.1, 5.0])
def test_linear_newton_reaches_cvxpy_objective(C: float) -> None:
    X, y = _data(seed=1)
    res = primal_svm_linear(X, y, C)
    assert res.converged
    ref = _cvxpy_linear(X, y, C)
    assert abs(res.objective - ref) <= 1e-6 * ref
    # the linear kernel through the kernel path gives the same w
    kres = primal_svm_kernel(PrecomputedGram(X @ X.T), y, C)
    np.testing.assert_allclose(X.T @ kres.coef, res.coef, atol=1e-6)
    assert kres.objective == pytest.approx(res.objective, rel=1e-9)


def test_weighted_linear_newton_is_the_hand_weighted_problem() -> None:
    """Issue 16: sample_weight is a per-point C. Checked against min ½‖w‖² + C Σ w_i ξ_i² written
    out in CVXPY (fractional weights, some zero) and against repeated points (integer weights)."""
    X, y = _data(n=120, seed=4)
    rng = np.random.default_rng(0)
    sw = rng.uniform(0.0, 3.0, y.shape[0]) * (rng.random(y.shape[0]) > 0.2)
    C = 0.7
    res = primal_svm_linear(X, y, C, sample_weight=sw)
    assert res.converged
    w, b = cp.Variable(X.shape[1]), cp.Variable()
    xi = cp.pos(1 - cp.multiply(y, X @ w + b))
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * cp.sum(cp.multiply(sw, cp.square(xi)))))
    prob.solve(solver="CLARABEL")
    assert abs(res.objective - prob.value) <= 1e-6 * prob.value
    np.testing.assert_allclose(res.coef, w.value, atol=1e-5)
    counts = rng.integers(0, 4, y.shape[0])
    keep = np.repeat(np.arange(y.shape[0]), counts)
    weighted = primal_svm_linear(X, y, C, sample_weight=counts)
    repeated = primal_svm_linear(X[keep], y[keep], C)
    np.testing.assert_allclose(weighted.coef, repeated.coef, atol=1e-10)
    assert weighted.intercept == pytest.approx(repeated.intercept, abs=1e-10)
    assert weighted.objective == pytest.approx(repeated.objective, rel=1e-10)
    # the low-rank route is the weighted linear solver on the factor G
    K = Gaussian(gamma=0.1)(X)
    lr = primal_svm_lowrank(PrecomputedGram(K), y, C, max_rank=120, eta=0.0, sample_weight=counts)
    Kr = K[np.ix_(keep, keep)]
    exact = primal_svm_kernel(PrecomputedGram(Kr), y[keep], C)
    np.testing.assert_allclose(
        K[:, lr.pivots] @ lr.coef + lr.intercept, K[:, keep] @ exact.coef + exact.intercept, atol=1e-5
    )


def test_weighted_kernel_newton_is_the_hand_weighted_problem() -> None:
    """sample_weight on the kernel Newton solver (point i's C is C·w_i): against
    min ½βᵀKβ + C Σ w_i ξ_i², ξ = max(0, 1 − y∘(Kβ + b)) written in CVXPY on a factor of K (fractional
    weights, some zero; objective to 1e-6 relative), against repeated points (integer weights, 1e-8,
    through the recursive warm start too), and ``PrimalSVC(solver="exact")`` carries the weights."""
    X, y = _data(n=90, seed=6)
    K = Gaussian(gamma=0.2)(X)
    rng = np.random.default_rng(1)
    sw = rng.uniform(0.0, 3.0, y.shape[0]) * (rng.random(y.shape[0]) > 0.2)
    C = 0.8
    res = primal_svm_kernel(PrecomputedGram(K), y, C, sample_weight=sw)
    assert res.converged and np.all(res.coef[sw == 0] == 0)
    evals, evecs = np.linalg.eigh(K)
    G = evecs * np.sqrt(np.clip(evals, 0.0, None))  # K = G Gᵀ: ½βᵀKβ = ½‖Gᵀβ‖²
    beta, b = cp.Variable(y.shape[0]), cp.Variable()
    xi = cp.pos(1 - cp.multiply(y, K @ beta + b))
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(G.T @ beta) + C * cp.sum(cp.multiply(sw, cp.square(xi)))))
    prob.solve(solver="CLARABEL")
    assert abs(res.objective - prob.value) <= 1e-6 * prob.value
    np.testing.assert_allclose(K @ res.coef + res.intercept, K @ beta.value + b.value, atol=1e-4)
    counts = rng.integers(0, 4, y.shape[0])
    keep = np.repeat(np.arange(y.shape[0]), counts)
    repeated = primal_svm_kernel(PrecomputedGram(K[np.ix_(keep, keep)]), y[keep], C)
    for size in (1000, 30):  # cold, and through the recursive half-data warm start
        weighted = primal_svm_kernel(PrecomputedGram(K), y, C, sample_weight=counts, warm_start_size=size)
        assert weighted.objective == pytest.approx(repeated.objective, rel=1e-8)
        np.testing.assert_allclose(
            K @ weighted.coef + weighted.intercept, K[:, keep] @ repeated.coef + repeated.intercept, atol=1e-8
        )
    clf = PrimalSVC(kernel="rbf", gamma=0.2, C=C, solver="exact").fit(X, y, sample_weight=sw)
    assert clf.status_ == "optimal" and clf.objective_ == pytest.approx(res.objective, rel=1e-9)


def test_warm_start_gives_the_same_optimum() -> None:
    X, y = _data(n=600, seed=2)
    K = Gaussian(gamma=0.1)(X)
    cold = primal_svm_kernel(PrecomputedGram(K), y, 2.0, warm_start_size=10_000)
    warm = primal_svm_kernel(PrecomputedGram(K), y, 2.0, warm_start_size=100)
    assert warm.objective == pytest.approx(cold.objective, rel=1e-10)
    np.testing.assert_allclose(warm.coef, cold.coef, atol=1e-8)


def test_lowrank_with_full_rank_is_exact() -> None:
    X, y = _data(n=120, seed=3)
    kern = Gaussian(gamma=0.1)
    K = kern(X)
    exact = primal_svm_kernel(PrecomputedGram(K), y, 1.0)
    lr = primal_svm_lowrank(PrecomputedGram(K), y, 1.0, max_rank=120, eta=0.0)
    assert lr.pivots.shape[0] > 100
    np.testing.assert_allclose(K[:, lr.pivots] @ lr.coef + lr.intercept, K @ exact.coef + exact.intercept, atol=1e-5)


def test_exact_line_search_is_the_minimiser() -> None:
    rng = np.random.default_rng(0)
    e, g = rng.standard_normal(40), rng.standard_normal(40)
    q1, q2, C = -3.0, 2.0, 0.7

    def f(t: float) -> float:
        return q1 * t + 0.5 * q2 * t * t + C * float(np.sum(np.maximum(0.0, e - t * g) ** 2))

    t = exact_line_search(q1, q2, e, g, C)
    grid = np.linspace(0, 5, 20001)
    assert f(t) <= min(f(s) for s in grid) + 1e-12


# --- bad input -------------------------------------------------------------------------------


def test_indefinite_kernel_is_refused_with_repairs_named() -> None:
    X, y = _data(n=60)
    K = -SquaredEuclidean()(X)  # c.p.d. but not p.d.: large negative eigenvalues
    K = K - 50 * np.eye(60)
    with pytest.raises(NotPSDError, match=r"smallest eigenvalue .*repair_spectrum") as err:
        primal_svm_kernel(PrecomputedGram(K), y, 1.0)
    assert err.value.min_eigenvalue is not None and err.value.min_eigenvalue < 0


def test_one_class_is_refused() -> None:
    X, _ = _data(n=30)
    with pytest.raises(LabelError, match="two classes"):
        primal_svm_linear(X, np.ones(30), 1.0)
    with pytest.raises(LabelError, match="two classes"):
        primal_svm_kernel(PrecomputedGram(X @ X.T), -np.ones(30), 1.0)


def test_parameter_and_shape_errors() -> None:
    X, y = _data(n=30)
    with pytest.raises(ParameterError, match="C must be > 0"):
        primal_svm_linear(X, y, 0.0)
    with pytest.raises(ParameterError, match="max_iter"):
        primal_svm_linear(X, y, 1.0, max_iter=0)
    with pytest.raises(DataError, match="y has 29 entries"):
        primal_svm_linear(X, y[:-1], 1.0)
    with pytest.raises(LabelError, match="-1/\\+1"):
        primal_svm_linear(X, np.where(y > 0, 2.0, 0.0), 1.0)


def test_max_iter_warns() -> None:
    X, y = _data(n=100)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        primal_svm_kernel(PrecomputedGram(Gaussian(gamma=0.1)(X)), y, 100.0, max_iter=1)
    assert any("did not settle" in str(w.message) for w in rec)


# --- lazy kernel columns, kept factor, warm start ----------------------------------------------


def test_warm_started_solver_reaches_cvxpy_objective() -> None:
    """The recursive warm start (C scaled per level) and the kept factor still give the optimum."""
    X, y = _data(n=400, seed=4)
    K = Gaussian(gamma=0.1)(X)
    res = primal_svm_kernel(PrecomputedGram(K), y, 3.0, warm_start_size=100)
    assert res.converged
    ref = _cvxpy_kernel(K, y, 3.0)
    assert abs(res.objective - ref) <= 1e-6 * ref


def test_factor_updates_match_a_fresh_solve() -> None:
    """Appending entering points and pinning leaving ones by multipliers solves the same system."""
    from sdpkern.native.primal_svm import _SupportFactor

    X, y = _data(n=150, seed=5)
    K = Gaussian(gamma=0.1)(X)
    lam = 0.25
    factor = _SupportFactor(PrecomputedGram(K), y, lam, np.ones((150, 1)))
    rng = np.random.default_rng(0)
    sv = np.sort(rng.choice(150, 90, replace=False))
    sets = [sv]
    for _ in range(4):  # a few leave, a few enter
        out = np.setdiff1d(np.arange(150), sv)
        sv = np.union1d(np.delete(sv, rng.choice(sv.shape[0], 6, replace=False)), rng.choice(out, 3, replace=False))
        sets.append(sv)
    sets.append(sv[5:])  # only leaving points: reuses the solved right-hand sides
    for sv in sets:
        beta, bvec = factor.newton_point(sv)
        b = float(bvec[0])
        m = sv.shape[0]
        A = np.zeros((m + 1, m + 1))
        A[:m, :m] = K[np.ix_(sv, sv)] + lam * np.eye(m)
        A[:m, m] = A[m, :m] = 1.0
        ref = np.linalg.solve(A, np.append(y[sv], 0.0))
        np.testing.assert_allclose(beta, ref[:m], atol=1e-9)
        assert b == pytest.approx(ref[m], abs=1e-9)
    assert factor.refactorisations < len(sets)  # the updates were used, not only refactorisations


def test_appended_factor_carries_solved_columns_and_matches_a_fresh_solve(monkeypatch) -> None:
    """After points are pinned (their columns e_j solved) and others appended, the solved columns
    are extended by block elimination (_extend_columns), not re-solved; the bordered system with a
    3-column unpenalised block U (000 eq. 17's polynomial part) is the dense solve's, to 1e-9."""
    from sdpkern.native.primal_svm import _SupportFactor

    X, y = _data(n=200, seed=6)
    K = Gaussian(gamma=0.1)(X)
    lam = 0.25
    U = np.linalg.qr(np.column_stack([np.ones(200), X[:, :2]]))[0]
    factor = _SupportFactor(PrecomputedGram(K), y, lam, U)
    extended: list[int] = []
    real = _SupportFactor._extend_columns
    monkeypatch.setattr(
        _SupportFactor,
        "_extend_columns",
        lambda self, R12, R22, new: extended.append(new.shape[0]) or real(self, R12, R22, new),
    )
    rng = np.random.default_rng(1)
    sv = np.sort(rng.choice(200, 120, replace=False))
    out = np.setdiff1d(np.arange(200), sv)
    sets = [sv, sv[10:], np.union1d(sv[12:], out[:4]), np.union1d(sv[15:], out[:5]), np.union1d(sv[15:], out[:30])]
    for sv in sets:
        beta, c = factor.newton_point(sv)
        m = sv.shape[0]
        A = np.zeros((m + 3, m + 3))
        A[:m, :m] = K[np.ix_(sv, sv)] + lam * np.eye(m)
        A[:m, m:] = U[sv]
        A[m:, :m] = U[sv].T
        ref = np.linalg.solve(A, np.concatenate([y[sv], np.zeros(3)]))
        np.testing.assert_allclose(beta, ref[:m], atol=1e-9)
        np.testing.assert_allclose(c, ref[m:], atol=1e-9)
    assert extended == [4, 1]  # the last set (25 more points) refactorises: cheaper by the flop count


def test_column_oracle_is_lazy_and_matches_the_dense_solve() -> None:
    ds = load_keel("banana")
    X, y = ds.X[:1500], ds.y[:1500]
    kern = Gaussian(gamma=0.5)
    K = kern(X)
    asked: list[np.ndarray] = []

    def entries(rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        asked.append(cols.copy())
        return kern(X[rows], X[cols])

    lazy = primal_svm_kernel(CallableGram(entries, n=1500, kind="entries"), y, 1.0)
    dense = primal_svm_kernel(PrecomputedGram(K), y, 1.0)
    assert lazy.objective == pytest.approx(dense.objective, rel=1e-12)
    np.testing.assert_allclose(lazy.coef, dense.coef, atol=1e-9)
    cols = np.concatenate(asked)
    assert np.unique(cols).shape[0] == cols.shape[0]  # every column computed once
    assert cols.shape[0] < 1500  # and not the whole kernel
    assert np.all(np.isin(np.nonzero(lazy.coef)[0], cols))


def test_lowrank_stops_on_the_residual_diagonal() -> None:
    ds = load_keel("banana")
    X, y = ds.X[:1200], ds.y[:1200]
    kern = Gaussian(gamma=0.5)
    lr = primal_svm_lowrank(KernelGram(kern, X), y, 1.0, eta=1e-3)
    assert 0 < lr.pivots.shape[0] < 300
    assert lr.residual_trace <= 1e-3 * 1200
    exact = primal_svm_kernel(CallableGram(lambda r, c: kern(X[r], X[c]), n=1200, kind="entries"), y, 1.0)
    f_lr = kern(X, X[lr.pivots]) @ lr.coef + lr.intercept
    f_ex = kern(X, X[exact.support]) @ exact.coef[exact.support] + exact.intercept
    assert np.mean(np.sign(f_lr) == np.sign(f_ex)) > 0.99
    assert lr.objective == pytest.approx(exact.objective, rel=1e-2)
