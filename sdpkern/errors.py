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
    "BreakdownError",
    "ExportError",
    "FormatError",
    "InsufficientMemoryError",
    "UnsuitableKernelWarning",
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
