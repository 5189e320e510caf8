"""``KernelProblem.solve(method=...)``: the hyperkernel SOCP builders' default route (cone
generation, certified for the whole SOCP) against the direct solve of the whole SOCP.

Tolerances: optima to 1e-6 relative (the solvers' accuracy is 1e-8); β to 1e-4 in ℓ1 (β is
the cones' multipliers, read at the solver's accuracy); decision values to 1e-4·max(1, |f|)
(the offset is a multiplier too). The ν-regression SOCPs stop at Clarabel's
``optimal_inaccurate`` on some instances (gap ~1e-7, test_hyperkernel_active_set.py); both
routes are held to the same comparison.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris, load_wine, make_moons

from sdpkern.builders.hyperkernel import HyperkernelData, csvm, l2svm, make_basis, nu_regression, nusvm, one_class
from sdpkern.errors import ParameterError, SolverError
from sdpkern.kernels.hyperkernels import HarmonicARD
from sdpkern.problem import ProblemData


def _standardised(X):
    return (X - X.mean(0)) / X.std(0)


def _data(name, m, seed):
    """m points of a binary problem: (X, labels, real targets for the regression)."""
    if name == "moons":
        X, y = make_moons(m, noise=0.25, random_state=seed)
    else:
        X, y = {"cancer": load_breast_cancer, "wine": load_wine, "iris": load_iris}[name](return_X_y=True)
        keep = y != 0 if name in ("wine", "iris") else np.ones_like(y, dtype=bool)  # two classes
        X, y = X[keep], y[keep]
        idx = np.random.default_rng(seed).permutation(y.shape[0])[:m]
        X, y = X[idx], y[idx]
    X = _standardised(X)
    return X, y, X[:, 0] + np.sin(2 * X[:, 1])


BUILDERS = {"csvm": csvm, "nusvm": nusvm, "l2svm": l2svm, "one_class": one_class, "nu_regression": nu_regression}

# (builder, data set, m, seed, builder parameters): 12 instances over 4 data sets and 5 formulations
INSTANCES = [
    ("csvm", "cancer", 40, 0, {}),
    ("csvm", "cancer", 40, 1, {"C": 1.0, "lambda_Q": 0.1}),
    ("csvm", "wine", 40, 2, {}),
    ("csvm", "iris", 40, 3, {"C": 10.0}),
    ("csvm", "moons", 40, 4, {"C": 1.0}),
    ("nusvm", "cancer", 40, 5, {}),
    ("nusvm", "moons", 30, 6, {"nu": 0.5}),
    ("l2svm", "wine", 40, 7, {}),
    ("l2svm", "moons", 30, 8, {"C": 1.0}),
    ("one_class", "cancer", 30, 9, {}),
    ("one_class", "iris", 30, 10, {"nu": 0.3}),
    ("nu_regression", "moons", 30, 11, {}),
]


def _problem(name, dataset, m, seed, params):
    X, y, t = _data(dataset, m, seed)
    args = {"one_class": (X,), "nu_regression": (X, t)}.get(name, (X, y))
    return BUILDERS[name](*args, HarmonicARD(0.6, "auto").fitted(X, random_state=0), **params), X


@pytest.mark.parametrize(("name", "dataset", "m", "seed", "params"), INSTANCES)
def test_default_route_agrees_with_the_direct_solve(name, dataset, m, seed, params):
    problem, X = _problem(name, dataset, m, seed, params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an 'optimal_inaccurate' ν-regression is compared below
        fast = problem.solve(allow_inaccurate=True)
        assert "_write" in problem.__dict__  # the default route never wrote the whole SOCP
        full = problem.solve(method="direct", allow_inaccurate=True)
    assert fast.method == "cone_generation" and full.method == "direct"
    assert fast.status == "optimal" or name == "nu_regression"
    assert abs(fast.objective - full.objective) <= 1e-6 * max(1.0, abs(full.objective))
    assert fast.beta.shape == full.beta.shape and np.abs(fast.beta - full.beta).sum() <= 1e-4
    f_fast, f_full = fast.decision_function(X), full.decision_function(X)
    np.testing.assert_allclose(f_fast, f_full, atol=1e-4 * max(1.0, float(np.abs(f_full).max())))
    # the certificate: no omitted cone violated beyond tol·max(1, |objective|) (Clarabel's 1e-8)
    assert fast.max_violation is not None and fast.max_violation <= 1e-8 * max(1.0, abs(fast.objective))
    assert fast.active_terms is not None and fast.active_terms.size <= problem.data["basis"].size
    assert np.all(fast.beta[np.setdiff1d(np.arange(fast.beta.size), fast.active_terms)] == 0.0)
    assert fast.certificate is not None and fast.attempts


def test_set_then_solve_uses_the_new_values():
    problem, _ = _problem("csvm", "cancer", 30, 20, {})
    problem.set(C=0.5, lambda_Q=0.2)
    fast = problem.solve()
    again, _ = _problem("csvm", "cancer", 30, 20, {"C": 0.5, "lambda_Q": 0.2})
    full = again.solve(method="direct")
    assert abs(fast.objective - full.objective) <= 1e-6 * abs(full.objective)
    assert fast.alpha.max() <= 0.5 + 1e-7  # the box is the new C


def test_l2svm_set_C_reaches_the_restricted_problems():
    # the L2-SVM holds C as the parameter ridge = 1/(2C): the route must carry it over
    problem, _ = _problem("l2svm", "moons", 30, 21, {})
    problem.set(C=0.3)
    again, _ = _problem("l2svm", "moons", 30, 21, {"C": 0.3})
    assert problem.solve().objective == pytest.approx(again.solve(method="direct").objective, rel=1e-6)


def test_methods_and_refusals():
    problem, _ = _problem("csvm", "cancer", 20, 22, {})
    with pytest.raises(ParameterError, match="method"):
        problem.solve(method="fast")
    sdp, _ = _problem("csvm", "cancer", 20, 22, {"form": "sdp"})
    with pytest.raises(ParameterError, match="cone generation"):
        sdp.solve(method="cone_generation")
    assert sdp.solve().method == "direct"  # auto: the SDP form has no generation route
    restricted, _ = _problem("csvm", "cancer", 20, 22, {"terms": [0, 1]})
    assert restricted.generate is None and restricted.solve().method == "direct"


def test_auto_falls_back_to_the_direct_solve_when_generation_does_not_settle():
    X, y, _ = _data("cancer", 30, 3)
    hk = HarmonicARD(0.6, "auto").fitted(X, random_state=0)
    B = make_basis(X, hk, None, 1e-6, 60)
    problem = nusvm(X, y, hk, basis=B, nu=0.3)
    needs = problem.solve(method="cone_generation")
    assert needs.active_terms is not None and needs.active_terms.size > 1
    assert problem.generate is not None
    problem.generate = dataclasses.replace(problem.generate, initial_terms=1, add_per_round=1, max_rounds=1)
    with pytest.raises(SolverError, match="max_rounds") as info:
        problem.solve(method="cone_generation")
    assert info.value.status == "iteration_limit"
    sol = problem.solve()
    assert sol.method == "direct" and sol.recovery is not None and "cone generation stopped" in sol.recovery
    assert sol.objective == pytest.approx(needs.objective, rel=1e-6)


def test_export_and_summary_write_the_whole_socp(tmp_path):
    problem, _ = _problem("csvm", "cancer", 20, 23, {})
    assert "deferred" in repr(problem)
    p = problem.data["basis"].size
    assert len(problem.constraints["kernel_cones"]) == p  # written on first use, every term
    assert "soc" in problem.summary()
    exported = problem.export(tmp_path / "csvm.cbf")
    assert exported is not None and (tmp_path / "csvm.cbf").stat().st_size > 0


def test_typed_inverse_data_keeps_dict_access():
    problem, X = _problem("csvm", "cancer", 20, 24, {})
    data = problem.data
    assert isinstance(data, HyperkernelData) and isinstance(data, ProblemData)
    assert data.basis is data["basis"] and data.X is data["X"] and np.array_equal(data.X, X)
    assert "terms" not in data and data.get("terms", "unset") == "unset"  # written with the SOCP
    problem.summary()
    assert np.array_equal(data.terms, np.arange(data.basis.size)) and data["factor_rank"] == data.factor_rank
    data["not_a_field"] = 1  # keys no field declares: kept, as a dict would
    assert data.extras == {"not_a_field": 1} and data["not_a_field"] == 1 and "not_a_field" in list(data)
    del data["not_a_field"]
    with pytest.raises(KeyError):
        data["not_a_field"]
    one = one_class(X, HarmonicARD(0.6, "auto").fitted(X, random_state=0))
    assert one.data.y is None and "y" not in one.data
