"""scikit-learn classifiers with conditionally positive definite kernels (000 §6, §7).

:class:`CPDSVC` fits the squared-hinge SVM of 000 eq. (14) over F_φ ⊕ 𝒫 (or its β = 0 variant,
000 §6.2) with a native Newton solver (the reduced p.d. problem of
:mod:`sdpkern.native.cpd_reduced`, or 000 Algorithm 1 as printed) or through CVXPY.
:class:`ThinPlateSVC` is the same with the thin-plate kernel named by its order: the
classifier of 000 §7 with a single hyper-parameter, C = 1/(2λ) (docs/conventions.md).
"""

from __future__ import annotations

import hashlib
import threading
import warnings
from contextlib import nullcontext
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import linprog
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from .._validation import DEPRECATED, Interval, Options, take_deprecated, validate_data
from ..errors import ParameterError
from ..kernels.base import Kernel
from ..kernels.cpd import PolynomialFactor, ThinPlate, cpd_decision, polynomial_factor
from ..kernels.gram import KernelGram, PrecomputedGram, ReducedGram, reduced_gram
from ..native.cpd_newton import cpd_beta_zero_svm, cpd_primal_svm
from ..native.cpd_reduced import cpd_primal_svm_reduced, remember_solution, warm_start_known
from ..native.dual_svm import _one_blas_thread, cpd_dual_svm
from ._base import KernelClassifierMixin, SdpkernEstimator, deprecated_attribute, squared_hinge_stationarity

__all__ = ["CPDSVC", "ThinPlateSVC", "polynomially_separable", "polynomial_separator"]

Array = NDArray[np.float64]


def polynomially_separable(P: Array, y: Array) -> bool:
    """Whether some p ∈ 𝒫 separates the classes: ∃β with y_i (Pβ)_i ≥ 1 for all i (an LP).

    For the thin-plate kernel of order 2 this is linear separability, the test 000 §7 uses to
    choose the β = 0 variant. An empty polynomial space separates nothing.
    """
    return polynomial_separator(P, y) is not None


#: The last few (P, y) -> separator answers: a grid search over C fits the same fold once per C
#: value, and the LP is a deterministic function of (P, y) (twonorm folds: 57 LPs per 40 fits,
#: a third of the grid's time, before).
_SEPARATORS: dict[bytes, Array | None] = {}


def polynomial_separator(P: Array, y: Array) -> Array | None:
    """A β with y_i (Pβ)_i ≥ 1 for all i (scaled so that the smallest margin is 1), or None.

    The decision of :func:`polynomially_separable`; the separator serves the β-free fit on
    separable data (000 §6.2: α = 0 and any separating p minimise eq. 14). Answers for the last
    16 distinct (P, y) are kept (keyed by a hash of their bytes).
    """
    return _remembered_separator(P, y, None)


def _remembered_separator(P: Array, y: Array, ls_fit: Array | None) -> Array | None:
    """:func:`polynomial_separator`, given (or not) the least-squares fit P P⁺y, which the
    estimator has from the orthonormal Q of its factor (Q Qᵀy, 0.01 ms at n = 400, against 0.2
    ms for ``lstsq(P, y)``). The memory is the same: keyed by (P, y) alone."""
    Pa, ya = np.ascontiguousarray(P, dtype=np.float64), np.ascontiguousarray(y, dtype=np.float64)
    key = _digest(np.asarray(Pa.shape, dtype=np.int64), Pa, ya)
    if key not in _SEPARATORS:
        if len(_SEPARATORS) >= 16:
            del _SEPARATORS[next(iter(_SEPARATORS))]
        _SEPARATORS[key] = _find_separator(Pa, ya, ls_fit)
    out = _SEPARATORS[key]
    return None if out is None else out.copy()


def _digest(*parts: Any) -> bytes:
    """SHA-256 of the bytes of ``parts`` (C-contiguous arrays or bytes), the key of the hidden
    caches. (SHA-256 runs on the CPU's SHA instructions where there are any: 55 µs for 400 × 31
    doubles here, against 104 µs for BLAKE2b.)"""
    h = hashlib.sha256()
    for part in parts:
        h.update(part)
    return h.digest()


def _find_separator(P: Array, y: Array, ls_fit: Array | None = None) -> Array | None:
    """:func:`polynomial_separator` without the memory (``ls_fit``: as
    :func:`_remembered_separator`)."""
    n, k = P.shape
    if k == 0:
        return None
    # certificates cheaper than the LP (which costs 180 ms on twonorm's 7400 points, 17 ms on 3000
    # banana points, 8-19 ms on 400 german or wdbc points): the least-squares fit p = P P⁺y when
    # it separates (p/min y∘p then satisfies the LP), or the least-distance one, proves
    # separability; a subset 𝒫 cannot
    # separate (LP on ~200 points, 2-4 ms) proves the contrary, and its separator, when it
    # separates every point, proves separability. The LP on every point decides the rest.
    margin = None if ls_fit is None else y * ls_fit
    if margin is None or float(margin.min()) > 1e-9 * float(np.abs(margin).max()):
        # (given a separating fit, β is still needed: lstsq computes it, as without the fit)
        beta = np.asarray(np.linalg.lstsq(P, y, rcond=None)[0], dtype=np.float64)
        margin = y * (P @ beta)
        if float(margin.min()) > 1e-9 * float(np.abs(margin).max()):
            return beta / float(margin.min())
    # the least-distance separator (one NNLS, 2-3 ms at n = 400 against 8-19 ms for the LP) when
    # it is found; it proves nothing when not
    ldp = _min_norm_separator_working_set(P, y, margin)
    if ldp is not None:
        return ldp
    m = max(100, 5 * k)
    if n > 2 * m:
        # the points the least-squares fit gets most wrong, where a separating p is hardest to
        # find, and as many at random (a fixed seed: fits repeat)
        S = np.union1d(np.argsort(margin)[:m], np.random.default_rng(0).choice(n, m, replace=False))
        sub = _separating_lp(P[S], y[S])
        if sub is None:
            return None
        margin = y * (P @ sub)  # the subset's separator may separate every point: then proven
        if float(margin.min()) > 1e-9 * float(np.abs(margin).max()):
            return sub / float(margin.min())
    full = _separating_lp(P, y)
    if full is None:
        return None
    low = float((y * (P @ full)).min())
    # HiGHS holds the constraints to its feasibility tolerance: margins 1 − 1e-7 are possible
    return full / low if low > 0.0 else full


def _least_squares_separator(Q: Array, y: Array, w: Array | None = None) -> Array | None:
    """β̄ with y∘(Qβ̄) ≥ 1 (on the points of positive weight) from the least-squares fit of y,
    weighted by w when given, scaled; None when it does not separate.

    ``Q`` is an orthonormal basis of range P (unweighted: the fit is Q Qᵀy). When it separates,
    (α = 0, p = Qβ̄) attains eq. (14)'s minimum 0 (000 §6.2: then every separating p ∈ 𝒫 is a
    minimiser; the weighted fit makes the choice the same for a weight-2 point and a repeated
    one)."""
    if Q.shape[1] == 0:
        return None
    if w is None:
        bbar = Q.T @ y
    else:
        root = np.sqrt(w)
        bbar = np.asarray(np.linalg.lstsq(Q * root[:, None], root * y, rcond=None)[0], dtype=np.float64)
    margin = y * (Q @ bbar)
    if w is not None:
        margin = margin[w > 0]
    low = float(margin.min())
    if not low > 1e-9 * float(np.abs(margin).max()):
        return None
    return np.asarray(bbar / low, dtype=np.float64)


def _zero_loss_separator(factor: PolynomialFactor, y: Array, w: Array | None) -> tuple[Array, Array] | None:
    """(β, f = Pβ) of the minimum-norm polynomial separating the classes with margin ≥ 1 (on
    the points of positive weight ``w``), or None (not separable, or the data look inseparable:
    :func:`_likely_inseparable`; the fit then decides).

    When 𝒫 separates, α = 0 with any separating p minimises eq. (14) (000 §6.2); of those this
    takes the one of least Σ w_i p(x_i)² (the hard-margin separator in the coordinates of Q, a
    least-distance problem solved by NNLS: :func:`_min_norm_separator`), which does not depend
    on the basis and is the same for a weight-2 point and a repeated one."""
    if factor.Q.shape[1] == 0:
        return None
    m = None if w is None or np.all(w > 0) else w > 0  # points of weight 0 do not count
    if _likely_inseparable(factor.Q if m is None else factor.Q[m], y if m is None else y[m]):
        return None
    bbar = _min_norm_separator(factor.Q, y, w)
    if bbar is None:
        return None
    # every margin ≥ 1 in floating point, so that the loss at this minimiser is exactly 0 (a
    # separator scaled by 1/min margin can land an ulp short of 1 on a point): scale up by ulps
    # (any separator scaled up is a minimiser too)
    f = factor.Q @ bbar
    m_pos = slice(None) if m is None else m
    for _ in range(4):
        low = float(np.min(y[m_pos] * f[m_pos]))
        if low >= 1.0:
            break
        bbar = bbar * ((1.0 + 4.0 * np.finfo(float).eps) / low)
        f = factor.Q @ bbar
    return factor.beta_from_bar(bbar), f


def _min_norm_separator(Q: Array, y: Array, w: Array | None = None) -> Array | None:
    """argmin Σ w_i (Qb)_i² subject to y_i (Qb)_i ≥ 1 (w_i > 0), or None when none is found.

    Lawson & Hanson's least-distance programming (min ‖x‖ s.t. Gx ≥ h, *Solving Least Squares
    Problems* ch. 23) through one NNLS in n variables: with u ≥ 0 minimising ‖[Gᵀ; hᵀ]u − e‖
    and r its residual, x = −r[:k]/r[k] (r = 0: infeasible). The answer is checked (every margin
    ≥ 1 − 1e-9, then rescaled to ≥ 1): a separator found is a proof; None proves nothing."""
    from scipy.optimize import nnls

    n, k = Q.shape
    m = np.ones(n, dtype=bool) if w is None else w > 0
    if w is None:
        Z, T = Q, np.eye(k)  # Q orthonormal: Σ (Qb)_i² = ‖b‖²
    else:  # x = Lᵀb with LLᵀ = Qᵀ diag(w) Q, so that ‖x‖² = Σ w_i (Qb)_i²
        try:
            L = np.linalg.cholesky((Q.T * w) @ Q)
        except np.linalg.LinAlgError:
            return None
        T = np.linalg.inv(L.T)
        Z = Q @ T
    G = y[m, None] * Z[m]
    E = np.vstack([G.T, np.ones((1, G.shape[0]))])
    e = np.zeros(k + 1)
    e[k] = 1.0
    try:
        u = nnls(E, e, maxiter=max(100, 10 * (k + 1)))[0]
    except RuntimeError:  # too many iterations
        return None
    r = E @ u - e
    if not abs(r[k]) > 1e-12:
        return None
    b = T @ (-r[:k] / r[k])
    margin = y[m] * (Q[m] @ b)
    low = float(margin.min())
    if not low >= 1.0 - 1e-9:
        return None
    return np.asarray(b / min(low, 1.0), dtype=np.float64)


def _min_norm_separator_working_set(P: Array, y: Array, margin: Array, rounds: int = 8) -> Array | None:
    """:func:`_min_norm_separator` (unweighted) of all points, solved on a working set first: the
    least-distance separator of the points with the smallest least-squares ``margin`` (max(64,
    2 dim 𝒫) of them) is that of all points as soon as it separates them all (a subset's
    minimiser that is feasible for every constraint minimises over the smaller feasible set
    too); until then the most violated points (up to half the start) join, for at most
    ``rounds`` rounds, after which the NNLS on every point decides. Measured (CPU, 𝒫-separable
    sets): wdbc 320 / 400 / 500 points 0.35 / 0.40 / 0.70 ms against 0.85 / 1.13 / 1.68 ms for the
    NNLS on all, twonorm 400 0.35 against 0.79, the same separator to 2e-11 relative."""
    n, k = P.shape
    m0 = max(64, 2 * k)
    if n <= 2 * m0:
        return _min_norm_separator(P, y)
    S = np.argsort(margin)[:m0]
    for _ in range(rounds):
        b = _min_norm_separator(P[S], y[S])
        if b is None:  # (not a proof of anything: the full problem decides)
            break
        mg = y * (P @ b)
        low = float(mg.min())
        if low >= 1.0 - 1e-9:  # the check _min_norm_separator makes, on every point
            return np.asarray(b / min(low, 1.0), dtype=np.float64)
        bad = np.flatnonzero(mg < 1.0 - 1e-9)
        S = np.union1d(S, bad[np.argsort(mg[bad])[: m0 // 2]])
    return _min_norm_separator(P, y)


def _interpolates(factor: PolynomialFactor, X: Array, y: Array, w: Array | None) -> bool:
    """Whether 𝒫 interpolates every distinct point of positive weight (rank P = their number):
    then 𝒫⊥ holds only differences of repeated points, whose Φα is 0, and the β = 0 model would
    be f ≡ 0 (000 §6.2 needs 𝒫⊥ ≠ {0}). The distinct points are counted only when the
    least-squares fit reproduces y (necessary for interpolation)."""
    m = None if w is None or np.all(w > 0) else w > 0
    n = X.shape[0] if m is None else int(np.count_nonzero(m))
    if factor.rank >= n:
        return True
    if m is None:  # Q orthonormal: the least-squares fit is Q Qᵀy (no lstsq: 0.3 of 0.4 ms at n = 400)
        fit = factor.Q @ (factor.Q.T @ y)
        ym = y
    else:
        ym = y[m]
        fit = factor.Q[m] @ np.linalg.lstsq(factor.Q[m], ym, rcond=None)[0]
    if float(np.linalg.norm(ym - fit)) > 1e-9 * np.sqrt(n):
        return False
    Xm = X if m is None else X[m]
    return factor.rank >= np.unique(Xm, axis=0).shape[0]


def _likely_inseparable(Q: Array, y: Array, fit: Array | None = None) -> bool:
    """A guess, only for the order of the work: the least-squares fit (Q Qᵀy, or ``fit`` when
    given) misclassifies at least 10 % of the points (measured at n = 400: pima, german, banana
    20-45 %; the separable wdbc 3.8 %, twonorm 1.5 %). Otherwise the LP comes first, as fitting
    eq. (14) on separable data is slow."""
    return bool(np.mean(y * (Q @ (Q.T @ y) if fit is None else fit) <= 0.0) >= 0.1)


def _farkas_inseparable(Q: Array, y: Array, f: Array, w: Array | None = None) -> bool:
    """Whether the slacks ξ = max(0, 1 − y∘f) of a β-free fit prove that 𝒫 cannot separate.

    At eq. (14)'s optimum the gradient in β vanishes, Pᵀ(y∘ξ) = 0; with ξ ≥ 0 and ξ ≠ 0 that
    is Farkas' certificate that y_i p(x_i) ≥ 1 for all i has no solution p ∈ 𝒫 (Σ ξ_i y_i p(x_i)
    would be both 0 and ≥ Σ ξ_i > 0). Accepted when Qᵀ(y∘ξ) vanishes to 1e-9 of ‖ξ‖₁ (a fit
    solved to round-off; an SMO solution at tol 1e-3 does not pass, and the LP decides). With
    per-point weights the certificate is w∘ξ (the gradient is Pᵀ(y∘w∘ξ)), over the points of
    positive weight."""
    xi = np.maximum(0.0, 1.0 - y * f)
    if w is not None:
        xi = w * xi
    total = float(xi.sum())
    if not total > 0.0:
        return False
    return float(np.linalg.norm(Q.T @ (y * xi))) <= 1e-9 * total


#: ``solver="auto"`` takes the dual SMO up to this dim 𝒫, the reduced Newton route above: SMO
#: keeps the k − 1 polynomial constraints beyond the intercept by an augmented Lagrangian whose
#: steps grow with k (measured, examples/bench_thin_plate.py and issue 15's notes: banana, k = 3,
#: dual 3.0x SVC vs Newton 5.0x on 5300 points; pima, k = 9, a tie at n = 400; german and
#: twonorm, k = 21, Newton 1.8x vs 2.5x at n = 400 and 4.1x vs 10.9x on twonorm's 7400 points).
_DUAL_MAX_POLY = 9

#: ... and for any dim 𝒫 from this many points on: there the dual SMO ended by its Newton step is
#: the faster at k = 21 too (measured, ThinPlateSVC fit time dual / reduced Newton, C = 0.5-50:
#: german n = 600 0.5-0.8, n = 1000 0.5-0.6; twonorm n = 2000 0.35-0.46, n = 7400 0.62-0.67; at
#: n = 400 a tie, before the fourth round's SMO: see below). Below it the augmented Lagrangian's
#: rounds can crawl when the support is barely larger than 𝒫 (wdbc, n = 569, k = 31: 1 s against
#: Newton's 30-60 ms).
_DUAL_MIN_N = 2000

# ``solver="auto"`` takes the dual also below _DUAL_MIN_N for a cold fit (no solution at another C
# on the same operator and labels, the reduced Newton route's warm start:
# sdpkern.native.cpd_reduced.warm_start_known) on data whose least-squares fit in 𝒫 misclassifies
# at least 10 % of the points (_likely_inseparable: many support vectors, where SMO does not
# crawl). Measured with the SMO of issue 15's fourth round, fit time dual / reduced Newton, 8 C
# from 5e-4 to 5e3, k = 21: german 320 and 400 points 0.71-0.97 (1.10-1.16 at C = 5e-4),
# ringnorm 0.50-0.86 (1.00-1.14 at C = 5e-4). Its solution then seeds the Newton route's warm
# start, which a grid search's next C on the fold takes (a 5-fold grid of 8 C on german all by
# the dual: 0.32-0.48 s against 0.23-0.27 s by the warm-started Newton route, CPU). Not for well
# separated data (wdbc, 569 points, k = 31, 34 support vectors: SMO 1 s against Newton's 30-60 ms).


def _separable_lp(P: Array, y: Array) -> bool:
    """Feasibility of y_i (Pβ)_i ≥ 1 for all i (HiGHS)."""
    return _separating_lp(P, y) is not None


def _separating_lp(P: Array, y: Array) -> Array | None:
    """A β with y_i (Pβ)_i ≥ 1 for all i (HiGHS), or None when there is none."""
    res = linprog(
        c=np.zeros(P.shape[1]),
        A_ub=-(y[:, None] * P),
        b_ub=-np.ones(P.shape[0]),
        bounds=[(None, None)] * P.shape[1],
        method="highs",
    )
    return np.asarray(res.x, dtype=np.float64) if res.status == 0 else None


@dataclass(eq=False)
class _Operators:
    """The fit's Gram operators, made on first use and shared by the one-vs-rest models: Φ
    (dense, for 000 Algorithm 1) and the reduced kernel K_Ξ (one column cache for every model)."""

    base: KernelGram
    factor: PolynomialFactor
    _dense: Array | None = None
    _reduced: ReducedGram | None = None

    def dense(self) -> Array:
        if self._dense is None:
            self._dense = self.base.kernel(self.base.X)
        return self._dense

    def reduced(self, Q: Array) -> ReducedGram:
        if self._reduced is None:
            self._reduced = reduced_gram(self.base, self.base.X, Q)
        return self._reduced


#: The operators of the last fits on at most _OPERATORS_MAX_N points (Φ's and K_Ξ's kernel columns
#: and the QR of P, keyed by the kernel and a hash of X), taken by the next fit on the same points:
#: a grid search fits each fold once per C, and these do not depend on C or y (measured, german
#: folds of 320 points: 3 of a fit's 7.5 ms went to them). A fit checks its operators out and
#: returns them at its end, so fits running at once never share a column cache; reused columns
#: are the same bits as recomputed ones (one compiled loop computes both), only their places in
#: the cache differ (products over the store then round differently: the same model to round-off).
#: scikit-learn's GridSearchCV fits every fold for one C before the next C, so a k-fold search
#: comes back to a fold only after k − 1 others: up to _OPERATORS_KEPT sets are kept (8: a 5- or
#: 7-fold search reuses them; with 2 kept, a 5-fold one never did — measured on german, 5 folds
#: of 320 points × 8 C: grid time / SVC grid 0.31-0.35 with 2 kept, 0.18-0.25 with 6), as long as
#: their bound on memory (:func:`_operators_bytes`) sums to at most _OPERATORS_MAX_BYTES.
_OPERATORS: dict[bytes, _Operators] = {}
_OPERATORS_MAX_N = 1000
_OPERATORS_KEPT = 8
_OPERATORS_MAX_BYTES = 64 * 2**20
_IN_USE = threading.local()
_OPERATORS_LOCK = threading.Lock()


def _operators_key(kernel: Kernel, X: Array) -> bytes | None:
    if X.shape[0] > _OPERATORS_MAX_N:
        return None
    Xc = np.ascontiguousarray(X, dtype=np.float64)
    return _digest(repr(kernel).encode(), np.asarray(Xc.shape, dtype=np.int64), Xc)


def _operators_bytes(ops: _Operators) -> int:
    """A bound on the memory the operators of a fit on n points hold: 8n² each for Φ (dense), Φ's
    column cache and K_Ξ's (:class:`~sdpkern.kernels.gram.GramOperator` caches hold at most n
    columns)."""
    return 24 * ops.base.n * ops.base.n


def _return_operators() -> None:
    """Give the operators of the fit that ends back to :data:`_OPERATORS` (the newest kept)."""
    with _OPERATORS_LOCK:
        for key, ops in getattr(_IN_USE, "ops", []):
            _OPERATORS.pop(key, None)
            _OPERATORS[key] = ops
            while len(_OPERATORS) > 1 and (
                len(_OPERATORS) > _OPERATORS_KEPT
                or sum(map(_operators_bytes, _OPERATORS.values())) > _OPERATORS_MAX_BYTES
            ):
                del _OPERATORS[next(iter(_OPERATORS))]
    _IN_USE.ops = []


@dataclass
class _Binary:
    """One fitted binary model: f(x) = Σ α_j φ(x, x_j) + Σ β_k p_k(x), and how it was reached."""

    alpha: Array
    beta: Array
    beta_zero: bool
    objective: float
    n_iter: int
    status: str
    outputs: Array  # f on the training points


_POSITIVE = Interval(Real, 0, None, closed="neither")


@dataclass(kw_only=True, eq=False, repr=False)
class _CPDBase(KernelClassifierMixin, SdpkernEstimator):
    """What :class:`CPDSVC` and :class:`ThinPlateSVC` share: parameters, fitting, prediction."""

    C: float = 1.0
    lam: Any = DEPRECATED
    solver: str = "auto"
    beta_zero: bool | str = "auto"
    update: str = "rank_one"
    backend: str = "clarabel"
    max_iter: int = 100
    tol: float = 1e-3
    class_weight: Any = None

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "C": [_POSITIVE],
        "lam": [Options({DEPRECATED}), _POSITIVE],
        "solver": [Options({"auto", "dual", "reduced", "native", "cvxpy"})],
        "beta_zero": [Options({"auto"}), "boolean"],
        "update": [Options({"rank_one", "refactor"})],
        "backend": [str],
        "max_iter": [Interval(Integral, 1, None)],
        "tol": [_POSITIVE],
        "class_weight": [dict, Options({"balanced"}), None],
    }
    converged_ = deprecated_attribute("status_", "converged_", convert=lambda s: s == "optimal")

    # ------------------------------------------------------------------ helpers
    def _kernel(self) -> Kernel:
        raise NotImplementedError

    def _C(self) -> float:
        lam_to_C = lambda lam: 1.0 / (2.0 * float(lam))  # noqa: E731
        return float(take_deprecated(type(self).__name__, "lam", self.lam, "C", self.C, convert=lam_to_C, stacklevel=6))

    def _shared_state(self, X: Array) -> _Operators:
        kernel = self._kernel()
        key = _operators_key(kernel, X)
        with _OPERATORS_LOCK:
            ops = _OPERATORS.pop(key, None) if key is not None else None  # checked out while in use
        if ops is None:
            ops = _Operators(KernelGram(kernel, X), polynomial_factor(X, kernel))
        if key is not None:
            _IN_USE.__dict__.setdefault("ops", []).append((key, ops))
        return ops

    def _solve(
        self, ops: _Operators, X: Array, ypm: Array, bz: bool, C: float, w: Array | None = None,
        inseparable: bool = False,
    ) -> _Binary:  # fmt: skip
        """One binary fit of eq. (14) (or its β = 0 variant). ``inseparable``: the LP of
        :func:`polynomially_separable` has already answered that 𝒫 cannot separate the points of
        positive weight, so that :func:`_zero_loss_separator` (which returns a separator only when
        there is one) would return None: its NNLS is skipped (16-18 ms of a 210 ms twonorm fit)."""
        factor = ops.factor
        k = factor.Q.shape[1]
        if not bz and not inseparable and self.solver != "cvxpy":
            # 𝒫 separates by its least-squares fit: α = 0 and that p attain the minimum 0 of
            # eq. (14) exactly (the Newton and SMO routes would iterate to another separator,
            # slowly: the dual's feasible set is then {0})
            sep = _zero_loss_separator(factor, ypm, w)
            if sep is not None:
                beta, f = sep
                xi = np.maximum(0.0, 1.0 - ypm * f)  # 0 but for round-off
                loss = float(xi @ xi) if w is None else float((w * xi) @ xi)
                return _Binary(np.zeros(X.shape[0]), beta, bz, loss, 0, "optimal", f)
        dual_first = k <= _DUAL_MAX_POLY or X.shape[0] >= _DUAL_MIN_N
        seed = False  # the dual's solution starts the reduced Newton route's next solve here
        if self.solver == "auto" and not bz and not dual_first and _likely_inseparable(factor.Q, ypm):
            # a cold fit on data 𝒫 separates badly (many support vectors): the dual too (the
            # comment after _DUAL_MIN_N)
            dual_first = seed = not warm_start_known(ops.reduced(factor.Q), ypm, w)
        if (self.solver == "dual" or (self.solver == "auto" and dual_first)) and not bz:
            # the compiled SMO on K_Ξ (sdpkern.native.dual_svm): the fastest exact route while 𝒫
            # is small, measured in examples/bench_thin_plate.py; ends with a Newton step when
            # that is cheap
            dres = cpd_dual_svm(ops.reduced(factor.Q), factor.Q, ypm, C, tol=self.tol, polish="auto", sample_weight=w)
            if seed and dres.status == "optimal":
                remember_solution(
                    ops.reduced(factor.Q), ypm, w, dres.dual.dual_coef, dres.dual.coef_unpenalized,
                    int(np.count_nonzero(dres.dual.alpha)),
                )  # fmt: skip
            if dres.status == "optimal" or self.solver == "dual":
                beta = factor.beta_from_bar(dres.beta_bar)
                return _Binary(dres.alpha, beta, bz, dres.objective, dres.dual.n_iter, dres.status, dres.f)
            # "auto" and not certified (the SMO step cap): the reduced Newton route below decides
        if self.solver in ("auto", "reduced") and not bz:
            res = cpd_primal_svm_reduced(
                ops.reduced(factor.Q), factor.Q, ypm, C, max_iter=self.max_iter, sample_weight=w
            )
            status = "optimal" if res.converged else "iteration_limit"
            beta = factor.beta_from_bar(res.beta_bar)
            return _Binary(res.alpha, beta, bz, res.objective, res.iterations, status, res.f)
        if bz and w is None and self.solver == "auto":
            # β = 0 as a p.d. SVM on the kernel K̃ of f (sdpkern.native.cpd_newton.cpd_beta_zero_svm):
            # Newton systems of order |s| instead of n − k. Measured (examples/bench_thin_plate.py
            # section 7, 400 points, time vs Algorithm 1's eq. 18 branch): pima, wdbc, german at
            # C = 1 and 100: 0.46-0.77; at C = 0.01, where s stays near every point, 0.69-1.20
            # (german the slower: the setup is not repaid over its 2-3 steps)
            # (Φ is this fit's own: checked out of _OPERATORS, used as the factor's work space and restored)
            res = cpd_beta_zero_svm(
                PrecomputedGram._trusted(ops.dense()), factor.Q, ypm, C, max_iter=self.max_iter, overwrite_phi=True
            )
            status = "optimal" if res.converged else "iteration_limit"
            return _Binary(res.alpha, np.zeros(factor.space.dim), bz, res.objective, res.iterations, status, res.f)
        if self.solver != "cvxpy":
            if w is not None and not bz:
                raise ParameterError(
                    f"{type(self).__name__}: sample_weight and class_weight need solver='auto', 'dual', 'reduced' "
                    "or 'cvxpy' (000 Algorithm 1 as printed, solver='native', has no per-point weights)"
                )
            res = cpd_primal_svm(
                PrecomputedGram._trusted(ops.dense()), factor.Q, ypm, C, beta_zero=bz, update=self.update,  # type: ignore[arg-type]
                max_iter=self.max_iter,
                sample_weight=w,
            )  # fmt: skip
            beta = np.zeros(factor.space.dim) if bz else factor.beta_from_bar(res.beta_bar)
            status = "optimal" if res.converged else "iteration_limit"
            return _Binary(res.alpha, beta, bz, res.objective, res.iterations, status, res.f)
        from ..builders.cpd_svm import squared_hinge, squared_hinge_beta_zero

        build = squared_hinge_beta_zero if bz else squared_hinge
        sol = build(X, ypm, self._kernel(), C=C, sample_weight=w).solve(backend=self.backend)
        model = sol.model
        assert model.alpha is not None and model.beta is not None
        f = np.asarray(model.extras["train_decision"], dtype=np.float64)
        return _Binary(model.alpha, model.beta, bz, float(model.extras["objective_eq14"]), 0, sol.status, f)

    def _solve_points(
        self, ops: _Operators, X: Array, ypm: Array, bz: bool, C: float, w: Array | None, inseparable: bool = False
    ) -> _Binary:
        """:meth:`_solve`, with the β = 0 variant on the points of positive weight only: its
        function class {Σ α_j φ(·, x_j): Pᵀα = 0} depends on the points, and a point of weight 0
        must be a removed point (scikit-learn's convention); α is 0 on the others."""
        if not (bz and w is not None and not np.all(w > 0)):
            return self._solve(ops, X, ypm, bz, C, w, inseparable)
        m = np.flatnonzero(w > 0)
        sub = self._solve(self._shared_state(X[m]), X[m], ypm[m], bz, C, w[m])
        alpha = np.zeros(X.shape[0])
        alpha[m] = sub.alpha
        f = cpd_decision(self._kernel(), X[m], sub.alpha, ops.factor, np.zeros(ops.factor.space.dim), X)
        return _Binary(alpha, sub.beta, bz, sub.objective, sub.n_iter, sub.status, f)

    def _fit_binary(self, X: Array, ypm: Array, weights: Array | None, shared: _Operators) -> None:
        C = self._C()
        fit = None
        inseparable = False  # the separability LP answered no: the β-free fit need not look for a separator
        if self.beta_zero == "auto":
            # β = 0 when 𝒫 separates the classes (000 §7), unless 𝒫 interpolates every distinct
            # point (then the β = 0 model would be f ≡ 0: _interpolates)
            factor = shared.factor
            bz = False
            if _interpolates(factor, X, ypm, weights):
                bz = False
            elif weights is not None and not np.all(weights > 0):
                m = weights > 0  # separability of the points that count
                bz = polynomially_separable(factor.P[m], ypm[m])
                inseparable = not bz
            else:
                bz = _least_squares_separator(factor.Q, ypm, weights) is not None
                if not bz:
                    ls = factor.Q @ (factor.Q.T @ ypm)  # P P⁺y, the separability test's first step
                    if self.solver != "cvxpy" and _likely_inseparable(factor.Q, ypm, ls):
                        # fit first: its slacks usually prove inseparability (Farkas), sparing the LP
                        fit = self._solve(shared, X, ypm, False, C, weights)
                        if not (fit.status == "optimal" and _farkas_inseparable(factor.Q, ypm, fit.outputs, weights)):
                            bz = _remembered_separator(factor.P, ypm, ls) is not None  # polynomially_separable
                    else:
                        bz = _remembered_separator(factor.P, ypm, ls) is not None
                        inseparable = not bz
        else:
            bz = bool(self.beta_zero)
        if fit is None or fit.beta_zero != bz:
            fit = self._solve_points(shared, X, ypm, bz, C, weights, inseparable)
        self.factor_ = shared.factor
        self.alpha_, self.beta_ = fit.alpha, fit.beta
        self.beta_zero_: Any = fit.beta_zero  # one bool; one-vs-rest: an array of them
        self.objective_: Any = fit.objective
        self.n_iter_, self.status_ = fit.n_iter, fit.status
        self.support_ = np.flatnonzero(fit.alpha)
        self.dual_coef_ = fit.alpha[self.support_]
        self.support_vectors_ = X[self.support_]
        self.intercept_ = float(fit.beta[0]) if fit.beta.shape[0] else 0.0
        self.backend_ = self.backend if self.solver == "cvxpy" else None
        if bz:
            self.certificate_ = {"measure": "Newton active set settled (β = 0)", "value": fit.status == "optimal"}
        else:
            Cw = C if weights is None else C * weights
            self.certificate_ = {"measure": "stationarity",
                                 "value": squared_hinge_stationarity(fit.alpha, fit.outputs, ypm, Cw)}  # fmt: skip
        if self.solver == "cvxpy" and fit.status != "optimal":
            warnings.warn(
                f"{type(self).__name__}: {self.backend} returned status {fit.status!r}",
                ConvergenceWarning,
                stacklevel=4,
            )

    def _store_one_vs_rest(self, models: list[Any]) -> None:
        super()._store_one_vs_rest(models)
        self.factor_ = models[0].factor_
        self.alpha_ = np.array([m.alpha_ for m in models])
        self.beta_ = np.array([m.beta_ for m in models]).reshape(len(models), -1)
        self.beta_zero_ = np.array([m.beta_zero_ for m in models])
        self.objective_ = np.array([m.objective_ for m in models])
        self.backend_ = models[0].backend_
        self.support_vectors_ = np.empty((len(self.support_), self.n_features_in_))
        for m in models:  # the rows of the union of the supports
            self.support_vectors_[np.searchsorted(self.support_, m.support_)] = m.support_vectors_

    # ------------------------------------------------------------------ API
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> _CPDBase:
        """Fit on X (n_samples, n_features) and labels y (one-vs-rest for more than two classes).

        ``sample_weight`` (n_samples,) weights each point's loss: point i's C is
        C · sample_weight_i · class_weight[y_i] (docs/conventions.md), i.e. eq. (14)'s loss term
        Σ w_i max(0, 1 − y_i f(x_i))²; a weight-2 point is a repeated point.
        """
        # the native routes call BLAS only on small blocks (QR of P, a few hundred rows of Cholesky,
        # matrix-vector products): threads there cost more in wake-ups than they save (measured
        # at n = 400 by examples/bench_thin_plate.py: about half of a fit's time with 2 threads)
        with nullcontext() if self.solver == "cvxpy" else _one_blas_thread():
            try:
                fitted = self._fit_classifier(X, y, sample_weight)
            except BaseException:
                _IN_USE.ops = []  # (a fit cut short may leave its caches half updated)
                raise
            _return_operators()
            return fitted  # type: ignore[no-any-return]

    def _decision_binary(self, X: Array) -> Array:
        """Σ_i c_i φ(x_i, x) + Σ_k β_k p_k(x) (000 Theorem 4.6; the constant monomial's β is b)."""
        return cpd_decision(self._kernel(), self.support_vectors_, self.dual_coef_, self.factor_, self.beta_, X)

    def decision_function(self, X: ArrayLike) -> Array:
        """f(x) (binary: shape (n,), positive for ``classes_[1]``) or one column per class.

        One-vs-rest evaluates the kernel once, on the union of the models' supports.
        """
        check_is_fitted(self, "dual_coef_")
        if "estimators_" not in self.__dict__:
            return super().decision_function(X)
        Xa = np.asarray(validate_data(self, X, reset=False, dtype=np.float64), dtype=np.float64)
        K = self._kernel()(Xa, self.support_vectors_) if len(self.support_) else np.zeros((Xa.shape[0], 0))
        out = K @ self.dual_coef_.T
        if self.beta_.shape[1]:
            out = out + self.factor_.basis(Xa) @ self.beta_.T
        return np.asarray(out, dtype=np.float64)

    def score(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> float:
        """Mean accuracy of ``predict(X)`` against ``y`` (weighted by ``sample_weight``), as
        scikit-learn's ``ClassifierMixin.score``.

        Unweighted, with ``y`` a vector of the labels' own dtype (integral values when floating),
        the fraction of matches is counted directly; otherwise, and for every input scikit-learn's
        ``accuracy_score`` would reject, that function decides (and raises). Its target-type checks
        cost 3 ms a call, half of a grid search's scoring of 80 german points (measured).
        """
        from sklearn.metrics import accuracy_score

        pred = self.predict(X)
        ya = np.asarray(y)
        if (
            sample_weight is None
            and ya.ndim == 1
            and ya.shape == pred.shape
            and ya.dtype == pred.dtype
            and ya.dtype.kind in "biuUf"
            and ya.size
            and (ya.dtype.kind != "f" or bool(np.all(np.isfinite(ya)) and np.all(ya == np.round(ya))))
        ):
            return float(np.mean(ya == pred))
        return float(accuracy_score(y, pred, sample_weight=sample_weight))


@dataclass(kw_only=True, eq=False, repr=False)
class CPDSVC(_CPDBase):
    """Squared-hinge SVM with a conditionally positive definite kernel (000 eq. 14, §6).

    Minimises ½‖P_φ f‖² + C Σ_i max(0, 1 − y_i f(x_i))² over f ∈ F_φ ⊕ 𝒫: 000 eq. (14),
    λ‖P_φ f‖² + Σ ξ_i², divided by 2λ, so C = 1/(2λ) (docs/conventions.md: scikit-learn's C, as
    ``LinearSVC(loss="squared_hinge")``). By the c.p.d. representer theorem (000 Theorem 4.6)
    f(x) = Σ_j α_j φ(x, x_j) + Σ_k β_k p_k(x) with Pᵀα = 0.

    Parameters
    ----------
    kernel : Kernel or None, default=None
        A :class:`~sdpkern.kernels.cpd.CPDKernel`, or any p.d. kernel (empty polynomial space, no
        intercept). ``None`` means ``ThinPlate(order=2, formula_dimension=2)``: r² log r with the
        affine functions 𝒫 = π_1(R^d), the "second order thin-plate" of 000 §6.1/§7, usable in
        any d (in R² it is exactly ``ThinPlate(2)`` of eq. 11).
    C : float, default=1.0
        Weight of the squared hinge loss, C = 1/(2λ) with 000's λ.
    lam : float, deprecated
        000's λ; use ``C = 1 / (2 * lam)``. Passing it warns (``FutureWarning``) and sets C so.
    solver : {"auto", "dual", "reduced", "native", "cvxpy"}, default="auto"
        ``"auto"``: ``"dual"`` while dim 𝒫 ≤ 9 (the affine 𝒫 up to d = 8), ``"reduced"`` above,
        the faster of the two there (measured in examples/bench_thin_plate.py).
        ``"dual"``: eq. (14) in the dual on the reduced kernel K_Ξ, solved by the
        compiled SMO of :mod:`sdpkern.native.dual_svm` (libsvm's working-set selection, kernel
        columns from a capped cache, the polynomial constraints by an augmented Lagrangian) to
        ``tol``, with a closing Newton step when it is cheap (small problems end exact). Its
        steps grow with the number of polynomial constraints, hence the switch. The Newton
        routes are also the checks:
        ``"reduced"``: eq. (14) rewritten exactly as a p.d. problem (the reduced kernel K_Ξ on k
        unisolvent points, polynomial part unpenalised; :mod:`sdpkern.native.cpd_reduced`) and
        solved by the primal Newton method of 004 with one kept Cholesky factor, computing kernel
        columns only for points that are violators at some stage: the same optimum as
        ``"native"``, 2-4x faster on 3000 points and without the n × n kernel matrix.
        ``"native"``: 000 Algorithm 1 as printed (step halving, rank-one Cholesky updates).
        ``"cvxpy"``: the CVXPY builder :func:`sdpkern.builders.cpd_svm.squared_hinge`.
        The β = 0 variant: with ``"auto"`` and no weights, Chapelle's Newton method on the kernel
        of f (:func:`~sdpkern.native.cpd_newton.cpd_beta_zero_svm`, the same steps as eq. 18's in
        systems of order |s|); with ``"cvxpy"`` the builder; otherwise Algorithm 1's β = 0 branch (eq. 18).
    beta_zero : {"auto", True, False}, default="auto"
        Constrain β = 0 (000 §6.2). ``"auto"`` does so exactly when the classes are separable by
        the polynomial space (linearly separable for the thin-plate of order 2), as in 000 §7,
        and 𝒫 does not interpolate all points (rank P < n). Separability is decided by the
        least-squares fit when it separates, else — when that fit misclassifies at least 10 %
        of the points — by the β-free fit itself, whose slacks ξ ≠ 0 with Pᵀ(y∘ξ) = 0 prove
        inseparability (Farkas), else by an LP. On 𝒫-separable data the minimiser of eq. (14)
        is not unique (000 §6.2): with ``beta_zero=False`` the fit then returns α = 0 and the
        least-squares polynomial scaled to margin 1 when that separates (an exact minimiser,
        objective 0); otherwise the Newton iteration may stop at ``max_iter`` with a
        :class:`~sklearn.exceptions.ConvergenceWarning`.
    update : {"rank_one", "refactor"}, default="rank_one"
        Algorithm 1 (``solver="native"``, and the β = 0 branch): modify the Hessian's Cholesky
        factor as violators change, or refactorise.
    backend : str, default="clarabel"
        CVXPY backend when ``solver="cvxpy"``.
    max_iter : int, default=100
        Newton steps (Newton solvers; the dual solver's cap is max(10⁷, 100 n) SMO steps).
    tol : float, default=1e-3
        The dual solver's KKT tolerance, libsvm's meaning (the maximal violating pair, margin
        units), as scikit-learn's ``SVC(tol=1e-3)``.
    class_weight : dict, "balanced" or None, default=None
        Multiplies each class's C, as scikit-learn's ``SVC`` (``fit`` also takes
        ``sample_weight``): point i's loss is C · sample_weight_i · class_weight[y_i] ·
        max(0, 1 − y_i f(x_i))². Every solver but ``"native"`` takes weights (its β = 0 branch
        does too); the β = 0 choice of ``beta_zero="auto"`` looks at the points of positive weight.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    dual_coef_ : ndarray of shape (n_SV,) or (n_classes, n_SV)
        α on ``support_`` (one row per one-vs-rest model, over the union of the supports).
    support_ : ndarray of int
        Training indices with α_i ≠ 0, sorted.
    support_vectors_ : ndarray of shape (n_SV, n_features)
    intercept_ : float or ndarray of shape (n_classes,)
        b, the coefficient of the constant monomial (0 for a p.d. kernel, which has no 𝒫).
    beta_ : ndarray of shape (dim 𝒫,) or (n_classes, dim 𝒫)
        Polynomial coefficients on ``factor_.basis`` (monomials of (x − center)/scale, the
        constant first: ``beta_[..., 0]`` is ``intercept_``). f(x) = Σ_i c_i φ(x_i, x) +
        ``factor_.basis(x) @ beta_``.
    alpha_ : ndarray of shape (n_samples,) or (n_classes, n_samples)
        α on every training point (zero off the support).
    beta_zero_ : bool or ndarray of bool
        Whether the β = 0 variant was used.
    objective_ : float or ndarray
        The optimum of 000 eq. (14) (in its own scaling, with λ = 1/(2C)).
    n_iter_ : int
    status_ : str
        ``"optimal"`` when the solver certified its optimum, ``"iteration_limit"`` when Newton's
        active set had not settled at ``max_iter`` (one-vs-rest: the worst).
    certificate_ : dict
        ``{"measure": "stationarity", "value": ‖α − 2C y∘ξ‖∞ / max(1, ‖α‖∞)}``, zero exactly at
        the optimum of eq. (14) (with β = 0: whether Newton's active set settled).
    backend_ : str or None
        The CVXPY backend that ran (``solver="cvxpy"``), else ``None``.
    factor_ : PolynomialFactor
        The polynomial basis and its QR on the training inputs.

    Notes
    -----
    More than two classes: one-vs-rest, labelling by the largest decision value (000 §7, USPS).
    The one-vs-rest models share the kernel columns they compute.

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> X, y = make_moons(80, noise=0.1, random_state=0)
    >>> clf = CPDSVC(C=500.0).fit(X, y)
    >>> bool(clf.score(X, y) > 0.95), clf.status_
    (True, 'optimal')
    """

    kernel: Kernel | None = None

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_CPDBase._parameter_constraints,
        "kernel": [Kernel, None],
    }

    def _kernel(self) -> Kernel:
        return ThinPlate(order=2, formula_dimension=2) if self.kernel is None else self.kernel


@dataclass(kw_only=True, eq=False, repr=False)
class ThinPlateSVC(_CPDBase):
    """The thin-plate SVM of 000 §7: a classifier whose only hyper-parameter is C (= 1/(2λ)).

    Uses ``ThinPlate(order, formula_dimension)`` (000 eq. 11). The default
    ``formula_dimension=2`` gives r² log r with the affine functions 𝒫 = π_1(R^d) in any
    dimension (the "second order thin-plate" of 000 §6.1, dim 𝒫 = d + 1); with
    ``formula_dimension=None`` eq. (11) is evaluated with the data's own d, which needs 2m > d.

    Invariances (000 §5, eq. 13): rotating or translating the inputs leaves the classifier
    unchanged; scaling them by s is the same as multiplying λ by s^{d_f − 2m} (C by its inverse).

    Parameters
    ----------
    order : int, default=2
    formula_dimension : int or None, default=2
    C, lam, solver, beta_zero, update, backend, max_iter, tol, class_weight
        As in :class:`CPDSVC` (``lam`` deprecated: C = 1/(2λ)); ``fit`` takes ``sample_weight``.

    Examples
    --------
    >>> from sklearn.datasets import make_circles
    >>> X, y = make_circles(60, factor=0.5, noise=0.05, random_state=0)
    >>> bool(ThinPlateSVC(C=50.0).fit(X, y).score(X, y) > 0.9)
    True
    """

    order: int = 2
    formula_dimension: int | None = 2

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_CPDBase._parameter_constraints,
        "order": [Interval(Integral, 1, None)],
        "formula_dimension": [Interval(Integral, 1, None), None],
    }

    def _kernel(self) -> Kernel:
        return ThinPlate(order=self.order, formula_dimension=self.formula_dimension)
