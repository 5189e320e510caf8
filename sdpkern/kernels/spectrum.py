"""Spectrum tools for symmetric (possibly indefinite) kernel matrices (001 §2, §6; 002 Ch. 4).

``eigen_signature`` counts positive, negative and zero eigenvalues (the signature ``(p, q)`` of
the pseudo-Euclidean space of 001 Proposition 1), ``center_kernel`` applies ``J K J`` with
``J = I − 11ᵀ/n``, and ``repair_spectrum`` turns an indefinite matrix into a PSD one by one of
the four standard spectrum modifications:

- ``clip``: negative eigenvalues set to 0 (the nearest PSD matrix in Frobenius norm);
- ``flip``: eigenvalues replaced by their absolute values (the kernel of the majorising
  Hilbert space ``k̄ = k₊ + k₋``, 002 §4.2 / §6.1);
- ``shift``: ``K − λ_min I`` when ``λ_min < 0`` (every eigenvalue moved up by ``|λ_min|``);
- ``square``: ``K Kᵀ = U Λ² Uᵀ`` (the eigenvalues squared, as in the normal equations of
  CGNE, 002 Table 5.1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import as_matrix
from ..errors import DataError, ParameterError

__all__ = ["Signature", "eigen_signature", "center_kernel", "repair_spectrum", "REPAIR_METHODS", "check_symmetric"]

REPAIR_METHODS = ("clip", "flip", "shift", "square")


@dataclass(frozen=True)
class Signature:
    """Eigenvalue counts of a symmetric matrix.

    Attributes
    ----------
    positive, negative, zero : int
        Numbers of eigenvalues above ``tol``, below ``-tol``, and in between.
    tol : float
        The threshold used (relative to the largest magnitude).
    eigenvalues : ndarray
        All eigenvalues, ascending.
    """

    positive: int
    negative: int
    zero: int
    tol: float
    eigenvalues: NDArray[np.float64]

    @property
    def pq(self) -> tuple[int, int]:
        """``(p, q)``: the signature of the pseudo-Euclidean space (001 Proposition 1)."""
        return self.positive, self.negative


def check_symmetric(K: ArrayLike, name: str = "K") -> NDArray[np.float64]:
    """Return ``K`` as a finite, square, symmetric float matrix or raise :class:`DataError`."""
    Ka = as_matrix(K, name)
    if Ka.shape[0] != Ka.shape[1]:
        raise DataError(f"{name} must be a square matrix, got shape {Ka.shape}")
    scale = max(1.0, float(np.abs(Ka).max(initial=0.0)))
    asym = float(np.abs(Ka - Ka.T).max(initial=0.0))
    if asym > 1e-10 * scale:
        raise DataError(f"{name} must be symmetric (max |{name} - {name}^T| = {asym:.3g})")
    return (Ka + Ka.T) / 2


def eigen_signature(K: ArrayLike, *, tol: float = 1e-10) -> Signature:
    """Count positive, negative and (numerically) zero eigenvalues of a symmetric ``K``.

    An eigenvalue counts as zero when ``|λ| ≤ tol · max|λ|``.

    Examples
    --------
    >>> eigen_signature([[0.0, 1.0], [1.0, 0.0]]).pq
    (1, 1)
    """
    Ka = check_symmetric(K)
    lam = np.asarray(np.linalg.eigvalsh(Ka), dtype=np.float64)
    thr = tol * max(float(np.abs(lam).max(initial=0.0)), np.finfo(float).tiny)
    return Signature(
        positive=int(np.sum(lam > thr)),
        negative=int(np.sum(lam < -thr)),
        zero=int(np.sum(np.abs(lam) <= thr)),
        tol=thr,
        eigenvalues=lam,
    )


def center_kernel(K: ArrayLike, K_test: ArrayLike | None = None) -> NDArray[np.float64]:
    """Centre a kernel matrix in feature space: ``J K J`` with ``J = I − 11ᵀ/n`` (001 App. A).

    With ``K_test`` (shape (m, n), kernel between new points and the training points) return
    the test rows centred with the training means, as scikit-learn's ``KernelCenterer`` does.
    """
    Ka = as_matrix(K, "K")
    if Ka.shape[0] != Ka.shape[1]:
        raise DataError(f"K must be a square matrix, got shape {Ka.shape}")
    col_mean = Ka.mean(axis=0)
    all_mean = float(col_mean.mean())
    if K_test is None:
        return Ka - col_mean[None, :] - Ka.mean(axis=1)[:, None] + all_mean
    Kt = as_matrix(K_test, "K_test")
    if Kt.shape[1] != Ka.shape[0]:
        raise DataError(f"K_test must have {Ka.shape[0]} columns (one per training point), got {Kt.shape[1]}")
    return Kt - col_mean[None, :] - Kt.mean(axis=1)[:, None] + all_mean


def repair_spectrum(K: ArrayLike, method: str = "clip") -> NDArray[np.float64]:
    """Make a symmetric matrix positive semidefinite by modifying its spectrum.

    Parameters
    ----------
    K : array of shape (n, n)
        Symmetric matrix.
    method : {"clip", "flip", "shift", "square"}
        See the module docstring.

    Returns
    -------
    ndarray of shape (n, n)
        A symmetric PSD matrix (unchanged, up to symmetrisation, if ``K`` was already PSD and
        ``method`` is ``clip``, ``flip`` or ``shift``).

    Examples
    --------
    >>> import numpy as np
    >>> K = np.array([[1.0, 2.0], [2.0, 1.0]])        # eigenvalues 3, -1
    >>> np.round(np.linalg.eigvalsh(repair_spectrum(K, "flip")), 6).tolist()
    [1.0, 3.0]
    """
    if method not in REPAIR_METHODS:
        raise ParameterError(f"method must be one of {REPAIR_METHODS}, got {method!r}")
    Ka = check_symmetric(K)
    lam, U = np.linalg.eigh(Ka)
    if method == "clip":
        new = np.clip(lam, 0.0, None)
    elif method == "flip":
        new = np.abs(lam)
    elif method == "shift":
        new = lam - min(float(lam[0]), 0.0)
    else:
        new = lam**2
    out = (U * new) @ U.T
    return (out + out.T) / 2
