"""Open backends: any solver CVXPY has installed, capabilities read from CVXPY before the solve,
one status vocabulary, ``register_backend`` for the rest, and the SDPA binary in
``solve_external``.

The optional solvers come from the ``solvers`` extra (``pip install 'sdpkern[solvers]'``:
sdpa-python, cvxopt, piqp, osqp, highspy); each test is skipped when its solver is absent.
Every answer is compared with Clarabel's (a second route) on an SDP form, an SOCP form and a
c.p.d. QP of the instance library, to 1e-6 relative.
"""

from __future__ import annotations

import dataclasses
import warnings

import cvxpy as cp
import numpy as np
import pytest

from sdpkern.apps.instances import load
from sdpkern.backends import BACKENDS, Backend, available_backends, get_backend, register_backend
from sdpkern.errors import BackendError, ParameterError, UnknownBackendError

#: Instance -> its form, one per form the acceptance asks for (all in the shipped library).
FORMS = {"hk_csvm_sdp_m20": "sdp", "hk_csvm_socp_m10": "socp", "cpd_squared_hinge": "qp", "cpd_hinge_dual": "qp"}

#: Backend -> the forms it takes (CVXPY's capabilities: the QP solvers have no cones).
TAKES = {"sdpa": {"sdp", "socp", "qp"}, "cvxopt": {"sdp", "socp", "qp"}, "piqp": {"qp"}, "osqp": {"qp"},
         "highs": {"qp"}}  # fmt: skip


def _require(backend: str) -> None:
    if backend not in available_backends():
        pytest.skip(f"{backend} is not installed (pip install 'sdpkern[solvers]')")


@pytest.fixture(scope="module")
def reference() -> dict[str, float]:
    return {name: load(name)[0].solve("clarabel", method="direct").objective for name in FORMS}


@pytest.mark.parametrize("instance", sorted(FORMS))
@pytest.mark.parametrize("backend", sorted(TAKES))
def test_backend_agrees_with_clarabel(backend: str, instance: str, reference: dict[str, float]) -> None:
    _require(backend)
    problem, _ = load(instance)
    if FORMS[instance] not in TAKES[backend]:
        with pytest.raises(BackendError, match=rf"backend='{backend}' has no .* cone, but .* needs one"):
            problem.solve(backend, method="direct")
        return
    # SDPA (double precision) often ends at pdFEAS, its gap stalled near 1e-7 by rounding: that is
    # "optimal_inaccurate" (never relabelled), accepted here explicitly to compare its point
    allow = backend == "sdpa"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=Warning)
        sol = problem.solve(backend, method="direct", allow_inaccurate=allow)
    assert sol.status == "optimal" or (allow and sol.status == "optimal_inaccurate")
    assert sol.backend == backend and [a.backend for a in sol.attempts] == [backend] * len(sol.attempts)
    ref = reference[instance]
    assert abs(sol.objective - ref) <= 1e-6 * max(1.0, abs(ref)), (sol.objective, ref)


def test_bounded_qp_solvers_are_not_misled_by_cvxpy_bounds() -> None:
    """CVXPY 1.9's interval bounds fix the squared hinge's slacks at 1 for solvers that take
    variable bounds (PIQP, HiGHS answered "optimal" at 30.0 for 1.7164): sdpkern runs them with
    bounds off. The bug itself, so that this test says when CVXPY no longer has it."""
    _require("piqp")
    problem, _ = load("cpd_squared_hinge")
    assert "SDPKERN_PIQP" == get_backend("piqp").solver.name()
    assert abs(problem.solve("piqp").objective - 1.7164086541) < 1e-8
    v = cp.Variable(3)
    K = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, -1.0]])
    lb, _ = cp.maximum(1 - cp.multiply(np.array([1.0, -1.0]), K @ v), 0).get_bounds()
    if not np.all(lb == 1.0):
        pytest.skip("this CVXPY computes the bounds correctly; _without_bounds may go")


def test_any_installed_cvxpy_solver_is_a_backend() -> None:
    """A solver CVXPY has installed but sdpkern does not list (SciPy's HiGHS LP interface, GLPK):
    accepted under its CVXPY name, its cones checked, its own options only."""
    others = [s for s in cp.installed_solvers() if s.lower() not in BACKENDS]
    if not others:
        pytest.skip("no installed CVXPY solver beyond sdpkern's list")
    name = others[0].lower()
    b = get_backend(name)
    assert b.cvxpy_name == others[0] and name in available_backends()
    problem, _ = load("hk_csvm_sdp_m10")
    from cvxpy.reductions.solvers import defines

    solvers = [m[others[0]] for m in (defines.SOLVER_MAP_QP, defines.SOLVER_MAP_CONIC) if others[0] in m]
    if not any("PSD" in {c.__name__ for c in s.SUPPORTED_CONSTRAINTS} for s in solvers):
        with pytest.raises(BackendError, match=rf"backend='{name}' has no PSD"):
            problem.solve(name)
    with pytest.raises(ParameterError, match=rf"backend='{name}' has no setting sdpkern maps tol"):
        b.check_portable(tol=1e-6, max_iter=None, time_limit=None)


def test_unknown_backend_lists_what_is_installed() -> None:
    with pytest.raises(UnknownBackendError, match=r"backend='sedumi' is not known.*installed here: \[.*'clarabel'"):
        get_backend("sedumi")


def test_register_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mapping for a solver sdpkern does not tune, and the rules of the registry."""
    monkeypatch.setattr("sdpkern.backends.BACKENDS", dict(BACKENDS))
    spec = Backend("clarabel_loose", "CLARABEL", "clarabel", tol_keys=("tol_feas",), default_tol=1e-7)
    loose = register_backend(spec)
    assert get_backend("clarabel_loose") is loose
    problem, _ = load("cpd_hinge_dual")
    sol = problem.solve("clarabel_loose")
    assert sol.status == "optimal" and sol.attempts[0].options["tol_feas"] == 1e-7
    with pytest.raises(ParameterError, match="already registered"):
        register_backend(loose)
    register_backend(dataclasses.replace(loose, default_tol=1e-8), replace=True)
    assert get_backend("clarabel_loose").default_tol == 1e-8
    with pytest.raises(ParameterError, match="lower-case"):
        register_backend(Backend("Bad", "CLARABEL"))
    with pytest.raises(ParameterError, match="sdpkern.backends.Backend"):
        register_backend("clarabel")  # type: ignore[arg-type]


def test_register_a_solver_object_cvxpy_does_not_know(monkeypatch: pytest.MonkeyPatch) -> None:
    """A custom CVXPY solver (here Clarabel's interface under another name) through the registry."""
    from cvxpy.reductions.solvers.conic_solvers.clarabel_conif import CLARABEL

    class MyClarabel(CLARABEL):
        def name(self) -> str:
            return "MY_CLARABEL"

    monkeypatch.setattr("sdpkern.backends.BACKENDS", dict(BACKENDS))
    register_backend(Backend("mine", "MY_CLARABEL", solver=MyClarabel()))
    problem, _ = load("hk_csvm_sdp_m10")
    sol = problem.solve("mine", method="direct")
    assert sol.status == "optimal" and sol.backend == "mine"
    assert sol.objective == pytest.approx(load("hk_csvm_sdp_m10")[0].solve(method="direct").objective, rel=1e-6)


def test_capabilities_come_from_cvxpy() -> None:
    from sdpkern._capabilities import missing_cones

    sdp, _ = load("hk_csvm_sdp_m10")
    qp, _ = load("cpd_hinge_dual")
    socp, _ = load("sdpm_deg2")
    assert missing_cones(get_backend("clarabel"), sdp.cvxpy) == []
    assert missing_cones(BACKENDS["ecos"], sdp.cvxpy) == ["PSD"]
    assert missing_cones(BACKENDS["osqp"], socp.cvxpy) == ["SOC"]
    assert missing_cones(BACKENDS["osqp"], qp.cvxpy) == []


# ================================================================ the SDPA binary
@pytest.mark.external
@pytest.mark.parametrize("instance", ["hk_csvm_sdp_m10", "hk_csvm_sdp_m20", "hk_csvm_sdp_m30"])
def test_sdpa_binary_agrees_with_the_in_process_optimum(instance: str) -> None:
    """The library's SDPs through the SDPA binary (Debian ``sdpa``): "optimal" (pdOPT, with its
    stable parameters where its defaults end at pdFEAS) and the in-process optimum to 1e-6."""
    from export_problems import require_external_solver

    from sdpkern import export

    require_external_solver("sdpa")
    problem, _ = load(instance)
    ref = problem.solve(method="direct").objective
    res = export.solve_external(problem, "sdpa")
    assert res.status == "optimal" and res.cone_violation <= 1e-6
    assert abs(res.objective - ref) <= 1e-6 * max(1.0, abs(ref))


@pytest.mark.external
def test_sdpa_binary_pdfeas_is_not_optimal() -> None:
    """SDPA's pdFEAS is "optimal_inaccurate": an error, or a warning with allow_inaccurate."""
    from export_problems import require_external_solver
    from sklearn.exceptions import ConvergenceWarning

    from sdpkern import export
    from sdpkern.errors import InaccurateSolutionError

    require_external_solver("sdpa")
    problem, _ = load("sdpm_deg2_sdp")
    with pytest.raises(InaccurateSolutionError, match=r"phase.value pdFEAS") as info:
        export.solve_external(problem, "sdpa")
    assert info.value.status == "optimal_inaccurate"
    with pytest.warns(ConvergenceWarning, match="sdpa returned an inaccurate optimum"):
        res = export.solve_external(problem, "sdpa", allow_inaccurate=True)
    assert res.status == "optimal_inaccurate"
    ref = problem.solve(method="direct").objective
    assert abs(res.objective - ref) <= 1e-6 * max(1.0, abs(ref))
