"""CVXPY builders for SVMs with c.p.d. kernels (000 §6)."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
from algorithm1 import CPDPrimalSVM

from sdpkern.builders.cpd_svm import (
    CPDProblemData,
    cpd_data,
    hinge_dual,
    hinge_primal,
    squared_hinge,
    squared_hinge_beta_zero,
)
from sdpkern.errors import DataError, LabelError, ParameterError
from sdpkern.kernels import Gaussian
from sdpkern.kernels.cpd import ThinPlate
from sdpkern.problem import ProblemData


def _data(n=60, d=2, seed=0, noise=0.5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sign(X[:, 0] * X[:, 1] + noise * rng.normal(size=n))
    y[y == 0] = 1
    return X, y


def test_problem_structure_and_dpp():
    X, y = _data()
    kp = squared_hinge(X, y, ThinPlate(2), C=5.0)
    assert kp.cvxpy.is_dcp() and kp.cvxpy.is_dcp(dpp=True)
    assert isinstance(kp.parameters["lam"], cp.Parameter)
    assert kp.variables["gamma"].shape == (60 - 3,) and kp.variables["beta_bar"].shape == (3,)
    assert "000 eq. (14)" in kp.source
    s1 = kp.solve()
    # re-solve with a new λ through the parameter, compare with a fresh build
    s2 = kp.set(C=0.5).solve()
    s3 = squared_hinge(X, y, ThinPlate(2), C=0.5).solve()
    assert abs(s2.objective - s3.objective) <= 1e-7 * s3.objective
    assert s1.objective < s2.objective
    with pytest.raises(ParameterError, match="lam"):
        kp.set(lam=-1.0)
    with pytest.raises(ParameterError, match="C"):
        kp.set(C=-1.0)


def test_typed_inverse_data():
    """problem.data is the family's typed ProblemData; dict-style access stays for one release."""
    X, y = _data()
    kp = hinge_dual(X, y, ThinPlate(2), C=5.0)
    data = kp.data
    assert isinstance(data, CPDProblemData) and isinstance(data, ProblemData)
    assert data.cpd is data["cpd"] and np.array_equal(data.cpd.X, X)
    assert data.objective_scale == 1.0 and set(data.parameter_checks) == {"lam"}
    with pytest.raises(ParameterError, match="lam"):
        kp.set(lam=0.0)  # the typed checks are the ones set() applies
    assert kp.set(C=4.0).parameters["lam"].value == pytest.approx(0.125)  # derived: λ = 1/(2C)


def test_C_is_scikit_learns_and_lam_is_deprecated():
    """λ = 1/(2C) (000 eq. 14 against ½‖f‖² + C Σ loss); the old ``lam`` warns and still works."""
    X, y = _data()
    kp = squared_hinge(X, y, ThinPlate(2), C=2.0)
    assert kp.parameters["lam"].value == pytest.approx(0.25)
    assert kp.set(C=0.1).parameters["lam"].value == pytest.approx(5.0)
    with pytest.warns(FutureWarning, match="'lam' is deprecated"):
        old = hinge_dual(X, y, ThinPlate(2), 0.25)
    assert old.parameters["lam"].value == 0.25
    with pytest.warns(FutureWarning, match="'lam' is deprecated"):
        old = squared_hinge(X, y, ThinPlate(2), lam=0.25).solve()
    new = squared_hinge(X, y, ThinPlate(2), C=2.0).solve()
    assert abs(old.objective - new.objective) <= 1e-7 * new.objective


def test_recovered_model_is_in_p_perp_and_predicts():
    X, y = _data()
    sol = squared_hinge(X, y, ThinPlate(2), C=10.0).solve()
    D = cpd_data(X, y, ThinPlate(2))
    assert np.abs(D.factor.P.T @ sol.alpha).max() < 1e-8  # Pᵀα = 0
    f = sol.decision_function(X)
    np.testing.assert_allclose(f, sol.model.extras["train_decision"], atol=1e-8)
    assert np.mean(sol.predict(X) == y) > 0.8
    # objective as reported by CVXPY = eq. (14) evaluated at the recovered model
    assert abs(sol.objective - sol.model.extras["objective_eq14"]) < 1e-7 * sol.objective


def test_beta_zero_variant_has_no_polynomial_part():
    X, y = _data()
    sol = squared_hinge_beta_zero(X, y, ThinPlate(2), C=10.0).solve()
    assert np.all(sol.beta == 0.0) and sol.beta.shape == (3,)
    free = squared_hinge(X, y, ThinPlate(2), C=10.0).solve()
    assert sol.objective >= free.objective - 1e-8  # a restriction of eq. (14)


@pytest.mark.parametrize(("d", "m"), [(2, 2), (2, 3), (5, 3)])
def test_hinge_dual_equals_primal(d, m):
    """Strong duality: dual optimum / λ = primal optimum; same decision function; Pᵀ(y∘μ) = 0."""
    X, y = _data(70, d, seed=d + m, noise=1.0)
    lam = 0.05  # C = 1/(2λ) = 10
    dual = hinge_dual(X, y, ThinPlate(m), C=10.0).solve()
    primal = hinge_primal(X, y, ThinPlate(m), C=10.0).solve()
    assert abs(dual.objective / lam - primal.objective) <= 1e-6 * primal.objective
    assert abs(dual.model.extras["primal_objective"] - primal.objective) <= 1e-6 * primal.objective
    mu = dual.model.extras["mu"]
    assert mu.min() >= 0 and mu.max() <= 1
    D = cpd_data(X, y, ThinPlate(m))
    assert np.abs(D.factor.P.T @ (y * mu)).max() < 1e-6
    Xt = np.random.default_rng(1).normal(size=(15, d))
    scale = max(1.0, np.abs(primal.decision_function(Xt)).max())
    assert np.abs(dual.decision_function(Xt) - primal.decision_function(Xt)).max() < 1e-4 * scale


def test_pd_kernel_builders():
    X, y = _data(50, 3)
    sol = squared_hinge(X, y, Gaussian(0.5), C=5.0).solve()
    assert sol.beta.size == 0 and "beta_bar" not in sol.model.extras or sol.model.extras["beta_bar"].size == 0
    dual = hinge_dual(X, y, Gaussian(0.5), C=5.0).solve()
    primal = hinge_primal(X, y, Gaussian(0.5), C=5.0).solve()
    assert abs(dual.objective / 0.1 - primal.objective) <= 1e-6 * primal.objective


# ----------------------------------------------------------------------------- bad input
def test_order_too_low_for_dimension_is_refused():
    X, y = _data(20, 4)
    with pytest.raises(ParameterError, match="order=2"):
        squared_hinge(X, y, ThinPlate(2), C=0.5)
    with pytest.raises(ParameterError, match="ThinPlate: order"):
        squared_hinge(X, y, ThinPlate(0), C=0.5)


def test_nan_one_class_and_bad_lambda():
    X, y = _data(20)
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(DataError, match="X"):
        squared_hinge(Xn, y, ThinPlate(2), C=0.5)
    yn = y.astype(float).copy()
    yn[2] = np.nan
    with pytest.raises(LabelError, match="y"):  # NaN becomes a third "class"
        squared_hinge(X, yn, ThinPlate(2), C=0.5)
    with pytest.raises(LabelError, match="two classes"):
        squared_hinge(X, np.ones(20), ThinPlate(2), C=0.5)
    with pytest.raises(ParameterError, match="C"):
        squared_hinge(X, y, ThinPlate(2), C=0.0)
    with pytest.raises(ParameterError, match="C"):
        hinge_dual(X, y, ThinPlate(2), C=-2.0)
    with pytest.raises(DataError, match="entries"):
        squared_hinge(X, y[:-1], ThinPlate(2), C=0.5)
    with pytest.raises(ParameterError, match="kernel"):
        squared_hinge(X, y, "thin_plate", C=0.5)  # type: ignore[arg-type]


@pytest.mark.parametrize("beta_zero", [False, True])
def test_duplicate_points(beta_zero):
    """Duplicates: Φ has equal rows (zero diagonal, φ(x, x) = 0). The saddle system stays
    solvable (λI + Φ is PD on P⊥); for β = 0 the γ-Hessian is singular along e_i − e_j, which
    leaves f unchanged: the native solver adds a tiny jitter, the models agree."""
    X, y = _data(40)
    X = np.vstack([X, X[:5]])
    y = np.r_[y, y[:5]]
    build = squared_hinge_beta_zero if beta_zero else squared_hinge
    sol = build(X, y, ThinPlate(2), C=5.0).solve()
    nat = CPDPrimalSVM(ThinPlate(2), 5.0, beta_zero=beta_zero).fit(X, y)
    assert abs(nat.objective_ - sol.objective) <= 1e-6 * sol.objective
    assert np.all(np.isfinite(nat.decision_function(X)))
    # conflicting labels on a duplicated point are fine too (the loss just cannot reach 0)
    y2 = y.copy()
    y2[-1] = -y2[4]
    nat2 = CPDPrimalSVM(ThinPlate(2), 5.0, beta_zero=beta_zero).fit(X, y2)
    sol2 = build(X, y2, ThinPlate(2), C=5.0).solve()
    assert abs(nat2.objective_ - sol2.objective) <= 1e-6 * sol2.objective


def test_rank_deficient_polynomial_space_fewer_points_than_dim():
    """n = 5 distinct points, dim π_2(R²) = 6: P has rank 5, P⊥ is empty, α = 0 and the
    polynomial interpolates; the QR path keeps only rank(P) columns (000 §6.1)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(5, 2))
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0])
    nat = CPDPrimalSVM(ThinPlate(3), 5.0).fit(X, y)
    assert nat.factor_.rank == 5 and np.all(nat.alpha_ == 0)
    np.testing.assert_allclose(nat.decision_function(X), y, atol=1e-8)
    sol = squared_hinge(X, y, ThinPlate(3), C=5.0).solve()
    assert sol.objective < 1e-8 and nat.objective_ < 1e-12
    # β is the minimum-norm solution of the rank-deficient system
    assert np.linalg.norm(nat.beta_) <= np.linalg.norm(np.linalg.lstsq(nat.factor_.P, y, rcond=None)[0]) + 1e-8


@pytest.mark.parametrize("beta_zero", [False, True])
def test_rank_deficient_polynomial_space_collinear_points(beta_zero):
    """Points on a line in R²: the linear polynomials have rank 2 < 3 on the data."""
    rng = np.random.default_rng(4)
    t = rng.normal(size=40)
    X = np.column_stack([t, 2 * t + 1])
    y = np.sign(np.sin(2 * t) + 0.2)
    nat = CPDPrimalSVM(ThinPlate(2), 10.0, beta_zero=beta_zero).fit(X, y)
    assert nat.factor_.rank == 2
    build = squared_hinge_beta_zero if beta_zero else squared_hinge
    sol = build(X, y, ThinPlate(2), C=10.0).solve()
    assert abs(nat.objective_ - sol.objective) <= 1e-6 * max(sol.objective, 1e-8)


def test_hinge_primal_of_the_sweep_is_certified_by_scs():
    """The default status sweep's (seed 0) pima m = 169, C = 0.243 hinge primal, thin-plate r² log r
    in 8 dimensions: in γ its margins' matrix ΦP⊥ had singular values 0.28-2.1e3 and SCS ended
    200 000 iterations (and 2 000 000) at primal residual 4e-6 (measured before the change of
    variable v = Fᵀγ); now SCS certifies it within 2 000 (measured 175) at the optimum of the
    dual solved by Clarabel (an independent program: dual objective / λ) to 1e-6 relative (SCS's
    tol 1e-7; measured 4.7e-8), and its α keeps Pᵀα = 0."""
    from sweep_instances import keel

    X, y = keel("pima", 169, 1029084187)
    kernel, C = ThinPlate(2, formula_dimension=2), 0.24261022252118192
    scs = hinge_primal(X, y, kernel, C=C).solve("scs", recovery=False, max_iter=2000)
    dual = hinge_dual(X, y, kernel, C=C).solve("clarabel", recovery=False)
    assert scs.status == dual.status == "optimal"
    assert scs.objective == pytest.approx(dual.objective * 2 * C, rel=1e-6)  # / λ, λ = 1/(2C)
    D = cpd_data(X, y, kernel)
    assert np.abs(D.factor.P.T @ scs.alpha).max() < 1e-8 * max(1.0, np.abs(scs.alpha).max())


@pytest.mark.parametrize("backend", ["clarabel", "scs"])
def test_beta_zero_primal_ignores_the_dropped_kernel_direction(backend):
    """The default status sweep's (seed 0) β = 0 squared hinge on ionosphere m = 253, C = 0.0175:
    P⊥ᵀΦP⊥ has one eigenvalue 2.7e-13 of 720, which cpd_data drops from F. With γ free along
    that direction (no regulariser, margins moved by rounding × ‖γ‖), Clarabel reached
    ‖γ‖ = 1.2e12 and 45.12, 0.9 % below the optimum, both "optimal" (measured before γ was
    confined to F's range). Both backends now agree with the native β = 0 Newton solver (an
    independent route on the full kernel) to 1e-6 relative (measured 5e-15 on Clarabel)."""
    from sweep_instances import keel

    X, y = keel("ionosphere", 253, 29867101)
    kernel, C = ThinPlate(2, formula_dimension=2), 0.017549169662003185
    sol = squared_hinge_beta_zero(X, y, kernel, C=C).solve(backend, recovery=False)
    nat = CPDPrimalSVM(kernel, 1 / (2 * (1.0 / (2.0 * C))), beta_zero=True).fit(X, 2.0 * y - 1.0)  # labels 0/1 -> ±1
    assert sol.status == "optimal"
    assert sol.objective == pytest.approx(nat.objective_, rel=1e-6)
