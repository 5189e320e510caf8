"""The c.p.d. squared-hinge SVM as a p.d. one: the reduced kernel and an unpenalised polynomial block.

000 eq. (14) minimises λ αᵀΦα + Σ_i max(0, 1 − y_i f_i)² over f = Φα + Pβ with Pᵀα = 0. Pick k
training points Ξ that are unisolvent for 𝒫 (Q_Ξ invertible, Q the orthonormal basis of range P;
chosen by a column-pivoted QR of Qᵀ) and let ℓ(x) be the Lagrange basis of 𝒫 on Ξ (ℓ(X) = Q Q_Ξ⁻¹,
ℓ_j(ξ_i) = δ_ij). The kernel

    K_Ξ(x, y) = φ(x, y) − ℓ(x)ᵀφ(Ξ, y) − φ(x, Ξ)ℓ(y) + ℓ(x)ᵀφ(Ξ, Ξ)ℓ(y)

is positive semidefinite (Wendland 2005, *Scattered Data Approximation*, Thm. 10.20: it is the
reproducing kernel of the semi-norm part of the native space of φ, the functions vanishing on Ξ).
On the training points K_Ξ = TᵀΦT with T = I − E_Ξ ℓ(X)ᵀ, and T maps every γ into 𝒫⊥ (PᵀT = 0): T is
the echelon null-space basis "P⊥ = [P̃⊥; I]" of 000 Appendix B with the global pivots Ξ. Hence, with
α = Tγ,

    αᵀΦα = γᵀK_Ξγ,     Φα + Pβ = K_Ξγ + Q c     (c = β̄ + Q_Ξ⁻¹(Φα)_Ξ),

and eq. (14) is exactly the p.d. squared-hinge problem  min λ γᵀK_Ξγ + Σ max(0, 1 − y_i(K_Ξγ + Qc)_i)²
with the polynomial coefficients c unpenalised: Chapelle's (2007) primal Newton SVM (004) with the
offset column generalised to Q, solved by :func:`~sdpkern.native.primal_svm.primal_svm_kernel`.
Its Newton system on the violators s is 000 eq. (17) with Φ_ss replaced by the positive definite
(K_Ξ)_ss, so one Cholesky factor can be kept over a superset of s, entering points appended as a
block and leaving ones pinned by multipliers, with kernel columns computed only for points that
are violators at some stage; no n × n matrix is formed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.linalg import qr, solve

from .._validation import as_matrix, check_positive
from ..errors import DataError
from ..kernels.base import Kernel
from .cpd_newton import NewtonResult
from .kernel_columns import KernelColumns
from .primal_svm import primal_svm_kernel

__all__ = ["ReducedKernel", "reduced_kernel", "cpd_primal_svm_reduced"]

Array = NDArray[np.float64]


@dataclass(eq=False)  # holds arrays and a column cache: compare by identity
class ReducedKernel:
    """K_Ξ on the training points X, evaluated entry block by entry block (module docstring).

    Attributes
    ----------
    kernel : Kernel
    X : (n, d) array
    unisolvent : (k,) int array
        Ξ, training points with Q_Ξ invertible.
    ell : (n, k) array
        ℓ(x_i), the Lagrange basis of 𝒫 on Ξ at the training points.
    Phi_XXi : (n, k) array
        φ(x_i, ξ_j).
    Q_Xi : (k, k) array
        Q_Ξ.
    shared : bool
        Keep every column computed for a request of all rows, so that later solves on the same
        points (the one-vs-rest models of a multi-class fit) reuse it.
    """

    kernel: Kernel
    X: Array
    unisolvent: NDArray[np.intp]
    ell: Array
    Phi_XXi: Array
    Q_Xi: Array
    shared: bool = False

    def __post_init__(self) -> None:
        k = self.unisolvent.shape[0]
        Phi_XiXi = self.Phi_XXi[self.unisolvent] if k else np.zeros((0, 0))
        # K_Ξ[R, C] = Φ[R, C] − [ℓ, φ(·, Ξ)]_R [φ(·, Ξ) − ℓ φ(Ξ, Ξ), ℓ]_Cᵀ: one product of inner size 2k
        self._left = np.hstack([self.ell, self.Phi_XXi])
        self._right = np.hstack([self.Phi_XXi - self.ell @ Phi_XiXi, self.ell])
        self._diag = self.kernel.diag(self.X)
        self._kept = KernelColumns(self.n, self._compute) if self.shared else None

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    def entries(self, rows: NDArray[np.intp], cols: NDArray[np.intp]) -> Array:
        """``K_Ξ[np.ix_(rows, cols)]``, with φ's own diagonal where a row and a column coincide.

        With ``shared``, a request for all rows (``rows`` a permutation of the points, as the
        Newton solver's column cache makes) is served from the kept columns."""
        if self._kept is not None and rows.shape[0] == self.n:
            self._kept.ensure(cols)
            return self._kept.block(rows, cols)
        return self._compute(rows, cols)

    def _compute(self, rows: NDArray[np.intp], cols: NDArray[np.intp]) -> Array:
        block = self.kernel(self.X[rows], self.X[cols])
        pos = np.full(self.n, -1, dtype=np.intp)
        pos[rows] = np.arange(rows.shape[0])
        r = pos[cols]
        hit = np.flatnonzero(r >= 0)
        block[r[hit], hit] = self._diag[cols[hit]]
        if self.unisolvent.size:
            block -= self._left[rows] @ self._right[cols].T
        return np.asarray(block, dtype=np.float64)

    def diag(self) -> Array:
        """K_Ξ(x_i, x_i) = φ(x_i, x_i) − 2ℓ(x_i)ᵀφ(Ξ, x_i) + ℓ(x_i)ᵀφ(Ξ, Ξ)ℓ(x_i) (zero on Ξ)."""
        if self.unisolvent.size == 0:
            return np.array(self._diag, dtype=np.float64)
        return np.asarray(self._diag - np.einsum("ij,ij->i", self._left, self._right), dtype=np.float64)

    def to_cpd(self, gamma: Array, c: Array) -> tuple[Array, Array]:
        """(α, β̄) of 000 eq. (14) from (γ, c): α = Tγ, β̄ = c − Q_Ξ⁻¹(Φα)_Ξ (so Pᵀα = 0)."""
        alpha = np.array(gamma, dtype=np.float64)
        if self.unisolvent.size == 0:
            return alpha, np.zeros(0)
        alpha[self.unisolvent] -= self.ell.T @ gamma
        beta_bar = c - solve(self.Q_Xi, self.Phi_XXi.T @ alpha)
        return alpha, np.asarray(beta_bar, dtype=np.float64)


def reduced_kernel(kernel: Kernel, X: ArrayLike, Q: ArrayLike, *, shared: bool = False) -> ReducedKernel:
    """Choose Ξ by a column-pivoted QR of Qᵀ and set up K_Ξ (module docstring).

    ``Q`` is the orthonormal basis of range P (``polynomial_factor(X, kernel).Q``, k = rank P
    columns, so k unisolvent points exist even when P is rank deficient); ``(n, 0)`` for a p.d.
    kernel, when K_Ξ = Φ. ``shared=True`` keeps the computed columns for later solves.
    """
    Xa = as_matrix(X, "X")
    Qa = np.asarray(Q, dtype=np.float64)
    n, k = Qa.shape if Qa.ndim == 2 else (-1, -1)
    if n != Xa.shape[0]:
        raise DataError(f"Q must have one row per point of X ({Xa.shape[0]}), got shape {Qa.shape}")
    if k == 0:
        empty = np.zeros((n, 0))
        return ReducedKernel(kernel, Xa, np.zeros(0, dtype=np.intp), empty, empty, np.zeros((0, 0)), shared)
    piv = qr(Qa.T, mode="economic", pivoting=True)[2]
    xi = np.sort(piv[:k]).astype(np.intp)
    Q_Xi = Qa[xi]
    ell = solve(Q_Xi.T, Qa.T).T  # ℓ(X) = Q Q_Ξ⁻¹
    return ReducedKernel(kernel, Xa, xi, np.asarray(ell), kernel(Xa, Xa[xi]), Q_Xi, shared)


def cpd_primal_svm_reduced(
    kernel: Kernel,
    X: ArrayLike,
    Q: ArrayLike,
    y: ArrayLike,
    lam: float,
    *,
    reduced: ReducedKernel | None = None,
    max_iter: int = 50,
    warm_start_size: int = 1000,
    random_state: int | None = 0,
) -> NewtonResult:
    """000 eq. (14) solved as the p.d. problem on K_Ξ with the polynomial block unpenalised.

    Same minimiser as :func:`~sdpkern.native.cpd_newton.cpd_primal_svm` (000 Algorithm 1), by
    the exact reduction of the module docstring; the Newton method is 004's (Chapelle 2007):
    exact line search, warm start on a random half, one Cholesky factor kept across steps, and
    only the kernel columns of points that are violators at some stage computed.

    Parameters
    ----------
    kernel : Kernel
        A c.p.d. kernel (or a p.d. one with ``Q`` of shape (n, 0)).
    X : (n, d) array
    Q : (n, k) array
        Orthonormal basis of range P (``polynomial_factor(X, kernel).Q``).
    y : (n,) array of ±1
    lam : float
        λ > 0 of 000 eq. (14).
    reduced : ReducedKernel, optional
        ``reduced_kernel(kernel, X, Q)`` made beforehand, e.g. with ``shared=True`` so that
        several solves on the same points (one-vs-rest) compute each kernel column once.
    max_iter, warm_start_size, random_state
        As in :func:`~sdpkern.native.primal_svm.primal_svm_kernel`.

    Returns
    -------
    NewtonResult
        ``alpha`` (Pᵀα = 0 to round-off), ``beta_bar``, ``f``, the eq. (14) objective;
        ``n_refactor`` counts Cholesky factorisations from scratch; ``times`` has "kernel"
        (seconds spent getting kernel columns), "columns" (how many the solver asked for; with a
        shared ``reduced`` some were computed by an earlier solve) and "total".
    """
    t0 = time.perf_counter()
    lam = check_positive(lam, "lam")
    if reduced is None:
        rk = reduced_kernel(kernel, X, Q)
    else:
        rk = reduced
        if rk.kernel != kernel or rk.n != np.asarray(Q).shape[0] or rk.unisolvent.size != np.asarray(Q).shape[1]:
            raise DataError("reduced was made for another kernel or other points than (kernel, X, Q)")
    calls = {"seconds": 0.0, "columns": 0}

    def entries(rows: NDArray[np.intp], cols: NDArray[np.intp]) -> Array:
        t = time.perf_counter()
        out = rk.entries(rows, cols)
        calls["seconds"] += time.perf_counter() - t
        calls["columns"] += cols.shape[0]
        return out

    Qa = np.asarray(Q, dtype=np.float64)
    # eq. (14) = 2λ (½γᵀK_Ξγ + C Σ ξ²) with C = 1/(2λ)
    res = primal_svm_kernel(
        entries,
        y,
        1.0 / (2.0 * lam),
        unpenalized=Qa,
        max_iter=max_iter,
        warm_start_size=warm_start_size,
        random_state=random_state,
    )
    assert res.outputs is not None and res.unpenalized_coef is not None
    alpha, beta_bar = rk.to_cpd(res.coef, res.unpenalized_coef)
    ya = np.asarray(y, dtype=np.float64)
    return NewtonResult(
        alpha=alpha,
        beta_bar=beta_bar,
        f=res.outputs,
        objective=2.0 * lam * res.objective,
        violators=np.flatnonzero(ya * res.outputs < 1.0),
        iterations=res.iterations,
        converged=res.converged,
        n_refactor=res.factorisations,
        times={"kernel": calls["seconds"], "columns": float(calls["columns"]), "total": time.perf_counter() - t0},
    )
