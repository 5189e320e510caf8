"""Krylov subspace solvers for symmetric, possibly indefinite systems ``A x = b``.

CG, MR, CGNE and MR-II exactly as in 002 Figures 5.1-5.2 (after Hanke 1995), behind one
signature modelled on :func:`scipy.sparse.linalg.cg`::

    solver(A, b, x0=None, *, max_iter=None, rtol=1e-5, atol=0.0, callback=None,
           return_iterates=False) -> KrylovResult

One :func:`make_system` turns an array or :class:`~scipy.sparse.linalg.LinearOperator` into an
operator and checks shapes and symmetry; one stopping rule ``‖b − A x_k‖ ≤ max(rtol‖b‖, atol)``;
``callback(x_k)`` after every iteration (streaming the iterates); ``info`` is 0 on convergence,
``> 0`` (the iteration count) when ``max_iter`` was reached or the Krylov space was exhausted
without meeting the tolerance (SciPy's ``maxiter`` is sdpkern's ``max_iter``,
docs/conventions.md; the old name still works with a ``FutureWarning`` until 0.2.0). A zero
denominator (possible for CG and MR on indefinite ``A``,
002 Table 5.1) raises :class:`~sdpkern.errors.BreakdownError`; the partial result, with
``info = -k`` for a breakdown at iteration ``k``, is attached to the exception as ``.result``.

Each result also records the scalar coefficients of its recurrences, from which
:mod:`sdpkern.native.filters` evaluates the iteration polynomials ``q_{k−1}`` and the filter
factors ``φ(λ, k) = λ q_{k−1}(λ)`` (002 §5.3.4).

Table 5.1 of 002 in short: CG minimises ``½xᵀAx − bᵀx`` over ``x₀ + S_k(r₀; A)`` (SPD ``A``);
MR minimises ``‖b − Ax‖`` over the same space (conjugate residuals; for symmetric ``A`` its
iterates are those of MINRES); CGNE is CG on ``A²x = Ab`` and minimises ``‖b − Ax‖`` over
``x₀ + S_k(Ar₀; A²)`` (kernel PLS, 002 §5.2.3); MR-II minimises ``‖b − Ax‖`` over
``x₀ + S_k(Ar₀; A)`` by a Lanczos recursion and never breaks down for symmetric ``A``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.sparse.linalg import LinearOperator, aslinearoperator

from .._validation import DEPRECATED, check_integer, take_deprecated
from ..errors import BreakdownError, DataError, ParameterError
from ..kernels.gram import GramOperator

__all__ = [
    "KrylovResult",
    "make_system",
    "cg",
    "mr",
    "cgne",
    "mr_ii",
    "SOLVERS",
    "get_solver",
]

Callback = Callable[[NDArray[np.float64]], Any]

# A denominator this small relative to the norms that bound it is treated as zero: the
# recurrence would divide by round-off.
_BREAKDOWN_TOL = 64 * np.finfo(np.float64).eps


@dataclass
class KrylovResult:
    """What a Krylov solver returns.

    Attributes
    ----------
    x : ndarray of shape (n,)
        The last iterate.
    info : int
        0 on convergence; ``> 0`` the number of iterations done without meeting the tolerance;
        ``< 0`` (only on a result attached to a :class:`BreakdownError`) breakdown at iteration
        ``-info``.
    iterations : int
        Number of iterations done (iterates ``x_1 … x_iterations`` after ``x_0``).
    residual_norms : ndarray of shape (iterations + 1,)
        ``‖b − A x_k‖`` for ``k = 0 … iterations`` (from the recurrence for ``r_k``).
    iterates : ndarray of shape (iterations + 1, n) or None
        ``x_0 … x_iterations`` when ``return_iterates=True``.
    method : str
        ``"cg"``, ``"mr"``, ``"cgne"`` or ``"mr_ii"``.
    coefficients : dict of str to ndarray
        The scalars of the recurrences (step lengths, conjugation and Lanczos coefficients);
        :func:`sdpkern.native.filters.iteration_polynomials` replays them on eigenvalues.
    """

    x: NDArray[np.float64]
    info: int
    iterations: int
    residual_norms: NDArray[np.float64]
    iterates: NDArray[np.float64] | None = None
    method: str = ""
    coefficients: dict[str, NDArray[np.float64]] = field(default_factory=dict)

    @property
    def converged(self) -> bool:
        """True when the stopping rule was met."""
        return self.info == 0


def make_system(
    A: ArrayLike | LinearOperator | GramOperator,
    b: ArrayLike,
    x0: ArrayLike | None = None,
    *,
    check_symmetric: bool = True,
) -> tuple[LinearOperator, NDArray[np.float64], NDArray[np.float64]]:
    """Validate ``A x = b`` once for every solver and return ``(A_op, b, x0)``.

    ``A`` may be a dense array, a sparse matrix, a :class:`LinearOperator` or a
    :class:`~sdpkern.kernels.gram.GramOperator` (applied through its column cache). Symmetry is
    checked exactly (to round-off) for explicit matrices and, for operators, by one random probe
    ``uᵀ(Av) = vᵀ(Au)`` (two extra products).

    Raises
    ------
    DataError
        Non-square or non-symmetric ``A``, mismatched ``b``/``x0``, NaN or infinity.
    """
    if isinstance(A, GramOperator):  # symmetric by construction; products through its column cache
        op = LinearOperator(A.shape, matvec=A.matvec, dtype=np.float64)  # type: ignore[call-arg]
        dense = None
        check_symmetric = False
    elif isinstance(A, LinearOperator):
        op = A
        dense = None
    else:
        if hasattr(A, "toarray") or hasattr(A, "tocsr"):
            op = aslinearoperator(A)  # type: ignore[arg-type]
            dense = None
        else:
            dense = np.asarray(A, dtype=np.float64)
            if dense.ndim != 2:
                raise DataError(f"A must be a 2-D matrix or a LinearOperator, got an array of shape {dense.shape}")
            if not np.all(np.isfinite(dense)):
                raise DataError("A contains NaN or infinity")
            op = aslinearoperator(dense)
    n, m = op.shape
    if n != m:
        raise DataError(f"A must be square, got shape {op.shape}")
    b_arr = np.asarray(b, dtype=np.float64).reshape(-1) if np.ndim(b) <= 1 else np.asarray(b, dtype=np.float64)
    if b_arr.ndim != 1 or b_arr.shape[0] != n:
        raise DataError(f"b must be a vector of length {n} to match A, got shape {np.shape(b)}")
    if not np.all(np.isfinite(b_arr)):
        raise DataError("b contains NaN or infinity")
    if x0 is None:
        x0_arr = np.zeros(n)
    else:
        x0_arr = np.array(x0, dtype=np.float64).reshape(-1)
        if x0_arr.shape[0] != n or not np.all(np.isfinite(x0_arr)):
            raise DataError(f"x0 must be a finite vector of length {n}, got shape {np.shape(x0)}")
    if check_symmetric:
        if dense is not None:
            scale = max(1.0, float(np.abs(dense).max(initial=0.0)))
            asym = float(np.abs(dense - dense.T).max(initial=0.0))
            if asym > 1e-10 * scale:
                raise DataError(
                    f"A must be symmetric for these Krylov methods (max |A - A^T| = {asym:.3g}); "
                    "symmetrise it with (A + A.T) / 2 or use scipy.sparse.linalg.gmres"
                )
        else:
            rng = np.random.default_rng(0)
            u, v = rng.standard_normal(n), rng.standard_normal(n)
            Au, Av = op.matvec(u), op.matvec(v)
            lhs, rhs = float(u @ Av), float(v @ Au)
            scale = max(1.0, float(np.linalg.norm(u) * np.linalg.norm(Av)))
            if abs(lhs - rhs) > 1e-10 * scale:
                raise DataError(
                    f"A must be a symmetric operator for these Krylov methods (u'Av = {lhs:.6g} but v'Au = {rhs:.6g})"
                )
    return op, b_arr, x0_arr


def _check_options(max_iter: int | None, rtol: float, atol: float, n: int, maxiter: Any = DEPRECATED) -> int:
    # called from a solver through _run and _start: the user's frame is six up
    max_iter = take_deprecated("sdpkern.native.krylov", "maxiter", maxiter, "max_iter", max_iter, stacklevel=6)
    for name, value in (("rtol", rtol), ("atol", atol)):
        if isinstance(value, bool) or not np.isfinite(value) or value < 0:
            raise ParameterError(f"{name} must be a finite number >= 0, got {value!r}")
    return 10 * n if max_iter is None else check_integer(max_iter, "max_iter", 1)


@dataclass
class _Start:
    """What every solver begins with: the operator, b, x₀, r₀ = b − Ax₀, the cap and the tolerance."""

    op: LinearOperator
    b: NDArray[np.float64]
    x: NDArray[np.float64]
    r: NDArray[np.float64]
    max_iter: int
    tol: float


def _start(
    A: ArrayLike | LinearOperator, b: ArrayLike, x0: ArrayLike | None, max_iter: int | None, rtol: float,
    atol: float, maxiter: Any,
) -> _Start:  # fmt: skip
    op, bb, x = make_system(A, b, x0)
    cap = _check_options(max_iter, rtol, atol, bb.shape[0], maxiter)
    return _Start(op, bb, x, bb - op.matvec(x), cap, _tolerance(float(np.linalg.norm(bb)), rtol, atol))


def _tolerance(bnorm: float, rtol: float, atol: float) -> float:
    """The one stopping rule: stop when ``‖b − A x_k‖ ≤ max(rtol‖b‖, atol)``."""
    return max(rtol * bnorm, atol)


class _Recorder:
    """Collects iterates, residual norms and coefficients; streams iterates to ``callback``."""

    def __init__(
        self,
        method: str,
        x0: NDArray[np.float64],
        r0norm: float,
        callback: Callback | None,
        keep: bool,
        names: tuple[str, ...],
    ) -> None:
        self.method = method
        self.callback = callback
        self.keep = keep
        self.iterates: list[NDArray[np.float64]] = [x0.copy()] if keep else []
        self.res: list[float] = [r0norm]
        self.coef: dict[str, list[float]] = {name: [] for name in names}

    def step(self, x: NDArray[np.float64], rnorm: float, **coefficients: float) -> None:
        for name, value in coefficients.items():
            self.coef[name].append(value)
        self.res.append(rnorm)
        if self.keep:
            self.iterates.append(x.copy())
        if self.callback is not None:
            self.callback(x)

    def result(self, x: NDArray[np.float64], info: int) -> KrylovResult:
        return KrylovResult(
            x=x,
            info=info,
            iterations=len(self.res) - 1,
            residual_norms=np.asarray(self.res),
            iterates=np.asarray(self.iterates) if self.keep else None,
            method=self.method,
            coefficients={k: np.asarray(v) for k, v in self.coef.items()},
        )

    def breakdown(self, x: NDArray[np.float64], what: str) -> BreakdownError:
        k = len(self.res) - 1
        exc = BreakdownError(
            f"{self.method}: Krylov breakdown at iteration {k}: {what} is zero (A is indefinite along the "
            "current direction); use mr_ii, which does not break down for symmetric A, or another x0",
            status="breakdown",
        )
        exc.result = self.result(x, -max(k, 1))  # type: ignore[attr-defined]
        return exc


def _is_zero(value: float, bound: float) -> bool:
    return abs(value) <= _BREAKDOWN_TOL * bound


class _Breakdown(Exception):
    """Raised by a recurrence step on a zero denominator (the message names it)."""


class _Recurrence:
    """One method's recurrence (002 Figures 5.1-5.2): its state after x₀, then one iteration a step.

    ``rnorm`` is ‖r_k‖ from the recurrence; ``exhausted`` says the Krylov space stopped growing
    (no further progress; :func:`_run` stops with ``info > 0`` unless the tolerance is met);
    ``initial`` holds coefficients known before the first iteration.
    """

    method: ClassVar[str]
    coefficients: ClassVar[tuple[str, ...]] = ("alpha", "beta")

    def __init__(self, op: LinearOperator, r: NDArray[np.float64]) -> None:
        self.op, self.r = op, r
        self.rnorm = float(np.linalg.norm(r))
        self.exhausted = False
        self.initial: dict[str, float] = {}

    def step(self, x: NDArray[np.float64]) -> tuple[NDArray[np.float64], dict[str, float]]:
        """``x_{k+1}`` and the iteration's coefficients; raise :class:`_Breakdown` on a zero denominator."""
        raise NotImplementedError


def _run(
    recurrence: type[_Recurrence], A: ArrayLike | LinearOperator, b: ArrayLike, x0: ArrayLike | None,
    max_iter: int | None, rtol: float, atol: float, callback: Callback | None, return_iterates: bool, maxiter: Any,
) -> KrylovResult:  # fmt: skip
    """The loop every solver shares: the stopping rule, the records and the breakdown report."""
    st = _start(A, b, x0, max_iter, rtol, atol, maxiter)
    it = recurrence(st.op, st.r)
    x = st.x
    rec = _Recorder(it.method, x, it.rnorm, callback, return_iterates, it.coefficients)
    for name, value in it.initial.items():
        rec.coef[name].append(value)
    for _ in range(st.max_iter):
        if it.rnorm <= st.tol:
            return rec.result(x, 0)
        if it.exhausted:  # nothing more to gain (the exact solution if A is non-singular)
            return rec.result(x, max(len(rec.res) - 1, 1))
        try:
            x, coefficients = it.step(x)
        except _Breakdown as exc:
            raise rec.breakdown(x, str(exc)) from None
        rec.step(x, it.rnorm, **coefficients)
    return rec.result(x, 0 if it.rnorm <= st.tol else st.max_iter)


class _CG(_Recurrence):
    method = "cg"

    def __init__(self, op: LinearOperator, r: NDArray[np.float64]) -> None:
        super().__init__(op, r)
        self.d = r.copy()
        self.rr = float(r @ r)
        self.rnorm = float(np.sqrt(self.rr))

    def step(self, x: NDArray[np.float64]) -> tuple[NDArray[np.float64], dict[str, float]]:
        d = self.d
        Ad = self.op.matvec(d)
        dAd = float(d @ Ad)
        if _is_zero(dAd, float(np.linalg.norm(d) * np.linalg.norm(Ad))):
            raise _Breakdown("d_k' A d_k")
        alpha = self.rr / dAd
        x = x + alpha * d
        self.r = self.r - alpha * Ad
        rr_new = float(self.r @ self.r)
        beta = rr_new / self.rr
        self.d = self.r + beta * d
        self.rr = rr_new
        self.rnorm = float(np.sqrt(rr_new))
        return x, {"alpha": alpha, "beta": beta}


class _MR(_Recurrence):
    method = "mr"

    def __init__(self, op: LinearOperator, r: NDArray[np.float64]) -> None:
        super().__init__(op, r)
        self.Ar = op.matvec(r)
        self.d, self.Ad = r.copy(), self.Ar.copy()
        self.rAr = float(r @ self.Ar)

    def step(self, x: NDArray[np.float64]) -> tuple[NDArray[np.float64], dict[str, float]]:
        AdAd = float(self.Ad @ self.Ad)
        if _is_zero(self.rAr, self.rnorm * float(np.linalg.norm(self.Ar))) or AdAd == 0.0:
            raise _Breakdown("r_k' A r_k")
        alpha = self.rAr / AdAd
        x = x + alpha * self.d
        self.r = self.r - alpha * self.Ad
        self.Ar = self.op.matvec(self.r)
        rAr_new = float(self.r @ self.Ar)
        beta = rAr_new / self.rAr
        self.d = self.r + beta * self.d
        self.Ad = self.Ar + beta * self.Ad  # A d_{k+1} by the same recursion: one product per iteration
        self.rAr = rAr_new
        self.rnorm = float(np.linalg.norm(self.r))
        return x, {"alpha": alpha, "beta": beta}


class _CGNE(_Recurrence):
    method = "cgne"

    def __init__(self, op: LinearOperator, r: NDArray[np.float64]) -> None:
        super().__init__(op, r)
        self.s = op.matvec(r)
        self.d = self.s.copy()
        self.ss = float(self.s @ self.s)
        self.exhausted = self.ss == 0.0

    def step(self, x: NDArray[np.float64]) -> tuple[NDArray[np.float64], dict[str, float]]:
        Ad = self.op.matvec(self.d)
        AdAd = float(Ad @ Ad)
        if AdAd == 0.0:
            raise _Breakdown("d_k' A^2 d_k")
        alpha = self.ss / AdAd
        x = x + alpha * self.d
        self.r = self.r - alpha * Ad
        self.s = self.op.matvec(self.r)
        ss_new = float(self.s @ self.s)
        beta = ss_new / self.ss
        self.d = self.s + beta * self.d
        self.ss = ss_new
        self.exhausted = ss_new == 0.0  # A r_k = 0: the least-squares solution of a singular system
        self.rnorm = float(np.linalg.norm(self.r))
        return x, {"alpha": alpha, "beta": beta}


class _MRII(_Recurrence):
    method = "mr_ii"
    coefficients = ("beta0", "rho", "alpha", "beta")

    def __init__(self, op: LinearOperator, r: NDArray[np.float64]) -> None:
        super().__init__(op, r)
        v = op.matvec(r)
        w = op.matvec(v)
        self.beta = float(np.linalg.norm(w))
        self.initial = {"beta0": self.beta}
        self.exhausted = self.beta == 0.0
        if not self.exhausted:
            v, w = v / self.beta, w / self.beta
        self.v, self.w = v, w
        self.v_old, self.w_old = np.zeros_like(v), np.zeros_like(w)

    def step(self, x: NDArray[np.float64]) -> tuple[NDArray[np.float64], dict[str, float]]:
        v, w = self.v, self.w
        rho = float(self.r @ w)
        x = x + rho * v
        self.r = self.r - rho * w
        self.rnorm = float(np.linalg.norm(self.r))
        Aw = self.op.matvec(w)
        alpha = float(w @ Aw)
        v_new = w - alpha * v - self.beta * self.v_old
        w_new = Aw - alpha * w - self.beta * self.w_old
        beta_new = float(np.linalg.norm(w_new))
        # β = 0: the Krylov space is invariant (no breakdown for symmetric A)
        self.exhausted = _is_zero(beta_new, float(np.linalg.norm(Aw)))
        if not self.exhausted:
            self.v_old, self.w_old = v, w
            self.v, self.w = v_new / beta_new, w_new / beta_new
            self.beta = beta_new
        return x, {"rho": rho, "alpha": alpha, "beta": beta_new}


def cg(
    A: ArrayLike | LinearOperator, b: ArrayLike, x0: ArrayLike | None = None, *, max_iter: int | None = None,
    rtol: float = 1e-5, atol: float = 0.0, callback: Callback | None = None, return_iterates: bool = False,
    maxiter: Any = DEPRECATED,
) -> KrylovResult:
    """Conjugate gradients (002 Figure 5.1, left).

    ``α_k = r_kᵀr_k / d_kᵀAd_k``, ``x_{k+1} = x_k + α_k d_k``, ``r_{k+1} = r_k − α_k A d_k``,
    ``β_{k+1} = r_{k+1}ᵀr_{k+1} / r_kᵀr_k``, ``d_{k+1} = r_{k+1} + β_{k+1} d_k``.

    Parameters
    ----------
    A : array of shape (n, n) or LinearOperator
        Symmetric matrix (CG is guaranteed only for positive definite ``A``).
    b : array of shape (n,)
    x0 : array of shape (n,), optional
        Starting point (zeros by default).
    max_iter : int, optional
        Iteration limit, at least 1 (``10 n`` by default). ``maxiter`` (SciPy's name) is a
        deprecated alias.
    rtol, atol : float
        Stop when ``‖b − A x_k‖ ≤ max(rtol‖b‖, atol)``.
    callback : callable, optional
        Called as ``callback(x_k)`` after every iteration.
    return_iterates : bool
        Keep every iterate in ``result.iterates``.

    Returns
    -------
    KrylovResult

    Raises
    ------
    BreakdownError
        ``d_kᵀ A d_k = 0`` (only for indefinite ``A``).

    Examples
    --------
    >>> import numpy as np
    >>> res = cg(np.diag([1.0, 2.0, 4.0]), np.ones(3), rtol=1e-12)
    >>> np.round(res.x, 6).tolist(), res.info
    ([1.0, 0.5, 0.25], 0)
    """
    return _run(_CG, A, b, x0, max_iter, rtol, atol, callback, return_iterates, maxiter)


def mr(
    A: ArrayLike | LinearOperator, b: ArrayLike, x0: ArrayLike | None = None, *, max_iter: int | None = None,
    rtol: float = 1e-5, atol: float = 0.0, callback: Callback | None = None, return_iterates: bool = False,
    maxiter: Any = DEPRECATED,
) -> KrylovResult:
    """Minimal residual by conjugate residuals (002 Figure 5.1, right).

    ``α_k = r_kᵀAr_k / d_kᵀA²d_k``, ``x_{k+1} = x_k + α_k d_k``, ``r_{k+1} = r_k − α_k A d_k``,
    ``β_{k+1} = r_{k+1}ᵀAr_{k+1} / r_kᵀAr_k``, ``d_{k+1} = r_{k+1} + β_{k+1} d_k``; ``A d_k`` is
    updated by the same recursion, so one product with ``A`` per iteration. The iterates
    minimise ``‖b − A x‖`` over ``x₀ + S_k(r₀; A)``, the same as MINRES.

    Parameters and return value as for :func:`cg`.

    Raises
    ------
    BreakdownError
        ``r_kᵀ A r_k = 0`` with ``r_k ≠ 0`` (only for indefinite ``A``).
    """
    return _run(_MR, A, b, x0, max_iter, rtol, atol, callback, return_iterates, maxiter)


def cgne(
    A: ArrayLike | LinearOperator, b: ArrayLike, x0: ArrayLike | None = None, *, max_iter: int | None = None,
    rtol: float = 1e-5, atol: float = 0.0, callback: Callback | None = None, return_iterates: bool = False,
    maxiter: Any = DEPRECATED,
) -> KrylovResult:
    """Conjugate gradients on the normal equations ``A²x = Ab`` (002 Figure 5.2, left).

    With ``s_k = A r_k``: ``α_k = s_kᵀs_k / d_kᵀA²d_k``, ``x_{k+1} = x_k + α_k d_k``,
    ``r_{k+1} = r_k − α_k A d_k``, ``β_{k+1} = s_{k+1}ᵀs_{k+1} / s_kᵀs_k``,
    ``d_{k+1} = A r_{k+1} + β_{k+1} d_k``, ``d_0 = A r_0``. Early-stopped, this is kernel PLS
    (002 §5.2.3). Two products with ``A`` per iteration.

    Parameters and return value as for :func:`cg`. When ``A r_k = 0`` (the least-squares
    solution of a singular, inconsistent system) the iteration stops with ``info > 0``.
    """
    return _run(_CGNE, A, b, x0, max_iter, rtol, atol, callback, return_iterates, maxiter)


def mr_ii(
    A: ArrayLike | LinearOperator, b: ArrayLike, x0: ArrayLike | None = None, *, max_iter: int | None = None,
    rtol: float = 1e-5, atol: float = 0.0, callback: Callback | None = None, return_iterates: bool = False,
    maxiter: Any = DEPRECATED,
) -> KrylovResult:
    """Lanczos-based minimal residual MR-II (002 Figure 5.2, right; Hanke 1995).

    Keeps Lanczos vectors ``w_k = A v_k`` (orthonormal) started from ``w_0 ∝ A²r_0``:
    ``ρ = ⟨r_k, w_{k−1}⟩``, ``x_{k+1} = x_k + ρ v_{k−1}``, ``r_{k+1} = r_k − ρ w_{k−1}``,
    ``α = ⟨w_{k−1}, A w_{k−1}⟩``, ``v_k = w_{k−1} − α v_{k−1} − β v_{k−2}``,
    ``w_k = A w_{k−1} − α w_{k−1} − β w_{k−2}``, ``β = ‖w_k‖``, then both divided by ``β``.
    (The thesis prints ``r_{k+1} = r_k + ρ w_{k−1}``; with ``r = y − Sx`` and ``S v = w`` the sign
    must be minus.) The iterates minimise ``‖b − A x‖`` over ``x₀ + S_k(Ar₀; A)``. No breakdown
    for symmetric ``A``: ``β = 0`` means the Krylov space is invariant, which for non-singular
    ``A`` means convergence, and otherwise stops with ``info > 0``.

    Parameters and return value as for :func:`cg`.
    """
    return _run(_MRII, A, b, x0, max_iter, rtol, atol, callback, return_iterates, maxiter)


#: Name -> solver, for estimators and parametrised tests.
SOLVERS: dict[str, Callable[..., KrylovResult]] = {"cg": cg, "mr": mr, "cgne": cgne, "mr_ii": mr_ii}
_SOLVER_ALIASES = {"mrii": "mr_ii", "mr-ii": "mr_ii", "mr2": "mr_ii", "minres": "mr"}


def get_solver(method: str) -> Callable[..., KrylovResult]:
    """Return the solver named ``method`` (``"cg"``, ``"mr"``, ``"cgne"``, ``"mr_ii"``)."""
    key = _SOLVER_ALIASES.get(str(method).lower(), str(method).lower())
    if key not in SOLVERS:
        raise ParameterError(f"method must be one of {sorted(SOLVERS)}, got {method!r}")
    return SOLVERS[key]
