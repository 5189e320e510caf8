"""The SOCP forms' kernel cones: one shared factor of the basis kernels and one cone per term.

Every SOCP form (002 eqs. 3.8-3.13 after the min-max exchange of the package docstring) has one
cone (s/2)‖R_lᵀZᵀv‖² ≤ μ(Lu)_l − τ per basis term l, with K_l = Z R_l R_lᵀ Zᵀ through a factor
Z of K_Σ = Σ_l K_l shared by all terms; β comes back as the cones' multipliers.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any

import cvxpy as cp
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.linalg import lapack
from threadpoolctl import threadpool_limits

from ...errors import ParameterError
from ...kernels.lowrank import HyperkernelBasis
from ...problem import KernelProblem
from ._common import Array

#: Entries of L at most this times max abs(L) are rounding (see :func:`hyper_u`).
_L_ROUNDING = 1e-12

__all__ = ["SharedFactor", "shared_factor", "ConeCheck", "term_index", "hyper_u", "socp_cones", "cone_beta"]


@dataclass(frozen=True)
class SharedFactor:
    """K_Σ ≈ Z Zᵀ and, per basis term, R_l with K_l ≈ Z R_l R_lᵀ Zᵀ (see module docstring)."""

    Z: Array
    R: list[Array]


def shared_factor(kernels: Array, factor_tol: float = 1e-10) -> SharedFactor:
    """Factor a stack of PSD matrices (p, m, m) through one common basis of their ranges.

    Directions of K_Σ = Σ_l K_l with eigenvalue at or below ``factor_tol``·λ_max(K_Σ) are
    dropped from Z, and, per term, eigenvalues of M_l at or below ``factor_tol``·λ_max(M_l) from
    R_l. When no direction is dropped, Z = I and R_l is the pivoted Cholesky factor of K_l itself
    (pivots at or below ``factor_tol``·max diag(K_l) dropped): the same cones with sparser,
    triangular rows, on which Clarabel certifies restricted problems it stalled on with the dense
    eigenvector factors (see the comment in the code). With the default 1e-10 this is exact to
    rounding (002 eqs. 3.8-3.13 and their SOCP duals,
    Appendix A.2). A larger ``factor_tol`` is an approximation of the SOCP only: each cone uses
    P K_l P (P the projector on the kept eigenvectors of K_Σ) in place of K_l, so the optimum moves
    by about ``factor_tol``·λ_max(K_Σ)·‖y∘α‖² per cone; the SDP form never uses this factor.

    Measured (the C-SVM, pima, η = 1e-4, HarmonicARD(0.6)): the rank r of Z is m at 1e-10, but
    0.84 m / 0.6 m / 0.45 m at 1e-6 for m = 100 / 200 / 300 and about 40 at 1e-4; the factored
    basis kernels themselves are full rank (k_l = r), so only the cut of Z matters. At m = 100 the
    full SOCP's A has 442k / 371k / 156k nonzeros at 1e-10 / 1e-6 / 1e-4, the solve 1.4× / 4.5×
    faster than at 1e-10, and the optimum moved by 3e-7 / 9e-4 relative. The error depends on the
    formulation: on an m = 40 instance (rank 39 at 1e-6) the C-SVM moved by 9e-6 and the L2-SVM
    by 2e-4 at 1e-6, the L2-SVM by 2e-2 at 1e-4 (tests: ``test_truncated_shared_factor_*``).
    Below m ≈ 60 nothing is cut at 1e-6 or 1e-7, and the defaults keep 1e-10.
    """
    K_sum = kernels.sum(axis=0)
    lam, V = np.linalg.eigh((K_sum + K_sum.T) / 2)
    keep = lam > factor_tol * lam[-1]
    if keep.all():
        # Nothing to cut: Z = I and per term a pivoted Cholesky factor (triangular up to the pivot
        # order, half the nonzeros of an eigenvector factor). With the dense factors V√Λ (or the
        # composite R_lᵀZᵀ) Clarabel stalled at a 2e-7 gap, step length 0, on every restricted
        # C-SVM with two or more cones tried on the demo's data (`make demo`'s recovery line);
        # with these it certifies them in 19-20 iterations.
        with threadpool_limits(limits=1, user_api="blas"):
            return SharedFactor(Z=np.eye(K_sum.shape[0]), R=[_pivoted_cholesky(K, factor_tol) for K in kernels])
    Z = V[:, keep] * np.sqrt(lam[keep])
    Zpinv = V[:, keep].T / np.sqrt(lam[keep])[:, None]  # Z⁺ (rows orthonormal directions, rescaled)
    R: list[Array] = []
    # hundreds of small eigendecompositions: threaded BLAS only adds contention here (measured
    # 60× slower on a loaded 2-core machine)
    with threadpool_limits(limits=1, user_api="blas"):
        for K in kernels:
            M = Zpinv @ K @ Zpinv.T
            mu, W = np.linalg.eigh((M + M.T) / 2)
            k = mu > factor_tol * max(mu[-1], 1e-300)
            R.append(W[:, k] * np.sqrt(mu[k]))
    return SharedFactor(Z=Z, R=R)


def _pivoted_cholesky(K: Array, factor_tol: float) -> Array:
    """R with K ≈ R Rᵀ: LAPACK's pivoted Cholesky (dpstrf), stopped at pivots ≤ factor_tol·max diag(K)
    (a PSD K of lower rank gets fewer columns), rows put back in K's order."""
    c, piv, rank, info = lapack.dpstrf((K + K.T) / 2, lower=1, tol=factor_tol * max(float(np.max(np.diag(K))), 1e-300))
    if info < 0:
        raise ValueError(f"dpstrf failed (info {info})")  # an argument error: a bug, not data
    R = np.empty((K.shape[0], max(int(rank), 1)))
    R[piv - 1] = np.tril(c)[:, : R.shape[1]]
    return R


def _socp_kernel_cones(
    v: cp.Expression,
    factor: SharedFactor,
    L: Array,
    mu: cp.Expression,
    tau: cp.Variable,
    u: cp.Expression,
    terms: NDArray[np.intp] | None = None,
    scale: cp.Expression | None = None,
) -> list[cp.Constraint]:
    """The cones (s/2)‖R_lᵀ Zᵀv‖² ≤ μ(Lu)_l − τ (s = ``scale``, 1 if None), shared by every SOCP form.

    With ``terms``, ``factor.R[i]`` belongs to basis term ``terms[i]`` and only those cones are
    written (the restricted problems of :func:`cone_generation`). A parameter ``scale`` keeps
    the cones DPP where the thesis divides by a parameter.

    Zᵀv stays an expression: introducing it as a variable with a linking equality was measured
    to make Clarabel stall at a 1e-7 gap (status AlmostSolved) on m = 30-40 instances that
    it solves to optimality without the extra variable.
    """
    m, r = factor.Z.shape
    # Z = I (full rank, see shared_factor): no product, the cones act on v itself
    w = v if m == r and np.array_equal(factor.Z, np.eye(m)) else factor.Z.T @ v
    Lu = L @ u
    index = range(len(factor.R)) if terms is None else terms
    out: list[cp.Constraint] = []
    for l, R_l in zip(index, factor.R):
        q = 0.5 * cp.sum_squares(R_l.T @ w)
        out.append((q if scale is None else scale * q) <= mu * Lu[int(l)] - tau)
    return out


@dataclass(frozen=True)
class ConeCheck:
    """How to evaluate an SOCP form's omitted cones at a solved point (:func:`cone_generation`).

    ``v``, ``mu`` and ``scale`` are the expressions the cones were written with (``v.value`` is
    the cone vector after a solve), ``terms`` the basis terms whose cones the problem holds.
    """

    v: cp.Expression
    mu: cp.Expression
    scale: cp.Expression | None
    terms: NDArray[np.intp]


def term_index(terms: ArrayLike | None, p: int) -> NDArray[np.intp]:
    """The sorted basis terms a restricted SOCP keeps (all p when ``terms`` is None)."""
    if terms is None:
        return np.arange(p)
    idx = np.unique(np.asarray(terms, dtype=np.intp).ravel())
    if idx.size == 0 or idx[0] < 0 or idx[-1] >= p:
        raise ParameterError(f"terms must be indices of basis terms in [0, {p}), got {terms!r}")
    return idx


def hyper_u(L: Array, terms: ArrayLike | None) -> tuple[cp.Variable, cp.Expression]:
    """The SOCP forms' u of ‖u‖ ≤ 1 (the dual of the hyperkernel norm ‖Lᵀβ‖, 002 eq. 3.8) over
    the columns of L that the kept terms' rows use: ``(u_kept, u)``, u the full vector with
    zeros elsewhere (``u = E u_kept``, E the column selection), the ball written on ``u_kept``.

    Why: L is triangular, so a restricted problem's cones (rows ``terms`` of Lu) read only the
    first few entries of u; the others appeared in the ball alone, a free face of dimension
    p − |terms| in the optimal set. Clarabel then lost primal feasibility as the gap closed
    (measured on the status sweep's L2-SVM ionosphere m = 49, C = 4.71, terms {0, 1, 2}: the
    primal residual grew from 1e-10 to 1.6e-6 over the last five iterations, AlmostSolved,
    while the full SOCP solved to ``optimal``). Setting the unused entries to 0 is no loss:
    with them zero the ball only gets looser for the kept ones, so the optimum is the same.
    """
    rows = L[term_index(terms, L.shape[0])]
    # the incomplete Cholesky's L is triangular in exact arithmetic but carries rounding above
    # the diagonal (up to 60 eps·max abs(L) measured); those entries move a cone by less than
    # 1e-12·max abs(L)·sqrt(p)·μ, far below any solver tolerance, and are read as zeros here
    used = np.flatnonzero(np.any(np.abs(rows) > _L_ROUNDING * np.max(np.abs(L)), axis=0))
    if used.size == L.shape[1]:
        u = cp.Variable(L.shape[1], name="u")
        return u, u
    u_kept = cp.Variable(used.size, name="u")
    E = np.zeros((L.shape[1], used.size))
    E[used, np.arange(used.size)] = 1.0
    return u_kept, E @ u_kept


def socp_cones(
    v: cp.Expression,
    kernels: Array,
    L: Array,
    mu: cp.Expression,
    tau: cp.Variable,
    u: cp.Expression,
    *,
    terms: ArrayLike | None,
    factor_tol: float,
    data: MutableMapping[str, Any],
    scale: cp.Expression | None = None,
) -> list[cp.Constraint]:
    """The kernel cones of an SOCP form over the basis terms ``terms`` (all if None).

    Factors the kept kernels through one shared basis (:func:`shared_factor`) and records in
    ``data`` what :func:`cone_beta` and :func:`cone_generation` need (``terms``,
    ``factor_rank``, ``cone_check``).
    """
    idx = term_index(terms, kernels.shape[0])
    factor = shared_factor(kernels[idx], factor_tol)
    data["terms"] = idx
    data["factor_rank"] = factor.Z.shape[1]
    data["cone_check"] = ConeCheck(v, mu, scale, idx)
    return _socp_kernel_cones(v, factor, L, mu, tau, u, idx, scale)


def cone_beta(problem: KernelProblem) -> Array:
    """β from a solved SOCP form: the multipliers of its cones, zero for omitted terms."""
    B: HyperkernelBasis = problem.data["basis"]
    beta = np.zeros(B.size)
    duals = [float(np.ravel(c.dual_value)[0]) for c in problem.constraints["kernel_cones"]]
    beta[problem.data.get("terms", np.arange(B.size))] = np.clip(np.asarray(duals, dtype=float), 0.0, None)
    return beta
