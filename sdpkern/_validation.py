"""Input validation shared by builders, native solvers and estimators.

Thin wrappers over :mod:`sklearn.utils.validation` that re-raise as sdpkern's typed errors,
so every message names the argument and what was expected.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils.validation import check_array
from sklearn.utils.validation import validate_data as _sklearn_validate_data

from .errors import DataError, LabelError, NotPSDError, ParameterError, SdpkernError


def validate_data(estimator: Any, X: Any = "no_validation", y: Any = "no_validation", **kwargs: Any) -> Any:
    """:func:`sklearn.utils.validation.validate_data` with its ``ValueError`` raised as
    :class:`DataError`.

    ``DataError`` subclasses ``ValueError`` and the message is scikit-learn's own ("Input X
    contains NaN", "X has 3 features, but ... is expecting 4"), so scikit-learn's estimator
    checks and users catching ``ValueError`` see no change; sdpkern users get one error type
    for bad data across the package.
    """
    try:
        return _sklearn_validate_data(estimator, X, y, **kwargs)
    except SdpkernError:
        raise
    except ValueError as exc:
        raise DataError(str(exc)) from exc


def as_matrix(X: ArrayLike, name: str = "X", *, min_samples: int = 1) -> NDArray[np.float64]:
    """Return ``X`` as a finite 2-D float array or raise :class:`DataError` naming ``name``."""
    try:
        arr = check_array(X, dtype=np.float64, ensure_min_samples=min_samples, input_name=name)
    except ValueError as exc:
        raise DataError(f"{name}: {exc}") from None
    return arr


def as_vector(y: ArrayLike, name: str = "y", *, length: int | None = None) -> NDArray[np.float64]:
    """Return ``y`` as a finite 1-D float array (of length ``length`` if given)."""
    arr = np.asarray(y, dtype=np.float64)
    if arr.ndim != 1:
        raise DataError(f"{name} must be 1-D, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise DataError(f"{name} contains NaN or infinity; remove or impute those entries")
    if length is not None and arr.shape[0] != length:
        raise DataError(f"{name} has {arr.shape[0]} entries but X has {length} rows")
    return arr


def binary_labels(y: ArrayLike, name: str = "y") -> tuple[NDArray[np.float64], NDArray[Any]]:
    """Map two arbitrary class labels to -1/+1.

    Returns ``(y_pm, classes)`` with ``classes[0] -> -1`` and ``classes[1] -> +1``.
    """
    y_arr = np.asarray(y)
    if y_arr.ndim != 1:
        raise DataError(f"{name} must be 1-D, got shape {y_arr.shape}")
    classes = np.unique(y_arr)
    k = classes.shape[0]
    if k != 2:
        shown = classes[:5].tolist()
        raise LabelError(
            f"{name} has {k} class{'' if k == 1 else 'es'} {shown}{'...' if k > 5 else ''}: "
            "Only binary classification is supported by this method, which needs exactly two classes"
            + (" (use a one-vs-rest or one-vs-one wrapper for more)" if k > 2 else "")
        )
    return np.where(y_arr == classes[1], 1.0, -1.0), classes


def check_positive(value: Any, name: str, *, allow_zero: bool = False) -> float:
    """Check a real scalar is > 0 (or >= 0 with ``allow_zero``) and return it as float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise ParameterError(f"{name} must be a finite real number, got {value!r}")
    if value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ParameterError(f"{name} must be {bound}, got {value!r}")
    return float(value)


def check_open_interval(value: Any, name: str, low: float, high: float, *, closed_high: bool = False) -> float:
    """Check ``low < value < high`` (or ``<= high`` with ``closed_high``) and return it."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise ParameterError(f"{name} must be a finite real number, got {value!r}")
    v = float(value)
    ok = low < v <= high if closed_high else low < v < high
    if not ok:
        right = "]" if closed_high else ")"
        raise ParameterError(f"{name} must lie in ({low}, {high}{right}, got {value!r}")
    return float(value)


def check_psd(A: NDArray[np.float64], name: str, *, tol: float = 1e-8) -> None:
    """Raise :class:`NotPSDError` when the symmetric matrix ``A`` has an eigenvalue below ``-tol·‖A‖``."""
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise DataError(f"{name} must be a square matrix, got shape {A.shape}")
    if not np.allclose(A, A.T, atol=1e-10 * max(1.0, float(np.abs(A).max(initial=0.0)))):
        raise DataError(f"{name} must be symmetric")
    lam_min = float(np.linalg.eigvalsh(A)[0])
    scale = max(1.0, float(np.abs(A).max(initial=0.0)))
    if lam_min < -tol * scale:
        raise NotPSDError(
            f"{name} is not positive semidefinite (smallest eigenvalue {lam_min:.3g}); repair it with "
            "sdpkern.kernels.repair_spectrum(..., method='clip'|'flip'|'shift'|'square') or use a "
            "method for indefinite kernels",
            min_eigenvalue=lam_min,
        )
