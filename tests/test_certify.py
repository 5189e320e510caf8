"""Certified solves: the recovery policy of KernelProblem.solve, scikit-learn's C in the builders,
and the cases of issue 17 that used to fail."""

from __future__ import annotations

import dataclasses
import warnings

import cvxpy as cp
import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sweep_instances import keel

from sdpkern import KernelProblem, Model
from sdpkern.backends import BACKENDS, Backend
from sdpkern.builders.hyperkernel import csvm, l2svm, nu_regression
from sdpkern.errors import InaccurateSolutionError, ParameterError


def toy() -> KernelProblem:
    x = cp.Variable(3, name="x")
    c = cp.Parameter(nonneg=True, name="c", value=1.0)
    prob = cp.Problem(cp.Minimize(c * cp.sum(x)), [x >= 1, cp.norm(x, 2) <= 10])
    recover = lambda p: Model(alpha=p.variables["x"].value)  # noqa: E731
    return KernelProblem(prob, "toy", "none", "qp", {"x": x}, {"c": c}, {}, recover)


def test_recovery_retries_a_solver_that_ran_out_of_iterations(monkeypatch):
    """A backend default cap of 2 iterations: the policy re-solves with 10× the default cap and
    records both attempts; the status is the second attempt's own."""
    monkeypatch.setitem(BACKENDS, "clarabel", dataclasses.replace(BACKENDS["clarabel"], defaults={"max_iter": 2}))
    sol = toy().solve("clarabel")
    assert sol.status == "optimal" and sol.backend == "clarabel"
    assert [a.status for a in sol.attempts] == ["iteration_limit", "optimal"]
    assert sol.attempts[1].options["max_iter"] == 2000 and "10x iterations" in sol.attempts[1].reason
    assert sol.recovery is not None and "iteration_limit" in sol.recovery
    assert sol.objective == pytest.approx(3.0, rel=1e-6)


def test_recovery_attempts_run_within_the_recovery_budget(monkeypatch):
    """Each recovery attempt gets the seconds left of ``recovery_time`` as its time limit (recorded
    on the attempt and passed to the solver); none starts once the budget is spent."""
    from sdpkern.problem import RECOVERY_MIN_TIME

    monkeypatch.setitem(BACKENDS, "clarabel", dataclasses.replace(BACKENDS["clarabel"], defaults={"max_iter": 2}))
    sol = toy().solve("clarabel", recovery_time=5.0)
    first, retry = sol.attempts
    assert first.time_limit is None and first.max_iter is None  # the caller set no caps
    assert retry.max_iter == 2000 and 0 < retry.time_limit <= 5.0
    assert retry.options["time_limit"] == retry.time_limit  # what Clarabel was given
    # the default budget: 10× the first attempt's time, at least RECOVERY_MIN_TIME
    sol = toy().solve("clarabel")
    assert RECOVERY_MIN_TIME - 1.0 < sol.attempts[1].time_limit <= max(RECOVERY_MIN_TIME, 10 * sol.attempts[0].time)
    # a spent budget: the first attempt's answer is all there is (raised, as without recovery)
    with pytest.raises(InaccurateSolutionError) as info:
        toy().solve("clarabel", recovery_time=1e-12)
    assert info.value.status == "iteration_limit" and "after" not in str(info.value)
    with pytest.raises(ParameterError, match="recovery_time"):
        toy().solve("clarabel", recovery_time=-1.0)


def test_recovery_budget_bounds_a_slow_other_backend(monkeypatch):
    """The other backend's attempt inherits the budget as SCS's time_limit_secs: a retry that
    would run to SCS's iteration cap stops at the budget with status time_limit."""
    original = Backend.solver_options

    def capped(self, options, **settings):  # Clarabel stops at 1 iteration; SCS must reach 1e-14
        out = original(self, options, **settings)
        if self.name == "clarabel":
            out["max_iter"] = 1
        else:
            out.update(eps_abs=1e-14, eps_rel=1e-14, max_iters=10**9)
        return out

    X, y = _cancer(20)
    slow = csvm(X, y, form="sdp")  # SCS does not reach 1e-14 on this SDP in seconds
    monkeypatch.setattr(Backend, "solver_options", capped)
    with pytest.warns(ConvergenceWarning):
        sol = slow.solve("clarabel", recovery_time=0.5, allow_inaccurate=True)
    scs = sol.attempts[-1]
    assert scs.backend == "scs" and scs.time_limit is not None and scs.time_limit <= 0.5
    assert scs.options["time_limit_secs"] == scs.time_limit
    assert sum(a.time for a in sol.attempts[1:]) < 0.5 + 1.0  # the budget, plus set-up overhead
    assert sol.status != "optimal" and scs.status == "time_limit"


def test_recovery_never_relabels(monkeypatch):
    """Every attempt capped at one iteration: the best attempt comes back with its own status,
    raised by default, kept with a ConvergenceWarning on request."""
    original = Backend.solver_options

    def capped(self, options, **settings):
        out = original(self, options, **settings)
        out[self.aliases["max_iter"]] = 1
        return out

    monkeypatch.setattr(Backend, "solver_options", capped)
    with pytest.raises(InaccurateSolutionError) as info:
        toy().solve("clarabel")
    assert info.value.status in ("iteration_limit", "optimal_inaccurate") and "after clarabel" in str(info.value)
    with pytest.warns(ConvergenceWarning, match="inaccurate"):
        sol = toy().solve("clarabel", allow_inaccurate=True)
    assert [a.backend for a in sol.attempts] == ["clarabel", "clarabel", "scs"]
    assert all(a.status != "optimal" for a in sol.attempts)
    # the best attempt by status (optimal_inaccurate before iteration_limit), its status unchanged
    rank = {"optimal_inaccurate": 1, "iteration_limit": 2}
    assert sol.status == min((a.status for a in sol.attempts), key=lambda s: rank.get(s, 3))
    assert sol.status == info.value.status


def test_caller_limits_are_reported_not_worked_around():
    with pytest.raises(InaccurateSolutionError) as info:
        toy().solve("scs", max_iter=2, tol=1e-12)
    # SCS says "solved inaccurate" at its cap; either way no other attempt was made
    assert info.value.status in ("iteration_limit", "optimal_inaccurate") and "after" not in str(info.value)


def _cancer(m: int) -> tuple[np.ndarray, np.ndarray]:
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X[:m]), y[:m]


def test_nu_regression_socp_on_20_points_is_certified():
    """Issue 17's case: the SOCP form with target 2·x₀ + 0.1·x₁ raised with both backends; the
    objective is now written for standardised targets. The SDP form is the second route."""
    X, _ = _cancer(20)
    t = 2 * X[:, 0] + 0.1 * X[:, 1]
    # Clarabel certifies it on its own (SCS stops at "solved inaccurate" after many iterations;
    # the recovery policy then hands it to Clarabel)
    socp = nu_regression(X, t).solve("clarabel", recovery=False)
    sdp = nu_regression(X, t, form="sdp").solve("clarabel")
    assert socp.status == "optimal" and socp.certificate is not None and socp.certificate.worst < 1e-4
    assert socp.objective == pytest.approx(sdp.objective, rel=1e-4)
    assert socp.beta.sum() == pytest.approx(np.std(t, ddof=1), rel=1e-4)  # 1ᵀβ = stddev(y)
    big = nu_regression(X, t * 1e10).solve("clarabel", recovery=False)  # used to be "unbounded"
    assert big.status == "optimal"
    np.testing.assert_allclose(big.decision_function(X) / 1e10, socp.decision_function(X), atol=1e-3)


def test_csvm_C_is_scikit_learns_box():
    """csvm(C) has the box 0 ≤ α ≤ C (002 eq. 3.8 with C' = C·m); problem.set(C=...) works."""
    X, y = _cancer(30)
    p = csvm(X, y, C=0.05, lambda_Q=1e-6)
    sol = p.solve()
    assert sol.alpha.max() <= 0.05 * (1 + 1e-6) and sol.alpha.max() >= 0.05 * (1 - 1e-4)
    # one basis kernel dominates at λ_Q → 0? no: compare with SVC on the learned kernel instead
    y_pm = np.where(y == 1, 1.0, -1.0)
    svc = SVC(C=0.05, kernel="precomputed", tol=1e-10).fit(sol.kernel_matrix, y_pm)
    ref = np.zeros(30)
    ref[svc.support_] = np.abs(svc.dual_coef_[0])
    f_ref = svc.decision_function(sol.kernel_matrix)
    np.testing.assert_allclose(sol.decision_function(X), f_ref, atol=2e-3)
    assert p.set(C=0.2).solve().alpha.max() <= 0.2 * (1 + 1e-6)


def test_l2svm_C_is_scikit_learns_and_settable():
    """l2svm(C): loss C Σξ², so α = C'ξ = 2Cξ (002 eq. 3.10, C' = 2C); set(C=...) = a fresh build."""
    X, y = _cancer(24)
    y_pm = np.where(y == 1, 1.0, -1.0)
    p = l2svm(X, y, C=3.0)
    assert p.parameters["ridge"].value == pytest.approx(1 / 6)
    sol = p.set(C=0.7).solve()
    fresh = l2svm(X, y, C=0.7).solve()
    assert sol.objective == pytest.approx(fresh.objective, rel=1e-6)
    xi = np.maximum(0.0, 1 - y_pm * sol.decision_function(X))
    # α from the solver, f through β (the cones' multipliers): agreement to ~√tol
    np.testing.assert_allclose(sol.alpha, 2 * 0.7 * xi, atol=1e-4)


def test_hyperkernel_svc_huge_C_records_the_backend():
    """Issue 17's HyperkernelSVC(C=1e12) on 40 moons through CVXPY: every attempt and the backend
    that answered are recorded, and an answer the solver does not vouch for is never called optimal
    (a box of 1e12 against dual values of order 10 is still beyond both solvers; README, "Certified
    solves")."""
    from sklearn.datasets import make_moons

    from sdpkern.errors import SolverError
    from sdpkern.estimators import HyperkernelSVC

    X, y = make_moons(40, noise=0.1, random_state=0)
    clf = HyperkernelSVC(C=1e12, max_terms=60, solver="conic")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        try:
            clf.fit(X, y)
        except SolverError as exc:  # no usable answer: a typed error carrying the status
            assert exc.status != "optimal"
            return
    assert clf.backend_ == clf.certificate_["backend"] == clf.attempts_[-1].backend or len(clf.attempts_) > 1
    assert clf.backend_ in {a.backend for a in clf.attempts_}
    if clf.status_ == "optimal":
        assert clf.score(X, y) > 0.9
    else:
        assert any(issubclass(w.category, ConvergenceWarning) for w in caught)


def test_hyperkernel_svc_huge_C_native_is_certified():
    """The same case on the default route (native from 30 points): on separable moons the box
    C = 1e12 never binds and the native master returns the hard-margin SVM, certified by its
    duality gap."""
    from sklearn.datasets import make_moons

    from sdpkern.estimators import HyperkernelSVC

    X, y = make_moons(40, noise=0.1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf = HyperkernelSVC(C=1e12, max_terms=60).fit(X, y)
    assert clf.solver_ == "native" and clf.backend_ is None
    assert clf.status_ == "optimal" and clf.certificate_["value"] <= 1e-6
    assert clf.score(X, y) == 1.0


def test_scs_residuals_are_relative_in_its_own_stopping_rule() -> None:
    """SCS 3 reports absolute residuals and stops at res ≤ eps_abs + eps_rel·(the data's norm);
    ``raw_certificate`` divides by 1 + that norm, so that ≤ tol means what it means for Clarabel."""
    from sdpkern.backends import raw_certificate

    A = np.array([[1.0, 0.0], [0.0, 2.0]])
    data = {"A": A, "b": np.array([7e4, 1.0]), "c": np.array([1.0, -3.0])}
    info = {"res_pri": 4.5e-3, "res_dual": 2e-6, "gap": 1e-5, "pobj": -5.0, "dobj": -5.0, "status": "solved"}
    raw = {"x": np.array([1.0, 2.0]), "y": np.array([0.5, 1.0]), "s": np.array([7e4 - 1.0, -3.0]), "info": info}
    cert = raw_certificate("scs", raw, data)
    assert cert["primal_residual"] == pytest.approx(4.5e-3 / (1 + 7e4))  # max(‖Ax‖, ‖s‖, ‖b‖) = 7e4
    assert cert["dual_residual"] == pytest.approx(2e-6 / (1 + 3.0))  # max(‖Aᵀy‖ = 2, ‖c‖ = 3)
    assert cert["gap_scale"] == pytest.approx(35001.0)  # max(|cᵀx| = 5, |bᵀy| = 35001)
    absolute = raw_certificate("scs", raw)  # without the data: SCS's own (absolute) numbers
    assert absolute["primal_residual"] == 4.5e-3 and absolute["gap_scale"] is None


def test_scs_certificate_agrees_with_its_status_on_a_large_c_socp() -> None:
    """Status sweep, C-SVM SOCP ionosphere m = 11, C = 2.18e5 (cone generation): SCS said "optimal"
    with an absolute primal residual 4.5e-3 (the box bound C/s ≈ 7e4 is in b; 4.1e-3 at these
    rounded parameters), which the sweep's "worst certificate" column printed as if relative. Now
    its certificate is within tol, and its objective is Clarabel's to 1e-7 (measured 9e-10)."""
    X, y = keel("ionosphere", 11, 848662972)
    kw = {"C": 2.18e5, "lambda_Q": 4.49e-6}
    scs = csvm(X, y, **kw).solve("scs", recovery=False)
    ref = csvm(X, y, **kw).solve("clarabel", recovery=False)
    assert scs.status == ref.status == "optimal" and scs.certificate is not None
    assert scs.certificate.worst <= scs.certificate.tol
    assert scs.objective == pytest.approx(ref.objective, rel=1e-7)


def test_cpd_squared_hinge_separable_by_its_polynomial_part_is_certified() -> None:
    """Status-sweep miss (issue 17): c.p.d. squared hinge, wdbc m = 102, C = 3.7e5. The affine
    part (31 terms in 30 dimensions) separates the points, so the optimum is 0 on an unbounded
    set of β̄; Clarabel's iterates ran off (‖β̄‖ 7e4) and it stopped at AlmostSolved. With the
    separating ball (``cpd_svm._separating_radius``) Clarabel certifies ``optimal``; the optimum is
    0, so the second route (SCS on the same problem) is compared absolutely, to Clarabel's
    absolute gap tolerance 1e-8, and the model must separate the training points."""
    from sdpkern.builders.cpd_svm import squared_hinge
    from sdpkern.kernels.cpd import ThinPlate

    X, y = keel("wdbc", 102, 154741218)
    p = squared_hinge(X, y, ThinPlate(2, formula_dimension=2), C=369819.237147151)
    assert "separating_ball" in p.constraints
    sol = p.solve("clarabel", recovery=False)
    assert sol.status == "optimal" and sol.attempts[0].backend == "clarabel"
    assert abs(sol.objective) <= 1e-8
    other = p.solve("scs", recovery=False)
    assert other.status == "optimal"
    assert abs(sol.objective - other.objective) <= 1e-8
    y_pm = np.where(y > 0, 1.0, -1.0)
    assert sol.model.decision is not None
    assert np.min(y_pm * sol.model.decision(X)) >= 1 - 1e-4


def _thyroid_nu_regression(form: str) -> KernelProblem:
    """The seed-2 ν-regression sweep's thyroid m = 30, C = 5.5e5 (exact parameters)."""
    X, y = keel("thyroid", 30, 947784019, regression=True)
    kw = {"C": 551548.6951748908, "nu": 0.1, "lambda_Q": 2.2485447564007227e-06, "eta": 1e-4, "max_terms": 150}
    return nu_regression(X, y, form=form, **kw)


def test_recovery_re_solves_clarabel_almost_solved_with_less_regularisation():
    """Clarabel ends this SOCP AlmostSolved (optimal_inaccurate) at its default static
    regularisation; the recovery step with RECOVERY_OPTIONS certifies it on Clarabel, equal to the
    SDP form's optimum (an independent program) to 1e-6 relative (measured 2e-8). Before, the
    policy went on to SCS, whose answer was 2e-5 off."""
    sol = _thyroid_nu_regression("socp").solve("clarabel")
    assert [a.status for a in sol.attempts] == ["optimal_inaccurate", "optimal"]
    assert sol.backend == "clarabel" and "own options" in sol.attempts[1].reason
    assert sol.attempts[1].options["static_regularization_constant"] == 1e-10
    sdp = _thyroid_nu_regression("sdp").solve("clarabel", recovery=False)
    assert sol.objective == pytest.approx(sdp.objective, rel=1e-6)


def test_recovery_keeps_the_callers_own_clarabel_setting():
    """A caller who set static_regularization_constant gets no step that overrides it."""
    sol = _thyroid_nu_regression("socp").solve("clarabel", static_regularization_constant=1e-8)
    assert all("own options" not in a.reason for a in sol.attempts)
    assert sol.attempts[0].status == "optimal_inaccurate"
