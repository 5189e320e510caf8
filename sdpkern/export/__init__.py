"""Export conic programs to files standalone solvers read, and read them back.

Formats (chosen by the file suffix):

``.dat-s``  SDPA sparse format, read by CSDP, DSDP and SDPA (:mod:`sdpkern.export.sdpa`).
            LP, SOC (as arrow LMIs) and PSD cones; equalities are eliminated.
``.cbf``    Conic Benchmark Format v3, read by MOSEK and the CBLIB tools
            (:mod:`sdpkern.export.cbf`). LP, SOC, PSD, exponential and power cones.
``.mps``    free MPS, with the QPS ``QUADOBJ`` section for a quadratic objective, read by
``.qps``    HiGHS, Gurobi, CPLEX, COPT (:mod:`sdpkern.export.mps`). LPs and convex QPs only.

:func:`solve_external` runs CSDP, DSDP or SDPA on an exported SDPA file and maps the answer
back (:mod:`sdpkern.export.solvers`).

Every format starts from the solver-ready data CVXPY compiles (its SCS form), so any
``cvxpy.Problem`` that CVXPY can canonicalise can be written, not only sdpkern's problems (CVXPY
itself writes no files); :func:`read` returns the standard-form data, from which
:func:`to_cvxpy` rebuilds a problem with the same optimal value.

Examples
--------
>>> import cvxpy as cp, tempfile, os
>>> from sdpkern import export
>>> x = cp.Variable(2)
>>> prob = cp.Problem(cp.Minimize(x[0] + x[1]), [cp.norm(x) <= 1])
>>> path = os.path.join(tempfile.mkdtemp(), "p.dat-s")
>>> info = export.write(prob, path)
>>> rebuilt, _ = export.to_cvxpy(export.read(path))
>>> round(float(rebuilt.solve(solver="CLARABEL")), 6)
-1.414214
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import cvxpy as cp

from ..errors import ExportError, ParameterError
from ._conic import Cones, ConicData, Elimination, Exported, from_cvxpy, to_cvxpy
from .cbf import read_cbf, write_cbf
from .mps import read_mps, write_mps
from .sdpa import read_sdpa, write_sdpa
from .solvers import ExternalResult, solve_external

__all__ = [
    "write",
    "read",
    "to_cvxpy",
    "from_cvxpy",
    "conic_data",
    "Cones",
    "ConicData",
    "Elimination",
    "Exported",
    "FORMATS",
    "write_sdpa",
    "read_sdpa",
    "write_cbf",
    "read_cbf",
    "write_mps",
    "read_mps",
    "solve_external",
    "ExternalResult",
]

#: Suffix -> format name.
FORMATS = {".dat-s": "sdpa", ".cbf": "cbf", ".mps": "mps", ".qps": "mps"}

#: Format -> the writer's options (keyword arguments beyond data and path).
WRITER_OPTIONS: dict[str, tuple[str, ...]] = {"sdpa": ("equalities",), "cbf": (), "mps": ()}


def _format_of(path: str | os.PathLike[str], fmt: str | None) -> str:
    if fmt is not None:
        if fmt not in FORMATS.values():
            raise ExportError(f"format={fmt!r} is not known; choose one of {sorted(set(FORMATS.values()))}")
        return fmt
    name = Path(path).name.lower()
    for suffix, f in FORMATS.items():
        if name.endswith(suffix):
            return f
    raise ExportError(
        f"cannot tell the format of {str(path)!r} from its suffix; use one of {sorted(FORMATS)} or pass format="
    )


def conic_data(problem: Any, quadratic: bool = False) -> ConicData:
    """Standard-form data of a ``KernelProblem``, a ``cvxpy.Problem`` or ``ConicData`` itself.

    ``quadratic`` keeps a quadratic objective as ``P`` (for the QP formats), see
    :func:`~sdpkern.export.from_cvxpy`.
    """
    if isinstance(problem, ConicData):
        return problem
    if isinstance(problem, cp.Problem):
        return from_cvxpy(problem, quadratic)
    inner = getattr(problem, "cvxpy", None)
    if isinstance(inner, cp.Problem):
        # a builder that solves a rescaled problem (e.g. the hyperkernel SOCPs, whose objective
        # is divided by data["objective_scale"]): the file keeps the well-scaled constraints but
        # states the objective in the problem's own units, so the file's optimum is the
        # problem's (as KernelProblem.solve reports it)
        scale = float(getattr(problem, "data", {}).get("objective_scale", 1.0))
        data = from_cvxpy(inner, quadratic)
        if scale == 1.0:
            return data
        P = None if data.P is None else data.P * scale
        return dataclasses.replace(data, c=data.c * scale, offset=data.offset * scale, P=P)
    raise ParameterError(
        f"problem must be a KernelProblem, cvxpy.Problem or ConicData, got {type(problem).__name__}; "
        "nothing else can be exported"
    )


def write(problem: Any, path: str | os.PathLike[str], *, format: str | None = None, **options: Any) -> Exported:
    """Write ``problem`` to ``path`` in the format its suffix names.

    Any ``cvxpy.Problem`` can be written, not only the problems sdpkern's builders make: the
    writers start from the data CVXPY compiles for a solver.

    Parameters
    ----------
    problem : KernelProblem, cvxpy.Problem or ConicData
        Parameters must have values (CVXPY substitutes them when it compiles).
    path : path-like
        ``*.dat-s`` (SDPA sparse), ``*.cbf`` (CBF v3), ``*.mps`` / ``*.qps`` (free MPS; QPS with
        a quadratic objective; LPs and convex QPs only). Written atomically.
    format : {"sdpa", "cbf", "mps"}, optional
        Overrides the suffix.
    **options
        Passed to the writer (``equalities="eliminate"|"pairs"`` for SDPA; the others take none).

    Returns
    -------
    Exported
        The data the file holds and the map from its variables back to the problem's.

    Raises
    ------
    ExportError
        If the format cannot hold one of the problem's cones (the message names it).
    ParameterError
        For an unknown option or option value (``equalities="bogus"``) or an object that is
        not a problem.
    PathError
        If ``path`` cannot be written: :class:`~sdpkern.errors.PathNotFoundError` (a
        :class:`FileNotFoundError`) when its directory does not exist, a
        :class:`~sdpkern.errors.PathError` naming the cause otherwise (a file where a directory
        should be, no permission). An existing file at ``path`` is left as it was.
    """
    fmt = _format_of(path, format)
    accepted = WRITER_OPTIONS[fmt]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        takes = f"takes {', '.join(a + '=' for a in accepted)} only" if accepted else "takes no options"
        raise ParameterError(
            f"the {fmt.upper()} writer {takes}, got {unknown} (equalities= applies to .dat-s files only)"
        )
    data = conic_data(problem, quadratic=fmt == "mps")
    if fmt == "mps":
        return write_mps(data, path)
    if data.P is not None:
        raise ExportError(
            f"the {fmt.upper()} format holds no quadratic objective (P); export the cvxpy problem itself (CVXPY "
            "writes ½xᵀPx as a second-order cone) or write .qps"
        )
    if fmt == "sdpa":
        return write_sdpa(data, path, **options)
    return write_cbf(data, path)


def read(path: str | os.PathLike[str], *, format: str | None = None) -> ConicData:
    """Read a ``.dat-s``, ``.cbf``, ``.mps`` or ``.qps`` file into standard-form data.

    Use :func:`to_cvxpy` on the result to get a ``cvxpy.Problem`` back.

    Raises
    ------
    FormatError
        For a malformed file (the message gives the line).
    PathError
        For a file that cannot be read (:class:`~sdpkern.errors.PathNotFoundError`, a
        :class:`FileNotFoundError`, when it does not exist).
    """
    fmt = _format_of(path, format)
    reader = {"sdpa": read_sdpa, "cbf": read_cbf, "mps": read_mps}[fmt]
    return reader(path)
