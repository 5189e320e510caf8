"""One exception hierarchy for the whole package.

Bad input raises a subclass of :class:`ValueError`, a solver that cannot deliver raises a
subclass of :class:`RuntimeError`, so generic handlers keep working (STYLE.md, item 8).
Every message names the offending argument (or the solver status) and what to do about it.
"""

from __future__ import annotations

__all__ = [
    "SdpkernError",
    "InputError",
    "ParameterError",
    "DataError",
    "LabelError",
    "NotPSDError",
    "SingularKernelError",
    "BackendError",
    "BackendNotInstalledError",
    "UnknownBackendError",
    "SolverError",
    "InfeasibleError",
    "UnboundedError",
    "InaccurateSolutionError",
    "NumericalError",
    "UncertifiedModelError",
    "BreakdownError",
    "ExportError",
    "FormatError",
    "PathError",
    "PathNotFoundError",
    "PathPermissionError",
    "path_error",
    "InsufficientMemoryError",
    "UnsuitableKernelWarning",
    "NonUniqueSolutionWarning",
    "error_for_status",
]


class SdpkernError(Exception):
    """Base class of every error raised on purpose by sdpkern."""


class InputError(SdpkernError, ValueError):
    """Bad input: the message names the argument and what was expected."""


class ParameterError(InputError):
    """A parameter outside its admissible range (C <= 0, lambda_h outside (0, 1), ...)."""


class SingularKernelError(InputError):
    """Every kernel a hyperkernel basis can express is singular where the formulation needs it
    regular (the alignment SDP, 002 eq. (3.13), with ``ridge=0``)."""


class DataError(InputError):
    """Data that cannot be used: NaN/inf, wrong shapes, mismatched lengths."""


class LabelError(InputError):
    """Targets that do not fit the method: one class, three classes, constant targets."""


class NotPSDError(InputError):
    """A matrix that must be positive semidefinite is not.

    Attributes
    ----------
    min_eigenvalue : float or None
        The smallest eigenvalue found, when it was computed.
    """

    def __init__(self, message: str, min_eigenvalue: float | None = None) -> None:
        super().__init__(message)
        self.min_eigenvalue = min_eigenvalue


class BackendError(SdpkernError, ValueError):
    """A backend that cannot be used as asked."""


class UnknownBackendError(BackendError):
    """A backend name sdpkern does not know."""


class BackendNotInstalledError(BackendError, ImportError):
    """A known backend whose solver package is not installed."""


class SolverError(SdpkernError, RuntimeError):
    """The solver did not return a usable optimum.

    Attributes
    ----------
    status : str
        The status in sdpkern's vocabulary (see :mod:`sdpkern.backends`).
    solver_status : str or None
        The status string the solver itself reported.
    """

    def __init__(self, message: str, status: str = "error", solver_status: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.solver_status = solver_status


class InfeasibleError(SolverError):
    """The problem was reported infeasible."""


class UnboundedError(SolverError):
    """The problem was reported unbounded."""


class InaccurateSolutionError(SolverError):
    """The solver stopped with an answer it does not vouch for (inaccurate, iteration or time limit)."""


class NumericalError(SolverError):
    """The solvers failed numerically on a problem that is feasible and bounded by construction.

    Raised instead of :class:`InfeasibleError` or :class:`UnboundedError` when a formulation
    that cannot be infeasible or unbounded for any parameter value (a soft-margin SVM: the
    slacks absorb every margin violation, the objective is bounded below) is reported so by
    every solver tried: the report is a numerical failure (typically a loss weight ``C`` far
    above the data's scale), not a property of the problem. ``status`` keeps the solver's word.
    """


class UncertifiedModelError(InaccurateSolutionError):
    """``predict`` (or another prediction method) on a fitted estimator whose ``status_`` is not
    ``"optimal"``: the solve behind the model was stopped by a limit or is inaccurate, so the
    model is kept for inspection (``status_``, ``certificate_``, the fitted arrays) but not served.
    """


class BreakdownError(SolverError):
    """An iterative method met a zero denominator (Krylov breakdown)."""


class InsufficientMemoryError(SdpkernError, MemoryError):
    """A fit would need more memory than is available; raised before the allocation.

    Attributes
    ----------
    n_samples : int
        The number of training points m of the fit.
    estimate_bytes : int
        The estimated peak memory of the fit.
    available_bytes : int
        The memory the estimate was compared with.
    """

    def __init__(self, message: str, n_samples: int, estimate_bytes: int, available_bytes: int) -> None:
        super().__init__(message)
        self.n_samples = n_samples
        self.estimate_bytes = estimate_bytes
        self.available_bytes = available_bytes


class ExportError(SdpkernError, ValueError):
    """A problem that a file format cannot hold (the message names the cone)."""


class FormatError(SdpkernError, ValueError):
    """A malformed file given to a reader (the message names the line)."""


class PathError(SdpkernError, OSError):
    """A file or directory that cannot be read or written (a missing file, a directory that
    does not exist or is a file, no permission). Also an :class:`OSError` with the same
    ``errno`` and ``filename`` (the path the user gave), so generic handlers keep working.
    """

    def __str__(self) -> str:
        return str(self.strerror)


class PathNotFoundError(PathError, FileNotFoundError):
    """A file to read, or the directory of a file to write, that does not exist."""


class PathPermissionError(PathError, PermissionError):
    """A file or directory the process may not read or write."""


def path_error(exc: OSError, path: object, argument: str = "path", action: str = "write") -> PathError:
    """The :class:`PathError` for an :class:`OSError` met while trying to ``action`` ``path``.

    The message names the argument and the path the user gave (not a hidden temporary file)
    and what is wrong: a missing directory, a file standing where a directory should be, a
    missing file, no permission.

    Examples
    --------
    >>> err = path_error(FileNotFoundError(2, "No such file or directory"), "nodir/x.cbf")
    >>> type(err).__name__, isinstance(err, FileNotFoundError)
    ('PathNotFoundError', True)
    """
    from pathlib import Path

    target = Path(str(path))
    parent = target.parent if str(target.parent) else Path(".")
    blocker = next((p for p in [parent, *parent.parents] if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        why = f"{str(blocker)!r} is a file, not a directory"
    elif action == "write" and not parent.is_dir():
        why = f"the directory {str(parent)!r} does not exist"
    elif isinstance(exc, PermissionError):
        why = "permission denied" + (f" in the directory {str(parent)!r}" if action == "write" else "")
    elif isinstance(exc, FileNotFoundError):
        why = "no such file"
    elif isinstance(exc, IsADirectoryError):
        why = "it is a directory"
    else:
        why = exc.strerror or str(exc)
    cls: type[PathError] = PathError
    if isinstance(exc, FileNotFoundError) or (blocker is None and why.startswith("the directory")):
        cls = PathNotFoundError
    elif isinstance(exc, PermissionError):
        cls = PathPermissionError
    err = cls(exc.errno, f"cannot {action} {argument}={str(path)!r}: {why}", str(path))
    return err


def error_for_status(status: str) -> type[SolverError]:
    """The :class:`SolverError` subclass a non-optimal ``status`` raises (one rule for every solver).

    ``infeasible*`` -> :class:`InfeasibleError`, ``unbounded*`` -> :class:`UnboundedError`,
    ``optimal_inaccurate`` / ``iteration_limit`` / ``time_limit`` ->
    :class:`InaccurateSolutionError`, anything else -> :class:`SolverError`.

    Examples
    --------
    >>> error_for_status("iteration_limit").__name__
    'InaccurateSolutionError'
    """
    if status.startswith("infeasible"):
        return InfeasibleError
    if status.startswith("unbounded"):
        return UnboundedError
    if status in ("optimal_inaccurate", "iteration_limit", "time_limit"):
        return InaccurateSolutionError
    return SolverError


# ----------------------------------------------------------------------------- warnings
# Non-convergence is scikit-learn's ConvergenceWarning (sklearn.exceptions), as its users expect.
class UnsuitableKernelWarning(UserWarning):
    """An SVM with a non-p.d. kernel whose solution should be dismissed (001 §6)."""


class NonUniqueSolutionWarning(UserWarning):
    """The data do not determine the solution: the optimum is unique in value but not in the
    model (e.g. fewer weighted points than the c.p.d. kernel's polynomial terms, 000 §3), so
    different solvers may return different models with the same objective."""
