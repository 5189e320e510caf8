"""Native c.p.d. Newton solver (000 Algorithm 1) checked by independent routes.

* against the CVXPY builders (same optimum, 1e-6 relative; both variants; d = 2 orders 2, 3
  and d = 5 order 3 — the thin-plate kernel of order 2 does not exist in d = 5, 2m ≤ d);
* with every point a margin violator, against the saddle system (000 eq. 17) and
  scipy's RBFInterpolator (thin_plate_spline, degree 1, smoothing = λ) to 1e-8;
* invariances (000 §5, eq. 13) to 1e-8;
* rank-one Cholesky path against refactorising; recursive warm start against none.
"""

from __future__ import annotations

import numpy as np
import pytest
from algorithm1 import CPDPrimalSVM
from scipy.interpolate import RBFInterpolator
from scipy.stats import special_ortho_group

from sdpkern.builders.cpd_svm import squared_hinge, squared_hinge_beta_zero
from sdpkern.errors import DataError, ParameterError
from sdpkern.estimators.cpd import polynomially_separable
from sdpkern.kernels import Gaussian
from sdpkern.kernels.cpd import PowerDistance, ThinPlate
from sdpkern.kernels.gram import PrecomputedGram
from sdpkern.native.cpd.newton import cpd_primal_svm, polynomial_factor


def _data(n: int, d: int, seed: int, noise: float = 0.3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sign(X[:, 0] * X[:, 1] + np.sin(2 * X[:, 0]) + noise * rng.normal(size=n))
    y[y == 0] = 1.0
    return X, y


CASES = [(2, 2), (2, 3), (5, 3)]


def _compare_with_cvxpy(n, d, m, beta_zero, lam, seed, kernel=None):
    kernel = ThinPlate(m) if kernel is None else kernel
    X, y = _data(n, d, seed, noise=1.0)
    # premise: not separable by the polynomial space (else eq. 14 has no unique minimiser, 000 §6.2)
    assert not polynomially_separable(polynomial_factor(X, kernel).P, y)
    nat = CPDPrimalSVM(kernel, 1 / (2 * lam), beta_zero=beta_zero).fit(X, y)
    build = squared_hinge_beta_zero if beta_zero else squared_hinge
    sol = build(X, y, kernel, C=1 / (2 * lam)).solve()
    rel = abs(nat.objective_ - sol.objective) / abs(sol.objective)
    assert nat.result_.converged
    assert rel < 1e-6, (rel, nat.objective_, sol.objective)
    # and the two decision functions agree on new points
    Xt = np.random.default_rng(seed + 7).normal(size=(20, d))
    ft, fc = nat.decision_function(Xt), sol.decision_function(Xt)
    assert np.abs(ft - fc).max() < 1e-3 * max(1.0, np.abs(fc).max())


@pytest.mark.parametrize("beta_zero", [False, True])
@pytest.mark.parametrize(("d", "m"), CASES)
def test_native_matches_cvxpy(d, m, beta_zero):
    _compare_with_cvxpy(80 if d == 2 else 100, d, m, beta_zero, 0.05, seed=10 * d + m)


@pytest.mark.slow
@pytest.mark.parametrize("beta_zero", [False, True])
@pytest.mark.parametrize(("d", "m"), CASES)
@pytest.mark.parametrize("lam", [1e-3, 0.1])
def test_native_matches_cvxpy_n300(d, m, beta_zero, lam):
    """Acceptance: n = 300 random instances, 1e-6 relative."""
    _compare_with_cvxpy(300, d, m, beta_zero, lam, seed=100 + 10 * d + m)


@pytest.mark.slow
@pytest.mark.parametrize("beta_zero", [False, True])
@pytest.mark.parametrize("lam", [1e-3, 0.1])
def test_native_matches_cvxpy_n300_d5_second_order(beta_zero, lam):
    """Acceptance, order 2 in d = 5: eq. (11) with 2m ≤ d is not c.p.d., so the second-order
    thin-plate of 000 §6.1/§7 in R⁵ is r² log r with affine 𝒫 (``formula_dimension=2``)."""
    _compare_with_cvxpy(300, 5, 2, beta_zero, lam, seed=152, kernel=ThinPlate(2, formula_dimension=2))


def test_pd_kernel_empty_polynomial_space_matches_cvxpy():
    X, y = _data(70, 3, 4)
    nat = CPDPrimalSVM(Gaussian(0.5), 5.0).fit(X, y)
    sol = squared_hinge(X, y, Gaussian(0.5), C=5.0).solve()
    assert nat.factor_.rank == 0 and nat.beta_.size == 0
    assert abs(nat.objective_ - sol.objective) / sol.objective < 1e-6


def test_power_distance_matches_cvxpy():
    X, y = _data(60, 4, 5)
    nat = CPDPrimalSVM(PowerDistance(1.0), 10.0).fit(X, y)
    sol = squared_hinge(X, y, PowerDistance(1.0), C=10.0).solve()
    assert abs(nat.objective_ - sol.objective) / sol.objective < 1e-6


# ----------------------------------------------------------------------------- all violators
def _all_violator_instance(d=2, n=60, lam=5.0, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, d))
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)  # labels without structure: every point violates
    return X, y, lam


@pytest.mark.parametrize("m", [2, 3])
def test_all_violators_is_the_saddle_system(m):
    X, y, lam = _all_violator_instance()
    model = CPDPrimalSVM(ThinPlate(m), 1 / (2 * lam)).fit(X, y)
    assert model.result_.violators.size == X.shape[0]  # the premise: every point a violator
    Phi = ThinPlate(m)(X)
    P = model.factor_.P
    n, r = P.shape
    # 000 eq. (17) (with our P of shape n×r): [[λI + Φ, P], [Pᵀ, 0]] [α; β] = [y; 0]
    K = np.block([[lam * np.eye(n) + Phi, P], [P.T, np.zeros((r, r))]])
    sol = np.linalg.solve(K, np.r_[y, np.zeros(r)])
    np.testing.assert_allclose(model.alpha_, sol[:n], atol=1e-8)
    np.testing.assert_allclose(model.beta_, sol[n:], atol=1e-8)
    # the CVXPY builder reaches the same model (to its solver tolerance)
    cv = squared_hinge(X, y, ThinPlate(m), C=1 / (2 * lam)).solve()
    np.testing.assert_allclose(cv.alpha, sol[:n], atol=1e-6)


def test_all_violators_equals_scipy_rbf_interpolator():
    """scipy solves (Φ + smoothing·I) a + P b = y, Pᵀa = 0 with φ = r² log r: smoothing = λ."""
    X, y, lam = _all_violator_instance()
    model = CPDPrimalSVM(ThinPlate(2), 1 / (2 * lam)).fit(X, y)
    assert model.result_.violators.size == X.shape[0]
    rbf = RBFInterpolator(X, y, kernel="thin_plate_spline", degree=1, smoothing=lam)
    Xt = np.random.default_rng(3).uniform(-1.5, 1.5, size=(200, 2))
    np.testing.assert_allclose(model.decision_function(Xt), rbf(Xt), atol=1e-8)
    np.testing.assert_allclose(model.decision_function(X), rbf(X), atol=1e-8)


# ----------------------------------------------------------------------------- invariances
@pytest.mark.parametrize("beta_zero", [False, True])
@pytest.mark.parametrize(("d", "m"), [(2, 2), (3, 2), (2, 3)])
def test_rotation_translation_invariance(d, m, beta_zero):
    X, y = _data(70, d, 21)
    Xt = np.random.default_rng(5).normal(size=(30, d))
    A = special_ortho_group.rvs(d, random_state=1)
    a = np.array([3.0, -2.0, 0.5][:d])
    m0 = CPDPrimalSVM(ThinPlate(m), 10.0, beta_zero=beta_zero).fit(X, y)
    m1 = CPDPrimalSVM(ThinPlate(m), 10.0, beta_zero=beta_zero).fit(X @ A.T + a, y)
    f0, f1 = m0.decision_function(Xt), m1.decision_function(Xt @ A.T + a)
    assert np.abs(f0 - f1).max() <= 1e-8


@pytest.mark.parametrize(("d", "m"), [(2, 2), (2, 3), (3, 2), (1, 1)])
@pytest.mark.parametrize("s", [0.25, 3.0])
def test_scaling_is_a_change_of_lambda(d, m, s):
    """Fit on sX with λ ≡ fit on X with λ·s^{d−2m} (000 eq. 13, Corollary 2.3).

    ‖f∘W_s‖² = s^{2m−d}‖f‖²: for g(x) = f(x/s) fitted on sX, λ‖g‖² = λ s^{d−2m}‖f‖².
    """
    if d > 1:
        X, y = _data(60, d, 31)
    else:
        t = np.linspace(-2, 2, 40)
        X, y = t[:, None], np.sign(np.sin(3 * t) + 0.1)
    Xt = np.random.default_rng(8).normal(size=(25, d))
    lam = 0.05
    ms = CPDPrimalSVM(ThinPlate(m), 1 / (2 * lam)).fit(s * X, y)
    m0 = CPDPrimalSVM(ThinPlate(m), 1 / (2 * (lam * s ** (d - 2 * m)))).fit(X, y)
    assert np.abs(ms.decision_function(s * Xt) - m0.decision_function(Xt)).max() <= 1e-8
    # the opposite sign of the exponent gives a different model (the check has teeth)
    wrong = CPDPrimalSVM(ThinPlate(m), 1 / (2 * (lam * s ** (2 * m - d)))).fit(X, y)
    assert np.abs(ms.decision_function(s * Xt) - wrong.decision_function(Xt)).max() > 1e-4


# ----------------------------------------------------------------------------- algorithmic paths
@pytest.mark.parametrize("beta_zero", [False, True])
def test_rank_one_path_equals_refactorising(beta_zero):
    X, y = _data(150, 2, 41)
    a = CPDPrimalSVM(ThinPlate(2), 50.0, beta_zero=beta_zero, update="rank_one", refactor_fraction=0.5).fit(X, y)
    b = CPDPrimalSVM(ThinPlate(2), 50.0, beta_zero=beta_zero, update="refactor").fit(X, y)
    assert a.result_.n_updates > 0 and b.result_.n_updates == 0
    assert abs(a.objective_ - b.objective_) <= 1e-9 * b.objective_
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-7)


def test_recursive_warm_start_reaches_the_same_optimum():
    X, y = _data(260, 2, 51)
    fac = polynomial_factor(X, ThinPlate(2))
    Phi = ThinPlate(2)(X)
    rec = cpd_primal_svm(PrecomputedGram(Phi), fac.Q, y, 25.0, recursive_threshold=60)
    flat = cpd_primal_svm(PrecomputedGram(Phi), fac.Q, y, 25.0, recursive_threshold=10_000)
    assert rec.converged and flat.converged
    assert abs(rec.objective - flat.objective) <= 1e-9 * flat.objective
    np.testing.assert_allclose(rec.f, flat.f, atol=1e-7)


def test_beta_bar_and_min_norm_beta():
    X, y = _data(60, 2, 61)
    model = CPDPrimalSVM(ThinPlate(2), 5.0).fit(X, y)
    fac = model.factor_
    np.testing.assert_allclose(fac.P @ model.beta_, fac.Q @ model.beta_bar_, atol=1e-10)


def test_native_bad_arguments():
    X, y = _data(20, 2, 0)
    fac = polynomial_factor(X, ThinPlate(2))
    Phi = ThinPlate(2)(X)
    with pytest.raises(ParameterError, match="C must be > 0"):
        cpd_primal_svm(PrecomputedGram(Phi), fac.Q, y, 0.0)
    with pytest.raises(ParameterError, match="update"):
        cpd_primal_svm(PrecomputedGram(Phi), fac.Q, y, 0.5, update="sometimes")
    with pytest.raises(DataError, match="K must be a square matrix"):
        cpd_primal_svm(PrecomputedGram(Phi[:5]), fac.Q, y, 0.5)
    with pytest.raises(DataError, match=r"K must be \(20, 20\)"):
        cpd_primal_svm(PrecomputedGram(Phi[:5, :5]), fac.Q, y, 0.5)
    with pytest.raises(ParameterError, match="GramOperator"):
        cpd_primal_svm(Phi, fac.Q, y, 0.5)  # type: ignore[arg-type]
    with pytest.raises(DataError, match="y"):
        CPDPrimalSVM(ThinPlate(2), 0.5).fit(X, y * 2)
