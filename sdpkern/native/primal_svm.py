"""Primal Newton SVM with the squared hinge loss (004; Chapelle 2007), linear and kernel.

The objective, with offset ``b`` and ``o = Kβ + b`` (kernel) or ``o = Xw + b`` (linear), is

    F = ½ βᵀKβ + C Σ_i max(0, 1 − y_i o_i)²        (004, "Primal Formulation"; L2 loss)

On a fixed set ``I = {i : y_i o_i < 1}`` of support vectors (violators) ``F`` is quadratic and its
minimiser solves, with ``λ = 1/(2C)`` (004, "Newton Method for Nonlinear Primal SVM", plus the
offset row of Chapelle 2007 §4)::

    [ λI + K_II   1 ] [β_I]   [y_I]
    [ 1ᵀ          0 ] [ b ] = [ 0 ],      β_i = 0 for i ∉ I,

solved by one Cholesky factorisation of ``λI + K_II`` and block elimination. From the current
point we move towards that Newton point with an exact line search on the piecewise-quadratic
``F(t)``; the method stops when the Newton point's own violators are the set it was solved on
(its gradient is then zero, so it is the exact minimiser), which takes a handful of steps
(finite Newton method).
For large ``n`` the start is warm: the same method on a random half of the data, recursively.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.linalg import LinAlgError, cho_factor, cho_solve, cholesky, solve_triangular
from sklearn.exceptions import ConvergenceWarning

from .._validation import as_matrix, as_vector, check_positive
from ..errors import DataError, LabelError, NotPSDError, ParameterError

__all__ = [
    "PrimalSVMResult",
    "LowRankPrimalSVMResult",
    "primal_svm_kernel",
    "primal_svm_linear",
    "primal_svm_lowrank",
    "squared_hinge_objective",
    "exact_line_search",
]

logger = logging.getLogger(__name__)


@dataclass
class PrimalSVMResult:
    """Solution of the primal squared-hinge SVM.

    Attributes
    ----------
    coef : ndarray
        ``β`` (kernel, shape (n,)) or ``w`` (linear, shape (d,)).
    intercept : float
        The offset ``b``.
    objective : float
        ``F`` at the solution.
    support : ndarray of int
        Indices with ``y_i o_i < 1`` (the support vectors of the squared hinge loss).
    iterations : int
        Newton steps on the full data (warm-start steps not counted).
    converged : bool
        Whether the violator set settled within ``max_iter``.
    """

    coef: NDArray[np.float64]
    intercept: float
    objective: float
    support: NDArray[np.intp]
    iterations: int
    converged: bool


def squared_hinge_objective(reg: float, outputs: ArrayLike, y: ArrayLike, C: float) -> float:
    """``reg + C Σ max(0, 1 − y_i o_i)²`` where ``reg`` is ``½βᵀKβ`` or ``½‖w‖²``."""
    xi = np.maximum(0.0, 1.0 - np.asarray(y) * np.asarray(outputs))
    return float(reg + C * xi @ xi)


def exact_line_search(q1: float, q2: float, e: NDArray[np.float64], g: NDArray[np.float64], C: float) -> float:
    """Exact minimiser ``t ≥ 0`` of ``q1 t + ½ q2 t² + C Σ max(0, e_i − t g_i)²``.

    The function is convex and piecewise quadratic with breakpoints ``t_i = e_i/g_i``; its
    derivative ``q1 − 2C A + t (q2 + 2C B)`` (``A = Σ g_i e_i``, ``B = Σ g_i²`` over active
    terms) is linear between breakpoints, so we sort them once and find the interval where
    it crosses zero (vectorised; no 1-D iteration). ``e_i = 1 − y_i o_i``, ``g_i = y_i Δo_i``.
    """
    active0 = (e > 0) | ((e == 0) & (g < 0))
    A0 = float(g[active0] @ e[active0])
    B0 = float(g[active0] @ g[active0])
    with np.errstate(divide="ignore", invalid="ignore"):
        t_break = np.where(g != 0, e / g, np.inf)
    cross = (t_break > 0) & np.isfinite(t_break)
    idx = np.nonzero(cross)[0]
    order = idx[np.argsort(t_break[idx], kind="stable")]
    tb = t_break[order]
    # Crossing t_i: an active term with g_i > 0 switches off, an inactive one with g_i < 0 on.
    sign = np.where(active0[order], -1.0, 1.0)
    dA = sign * g[order] * e[order]
    dB = sign * g[order] ** 2
    A = A0 + np.concatenate(([0.0], np.cumsum(dA)))
    B = B0 + np.concatenate(([0.0], np.cumsum(dB)))
    # Interval j is (tb[j-1], tb[j]); its slope uses A[j], B[j]; derivative at its right end:
    deriv_right = q1 - 2 * C * A[:-1] + tb * (q2 + 2 * C * B[:-1])
    hits = np.nonzero(deriv_right >= 0)[0]
    j = int(hits[0]) if hits.size else tb.shape[0]
    denom = q2 + 2 * C * B[j]
    if denom <= 0:
        return float(tb[j - 1]) if j > 0 else 0.0
    t = (2 * C * A[j] - q1) / denom
    low = tb[j - 1] if j > 0 else 0.0
    return float(max(t, low, 0.0))


def _check_inputs(y: ArrayLike, C: float, n: int) -> NDArray[np.float64]:
    check_positive(C, "C")
    ya = as_vector(y, "y", length=n)
    vals = np.unique(ya)
    if vals.shape[0] < 2:
        raise LabelError(f"y must contain two classes, got only {vals.tolist()}")
    if not np.all(np.isin(vals, (-1.0, 1.0))):
        raise LabelError(f"y must be coded -1/+1 for the primal solver, got values {vals[:5].tolist()}")
    return ya


def _check_max_iter(max_iter: int) -> None:
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ParameterError(f"max_iter must be an integer >= 1, got {max_iter!r}")


def _settled(sv: NDArray[np.intp], sv_new: NDArray[np.intp], slack: NDArray[np.float64]) -> bool:
    """The violator set is unchanged, up to points sitting on the margin to round-off.

    Points with ``y_i o_i = 1`` contribute neither loss nor gradient, so flipping them in or out
    of the set leaves the optimum unchanged; without this the iteration can cycle on them.
    """
    if np.array_equal(sv, sv_new):
        return True
    changed = np.setxor1d(sv, sv_new, assume_unique=True)
    return bool(np.all(np.abs(slack[changed]) <= 1e-8))


class _KernelColumns:
    """Kernel columns ``K[:, j]`` computed on demand, once, and kept.

    The Newton method only ever needs ``K[:, I]`` for the support vectors ``I`` it has visited,
    never the whole ``n × n`` kernel. Columns live in the blocks they were computed in (no growing
    array to copy): ``(K β)[:p]`` is one product per block on a prefix of rows (the warm-start
    levels are prefixes of one shuffle) and ``K[I, J]`` a gather per block. A column first needed
    by a small warm-start level is computed down all ``n`` rows at once: computing only the
    level's rows and extending later saved 20 % of the kernel entries at n = 5000 but lost it
    again in extra calls and copies.
    """

    def __init__(self, n: int, entries: Callable[[NDArray[np.intp], NDArray[np.intp]], NDArray[np.float64]]) -> None:
        self.n = n
        self._entries = entries
        self._all = np.arange(n)
        self.blocks: list[NDArray[np.float64]] = []
        self.block_points: list[NDArray[np.intp]] = []
        self.where = np.full(n, -1, dtype=np.intp)  # block holding column j
        self.local = np.full(n, -1, dtype=np.intp)  # its position in that block

    @property
    def size(self) -> int:
        return sum(p.shape[0] for p in self.block_points)

    def ensure(self, idx: NDArray[np.intp]) -> None:
        """Compute the columns of ``idx`` not cached yet."""
        new = idx[self.where[idx] < 0]
        if new.size == 0:
            return
        block = np.ascontiguousarray(self._entries(self._all, new), dtype=np.float64)
        if block.shape != (self.n, new.shape[0]):
            raise DataError(f"the kernel oracle returned shape {block.shape}, expected ({self.n}, {new.shape[0]})")
        self.where[new] = len(self.blocks)
        self.local[new] = np.arange(new.shape[0])
        self.blocks.append(block)
        self.block_points.append(new.copy())

    def matvec(self, beta: NDArray[np.float64], rows: int) -> NDArray[np.float64]:
        """``(K β)[:rows]`` for ``β`` supported on cached points (a prefix: no copies)."""
        out = np.zeros(rows)
        for block, pts in zip(self.blocks, self.block_points):
            bp = beta[pts]
            if bp.any():
                out += block[:rows] @ bp
        return out

    def block(self, rows: NDArray[np.intp], cols: NDArray[np.intp]) -> NDArray[np.float64]:
        """``K[rows, cols]`` (``cols`` cached) as a fresh array."""
        w = self.where[cols]
        order = np.argsort(w, kind="stable")
        bounds = np.searchsorted(w[order], np.arange(len(self.blocks) + 1))
        parts = [
            self.blocks[k].take(rows, axis=0).take(self.local[cols[order[lo:hi]]], axis=1)
            for k, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:]))
            if hi > lo
        ]
        out = parts[0] if len(parts) == 1 else np.hstack(parts)
        if np.any(order[1:] < order[:-1]):
            out = out.take(np.argsort(order), axis=1)
        return out

    def grouped(self, idx: NDArray[np.intp]) -> NDArray[np.intp]:
        """``idx`` reordered block by block (so :meth:`block` needs no column shuffle)."""
        return idx[np.lexsort((self.local[idx], self.where[idx]))]


def _not_psd(K_II: NDArray[np.float64], lam: float) -> NotPSDError:
    lam_min = float(np.linalg.eigvalsh(K_II)[0])
    return NotPSDError(
        f"K is not positive semidefinite on the support-vector block (smallest eigenvalue {lam_min:.3g} "
        f"< -1/(2C) = {-lam:.3g}), so the primal Newton SVM has no minimiser; repair it with "
        "sdpkern.kernels.repair_spectrum(..., method='clip'|'flip'|'shift'|'square') or use IndefiniteSVC",
        min_eigenvalue=lam_min,
    )


class _SupportFactor:
    """Cholesky factor ``RᵀR = λI + K_FF`` kept across Newton steps, ``F`` a superset of the SV set.

    Each Newton step needs the bordered system on the current set ``I`` (module docstring).
    Points entering ``I`` are appended to ``F`` as a block (``R₁₂ = R⁻ᵀK_FA``, ``R₂₂ = chol(λI +
    K_AA − R₁₂ᵀR₁₂)``: one triangular solve with ``|A|`` right-hand sides); points that left
    (``D = F \\ I``) stay in the factor and ``β_D = 0`` is imposed by Lagrange multipliers, a
    ``(|D| + 1)``-dimensional system from ``R⁻¹R⁻ᵀ[y, 1, E_D]``. So a step costs ``O(m²(|A| +
    |D|))`` instead of the ``m³/3`` of refactorising; when that is cheaper, or ``D`` has grown,
    ``F`` is reset to ``I`` and factorised afresh. (Rank-one :func:`~sdpkern.native.cholesky_update.
    chol_delete` / ``chol_append`` copy the whole factor per point: at m = 2400 one delete costs
    more than a refactorisation, so they are not used here.)
    """

    def __init__(self, cache: _KernelColumns, y: NDArray[np.float64], lam: float) -> None:
        self.cache, self.y, self.lam = cache, y, lam
        self.R = np.empty((0, 0))
        self.F = np.empty(0, dtype=np.intp)
        self.refactorisations = 0
        self._Z: NDArray[np.float64] | None = None  # M_FF⁻¹ [y_F, 1, e_j ...] for the current factor
        self._zcol = np.empty(0, dtype=np.intp)

    def _factorise(self, idx: NDArray[np.intp]) -> None:
        idx = self.cache.grouped(idx)
        M = self.cache.block(idx, idx)
        M[np.diag_indices_from(M)] += self.lam
        try:
            self.R = cholesky(M, lower=False, overwrite_a=True, check_finite=False)
        except LinAlgError:
            raise _not_psd(self.cache.block(idx, idx), self.lam) from None
        self.F = idx.copy()
        self.refactorisations += 1
        self._Z = None

    def _append(self, new: NDArray[np.intp]) -> None:
        m, k = self.F.shape[0], new.shape[0]
        R12 = solve_triangular(self.R, self.cache.block(self.F, new), trans="T", lower=False, check_finite=False)
        S = self.cache.block(new, new)
        S[np.diag_indices_from(S)] += self.lam
        S -= R12.T @ R12
        try:
            R22 = cholesky(S, lower=False, overwrite_a=True, check_finite=False)
        except LinAlgError:
            allp = np.concatenate([self.F, new])
            raise _not_psd(self.cache.block(allp, allp), self.lam) from None
        R = np.zeros((m + k, m + k))
        R[:m, :m] = self.R
        R[:m, m:] = R12
        R[m:, m:] = R22
        self.R = R
        self.F = np.concatenate([self.F, new])
        self._Z = None

    def _solve(self, rhs: NDArray[np.float64]) -> NDArray[np.float64]:
        z = solve_triangular(self.R, rhs, trans="T", lower=False, check_finite=False, overwrite_b=True)
        return solve_triangular(self.R, z, lower=False, check_finite=False, overwrite_b=True)

    def _columns(self, drop: NDArray[np.intp]) -> NDArray[np.float64]:
        """``M⁻¹[y_F, 1, E_D]`` (``D`` positions in ``F``), reusing columns solved in earlier steps."""
        m = self.F.shape[0]
        if self._Z is None or self._Z.shape[0] != m:
            self._Z = self._solve(np.column_stack([self.y[self.F], np.ones(m)]))
            self._zcol = np.full(m, -1, dtype=np.intp)
        missing = drop[self._zcol[drop] < 0]
        if missing.size:
            E = np.zeros((m, missing.shape[0]))
            E[missing, np.arange(missing.shape[0])] = 1.0
            self._zcol[missing] = self._Z.shape[1] + np.arange(missing.shape[0])
            self._Z = np.hstack([self._Z, self._solve(E)])
        return self._Z[:, np.concatenate([[0, 1], self._zcol[drop]])]

    def newton_point(self, sv: NDArray[np.intp]) -> tuple[NDArray[np.float64], float]:
        """``(β_I, b)`` solving the bordered system on ``sv`` (returned in the order of ``sv``)."""
        self.cache.ensure(sv)
        in_sv = np.zeros(self.y.shape[0], dtype=bool)
        in_sv[sv] = True
        in_f = np.zeros_like(in_sv)
        in_f[self.F] = True
        new = sv[~in_f[sv]]
        drop = np.nonzero(~in_sv[self.F])[0]
        m, mf, k = self.F.shape[0] + new.shape[0], self.F.shape[0], new.shape[0]
        # flop counts: refactorising costs m'³/3; updating costs the append and the solves for
        # the right-hand sides not solved before (all of them after an append)
        if k:
            update = mf * mf * k + k * k * mf + k**3 / 3 + 2.0 * m * m * (drop.shape[0] + 2)
        else:
            solved = 0 if self._Z is None else int(np.count_nonzero(self._zcol[drop] >= 0)) + 2
            update = 2.0 * m * m * (drop.shape[0] + 2 - solved)
        if mf == 0 or update > sv.shape[0] ** 3 / 3 + 4.0 * sv.shape[0] ** 2:
            self._factorise(sv)
        elif k:
            self._append(self.cache.grouped(new))
        F = self.F
        drop = np.nonzero(~in_sv[F])[0]  # positions in F of points outside the SV set
        Z = self._columns(drop)
        # β = Z_y − b Z_1 − Z_D μ with β_D = 0 and Σβ = 0: a (|D| + 1) system in (μ, b)
        nd = drop.shape[0]
        S = np.empty((nd + 1, nd + 1))
        S[:nd, :nd] = Z[drop][:, 2:]
        S[:nd, nd] = Z[drop, 1]
        S[nd, :nd] = Z[:, 2:].sum(axis=0)
        S[nd, nd] = Z[:, 1].sum()
        r = np.concatenate([Z[drop, 0], [Z[:, 0].sum()]])
        mu_b = np.linalg.solve(S, r)
        beta_f = Z[:, 0] - Z[:, 1:] @ np.concatenate([[mu_b[nd]], mu_b[:nd]])
        beta = np.zeros(self.y.shape[0])
        beta[F] = beta_f
        beta[F[drop]] = 0.0
        return beta[sv], float(mu_b[nd])


@dataclass
class _KernelState:
    beta: NDArray[np.float64]  # over all n points, zero outside the subproblem
    b: float
    Kbeta: NDArray[np.float64]  # over the points of the subproblem
    sv: NDArray[np.intp]
    iterations: int
    converged: bool


def _solve_kernel(
    cache: _KernelColumns, y: NDArray[np.float64], C: float, p: int, beta: NDArray[np.float64], b: float, max_iter: int
) -> _KernelState:
    """Finite Newton method on the first ``p`` points from ``(β, b)`` (``β`` supported on cached points)."""
    lam = 1.0 / (2.0 * C)
    P = np.arange(p)
    yP = y[:p]
    factor = _SupportFactor(cache, y, lam)
    Kbeta = cache.matvec(beta, p)
    beta_P = beta[:p]
    out = Kbeta + b
    sv_mask = yP * out < 1
    if not sv_mask.any():
        sv_mask[:] = True
    for it in range(1, max_iter + 1):
        sv = P[sv_mask]
        beta_sv, b_new = factor.newton_point(sv)
        beta_new = np.zeros(y.shape[0])
        beta_new[sv] = beta_sv
        Kbeta_new = cache.matvec(beta_new, p)
        beta_new_P = beta_new[:p]
        out_new = Kbeta_new + b_new
        slack_new = 1 - yP * out_new
        if _settled(np.nonzero(sv_mask)[0], np.nonzero(slack_new > 0)[0], slack_new):
            # The Newton point's violators are the set it was solved on: it is the minimiser.
            return _KernelState(beta_new, b_new, Kbeta_new, P[slack_new > 0], it, True)
        d_beta, d_Kbeta, d_b = beta_new_P - beta_P, Kbeta_new - Kbeta, b_new - b
        t = exact_line_search(float(d_beta @ Kbeta), float(d_beta @ d_Kbeta), 1 - yP * out, yP * (d_Kbeta + d_b), C)
        beta_P, b, Kbeta = beta_P + t * d_beta, b + t * d_b, Kbeta + t * d_Kbeta
        out = Kbeta + b
        mask_new = yP * out < 1
        logger.debug("primal newton step %d: t=%.3g, %d support vectors", it, t, int(mask_new.sum()))
        if mask_new.any():  # an empty set cannot happen at an optimum with C > 0; keep the set
            sv_mask = mask_new
    warnings.warn(
        f"primal Newton SVM did not settle its support-vector set in max_iter={max_iter} steps",
        ConvergenceWarning,
        stacklevel=4,
    )
    beta_full = np.zeros(y.shape[0])
    beta_full[:p] = beta_P
    return _KernelState(beta_full, b, Kbeta, P[sv_mask], max_iter, False)


def _solve_recursive(
    cache: _KernelColumns, y: NDArray[np.float64], C: float, p: int, max_iter: int, warm_start_size: int
) -> _KernelState:
    """Solve on the first ``p`` points, warm-started by the first ``p // 2`` (the data are shuffled)."""
    beta, b = np.zeros(y.shape[0]), 0.0
    half = p // 2
    if p > max(warm_start_size, 2) and np.unique(y[:half]).shape[0] == 2:
        # C scaled with the data (C p / half): the half problem then estimates the same function,
        # so its support vectors are close to the final set
        sub = _solve_recursive(cache, y, C * p / half, half, max_iter, warm_start_size)
        beta, b = sub.beta, sub.b
    return _solve_kernel(cache, y, C, p, beta, b, max_iter)


def primal_svm_kernel(
    K: ArrayLike | Callable[[NDArray[np.intp], NDArray[np.intp]], NDArray[np.float64]],
    y: ArrayLike,
    C: float = 1.0,
    *,
    max_iter: int = 50,
    warm_start_size: int = 1000,
    random_state: int | None = 0,
) -> PrimalSVMResult:
    """Kernel primal Newton SVM with the squared hinge loss (004; Chapelle 2007 §4-5).

    Parameters
    ----------
    K : array of shape (n, n), or callable
        Positive semidefinite kernel matrix, or an oracle ``K(rows, cols)`` returning
        ``K[np.ix_(rows, cols)]``. Only columns of points that are support vectors at some stage
        are used (and, with an oracle, computed, each entry once).
    y : array of shape (n,)
        Labels in {-1, +1}.
    C : float
        Loss weight, ``> 0`` (004 writes ``λ = 1/(2C)``).
    max_iter : int
        Newton steps allowed on the full data.
    warm_start_size : int
        Above this many points, first solve on a random half (recursively) and start from it.
    random_state : int or None
        Seed of the warm-start halving.

    Returns
    -------
    PrimalSVMResult

    Raises
    ------
    NotPSDError
        ``λI + K_II`` is not positive definite (``K`` too indefinite); the message names the
        smallest eigenvalue and the repairs.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]]); y = np.array([-1.0, -1.0, 1.0, 1.0])
    >>> res = primal_svm_kernel(X @ X.T, y, C=10.0)
    >>> bool(np.all(np.sign(X @ X.T @ res.coef + res.intercept) == y))
    True
    """
    if callable(K):
        ya0 = as_vector(y, "y")
        n = ya0.shape[0]
        entries = K
    else:
        Ka = as_matrix(K, "K")
        n = Ka.shape[0]
        if Ka.shape != (n, n):
            raise DataError(f"K must be square, got shape {Ka.shape}")

        def entries(rows: NDArray[np.intp], cols: NDArray[np.intp]) -> NDArray[np.float64]:
            return Ka[np.ix_(rows, cols)]

    ya = _check_inputs(y, C, n)
    _check_max_iter(max_iter)
    # one shuffle: the nested warm-start halves are then prefixes, and so are their kernel rows
    perm = np.random.default_rng(random_state).permutation(n) if n > max(warm_start_size, 2) else np.arange(n)

    def shuffled(rows: NDArray[np.intp], cols: NDArray[np.intp]) -> NDArray[np.float64]:
        return entries(perm[rows], perm[cols])

    st = _solve_recursive(_KernelColumns(n, shuffled), ya[perm], float(C), n, max_iter, warm_start_size)
    obj = squared_hinge_objective(0.5 * float(st.beta @ st.Kbeta), st.Kbeta + st.b, ya[perm], float(C))
    beta = np.empty(n)
    beta[perm] = st.beta
    return PrimalSVMResult(
        coef=beta,
        intercept=st.b,
        objective=obj,
        support=np.sort(perm[st.sv]),
        iterations=st.iterations,
        converged=st.converged,
    )


def primal_svm_linear(
    X: ArrayLike,
    y: ArrayLike,
    C: float = 1.0,
    *,
    max_iter: int = 50,
) -> PrimalSVMResult:
    """Linear primal Newton SVM: ``min ½‖w‖² + C Σ max(0, 1 − y_i(w·x_i + b))²`` (004).

    Each step solves the ``(d+1)``-dimensional Newton system
    ``[I' + 2C X_Iᵀ X_I] (w, b) = 2C X_Iᵀ y_I`` (``X_I`` with a column of ones, ``I'`` the identity
    without the offset entry) by Cholesky, then an exact line search.
    """
    Xa = as_matrix(X, "X")
    n, d = Xa.shape
    ya = _check_inputs(y, C, n)
    _check_max_iter(max_iter)
    C = float(C)
    Xb = np.hstack([Xa, np.ones((n, 1))])
    reg = np.ones(d + 1)
    reg[-1] = 0.0
    wb = np.zeros(d + 1)
    out = Xb @ wb
    sv = np.nonzero(ya * out < 1)[0]
    for it in range(1, max_iter + 1):
        Xs = Xb[sv]
        H = 2 * C * (Xs.T @ Xs)
        H[np.diag_indices_from(H)] += reg
        rhs = 2 * C * (Xs.T @ ya[sv])
        try:
            wb_new = cho_solve(cho_factor(H, lower=True, check_finite=False), rhs, check_finite=False)
        except LinAlgError:
            # Singular only through the unregularised offset (no violators of one class).
            wb_new = np.linalg.lstsq(H, rhs, rcond=None)[0]
        dwb = wb_new - wb
        out_new = Xb @ wb_new
        sv_at_new = np.nonzero(ya * out_new < 1)[0]
        if _settled(sv, sv_at_new, 1 - ya * out_new):
            obj = squared_hinge_objective(0.5 * float(wb_new[:-1] @ wb_new[:-1]), out_new, ya, C)
            return PrimalSVMResult(
                coef=wb_new[:-1].copy(),
                intercept=float(wb_new[-1]),
                objective=obj,
                support=sv_at_new,
                iterations=it,
                converged=True,
            )
        w, dw = wb[:-1], dwb[:-1]
        t = exact_line_search(float(w @ dw), float(dw @ dw), 1 - ya * out, ya * (out_new - out), C)
        wb = wb + t * dwb
        out = Xb @ wb
        sv_new = np.nonzero(ya * out < 1)[0]
        sv = sv_new
    warnings.warn(
        f"primal Newton SVM did not settle its support-vector set in max_iter={max_iter} steps",
        ConvergenceWarning,
        stacklevel=2,
    )
    obj = squared_hinge_objective(0.5 * float(wb[:-1] @ wb[:-1]), out, ya, C)
    return PrimalSVMResult(
        coef=wb[:-1].copy(), intercept=float(wb[-1]), objective=obj, support=sv, iterations=max_iter, converged=False
    )


@dataclass
class LowRankPrimalSVMResult:
    """Primal squared-hinge SVM on a pivoted incomplete-Cholesky basis (004, "Data Preprocessing").

    Attributes
    ----------
    coef : ndarray of shape (rank,)
        Expansion coefficients on the pivot points: ``f(x) = Σ_j coef_j k(x, x_{pivots_j}) + b``.
    intercept : float
    pivots : ndarray of int, shape (rank,)
    objective : float
        Objective of the linear problem on the factor ``G`` (``K ≈ GGᵀ``).
    residual_trace : float
        ``trace(K − GGᵀ)``, the approximation error bound.
    linear : PrimalSVMResult
        The linear primal solution on ``G``.
    """

    coef: NDArray[np.float64]
    intercept: float
    pivots: NDArray[np.intp]
    objective: float
    residual_trace: float
    linear: PrimalSVMResult


def primal_svm_lowrank(
    diagonal: ArrayLike,
    column: Callable[[int], NDArray[np.float64]],
    y: ArrayLike,
    C: float = 1.0,
    *,
    max_rank: int = 500,
    eta: float = 1e-3,
    max_iter: int = 50,
) -> LowRankPrimalSVMResult:
    """Kernel primal SVM through 004's "data preprocessing": ``X̃ = chol(K)``, then a linear SVM.

    ``K`` is replaced by ``GGᵀ`` from a pivoted incomplete Cholesky (only ``rank`` kernel columns
    are computed), the linear primal Newton SVM is trained on the rows of ``G``, and since
    ``G = K[:, P] L⁻ᵀ`` with ``L = G[P]`` the classifier is ``f(x) = k(x, X_P) L⁻ᵀw + b``.
    With ``rank = n`` and ``eta = 0`` this is the exact kernel problem.

    Parameters
    ----------
    diagonal : array of shape (n,)
        ``k(x_i, x_i)``.
    column : callable
        ``column(j)`` returns column ``j`` of ``K``.
    y : array of shape (n,)
        Labels in {-1, +1}.
    C : float
    max_rank : int
        Largest number of pivots.
    eta : float
        Stop pivoting when the largest residual diagonal entry of ``K − GGᵀ`` is ``≤ eta`` (so
        ``trace(K − GGᵀ) ≤ eta · n``).
    max_iter : int
        Newton steps.
    """
    from ..kernels.lowrank import incomplete_cholesky

    d = np.asarray(diagonal, dtype=np.float64)
    check_positive(eta, "eta", allow_zero=True)
    if isinstance(max_rank, bool) or not isinstance(max_rank, (int, np.integer)) or max_rank < 1:
        raise ParameterError(f"max_rank must be an integer >= 1, got {max_rank!r}")
    chol = incomplete_cholesky(d, column, eta=eta, max_rank=max_rank)
    lin = primal_svm_linear(chol.G, y, C, max_iter=max_iter)
    L = chol.G[chol.pivots]
    coef = solve_triangular(L, lin.coef, lower=True, trans="T")
    return LowRankPrimalSVMResult(
        coef=coef,
        intercept=lin.intercept,
        pivots=chol.pivots,
        objective=lin.objective,
        residual_trace=chol.residual_trace,
        linear=lin,
    )
