"""Capability checks before a solve: does the backend have the cones the problem needs?

The capabilities are CVXPY's own: each of its solver classes lists the constraints it accepts
(``SUPPORTED_CONSTRAINTS``) and whether it takes a quadratic objective, and CVXPY's structural
analysis of a problem (``cvxpy.problems.problem_form.ProblemForm``, no compilation) says which
cones the problem needs after canonicalisation. CVXPY finds a mismatch only while building its
solving chain, and its message ("The solver X cannot solve this problem") names neither the
cone nor what to do; this module asks the same question first and raises
:class:`~sdpkern.errors.BackendError` naming the backend and the cone, before any solver is
called. Backends CVXPY does not describe (registered solver objects without these attributes)
fall back to the registry's ``supports_sdp``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import cvxpy as cp
from cvxpy.constraints import PSD

from .errors import BackendError

__all__ = ["needs_psd_cone", "missing_cones", "check_backend_cones", "check_backend_for"]

#: Atoms CVXPY canonicalises through a PSD cone (Dcp2Cone), by class name.
_PSD_ATOMS = frozenset(
    {
        "lambda_max",
        "lambda_sum_largest",
        "normNuc",
        "sigma_max",
        "MatrixFrac",
        "log_det",
        "TrInv",
        "tr_inv",
        "condition_number",
        "von_neumann_entr",
        "quantum_rel_entr",
        "quantum_cond_entr",
        "OpRelEntrConeQuad",
    }
)

#: CVXPY's constraint classes, by the name a message gives the cone.
_CONE_NAMES = {
    "PSD": "PSD (semidefinite)",
    "SOC": "second-order (SOC)",
    "ExpCone": "exponential",
    "PowCone3D": "power",
    "PowConeND": "power",
    "RelEntrConeQuad": "relative-entropy",
    "OpRelEntrConeQuad": "operator relative-entropy",
}


def _expressions(problem: cp.Problem) -> Iterator[cp.Expression]:
    """Every expression node of the objective and the constraints (depth first)."""
    stack: list[object] = [problem.objective, *problem.constraints]
    while stack:
        node = stack.pop()
        yield node  # type: ignore[misc]
        stack.extend(getattr(node, "args", ()))


def needs_psd_cone(problem: cp.Problem) -> str | None:
    """What in ``problem`` needs a PSD cone (a short description), or None.

    Looks for PSD constraints (``X >> 0``), PSD/NSD variables and atoms whose conic form is an
    LMI (``lambda_max``, ``normNuc``, ``log_det``, ...). Only the model is inspected.
    """
    for con in problem.constraints:
        if isinstance(con, PSD):
            return f"a PSD constraint on a {con.shape[0]}x{con.shape[0]} matrix"
    for var in problem.variables():
        if var.attributes.get("PSD") or var.attributes.get("NSD"):
            return f"the PSD variable {var.name()!r}"
    for node in _expressions(problem):
        if type(node).__name__ in _PSD_ATOMS:
            return f"the atom {type(node).__name__}"
    return None


def _cvxpy_solvers(backend: Any) -> list[Any] | None:
    """CVXPY's solver objects for a backend (QP and conic interfaces), None if CVXPY has none."""
    from cvxpy.reductions.solvers import defines

    if backend.solver is not None:
        return [backend.solver] if hasattr(backend.solver, "can_solve") else None
    found = [m.get(backend.cvxpy_name) for m in (defines.SOLVER_MAP_QP, defines.SOLVER_MAP_CONIC)]
    return [f for f in found if f is not None] or None


def missing_cones(backend: Any, problem: cp.Problem) -> list[str] | None:
    """The cones ``problem`` needs that ``backend`` (a :class:`~sdpkern.backends.Backend`) has
    not, in CVXPY's terms: ``[]`` when it can take the problem, None when CVXPY cannot tell
    (an old CVXPY or a solver it does not describe)."""
    try:
        from cvxpy.problems.problem_form import ProblemForm
    except ImportError:  # CVXPY < 1.8: no structural analysis before compiling
        return None
    solvers = _cvxpy_solvers(backend)
    if solvers is None:
        return None
    form = ProblemForm(problem)
    best: list[str] | None = None
    for solver in solvers:
        if solver.can_solve(form):
            return []
        quad = solver.supports_quad_obj() and form.has_quadratic_objective()
        supported = {c.__name__ for c in solver.SUPPORTED_CONSTRAINTS}
        lacking = sorted({c.__name__ for c in form.cones(quad_obj=quad)} - supported - {"Zero", "NonNeg"})
        if best is None or len(lacking) < len(best):
            best = lacking
    return best


def check_backend_cones(backend: str, supports_sdp: bool, problem: cp.Problem, what: str = "this problem") -> None:
    """Raise :class:`BackendError` if ``backend`` lacks a PSD cone ``problem`` needs (the registry's
    ``supports_sdp``, for backends CVXPY does not describe)."""
    if supports_sdp:
        return
    reason = needs_psd_cone(problem)
    if reason is not None:
        raise BackendError(
            f"backend={backend!r} has no PSD (semidefinite) cone, but {what} needs one ({reason}); "
            "use backend='clarabel' or 'scs', or an SOCP form (form='socp') where the builder offers one"
        )


def check_backend_for(backend: object, problem: cp.Problem, what: str = "this problem") -> None:
    """Raise :class:`BackendError` naming the backend and the cone when ``backend`` cannot take
    ``problem``'s cones (CVXPY's capabilities, see the module docstring), before any solve.

    Unknown names are left to :func:`sdpkern.backends.get_backend`, which raises its own typed
    error. Runs before the installation check for the backends sdpkern lists, so the message is
    the same whether or not the backend's package is installed: installing it would not help.
    """
    from .backends import BACKENDS, get_backend

    if not isinstance(backend, str):
        return
    spec = BACKENDS.get(backend.lower())
    if spec is None:
        try:
            spec = get_backend(backend)
        except BackendError:
            return
    lacking = missing_cones(spec, problem)
    if lacking is None:
        check_backend_cones(spec.name, spec.supports_sdp, problem, what)
        return
    if not lacking:
        return
    names = [_CONE_NAMES.get(c, c) for c in lacking]
    reason = needs_psd_cone(problem) if "PSD" in lacking else None
    because = f" ({reason})" if reason else ""
    form_hint = ", or an SOCP form (form='socp') where the builder offers one" if "PSD" in lacking else ""
    raise BackendError(
        f"backend={spec.name!r} has no {' or '.join(names)} cone, but {what} needs one{because}; "
        f"use backend='clarabel' or 'scs'{form_hint}"
    )
