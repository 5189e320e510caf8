"""The hyperkernel ν-SVC, L2-SVC, one-class SVM, ν-SVR and alignment transformer: the
scikit-learn contract, model selection and pipelines, pickling and bad input."""

import pickle

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from sdpkern.errors import DataError, LabelError, ParameterError
from sdpkern.estimators import (
    HyperkernelAlignment,
    HyperkernelL2SVC,
    HyperkernelNuSVC,
    HyperkernelNuSVR,
    HyperkernelOneClassSVM,
)

ESTIMATORS = [
    HyperkernelNuSVC(),
    HyperkernelL2SVC(),
    HyperkernelOneClassSVM(),
    HyperkernelNuSVR(),
    HyperkernelAlignment(),
]


@parametrize_with_checks(
    ESTIMATORS,
    expected_failed_checks=lambda est: (
        {
            "check_sample_weight_equivalence_on_dense_data": (
                "the basis terms are chosen on the rows of X, so removing or repeating rows changes the "
                "kernels the model learns from; tests/test_hyperkernel_weights.py checks weights against "
                "repeated points on the same basis terms"
            )
        }
        if isinstance(est, HyperkernelL2SVC)
        else {}
    ),
)
def test_sklearn_contract(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def data():
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    idx = rng.permutation(X.shape[0])
    labels = np.array(["benign", "malignant"])[1 - y]
    return X[idx[:80]], labels[idx[:80]], X[idx[200:320]], labels[idx[200:320]]


@pytest.mark.parametrize("cls", [HyperkernelNuSVC, HyperkernelL2SVC])
def test_classifiers_fit_predict_and_pickle(cls, data):
    X, y, Xt, yt = data
    clf = cls().fit(X, y)
    assert set(clf.classes_) == {"benign", "malignant"}
    assert clf.score(Xt, yt) > 0.85
    assert clf.beta_.sum() == pytest.approx(1.0, abs=1e-6) and clf.beta_.min() >= 0
    d = clf.decision_function(Xt)
    np.testing.assert_array_equal(clf.predict(Xt), clf.classes_[(d > 0).astype(int)])
    clone = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(clone.decision_function(Xt), d)


def test_l2svc_decision_is_expansion_plus_y_alpha(data):
    X, y, Xt, _ = data
    clf = HyperkernelL2SVC(max_terms=40).fit(X, y)
    y_pm = np.where(y == clf.classes_[1], 1.0, -1.0)
    by_hand = clf.learned_kernel(Xt, X) @ (clf.alpha_ * y_pm) + y_pm @ clf.alpha_
    np.testing.assert_allclose(clf.decision_function(Xt), by_hand, rtol=1e-8, atol=1e-8)


def test_one_class_flags_far_points_and_respects_nu():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2))
    det = HyperkernelOneClassSVM(nu=0.1).fit(X)
    far = rng.normal(size=(20, 2)) + 10.0
    assert np.all(det.predict(far) == -1)
    assert np.mean(det.decision_function(X) < -1e-4) <= 0.1 + 1e-9
    np.testing.assert_allclose(det.score_samples(X) - det.offset_, det.decision_function(X))


def test_nusvr_learns_a_function_in_a_pipeline_and_grid():
    rng = np.random.default_rng(1)
    X = rng.uniform(-3, 3, (60, 2))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] + 0.05 * rng.normal(size=60)
    Xt = rng.uniform(-2.5, 2.5, (100, 2))
    yt = np.sin(Xt[:, 0]) + 0.5 * Xt[:, 1]
    pipe = make_pipeline(StandardScaler(), HyperkernelNuSVR(widths=[1.0, 1.0], max_terms=40))
    grid = GridSearchCV(pipe, {"hyperkernelnusvr__nu": [0.2, 0.5]}, cv=3).fit(X, y)
    assert grid.score(Xt, yt) > 0.9
    reg = grid.best_estimator_[-1]
    assert reg.beta_.sum() == pytest.approx(np.std(y, ddof=1), rel=1e-6)
    assert reg.epsilon_ >= 0


def test_alignment_feeds_a_precomputed_svc(data):
    X, y, Xt, yt = data
    pipe = make_pipeline(HyperkernelAlignment(max_terms=40), SVC(kernel="precomputed", C=10.0))
    grid = GridSearchCV(pipe, {"svc__C": [1.0, 100.0]}, cv=3).fit(X, y)
    assert grid.score(Xt, yt) > 0.85
    align = grid.best_estimator_[0]
    K = align.transform(Xt)
    assert K.shape == (Xt.shape[0], X.shape[0])
    # the compiled learned-kernel block against the basis' stack of term kernels (002 eq. 2.15)
    np.testing.assert_allclose(align.transform(X), align.basis_.learned_kernel(align.beta_), atol=1e-10)
    # real-valued targets are accepted too (kernel learned for regression)
    rng = np.random.default_rng(0)
    assert HyperkernelAlignment(max_terms=20).fit(X[:40], rng.normal(size=40)).transform(X[:5]).shape == (5, 40)


@pytest.mark.parametrize(
    "est,err,match",
    [
        (HyperkernelNuSVC(nu=0.0), ParameterError, "nu"),
        (HyperkernelNuSVC(nu=1.2), ParameterError, "nu"),
        (HyperkernelOneClassSVM(nu=-0.5), ParameterError, "nu"),
        (HyperkernelNuSVR(nu=2.0), ParameterError, "nu"),
        (HyperkernelNuSVR(C=0.0), ParameterError, "C"),
        (HyperkernelL2SVC(C=-1.0), ParameterError, "C"),
        (HyperkernelAlignment(ridge=-1.0), ParameterError, "ridge"),
        (HyperkernelNuSVC(form="qp"), ParameterError, "form"),
    ],
)
def test_bad_parameters(est, err, match, data):
    X, y, _, _ = data
    with pytest.raises(err, match=match):
        est.fit(X[:30]) if isinstance(est, HyperkernelOneClassSVM) else est.fit(X[:30], y[:30])


def test_bad_data(data):
    X, y, _, _ = data
    with pytest.raises(ParameterError, match="lower nu"):  # ν above 2·min(m₊, m₋)/m
        HyperkernelNuSVC(nu=0.5).fit(X[:30], np.r_[np.ones(3), np.zeros(27)])
    with pytest.raises(LabelError, match="constant"):
        HyperkernelNuSVR().fit(X[:30], np.ones(30))
    with pytest.raises(DataError, match="1 sample"):
        HyperkernelOneClassSVM().fit(X[:1])
    with pytest.raises(LabelError, match="1 class"):
        HyperkernelL2SVC().fit(X[:30], np.zeros(30))
