"""KernelProblem/Solution and the backend registry: status vocabulary and typed errors."""

import cvxpy as cp
import numpy as np
import pytest

from sdpkern import KernelProblem, Model
from sdpkern.backends import BACKENDS, available_backends, get_backend, map_status
from sdpkern.errors import (
    BackendNotInstalledError,
    InaccurateSolutionError,
    InfeasibleError,
    ParameterError,
    SolverError,
    UnboundedError,
    UnknownBackendError,
)


def toy(constraints_fn, objective="min"):
    x = cp.Variable(3, name="x")
    c = cp.Parameter(nonneg=True, name="c", value=1.0)
    obj = cp.Minimize(c * cp.sum(x)) if objective == "min" else cp.Maximize(cp.sum(x))
    prob = cp.Problem(obj, constraints_fn(x))
    return KernelProblem(
        cvxpy=prob,
        formulation="toy LP",
        source="none",
        form="qp",
        variables={"x": x},
        parameters={"c": c},
        constraints={},
        recover=lambda p: Model(alpha=p.variables["x"].value),
    )


def test_clarabel_and_scs_always_available():
    assert {"clarabel", "scs"} <= set(available_backends())


@pytest.mark.parametrize("backend", ["clarabel", "scs"])
def test_solution_fields(backend):
    sol = toy(lambda x: [x >= 1]).solve(backend=backend)
    assert sol.status == "optimal" and sol.backend == backend
    assert sol.objective == pytest.approx(3.0, rel=1e-5)
    np.testing.assert_allclose(sol.alpha, 1.0, rtol=1e-4)
    assert sol.total_time >= (sol.solve_time or 0.0) >= 0.0
    assert sol.iterations is None or sol.iterations >= 1


def test_infeasible_and_unbounded_are_typed():
    with pytest.raises(InfeasibleError, match="infeasible") as exc:
        toy(lambda x: [x >= 1, x <= 0]).solve()
    assert exc.value.status.startswith("infeasible")
    with pytest.raises(UnboundedError, match="unbounded"):
        toy(lambda x: [x >= 1], objective="max").solve()


def test_iteration_limit_surfaces_with_status():
    prob = toy(lambda x: [x >= 1, cp.norm(x, 2) <= 10])
    with pytest.raises(SolverError) as exc:
        prob.solve(backend="scs", max_iters=2, eps=1e-12)
    assert exc.value.status in ("iteration_limit", "optimal_inaccurate", "error")
    assert isinstance(exc.value, (InaccurateSolutionError, SolverError))


def test_unknown_option_and_missing_parameter():
    prob = toy(lambda x: [x >= 1])
    with pytest.raises(ParameterError, match="option"):
        prob.solve(backend="clarabel", no_such_option=3)
    prob.parameters["c"].value = None
    with pytest.raises(ParameterError, match="c"):
        prob.solve()
    with pytest.raises(ParameterError, match="not a parameter"):
        prob.set(nope=1.0)


def test_backend_registry_errors(monkeypatch):
    with pytest.raises(UnknownBackendError, match="choose one of"):
        get_backend("sedumi")
    monkeypatch.setattr(type(BACKENDS["clarabel"]), "installed", property(lambda self: False))
    with pytest.raises(BackendNotInstalledError, match="not installed"):
        get_backend("clarabel")


def test_option_aliases():
    assert get_backend("clarabel").solver_options({"max_iters": 5})["max_iter"] == 5
    assert get_backend("scs").solver_options({"max_iters": 5, "time_limit": 2})["time_limit_secs"] == 2


def test_status_vocabulary():
    assert map_status(cp.OPTIMAL) == "optimal"
    assert map_status(cp.USER_LIMIT) == "iteration_limit"
    assert map_status(None) == "error" and map_status("weird") == "error"
