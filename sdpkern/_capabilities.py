"""Capability checks before a solve: does the backend have the cones the problem needs?

CVXPY finds out only while compiling, and its message ("solver ... does not support ...")
names neither the cone nor what to do; this module walks the model itself (no compilation,
no solver call) and raises :class:`~sdpkern.errors.BackendError` naming the backend and the
cone (issue 17).
"""

from __future__ import annotations

from collections.abc import Iterator

import cvxpy as cp
from cvxpy.constraints import PSD

from .errors import BackendError

__all__ = ["needs_psd_cone", "check_backend_cones", "check_backend_for"]

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


def check_backend_cones(backend: str, supports_sdp: bool, problem: cp.Problem, what: str = "this problem") -> None:
    """Raise :class:`BackendError` if ``backend`` lacks a cone ``problem`` needs (before any solve).

    Parameters
    ----------
    backend : str
        The backend's name (for the message).
    supports_sdp : bool
        Its registry entry's PSD capability (:class:`sdpkern.backends.Backend`).
    problem : cvxpy.Problem
    what : str
        The problem's name for the message (a KernelProblem's formulation).
    """
    if supports_sdp:
        return
    reason = needs_psd_cone(problem)
    if reason is not None:
        raise BackendError(
            f"backend={backend!r} has no PSD (semidefinite) cone, but {what} needs one ({reason}); "
            "use backend='clarabel' or 'scs', or an SOCP form (form='socp') where the builder offers one"
        )


def check_backend_for(backend: object, problem: cp.Problem, what: str = "this problem") -> None:
    """:func:`check_backend_cones` for a backend given by name (unknown names are left to
    :func:`sdpkern.backends.get_backend`, which raises its own typed error).

    Runs before the installation check, so the message is the same whether or not the
    backend's package is installed: installing it would not help.
    """
    from .backends import BACKENDS

    spec = BACKENDS.get(backend.lower()) if isinstance(backend, str) else None
    if spec is not None:
        check_backend_cones(spec.name, spec.supports_sdp, problem, what)
