"""Base kernels against scikit-learn's pairwise kernels and their closed forms."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import laplacian_kernel, polynomial_kernel, rbf_kernel, sigmoid_kernel

from sdpkern.errors import DataError, ParameterError
from sdpkern.kernels import Epanechnikov, Gaussian, Laplacian, Linear, Polynomial, Sigmoid, SquaredEuclidean

rng = np.random.default_rng(0)
X = rng.normal(size=(15, 4))
Y = rng.normal(size=(7, 4))


def test_against_sklearn():
    np.testing.assert_allclose(Linear()(X, Y), X @ Y.T, rtol=1e-12)
    np.testing.assert_allclose(Gaussian(0.3)(X, Y), rbf_kernel(X, Y, gamma=0.3), rtol=1e-12)
    np.testing.assert_allclose(
        Polynomial(3, 0.5, 1.0)(X, Y), polynomial_kernel(X, Y, degree=3, gamma=0.5, coef0=1.0), rtol=1e-12
    )
    np.testing.assert_allclose(Sigmoid(0.2, -1.0)(X, Y), sigmoid_kernel(X, Y, gamma=0.2, coef0=-1.0), rtol=1e-12)
    # scikit-learn's laplacian kernel uses the L1 distance; ours the Euclidean one (checked by hand)
    D = np.sqrt(((X[:, None, :] - Y[None, :, :]) ** 2).sum(-1))
    np.testing.assert_allclose(Laplacian(0.7)(X, Y), np.exp(-0.7 * D), rtol=1e-12)
    assert not np.allclose(Laplacian(0.7)(X, Y), laplacian_kernel(X, Y, gamma=0.7))


def test_epanechnikov_and_squared_euclidean():
    D2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    K = Epanechnikov(sigma=8.0, p=2)(X)
    expected = np.where(D2 / 8.0 <= 1, (1 - D2 / 8.0) ** 2, 0.0)
    np.testing.assert_allclose(K, expected, atol=1e-12)
    S = SquaredEuclidean(sigma=2.0)(X)
    np.testing.assert_allclose(S, D2 / 2.0, atol=1e-10)
    assert np.allclose(np.diag(S), 0.0)
    # the squared distance matrix is indefinite (zero trace, non-zero)
    lam = np.linalg.eigvalsh(S)
    assert lam[0] < -1e-8 < 1e-8 < lam[-1]


def test_diag_matches_gram():
    for k in (Linear(), Gaussian(0.5), Laplacian(1.0), Polynomial(2), Epanechnikov(3.0), SquaredEuclidean()):
        np.testing.assert_allclose(k.diag(X), np.diag(k(X)), atol=1e-12)


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: Gaussian(gamma=0.0), "Gaussian: gamma"),
        (lambda: Gaussian(gamma=-1.0), "Gaussian: gamma"),
        (lambda: Laplacian(gamma=np.nan), "Laplacian: gamma"),
        (lambda: Polynomial(degree=0), "Polynomial: degree"),
        (lambda: Polynomial(degree=2.5), "Polynomial: degree"),
        (lambda: Polynomial(degree=True), "Polynomial: degree"),
        (lambda: Polynomial(coef0=np.inf), "Polynomial: coef0"),
        (lambda: Epanechnikov(sigma=-1), "Epanechnikov: sigma"),
        (lambda: Sigmoid(gamma="1"), "Sigmoid: gamma"),
        (lambda: SquaredEuclidean(sign=2.0), "SquaredEuclidean: sign"),
    ],
)
def test_bad_parameters_are_refused_at_construction(make, match):
    """Issue 17: a bad parameter is reported where the kernel is built, naming the argument."""
    with pytest.raises(ParameterError, match=match):
        make()


def test_bad_data():
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(DataError, match="X"):
        Gaussian()(Xn)
    with pytest.raises(DataError, match="features"):
        Gaussian()(X, Y[:, :2])
