"""Input and parameter validation shared by builders, native solvers and estimators.

The one place where sdpkern checks what a user passes (docs/conventions.md, "Validation"):

* data: thin wrappers over :mod:`sklearn.utils.validation` that re-raise as sdpkern's typed
  errors, so every message names the argument and what was expected;
* parameters: constraints declared once per class or function, scikit-learn's
  ``_parameter_constraints`` style (:class:`Interval`, :class:`Options`, types, ``None``, a few
  named kinds), checked in one place by :func:`validate_params` (raising
  :class:`~sdpkern.errors.ParameterError`), and renamed parameters resolved by
  :func:`take_deprecated` (a ``FutureWarning`` for one release).

Example
-------
>>> from numbers import Integral, Real
>>> constraints = {"C": [Interval(Real, 0, None, closed="neither")],
...                "solver": [Options({"auto", "exact"})], "max_iter": [Interval(Integral, 1, None)]}
>>> validate_params({"C": 1.0, "solver": "auto", "max_iter": 10}, constraints)
>>> validate_params({"C": -1.0}, constraints)
Traceback (most recent call last):
...
sdpkern.errors.ParameterError: C must be a real number in (0, inf), got -1.0
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator
from sklearn.utils.multiclass import check_classification_targets
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
    _refuse_sparse(X, "X")
    try:
        return _sklearn_validate_data(estimator, X, y, **kwargs)
    except SdpkernError:
        raise
    except ValueError as exc:
        raise DataError(str(exc)) from exc


def validate_training_data(estimator: Any, X: Any, y: Any) -> tuple[NDArray[np.float64], NDArray[Any]]:
    """``validate_data(estimator, X, y, dtype=np.float64)`` for a classifier's ``fit``, without
    scikit-learn's cost for the common input it would return unchanged: ``X`` a 2-D float64
    ndarray of finite values, ``y`` a 1-D ndarray of as many booleans, integers or finite floats.
    Then only what scikit-learn would do besides is done (``n_features_in_`` set, a
    ``feature_names_in_`` of an earlier DataFrame fit removed) and both are returned as they
    are; anything else goes through :func:`validate_data` (its checks and typed errors). Its
    ``check_X_y`` costs 0.12 ms, 1.5 % of a thin-plate fit on 400 wdbc points (measured)."""
    if (
        type(X) is np.ndarray
        and type(y) is np.ndarray
        and X.dtype == np.float64
        and X.ndim == 2
        and X.shape[0] >= 1
        and X.shape[1] >= 1
        and y.ndim == 1
        and y.shape[0] == X.shape[0]
        and y.dtype.kind in "biuf"
        and bool(np.isfinite(X).all())
        and (y.dtype.kind != "f" or bool(np.isfinite(y).all()))
    ):
        if hasattr(estimator, "feature_names_in_"):
            delattr(estimator, "feature_names_in_")
        estimator.n_features_in_ = X.shape[1]
        return X, y
    Xv, yv = validate_data(estimator, X, y, dtype=np.float64)
    return np.asarray(Xv, dtype=np.float64), np.asarray(yv)


def classification_classes(y: NDArray[Any]) -> NDArray[Any]:
    """``np.unique(y)`` of validated labels, after scikit-learn's
    ``check_classification_targets`` (its errors and warning), which is skipped where its
    answer is known to be "binary": 1-D booleans, integers or integral floats of at most two
    values (its ``type_of_target`` costs 0.1 ms a call, measured)."""
    if y.ndim == 1 and y.dtype.kind in "biuf":
        classes = np.unique(y)
        integral = y.dtype.kind != "f" or not bool(np.any(classes != classes.astype(np.int64).astype(y.dtype)))
        if classes.shape[0] <= 2 and integral:
            return classes
    try:
        check_classification_targets(y)
        return np.unique(y)
    except (TypeError, ValueError) as exc:  # scikit-learn's plain ValueError, NumPy's TypeError on mixed types
        raise LabelError(
            f"y cannot be used as class labels ({exc}); give labels of one type (numbers or strings), "
            "without None or NaN"
        ) from None


def _refuse_sparse(X: Any, name: str) -> None:
    """Sparse input is refused with a :class:`DataError` saying dense input is required.

    Every sdpkern method forms dense kernel matrices from the inputs (and the SDP builders
    dense LMIs), so accepting sparse X would only hide a densification; scikit-learn's own
    ``TypeError`` is replaced by this typed error (the message keeps the word "sparse", which
    scikit-learn's estimator checks look for).
    """
    if sp.issparse(X):
        raise DataError(
            f"{name} is a sparse matrix ({type(X).__name__}); sdpkern needs dense input (it forms dense kernel "
            f"matrices): pass {name}.toarray()"
        )


def as_matrix(X: ArrayLike, name: str = "X", *, min_samples: int = 1) -> NDArray[np.float64]:
    """Return ``X`` as a finite 2-D float array or raise :class:`DataError` naming ``name``."""
    _refuse_sparse(X, name)
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


def as_sample_weight(sample_weight: ArrayLike | None, n: int) -> NDArray[np.float64] | None:
    """``sample_weight`` as n finite non-negative floats, not all zero (``None`` stays ``None``).

    Point i's loss weight: its C becomes C·sample_weight_i (docs/conventions.md).
    """
    if sample_weight is None:
        return None
    w = as_vector(sample_weight, "sample_weight", length=n)
    if np.any(w < 0):
        raise DataError("sample_weight must be non-negative")
    if not np.any(w > 0):
        raise DataError("sample_weight is zero for every point: nothing to learn from")
    return w


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


def check_integer(value: Any, name: str, low: int) -> int:
    """Check an integer (not a bool, not a float) ``>= low`` and return it as int."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ParameterError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def pass_threads(n_jobs: int | None) -> int:
    """Threads for the compiled SMO (its passes and its kernel columns' rows) from scikit-learn's
    ``n_jobs``.

    An int as joblib reads it (−1: every core the process may use). None: two where the process
    may use two cores, as scikit-learn's OpenMP estimators use the cores without being asked (the
    passes split in two, so more do not help), fewer where ``OMP_NUM_THREADS`` says so: joblib's
    workers set it to their share of the cores, so that a parallel grid search does not
    oversubscribe them. The threads never change a model's bits."""
    import os

    from joblib import effective_n_jobs

    if n_jobs is not None:
        if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
            raise ParameterError(f"n_jobs must be None or a nonzero integer (-1: every core), got {n_jobs!r}")
        return max(1, int(effective_n_jobs(int(n_jobs))))
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    omp = os.environ.get("OMP_NUM_THREADS", "")
    limit = int(omp) if omp.isdigit() and int(omp) > 0 else cores
    return max(1, min(2, cores, limit))


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


# ----------------------------------------------------------------------------- parameter constraints
class Interval:
    """Numbers of type ``kind`` between ``left`` and ``right`` (``None`` = unbounded).

    ``closed`` is ``"both"``, ``"left"``, ``"right"`` or ``"neither"``, as in scikit-learn.
    ``Interval(Integral, ...)`` rejects floats and booleans; ``Interval(Real, ...)`` accepts
    integers and NumPy scalars but never booleans, NaN or infinity (unless a bound is ``None``
    and the value is that infinity: no sdpkern parameter takes one, so they are refused too).
    """

    def __init__(
        self, kind: type, left: float | None, right: float | None, *, closed: str = "both"
    ) -> None:
        if closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"closed must be 'both', 'left', 'right' or 'neither', got {closed!r}")
        self.kind, self.left, self.right, self.closed = kind, left, right, closed

    def accepts(self, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, self.kind):
            return False
        v = float(value)  # type: ignore[arg-type]  # an instance of a numbers ABC
        if not math.isfinite(v):
            return False
        if self.left is not None and (v < self.left or (v == self.left and self.closed in ("right", "neither"))):
            return False
        if self.right is not None and (v > self.right or (v == self.right and self.closed in ("left", "neither"))):
            return False
        return True

    def __str__(self) -> str:
        what = "an integer" if self.kind is numbers.Integral else "a real number"
        lo = "-inf" if self.left is None else f"{self.left:g}"
        hi = "inf" if self.right is None else f"{self.right:g}"
        lb = "[" if self.closed in ("both", "left") and self.left is not None else "("
        rb = "]" if self.closed in ("both", "right") and self.right is not None else ")"
        return f"{what} in {lb}{lo}, {hi}{rb}"


class Options:
    """One of a fixed set of values (usually strings); ``deprecated`` ones are accepted but not advertised."""

    def __init__(self, options: Iterable[Any], *, deprecated: Iterable[Any] = ()) -> None:
        self.options = frozenset(options)
        self.deprecated = frozenset(deprecated)

    def accepts(self, value: Any) -> bool:
        try:
            return value in self.options or value in self.deprecated
        except TypeError:  # unhashable values are never options
            return False

    def __str__(self) -> str:
        shown = ", ".join(repr(o) for o in sorted(self.options, key=repr))
        return f"one of {{{shown}}}"


def _accepts(constraint: Any, value: Any) -> bool:
    if constraint is None:
        return value is None
    if isinstance(constraint, (Interval, Options)):
        return constraint.accepts(value)
    if isinstance(constraint, type):
        return isinstance(value, constraint) and not (constraint is not bool and isinstance(value, bool))
    if constraint == "boolean":
        return isinstance(value, (bool, np.bool_))
    if constraint == "array-like":
        return hasattr(value, "__len__") or hasattr(value, "__array__")
    if constraint == "random_state":
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            return int(value) >= 0
        return value is None or isinstance(value, (np.random.Generator, np.random.RandomState))
    if constraint is callable or constraint == "callable":
        return callable(value)
    raise TypeError(f"unknown parameter constraint {constraint!r}")


def _describe(constraint: Any) -> str:
    if constraint is None:
        return "None"
    if isinstance(constraint, (Interval, Options)):
        return str(constraint)
    if isinstance(constraint, type):
        return f"an instance of {constraint.__name__}"
    if constraint is callable or constraint == "callable":
        return "a callable"
    return {
        "boolean": "True or False",
        "array-like": "an array-like",
        "random_state": "None, a non-negative integer or a numpy Generator",
    }[constraint]


def validate_params(
    params: Mapping[str, Any], constraints: Mapping[str, Sequence[Any]], *, owner: str | None = None
) -> None:
    """Check every value of ``params`` that has an entry in ``constraints``.

    A value passes when it satisfies any one of its constraints. The first failure raises
    :class:`~sdpkern.errors.ParameterError` naming the parameter (and ``owner``, e.g. the
    estimator's class), what it must be, and what it got. Parameters without constraints are
    not checked here (objects such as kernels check themselves).
    """
    for name, value in params.items():
        allowed = constraints.get(name)
        if allowed is None or any(_accepts(c, value) for c in allowed):
            continue
        what = " or ".join(_describe(c) for c in allowed)
        where = f"{owner}: " if owner else ""
        raise ParameterError(f"{where}{name} must be {what}, got {value!r}")


class ValidatedParams:
    """Mixin for estimators: ``_parameter_constraints`` declared once per class, checked by
    :meth:`_validate_params` at the start of ``fit`` (STYLE.md, item 3)."""

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {}

    def _validate_params(self) -> None:
        cls: Any = type(self)
        if getattr(cls, "get_params", None) is BaseEstimator.get_params:
            # get_params(deep=False) is getattr of each name in __init__'s signature, which it
            # reads on every call (inspect.signature: 25 of the 35 µs this took, measured)
            params = {name: getattr(self, name) for name in _init_parameters(cls)}
        else:
            params = self.get_params(deep=False)  # type: ignore[attr-defined]
        validate_params(params, self._parameter_constraints, owner=cls.__name__)


@lru_cache(maxsize=256)
def _init_parameters(cls: Any) -> tuple[str, ...]:
    """The parameter names scikit-learn's ``get_params`` reads (its ``_get_param_names``), per class."""
    return tuple(cls._get_param_names())


#: Default of a renamed parameter's old name: "not passed".
DEPRECATED = "deprecated"


def take_deprecated(
    owner: str,
    old: str,
    old_value: Any,
    new: str,
    new_value: Any,
    *,
    convert: Callable[[Any], Any] | None = None,
    stacklevel: int = 3,
) -> Any:
    """The value to use for ``new`` when the deprecated ``old`` may also have been passed.

    ``old_value`` equal to :data:`DEPRECATED` means the user did not pass ``old``: ``new_value``
    is returned. Otherwise a ``FutureWarning`` names both and ``convert(old_value)`` (the old
    value in the new parameter's meaning) is returned.
    """
    if isinstance(old_value, str) and old_value == DEPRECATED:
        return new_value
    from ._deprecation import deprecation_message

    warnings.warn(
        f"{owner}: " + deprecation_message(f"'{old}'", f"'{new}'", converted=convert is not None),
        FutureWarning,
        stacklevel=stacklevel,
    )
    return old_value if convert is None else convert(old_value)


def warn_if_not_unisolvent(kernel: Any, X: ArrayLike, sample_weight: Any, owner: str, rank: int | None = None) -> None:
    """A :class:`~sdpkern.errors.NonUniqueSolutionWarning` when the points that count (positive
    weight) do not determine the polynomial part of a c.p.d. model.

    A c.p.d. SVM's model is unique only when its points are unisolvent for the kernel's
    polynomial space π (000 §3: P, the monomials at the points, of full column rank). Otherwise a
    polynomial vanishing on every point can be added to f without changing the objective, and
    two solvers (or a fit on repeated points instead of weights) may return different decision
    functions with the same optimal value, e.g. fewer points than the dim π = d + 1 terms of a
    thin-plate kernel's linear polynomials in d dimensions. Nothing is refused: the optimum is
    certified; the warning names the cause. ``rank``: that of P on every point when the caller has
    it (the fit's polynomial factor), used where every point counts.
    """
    from .errors import NonUniqueSolutionWarning
    from .kernels.cpd import polynomial_space_of  # lazy: the kernels import this module

    Xa = np.asarray(X, dtype=np.float64)
    space = polynomial_space_of(kernel, Xa.shape[1])
    if space.dim == 0:
        return
    if sample_weight is not None and not np.all(np.asarray(sample_weight, dtype=np.float64) > 0):
        Xa = Xa[np.asarray(sample_weight, dtype=np.float64).ravel() > 0]
        rank = None
    if rank is None:
        rank = int(np.linalg.matrix_rank(space.basis(Xa, Xa.mean(axis=0), 1.0))) if Xa.shape[0] else 0
    if rank < space.dim:
        counted = "points of positive weight" if sample_weight is not None else "points"
        warnings.warn(
            f"{owner}: the {Xa.shape[0]} {counted} determine only {rank} of the {space.dim} coefficients of the "
            f"kernel's polynomial part (degree {space.degree} in {space.d} dimensions): the points are not "
            "unisolvent (000 §3), so the optimum's value is unique but the model is not, and solvers may "
            "return different decision functions; use more points, fewer features or a kernel of lower order",
            NonUniqueSolutionWarning,
            stacklevel=3,
        )

