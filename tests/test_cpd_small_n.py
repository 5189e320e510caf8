"""The small-n and grid-search paths of the thin-plate SVM (issue 15), each against a reference:

* ``primal_svm_kernel(init=...)``: the optimum of a cold solve (1e-10 relative) and typed errors;
* the reduced Newton's start from the last solution on a shared K_Ξ (a grid search's previous C):
  the optima of cold solves along a λ path (1e-10) and of 000 Algorithm 1 (1e-9), fewer Cholesky
  factorisations, bounded and weakly held memory, and no start from a solution with < 2k violators;
* the operators kept for the folds of a 5-fold search, within their memory bound;
* ``squared_distances`` bit for bit against scikit-learn's ``euclidean_distances``;
* ``score``'s direct count against scikit-learn's ``accuracy_score``, whose errors it keeps;
* a stalled line search (t = 0) refactorises once, then gives up instead of spinning to max_iter;
* ``solver="auto"``'s cold fits by the dual below 2000 points when dim 𝒫 > 9 and the data look
  inseparable: the optimum of the reduced Newton route and of Algorithm 1 (1e-6 relative: SMO at
  tol 1e-3 and its Newton step), its solution seeding the Newton route's warm start at the next C
  (which then runs, warm), the Newton route for separable-looking data, duplicated points, typed
  errors;
* the least-distance separator on a working set against the NNLS on every point (the same
  separator, 1e-9 relative; None for inseparable data; the fallback when the set does not settle).
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import accuracy_score
from sklearn.metrics.pairwise import euclidean_distances

import sdpkern.estimators.cpd as cpd
import sdpkern.native.cpd_reduced as cpd_reduced
from sdpkern import ThinPlateSVC
from sdpkern.errors import DataError, ParameterError
from sdpkern.kernels.base import squared_distances
from sdpkern.kernels.cpd import ThinPlate, polynomial_factor
from sdpkern.kernels.gram import KernelGram, PrecomputedGram, reduced_gram
from sdpkern.native.cpd_newton import cpd_primal_svm
from sdpkern.native.cpd_reduced import cpd_primal_svm_reduced
from sdpkern.native.primal_svm import primal_svm_kernel

LAMS = np.logspace(-3, 2, 6)


def _data(n, d, seed, noise=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.sign(X[:, 0] * X[:, 1] + np.sin(2 * X[:, 0]) + noise * rng.normal(size=n))
    y[y == 0] = 1.0
    return X, y


def test_init_reaches_the_cold_optimum_and_is_checked():
    X, y = _data(150, 2, seed=1)
    K = np.exp(-np.sum((X[:, None] - X[None]) ** 2, axis=2))
    G = PrecomputedGram(K)
    cold = primal_svm_kernel(G, y, C=10.0)
    other = primal_svm_kernel(G, y, C=0.1)  # a start from another C
    warm = primal_svm_kernel(G, y, C=10.0, init=(other.coef, other.unpenalized_coef))
    assert cold.converged and warm.converged
    assert abs(warm.objective - cold.objective) <= 1e-10 * cold.objective
    np.testing.assert_allclose(warm.outputs, cold.outputs, rtol=0, atol=1e-8 * np.abs(cold.outputs).max())
    with pytest.raises(DataError, match="init"):
        primal_svm_kernel(G, y, C=1.0, init=(np.zeros(3), np.zeros(1)))
    with pytest.raises(DataError, match="NaN"):
        primal_svm_kernel(G, y, C=1.0, init=(np.full(150, np.nan), np.zeros(1)))
    with pytest.raises(ParameterError, match="pair"):
        primal_svm_kernel(G, y, C=1.0, init=np.zeros(150))  # type: ignore[arg-type]


@pytest.mark.parametrize(("d", "kernel"), [(2, ThinPlate(2)), (5, ThinPlate(2, formula_dimension=2))])
def test_reduced_newton_along_a_lambda_path_starts_warm_with_the_same_optima(d, kernel):
    X, y = _data(200, d, seed=2 + d)
    fac = polynomial_factor(X, kernel)
    rk = reduced_gram(kernel, X, fac.Q)
    Phi = kernel(X)
    warm_factorisations = cold_factorisations = 0
    for lam in LAMS:
        warm = cpd_primal_svm_reduced(rk, fac.Q, y, 1 / (2 * lam))
        cold = cpd_primal_svm_reduced(rk, fac.Q, y, 1 / (2 * lam), warm=False)
        assert warm.converged and cold.converged
        assert abs(warm.objective - cold.objective) <= 1e-10 * cold.objective
        assert np.linalg.norm(warm.f - cold.f) <= 1e-8 * np.linalg.norm(cold.f)
        ref = cpd_primal_svm(PrecomputedGram(Phi), fac.Q, y, 1 / (2 * lam))  # 000 Algorithm 1
        assert abs(warm.objective - ref.objective) <= 1e-9 * ref.objective
        warm_factorisations += warm.n_refactor
        cold_factorisations += cold.n_refactor
    # the O(m³) part: a cold start factorises every point first; the warm one starts on the last
    # support (its Newton steps, cheaper appends, can be as many: at large λ every point is a
    # violator and the cold start's first step is the answer)
    assert warm_factorisations < cold_factorisations
    assert len(cpd_reduced._WARM[rk]) == 1  # one (y, w): one entry, the newest solution


def test_warm_memory_is_bounded_and_goes_with_its_operator():
    kernel = ThinPlate(2)
    X, y = _data(120, 2, seed=5)
    fac = polynomial_factor(X, kernel)
    rk = reduced_gram(kernel, X, fac.Q)
    rng = np.random.default_rng(0)
    for _ in range(cpd_reduced._WARM_KEPT + 3):  # other labels: other entries
        yy = np.where(rng.random(120) < 0.5, -1.0, 1.0)
        cpd_primal_svm_reduced(rk, fac.Q, yy, 5.0)
    assert len(cpd_reduced._WARM[rk]) == cpd_reduced._WARM_KEPT
    before = len(cpd_reduced._WARM)
    cpd_primal_svm_reduced(KernelGram(kernel, X), fac.Q, y, 5.0)  # no shared operator: nothing remembered
    assert len(cpd_reduced._WARM) == before
    ref = weakref.ref(rk)
    del rk
    gc.collect()
    assert ref() is None  # the table holds no strong reference, and the entry went with it
    assert len(cpd_reduced._WARM) <= before - 1


def test_no_warm_start_from_fewer_than_2k_violators():
    kernel = ThinPlate(2, formula_dimension=2)
    X, y = _data(100, 5, seed=6)
    fac = polynomial_factor(X, kernel)
    rk = reduced_gram(kernel, X, fac.Q)
    k = fac.Q.shape[1]
    key = cpd_reduced._warm_key(y, None)
    cpd_reduced._remember(rk, key, np.zeros(100), np.zeros(k), 2 * k - 1)
    assert cpd_reduced._warm_start(rk, key, k) is None
    cpd_reduced._remember(rk, key, np.zeros(100), np.zeros(k), 2 * k)
    assert cpd_reduced._warm_start(rk, key, k) is not None


def test_a_five_fold_search_finds_each_folds_operators_within_the_memory_bound(monkeypatch):
    X, y = _data(100, 2, seed=7)
    folds = [np.delete(np.arange(100), np.arange(i, 100, 5)) for i in range(5)]
    cpd._OPERATORS.clear()
    for C in (1.0, 10.0):  # GridSearchCV's order: every fold for one C, then the next C
        for f in folds:
            ThinPlateSVC(C=C, beta_zero=False).fit(X[f], y[f])
    assert len(cpd._OPERATORS) == 5
    first = list(cpd._OPERATORS.values())
    for f in folds:
        ThinPlateSVC(C=100.0, beta_zero=False).fit(X[f], y[f])
    assert all(any(ops is o for o in cpd._OPERATORS.values()) for ops in first)  # all five reused
    # a bound of two fits' worth of memory keeps two
    monkeypatch.setattr(cpd, "_OPERATORS_MAX_BYTES", 2 * cpd._operators_bytes(first[0]))
    ThinPlateSVC(C=1.0, beta_zero=False).fit(X[folds[0]], y[folds[0]])
    assert len(cpd._OPERATORS) == 2
    cpd._OPERATORS.clear()


@pytest.mark.parametrize(("n", "m", "d"), [(320, 80, 20), (50, 7, 2), (200, 200, 9)])
def test_squared_distances_are_scikit_learns_bit_for_bit(n, m, d):
    rng = np.random.default_rng(n + d)
    X, Y = 3.0 * rng.normal(size=(n, d)) + 1.0, rng.normal(size=(m, d))
    ref = np.maximum(euclidean_distances(X, Y, squared=True), 0.0)
    assert np.array_equal(squared_distances(X, Y), ref)
    own = squared_distances(X)
    assert np.array_equal(own, np.maximum(euclidean_distances(X, X, squared=True), 0.0))
    assert np.all(np.diag(own) == 0.0)
    X32 = X.astype(np.float32)  # other dtypes: scikit-learn's own path
    assert np.array_equal(squared_distances(X32), np.maximum(euclidean_distances(X32, squared=True), 0.0))


def test_score_is_accuracy_score_and_keeps_its_errors():
    X, y = _data(120, 2, seed=8)
    labels = np.where(y > 0, "b", "a")
    for target in (y.astype(int), y, labels):
        model = ThinPlateSVC(C=1.0, beta_zero=False).fit(X[:80], target[:80])
        pred = model.predict(X[80:])
        assert model.score(X[80:], target[80:]) == accuracy_score(target[80:], pred)
        w = np.linspace(0.5, 2.0, 40)
        assert model.score(X[80:], target[80:], sample_weight=w) == pytest.approx(
            accuracy_score(target[80:], pred, sample_weight=w), rel=1e-15
        )
    model = ThinPlateSVC(C=1.0, beta_zero=False).fit(X[:80], y[:80])
    with pytest.raises(ValueError):  # continuous targets: scikit-learn refuses them
        model.score(X[80:], y[80:] + 0.5)
    with pytest.raises(ValueError):  # lengths differ
        model.score(X[80:], y[81:])


def test_a_stalled_line_search_refactorises_then_gives_up(monkeypatch):
    # t = 0 repeats the step forever: the factor is rebuilt on the set once (then the iteration
    # goes on to the optimum), and a second stall right after ends it, unsettled, at once
    import sdpkern.native.primal_svm as ps

    X, y = _data(150, 2, seed=9)
    K = np.exp(-np.sum((X[:, None] - X[None]) ** 2, axis=2))
    G = PrecomputedGram(K)
    ref = primal_svm_kernel(G, y, C=10.0)
    real, calls, resets = ps.exact_line_search, [], []
    real_reset = ps._SupportFactor.reset

    def first_stalls(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return 0.0 if len(calls) == 1 else real(*args, **kwargs)

    def counted_reset(self):  # type: ignore[no-untyped-def]
        resets.append(1)
        real_reset(self)

    monkeypatch.setattr(ps, "exact_line_search", first_stalls)
    monkeypatch.setattr(ps._SupportFactor, "reset", counted_reset)
    once = primal_svm_kernel(G, y, C=10.0)
    assert resets == [1] and once.converged
    assert abs(once.objective - ref.objective) <= 1e-10 * ref.objective
    monkeypatch.setattr(ps, "exact_line_search", lambda *a, **k: 0.0)
    with pytest.warns(ConvergenceWarning, match="did not settle its support-vector set in 2 steps"):
        stuck = primal_svm_kernel(G, y, C=10.0, max_iter=50)
    assert not stuck.converged and stuck.iterations == 2


def _inseparable(n, d, seed):
    """Data whose least-squares fit in the affine 𝒫 misclassifies well over 10 % of the points."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(np.sin(2.0 * X[:, 0]) * X[:, 1] + 0.5 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def _routes(monkeypatch):
    calls = []
    for name in ("cpd_dual_svm", "cpd_primal_svm_reduced"):
        real = getattr(cpd, name)

        def spy(*args, _real=real, _name=name, **kwargs):
            calls.append((_name, args[0]))
            return _real(*args, **kwargs)

        monkeypatch.setattr(cpd, name, spy)
    return calls


def test_cold_fit_takes_the_dual_and_seeds_the_newton_warm_start(monkeypatch):
    X, y = _inseparable(200, 12, seed=3)  # dim 𝒫 = 13 > 9, 200 < 2000 points
    kernel = ThinPlate(2, formula_dimension=2)
    fac = polynomial_factor(X, kernel)
    assert fac.Q.shape[1] > cpd._DUAL_MAX_POLY and cpd._likely_inseparable(fac.Q, y)
    cpd._OPERATORS.clear()
    calls = _routes(monkeypatch)
    first = ThinPlateSVC(C=2.0).fit(X, y)
    assert [c[0] for c in calls] == ["cpd_dual_svm"] and first.status_ == "optimal" and not first.beta_zero_
    rk = calls[0][1]
    assert cpd_reduced.warm_start_known(rk, y)  # the dual's solution, kept for the next C
    ref = cpd_primal_svm_reduced(KernelGram(kernel, X), fac.Q, y, 2.0, warm=False)  # λ = 1/(2C)
    alg1 = cpd_primal_svm(PrecomputedGram(kernel(X)), fac.Q, y, 2.0)
    for other in (ref, alg1):
        assert abs(first.objective_ - other.objective) <= 1e-6 * other.objective
    second = ThinPlateSVC(C=20.0).fit(X, y)  # the next C on the same points: Newton, warm
    assert [c[0] for c in calls[1:]] == ["cpd_primal_svm_reduced"] and calls[1][1] is rk
    ref2 = cpd_primal_svm_reduced(KernelGram(kernel, X), fac.Q, y, 20.0, warm=False)
    assert abs(second.objective_ - ref2.objective) <= 1e-10 * ref2.objective
    cpd._OPERATORS.clear()


def test_separable_looking_data_keep_the_newton_route(monkeypatch):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(150, 12))
    y = np.where(X[:, 0] + 0.3 * X[:, 1] + 0.2 * rng.normal(size=150) > 0, 1.0, -1.0)
    fac = polynomial_factor(X, ThinPlate(2, formula_dimension=2))
    assert not cpd._likely_inseparable(fac.Q, y)
    cpd._OPERATORS.clear()
    calls = _routes(monkeypatch)
    ThinPlateSVC(C=1.0, beta_zero=False).fit(X, y)
    assert "cpd_dual_svm" not in [c[0] for c in calls]
    cpd._OPERATORS.clear()


def test_cold_dual_with_duplicated_points_and_typed_errors():
    from sdpkern.errors import LabelError

    X, y = _inseparable(160, 12, seed=9)
    X, y = np.vstack([X, X[:20]]), np.concatenate([y, y[:20]])
    cpd._OPERATORS.clear()
    fit = ThinPlateSVC(C=1.0, beta_zero=False).fit(X, y)
    kernel = ThinPlate(2, formula_dimension=2)
    ref = cpd_primal_svm_reduced(KernelGram(kernel, X), polynomial_factor(X, kernel).Q, y, 1.0, warm=False)
    assert fit.status_ == "optimal" and abs(fit.objective_ - ref.objective) <= 1e-6 * ref.objective
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(DataError):
        ThinPlateSVC(C=1.0).fit(Xn, y)
    with pytest.raises((LabelError, ValueError)):
        ThinPlateSVC(C=1.0).fit(X, np.ones(X.shape[0]))
    cpd._OPERATORS.clear()


@pytest.mark.parametrize(
    ("n", "d", "shift"), [(400, 30, 3.0), (300, 12, 1.5), (500, 20, 2.0), (200, 8, 1.0), (120, 3, 3.0)]
)
def test_working_set_separator_is_the_least_distance_separator(n, d, shift):
    rng = np.random.default_rng(n + d)
    X = rng.normal(size=(n, d))
    w = rng.normal(size=d)
    y = np.where(X @ w > 0, 1.0, -1.0)
    X += shift * 0.1 * y[:, None] * w / np.linalg.norm(w)  # a margin: separable by an affine p
    P = polynomial_factor(X, ThinPlate(2, formula_dimension=2)).P
    margin = y * (P @ np.linalg.lstsq(P, y, rcond=None)[0])
    full = cpd._min_norm_separator(P, y)
    ws = cpd._min_norm_separator_working_set(P, y, margin)
    assert full is not None and ws is not None
    assert np.abs(ws - full).max() <= 1e-9 * np.abs(full).max()
    assert float((y * (P @ ws)).min()) >= 1.0 - 1e-12


def test_working_set_separator_on_inseparable_data_and_its_fallback(monkeypatch):
    X, y = _inseparable(400, 10, seed=12)
    P = polynomial_factor(X, ThinPlate(2, formula_dimension=2)).P
    margin = y * (P @ np.linalg.lstsq(P, y, rcond=None)[0])
    assert cpd._min_norm_separator(P, y) is None
    assert cpd._min_norm_separator_working_set(P, y, margin) is None
    # a working set that never settles in its rounds: the NNLS on every point decides
    rng = np.random.default_rng(3)
    Xs = rng.normal(size=(400, 10))
    ys = np.where(Xs[:, 0] > 0, 1.0, -1.0)
    Xs[:, 0] += 0.3 * ys
    Ps = polynomial_factor(Xs, ThinPlate(2, formula_dimension=2)).P
    calls = []
    real = cpd._min_norm_separator
    monkeypatch.setattr(cpd, "_min_norm_separator", lambda P, y, w=None: (calls.append(P.shape[0]), real(P, y, w))[1])
    anti = -np.ones(400)  # a useless order: the start set is points 0-63, which miss the support
    out = cpd._min_norm_separator_working_set(Ps, ys, anti, rounds=1)
    assert calls == [64, 400]  # one round on the start set, unsettled, then every point
    assert np.abs(out - real(Ps, ys)).max() <= 1e-9 * np.abs(out).max()
