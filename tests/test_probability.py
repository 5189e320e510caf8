"""``probability=True`` on every classifier: Platt scaling on internal cross-validation, as ``SVC``.

The second route is scikit-learn's own: ``CalibratedClassifierCV(clone(clf), method="sigmoid",
cv=StratifiedKFold(5), ensemble=False)`` fits the same folds, its own sigmoid (its L-BFGS-B to
gtol 1e-6) and normalises one-vs-rest columns the same way; the probabilities agree to 1e-6
(both minimise the same convex two-parameter loss; the difference is the optimisers' stopping
points). Measured worst case: 4.4e-8, over the nine classifiers on breast cancer and three of
them on iris and wine (three classes, with weights).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.model_selection import StratifiedKFold

from sdpkern import all_estimators
from sdpkern.errors import DataError, ParameterError
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
from sdpkern.estimators._probability import platt_sigmoid
from sdpkern.kernels import Gaussian

HK = {"widths": 5.0, "max_terms": 20}
CLASSIFIERS: dict[str, Callable[..., Any]] = {
    "CPDSVC": lambda **kw: CPDSVC(kernel=Gaussian(gamma=0.1), C=1.0, **kw),
    "HyperkernelL2SVC": lambda **kw: HyperkernelL2SVC(C=0.5, **HK, **kw),
    "HyperkernelNuSVC": lambda **kw: HyperkernelNuSVC(**HK, **kw),
    "HyperkernelSVC": lambda **kw: HyperkernelSVC(C=0.5, **HK, **kw),
    "IndefiniteSVC": lambda **kw: IndefiniteSVC(kernel="rbf", gamma=0.1, C=1.0, **kw),
    "KrylovFisherDiscriminant": lambda **kw: KrylovFisherDiscriminant(gamma=0.1, **kw),
    "PrimalSVC": lambda **kw: PrimalSVC(C=1.0, gamma=0.1, **kw),
    "SDPMClassifier": lambda **kw: SDPMClassifier(C=1.0, **kw),
    "ThinPlateSVC": lambda **kw: ThinPlateSVC(C=1.0, **kw),
}
TOL = 1e-6


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


def _sklearn_route(clf: Any, X: np.ndarray, y: np.ndarray, X_new: np.ndarray, **fit: Any) -> np.ndarray:
    cal = CalibratedClassifierCV(clone(clf), method="sigmoid", cv=StratifiedKFold(5), ensemble=False)
    return cal.fit(X, y, **fit).predict_proba(X_new)


@pytest.mark.parametrize("name", sorted(CLASSIFIERS))
def test_probabilities_are_calibrated_classifier_cv(name: str, binary: tuple) -> None:
    X, y = binary
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf = CLASSIFIERS[name](probability=True).fit(X, y)
        ours = clf.predict_proba(X[:20])
        theirs = _sklearn_route(CLASSIFIERS[name](), X, y, X[:20])
    assert ours.shape == (20, 2)
    np.testing.assert_allclose(ours.sum(axis=1), 1.0, atol=1e-12)
    assert np.abs(ours - theirs).max() <= TOL
    assert clf.probA_.shape == clf.probB_.shape == (1,)
    # a positive decision value is classes_[1]: its probability grows with f (A < 0)
    assert clf.probA_[0] < 0
    np.testing.assert_allclose(np.exp(clf.predict_log_proba(X[:20])), ours, rtol=1e-12)


@pytest.mark.parametrize("name", ["PrimalSVC", "ThinPlateSVC"])
def test_three_classes_and_weights(name: str, three: tuple) -> None:
    X, y = three
    w = np.random.default_rng(2).uniform(0.5, 2.0, y.shape[0])
    clf = CLASSIFIERS[name](probability=True).fit(X, y, sample_weight=w)
    ours = clf.predict_proba(X)
    assert ours.shape == (60, 3) and clf.probA_.shape == (3,)
    np.testing.assert_allclose(ours.sum(axis=1), 1.0, atol=1e-12)
    assert np.abs(ours - _sklearn_route(CLASSIFIERS[name](), X, y, X, sample_weight=w)).max() <= TOL
    # the classes' columns follow classes_; most points get their own class
    assert np.mean(clf.classes_[ours.argmax(axis=1)] == y) > 0.8


def test_without_probability_there_is_no_predict_proba(binary: tuple) -> None:
    X, y = binary
    clf = PrimalSVC(C=1.0).fit(X, y)
    assert not hasattr(clf, "predict_proba") and not hasattr(clf, "predict_log_proba")
    clf.set_params(probability=True)
    with pytest.raises(NotFittedError, match="fitted with probability=False"):
        clf.predict_proba(X)
    # a refit without probability forgets the sigmoids
    clf.fit(X, y)
    clf.set_params(probability=False).fit(X, y)
    assert "probA_" not in clf.__dict__


def test_bad_input_is_named(binary: tuple) -> None:
    X, y = binary
    with pytest.raises(ParameterError, match="probability"):
        PrimalSVC(probability="yes").fit(X, y)
    few = np.r_[np.zeros(30), np.ones(4)]
    with pytest.raises(DataError, match="at least 5 training points of each class"):
        PrimalSVC(probability=True).fit(np.random.default_rng(0).normal(size=(34, 2)), few)


def test_platt_sigmoid_matches_the_logistic_fit_it_is() -> None:
    """Without Platt's target smoothing the sigmoid is a 1-D logistic regression: with targets
    already 0/1 in the limit of many points, A and B approach scikit-learn's unpenalised fit."""
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(5)
    f = rng.normal(size=20000)
    t = rng.uniform(size=f.size) < 1.0 / (1.0 + np.exp(-(2.0 * f - 0.5)))
    a, b = platt_sigmoid(f, t)
    lr = LogisticRegression(C=np.inf).fit(f[:, None], t)
    assert a == pytest.approx(-lr.coef_[0, 0], rel=2e-3)
    assert b == pytest.approx(-lr.intercept_[0], rel=2e-2, abs=2e-3)
