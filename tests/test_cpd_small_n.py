"""The small-n paths of the thin-plate SVM, each against a reference:

* ``primal_svm_kernel(init=...)``: the optimum of a cold solve (1e-10 relative) and typed errors;
* ``squared_distances`` bit for bit against scikit-learn's ``euclidean_distances``;
* ``score``'s direct count against scikit-learn's ``accuracy_score``, whose errors it keeps;
* a stalled line search (t = 0) refactorises once, then gives up instead of spinning to max_iter;
* the dual with duplicated points and typed errors;
* the least-distance separator on a working set against the NNLS on every point (the same
  separator, 1e-9 relative; None for inseparable data; the fallback when the set does not settle).
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import accuracy_score
from sklearn.metrics.pairwise import euclidean_distances

import sdpkern.native.cpd.workspace as cpd
from sdpkern import ThinPlateSVC
from sdpkern.errors import DataError, ParameterError
from sdpkern.kernels.base import squared_distances
from sdpkern.kernels.cpd import ThinPlate, polynomial_factor
from sdpkern.kernels.gram import KernelGram, PrecomputedGram
from sdpkern.native.cpd.workspace import cpd_primal_svm_reduced
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


def test_cold_dual_with_duplicated_points_and_typed_errors():
    from sdpkern.errors import LabelError

    X, y = _inseparable(160, 12, seed=9)
    X, y = np.vstack([X, X[:20]]), np.concatenate([y, y[:20]])
    fit = ThinPlateSVC(C=1.0, beta_zero=False, solver="dual", scale=1.0).fit(X, y)
    kernel = ThinPlate(2, formula_dimension=2)
    ref = cpd_primal_svm_reduced(KernelGram(kernel, X), polynomial_factor(X, kernel).Q, y, 1.0)
    assert fit.status_ == "optimal" and abs(fit.objective_ - ref.objective) <= 1e-6 * ref.objective
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(DataError):
        ThinPlateSVC(C=1.0).fit(Xn, y)
    with pytest.raises((LabelError, ValueError)):
        ThinPlateSVC(C=1.0).fit(X, np.ones(X.shape[0]))


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
    ws, inseparable = cpd._least_distance_working_set(P, y, margin)
    assert full is not None and ws is not None and not inseparable
    assert np.abs(ws - full).max() <= 1e-9 * np.abs(full).max()
    assert float((y * (P @ ws)).min()) >= 1.0 - 1e-12


def test_working_set_separator_on_inseparable_data_and_its_fallback(monkeypatch):
    X, y = _inseparable(400, 10, seed=12)
    P = polynomial_factor(X, ThinPlate(2, formula_dimension=2)).P
    margin = y * (P @ np.linalg.lstsq(P, y, rcond=None)[0])
    assert cpd._min_norm_separator(P, y) is None
    # the NNLS's Farkas certificate proves inseparability (no LP), on the start set already
    assert cpd._least_distance_working_set(P, y, margin) == (None, True)
    assert cpd._least_distance(P, y) == (None, True)
    # a working set that never settles in its rounds: the NNLS on every point decides
    rng = np.random.default_rng(3)
    Xs = rng.normal(size=(400, 10))
    ys = np.where(Xs[:, 0] > 0, 1.0, -1.0)
    Xs[:, 0] += 0.3 * ys
    Ps = polynomial_factor(Xs, ThinPlate(2, formula_dimension=2)).P
    calls = []
    real = cpd._least_distance
    monkeypatch.setattr(cpd, "_least_distance", lambda P, y, w=None: (calls.append(P.shape[0]), real(P, y, w))[1])
    anti = -np.ones(400)  # a useless order: the start set is points 0-63, which miss the support
    out, inseparable = cpd._least_distance_working_set(Ps, ys, anti, rounds=1)
    assert calls == [64, 400] and not inseparable  # one round on the start set, unsettled, then every point
    assert np.abs(out - real(Ps, ys)[0]).max() <= 1e-9 * np.abs(out).max()
