"""The fixed costs of a small fit (issue 15), each shortcut against the route it replaces:

* ``validate_training_data``'s fast path for plain ndarrays against scikit-learn's
  ``validate_data`` (the same arrays, ``n_features_in_``, ``feature_names_in_`` removed after a
  DataFrame fit) and the typed errors of the slow path for everything else;
* ``classification_classes`` against ``check_classification_targets`` + ``np.unique`` (the same
  classes, scikit-learn's errors and warning);
* the polynomial basis (one product per degree from tables cached per (degree, d)) bit for bit
  against the column-by-column construction it replaced;
* the separability test from the factor's Q Qᵀy against :func:`polynomial_separator` (the same
  decision, a valid separator) and the memory they share (one entry per (P, y)).
"""

from __future__ import annotations

import warnings
from itertools import combinations_with_replacement

import numpy as np
import pytest
from sklearn.datasets import make_blobs, make_moons
from sklearn.utils.multiclass import check_classification_targets

from sdpkern._validation import classification_classes, validate_data, validate_training_data
from sdpkern.errors import DataError, LabelError
from sdpkern.estimators import PrimalSVC, ThinPlateSVC
from sdpkern.kernels.cpd import PolynomialSpace, ThinPlate, polynomial_factor

RNG = np.random.default_rng(3)


def _inputs():
    X = RNG.normal(size=(30, 4))
    yi = (X[:, 0] > 0).astype(int)
    return [
        (X, yi),
        (X, yi.astype(float)),
        (X, yi.astype(bool)),
        (np.asfortranarray(X), yi),
        (X, np.where(yi, "b", "a")),  # strings: the slow path
        (X.astype(np.float32), yi),  # converted: the slow path
        (X.tolist(), yi.tolist()),
        (X[:, :1], yi),
    ]


@pytest.mark.parametrize("case", range(8))
def test_training_data_as_scikit_learn_validates_it(case):
    X, y = _inputs()[case]
    fast, ref = ThinPlateSVC(), ThinPlateSVC()
    Xf, yf = validate_training_data(fast, X, y)
    Xr, yr = validate_data(ref, X, y, dtype=np.float64)
    assert Xf.dtype == np.float64 and np.array_equal(Xf, Xr) and np.array_equal(yf, np.asarray(yr))
    assert yf.dtype == np.asarray(yr).dtype
    assert fast.n_features_in_ == ref.n_features_in_ == np.asarray(X).shape[1]


def test_training_data_drops_feature_names_of_an_earlier_dataframe_fit():
    pd = pytest.importorskip("pandas")
    X, y = _inputs()[0]
    est = ThinPlateSVC(C=1.0).fit(pd.DataFrame(X, columns=list("abcd")), y)
    assert list(est.feature_names_in_) == list("abcd")
    est.fit(X[:, :3], y)  # plain ndarray: the fast path
    assert not hasattr(est, "feature_names_in_") and est.n_features_in_ == 3


@pytest.mark.parametrize(
    ("X", "y", "match"),
    [
        (np.array([[0.0, np.nan], [1.0, 2.0]]), np.array([0, 1]), "NaN"),
        (np.array([[0.0, np.inf], [1.0, 2.0]]), np.array([0, 1]), "infinity"),
        (np.array([[0.0, 1.0], [1.0, 2.0]]), np.array([0.0, np.nan]), "NaN"),
        (np.array([[0.0, 1.0], [1.0, 2.0]]), np.array([0, 1, 1]), "inconsistent numbers of samples"),
        (np.zeros((0, 2)), np.zeros(0), "0 sample"),
        (np.zeros((2, 0)), np.array([0, 1]), "0 feature"),
    ],
)
def test_bad_training_data_still_raises_the_typed_error(X, y, match):
    with pytest.raises(DataError, match=match):
        validate_training_data(ThinPlateSVC(), X, y)
    with pytest.raises(DataError, match=match):
        PrimalSVC().fit(X, y)


def test_classes_as_scikit_learn_checks_them():
    for y in (np.array([1, 0, 1]), np.array([2.0, -1.0, 2.0]), np.array([True, False]), np.array([3, 3]),
              np.array(["a", "b", "a"]), np.array([0, 1, 2, 1])):  # fmt: skip
        check_classification_targets(y)
        assert np.array_equal(classification_classes(y), np.unique(y))
    for y in (np.array([0.5, 1.0, 0.5]), np.array([0.0, 1.0, 2.5])):  # continuous
        with pytest.raises(ValueError, match="Unknown label type"):
            check_classification_targets(y)
        with pytest.raises(ValueError, match="Unknown label type"):
            classification_classes(y)
    many = np.arange(30) % 20  # more classes than half the points: scikit-learn's warning, kept
    with pytest.warns(UserWarning, match="number of unique classes"):
        classification_classes(many)
    with pytest.raises(LabelError, match="1 class"):
        PrimalSVC().fit(RNG.normal(size=(5, 2)), np.ones(5))


def _column_by_column(S: PolynomialSpace, X: np.ndarray) -> np.ndarray:
    """The basis as it was built before: one column at a time, parents found in a dict."""
    rows = []
    for total in range(S.degree + 1):
        for combo in combinations_with_replacement(range(S.d), total):
            e = [0] * S.d
            for j in combo:
                e[j] += 1
            rows.append(tuple(e))
    cols, index = [np.ones(X.shape[0])], {rows[0]: 0}
    for e in rows[1:]:
        j = next(i for i, v in enumerate(e) if v)
        parent = list(e)
        parent[j] -= 1
        cols.append(cols[index[tuple(parent)]] * X[:, j])
        index[e] = len(cols) - 1
    return np.column_stack(cols)


@pytest.mark.parametrize(("q", "d"), [(0, 3), (1, 1), (1, 30), (2, 1), (2, 5), (3, 4), (4, 2), (3, 7)])
def test_basis_bit_for_bit_as_column_by_column(q, d):
    X = RNG.normal(size=(40, d))
    center, scale = X.mean(0), 1.7
    P = PolynomialSpace(q, d).basis(X, center, scale)
    ref = _column_by_column(PolynomialSpace(q, d), (X - center) / scale)
    assert P.shape == ref.shape and P.flags.c_contiguous and np.array_equal(P, ref)
    space = PolynomialSpace(q, d)
    ex = space.exponents
    assert ex is space.exponents and not ex.flags.writeable  # one table per space (none kept between spaces)
    np.testing.assert_array_equal(ex, PolynomialSpace(q, d).exponents)


def _labelled(seed):
    X, ym = make_moons(300, noise=0.1, random_state=seed)
    P = polynomial_factor(X, ThinPlate(2)).P
    inseparable = np.where(ym == 1, 1.0, -1.0)
    separable = np.where(X[:, 0] + 0.3 * X[:, 1] > 0.4, 1.0, -1.0)
    Xb, yb = make_blobs(300, centers=[[-3.0, 0.0], [3.0, 0.0]], random_state=seed)
    easy = np.where(yb == 1, 1.0, -1.0)  # the least-squares fit separates
    return [(P, inseparable), (P, separable), (polynomial_factor(Xb, ThinPlate(2)).P, easy)]


@pytest.mark.parametrize("seed", [0, 1])
def test_separability_from_the_factor_as_from_p(seed):
    import sdpkern.native.cpd.workspace as cpd

    for P, y in _labelled(seed):
        Q = np.linalg.qr(P)[0]
        ref = cpd.polynomial_separator(P, y)
        got = cpd._find_separator(P, y, Q @ (Q.T @ y))
        assert (got is None) == (ref is None)
        if got is not None:  # a separator, scaled to margin 1 (the same one: the NNLS's is unique)
            margin = y * (P @ got)
            assert margin.min() >= 1.0 - 1e-9 and margin.min() <= 1.0 + 1e-9
            np.testing.assert_allclose(got, ref, rtol=1e-7, atol=1e-9 * np.abs(ref).max())


def test_a_fit_asks_its_workspace_once_per_labels(monkeypatch):
    # the separability answer is remembered by the fit's workspace (per (y, w)), and a memory
    # shared by fits on the same points (a grid search) hands it on; without one nothing is kept
    import sdpkern.native.cpd.workspace as cpd

    X, ym = make_moons(200, noise=0.05, random_state=4)
    y = np.where(X[:, 0] + 0.3 * X[:, 1] > 0.4, 1, 0)  # 𝒫-separable, not by least squares
    calls: list[int] = []
    find = cpd._find_separator
    monkeypatch.setattr(cpd, "_find_separator", lambda *a: calls.append(1) or find(*a))
    model = ThinPlateSVC(C=1.0).fit(X, y)
    assert model.beta_zero_ and calls == [1]
    assert cpd._least_squares_separator(model.factor_.Q, np.where(y == 1, 1.0, -1.0)) is None  # premise
    ThinPlateSVC(C=1.0).fit(X, y)
    assert calls == [1, 1]  # a new fit: a new workspace
    memory = cpd.CPDMemory()
    for C in (1.0, 2.0, 4.0):
        ThinPlateSVC(C=C, memory=memory).fit(X, y)
    assert calls == [1, 1, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        beta = ThinPlateSVC(C=1.0, memory=memory).fit(X, y).beta_
    assert calls == [1, 1, 1] and beta is not None
