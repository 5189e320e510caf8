"""D's exact restriction to a subspace: the alignment master's model of D (docs/hyperkernel_derivations.md §1.8).

Where the inner problem is unconstrained and quadratic, D(β) = max_α yᵀα − (ε/2)‖α‖² − ½αᵀK(β)α
(002 eq. 3.13 with the ridge ε: the alignment), D is the matrix-fractional function
½yᵀ(K(β) + εI)⁻¹y. The same maximum over α in the span of the columns of W,

    D_W(β) = max_c yᵀWc − ½cᵀ(εWᵀW + Σ_l β_l WᵀK_lW)c = ½bᵀA(β)⁻¹b,   b = Wᵀy,

is a lower bound of D everywhere (a maximum over fewer α), equal to D with D's gradient at every β
whose maximiser lies in span W, and with D's Hessian too where span W also holds the maximiser's
derivatives ∂α/∂β_l = −(K(β) + εI)⁻¹K_lα (the Newton step's M⁻¹v_l, §1.7). It keeps D's
rational shape, which a quadratic model lacks: near a face β_l = 0, D grows like 1/β_l, and a
Newton step from there only multiplies β_l by about 1.5 (docs/hyperkernel.md, "A Newton step that
overshoots"). Each column of W comes with its products K_l w, from which the model keeps
G_l = WᵀK_lW (p·r² numbers: the products themselves, m·p·r, are not kept), so D_W and its
derivatives cost no kernel evaluation; the master minimises D_W + R over the simplex by Newton's
method on it (:func:`~sdpkern.native.hyperkernel_master._model_min_newton`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["FractionalModel", "MAX_COLUMNS"]

Array = NDArray[np.float64]

#: Directions whose norm (after W's columns are scaled to unit length) is below this fraction
#: of the largest are dropped from the model's basis: W's columns (maximisers a step apart) are
#: nearly dependent near the optimum, and A(β) must stay well conditioned
RANK_RTOL = 1e-10

#: Columns the model keeps, the oldest dropped first (any subspace gives a lower bound of D; the
#: newest columns hold the exactness at the latest points): W is m × r and G is p × r × r
MAX_COLUMNS = 256


class FractionalModel:
    """D_W(β') = ½bᵀA(β')⁻¹b on the span of the stored columns (module docstring), for one set of terms.

    Parameters
    ----------
    target : ndarray (m,)
        y of q(α) = yᵀα − (ε/2)‖α‖².
    ridge : float
        ε.
    scale : float
        c of β = cβ' (the master's units): A(β') = εWᵀW + c Σ_l β'_l WᵀK_lW.
    """

    def __init__(self, target: Array, ridge: float, scale: float) -> None:
        self.target, self.ridge, self.scale = target, float(ridge), float(scale)
        self.terms: NDArray[np.intp] | None = None
        self.W = np.zeros((target.shape[0], 0))  # unit columns
        self.G = np.zeros((0, 0, 0))  # G_l = WᵀK_lW, (p, r, r)

    @property
    def size(self) -> int:
        """Columns held."""
        return int(self.W.shape[1])

    def add(self, terms: NDArray[np.intp], W: Array, KW: Array) -> None:
        """Columns W (m, r) with their products KW (m, len(terms), r); columns of another set of
        terms replace those held (their products are over the old terms). Zero columns are
        skipped, the oldest dropped beyond :data:`MAX_COLUMNS`."""
        if self.terms is None or not np.array_equal(self.terms, terms):
            self.terms = np.array(terms)
            self.W, self.G = np.zeros((self.target.shape[0], 0)), np.zeros((len(terms), 0, 0))
        W = np.asarray(W, dtype=np.float64).reshape(W.shape[0], -1)
        KW = np.asarray(KW, dtype=np.float64).reshape(KW.shape[0], KW.shape[1], -1)
        norms = np.linalg.norm(W, axis=0)
        keep = norms > 0
        W, KW = W[:, keep] / norms[keep], KW[:, :, keep] / norms[keep]
        new = np.hstack([self.W, W]).T @ KW.transpose(1, 0, 2)  # (p, r_old + r, r): W_allᵀK_l W_new
        r0 = self.size
        G = np.zeros((len(terms), r0 + W.shape[1], r0 + W.shape[1]))
        G[:, :r0, :r0] = self.G
        G[:, :, r0:] = new
        G[:, r0:, :r0] = new[:, :r0].transpose(0, 2, 1)
        G[:, r0:, r0:] = 0.5 * (new[:, r0:] + new[:, r0:].transpose(0, 2, 1))
        self.W, self.G = np.hstack([self.W, W]), G
        if self.size > MAX_COLUMNS:
            self.W, self.G = self.W[:, -MAX_COLUMNS:], self.G[:, -MAX_COLUMNS:, -MAX_COLUMNS:]

    def basis(self) -> tuple[Array, Array]:
        """(G, b) in an orthonormal basis of span W: A(β') = εI + c Σ_l β'_l G_l."""
        ev, U = np.linalg.eigh(self.W.T @ self.W)
        big = ev > RANK_RTOL * ev.max()
        T = U[:, big] / np.sqrt(ev[big])  # W T has orthonormal columns
        G = T.T @ self.G @ T
        return 0.5 * (G + G.transpose(0, 2, 1)), T.T @ (self.W.T @ self.target)

    def derivatives(self, beta: Array, basis: tuple[Array, Array] | None = None) -> tuple[float, Array, Array]:
        """D_W(β'), its slopes q = −∇D_W (the cuts' convention, c·½γᵀG_lγ with γ = A⁻¹b) and its
        Hessian c²(G_lγ)ᵀA⁻¹(G_kγ), as D's at a maximiser (§1.7)."""
        G, b = self.basis() if basis is None else basis
        R, gamma = self._solve(beta, G, b)
        Gg = G @ gamma  # (p, r)
        S = np.linalg.solve(R, Gg.T)  # R⁻¹(G_lγ) by columns
        H = self.scale * self.scale * (S.T @ S)
        return 0.5 * float(b @ gamma), self.scale * 0.5 * (Gg @ gamma), 0.5 * (H + H.T)

    def value(self, beta: Array, basis: tuple[Array, Array] | None = None) -> float:
        """D_W(β')."""
        G, b = self.basis() if basis is None else basis
        return 0.5 * float(b @ self._solve(beta, G, b)[1])

    def _solve(self, beta: Array, G: Array, b: Array) -> tuple[Array, Array]:
        """(R, γ): the Cholesky factor of A(β') = εI + c Σ_l β'_l G_l and γ = A⁻¹b."""
        A = self.ridge * np.eye(b.size) + self.scale * np.tensordot(beta, G, axes=1)
        R = np.asarray(np.linalg.cholesky(A), dtype=np.float64)
        return R, np.asarray(np.linalg.solve(R.T, np.linalg.solve(R, b)), dtype=np.float64)
