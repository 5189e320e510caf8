"""Compiled dual SVM solver (SMO with second-order working-set selection) for p.d. and c.p.d. kernels.

The problem is the kernel SVM with an unpenalised block U (n × k: the intercept, the polynomial
part of a c.p.d. kernel, or both),

    min_{γ, c}  ½ γᵀKγ + C Σ_i w_i ℓ(y_i f_i),    f = Kγ + Uc,

with ℓ the hinge max(0, 1 − t) or the squared hinge max(0, 1 − t)², whose dual is

    min_α  ½ uᵀKu + ½ Σ_i D_i α_i² − Σ_i α_i,   u = y∘α,   Uᵀu = 0,   0 ≤ α_i ≤ upper_i

(hinge: D = 0, upper = C w; squared hinge: D_i = 1/(2C w_i), no upper bound — the squared hinge
is the hinge on K + diag(D)), and γ = u at the optimum. With the reduced kernel K_Ξ of
:mod:`sdpkern.native.cpd.workspace` and U = Q (the polynomials) this is exactly the c.p.d. SVM of
000 §6: eq. (14) for the squared hinge (its dual, 000 eq. 15-16 with the Pᵀ(y∘α) = 0 constraints),
the hinge variant of :func:`sdpkern.builders.cpd_svm.hinge_dual`, with C = 1/(2λ).

Algorithm
---------
The loop is sdpkern's one SMO core (:mod:`sdpkern.native.svm_core`, libsvm's solver: Fan, Chen &
Lin 2005, "Working set selection using second order information", WSS2), reading kernel columns
from the :class:`~sdpkern.kernels.gram.GramOperator`'s capped LRU column cache (libsvm's idea), so
no n × n matrix is formed. The one equality constraint of the intercept, Σ y_i α_i = 0, is kept
exact by the two-coordinate step. The other k − 1 polynomial constraints (V, an orthonormal
basis of range U ⊖ 1) are handled by an augmented Lagrangian

    ½ uᵀKu + ½ Σ D α² − Σ α + zᵀVᵀu + ½ ρ ‖Vᵀu‖²,

minimised by the core for fixed (z, ρ) — the QP with kernel K + ρVVᵀ and linear term −1 + y∘(Vz)
— after which z ← z + ρ Vᵀu (the method of multipliers), ρ growing tenfold whenever ‖Vᵀu‖ did
not fall by a factor 4. The multiplier z + ρVᵀu converges to the polynomial coefficients c; for
the squared hinge with ``polish="auto"`` z starts at the coefficients of the polynomials' fit
alone (the α = 0 problem, :func:`_start_multipliers`). Why this rather than a generalised SMO
over k + 1 coordinates per step: with k = 3 (thin-plate, d = 2) a feasible step must move k + 1
coordinates at once and the working-set selection loses WSS2's closed form; the augmented term
only adds a rank-(k − 1) matrix ρVVᵀ to the kernel, folded into the kernel's columns (m flops
per cached entry), and each outer round is warm started (α and the gradient carried over), so
the extra rounds cost few SMO steps. ρ starts at a tenth of the kernel's scale (:func:`_start`:
a stiffer penalty costs SMO steps, a softer one outer rounds). With ``polish="auto"`` and the
squared hinge, a Newton system on SMO's support finishes when that costs less
(:func:`_run_squared`): its bordered system holds the constraints exactly, so SMO then needs the
active set only, not the constraints.

Stopping and certificate
------------------------
``tol`` is libsvm's: the maximal violation of the KKT conditions in margin units, m(α) − M(α)
(pair steps) or the largest projected-gradient entry (no intercept), and ‖Vᵀu‖∞·max(1, ‖c‖∞) ≤
tol·max(1, ‖u‖∞)/10 for the polynomial constraints (c their multipliers). The result carries
both, with the duality gap between the primal value at (γ = u, c, b) and the dual value at α
(slightly negative when the polynomial constraints hold only to that tolerance).
"""

from __future__ import annotations

import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.linalg import qr
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import OpenBLASController, ThreadpoolController

from .._validation import as_vector, check_integer, check_positive
from ..errors import DataError, NotPSDError, ParameterError
from ..kernels.gram import GramOperator, ReducedGram, _core
from .dense_cholesky import cho_factor
from .primal_svm import _SupportFactor, primal_svm_kernel
from .svm_core import SMOState, _labels, _violation, _weights

__all__ = ["DualSVMResult", "dual_svm", "unpenalized_hinge_fit"]

Array = NDArray[np.float64]
Loss = Literal["hinge", "squared_hinge"]

#: SMO's tolerance before the closing Newton step of ``polish="auto"`` (loose: Newton needs
#: SMO's support, or with the hinge its free set, not its accuracy) ...
_HINGE_EARLY_TOL = 0.1

#: ... and, for the squared hinge when the caller's own ``tol`` is looser than that, the stages
#: tried instead (Newton may finish from there already).
_EARLY_TOL = 0.3
_EARLIEST_TOL = 1.0

#: The augmented Lagrangian's initial penalty ρ, in units of the kernel's mean diagonal times n / m.
_RHO_SCALE = 0.1

#: Cholesky flops of the closing Newton step worth one SMO step: per point (the step's passes over
#: the points are bound by memory), and per step (the kernel column it may compute, the calls
#: around it). docs/cpd.md ("The dual solver") has the measurements behind them.
_NEWTON_FLOPS_PER_STEP = 100.0
_STEP_FLOPS = 1e5

#: ... and each kernel column SMO computed, per number its pass reads (n (d + t + 16) for a
#: column of distances with a correction of width t: :func:`_column_numbers`)
_COLUMN_FLOPS_PER_NUMBER = 4.0

#: The share of the SMO work done that a closing Newton step may add once SMO has reached ``tol``
#: (it then only sharpens a certified solution).
_POLISH_SHARE = 0.1

#: The share of the closing Newton system's set that one of its rounds may move (points pinned at
#: 0 and points entering) before the primal Newton method takes over (:func:`_polish`).
_HANDOVER = 0.1

#: Relative threshold below which a column of the unpenalised block counts as dependent.
RANK_TOL = 1e-10

class _OneBlasThread:
    """BLAS limited to one thread while any native fit runs (threadpoolctl, scikit-learn's
    dependency): the solvers' BLAS calls are matrix-vector products and factorisations of a few
    hundred rows, where threads on a shared machine cost more in wake-ups than they save
    (docs/cpd.md, "One BLAS thread"). BLAS's thread count belongs to the process, not to a
    thread: fits running at once in a thread pool all keep one thread until the last of them
    ends (a count of the fits inside), so that a fit's arithmetic, and so its bits, never depend
    on what other threads do. The libraries are inspected once, when the first fit enters."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._inside = 0
        self._controller: Any = None
        self._limit: Any = None

    @staticmethod
    def _take_control() -> None:
        """Make this thread the one whose limits OpenBLAS's controller applies (threadpoolctl lets
        only one thread set a process-wide pool's size and ignores the others silently)."""
        clear = getattr(OpenBLASController, "clear_controlling_thread", None)
        if clear is not None:
            clear(force=True)

    @contextmanager
    def __call__(self) -> Iterator[None]:
        with self._lock:
            if self._inside == 0:
                if self._controller is None:
                    self._controller = ThreadpoolController()
                self._take_control()
                self._limit = self._controller.limit(limits=1, user_api="blas")
            self._inside += 1
        try:
            yield
        finally:
            with self._lock:
                self._inside -= 1
                if self._inside == 0:
                    self._take_control()
                    self._limit.restore_original_limits()
                    self._take_control()
                    self._limit = None


#: The one arbiter of BLAS's (per-process) thread count for the native fits (:class:`_OneBlasThread`).
_one_blas_thread = _OneBlasThread()


@dataclass
class DualSVMResult:
    """Solution of :func:`dual_svm`.

    Attributes
    ----------
    alpha : (n,) array
        Dual variables α ≥ 0.
    dual_coef : (n,) array
        y∘α: the expansion coefficients of f = K dual_coef + U coef_unpenalized (+ intercept).
    intercept : float
        b (0 without an intercept, or when the intercept lies in range U and is part of
        ``coef_unpenalized``; see ``fit_intercept`` of :func:`dual_svm`).
    coef_unpenalized : (k,) array
        Coefficients of the columns of ``unpenalized`` (empty when none was given).
    outputs : (n,) array
        f at the training points.
    status : str
        "optimal" or "iteration_limit".
    n_iter : int
        SMO steps over all outer (augmented Lagrangian) rounds.
    certificate : dict
        "kkt_violation" (libsvm's maximal violating pair, margin units), "constraint_violation"
        (‖Uᵀ(y∘α)‖∞), "primal", "dual", "duality_gap" (primal − dual, relative to max(1, abs(primal))),
        "outer_rounds", "columns" (kernel columns computed), "columns_ahead" (of those, the ones
        SMO computed ahead in batches), "columns_ahead_used" (and then asked for), "columns_split"
        (computed by two threads, ``n_jobs`` ≥ 2), "seconds".
    """

    alpha: Array
    dual_coef: Array
    intercept: float
    coef_unpenalized: Array
    outputs: Array
    status: str
    n_iter: int
    certificate: dict[str, float] = field(default_factory=dict)

    @property
    def objective(self) -> float:
        """The primal value ½ γᵀKγ + C Σ w ℓ(y f) at the returned point."""
        return float(self.certificate["primal"])


@dataclass
class _Constraints:
    """The unpenalised block split as libsvm wants it: the intercept (``pair``) and V ⊥ 1."""

    pair: bool
    V: Array  # (n, m) orthonormal, orthogonal to the constant when pair
    U: Array  # (n, k) as given (or (n, 0))
    orthonormal: bool = False  # UᵀU = I (e.g. polynomial_factor's Q): projections instead of least squares

    def coefficients(self, v: Array) -> Array:
        """The least-squares coefficients of v on the columns of U."""
        if self.orthonormal:
            return np.asarray(self.U.T @ v, dtype=np.float64)
        return np.asarray(np.linalg.lstsq(self.U, v, rcond=None)[0], dtype=np.float64)


def _constraints(unpenalized: ArrayLike | None, fit_intercept: bool, n: int) -> _Constraints:
    if unpenalized is None:
        U = np.zeros((n, 0))
    else:
        U = np.asarray(unpenalized, dtype=np.float64)
        if U.ndim != 2 or U.shape[0] != n:
            raise DataError(f"unpenalized must be an array of shape ({n}, k), got shape {U.shape}")
        if not np.all(np.isfinite(U)):
            raise DataError("unpenalized contains NaN or infinity")
    k = U.shape[1]
    # orthonormal columns (the c.p.d. solvers pass Q) have full rank: no QR, and projections for
    # the least-squares fits below
    ortho = bool(k) and float(np.max(np.abs(U.T @ U - np.eye(k)))) <= 1e-10
    if k and not ortho:
        R = qr(U, mode="r", pivoting=True)[0]
        d = np.abs(np.diag(R))
        rank = int(np.sum(d > RANK_TOL * max(float(d[0]), 1e-300)))
        if rank < k:
            raise DataError(
                f"unpenalized must have full column rank: rank {rank} < {k} columns (drop dependent columns, "
                "e.g. use the orthonormal basis polynomial_factor(X, kernel).Q)"
            )
    one = np.ones(n) / np.sqrt(n)
    if k:
        fit_one = U.T @ one if ortho else np.linalg.lstsq(U, one, rcond=None)[0]
        has_one = float(np.linalg.norm(one - U @ fit_one)) <= 1e-8
    else:
        has_one = False
    pair = fit_intercept or has_one
    if ortho and has_one:
        return _Constraints(pair, _householder_complement(U, fit_one), U, ortho)
    W = U - np.outer(one, one @ U) if pair else U
    if W.shape[1]:
        Qw, Rw, _ = qr(W, mode="economic", pivoting=True)
        d = np.abs(np.diag(Rw))
        m = int(np.sum(d > RANK_TOL * max(float(d[0]) if d.size else 0.0, 1e-300) + 1e-12 * np.sqrt(n)))
        V = np.ascontiguousarray(Qw[:, :m])
    else:
        V = np.zeros((n, 0))
    return _Constraints(pair, V, U, ortho)


def _householder_complement(U: Array, a: Array) -> Array:
    """An orthonormal basis of range U ⊖ 1 for orthonormal U with 1/√n = Ua (‖a‖ = 1): U H
    without its first column, H the Householder reflection taking a to ±e₁ (n k² flops, where a
    pivoted QR of U − 11ᵀU/n costs several times that)."""
    k = a.shape[0]
    w = a.copy()
    w[0] += np.copysign(1.0, a[0])
    w /= np.linalg.norm(w)
    H = np.eye(k) - 2.0 * np.outer(w, w)
    return np.ascontiguousarray(U @ H[:, 1:])


def _check_call(
    K: GramOperator, y: ArrayLike, C: float, loss: str, sample_weight: ArrayLike | None, tol: float
) -> tuple[Array, Array]:
    if loss not in ("hinge", "squared_hinge"):
        raise ParameterError(f"loss must be 'hinge' or 'squared_hinge', got {loss!r}")
    ya = _labels(K, y, tol, None)
    check_positive(C, "C")
    return ya, _weights(sample_weight, K.n, ya)


def dual_svm(
    K: GramOperator,
    y: ArrayLike,
    C: float,
    *,
    loss: Loss = "hinge",
    sample_weight: ArrayLike | None = None,
    unpenalized: ArrayLike | None = None,
    fit_intercept: bool = True,
    alpha0: ArrayLike | None = None,
    tol: float = 1e-3,
    max_iter: int | None = None,
    shrinking: bool = True,
    polish: bool | str = False,
    callback: Callable[[int, float, float], Any] | None = None,
    n_jobs: int = 1,
    unpenalized_fit: ArrayLike | None = None,
) -> DualSVMResult:
    """Solve the (squared-)hinge kernel SVM by compiled SMO (module docstring).

    000 eq. (14) (squared hinge) and its hinge variant on the reduced kernel; 004's primal for
    ``loss="squared_hinge"`` with ``unpenalized=None`` (Chapelle 2007), solved here in the dual.

    Parameters
    ----------
    K : GramOperator
        Positive semidefinite Gram matrix (for a c.p.d. kernel, its reduced form
        :class:`~sdpkern.kernels.gram.ReducedGram`). Columns are read through its cache.
    y : (n,) array of ±1
    C : float
        scikit-learn's C > 0 (C = 1/(2λ) for 000 eq. 14).
    loss : {"hinge", "squared_hinge"}
    sample_weight : (n,) array, optional
        Per-point weights: C_i = C w_i (a weight-2 point is a repeated point).
    unpenalized : (n, k) array, optional
        Unpenalised block U of full column rank (the polynomial part): the constraints
        Uᵀ(y∘α) = 0.
    fit_intercept : bool, default=True
        Add the constant to the unpenalised block (nothing is added when it lies in range U).
    alpha0 : (n,) array, optional
        Warm start; it is clipped to the box (feasibility of the equality constraints is restored
        by the solve).
    tol : float, default=1e-3
        KKT tolerance in libsvm's meaning (module docstring).
    max_iter : int, optional
        Cap on SMO steps over all rounds (default max(10⁷, 100 n)).
    shrinking : bool, default=True
        libsvm's shrinking heuristic (with the intercept only).
    polish : bool or "auto", default=False
        End with one Newton step on SMO's active set (:func:`_polish`), kept only when it is
        optimal: the KKT conditions then hold to round-off instead of to ``tol``. ``"auto"``,
        squared hinge with unpenalised columns beyond the intercept: SMO to a loose tolerance,
        then SMO on to ``tol`` or the primal Newton method from SMO's point, whichever costs
        less (:func:`_run_squared`: the augmented Lagrangian's rounds ahead are what Newton
        saves). ``"auto"`` otherwise (hinge, or no augmented Lagrangian: SMO alone converges
        as libsvm's): the Newton step is tried after a loose round and after the rounds to
        ``tol`` while it costs no more than the SMO steps so far; when it does not settle and
        n ≤ 200, SMO continues to tol·10⁻⁶ instead.
    callback : callable, optional
        ``callback(round, kkt_violation, constraint_violation)`` after each augmented Lagrangian
        round.
    n_jobs : int, default=1
        Threads of the SMO (:class:`~sdpkern.native.svm_core.SMOState`): its passes over the
        variables from 4096 on, and the rows of the kernel columns it computes where a column is
        worth the hand-over; two at most help, the same bits for any number.
    unpenalized_fit : (n,) array, optional
        The values on the points of :func:`unpenalized_hinge_fit` of y by the unpenalised block,
        where the caller has computed it (the c.p.d. separability test does): the multipliers
        of ``polish="auto"`` with the squared hinge start there instead of computing it again.

    Returns
    -------
    DualSVMResult
    """
    t0 = time.perf_counter()
    ya, w = _check_call(K, y, C, loss, sample_weight, tol)
    if polish not in (True, False, "auto"):
        raise ParameterError(f"polish must be True, False or 'auto', got {polish!r}")
    n = K.n
    if max_iter is None:
        max_iter = max(10_000_000, 100 * n)
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ParameterError(f"max_iter must be a positive integer, got {max_iter!r}")
    cons = _constraints(unpenalized, bool(fit_intercept), n)
    if int(cons.pair) + cons.V.shape[1] >= n:
        return _interpolating(K, ya, cons, t0)
    Cw = float(C) * w
    upper, Dd = _box(loss, Cw, w)
    alpha = np.zeros(n) if alpha0 is None else np.clip(as_vector(alpha0, "alpha0", length=n), 0.0, upper)
    cols0 = K.columns_computed
    n_jobs = check_integer(n_jobs, "n_jobs", 1)
    al = _start(K, ya, alpha, upper, Dd, cons, bool(shrinking), int(max_iter), callback, n_jobs)
    with _one_blas_thread():
        if polish == "auto" and loss == "squared_hinge" and cons.V.shape[1]:
            if alpha0 is None:
                fit = None if unpenalized_fit is None else as_vector(unpenalized_fit, "unpenalized_fit", length=n)
                _start_multipliers(al, cons, w, fit)
            polished, refined = _run_squared(al, cons, float(tol), float(C), w), False
        else:
            polished, refined = _run(al, cons, polish, float(tol))
    state = al.state
    alpha = state.alpha
    viol = state.violation()
    s = al.s
    feas = float(np.max(np.abs(s))) if s.size else 0.0
    c_V = al.z + al.rho * s
    e = ya - state.v  # the effective outputs Ku + y∘D∘α + V c_V
    res = _result(K, ya, alpha, e, Dd, upper, Cw, loss, cons, c_V, viol, feas, al.n_iter, al.rounds, tol, cols0, t0)
    if state.K is not K:  # the folded operator computed the columns
        res.certificate["columns"] += float(state.K.columns_computed + state.dropped_columns)
    fetched, used = state.ahead()
    res.certificate["columns_ahead"], res.certificate["columns_ahead_used"] = float(fetched), float(used)
    res.certificate["columns_split"] = float(state.split())
    res.certificate["polished"] = float(polished)
    res.certificate["refined"] = float(refined)
    return res


def _box(loss: str, Cw: Array, w: Array) -> tuple[Array, Array]:
    """The dual's upper bounds and diagonal D (module docstring): hinge C w and 0; squared hinge
    no bound and 1/(2 C w) (points of weight 0 are pinned at α = 0)."""
    n = Cw.shape[0]
    if loss == "hinge":
        return Cw.copy(), np.zeros(n)
    with np.errstate(divide="ignore"):
        return np.where(w > 0, np.inf, 0.0), np.where(w > 0, 0.5 / np.where(w > 0, Cw, 1.0), 0.0)


def _start(
    K: GramOperator, ya: Array, alpha: Array, upper: Array, Dd: Array, cons: _Constraints, shrinking: bool,
    max_iter: int, callback: Callable[..., Any] | None, threads: int = 1,
) -> _AugmentedLagrangian:
    """The core's state at ``alpha`` on K + ρVVᵀ (folded into the kernel's columns) with z = 0,
    wrapped in the method of multipliers, ρ on the kernel's scale."""
    n, V = K.n, cons.V
    m = V.shape[1]
    # ρ on the scale of the kernel's diagonal: the penalty's curvature ρ‖V_i‖² ≈ ρ m/n per point,
    # a tenth of it: a stiffer penalty makes SMO's problem worse conditioned (more steps to the
    # same tolerance), a softer one needs more outer rounds (docs/cpd.md, "The dual solver")
    rho = _RHO_SCALE * float(np.mean(np.abs(K.diagonal()))) * n / max(m, 1) if m else 0.0
    state = SMOState(
        _fold(K, V, rho) if m else K, ya, -np.ones(n), upper, Dd, alpha, "one" if cons.pair else "none", shrinking,
        threads,
    )
    return _AugmentedLagrangian(state, K, V, rho, max_iter, callback)


def unpenalized_hinge_fit(W: Array, ya: Array, w: Array) -> Array | None:
    """The squared-hinge fit of y by the orthonormal columns W alone: the fitted values f = Wc of
    min_c Σ w_i max(0, 1 − y_i (Wc)_i)², by Newton's method on its violators (each step the
    weighted least-squares fit of y on them, from the fit on every point; at most 30 steps).
    None when the fit is not determined: as many violators as columns (𝒫 may then separate the
    classes) or a singular system.

    At its minimiser the gradient vanishes: Σ w_i ξ_i y_i W_i = 0 with ξ_i = max(0, 1 − y_i f_i),
    so u = w∘ξ ≥ 0 is Farkas' certificate that no f ∈ range W has y_i f_i ≥ 1 for every i
    whenever some ξ_i > 0 (:func:`~sdpkern.native.cpd.workspace.fit_cpd` reads it so); and its
    coefficients start the dual's multipliers (:func:`_start_multipliers`)."""
    live = w > 0
    c = W.T @ (w * ya)  # the least-squares fit (weighted: a weight-2 point is a repeated point)
    sv = None
    for _ in range(30):
        violators = live & (ya * (W @ c) < 1.0)
        if sv is not None and np.array_equal(violators, sv):
            break
        sv = violators
        if np.count_nonzero(sv) <= W.shape[1]:
            return None
        Ws = W[sv] * np.sqrt(w[sv])[:, None]
        try:  # on the violators the loss is Σ w (y − f)²: a least-squares step
            c = np.linalg.solve(Ws.T @ Ws, W[sv].T @ (w[sv] * ya[sv]))
        except np.linalg.LinAlgError:
            return None
    return np.asarray(W @ c, dtype=np.float64)


def _start_multipliers(al: _AugmentedLagrangian, cons: _Constraints, w: Array, fit: Array | None = None) -> None:
    """Start the method of multipliers at the α = 0 problem's own: the polynomials' coefficients z
    of the squared-hinge fit of y by the unpenalised block alone (:func:`unpenalized_hinge_fit`,
    or its values ``fit`` where the caller has them; the intercept's part is the pair
    constraint's, left to SMO).

    At z = 0, SMO's first round fits all of y by the kernel, and its support is then far from the
    optimum's wherever the polynomials carry much of the model: on wdbc (d = 30, 31 polynomials,
    α > 0 on 34 points at the optimum) the loose round ended with 421 points in its support, and
    the Newton finish shed them over 13 Newton systems (docs/cpd.md, "The start of the
    multipliers"). Any z is a valid start; this one leaves SMO the part of y the polynomials
    cannot fit. Nothing changes when that fit is not determined."""
    st = al.state
    ya = st.y
    n = ya.shape[0]
    V = cons.V
    if fit is None:
        W = np.hstack([np.full((n, 1), 1.0 / np.sqrt(n)), V]) if cons.pair else V  # orthonormal columns
        fit = unpenalized_hinge_fit(W, ya, w)
        if fit is None:
            return
    z = np.asarray(V.T @ fit, dtype=np.float64)  # (V orthonormal, ⊥ 1 when pair: the fit's coordinates)
    al.z = z
    st.shift(ya * (V @ z))  # p = −1 + y∘(Vz), as after a multiplier update


def _run_squared(al: _AugmentedLagrangian, cons: _Constraints, tol: float, C: float, w: Array) -> bool:
    """The squared hinge with ``polish="auto"`` and polynomial constraints beyond the intercept;
    returns whether a Newton method finished.

    Every support vector of the squared hinge is free, so the optimum solves one bordered linear
    system on its support S (004's Newton system; 000 eq. 17 on K_Ξ), which also holds the
    polynomial constraints exactly: what SMO's augmented Lagrangian would need its later rounds
    for. So SMO runs one round to a loose tolerance (0.1), and when one factorisation of order
    |S| (|S|³/3 flops) costs less than the SMO steps taken so far, that system is solved on
    SMO's support (:func:`_polish`, kept only when optimal to round-off), and if SMO's support
    was not yet the optimum's, the primal Newton method (Chapelle 2007,
    :func:`~sdpkern.native.primal_svm.primal_svm_kernel` from SMO's point) finishes. Otherwise
    SMO goes on towards ``tol`` for at most as many steps as the Newton finish would cost, and
    Newton finishes if SMO has not (ski rental: the bordered system on SMO's support, then the
    primal Newton method if that support was not the optimum's); after a Newton finish that does not settle, SMO
    doubles its steps before the next try. An SMO step is priced at ``_NEWTON_FLOPS_PER_STEP``
    flops of Cholesky per point plus ``_STEP_FLOPS`` (its passes over the points are bound by
    memory, the factorisation by arithmetic), plus its share of the kernel columns SMO computed
    so far at ``_COLUMN_FLOPS_PER_NUMBER`` per number a column's pass reads (on splice, d = 60
    and 61 polynomials, a column reads n(d + 2k + 16) = 632,000 numbers: priced by steps and
    points alone, the Newton finish waited 8277 steps after the loose round instead of none).
    The counts are of steps, points and columns, not of time, so the choice — and the model — is
    the same on every run."""
    st = al.state
    n = st.K.n
    stages = tuple(t for t in (_EARLIEST_TOL, _EARLY_TOL) if t > tol)

    per_column = _COLUMN_FLOPS_PER_NUMBER * _column_numbers(st.K)
    columns0 = st.K.columns_computed + st.dropped_columns

    def newton_in_steps() -> int:
        """The Newton finish's cost in SMO steps, at the price of the steps so far: their passes
        and the kernel columns they computed."""
        support = int(np.count_nonzero(st.alpha))
        columns = st.K.columns_computed + st.dropped_columns - columns0
        step = _NEWTON_FLOPS_PER_STEP * n + _STEP_FLOPS + per_column * columns / max(al.n_iter, 1)
        return int(support**3 / 3.0 / step) + 1

    if tol < _HINGE_EARLY_TOL:
        # one round to a loose tolerance, then one Newton system on SMO's support (every support
        # vector of the squared hinge is free): exact when SMO's support is the optimum's, which
        # it usually is by then, at the price of one factorisation; else the full Newton method
        al.solve(_HINGE_EARLY_TOL, max_rounds=1)
        last: list[Array] = []  # (the bordered system's last point: the Newton method's start)
        if newton_in_steps() <= al.n_iter and (
            _polish_state(al, cons, tol, last) or _newton_finish(al, cons, C, w, last)
        ):
            return True
        stages = ()
    for early_tol in stages:  # (one round each: Newton needs SMO's support, not Vᵀu ≈ 0)
        al.solve(early_tol, max_rounds=1)
        # the Newton finish costs less than the SMO steps taken so far: the steps to tol, the
        # augmented Lagrangian's rounds still ahead, would not cost less than those
        if newton_in_steps() <= al.n_iter and _newton_finish(al, cons, C, w):
            return True
    while al.n_iter < al.max_iter:
        budget = newton_in_steps()
        viol, feas = al.solve(tol, step_limit=al.n_iter + budget)
        if viol <= tol and _feasible(feas, st.y * st.alpha, al.z + al.rho * al.s, tol):
            return False
        # the bordered system on SMO's support first, as after the loose round: after SMO's steps
        # towards tol its support is usually the optimum's, and one factorisation then finishes
        last = []
        if _polish_state(al, cons, tol, last) or _newton_finish(al, cons, C, w, last):
            return True
        # Newton did not settle: SMO goes on at least as many steps as it has taken so far before
        # the next try (the failed tries then cost at most what SMO does, however many there are)
        viol, feas = al.solve(tol, step_limit=2 * al.n_iter)
        if viol <= tol and _feasible(feas, st.y * st.alpha, al.z + al.rho * al.s, tol):
            return False
    return False


def _column_numbers(K: GramOperator) -> float:
    """The numbers a kernel column's pass reads per point (d + t + 16: Xᵀ, the correction's leftᵀ,
    and 16 for the elementwise exp or log and the other loops over the column, as
    ``sdpkern._svmcore``'s SPLIT_WORK counts them: ``COLUMN_LOOP_NUMBERS``) times n; 0 for a
    kernel without a spec (its columns' cost unknown here)."""
    spec = K.spec
    if spec is None:
        return 0.0
    t = 0 if spec.left is None else np.shape(spec.left)[1]
    if spec.kind == "matrix" or np.ndim(spec.X) != 2:  # a copy of the matrix's column
        return float(K.n * (1 + t))
    return float(K.n * (np.shape(spec.X)[1] + t + _core().COLUMN_LOOP_NUMBERS))


def _newton_finish(
    al: _AugmentedLagrangian, cons: _Constraints, C: float, w: Array, start: list[Array] | None = None
) -> bool:
    """The primal Newton method on the squared hinge from SMO's point (α, and the unpenalised part
    b + V c_V of its multipliers), or from ``start`` (α, [b, c_V]: the last point of a bordered
    system that did not settle, :func:`_polish`), on SMO's operator K + ρVVᵀ: its optimum is the
    problem's, as Vᵀu = 0 there. Sets the state to the optimum and returns True when the violator
    set settled."""
    st = al.state
    ya, alpha = st.y, st.alpha
    n = st.K.n
    V = cons.V
    if start:
        alpha, c = start
        b, c_V = (float(c[0]), c[1:]) if cons.pair else (0.0, c)
    else:
        e = ya - st.v
        c_V = al.z + al.rho * al.s
        b = _intercept(ya, alpha, e, st.upper) if cons.pair else 0.0
    W = _unpenalized_block(cons, n)
    poly = b + V @ c_V if V.shape[1] else np.full(n, b)
    c0 = np.asarray(np.linalg.lstsq(W, poly, rcond=None)[0], dtype=np.float64) if W.shape[1] else np.zeros(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        res = primal_svm_kernel(
            st.K, ya, C, unpenalized=W, sample_weight=w, init=(ya * alpha, c0), warm_start_size=n + 1,
        )  # fmt: skip
    if not res.converged or res.outputs is None or res.unpenalized_coef is None:
        return False
    a_new = np.maximum(ya * res.coef, 0.0)
    poly_new = W @ res.unpenalized_coef if W.shape[1] else np.zeros(n)
    c_new = V.T @ poly_new if V.shape[1] else np.zeros(0)  # (V orthonormal, ⊥ 1 when pair)
    b_new = float(np.mean(poly_new - V @ c_new)) if cons.pair else 0.0
    st.alpha[:] = a_new
    st.v[:] = ya - (res.outputs - b_new + ya * st.D * a_new)
    al.z, al.rho = c_new, 0.0  # the multipliers are exact: c_V = z
    al.s = V.T @ (ya * a_new) if V.shape[1] else al.s
    return True


def _polish_state(al: _AugmentedLagrangian, cons: _Constraints, tol: float, last: list[Array] | None = None) -> bool:
    """:func:`_polish` from the core's state, which it then holds when it succeeds (returned).

    On K + ρVVᵀ when folded (its columns are the cached ones): the same solution, as the
    bordered system enforces Vᵀu = 0."""
    st = al.state
    out = _polish(st.K, st.y, st.alpha, st.upper, st.D, cons, tol, last, st.threads)
    if out is None:
        return False
    st.alpha[:], e, al.z, _ = out
    st.v[:] = st.y - e
    al.rho = 0.0  # the multipliers are exact: c_V = z
    al.s = cons.V.T @ (st.y * st.alpha)
    return True


def _unpenalized_block(cons: _Constraints, n: int) -> Array:
    """The unpenalised columns of the primal: U, with the constant first when the intercept is
    not already in its range."""
    U = cons.U
    if cons.pair and not (U.shape[1] and cons.V.shape[1] + 1 == U.shape[1]):
        return np.hstack([np.ones((n, 1)), U]) if U.shape[1] else np.ones((n, 1))
    return U


def _run(al: _AugmentedLagrangian, cons: _Constraints, polish: bool | str, tol: float) -> tuple[bool, bool]:
    """SMO rounds to ``tol`` and the closing Newton step as ``polish`` asks (:func:`dual_svm`;
    the squared hinge with ``polish="auto"`` is :func:`_run_squared`); returns (polished, refined)."""
    st = al.state
    n, alpha, upper = st.K.n, st.alpha, st.upper

    polished = [False]

    def try_polish() -> bool:
        polished[0] = _polish_state(al, cons, tol)
        return polished[0]

    def cheap(share: float = 1.0) -> bool:
        # the factorisation of the free set F costs about ``share`` of what the SMO steps so far did
        n_free = int(np.sum((alpha > 0) & (alpha < upper)))
        return n_free**3 / 3.0 <= share * _NEWTON_FLOPS_PER_STEP * n * max(al.n_iter, 1)

    if polish == "auto" and tol < _HINGE_EARLY_TOL:
        # one loose round first: the Newton step needs SMO's active set, not the constraints
        al.solve(_HINGE_EARLY_TOL, max_rounds=1)
        if al.n_iter < al.max_iter and cheap() and try_polish():
            return True, False
    # between rounds the Newton step saves the rounds ahead; once SMO is at ``tol`` (the last
    # round, and the only one without polynomial constraints) it saves nothing, and is taken
    # only when it adds a small share to the work done
    share = 1.0 if cons.V.shape[1] else _POLISH_SHARE
    al.solve(
        tol, between=(lambda: cheap(share) and al.n_iter < al.max_iter and try_polish()) if polish == "auto" else None
    )
    if polished[0]:
        return True, False
    if (polish is True or (polish == "auto" and cheap(_POLISH_SHARE))) and al.n_iter < al.max_iter and try_polish():
        return True, False
    if polish == "auto" and n <= 200:
        # degenerate active set (e.g. 𝒫 separates the classes: α → 0): SMO on to tol·1e-6
        al.solve(1e-6 * tol)
        return False, True
    return False, False


class _AugmentedLagrangian:
    """The method of multipliers around the core (module docstring): z ← z + ρVᵀu after each SMO
    solve (the core's linear term −1 + y∘(Vz) follows), ρ ×10 when ‖Vᵀu‖ did not fall by a factor
    4 (K + ρVVᵀ then folded afresh)."""

    def __init__(
        self, state: SMOState, K: GramOperator, V: Array, rho: float, max_iter: int,
        callback: Callable[..., Any] | None,
    ) -> None:  # fmt: skip
        self.state, self.K, self.V, self.rho, self.max_iter, self.callback = state, K, V, rho, max_iter, callback
        self.z = np.zeros(V.shape[1])
        self.s = np.ascontiguousarray(V.T @ (state.y * state.alpha))  # Vᵀu
        self.rounds = 0

    @property
    def n_iter(self) -> int:
        """SMO steps so far."""
        return int(self.state.n_iter)

    def solve(
        self, tol: float, max_rounds: int | None = None, between: Callable[[], bool] | None = None,
        step_limit: int | None = None,
    ) -> tuple[float, float]:
        """Rounds until SMO's KKT violation ≤ tol and the constraints hold (``_feasible``), or
        ``max_rounds`` rounds (the multipliers then updated as for the next round), or until
        ``between()``, called after each round's multiplier update, returns True, or until
        ``n_iter`` reaches ``step_limit``."""
        st, V = self.state, self.V
        m = V.shape[1]
        limit = self.max_iter if step_limit is None else min(self.max_iter, step_limit)
        prev, viol, feas = np.inf, np.inf, np.inf
        for rnd in range(1, 1 << 30):
            viol = st.run(tol, max(0, limit - self.n_iter))
            self.rounds += 1
            self.s = np.ascontiguousarray(V.T @ (st.y * st.alpha)) if m else self.s
            feas = float(np.max(np.abs(self.s))) if m else 0.0
            if self.callback is not None:
                self.callback(self.rounds, float(viol), feas)
            done = viol <= tol and _feasible(feas, st.y * st.alpha, self.z + self.rho * self.s, tol)
            if done or self.n_iter >= limit or self.rounds >= 200:
                return float(viol), feas
            dz = self.rho * self.s
            self.z = self.z + dz
            st.shift(st.y * (V @ dz))  # p = −1 + y∘(Vz)
            if feas > 0.25 * prev:
                # K + 10ρVVᵀ: the outputs change by 9ρVs (its cache restarts; rare: a few times a solve)
                st.set_operator(_fold(self.K, V, 10.0 * self.rho), change=V @ (9.0 * self.rho * self.s))
                self.rho *= 10.0
            prev = feas
            if max_rounds is not None and rnd >= max_rounds or between is not None and between():
                break
        return float(viol), feas


def _kkt_violation(ya: Array, alpha: Array, e: Array, upper: Array, pair: bool) -> float:
    """The core's stopping quantity (libsvm's maximal violating pair, or the largest projected
    gradient without the pair constraint) at the effective outputs e = y − v."""
    return _violation(ya, alpha, ya - e, upper, 1 if pair else 0)


def _polish(
    K: GramOperator, ya: Array, alpha: Array, upper: Array, Dd: Array, cons: _Constraints, tol: float,
    last: list[Array] | None = None, threads: int = 1,
) -> tuple[Array, Array, Array, float] | None:
    """Finite-Newton steps from SMO's active set (004's Newton system; 000 eq. 17 on K_Ξ).

    With the free set F (0 < α < upper) and the bound set B fixed, the KKT conditions are the
    bordered linear system  (K_FF + D_F) u_F + W_F c = y_F − K_FB u_B,  W_Fᵀu_F = −W_Bᵀu_B,  W =
    [1, V] (the intercept and the polynomials), solved by a Cholesky factor of K_FF + D_F and its
    k × k Schur complement. Points whose α leaves the box are moved to the bound, points at a
    bound that violate the KKT conditions by more than ``tol`` join F, for at most 5 rounds. The
    result is accepted only with no KKT violation above 1e-9 left: it is then optimal to
    round-off. ``None`` otherwise (singular K_FF, e.g. repeated points with the hinge loss);
    ``last`` (a list) then holds the last point solved with a kept factor (α ≥ 0, [b, c_V]).
    """
    n = ya.shape[0]
    W = np.hstack([np.ones((n, 1)), cons.V]) if cons.pair else cons.V
    a_new = np.array(alpha)
    free = (a_new > 0) & (a_new < upper)
    # squared hinge (no finite upper bound but the weight-0 points' 0): no point sits at an upper
    # bound, so the system is the primal Newton one of 004 on F, whose Cholesky factor is kept
    # across the rounds (leaving points pinned, entering ones appended: one factorisation)
    factor = _SupportFactor(K, ya, Dd, W, threads) if not np.any(np.isfinite(upper) & (upper > 0)) else None
    for _ in range(5):
        if factor is not None:
            step = _newton_step_kept(factor, ya, a_new, free, last)
        else:
            step = _newton_step(K, ya, a_new, free, upper, Dd, W)
        if step is None:
            return None
        a_new, c = step
        u_new = ya * a_new
        c_V = c[1:] if cons.pair else c
        e = K.matvec(u_new, threads=threads) + ya * Dd * a_new + cons.V @ c_V
        f = e - ya * Dd * a_new + (c[0] if cons.pair else 0.0)
        m = ya * f  # margins: < 1 at α = 0 or > 1 at the upper bound violate the KKT conditions
        # (points of weight 0, upper = 0, are pinned at α = 0 and never enter)
        enter = (((a_new <= 0) & (m < 1.0 - 1e-9)) | ((a_new >= upper) & (m > 1.0 + 1e-9))) & (upper > 0)
        if not np.any(enter):
            return a_new, e, c_V, _kkt_violation(ya, a_new, e, upper, cons.pair)
        kept = (a_new > 0) & (a_new < upper)
        moved = np.count_nonzero(free & ~kept) + np.count_nonzero(enter)
        if factor is not None and moved > _HANDOVER * np.count_nonzero(free):
            # SMO's support was far from the optimum's: this method moves points one way per
            # system (pinned within a round, entering between rounds) and swings between the two,
            # where the primal Newton method moves them both ways in one step and ``last`` starts
            # it (ionosphere, 35 polynomials: 32 systems before, 14 now; on the other sets a round
            # moves at most 3 % of the set, docs/cpd.md)
            return None
        free = kept | enter
    return None


def _newton_step(
    K: GramOperator, ya: Array, alpha: Array, free: NDArray[np.bool_], upper: Array, Dd: Array, W: Array
) -> tuple[Array, Array] | None:
    """Solve the bordered KKT system on ``free`` (α elsewhere fixed); clip α to the box, moving
    the points that leave it to their bound, until the free solution lies inside (≤ 5 rounds)."""
    from scipy.linalg import LinAlgError, cho_solve

    a = np.array(alpha)
    a[~free] = np.where(a[~free] >= upper[~free], upper[~free], 0.0)
    for _ in range(5):
        F, B = np.flatnonzero(free), np.flatnonzero(~free & (a > 0))
        if F.size == 0:
            return None
        u = ya * a
        # block, not entries: only the columns not cached yet are computed (and then kept)
        r = ya[F] - (K.block(F, B) @ u[B] if B.size else 0.0)
        A = K.block(F, F)
        A[np.diag_indices_from(A)] += Dd[F]
        k = W.shape[1]
        try:
            if F.size <= k:
                raise LinAlgError("fewer free points than unpenalised columns")
            fac = cho_factor(A, lower=False)
            Ar, AW = cho_solve(fac, r, check_finite=False), cho_solve(fac, W[F], check_finite=False)
            S = W[F].T @ AW
            c = np.linalg.solve(S, W[F].T @ Ar + W[B].T @ u[B]) if k else np.zeros(0)
            uF = Ar - AW @ c
        except (LinAlgError, np.linalg.LinAlgError, ValueError):
            if F.size + k > 500:
                return None
            # small and singular (few free points, repeated points): the bordered system by least squares
            M = np.block([[A, W[F]], [W[F].T, np.zeros((k, k))]])
            sol = np.linalg.lstsq(M, np.r_[r, -(W[B].T @ u[B])], rcond=None)[0]
            uF, c = sol[: F.size], sol[F.size :]
        aF = ya[F] * uF
        if not np.all(np.isfinite(aF)):
            return None
        low, high = aF < 0, aF > upper[F]
        a[F] = np.clip(aF, 0.0, upper[F])
        if not (np.any(low) or np.any(high)):
            return a, c
        free[F[low | high]] = False
    return None


def _newton_step_kept(
    factor: _SupportFactor, ya: Array, alpha: Array, free: NDArray[np.bool_], last: list[Array] | None = None
) -> tuple[Array, Array] | None:
    """:func:`_newton_step` without upper bounds (squared hinge), on a kept factor of K_FF + D_F:
    the points whose α turns negative are pinned at 0 by multipliers instead of refactorising.
    ``last`` (a list) receives each solved point (α clipped at 0, c), also when the rounds do not
    settle: a start for the primal Newton method."""
    a = np.where(free, alpha, 0.0)
    for _ in range(8):
        F = np.flatnonzero(free)
        if F.size <= factor.k:
            return None
        try:
            uF, c = factor.newton_point(F)
        except (NotPSDError, np.linalg.LinAlgError, ValueError):
            return None
        aF = ya[F] * uF
        if not np.all(np.isfinite(aF)):
            return None
        low = aF < 0
        a[F] = np.maximum(aF, 0.0)
        if last is not None:
            last[:] = [a.copy(), np.asarray(c, dtype=np.float64)]
        if not np.any(low):
            return a, c
        free[F[low]] = False
    return None


def _interpolating(K: GramOperator, ya: Array, cons: _Constraints, t0: float) -> DualSVMResult:
    """The unpenalised block spans R^n: Uᵀ(y∘α) = 0 forces α = 0 and f = y is fitted exactly
    by the unpenalised part (objective 0, e.g. more polynomials than points, 000 §6)."""
    n = ya.shape[0]
    U = cons.U
    coef = cons.coefficients(ya) if U.shape[1] else np.zeros(0)
    intercept = float(np.mean(ya - U @ coef)) if cons.pair else 0.0
    cert = {"kkt_violation": 0.0, "constraint_violation": 0.0, "primal": 0.0, "dual": 0.0, "duality_gap": 0.0,
            "outer_rounds": 0.0, "columns": 0.0, "columns_ahead": 0.0, "columns_ahead_used": 0.0,
            "columns_split": 0.0, "seconds": time.perf_counter() - t0, "polished": 0.0}  # fmt: skip
    return DualSVMResult(np.zeros(n), np.zeros(n), intercept, coef, ya.copy(), "optimal", 0, cert)


def _feasible(feas: float, u: Array, c: Array, tol: float) -> bool:
    """‖Vᵀu‖∞ small enough that cᵀVᵀu, the objective's error from it, is below 0.1·tol·max(1, ‖u‖∞)."""
    scale = max(1.0, float(np.max(np.abs(c)))) if c.size else 1.0
    return feas * scale <= 0.1 * tol * max(1.0, float(np.max(np.abs(u))))


class _FoldedGram(GramOperator):
    """K + ρVVᵀ, the augmented Lagrangian's kernel. With a compiled spec (``spec`` given): K's
    :class:`~sdpkern.kernels.gram.GramSpec` with the correction extended by [V, −ρV], evaluated by
    the compiled core (m flops per cached entry); without one, K's blocks plus ρV_RV_Cᵀ."""

    def __init__(self, K: GramOperator, spec: Any, V: Array, rho: float) -> None:
        super().__init__(K.n, cache_bytes=K.cache_bytes)
        self._spec, self.base, self.V, self.rho = spec, K, V, rho
        self._diag = K.diagonal() + rho * np.einsum("ij,ij->i", V, V)

    @property
    def spec(self) -> Any:
        """The extended spec (or None)."""
        return self._spec

    def _block(self, rows: NDArray[np.intp] | None, cols: NDArray[np.intp]) -> Array:
        if self._spec is not None:
            full = np.asarray(_core().eval_columns(self._spec, self.n, np.ascontiguousarray(cols, dtype=np.intp)))
            return full if rows is None else full[rows]
        Vr = self.V if rows is None else self.V[rows]
        base = self.base.columns(cols) if rows is None else self.base.block(rows, cols)
        return np.asarray(base + self.rho * (Vr @ self.V[cols].T), dtype=np.float64)


def _fold_coordinates(K: GramOperator, left: Array, V: Array) -> Iterator[Array]:
    """Candidates G for left·G = V, the caller keeping the first that checks. For K_Ξ, left =
    [ℓ, φ(·, Ξ)] with ℓ the Lagrange basis of 𝒫 on Ξ (ℓ(ξ_j) = e_j) and V ⊂ 𝒫, so V = ℓ·V[Ξ]:
    read off first, before the least-squares fit (an SVD of n × 2k)."""
    if not left.shape[1]:
        return
    if isinstance(K, ReducedGram) and left.shape[1] == 2 * K.unisolvent.shape[0]:
        yield np.vstack([V[K.unisolvent], np.zeros((K.unisolvent.shape[0], V.shape[1]))])
    yield np.asarray(np.linalg.lstsq(left, V, rcond=None)[0], dtype=np.float64)


def _fold(K: GramOperator, V: Array, rho: float) -> _FoldedGram:
    """K + ρVVᵀ as a :class:`_FoldedGram` (made afresh: a fit's operators are its own)."""
    from dataclasses import replace

    spec = K.spec
    if spec is None:
        return _FoldedGram(K, None, V, rho)
    n = K.n
    left = np.zeros((n, 0)) if spec.left is None else spec.left
    right = np.zeros((n, 0)) if spec.right is None else spec.right
    # the spec's correction is −left·rightᵀ. When V lies in range(left) (K_Ξ: V ⊂ range Q =
    # range ℓ(X)), V = left·G and ρVVᵀ = −left·(−ρVGᵀ)ᵀ joins the right factor: no extra width
    # (m flops less per kernel entry)
    for G in _fold_coordinates(K, left, V):
        if np.linalg.norm(left @ G - V) <= 1e-12 * np.sqrt(n) * max(1.0, float(np.abs(left).max()) * np.abs(G).max()):
            return _FoldedGram(K, replace(spec, right=np.ascontiguousarray(right - rho * (V @ G.T))), V, rho)
    new = replace(
        spec,
        left=np.ascontiguousarray(np.hstack([left, V])),
        right=np.ascontiguousarray(np.hstack([right, -rho * V])),
    )
    return _FoldedGram(K, new, V, rho)


def _intercept(ya: Array, alpha: Array, e: Array, upper: Array) -> float:
    """b from the KKT conditions: the mean of y_i − e_i over free α_i, else the midpoint (libsvm)."""
    g = ya - e
    free = (alpha > 0) & (alpha < upper)
    if np.any(free):
        return float(np.mean(g[free]))
    up = ((ya > 0) & (alpha < upper)) | ((ya < 0) & (alpha > 0))
    low = ((ya > 0) & (alpha > 0)) | ((ya < 0) & (alpha < upper))
    hi = float(np.min(g[low])) if np.any(low) else np.inf
    lo = float(np.max(g[up])) if np.any(up) else -np.inf
    if not np.isfinite(hi):
        return lo
    if not np.isfinite(lo):
        return hi
    return 0.5 * (lo + hi)


def _result(
    K: GramOperator,
    ya: Array,
    alpha: Array,
    e: Array,
    Dd: Array,
    upper: Array,
    Cw: Array,
    loss: str,
    cons: _Constraints,
    c_V: Array,
    viol: float,
    feas: float,
    n_iter: int,
    rounds: int,
    tol: float,
    cols0: int,
    t0: float,
) -> DualSVMResult:
    """Primal point, coefficients of U, objective values and certificate from the final state."""
    n = ya.shape[0]
    u = ya * alpha
    V = cons.V
    b = _intercept(ya, alpha, e, upper) if cons.pair else 0.0
    Ku = e - ya * Dd * alpha - V @ c_V
    f = Ku + V @ c_V + b
    quad = float(u @ Ku)
    t = np.maximum(0.0, 1.0 - ya * f)
    primal = 0.5 * quad + float(Cw @ (t if loss == "hinge" else t * t))
    dual = float(alpha.sum()) - 0.5 * quad - 0.5 * float(Dd @ (alpha * alpha))
    poly = b * np.ones(n) + V @ c_V  # the unpenalised part of f
    U = cons.U
    if U.shape[1]:
        coef = cons.coefficients(poly)
        intercept = float(np.mean(poly - U @ coef))
    else:
        coef, intercept = np.zeros(0), b
    cviol = float(np.max(np.abs(U.T @ u))) if U.shape[1] else 0.0
    if cons.pair:
        cviol = max(cviol, abs(float(u.sum())))
    ok = viol <= tol and _feasible(feas, u, c_V, tol)
    cert = {
        "kkt_violation": float(viol),
        "constraint_violation": cviol,
        "primal": primal,
        "dual": dual,
        "duality_gap": (primal - dual) / max(1.0, abs(primal)),
        "outer_rounds": float(rounds),
        "columns": float(K.columns_computed - cols0),
        "seconds": time.perf_counter() - t0,
    }
    return DualSVMResult(
        alpha=alpha,
        dual_coef=u,
        intercept=intercept,
        coef_unpenalized=coef,
        outputs=f,
        status="optimal" if ok else "iteration_limit",
        n_iter=n_iter,
        certificate=cert,
    )
