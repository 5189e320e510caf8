"""Low-rank bases: pivoted incomplete Cholesky over lazily computed columns (002 §3.2.1).

The hyperkernel expansion has m² coefficients β_ij. Following 002 §3.2.1 (after Fine &
Scheinberg 2001, Bach & Jordan 2002) we pick p ≪ m² pairs by pivoted incomplete Cholesky of
the hyperkernel Gram matrix K̲, computing only the p columns that are chosen (memory
O(m²·p), never O(m⁴)). The regulariser βᵀK̲β restricted to the chosen pairs S is exactly
β_Sᵀ K̲_SS β_S = ‖L_Sᵀ β_S‖² with L_S the pivot rows of the Cholesky factor.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import as_matrix, check_integer, check_positive
from ..errors import ParameterError
from .hyperkernels import ARDDictionary, Hyperkernel

__all__ = ["IncompleteCholesky", "incomplete_cholesky", "HyperkernelBasis", "hyperkernel_basis"]

Array = NDArray[np.float64]


@dataclass(frozen=True)
class IncompleteCholesky:
    """Result of :func:`incomplete_cholesky`.

    Attributes
    ----------
    G : ndarray (n, p)
        Factor with ``A ≈ G Gᵀ``; ``G[pivots]`` is lower triangular.
    pivots : ndarray (p,)
        Chosen indices, in the order chosen.
    residual_trace : float
        trace(A − G Gᵀ), an upper bound on ‖A − G Gᵀ‖_F for PSD A.
    residual_max : float
        The largest remaining residual diagonal entry (≤ eta unless the rank cap stopped it).
    """

    G: Array
    pivots: NDArray[np.intp]
    residual_trace: float
    residual_max: float


def incomplete_cholesky(
    diagonal: ArrayLike,
    column: Callable[[int], Array],
    *,
    eta: float = 1e-6,
    max_rank: int | None = None,
) -> IncompleteCholesky:
    """Pivoted incomplete Cholesky of a PSD matrix given by its diagonal and a column oracle.

    Stops when the largest remaining residual diagonal entry is ≤ ``eta`` (the usual pivoted
    Cholesky rule) or after ``max_rank`` columns. 002 §3.2.1 states the tolerance for
    ‖A − GGᵀ‖_F, which would need the whole residual; for the PSD residual R,
    max diag R ≤ ‖R‖_F ≤ trace R, and the result reports trace R so a caller can check the
    Frobenius bound. ``column(j)`` returns column j of A; it is called once per pivot.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.array([[4.0, 2.0], [2.0, 3.0]])
    >>> r = incomplete_cholesky(np.diag(A), lambda j: A[:, j], eta=1e-12)
    >>> bool(np.allclose(r.G @ r.G.T, A))
    True
    """
    d = np.array(diagonal, dtype=float)
    n = d.shape[0]
    check_positive(eta, "eta", allow_zero=True)
    cap = n if max_rank is None else int(max_rank)
    if cap < 1:
        raise ParameterError(f"max_rank must be a positive integer, got {max_rank!r}")
    cap = min(cap, n)
    if np.any(d < -1e-10 * max(1.0, float(np.abs(d).max(initial=0.0)))):
        raise ParameterError("diagonal has negative entries: the matrix is not PSD")
    np.maximum(d, 0.0, out=d)
    # grow the factor by doubling: the final rank is usually far below the cap, and an n×cap
    # array would be O(m⁴) memory for the m² pair candidates of a hyperkernel
    G = np.zeros((n, min(cap, 64)))
    pivots: list[int] = []
    for k in range(cap):
        if k == G.shape[1]:
            G = np.concatenate([G, np.zeros((n, min(cap, 2 * k) - k))], axis=1)
        j = int(np.argmax(d))
        pivot = d[j]
        if pivot <= eta or pivot <= 0.0:
            break
        col = np.asarray(column(j), dtype=float) - G[:, :k] @ G[j, :k]
        G[:, k] = col / np.sqrt(pivot)
        d -= G[:, k] ** 2
        d[j] = 0.0
        np.maximum(d, 0.0, out=d)  # round-off can push residuals slightly negative
        pivots.append(j)
    p = len(pivots)
    return IncompleteCholesky(
        G=G[:, :p].copy(),
        pivots=np.array(pivots, dtype=np.intp),
        residual_trace=float(d.sum()),
        residual_max=float(d.max(initial=0.0)),
    )


@dataclass
class HyperkernelBasis:
    """p chosen pairs of training points and what the builders need from them.

    Attributes
    ----------
    hyperkernel : Hyperkernel
    X : ndarray (m, d)
        The training inputs the pairs index.
    pairs : ndarray (p, 2)
        Indices (i, j), i ≤ j, of the chosen pairs.
    features : ndarray (p, f)
        Their pair features (see :mod:`sdpkern.kernels.hyperkernels`).
    L : ndarray (p, r)
        A factor of the hyperkernel Gram matrix over the chosen pairs: K̲_SS = L Lᵀ.
    residual_trace : float
        What the chosen pairs leave unexplained of K̲ (0 for the full basis).
    """

    hyperkernel: Hyperkernel
    X: Array
    pairs: NDArray[np.intp]
    features: Array
    L: Array
    residual_trace: float = 0.0
    _kernels: Array | None = field(default=None, repr=False)

    @property
    def size(self) -> int:
        """The number of selected basis terms (pairs)."""
        return int(self.pairs.shape[0])

    def __getstate__(self) -> dict[str, object]:
        # the (p, m, m) stack of term kernels is a cache, recomputed on demand: a pickled model
        # keeps what predicts (the points, the terms' features, L), not p·m² numbers
        state = dict(self.__dict__)
        state["_kernels"] = None
        return state

    def kernels(self) -> Array:
        """The base kernel matrices K_l on the training inputs, shape (p, m, m) (cached)."""
        if self._kernels is None:
            self._kernels = self.hyperkernel.base_kernels(self.features, self.X)
        return self._kernels

    def learned_kernel(self, beta: Array, X: ArrayLike | None = None, Y: ArrayLike | None = None) -> Array:
        """k(X, Y) = Σ_l β_l k̲((x_i, x_j)_l, (X, Y)) (002 eq. 2.15); training inputs by default."""
        if X is None and Y is None:
            return np.tensordot(beta, self.kernels(), axes=1)
        Xa = self.X if X is None else as_matrix(X, "X")
        Ya = None if Y is None else as_matrix(Y, "Y")
        if isinstance(self.hyperkernel, ARDDictionary):
            from .hyperkernel_terms import learned_block

            return learned_block(self.hyperkernel, self.features, beta, Xa, Xa if Ya is None else Ya)
        return self.hyperkernel.learned_kernel(self.features, beta, Xa, Ya)


def check_hyperkernel(hyperkernel: object, name: str = "hyperkernel") -> Hyperkernel:
    """Return ``hyperkernel`` if it is a :class:`Hyperkernel`, else raise a typed error naming ``name``.

    A base kernel (``Gaussian()``) where a hyperkernel is expected is the common slip: the
    message says what the two are, instead of an ``AttributeError`` from deep inside the basis.
    """
    if isinstance(hyperkernel, Hyperkernel):
        return hyperkernel
    from .base import Kernel  # local: base kernels are only named in the message

    hint = (
        f"{type(hyperkernel).__name__} is a base kernel k(x, y), not a hyperkernel k((x, x'), (y, y')) "
        "(002 §2.2); use e.g. HarmonicARD(lambda_h=0.6) or PowerSeriesHyperkernel"
        if isinstance(hyperkernel, Kernel)
        else "use e.g. HarmonicARD(lambda_h=0.6) from sdpkern.kernels"
    )
    raise ParameterError(f"{name} must be a Hyperkernel, got {hyperkernel!r}: {hint}")


def hyperkernel_basis(
    hyperkernel: Hyperkernel,
    X: ArrayLike,
    *,
    eta: float = 1e-6,
    max_terms: int | None = None,
    full: bool = False,
) -> HyperkernelBasis:
    """Choose basis pairs for the hyperkernel expansion (002 §3.2.1).

    Candidates are the pairs (i, j) with i ≤ j: (i, j) and (j, i) give the same base kernel
    and the same row of K̲, so the other half adds nothing. Pivoted incomplete Cholesky of K̲
    over the candidates, with columns computed on demand, picks the pairs; pairs whose row of
    K̲ is already explained (e.g. the coinciding diagonal pairs of the harmonic family) are
    never picked.

    With ``full=True`` every ordered pair (i, j) is kept (m² terms, as 002 eq. 3.8 is written),
    and L comes from the eigendecomposition of the m²×m² matrix K̲; only for small m.

    An :class:`~sdpkern.kernels.hyperkernels.ARDDictionary` is its own basis (its kernels,
    orthonormal: :meth:`~sdpkern.kernels.hyperkernels.ARDDictionary.basis`); ``eta``,
    ``max_terms`` and ``full`` do not apply to it.

    Raises
    ------
    ParameterError
        If ``hyperkernel`` is not a :class:`~sdpkern.kernels.hyperkernels.Hyperkernel` (a base
        kernel such as ``Gaussian()`` passed where a hyperkernel belongs).
    """
    check_hyperkernel(hyperkernel)
    hyperkernel.check()
    if max_terms is not None:
        max_terms = check_integer(max_terms, "max_terms", 1)  # named as the caller passed it
    Xa = as_matrix(X, "X")
    if isinstance(hyperkernel, ARDDictionary):
        return hyperkernel.basis(Xa)
    m = Xa.shape[0]
    F = hyperkernel.gram_features(Xa)  # (m, m, f): features of every pair of training points
    if full:
        if m > 60:
            raise ParameterError(
                f"the full m² basis is for small problems (m ≤ 60), got m = {m}; use the low-rank basis"
            )
        I, J = np.meshgrid(np.arange(m), np.arange(m), indexing="ij")
        pairs = np.column_stack([I.ravel(), J.ravel()])
        feats = F[pairs[:, 0], pairs[:, 1]]
        Kbar = hyperkernel.hyper_gram(feats)
        lam, V = np.linalg.eigh((Kbar + Kbar.T) / 2)
        keep = lam > 1e-13 * lam[-1]
        L = V[:, keep] * np.sqrt(lam[keep])
        return HyperkernelBasis(hyperkernel, Xa, pairs.astype(np.intp), feats, L, 0.0)
    iu, ju = np.triu_indices(m)
    cand = F[iu, ju]
    chol = incomplete_cholesky(
        hyperkernel.hyper_diagonal(cand), lambda j: hyperkernel.hyper_column(cand, j), eta=eta, max_rank=max_terms
    )
    piv = chol.pivots
    pairs = np.column_stack([iu[piv], ju[piv]]).astype(np.intp)
    return HyperkernelBasis(hyperkernel, Xa, pairs, cand[piv], chol.G[piv], chol.residual_trace)
