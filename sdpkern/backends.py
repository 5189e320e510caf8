"""Solver registry: names, availability, option mapping and one status vocabulary.

Each backend is a small object with its capabilities as class attributes and a lazy import
of its solver package (STYLE.md, item 6). Clarabel and SCS are always installed; others
(CVXOPT, ECOS, MOSEK, ...) are used when present.

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

from .errors import BackendNotInstalledError, UnknownBackendError

__all__ = ["Backend", "BACKENDS", "get_backend", "available_backends", "map_status", "DEFAULT_BACKEND"]

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


def map_status(cvxpy_status: str | None) -> str:
    """Map a CVXPY status string to sdpkern's vocabulary (unknown ones to ``"error"``)."""
    if cvxpy_status is None:
        return "error"
    return _STATUS_MAP.get(cvxpy_status, "error")


@dataclass(frozen=True)
class Backend:
    """A conic solver reachable through CVXPY.

    Attributes
    ----------
    name : str
        sdpkern's name (lower case).
    cvxpy_name : str
        The solver name CVXPY knows.
    module : str
        The Python package whose presence makes the backend available.
    supports_sdp, supports_socp : bool
        Cone capabilities.
    aliases : dict
        sdpkern option name -> this solver's option name (``max_iters``, ``eps``, ``verbose``,
        ``time_limit``), so one set of options works across backends.
    defaults : dict
        Options passed unless the user overrides them.
    """

    name: str
    cvxpy_name: str
    module: str
    supports_sdp: bool = True
    supports_socp: bool = True
    aliases: Mapping[str, str] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)

    @property
    def installed(self) -> bool:
        """True when the solver package can be imported and CVXPY sees it."""
        return importlib.util.find_spec(self.module) is not None and self.cvxpy_name in cp.installed_solvers()

    def solver_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """Translate sdpkern option names to this solver's and add the defaults."""
        out = dict(self.defaults)
        for key, value in options.items():
            out[self.aliases.get(key, key)] = value
        return out


BACKENDS: dict[str, Backend] = {
    b.name: b
    for b in (
        Backend(
            "clarabel",
            "CLARABEL",
            "clarabel",
            aliases={"max_iters": "max_iter", "eps": "tol_gap_rel", "time_limit": "time_limit"},
        ),
        Backend(
            "scs",
            "SCS",
            "scs",
            aliases={"max_iters": "max_iters", "eps": "eps", "time_limit": "time_limit_secs"},
            defaults={"eps": 1e-7, "max_iters": 200_000},
        ),
        Backend("cvxopt", "CVXOPT", "cvxopt", aliases={"max_iters": "max_iters", "eps": "reltol"}),
        Backend("ecos", "ECOS", "ecos", supports_sdp=False, aliases={"max_iters": "max_iters", "eps": "reltol"}),
        Backend("mosek", "MOSEK", "mosek"),
    )
}


def get_backend(name: str) -> Backend:
    """Return the backend called ``name`` or raise a typed error saying what is available."""
    if not isinstance(name, str) or name.lower() not in BACKENDS:
        raise UnknownBackendError(
            f"backend={name!r} is not known; choose one of {sorted(BACKENDS)} (installed here: {available_backends()})"
        )
    backend = BACKENDS[name.lower()]
    if not backend.installed:
        raise BackendNotInstalledError(
            f"backend={name!r} is not installed; `pip install {backend.module}` or use one of {available_backends()}"
        )
    return backend


def available_backends() -> list[str]:
    """Names of the backends whose solver is installed."""
    return [name for name, b in BACKENDS.items() if b.installed]
