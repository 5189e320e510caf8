"""The compiled symmetric thin-plate Gram Φ(X, X) (issue 15; 000 eq. 11).

``ThinPlate(...)(X)`` runs one BLAS product and one compiled pass
(:func:`sdpkern._svmcore.radial_gram_inplace`). Second route: the NumPy formula it replaced
(squared distances, symmetrised, zero diagonal, then eq. (11)), written out below. Tolerance:
max |Φ − Φ_ref| ≤ 1e-13 · max |Φ_ref| (both read the same d², so only the last bits of log / pow
may differ); symmetry and the zero diagonal are exact.
"""

from __future__ import annotations

import numpy as np
import pytest

from sdpkern.kernels.base import squared_distances
from sdpkern.kernels.cpd import ThinPlate

RTOL = 1e-13

# (data dimension, kernel): the log branch (d_f even: p = 2, 4) and the odd one (p = 1, 3)
CASES = [
    (2, ThinPlate(2)),
    (2, ThinPlate(3)),
    (3, ThinPlate(2)),
    (5, ThinPlate(3)),
    (5, ThinPlate(2, formula_dimension=2)),
    (5, ThinPlate(3, formula_dimension=3)),
    (30, ThinPlate(2, formula_dimension=2)),
    (30, ThinPlate(3, formula_dimension=3)),
    (30, ThinPlate(3, formula_dimension=2)),
]


def reference_gram(kernel: ThinPlate, X: np.ndarray) -> np.ndarray:
    """The NumPy route the compiled pass replaced (000 eq. 11 on symmetrised squared distances)."""
    X = np.asarray(X, dtype=np.float64)
    d = X.shape[1] if kernel.formula_dimension is None else kernel.formula_dimension
    m = kernel.order
    D2 = squared_distances(X)
    D2 = 0.5 * (D2 + D2.T)
    np.fill_diagonal(D2, 0.0)
    p = 2 * m - d
    if d % 2 == 0:
        L = np.zeros_like(D2)
        np.log(D2, out=L, where=D2 > 0.0)
        L *= 0.5 * (-1.0) ** (m - (d - 2) // 2)
        return L * D2 ** (p // 2)
    return (-1.0) ** (m - (d - 1) // 2) * D2 ** (0.5 * p)


def check(K: np.ndarray, R: np.ndarray) -> None:
    assert K.shape == R.shape and K.dtype == np.float64
    assert np.all(np.isfinite(K))
    scale = max(float(np.abs(R).max()), np.finfo(float).tiny)
    assert float(np.abs(K - R).max()) <= RTOL * scale
    assert np.array_equal(K, K.T)
    assert np.all(np.diag(K) == 0.0)


@pytest.mark.parametrize("d,kernel", CASES)
@pytest.mark.parametrize("n", [1, 2, 3, 17, 128, 500])
def test_matches_numpy_route(d: int, kernel: ThinPlate, n: int) -> None:
    X = np.random.default_rng(100 * d + n).standard_normal((n, d))
    check(kernel(X), reference_gram(kernel, X))


@pytest.mark.parametrize("d,kernel", CASES)
def test_duplicate_points(d: int, kernel: ThinPlate) -> None:
    rng = np.random.default_rng(d)
    base = rng.standard_normal((40, d))
    X = base[rng.integers(0, 40, size=120)]  # each point about three times
    # repeated pairs give d² at round-off level (or 0): the same in both routes, no NaN from log 0
    check(kernel(X), reference_gram(kernel, X))


def test_off_diagonal_matches_cross_gram() -> None:
    # the (X, Y) route is a third, independent evaluation away from r = 0
    X = np.random.default_rng(7).standard_normal((60, 2))
    k = ThinPlate(2)
    K, C = k(X), k(X, X[::-1].copy())[:, ::-1]
    off = ~np.eye(60, dtype=bool)
    assert float(np.abs(K - C)[off].max()) <= 1e-12 * float(np.abs(C).max())


@pytest.mark.parametrize("d,kernel", [CASES[0], CASES[3], CASES[6]])
def test_non_float64_and_non_contiguous_input(d: int, kernel: ThinPlate) -> None:
    rng = np.random.default_rng(3)
    wide = rng.standard_normal((90, 2 * d))
    Xs = wide[:, ::2]  # a strided view
    check(kernel(Xs), reference_gram(kernel, np.ascontiguousarray(Xs)))
    Xf = np.asfortranarray(Xs)
    check(kernel(Xf), reference_gram(kernel, np.ascontiguousarray(Xs)))
    X32 = Xs.astype(np.float32)
    check(kernel(X32), reference_gram(kernel, X32.astype(np.float64)))
    assert np.array_equal(kernel(Xs.tolist()), kernel(np.ascontiguousarray(Xs)))
