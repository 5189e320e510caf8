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
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.linalg import LinAlgError, cho_solve, solve_triangular
from sklearn.exceptions import ConvergenceWarning

from .. import _newtoncore
from .._validation import as_matrix, as_sample_weight, as_vector, check_positive
from ..errors import DataError, LabelError, NotPSDError, ParameterError
from ..kernels.gram import GramOperator
from .dense_cholesky import cho_factor, cholesky, upper_factor_into
from .dense_cholesky import solve_triangular as split_triangular

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
    unpenalized_coef : ndarray or None
        Kernel solver: the coefficients ``c`` of the unpenalised block ``U`` (``o = Kβ + Uc``);
        ``intercept`` is ``c[0]`` when ``U`` is the default column of ones, else 0.
    outputs : ndarray or None
        Kernel solver: ``o`` on the training points.
    factorisations : int
        Kernel solver: Cholesky factorisations from scratch, all warm-start levels.
    """

    coef: NDArray[np.float64]
    intercept: float
    objective: float
    support: NDArray[np.intp]
    iterations: int
    converged: bool
    unpenalized_coef: NDArray[np.float64] | None = None
    outputs: NDArray[np.float64] | None = None
    factorisations: int = 0


def squared_hinge_objective(
    reg: float, outputs: ArrayLike, y: ArrayLike, C: float, sample_weight: NDArray[np.float64] | None = None
) -> float:
    """``reg + C Σ w_i max(0, 1 − y_i o_i)²`` where ``reg`` is ``½βᵀKβ`` or ``½‖w‖²`` (w_i = 1 by default)."""
    xi = np.maximum(0.0, 1.0 - np.asarray(y) * np.asarray(outputs))
    return float(reg + C * (xi @ xi if sample_weight is None else (sample_weight * xi) @ xi))


def exact_line_search(q1: float, q2: float, e: NDArray[np.float64], g: NDArray[np.float64], C: float) -> float:
    """Exact minimiser ``t ≥ 0`` of ``q1 t + ½ q2 t² + C Σ max(0, e_i − t g_i)²`` (the step length of
    004's "Finite Newton Method", exact as in Keerthi and DeCoste's modified Newton method).

    The function is convex and piecewise quadratic with breakpoints ``t_i = e_i/g_i``; its
    derivative ``q1 − 2C A + t (q2 + 2C B)`` (``A = Σ g_i e_i``, ``B = Σ g_i²`` over active
    terms) is linear between breakpoints, so the breakpoints are sorted once and the interval
    where it crosses zero found in one pass. ``e_i = 1 − y_i o_i``, ``g_i = y_i Δo_i``. The one
    implementation is compiled (:func:`sdpkern._newtoncore.exact_line_search`, which the compiled
    Newton loop calls too); this converts the arguments.
    """
    ea, ga = np.ascontiguousarray(e, dtype=np.float64), np.ascontiguousarray(g, dtype=np.float64)
    if ea.ndim != 1 or ga.shape != ea.shape:
        raise DataError(f"e and g must be vectors of one length, got shapes {ea.shape} and {ga.shape}")
    return float(_newtoncore.exact_line_search(float(q1), float(q2), ea, ga, float(C)))


def _check_inputs(y: ArrayLike, C: float, n: int) -> NDArray[np.float64]:
    check_positive(C, "C")
    ya = as_vector(y, "y", length=n)
    vals = np.unique(ya)
    if vals.shape[0] < 2:
        raise LabelError(f"y must contain two classes, got only {vals.tolist()}")
    if not np.all(np.isin(vals, (-1.0, 1.0))):
        raise LabelError(f"y must be coded -1/+1 for the primal solver, got values {vals[:5].tolist()}")
    return ya


def _unpenalized_block(unpenalized: ArrayLike | None, n: int) -> NDArray[np.float64]:
    """The unpenalised block ``U`` (n×k): a column of ones (the offset) when ``None``."""
    if unpenalized is None:
        return np.ones((n, 1))
    U = np.asarray(unpenalized, dtype=np.float64)
    if U.ndim != 2 or U.shape[0] != n:
        raise DataError(f"unpenalized must be an array of shape ({n}, k), got shape {U.shape}")
    if not np.all(np.isfinite(U)):
        raise DataError("unpenalized contains NaN or infinity")
    return U


def _gram_of(K: Any, y: ArrayLike) -> GramOperator:
    """The kernel argument of a solver, checked to be a :class:`~sdpkern.kernels.gram.GramOperator`."""
    if isinstance(K, GramOperator):
        return K
    raise ParameterError(
        f"K must be a GramOperator (sdpkern.kernels.gram: KernelGram, PrecomputedGram for a matrix, CallableGram "
        f"for a function), got {type(K).__name__}"
    )


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
    changed = np.zeros(slack.shape[0], dtype=bool)
    changed[sv] = True
    changed[sv_new] ^= True
    return _settled_masks(changed, slack)


def _settled_masks(changed: NDArray[np.bool_], slack: NDArray[np.float64]) -> bool:
    """:func:`_settled` with the points whose membership changed given as a mask (the kernel
    solver's sets are masks: no index lists per step)."""
    return not changed.any() or bool(np.all(np.abs(slack[changed]) <= 1e-8))


def _not_psd(K_II: NDArray[np.float64], lam: float) -> NotPSDError:
    lam_min = float(np.linalg.eigvalsh(K_II)[0])
    return NotPSDError(
        f"K is not positive semidefinite on the support-vector block (smallest eigenvalue {lam_min:.3g} "
        f"< -1/(2C) = {-lam:.3g}), so the primal Newton SVM has no minimiser; repair it with "
        "sdpkern.kernels.repair_spectrum(..., method='clip'|'flip'|'shift'|'square') or use IndefiniteSVC",
        min_eigenvalue=lam_min,
    )


def _room(m: int) -> int:
    """Rows and columns a kept factor of order m leaves free for points appended later (a
    sixteenth, at least 16: the closing Newton systems append a few per step, 12 to pima's 648
    and 37 to splice's 2183; an append beyond the room copies the factor, as every append did
    before). The buffer holds 13 % more than the factor."""
    return max(16, m // 16)


class _SupportFactor:
    """Cholesky factor ``RᵀR = λI + K_FF`` kept across Newton steps, ``F`` a superset of the SV set.

    Each Newton step needs the bordered system on the current set ``I`` (module docstring), with
    the column of ones generalised to an unpenalised block ``U`` (n×k): ``(λI + K_II)β_I + U_I c =
    y_I``, ``U_Iᵀβ_I = 0`` (``U = 1``: the offset; ``U = Q``: the polynomial part of 000 eq. 17).
    Points entering ``I`` are appended to ``F`` as a block (``R₁₂ = R⁻ᵀK_FA``, ``R₂₂ = chol(λI +
    K_AA − R₁₂ᵀR₁₂)``: one triangular solve with ``|A|`` right-hand sides); points that left
    (``D = F \\ I``) stay in the factor and ``β_D = 0`` is imposed by Lagrange multipliers, a
    ``(|D| + k)``-dimensional system from ``R⁻¹R⁻ᵀ[y, U, E_D]``. So a step costs ``O(m²(|A| +
    |D|))`` instead of the ``m³/3`` of refactorising (the columns solved before an append are carried
    over: :meth:`_extend_columns`); when that is cheaper, or ``D`` has grown,
    ``F`` is reset to ``I`` and factorised afresh. (Rank-one :func:`~sdpkern.native.cpd.newton.
    chol_delete` / ``chol_append`` copy the whole factor per point: at m = 2400 one delete costs
    more than a refactorisation, so they are not used here.) With ``threads`` (the dual's closing
    system) the factor lives in a buffer with room for appended points, which write their columns
    in place, M is gathered into it, and the factorisation and solves split their level-3 calls
    in two (:func:`~sdpkern.native.dense_cholesky.upper_factor_into`: the same bits for any
    number of threads).
    """

    def __init__(
        self, cache: GramOperator, y: NDArray[np.float64], lam: float | NDArray[np.float64], U: NDArray[np.float64],
        threads: int | None = None,
    ) -> None:
        # λ per point (an array: the dual's D_i = 1/(2C w_i) with sample weights) or one for all;
        # ``threads`` (an int): the factorisation and the solves in two parts, by that many threads
        # (dense_cholesky.cholesky: the same bits for any number); None: LAPACK's and SciPy's calls
        self.cache, self.y, self.U, self.threads = cache, y, U, threads
        self.lam = np.broadcast_to(np.asarray(lam, dtype=np.float64), y.shape)
        self.k = U.shape[1]
        self.R = np.empty((0, 0))
        self.F = np.empty(0, dtype=np.intp)
        self.refactorisations = 0
        self._Z: NDArray[np.float64] | None = None  # M_FF⁻¹ [y_F, U_F, e_j ...] for the current factor
        self._Zf: NDArray[np.float64] | None = None  # R⁻ᵀ [y_F, U_F, e_j ...]: the forward halves of _Z
        self._zcol = np.empty(0, dtype=np.intp)

    def reset(self) -> None:
        """Forget the factor: the next Newton point factorises its set afresh."""
        self.R = np.empty((0, 0))
        self.F = np.empty(0, dtype=np.intp)
        self._Z = self._Zf = None

    def _factorise(self, idx: NDArray[np.intp]) -> None:
        m, threads = idx.shape[0], self.threads
        # with threads, R lives in a buffer with room for the points appended later (_append
        # writes in place), and M is gathered into it: the factorisation runs in M's storage
        buf = None if threads is None else np.empty((m + _room(m), m + _room(m)), order="F")
        M = self.cache.block(idx, idx, out=buf)
        M[np.diag_indices_from(M)] += self.lam[idx]
        try:
            if threads is None:
                self.R = cholesky(M, lower=False, overwrite_a=True)
            else:
                assert buf is not None
                self.R = buf
                upper_factor_into(buf, M, threads)
        except LinAlgError:
            raise _not_psd(self.cache.block(idx, idx), float(self.lam[idx].min())) from None
        self.F = idx.copy()
        self.refactorisations += 1
        self._Z = self._Zf = None

    def _append(self, new: NDArray[np.intp]) -> None:
        m, k = self.F.shape[0], new.shape[0]
        R12 = self._triangular(self.cache.block(self.F, new), trans=True)
        S = self.cache.block(new, new)
        S[np.diag_indices_from(S)] += self.lam[new]
        S -= R12.T @ R12
        try:
            R22 = cholesky(S, lower=False, overwrite_a=True)
        except LinAlgError:
            allp = np.concatenate([self.F, new])
            raise _not_psd(self.cache.block(allp, allp), float(self.lam[allp].min())) from None
        if self._Z is not None and self._Zf is not None:
            self._extend_columns(R12, R22, new)  # (with the factor of the old F: order m)
        if self.threads is None or m + k > self.R.shape[0]:
            # Fortran order, as LAPACK's: solve_triangular would copy a C-ordered factor on every call
            size = m + k + (0 if self.threads is None else _room(m + k))
            R = np.empty((size, size), order="F")  # (the lower triangle is never read)
            R[:m, :m] = self.R[:m, :m]
            self.R = R
        self.R[:m, m : m + k] = R12
        self.R[m : m + k, m : m + k] = R22
        self.F = np.concatenate([self.F, new])

    def _extend_columns(self, R12: NDArray[np.float64], R22: NDArray[np.float64], new: NDArray[np.intp]) -> None:
        """The solved columns ``M⁻¹b`` for the factor with ``new`` appended, from the old ones by
        block elimination instead of two triangular solves of order m each: with forward halves
        z₁ = R₁₁⁻ᵀb₁ kept, z₂ = R₂₂⁻ᵀ(b₂ − R₁₂ᵀz₁), x₂ = R₂₂⁻¹z₂ and x₁ = x_old − R₁₁⁻¹R₁₂x₂
        (``O(m²|A| + m|A|c)`` for c columns against ``O(m²c)``: a few points appended to a factor
        of hundreds). ``b₂``: y and U on the new points, 0 for the pinning columns e_j (j in the old F)."""
        assert self._Z is not None and self._Zf is not None
        B2 = np.zeros((new.shape[0], self._Z.shape[1]))
        B2[:, 0] = self.y[new]
        B2[:, 1 : 1 + self.k] = self.U[new]
        z2 = solve_triangular(R22, B2 - R12.T @ self._Zf, trans="T", lower=False, check_finite=False)
        x2 = solve_triangular(R22, z2, lower=False, check_finite=False)
        W = self._triangular(R12)
        self._Z = np.vstack([self._Z - W @ x2, x2])
        self._Zf = np.vstack([self._Zf, z2])
        self._zcol = np.concatenate([self._zcol, np.full(new.shape[0], -1, dtype=np.intp)])

    def _triangular(self, B: NDArray[np.float64], trans: bool = False) -> NDArray[np.float64]:
        """op(R)⁻¹B with the factor of F (op(R) = Rᵀ with ``trans``), by this factor's threads."""
        if self.threads is None:
            return np.asarray(solve_triangular(self.R, B, trans="T" if trans else "N", lower=False, check_finite=False))
        return split_triangular(self.R, B, trans=trans, threads=self.threads, order=self.F.shape[0])

    def _solve(self, rhs: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``(M⁻¹ rhs, R⁻ᵀ rhs)``."""
        z = self._triangular(rhs, trans=True)
        return self._triangular(z), z

    def _columns(self, drop: NDArray[np.intp]) -> NDArray[np.float64]:
        """``M⁻¹[y_F, U_F, E_D]`` (``D`` positions in ``F``), reusing columns solved in earlier steps."""
        m = self.F.shape[0]
        if self._Z is None or self._Zf is None or self._Z.shape[0] != m:
            self._Z, self._Zf = self._solve(np.column_stack([self.y[self.F], self.U[self.F]]))
            self._zcol = np.full(m, -1, dtype=np.intp)
        missing = drop[self._zcol[drop] < 0]
        if missing.size:
            E = np.zeros((m, missing.shape[0]))
            E[missing, np.arange(missing.shape[0])] = 1.0
            self._zcol[missing] = self._Z.shape[1] + np.arange(missing.shape[0])
            Zm, Zfm = self._solve(E)
            self._Z, self._Zf = np.hstack([self._Z, Zm]), np.hstack([self._Zf, Zfm])
        return self._Z[:, np.concatenate([np.arange(1 + self.k), self._zcol[drop]])]

    def newton_point(self, sv: NDArray[np.intp]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``(β_I, c)`` solving the bordered system on ``sv`` (``β_I`` in the order of ``sv``)."""
        self.cache.ensure(sv)
        in_sv = np.zeros(self.y.shape[0], dtype=bool)
        in_sv[sv] = True
        in_f = np.zeros_like(in_sv)
        in_f[self.F] = True
        new = sv[~in_f[sv]]
        drop = np.nonzero(~in_sv[self.F])[0]
        m, mf, k, ku = self.F.shape[0] + new.shape[0], self.F.shape[0], new.shape[0], self.k
        # flop counts: refactorising costs m'³/3; updating costs the append (with the solved
        # columns carried over: _extend_columns) and the solves for right-hand sides not solved before
        solved = 0 if self._Z is None else int(np.count_nonzero(self._zcol[drop] >= 0)) + 1 + ku
        update = 2.0 * m * m * (drop.shape[0] + 1 + ku - solved)
        if k:
            update += mf * mf * k + k * k * mf + k**3 / 3
            if self._Z is not None:
                update += mf * mf * k + 4.0 * mf * k * self._Z.shape[1]
        if mf == 0 or update > sv.shape[0] ** 3 / 3 + 4.0 * sv.shape[0] ** 2:
            self._factorise(sv)
        elif k:
            self._append(new)
        F = self.F
        drop = np.nonzero(~in_sv[F])[0]  # positions in F of points outside the SV set
        Z = self._columns(drop)
        # β = Z_y − Z_U c − Z_D μ with β_D = 0 and U_Fᵀβ = 0: a (|D| + k) system in (μ, c)
        nd = drop.shape[0]
        ZW = np.hstack([Z[:, 1 + ku :], Z[:, 1 : 1 + ku]])  # columns of μ, then of c
        UF = self.U[F]
        S = np.vstack([ZW[drop], UF.T @ ZW])
        r = np.concatenate([Z[drop, 0], UF.T @ Z[:, 0]])
        try:
            mu_c = np.linalg.solve(S, r) if r.size else np.zeros(0)
        except np.linalg.LinAlgError:
            # U_I rank deficient (too few support vectors to determine c): minimum-norm c
            mu_c = np.linalg.lstsq(S, r, rcond=None)[0]
        beta_f = Z[:, 0] - ZW @ mu_c
        beta = np.zeros(self.y.shape[0])
        beta[F] = beta_f
        beta[F[drop]] = 0.0
        return beta[sv], mu_c[nd:]


@dataclass
class _KernelState:
    beta: NDArray[np.float64]  # over all n points, zero outside the subproblem
    b: NDArray[np.float64]  # coefficients of the unpenalised block U
    Kbeta: NDArray[np.float64]  # over the points of the subproblem
    sv: NDArray[np.intp]
    iterations: int
    converged: bool
    factorisations: int = 0


def _solve_kernel(
    cache: GramOperator, y: NDArray[np.float64], U: NDArray[np.float64], C: float, P: NDArray[np.intp],
    beta: NDArray[np.float64], b: NDArray[np.float64], max_iter: int, sw: NDArray[np.float64] | None = None,
) -> _KernelState:
    """Finite Newton method on the points ``P`` from ``(β, c)`` (``β`` over all points, zero off
    ``P``); ``sw`` the per-point weights (point i's C is C·w_i: λ_i = 1/(2C w_i) on the diagonal,
    points of weight 0 never in the set)."""
    yP, UP = y[P], U[P]
    if sw is None:
        factor = _SupportFactor(cache, y, 1.0 / (2.0 * C), U)
        root_w, weighted = None, np.ones(P.shape[0], dtype=bool)
    else:
        with np.errstate(divide="ignore"):
            factor = _SupportFactor(cache, y, np.where(sw > 0, 0.5 / (C * np.where(sw > 0, sw, 1.0)), np.inf), U)
        root_w, weighted = np.sqrt(sw[P]), sw[P] > 0
    Kbeta = cache.matvec(beta, P)
    beta_P = beta[P]
    out = Kbeta + UP @ b
    sv_mask = (yP * out < 1) & weighted
    if not sv_mask.any():
        sv_mask[:] = weighted
    stalled = False
    it = 0
    for it in range(1, max_iter + 1):
        sv = P[sv_mask]
        beta_sv, b_new = factor.newton_point(sv)
        beta_new = np.zeros(y.shape[0])
        beta_new[sv] = beta_sv
        Kbeta_new = cache.matvec(beta_new, P)
        beta_new_P = beta_new[P]
        out_new = Kbeta_new + UP @ b_new
        slack_new = 1 - yP * out_new
        mask_at_new = (slack_new > 0) & weighted
        if _settled_masks(sv_mask ^ mask_at_new, slack_new):
            # The Newton point's violators are the set it was solved on: it is the minimiser.
            return _KernelState(beta_new, b_new, Kbeta_new, P[mask_at_new], it, True, factor.refactorisations)
        d_beta, d_Kbeta, d_b = beta_new_P - beta_P, Kbeta_new - Kbeta, b_new - b
        d_out = d_Kbeta + UP @ d_b
        e, g = 1 - yP * out, yP * d_out
        if root_w is not None:  # C Σ w_i max(0, e_i − t g_i)² = C Σ max(0, √w_i e_i − t √w_i g_i)²
            e, g = root_w * e, root_w * g
        t = exact_line_search(float(d_beta @ Kbeta), float(d_beta @ d_Kbeta), e, g, C)
        if t == 0.0:
            # no move: the next step would repeat this one. The Newton point, from a factor
            # kept over many steps (points pinned by multipliers), is then not accurate enough
            # to descend (seen from warm starts at another C): refactorise on the
            # set; a second stall right after that ends the iteration (unsettled)
            if stalled:
                break
            stalled = True
            factor.reset()
            continue
        stalled = False
        beta_P, b, Kbeta = beta_P + t * d_beta, b + t * d_b, Kbeta + t * d_Kbeta
        out = Kbeta + UP @ b
        mask_new = (yP * out < 1) & weighted
        logger.debug("primal newton step %d: t=%.3g, %d support vectors", it, t, int(mask_new.sum()))
        if mask_new.any():  # an empty set cannot happen at an optimum with C > 0; keep the set
            sv_mask = mask_new
    warnings.warn(
        f"primal Newton SVM did not settle its support-vector set in {it} steps (max_iter={max_iter})",
        ConvergenceWarning,
        stacklevel=4,
    )
    beta_full = np.zeros(y.shape[0])
    beta_full[P] = beta_P
    return _KernelState(beta_full, b, Kbeta, P[sv_mask], it, False, factor.refactorisations)


def _solve_recursive(
    cache: GramOperator, y: NDArray[np.float64], U: NDArray[np.float64], C: float, order: NDArray[np.intp], p: int,
    max_iter: int, warm_start_size: int, sw: NDArray[np.float64] | None = None,
) -> _KernelState:
    """Solve on the points ``order[:p]``, warm-started by ``order[:p // 2]`` (``order`` a shuffle)."""
    beta, b = np.zeros(y.shape[0]), np.zeros(U.shape[1])
    half = p // 2
    done = 0
    first = order[:half] if sw is None else order[:half][sw[order[:half]] > 0]
    if p > max(warm_start_size, 2) and np.unique(y[first]).shape[0] == 2:
        # C scaled with the data (C p / half): the half problem then estimates the same function,
        # so its support vectors are close to the final set
        sub = _solve_recursive(cache, y, U, C * p / half, order, half, max_iter, warm_start_size, sw)
        beta, b, done = sub.beta, sub.b, sub.factorisations
    st = _solve_kernel(cache, y, U, C, np.sort(order[:p]), beta, b, max_iter, sw)
    st.factorisations += done
    return st


def primal_svm_kernel(
    K: GramOperator, y: ArrayLike, C: float = 1.0, *, unpenalized: ArrayLike | None = None, max_iter: int = 50,
    warm_start_size: int = 1000, random_state: int | None = 0, sample_weight: ArrayLike | None = None,
    init: tuple[ArrayLike, ArrayLike] | None = None,
) -> PrimalSVMResult:
    """Kernel primal Newton SVM with the squared hinge loss (004; Chapelle 2007 §4-5).

    ``o = Kβ + Uc`` with an unpenalised block ``U`` (default: a column of ones, the offset ``b``);
    the Newton system on the support vectors is the bordered system of the module docstring with
    ``1`` replaced by ``U_I`` (000 eq. 17 has the same form with ``U`` the polynomial basis).

    Parameters
    ----------
    K : GramOperator
        Positive semidefinite kernel (its column cache is used and kept; a matrix is a
        :class:`~sdpkern.kernels.gram.PrecomputedGram`, an oracle ``K(rows, cols)`` a
        :class:`~sdpkern.kernels.gram.CallableGram`). Only columns of points that are support
        vectors at some stage are used (and computed).
    y : array of shape (n,)
        Labels in {-1, +1}.
    C : float
        Loss weight, ``> 0`` (004 writes ``λ = 1/(2C)``).
    unpenalized : array of shape (n, k) or None
        The block ``U`` whose coefficients are not regularised; ``None`` is the offset (a column of
        ones), ``k = 0`` no offset.
    max_iter : int
        Newton steps allowed on the full data.
    warm_start_size : int
        Above this many points, first solve on a random half (recursively) and start from it.
    random_state : int or None
        Seed of the warm-start halving.
    sample_weight : array of shape (n,), optional
        Per-point weights w_i ≥ 0 of the loss (point i's C is C·w_i, a weight-2 point is a
        repeated point; the Newton system's diagonal is 1/(2C w_i)); points of weight 0 never
        enter the support-vector set.
    init : (β of shape (n,), c of shape (k,)), optional
        A starting point instead of the warm start on a random half: e.g. the solution at a
        neighbouring C on the same points (a grid search). The iteration and its stopping rule
        are the same from any start (the minimiser is unique in f), so only the number of steps
        depends on it.

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
    >>> from sdpkern.kernels.gram import PrecomputedGram
    >>> X = np.array([[0.0], [1.0], [3.0], [4.0]]); y = np.array([-1.0, -1.0, 1.0, 1.0])
    >>> res = primal_svm_kernel(PrecomputedGram(X @ X.T), y, C=10.0)
    >>> bool(np.all(np.sign(X @ X.T @ res.coef + res.intercept) == y))
    True
    """
    op = _gram_of(K, y)
    n = op.n
    ya = _check_inputs(y, C, n)
    _check_max_iter(max_iter)
    U = _unpenalized_block(unpenalized, n)
    sw = as_sample_weight(sample_weight, n)
    if sw is not None:
        sw = np.asarray(sw, dtype=np.float64)
        if not (np.any(sw[ya > 0] > 0) and np.any(sw[ya < 0] > 0)):
            raise LabelError("sample_weight is zero on every point of one class: a classifier needs two classes")
    if init is not None:
        beta0, c0 = _checked_init(init, n, U.shape[1])
        st = _solve_kernel(op, ya, U, float(C), np.arange(n), beta0, c0, max_iter, sw)
    else:
        # one shuffle: the nested warm-start halves are its prefixes
        order = np.random.default_rng(random_state).permutation(n) if n > max(warm_start_size, 2) else np.arange(n)
        st = _solve_recursive(op, ya, U, float(C), order, n, max_iter, warm_start_size, sw)
    out = st.Kbeta + U @ st.b
    obj = squared_hinge_objective(0.5 * float(st.beta @ st.Kbeta), out, ya, float(C), sw)
    beta, outputs = st.beta, out
    return PrimalSVMResult(
        coef=beta,
        intercept=float(st.b[0]) if unpenalized is None else 0.0,
        objective=obj,
        support=np.sort(st.sv),
        iterations=st.iterations,
        converged=st.converged,
        unpenalized_coef=st.b,
        outputs=outputs,
        factorisations=st.factorisations,
    )


def _checked_init(init: tuple[ArrayLike, ArrayLike], n: int, k: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The ``init`` argument of :func:`primal_svm_kernel` as float arrays of shapes (n,) and (k,)."""
    try:
        beta0, c0 = init
    except (TypeError, ValueError):
        raise ParameterError("init must be a pair (beta, c)") from None
    b = np.array(beta0, dtype=np.float64)
    c = np.array(c0, dtype=np.float64)
    if b.shape != (n,) or c.shape != (k,):
        raise DataError(f"init must be (beta of shape ({n},), c of shape ({k},)); got {b.shape} and {c.shape}")
    if not (np.all(np.isfinite(b)) and np.all(np.isfinite(c))):
        raise DataError("init contains NaN or infinity")
    return b, c


def primal_svm_linear(
    X: ArrayLike, y: ArrayLike, C: float = 1.0, *, unpenalized: ArrayLike | None = None, max_iter: int = 50,
    sample_weight: ArrayLike | None = None,
) -> PrimalSVMResult:
    """Linear primal Newton SVM: ``min ½‖w‖² + C Σ w_i max(0, 1 − y_i(w·x_i + b))²`` (004).

    Each step solves the ``(d+k)``-dimensional Newton system
    ``[I' + 2C X_IᵀW_I X_I] (w, c) = 2C X_IᵀW_I y_I`` (``X_I`` with the unpenalised block ``U``
    appended, by default a column of ones so that ``c = b``; ``I'`` the identity without the
    entries of ``c``; ``W = diag(w)``) by Cholesky, then an exact line search.
    ``sample_weight`` gives the per-point weights w_i ≥ 0 (point i's C is C·w_i, a weight-2 point
    is a repeated point; all ones by default); points of weight 0 never enter ``I``.
    """
    Xa = as_matrix(X, "X")
    n, d = Xa.shape
    ya = _check_inputs(y, C, n)
    _check_max_iter(max_iter)
    C = float(C)
    sw = as_sample_weight(sample_weight, n)
    weighted = np.ones(n, dtype=bool) if sw is None else sw > 0
    # the line search on √w-scaled residuals: C Σ w_i max(0, e_i − t g_i)² = C Σ max(0, √w_i e_i − t √w_i g_i)²
    root_w = None if sw is None else np.sqrt(sw)
    U = _unpenalized_block(unpenalized, n)
    Xb = np.hstack([Xa, U])
    reg = np.zeros(Xb.shape[1])
    reg[:d] = 1.0
    wb = np.zeros(Xb.shape[1])
    out = Xb @ wb
    sv = np.nonzero((ya * out < 1) & weighted)[0]

    Vec = NDArray[np.float64]

    def result(wb: Vec, out: Vec, sv: NDArray[np.intp], it: int, ok: bool) -> PrimalSVMResult:
        c = wb[d:].copy()
        return PrimalSVMResult(
            coef=wb[:d].copy(),
            intercept=float(c[0]) if unpenalized is None else 0.0,
            objective=squared_hinge_objective(0.5 * float(wb[:d] @ wb[:d]), out, ya, C, sw),
            support=sv,
            iterations=it,
            converged=ok,
            unpenalized_coef=c,
            outputs=out,
        )

    for it in range(1, max_iter + 1):
        Xs = Xb[sv]
        ws = np.ones(sv.shape[0]) if sw is None else sw[sv]
        H = 2 * C * (Xs.T @ (ws[:, None] * Xs))
        H[np.diag_indices_from(H)] += reg
        rhs = 2 * C * (Xs.T @ (ws * ya[sv]))
        try:
            wb_new = cho_solve(cho_factor(H, lower=True), rhs, check_finite=False)
        except LinAlgError:
            # Singular only through the unregularised block (too few violators to determine c).
            wb_new = np.linalg.lstsq(H, rhs, rcond=None)[0]
        dwb = wb_new - wb
        out_new = Xb @ wb_new
        sv_at_new = np.nonzero((ya * out_new < 1) & weighted)[0]
        if _settled(sv, sv_at_new, 1 - ya * out_new):
            return result(wb_new, out_new, sv_at_new, it, True)
        w, dw = wb[:d], dwb[:d]
        e, g = 1 - ya * out, ya * (out_new - out)
        if root_w is not None:
            e, g = root_w * e, root_w * g
        t = exact_line_search(float(w @ dw), float(dw @ dw), e, g, C)
        wb = wb + t * dwb
        out = Xb @ wb
        sv = np.nonzero((ya * out < 1) & weighted)[0]
    warnings.warn(
        f"primal Newton SVM did not settle its support-vector set in max_iter={max_iter} steps",
        ConvergenceWarning,
        stacklevel=2,
    )
    return result(wb, out, sv, max_iter, False)


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
    K: GramOperator, y: ArrayLike, C: float = 1.0, *, max_rank: int = 500, eta: float = 1e-3,
    unpenalized: ArrayLike | None = None, max_iter: int = 50, sample_weight: ArrayLike | None = None,
) -> LowRankPrimalSVMResult:
    """Kernel primal SVM through 004's "data preprocessing": ``X̃ = chol(K)``, then a linear SVM.

    ``K`` is replaced by ``GGᵀ`` from a pivoted incomplete Cholesky (only ``rank`` kernel columns
    are computed), the linear primal Newton SVM is trained on the rows of ``G``, and since
    ``G = K[:, P] L⁻ᵀ`` with ``L = G[P]`` the classifier is ``f(x) = k(x, X_P) L⁻ᵀw + b``.
    With ``rank = n`` and ``eta = 0`` this is the exact kernel problem.

    Parameters
    ----------
    K : GramOperator
        The kernel (its diagonal and the pivots' columns are used).
    y : array of shape (n,)
        Labels in {-1, +1}.
    C : float
    max_rank : int
        Largest number of pivots.
    eta : float
        Stop pivoting when the largest residual diagonal entry of ``K − GGᵀ`` is ``≤ eta`` (so
        ``trace(K − GGᵀ) ≤ eta · n``).
    unpenalized : array of shape (n, k) or None
        Unpenalised block appended to ``G`` (default: the offset), as in :func:`primal_svm_linear`;
        its coefficients are ``linear.unpenalized_coef``.
    max_iter : int
        Newton steps.
    sample_weight : array of shape (n,), optional
        Per-point weights of the loss (point i's C is C·w_i), as in :func:`primal_svm_linear`.
    """
    from ..kernels.lowrank import incomplete_cholesky

    if not isinstance(K, GramOperator):
        raise ParameterError(f"K must be a GramOperator (sdpkern.kernels.gram), got {type(K).__name__}")
    d = K.diagonal()
    check_positive(eta, "eta", allow_zero=True)
    if isinstance(max_rank, bool) or not isinstance(max_rank, (int, np.integer)) or max_rank < 1:
        raise ParameterError(f"max_rank must be an integer >= 1, got {max_rank!r}")
    chol = incomplete_cholesky(d, K.column, eta=eta, max_rank=max_rank)
    lin = primal_svm_linear(chol.G, y, C, unpenalized=unpenalized, max_iter=max_iter, sample_weight=sample_weight)
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
