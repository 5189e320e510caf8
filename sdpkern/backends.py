"""Solver registry: names, availability, option mapping and one status vocabulary.

Each backend is a small object with its option mapping as attributes and a lazy import of its
solver package (STYLE.md, item 6). Clarabel and SCS are always installed. Any other solver that
CVXPY reports installed (``cvxpy.installed_solvers()``) is a backend too, under its CVXPY name in
lower case: those in :data:`BACKENDS` (CVXOPT, ECOS, MOSEK, SDPA, PIQP, OSQP, HiGHS) with
sdpkern's ``tol``/``max_iter``/``time_limit`` mapped to their own settings, the rest with their
own settings only. Whether a backend can take a problem's cones is read from CVXPY's solver
classes before the solve (:mod:`sdpkern._capabilities`). :func:`register_backend` adds a solver
CVXPY does not know (a ``cvxpy.reductions.solvers`` ``Solver`` instance) or changes a mapping.

Status vocabulary (``Solution.status``):

``optimal``            the solver vouches for the optimum
``optimal_inaccurate`` the solver stopped near an optimum it does not vouch for
``infeasible`` / ``unbounded`` (with ``_inaccurate`` variants)
``iteration_limit`` / ``time_limit`` / ``error``
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import cvxpy as cp
import numpy as np

from .errors import BackendNotInstalledError, ParameterError, UnknownBackendError

__all__ = [
    "Backend",
    "BACKENDS",
    "get_backend",
    "register_backend",
    "available_backends",
    "map_status",
    "raw_certificate",
    "DEFAULT_BACKEND",
]

DEFAULT_BACKEND = "clarabel"

#: CVXPY status -> sdpkern status.
_STATUS_MAP: dict[str, str] = {
    cp.OPTIMAL: "optimal",
    cp.OPTIMAL_INACCURATE: "optimal_inaccurate",
    cp.INFEASIBLE: "infeasible",
    cp.INFEASIBLE_INACCURATE: "infeasible_inaccurate",
    cp.UNBOUNDED: "unbounded",
    cp.UNBOUNDED_INACCURATE: "unbounded_inaccurate",
    cp.USER_LIMIT: "iteration_limit",
    cp.SOLVER_ERROR: "error",
}


def map_status(cvxpy_status: str | None, solver_status: str | None = None) -> str:
    """Map a CVXPY status string to sdpkern's vocabulary (unknown ones to ``"error"``).

    CVXPY reports a time limit as ``user_limit`` (Clarabel) or ``optimal_inaccurate`` (SCS);
    the solver's own ``solver_status`` (Clarabel ``MaxTime``, SCS "solved (inaccurate - reached
    time_limit_secs)"), when given, turns it into ``"time_limit"``. (SCS's "reached max_iters"
    stays ``optimal_inaccurate``, as CVXPY reports it: the recovery policy of
    :meth:`sdpkern.KernelProblem.solve` keys its 10× iterations retry on ``iteration_limit``.)
    A status is only ever made more specific, never better.
    """
    if cvxpy_status is None:
        return "error"
    status = _STATUS_MAP.get(cvxpy_status, "error")
    if solver_status and status in ("iteration_limit", "optimal_inaccurate"):
        word = solver_status.lower().replace(" ", "")
        if "maxtime" in word or "time_limit" in word:
            return "time_limit"
    return status


@dataclass(frozen=True)
class Backend:
    """A conic solver reachable through CVXPY.

    Attributes
    ----------
    name : str
        sdpkern's name (lower case).
    cvxpy_name : str
        The solver name CVXPY knows.
    module : str or None
        The Python package whose presence makes the backend available (None: ask CVXPY only).
    supports_sdp, supports_socp : bool
        Cone capabilities as sdpkern states them (the capability check reads CVXPY's own, see
        :mod:`sdpkern._capabilities`; these are for solvers CVXPY does not describe).
    aliases : dict
        sdpkern option name -> this solver's option name (``max_iter``, ``time_limit``), so one
        set of options works across backends.
    defaults : dict
        Options passed unless the user overrides them.
    tol_keys : tuple of str
        The solver's settings that ``tol`` sets (all to the same value): the stopping rule's
        primal residual, dual residual and gap tolerances, so that ``tol`` means "relative
        primal and dual residuals and gap below tol" on every backend.
    default_tol : float or None
        The ``tol`` used when the caller gives none (None: the solver's own defaults).
    solver : cvxpy Solver or None
        A solver object CVXPY does not know by name (:func:`register_backend`); CVXPY is then
        given the object itself.
    """

    name: str
    cvxpy_name: str
    module: str | None = None
    supports_sdp: bool = True
    supports_socp: bool = True
    aliases: Mapping[str, str] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)
    tol_keys: tuple[str, ...] = ()
    default_tol: float | None = None
    solver: Any = None

    @property
    def installed(self) -> bool:
        """True when the solver package can be imported and CVXPY sees it."""
        if self.module is not None and importlib.util.find_spec(self.module) is None:
            return False
        if self.solver is not None:
            return bool(self.solver.is_installed())
        return self.cvxpy_name in cp.installed_solvers()

    @property
    def cvxpy_solver(self) -> Any:
        """What CVXPY's ``solver=`` takes: the name, or the registered solver object."""
        return self.cvxpy_name if self.solver is None else self.solver

    def check_portable(self, *, tol: float | None, max_iter: int | None, time_limit: float | None) -> None:
        """:class:`ParameterError` for a portable option this backend has no setting for (it
        would otherwise be dropped without a word); its own settings go in ``**options``."""
        given = {"tol": tol is not None and not self.tol_keys,
                 "max_iter": max_iter is not None and "max_iter" not in self.aliases,
                 "time_limit": time_limit is not None and "time_limit" not in self.aliases}  # fmt: skip
        dropped = [k for k, v in given.items() if v]
        if dropped:
            raise ParameterError(
                f"backend={self.name!r} has no setting sdpkern maps {', '.join(dropped)} to; pass {self.name}'s own "
                "options as keyword arguments instead (they go to the solver unchanged)"
            )

    def solver_options(
        self,
        options: Mapping[str, Any],
        *,
        tol: float | None = None,
        max_iter: int | None = None,
        time_limit: float | None = None,
    ) -> dict[str, Any]:
        """Translate sdpkern's options to this solver's settings and add the defaults.

        ``tol`` sets every key of ``tol_keys`` (default ``default_tol``), ``max_iter`` and
        ``time_limit`` the solver's iteration and time caps; ``options`` are the solver's own
        settings (or sdpkern names in ``aliases``) and win over everything else.
        """
        out = dict(self.defaults)
        tol_value = self.default_tol if tol is None else tol
        if tol_value is not None:
            out.update(dict.fromkeys(self.tol_keys, tol_value))
        for key, value in (("max_iter", max_iter), ("time_limit", time_limit)):
            if value is not None and key in self.aliases:
                out[self.aliases[key]] = value
        for key, value in options.items():
            out[self.aliases.get(key, key)] = value
        return out


def _without_bounds(solver: Any) -> Any:
    """CVXPY's interface ``solver`` with variable bounds off (``BOUNDED_VARIABLES = False``): the
    auxiliary variables of its canonicalisation are then plain, and bounds are rows.

    CVXPY 1.9's interval bounds give NaN for a matrix product of unbounded variables (0·inf) and
    then 0 after an elementwise product, so ``maximum(1 − y∘(K v + P β), 0)`` (the c.p.d. squared
    hinge, 000 eq. 14) gets the bounds [1, 1]: PIQP and HiGHS, the installed solvers that take
    bounds, then answered "optimal" at the point v = 0 (objective 30.0 where the optimum is
    1.7164, measured on the library's ``cpd_squared_hinge``). Without bounds they agree with
    Clarabel to 1e-10. The subclass has its own name, as CVXPY requires of a solver object.
    """
    cls = type(solver)
    name = f"SDPKERN_{solver.name()}"
    sub = type(f"{cls.__name__}WithoutBounds", (cls,), {"BOUNDED_VARIABLES": False, "name": lambda self: name})
    return sub()


def _cvxpy_solver(name: str) -> Any:
    """CVXPY's QP interface of solver ``name`` (its conic one if it has none), bounds off."""
    from cvxpy.reductions.solvers import defines

    solver = defines.SOLVER_MAP_QP.get(name) or defines.SOLVER_MAP_CONIC[name]
    return _without_bounds(solver) if getattr(solver, "BOUNDED_VARIABLES", False) else None


BACKENDS: dict[str, Backend] = {
    b.name: b
    for b in (
        Backend(
            "clarabel",
            "CLARABEL",
            "clarabel",
            aliases={"max_iter": "max_iter", "time_limit": "time_limit"},
            tol_keys=("tol_gap_abs", "tol_gap_rel", "tol_feas"),
            default_tol=1e-8,  # Clarabel's own default for all three
            # Clarabel's other settings are its own. static_regularization_constant=1e-10 (its
            # default 1e-8) certifies the seed-2 ν-regression sweep's thyroid m = 30 SOCP
            # (AlmostSolved at the default) and changed no other status of 422 hyperkernel and 40
            # c.p.d. solves, but it lost 8 of the first 20 SDPM r3/r4 solves of the default sweep
            # (seed 0; 5 errors, 3 AlmostSolved): measured, and not a default; the recovery
            # policy uses it after an AlmostSolved (problem.RECOVERY_OPTIONS).
        ),
        Backend(
            "scs",
            "SCS",
            "scs",
            aliases={"max_iter": "max_iters", "time_limit": "time_limit_secs"},
            defaults={"max_iters": 200_000},
            tol_keys=("eps_abs", "eps_rel"),
            default_tol=1e-7,  # a first-order method: 1e-8 costs 10× the iterations for little gain
        ),
        Backend(
            "cvxopt",
            "CVXOPT",
            "cvxopt",
            aliases={"max_iter": "max_iters"},
            tol_keys=("abstol", "reltol", "feastol"),
        ),
        Backend(
            "ecos",
            "ECOS",
            "ecos",
            supports_sdp=False,
            aliases={"max_iter": "max_iters"},
            tol_keys=("abstol", "reltol", "feastol"),
        ),
        Backend("mosek", "MOSEK", "mosek"),
        # The PyPI solvers of the `solvers` extra (pip install 'sdpkern[solvers]'):
        Backend(
            "sdpa",
            "SDPA",
            "sdpap",  # sdpa-python
            aliases={"max_iter": "maxIteration"},
            # its objective bounds ±1e5 stop a solve whose optimum lies beyond them ("unbounded")
            defaults={"lowerBound": -1.0e30, "upperBound": 1.0e30},
            tol_keys=("epsilonStar", "epsilonDash"),
        ),
        Backend(
            "piqp",
            "PIQP",
            "piqp",
            supports_sdp=False,
            supports_socp=False,
            aliases={"max_iter": "max_iter"},
            tol_keys=("eps_abs", "eps_rel", "eps_duality_gap_abs", "eps_duality_gap_rel"),
            default_tol=1e-9,  # its own 1e-8 (abs, rel) is 1e-7 on the objective of a scaled c.p.d. QP
            solver=_cvxpy_solver("PIQP"),
        ),
        Backend(
            "osqp",
            "OSQP",
            "osqp",
            supports_sdp=False,
            supports_socp=False,
            aliases={"max_iter": "max_iter", "time_limit": "time_limit"},
            # a first-order method: its default eps 1e-3 is 1e-3 on the objective; polishing (an
            # active-set step at the end) makes the answer as accurate as an interior-point one
            defaults={"polishing": True, "max_iter": 100_000},
            tol_keys=("eps_abs", "eps_rel"),
            default_tol=1e-8,
        ),
        Backend(
            "highs",
            "HIGHS",
            "highspy",
            supports_sdp=False,
            supports_socp=False,
            aliases={"time_limit": "time_limit"},
            tol_keys=("primal_feasibility_tolerance", "dual_feasibility_tolerance"),
            default_tol=1e-9,
            solver=_cvxpy_solver("HIGHS"),
        ),
    )
}

def register_backend(backend: Backend, *, replace: bool = False) -> Backend:
    """Add ``backend`` to the registry (or, with ``replace``, change an entry).

    Use it for a solver CVXPY does not know by name (``Backend(name, cvxpy_name, solver=obj)``
    with a ``cvxpy.reductions.solvers.conic_solvers.ConicSolver`` instance ``obj``) or to map
    ``tol``/``max_iter``/``time_limit`` to the settings of an installed CVXPY solver sdpkern does not
    map. Registration is explicit configuration: it is not undone between fits.

    Raises
    ------
    ParameterError
        ``backend`` is not a :class:`Backend`, its name is taken (without ``replace``) or not
        lower case.

    Examples
    --------
    >>> from sdpkern.backends import Backend, register_backend, get_backend
    >>> loose = Backend("clarabel_loose", "CLARABEL", "clarabel", tol_keys=("tol_feas",), default_tol=1e-6)
    >>> _ = register_backend(loose)
    >>> get_backend("clarabel_loose").solver_options({})
    {'tol_feas': 1e-06}
    """
    if not isinstance(backend, Backend):
        raise ParameterError(f"backend must be a sdpkern.backends.Backend, got {type(backend).__name__}")
    if backend.name != backend.name.lower() or not backend.name:
        raise ParameterError(f"backend.name must be a non-empty lower-case name, got {backend.name!r}")
    if backend.name in BACKENDS and not replace:
        raise ParameterError(f"backend {backend.name!r} is already registered; pass replace=True to change it")
    BACKENDS[backend.name] = backend
    return backend


def _cvxpy_backend(name: str) -> Backend | None:
    """A backend for an installed CVXPY solver sdpkern has no entry for (its own options only)."""
    upper = name.upper()
    if upper not in cp.installed_solvers():
        return None
    return Backend(name.lower(), upper, solver=_cvxpy_solver(upper))


def get_backend(name: str) -> Backend:
    """Return the backend called ``name`` or raise a typed error saying what is available.

    ``name`` is one of :data:`BACKENDS` or any solver CVXPY reports installed (its name in any
    case, e.g. ``"glpk"``).
    """
    if not isinstance(name, str):
        raise UnknownBackendError(f"backend={name!r} is not a solver name; choose one of {available_backends()}")
    backend = BACKENDS.get(name.lower()) or _cvxpy_backend(name)
    if backend is None:
        raise UnknownBackendError(
            f"backend={name!r} is not known; choose one of {sorted(BACKENDS)} or another solver CVXPY has "
            f"installed (installed here: {available_backends()})"
        )
    if not backend.installed:
        what = f"`pip install {backend.module}`" if backend.module else "install it"
        raise BackendNotInstalledError(
            f"backend={name!r} is not installed; {what} or use one of {available_backends()}"
        )
    return backend


def available_backends() -> list[str]:
    """Names of the backends whose solver is installed (the registry's and CVXPY's other solvers)."""
    names = [name for name, b in BACKENDS.items() if b.installed]
    known = {b.cvxpy_name for b in BACKENDS.values()}
    return names + sorted(s.lower() for s in cp.installed_solvers() if s not in known)


def _finite(value: Any) -> float | None:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if out == out else None  # NaN -> None


def raw_certificate(backend: str, raw: Any, data: Mapping[str, Any] | None = None) -> dict[str, float | str | None]:
    """The solver's own stopping measures from its raw answer (CVXPY's ``solve_via_data``).

    Returns ``primal_residual``, ``dual_residual``, ``gap`` (abs(primal − dual objective), as the
    solver reports it or computed from its two objectives), ``primal_objective``,
    ``dual_objective`` and the solver's ``raw_status``; ``None`` where the solver reports no such
    value. Clarabel: ``r_prim``, ``r_dual``, ``obj_val``, ``obj_val_dual``; SCS: ``info``'s
    ``res_pri``, ``res_dual``, ``gap``, ``pobj``, ``dobj``.

    The residuals are relative on both backends, each in its own stopping rule's terms: Clarabel
    reports them normalised by the data's norms; SCS 3 reports absolute ones and stops when
    res_pri ≤ eps_abs + eps_rel·max(‖Ax‖∞, ‖s‖∞, ‖b‖∞) (dual: max(‖Px‖∞, ‖Aᵀy‖∞, ‖c‖∞)), so with
    the problem ``data`` given (CVXPY's ``get_problem_data``) they are divided by 1 + that max:
    ≤ ``tol`` exactly when SCS's test with eps_abs = eps_rel = ``tol`` holds. Likewise
    ``gap_scale`` = max(|xᵀPx|, |cᵀx|, |bᵀy|), SCS's gap normaliser (Certificate.relative_gap). (Absolute, an
    SCS-certified restricted C-SVM SOCP at C = 2.2e5 showed a primal residual 4.5e-3: its box
    bound C/s = 7e4 is in b, and its objective matched Clarabel's to 9e-10.)
    """
    out: dict[str, float | str | None] = dict.fromkeys(
        ("primal_residual", "dual_residual", "gap", "primal_objective", "dual_objective", "raw_status", "gap_scale")
    )
    if backend == "clarabel" and raw is not None:
        out["primal_residual"] = _finite(getattr(raw, "r_prim", None))
        out["dual_residual"] = _finite(getattr(raw, "r_dual", None))
        p, d = _finite(getattr(raw, "obj_val", None)), _finite(getattr(raw, "obj_val_dual", None))
        out["primal_objective"], out["dual_objective"] = p, d
        out["gap"] = abs(p - d) if p is not None and d is not None else None
        out["raw_status"] = str(getattr(raw, "status", None))
    elif backend == "scs" and isinstance(raw, Mapping) and isinstance(raw.get("info"), Mapping):
        info = raw["info"]
        pri_scale, dual_scale, gap_scale = _scs_scales(raw, data)
        res_pri, res_dual = _finite(info.get("res_pri")), _finite(info.get("res_dual"))
        out["primal_residual"] = None if res_pri is None else res_pri / (1.0 + pri_scale)
        out["dual_residual"] = None if res_dual is None else res_dual / (1.0 + dual_scale)
        out["gap"] = _finite(info.get("gap"))
        out["gap_scale"] = gap_scale
        out["primal_objective"], out["dual_objective"] = _finite(info.get("pobj")), _finite(info.get("dobj"))
        out["raw_status"] = str(info.get("status"))
    return out


def _scs_scales(raw: Mapping[str, Any], data: Mapping[str, Any] | None) -> tuple[float, float, float | None]:
    """SCS 3's normalisers at its answer: max(‖Ax‖∞, ‖s‖∞, ‖b‖∞), max(‖Px‖∞, ‖Aᵀy‖∞, ‖c‖∞) and
    max(|xᵀPx|, |cᵀx|, |bᵀy|) (0, 0, None without the problem data or a readable answer)."""
    try:
        A, b, c = data["A"], data["b"], data["c"]  # type: ignore[index]
        x, y, s = (np.asarray(raw[k], dtype=float) for k in ("x", "y", "s"))
        P = data.get("P")  # type: ignore[union-attr]
        Px = np.zeros_like(x) if P is None else P @ x
        pri = max(_inf(A @ x), _inf(s), _inf(b))
        dual = max(_inf(A.T @ y), _inf(c), _inf(Px))
        gap = max(abs(float(x @ Px)), abs(float(c @ x)), abs(float(b @ y)))
    except (KeyError, TypeError, ValueError, AttributeError):
        return 0.0, 0.0, None
    if not (np.isfinite(pri) and np.isfinite(dual) and np.isfinite(gap)):
        return 0.0, 0.0, None
    return pri, dual, gap


def _inf(v: Any) -> float:
    arr = np.asarray(v, dtype=float).ravel()
    return float(np.abs(arr).max()) if arr.size else 0.0
