"""SDPMClassifier: scikit-learn contract, one-vs-rest, the native and conic routes, image
transformations, kernels, truly virtual support vectors, bad input."""

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
from sdpkern.errors import DataError, InfeasibleError, LabelError, ParameterError
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
            "weights and repeated trajectories reach one optimum, certified to the relative duality gap 1e-8, "
            "which puts the decision values within ~1e-5 of each other, not the check's rtol=1e-7; "
            "test_sample_weight_is_a_per_example_C asserts 1e-5 at Taylor degrees 1 and 3"
        )
    }


@parametrize_with_checks(
    [
        SDPMClassifier(),  # the defaults: C = 1.0, no transformation (the SVM), the native solver
        SDPMClassifier(transformation=swell, segment=1.0),
    ],
    expected_failed_checks=_solver_tolerance_failures,
)
def test_sklearn_contract(estimator, check) -> None:
    check(estimator)


@pytest.mark.slow
@parametrize_with_checks(
    [
        SDPMClassifier(transformation=swell, C=10.0, segment=1.0, taylor_degree=3),
        SDPMClassifier(transformation=swell, kernel="rbf", gamma=0.1, segment=0.5),
        SDPMClassifier(transformation=swell, C=10.0, segment=1.0, solver="conic"),
    ],
    expected_failed_checks=_solver_tolerance_failures,
)
def test_sklearn_contract_degree3_kernel_conic(estimator, check) -> None:
    check(estimator)


@pytest.mark.parametrize("solver", ["native", "conic", "auto"])
def test_binary_fit_matches_builder_and_margins(solver: str) -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 4))
    y = np.where(X[:, 0] > 0, "b", "a")
    X[:, 0] += np.where(y == "b", 1.0, -1.0)
    clf = SDPMClassifier(transformation=swell, C=5.0, solver=solver).fit(X, y)
    traj = np.stack([X, 0.05 * np.ones_like(X), 0.1 * X], axis=1)
    y_pm = np.where(y == "b", 1.0, -1.0)
    ref = sdpm(traj, y_pm, C=5.0).solve(tol=1e-10)
    assert clf.objective_ == pytest.approx(ref.objective, rel=1e-7)
    np.testing.assert_allclose(clf.coef_[0], ref.model.extras["w"], atol=1e-5)
    np.testing.assert_allclose(clf.decision_function(X), ref.decision_function(X), atol=1e-5)
    assert set(clf.predict(X)) <= {"a", "b"}
    m = trajectory_margins(traj, y_pm, clf.coef_[0], clf.intercept_)
    xi = ref.model.extras["xi"]
    assert (m - (1 - xi)[:, None]).min() >= -1e-5
    assert len(clf.support_) == len(clf.theta_star_) == clf.dual_coef_.shape[0]
    assert clf.status_ == "optimal"
    if solver == "conic":
        assert clf.solver_ == "conic" and clf.backend_ == "clarabel"
        assert clf.certificate_["measure"] == "solver status"
    else:
        assert clf.solver_ == "native" and clf.backend_ is None
        cert = clf.certificate_
        assert cert["measure"] == "relative duality gap" and cert["value"] <= 1e-8
        assert cert["dual_objective"] <= cert["primal_objective"] == clf.objective_
        assert cert["max_violation"] == 0.0


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


@pytest.mark.parametrize("solver", ["native", "conic"])
def test_no_transformation_is_the_svm(solver: str) -> None:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(25, 3))
    y = (X[:, 0] + 0.2 * X[:, 1] > 0).astype(int)
    clf = SDPMClassifier(solver=solver, tol=1e-10).fit(X, y)  # the default C = 1.0, as SVC's
    svc = SVC(kernel="linear", tol=1e-12).fit(X, y)
    np.testing.assert_allclose(clf.coef_[0], svc.coef_[0], atol=1e-5)
    assert clf.intercept_ == pytest.approx(svc.intercept_[0], abs=1e-5)


def test_kernel_with_several_parameters() -> None:
    """kernel="rbf" with rotation and scaling (native): the decision function is the kernel
    expansion over the support trajectories' Taylor coefficients, and the conic route refuses it."""
    from sdpkern.trajectories import kernel_quadratic_gram

    d = load_digits()
    mask = np.isin(d.target, [1, 7])
    X, y = d.data[mask][:50] / 16.0, d.target[mask][:50]
    clf = SDPMClassifier(transformation=("rotation", "scaling"), kernel="rbf", gamma=0.05, C=10.0).fit(X, y)
    assert clf.solver_ == "native" and clf.status_ == "optimal" and clf.coef_ is None
    assert clf.dual_coef_.shape[1] == 6 and clf.theta_star_.shape[1] == 2
    Q = ImageTransformation(("rotation", "scaling"), (8, 8)).quadratic_form(X[clf.support_])
    by_hand = np.einsum("iqp,iq->p", kernel_quadratic_gram(Gaussian(gamma=0.05), Q, X), clf.dual_coef_) + clf.intercept_
    np.testing.assert_allclose(clf.decision_function(X), by_hand, atol=1e-10)
    assert clf.score(X, y) == 1.0


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
    """theta_star_ and virtual_support_vectors_ from the native answer (003 Prop. 3): θ* in the
    segment, the virtual vectors x̃_i(θ_i*), and w = Σ y_i α_i x̃_i(θ_i*) when they have rank one."""
    d = load_digits()
    mask = np.isin(d.target, [1, 9])
    X, y = d.data[mask][:40] / 16.0, d.target[mask][:40]
    T = ImageTransformation("rotation", (8, 8))
    tau = np.deg2rad(20)
    clf = SDPMClassifier(transformation=T, segment=tau, C=100.0).fit(X, y)
    th = clf.theta_star_
    assert clf.solver_ == "native" and th.size > 0 and np.all(np.abs(th) <= tau + 1e-9)
    traj = T.taylor(X[clf.support_], 2)
    expected = np.stack([traj[k, 0] + th[k] * traj[k, 1] + th[k] ** 2 * traj[k, 2] for k in range(len(th))])
    np.testing.assert_allclose(clf.virtual_support_vectors_, expected, atol=1e-12)
    # w = Σ y_i α_i x̃_i(θ_i*) over the rank-one support (Prop. 3), plus the Taylor rows of the
    # others (a trajectory touching its margin at two θ has a measure with two points)
    one = clf.rank_one_
    assert one.mean() >= 0.5
    w = clf.dual_coef_[one, 0] @ clf.virtual_support_vectors_[one]
    w = w + np.einsum("iu,iun->n", clf.dual_coef_[~one], traj[~one])
    assert np.abs(w - clf.coef_[0]).max() <= 1e-5 * np.abs(clf.coef_[0]).max()
    assert np.any(np.abs(th) > 1e-3)  # truly virtual: not the training images themselves


def test_auto_falls_back_to_conic_only_below_the_size_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    """solver="auto": an uncertified native answer (here cut at two iterations) is re-solved
    through CVXPY up to _CONIC_FALLBACK_MAX trajectories, and kept with a ConvergenceWarning above."""
    from sklearn.exceptions import ConvergenceWarning

    from sdpkern.estimators import sdpm as module

    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] > 0).astype(int)
    small = SDPMClassifier(transformation=swell, segment=0.5, max_iter=2).fit(X, y)
    assert small.solver_ == "conic" and small.status_ == "optimal" and small.backend_ == "clarabel"
    monkeypatch.setattr(module, "_CONIC_FALLBACK_MAX", 20)
    with pytest.warns(ConvergenceWarning, match="native solver stopped"):
        large = SDPMClassifier(transformation=swell, segment=0.5, max_iter=2).fit(X, y)
    assert large.solver_ == "native" and large.status_ == "iteration_limit"
    with pytest.warns(ConvergenceWarning):
        native = SDPMClassifier(transformation=swell, segment=0.5, max_iter=2, solver="native").fit(X, y)
    assert native.solver_ == "native" and native.certificate_["value"] > 1e-9


def test_one_vs_rest_attributes_and_statuses() -> None:
    d = load_digits()
    mask = np.isin(d.target, [0, 1, 7])
    X, y = d.data[mask][:60] / 16.0, d.target[mask][:60]
    clf = SDPMClassifier(transformation="rotation", segment=0.3).fit(X, y)
    assert clf.status_ == "optimal" and clf.statuses_ == ["optimal"] * 3 and clf.solver_ == "native"
    assert clf.objective_.shape == (3,) and len(clf.certificates_) == 3
    assert clf.backend_ is None
    for k, est in enumerate(clf.estimators_):
        np.testing.assert_allclose(clf.decision_function(X)[:, k], est.decision_function(X))


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"segment": 0.0}, "segment"),
        ({"segment": -0.5}, "segment"),
        ({"C": -1.0}, "C"),
        ({"taylor_degree": -1}, "taylor_degree"),
        ({"taylor_degree": 1.5}, "taylor_degree"),
        ({"taylor_degree": 3}, "taylor_degree=3 is odd"),
        ({"kernel": "poly", "degree": 0}, "degree"),
        ({"kernel": "sigmoid"}, "kernel"),
        ({"gamma": 0.0}, "gamma"),
        ({"solver": "smo"}, "solver"),
        ({"tol": 0.0}, "tol"),
        ({"max_iter": 0}, "max_iter"),
        ({"transformation": 3}, "transformation"),
        ({"transformation": "shear"}, "transformation"),
        ({"transformation": "rotation"}, "image_shape"),
        ({"transformation": ("rotation", "scaling"), "segment": 0.2, "image_shape": (1, 3)}, "003 §3"),
        ({"transformation": ("rotation", "scaling"), "kernel": "rbf", "image_shape": (1, 3), "solver": "conic"},
         "kernel='rbf' with several transformation parameters"),
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
    with pytest.raises(ParameterError, match="taylor_degree=1 is odd.*segment"):
        SDPMClassifier(transformation=swell, taylor_degree=1).fit(X, y)
    SDPMClassifier(transformation=swell, taylor_degree=1, segment=0.5).fit(X, y)


class _Broken:
    """A transformation object whose Taylor rows are of the wrong shape, or NaN."""

    def __init__(self, how: str) -> None:
        self.how = how

    def taylor(self, X: np.ndarray, degree: int) -> np.ndarray:
        rows = np.stack([X] * (degree + 1), axis=1)
        if self.how == "shape":
            return rows[:, :-1]
        rows[0, 1, 0] = np.nan
        return rows


def test_bad_transformations_are_typed_errors_naming_them() -> None:
    X = np.random.default_rng(0).normal(size=(10, 3))
    y = np.arange(10) % 2
    with pytest.raises(DataError, match=r"transformation.taylor\(X, 2\) returned shape \(10, 2, 3\)"):
        SDPMClassifier(transformation=_Broken("shape")).fit(X, y)
    with pytest.raises(DataError, match="transformation.taylor returned NaN"):
        SDPMClassifier(transformation=_Broken("nan")).fit(X, y)
    with pytest.raises(DataError, match="transformation returned NaN or infinity at theta"):
        SDPMClassifier(transformation=lambda t, X: X * (np.nan if t == 0 else 1.0), segment=0.5).fit(X, y)
    with pytest.raises(DataError, match="transformation returned shape"):
        SDPMClassifier(transformation=lambda t, X: X[:, :2], segment=0.5).fit(X, y)


@pytest.mark.parametrize("solver", ["native", "conic"])
def test_bad_labels_nan_and_infeasible(solver: str) -> None:
    X = np.random.default_rng(0).normal(size=(10, 3))
    with pytest.raises(LabelError, match="two classes"):
        SDPMClassifier(solver=solver).fit(X, np.zeros(10))
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SDPMClassifier(solver=solver).fit(bad, np.arange(10) % 2)
    with pytest.raises(InfeasibleError, match="soft margin C"):
        SDPMClassifier(transformation=swell, C=None, solver=solver).fit(X, np.arange(10) % 2)
