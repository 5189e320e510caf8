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
from scipy.linalg import LinAlgError, cho_factor, cho_solve, solve_triangular
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


def _newton_point_kernel(K: NDArray[np.float64], y: NDArray[np.float64], sv: NDArray[np.intp],
                         lam: float) -> tuple[NDArray[np.float64], float]:
    """Solve the bordered system on the support-vector block by Cholesky."""
    M = K[np.ix_(sv, sv)].copy()
    M[np.diag_indices_from(M)] += lam
    try:
        factor = cho_factor(M, lower=True, check_finite=False)
    except LinAlgError:
        lam_min = float(np.linalg.eigvalsh(K[np.ix_(sv, sv)])[0])
        raise NotPSDError(
            f"K is not positive semidefinite on the support-vector block (smallest eigenvalue {lam_min:.3g} "
            f"< -1/(2C) = {-lam:.3g}), so the primal Newton SVM has no minimiser; repair it with "
            "sdpkern.kernels.repair_spectrum(..., method='clip'|'flip'|'shift'|'square') or use IndefiniteSVC",
            min_eigenvalue=lam_min,
        ) from None
    rhs = np.column_stack([y[sv], np.ones(sv.shape[0])])
    z = cho_solve(factor, rhs, check_finite=False)
    b = float(z[:, 0].sum() / z[:, 1].sum())
    beta_sv = z[:, 0] - b * z[:, 1]
    beta = np.zeros(K.shape[0])
    beta[sv] = beta_sv
    return beta, b


def _solve_kernel(K: NDArray[np.float64], y: NDArray[np.float64], C: float, beta: NDArray[np.float64], b: float,
                  max_iter: int) -> PrimalSVMResult:
    lam = 1.0 / (2.0 * C)
    Kbeta = K @ beta
    out = Kbeta + b
    sv = np.nonzero(y * out < 1)[0]
    if sv.size == 0:
        sv = np.arange(y.shape[0])
    for it in range(1, max_iter + 1):
        beta_new, b_new = _newton_point_kernel(K, y, sv, lam)
        d_beta, d_b = beta_new - beta, b_new - b
        # A dense product beats gathering the support columns (which copies n × n_sv entries).
        Kbeta_new = K @ beta_new
        d_Kbeta = Kbeta_new - Kbeta
        d_out = d_Kbeta + d_b
        out_new = Kbeta_new + b_new
        if _settled(sv, np.nonzero(y * out_new < 1)[0], 1 - y * out_new):
            # The Newton point's violators are the set it was solved on: it is the minimiser.
            return _kernel_result(beta_new, b_new, Kbeta_new, y, C, np.nonzero(y * out_new < 1)[0], it, True)
        t = exact_line_search(float(d_beta @ Kbeta), float(d_beta @ d_Kbeta), 1 - y * out, y * d_out, C)
        beta, b, Kbeta = beta + t * d_beta, b + t * d_b, Kbeta + t * d_Kbeta
        out = Kbeta + b
        sv_new = np.nonzero(y * out < 1)[0]
        logger.debug("primal newton step %d: t=%.3g, %d support vectors", it, t, sv_new.size)
        if sv_new.size == 0:  # cannot happen at an optimum with C > 0; keep the set
            sv_new = sv
        sv = sv_new
    warnings.warn(f"primal Newton SVM did not settle its support-vector set in max_iter={max_iter} steps",
                  ConvergenceWarning, stacklevel=3)
    return _kernel_result(beta, b, Kbeta, y, C, sv, max_iter, False)


def _kernel_result(beta: NDArray[np.float64], b: float, Kbeta: NDArray[np.float64], y: NDArray[np.float64], C: float,
                   sv: NDArray[np.intp], it: int, ok: bool) -> PrimalSVMResult:
    obj = squared_hinge_objective(0.5 * float(beta @ Kbeta), Kbeta + b, y, C)
    return PrimalSVMResult(coef=beta, intercept=b, objective=obj, support=sv, iterations=it, converged=ok)


def primal_svm_kernel(
    K: ArrayLike,
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
    K : array of shape (n, n)
        Positive semidefinite kernel matrix.
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
    Ka = as_matrix(K, "K")
    n = Ka.shape[0]
    if Ka.shape != (n, n):
        raise DataError(f"K must be square, got shape {Ka.shape}")
    ya = _check_inputs(y, C, n)
    _check_max_iter(max_iter)
    rng = np.random.default_rng(random_state)
    beta, b = np.zeros(n), 0.0
    if n > max(warm_start_size, 2):
        half = np.sort(rng.permutation(n)[: n // 2])
        if np.unique(ya[half]).shape[0] == 2:
            sub = primal_svm_kernel(Ka[np.ix_(half, half)], ya[half], C, max_iter=max_iter,
                                    warm_start_size=warm_start_size, random_state=int(rng.integers(2**31)))
            beta[half] = sub.coef
            b = sub.intercept
    return _solve_kernel(Ka, ya, float(C), beta, b, max_iter)


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
            return PrimalSVMResult(coef=wb_new[:-1].copy(), intercept=float(wb_new[-1]), objective=obj,
                                   support=sv_at_new, iterations=it, converged=True)
        w, dw = wb[:-1], dwb[:-1]
        t = exact_line_search(float(w @ dw), float(dw @ dw), 1 - ya * out, ya * (out_new - out), C)
        wb = wb + t * dwb
        out = Xb @ wb
        sv_new = np.nonzero(ya * out < 1)[0]
        sv = sv_new
    warnings.warn(f"primal Newton SVM did not settle its support-vector set in max_iter={max_iter} steps",
                  ConvergenceWarning, stacklevel=2)
    obj = squared_hinge_objective(0.5 * float(wb[:-1] @ wb[:-1]), out, ya, C)
    return PrimalSVMResult(coef=wb[:-1].copy(), intercept=float(wb[-1]), objective=obj, support=sv,
                           iterations=max_iter, converged=False)


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
        Stop pivoting when ``trace(K − GGᵀ) ≤ eta · n``.
    max_iter : int
        Newton steps.
    """
    from ..kernels.lowrank import incomplete_cholesky

    d = np.asarray(diagonal, dtype=np.float64)
    check_positive(eta, "eta", allow_zero=True)
    if isinstance(max_rank, bool) or not isinstance(max_rank, (int, np.integer)) or max_rank < 1:
        raise ParameterError(f"max_rank must be an integer >= 1, got {max_rank!r}")
    chol = incomplete_cholesky(d, column, eta=eta * d.shape[0], max_rank=max_rank)
    lin = primal_svm_linear(chol.G, y, C, max_iter=max_iter)
    L = chol.G[chol.pivots]
    coef = solve_triangular(L, lin.coef, lower=True, trans="T")
    return LowRankPrimalSVMResult(coef=coef, intercept=lin.intercept, pivots=chol.pivots, objective=lin.objective,
                                  residual_trace=chol.residual_trace, linear=lin)
