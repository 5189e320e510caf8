"""The β = 0 problem (000 §6.2) solved as a p.d. SVM on the kernel of f
(:func:`sdpkern.native.cpd_newton.cpd_beta_zero_svm`), checked by independent routes:

* against 000 Algorithm 1's β = 0 branch (eq. 18, ``cpd_primal_svm(beta_zero=True)``, systems of
  order n − k): objective and f to 1e-8 relative, α to 1e-6 (the same iterates up to round-off);
* against the CVXPY builder ``squared_hinge_beta_zero``: objective to 1e-6 relative;
* the rank-k formula K̃ = Φ − Q(QᵀΦQ − W)Qᵀ against ΦN(NᵀΦN)⁻¹NᵀΦ with an orthonormal N (1e-8);
* the warm-started Newton on K̃ (above 200 points) against Algorithm 1 (1e-8);
* ``ThinPlateSVC(solver="auto")`` on separable data takes it and matches ``solver="native"``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import null_space
from sklearn.exceptions import ConvergenceWarning

from sdpkern import ThinPlateSVC
from sdpkern.builders.cpd_svm import squared_hinge_beta_zero
from sdpkern.kernels.cpd import ThinPlate
from sdpkern.kernels.gram import PrecomputedGram
from sdpkern.native.cpd import newton as cpd_newton
from sdpkern.native.cpd.newton import beta_zero_kernel, cpd_beta_zero_svm, cpd_primal_svm, polynomial_factor

CASES = [(2, ThinPlate(2)), (2, ThinPlate(3)), (5, ThinPlate(3)), (5, ThinPlate(2, formula_dimension=2))]


def _data(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sign(X[:, 0] * X[:, 1] + np.sin(2 * X[:, 0]) + rng.normal(size=n))
    y[y == 0] = 1.0
    return X, y


@pytest.mark.parametrize(("d", "kernel"), CASES)
@pytest.mark.parametrize("lam", [1e-3, 0.1, 10.0])
def test_matches_algorithm1_beta_zero_branch(d, kernel, lam):
    X, y = _data(120, d, seed=7 * d + int(10 * lam))
    Phi, Q = kernel(X), polynomial_factor(X, kernel).Q
    ref = cpd_primal_svm(PrecomputedGram(Phi), Q, y, 1 / (2 * lam), beta_zero=True)
    new = cpd_beta_zero_svm(PrecomputedGram(Phi), Q, y, 1 / (2 * lam))
    assert ref.converged and new.converged
    assert abs(new.objective - ref.objective) <= 1e-8 * abs(ref.objective)
    assert np.linalg.norm(new.f - ref.f) <= 1e-8 * np.linalg.norm(ref.f)
    assert np.linalg.norm(new.alpha - ref.alpha) <= 1e-6 * np.linalg.norm(ref.alpha)
    assert np.abs(Q.T @ new.alpha).max() <= 1e-10 * np.abs(new.alpha).max()  # α ∈ 𝒫⊥
    assert np.allclose(new.f, Phi @ new.alpha, rtol=0, atol=1e-10 * np.abs(new.f).max())


@pytest.mark.parametrize(("d", "kernel"), CASES[:3])
def test_matches_cvxpy(d, kernel):
    X, y = _data(80, d, seed=3 + d)
    lam = 0.05
    new = cpd_beta_zero_svm(PrecomputedGram(kernel(X)), polynomial_factor(X, kernel).Q, y, 1 / (2 * lam))
    sol = squared_hinge_beta_zero(X, y, kernel, C=1 / (2 * lam)).solve()
    assert abs(new.objective - sol.objective) <= 1e-6 * abs(sol.objective)


@pytest.mark.parametrize(("d", "kernel"), CASES)
def test_kernel_of_f_is_a_rank_k_change_of_phi(d, kernel):
    # beta_zero_kernel forms only EᵀΦE and EᵀΦQ (not ΦE): checked against ΦN(NᵀΦN)⁻¹NᵀΦ with an
    # orthonormal N from scipy's SVD, and its α map against Φα = K̃c, Qᵀα = 0
    X, _ = _data(60, d, seed=1)
    Phi, Q = kernel(X), polynomial_factor(X, kernel).Q
    bz = beta_zero_kernel(Phi, Q)
    N = null_space(Q.T)  # orthonormal basis of 𝒫⊥
    PN = Phi @ N
    direct = PN @ np.linalg.solve(N.T @ Phi @ N, PN.T)
    assert np.abs(bz.K - direct).max() <= 1e-8 * np.abs(direct).max()
    assert np.array_equal(bz.K, bz.K.T)
    c = np.random.default_rng(2).normal(size=60)
    alpha = bz.coefficients(Phi, c)
    assert np.abs(Q.T @ alpha).max() <= 1e-10 * np.abs(alpha).max()
    assert np.abs(Phi @ alpha - bz.K @ c).max() <= 1e-8 * np.abs(bz.K @ c).max()


@pytest.mark.parametrize("n", [150, 420])  # a cold start, and a warm start from a random half
def test_warm_started_kernel_newton_matches_algorithm1(n):
    # above _BETA_ZERO_WARM_START points the Newton iteration on K̃ starts from the solution on a
    # random half: the same optimum as Algorithm 1's eq. (18) branch (1e-8, as above)
    assert (n > cpd_newton._BETA_ZERO_WARM_START) == (n == 420)
    X, y = _data(n, 2, seed=11)
    kernel = ThinPlate(2)
    Phi, Q = kernel(X), polynomial_factor(X, kernel).Q
    for lam in (1e-2, 1.0):
        ref = cpd_primal_svm(PrecomputedGram(Phi), Q, y, 1 / (2 * lam), beta_zero=True)
        new = cpd_beta_zero_svm(PrecomputedGram(Phi), Q, y, 1 / (2 * lam))
        assert ref.converged and new.converged
        assert abs(new.objective - ref.objective) <= 1e-8 * abs(ref.objective)
        assert np.linalg.norm(new.f - ref.f) <= 1e-8 * np.linalg.norm(ref.f)


def test_an_unsettled_iteration_warns_and_says_so():
    X, y = _data(120, 2, seed=4)
    kernel = ThinPlate(2)
    with pytest.warns(ConvergenceWarning, match="did not settle"):
        res = cpd_beta_zero_svm(PrecomputedGram(kernel(X)), polynomial_factor(X, kernel).Q, y, 500.0, max_iter=1)
    assert not res.converged


def test_estimator_auto_takes_it_and_matches_native(monkeypatch):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(150, 4))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)  # linearly separable: beta_zero="auto" → β = 0
    auto = ThinPlateSVC(C=3.0).fit(X, y)
    native = ThinPlateSVC(C=3.0, solver="native").fit(X, y)
    assert (auto.solver_, native.solver_) == ("beta_zero", "native") and auto.beta_zero_ and native.beta_zero_
    assert auto.status_ == "optimal"
    assert abs(auto.objective_ - native.objective_) <= 1e-8 * abs(native.objective_)
    Xt = rng.normal(size=(30, 4))
    fa, fn = auto.decision_function(Xt), native.decision_function(Xt)
    assert np.abs(fa - fn).max() <= 1e-6 * np.abs(fn).max()
