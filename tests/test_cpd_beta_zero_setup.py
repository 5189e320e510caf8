"""The small-n fast paths of the β = 0 route (issue 15) against the plain computations they replace:

* the echelon route's factor R (``_echelon_kernel``), formed by one BLAS syr2k on the upper triangle of Φ_NN, against
  the Cholesky factor of EᵀΦE built from its four blocks with dense products (1e-10 relative);
* with duplicated points (EᵀΦE singular) the jittered factor still solves the problem: the same
  optimum as 000 Algorithm 1's eq. 18 branch (objective 1e-6 relative);
* the operator reading K̃ = Φ + QLQᵀ without forming it (``_KernelOfF``) against the formed K̃:
  blocks and products (1e-13 relative);
* ``cpd_beta_zero_svm``'s objective, λαᵀf + Σξ², against ``squared_hinge_objective`` from Φ
  (1e-12 relative);
* its Newton loop with a fresh factor per step (``_beta_zero_newton``) against the kept-factor
  solver ``primal_svm_kernel`` on the same K̃ (coefficients 1e-9, objective 1e-10 relative) and
  against 000 Algorithm 1's eq. (18) branch and the CVXPY builder: cold, warm-started from
  halves, handed over to the kept-factor solver above the bound of violators, and re-solved by it when
  unsettled; typed errors through it (one class, labels not ±1, NaN, max_iter) and duplicated
  points (the jittered factor).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from sdpkern.builders.cpd_svm import squared_hinge_beta_zero
from sdpkern.errors import DataError, LabelError, ParameterError
from sdpkern.estimators import ThinPlateSVC
from sdpkern.kernels.cpd import ThinPlate, polynomial_factor, squared_hinge_objective
from sdpkern.kernels.gram import PrecomputedGram
from sdpkern.native.cpd import newton as cpd_newton
from sdpkern.native.cpd.newton import (
    _beta_zero_newton,
    _choose_pivots,
    _echelon_basis,
    _echelon_kernel,
    _KernelOfF,
    beta_zero_kernel,
    cpd_beta_zero_svm,
    cpd_primal_svm,
)
from sdpkern.native.primal_svm import primal_svm_kernel


def _data(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sign(X[:, 0] - 0.5 * X[:, 1] + 0.3 * rng.normal(size=n))
    y[y == 0] = 1.0
    return X, y


KERNELS = [(2, ThinPlate(2)), (5, ThinPlate(2, formula_dimension=2)), (3, ThinPlate(3))]


@pytest.mark.parametrize(("d", "kernel"), KERNELS)
def test_factor_of_the_null_space_gram_matches_dense_blocks(d, kernel):
    X, _ = _data(150, d, seed=d)
    Phi, Q = kernel(X), polynomial_factor(X, kernel).Q
    bz = _echelon_kernel(Phi, Q)
    piv = _choose_pivots(Q, np.arange(X.shape[0]))
    B, N, C = piv.B, bz.N, bz.C
    assert np.array_equal(np.sort(np.concatenate([B, N])), np.arange(X.shape[0]))
    A = Phi[np.ix_(N, N)] - Phi[np.ix_(N, B)] @ C - C.T @ Phi[np.ix_(B, N)] + C.T @ Phi[np.ix_(B, B)] @ C
    assert bz.jitter == 0.0
    RtR = bz.R.T @ bz.R
    assert np.abs(RtR - A).max() <= 1e-10 * np.abs(A).max()
    assert np.array_equal(bz.K, bz.K.T)
    assert isinstance(bz.operator, _KernelOfF)


def test_duplicated_points_jitter_and_match_algorithm1():
    X, y = _data(80, 2, seed=3)
    X = np.vstack([X, X[:10]])
    y = np.concatenate([y, y[:10]])
    kernel = ThinPlate(2)
    Phi, Q = kernel(X), polynomial_factor(X, kernel).Q
    assert beta_zero_kernel(Phi, Q).jitter > 0.0
    lam = 0.1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = cpd_beta_zero_svm(PrecomputedGram(Phi), Q, y, 1 / (2 * lam))
        ref = cpd_primal_svm(PrecomputedGram(Phi), Q, y, 1 / (2 * lam), beta_zero=True)
    assert abs(fast.objective - ref.objective) <= 1e-6 * ref.objective


def test_kernel_of_f_operator_reads_match_the_formed_matrix():
    X, _ = _data(90, 3, seed=4)
    kernel = ThinPlate(2, formula_dimension=2)
    Phi, Q = kernel(X), polynomial_factor(X, kernel).Q
    bz = beta_zero_kernel(Phi, Q)
    K, G = bz.K, bz.operator
    scale = np.abs(K).max()
    rows, cols = np.array([3, 1, 40, 7, 89]), np.array([5, 5, 0, 49, 2, 88])
    assert np.abs(G.block(rows, cols) - K[np.ix_(rows, cols)]).max() <= 1e-13 * scale
    assert G.ensure(cols)
    v = np.zeros(90)
    v[[2, 9, 33, 70]] = [1.5, -2.0, 0.25, 3.0]
    assert np.abs(G.matvec(v) - K @ v).max() <= 1e-13 * scale * np.abs(v).sum()
    assert np.abs(G.matvec(v, rows) - (K @ v)[rows]).max() <= 1e-13 * scale * np.abs(v).sum()
    assert np.array_equal(G.matvec(np.zeros(90), rows), np.zeros(5))
    assert np.array_equal(G.matvec(np.zeros(90)), np.zeros(90))


@pytest.mark.parametrize("lam", [1e-3, 0.5, 20.0])
def test_objective_from_f_matches_the_formula_from_phi(lam):
    X, y = _data(260, 3, seed=11)  # above 200 points: the warm-started route
    kernel = ThinPlate(2, formula_dimension=2)
    Phi, Q = kernel(X), polynomial_factor(X, kernel).Q
    res = cpd_beta_zero_svm(PrecomputedGram(Phi), Q, y, 1 / (2 * lam))
    direct = squared_hinge_objective(Phi, res.alpha, Phi @ res.alpha, y, lam)
    assert abs(res.objective - direct) <= 1e-12 * direct
    assert np.abs(res.f - Phi @ res.alpha).max() <= 1e-12 * max(1.0, np.abs(res.f).max())


@pytest.mark.parametrize("d", [2, 5, 30])
def test_echelon_basis_from_the_qr_matches_the_general_route(d):
    X, _ = _data(300, d, seed=d + 1)
    Q = polynomial_factor(X, ThinPlate(2, formula_dimension=2)).Q
    piv, N, C = _echelon_basis(Q)
    ref = _choose_pivots(Q, np.arange(X.shape[0]))
    N_ref = np.setdiff1d(np.arange(X.shape[0]), ref.B)
    assert np.array_equal(piv.B, ref.B) and np.array_equal(N, N_ref)
    C_ref = ref.coef(Q, N_ref)
    assert np.abs(C - C_ref).max() <= 1e-12 * np.abs(C_ref).max()
    E = np.zeros((X.shape[0], N.size))  # E = [−C; I] spans the null space of Qᵀ
    E[N, np.arange(N.size)] = 1.0
    E[piv.B] = -C
    assert np.abs(Q.T @ E).max() <= 1e-12 * np.abs(E).max()


def test_echelon_basis_rank_deficient_takes_the_general_route():
    X, _ = _data(60, 2, seed=5)
    Q = polynomial_factor(X, ThinPlate(2)).Q
    Qd = np.column_stack([Q, Q[:, 0]])  # a repeated column: Qᵀ has rank k − 1
    piv, N, C = _echelon_basis(Qd)
    ref = _choose_pivots(Qd, np.arange(60))
    assert np.array_equal(piv.B, ref.B) and piv.B.size == Q.shape[1]
    assert np.array_equal(C, ref.coef(Qd, N))


def _kept_factor_reference(bz, y, C):
    """The previous route: primal_svm_kernel (one factor kept across steps) on the same K̃."""
    return primal_svm_kernel(bz.operator, y, C, unpenalized=np.zeros((y.shape[0], 0)), max_iter=100,
                             warm_start_size=cpd_newton._BETA_ZERO_WARM_START)  # fmt: skip


@pytest.mark.parametrize(
    ("n", "C", "route"),
    [
        (150, 1.0, "cold"),  # ≤ 200 points: one level
        (420, 0.5, "halves"),  # warm-started from the nested halves
        (420, 100.0, "halves"),
        (400, 0.005, "handover"),  # every point a violator: > the bound (300 here), the kept-factor solver takes over
    ],
)
def test_fresh_factor_newton_matches_the_kept_factor_solver(n, C, route, monkeypatch):
    X, y = _data(n, 3, seed=n)
    kernel = ThinPlate(2, formula_dimension=2)
    Phi, Q = kernel(X), polynomial_factor(X, kernel).Q
    bz = beta_zero_kernel(Phi, Q)
    handed = []

    def spy(*args, **kwargs):
        handed.append(kwargs.get("init") is not None)
        return primal_svm_kernel(*args, **kwargs)

    monkeypatch.setattr(cpd_newton, "primal_svm_kernel", spy)
    if route == "handover":  # the bound (1000) exceeds n: lowered to hand a set over
        monkeypatch.setattr(cpd_newton, "_BETA_ZERO_REFACTOR_MAX", 300)
    c, steps, settled, nf = _beta_zero_newton(bz, y, C, 100)
    assert handed == ([True] if route == "handover" else [])  # handed over with its iterate, or never
    ref = _kept_factor_reference(bz, y, C)
    assert settled and ref.converged and steps >= 1 and nf >= steps
    assert np.abs(c - ref.coef).max() <= 1e-9 * np.abs(ref.coef).max()
    lam = 1.0 / (2.0 * C)
    res = cpd_beta_zero_svm(PrecomputedGram(Phi), Q, y, 1 / (2 * lam))
    assert res.converged
    assert abs(res.objective - 2.0 * lam * ref.objective) <= 1e-10 * res.objective
    if n <= 200:  # and 000 Algorithm 1's eq. (18) branch, as printed (1e-8; at 420 points in test_cpd_beta_zero_kernel)
        alg1 = cpd_primal_svm(PrecomputedGram(Phi), Q, y, 1 / (2 * lam), beta_zero=True)
        assert abs(res.objective - alg1.objective) <= 1e-8 * alg1.objective


def test_fresh_factor_newton_matches_cvxpy():
    X, y = _data(90, 2, seed=21)
    kernel = ThinPlate(2)
    lam = 0.05
    res = cpd_beta_zero_svm(PrecomputedGram(kernel(X)), polynomial_factor(X, kernel).Q, y, 1 / (2 * lam))
    sol = squared_hinge_beta_zero(X, y, kernel, C=1 / (2 * lam)).solve()
    assert res.converged and abs(res.objective - sol.objective) <= 1e-6 * abs(sol.objective)


def test_unsettled_levels_are_re_solved_by_the_kept_factor_solver(monkeypatch):
    X, y = _data(260, 2, seed=5)
    kernel = ThinPlate(2)
    Phi, Q = kernel(X), polynomial_factor(X, kernel).Q
    bz = beta_zero_kernel(Phi, Q)
    calls = []
    monkeypatch.setattr(cpd_newton, "_newton_on_points", lambda *a: (calls.append(1), (a[6], 0, False))[1])
    c, _, settled, _ = _beta_zero_newton(bz, y, 2.0, 100)
    ref = _kept_factor_reference(bz, y, 2.0)
    assert calls and settled
    assert np.abs(c - ref.coef).max() <= 1e-12 * np.abs(ref.coef).max()


def test_fresh_factor_newton_typed_errors():
    X, y = _data(120, 2, seed=8)
    kernel = ThinPlate(2)
    Phi, Q = kernel(X), polynomial_factor(X, kernel).Q
    with pytest.raises(LabelError, match="two classes"):
        cpd_beta_zero_svm(PrecomputedGram(Phi), Q, np.ones(120), 5.0)
    with pytest.raises(LabelError, match="-1/\\+1"):
        cpd_beta_zero_svm(PrecomputedGram(Phi), Q, np.where(y > 0, 2.0, -1.0), 5.0)
    with pytest.raises(ParameterError, match="max_iter"):
        cpd_beta_zero_svm(PrecomputedGram(Phi), Q, y, 5.0, max_iter=0)
    with pytest.raises(ParameterError, match="C must be > 0"):
        cpd_beta_zero_svm(PrecomputedGram(Phi), Q, y, -1.0)
    # through the estimator (its validation runs before the route): NaN, one class
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(DataError):
        ThinPlateSVC(beta_zero=True).fit(Xn, y)
    with pytest.raises((LabelError, ValueError)):
        ThinPlateSVC(beta_zero=True).fit(X, np.ones(120))
    # duplicated points (EᵀΦE singular, the jittered factor): the estimator's β = 0 fit agrees
    # with 000 Algorithm 1's (solver="native") to 1e-6
    Xd, yd = np.vstack([X, X[:15]]), np.concatenate([y, y[:15]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = ThinPlateSVC(order=2, formula_dimension=None, beta_zero=True, C=5.0).fit(Xd, yd)
        ref = ThinPlateSVC(order=2, formula_dimension=None, beta_zero=True, C=5.0, solver="native").fit(Xd, yd)
    assert abs(fast.objective_ - ref.objective_) <= 1e-6 * ref.objective_
