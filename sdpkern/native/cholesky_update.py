"""Modifying a Cholesky factor instead of refactorising (000 Appendix B; Golub & Van Loan §12.5).

All functions work on an *upper* triangular ``R`` with ``A = RᵀR`` (the convention of 000
Appendix B, H = LᵀL with L upper triangular) and return a new array:

:func:`chol_update`        A + x xᵀ            O(n²)
:func:`chol_downdate`      A − x xᵀ            O(n²), raises :class:`NotPSDError` if not PD
:func:`chol_append`        [[A, b], [bᵀ, c]]   O(n²)  (a Cholesky *expansion*)
:func:`chol_delete`        A without row/column i   O(n²) (a rank-one update of the trailing block)

The rank-one update and downdate use the product form of Gill, Golub, Murray & Saunders
(1974, method C1): with p = R⁻ᵀx, A ± xxᵀ = Rᵀ(I ± ppᵀ)R, and the Cholesky factor U of
I ± ppᵀ is diag(δ) + triu(w pᵀ, 1). Then R' = U R, whose row j is δ_j R_j + w_j Σ_{i>j} p_i R_i:
one triangular solve and one reversed cumulative sum, with no Python loop over columns.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.linalg import solve_triangular

from ..errors import DataError, NotPSDError

__all__ = ["chol_update", "chol_downdate", "chol_append", "chol_delete"]

Array = NDArray[np.float64]


def _check(R: Array, x: Array | None = None) -> None:
    if R.ndim != 2 or R.shape[0] != R.shape[1]:
        raise DataError(f"R must be a square upper triangular matrix, got shape {R.shape}")
    if x is not None and x.shape != (R.shape[0],):
        raise DataError(f"x must have shape ({R.shape[0]},), got {x.shape}")


def _product_form(R: Array, x: Array, sign: float) -> Array:
    n = R.shape[0]
    if n == 0:
        return R.copy()
    p = solve_triangular(R, x, trans="T", lower=False, check_finite=False)
    # Cholesky of I + σ p pᵀ: pivot d_j = 1 + a_j p_j², column below = a_j p_j p / √d_j, and the
    # Schur complement is I + a_{j+1} p pᵀ with a_{j+1} = a_j / d_j. With b_j = 1/a_j this is
    # b_{j+1} = b_j + p_j², so b = σ + cumsum(p²) and d_j = b_{j+1}/b_j: no loop at all.
    b = sign + np.concatenate(([0.0], np.cumsum(p * p)))
    d = b[1:] / b[:-1]
    if not np.all(d > 0.0) or not np.all(np.isfinite(d)):
        raise NotPSDError(
            "chol_downdate: A - x x^T is not positive definite (the downdate would remove more than A holds)",
            min_eigenvalue=None,
        )
    delta = np.sqrt(d)
    w = p / (b[:-1] * delta)
    # T[j] = Σ_{i≥j} p_i R_i (an in-place reversed cumulative sum); row j of R' is
    # δ_j R_j + w_j T[j+1]. T[j+1] vanishes left of column j+1 (R is upper triangular), so R'
    # is exactly upper triangular without masking.
    T = p[:, None] * R
    rev = T[::-1]
    np.cumsum(rev, axis=0, out=rev)
    Rn = R * delta[:, None]
    if n > 1:
        T[1:] *= w[:-1, None]
        Rn[:-1] += T[1:]
    return Rn


def chol_update(R: Array, x: Array) -> Array:
    """Upper factor of RᵀR + x xᵀ (a rank-one update, 000 Appendix B "Rank One Cholesky Updates").

    Examples
    --------
    >>> A = np.array([[4.0, 2.0], [2.0, 3.0]]); x = np.array([1.0, 2.0])
    >>> R = chol_update(np.linalg.cholesky(A).T, x)
    >>> bool(np.allclose(R.T @ R, A + np.outer(x, x)))
    True
    """
    R = np.asarray(R, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    _check(R, x)
    return _product_form(R, x, 1.0)


def chol_downdate(R: Array, x: Array) -> Array:
    """Upper factor of RᵀR − x xᵀ (a rank-one downdate); :class:`NotPSDError` if that is not PD."""
    R = np.asarray(R, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    _check(R, x)
    return _product_form(R, x, -1.0)


def chol_append(R: Array, b: Array, c: float) -> Array:
    """Upper factor of [[RᵀR, b], [bᵀ, c]] (a Cholesky expansion by one row and column).

    The new column is r = R⁻ᵀb and the new diagonal entry √(c − ‖r‖²); :class:`NotPSDError` when
    the expanded matrix is not positive definite.
    """
    R = np.asarray(R, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    _check(R, b)
    n = R.shape[0]
    r = solve_triangular(R, b, trans="T", lower=False, check_finite=False) if n else np.zeros(0)
    rho2 = float(c) - float(r @ r)
    if not rho2 > 0.0:
        raise NotPSDError(
            f"chol_append: the expanded matrix is not positive definite (Schur complement {rho2:.3g})",
            min_eigenvalue=None,
        )
    out = np.zeros((n + 1, n + 1))
    out[:n, :n] = R
    out[:n, n] = r
    out[n, n] = np.sqrt(rho2)
    return out


def chol_delete(R: Array, i: int) -> Array:
    """Upper factor of A with row and column ``i`` removed.

    With R = [[R₁₁, r₁₂, R₁₃], [0, r₂₂, r₂₃], [0, 0, R₃₃]], the answer is
    [[R₁₁, R₁₃], [0, R₃₃']] where R₃₃'ᵀR₃₃' = R₃₃ᵀR₃₃ + r₂₃ᵀr₂₃ (a rank-one update).
    """
    R = np.asarray(R, dtype=np.float64)
    _check(R)
    n = R.shape[0]
    if not 0 <= i < n:
        raise DataError(f"i={i} is out of range for a factor of order {n}")
    out = np.empty((n - 1, n - 1))
    out[:i, :i] = R[:i, :i]
    out[:i, i:] = R[:i, i + 1 :]
    out[i:, :i] = 0.0
    if i < n - 1:
        out[i:, i:] = chol_update(R[i + 1 :, i + 1 :], R[i, i + 1 :])
    return out
