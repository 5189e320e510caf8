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

import numpy as np
from numpy.typing import NDArray
from scipy.linalg import LinAlgError
from scipy.linalg.lapack import dpotrf

from .._newtoncore import cholesky_blocked

__all__ = ["BLOCK", "DIRECT_MAX", "cho_factor", "cholesky"]

Array = NDArray[np.float64]

#: the largest order factorised by one LAPACK call (well below the ~16,000 where it fails)
DIRECT_MAX = 8192
#: rows of a diagonal block of the blocked factorisation (LAPACK's panel width is far smaller:
#: this only bounds the ``dpotrf`` calls and sets the ``dgemm`` updates' inner size)
BLOCK = 512


def _factor(A: Array, lower: bool, overwrite_a: bool, clean: bool) -> Array:
    """The factor in A's place (``overwrite_a``) or a copy; the other triangle zero if ``clean``."""
    a = np.asarray(A, dtype=np.float64, order="F") if overwrite_a else np.array(A, dtype=np.float64, order="F")
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"expected a square matrix, got shape {a.shape}")
    if a.shape[0] <= DIRECT_MAX:
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


def cho_factor(A: Array, lower: bool = False, overwrite_a: bool = False) -> tuple[Array, bool]:
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
    return _factor(A, lower, overwrite_a, False), lower


def cholesky(A: Array, lower: bool = False, overwrite_a: bool = False) -> Array:
    """SciPy's :func:`scipy.linalg.cholesky` at any order: the triangular factor (parameters as
    :func:`cho_factor`), the other triangle zero.

    Raises
    ------
    numpy.linalg.LinAlgError
        A leading minor is not positive definite.
    """
    return _factor(A, lower, overwrite_a, True)


def _clear_other_triangle(L: Array) -> None:
    """Zero the strict upper triangle of the square view ``L``, by blocks of columns (no index
    arrays of n² entries)."""
    n = L.shape[0]
    for j0 in range(0, n, 256):
        j1 = min(j0 + 256, n)
        L[:j0, j0:j1] = 0.0
        L[j0:j1, j0:j1] = np.tril(L[j0:j1, j0:j1])
