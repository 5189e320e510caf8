"""Constraint generation for the hyperkernel SOCPs (C-SVM, ν-SVM, L2-SVM, one-class,
ν-regression) against the full SOCPs (same optimum).

Tolerances: optima to 1e-6 relative (the solvers' own accuracy is 1e-8); β to 1e-4 in ℓ1
where the full problem's β is unique (one active term); the certificate, the largest violation
of an omitted cone at the final iterate, within ``tol`` = 1e-6 · max(1, |objective|).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from sdpkern.builders.hyperkernel import (
    cone_generation,
    cone_violations,
    csvm,
    csvm_active_set,
    l2svm,
    make_basis,
    nu_regression,
    nusvm,
    one_class,
)
from sdpkern.errors import ParameterError, SolverError
from sdpkern.estimators import (
    HyperkernelL2SVC,
    HyperkernelNuSVC,
    HyperkernelNuSVR,
    HyperkernelOneClassSVM,
    HyperkernelSVC,
)
from sdpkern.kernels.hyperkernels import HarmonicARD, HarmonicHyperkernel


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return (X - X.mean(0)) / X.std(0), y


def _sample(data, m, seed):
    X, y = data
    idx = np.random.default_rng(seed).permutation(y.shape[0])[:m]
    return X[idx], y[idx]


@pytest.mark.parametrize(
    ("m", "seed", "C", "lambda_Q"), [(30, 0, 100.0, 1.0), (40, 1, 10.0, 0.01), (40, 2, 100.0, 0.0)]
)
def test_active_set_reaches_the_full_socp_optimum(cancer, m, seed, C, lambda_Q):
    X, y = _sample(cancer, m, seed)
    hk = HarmonicARD(0.6, "auto").fitted(X, random_state=0)
    B = make_basis(X, hk, None, 1e-6, 60)
    C = C / m  # the instances were chosen with eq. (3.8)'s C' = C·m
    _, sol, trace = csvm_active_set(X, y, hk, C=C, lambda_Q=lambda_Q, basis=B, initial_terms=1, add_per_round=1)
    full = csvm(X, y, hk, C=C, lambda_Q=lambda_Q, basis=B).solve(method="direct")
    assert abs(sol.objective - full.objective) <= 1e-6 * abs(full.objective)
    assert np.abs(sol.beta - full.beta).sum() <= 1e-4
    assert trace.terms.size < B.size and trace.max_violation <= 1e-6 * max(1.0, abs(sol.objective))
    assert sol.beta.shape == (B.size,) and np.all(sol.beta >= 0) and sol.beta.sum() == pytest.approx(1.0, abs=1e-6)


def test_several_rounds_when_several_terms_carry_weight(cancer):
    # A narrow plain harmonic hyperkernel with small C: the full SOCP spreads β over all terms,
    # so the generation must add cones over several rounds before the certificate holds.
    X, y = _sample(cancer, 30, 3)
    hk = HarmonicHyperkernel(lambda_h=0.6, gamma=0.05)
    B = make_basis(X, hk, None, 1e-6, None)
    C = 1.0 / 30  # eq. (3.8)'s C' = 1
    _, sol, trace = csvm_active_set(X, y, hk, C=C, lambda_Q=0.1, basis=B, initial_terms=1, add_per_round=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = csvm(X, y, hk, C=C, lambda_Q=0.1, basis=B).solve(allow_inaccurate=True, method="direct")
    assert trace.rounds >= 2
    assert abs(sol.objective - full.objective) <= 1e-6 * abs(full.objective)
    with pytest.raises(SolverError, match="max_rounds") as info:
        csvm_active_set(X, y, hk, C=C, lambda_Q=0.1, basis=B, initial_terms=1, add_per_round=1, max_rounds=1)
    assert info.value.status == "iteration_limit"


def test_estimator_active_set_matches_full_socp(cancer):
    X, y = _sample(cancer, 60, 4)
    fast = HyperkernelSVC(solver="conic").fit(X[:40], y[:40])
    slow = HyperkernelSVC(active_set=False).fit(X[:40], y[:40])  # "auto": the full SOCP through CVXPY
    assert abs(fast.objective_ - slow.objective_) <= 1e-6 * abs(slow.objective_)
    assert fast.active_terms_ is not None and fast.active_terms_.size <= fast.n_terms_
    assert slow.active_terms_ is None and slow.solver_ == "conic"
    with pytest.raises(ParameterError, match="active_set"):
        HyperkernelSVC(solver="native", active_set=False).fit(X[:40], y[:40])
    np.testing.assert_array_equal(fast.predict(X[40:]), slow.predict(X[40:]))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"initial_terms": 0}, "initial_terms"), ({"add_per_round": 1.5}, "add_per_round"), ({"tol": -1.0}, "tol")],
)
def test_bad_arguments(cancer, kwargs, match):
    X, y = _sample(cancer, 20, 5)
    with pytest.raises(ParameterError, match=match):
        csvm_active_set(X, y, **kwargs)


def test_bad_terms_and_flag(cancer):
    X, y = _sample(cancer, 20, 6)
    with pytest.raises(ParameterError, match="terms"):
        csvm(X, y, terms=[10_000])
    with pytest.raises(ParameterError, match="active_set"):
        HyperkernelSVC(active_set="yes").fit(X, y)


# ----------------------------------------------------------------------------- the other SOCP forms
def _targets(name, X, y):
    """The second argument of each builder: labels, nothing (one-class) or real targets."""
    if name == "one_class":
        return None
    if name == "nu_regression":
        return X[:, 0] + np.sin(2 * X[:, 1])
    return y


BUILDERS = {"nusvm": nusvm, "l2svm": l2svm, "one_class": one_class, "nu_regression": nu_regression}


@pytest.mark.parametrize("name", sorted(BUILDERS))
@pytest.mark.parametrize(("m", "seed"), [(30, 10), (40, 11)])
def test_cone_generation_reaches_each_full_socp_optimum(cancer, name, m, seed):
    X, y = _sample(cancer, m, seed)
    target = _targets(name, X, y)
    build = BUILDERS[name]
    hk = HarmonicARD(0.6, "auto").fitted(X, random_state=0)
    B = make_basis(X, hk, None, 1e-6, 60)
    with warnings.catch_warnings():
        # Clarabel stops the ν-regression SOCPs at 'optimal_inaccurate' (gap ~1e-7); the
        # comparison below is what holds them to account
        warnings.simplefilter("ignore")
        problem, sol, trace = cone_generation(
            build, X, target, hk, basis=B, initial_terms=1, add_per_round=2, allow_inaccurate=True
        )
    args = (X,) if target is None else (X, target)
    full_problem = build(*args, hk, basis=B)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = full_problem.solve(allow_inaccurate=True, method="direct")
    assert abs(sol.objective - full.objective) <= 1e-6 * max(1.0, abs(full.objective))
    assert trace.max_violation <= 1e-6 * max(1.0, abs(sol.objective))
    # the certificate, recomputed: no cone of the full problem is violated at the returned point
    assert cone_violations(problem, B.kernels()).max() <= 1e-6 * max(1.0, abs(sol.objective))
    assert sol.beta.shape == (B.size,) and np.all(sol.beta >= 0)
    assert sol.beta.sum() == pytest.approx(full.beta.sum(), rel=1e-5)  # 1 or stddev(y)


@pytest.mark.parametrize(
    ("cls", "kind"),
    [(HyperkernelNuSVC, "classify"), (HyperkernelL2SVC, "classify"), (HyperkernelOneClassSVM, "novelty"),
     (HyperkernelNuSVR, "regress")],
)  # fmt: skip
def test_estimators_active_set_match_full_socp(cancer, cls, kind):
    X, y = _sample(cancer, 60, 12)
    target = {"classify": y[:40], "novelty": None, "regress": X[:40, 0] + np.sin(2 * X[:40, 1])}[kind]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # cone generation through CVXPY (solver="auto" would take the native master from 30 points on,
        # certified to a relative gap of 1e-6: its predictions agree to about 1e-3, tested elsewhere)
        fast = cls(solver="conic").fit(X[:40], target)
        slow = cls(active_set=False).fit(X[:40], target)
    assert abs(fast.objective_ - slow.objective_) <= 1e-6 * max(1.0, abs(slow.objective_))
    assert fast.active_terms_ is not None and fast.active_terms_.size <= fast.n_terms_
    assert slow.active_terms_ is None
    score = {"classify": "decision_function", "novelty": "decision_function", "regress": "predict"}[kind]
    np.testing.assert_allclose(getattr(fast, score)(X[40:]), getattr(slow, score)(X[40:]), atol=1e-4)


def test_cone_generation_refuses_form_and_terms(cancer):
    X, y = _sample(cancer, 20, 13)
    with pytest.raises(ParameterError, match="form"):
        cone_generation(nusvm, X, y, form="sdp")
    with pytest.raises(ParameterError, match="terms"):
        cone_generation(l2svm, X, y, terms=[0, 1])
