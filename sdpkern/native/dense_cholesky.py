"""Dense Cholesky factorisations that stay within what the bundled OpenBLAS survives.

SciPy's and NumPy's wheels ship OpenBLAS, whose threaded ``dpotrf`` ends in ``dsyrk_thread``;
from about 16,000 rows on two or more threads it writes past a packing buffer and kills the
process with a segmentation fault (OpenBLAS issues #352, #1413 and #2821 report the same path;
docs/native.md has the sizes measured with SciPy 1.17's OpenBLAS 0.3.31). A dense factor
of that size is an everyday object here: the hyperkernel alignment factorises K(β) + εI over
all m points. So every dense factorisation goes through :func:`cho_factor` / :func:`cholesky`
below: LAPACK's own ``dpotrf`` up to :data:`DIRECT_MAX` rows, and above it a left-looking
blocked factorisation whose only large calls are ``dgemm`` (the updates) and ``dtrsm`` (the
panels), with ``dpotrf`` on blocks of :data:`BLOCK` rows. The flops are LAPACK's, n³/3.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.linalg import LinAlgError
from scipy.linalg.lapack import dpotrf

from .._newtoncore import cholesky_blocked, solve_triangular_split

__all__ = [
    "BLOCK", "DIRECT_MAX", "SPLIT_ORDER", "BorderedCholesky", "cho_factor", "cholesky", "solve_triangular",
    "upper_factor_into",
]  # fmt: skip

Array = NDArray[np.float64]

#: the largest order factorised by one LAPACK call (well below the ~16,000 where it fails)
DIRECT_MAX = 8192
#: rows of a diagonal block of the blocked factorisation (LAPACK's panel width is far smaller:
#: this only bounds the ``dpotrf`` calls and sets the ``dgemm`` updates' inner size)
BLOCK = 512
#: the order from which a factorisation asked for with ``threads`` splits its level-3 calls in two
#: (:func:`cholesky`), and the diagonal blocks' rows there
SPLIT_ORDER = 512
SPLIT_BLOCK = 128


def _factor(A: Array, lower: bool, overwrite_a: bool, clean: bool, threads: int | None = None) -> Array:
    """The factor in A's place (``overwrite_a``) or a copy; the other triangle zero if ``clean``."""
    a = np.asarray(A, dtype=np.float64, order="F") if overwrite_a else np.array(A, dtype=np.float64, order="F")
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"expected a square matrix, got shape {a.shape}")
    if threads is not None and SPLIT_ORDER <= a.shape[0] <= DIRECT_MAX:
        c = a
        info = cholesky_blocked(a, SPLIT_BLOCK, lower, max(1, threads))
        if clean and info == 0:
            _clear_other_triangle(c if lower else c.T)
    elif a.shape[0] <= DIRECT_MAX:
        c, info = dpotrf(a, lower=int(lower), clean=int(clean), overwrite_a=1)
        if info < 0:
            raise RuntimeError(f"dpotrf: argument {-info} invalid")
    else:
        c = a
        info = cholesky_blocked(a, BLOCK, lower)
        if clean and info == 0:
            _clear_other_triangle(c if lower else c.T)
    if info > 0:
        raise LinAlgError(f"{info}-th leading minor of the array is not positive definite")
    return np.asarray(c)


def cho_factor(
    A: Array, lower: bool = False, overwrite_a: bool = False, threads: int | None = None
) -> tuple[Array, bool]:
    """SciPy's :func:`scipy.linalg.cho_factor` at any order.

    Parameters
    ----------
    A : (n, n) array
        Symmetric positive definite; only the triangle ``lower`` names is read. Not checked for
        finiteness.
    lower : bool
        Factor A = LLᵀ (True) or A = RᵀR (False).
    overwrite_a : bool
        Factorise in A's storage where A is a Fortran-ordered float64 array.
    threads : int or None
        As in :func:`cholesky`.

    Returns
    -------
    c : (n, n) array
        The factor in the triangle read; the other triangle is A's, untouched (as LAPACK's).
    lower : bool
        As given: ``(c, lower)`` is what :func:`scipy.linalg.cho_solve` takes.

    Raises
    ------
    numpy.linalg.LinAlgError
        A leading minor is not positive definite.
    """
    return _factor(A, lower, overwrite_a, False, threads), lower


def cholesky(A: Array, lower: bool = False, overwrite_a: bool = False, threads: int | None = None) -> Array:
    """SciPy's :func:`scipy.linalg.cholesky` at any order: the triangular factor (parameters as
    :func:`cho_factor`), the other triangle zero.

    ``threads`` (an int): from :data:`SPLIT_ORDER` rows on, the blocked factorisation with each
    ``dgemm`` and ``dtrsm`` in two parts, the second by another thread where ``threads`` ≥ 2, BLAS
    keeping one thread (a fit's ``n_jobs``: the same calls, so the same bits, for any number;
    about 1.6 times as fast on two cores from 1000 rows on, docs/native.md). None: LAPACK's
    ``dpotrf`` up to :data:`DIRECT_MAX` rows.

    Raises
    ------
    numpy.linalg.LinAlgError
        A leading minor is not positive definite.
    """
    return _factor(A, lower, overwrite_a, True, threads)


def solve_triangular(R: Array, B: Array, trans: bool = False, threads: int = 1, order: int | None = None) -> Array:
    """op(R)⁻¹B for an upper triangular R (op(R) = Rᵀ with ``trans``), B's columns in two parts
    from 16 columns on, the second by another thread where ``threads`` ≥ 2 (the same bits for any
    number). ``order``: R is the leading block of that order of the (Fortran-ordered) array given
    (:func:`upper_factor_into`). B is copied to a new array (Fortran order) that holds the result."""
    X = np.array(B if np.ndim(B) == 2 else np.reshape(B, (-1, 1)), dtype=np.float64, order="F")
    Ra = np.asarray(R, dtype=np.float64, order="F")
    solve_triangular_split(Ra, X, False, trans, threads, -1 if order is None else order)
    return X if np.ndim(B) == 2 else X[:, 0]


def upper_factor_into(buf: Array, M: Array, threads: int) -> None:
    """The upper Cholesky factor R (RᵀR = M) of the symmetric positive definite M (m × m) into the
    leading m × m block of ``buf`` (Fortran order, at least m × m: a factor kept with room to grow,
    so that points appended later write their columns in place instead of copying it), by the
    blocked factorisation with its calls in two parts (:func:`cholesky` with ``threads``: the same
    bits for any number). Only R's triangle is written; the rest of ``buf`` is not read. M may be
    that leading block already (gathered there: ``GramOperator.block(..., out=buf)``), and is then
    not copied.

    Raises
    ------
    numpy.linalg.LinAlgError
        A leading minor is not positive definite.
    """
    m = M.shape[0]
    lead = buf[:m, :m]
    if not (M.ctypes.data == lead.ctypes.data and M.strides == lead.strides):
        lead[...] = M  # (the upper triangle is read: M's, as LAPACK's factor of M would read it)
    info = cholesky_blocked(buf, SPLIT_BLOCK, False, max(1, threads), m)
    if info > 0:
        raise LinAlgError(f"{info}-th leading minor of the array is not positive definite")


def _clear_other_triangle(L: Array) -> None:
    """Zero the strict upper triangle of the square view ``L``, by blocks of columns (no index
    arrays of n² entries)."""
    n = L.shape[0]
    for j0 in range(0, n, 256):
        j1 = min(j0 + 256, n)
        L[:j0, j0:j1] = 0.0
        L[j0:j1, j0:j1] = np.tril(L[j0:j1, j0:j1])


@dataclass
class BorderedCholesky:
    """P⁻¹ for a symmetric positive definite P = [[P_FF, P_FA], [P_AF, P_AA]] from a Cholesky factor
    of P_FF and the border A by its Schur complement S = P_AA − P_AF P_FF⁻¹ P_FA (block
    elimination: a border of a points costs a solves with the kept factor and an a × a
    factorisation, where a factorisation of order f + a would cost (f + a)³/3 flops).

    Calling it on R (F's rows at ``rows_F`` of R, A's at ``rows_A``) gives P⁻¹R by
    x_A = S⁻¹(R_A − Wᵀ R_F), x_F = P_FF⁻¹R_F − W x_A with W = P_FF⁻¹P_FA. Used where an SMO point's
    face misses a few free points (the ν-regression's face step,
    :mod:`sdpkern.native.hyperkernel_families`) and for the master's Hessian from the same factor.

    Attributes
    ----------
    factor : tuple
        ``cho_factor`` of P_FF (SciPy's form).
    rows_F, rows_A : int arrays
        The positions of F's and A's rows in the right-hand sides.
    W : (f, a) array
        P_FF⁻¹ P_FA.
    schur : tuple or None
        ``cho_factor`` of S (None without a border).
    scale : float
        P is this times the matrix factorised (its inverse divided by it): a scaled system
        shares the factor.
    """

    factor: tuple[Array, bool]
    rows_F: NDArray[np.intp]
    rows_A: NDArray[np.intp]
    W: Array
    schur: tuple[Array, bool] | None
    scale: float = 1.0

    @classmethod
    def plain(cls, factor: tuple[Array, bool]) -> BorderedCholesky:
        """No border: P = P_FF."""
        f = factor[0].shape[0]
        return cls(factor, np.arange(f), np.zeros(0, dtype=np.intp), np.zeros((f, 0)), None)

    def bordered(
        self, rows_F: NDArray[np.intp], rows_A: NDArray[np.intp], P_FA: Array, P_AA: Array
    ) -> BorderedCholesky:
        """The same factor of P_FF with the border ``P_FA`` (f × a), ``P_AA`` (a × a) at the rows
        ``rows_A`` (F's at ``rows_F``) of the right-hand sides, unscaled.

        Raises
        ------
        numpy.linalg.LinAlgError
            S is not definite in floating point.
        """
        from scipy.linalg import cho_solve

        W = np.asarray(cho_solve(self.factor, P_FA, check_finite=False), dtype=np.float64)
        S = P_AA - P_FA.T @ W
        schur = cho_factor(0.5 * (S + S.T), lower=True) if rows_A.size else None
        return BorderedCholesky(self.factor, rows_F, rows_A, W, schur)

    def with_scale(self, scale: float) -> BorderedCholesky:
        """The same solver for ``scale`` times the matrix factorised."""
        return BorderedCholesky(self.factor, self.rows_F, self.rows_A, self.W, self.schur, scale)

    def __call__(self, R: Array) -> Array:
        """P⁻¹R (R of one or more columns)."""
        from scipy.linalg import cho_solve

        R = np.asarray(R, dtype=np.float64)
        out = np.empty_like(R)
        z = cho_solve(self.factor, R[self.rows_F], check_finite=False)
        if self.schur is not None:
            xA = cho_solve(self.schur, R[self.rows_A] - self.W.T @ R[self.rows_F], check_finite=False)
            z -= self.W @ xA
            out[self.rows_A] = xA
        out[self.rows_F] = z
        return out / self.scale if self.scale != 1.0 else out
