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
        prob.solve(backend="scs", max_iter=2, tol=1e-12)
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


def test_option_mapping():
    """One meaning of tol / max_iter / time_limit, mapped to each backend's own settings."""
    clarabel = get_backend("clarabel").solver_options({}, tol=1e-6, max_iter=5, time_limit=3)
    assert clarabel == {"tol_gap_abs": 1e-6, "tol_gap_rel": 1e-6, "tol_feas": 1e-6, "max_iter": 5, "time_limit": 3}
    scs = get_backend("scs").solver_options({}, tol=1e-6, max_iter=5, time_limit=2)
    assert scs == {"eps_abs": 1e-6, "eps_rel": 1e-6, "max_iters": 5, "time_limit_secs": 2}
    # the backend's own settings win; without tol each backend's default tolerance is used
    assert get_backend("scs").solver_options({"eps_abs": 1e-3})["eps_abs"] == 1e-3
    assert get_backend("clarabel").solver_options({})["tol_feas"] == 1e-8


@pytest.mark.parametrize("bad", [{"tol": -1}, {"tol": 0}, {"tol": 2.0}, {"max_iter": 0}, {"max_iter": 2.5},
                                 {"time_limit": -1}, {"tol": float("nan")}])  # fmt: skip
def test_nonsense_solve_options_are_parameter_errors(bad):
    with pytest.raises(ParameterError, match=next(iter(bad))):
        toy(lambda x: [x >= 1]).solve(**bad)


def test_deprecated_option_names_warn_and_are_checked():
    with pytest.warns(FutureWarning, match="'eps' is deprecated"), pytest.raises(ParameterError, match="tol"):
        toy(lambda x: [x >= 1]).solve(eps=-1)
    with pytest.warns(FutureWarning, match="'max_iters' is deprecated"):
        sol = toy(lambda x: [x >= 1]).solve(max_iters=100)
    assert sol.status == "optimal"


@pytest.mark.parametrize("backend", ["clarabel", "scs"])
def test_every_solution_carries_a_certificate(backend):
    """The solver's own residuals and gap come back, and meet the tolerance it certified."""
    sol = toy(lambda x: [x >= 1, cp.norm(x, 2) <= 10]).solve(backend, tol=1e-7)
    cert = sol.certificate
    assert sol.status == "optimal" and cert is not None and cert.backend == backend
    assert cert.tol == 1e-7 and cert.iterations == sol.iterations and cert.iterations >= 1
    assert cert.solver_status.lower() == "solved"
    for value in (cert.primal_residual, cert.dual_residual, cert.gap, cert.relative_gap):
        assert value is not None and 0 <= value
    # Clarabel's residuals are relative (≤ tol); SCS's absolute, ≤ eps_abs + eps_rel·scale
    assert cert.relative_gap <= 1e-6 and cert.worst < 1e-4
    assert len(sol.attempts) == 1 and sol.attempts[0].reason == "requested" and sol.recovery is None


def test_status_vocabulary():
    assert map_status(cp.OPTIMAL) == "optimal"
    assert map_status(cp.USER_LIMIT) == "iteration_limit"
    assert map_status(None) == "error" and map_status("weird") == "error"
