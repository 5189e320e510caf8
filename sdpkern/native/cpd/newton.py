"""Primal Newton SVM for conditionally positive definite kernels (000 Algorithm 1, Appendix B).

The squared-hinge problem (000 eq. 14) over F_φ ⊕ 𝒫,

    min_{α, β}  λ αᵀΦα + Σ_i max(0, 1 − y_i f_i)²,   f = Φα + Pβ,   Pᵀα = 0,

is solved by Newton's method on the set s of margin violators (y_i f_i < 1). On s the loss is
quadratic and the step is the saddle system (000 eq. 17) restricted to s,

    [λI + Φ_ss   Q_s] [α_s]   [y_s]
    [Q_sᵀ        0  ] [β̄  ] = [ 0 ],    α = 0 off s,

with the QR change of variable Pᵀ... here P = Q R (Q orthonormal, n×k, k = numerical rank of
P) and β̄ = Rβ; at the end β = R⁺β̄, the minimum-norm solution (000 §6.1). Each step is followed
by the step-halving line search of Algorithm 1 (lines 22-28), and for n > 500 the iteration
is warm-started from the violators of a recursive solve on the first half of the data
(Algorithm 1 lines 2-5).

The β = 0 variant (000 §6.2) minimises over α ∈ 𝒫⊥ only, with the closed-form step (000
eq. 18). Re-derived: with α = P⊥γ, the model is λγᵀP⊥ᵀΦP⊥γ + ‖Φ_{s,:}P⊥γ − y_s‖², whose minimiser
is α = P⊥ (P⊥ᵀ(λΦ + Φ_sxᵀΦ_sx)P⊥)⁻¹ P⊥ᵀΦ_sxᵀ y_s. The leading minus sign printed in eq. (18)
comes from writing the gradient at 0 as +Φ_sxᵀy_s; the minimiser has the plus sign.

Null-space basis and Cholesky factors
-------------------------------------
Instead of an orthonormal P⊥ we use the echelon-form basis of 000 Appendix B ("P⊥ = [P̃⊥; I]"):
a set B of k pivot points (chosen by a column-pivoted QR of Q_sᵀ) carries the constraint,
α_B = −C α_N with C = Q_B⁻ᵀ Q_Nᵀ, and α_N (the other points) is free. Then

* unconstrained β: the reduced matrix K = Eᵀ(λI + Φ_ss)E, E = [−C; I], is positive definite
  (Φ is c.p.d., λ > 0) and a violator entering or leaving s adds or deletes one row and column
  of K, so its Cholesky factor is *expanded* or has a row *deleted* (a rank-one update of the
  trailing block) instead of being refactorised, as long as the pivot set B stays in s;
* β = 0: γ = α_N over all points and the Hessian H = λEᵀΦE + G_sᵀG_s, G = ΦE, changes by
  ± g_w g_wᵀ when violator w enters or leaves: a rank-one Cholesky update / downdate (000
  Appendix B "Rank One Cholesky Updates").

``update="refactor"`` rebuilds and refactorises at every step (the reference path); both give
the same iterates up to round-off. With an empty polynomial space (an ordinary p.d. kernel)
the same code is Chapelle's (2007) primal Newton SVM without offset.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.linalg import LinAlgError, cho_solve, qr, solve, solve_triangular
from scipy.linalg.blas import dsyr2k, dsyrk
from sklearn.exceptions import ConvergenceWarning

from ..._newtoncore import newton_on_points as _newton_on_points
from ..._newtoncore import restore_symmetric
from ..._validation import as_sample_weight, check_positive
from ...errors import DataError, NotPSDError, ParameterError
from ...kernels.cpd import RANK_TOL, PolynomialFactor, polynomial_factor, squared_hinge_objective
from ...kernels.gram import GramOperator, PrecomputedGram
from ..dense_cholesky import cho_factor, cholesky
from ..primal_svm import _check_inputs, _check_max_iter, primal_svm_kernel
from ..primal_svm import squared_hinge_objective as _objective_from_reg

__all__ = [
    "PolynomialFactor",
    "polynomial_factor",
    "NewtonResult",
    "cpd_primal_svm",
    "stationarity",
    "cpd_beta_zero_svm",
    "beta_zero_kernel",
    "BetaZeroKernel",
    "squared_hinge_objective",
    "chol_update",
    "chol_downdate",
    "chol_append",
    "chol_delete",
]

Array = NDArray[np.float64]
Update = Literal["rank_one", "refactor"]


# ============================================================================ Cholesky modifications
# Modifying a Cholesky factor instead of refactorising (000 Appendix B; Golub & Van Loan §12.5):
# every function works on an *upper* triangular R with A = RᵀR (000 Appendix B's H = LᵀL, L upper)
# and returns a new array.


def _check_factor(R: Array, x: Array | None = None) -> None:
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
    _check_factor(R, x)
    return _product_form(R, x, 1.0)


def chol_downdate(R: Array, x: Array) -> Array:
    """Upper factor of RᵀR − x xᵀ (a rank-one downdate); :class:`NotPSDError` if that is not PD."""
    R = np.asarray(R, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    _check_factor(R, x)
    return _product_form(R, x, -1.0)


def chol_append(R: Array, b: Array, c: float) -> Array:
    """Upper factor of [[RᵀR, b], [bᵀ, c]] (a Cholesky expansion by one row and column).

    The new column is r = R⁻ᵀb and the new diagonal entry √(c − ‖r‖²); :class:`NotPSDError` when
    the expanded matrix is not positive definite.
    """
    R = np.asarray(R, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    _check_factor(R, b)
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
    _check_factor(R)
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


@dataclass
class _Pivots:
    """Echelon-form null-space basis for the constraint Q_Sᵀα_S = 0 on an index set S.

    ``B`` pivot indices (global), ``U1`` (k×k_s) orthonormal basis of the row space of Q_S
    used, ``QB`` = Q[B] U1 (k_s×k_s, invertible), ``C`` = QB⁻ᵀ (Q[N] U1)ᵀ.
    """

    B: NDArray[np.int64]
    U1: Array
    QB: Array

    def coef(self, Q: Array, idx: NDArray[np.int64]) -> Array:
        """C columns for points ``idx``: QB⁻ᵀ (Q[idx] U1)ᵀ, shape (k_s, len(idx))."""
        if self.B.size == 0:
            return np.zeros((0, idx.size))
        return np.asarray(solve(self.QB.T, (Q[idx] @ self.U1).T), dtype=np.float64)

    def in_span(self, Q: Array, idx: NDArray[np.int64]) -> bool:
        """Whether the rows Q[idx] lie in the span already represented by U1."""
        if self.U1.shape[0] == self.U1.shape[1]:
            return True
        rows = Q[idx]
        resid = rows - (rows @ self.U1) @ self.U1.T
        return bool(np.all(np.linalg.norm(resid, axis=1) <= 1e-8 * max(1.0, float(np.abs(rows).max(initial=0.0)))))


def _choose_pivots(Q: Array, S: NDArray[np.int64]) -> _Pivots:
    k = Q.shape[1]
    if k == 0 or S.size == 0:
        return _Pivots(np.zeros(0, dtype=np.int64), np.zeros((k, 0)), np.zeros((0, 0)))
    QsT = Q[S].T  # k × |S|
    U, T, piv = qr(QsT, mode="economic", pivoting=True)
    diag = np.abs(np.diag(T))
    ks = int(np.sum(diag > RANK_TOL * max(diag[0], 1e-300))) if diag.size else 0
    U1 = U[:, :ks]
    B = S[piv[:ks]]
    QB = Q[B] @ U1
    return _Pivots(np.asarray(B, dtype=np.int64), U1, QB)


def _cholesky_jitter(A: Array) -> tuple[Array, float]:
    """Upper Cholesky factor of A (its upper triangle), adding the smallest jitter ε·mean(diag)
    that makes it work."""
    scale = max(float(np.mean(np.abs(np.diag(A)))) if A.size else 1.0, 1e-300)
    jitter = 0.0
    for _ in range(12):
        try:
            shifted = A if jitter == 0.0 else A + jitter * np.eye(A.shape[0])  # no n² copy when unneeded
            return cholesky(shifted, lower=False), jitter
        except np.linalg.LinAlgError:
            jitter = scale * (1e-12 if jitter == 0.0 else 10.0 * jitter / scale)
    raise NotPSDError(
        "the Newton Hessian is not positive definite even with jitter; the data may contain many duplicate "
        "points or the kernel is not c.p.d. with respect to its polynomial space",
        min_eigenvalue=float(np.linalg.eigvalsh(A, UPLO="U")[0]),  # the triangle the factorisation read
    )


@dataclass
class NewtonResult:
    """Output of :func:`cpd_primal_svm`.

    Attributes
    ----------
    alpha : (n,) array
        Expansion coefficients (zero off the final violator set, except for β = 0).
    beta_bar : (k,) array
        β̄ = Rβ in the orthonormal basis Q (zeros for β = 0).
    f : (n,) array
        Decision values on the training points, Φα + Qβ̄.
    objective : float
        The squared-hinge objective (000 eq. 14).
    violators : (n_sv,) int array
    iterations : int
        Newton steps at the top level.
    converged : bool
    n_refactor, n_updates : int
        Cholesky factorisations from scratch and rank-one modifications (all levels).
    jitter : float
        Diagonal jitter added to make a factor PD (0 unless points are duplicated, β = 0).
    certificate : dict
        The optimality measure (``"measure"``, ``"value"``) and the ``"tol"`` it was held to:
        ``converged`` is the violator set settled and ``value ≤ tol``.
    """

    alpha: Array
    beta_bar: Array
    f: Array
    objective: float
    violators: NDArray[np.int64]
    iterations: int
    converged: bool
    n_refactor: int = 0
    n_updates: int = 0
    jitter: float = 0.0
    times: dict[str, float] = field(default_factory=dict)
    certificate: dict[str, float | str] = field(default_factory=dict)

    @property
    def n_iter(self) -> int:
        """Newton steps (``iterations``)."""
        return self.iterations

    @property
    def status(self) -> str:
        """"optimal" when ``converged`` (the violator set settled and the certificate met ``tol``)."""
        return "optimal" if self.converged else "iteration_limit"


# ============================================================================ working-set solver
class _WorkingSetSolver:
    """Solves the restricted saddle system (000 eq. 17 / Algorithm 1 line 17) on a violator set,
    keeping the Cholesky factor of the reduced matrix K = Eᵀ(λI + Φ_SS)E between calls."""

    def __init__(self, Phi: Array, Q: Array, y: Array, lam: float, update: Update, refactor_fraction: float):
        self.Phi, self.Q, self.y, self.lam = Phi, Q, y, lam
        self.update = update
        self.refactor_fraction = refactor_fraction
        self.piv: _Pivots | None = None
        self.N: list[int] = []  # order of rows in the factor
        self.R: Array | None = None
        self.C: Array = np.zeros((0, 0))  # k_s × |N|, columns in the order of self.N
        self.n_refactor = 0
        self.n_updates = 0

    # -- building blocks
    def _refactor(self, S: NDArray[np.int64]) -> None:
        Phi, lam = self.Phi, self.lam
        piv = _choose_pivots(self.Q, S)
        Bset = set(piv.B.tolist())
        N = np.array([i for i in S.tolist() if i not in Bset], dtype=np.int64)
        C = piv.coef(self.Q, N)
        B = piv.B
        PN = Phi[N]  # contiguous row gather, then columns
        PBB = Phi[B][:, B] + lam * np.eye(B.size)
        PNB = PN[:, B]
        K = PN[:, N]
        K[np.diag_indices_from(K)] += lam
        if B.size:
            CtPBN = C.T @ PNB.T
            K = K - PNB @ C - CtPBN + C.T @ PBB @ C
        K = 0.5 * (K + K.T)
        self.R = cholesky(K, lower=False) if N.size else np.zeros((0, 0))
        self.piv, self.N, self.C = piv, N.tolist(), C
        self.n_refactor += 1

    def _append(self, w: int) -> None:
        assert self.piv is not None and self.R is not None
        Phi, lam, B = self.Phi, self.lam, self.piv.B
        cw = self.piv.coef(self.Q, np.array([w]))[:, 0]
        N = np.array(self.N, dtype=np.int64)
        vN = Phi[N, w] - Phi[np.ix_(N, B)] @ cw
        vB = Phi[B, w] - Phi[np.ix_(B, B)] @ cw - lam * cw
        kw = vN - self.C.T @ vB
        dw = lam + Phi[w, w] - 2.0 * cw @ Phi[B, w] + cw @ (Phi[np.ix_(B, B)] @ cw + lam * cw)
        self.R = chol_append(self.R, kw, float(dw))
        self.N.append(w)
        self.C = np.column_stack([self.C, cw]) if B.size else np.zeros((0, len(self.N)))
        self.n_updates += 1

    def _delete(self, w: int) -> None:
        assert self.R is not None
        j = self.N.index(w)
        self.R = chol_delete(self.R, j)
        del self.N[j]
        self.C = np.delete(self.C, j, axis=1)
        self.n_updates += 1

    def _sync(self, S: NDArray[np.int64]) -> None:
        if self.update == "refactor" or self.piv is None:
            self._refactor(S)
            return
        current = set(self.N) | set(self.piv.B.tolist())
        target = set(S.tolist())
        removed = current - target
        added = np.array(sorted(target - current), dtype=np.int64)
        n_changes = len(removed) + added.size
        if n_changes == 0:
            return
        pivots_left = any(b in removed for b in self.piv.B.tolist())
        if (
            pivots_left
            or n_changes > self.refactor_fraction * max(len(target), 1)
            or (added.size and not self.piv.in_span(self.Q, added))
        ):
            self._refactor(S)
            return
        try:
            for w in sorted(removed, key=self.N.index, reverse=True):
                self._delete(w)
            for w in added.tolist():
                self._append(int(w))
        except NotPSDError:  # round-off broke positive definiteness: start afresh
            self._refactor(S)

    # -- the step
    def solve(self, S: NDArray[np.int64], beta_bar_old: Array) -> tuple[Array, Array]:
        """α (n,) and β̄ (k,) solving Algorithm 1 line 17 on the violator set S."""
        self._sync(S)
        assert self.piv is not None and self.R is not None
        n, k = self.Q.shape
        y, B, C = self.y, self.piv.B, self.C
        N = np.array(self.N, dtype=np.int64)
        alpha = np.zeros(n)
        if N.size:
            g = y[N] - C.T @ y[B] if B.size else y[N].copy()
            z = cho_solve((self.R, False), g, check_finite=False)
            # one step of iterative refinement: residual Eᵀ(y_S − M_SS E z) computed from Φ directly
            Sidx = np.concatenate([B, N])
            for _ in range(1):
                a_S = np.concatenate([-C @ z, z]) if B.size else z
                res = y[Sidx] - self.Phi[Sidx][:, Sidx] @ a_S - self.lam * a_S
                gres = res[B.size :] - C.T @ res[: B.size] if B.size else res
                z = z + cho_solve((self.R, False), gres, check_finite=False)
            alpha[N] = z
            if B.size:
                alpha[B] = -C @ z
        beta_bar = beta_bar_old.copy() if k else np.zeros(0)
        if B.size:
            Sidx = np.concatenate([B, N])
            rB = y[B] - self.Phi[np.ix_(B, Sidx)] @ alpha[Sidx] - self.lam * alpha[B]
            bt = solve(self.piv.QB, rB)
            U1 = self.piv.U1
            beta_bar = U1 @ bt + (beta_bar_old - U1 @ (U1.T @ beta_bar_old))
        return alpha, beta_bar


# ============================================================================ β = 0 solver
def _null_space_gram(Phi: Array, Q: Array) -> tuple[_Pivots, NDArray[np.int64], Array, Array, Array]:
    """The echelon null-space basis E = [−C; I] of Pᵀα = 0 (000 Appendix B) and the products the
    β = 0 problem needs: (pivots, N indices, C, G = ΦE, A = EᵀΦE symmetrised)."""
    n = Phi.shape[0]
    piv = _choose_pivots(Q, np.arange(n))
    Bset = set(piv.B.tolist())
    N = np.array([i for i in range(n) if i not in Bset], dtype=np.int64)
    C = piv.coef(Q, N)
    B = piv.B
    # G = Φ E with E = [−C; I] (rows B, N): G = Φ[:, N] − Φ[:, B] C
    G = Phi[:, N] - Phi[:, B] @ C if B.size else Phi[:, N].copy()
    A = G[N] - C.T @ G[B] if B.size else G[N].copy()
    return piv, N, C, G, 0.5 * (A + A.T)


class _BetaZeroSolver:
    """Step (000 eq. 18) with the Hessian H = λEᵀΦE + G_sᵀG_s kept as a Cholesky factor."""

    def __init__(
        self, Phi: Array, Q: Array, y: Array, lam: float, update: Update, refactor_fraction: float,
        root_w: Array | None = None,
    ):
        self.Phi, self.y, self.lam, self.update = Phi, y, lam, update
        self.refactor_fraction = refactor_fraction
        self.piv, self.Nidx, self.C, G, self.A = _null_space_gram(Phi, Q)
        self.G = G
        # per-point weights: Σ w_i (y_i − G_iγ)² is the unweighted loss of the rows scaled by √w_i
        self.Gw = G if root_w is None else G * root_w[:, None]
        self.yw = y if root_w is None else y * root_w
        self.S: NDArray[np.int64] | None = None
        self.R: Array | None = None
        self.jitter = 0.0
        self.n_refactor = 0
        self.n_updates = 0
        self._gram_set: NDArray[np.int64] | None = None
        self._gram = np.zeros((0, 0))

    def _refactor(self, S: NDArray[np.int64]) -> None:
        # the Gram part G_sᵀG_s updated by the rows that entered and left s when far fewer
        # changed than stayed (|Δs|·(n−k)² flops instead of |s|·(n−k)²; the two (n−k)² products
        # and the sum cost memory passes a direct product on a small s does not)
        prev = self._gram_set
        if prev is not None:
            added, removed = np.setdiff1d(S, prev), np.setdiff1d(prev, S)
        if prev is not None and 4 * (added.size + removed.size) + 16 < S.size:
            Ga, Gr = self.Gw[added], self.Gw[removed]
            self._gram += Ga.T @ Ga - Gr.T @ Gr
        else:
            Gs = self.Gw[S]
            self._gram = Gs.T @ Gs
        self._gram_set = np.array(S)
        H = self.lam * self.A + self._gram
        self.R, jit = _cholesky_jitter(H)
        self.jitter = max(self.jitter, jit)
        self.S = S
        self.n_refactor += 1

    def solve(self, S: NDArray[np.int64]) -> Array:
        if self.update == "refactor" or self.S is None:
            self._refactor(S)
        else:
            old, new = set(self.S.tolist()), set(S.tolist())
            added, removed = sorted(new - old), sorted(old - new)
            if len(added) + len(removed) > self.refactor_fraction * max(len(new), 1):
                self._refactor(S)
            else:
                try:
                    R = self.R
                    assert R is not None
                    for w in added:
                        R = chol_update(R, self.Gw[w])
                    for w in removed:
                        R = chol_downdate(R, self.Gw[w])
                    self.R, self.S = R, S
                    self.n_updates += len(added) + len(removed)
                except NotPSDError:
                    self._refactor(S)
        assert self.R is not None
        n = self.Phi.shape[0]
        Gs, ys = self.Gw[S], self.yw[S]
        rhs = Gs.T @ ys
        gamma = cho_solve((self.R, False), rhs, check_finite=False) if rhs.size else np.zeros(0)
        # two steps of iterative refinement with the residual in factored form, G_sᵀ(y_s − G_sγ) − λAγ,
        # which is far more accurate than H γ − rhs when H (a Gram matrix) is ill-conditioned
        for _ in range(2 if gamma.size else 0):
            g = Gs.T @ (ys - Gs @ gamma) - self.lam * (self.A @ gamma)
            gamma = gamma + cho_solve((self.R, False), g, check_finite=False)
        alpha = np.zeros(n)
        alpha[self.Nidx] = gamma
        if self.piv.B.size:
            alpha[self.piv.B] = -self.C @ gamma
        return alpha

    def decision(self, alpha: Array) -> Array:
        return self.G @ alpha[self.Nidx]


# ============================================================================ Algorithm 1
def dense_kernel(K: GramOperator) -> Array:
    """K as a dense array: a :class:`~sdpkern.kernels.gram.PrecomputedGram`'s own matrix (not a
    copy: the β = 0 route may use it as work space, ``overwrite_phi``), else ``K.to_dense()``."""
    if not isinstance(K, GramOperator):
        raise ParameterError(f"K must be a GramOperator (sdpkern.kernels.gram), got {type(K).__name__}")
    if isinstance(K, PrecomputedGram):
        return K.K
    return K.to_dense()


def _algorithm1_inputs(
    K: GramOperator, Q: ArrayLike, y: ArrayLike, C: float, update: str
) -> tuple[Array, Array, Array, float]:
    """Algorithm 1's inputs as float arrays of matching shapes (K made dense) and 000's λ = 1/(2C)."""
    Phi_a = dense_kernel(K)
    Q_a = np.asarray(Q, dtype=np.float64)
    y_a = np.asarray(y, dtype=np.float64)
    lam = 1.0 / (2.0 * check_positive(C, "C"))
    if update not in ("rank_one", "refactor"):
        raise ParameterError(f"update must be 'rank_one' or 'refactor', got {update!r}")
    n = y_a.shape[0]
    if Phi_a.shape != (n, n) or Q_a.shape[0] != n:
        raise DataError(f"K must be ({n}, {n}) and Q must have {n} rows; got {Phi_a.shape} and {Q_a.shape}")
    return Phi_a, Q_a, y_a, lam


_Iterate = tuple[Array, Array, Array]  # α, β̄, Φα


def _halving_step(
    target: _Iterate, old: _Iterate, Q: Array, y: Array, lam: float, o_old: float, w: Array | None = None
) -> tuple[int, _Iterate, Array, NDArray[np.intp], float] | None:
    """Algorithm 1 lines 22-28: halve the step from ``old`` towards the Newton point ``target``
    until eq. (14) does not increase (f is affine in the step, so no new kernel products).

    Returns the halvings t, the accepted iterate, f, its violators and objective; ``None`` when
    not even a tiny step decreases the objective.
    """
    for t in range(60):
        c = 2.0**-t
        alpha, bbar, Ka = (c * new + (1.0 - c) * prev for new, prev in zip(target, old))
        f = Ka + Q @ bbar if Q.shape[1] else Ka
        S = np.flatnonzero(y * f < 1.0) if w is None else np.flatnonzero((y * f < 1.0) & (w > 0))
        r = f[S] - y[S]
        loss = float(r @ r) if w is None else float((w[S] * r) @ r)
        o_new = lam * float(alpha @ Ka) + loss  # line 26, αᵀΦα = αᵀ(Φα)
        if o_new <= o_old * (1.0 + 1e-13) + 1e-300:
            return t, (alpha, bbar, Ka), f, S, o_new
    return None


def _algorithm1_start(
    Phi: Array, Q: Array, y: Array, lam: float, beta_zero: bool, update: Update, max_iter: int,
    recursive_threshold: int, refactor_fraction: float, w: Array | None, counters: dict[str, int],
) -> tuple[NDArray[np.intp], _WorkingSetSolver | _BetaZeroSolver]:
    """Algorithm 1's lines 1-11 (000 Appendix B): the first violator set s, from the recursive
    warm start on the first half when n exceeds ``recursive_threshold``, and the working-set solver."""
    n = y.shape[0]
    S = np.arange(n)
    if n > recursive_threshold and not beta_zero:
        n2 = n // 2
        half = _algorithm1(
            Phi[:n2, :n2], Q[:n2], y[:n2], lam, update=update, max_iter=max_iter,
            recursive_threshold=recursive_threshold, refactor_fraction=refactor_fraction, _counters=counters,
        )  # fmt: skip
        S = np.flatnonzero(half.alpha != 0.0)
    if not beta_zero:
        return S, _WorkingSetSolver(Phi, Q, y, lam, update, refactor_fraction)
    ws = _BetaZeroSolver(Phi, Q, y, lam, update, refactor_fraction, None if w is None else np.sqrt(w))
    return (S if w is None else np.flatnonzero(w > 0)), ws


def cpd_primal_svm(
    K: GramOperator, Q: ArrayLike, y: ArrayLike, C: float, *, sample_weight: ArrayLike | None = None,
    tol: float = 1e-3, max_iter: int = 100, beta_zero: bool = False, update: Update = "rank_one",
    recursive_threshold: int = 500, refactor_fraction: float = 0.01,
) -> NewtonResult:
    """Algorithm 1 ``CPDPrimalSVM(Φ, Q, R, y, λ, b_β)`` of 000 Appendix B, with λ = 1/(2C).

    Parameters
    ----------
    K : GramOperator
        The kernel matrix [Φ]_{jk} = φ(x_j, x_k) (made dense: Algorithm 1 reads all of Φ; a
        :class:`~sdpkern.kernels.gram.PrecomputedGram`'s matrix is used as it is).
    Q : (n, k) array
        Orthonormal basis of the range of P (``polynomial_factor(...).Q``); ``(n, 0)`` for a
        p.d. kernel.
    y : (n,) array of ±1
    C : float
        scikit-learn's C > 0: eq. (14) divided by 2λ, λ = 1/(2C) (docs/conventions.md).
    beta_zero : bool
        b_β of Algorithm 1: enforce β = 0 (000 §6.2, step eq. 18).
    update : {"rank_one", "refactor"}
        Keep the Hessian's Cholesky factor and modify it as violators enter and leave
        (000 Appendix B), or refactorise at every Newton step.
    max_iter : int
        Newton steps per level.
    recursive_threshold : int
        Warm-start from the first half when n exceeds it (Algorithm 1 line 2; 500 in 000).
    refactor_fraction : float
        With ``update="rank_one"``, refactorise anyway when more than this fraction of the
        violator set changes in one step (many O(n²) updates cost more than one O(n³) factorisation).
    sample_weight : (n,) array, optional
        Per-point weights of the loss, Σ w_i max(0, 1 − y_i f_i)² (a weight-2 point is a repeated
        point; points of weight 0 never enter s). Only with ``beta_zero=True`` (the β-free
        weighted problem: :func:`~sdpkern.native.cpd.workspace.cpd_primal_svm_reduced`).
    tol : float, default=1e-3
        The certificate's threshold (:func:`stationarity`): ``converged`` is the violator set
        settled and the stationarity at most tol.

    Returns
    -------
    NewtonResult
        ``objective`` is eq. (14)'s value (λ = 1/(2C)).
    """
    Phi, Q, y, lam = _algorithm1_inputs(K, Q, y, C, update)
    tol = check_positive(tol, "tol")
    res = _algorithm1(
        Phi, Q, y, lam, beta_zero=beta_zero, update=update, max_iter=max_iter, recursive_threshold=recursive_threshold,
        refactor_fraction=refactor_fraction, sample_weight=sample_weight,
    )  # fmt: skip
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    value = stationarity(Phi, Q, y, res.alpha, res.f, 1.0 / (2.0 * lam), w, beta_zero)
    res.certificate = {"measure": "stationarity", "value": value, "tol": tol}
    res.converged = bool(res.converged and value <= tol)
    return res


def stationarity(
    Phi: Array, Q: Array, y: Array, alpha: Array, f: Array, C: float, w: Array | None, beta_zero: bool
) -> float:
    """The optimality measure of eq. (14) at (α, f), zero exactly at its minimiser.

    β free: ‖α − 2C w y∘ξ‖∞ / max(1, ‖α‖∞), ξ = max(0, 1 − y∘f) (the gradient in α vanishes:
    λα = w y∘ξ, 000 Theorem 4.6). β = 0 (α ∈ 𝒫⊥, f = Φα): the gradient's component in 𝒫⊥,
    ‖(I − QQᵀ) Φ(α − 2C w y∘ξ)‖∞ / max(1, ‖f‖∞).
    """
    xi = np.maximum(0.0, 1.0 - y * f)
    g = alpha - 2.0 * C * (1.0 if w is None else w) * y * xi
    if not beta_zero:
        return float(np.abs(g).max(initial=0.0) / max(1.0, float(np.abs(alpha).max(initial=0.0))))
    nz = np.flatnonzero(g)
    Pg = Phi[nz].T @ g[nz] if nz.size else np.zeros(y.shape[0])
    if Q.shape[1]:
        Pg = Pg - Q @ (Q.T @ Pg)
    return float(np.abs(Pg).max(initial=0.0) / max(1.0, float(np.abs(f).max(initial=0.0))))


def _algorithm1(
    Phi: Array, Q: Array, y: Array, lam: float, *, beta_zero: bool = False, update: Update = "rank_one",
    max_iter: int = 100, recursive_threshold: int = 500, refactor_fraction: float = 0.01,
    sample_weight: ArrayLike | None = None, _counters: dict[str, int] | None = None,
) -> NewtonResult:  # fmt: skip
    """:func:`cpd_primal_svm` on checked arrays, in 000's λ."""
    n = y.shape[0]
    w = as_sample_weight(sample_weight, n)
    if w is not None and not beta_zero:
        raise ParameterError(
            "sample_weight needs beta_zero=True in cpd_primal_svm (for the β-free problem use "
            "sdpkern.native.cpd.cpd_primal_svm_reduced or sdpkern.native.cpd.cpd_dual_svm)"
        )
    w = None if w is None else np.asarray(w, dtype=np.float64)
    counters = {"n_refactor": 0, "n_updates": 0} if _counters is None else _counters
    k = Q.shape[1]
    S, ws = _algorithm1_start(
        Phi, Q, y, lam, beta_zero, update, max_iter, recursive_threshold, refactor_fraction, w, counters
    )

    def kernel_part(alpha: Array) -> Array:
        """Φα, reading only the rows of Φ where α ≠ 0 (Φ is symmetric; rows are contiguous)."""
        if isinstance(ws, _BetaZeroSolver):
            return ws.decision(alpha)
        nz = np.flatnonzero(alpha)
        return Phi[nz].T @ alpha[nz] if nz.size else np.zeros(n)

    o_old, alpha_old, bbar_old, Ka_old = np.inf, np.zeros(n), np.zeros(k), np.zeros(n)  # Ka_old = Φ α_old
    alpha_new, bbar_new, f_new = alpha_old, bbar_old, np.zeros(n)
    converged, it = False, 0
    while it < max_iter:  # lines 12-32
        it += 1
        if isinstance(ws, _BetaZeroSolver):
            alpha, bbar = ws.solve(S), np.zeros(k)
        else:
            alpha, bbar = ws.solve(S, bbar_old)
        S_old = S
        found = _halving_step((alpha, bbar, kernel_part(alpha)), (alpha_old, bbar_old, Ka_old), Q, y, lam, o_old, w)
        if found is not None:
            t, (alpha_new, bbar_new, Ka_new), f_new, S, o_new = found
        else:  # no decrease even for a tiny step: we are at the optimum up to round-off
            alpha_new, bbar_new, S = alpha_old, bbar_old, S_old
            f_new = Ka_old + Q @ bbar_old if k else Ka_old
            converged = True
            break
        # a Newton step on the violators of the current iterate that gains nothing means the
        # iterate already minimises the local model, hence (convexity) eq. (14): stop. This also
        # ends round-off cycling of s when the loss is 0 (e.g. 𝒫 interpolates every point).
        stalled = bool(np.isfinite(o_old)) and o_old - o_new <= 1e-13 * o_old
        alpha_old, bbar_old, o_old, Ka_old = alpha_new, bbar_new, o_new, Ka_new
        # line 32, with one correction: after a *damped* step (t > 0) an unchanged s does not
        # mean the iterate minimises the quadratic model on s, so only a full step can stop.
        if (t == 0 and np.array_equal(S, S_old)) or stalled:
            converged = True
            break
    counters["n_refactor"] += ws.n_refactor
    counters["n_updates"] += ws.n_updates
    if not converged and _counters is None:
        warnings.warn(
            f"CPD primal Newton did not converge in max_iter={max_iter} steps; the answer is the last iterate",
            ConvergenceWarning,
            stacklevel=2,
        )
    objective = squared_hinge_objective(Phi, alpha_new, f_new, y, lam, w)
    return NewtonResult(
        alpha=alpha_new,
        beta_bar=bbar_new,
        f=f_new,
        objective=objective,
        violators=np.flatnonzero(y * f_new < 1.0),
        iterations=it,
        converged=converged,
        n_refactor=counters["n_refactor"],
        n_updates=counters["n_updates"],
        jitter=getattr(ws, "jitter", 0.0),
    )


# ============================================================================ β = 0 by the kernel of f
def _sub(A: Array, rows: NDArray[np.intp], cols: NDArray[np.intp]) -> Array:
    """``A[np.ix_(rows, cols)]`` (a new C-ordered array) by two ``take`` passes, rows then columns
    (contiguous reads, where the fancy index gathers entry by entry)."""
    return np.asarray(A.take(rows, axis=0).take(cols, axis=1))


class _KernelOfF(GramOperator):
    """K̃ = Φ + Q L Qᵀ (the kernel of f, :func:`beta_zero_kernel`) read from Φ and the rank-k
    term, never formed: a block is Φ's block plus (Q_r L) Q_cᵀ, a product Φ's rows plus
    Q(L Q_sᵀv_s). Forming K̃ (a copy of Φ, a rank-2k BLAS update and mirroring one triangle)
    would cost n² work and memory where the Newton solve reads blocks of order |s| and a dozen
    products.

    The Newton solver's three calls only: it passes valid index arrays (no column cache over a
    dense matrix, whose checks per call cost more than these small solves)."""

    def __init__(self, Phi: Array, Q: Array, L: Array) -> None:
        GramOperator.__init__(self, Phi.shape[0], cache_bytes=8 * Phi.shape[0])
        self.Phi, self.Q, self.L = Phi, Q, L

    def ensure(self, cols: ArrayLike) -> bool:
        return True

    def block(self, rows: ArrayLike, cols: ArrayLike, *, out: Array | None = None) -> Array:
        r, c = np.asarray(rows, dtype=np.intp), np.asarray(cols, dtype=np.intp)
        blk = _sub(self.Phi, r, c)
        blk += (self.Q[r] @ self.L) @ self.Q[c].T
        if out is None:
            return np.asarray(blk)
        out[: r.shape[0], : c.shape[0]] = blk
        return out[: r.shape[0], : c.shape[0]]

    def matvec(self, v: ArrayLike, rows: ArrayLike | None = None, *, threads: int = 1) -> Array:
        va = np.asarray(v, dtype=np.float64)
        nz = np.flatnonzero(va)
        if not nz.size:
            return np.zeros(self.n if rows is None else np.asarray(rows).shape[0])
        low = self.L @ (self.Q[nz].T @ va[nz])
        full = va[nz] @ self.Phi[nz]  # rows of Φ = its columns
        if rows is None:
            return np.asarray(full + self.Q @ low)
        r = np.asarray(rows, dtype=np.intp)
        return np.asarray(full[r] + self.Q[r] @ low)


@dataclass
class BetaZeroKernel:
    """The kernel of f for the β = 0 problem on the training points (:func:`beta_zero_kernel`).

    K̃ = Φ + Q ``L`` Qᵀ (``L`` symmetric k × k; :attr:`K` forms it, :attr:`operator` reads it
    without forming it); ``jitter`` the diagonal added when duplicated points made the null-space
    Gram singular. :meth:`coefficients` maps c to the α of f = K̃c; how depends on the route that
    made L (:class:`_ShiftedKernel`, :class:`_EchelonKernel`)."""

    Phi: Array
    Q: Array
    L: Array
    jitter: float

    @property
    def K(self) -> Array:
        """K̃ as an n × n matrix, exactly symmetric (a reference: the solver reads :attr:`operator`)."""
        K = self.Phi + (self.Q @ self.L) @ self.Q.T
        return np.asarray(0.5 * (K + K.T))

    @property
    def operator(self) -> _KernelOfF:
        """K̃ as an operator the Newton solver reads by blocks and products, never formed."""
        return _KernelOfF(self.Phi, self.Q, self.L)

    def coefficients(self, Phi: Array, c: Array) -> Array:
        """α ∈ 𝒫⊥ with Φα = K̃c (the α of f = K̃c)."""
        raise NotImplementedError


@dataclass
class _ShiftedKernel(BetaZeroKernel):
    """K̃ from the Cholesky factor of Φ_ρ = Φ + ρQQᵀ (:func:`_shifted_kernel`); ``G`` =
    Φ_ρ⁻¹Q S⁻¹ (n × k), the α map's rank-k term."""

    G: Array

    def coefficients(self, Phi: Array, c: Array) -> Array:
        """α = c − Φ_ρ⁻¹Q S⁻¹Qᵀc = c − G Qᵀc: the Φ-orthogonal projection of c onto 𝒫⊥ (Qᵀα = 0
        and Φα = K̃c; :func:`_shifted_kernel`)."""
        return np.asarray(c - self.G @ (self.Q.T @ c))


@dataclass
class _EchelonKernel(BetaZeroKernel):
    """K̃ from the echelon basis E = [−C; I] of 𝒫⊥ (000 Appendix B: rows ``piv.B`` and ``N``) and
    the upper Cholesky factor ``R`` of EᵀΦE (:func:`_echelon_kernel`)."""

    piv: _Pivots
    N: NDArray[np.int64]
    C: Array
    R: Array

    def coefficients(self, Phi: Array, c: Array) -> Array:
        """α = E(EᵀΦE)⁻¹EᵀΦc."""
        nz = np.flatnonzero(c)  # c is zero off the support: read only those rows (Φ symmetric)
        v = Phi[nz].T @ c[nz] if nz.size else np.zeros(Phi.shape[0])
        B = self.piv.B
        ev = v[self.N] - self.C.T @ v[B] if B.size else v[self.N]
        gamma = cho_solve((self.R, False), ev, check_finite=False)
        alpha = np.zeros(Phi.shape[0])
        alpha[self.N] = gamma
        if B.size:
            alpha[B] = -self.C @ gamma
        return alpha


def _echelon_basis(Q: Array) -> tuple[_Pivots, NDArray[np.int64], Array]:
    """The echelon basis E = [−C; I] of 𝒫⊥ on all n points (000 Appendix B): pivots, the other
    points N (ascending) and C (k_s × |N|, columns in N's order).

    When Qᵀ has full row rank (Q an orthonormal basis: always but for round-off), C comes from
    the pivoted QR Qᵀ[:, piv] = U T itself: Q_B U = T₁₁ᵀ and U ᵀQ_Nᵀ = T₁₂, so C = T₁₁⁻¹T₁₂ (one
    triangular solve; :meth:`_Pivots.coef` re-multiplies Q_N U and solves with a general LU).
    """
    n, k = Q.shape
    if k == 0:
        piv = _choose_pivots(Q, np.arange(n))
        return piv, np.arange(n, dtype=np.int64), np.zeros((0, n))
    U, T, order = qr(Q.T, mode="economic", pivoting=True)
    diag = np.abs(np.diag(T))
    if int(np.sum(diag > RANK_TOL * max(diag[0], 1e-300))) < k:  # rank deficient: the general route
        piv = _choose_pivots(Q, np.arange(n))
        inB = np.zeros(n, dtype=bool)
        inB[piv.B] = True
        N = np.flatnonzero(~inB).astype(np.int64)
        return piv, N, piv.coef(Q, N)
    B = np.asarray(order[:k], dtype=np.int64)
    rest = order[k:]
    ascending = np.argsort(rest)
    C = solve_triangular(T[:, :k], T[:, k:][:, ascending], check_finite=False)
    return _Pivots(B, U, np.array(T[:, :k].T)), np.asarray(rest[ascending], dtype=np.int64), C


def beta_zero_kernel(Phi: Array, Q: Array, overwrite_phi: bool = False) -> BetaZeroKernel:
    """K̃ = ΦE(EᵀΦE)⁻¹EᵀΦ for any basis E of 𝒫⊥: the kernel of f = Φα, α ∈ 𝒫⊥, on the training
    points (000 §6.2), as Φ plus a rank-k term, K̃ = Φ + QLQᵀ (read by blocks, never formed:
    :class:`_KernelOfF`).

    By the shifted factor (:func:`_shifted_kernel`: one Cholesky factorisation of order n, no
    basis of 𝒫⊥), and by the echelon basis (:func:`_echelon_kernel`) when that one is not
    certain: duplicated points (a singular null-space Gram, which the echelon route regularises
    with a jitter) or a shift found too small twice. Φ symmetric (kept by reference; with
    ``overwrite_phi`` used as work space and restored bit for bit), Q (n × k) an orthonormal basis
    of range P with k ≥ 1.
    """
    return _shifted_kernel(Phi, Q, overwrite_phi) or _echelon_kernel(Phi, Q)


#: The first shift of :func:`_shifted_kernel`, ρ = _SHIFT · n · max|Φ_ij|, must exceed λ_max(L)
#: (else Φ + ρQQᵀ is not positive definite): λ_max(L) ≤ ‖QᵀΦQ‖ + ‖W‖ ≤ 2n max|Φ_ij|, and the
#: shift is checked after the fact (docs/cpd.md, "Measurements", for λ_max(L) on real data).
_SHIFT = 4.0

#: :func:`_shifted_kernel` gives way to the echelon route when a squared pivot of Φ_ρ's factor is
#: below this fraction of ρ: K̃ = Φ_ρ − QS⁻¹Qᵀ then loses about log10(1/pivot) of the 16 digits
#: to cancellation, where the echelon route's factor holds only the null-space Gram (docs/cpd.md,
#: "Measurements": the agreement of the two routes against the pivot).
_SHIFT_PIVOT = 1e-8


def _shifted_kernel(Phi: Array, Q: Array, overwrite_phi: bool = False) -> _ShiftedKernel | None:
    """K̃ by one Cholesky factorisation of Φ_ρ = Φ + ρQQᵀ (order n), no basis of 𝒫⊥.

    With the bordered system [Φ Q; Qᵀ 0] unchanged by the shift on Qᵀα = 0, E(EᵀΦE)⁻¹Eᵀ =
    Φ_ρ⁻¹ − Φ_ρ⁻¹QS⁻¹QᵀΦ_ρ⁻¹ (S = QᵀΦ_ρ⁻¹Q, k × k), and ΦE = Φ_ρE, so K̃ = Φ_ρ − QS⁻¹Qᵀ:
    L = ρI − S⁻¹. Φ_ρ is positive definite exactly when ρ > λ_max(L) (its Schur complement on
    range Q is ρI − L), so ρ is taken well above (:data:`_SHIFT`) and checked after the fact,
    λ_max(S) ≤ 2/ρ (ρ ≥ 2λ_max(L): at ρ near λ_max(L), Φ_ρ is near singular); one retry at 16ρ.
    Cheaper than the echelon route (:func:`_echelon_kernel`: a gather, a rank-2k update, a
    Cholesky of order n − k, the products ΦQ and a pivoted QR of Qᵀ).

    ``overwrite_phi``: Φ_ρ and its factor are made in Φ's own storage (its lower triangle and
    diagonal), and Φ is restored bit for bit before returning, also on an error — no second n × n
    array (a fresh one costs its page faults at every fit): the workspace passes the Φ it owns.
    Not for an array another thread reads.

    Returns None when Φ_ρ is not numerically positive definite at either shift, or when a pivot
    of its factor is below :data:`_SHIFT_PIVOT` · ρ: Φ_ρ then carries the null-space Gram's small
    eigenvalues next to ρ's scale (smooth kernels, e.g. thin-plate order 3 in R², and duplicated
    points, where it is singular on e_i − e_j), and the echelon route, whose factor holds only
    that Gram, decides (with its jitter when needed).
    """
    n, k = Q.shape
    scale = max(float(Phi.max()), -float(Phi.min())) if n else 0.0  # max|Φ_ij| without an n² temporary
    if not (np.isfinite(scale) and scale > 0.0):
        return None
    rho = _SHIFT * n * scale
    diag = np.array(Phi.diagonal()) if overwrite_phi else None
    for _ in range(2):
        # Φ_ρ on the upper triangle of Φᵀ, the Fortran-ordered view of Φ's lower triangle (Φ
        # symmetric), by one rank-k BLAS update; LAPACK's factor left there, the other triangle
        # untouched (clean=0)
        work = Phi.T if overwrite_phi else Phi.copy().T
        try:
            A = dsyrk(rho, Q, beta=1.0, c=work, lower=0, overwrite_c=1)
            try:
                R, _ = cho_factor(A, lower=False, overwrite_a=True)
            except LinAlgError:  # not positive definite: ρ below λ_max(L), or Φ_ρ singular
                rho *= 16.0
                continue
            if float(np.min(np.abs(np.diag(R)))) ** 2 < _SHIFT_PIVOT * rho:
                return None
            Y = solve_triangular(R, Q, trans="T", check_finite=False)  # R⁻ᵀQ: S = YᵀY
            S = Y.T @ Y
            if float(np.linalg.eigvalsh(S)[-1]) * rho > 2.0:  # ρ < 2λ_max(L): again, farther out
                rho *= 16.0
                continue
            Sinv = np.linalg.inv(S)
            Sinv = 0.5 * (Sinv + Sinv.T)
            G = solve_triangular(R, Y @ Sinv, check_finite=False)  # Φ_ρ⁻¹Q S⁻¹
            return _ShiftedKernel(Phi, Q, rho * np.eye(k) - Sinv, 0.0, G)
        finally:
            if diag is not None:
                restore_symmetric(Phi, diag)
    return None


def _echelon_kernel(Phi: Array, Q: Array) -> _EchelonKernel:
    """K̃ = Φ − Q(QᵀΦQ − W)Qᵀ, W = QᵀΦE(EᵀΦE)⁻¹EᵀΦQ, E the echelon basis of 𝒫⊥ (000 Appendix B).

    Only EᵀΦE (order n − k, factorised once) and the k columns EᵀΦQ are formed — not the
    n × (n − k) product ΦE: EᵀΦE = Φ_NN − Φ_NB C − CᵀΦ_BN + CᵀΦ_BB C, EᵀΦQ = (ΦQ)_N − Cᵀ(ΦQ)_B
    (half the flops of ΦE); K̃ itself is returned as the
    rank-k term L = W − QᵀΦQ beside Φ. When duplicated points make EᵀΦE singular, the smallest
    jitter that makes its Cholesky factorisation work is added to its diagonal.
    """
    piv, N, C = _echelon_basis(Q)
    B = piv.B
    PhiQ = Phi @ Q
    # A = EᵀΦE in place on a copy of Φ_NN, upper triangle only (all the Cholesky reads), by one
    # rank-2k update: with U = Φ_NB − ½CᵀΦ_BB, UC + (UC)ᵀ = Φ_NB C + CᵀΦ_BN − CᵀΦ_BB C (BLAS
    # syr2k; A's transpose is its Fortran-ordered view, Φ_NN being symmetric), instead of two n²
    # products and three passes over n².
    U = _sub(Phi, B, N).T - 0.5 * (C.T @ _sub(Phi, B, B))  # Φ_NB = Φ_BNᵀ: the k rows gathered first

    def null_space_gram() -> Array:
        A = Phi[np.ix_(N, N)].T  # one pass into fresh memory (_sub's row pass would fault in a second n²)
        return A if not B.size else dsyr2k(-1.0, U, C.T, beta=1.0, c=A, lower=0, overwrite_c=1)

    EQ = PhiQ[N] - C.T @ PhiQ[B] if B.size else PhiQ[N]
    try:  # factorised in place (the upper triangle; the lower one is Φ_NN's): no n² copy
        R, jitter = cholesky(null_space_gram(), lower=False, overwrite_a=True), 0.0
    except np.linalg.LinAlgError:  # duplicated points: EᵀΦE singular; rebuilt, as the attempt overwrote it
        R, jitter = _cholesky_jitter(null_space_gram())
    Z = solve_triangular(R, EQ, trans="T", check_finite=False)  # R⁻ᵀ EᵀΦQ: W = ZᵀZ
    low = Z.T @ Z - Q.T @ PhiQ
    # K̃ = Φ + Q low Qᵀ is kept as (Φ, Q, low) and read by blocks (_KernelOfF), not formed
    return _EchelonKernel(Phi, Q, 0.5 * (low + low.T), jitter, piv, N, C, R)


#: Below this many points the β = 0 kernel SVM starts cold; above, from the solution on a random
#: half (recursively, :func:`~sdpkern.native.primal_svm.primal_svm_kernel`'s warm start): from
#: all points as violators the Newton iteration takes twice the steps, of falling order; below
#: a few hundred points the half's solve costs what it saves (docs/cpd.md, "Measurements").
_BETA_ZERO_WARM_START = 200


#: The β = 0 Newton steps refactorise λI + K̃_ss at every step while the violator set has at most
#: this many points (:func:`_beta_zero_newton`, the compiled loop); from a larger set on, the solver
#: that keeps one factor across steps (:func:`~sdpkern.native.primal_svm.primal_svm_kernel`) takes
#: over from the iterate reached: a fresh factor costs |s|³/3 per step but no bookkeeping, which
#: wins while |s|³/3 is small against the kept factor's per-step updates; sets beyond this bound
#: were not measured (docs/cpd.md, "Measurements"), hence the bound.
_BETA_ZERO_REFACTOR_MAX = 1000


def _newton_arrays(bz: BetaZeroKernel, y: Array, C: float, max_iter: int) -> tuple[Array, Array, Array, Array]:
    """(Φ, Q, M = QL, y) as the compiled loop (:func:`sdpkern._newtoncore.newton_on_points`) reads
    them: C-ordered float64 of matching shapes, y coded ±1; C > 0 and max_iter ≥ 1. The loop trusts
    these (a copy only where an array is not so laid out already: Q from the pivoted QR)."""
    check_positive(C, "C")
    _check_max_iter(max_iter)
    Phi = np.ascontiguousarray(bz.Phi, dtype=np.float64)
    Q = np.ascontiguousarray(bz.Q, dtype=np.float64)
    L = np.asarray(bz.L, dtype=np.float64)
    ya = np.ascontiguousarray(y, dtype=np.float64)
    n = ya.shape[0] if ya.ndim == 1 else -1
    if n < 1 or Phi.shape != (n, n) or Q.ndim != 2 or Q.shape[0] != n or L.shape != (Q.shape[1],) * 2:
        raise DataError(
            f"y must be a vector of the n points of bz (Phi n x n, Q n x k, L k x k): got y {ya.shape}, "
            f"Phi {Phi.shape}, Q {Q.shape}, L {L.shape}"
        )
    if not np.all(np.abs(ya) == 1.0):
        raise DataError("y must be coded -1/+1")
    return Phi, Q, np.ascontiguousarray(Q @ L), ya


def _beta_zero_newton(bz: BetaZeroKernel, y: Array, C: float, max_iter: int) -> tuple[Array, int, bool, int]:
    """The squared-hinge SVM without offset on K̃ (:func:`cpd_beta_zero_svm`): (c, steps,
    settled, factorisations).

    Warm-started from nested random halves above _BETA_ZERO_WARM_START points (C scaled by the
    size ratio, as :func:`~sdpkern.native.primal_svm.primal_svm_kernel` does: the halves then
    estimate the same function), each solved by the compiled fresh-factor loop
    (:func:`sdpkern._newtoncore.newton_on_points`; the levels stay here, a few calls per fit).
    Steps that refactorise cost |s|³/3 each but no bookkeeping. A set larger than
    _BETA_ZERO_REFACTOR_MAX hands the
    iterate over to that solver, and an unsettled last level is re-solved by it from scratch, so
    that the answer is always the one the kept-factor solver certifies."""
    Phi, Q, M, y = _newton_arrays(bz, y, C, max_iter)
    n = y.shape[0]
    order = np.random.default_rng(0).permutation(n) if n > _BETA_ZERO_WARM_START else np.arange(n)
    levels = [(n, C)]  # (points, C) from the whole set down to the smallest half
    while levels[-1][0] > _BETA_ZERO_WARM_START and np.unique(y[order[: levels[-1][0] // 2]]).shape[0] == 2:
        p, Cp = levels[-1]
        levels.append((p // 2, Cp * p / (p // 2)))
    c, steps, settled, factorisations = np.zeros(n), 0, None, 0
    for p, Cp in reversed(levels):
        P = np.sort(order[:p]).astype(np.intp, copy=False)
        c, steps, settled = _newton_on_points(Phi, Q, M, y, Cp, P, c, max_iter, _BETA_ZERO_REFACTOR_MAX)
        factorisations += steps
        if settled is None:
            break
    if settled:
        return c, steps, True, factorisations
    res = primal_svm_kernel(
        bz.operator, y, C, unpenalized=np.zeros((n, 0)), max_iter=max_iter, warm_start_size=_BETA_ZERO_WARM_START,
        init=(c, np.zeros(0)) if settled is None else None,
    )  # fmt: skip
    return res.coef, res.iterations, res.converged, factorisations + res.factorisations


def cpd_beta_zero_svm(
    K: GramOperator, Q: ArrayLike, y: ArrayLike, C: float, *, sample_weight: ArrayLike | None = None,
    tol: float = 1e-3, max_iter: int = 100, overwrite_phi: bool = False, kernel: BetaZeroKernel | None = None,
) -> NewtonResult:
    """The β = 0 problem (000 §6.2) as an ordinary p.d.-kernel squared-hinge SVM without offset.

    With N a basis of 𝒫⊥ and α = Nu, the model is f = ΦNu with penalty uᵀ(NᵀΦN)u: the kernel
    of f on the training points is K̃ = ΦN(NᵀΦN)⁻¹NᵀΦ. Splitting Φ by Π = I − QQᵀ (orthonormal
    N: NᵀΦN = K_Ξ, ΦN = N K_Ξ + QQᵀΦN) gives

        K̃ = Φ − Q (QᵀΦQ − W)Qᵀ,   W = QᵀΦN (NᵀΦN)⁻¹ NᵀΦQ   (k × k; any basis N, here E),

    a rank-k change of Φ whose only inverse is applied to k columns (:func:`beta_zero_kernel`;
    K̃ is read by blocks, never formed). Chapelle's Newton method on K̃ (004, no offset: steps
    (λI + K̃_ss) c_s = y_s of order |s|, exact line search, warm-started from random halves above
    200 points; a fresh factor per step while |s| ≤ 1000, compiled, else
    :func:`~sdpkern.native.primal_svm.primal_svm_kernel`'s kept factor: :func:`_beta_zero_newton`)
    then minimises the same function as eq. (18)'s steps, whose Hessian is of order n − k at
    every step. At the end α = E(EᵀΦE)⁻¹EᵀΦc, the coefficients
    with Φα = K̃c and Pᵀα = 0; f and the objective are recomputed from that α.

    Same arguments as :func:`cpd_primal_svm` (per-point weights go to its β = 0 branch,
    ``cpd_primal_svm(..., beta_zero=True)``), and ``overwrite_phi``: Φ (a
    :class:`~sdpkern.kernels.gram.PrecomputedGram`'s C-ordered writeable matrix) may serve as work
    space for the kernel's factorisation and is restored bit for bit before this returns
    (:func:`beta_zero_kernel`); no other thread may read it meanwhile. ``kernel``: the
    :func:`beta_zero_kernel` of (K, Q) when already made (a function of K and Q alone, so a grid
    over C makes it once: :class:`~sdpkern.native.cpd.CPDWorkspace`).
    """
    if sample_weight is not None:
        return cpd_primal_svm(K, Q, y, C, sample_weight=sample_weight, tol=tol, max_iter=max_iter, beta_zero=True)
    Phi, Q, y, lam = _algorithm1_inputs(K, Q, y, C, "rank_one")
    tol = check_positive(tol, "tol")
    n, k = Q.shape
    if k == 0:
        res = _algorithm1(Phi, Q, y, lam, max_iter=max_iter)
        value = stationarity(Phi, Q, y, res.alpha, res.f, 1.0 / (2.0 * lam), None, False)
        res.certificate = {"measure": "stationarity", "value": value, "tol": tol}
        res.converged = bool(res.converged and value <= tol)
        return res
    y = _check_inputs(y, 1.0 / (2.0 * lam), n)
    _check_max_iter(max_iter)
    if kernel is None:
        kernel = beta_zero_kernel(Phi, Q, overwrite_phi and Phi.flags.c_contiguous and Phi.flags.writeable)
    elif kernel.Phi is not Phi or kernel.Q.shape != Q.shape:
        raise DataError("kernel must be the beta_zero_kernel of this K and Q")
    bz = kernel
    with warnings.catch_warnings():
        # (one warning, below, in this function's terms)
        warnings.simplefilter("ignore", ConvergenceWarning)
        coef, steps, converged, factorisations = _beta_zero_newton(bz, y, 1.0 / (2.0 * lam), max_iter)
    if not converged:
        warnings.warn(
            f"the β = 0 Newton iteration did not settle in max_iter={max_iter} steps; the answer is the last iterate",
            ConvergenceWarning,
            stacklevel=2,
        )
    alpha = bz.coefficients(Phi, coef)
    f = Phi @ alpha
    value = stationarity(Phi, Q, y, alpha, f, 1.0 / (2.0 * lam), None, True)
    # eq. (14) from f = Φα at hand, λαᵀf + Σ ξ_i² (α has no zeros here: squared_hinge_objective's
    # Φ[nz, nz] would copy all of Φ)
    return NewtonResult(
        alpha=alpha,
        beta_bar=np.zeros(k),
        f=f,
        objective=_objective_from_reg(lam * float(alpha @ f), f, y, 1.0),
        violators=np.flatnonzero(y * f < 1.0),
        iterations=steps,
        converged=bool(converged and value <= tol),
        n_refactor=factorisations + 1,
        n_updates=0,
        jitter=bz.jitter,
        certificate={"measure": "stationarity", "value": value, "tol": tol},
    )
