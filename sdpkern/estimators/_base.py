"""What every sdpkern estimator shares (docs/conventions.md is the rule this module implements).

* :class:`SdpkernEstimator`: parameters are the fields of a keyword-only dataclass, so the
  generated ``__init__`` does what scikit-learn asks of it and nothing more (it stores its
  arguments), every class declares each parameter once with its type and default, and
  subclasses inherit the shared ones instead of repeating them; constraints are declared once per
  class in ``_parameter_constraints`` and checked by ``_validate_params()`` first thing in
  ``fit``.
* :class:`KernelClassifierMixin`: any two labels mapped to ±1 (``classes_[1]`` → +1), one binary
  model per class for more than two (one-vs-rest), per-point loss weights from
  ``sample_weight`` and ``class_weight``, and one tie rule: a decision value of 0 goes to
  ``classes_[0]``; one-vs-rest picks the first largest value.
* The status vocabulary (:data:`STATUSES`, :func:`worst_status`) and the point-weight rule
  (:func:`point_weights`).
* The certification rule (:func:`check_certified`): a fitted estimator whose ``status_`` is not
  ``"optimal"`` keeps its fitted attributes for inspection, but its prediction methods
  (:data:`SERVING_METHODS`) raise :class:`~sdpkern.errors.UncertifiedModelError`; every
  estimator class gets the check on those methods from :class:`SdpkernEstimator`, and its ``fit``
  is atomic (a fit that raises, ``KeyboardInterrupt`` included, leaves the estimator as it was)
  and ends by checking the model finite (:func:`check_finite_model`).

A kernel model predicts with f(x) = Σ_i c_i k(x_i, x) + b and stores ``dual_coef_`` (c on the
support), ``support_`` (sorted training indices) and ``intercept_`` (b).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import check_is_fitted

from .._deprecation import REMOVED_IN, deprecation_message
from .._validation import (
    ValidatedParams,
    as_sample_weight,
    classification_classes,
    validate_data,
    validate_training_data,
)
from ..errors import DataError, LabelError, ParameterError, SdpkernError, SolverError, UncertifiedModelError

__all__ = [
    "STATUSES",
    "SERVING_METHODS",
    "check_certified",
    "check_finite_model",
    "worst_status",
    "point_weights",
    "SdpkernEstimator",
    "KernelClassifierMixin",
    "deprecated_attribute",
    "squared_hinge_stationarity",
]

Array = NDArray[np.float64]

#: sdpkern's status vocabulary, best first (docs/conventions.md, "Status and certificates").
STATUSES = ("optimal", "optimal_inaccurate", "iteration_limit", "time_limit", "infeasible", "unbounded", "error")


def worst_status(statuses: Iterable[str]) -> str:
    """The worst of several statuses (a one-vs-rest estimator's ``status_``)."""
    return max(statuses, key=lambda s: STATUSES.index(s) if s in STATUSES else len(STATUSES))


#: The methods that serve a fitted model, refused when it is not certified (:func:`check_certified`).
SERVING_METHODS = ("predict", "decision_function", "score_samples", "transform", "predict_proba",
                   "predict_log_proba")  # fmt: skip

_REMEDY = {
    "iteration_limit": "raise the iteration cap (max_iter, or solver_options={'max_iter': ...})",
    "time_limit": "raise the time limit (solver_options={'time_limit': ...}) or remove it",
    "optimal_inaccurate": "try another backend or solver, or a looser tol",
}


def check_certified(estimator: Any, method: str = "predict") -> None:
    """:class:`~sdpkern.errors.UncertifiedModelError` unless the fitted ``status_`` is ``"optimal"``.

    The rule (docs/conventions.md, "Status and certificates"): a fit whose solve was stopped by
    a limit, or ended inaccurate, returns the estimator with ``status_`` saying so, a
    ``ConvergenceWarning``, and every fitted attribute (``certificate_``, ``dual_coef_``, ...)
    for inspection, but it does not serve predictions: ``method`` raises instead. An estimator
    not fitted yet (no ``status_``) is left to ``check_is_fitted``.
    """
    status = estimator.__dict__.get("status_")
    if status is None or status == "optimal":
        return
    name = type(estimator).__name__
    raise UncertifiedModelError(
        f"{name}.{method}: the model was fitted with status_={status!r}, not certified optimal, so it is not "
        f"served; {_REMEDY.get(status, 'see certificate_ and refit')} and fit again (the fitted attributes "
        "stay for inspection)",
        status=status,
    )


#: The fitted attributes that hold the model (checked finite after every fit).
_MODEL_ATTRIBUTES = ("dual_coef_", "intercept_", "coef_", "beta_", "alpha_", "eigenvalues_", "eigenvectors_")


def _non_finite(value: Any) -> bool:
    if value is None:  # an attribute a model does not use (coef_ of a kernel model)
        return False
    if isinstance(value, (list, tuple)):
        return any(_non_finite(v) for v in value)
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return bool(arr.size) and not bool(np.isfinite(arr).all())


def check_finite_model(estimator: Any) -> None:
    """:class:`~sdpkern.errors.SolverError` (status ``"error"``) when a fit produced NaN or inf in
    its model (a solver that returned garbage and called it converged): never a silent NaN."""
    bad = [name for name in _MODEL_ATTRIBUTES if name in estimator.__dict__ and _non_finite(estimator.__dict__[name])]
    if bad:
        raise SolverError(
            f"{type(estimator).__name__}.fit: the solver returned non-finite values ({', '.join(bad)} hold NaN or "
            f"inf; status_={estimator.__dict__.get('status_')!r}); the estimator is left as it was before fit: "
            "check the data's scale, or try another solver or backend",
            status="error",
        )


#: Exceptions from inside a solver that ``fit`` reports as a :class:`~sdpkern.errors.SolverError`
#: (bad input is a ValueError or TypeError, already typed by validation, and passes unchanged).
_SOLVER_CRASHES = (RuntimeError, ArithmeticError, LookupError, AttributeError, AssertionError, OSError)


def _atomic_fit(method: Callable[..., Any]) -> Callable[..., Any]:
    """``fit`` that leaves the estimator as it was when it raises (a solver failure, a bad input,
    ``KeyboardInterrupt``): no half-fitted estimator that looks fitted. Then the model is checked
    finite (:func:`check_finite_model`)."""
    if getattr(method, "_sdpkern_atomic", False):
        return method

    @functools.wraps(method)
    def fit(self: Any, *args: Any, **kwargs: Any) -> Any:
        before = dict(self.__dict__)
        try:
            out = method(self, *args, **kwargs)
            check_finite_model(self)
        except BaseException as exc:
            self.__dict__.clear()
            self.__dict__.update(before)
            if isinstance(exc, _SOLVER_CRASHES) and not isinstance(exc, (SdpkernError, ValueError, TypeError)):
                # a crash inside a solver (a native core, libsvm, an eigensolver): the status rule's
                # "error", as KernelProblem.solve makes of a backend that raises; the cause is chained
                raise SolverError(
                    f"{type(self).__name__}.fit: the solver failed ({type(exc).__name__}: {exc}); the estimator is "
                    "left as it was before fit",
                    status="error",
                ) from exc
            raise
        return out

    fit._sdpkern_atomic = True  # type: ignore[attr-defined]
    return fit


def _certified(method: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``method`` preceded by :func:`check_certified` (once per class and method)."""
    if getattr(method, "_sdpkern_certified", False):
        return method

    @functools.wraps(method)
    def serve(self: Any, *args: Any, **kwargs: Any) -> Any:
        check_certified(self, name)
        return method(self, *args, **kwargs)

    serve._sdpkern_certified = True  # type: ignore[attr-defined]
    return serve


def point_weights(
    y: ArrayLike, sample_weight: ArrayLike | None, class_weight: Mapping[Any, float] | str | None
) -> Array | None:
    """Per-point loss weights w_i = sample_weight_i · class_weight[y_i] (``None`` if both are).

    Point i's C is then C·w_i, as in scikit-learn's ``SVC``. ``class_weight`` is a mapping from
    label to weight or ``"balanced"`` (n / (n_classes · n_c)), computed by
    :func:`sklearn.utils.class_weight.compute_sample_weight`.
    """
    y_arr = np.asarray(y)
    if sample_weight is None and class_weight is None:
        return None
    given = as_sample_weight(sample_weight, y_arr.shape[0])
    w = np.ones(y_arr.shape[0]) if given is None else given
    if class_weight is not None:
        if not (isinstance(class_weight, Mapping) or class_weight == "balanced"):
            raise ParameterError(f"class_weight must be a dict, 'balanced' or None, got {class_weight!r}")
        try:
            w = w * compute_sample_weight(class_weight, y_arr)
        except ValueError as exc:
            raise ParameterError(f"class_weight: {exc}") from None
    if not np.any(w > 0):
        raise DataError("sample_weight (times class_weight) is zero for every point: nothing to learn from")
    return np.asarray(w, dtype=np.float64)


def squared_hinge_stationarity(
    coef: NDArray[np.float64], outputs: NDArray[np.float64] | None, y: NDArray[np.float64],
    C: float | NDArray[np.float64],
) -> float | None:
    """‖c − 2C y∘ξ‖∞ / max(1, ‖c‖∞), ξ = max(0, 1 − y∘f): zero exactly at the optimum of
    ½‖f‖² + C Σ ξ_i² (its gradient in f is Σ_i (c_i − 2C y_i ξ_i) k(x_i, ·), 004; with an
    unpenalised polynomial part, 000 eq. (14), the same condition holds for α, 000 Theorem 4.6).
    With per-point weights, ``C`` is the vector of the points' C·w_i.

    ``None`` when the solver did not return the training outputs f."""
    if outputs is None:
        return None
    xi = np.maximum(0.0, 1.0 - y * outputs)
    return float(np.abs(coef - 2.0 * C * y * xi).max(initial=0.0) / max(1.0, float(np.abs(coef).max(initial=0.0))))


@dataclass(kw_only=True, eq=False, repr=False)
class SdpkernEstimator(ValidatedParams, BaseEstimator):
    """Base of every sdpkern estimator.

    Subclasses are keyword-only dataclasses (``@dataclass(kw_only=True, eq=False, repr=False)``)
    whose fields are the parameters: the generated ``__init__`` only stores them (scikit-learn's
    contract), ``get_params`` reads its signature, and a shared parameter is declared once, in
    the family's base class.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # the certification rule on every serving method, wherever the class got it (a mixin,
        # a family base or its own), so no family can serve an uncertified model by omission
        super().__init_subclass__(**kwargs)
        for name in SERVING_METHODS:
            method = getattr(cls, name, None)
            if callable(method) and not getattr(method, "_sdpkern_certified", False):
                setattr(cls, name, _certified(method, name))
        fit = cls.__dict__.get("fit")
        if callable(fit):  # a fit of this class's own: atomic, and its model checked finite
            cls.fit = _atomic_fit(fit)  # type: ignore[method-assign]

    def _more_validation(self) -> None:
        """Checks that ``_parameter_constraints`` cannot express (objects that check themselves)."""

    def _validate_params(self) -> None:
        super()._validate_params()
        self._more_validation()


def deprecated_attribute(new: str, old: str, convert: Any = None) -> property:
    """A fitted attribute ``old`` renamed to ``new``: reading it warns (``FutureWarning``; removed in
    :data:`sdpkern._deprecation.REMOVED_IN`)."""

    def getter(self: Any) -> Any:
        warnings.warn(
            deprecation_message(f"{type(self).__name__}.{old}", new, converted=convert is not None),
            FutureWarning,
            stacklevel=2,
        )
        value = getattr(self, new)
        return value if convert is None else convert(value)

    return property(getter, doc=f"Deprecated alias of ``{new}`` (removed in sdpkern {REMOVED_IN}).")


class KernelClassifierMixin(ClassifierMixin):
    """Classifiers built from binary models (docs/conventions.md, "Multiclass", "Sign and ties").

    A subclass implements

    * ``_fit_binary(X, y_pm, weights, shared)``: fit one model on labels ±1 with per-point
      weights (``None`` = all ones) and store its fitted attributes (``dual_coef_``,
      ``support_``, ``intercept_``, ``status_``, ...) on ``self``;
    * ``_decision_binary(X)``: that model's decision values on validated inputs;

    and may override ``_shared_state(X)`` (work the one-vs-rest models share, e.g. a kernel
    column cache) and ``_check_training_data``. Its ``fit`` calls :meth:`_fit_classifier`.
    """

    classes_: NDArray[Any]
    class_weight: Any = None
    # binary: float and (n_SV,) arrays; one-vs-rest: one row per class
    intercept_: Any
    dual_coef_: Any
    support_: Any
    coef_: Any
    n_iter_: Any
    certificate_: dict[str, Any]
    # implemented by the family's class (annotations only, so the MRO finds the family's methods)
    _fit_binary: Callable[[Array, Array, Array | None, Any], None]
    _decision_binary: Callable[[Array], Array]
    _multiclass_attributes = ("dual_coef_", "support_", "intercept_", "coef_")

    def _check_training_data(self, X: ArrayLike, y: ArrayLike) -> tuple[Array, NDArray[Any]]:
        return validate_training_data(self, X, y)

    def _shared_state(self, X: Array) -> Any:
        return None

    def _fit_classifier(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Any:
        self._validate_params()  # type: ignore[attr-defined]
        X_arr, y_arr = self._check_training_data(X, y)
        classes = classification_classes(y_arr)
        if classes.shape[0] < 2:
            raise LabelError(
                f"y has 1 class ({classes[0]!r}); {type(self).__name__} needs at least two classes"
            )
        weights = point_weights(y_arr, sample_weight, self.class_weight)
        self.classes_ = classes
        shared = self._shared_state(X_arr)
        self.__dict__.pop("estimators_", None)
        if classes.shape[0] == 2:
            self._fit_binary(X_arr, np.where(y_arr == classes[1], 1.0, -1.0), weights, shared)
            return self
        models = []
        for c in classes:
            model = clone(self)
            model.n_features_in_ = X_arr.shape[1]
            model.classes_ = np.array([False, True])  # "rest", "c"
            model._fit_binary(X_arr, np.where(y_arr == c, 1.0, -1.0), weights, shared)
            models.append(model)
        self._store_one_vs_rest(models)
        return self

    def _store_one_vs_rest(self, models: list[Any]) -> None:
        """The fitted binary models and their attributes stacked (one row per class)."""
        self.estimators_ = models
        self.statuses_ = [m.status_ for m in models]
        self.status_ = worst_status(self.statuses_)
        self.intercept_ = np.array([float(m.intercept_) for m in models])
        if all(hasattr(m, "certificate_") for m in models):
            self.certificates_ = [m.certificate_ for m in models]
            measure = models[0].certificate_.get("measure")
            self.certificate_ = {"measure": f"{measure} (one value per one-vs-rest model)",
                                 "value": [c.get("value") for c in self.certificates_]}  # fmt: skip
        if all(hasattr(m, "n_iter_") for m in models):  # as LinearSVC: the largest count
            self.n_iter_ = max(int(m.n_iter_) for m in models)
        if all(getattr(m, "coef_", None) is not None for m in models):
            self.coef_ = np.vstack([np.ravel(m.coef_) for m in models])
        if not all(hasattr(m, "support_") and hasattr(m, "dual_coef_") for m in models):
            return
        if all(np.ndim(m.dual_coef_) == 1 for m in models):  # c over the union of the supports, 0 elsewhere
            support = np.unique(np.concatenate([np.asarray(m.support_, dtype=np.intp) for m in models]))
            dual = np.zeros((len(models), support.shape[0]))
            for k, m in enumerate(models):
                dual[k, np.searchsorted(support, m.support_)] = m.dual_coef_
            self.support_, self.dual_coef_ = support, dual
        else:  # family-specific blocks (e.g. an SDPM's Taylor coefficients): one entry per model
            self.support_ = [m.support_ for m in models]
            self.dual_coef_ = [m.dual_coef_ for m in models]

    def decision_function(self, X: ArrayLike) -> Array:
        """f(x): shape (n_samples,) for two classes (positive means ``classes_[1]``), else one
        column per class (one-vs-rest)."""
        check_is_fitted(self, "classes_")
        if "estimators_" in self.__dict__:
            return np.column_stack([m.decision_function(X) for m in self.estimators_])
        X_arr = np.asarray(validate_data(self, X, dtype=np.float64, reset=False), dtype=np.float64)
        return np.asarray(self._decision_binary(X_arr), dtype=np.float64)

    def predict(self, X: ArrayLike) -> NDArray[Any]:
        """Class labels: ``classes_[1]`` where f > 0, else ``classes_[0]``; one-vs-rest: the class
        of the largest decision value (the first on a tie)."""
        f = self.decision_function(X)
        if f.ndim == 1:
            return np.asarray(self.classes_[(f > 0).astype(int)])
        return np.asarray(self.classes_[np.argmax(f, axis=1)])
