"""Polynomial trajectories (003 eq. 2, §3, §4): analytic vs finite differences vs exact transformations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.datasets import load_digits

from sdpkern.errors import DataError, ParameterError
from sdpkern.trajectories import (
    IMAGE_TRANSFORMATIONS,
    FunctionTransformation,
    ImageTransformation,
    check_trajectories,
    evaluate_quadratic_trajectories,
    evaluate_trajectories,
    finite_difference_taylor,
    taylor_trajectories,
    trajectories_from_derivatives,
)


@pytest.fixture(scope="module")
def digits() -> np.ndarray:
    return load_digits().data[:6] / 16.0


def _rotate2d(theta: float, X: np.ndarray) -> np.ndarray:
    c, s = math.cos(theta), math.sin(theta)
    return X @ np.array([[c, s], [-s, c]])


def test_finite_differences_match_closed_form_taylor_rows() -> None:
    X = np.array([[1.0, 2.0], [-0.5, 0.3]])
    T = taylor_trajectories(X, _rotate2d, 4)
    # x(θ) = x R(θ)ᵀ: derivatives cycle through x Jᵀ with the Taylor factors of cos and sin
    J = np.array([[0.0, 1.0], [-1.0, 0.0]])
    expected = np.stack([X, X @ J, -X / 2, -(X @ J) / 6, X / 24], axis=1)
    np.testing.assert_allclose(T, expected, atol=1e-7)


def test_analytic_derivatives_are_used_when_supplied() -> None:
    X = np.array([[1.0, 0.0, 2.0]])

    def T(theta: float, X: np.ndarray) -> np.ndarray:
        return X * math.exp(theta)

    calls: list[int] = []

    def d(X: np.ndarray, order: int) -> np.ndarray:
        calls.append(order)
        return X.copy()

    rows = taylor_trajectories(X, T, 3, derivatives=d)
    assert calls == [0, 1, 2, 3]
    np.testing.assert_allclose(rows[0], X * np.array([1, 1, 1 / 2, 1 / 6])[:, None])
    # finite differences (h = 0.05, 7 points): truncation O(h^4) on row 3
    np.testing.assert_allclose(rows, FunctionTransformation(T).taylor(X, 3), atol=1e-6)


def test_identity_gives_constant_trajectories() -> None:
    X = np.arange(6.0).reshape(2, 3)
    T = taylor_trajectories(X, None, 2)
    assert T.shape == (2, 3, 3)
    np.testing.assert_array_equal(T[:, 0], X)
    assert not T[:, 1:].any()


@pytest.mark.parametrize("kind", IMAGE_TRANSFORMATIONS)
def test_image_derivatives_exact_vs_finite_differences(digits: np.ndarray, kind: str) -> None:
    T = ImageTransformation(kind, (8, 8))
    exact = T.taylor(digits, 2)
    fd = finite_difference_taylor(T, digits, 2, step=0.02)
    assert exact.shape == (6, 3, 64)
    np.testing.assert_allclose(exact, fd, atol=1e-6)
    np.testing.assert_array_equal(exact[:, 0], digits)  # origin="raw": T(0, x) = x


def test_image_quadratic_form_several_parameters(digits: np.ndarray) -> None:
    """The §3 quadratic form is the second-order Taylor expansion: error O(‖ρ‖³)."""
    T = ImageTransformation(("rotation", "scaling", "translation_x", "translation_y"), (8, 8))
    Q = T.quadratic_form(digits)
    assert Q.shape == (6, 5, 5, 64)
    np.testing.assert_allclose(Q, Q.transpose(0, 2, 1, 3))
    rho = np.array([0.02, -0.03, 0.02, 0.015])
    e1 = np.abs(T(rho, digits) - evaluate_quadratic_trajectories(Q, rho)).max()
    e2 = np.abs(T(rho / 2, digits) - evaluate_quadratic_trajectories(Q, rho / 2)).max()
    assert 6.0 < e1 / e2 < 10.0  # cubic
    # one parameter: the quadratic form reproduces the Taylor rows
    T1 = ImageTransformation("rotation", (8, 8))
    Q1 = T1.quadratic_form(digits)
    rows = T1.taylor(digits, 2)
    np.testing.assert_allclose(Q1[:, 0, 0], rows[:, 0])
    np.testing.assert_allclose(2 * Q1[:, 0, 1], rows[:, 1])
    np.testing.assert_allclose(Q1[:, 1, 1], rows[:, 2])


def test_image_rotation_geometry(digits: np.ndarray) -> None:
    """A quarter turn is np.rot90 of the smoothed image (independent route for the geometry)."""
    T = ImageTransformation("rotation", (8, 8), origin="smoothed")
    sm = T.smooth(digits)
    quarter = T(np.pi / 2, digits)
    expected = np.array([np.rot90(s.reshape(8, 8)).ravel() for s in sm])
    np.testing.assert_allclose(quarter, expected, atol=1e-12)
    np.testing.assert_allclose(T.taylor(digits, 1)[:, 0], sm)


def test_smoothing_variance_units() -> None:
    assert ImageTransformation("rotation", (8, 8)).sigma_pixels == pytest.approx(1.2)
    assert ImageTransformation("rotation", (16, 16)).sigma_pixels == pytest.approx(2.4)
    assert ImageTransformation("rotation", (8, 8), coordinates="pixel").sigma_pixels == pytest.approx(0.3)


def test_evaluate_trajectories_shapes() -> None:
    Xt = np.random.default_rng(0).normal(size=(3, 3, 4))
    out = evaluate_trajectories(Xt, np.array([0.0, 1.0]))
    assert out.shape == (3, 2, 4)
    np.testing.assert_allclose(out[:, 0], Xt[:, 0])
    np.testing.assert_allclose(out[:, 1], Xt.sum(axis=1))


# ----------------------------------------------------------------------------- bad input
def test_nan_in_images_is_a_data_error(digits: np.ndarray) -> None:
    bad = digits.copy()
    bad[0, 3] = np.nan
    with pytest.raises(DataError, match="NaN"):
        ImageTransformation("rotation", (8, 8)).taylor(bad, 2)
    with pytest.raises(DataError, match="NaN"):
        taylor_trajectories(bad, _rotate2d_any, 2)


def _rotate2d_any(theta: float, X: np.ndarray) -> np.ndarray:
    return X * (1 + theta)


def test_bad_image_arguments(digits: np.ndarray) -> None:
    with pytest.raises(ParameterError, match="kinds"):
        ImageTransformation("shear", (8, 8))
    with pytest.raises(ParameterError, match="shape"):
        ImageTransformation("rotation", (8,))  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="variance"):
        ImageTransformation("rotation", (8, 8), variance=0.0)
    with pytest.raises(DataError, match="pixels"):
        ImageTransformation("rotation", (4, 4)).taylor(digits, 2)
    with pytest.raises(ParameterError, match="degree"):
        taylor_trajectories(digits, None, -1)


def test_bad_trajectory_arrays() -> None:
    with pytest.raises(DataError, match="trajectories"):
        check_trajectories(np.zeros((3, 4)))
    with pytest.raises(DataError, match="symmetric"):
        check_trajectories(np.random.default_rng(0).normal(size=(2, 3, 3, 4)))
    with pytest.raises(DataError, match="NaN"):
        check_trajectories(np.full((2, 3, 4), np.nan))
    with pytest.raises(DataError, match="keep the shape"):
        taylor_trajectories(np.ones((2, 3)), lambda t, X: X[:, :2], 2)
    with pytest.raises(DataError, match="order 1"):
        trajectories_from_derivatives([np.ones((2, 3)), np.ones((3, 3))])


# ----------------------------------------------------------------------------- kernels, several parameters
def _quadratic_forms(m: int, D: int, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    Q = rng.normal(size=(m, D + 1, D + 1, n))
    return 0.5 * (Q + Q.transpose(0, 2, 1, 3))


@pytest.mark.parametrize("D", [1, 2, 3])
def test_kernel_quadratic_gram_of_the_linear_kernel_is_the_products_of_the_rows(D: int) -> None:
    """For k(x, y) = xᵀy the Taylor coefficients of φ(x̃(ρ)) are (Q_00, 2Q_0a, Q_aa, 2Q_ab) themselves."""
    from sdpkern.kernels.base import Linear
    from sdpkern.native.sdpm import sdpm_features
    from sdpkern.trajectories import kernel_quadratic_gram

    Q = _quadratic_forms(4, D, 3, D)
    F = sdpm_features(Q).F
    np.testing.assert_allclose(kernel_quadratic_gram(Linear(), Q), np.einsum("iqn,jpn->iqjp", F, F), atol=1e-13)
    paired = kernel_quadratic_gram(Linear(), Q, paired=True)
    np.testing.assert_allclose(paired, np.einsum("iqn,ipn->iqp", F, F), atol=1e-13)
    X = np.random.default_rng(0).normal(size=(5, 3))
    np.testing.assert_allclose(kernel_quadratic_gram(Linear(), Q, X), np.einsum("iqn,pn->iqp", F, X), atol=1e-13)


@pytest.mark.parametrize("kernel", ["gaussian", "poly"])
def test_kernel_quadratic_gram_along_directions_it_was_not_built_from(kernel: str) -> None:
    """The bivariate coefficients come from e_a and e_a + e_b by polarisation; along any other pair
    of directions (u, v) they must give the univariate coefficients of k(x̃_i(tu), x̃_j(t'v))
    (kernel_taylor_gram, an independent computation), to round-off."""
    from sdpkern.kernels.base import Gaussian, Polynomial
    from sdpkern.trajectories import kernel_quadratic_gram, kernel_taylor_gram

    k = Gaussian(gamma=0.3) if kernel == "gaussian" else Polynomial(degree=3, gamma=0.5, coef0=1.0)
    Q = _quadratic_forms(4, 2, 3, 7)
    K = kernel_quadratic_gram(k, Q)
    G = K.reshape(24, 24)
    np.testing.assert_allclose(G, G.T, atol=1e-12 * np.abs(G).max())
    assert np.linalg.eigvalsh(G)[0] >= -1e-10 * np.abs(G).max()  # a Gram matrix
    rng = np.random.default_rng(1)
    for _ in range(3):
        u, v = rng.normal(size=2), rng.normal(size=2)

        def along(Qm: np.ndarray, d: np.ndarray) -> np.ndarray:
            return np.stack([Qm[:, 0, 0], 2 * np.einsum("a,man->mn", d, Qm[:, 0, 1:]),
                             np.einsum("a,b,mabn->mn", d, d, Qm[:, 1:, 1:])], axis=1)  # fmt: skip

        U = kernel_taylor_gram(k, along(Q, u), along(Q, v))
        mono = {0: (slice(0, 1), lambda d: np.ones(1)), 1: (slice(1, 3), lambda d: d),
                2: (slice(3, 6), lambda d: np.array([d[0] ** 2, d[0] * d[1], d[1] ** 2]))}  # fmt: skip
        for s in range(3):
            for p in range(3):
                (si, fu), (sj, fv) = mono[s], mono[p]
                pred = np.einsum("a,iajb,b->ij", fu(u), K[:, si, :, sj], fv(v))
                np.testing.assert_allclose(pred, U[:, s, :, p], atol=1e-11 * max(1.0, np.abs(U).max()))
