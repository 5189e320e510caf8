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
overshoots"). The master minimises D_W + R over the simplex (a small semidefinite program: the
Schur complement of [[A(β), b], [bᵀ, 2τ]] ⪰ 0 gives τ ≥ D_W(β)) and takes the minimiser as its
next trial point. Every column of W comes with its products K_l w, so A(β) costs no kernel pass:
the maximisers' K_l α come from the Hessian's own pass, the derivatives' from one more.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["FractionalModel"]

Array = NDArray[np.float64]

#: Directions whose norm (after W's columns are scaled to unit length) is below this fraction
#: of the largest are dropped from the model's basis: W's columns (maximisers a step apart) are
#: nearly dependent near the optimum, and A(β) must stay well conditioned
RANK_RTOL = 1e-10


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
        self.W: list[Array] = []  # columns (m, r) per addition
        self.KW: list[Array] = []  # their products K_l w: (m, terms, r)

    @property
    def size(self) -> int:
        """Columns held."""
        return sum(w.shape[1] for w in self.W)

    def add(self, terms: NDArray[np.intp], W: Array, KW: Array) -> None:
        """Columns W (m, r) with their products KW (m, len(terms), r); columns of another set of
        terms replace those held (their products are over the old terms)."""
        if self.terms is None or not np.array_equal(self.terms, terms):
            self.terms, self.W, self.KW = np.array(terms), [], []
        self.W.append(np.asarray(W, dtype=np.float64).reshape(W.shape[0], -1))
        self.KW.append(np.asarray(KW, dtype=np.float64).reshape(KW.shape[0], KW.shape[1], -1))

    def matrices(self) -> tuple[Array, Array]:
        """(G, b): the model's A(β') = εI + c Σ_l β'_l G_l and b in an orthonormal basis of span W."""
        W = np.hstack(self.W)
        KW = np.concatenate(self.KW, axis=2)
        norms = np.linalg.norm(W, axis=0)
        keep = norms > 0
        s = 1.0 / norms[keep]
        W, KW = W[:, keep] * s, KW[:, :, keep] * s
        ev, U = np.linalg.eigh(W.T @ W)
        big = ev > RANK_RTOL * ev.max()
        T = U[:, big] / np.sqrt(ev[big])  # W T has orthonormal columns
        G = np.einsum("ma,mlb->lab", W @ T, KW @ T)
        return 0.5 * (G + G.transpose(0, 2, 1)), T.T @ (W.T @ self.target)

    def value(self, beta: Array) -> float:
        """D_W(β')."""
        G, b = self.matrices()
        A = self.ridge * np.eye(b.size) + self.scale * np.tensordot(beta, G, axes=1)
        return 0.5 * float(b @ np.linalg.solve(A, b))

    def minimiser(self, L: Array, weight: float) -> Array | None:
        """argmin over the simplex of D_W(β') + weight·‖Lᵀβ'‖², or None when Clarabel does not solve it."""
        G, b = self.matrices()
        return _fractional_min(self.scale * G, self.ridge, b, L, weight)


def _svec(S: Array) -> Array:
    """Clarabel's vectorisation of a symmetric matrix: its upper triangle by columns, the
    off-diagonal entries times √2."""
    rows, cols = np.triu_indices(S.shape[0])
    order = np.lexsort((rows, cols))
    rows, cols = rows[order], cols[order]
    return np.where(rows == cols, 1.0, np.sqrt(2.0)) * S[rows, cols]


def _fractional_min(G: Array, ridge: float, b: Array, L: Array, weight: float) -> Array | None:
    """min τ + weight·‖Lᵀβ‖² over β ∈ Δ, τ with [[εI + Σ_l β_l G_l, b], [bᵀ, 2τ]] ⪰ 0 (τ ≥ ½bᵀA(β)⁻¹b,
    the Schur complement): Clarabel on x = (β, τ), in units of the data's largest entry."""
    import clarabel
    from scipy import sparse

    n, k = G.shape[0], b.size
    unit = max(1.0, float(np.abs(G).max(initial=0.0)), float(np.abs(b).max(initial=0.0)), ridge)
    S0 = np.zeros((k + 1, k + 1))
    S0[:k, :k] = (ridge / unit) * np.eye(k)
    S0[:k, k] = S0[k, :k] = b / unit
    cols = []
    for Gl in G:
        Sl = np.zeros((k + 1, k + 1))
        Sl[:k, :k] = Gl / unit
        cols.append(-_svec(Sl))
    St = np.zeros((k + 1, k + 1))
    St[k, k] = 2.0 / unit  # τ in the objective's own unit
    cols.append(-_svec(St))
    psd = np.column_stack(cols)
    A = sparse.vstack(
        [
            sparse.csr_matrix(np.concatenate([np.ones(n), [0.0]])[None, :]),
            sparse.hstack([-sparse.identity(n), sparse.csr_matrix((n, 1))]),
            sparse.csr_matrix(psd),
        ]
    ).tocsc()
    rhs = np.concatenate([[1.0], np.zeros(n), _svec(S0)])
    P = np.zeros((n + 1, n + 1))
    P[:n, :n] = 2.0 * weight * (L @ L.T)
    c = np.zeros(n + 1)
    c[n] = 1.0
    cones = [clarabel.ZeroConeT(1), clarabel.NonnegativeConeT(n), clarabel.PSDTriangleConeT(k + 1)]
    out: Any = None
    for tol in (1e-10, None):
        settings = clarabel.DefaultSettings()
        settings.verbose = False
        if tol is not None:
            settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = tol
        out = clarabel.DefaultSolver(
            sparse.triu(sparse.csc_matrix(P)).tocsc(), c, A, rhs, cones, settings
        ).solve()
        if str(out.status) in ("Solved", "AlmostSolved"):
            break
    else:
        return None
    beta = np.clip(np.asarray(out.x, dtype=np.float64)[:n], 0.0, None)
    return beta / beta.sum() if beta.sum() > 0 else None
