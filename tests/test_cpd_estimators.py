"""CPDSVC / ThinPlateSVC: scikit-learn contract, one-vs-rest, β = 0 selection, bad input."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.datasets import load_iris, make_blobs, make_moons
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from sdpkern.errors import LabelError, ParameterError
from sdpkern.estimators import CPDSVC, ThinPlateSVC
from sdpkern.kernels import Gaussian
from sdpkern.kernels.cpd import PowerDistance, ThinPlate

# Each expected failure needs its reason.
EXPECTED_FAILED: dict[str, str] = {}
# The check fits n = 15 points in d = 30: the affine 𝒫 (dim 31) interpolates them, so eq. (14)'s
# minimiser is not unique (000 §6.2: α = 0 and any interpolating p, objective 0 for both fits).
# The weighted and the repeated fits agree on every point of positive weight (to 1e-14) and reach
# the same objective 0, but the interpolant chosen (least squares in the factor's centred, scaled
# basis, which depends on the data) differs at the points of weight 0. With a 𝒫 that does not
# interpolate (PowerDistance(1): the constants) the check passes.
INTERPOLATING = {
    "check_sample_weight_equivalence_on_dense_data": "d = 30 > n = 15: 𝒫 interpolates, the minimiser is not unique"
}


@parametrize_with_checks(
    [CPDSVC(), ThinPlateSVC(), CPDSVC(kernel=PowerDistance(1.0), beta_zero=False)],
    expected_failed_checks=lambda est: EXPECTED_FAILED if isinstance(getattr(est, "kernel", None), PowerDistance)
    else INTERPOLATING,
)
def test_sklearn_contract(estimator, check):
    check(estimator)


def test_moons_and_native_equals_cvxpy():
    X, y = make_moons(80, noise=0.2, random_state=0)
    nat = ThinPlateSVC(C=50.0, beta_zero=False).fit(X, y)
    cvx = ThinPlateSVC(C=50.0, beta_zero=False, solver="cvxpy").fit(X, y)
    assert nat.score(X, y) > 0.9
    assert abs(nat.objective_ - cvx.objective_) <= 1e-6 * cvx.objective_
    Xt = np.random.default_rng(0).normal(size=(20, 2))
    np.testing.assert_allclose(nat.decision_function(Xt), cvx.decision_function(Xt), atol=1e-4)


def test_beta_zero_auto_follows_linear_separability():
    Xs, ys = make_blobs(60, centers=[[-3, 0], [3, 0]], cluster_std=0.5, random_state=0)
    clf = ThinPlateSVC(C=5.0).fit(Xs, ys)
    assert clf.beta_zero_ is True and np.all(clf.beta_ == 0)  # separable: §6.2 variant (000 §7)
    Xm, ym = make_moons(60, noise=0.2, random_state=1)
    clf2 = ThinPlateSVC(C=5.0).fit(Xm, ym)
    assert clf2.beta_zero_ is False and np.any(clf2.beta_ != 0)
    # forced values are respected
    assert ThinPlateSVC(C=5.0, beta_zero=False).fit(Xs, ys).beta_zero_ is False
    # p.d. kernel: nothing to separate with, β = 0 is never chosen
    assert CPDSVC(kernel=Gaussian(1.0)).fit(Xs, ys).beta_zero_ is False


def test_one_vs_rest_on_iris():
    X, y = load_iris(return_X_y=True)
    clf = make_pipeline(StandardScaler(), ThinPlateSVC(C=50.0))
    scores = cross_val_score(clf, X, y, cv=3)
    assert scores.mean() > 0.9
    est = ThinPlateSVC(C=50.0).fit(X, y)
    assert est.decision_function(X).shape == (150, 3)
    assert est.alpha_.shape == (3, 150) and est.beta_.shape == (3, 5)
    # each column is the binary model "class c vs rest"
    bin0 = ThinPlateSVC(C=50.0, beta_zero=bool(est.beta_zero_[0])).fit(X, (y == 0).astype(int))
    np.testing.assert_allclose(est.decision_function(X)[:, 0], bin0.decision_function(X), atol=1e-8)


def test_any_two_labels_pickle_and_gridsearch():
    X, y = make_moons(60, noise=0.2, random_state=2)
    labels = np.array(["no", "yes"])[y]
    clf = ThinPlateSVC(C=50.0).fit(X, labels)
    assert set(clf.predict(X)) <= {"no", "yes"}
    clf2 = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(clf2.decision_function(X), clf.decision_function(X))
    gs = GridSearchCV(ThinPlateSVC(), {"C": [5.0, 500.0]}, cv=3).fit(X, labels)
    assert gs.best_params_["C"] in (5.0, 500.0)


def test_strict_thin_plate_in_high_dimension_is_refused():
    X = np.random.default_rng(0).normal(size=(20, 5))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ParameterError, match="order=2"):
        ThinPlateSVC(formula_dimension=None).fit(X, y)
    ThinPlateSVC(order=3, formula_dimension=None, beta_zero=False).fit(X, y)  # 2m = 6 > 5: fine
    with pytest.raises(ParameterError, match="ThinPlate: order"):
        CPDSVC(kernel=ThinPlate(0)).fit(X, y)


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"C": 0.0}, "C"),
        ({"C": -1}, "C"),
        ({"lam": -1}, "lam"),
        ({"solver": "mosek"}, "solver"),
        ({"beta_zero": "maybe"}, "beta_zero"),
        ({"update": "x"}, "update"),
        ({"max_iter": 0}, "max_iter"),
        ({"kernel": "rbf"}, "kernel"),
    ],
)
def test_bad_parameters(params, match):
    X, y = make_moons(20, random_state=0)
    with pytest.raises(ParameterError, match=match):
        CPDSVC(**params).fit(X, y)


def test_lam_is_deprecated_for_C():
    """000's λ still works for one release: a FutureWarning, and the model of C = 1/(2λ)."""
    X, y = make_moons(40, noise=0.2, random_state=0)
    with pytest.warns(FutureWarning, match="'lam' is deprecated.*use 'C'"):
        old = ThinPlateSVC(lam=0.1, beta_zero=False).fit(X, y)
    new = ThinPlateSVC(C=5.0, beta_zero=False).fit(X, y)
    np.testing.assert_allclose(old.decision_function(X), new.decision_function(X), rtol=1e-12, atol=1e-12)
    with pytest.warns(FutureWarning, match="converged_ is deprecated"):
        assert new.converged_ is (new.status_ == "optimal")


def test_fitted_attributes_follow_the_conventions():
    """f = Σ c_i φ(‖x_i − x‖/s) + basis(x/s)·β, with β's constant as intercept_; c = α on support_,
    s = scale_ (√(d Var X) with scale="auto")."""
    X, y = make_moons(50, noise=0.2, random_state=4)
    clf = ThinPlateSVC(C=5.0, beta_zero=False).fit(X, y)
    assert clf.status_ == "optimal" and clf.certificate_["measure"] == "stationarity"
    assert clf.certificate_["value"] < 1e-8 and clf.solver_ in ("dual", "reduced")
    assert clf.intercept_ == clf.beta_[0] and clf.backend_ is None
    assert clf.scale_ == pytest.approx(np.sqrt(2 * X.var()))
    Xt = np.random.default_rng(5).normal(size=(7, 2))
    s = clf.scale_
    r = np.linalg.norm(Xt[:, None, :] - X[clf.support_][None], axis=2) / s  # r² log r by hand (000 eq. 11)
    with np.errstate(divide="ignore", invalid="ignore"):
        phi = np.where(r > 0, r**2 * np.log(r), 0.0)
    poly = clf.factor_.basis(Xt)  # (factor_ takes the raw inputs)
    np.testing.assert_allclose(clf.decision_function(Xt), phi @ clf.dual_coef_ + poly @ clf.beta_, atol=1e-8)
    assert poly[:, 0] == pytest.approx(1.0)  # the constant monomial comes first


def test_one_class_and_nan():
    X, _ = make_moons(20, random_state=0)
    with pytest.raises(LabelError, match="1 class"):
        ThinPlateSVC().fit(X, np.zeros(20))
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        ThinPlateSVC().fit(Xn, np.r_[np.zeros(10), np.ones(10)])


def test_duplicate_points_and_few_points():
    X, y = make_moons(30, noise=0.1, random_state=3)
    X2, y2 = np.vstack([X, X]), np.r_[y, y]
    a = ThinPlateSVC(C=5.0, beta_zero=False).fit(X, y)
    b = ThinPlateSVC(C=5.0, beta_zero=False).fit(X2, y2)
    assert np.all(np.isfinite(b.decision_function(X)))
    assert b.score(X, y) >= a.score(X, y) - 0.1
    # fewer points than dim π_2(R²) = 6
    c = ThinPlateSVC(order=3, formula_dimension=None, C=5.0).fit(X[:4], np.array([0, 1, 0, 1]))
    np.testing.assert_array_equal(c.predict(X[:4]), [0, 1, 0, 1])


@pytest.mark.parametrize("separable", [True, False])
def test_polynomially_separable_subset_route_agrees_with_full_lp(separable):
    # above 2 max(100, 5 dim P) points a subset is tried first; the answer must be the full LP's
    from sdpkern.kernels.cpd import polynomial_factor
    from sdpkern.native.cpd.workspace import _separable_lp, polynomially_separable

    rng = np.random.default_rng(3)
    n = 1300
    X = rng.uniform(-1, 1, size=(n, 2))
    score = X[:, 0] + 0.5 * X[:, 1]
    if separable:  # a gap around the line, one point of each class right at it
        X = X[np.abs(score) > 0.05]
        score = X[:, 0] + 0.5 * X[:, 1]
    y = np.where(score > 0, 1.0, -1.0)
    if not separable:  # one point on the wrong side: the subset has to catch it
        y[np.argmax(score)] = -1.0
    P = polynomial_factor(X, ThinPlate(2)).P
    assert P.shape[0] > 2 * 100
    assert polynomially_separable(P, y) is separable
    assert _separable_lp(P, y) is separable


def test_polynomially_separable_least_distance_separator_certifies(monkeypatch):
    # twonorm, 320 points: the least-squares fit misclassifies a few points, the least-distance
    # separator (one NNLS) separates them all, so no LP runs; same answer as the LP
    import sdpkern.native.cpd.workspace as cpd
    from sdpkern.datasets import load_keel
    from sdpkern.kernels.cpd import polynomial_factor

    ds = load_keel("twonorm")
    idx = np.random.default_rng(0).permutation(ds.y.shape[0])[:320]
    X = StandardScaler().fit_transform(ds.X[idx])
    y = ds.y[idx]
    P = polynomial_factor(X, ThinPlate(2, formula_dimension=2)).P
    sizes: list[int] = []
    lp = cpd._separating_lp
    monkeypatch.setattr(cpd, "_separating_lp", lambda P, y: sizes.append(P.shape[0]) or lp(P, y))
    assert cpd.polynomially_separable(P, y) is True
    assert sizes == []
    assert lp(P, y) is not None


def test_beta_free_fit_on_least_squares_separable_data_is_the_exact_zero_minimum():
    # 𝒫 separates by its least-squares fit: eq. (14)'s minimum is 0, attained by α = 0 and that
    # (scaled) polynomial; the Newton route and CVXPY reach the same optimum value 0
    Xs, ys = make_blobs(60, centers=[[-3, 0], [3, 0]], cluster_std=0.5, random_state=0)
    clf = ThinPlateSVC(C=5.0, beta_zero=False).fit(Xs, ys)
    y_pm = np.where(ys == clf.classes_[1], 1.0, -1.0)
    assert clf.beta_zero_ is False and clf.status_ == "optimal" and clf.objective_ == 0.0
    assert np.all(clf.alpha_ == 0) and np.all(y_pm * clf.decision_function(Xs) >= 1.0 - 1e-9)
    newton = ThinPlateSVC(C=5.0, beta_zero=False, solver="native").fit(Xs, ys)
    cvx = ThinPlateSVC(C=5.0, beta_zero=False, solver="cvxpy").fit(Xs, ys)
    assert newton.objective_ <= 1e-8 and cvx.objective_ <= 1e-6
    assert np.all(y_pm * newton.decision_function(Xs) >= 1.0 - 1e-6)


@pytest.mark.parametrize("solver", ["dual", "reduced"])
def test_beta_zero_auto_inseparable_proven_by_the_fit_without_lp(monkeypatch, solver):
    # clearly inseparable data: the fit's slacks are Farkas' certificate (Pᵀ(y∘ξ) = 0, ξ ≥ 0,
    # ξ ≠ 0), so no LP runs; the model is the LP route's
    import sdpkern.native.cpd.workspace as cpd

    Xm, ym = make_moons(120, noise=0.2, random_state=1)
    ref = ThinPlateSVC(C=5.0, beta_zero=False, solver=solver).fit(Xm, ym)
    calls: list[int] = []
    lp = cpd._separating_lp
    monkeypatch.setattr(cpd, "_separating_lp", lambda P, y: calls.append(1) or lp(P, y))
    clf = ThinPlateSVC(C=5.0, solver=solver).fit(Xm, ym)
    assert clf.beta_zero_ is False and not calls
    assert abs(clf.objective_ - ref.objective_) <= 1e-12 * ref.objective_
    # and the certificate really is one: the LP agrees
    assert cpd.polynomially_separable(clf.factor_.P, np.where(ym == 1, 1.0, -1.0)) is False


def _separability_draw(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """150 points in R⁴ labelled by a hyperplane: separable by 𝒫 for even seeds, 10 labels flipped
    (inseparable) for odd ones."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(150, 4))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1.0, -1.0)
    if seed % 2:
        y[rng.choice(150, 10, replace=False)] *= -1.0
    return X, y


@pytest.mark.parametrize("seed", range(6))
def test_least_distance_proves_either_answer_as_the_lp_does(seed):
    # the NNLS of the least-distance problem returns a separator (separable) or Farkas'
    # certificate u ≥ 0, Gᵀu = 0, Σu = 1 (inseparable); each agrees with the LP
    import sdpkern.native.cpd.workspace as cpd
    from sdpkern.kernels.cpd import polynomial_factor

    X, y = _separability_draw(seed)
    P = polynomial_factor(X, ThinPlate(2, formula_dimension=2)).P
    sep, inseparable = cpd._least_distance(P, y)
    separable = cpd._separating_lp(P, y) is not None
    assert separable is (seed % 2 == 0)
    if separable:
        assert sep is not None and not inseparable and np.all(y * (P @ sep) >= 1.0 - 1e-9)
    else:
        assert sep is None and inseparable


@pytest.mark.parametrize("seed", range(6))
def test_the_polynomials_squared_hinge_fit_proves_inseparability_as_the_lp_does(seed):
    # the slacks of the squared-hinge fit of y by 𝒫 alone are Farkas' certificate where 𝒫 cannot
    # separate (second route: HiGHS's LP on every point); where it can, no certificate comes out
    # (the fit is undetermined, or its slacks do not cancel) and the least-distance test decides
    import sdpkern.native.cpd.workspace as cpd
    from sdpkern.native.dual_svm import unpenalized_hinge_fit

    X, y = _separability_draw(seed)
    Q = cpd.CPDWorkspace(ThinPlate(2, formula_dimension=2), X).factor.Q
    fit = unpenalized_hinge_fit(Q, y, np.ones(150))
    proved = fit is not None and cpd._hinge_proves_inseparable(Q, y, None, fit)
    assert proved is (cpd._separating_lp(Q, y) is None) is bool(seed % 2)
    if proved:
        assert fit is not None
        u = np.maximum(0.0, 1.0 - y * fit)
        assert u.sum() > 1.0 and np.abs(Q.T @ (y * u)).max() <= 1e-12 * u.sum()  # 1e-15 measured


@pytest.mark.parametrize("name", ["wdbc", "pima"])
def test_an_inseparable_fit_skips_the_least_distance_test_and_reaches_the_same_optimum(name, monkeypatch):
    # wdbc and pima as the loader gives them: the hinge fit the dual starts from proves that 𝒫
    # cannot separate, so the least-distance NNLS never runs; the optimum is the reduced Newton
    # route's (a second route) and the dual's that computes its own start (1e-9)
    import sdpkern.native.cpd.workspace as cpd
    from sdpkern.datasets import load_keel

    ds = load_keel(name)
    calls: list[int] = []
    find = cpd._find_separator
    monkeypatch.setattr(cpd, "_find_separator", lambda *a: calls.append(1) or find(*a))
    fit = ThinPlateSVC().fit(ds.X, ds.y)
    assert calls == [] and fit.solver_ == "dual" and fit.status_ == "optimal" and not fit.beta_zero_
    newton = ThinPlateSVC(solver="reduced", beta_zero=False).fit(ds.X, ds.y)
    assert abs(fit.objective_ - newton.objective_) <= 1e-9 * newton.objective_
    ws = cpd.CPDWorkspace(ThinPlate(2, formula_dimension=2), ds.X / fit.scale_)
    y = np.where(ds.y == fit.classes_[1], 1.0, -1.0)
    own = cpd.cpd_dual_svm(ws.reduced, ws.factor.Q, y, 1.0, polish="auto")  # no fit handed over
    assert abs(own.objective - fit.objective_) <= 1e-9 * fit.objective_


def test_separable_data_where_least_squares_fails_take_the_least_distance_separator(monkeypatch):
    # wdbc, 400 points: linearly separable, but the least-squares fit misclassifies 3.8 % of
    # them: the least-distance separator proves separability (no LP) and the β = 0 variant is
    # fitted, no β-free fit
    import sdpkern.native.cpd.workspace as cpd
    from sdpkern.datasets import load_keel
    from sdpkern.kernels.cpd import polynomial_factor

    ds = load_keel("wdbc")
    idx = np.random.default_rng(0).permutation(ds.y.shape[0])[:400]
    X = StandardScaler().fit_transform(ds.X[idx])
    y = np.where(ds.y[idx] == np.unique(ds.y)[1], 1.0, -1.0)
    Q = polynomial_factor(X, ThinPlate(2, formula_dimension=2)).Q
    assert cpd._least_squares_separator(Q, y) is None
    free: list[int] = []
    free_fit, lp = cpd._free_fit, cpd._separating_lp
    monkeypatch.setattr(cpd, "_free_fit", lambda *a: free.append(1) or free_fit(*a))
    monkeypatch.setattr(cpd, "_separating_lp", lambda *a: free.append(2) or lp(*a))
    clf = ThinPlateSVC(C=1.0, scale=1.0).fit(X, y)
    assert clf.beta_zero_ is True and clf.solver_ == "beta_zero" and free == []


def _twonorm(n):
    from sdpkern.datasets import load_keel

    ds = load_keel("twonorm")
    idx = np.random.default_rng(0).permutation(ds.y.shape[0])[:n]
    return StandardScaler().fit_transform(ds.X[idx]), np.where(ds.y[idx] == np.unique(ds.y)[1], 1.0, -1.0)


@pytest.mark.parametrize("weighted", [False, True])
def test_proven_inseparable_skips_the_zero_loss_search_same_model(monkeypatch, weighted):
    # twonorm, 1000 points: the least-squares fit misclassifies 1.4 %; the separability test
    # decides β = 0 first and answers "inseparable", and the β-free fit then skips
    # _zero_loss_separator (its NNLS could only fail). The model is the one of beta_zero=False,
    # which runs that search (and finds nothing), to 1e-12 of the objective.
    import sdpkern.native.cpd.workspace as cpd

    X, y = _twonorm(1000)
    w = None
    if weighted:  # weight 0 on a tenth of the points: the LP and the search see the others only
        w = np.where(np.arange(y.shape[0]) % 10 == 0, 0.0, 1.0 + (np.arange(y.shape[0]) % 3))
    ref = ThinPlateSVC(C=5.0, beta_zero=False).fit(X, y, sample_weight=w)
    m = slice(None) if w is None else w > 0
    factor = ref.factor_
    assert cpd.polynomially_separable(factor.P[m], y[m]) is False
    assert cpd._zero_loss_separator(factor, y, w) is None  # the decision the skip relies on
    searched: list[int] = []
    zls = cpd._zero_loss_separator
    monkeypatch.setattr(cpd, "_zero_loss_separator", lambda *a: searched.append(1) or zls(*a))
    clf = ThinPlateSVC(C=5.0).fit(X, y, sample_weight=w)
    assert clf.beta_zero_ is False and clf.status_ == "optimal" and searched == []
    assert abs(clf.objective_ - ref.objective_) <= 1e-12 * ref.objective_
    assert np.allclose(clf.alpha_, ref.alpha_, rtol=0, atol=1e-9 * np.abs(ref.alpha_).max())


@pytest.mark.parametrize("seed", range(12))
def test_zero_loss_search_never_separates_what_the_lp_calls_inseparable(seed):
    # the implication the skip above rests on, on constructed data at the edge: classes split by
    # a line with a gap of 0 to 1e-3; as is (separable: both must find it), with the point nearest
    # the line relabelled (still separable by a turned line), or with a negative point added at
    # the midpoint of the two positive points nearest the line (inseparable by a hair: it lies in
    # their convex hull) or deep in the positive class
    import sdpkern.native.cpd.workspace as cpd
    from sdpkern.kernels.cpd import polynomial_factor

    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(400, 2))
    score = X[:, 0] - 0.3 * X[:, 1]
    X = X[np.abs(score) > [0.0, 1e-6, 1e-3][seed % 3]]
    score = X[:, 0] - 0.3 * X[:, 1]
    y = np.where(score > 0, 1.0, -1.0)
    case = seed // 3
    if case == 1:
        y[np.argmin(np.abs(score))] *= -1.0
    elif case == 2:
        pos = np.flatnonzero(y > 0)
        a, b = pos[np.argsort(score[pos])[:2]]
        X, y = np.vstack([X, 0.5 * (X[a] + X[b])]), np.append(y, -1.0)
    elif case == 3:
        y[np.argmax(score)] = -1.0
    factor = polynomial_factor(X, ThinPlate(2))
    separable = cpd.polynomially_separable(factor.P, y)
    found = cpd._zero_loss_separator(factor, y, None)
    assert separable is (case < 2)
    if not separable:
        assert found is None
    else:
        assert found is not None and np.all(y * found[1] >= 1.0)


def test_beta_free_fit_on_lp_separable_data_is_the_lp_separator():
    # wdbc, 400 points, beta_zero=False: separable but not by least squares; the LP's separator
    # (α = 0) attains eq. (14)'s minimum 0
    from sdpkern.datasets import load_keel

    ds = load_keel("wdbc")
    idx = np.random.default_rng(0).permutation(ds.y.shape[0])[:400]
    X = StandardScaler().fit_transform(ds.X[idx])
    y = np.where(ds.y[idx] == np.unique(ds.y)[1], 1.0, -1.0)
    clf = ThinPlateSVC(C=1.0, beta_zero=False).fit(X, y)
    assert clf.status_ == "optimal" and np.all(clf.alpha_ == 0) and clf.objective_ <= 1e-12
    # eq. (14) is λαᵀΦα + Σ ξ² ≥ 0: α = 0 with every margin ≥ 1 is a minimiser, whatever route
    # (the reduced Newton route needs over 50 steps here and stops at 3e-8)
    assert np.all(y * clf.decision_function(X) >= 1.0 - 1e-9)


def test_separator_memory_is_keyed_by_the_data(monkeypatch):
    # a workspace remembers the separability answer per (y, w): a grid search asks once per fold
    import sdpkern.native.cpd.workspace as cpd

    Xm, ym = make_moons(300, noise=0.1, random_state=2)
    ws = cpd.CPDWorkspace(ThinPlate(2), Xm)
    P = ws.factor.P
    y = np.where(ym == 1, 1.0, -1.0)
    ys = np.where(Xm[:, 0] > 0.5, 1.0, -1.0)  # separable by x_0 = 0.5
    calls: list[int] = []
    find = cpd._find_separator
    monkeypatch.setattr(cpd, "_find_separator", lambda *a: calls.append(1) or find(*a))
    assert ws.separator(y) is None
    n_lp = len(calls)
    assert n_lp == 1 and ws.separator(y) is None and len(calls) == n_lp  # remembered
    beta = ws.separator(ys)  # other labels: computed afresh
    assert beta is not None and np.all(ys * (P @ beta) >= 1.0 - 1e-9)
    beta[:] = 0.0  # the caller's copy: the memory is not changed
    assert np.all(ys * (P @ ws.separator(ys)) >= 1.0 - 1e-9)
    # a new workspace on the same points knows nothing: nothing is carried between fits
    fresh = cpd.CPDWorkspace(ThinPlate(2), Xm)
    assert fresh.separator(y) is None and len(calls) > n_lp


# ----------------------------------------------------------------------------- sample weights
def _weighted_moons(n=90, seed=0):
    X, y = make_moons(n, noise=0.25, random_state=seed)
    w = np.random.default_rng(seed).uniform(0.2, 3.0, n)
    w[:5] = 0.0  # points of weight 0 do not count
    return X, y, w


@pytest.mark.parametrize("solver", ["dual", "reduced", "auto"])
def test_sample_weight_matches_the_weighted_cvxpy_builder(solver):
    # eq. (14) with loss Σ w_i ξ_i²: each native route against the CVXPY builder's weighted problem
    X, y, w = _weighted_moons()
    cvx = ThinPlateSVC(C=20.0, beta_zero=False, solver="cvxpy").fit(X, y, sample_weight=w)
    nat = ThinPlateSVC(C=20.0, beta_zero=False, solver=solver).fit(X, y, sample_weight=w)
    assert nat.status_ == "optimal"
    assert abs(nat.objective_ - cvx.objective_) <= 1e-6 * cvx.objective_
    unweighted = ThinPlateSVC(C=20.0, beta_zero=False, solver=solver).fit(X, y)
    assert abs(unweighted.objective_ - nat.objective_) > 1e-3 * nat.objective_  # the weights matter
    Xt = np.random.default_rng(1).normal(size=(15, 2))
    np.testing.assert_allclose(nat.decision_function(Xt), cvx.decision_function(Xt), atol=1e-4)
    # weight 0: α_i = 2C w_i y_i ξ_i = 0 (to the round-off of α = Tγ)
    assert np.abs(nat.alpha_[:5]).max() <= 1e-8 * np.abs(nat.alpha_).max()


def test_sample_weight_beta_zero_matches_the_weighted_cvxpy_builder():
    Xs, ys = make_blobs(60, centers=[[-2, 0], [2, 0]], cluster_std=0.7, random_state=0)
    w = np.random.default_rng(2).uniform(0.2, 3.0, 60)
    nat = ThinPlateSVC(C=5.0, beta_zero=True).fit(Xs, ys, sample_weight=w)
    cvx = ThinPlateSVC(C=5.0, beta_zero=True, solver="cvxpy").fit(Xs, ys, sample_weight=w)
    assert nat.beta_zero_ is True and nat.status_ == "optimal"
    assert abs(nat.objective_ - cvx.objective_) <= 1e-6 * cvx.objective_
    auto = ThinPlateSVC(C=5.0).fit(Xs, ys, sample_weight=w)  # separable: β = 0 chosen
    assert auto.beta_zero_ is True and abs(auto.objective_ - nat.objective_) <= 1e-12 * nat.objective_


@pytest.mark.parametrize("solver", ["dual", "reduced"])
def test_integer_sample_weight_is_repeated_points(solver):
    X, y = make_moons(70, noise=0.25, random_state=3)
    w = np.random.default_rng(3).integers(1, 4, 70)
    keep = np.repeat(np.arange(70), w)
    weighted = ThinPlateSVC(C=10.0, beta_zero=False, solver=solver).fit(X, y, sample_weight=w)
    repeated = ThinPlateSVC(C=10.0, beta_zero=False, solver=solver).fit(X[keep], y[keep])
    assert abs(weighted.objective_ - repeated.objective_) <= 1e-6 * repeated.objective_
    Xt = np.random.default_rng(4).normal(size=(15, 2))
    np.testing.assert_allclose(weighted.decision_function(Xt), repeated.decision_function(Xt), atol=1e-5)


def test_class_weight_is_sample_weight_by_class_and_native_refuses_weights():
    X, y = make_moons(80, noise=0.25, random_state=5)
    y = np.where(np.arange(80) < 60, y, 1)  # unbalanced
    counts = {c: np.sum(y == c) for c in np.unique(y)}
    by_hand = np.array([80 / (2 * counts[c]) for c in y])
    bal = ThinPlateSVC(C=10.0, class_weight="balanced").fit(X, y)
    hand = ThinPlateSVC(C=10.0).fit(X, y, sample_weight=by_hand)
    assert abs(bal.objective_ - hand.objective_) <= 1e-12 * hand.objective_
    d = ThinPlateSVC(C=10.0, class_weight={0: 2.0, 1: 0.5}).fit(X, y)
    d2 = ThinPlateSVC(C=10.0).fit(X, y, sample_weight=np.where(y == 0, 2.0, 0.5))
    np.testing.assert_allclose(d.decision_function(X), d2.decision_function(X), atol=1e-8)
    with pytest.raises(ParameterError, match="sample_weight"):
        ThinPlateSVC(C=10.0, beta_zero=False, solver="native").fit(X, y, sample_weight=by_hand)
    with pytest.raises(ParameterError, match="class_weight"):
        ThinPlateSVC(class_weight="nope").fit(X, y)


@pytest.mark.parametrize("weighted", [False, True])
def test_min_norm_separator_matches_the_qp(weighted):
    # the least-distance separator (NNLS) against the QP min Σ w (Qb)² s.t. y∘(Qb) ≥ 1 by Clarabel
    import cvxpy as cp

    from sdpkern.kernels.cpd import polynomial_factor
    from sdpkern.native.cpd.workspace import _min_norm_separator

    rng = np.random.default_rng(7)
    X = rng.normal(size=(150, 4))
    y = np.where(X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.3 > 0, 1.0, -1.0)
    Q = polynomial_factor(X, ThinPlate(2, formula_dimension=2)).Q
    w = rng.uniform(0.2, 3.0, 150) if weighted else None
    b = _min_norm_separator(Q, y, w)
    assert b is not None and np.all(y * (Q @ b) >= 1.0 - 1e-9)
    bv = cp.Variable(Q.shape[1])
    ww = np.ones(150) if w is None else w
    prob = cp.Problem(cp.Minimize(cp.sum_squares(cp.multiply(np.sqrt(ww), Q @ bv))), [cp.multiply(y, Q @ bv) >= 1])
    prob.solve(solver="CLARABEL")
    ours = float(ww @ (Q @ b) ** 2)
    assert abs(ours - prob.value) <= 1e-6 * prob.value
    # inseparable: none found
    y2 = y.copy()
    y2[:10] = -y2[:10]
    assert _min_norm_separator(Q, y2, w) is None


def test_reduced_newton_settles_on_the_german_fold_with_mixed_column_roundings():
    # a grid-search fold of german (320 points, d = 20, dim 𝒫 = 21, C = 50) where the reduced
    # Newton route stopped at max_iter when some kernel columns came from a BLAS batch and others
    # from the column loop (rounded differently); every column now comes from the one loop
    from sklearn.model_selection import StratifiedKFold

    from sdpkern.datasets import load_keel

    ds = load_keel("german")
    idx = np.random.default_rng(103).permutation(ds.y.shape[0])[:400]
    X = StandardScaler().fit_transform(ds.X[idx])
    y = ds.y[idx]
    a = list(StratifiedKFold(5, shuffle=True, random_state=3).split(X, y))[1][0]
    red = ThinPlateSVC(C=50.0, beta_zero=False, solver="reduced").fit(X[a], y[a])
    dual = ThinPlateSVC(C=50.0, beta_zero=False, solver="dual").fit(X[a], y[a])
    assert red.status_ == "optimal" and dual.status_ == "optimal"
    assert abs(red.objective_ - dual.objective_) <= 1e-6 * dual.objective_




def test_threads_of_the_smo_passes_give_the_same_model_bits():
    # 5000 points: above the 4096 variables from which the passes split over a second thread
    X, y = _twonorm(5000)
    models = [ThinPlateSVC(n_jobs=j).fit(X, y) for j in (1, 2, None)]
    assert all(m.solver_ == "dual" for m in models)
    for m in models[1:]:
        assert m.objective_ == models[0].objective_ and m.n_iter_ == models[0].n_iter_
        assert np.array_equal(m.alpha_, models[0].alpha_) and np.array_equal(m.beta_, models[0].beta_)


def test_n_jobs_none_takes_two_cores_or_omp_num_threads(monkeypatch):
    import os

    from sdpkern._validation import pass_threads
    from sdpkern.errors import ParameterError

    cores = len(os.sched_getaffinity(0))
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert pass_threads(None) == min(2, cores)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # a joblib worker's share of the cores
    assert pass_threads(None) == 1 and pass_threads(1) == 1
    assert pass_threads(-1) == cores
    with pytest.raises(ParameterError, match="n_jobs"):
        pass_threads(0)
    with pytest.raises(ParameterError, match="n_jobs"):
        ThinPlateSVC(n_jobs=0).fit(*_twonorm(50))


@pytest.mark.parametrize("name,n", [("splice", 1200), ("twonorm", 1500)])
def test_kernel_columns_split_over_two_threads_have_the_same_bits(name, n):
    # columns of n (d + 2k) numbers worth the hand-over (d = 60 and 20): their rows [h, n) on the
    # SMO's second thread, below the 4096 points from which the passes split too
    import sdpkern.native.cpd.workspace as cpd
    from sdpkern.datasets import load_keel

    ds = load_keel(name)
    idx = np.random.default_rng(1).permutation(ds.y.shape[0])[:n]
    X = StandardScaler().fit_transform(ds.X[idx])
    y = np.where(ds.y[idx] == np.unique(ds.y)[1], 1.0, -1.0)
    ws = cpd.CPDWorkspace(ThinPlate(2, formula_dimension=2), X / np.sqrt(X.shape[1]))
    one, two = (cpd.cpd_dual_svm(cpd.CPDWorkspace(ws.kernel, ws.X).reduced, ws.factor.Q, y, 1.0, polish="auto",
                                 n_jobs=j) for j in (1, 2))  # fmt: skip
    assert one.dual.certificate["columns_split"] == 0.0
    assert two.dual.certificate["columns_split"] >= 0.5 * two.dual.certificate["columns"] > 0
    assert one.n_iter == two.n_iter and one.objective == two.objective
    assert np.array_equal(one.alpha, two.alpha) and np.array_equal(one.beta_bar, two.beta_bar)


def test_multipliers_started_at_the_polynomials_own_fit_reach_the_same_optimum_in_fewer_steps(monkeypatch):
    # wdbc as the loader gives it (31 polynomials; the dual has α > 0 on 34 points): with z = 0
    # SMO's first round spread α over 421 points and the fit took 434 SMO steps; from the
    # polynomials' own fit, 33. The optimum is the reduced Newton route's (a second route)
    import importlib

    from sdpkern.datasets import load_keel

    dual = importlib.import_module("sdpkern.native.dual_svm")  # (the package exports a function of that name)
    ds = load_keel("wdbc")
    X, y = ds.X, ds.y
    fit = ThinPlateSVC().fit(X, y)
    monkeypatch.setattr(dual, "_start_multipliers", lambda *a: None)
    cold = ThinPlateSVC().fit(X, y)
    newton = ThinPlateSVC(solver="reduced").fit(X, y)
    assert fit.solver_ == cold.solver_ == "dual" and fit.status_ == "optimal"
    assert fit.n_iter_ < 100 < cold.n_iter_
    assert abs(fit.objective_ - newton.objective_) <= 1e-9 * newton.objective_
    assert abs(cold.objective_ - newton.objective_) <= 1e-9 * newton.objective_


def test_a_closing_newton_system_far_from_the_optimum_hands_over_to_the_primal_newton_method(monkeypatch):
    # ionosphere as the loader gives it (d = 34, 35 polynomials): SMO's loose support is far from
    # the optimum's, and the closing system swung between pinning and entering points for five
    # rounds (32 Newton systems) before the primal Newton method finished; a round that moves
    # more than a tenth of its set now hands over at once (14 systems). The optimum is the reduced
    # Newton route's (a second route), and the sets where SMO's support is nearly right keep the
    # closing system (pima: 3 systems, no hand-over)
    import importlib

    import sdpkern.native.primal_svm as primal
    from sdpkern.datasets import load_keel

    dual = importlib.import_module("sdpkern.native.dual_svm")
    systems: list[int] = []
    point = primal._SupportFactor.newton_point
    monkeypatch.setattr(primal._SupportFactor, "newton_point", lambda self, sv: systems.append(1) or point(self, sv))
    finish = dual._newton_finish
    finished: list[bool] = []
    monkeypatch.setattr(dual, "_newton_finish", lambda *a: finished.append(True) or finish(*a))
    for name, most, handed in (("ionosphere", 16, True), ("pima", 3, False)):
        ds = load_keel(name)
        systems.clear()
        finished.clear()
        fit = ThinPlateSVC().fit(ds.X, ds.y)
        assert fit.solver_ == "dual" and fit.status_ == "optimal"
        assert len(systems) <= most and bool(finished) is handed
        newton = ThinPlateSVC(solver="reduced", beta_zero=False).fit(ds.X, ds.y)
        assert abs(fit.objective_ - newton.objective_) <= 1e-9 * newton.objective_


def test_newton_finish_priced_with_the_kernel_columns_smo_computed():
    # splice (d = 60, 61 polynomials): a column reads n(d + 2k + 16) = 632,000 numbers. Priced by
    # steps and points alone, the closing Newton system waited 8277 SMO steps after the loose
    # round (12,679 in all); with the columns SMO computed in the price it comes at once (4402)
    from sdpkern.datasets import load_keel

    ds = load_keel("splice")
    fit = ThinPlateSVC().fit(ds.X, ds.y)
    newton = ThinPlateSVC(solver="reduced").fit(ds.X, ds.y)
    assert fit.solver_ == "dual" and fit.status_ == "optimal" and fit.n_iter_ < 6000
    assert abs(fit.objective_ - newton.objective_) <= 1e-9 * newton.objective_
