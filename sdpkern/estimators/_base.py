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

A kernel model predicts with f(x) = Σ_i c_i k(x_i, x) + b and stores ``dual_coef_`` (c on the
support), ``support_`` (sorted training indices) and ``intercept_`` (b).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils.validation import check_is_fitted

from .._validation import (
    ValidatedParams,
    as_sample_weight,
    classification_classes,
    validate_data,
    validate_training_data,
)
from ..errors import DataError, LabelError, ParameterError

__all__ = [
    "STATUSES",
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

    def _more_validation(self) -> None:
        """Checks that ``_parameter_constraints`` cannot express (objects that check themselves)."""

    def _validate_params(self) -> None:
        super()._validate_params()
        self._more_validation()


def deprecated_attribute(new: str, old: str, convert: Any = None) -> property:
    """A fitted attribute ``old`` renamed to ``new``: reading it warns (``FutureWarning``, removed in 1.1)."""

    def getter(self: Any) -> Any:
        warnings.warn(
            f"{type(self).__name__}.{old} is deprecated since sdpkern 1.0 and will be removed in 1.1; "
            f"use {new}" + ("" if convert is None else " (converted here)"),
            FutureWarning,
            stacklevel=2,
        )
        value = getattr(self, new)
        return value if convert is None else convert(value)

    return property(getter, doc=f"Deprecated alias of ``{new}`` (removed in 1.1).")


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
