"""c.p.d. kernels (000 eq. 11) and polynomial spaces."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.linalg import null_space
from sklearn.base import clone

from sdpkern.errors import DataError, ParameterError
from sdpkern.estimators import CPDSVC
from sdpkern.kernels import Gaussian
from sdpkern.kernels.cpd import PolynomialSpace, PowerDistance, ThinPlate, polynomial_space_of

RNG = np.random.default_rng(1)


@pytest.mark.parametrize(
    ("d", "m", "phi"),
    [
        (1, 1, lambda r: -r),  # (-1)^{1-0} r
        (1, 2, lambda r: r**3),  # (-1)^{2-0} r^3
        (2, 2, lambda r: r**2 * np.log(r)),  # (-1)^{2-0} r^2 log r
        (2, 3, lambda r: -(r**4) * np.log(r)),  # (-1)^{3-0} r^4 log r
        (3, 2, lambda r: -r),  # (-1)^{2-1} r
        (4, 3, lambda r: r**2 * np.log(r)),  # (-1)^{3-1} r^2 log r
        (5, 3, lambda r: -r),  # (-1)^{3-2} r
    ],
)
def test_thin_plate_formula(d, m, phi):
    # eq. (11) by hand: even d sign (-1)^{m-(d-2)/2}, odd d sign (-1)^{m-(d-1)/2}
    sign = (-1.0) ** (m - (d - 2) // 2) if d % 2 == 0 else (-1.0) ** (m - (d - 1) // 2)
    X = RNG.normal(size=(7, d))
    Y = RNG.normal(size=(5, d))
    r = np.linalg.norm(X[:, None, :] - Y[None, :, :], axis=2)
    expected = sign * r ** (2 * m - d) * (np.log(r) if d % 2 == 0 else 1.0)
    got = ThinPlate(m)(X, Y)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got, phi(r), rtol=1e-12, atol=1e-12)


def test_thin_plate_diagonal_zero_and_symmetric():
    X = RNG.normal(size=(20, 2))
    K = ThinPlate(2)(X)
    assert np.all(np.diag(K) == 0.0)
    np.testing.assert_array_equal(K, K.T)
    np.testing.assert_array_equal(ThinPlate(2).diag(X), np.zeros(20))
    # duplicate points: zero distance gives 0, not NaN
    K2 = ThinPlate(2)(np.vstack([X, X[:3]]))
    assert np.all(np.isfinite(K2)) and K2[0, 20] == 0.0


@pytest.mark.parametrize(
    "kernel,d",
    [
        (ThinPlate(2), 2),
        (ThinPlate(3), 2),
        (ThinPlate(2), 3),
        (ThinPlate(3), 5),
        (ThinPlate(1), 1),
        (ThinPlate(2, formula_dimension=2), 7),
        (PowerDistance(0.5), 4),
        (PowerDistance(1.5), 3),
    ],
)
def test_conditionally_positive_definite(kernel, d):
    """P⊥ᵀΦP⊥ ⪰ 0 (000 Definition 4.1) while Φ itself is indefinite."""
    X = RNG.normal(size=(40, d))
    Phi = kernel(X)
    P = kernel.polynomial_space(d).basis(X)
    N = null_space(P.T)
    w = np.linalg.eigvalsh(N.T @ Phi @ N)
    assert w[0] > -1e-10 * abs(w).max()
    assert np.linalg.eigvalsh(Phi)[0] < 0


@pytest.mark.parametrize(("q", "d"), [(-1, 3), (0, 4), (1, 2), (2, 2), (2, 5), (3, 3)])
def test_polynomial_space_dimension_and_basis(q, d):
    S = PolynomialSpace(q, d)
    assert S.dim == (0 if q < 0 else math.comb(d + q, q))
    X = RNG.normal(size=(50, d))
    P = S.basis(X)
    assert P.shape == (50, S.dim)
    # each column is the monomial of its exponent tuple
    for k, e in enumerate(S.exponents):
        np.testing.assert_allclose(P[:, k], np.prod(X**e, axis=1), rtol=1e-12)
    if S.dim:
        # shifting/scaling the monomials spans the same space
        P2 = S.basis(X, center=X.mean(0), scale=3.0)
        coef = np.linalg.lstsq(P, P2, rcond=None)[0]
        np.testing.assert_allclose(P @ coef, P2, atol=1e-9)


def test_polynomial_space_of_pd_kernel_is_empty():
    assert polynomial_space_of(Gaussian(1.0), 3).dim == 0
    assert ThinPlate(2).polynomial_space(2).dim == 3  # π_1(R²): 1, x1, x2 (000 §6.1)
    assert ThinPlate(2, formula_dimension=2).polynomial_space(8).dim == 9  # d + 1


@pytest.mark.parametrize(("d", "m"), [(3, 2), (5, 3), (1, 1)])
def test_scaling_odd_dimension(d, m):
    """φ(sx, sy) = s^{2m−d} φ(x, y) for odd d (000 eq. 11, 13)."""
    X = RNG.normal(size=(10, d))
    s = 2.7
    np.testing.assert_allclose(ThinPlate(m)(s * X), s ** (2 * m - d) * ThinPlate(m)(X), rtol=1e-12)
    assert ThinPlate(m).scaling_exponent(d) == 2 * m - d


def test_scaling_even_dimension_modulo_polynomials():
    """For even d the log term adds s^{2m−d} log s · r^{2m−d}, invisible on P⊥ (000 §5)."""
    X = RNG.normal(size=(30, 2))
    s = 3.1
    k = ThinPlate(2)
    N = null_space(k.polynomial_space(2).basis(X).T)
    np.testing.assert_allclose(N.T @ k(s * X) @ N, s**2 * N.T @ k(X) @ N, rtol=1e-10, atol=1e-10)


# ----------------------------------------------------------------------------- bad input
def test_order_too_low_for_dimension():
    with pytest.raises(ParameterError, match="order=2.*2m > d"):
        ThinPlate(2)(RNG.normal(size=(5, 4)))
    with pytest.raises(ParameterError, match="order"):
        ThinPlate(3).polynomial_space(6)
    with pytest.raises(ParameterError, match="formula_dimension"):
        ThinPlate(1, formula_dimension=2)(RNG.normal(size=(5, 1)))


@pytest.mark.parametrize("order", [0, -1, 1.5, "2", True])
def test_order_below_one(order):
    with pytest.raises(ParameterError, match="order"):
        ThinPlate(order)(RNG.normal(size=(4, 1)))


@pytest.mark.parametrize("beta", [0, 2, 2.5, -1])
def test_power_distance_range(beta):
    with pytest.raises(ParameterError, match="beta"):
        PowerDistance(beta)(RNG.normal(size=(4, 2)))


def test_nan_input():
    X = RNG.normal(size=(5, 2))
    X[1, 0] = np.nan
    with pytest.raises(DataError, match="X"):
        ThinPlate(2)(X)
    with pytest.raises(DataError, match="X"):
        PolynomialSpace(1, 2).basis(X)


def test_polynomial_space_bad_arguments():
    with pytest.raises(ParameterError, match="degree"):
        PolynomialSpace(-2, 2)
    with pytest.raises(ParameterError, match="d must"):
        PolynomialSpace(1, 0)
    with pytest.raises(ParameterError, match="dimension"):
        PolynomialSpace(10, 60)  # C(70, 10) monomials: refused with advice
    with pytest.raises(DataError, match="features"):
        PolynomialSpace(1, 3).basis(np.ones((2, 2)))


def test_kernels_clone_as_estimator_parameters():
    est = CPDSVC(kernel=ThinPlate(3))
    c = clone(est)
    assert c.kernel == ThinPlate(3) and c.get_params()["kernel"] == ThinPlate(3)
    assert PowerDistance(1.0) == PowerDistance(1.0) and hash(ThinPlate(2)) == hash(ThinPlate(2))
