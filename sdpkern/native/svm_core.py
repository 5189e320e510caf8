"""One SMO core for every kernel SVM of sdpkern, libsvm's way: one solver, thin problem definitions.

libsvm (Chang & Lin, "LIBSVM: a library for support vector machines", ACM TIST 2(3) 2011, §4-§6)
solves every SVM it offers with one ``Solver`` for

    min_α  ½ αᵀQα + pᵀα   subject to   yᵀα = Δ,   0 ≤ α_i ≤ C_i,

(``Solver_NU`` adds eᵀα = Δ₂ for the ν-forms), and each problem type only chooses Q, p, y, Δ, the
bounds and the start. This module is that design over sdpkern's kernel interface:

* :func:`solve_qp` is the solver: the compiled SMO of :func:`sdpkern._svmcore.smo` (libsvm's
  second-order working-set selection, Fan, Chen & Lin 2005; shrinking; the gradient
  reconstructed on the set-aside variables before the final check), with Q given by a
  :class:`~sdpkern.kernels.gram.GramOperator` K as Q_st = y_s y_t K(x_{s mod n}, x_{t mod n}) + D_t[s = t]
  (libsvm's SVC_Q / ONE_CLASS_Q / SVR_Q: ε- and ν-regression double the variables over one kernel
  and one column cache; D is the squared hinge's diagonal), per-point bounds C_i (sample
  weights), a warm start, ``tol`` and ``max_iter``, and — above ``working_set`` kernel points — a
  decomposition over working sets whose SMO reads columns of the working set's length
  (Osuna, Freund & Girosi 1997; Joachims 1999).
* :func:`solve_csvc`, :func:`solve_nusvc`, :func:`solve_one_class`, :func:`solve_epsilon_svr`,
  :func:`solve_nu_svr` and :func:`solve_l2svc` are the problem definitions (libsvm's
  ``solve_c_svc`` … ``solve_nu_svr``, and the squared-hinge SVM as Q + diag(1/(2 C w_i)) with no
  upper bound). Each takes a :class:`~sdpkern.kernels.gram.GramOperator` and scikit-learn's
  parameters and returns an :class:`SVMSolution`: α, the expansion coefficients and offset of
  f(x) = Σ_i c_i k(x_i, x) + b, the objective, iterations, status and the certificate.

Stopping rule and certificate
-----------------------------
``tol`` is libsvm's ``eps``: the maximal violation of the KKT conditions, max_{I_up} −y_t∇_t −
min_{I_low} −y_t∇_t (for the ν-forms the larger of the two classes' gaps; without an equality
constraint the largest projected gradient), checked on every variable. A solution is
``"optimal"`` exactly when that violation is ≤ ``tol``; ``certificate`` carries it.

Examples
--------
>>> import numpy as np
>>> from sdpkern.kernels import Gaussian
>>> from sdpkern.kernels.gram import KernelGram
>>> X = np.array([[0.0], [1.0], [3.0], [4.0]]); y = np.array([-1.0, -1.0, 1.0, 1.0])
>>> sol = solve_csvc(KernelGram(Gaussian(gamma=0.5), X), y, C=10.0)
>>> sol.status, bool(np.all(np.sign(sol.outputs + sol.intercept) == y))
('optimal', True)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._validation import as_sample_weight, as_vector, check_integer, check_positive
from ..errors import DataError, LabelError, NotPSDError, ParameterError
from ..kernels.gram import GramOperator, _core

__all__ = [
    "QPSolution",
    "SVMSolution",
    "solve_qp",
    "solve_csvc",
    "solve_l2svc",
    "solve_nusvc",
    "solve_one_class",
    "solve_epsilon_svr",
    "solve_nu_svr",
    "RELAXATION",
    "WORKING_SET",
    "WORKING_SET_CACHE_BYTES",
]

Array = NDArray[np.float64]
Constraints = Literal["none", "one", "nu"]
Index = NDArray[np.intp]
#: ``restrict=``: a point subset's kernel (the working-set decomposition's sub-problem operator)
Restrict = Callable[[Index], GramOperator]

#: Above this many kernel points :func:`solve_qp` decomposes over working sets of about this
#: size: beyond it the support vectors' full columns no longer fit any column cache and an SMO
#: on all points recomputes them over and over.
WORKING_SET = 30_000
#: Over-relaxation of the single-coordinate steps of ``constraints="none"`` (the squared hinge
#: with a penalised offset: the hyperkernel L2-SVM; duals without an intercept): each step is this
#: times the coordinate's Newton step (``sdpkern._svmcore._coordinate_steps``). In [1, 2); 1 is
#: the plain step. docs/hyperkernel.md, "Over-relaxed coordinate steps", has the steps it saves
#: on 8 data sets and where a larger factor costs steps.
RELAXATION = 1.3
#: Column cache of a working set's SMO: 3 GiB, the columns of 13,400 support vectors of 30,000 points.
WORKING_SET_CACHE_BYTES = 3 << 30
#: Working-set rounds at most (each decreases the objective; see :func:`solve_qp`).
_WORKING_SET_ROUNDS = 100

_MODES = {"none": 0, "one": 1, "nu": 2}


@dataclass
class QPSolution:
    """What :func:`solve_qp` returns.

    Attributes
    ----------
    alpha : (l,) array
        The minimiser (0 ≤ α ≤ upper).
    grad : (l,) array
        ∇ = Qα + p at ``alpha``, on every variable.
    rho : float
        libsvm's ρ: for one equality constraint the multiplier of yᵀα = Δ (the mean of y_t∇_t over
        the free variables, else the midpoint of the interval the KKT conditions allow); for the
        ν-forms (r₁ − r₂)/2 from the two classes' levels r₁, r₂ of ∇; 0 without a constraint.
    r : float
        The ν-forms' (r₁ + r₂)/2, the multiplier of eᵀα = Δ₂ (NaN otherwise).
    objective : float
        ½αᵀQα + pᵀα.
    n_iter : int
        SMO steps (over every working-set round).
    status : str
        ``"optimal"`` (KKT violation ≤ ``tol``), ``"iteration_limit"``, or ``"objective_target"``
        (stopped at :func:`solve_qp`'s ``objective_target``: α is feasible, not optimal).
    kkt_violation : float
        The stopping quantity on every variable (module docstring).
    tol : float
    rounds : int
        Working-set rounds (1 without decomposition).
    columns : int
        Kernel columns computed by the solve (recomputations included).
    seconds : float
    start_violation : float
        The KKT violation at the start (NaN with the working sets' decomposition): with
        ``kkt_violation``, how many decades the solve's ``n_iter`` steps bought.
    """

    alpha: Array
    grad: Array
    rho: float
    r: float
    objective: float
    n_iter: int
    status: str
    kkt_violation: float
    tol: float
    rounds: int = 1
    columns: int = 0
    seconds: float = 0.0
    start_violation: float = float("nan")


@dataclass
class SVMSolution:
    """What the problem definitions (:func:`solve_csvc` …) return.

    The model is f(x) = Σ_i ``dual_coef``_i k(x_i, x) + ``intercept`` (libsvm's decision value
    Σ coef K − ρ: ``intercept`` = −ρ, scaled by 1/r for ν-SVC as libsvm and scikit-learn do).

    Attributes
    ----------
    alpha : (l,) array
        The dual variables of the problem solved (l = n, or 2n for the regressions: α then α*).
    dual_coef : (n,) array
        Expansion coefficients c (y∘α for C-SVC and L2-SVC; y∘α/r for ν-SVC; α for one-class;
        α − α* for the regressions).
    intercept : float
        b of f.
    outputs : (n,) array
        K c at the training points (the decision values there are ``outputs + intercept``).
    objective : float
        The dual objective ½αᵀQα + pᵀα of the problem solved (libsvm's ``obj``; for ν-SVC before
        libsvm's division by r²).
    n_iter : int
    status : str
        ``"optimal"``, ``"iteration_limit"`` or ``"objective_target"`` (:class:`QPSolution`).
    certificate : dict
        ``{"measure": "kkt_violation", "value": ..., "tol": ...}`` plus, for the ν-forms, ``"r"``.
    rho, r : float
        libsvm's ρ and (ν-forms) r of the problem solved (:class:`QPSolution`); the ν-SVR's ε is −r.
    qp : QPSolution
        The solve itself.
    """

    alpha: Array
    dual_coef: Array
    intercept: float
    outputs: Array
    objective: float
    n_iter: int
    status: str
    certificate: dict[str, Any] = field(default_factory=dict)
    rho: float = 0.0
    r: float = float("nan")
    qp: QPSolution | None = None


# ---------------------------------------------------------------------------------------- the solver
def _membership(y: Array, alpha: Array, upper: Array) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """I_up (y_tα_t can grow) and I_low (y_tα_t can shrink)."""
    pos = y > 0
    up = (pos & (alpha < upper)) | (~pos & (alpha > 0))
    low = (pos & (alpha > 0)) | (~pos & (alpha < upper))
    return up, low


def _violation(y: Array, alpha: Array, v: Array, upper: Array, mode: int) -> float:
    """The stopping quantity on every variable (module docstring), v = −y∘∇."""
    if mode == 0:
        grad = -y * v
        bad = np.where(grad < 0, (alpha < upper) * -grad, (alpha > 0) * grad)
        return float(np.max(bad, initial=0.0))
    up, low = _membership(y, alpha, upper)
    groups = (y > 0, y < 0) if mode == 2 else (np.ones(y.shape[0], dtype=bool),)
    worst = 0.0
    for group in groups:
        u, lo = up & group, low & group
        if np.any(u) and np.any(lo):
            worst = max(worst, float(v[u].max() - v[lo].min()))
    return worst


def _level(grad: Array, alpha: Array, upper: Array, sign: Array) -> float:
    """The level of sign∘∇ the KKT conditions fix: its mean over the free variables, else the
    midpoint of the interval the bounded ones allow (libsvm's calculate_rho). Variables of bound
    0 (weight 0) are fixed and do not count."""
    live = upper > 0
    g = sign * grad
    free = live & (alpha > 0) & (alpha < upper)
    if np.any(free):
        return float(np.mean(g[free]))
    at_up = live & (alpha >= upper)
    at_low = live & (alpha <= 0)
    pos = sign > 0
    ub_set = (at_up & ~pos) | (at_low & pos)
    lb_set = (at_up & pos) | (at_low & ~pos)
    ub = float(np.min(g[ub_set])) if np.any(ub_set) else np.inf
    lb = float(np.max(g[lb_set])) if np.any(lb_set) else -np.inf
    if not np.isfinite(ub):
        return lb if np.isfinite(lb) else 0.0
    if not np.isfinite(lb):
        return ub
    return 0.5 * (ub + lb)


def _offsets(y: Array, alpha: Array, grad: Array, upper: Array, mode: int) -> tuple[float, float]:
    """(ρ, r) of :class:`QPSolution`."""
    if mode == 0:
        return 0.0, float("nan")
    if mode == 1:
        return _level(grad, alpha, upper, y), float("nan")
    pos = y > 0
    ones = np.ones(int(pos.sum()))
    r1 = _level(grad[pos], alpha[pos], upper[pos], ones) if np.any(pos) else 0.0
    r2 = _level(grad[~pos], alpha[~pos], upper[~pos], np.ones(int((~pos).sum()))) if np.any(~pos) else 0.0
    return 0.5 * (r1 - r2), 0.5 * (r1 + r2)


def not_psd_error(K: GramOperator, points: Index, shift: Array, curv: float) -> NotPSDError:
    """The error for a kernel whose SMO step met negative curvature, with the smallest eigenvalue
    of K + diag(``shift``) on ``points`` (at most 2000 of the support) for scale."""
    S = points[:2000]
    lam_min = curv
    if S.size:
        block = K.entries(S, S)
        block[np.diag_indices_from(block)] += shift[S]
        lam_min = min(curv, float(np.linalg.eigvalsh(block)[0]))
    return NotPSDError(
        f"K is not positive semidefinite (smallest eigenvalue {lam_min:.3g} on the support vectors, "
        f"a 2 x 2 minor of curvature {curv:.3g}), so the SVM dual is not convex; repair it with "
        "sdpkern.kernels.repair_spectrum(..., method='clip'|'flip'|'shift'|'square') or use IndefiniteSVC",
        min_eigenvalue=lam_min,
    )


class SMOState:
    """The arrays one SMO solve updates in place, and libsvm's shrink-and-reconstruct protocol
    around the compiled :func:`sdpkern._svmcore.smo`.

    Not a public entry point: :func:`solve_qp` and the problem definitions are. It is exposed for
    solvers that change the problem between SMO runs while keeping α (the augmented Lagrangian of
    :mod:`sdpkern.native.dual_svm` shifts p and replaces K by K + ρVVᵀ).

    Parameters
    ----------
    K : GramOperator
    y, p, upper, D : (l,) arrays
        Q_st = y_s y_t K(s mod n, t mod n) + D_t[s = t], l = n or 2n.
    alpha : (l,) array
        A feasible start (kept and updated in place).
    constraints : {"none", "one", "nu"}
    shrinking : bool
    threads : int
        Threads for the SMO's passes over the variables and for the rows of the kernel columns it
        computes (2 at most help; the same bits for any).
    outputs : (n,) array, optional
        K u at the start (:meth:`kernel_outputs`), where the caller knows it: the start's gradient
        then takes no kernel columns.
    relaxation : float
        ``constraints="none"``: each coordinate step is this times its Newton step (:data:`RELAXATION`).
    """

    def __init__(
        self, K: GramOperator, y: Array, p: Array, upper: Array, D: Array, alpha: Array, constraints: Constraints,
        shrinking: bool = True, threads: int = 1, outputs: Array | None = None, relaxation: float = RELAXATION,
    ) -> None:  # fmt: skip
        self.K, self.y, self.p, self.upper, self.D, self.alpha = K, y, p, upper, D, alpha
        self.relaxation = relaxation
        self.mode = _MODES[constraints]
        self.shrinking = shrinking and self.mode > 0
        self.threads = threads
        self.l, self.n = y.shape[0], K.n
        self.kidx = np.arange(self.l) % self.n
        self.active = np.arange(self.l, dtype=np.intp)
        self.n_iter = 0
        self.reached = False  # the last run stopped at its objective target
        self.dropped_columns = 0  # computed by operators since replaced (:meth:`set_operator`)
        self.dropped_ahead = (0, 0)  # their columns computed ahead, and of those asked for
        self.dropped_split = 0  # their columns computed by two threads
        self.QD = np.ascontiguousarray(K.diagonal()[self.kidx] + D)
        self.v = np.empty(self.l)
        self.reconstruct(outputs)

    def kernel_outputs(self) -> Array:
        """K u on the n kernel points, u_k = Σ_{t mod n = k} y_t α_t (from the cached columns, by the
        SMO's threads)."""
        u = self.coefficients()
        return self.K.matvec(u, threads=self.threads) if np.any(u) else np.zeros(self.n)

    def coefficients(self) -> Array:
        """u of :meth:`kernel_outputs`: the expansion coefficients of Q's kernel part."""
        ya = self.y * self.alpha
        return ya if self.l == self.n else ya[: self.n] + ya[self.n :]

    def reconstruct(self, outputs: Array | None = None) -> None:
        """v = −y∘(Qα + p) on every variable (after shrinking left some stale); all active again.
        ``outputs``: K u (:meth:`kernel_outputs`) where the caller has it."""
        Ku = self.kernel_outputs() if outputs is None else outputs
        self.v[:] = -(Ku[self.kidx] + self.y * (self.D * self.alpha + self.p))
        self.active[:] = np.arange(self.l)

    def grad(self) -> Array:
        """∇ = Qα + p on every variable (current after :meth:`run`)."""
        return np.asarray(-self.y * self.v, dtype=np.float64)

    def shift(self, dp: Array) -> None:
        """p += dp (v follows exactly on every variable)."""
        self.p = self.p + dp
        self.v -= self.y * dp

    def set_operator(self, K: GramOperator, change: Array | None = None) -> None:
        """Replace K (the same points). ``change`` = (K_new − K_old) u at the n kernel points, when
        the caller knows it (a low-rank change): v then follows exactly on every variable without
        the new operator's columns; else v is recomputed from them."""
        self.dropped_columns += self.K.columns_computed
        fetched, used = self.ahead()
        self.dropped_ahead = (fetched, used)
        self.dropped_split = self.split()
        self.K = K
        self.QD = np.ascontiguousarray(K.diagonal()[self.kidx] + self.D)
        if change is None:
            self.reconstruct()
        else:
            self.v -= change[self.kidx]

    def ahead(self) -> tuple[int, int]:
        """(columns SMO computed ahead, how many of them it then asked for) over this solve's
        operators (``sdpkern._svmcore.ahead``)."""
        cache = self.K._cache_obj
        fetched, used = self.dropped_ahead
        if cache is None:
            return fetched, used
        return fetched + int(cache.ahead_fetched), used + int(cache.ahead_used)

    def split(self) -> int:
        """Columns whose rows two threads computed (``threads`` ≥ 2 and columns worth the
        hand-over: ``sdpkern._svmcore``'s SPLIT_WORK) over this solve's operators."""
        cache = self.K._cache_obj
        return self.dropped_split + (0 if cache is None else int(cache.split_columns))

    def violation(self) -> float:
        """The stopping quantity on every variable (module docstring)."""
        return _violation(self.y, self.alpha, self.v, self.upper, self.mode)

    def objective(self) -> float:
        """½αᵀQα + pᵀα = ½αᵀ(∇ + p) (v current on every variable, as between runs)."""
        return 0.5 * float(self.alpha @ (self.grad() + self.p))

    def run(self, tol: float, budget: int, target: float | None = None) -> float:
        """SMO to ``tol`` (at most ``budget`` steps); returns the violation on every variable.

        libsvm's protocol: with shrinking, a first pass to 10·tol, v reconstructed on the
        set-aside variables, then passes to tol until every variable satisfies it. With a
        ``target`` (modes 1-2) it also stops once the objective is at or below it, ``reached``
        then True: a caller that only needs to know the optimum is below a level (the
        hyperkernel master's trial points) does not pay for the rest of the solve."""
        core = _core()
        stage = 10.0 * tol if self.shrinking else tol
        done, viol = 0, np.inf
        level = -np.inf if target is None or self.mode == 0 else float(target)
        track = level > -np.inf
        f = self.objective() if track else 0.0
        self.reached = False
        while done < budget:
            if track and f <= level:
                self.reached = True
                break
            it, viol, na, curv, df = core.smo(
                self.K.cache, self.n, self.y, self.alpha, self.v, self.upper, self.D, self.QD, self.mode, stage,
                budget - done, self.active, self.l, self.shrinking, level - f if track else -np.inf, self.threads,
                self.relaxation,
            )  # fmt: skip
            done += int(it)
            f += df
            scale = float(np.max(np.abs(self.QD))) if self.QD.size else 1.0
            if curv < -1e-10 * max(scale, 1e-300):
                raise not_psd_error(self.K, np.unique(self.kidx[self.alpha > 0]), self.D[: self.n], float(curv))
            if na < self.l:
                self.reconstruct()
                viol = self.violation()
            if track and f <= level:
                self.reached = True
                break
            if viol <= stage and stage > tol:
                stage = tol
                continue
            if viol <= tol or int(it) == 0 and na == self.l:
                break
        self.n_iter += done
        return float(viol)


def _check_qp(K: GramOperator, y: ArrayLike, p: ArrayLike, upper: ArrayLike, D: ArrayLike | None,
              alpha0: ArrayLike) -> tuple[Array, Array, Array, Array, Array]:  # fmt: skip
    if not isinstance(K, GramOperator):
        raise ParameterError(f"K must be a GramOperator (sdpkern.kernels.gram), got {type(K).__name__}")
    ya = as_vector(y, "y")
    l = ya.shape[0]
    if l not in (K.n, 2 * K.n):
        raise DataError(f"y must have n = {K.n} or 2n entries (one or two variables per kernel point), got {l}")
    if not np.all(np.isin(ya, (-1.0, 1.0))):
        raise LabelError(f"y must be coded -1/+1, got values {np.unique(ya)[:5].tolist()}")
    pa = as_vector(p, "p", length=l)
    ua = np.array(np.broadcast_to(np.asarray(upper, dtype=np.float64), (l,)))
    if np.any(np.isnan(ua)) or np.any(ua < 0):
        raise DataError("upper must be non-negative (the box 0 ≤ α ≤ upper)")
    Da = np.zeros(l) if D is None else np.array(np.broadcast_to(np.asarray(D, dtype=np.float64), (l,)))
    if not np.all(np.isfinite(Da)) or np.any(Da < 0):
        raise DataError("D must be finite and non-negative")
    a = as_vector(alpha0, "alpha0", length=l).copy()
    if np.any(a < 0) or np.any(a > ua):
        raise DataError("alpha0 must lie in the box 0 ≤ alpha0 ≤ upper (a feasible start)")
    return np.ascontiguousarray(ya), pa, ua, np.ascontiguousarray(Da), np.ascontiguousarray(a)


def _max_iter(max_iter: int | None, l: int) -> int:
    if max_iter is None:
        return max(10_000_000, 100 * l)
    return check_integer(max_iter, "max_iter", 1)


def solve_qp(
    K: GramOperator,
    y: ArrayLike,
    p: ArrayLike,
    upper: ArrayLike,
    alpha0: ArrayLike,
    *,
    D: ArrayLike | None = None,
    constraints: Constraints = "one",
    tol: float = 1e-3,
    max_iter: int | None = None,
    shrinking: bool = True,
    working_set: int | None = WORKING_SET,
    restrict: Restrict | None = None,
    n_jobs: int = 1,
    objective_target: float | None = None,
    outputs0: ArrayLike | None = None,
    relaxation: float = RELAXATION,
) -> QPSolution:
    """min ½αᵀQα + pᵀα  s.t. 0 ≤ α ≤ upper and the equality constraints, by SMO (module docstring).

    Chang & Lin (2011) §4-§6 (libsvm's Solver and Solver_NU); Fan, Chen & Lin (2005) for the
    working-set selection.

    Parameters
    ----------
    K : GramOperator
        The kernel on n points; Q_st = y_s y_t K(s mod n, t mod n) + D_t[s = t].
    y : (l,) array of ±1
        l = n, or 2n (two variables per point: α_t and α_{t+n}, as the regressions).
    p : (l,) array
    upper : float or (l,) array
        The box's upper bounds (``numpy.inf`` for none; 0 pins a variable at 0).
    alpha0 : (l,) array
        A feasible start: inside the box; the equality constraints' right-hand sides are its own
        (Δ = yᵀα₀, Δ₂ = eᵀα₀).
    D : float or (l,) array, optional
        Extra diagonal of Q (≥ 0).
    constraints : {"one", "nu", "none"}, default="one"
        ``"one"``: yᵀα = Δ (libsvm's Solver); ``"nu"``: yᵀα = Δ and eᵀα = Δ₂ (Solver_NU: each
        step moves two variables of one class); ``"none"``: no equality (single-coordinate steps).
    tol : float, default=1e-3
        libsvm's ``eps`` (module docstring).
    max_iter : int, optional
        Cap on SMO steps (default max(10⁷, 100 l)).
    shrinking : bool, default=True
    working_set : int or None, default=WORKING_SET
        Above this many kernel points, decompose over working sets of about this many points
        (``None``: never). The variables outside a working set stay at 0, so a working set holds
        every point with a non-zero α; the next one adds the points of α = 0 that violate the KKT
        conditions most (against the level ρ of the free variables). Every round decreases the
        objective; the stopping rule is unchanged (checked on every variable).
    restrict : callable, optional
        ``restrict(W)`` returns K on the points W (sorted indices) as a GramOperator with its own
        column cache; default ``K.subset(W, cache_bytes=WORKING_SET_CACHE_BYTES)``.
    n_jobs : int, default=1
        Threads for the outputs of the points outside a working set (``K.block_product``) and, from
        2, a second thread for the SMO's passes over the variables (the same bits as one thread).
    objective_target : float, optional
        Stop, with status ``"objective_target"``, once the objective is at or below this value
        (with one or two equality constraints): the minimum is then known to be below it, and α
        is a feasible point that shows it.
    outputs0 : (n,) array, optional
        K u at ``alpha0`` (u_k = Σ_{t mod n = k} y_t α_t), where the caller knows it (a warm start
        from an earlier solve, or from a linear system it solved): the start's gradient then
        takes no pass over the kernel columns. Not used with the working-set decomposition.
    relaxation : float, default=RELAXATION
        ``constraints="none"``: each single-coordinate step is this times the coordinate's Newton
        step, clipped to the box (successive over-relaxation; Mangasarian & Musicant, IEEE TNN
        10(5), 1999). In [1, 2); 1 is the plain step. The optimum and the stopping rule do not
        depend on it, only the number of steps.

    Returns
    -------
    QPSolution
    """
    t0 = time.perf_counter()
    ya, pa, ua, Da, a = _check_qp(K, y, p, upper, D, alpha0)
    Ku0 = None if outputs0 is None else as_vector(outputs0, "outputs0", length=K.n)
    if constraints not in _MODES:
        raise ParameterError(f"constraints must be 'one', 'nu' or 'none', got {constraints!r}")
    tol = check_positive(tol, "tol")
    if not 1.0 <= relaxation < 2.0:
        raise ParameterError(f"relaxation must lie in [1, 2), got {relaxation!r}")
    budget = _max_iter(max_iter, ya.shape[0])
    n_jobs = check_integer(n_jobs, "n_jobs", 1)
    if working_set is not None:
        working_set = check_integer(working_set, "working_set", 2)
    cols0 = K.columns_computed
    start = float("nan")
    if working_set is not None and K.n > working_set:
        alpha, grad, n_iter, rounds, reached = _decompose(
            K, ya, pa, ua, Da, a, constraints, tol, budget, bool(shrinking), working_set, restrict, n_jobs,
            objective_target, relaxation,
        )  # fmt: skip
        viol = _violation(ya, alpha, -ya * grad, ua, _MODES[constraints])
        columns = 0
    else:
        st = SMOState(K, ya, pa, ua, Da, a, constraints, bool(shrinking), n_jobs, Ku0, relaxation)
        start = st.violation()
        viol = st.run(tol, budget, objective_target)
        alpha, grad, n_iter, rounds, reached = st.alpha, st.grad(), st.n_iter, 1, st.reached
        columns = K.columns_computed - cols0
    rho, r = _offsets(ya, alpha, grad, ua, _MODES[constraints])
    status = "optimal" if viol <= tol else "objective_target" if reached else "iteration_limit"
    return QPSolution(
        alpha=alpha, grad=grad, rho=rho, r=r, objective=0.5 * float(alpha @ (grad + pa)), n_iter=int(n_iter),
        status=status, kkt_violation=float(viol), tol=tol, rounds=rounds, columns=int(columns),
        seconds=time.perf_counter() - t0, start_violation=start,
    )  # fmt: skip


def _decompose(
    K: GramOperator, y: Array, p: Array, upper: Array, D: Array, alpha: Array, constraints: Constraints, tol: float,
    budget: int, shrinking: bool, ws: int, restrict: Restrict | None, n_jobs: int, target: float | None = None,
    relaxation: float = RELAXATION,
) -> tuple[Array, Array, int, int, bool]:  # fmt: skip
    """:func:`solve_qp`'s working-set decomposition; returns (α, ∇, SMO steps, rounds, whether the
    objective reached ``target``: a working set's problem is the whole one restricted, so its
    objective is the whole one's)."""
    n, l = K.n, y.shape[0]
    kidx = np.arange(l) % n
    sub = restrict if restrict is not None else (lambda W: K.subset(W, cache_bytes=WORKING_SET_CACHE_BYTES))
    mode = _MODES[constraints]

    def point_u(a: Array) -> Array:
        ya = y * a
        return ya if l == n else ya[:n] + ya[n:]

    u = point_u(alpha)
    nz = np.flatnonzero(u)
    Ku = K.block_product(np.arange(n), nz, u[nz], n_jobs=n_jobs) if nz.size else np.zeros(n)
    grad = y * Ku[kidx] + D * alpha + p
    support = np.flatnonzero(np.bincount(kidx, weights=alpha, minlength=n) > 0)
    if support.size:
        W = _next_working_set(y, alpha, grad, upper, kidx, n, ws, mode)
    else:
        W = np.sort(np.random.default_rng(0).choice(n, size=ws, replace=False))
    done, rounds = 0, 0
    while rounds < _WORKING_SET_ROUNDS:
        rounds += 1
        var = W if l == n else np.concatenate([W, W + n])
        # the variables outside W are 0, so the problem on W is the whole problem restricted
        st = SMOState(
            sub(W), y[var], p[var], upper[var], D[var], alpha[var].copy(), constraints, shrinking, n_jobs,
            relaxation=relaxation,
        )  # fmt: skip
        st.run(tol, max(1, budget - done), target)
        done += st.n_iter
        du = point_u(_scatter(st.alpha, var, l)) - u
        alpha[var] = st.alpha
        u = u + du
        outside = np.setdiff1d(np.arange(n), W, assume_unique=True)
        moved = np.flatnonzero(du)
        Ku_W = st.kernel_outputs()
        Ku[W] = Ku_W
        if moved.size and outside.size:
            Ku[outside] += K.block_product(outside, moved, du[moved], n_jobs=n_jobs)
        grad = y * Ku[kidx] + D * alpha + p
        if st.reached or _violation(y, alpha, -y * grad, upper, mode) <= tol or done >= budget:
            break
        W = _next_working_set(y, alpha, grad, upper, kidx, n, ws, mode)
    return alpha, grad, done, rounds, st.reached


def _scatter(values: Array, var: Index, l: int) -> Array:
    out = np.zeros(l)
    out[var] = values
    return out


def _next_working_set(
    y: Array, alpha: Array, grad: Array, upper: Array, kidx: Index, n: int, ws: int, mode: int
) -> Index:
    """The points with a non-zero α and the points of α = 0 whose variables violate the KKT
    conditions most, ``ws`` in all (at least ``ws``/4 of α = 0 when the support is large), sorted.

    A variable at 0 in I_up violates by v_t − ρ_g, one in I_low by ρ_g − v_t, with v = −y∘∇ and
    ρ_g the level of the free variables of its group (:func:`_level`)."""
    v = -y * grad
    groups = [y > 0, y < 0] if mode == 2 else [np.ones(y.shape[0], dtype=bool)]
    score = np.full(y.shape[0], -np.inf)
    up, low = _membership(y, alpha, upper)
    zero = alpha <= 0
    for g in groups:
        ref = -_level(grad[g], alpha[g], upper[g], y[g])  # the v level of the free variables
        score[g & zero & up] = (v - ref)[g & zero & up]
        score[g & zero & low & ~up] = (ref - v)[g & zero & low & ~up]
    point_score = np.full(n, -np.inf)
    np.maximum.at(point_score, kidx, score)
    support = np.flatnonzero(np.bincount(kidx, weights=alpha, minlength=n) > 0)
    rest = np.setdiff1d(np.arange(n), support, assume_unique=True)
    take = rest[np.argsort(-point_score[rest], kind="stable")[: max(ws - support.size, ws // 4)]]
    return np.sort(np.concatenate([support, take]))


# ------------------------------------------------------------------------------- problem definitions
def _check_common(K: GramOperator, tol: float, max_iter: int | None) -> None:
    if not isinstance(K, GramOperator):
        raise ParameterError(f"K must be a GramOperator (sdpkern.kernels.gram), got {type(K).__name__}")
    check_positive(tol, "tol")
    if max_iter is not None:
        check_integer(max_iter, "max_iter", 1)


def _labels(K: GramOperator, y: ArrayLike, tol: float, max_iter: int | None) -> Array:
    _check_common(K, tol, max_iter)
    ya = as_vector(y, "y", length=K.n)
    vals = np.unique(ya)
    if not np.all(np.isin(vals, (-1.0, 1.0))):
        raise LabelError(f"y must be coded -1/+1, got values {vals[:5].tolist()}")
    if vals.shape[0] < 2:
        raise LabelError(f"y must contain two classes, got only {vals.tolist()}")
    return np.ascontiguousarray(ya)


def _weights(sample_weight: ArrayLike | None, n: int, y: Array | None = None) -> Array:
    w = as_sample_weight(sample_weight, n)
    w = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    if y is not None and not (np.any(w[y > 0] > 0) and np.any(w[y < 0] > 0)):
        raise LabelError("sample_weight is zero on every point of one class: a classifier needs two classes")
    return w


def _nu(nu: float) -> float:
    if isinstance(nu, bool) or not isinstance(nu, (int, float, np.integer, np.floating)) or not 0.0 < float(nu) <= 1.0:
        raise ParameterError(f"nu must be a number in (0, 1], got {nu!r}")
    return float(nu)


def _regression(
    K: GramOperator, z: ArrayLike, C: float, sample_weight: ArrayLike | None, tol: float, max_iter: int | None,
) -> tuple[Array, Array, Array]:  # fmt: skip
    """The regressions' targets z, the 2n labels (+1 for α, −1 for α*) and bounds C w (twice)."""
    _check_common(K, tol, max_iter)
    za = np.ascontiguousarray(as_vector(z, "z", length=K.n))
    upper = check_positive(C, "C") * _weights(sample_weight, K.n)
    return za, np.concatenate([np.ones(K.n), -np.ones(K.n)]), np.concatenate([upper, upper])


def _fill(total: float, caps: Array) -> Array:
    """libsvm's ν start: caps filled in order until they hold ``total``."""
    csum = np.cumsum(caps)
    return np.clip(total - (csum - caps), 0.0, caps)


def _feasible(alpha0: ArrayLike, upper: Array, y: Array, totals: tuple[float | None, float | None] | float) -> Array:
    """A warm start made feasible: clipped to the box, then each class' sum moved to its target
    (scaled down, or raised towards the bounds in proportion to the room left). ``totals``: the
    two class sums (ν-forms) or Δ = yᵀα (the classes' sums lowered to the smaller that fits)."""
    a = np.clip(as_vector(alpha0, "alpha0", length=y.shape[0]), 0.0, upper)
    pos = y > 0
    s_pos, s_neg = float(a[pos].sum()), float(a[~pos].sum())
    if isinstance(totals, tuple):
        t_pos, t_neg = totals
    else:
        delta = float(totals)
        common = max(0.0, min(s_pos - max(delta, 0.0), s_neg - max(-delta, 0.0)))
        t_pos, t_neg = max(delta, 0.0) + common, max(-delta, 0.0) + common
    for mask, s, t in ((pos, s_pos, t_pos), (~pos, s_neg, t_neg)):
        # a sum off by round-off is left as it is: the core keeps the start's own sums, and moving
        # every variable by an ulp would make the ones at 0 free
        if t is None or abs(s - t) <= 1e-12 * max(1.0, abs(t)):
            continue
        if s > 0:  # scaled first (the variables at 0 stay there), within the bounds
            a[mask] = np.minimum(a[mask] * (t / s), upper[mask])
            s = float(a[mask].sum())
        if s < t:
            room = np.where(np.isfinite(upper[mask]), upper[mask] - a[mask], 0.0)
            if float(room.sum()) < t - s:
                raise DataError("alpha0 cannot be made feasible: the bounds hold less than the constraint needs")
            a[mask] += room * ((t - s) / float(room.sum()))
    return np.clip(a, 0.0, upper)


#: The problem definitions' solver options, in order: tol, max_iter, shrinking, working_set, restrict, n_jobs
Options = tuple[float, int | None, bool, int | None, Restrict | None, int]


def _run(
    K: GramOperator, y: Array, p: Array, upper: Array, a0: Array, D: Array | None, constraints: Constraints,
    options: Options, objective_target: float | None = None, outputs0: ArrayLike | None = None,
) -> tuple[QPSolution, Array]:  # fmt: skip
    """:func:`solve_qp` with the problem definitions' options (tol, max_iter, shrinking,
    working_set, restrict, n_jobs), and K u at the n kernel points (u the expansion coefficients of
    Q's kernel part) read off the gradient, ∇_t = y_t (Ku)_t + D_tα_t + p_t for t < n: no matvec."""
    tol, max_iter, shrinking, working_set, restrict, n_jobs = options
    qp = solve_qp(
        K, y, p, upper, a0, D=D, constraints=constraints, tol=tol, max_iter=max_iter, shrinking=shrinking,
        working_set=working_set, restrict=restrict, n_jobs=n_jobs, objective_target=objective_target,
        outputs0=outputs0,
    )  # fmt: skip
    diag = 0.0 if D is None else D
    return qp, np.asarray((y * (qp.grad - diag * qp.alpha - p))[: K.n], dtype=np.float64)


def _solution(
    qp: QPSolution, coef: Array, intercept: float, outputs: Array, extra: dict[str, Any] | None = None
) -> SVMSolution:
    cert = {"measure": "kkt_violation", "value": qp.kkt_violation, "tol": qp.tol}
    cert |= extra or {}
    return SVMSolution(
        alpha=qp.alpha, dual_coef=coef, intercept=float(intercept), outputs=outputs, objective=qp.objective,
        n_iter=qp.n_iter, status=qp.status, certificate=cert, rho=qp.rho, r=qp.r, qp=qp,
    )  # fmt: skip


def _c_form(
    K: GramOperator, y: ArrayLike, C: float, sample_weight: ArrayLike | None, alpha0: ArrayLike | None,
    squared: bool, options: Options, objective_target: float | None = None,
) -> SVMSolution:  # fmt: skip
    """C-SVC (0 ≤ α ≤ C w) or, ``squared``, L2-SVC (α ≥ 0, D = 1/(2 C w); weight-0 points pinned at 0)."""
    ya = _labels(K, y, options[0], options[1])
    C = check_positive(C, "C")
    w = _weights(sample_weight, K.n, ya)
    D = None
    if squared:
        live = w > 0
        upper = np.where(live, np.inf, 0.0)
        D = np.where(live, 0.5 / (C * np.where(live, w, 1.0)), 0.0)
    else:
        upper = C * w
    a0 = np.zeros(K.n) if alpha0 is None else _feasible(alpha0, upper, ya, 0.0)
    qp, Ku = _run(K, ya, -np.ones(K.n), upper, a0, D, "one", options, objective_target)
    return _solution(qp, ya * qp.alpha, -qp.rho, Ku)


def solve_csvc(
    K: GramOperator, y: ArrayLike, C: float, *, sample_weight: ArrayLike | None = None, tol: float = 1e-3,
    max_iter: int | None = None, alpha0: ArrayLike | None = None, shrinking: bool = True,
    working_set: int | None = WORKING_SET, restrict: Restrict | None = None, n_jobs: int = 1,
    objective_target: float | None = None,
) -> SVMSolution:
    """C-SVC: min ½αᵀYKYα − eᵀα  s.t. yᵀα = 0, 0 ≤ α_i ≤ C w_i (libsvm's ``solve_c_svc``).

    The dual of ½‖f‖² + C Σ_i w_i max(0, 1 − y_i f(x_i)), f = Σ c_i k(x_i, ·) + b (Chang & Lin 2011,
    eq. 1-2; scikit-learn's ``SVC``).

    Parameters
    ----------
    K : GramOperator
        The kernel on the n training points.
    y : (n,) array of ±1
    C : float
        scikit-learn's C > 0.
    sample_weight : (n,) array, optional
        Per-point weights w (C_i = C w_i; a weight-2 point is a repeated point).
    tol, max_iter, shrinking, working_set, restrict, n_jobs, objective_target
        As :func:`solve_qp`.
    alpha0 : (n,) array, optional
        Warm start (clipped to the box, the classes' sums made equal).

    Returns
    -------
    SVMSolution
        ``dual_coef`` = y∘α, ``intercept`` = −ρ.
    """
    options = (tol, max_iter, shrinking, working_set, restrict, n_jobs)
    return _c_form(K, y, C, sample_weight, alpha0, False, options, objective_target)


def solve_l2svc(
    K: GramOperator, y: ArrayLike, C: float, *, sample_weight: ArrayLike | None = None, tol: float = 1e-3,
    max_iter: int | None = None, alpha0: ArrayLike | None = None, shrinking: bool = True,
    working_set: int | None = WORKING_SET, restrict: Restrict | None = None, n_jobs: int = 1,
) -> SVMSolution:
    """L2-SVC (squared hinge): min ½αᵀ(YKY + diag(1/(2C w_i)))α − eᵀα  s.t. yᵀα = 0, α ≥ 0.

    The dual of ½‖f‖² + C Σ_i w_i max(0, 1 − y_i f(x_i))² (scikit-learn's
    ``LinearSVC(loss="squared_hinge")`` convention, docs/conventions.md; 004, Chapelle 2007;
    002 eq. (3.10) with its C' = 2C): the hinge dual on K + diag(1/(2 C w_i)) with no upper bound.
    Points of weight 0 are pinned at α = 0. At the optimum ξ_i = α_i / (2 C w_i).

    Parameters
    ----------
    K, y, C, sample_weight, tol, max_iter, alpha0, shrinking, working_set, restrict, n_jobs
        As :func:`solve_csvc`.

    Returns
    -------
    SVMSolution
        ``dual_coef`` = y∘α, ``intercept`` = −ρ.
    """
    options = (tol, max_iter, shrinking, working_set, restrict, n_jobs)
    return _c_form(K, y, C, sample_weight, alpha0, True, options)


def solve_nusvc(
    K: GramOperator, y: ArrayLike, nu: float, *, sample_weight: ArrayLike | None = None, tol: float = 1e-3,
    max_iter: int | None = None, alpha0: ArrayLike | None = None, shrinking: bool = True,
    working_set: int | None = WORKING_SET, restrict: Restrict | None = None, n_jobs: int = 1,
) -> SVMSolution:
    """ν-SVC: min ½αᵀYKYα  s.t. yᵀα = 0, eᵀα = ν Σ w_i, 0 ≤ α_i ≤ w_i (libsvm's ``solve_nu_svc``).

    Schölkopf et al. (2000) in libsvm's scaling (Chang & Lin 2011, eq. 5-7; scikit-learn's
    ``NuSVC``, whose weighted form bounds α_i by w_i). The model is libsvm's: with r the multiplier
    of eᵀα, ``dual_coef`` = y∘α/r and ``intercept`` = −ρ/r (the C-SVC with C = 1/r has this solution).

    Parameters
    ----------
    K : GramOperator
    y : (n,) array of ±1
    nu : float
        ν ∈ (0, 1]; feasible when ν Σw/2 ≤ the weight of each class (ν ≤ 2 min(W₊, W₋)/W).
    sample_weight, tol, max_iter, shrinking, working_set, restrict, n_jobs
        As :func:`solve_csvc`.
    alpha0 : (n,) array, optional
        Warm start (clipped to the box, each class' sum moved to ν Σw / 2).

    Returns
    -------
    SVMSolution
        ``alpha`` the ν-problem's, ``rho``/``r`` its multipliers, ``certificate["r"]`` = r.

    Raises
    ------
    ParameterError
        ν outside (0, 1] or above the feasible bound 2 min(W₊, W₋)/W.
    """
    ya = _labels(K, y, tol, max_iter)
    n = K.n
    nu = _nu(nu)
    w = _weights(sample_weight, n, ya)
    total = nu * float(w.sum())
    pos = ya > 0
    w_pos, w_neg = float(w[pos].sum()), float(w[~pos].sum())
    feasible = 2.0 * min(w_pos, w_neg) / float(w.sum())
    if nu > feasible * (1.0 + 1e-12):
        raise ParameterError(
            f"nu={nu!r} is infeasible for the class balance: ν-SVC needs nu <= 2 min(W+, W-) / W = {feasible:.6g} "
            "(W± the weight of each class)"
        )
    if alpha0 is None:
        a0 = np.zeros(n)
        a0[pos] = _fill(0.5 * total, w[pos])
        a0[~pos] = _fill(0.5 * total, w[~pos])
    else:
        a0 = _feasible(alpha0, w, ya, (0.5 * total, 0.5 * total))
    options = (tol, max_iter, shrinking, working_set, restrict, n_jobs)
    qp, Ku = _run(K, ya, np.zeros(n), w, a0, None, "nu", options)
    r = qp.r if qp.r > 0 else 1.0  # (r ≤ 0: a degenerate problem; the unscaled model is kept)
    return _solution(qp, ya * qp.alpha / r, -qp.rho / r, Ku / r, {"r": qp.r})


def solve_one_class(
    K: GramOperator, nu: float, *, sample_weight: ArrayLike | None = None, tol: float = 1e-3,
    max_iter: int | None = None, alpha0: ArrayLike | None = None, shrinking: bool = True,
    working_set: int | None = WORKING_SET, restrict: Restrict | None = None, n_jobs: int = 1,
) -> SVMSolution:
    """One-class SVM: min ½αᵀKα  s.t. eᵀα = ν Σ w_i, 0 ≤ α_i ≤ w_i (libsvm's ``solve_one_class``).

    Schölkopf et al. (2001) in libsvm's scaling (Chang & Lin 2011, eq. 8; scikit-learn's
    ``OneClassSVM``). f(x) = Σ α_i k(x_i, x) − ρ is positive on the inliers.

    Parameters
    ----------
    K : GramOperator
    nu : float
        ν ∈ (0, 1].
    sample_weight, tol, max_iter, shrinking, working_set, restrict, n_jobs
        As :func:`solve_csvc`.
    alpha0 : (n,) array, optional
        Warm start (clipped to the box, its sum moved to ν Σw).

    Returns
    -------
    SVMSolution
        ``dual_coef`` = α, ``intercept`` = −ρ (scikit-learn's ``offset_`` is ρ).
    """
    _check_common(K, tol, max_iter)
    w = _weights(sample_weight, K.n)
    total = _nu(nu) * float(w.sum())
    ones = np.ones(K.n)
    a0 = _fill(total, w) if alpha0 is None else _feasible(alpha0, w, ones, (total, None))
    options = (tol, max_iter, shrinking, working_set, restrict, n_jobs)
    qp, Ku = _run(K, ones, np.zeros(K.n), w, a0, None, "one", options)
    return _solution(qp, qp.alpha.copy(), -qp.rho, Ku)


def solve_epsilon_svr(
    K: GramOperator, z: ArrayLike, C: float, epsilon: float = 0.1, *, sample_weight: ArrayLike | None = None,
    tol: float = 1e-3, max_iter: int | None = None, alpha0: ArrayLike | None = None, shrinking: bool = True,
    working_set: int | None = WORKING_SET, restrict: Restrict | None = None, n_jobs: int = 1,
) -> SVMSolution:
    """ε-SVR: min ½(α − α*)ᵀK(α − α*) + ε Σ(α + α*) − zᵀ(α − α*)  s.t. Σ(α − α*) = 0,
    0 ≤ α_i, α*_i ≤ C w_i (libsvm's ``solve_epsilon_svr``: 2n variables over one kernel cache).

    Vapnik's ε-insensitive regression (Chang & Lin 2011, eq. 9-10; scikit-learn's ``SVR``).

    Parameters
    ----------
    K : GramOperator
    z : (n,) array
        Regression targets.
    C : float
    epsilon : float, default=0.1
        Width of the insensitive tube (≥ 0).
    sample_weight, tol, max_iter, shrinking, working_set, restrict, n_jobs
        As :func:`solve_csvc` (``working_set`` counts kernel points).
    alpha0 : (2n,) array, optional
        Warm start (α then α*).

    Returns
    -------
    SVMSolution
        ``alpha`` = (α, α*), ``dual_coef`` = α − α*, ``intercept`` = −ρ.
    """
    za, y2, upper = _regression(K, z, C, sample_weight, tol, max_iter)
    eps = check_positive(epsilon, "epsilon", allow_zero=True)
    p = np.concatenate([eps - za, eps + za])
    a0 = np.zeros(2 * K.n) if alpha0 is None else _feasible(alpha0, upper, y2, 0.0)
    options = (tol, max_iter, shrinking, working_set, restrict, n_jobs)
    qp, Ku = _run(K, y2, p, upper, a0, None, "one", options)
    return _solution(qp, qp.alpha[: K.n] - qp.alpha[K.n :], -qp.rho, Ku)


def solve_nu_svr(
    K: GramOperator, z: ArrayLike, C: float, nu: float = 0.5, *, sample_weight: ArrayLike | None = None,
    tol: float = 1e-3, max_iter: int | None = None, alpha0: ArrayLike | None = None, shrinking: bool = True,
    working_set: int | None = WORKING_SET, restrict: Restrict | None = None, n_jobs: int = 1,
    outputs0: ArrayLike | None = None,
) -> SVMSolution:
    """ν-SVR: min ½(α − α*)ᵀK(α − α*) − zᵀ(α − α*)  s.t. Σ(α − α*) = 0, Σ(α + α*) = C ν Σ w_i,
    0 ≤ α_i, α*_i ≤ C w_i (libsvm's ``solve_nu_svr``; the tube width ε = −r comes out).

    Schölkopf et al. (2000) in libsvm's scaling (Chang & Lin 2011, eq. 11; scikit-learn's ``NuSVR``).

    Parameters
    ----------
    K, z, C
        As :func:`solve_epsilon_svr`.
    nu : float, default=0.5
        ν ∈ (0, 1].
    sample_weight, tol, max_iter, shrinking, working_set, restrict, n_jobs
        As :func:`solve_csvc` (``working_set`` counts kernel points).
    alpha0 : (2n,) array, optional
        Warm start (α then α*; each half's sum moved to C ν Σw / 2).
    outputs0 : (n,) array, optional
        K(α − α*) at ``alpha0`` (:func:`solve_qp`), used where making the start feasible left
        α − α* as it was.

    Returns
    -------
    SVMSolution
        ``alpha`` = (α, α*), ``dual_coef`` = α − α*, ``intercept`` = −ρ, ``certificate["epsilon"]`` = −r.
    """
    za, y2, upper = _regression(K, z, C, sample_weight, tol, max_iter)
    half = 0.5 * _nu(nu) * float(upper[: K.n].sum())
    if alpha0 is None:
        a0 = np.tile(_fill(half, upper[: K.n]), 2)
    else:
        a0 = _feasible(alpha0, upper, y2, (half, half))
        given = np.asarray(alpha0, dtype=np.float64)
        if outputs0 is not None and not np.array_equal(a0[: K.n] - a0[K.n :], given[: K.n] - given[K.n :]):
            outputs0 = None  # the start moved: its outputs are not the given ones
    options = (tol, max_iter, shrinking, working_set, restrict, n_jobs)
    qp, Ku = _run(K, y2, np.concatenate([-za, za]), upper, a0, None, "nu", options, outputs0=outputs0)
    return _solution(qp, qp.alpha[: K.n] - qp.alpha[K.n :], -qp.rho, Ku, {"epsilon": -qp.r})
