"""Constraint generation for the hyperkernel C-SVM's SOCP against the full SOCP (same optimum).

Tolerances: optima to 1e-6 relative (the solvers' own accuracy is 1e-8); β to 1e-4 in ℓ1
where the full problem's β is unique (one active term); the certificate, the largest violation
of an omitted cone at the final iterate, within ``tol`` = 1e-6 · max(1, |objective|).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from sdpkern.builders.hyperkernel import csvm, csvm_active_set, make_basis
from sdpkern.errors import ParameterError, SolverError
from sdpkern.estimators import HyperkernelSVC
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
    _, sol, trace = csvm_active_set(X, y, hk, C=C, lambda_Q=lambda_Q, basis=B, initial_terms=1, add_per_round=1)
    full = csvm(X, y, hk, C=C, lambda_Q=lambda_Q, basis=B).solve()
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
    _, sol, trace = csvm_active_set(X, y, hk, C=1.0, lambda_Q=0.1, basis=B, initial_terms=1, add_per_round=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        full = csvm(X, y, hk, C=1.0, lambda_Q=0.1, basis=B).solve(allow_inaccurate=True)
    assert trace.rounds >= 2
    assert abs(sol.objective - full.objective) <= 1e-6 * abs(full.objective)
    with pytest.raises(SolverError, match="max_rounds") as info:
        csvm_active_set(X, y, hk, C=1.0, lambda_Q=0.1, basis=B, initial_terms=1, add_per_round=1, max_rounds=1)
    assert info.value.status == "iteration_limit"


def test_estimator_active_set_matches_full_socp(cancer):
    X, y = _sample(cancer, 60, 4)
    fast = HyperkernelSVC().fit(X[:40], y[:40])
    slow = HyperkernelSVC(active_set=False).fit(X[:40], y[:40])
    assert abs(fast.objective_ - slow.objective_) <= 1e-6 * abs(slow.objective_)
    assert fast.active_terms_ is not None and fast.active_terms_.size <= fast.n_terms_
    assert slow.active_terms_ is None
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
