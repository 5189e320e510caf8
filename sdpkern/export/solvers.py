"""Run the standalone SDP solvers CSDP, DSDP and SDPA on exported SDPA files.

Each reads an SDPA sparse file and writes the SDPA primal vector x (the variables of the
exported file): CSDP and DSDP as the first line of their solution file, SDPA after ``xVec =``
in its output file. Their printed objectives use different signs, so this module does not
trust them: it takes x from the solution file and evaluates the original objective through
the exported data (offset, sense, and the map back from the eliminated variables).

Sign conventions (measured on CSDP 6.2 and DSDP 5.8):

* CSDP solves ``max tr(F₀ X) s.t. tr(Fᵢ X) = cᵢ, X ⪰ 0`` and prints that as its "primal";
  its "dual" is SDPA's primal min cᵀx. Exit codes: 0 success, 1 its primal infeasible (our
  problem unbounded), 2 its dual infeasible (our problem infeasible), 3 partial success,
  4 iteration limit, higher = numerical trouble.
* DSDP prints ``DSDP Solution: −cᵀx`` (the negated value) and status words such as
  ``DSDP Converged`` or ``Dual Infeasible``; its exit code is 0 even on failure. ``dsdp5``
  truncates the input path at 90 characters and the ``-save`` path at 40, so every solver
  is run on short names in a private directory.
* SDPA (7.3) solves the file's problem as its own primal (``objValPrimal`` is cᵀx) and prints
  ``phase.value``: ``pdOPT`` (optimal), ``pdFEAS`` (feasible, gap not closed), ``pINF_*`` /
  ``*_dUNBD`` (infeasible), ``pUNBD`` / ``*_dINF`` (unbounded), ``noINFO``. It reads its
  parameters from a file; :data:`SDPA_PARAMETERS` are the ones written there (SDPA's "stable"
  set, with x printed to 17 digits: its default ``%+8.3e`` keeps 4, and with its default
  parameters it ended 3 of the library's 8 exported SDPs at ``pdFEAS``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.exceptions import ConvergenceWarning

from .._validation import check_positive
from ..errors import (
    BackendNotInstalledError,
    InaccurateSolutionError,
    ParameterError,
    UnknownBackendError,
    error_for_status,
    path_error,
)
from ._conic import ConicData, Exported
from .sdpa import read_sdpa, write_sdpa

__all__ = ["ExternalResult", "SOLVERS", "FEASIBILITY_TOL", "available", "run", "solve_external"]

#: sdpkern name -> executable.
SOLVERS = {"csdp": "csdp", "dsdp": "dsdp5", "sdpa": "sdpa"}

#: Largest relative cone violation of the returned point that still counts as optimal.
FEASIBILITY_TOL = 1e-6

#: Debian packages that provide them (for error messages).
_PACKAGES = {"csdp": "coinor-csdp", "dsdp": "dsdp", "sdpa": "sdpa"}

#: SDPA's parameter file (``param.sdpa``): SDPA 7's defaults (its ``-pt 0``; its "stable" set
#: ``-pt 2`` ended more of the library's files at pdFEAS), with objective bounds wide enough never
#: to stop a solve (its ±1e5 would call a problem with a larger optimum unbounded) and x printed
#: to 17 significant digits.
SDPA_PARAMETERS: dict[str, Any] = {
    "maxIteration": 100,
    "epsilonStar": 1.0e-7,
    "lambdaStar": 1.0e2,
    "omegaStar": 2.0,
    "lowerBound": -1.0e30,
    "upperBound": 1.0e30,
    "betaStar": 0.1,
    "betaBar": 0.2,
    "gammaStar": 0.9,
    "epsilonDash": 1.0e-7,
}

#: The options each solver accepts (``options=`` of :func:`run`): CSDP's ``param.csdp`` keys,
#: DSDP's command-line switches, SDPA's parameter file entries.
OPTIONS: dict[str, frozenset[str]] = {
    "csdp": frozenset({"axtol", "atytol", "objtol", "pinftol", "dinftol", "maxiter", "minstepfrac", "maxstepfrac",
                       "minstepp", "minstepd", "usexzgap", "tweakgap", "affine", "printlevel", "perturbobj",
                       "fastmode"}),
    "dsdp": frozenset({"gaptol", "r0", "penalty", "boundy", "maxit", "zbar", "mu0", "rho", "drho", "pnormtol",
                       "reuse", "dobjmin", "bigM", "print", "dloginfo", "dlogsummary"}),
    "sdpa": frozenset(SDPA_PARAMETERS),
}  # fmt: skip

#: SDPA 7's "stable but slow" parameters (its ``-pt 2``), tried when a run with
#: :data:`SDPA_PARAMETERS` ends at pdFEAS and the caller set no option: of the library's 15
#: exported files it certified 3 (the hyperkernel C-SVM SDP at m = 10 and 30 and the SOCP at
#: m = 30) that the defaults left at pdFEAS.
SDPA_STABLE: dict[str, Any] = {"maxIteration": 200, "lambdaStar": 1.0e4, "betaBar": 0.3, "gammaStar": 0.8}

_SDPA_PHASE = {
    "pdOPT": "optimal",
    "pdFEAS": "optimal_inaccurate",
    "pINF_dFEAS": "infeasible",
    "pINF_dUNBD": "infeasible",
    "pFEAS_dINF": "unbounded",
    "pUNBD_dINF": "unbounded",
    "pUNBD": "unbounded",
    "dUNBD": "infeasible",
}

_CSDP_STATUS = {
    0: "optimal",
    1: "unbounded",  # CSDP's (max) primal infeasible: SDPA's primal min is unbounded
    2: "infeasible",  # CSDP's dual infeasible = SDPA's primal infeasible
    3: "optimal_inaccurate",
    4: "iteration_limit",
}


@dataclass
class ExternalResult:
    """The outcome of one external solve.

    Attributes
    ----------
    solver : str
    status : str
        sdpkern's status vocabulary (see :mod:`sdpkern.backends`).
    objective : float or None
        The original model's objective at the solver's point (offset and sense included).
    x : ndarray or None
        The file's variables mapped back to the original ones (``x0 + T z``).
    z : ndarray or None
        The file's variables as the solver returned them.
    printed_objective : float or None
        What the solver printed (in its own sign convention; for the record).
    wall_time : float
        Seconds, including process start-up and file reading.
    returncode : int
    output : str
        The solver's stdout and stderr.
    cone_violation : float or None
        How far the solver's point lies outside the file's cones, relative to ``1 + ‖b‖∞``
        (:meth:`~sdpkern.export.ConicData.cone_violation`), checked independently of the
        solver; above :data:`FEASIBILITY_TOL` an "optimal" answer is downgraded to
        ``optimal_inaccurate``.
    """

    solver: str
    status: str
    objective: float | None
    x: NDArray[np.float64] | None
    z: NDArray[np.float64] | None
    printed_objective: float | None
    wall_time: float
    returncode: int
    output: str = field(repr=False, default="")
    cone_violation: float | None = None


def available(solver: str) -> bool:
    """True when the executable for ``solver`` (``"csdp"``, ``"dsdp"`` or ``"sdpa"``) is on the PATH."""
    return shutil.which(SOLVERS[_check_name(solver)]) is not None


def _check_name(solver: str) -> str:
    name = solver.lower() if isinstance(solver, str) else None
    if name not in SOLVERS:
        raise UnknownBackendError(
            f"solver={solver!r} is not an external solver sdpkern can run; choose one of {sorted(SOLVERS)} "
            "(other programs can read the files sdpkern.export.write produces)"
        )
    return name


def _check_options(name: str, options: dict[str, Any] | None) -> dict[str, Any]:
    """``options`` checked against what ``name`` accepts (:data:`OPTIONS`), as ``KernelProblem.solve`` does."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ParameterError(f"options must be a dict of {name}'s settings, got {type(options).__name__}")
    unknown = sorted(set(options) - OPTIONS[name])
    if unknown:
        raise ParameterError(
            f"options={unknown} are not {name} options; {name} accepts {sorted(OPTIONS[name])}"
        )
    return dict(options)


def _read_solution_vector(path: Path, m: int) -> NDArray[np.float64] | None:
    """The x vector of a solution file, or None if absent/unreadable: the first line (CSDP, DSDP),
    or the braces after ``xVec =`` (SDPA's output file)."""
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            text = fh.read()
        mt = re.search(r"^xVec\s*=\s*\{([^}]*)\}", text, re.M)
        tokens = mt.group(1).replace(",", " ").split() if mt else text.split("\n", 1)[0].split()
        z = np.array([float(t) for t in tokens])
    except (OSError, ValueError):
        return None
    if z.size != m or not np.all(np.isfinite(z)):
        return None
    return z


def _command(name: str, exe: str, work: Path, problem: str, solution: str, opts: dict[str, Any]) -> list[str]:
    """The command line (CSDP's options go to ``param.csdp`` in ``work``, SDPA's to ``param.sdpa``,
    DSDP's on the line)."""
    if name == "csdp":
        if opts:
            Path(work, "param.csdp").write_text("".join(f"{k}={v}\n" for k, v in opts.items()))
        return [exe, problem, solution]
    if name == "sdpa":
        params = {**SDPA_PARAMETERS, **opts}
        lines = [f"{params[k]!r}\t{k}\n" for k in SDPA_PARAMETERS]
        lines += ["%+21.16e\txPrint\n", "NOPRINT\tXPrint\n", "NOPRINT\tYPrint\n", "%+21.16e\tinfPrint\n"]
        Path(work, "param.sdpa").write_text("".join(lines))
        return [exe, "-ds", problem, "-o", solution, "-p", "param.sdpa"]
    opts.setdefault("gaptol", 1e-8)  # default 1e-6 is too loose for a 1e-5 comparison
    cmd = [exe, problem, "-save", solution]
    for k, v in opts.items():
        cmd += [f"-{k}", str(v)]
    return cmd


def _execute(
    name: str, exe: str, path: Path, n: int, opts: dict[str, Any], timeout: float | None
) -> tuple[subprocess.CompletedProcess[str], NDArray[np.float64] | None, float]:
    """One run of the solver on ``path`` in a private directory: the process, x (None if
    unreadable) and the wall time; :class:`InaccurateSolutionError` (``time_limit``) on ``timeout``."""
    with tempfile.TemporaryDirectory(prefix="sdpkern-") as work:
        # Every solver runs in a private directory on short relative names: dsdp5 truncates
        # the input path at 90 characters and the -save path at 40, and appends a results
        # table to its working directory; CSDP and SDPA read their parameter files from there.
        local = Path(work) / "problem.dat-s"
        try:
            local.symlink_to(path.resolve())
        except OSError:
            shutil.copyfile(path, local)
        sol = Path(work) / "solution.sol"
        cmd = _command(name, exe, Path(work), local.name, sol.name, dict(opts))
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise InaccurateSolutionError(
                f"{name} did not finish within timeout={timeout} s on {path}: raise timeout or simplify the problem",
                status="time_limit",
                solver_status="timeout",
            ) from None
        wall = time.perf_counter() - t0
        z = _read_solution_vector(sol, n)
    return proc, z, wall


def _reported(name: str, returncode: int, out: str) -> tuple[str, float | None]:
    """The solver's own status (mapped to sdpkern's vocabulary) and the objective it printed."""
    if name == "csdp":
        status = _CSDP_STATUS.get(returncode, "error")
        mt = re.search(r"Dual objective value:\s*(\S+)", out)
    elif name == "sdpa":
        status = _sdpa_status(out)
        mt = re.search(r"objValPrimal\s*=\s*(\S+)", out)
    else:
        status = _dsdp_status(out)
        mt = re.search(r"DSDP Solution:\s*(\S+)", out)
    return status, (float(mt.group(1)) if mt else None)


def run(
    solver: str,
    exported: Exported | str | os.PathLike[str],
    *,
    timeout: float | None = None,
    options: dict[str, Any] | None = None,
    allow_inaccurate: bool = False,
) -> ExternalResult:
    """Run ``solver`` on an SDPA file and read its answer.

    The status rule is :meth:`sdpkern.KernelProblem.solve`'s: only ``"optimal"`` comes back
    as a plain result; ``optimal_inaccurate`` does with a ``ConvergenceWarning`` when
    ``allow_inaccurate`` is true; every other status raises.

    Parameters
    ----------
    solver : {"csdp", "dsdp", "sdpa"}
    exported : Exported or path
        What :func:`sdpkern.export.write` returned (so the answer maps back to the original
        variables), or the path of any ``.dat-s`` file (then ``x`` is the file's variables and
        the objective uses the file's ``* sdpkern:`` comments, if any).
    timeout : float, optional
        Seconds before the process is killed (:class:`~sdpkern.errors.SolverError`).
    options : dict, optional
        DSDP command-line options without the dash (``{"gaptol": 1e-9}``). CSDP reads its
        options from a ``param.csdp`` file and SDPA from ``param.sdpa`` (over
        :data:`SDPA_PARAMETERS`); these are written there. Names the solver does not know
        (:data:`OPTIONS`) raise :class:`~sdpkern.errors.ParameterError`.
    allow_inaccurate : bool, default False
        Accept an ``optimal_inaccurate`` answer (with a warning) instead of raising.

    Returns
    -------
    ExternalResult

    Raises
    ------
    UnknownBackendError
        For a ``solver`` other than ``"csdp"``, ``"dsdp"`` or ``"sdpa"``.
    ParameterError
        For an option the solver does not know.
    BackendNotInstalledError
        If its executable is not on the PATH.
    InfeasibleError, UnboundedError
        When the solver reports the problem infeasible or unbounded.
    InaccurateSolutionError
        For an iteration limit, the ``timeout`` (status ``"time_limit"``) or an inaccurate
        answer (unless ``allow_inaccurate``). The exception's ``result`` holds what the solver
        returned.
    SolverError
        For anything else (a crash, no solution file).
    """
    name = _check_name(solver)
    opts = _check_options(name, options)
    if timeout is not None:
        timeout = check_positive(timeout, "timeout")
    exe = shutil.which(SOLVERS[name])
    if exe is None:
        raise BackendNotInstalledError(
            f"{SOLVERS[name]!r} is not on the PATH; install it (Debian/Ubuntu: apt-get install {_PACKAGES[name]})"
        )
    if isinstance(exported, Exported):
        data: ConicData = exported.data
        path = Path(exported.path)
        expand = exported.elimination.expand
    else:
        path = Path(exported)
        data = read_sdpa(path)
        expand = None
    if not path.is_file():
        raise path_error(FileNotFoundError(2, "No such file or directory"), path, "exported", action="read")
    tries = [opts] + ([dict(SDPA_STABLE)] if name == "sdpa" and not opts else [])
    runs = []
    for one in tries:
        proc, z, wall = _execute(name, exe, path, data.n, one, timeout)
        out = proc.stdout + proc.stderr
        status, printed = _reported(name, proc.returncode, out)
        if z is None and status.startswith("optimal"):
            status = "error"
        violation = data.cone_violation(z) if z is not None else None
        if status == "optimal" and violation is not None and violation > FEASIBILITY_TOL:
            # The solver's word is checked, not taken: a point outside the cones is not optimal.
            status = "optimal_inaccurate"
        runs.append((proc, z, wall, out, status, printed, violation))
        if status != "optimal_inaccurate":
            break  # SDPA's pdFEAS with its defaults: once more with its stable parameters
    # the certified run, else the first (a second try that did no better changes nothing)
    proc, z, wall, out, status, printed, violation = runs[-1] if runs[-1][4] == "optimal" else runs[0]
    objective = data.objective(z) if z is not None and status.startswith("optimal") else None
    x = expand(z) if (z is not None and expand is not None) else z
    result = ExternalResult(
        solver=name,
        status=status,
        objective=objective,
        x=x,
        z=z,
        printed_objective=printed,
        wall_time=wall,
        returncode=proc.returncode,
        output=out,
        cone_violation=violation,
    )
    _enforce_status(result, path, allow_inaccurate, arrow=bool(data.cones.soc))
    return result


_HINTS = {
    "infeasible": "check the data and constraints",
    "unbounded": "check the parameters; the problem has no finite optimum",
    "optimal_inaccurate": "try the other external solver, solve in process (KernelProblem.solve), "
    "or pass allow_inaccurate=True to accept it",
    "iteration_limit": "raise the iteration limit (DSDP: options={'maxit': ...}; CSDP: options={'maxiter': ...}; "
    "SDPA: options={'maxIteration': ...}) or solve in process",
}


def _solver_status(result: ExternalResult) -> str:
    """What the solver itself said: CSDP's exit code, SDPA's phase, DSDP's termination line."""
    if result.solver == "csdp":
        return f"exit code {result.returncode}"
    if result.solver == "sdpa":
        mt = re.search(r"phase\.value\s*=\s*(\S+)", result.output)
        return f"phase.value {mt.group(1)}" if mt else f"exit code {result.returncode}"
    for pattern in (r"DSDP (Primal|Dual) Unbounded", r"DSDP Terminated", r"DSDP Converged"):
        mt = re.search(rf"^.*{pattern}.*$", result.output, re.M)
        if mt:
            return mt.group(0).strip()
    return f"exit code {result.returncode}"


#: The hint for DSDP at its iteration limit on a file with second-order cones written as arrow
#: LMIs: it stalls there (the hyperkernel L2-SVM's SOCP form on 20 breast-cancer points ended at
#: maxit = 200, 1000 and 5000 alike), so raising ``maxit`` is no remedy.
_DSDP_ARROW_HINT = (
    "DSDP stalls on the arrow blocks that hold the file's second-order cones (a higher maxit does not help); "
    "use solver='csdp' or 'sdpa', or solve in process (KernelProblem.solve)"
)


def _enforce_status(result: ExternalResult, path: Path, allow_inaccurate: bool, arrow: bool = False) -> None:
    """KernelProblem.solve's status rule for an external solve (raise unless optimal); ``arrow``:
    the file holds second-order cones as arrow LMIs (for DSDP's hint)."""
    if result.status == "optimal":
        return
    raw = _solver_status(result)
    if result.status == "optimal_inaccurate" and allow_inaccurate:
        warnings.warn(
            f"{result.solver} returned an inaccurate optimum for {path.name} ({raw})", ConvergenceWarning, stacklevel=3
        )
        return
    base = result.status.replace("_inaccurate", "") if result.status.startswith(("infeasible", "unbounded")) else ""
    hint = _HINTS.get(base or result.status, "try the other external solver or solve in process")
    if result.solver == "dsdp" and result.status == "iteration_limit" and arrow:
        hint = _DSDP_ARROW_HINT
    exc = error_for_status(result.status)(
        f"{result.solver} returned status {result.status!r} ({raw}) on {path.name}: {hint}",
        status=result.status,
        solver_status=raw,
    )
    exc.result = result  # type: ignore[attr-defined]  # what the solver did return, for inspection
    raise exc


def _sdpa_status(out: str) -> str:
    """Map SDPA's ``phase.value`` to sdpkern's vocabulary (an iteration cap reached without a
    verdict is ``iteration_limit``)."""
    mt = re.search(r"phase\.value\s*=\s*(\S+)", out)
    if mt is None:
        return "error"
    status = _SDPA_PHASE.get(mt.group(1))
    if status is not None:
        return status
    it = re.search(r"Iteration\s*=\s*(\d+)", out)
    cap = re.search(r"maxIteration\s*=\s*(\d+)", out)
    if it and cap and int(it.group(1)) >= int(cap.group(1)):
        return "iteration_limit"
    return "error"  # noINFO, pFEAS, dFEAS: stopped without a verdict


def _dsdp_status(out: str) -> str:
    """Map DSDP's printed outcome to sdpkern's vocabulary (DSDP's dual is the file's primal)."""
    if re.search(r"Dual Infeasible", out):
        return "infeasible"
    if re.search(r"Dual Unbounded", out):
        return "unbounded"
    if re.search(r"Terminated Due (to )?Maximum Number of Iterations", out, re.I):
        return "iteration_limit"
    if "DSDP Converged" in out:
        # "... Check Feasiblity" (sic): a small gap without a feasibility guarantee.
        return "optimal_inaccurate" if re.search(r"DSDP Converged.*Check Feas", out) else "optimal"
    if "DSDP Solution" in out:
        return "optimal_inaccurate"
    return "error"


def solve_external(
    problem: Any,
    solver: str = "csdp",
    *,
    path: str | os.PathLike[str] | None = None,
    equalities: str = "eliminate",
    timeout: float | None = None,
    options: dict[str, Any] | None = None,
    allow_inaccurate: bool = False,
) -> ExternalResult:
    """Export ``problem`` to SDPA and solve it with CSDP, DSDP or SDPA.

    Held to :meth:`sdpkern.KernelProblem.solve`'s status rule (see :func:`run`): anything
    but ``"optimal"`` raises the same typed errors.

    Parameters
    ----------
    problem : KernelProblem, cvxpy.Problem or ConicData
    solver : {"csdp", "dsdp", "sdpa"}
    path : path-like, optional
        Where to keep the ``.dat-s`` file; a temporary file (removed afterwards) by default.
    equalities : {"eliminate", "pairs"}
        See :func:`sdpkern.export.sdpa.write_sdpa`; DSDP needs ``"eliminate"``.
    timeout, options, allow_inaccurate
        As for :func:`run`.

    Raises
    ------
    UnknownBackendError, ParameterError
        For a ``solver`` other than ``"csdp"``, ``"dsdp"`` or ``"sdpa"``, or an option it does
        not know (checked before exporting).
    InfeasibleError, UnboundedError, InaccurateSolutionError, SolverError
        As for :func:`run`.

    Examples
    --------
    >>> import cvxpy as cp
    >>> from sdpkern.export.solvers import available, solve_external
    >>> X = cp.Variable((2, 2), symmetric=True)
    >>> prob = cp.Problem(cp.Minimize(cp.trace(X)), [X >> 0, X[0, 1] == 1])
    >>> res = solve_external(prob, "csdp") if available("csdp") else None
    >>> res is None or abs(res.objective - 2.0) < 1e-6
    True
    """
    from . import conic_data

    _check_options(_check_name(solver), options)  # before the (possibly long) export
    if timeout is not None:
        check_positive(timeout, "timeout")
    data = conic_data(problem)
    kw: dict[str, Any] = {"timeout": timeout, "options": options, "allow_inaccurate": allow_inaccurate}
    if path is not None:
        exported = write_sdpa(data, path, equalities=equalities)
        return run(solver, exported, **kw)
    with tempfile.TemporaryDirectory(prefix="sdpkern-") as work:
        exported = write_sdpa(data, Path(work) / "problem.dat-s", equalities=equalities)
        return run(solver, exported, **kw)
