"""Pseudo-Euclidean embedding and the suitability criteria of non-p.d. SVMs (001).

001 Proposition 1 (construction in Appendix A): a symmetric squared-distance matrix ``D`` with
zero diagonal is reproduced exactly by points of a pseudo-Euclidean space ``R^(p,q)`` whose
inner product is ``⟨z, z'⟩ = zᵀ M z'`` with ``M = diag(1_p, −1_q)``. Build the centred kernel
``K_c = −½ J D J`` (``J = I − 11ᵀ/n``), diagonalise ``K_c = U Λ Uᵀ`` with the ``p`` positive
eigenvalues first, then the ``q`` negative ones, and take ``Φ(x_i)`` = row ``i`` of
``U |Λ|^{1/2}`` restricted to the non-zero eigenvalues. A kernel ``k`` enters through its induced
squared distance ``d²(x, x') = k(x, x) + k(x', x') − 2k(x, x')`` (001 eq. (2)), and then
``K_c = J K J``.

The suitability criteria of 001 §6 for an SVM trained with an arbitrary symmetric kernel:
the ratio of coefficients at the upper bound ``C`` (an upper bound on the training error), the
sign of ``wᵀMw = Σ_ij α_i α_j y_i y_j k(x_i, x_j)`` (001 eq. (12); a non-positive value dismisses
the solution), and the number of negative eigenvalues. A kernel whose centred matrix has no
positive eigenvalue (for instance ``−k`` with ``k`` p.d.) gives ``wᵀMw ≤ 0`` for every ``α`` with
``Σ α_i y_i = 0``, so it is flagged before training.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import as_matrix
from ..errors import DataError, ParameterError, UnsuitableKernelWarning
from ..kernels.spectrum import center_kernel, check_symmetric

__all__ = [
    "PseudoEuclideanEmbedding",
    "pseudo_euclidean_embedding",
    "induced_squared_distances",
    "SuitabilityReport",
    "UnsuitableKernelWarning",
    "kernel_suitability",
    "svm_suitability",
    "wMw",
]


@dataclass(frozen=True)
class PseudoEuclideanEmbedding:
    """Points of ``R^(p,q)`` reproducing a squared-distance matrix (001 Proposition 1).

    Attributes
    ----------
    coordinates : ndarray of shape (n, p + q)
        ``Φ(x_i)``: the ``p`` "real" coordinates, then the ``q`` "imaginary" ones.
    p, q : int
        The signature.
    eigenvalues : ndarray of shape (p + q,)
        The kept eigenvalues of the centred kernel (positive ones descending, then negative
        ones by decreasing magnitude).
    vectors : ndarray of shape (n, p + q)
        The corresponding eigenvectors.
    train_kernel : ndarray of shape (n, n) or None
        The (uncentred) kernel the embedding came from, needed by :meth:`transform`.
    """

    coordinates: NDArray[np.float64]
    p: int
    q: int
    eigenvalues: NDArray[np.float64]
    vectors: NDArray[np.float64]
    train_kernel: NDArray[np.float64] | None = field(default=None, repr=False)

    @property
    def signature(self) -> tuple[int, int]:
        """``(p, q)``."""
        return self.p, self.q

    @property
    def metric(self) -> NDArray[np.float64]:
        """``M = diag(1_p, −1_q)``."""
        return np.concatenate([np.ones(self.p), -np.ones(self.q)])

    def inner(self, Z1: ArrayLike, Z2: ArrayLike | None = None) -> NDArray[np.float64]:
        """Pseudo-Euclidean inner products ``Z1 M Z2ᵀ``."""
        A = np.asarray(Z1, dtype=np.float64)
        B = A if Z2 is None else np.asarray(Z2, dtype=np.float64)
        return (A * self.metric) @ B.T

    def squared_distances(self) -> NDArray[np.float64]:
        """``‖Φ(x_i) − Φ(x_j)‖² = K_ii + K_jj − 2K_ij`` in ``R^(p,q)`` (may be negative)."""
        G = self.inner(self.coordinates)
        g = np.diag(G)
        return g[:, None] + g[None, :] - 2 * G

    def transform(self, K_test: ArrayLike) -> NDArray[np.float64]:
        """Embed new points from their kernel values with the training points, shape (m, n).

        ``Φ(x) = M |Λ|^{-1/2} Uᵀ k_c(x)`` with ``k_c`` the kernel row centred by the training
        means; on the training rows this returns :attr:`coordinates`.
        """
        if self.train_kernel is None:
            raise ParameterError("transform needs an embedding built from a kernel matrix (kernel=...)")
        Kc = center_kernel(self.train_kernel, K_test)
        return (Kc @ self.vectors) / np.sqrt(np.abs(self.eigenvalues)) * self.metric


def induced_squared_distances(K: ArrayLike) -> NDArray[np.float64]:
    """``d²(x_i, x_j) = k(x_i, x_i) + k(x_j, x_j) − 2k(x_i, x_j)`` (001 eq. (2))."""
    Ka = check_symmetric(K)
    d = np.diag(Ka)
    return d[:, None] + d[None, :] - 2 * Ka


def pseudo_euclidean_embedding(
    kernel: ArrayLike | None = None,
    *,
    squared_distances: ArrayLike | None = None,
    tol: float = 1e-10,
) -> PseudoEuclideanEmbedding:
    """Isometric embedding in ``R^(p,q)`` of a kernel or a squared-distance matrix (001 Prop. 1).

    Parameters
    ----------
    kernel : array of shape (n, n), optional
        Symmetric kernel matrix (any signature).
    squared_distances : array of shape (n, n), optional
        Symmetric matrix of squared distances with zero diagonal (entries may be negative).
        Give exactly one of ``kernel`` and ``squared_distances``.
    tol : float
        Eigenvalues with ``|λ| ≤ tol · max|λ|`` are treated as zero and dropped.

    Returns
    -------
    PseudoEuclideanEmbedding

    Raises
    ------
    DataError
        Non-symmetric input, or a squared-distance matrix with a non-zero diagonal.

    Examples
    --------
    >>> import numpy as np
    >>> D = np.array([[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [4.0, 1.0, 0.0]])  # points 0, 1, 2 on a line
    >>> emb = pseudo_euclidean_embedding(squared_distances=D)
    >>> emb.signature, bool(np.allclose(emb.squared_distances(), D))
    ((1, 0), True)
    """
    if (kernel is None) == (squared_distances is None):
        raise ParameterError("give exactly one of kernel= and squared_distances=")
    if kernel is not None:
        Ka = check_symmetric(kernel, "kernel")
        Kc = center_kernel(Ka)
    else:
        D = check_symmetric(squared_distances, "squared_distances")  # type: ignore[arg-type]
        diag = np.abs(np.diag(D))
        if diag.max(initial=0.0) > 1e-12 * max(1.0, float(np.abs(D).max(initial=0.0))):
            raise DataError(
                "squared_distances must have a zero diagonal (d²(x, x) = 0, 001 Proposition 1); "
                f"found |diagonal| up to {diag.max():.3g}"
            )
        Ka = None
        Kc = -0.5 * center_kernel(D)
    Kc = (Kc + Kc.T) / 2
    lam, U = np.linalg.eigh(Kc)
    thr = tol * max(float(np.abs(lam).max(initial=0.0)), np.finfo(float).tiny)
    pos = np.nonzero(lam > thr)[0][::-1]
    neg = np.nonzero(lam < -thr)[0]
    keep = np.concatenate([pos, neg])
    vals, vecs = lam[keep], U[:, keep]
    coords = vecs * np.sqrt(np.abs(vals))
    return PseudoEuclideanEmbedding(
        coordinates=coords, p=int(pos.size), q=int(neg.size), eigenvalues=vals, vectors=vecs, train_kernel=Ka
    )


def wMw(K: ArrayLike, dual_coef: ArrayLike) -> float:
    """``wᵀMw = Σ_ij α_i α_j y_i y_j k(x_i, x_j)`` (001 eq. (12)) from ``dual_coef = α ∘ y``.

    Equals the pseudo-Euclidean squared norm of ``w = Σ α_i y_i Φ(x_i)`` when ``Σ α_i y_i = 0``.
    """
    Ka = as_matrix(K, "K")
    c = np.asarray(dual_coef, dtype=np.float64).reshape(-1)
    if c.shape[0] != Ka.shape[0]:
        raise DataError(f"dual_coef has {c.shape[0]} entries but K has {Ka.shape[0]} rows")
    return float(c @ Ka @ c)


@dataclass(frozen=True)
class SuitabilityReport:
    """The criteria of 001 §6 for an SVM trained with a symmetric, possibly indefinite kernel.

    Attributes
    ----------
    n_positive, n_negative : int
        Signature ``(p, q)`` of the centred kernel matrix (of the embedding).
    negative_mass : float
        ``Σ|λ_−| / Σ|λ|`` over the centred kernel's eigenvalues.
    bounded_sv_ratio : float or None
        Fraction of training points with ``α_i = C`` (an upper bound on the training error).
    wMw : float or None
        ``wᵀMw`` by 001 eq. (12).
    wMw_sign : int or None
        Its sign.
    suitable : bool
        False when the solution (or, before training, the kernel) should be dismissed: the
        centred kernel has no positive eigenvalue, or ``wᵀMw ≤ 0`` (001 §6).
    reasons : tuple of str
        Why it was flagged (empty when suitable).
    notes : tuple of str
        Warnings that do not dismiss the solution (many bounded coefficients: the training-error
        bound they give is weak).
    """

    n_positive: int
    n_negative: int
    negative_mass: float
    bounded_sv_ratio: float | None = None
    wMw: float | None = None
    wMw_sign: int | None = None
    suitable: bool = True
    reasons: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def _centred_signature(K: NDArray[np.float64], tol: float) -> tuple[int, int, float]:
    lam = np.linalg.eigvalsh(center_kernel(K))
    thr = tol * max(float(np.abs(lam).max(initial=0.0)), np.finfo(float).tiny)
    total = float(np.abs(lam).sum())
    neg_mass = float(np.abs(lam[lam < -thr]).sum()) / total if total > 0 else 0.0
    return int(np.sum(lam > thr)), int(np.sum(lam < -thr)), neg_mass


def kernel_suitability(K: ArrayLike, *, tol: float = 1e-10) -> SuitabilityReport:
    """Before training: flag a kernel whose centred matrix has no positive eigenvalue (001 §6).

    Then ``J K J ⪯ 0`` and ``wᵀMw = cᵀKc = cᵀJKJc ≤ 0`` for every ``c = α ∘ y`` with
    ``Σ c_i = 0``, whatever the labels: ``−⟨x, x'⟩`` and ``−exp(−γ‖x − x'‖²)`` are examples.
    """
    Ka = check_symmetric(K)
    p, q, mass = _centred_signature(Ka, tol)
    reasons: list[str] = []
    if p == 0:
        reasons.append(
            "the centred kernel matrix has no positive eigenvalue (the kernel is the negative of a c.p.d. one), "
            "so w'Mw <= 0 for every SVM solution (001 Section 6)"
        )
    return SuitabilityReport(
        n_positive=p, n_negative=q, negative_mass=mass, suitable=not reasons, reasons=tuple(reasons)
    )


def svm_suitability(
    K: ArrayLike,
    dual_coef: ArrayLike,
    C: float | ArrayLike,
    *,
    tol: float = 1e-10,
    bounded_tol: float = 1e-8,
    max_bounded_ratio: float = 0.5,
) -> SuitabilityReport:
    """After training: the three criteria of 001 §6 for dual coefficients ``α ∘ y``.

    Parameters
    ----------
    K : array of shape (n, n)
        Training kernel matrix.
    dual_coef : array of shape (n,)
        ``α_i y_i`` for every training point (0 for non-support vectors).
    C : float or array of shape (n,)
        The box bound of the dual (per point with sample weights: C·w_i).
    max_bounded_ratio : float
        Above this fraction of bounded coefficients the training-error bound is uninformative
        and a note is added (001 Figure 6 shows unsuitable SVMs with most ``α_i = C``); only
        ``wᵀMw ≤ 0`` and a kernel without positive centred eigenvalues dismiss the solution.
    """
    Ka = check_symmetric(K)
    c = np.asarray(dual_coef, dtype=np.float64).reshape(-1)
    if c.shape[0] != Ka.shape[0]:
        raise DataError(f"dual_coef has {c.shape[0]} entries but K has {Ka.shape[0]} rows")
    pre = kernel_suitability(Ka, tol=tol)
    value = wMw(Ka, c)
    bound = np.broadcast_to(np.asarray(C, dtype=np.float64), c.shape)
    ratio = float(np.mean((np.abs(c) >= bound * (1 - bounded_tol)) & (bound > 0)))
    reasons = list(pre.reasons)
    if value <= 0:
        reasons.append(
            f"w'Mw = {value:.3g} <= 0 (001 eq. (12)): Mw and w point to opposite sides; dismiss the solution"
        )
    notes = []
    if ratio > max_bounded_ratio:
        notes.append(f"{ratio:.0%} of the coefficients are at the bound C, so the training error may be that high")
    return SuitabilityReport(
        n_positive=pre.n_positive,
        n_negative=pre.n_negative,
        negative_mass=pre.negative_mass,
        bounded_sv_ratio=ratio,
        wMw=value,
        wMw_sign=int(np.sign(value)),
        suitable=not reasons,
        reasons=tuple(reasons),
        notes=tuple(notes),
    )
