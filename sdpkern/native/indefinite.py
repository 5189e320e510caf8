"""Learning with indefinite kernels (002 Ch. 4 and 6): the building blocks of the estimators.

- :func:`krein_spline_smoothing`: the stationary point of the spline-smoothing criterion in a
  reproducing kernel Kreĭn space, 002 eq. (4.6).
- :func:`indefinite_kpca`: kernel PCA keeping the eigenvalues of largest magnitude (002 §6.1).
- :func:`fisher_system`: the kernel Fisher discriminant system ``N α = μ₊ − μ₋`` (002 §6.3) as
  an operator that never forms ``N``.
- :func:`best_offset`: the offset with the fewest training errors for given scores.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.sparse.linalg import LinearOperator

from .._validation import as_vector, check_positive
from ..errors import DataError, LabelError, ParameterError
from ..kernels.gram import GramOperator
from ..kernels.spectrum import center_kernel, check_symmetric

__all__ = [
    "krein_spline_smoothing",
    "KPCAResult",
    "indefinite_kpca",
    "fisher_system",
    "best_offset",
]


def krein_spline_smoothing(
    K: ArrayLike | GramOperator, y: ArrayLike, lam: float, *, rtol: float = 1e-10
) -> NDArray[np.float64]:
    """Stationary point of Kreĭn-space spline smoothing, 002 eq. (4.6).

    ``J(f) = (1/m) Σ_i (y_i − f(x_i))² + λ ⟨f, f⟩_K`` with ``f = Σ_j α_j k(x_j, ·)`` becomes
    ``J(α) = (1/m)‖y − Kα‖² + λ αᵀKα``, whose gradient ``(2/m) K ((K + mλI)α − y)`` vanishes at

        (K + mλ I) α = y.

    For an indefinite ``K`` this is a stationary point, not a minimum (002 §4.3.1), and the
    system is singular when ``−mλ`` is an eigenvalue of ``K`` (002 §4.3.2, §5.3.2).

    Parameters
    ----------
    K : array of shape (m, m)
        Symmetric kernel matrix (any signature).
    y : array of shape (m,)
    lam : float
        ``λ > 0``.
    rtol : float
        ``K + mλI`` counts as singular when an eigenvalue of it is below ``rtol · ‖K‖``.

    Returns
    -------
    ndarray of shape (m,)
        ``α``.

    Raises
    ------
    ParameterError
        ``−mλ`` is (numerically) an eigenvalue of ``K``; the message names the eigenvalue.
    """
    Ka = check_symmetric(K.to_dense() if isinstance(K, GramOperator) else K)
    m = Ka.shape[0]
    ya = as_vector(y, "y", length=m)
    lam = check_positive(lam, "lam")
    ev, U = np.linalg.eigh(Ka)
    shifted = ev + m * lam
    scale = max(float(np.abs(ev).max(initial=0.0)), 1.0)
    hit = int(np.argmin(np.abs(shifted)))
    if abs(shifted[hit]) <= rtol * scale:
        raise ParameterError(
            f"lam={lam!r} makes K + m*lam*I singular: m*lam = {m * lam:.6g} equals minus the eigenvalue "
            f"{ev[hit]:.6g} of K (002 Section 4.3.2); choose another lam, or regularise by early stopping "
            "(KrylovRegressor)"
        )
    return U @ ((U.T @ ya) / shifted)


@dataclass(frozen=True)
class KPCAResult:
    """Eigenpairs of the centred kernel with the largest ``|λ|`` (002 §6.1).

    Attributes
    ----------
    eigenvalues : ndarray of shape (k,)
        Sorted by decreasing magnitude; may be negative.
    eigenvectors : ndarray of shape (n, k)
        Unit-norm eigenvectors of the centred kernel.
    """

    eigenvalues: NDArray[np.float64]
    eigenvectors: NDArray[np.float64]


def indefinite_kpca(K: ArrayLike | GramOperator, n_components: int) -> KPCAResult:
    """Kernel PCA for an indefinite kernel: eigenvectors of ``J K J`` with largest ``|λ|``.

    002 §6.1 (MATLAB ``eigs(K, p, 'LM')``): the principal components are those of the majorising
    Hilbert space ``K̄ = K₊ + K₋``, i.e. the eigenvalues of largest magnitude.
    """
    Ka = check_symmetric(K.to_dense() if isinstance(K, GramOperator) else K)
    n = Ka.shape[0]
    if isinstance(n_components, bool) or not isinstance(n_components, (int, np.integer)) or not 1 <= n_components <= n:
        raise ParameterError(f"n_components must be an integer in [1, {n}], got {n_components!r}")
    lam, U = np.linalg.eigh(center_kernel(Ka))
    order = np.argsort(-np.abs(lam), kind="stable")[:n_components]
    return KPCAResult(eigenvalues=lam[order], eigenvectors=U[:, order])


def fisher_system(
    K: ArrayLike | GramOperator, y: ArrayLike
) -> tuple[LinearOperator, NDArray[np.float64], NDArray[np.float64]]:
    """The kernel Fisher discriminant system ``N α = μ₊ − μ₋`` of 002 §6.3.

    With ``μ± = K 1±/m±`` and ``N = KKᵀ − m₊μ₊μ₊ᵀ − m₋μ₋μ₋ᵀ``, ``N = K B K`` where
    ``B = I − 1₊1₊ᵀ/m₊ − 1₋1₋ᵀ/m₋`` removes the class means; ``N`` is symmetric positive
    semidefinite for any symmetric ``K`` and singular (rank ≤ m − 2), which early stopping
    handles. ``N v`` costs two products with ``K`` and ``N`` is never formed.

    Parameters
    ----------
    K : array of shape (m, m)
        Symmetric kernel matrix.
    y : array of shape (m,)
        Labels in {-1, +1}.

    Returns
    -------
    N : LinearOperator
    rhs : ndarray of shape (m,)
        ``μ₊ − μ₋``.
    class_means : ndarray of shape (2, m)
        ``μ₋`` and ``μ₊``: ``μ±ᵀα`` is the mean score of each class.
    """
    Ka = K.to_dense() if isinstance(K, GramOperator) else np.asarray(K, dtype=np.float64)
    if Ka.ndim != 2 or Ka.shape[0] != Ka.shape[1]:
        raise DataError(f"K must be a square matrix, got shape {Ka.shape}")
    ya = np.asarray(y, dtype=np.float64).reshape(-1)
    if ya.shape[0] != Ka.shape[0]:
        raise DataError(f"y has {ya.shape[0]} entries but K has {Ka.shape[0]} rows")
    pos, neg = ya > 0, ya < 0
    if not pos.any() or not neg.any():
        raise LabelError("y must contain both classes (-1 and +1) for the Fisher discriminant")
    # Class indicators scaled by 1/m±: products with them replace boolean-mask copies of K.
    P = np.column_stack([neg / neg.sum(), pos / pos.sum()]).astype(np.float64)
    means = (Ka @ P).T
    ind = np.column_stack([neg, pos]).astype(np.float64)

    def matvec(v: NDArray[np.float64]) -> NDArray[np.float64]:
        u = Ka @ np.ravel(v)
        u = u - ind @ (P.T @ u)
        return Ka @ u

    N = LinearOperator((Ka.shape[0], Ka.shape[0]), matvec=matvec, rmatvec=matvec, dtype=np.float64)
    return N, means[1] - means[0], means


def best_offset(scores: ArrayLike, y: ArrayLike) -> float:
    """Offset ``b`` minimising the training errors of ``sign(score + b)`` (ties: the middle one).

    Candidate thresholds are the midpoints between consecutive sorted scores (and beyond both
    ends); errors for all of them come from cumulative sums, so this is ``O(m log m)``.
    """
    s = np.asarray(scores, dtype=np.float64).reshape(-1)
    ya = np.asarray(y, dtype=np.float64).reshape(-1)
    order = np.argsort(s, kind="stable")
    ss, yy = s[order], ya[order]
    # Threshold between position j-1 and j: points < threshold predicted -1.
    pos_below = np.concatenate([[0], np.cumsum(yy > 0)])
    neg_above = np.concatenate([[0], np.cumsum((yy < 0)[::-1])])[::-1]
    errors = pos_below + neg_above
    distinct = np.concatenate([[True], ss[1:] > ss[:-1], [True]])
    errors = np.where(distinct, errors, np.iinfo(np.int64).max)
    best = np.nonzero(errors == errors.min())[0]
    j = int(best[len(best) // 2])
    if j == 0:
        thr = ss[0] - 1.0
    elif j == ss.shape[0]:
        thr = ss[-1] + 1.0
    else:
        thr = 0.5 * (ss[j - 1] + ss[j])
    return float(-thr)
