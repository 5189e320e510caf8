"""Per-point loss weights on the hyperkernel C-SVM (002 eq. 3.8) and L2-SVM (3.10): point i's C
is C·w_i.

Checked against (1) the weighted SDP of eq. (3.8) written by hand in CVXPY (loss C Σ w_i ξ_i),
optima to 1e-6 relative; (2) repeated points: integer weights equal the unweighted problem on
the points repeated w_i times, on the same basis terms (the pair features do not depend on
which rows of X hold the points), optima to 1e-6 relative and decision values to 1e-4;
(3) the estimator, conic and native routes, and ``class_weight``. The L2-SVM likewise against
its min-max problem written by hand (without the builder's shared factor and scaling).
"""

from __future__ import annotations

import inspect
import warnings

import cvxpy as cp
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, make_moons

from sdpkern.builders.hyperkernel import csvm, l2svm, make_basis
from sdpkern.errors import DataError, ParameterError
from sdpkern.estimators import HyperkernelL2SVC, HyperkernelNuSVC, HyperkernelSVC
from sdpkern.kernels.hyperkernels import HarmonicARD
from sdpkern.kernels.lowrank import HyperkernelBasis
from sdpkern.native import hyperkernel_csvm_native


def _cancer(m, seed):
    X, y = load_breast_cancer(return_X_y=True)
    idx = np.random.default_rng(seed).permutation(y.shape[0])[:m]
    X = X[idx]
    return (X - X.mean(0)) / X.std(0), y[idx]


def _basis(X, max_terms=20):
    return make_basis(X, HarmonicARD(0.6, "auto").fitted(X, random_state=0), None, 1e-6, max_terms)


def _hand_sdp(B, y, C, lambda_Q, w):
    """002 eq. (3.8) with the loss C Σ w_i ξ_i, written out (Schur complement of ½ zᵀG(β)†z ≤ ½t₁)."""
    y_pm = np.where(y == y.max(), 1.0, -1.0)
    K = B.kernels()
    m, p = y.shape[0], B.size
    beta, gamma = cp.Variable(p, nonneg=True), cp.Variable()
    eta, xi = cp.Variable(m, nonneg=True), cp.Variable(m, nonneg=True)
    t1, t2 = cp.Variable(), cp.Variable()
    G = sum(beta[l] * (K[l] * np.outer(y_pm, y_pm)) for l in range(p))
    z = cp.reshape(gamma * y_pm + 1 + eta - xi, (m, 1), order="F")
    M = cp.bmat([[G, z], [z.T, cp.reshape(t1, (1, 1), order="F")]])
    cons = [(M + M.T) / 2 >> 0, cp.sum(beta) == 1, cp.norm(B.L.T @ beta, 2) <= t2]
    prob = cp.Problem(cp.Minimize(0.5 * t1 + C * (w @ xi) + lambda_Q / 2 * t2), cons)
    prob.solve(solver="CLARABEL")
    assert prob.status == "optimal"
    return prob.value


@pytest.mark.parametrize(("seed", "C", "lambda_Q"), [(0, 1.0, 1.0), (1, 0.2, 0.1)])
def test_weighted_csvm_is_the_hand_weighted_sdp(seed, C, lambda_Q):
    X, y = _cancer(20, seed)
    B = _basis(X, 12)
    w = np.random.default_rng(seed).uniform(0.0, 3.0, y.shape[0])
    w[:2] = 0.0  # zero weights: α_i = 0 (SOCP), a free slack (SDP)
    by_hand = _hand_sdp(B, y, C, lambda_Q, w)
    default = csvm(X, y, B.hyperkernel, C=C, lambda_Q=lambda_Q, basis=B, sample_weight=w).solve()
    direct = csvm(X, y, B.hyperkernel, C=C, lambda_Q=lambda_Q, basis=B, sample_weight=w).solve(method="direct")
    sdp = csvm(X, y, B.hyperkernel, C=C, lambda_Q=lambda_Q, basis=B, form="sdp", sample_weight=w).solve()
    for sol in (default, direct, sdp):
        assert sol.status == "optimal"
        assert abs(sol.objective - by_hand) <= 1e-6 * abs(by_hand)
    assert np.all(default.alpha <= C * w + 1e-7) and np.all(np.abs(default.alpha[:2]) <= 1e-7)
    unweighted = csvm(X, y, B.hyperkernel, C=C, lambda_Q=lambda_Q, basis=B).solve()
    assert abs(unweighted.objective - by_hand) > 1e-3 * abs(by_hand)  # the weights matter here


def _repeated_basis(B, X_rep):
    """The same basis terms (pair features, hyperkernel Gram factor) on other rows of X."""
    return HyperkernelBasis(B.hyperkernel, X_rep, B.pairs, B.features, B.L, B.residual_trace)


@pytest.mark.parametrize(("data", "seed"), [("cancer", 2), ("moons", 3)])
def test_integer_weights_are_repeated_points(data, seed):
    if data == "moons":
        X, y = make_moons(30, noise=0.3, random_state=seed)
        X = (X - X.mean(0)) / X.std(0)
    else:
        X, y = _cancer(30, seed)
    B = _basis(X)
    w = np.random.default_rng(seed).integers(0, 4, y.shape[0])
    keep = np.repeat(np.arange(y.shape[0]), w)
    weighted = csvm(X, y, B.hyperkernel, C=0.5, basis=B, sample_weight=w).solve()
    repeated = csvm(X[keep], y[keep], B.hyperkernel, C=0.5, basis=_repeated_basis(B, X[keep])).solve()
    assert weighted.status == repeated.status == "optimal"
    assert abs(weighted.objective - repeated.objective) <= 1e-6 * abs(repeated.objective)
    X_new = X + 0.1
    np.testing.assert_allclose(weighted.decision_function(X_new), repeated.decision_function(X_new), atol=1e-4)


def test_estimator_weights_conic_native_and_class_weight():
    X, y = _cancer(40, 4)
    w = np.random.default_rng(4).uniform(0.2, 2.0, y.shape[0])
    common = {"C": 0.5, "width_scales": 1.0, "max_terms": 20}
    conic = HyperkernelSVC(**common, solver="conic").fit(X, y, sample_weight=w)
    B = conic.basis_
    builder = csvm(X, y, B.hyperkernel, C=0.5, basis=B, sample_weight=w, lambda_Q=conic.lambda_Q_).solve()
    assert conic.objective_ == pytest.approx(builder.objective, rel=1e-6)
    assert np.all(conic.alpha_ <= 0.5 * w + 1e-7)
    # the native master on the conic path's basis: the same weighted optimum (its gap tol 1e-6)
    y_pm = np.where(y == conic.classes_[1], 1.0, -1.0)
    native = hyperkernel_csvm_native(B, y_pm, C=0.5, lambda_Q=conic.lambda_Q_, sample_weight=w, tol=1e-7)
    assert native.status == "optimal"
    assert native.objective == pytest.approx(builder.objective, rel=1e-6)
    np.testing.assert_allclose(native.alpha, builder.alpha, atol=1e-3 * 0.5)
    assert np.all(native.alpha <= 0.5 * w + 1e-9)
    # class_weight is a weight per class: "balanced" is n / (2 n_c) by hand
    counts = {c: np.sum(y == c) for c in np.unique(y)}
    by_hand = np.array([y.shape[0] / (2 * counts[c]) for c in y])
    balanced = HyperkernelSVC(**common, solver="conic", class_weight="balanced").fit(X, y)
    manual = HyperkernelSVC(**common, solver="conic").fit(X, y, sample_weight=by_hand)
    np.testing.assert_allclose(balanced.decision_function(X), manual.decision_function(X), atol=1e-8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        unweighted = HyperkernelSVC(**common, solver="conic").fit(X, y)
    assert abs(unweighted.objective_ - conic.objective_) > 1e-3 * abs(conic.objective_)


def test_bad_weights():
    X, y = _cancer(20, 5)
    with pytest.raises(DataError, match="sample_weight"):
        csvm(X, y, sample_weight=-np.ones(20))
    with pytest.raises(DataError, match="sample_weight"):
        csvm(X, y, sample_weight=np.zeros(20))
    with pytest.raises(DataError, match="sample_weight"):
        HyperkernelSVC(width_scales=1.0).fit(X, y, sample_weight=np.ones(19))


# ----------------------------------------------------------------------------- the L2-SVM (002 eq. 3.10)
def _hand_l2svm(B, y, C, lambda_Q, w):
    """The min-max form of (3.10) with the loss C Σ w_i ξ_i², written out without the builder's
    shared factor or scaling: max 1ᵀα − ½(yᵀα)² − (1/(4C)) Σ α_i²/w_i + τ over α ≥ 0, ‖u‖ ≤ 1,
    ½(y∘α)ᵀK_l(y∘α) ≤ (λ_Q/2)(Lu)_l − τ (α_i = 0 where w_i = 0)."""
    y_pm = np.where(y == y.max(), 1.0, -1.0)
    K = B.kernels()
    m = y.shape[0]
    alpha, u, tau = cp.Variable(m, nonneg=True), cp.Variable(B.L.shape[1]), cp.Variable()
    pos = w > 0
    v = cp.multiply(y_pm, alpha)
    cones = [0.5 * cp.quad_form(v, cp.psd_wrap(K[l])) <= lambda_Q / 2 * (B.L[l] @ u) - tau for l in range(B.size)]
    ridge = cp.sum_squares(cp.multiply(1.0 / np.sqrt(w[pos]), alpha[pos]))
    obj = cp.sum(alpha) - 0.5 * cp.square(y_pm @ alpha) - ridge / (4 * C) + tau
    cons = [cp.norm(u, 2) <= 1, *cones] + ([alpha[~pos] == 0] if not pos.all() else [])
    prob = cp.Problem(cp.Maximize(obj), cons)
    prob.solve(solver="CLARABEL")
    assert prob.status == "optimal"
    return prob.value


@pytest.mark.parametrize(("seed", "zeros"), [(6, False), (7, True)])
def test_weighted_l2svm_is_the_hand_weighted_problem(seed, zeros):
    X, y = _cancer(20, seed)
    B = _basis(X, 12)
    w = np.random.default_rng(seed).uniform(0.2, 3.0, y.shape[0])
    if zeros:
        w[:3] = 0.0
    by_hand = _hand_l2svm(B, y, 2.0, 1.0, w)
    problem = l2svm(X, y, B.hyperkernel, C=2.0, basis=B, sample_weight=w)
    solutions = [problem.solve(), problem.solve(method="direct")]
    if not zeros:
        solutions.append(l2svm(X, y, B.hyperkernel, C=2.0, basis=B, form="sdp", sample_weight=w).solve())
    else:
        with pytest.raises(ParameterError, match="sample_weight"):
            l2svm(X, y, B.hyperkernel, basis=B, form="sdp", sample_weight=w)
    for sol in solutions:
        assert sol.status == "optimal"
        assert abs(sol.objective - by_hand) <= 1e-6 * abs(by_hand)
    if zeros:
        assert np.all(np.abs(solutions[0].alpha[:3]) <= 1e-7)
    assert abs(l2svm(X, y, B.hyperkernel, C=2.0, basis=B).solve().objective - by_hand) > 1e-3 * abs(by_hand)


def test_l2svm_integer_weights_are_repeated_points_and_the_estimator_passes_them():
    X, y = _cancer(30, 8)
    B = _basis(X)
    w = np.random.default_rng(8).integers(0, 4, y.shape[0])
    keep = np.repeat(np.arange(y.shape[0]), w)
    weighted = l2svm(X, y, B.hyperkernel, C=0.5, basis=B, sample_weight=w).solve()
    repeated = l2svm(X[keep], y[keep], B.hyperkernel, C=0.5, basis=_repeated_basis(B, X[keep])).solve()
    assert abs(weighted.objective - repeated.objective) <= 1e-6 * abs(repeated.objective)
    X_new = X + 0.1
    np.testing.assert_allclose(weighted.decision_function(X_new), repeated.decision_function(X_new), atol=1e-4)
    clf = HyperkernelL2SVC(C=0.5, max_terms=20).fit(X, y, sample_weight=w)
    again = l2svm(X, y, clf.basis_.hyperkernel, C=0.5, basis=clf.basis_, sample_weight=w).solve()
    assert clf.objective_ == pytest.approx(again.objective, rel=1e-6)


def test_nu_forms_take_no_weights():
    assert "sample_weight" not in inspect.signature(HyperkernelNuSVC.fit).parameters
    assert "class_weight" not in HyperkernelNuSVC().get_params()
