"""``probability=True``: Platt scaling on internal cross-validation, as scikit-learn's ``SVC``.

Why this route: a scikit-learn user asks an SVM for probabilities with
``SVC(probability=True)`` and gets ``predict_proba``; wrapping every classifier in
:class:`~sklearn.calibration.CalibratedClassifierCV` works too (and still does), but is not
what the estimator's own parameters promise. So the classifiers take ``probability`` and do
what ``SVC`` does (its libsvm fits a sigmoid to decision values from an internal 5-fold
cross-validation; Platt 1999, with the target smoothing of Lin, Lin & Weng 2007), which is also
exactly what ``CalibratedClassifierCV(clf, method="sigmoid", cv=5, ensemble=False)`` computes:

1. decision values f_i of every training point from a model fitted without it
   (:func:`~sklearn.model_selection.cross_val_predict` over :data:`FOLDS` stratified folds, the
   same folds every fit, so a fit depends on its data and parameters only);
2. per class k (one column of the one-vs-rest decision function; the positive class for two),
   the sigmoid p = 1 / (1 + exp(A f + B)) fitted by minimising the weighted cross-entropy
   against Platt's targets (N₊ + 1)/(N₊ + 2) for the class and 1/(N₋ + 2) for the rest;
3. probabilities: for two classes (1 − p, p); for more, each class's p divided by their sum.

The model that predicts is the one fitted on all the data, so ``predict`` (the sign or argmax of
the decision function) can disagree with the argmax of ``predict_proba`` near the boundary, as
for ``SVC``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize
from scipy.special import expit, log_expit
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold, cross_val_predict

from ..errors import DataError

__all__ = ["FOLDS", "platt_sigmoid", "sigmoid_probabilities", "fit_probability"]

#: Folds of the internal cross-validation (libsvm's and ``SVC``'s 5).
FOLDS = 5

Array = NDArray[np.float64]


def platt_sigmoid(f: Array, target: NDArray[np.bool_], sample_weight: Array | None = None) -> tuple[float, float]:
    """(A, B) of the sigmoid 1 / (1 + exp(A f + B)) fitted to decision values ``f`` (Platt).

    Minimises Σ_i w_i [−t_i log p_i − (1 − t_i) log(1 − p_i)] with Platt's smoothed targets
    t_i = (N₊ + 1)/(N₊ + 2) where ``target`` is true and 1/(N₋ + 2) elsewhere (N₊, N₋ the
    weighted counts). The problem is convex in (A, B); it is solved by L-BFGS-B with the exact
    gradient, on f divided by its largest magnitude when that is large (for conditioning).
    """
    f = np.asarray(f, dtype=np.float64)
    w = np.ones_like(f) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    pos = np.asarray(target, dtype=bool)
    n_pos, n_neg = float(w[pos].sum()), float(w[~pos].sum())
    t = np.where(pos, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))
    scale = max(1.0, float(np.abs(f).max(initial=0.0)))
    g = f / scale

    def loss_grad(ab: Array) -> tuple[float, Array]:
        z = -(ab[0] * g + ab[1])  # p = expit(z)
        loss = -np.sum(w * (t * log_expit(z) + (1.0 - t) * log_expit(-z)))
        r = w * (expit(z) - t)  # d loss / d z
        return float(loss), np.array([-(r @ g), -r.sum()])

    start = np.array([0.0, np.log((n_neg + 1.0) / (n_pos + 1.0))])
    res = minimize(loss_grad, start, jac=True, method="L-BFGS-B", options={"gtol": 1e-10, "ftol": 1e-15})
    return float(res.x[0] / scale), float(res.x[1])


def sigmoid_probabilities(decision: Array, sigmoids: list[tuple[float, float]]) -> Array:
    """Class probabilities from decision values and the fitted sigmoids (step 3 above)."""
    if decision.ndim == 1:
        (a, b), = sigmoids
        p = expit(-(a * decision + b))
        return np.column_stack([1.0 - p, p])
    proba = np.column_stack([expit(-(a * decision[:, k] + b)) for k, (a, b) in enumerate(sigmoids)])
    total = proba.sum(axis=1, keepdims=True)
    uniform = np.full_like(proba, 1.0 / proba.shape[1])
    return np.divide(proba, total, out=uniform, where=total > 0)


def fit_probability(
    estimator: Any, X: Array, y: NDArray[Any], sample_weight: Array | None
) -> list[tuple[float, float]]:
    """The sigmoids of a classifier fitted on (X, y): steps 1-2 above, on clones without
    ``probability`` (each fold's fit is an ordinary fit of the same parameters)."""
    classes = estimator.classes_
    counts = np.array([np.sum(y == c) for c in classes])
    if counts.min() < FOLDS:
        raise DataError(
            f"probability=True needs at least {FOLDS} training points of each class for its internal "
            f"{FOLDS}-fold cross-validation; class {classes[int(np.argmin(counts))]!r} has {int(counts.min())}"
        )
    base = clone(estimator).set_params(probability=False)
    params = None if sample_weight is None else {"sample_weight": sample_weight}
    decision = cross_val_predict(
        base, X, y, cv=StratifiedKFold(n_splits=FOLDS), method="decision_function", params=params
    )
    decision = np.asarray(decision, dtype=np.float64)
    if decision.ndim == 1:
        return [platt_sigmoid(decision, y == classes[1], sample_weight)]
    return [platt_sigmoid(decision[:, k], y == c, sample_weight) for k, c in enumerate(classes)]
