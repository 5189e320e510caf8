"""SDPMClassifier: scikit-learn contract, one-vs-one, image transformations, kernels, bad input."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.datasets import load_digits
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from sdpkern.builders.sdpm import sdpm, trajectory_margins
from sdpkern.errors import InfeasibleError, LabelError, ParameterError
from sdpkern.estimators import SDPMClassifier
from sdpkern.kernels.base import Gaussian
from sdpkern.trajectories import ImageTransformation


class _Swell:
    """A user trajectory for plain vectors: x(1 + 0.1θ²) + 0.05θ (module level so it pickles).

    A callable object rather than a function so that its repr, and so the test ids, are the
    same in every pytest-xdist worker (a function's repr carries its memory address).
    """

    def __call__(self, theta: float, X: np.ndarray) -> np.ndarray:
        return X * (1.0 + 0.1 * theta**2) + 0.05 * theta

    def __repr__(self) -> str:
        return "swell"


swell = _Swell()


# On the whole line a soft margin only relaxes the constant coefficient: the leading
# coefficient y_i wᵀ(X_i)_r must stay ≥ 0 (a hard constraint), so a label-blind trajectory like
# ``swell`` forces sign(wᵀx_i) = y_i and scores poorly on the checks' blobs. The contract is
# checked on segments (the form 003 §4 uses) and with constant trajectories on the whole line.
def _solver_tolerance_failures(est: SDPMClassifier) -> dict[str, str]:
    """The checks that compare two different problems with one optimum at rtol = 1e-7."""
    if est.transformation is None:
        return {}
    return {
        "check_sample_weight_equivalence_on_dense_data": (
            "weights and repeated points agree to the interior-point solver's tolerance (~1e-5), not to the "
            "check's rtol=1e-7; test_sample_weight_is_a_per_example_C asserts 1e-5 at Taylor degrees 1 and 3"
        )
    }


@parametrize_with_checks(
    [
        SDPMClassifier(transformation=swell, C=10.0, segment=1.0),
        SDPMClassifier(C=10.0),
    ],
    expected_failed_checks=_solver_tolerance_failures,
)
def test_sklearn_contract(estimator, check) -> None:
    check(estimator)


@pytest.mark.slow
@parametrize_with_checks(
    [SDPMClassifier(transformation=swell, C=10.0, segment=1.0, taylor_degree=3)],
    expected_failed_checks=_solver_tolerance_failures,
)
def test_sklearn_contract_degree3_segment(estimator, check) -> None:
    check(estimator)


def test_binary_fit_matches_builder_and_margins() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    y = np.where(X[:, 0] > 0, "b", "a")
    X[:, 0] += np.where(y == "b", 1.0, -1.0)
    clf = SDPMClassifier(transformation=swell, C=5.0).fit(X, y)
    traj = np.stack([X, 0.05 * np.ones_like(X), 0.1 * X], axis=1)
    y_pm = np.where(y == "b", 1.0, -1.0)
    ref = sdpm(traj, y_pm, C=5.0).solve()
    np.testing.assert_allclose(clf.coef_[0], ref.model.extras["w"], atol=1e-6)
    assert clf.intercept_ == pytest.approx(ref.offset, abs=1e-6)
    np.testing.assert_allclose(clf.decision_function(X), ref.decision_function(X), atol=1e-6)
    assert set(clf.predict(X)) <= {"a", "b"}
    m = trajectory_margins(traj, y_pm, clf.coef_[0], clf.intercept_)
    xi = ref.model.extras["xi"]
    assert (m - (1 - xi)[:, None]).min() >= -1e-6
    assert len(clf.support_) == len(clf.theta_star_) == clf.dual_coef_.shape[0]
    assert clf.status_ == "optimal" and clf.backend_ == "clarabel"


@pytest.mark.parametrize("taylor_degree", [1, 3])
def test_sample_weight_is_a_per_example_C(taylor_degree: int) -> None:
    # integer weights are repeated examples: the same slack penalty, so the same optimum
    rng = np.random.default_rng(4)
    X = rng.normal(size=(24, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=24) > 0).astype(int)
    w = rng.integers(1, 4, 24)
    params = dict(transformation=swell, C=2.0, segment=1.0, taylor_degree=taylor_degree)
    weighted = SDPMClassifier(**params).fit(X, y, sample_weight=w)
    repeated = SDPMClassifier(**params).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, atol=1e-5)
    assert weighted.intercept_ == pytest.approx(repeated.intercept_, abs=1e-5)
    unweighted = SDPMClassifier(**params).fit(X, y)
    assert np.abs(unweighted.coef_ - weighted.coef_).max() > 1e-3  # the weights do change the model
    balanced = SDPMClassifier(**params, class_weight="balanced").fit(X, y)
    by_hand = np.where(y == 1, 24 / (2 * np.sum(y == 1)), 24 / (2 * np.sum(y == 0)))
    same = SDPMClassifier(**params).fit(X, y, sample_weight=by_hand)
    np.testing.assert_allclose(balanced.coef_, same.coef_, atol=1e-8)


def test_one_vs_rest_and_sklearn_tools() -> None:
    d = load_digits()
    mask = np.isin(d.target, [0, 1, 7])
    X, y = d.data[mask][:90] / 16.0, d.target[mask][:90]
    clf = SDPMClassifier(transformation="rotation", segment=0.2, C=10.0)
    clf.fit(X, y)
    assert clf.decision_function(X).shape == (90, 3)
    assert len(clf.estimators_) == 3 and clf.coef_.shape == (3, 64)
    np.testing.assert_allclose(clf.decision_function(X), X @ clf.coef_.T + clf.intercept_, atol=1e-10)
    assert np.mean(clf.predict(X) == y) > 0.95
    assert np.array_equal(clf.predict(X), pickle.loads(pickle.dumps(clf)).predict(X))
    scores = cross_val_score(make_pipeline(StandardScaler(), SDPMClassifier(C=1.0)), X, y, cv=3, n_jobs=2)
    assert scores.mean() > 0.9
    gs = GridSearchCV(SDPMClassifier(transformation="rotation", C=1.0), {"C": [0.1, 10.0]}, cv=2).fit(X, y)
    assert gs.best_params_["C"] in (0.1, 10.0)


def test_no_transformation_is_the_svm() -> None:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(25, 3))
    y = (X[:, 0] + 0.2 * X[:, 1] > 0).astype(int)
    clf = SDPMClassifier(taylor_degree=0, C=1.0).fit(X, y)
    svc = SVC(kernel="linear", C=1.0, tol=1e-10).fit(X, y)
    np.testing.assert_allclose(clf.coef_[0], svc.coef_[0], atol=1e-5)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # poly dual: AlmostSolved
def test_several_parameters_and_kernels() -> None:
    d = load_digits()
    mask = np.isin(d.target, [1, 7])
    X, y = d.data[mask][:30] / 16.0, d.target[mask][:30]
    clf = SDPMClassifier(transformation=("rotation", "scaling"), C=10.0).fit(X, y)
    assert clf.score(X, y) == 1.0
    rbf = SDPMClassifier(transformation="rotation", kernel="rbf", gamma=0.05, C=10.0, segment=0.3).fit(X, y)
    assert rbf.score(X, y) == 1.0 and rbf.coef_ is None
    same = SDPMClassifier(transformation="rotation", kernel=Gaussian(gamma=0.05), C=10.0, segment=0.3).fit(X, y)
    np.testing.assert_allclose(rbf.decision_function(X), same.decision_function(X), atol=1e-8)
    poly = SDPMClassifier(transformation="rotation", kernel="poly", degree=2, gamma=0.1, C=10.0).fit(X, y)
    assert poly.score(X, y) == 1.0
    with pytest.warns(FutureWarning, match="'kernel_degree' is deprecated"):
        old = SDPMClassifier(transformation="rotation", kernel="poly", kernel_degree=2, gamma=0.1, C=10.0).fit(X, y)
    np.testing.assert_allclose(old.decision_function(X), poly.decision_function(X), atol=1e-8)
    with pytest.warns(FutureWarning, match="'taylor_degree'"):  # degree's meaning changed in 1.0
        SDPMClassifier(transformation="rotation", degree=4, C=10.0, segment=0.3).fit(X, y)


def test_image_transformation_object_and_virtual_support_vectors() -> None:
    d = load_digits()
    mask = np.isin(d.target, [1, 9])
    X, y = d.data[mask][:20] / 16.0, d.target[mask][:20]
    T = ImageTransformation("rotation", (8, 8))
    clf = SDPMClassifier(transformation=T, segment=np.deg2rad(20), C=100.0).fit(X, y)
    th = clf.theta_star_[0]
    assert th.size > 0 and np.all(np.abs(th) <= np.deg2rad(20) + 1e-6)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"segment": 0.0}, "segment"),
        ({"segment": -0.5}, "segment"),
        ({"C": -1.0}, "C"),
        ({"taylor_degree": -1}, "taylor_degree"),
        ({"taylor_degree": 1.5}, "taylor_degree"),
        ({"kernel": "poly", "degree": 0}, "degree"),
        ({"kernel": "sigmoid"}, "kernel"),
        ({"gamma": 0.0}, "gamma"),
        ({"transformation": 3}, "transformation"),
        ({"transformation": "shear"}, "transformation"),
        ({"transformation": "rotation"}, "image_shape"),
        ({"transformation": ("rotation", "scaling"), "segment": 0.2, "image_shape": (1, 3)}, "003 §3"),
        ({"transformation": ("rotation", "scaling"), "kernel": "rbf", "image_shape": (1, 3)}, "one transformation"),
        ({"kernel": "rbf", "C": 1.0, "fit_intercept": "yes"}, "fit_intercept"),
    ],
)
def test_bad_parameters(params: dict, match: str) -> None:
    X = np.random.default_rng(0).normal(size=(10, 3))
    y = np.arange(10) % 2
    with pytest.raises(ParameterError, match=match):
        SDPMClassifier(**params).fit(X, y)


def test_odd_degree_needs_a_segment() -> None:
    X = np.random.default_rng(0).normal(size=(10, 3))
    y = np.arange(10) % 2
    with pytest.raises(ValueError, match="odd degree"):
        SDPMClassifier(transformation=swell, taylor_degree=1, C=1.0).fit(X, y)
    SDPMClassifier(transformation=swell, taylor_degree=1, C=1.0, segment=0.5).fit(X, y)


def test_bad_labels_nan_and_infeasible() -> None:
    X = np.random.default_rng(0).normal(size=(10, 3))
    with pytest.raises(LabelError, match="two classes"):
        SDPMClassifier(C=1.0).fit(X, np.zeros(10))
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SDPMClassifier(C=1.0).fit(bad, np.arange(10) % 2)
    with pytest.raises(InfeasibleError, match="soft margin C"):
        SDPMClassifier(transformation=swell).fit(X, np.arange(10) % 2)
