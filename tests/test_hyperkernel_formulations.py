"""The six hyperkernel formulations (002 eqs. 3.8-3.13): the SDP as written against the SOCP
derived from it, hand-checkable limits against plain SVMs, recovery, DPP and bad input."""

import os
import warnings

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import SVC, OneClassSVM

from sdpkern.builders.hyperkernel import (
    SingularKernelError,
    alignment,
    csvm,
    l2svm,
    nu_regression,
    nusvm,
    one_class,
)
from sdpkern.errors import DataError, LabelError, ParameterError
from sdpkern.kernels.hyperkernels import HarmonicARD
from sdpkern.kernels.lowrank import hyperkernel_basis

TIGHT = {"tol": 1e-9, "allow_inaccurate": True}  # 1e-9 is sometimes "almost solved"
FORMULATIONS = ["csvm", "nusvm", "l2svm", "one_class", "nu_regression", "alignment"]
_X, _Y = load_breast_cancer(return_X_y=True)


def instance(m, seed):
    """m points of breast cancer (6 features), their labels and a synthetic regression target."""
    rng = np.random.default_rng(seed)
    idx = rng.choice(_X.shape[0], size=m, replace=False)
    X = _X[idx][:, :6]
    y_reg = 0.3 * X[:, 0] + np.sin(20 * X[:, 1]) + 0.1 * rng.normal(size=m)
    return X, _Y[idx], y_reg


def build(name, X, y, y_reg, hk, form, **kw):
    kw.setdefault("eta", 1e-4)
    if name == "csvm":
        return csvm(X, y, hk, form=form, **kw)
    if name == "nusvm":
        return nusvm(X, y, hk, form=form, **kw)
    if name == "l2svm":
        return l2svm(X, y, hk, form=form, **kw)
    if name == "one_class":
        return one_class(X, hk, form=form, **kw)
    if name == "nu_regression":
        return nu_regression(X, y_reg, hk, form=form, **kw)
    # ridge 1e-2: with the near-constant kernels of the 50× width rule the SOCP's α ~ y/ε is
    # badly scaled below that (Clarabel fails at ε = 1e-3 on some m = 26 draws; the SDP does not)
    kw.setdefault("ridge", 1e-2)
    return alignment(X, y, hk, form=form, **kw)


# the limits compare α, whose error is about √(gap / λ_min): the absolute gap must be tight too
LIMIT = {"tol": 1e-11, "tol_gap_abs": 1e-13, "allow_inaccurate": True}


def solve(problem, options=TIGHT):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return problem.solve(**options)


def rel(a, b):
    return abs(a - b) / max(1.0, abs(b))


def check_agreement(name, m, seed):
    X, y, y_reg = instance(m, seed)
    hk = HarmonicARD(0.6).fitted(X)
    sdp = solve(build(name, X, y, y_reg, hk, "sdp"))
    socp = solve(build(name, X, y, y_reg, hk, "socp"))
    assert sdp.status.startswith("optimal") and socp.status.startswith("optimal")
    assert rel(socp.objective, sdp.objective) < 1e-6, (name, sdp.objective, socp.objective)
    c = np.std(y_reg, ddof=1) if name == "nu_regression" else 1.0
    assert socp.beta.sum() == pytest.approx(c, rel=1e-6) and socp.beta.min() >= 0
    assert np.abs(sdp.beta - socp.beta).sum() < 1e-3 * c
    if name != "alignment":  # same model: offsets and decision values on the training set
        scale = max(1.0, abs(sdp.offset))
        assert abs(socp.offset - sdp.offset) < 1e-3 * scale, (name, sdp.offset, socp.offset)
        d_sdp, d_socp = sdp.decision_function(X), socp.decision_function(X)
        assert np.max(np.abs(d_sdp - d_socp)) < 1e-3 * max(1.0, np.max(np.abs(d_sdp)))


# ----------------------------------------------------------------------------- SDP = SOCP
@pytest.mark.parametrize("name", FORMULATIONS)
@pytest.mark.parametrize("m,seed", [(20, 0), (30, 1), (40, 2)])
def test_sdp_and_socp_agree(name, m, seed):
    check_agreement(name, m, seed)


@settings(
    max_examples=int(os.environ.get("SDPKERN_HYPOTHESIS_EXAMPLES", "4")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(name=st.sampled_from(FORMULATIONS), m=st.integers(12, 32), seed=st.integers(100, 10_000))
def test_sdp_and_socp_agree_on_drawn_instances(name, m, seed):
    X, y, _ = instance(m, seed)
    if len(set(y.tolist())) < 2 or (name == "nusvm" and 2 * min((y == 0).sum(), (y == 1).sum()) / m < 0.3):
        return  # a one-class draw, or a ν-SVM made infeasible by ν = 0.3 (tested below)
    check_agreement(name, m, seed)


@pytest.mark.parametrize("name", FORMULATIONS)
def test_truncated_shared_factor_keeps_the_socp_optimum(name):
    """A truncated shared factor (``factor_tol`` = 1e-6: directions of K_Σ below 1e-6·λ_max
    dropped, see ``shared_factor``) removes cone rows and moves each SOCP's optimum by at most
    1e-3 relative on an m = 40 instance where it cuts Z from rank 40 to 39.

    Measured here: C-SVM 9e-6, L2-SVM 2e-4, ν-regression 1.4e-6, the others below 1e-6. Smaller m
    (20-30) are not truncated at all at 1e-6; the m = 100 C-SVM check is in test_hyperkernel_csvm."""
    X, y, y_reg = instance(40, 2)
    hk = HarmonicARD(0.6).fitted(X)
    exact_problem = build(name, X, y, y_reg, hk, "socp")
    truncated_problem = build(name, X, y, y_reg, hk, "socp", factor_tol=1e-6)
    exact, truncated = solve(exact_problem), solve(truncated_problem)
    assert exact.status.startswith("optimal") and truncated.status.startswith("optimal")
    assert rel(truncated.objective, exact.objective) <= 1e-3
    rows = [p.compiled_data("clarabel")["A"].shape[0] for p in (exact_problem, truncated_problem)]
    assert rows[1] < rows[0]


# ----------------------------------------------------------------------------- hand-checkable limits
def single_kernel_instance(m=30, seed=7):
    """Standardised 2-D data and a one-term basis whose kernel is well conditioned."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, 2))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.5 * rng.normal(size=m) > 0, 1.0, -1.0)
    y_reg = np.sin(2 * X[:, 0]) + 0.1 * rng.normal(size=m)
    hk = HarmonicARD(0.6, np.array([0.3, 0.3]))
    B = hyperkernel_basis(hk, X, eta=0.0, max_terms=1)
    K1 = B.kernels()[0]
    assert np.linalg.cond(K1) < 1e4
    return X, y, y_reg, hk, B, K1


def qp(objective, constraints):
    prob = cp.Problem(objective, constraints)
    prob.solve(solver="CLARABEL", tol_gap_rel=1e-12, tol_gap_abs=1e-12, tol_feas=1e-12)
    assert prob.status == "optimal"


@pytest.mark.parametrize("form", ["socp", "sdp"])
def test_single_kernel_limits_equal_plain_svms(form):
    """One basis kernel K₁ and λ_Q → 0: β = 1 and each model is the plain SVM on K₁ (to 1e-5)."""
    X, y, y_reg, hk, B, K1 = single_kernel_instance()
    m = X.shape[0]
    G = K1 * np.outer(y, y)
    a = cp.Variable(m, nonneg=True)
    tol = 1e-5  # absolute, on α of size ≤ 0.35 here
    kw = {"basis": B, "lambda_Q": 1e-6, "form": form}

    # C-SVM against scikit-learn's SVC: the same C (the box; eq. (3.8)'s C' = C·m inside)
    C = 10.0 / m
    sol = solve(csvm(X, y, hk, C=C, **kw), LIMIT)
    ref = np.zeros(m)
    svc = SVC(C=C, kernel="precomputed", tol=1e-12).fit(K1, y)
    ref[svc.support_] = np.abs(svc.dual_coef_[0])
    np.testing.assert_allclose(sol.alpha, ref, atol=tol)
    assert sol.beta == pytest.approx([1.0], abs=1e-7)

    # ν-SVM against the CVXPY QP of its dual (A.13 at fixed kernel)
    nu = 0.4
    sol = solve(nusvm(X, y, hk, nu=nu, **kw), LIMIT)
    qp(cp.Minimize(0.5 * cp.quad_form(a, cp.psd_wrap(G))), [y @ a == 0, cp.sum(a) >= nu, a <= 1 / m])
    np.testing.assert_allclose(sol.alpha, a.value, atol=tol)

    # L2-SVM against the QP of its dual (A.18 at fixed kernel)
    # scikit-learn's C of the squared hinge is C'/2 of eq. (3.10): H = G + yyᵀ + I/C'
    C = 10.0
    sol = solve(l2svm(X, y, hk, C=C / 2, **kw), LIMIT)
    H = G + np.outer(y, y) + np.eye(m) / C
    qp(cp.Maximize(cp.sum(a) - 0.5 * cp.quad_form(a, cp.psd_wrap(H))), [])
    np.testing.assert_allclose(sol.alpha, a.value, atol=tol * max(1.0, np.abs(a.value).max()))
    assert sol.offset == pytest.approx(-y @ a.value, abs=1e-4)

    # one-class against scikit-learn's OneClassSVM (α_libsvm = νm α, ρ the same)
    nu = 0.2
    sol = solve(one_class(X, hk, nu=nu, **kw), LIMIT)
    oc = OneClassSVM(kernel="precomputed", nu=nu, tol=1e-12).fit(K1)
    ref = np.zeros(m)
    ref[oc.support_] = oc.dual_coef_[0] / (nu * m)
    np.testing.assert_allclose(sol.alpha, ref, atol=tol)
    # libsvm's ρ is in its own scale (α summing to νm): divide by νm
    assert sol.offset == pytest.approx(-oc.intercept_[0] / (nu * m), abs=1e-4)

    # ν-regression against the QP of the ν-SVR dual (A.28 with 1/(λm) = C: box C, sum ≤ Cνm)
    C, nu = 1.0, 0.3
    sol = solve(nu_regression(X, y_reg, hk, C=C, nu=nu, **kw), LIMIT)
    b = cp.Variable(m, nonneg=True)
    c = float(np.std(y_reg, ddof=1))  # 1ᵀβ = c scales the single kernel
    Kc = c * K1
    qp(
        cp.Maximize(y_reg @ (b - a) - 0.5 * cp.quad_form(b - a, cp.psd_wrap(Kc))),
        [a <= C, b <= C, cp.sum(a + b) <= C * nu * m, cp.sum(a) == cp.sum(b)],
    )
    np.testing.assert_allclose(sol.model.decision.coef, b.value - a.value, atol=tol * C)


@pytest.mark.parametrize("form", ["socp", "sdp"])
def test_alignment_with_one_basis_kernel_returns_it_scaled(form):
    X, y, _, hk, B, K1 = single_kernel_instance()
    sol = solve(alignment(X, y, hk, basis=B, form=form))
    np.testing.assert_allclose(sol.kernel_matrix, K1, atol=1e-8)
    # and α solves K₁α = y (the inner problem's argmax)
    np.testing.assert_allclose(K1 @ sol.alpha, y, atol=1e-4)


# ----------------------------------------------------------------------------- recovery and DPP
def test_one_class_training_score_is_eta_minus_xi():
    X, _, _ = instance(30, 11)
    prob = one_class(X, HarmonicARD(0.6).fitted(X), form="sdp", nu=0.2)
    sol = solve(prob)
    score = sol.decision_function(X)
    np.testing.assert_allclose(score, prob.variables["eta"].value - prob.variables["xi"].value, atol=1e-4)
    outliers = np.mean(score < -1e-6)
    assert outliers <= 0.2 + 1e-9  # ν bounds the fraction of outliers (002 Example 13)


def test_regression_fits_a_smooth_function_and_reports_the_tube():
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, (40, 1))
    y = np.sin(X[:, 0]) + 0.05 * rng.normal(size=40)
    # widths of the order of the data's scale (the 50× rule of §3.2 is made for raw UCI inputs)
    sol = solve(nu_regression(X, y, HarmonicARD(0.6, np.array([1.0])), eta=1e-5))
    X_test = np.linspace(-2.5, 2.5, 50)[:, None]
    assert np.mean((sol.decision_function(X_test) - np.sin(X_test[:, 0])) ** 2) < 0.05
    eps = sol.model.extras["epsilon"]
    outside = np.abs(sol.decision_function(X) - y) > eps + 1e-3  # many points sit on the tube
    assert eps > 0 and outside.mean() <= 0.3 + 1e-9  # at most a fraction ν outside the tube


@pytest.mark.parametrize("name", FORMULATIONS)
@pytest.mark.parametrize("form", ["sdp", "socp"])
def test_every_builder_is_dpp_and_resolves_after_set(name, form):
    X, y, y_reg = instance(20, 5)
    hk = HarmonicARD(0.6).fitted(X)
    prob = build(name, X, y, y_reg, hk, form)
    assert prob.cvxpy.is_dcp(dpp=True)
    new = {"lambda_Q": 0.5}
    if "nu" in prob.parameters:
        new["nu"] = 0.25
    first = solve(prob)
    again = solve(prob.set(**new))
    kw = {"lambda_Q": 0.5} | ({"nu": 0.25} if "nu" in new else {})
    fresh = solve(build(name, X, y, y_reg, hk, form, **kw))
    assert rel(again.objective, fresh.objective) < 1e-6
    assert first.objective != pytest.approx(again.objective, rel=1e-9)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("builder", ["nusvm", "one_class", "nu_regression"])
@pytest.mark.parametrize("nu", [0.0, -0.1, 1.5, float("nan")])
def test_nu_outside_unit_interval(builder, nu):
    X, y, y_reg = instance(20, 0)
    with pytest.raises(ParameterError, match="nu"):
        build(builder, X, y, y_reg, None, "socp", nu=nu)


def test_nu_set_later_is_checked_too():
    X, y, _ = instance(20, 0)
    prob = nusvm(X, y)
    with pytest.raises(ParameterError, match="nu"):
        prob.set(nu=2.0)


def test_nu_svm_infeasible_nu_names_the_bound():
    X, y, _ = instance(30, 0)
    y = np.r_[np.ones(3), np.zeros(27)]
    with pytest.raises(ParameterError, match=r"lower nu"):
        nusvm(X, y, nu=0.5)


def test_constant_regression_targets():
    X, _, _ = instance(20, 0)
    with pytest.raises(LabelError, match="constant"):
        nu_regression(X, np.full(20, 3.0))


def test_one_class_with_one_point():
    with pytest.raises(DataError, match="at least 2"):
        one_class(np.ones((1, 3)))


def test_alignment_basis_too_small_is_singular():
    X, y, _ = instance(30, 0)
    # huge widths make every base kernel (numerically) the constant matrix: rank ≪ m
    hk = HarmonicARD(0.6, np.full(X.shape[1], 1e12))
    with pytest.raises(SingularKernelError, match="ridge > 0"):
        alignment(X, y, hk, max_terms=2)
    # the named fix works
    sol = solve(alignment(X, y, hk, max_terms=2, ridge=1e-2))
    assert sol.status.startswith("optimal")


@pytest.mark.parametrize("form", ["nope", None])
def test_bad_form(form):
    X, y, _ = instance(20, 0)
    with pytest.raises(ParameterError, match="form"):
        nusvm(X, y, form=form)
