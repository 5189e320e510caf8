"""The native restricted master of the hyperkernel SOCP forms: one outer loop, one inner problem per family.

Every hyperkernel formulation of 002 §3.1.2 that sdpkern solves natively is the saddle problem
(docs/hyperkernel_derivations.md §1.1)

    V* = min_{β ∈ cΔ} J(β),   J(β) = D(β) + R(β),
    D(β) = max_{α ∈ A} q(α) − Σ_l β_l q_l(α),   q_l(α) = ½ u(α)ᵀ K_l u(α),

with A a polyhedron, q concave, u linear in α (the SOCP's cone vector times the square root of its
scale), R(β) = (λ_Q/2)‖Lᵀβ‖ (eqs. 3.8-3.12) or (λ_Q/2)‖Lᵀβ‖² (3.13), and 1ᵀβ = c. A family
(:class:`MasterFamily`) says what A, q, u and c are by its inner solve: the C-SVM (3.8,
:class:`_CSVCFamily` below), the ν-SVM, L2-SVM, one-class SVM, ν-regression and alignment
(3.9-3.13, :mod:`sdpkern.native.hyperkernel_families`). The SOCP form maximises q(α) + cτ subject
to one cone q_l(α) ≤ μ(Lu)_l − τ per basis term; :func:`~sdpkern.builders.hyperkernel.cone_generation`
solves it with the cones of a few terms S and adds the most violated omitted ones. Here the same
outer loop runs (:func:`solve_master`), with each restricted problem min_{β ∈ cΔ_S} J(β) solved
natively:

* the inner problem D(β) by the family's solve on K(β) given by columns
  (:func:`~sdpkern.kernels.hyperkernel_terms.learned_gram`; every term keeps its own capped column
  cache, so a new β costs additions), warm-started: sdpkern's one SMO core for the SVM families
  (:mod:`sdpkern.native.svm_core`, libsvm's second-order pair selection and shrinking), a dense
  Cholesky solve for the alignment (and for the L2-SVM once its support settles: its support
  vectors' KKT system), whose factor the Newton step reuses;
* the β step by a level bundle method (Lemaréchal, Nemirovskii & Nesterov 1995) on the cuts
  D(β) ≥ q(α_k) − Σ_l β_l q_l(α_k) that every inner solve gives (exact: D is a maximum of these
  affine functions), each step a small SOCP in #S + 2 variables; a Newton step on D's exact
  Hessian where the inner maximiser gives it (docs/hyperkernel_derivations.md §1.7), and after a
  Newton step that went past J's minimum on its line, the minimiser of the cubic through J and
  its slopes at the step's ends (:func:`_interpolated`); for the alignment, whose D is
  matrix-fractional, the minimiser of D restricted to the span of the maximisers and their
  derivatives instead (:mod:`sdpkern.native.fractional_model`, §1.8).

The loop works in β' = β/c ∈ Δ: the cuts' slopes are c·q_l and R(cβ') = κ‖Lᵀβ'‖ with κ = cλ_Q/2,
or κ‖Lᵀβ'‖² with κ = c²λ_Q/2.

Certificate. For any feasible α, weak duality gives the lower bound
g(α) = q(α) + min_{β' ∈ Δ} (R(cβ') − c q(α)ᵀβ') ≤ V* over the *whole* basis (a small SOCP in p
variables), and J(β̂) ≥ V* at any β̂. g is evaluated at the bundle's aggregate
ᾱ = Σ_k λ_k α_k (λ the cutting-plane model's multipliers): A is convex, q concave and each q_l
convex, so ᾱ is feasible and g(ᾱ) is at least the model's lower bound on the restricted
problem, and below it only where an omitted term's cone is violated. The method stops when
J(β̂) − g(ᾱ) ≤ tol·max(1, abs(J(β̂))): β̂ is then optimal for the full SOCP to that relative gap (up
to the inner solve's and the small SOCP's tolerances, ``smo_tol`` relative to the family's
gradient scale, and 1e-11). The omitted terms' reduced gradients
(c q_l − ∂_l R) − Σ_k β̂'_k (c q_k − ∂_k R) (for the norm, the omitted cone's violation
q_l − μ(Lw)_l + τ at w = Lᵀβ̂/‖Lᵀβ̂‖, the quantity
:class:`~sdpkern.builders.hyperkernel.ActiveSetTrace` reports) choose the terms to add.
The certificate needs q over all p terms; for the harmonic ARD hyperkernel most are decided by
rigorous upper bounds from d + 1 anchor quadratics (log q is convex in the term's feature:
:func:`~sdpkern.kernels.hyperkernel_terms.quadratic_bounds`), and only the terms the bounds
cannot rule out are computed (measured: twonorm m = 10,000, 22 quadratics instead of 150).
With q̄ ≥ q the bound g stays a lower bound, and every violation that can reach 0 is exact.

Memory: kernel columns only (capped caches), never an m×m matrix per term. Above
``working_set`` points (30,000) each SVM solve is a decomposition over working sets
(:func:`~sdpkern.native.svm_core.solve_qp`): columns of the working set's length, the other points' outputs by
uncached blocks (measured: twonorm m = 100,000, two rounds, 313 s CPU, peak RSS 3.5 GB).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from .._validation import as_matrix, as_sample_weight, check_integer, check_positive
from ..errors import DataError, SolverError
from ..kernels.gram import DEFAULT_CACHE_BYTES, GramOperator, SumGram, grouped
from ..kernels.hyperkernel_terms import (
    TermGram,
    dictionary_products,
    learned_block,
    learned_gram,
    quadratic_bounds,
    term_block,
    term_grams,
    term_quadratics,
)
from ..kernels.hyperkernels import ARDDictionary
from ..kernels.lowrank import HyperkernelBasis
from .dense_cholesky import BorderedCholesky, cho_factor
from .dual_svm import _one_blas_thread
from .fractional_model import FractionalModel
from .svm_core import WORKING_SET, WORKING_SET_CACHE_BYTES, Restrict, solve_csvc

__all__ = [
    "NativeMasterResult",
    "NativeDecision",
    "InnerSolution",
    "MasterFamily",
    "solve_master",
    "hyperkernel_csvm_native",
    "available_memory",
    "column_cache_bytes",
    "estimate_fit_bytes",
]

Array = NDArray[np.float64]

#: Newton β steps while at most this many variables of the inner maximiser are free: the
#: Hessian's f × f bordered matrix (docs/hyperkernel_derivations.md §1.7) then stays within
#: 3.2 GB (K(β)'s column cache is released before it). One Newton step replaces the many level
#: steps of a family whose inner maximiser has most of its variables free (the ν-regression), each
#: a whole inner solve; its factorisation (f³/3 flops) costs about one or two of them at this size
#: (docs/hyperkernel.md, "The ν-regression at 20,000 points")
NEWTON_POINTS = 20_000

#: The ridge on the Hessian's bordered matrix, relative to its largest diagonal entry
#: (:meth:`_Master._hessian`): a few hundred ulps, so that it survives the addition, and no more
#: (a larger one moves the small eigenvalues of a smooth kernel's block, and the Newton steps)
HESSIAN_RIDGE = 1e-13

#: The accuracy of a certified model's decision values at the training points, relative to their
#: largest (:func:`_sharpened`): a point short of it is solved again to a tenth of it
DECISION_RTOL = 1e-3


@dataclass
class NativeMasterResult:
    """What :func:`solve_master` (and each family's entry point) returns.

    Attributes
    ----------
    alpha : ndarray
        The family's inner variables at β, in the conic route's units (the C-SVM's α with
        0 ≤ α ≤ C, yᵀα = 0; the ν-regression's 2m-vector [α; α*]; see each family).
    beta : ndarray (p,)
        Weights of the basis terms (non-negative, sum c; zero off ``terms``).
    coef : ndarray (m,)
        Expansion coefficients of the model f(x) = Σ_j coef_j k(x, x_j) − offset.
    offset : float
        b of f (the SOCP's multiplier of the balance constraint, as the conic recovery).
    objective : float
        J(β), the upper bound (the SOCP's objective at the optimum).
    lower_bound : float
        The best certified lower bound g(α) over the whole basis.
    gap : float
        (objective − lower_bound) / max(1, abs(objective)).
    max_violation : float
        Largest omitted term's reduced gradient at the final point (for the norm regulariser the
        omitted cone's violation), clipped at 0.
    terms : ndarray of int
        The basis terms of the final restricted problem.
    status : str
        "optimal" (gap ≤ tol); "optimal_inaccurate" when no term is missing but the gap stays
        above tol (the inner solve's accuracy, ``smo_tol``, is the floor); "iteration_limit" or
        "time_limit".
    rounds, steps, smo_iterations : int
        Outer rounds, β steps (inner solves) and inner iterations (SMO steps) in all.
    total_time : float
    history : list of dict
        Per round: objective, gap, #S (the number of active terms), time.
    extras : dict
        The family's other values at the returned point (the ν-SVM's margin ``rho``, the
        ν-regression's tube ``epsilon``).
    outputs : ndarray (m,) or None
        K(β)u at the training points (the C-SVM: u = y∘α, so f(x_i) = outputs_i − offset without
        a new kernel pass).
    """

    alpha: Array
    beta: Array
    offset: float
    objective: float
    lower_bound: float
    gap: float
    max_violation: float
    terms: NDArray[np.intp]
    status: str
    rounds: int
    steps: int
    smo_iterations: int
    total_time: float
    history: list[dict[str, float]] = field(default_factory=list)
    outputs: Array | None = None
    coef: Array | None = None
    extras: dict[str, float] = field(default_factory=dict)


@dataclass
class InnerSolution:
    """One inner solve of a family at a fixed β (:meth:`MasterFamily.solve`).

    Attributes
    ----------
    alpha : ndarray
        The family's variables (what warm-starts the next solve and what the bundle aggregates).
    u : ndarray (m,)
        The cone vector: q_l(α) = ½ uᵀK_l u.
    Ku : ndarray (m,)
        K(β)u at the training points, with the β (on cΔ) the solve ran with.
    constant : float
        q(α), the concave part of the cut.
    offset : float
        b of the model at this β (f = Σ_j coef_j k(x, x_j) − b).
    n_iter : int
        Inner iterations (SMO steps).
    extras : dict
        Values the family reports with its model (e.g. the ν-SVM's margin ρ).
    factor : BorderedCholesky or None
        M⁻¹ (:class:`~sdpkern.native.dense_cholesky.BorderedCholesky`), M the free block of the
        bordered matrix of the maximiser's :class:`Curvature` (without its rank-one part, which
        the Hessian adds by Sherman-Morrison; the equalities by their Schur complement), where
        the solve factorised it: the alignment's K(β) + εI, the L2-SVM's direct solve, the
        ν-regression's last face step. The master's Hessian solves with it instead of
        factorising again, then drops it (f² memory).
    exact : bool
        False where the solve stopped at the master's ``dual_level`` (the C-SVM's SMO, once its
        dual value shows the point cannot be the best): α is feasible, not the maximiser, so J
        there is a lower bound and the cut's slopes are not D's gradient.
    """

    alpha: Array
    u: Array
    Ku: Array
    constant: float
    offset: float
    n_iter: int
    extras: dict[str, float] = field(default_factory=dict)
    factor: BorderedCholesky | None = None
    exact: bool = True


@dataclass(frozen=True)
class Curvature:
    """Where the inner maximiser is a smooth function of β: its free variables and the equalities
    binding them (:meth:`MasterFamily.curvature`).

    With the variables at their bounds held, the free ones α_F maximise
    q(α) − ½ u(α)ᵀK(β)u(α) subject to ``equalities``·α_F = const, u = Tα with T_{ij} = ``signs``_j
    when i = ``points``_j. Their KKT system gives D's Hessian in β (docs/hyperkernel_derivations.md
    §1.7): ∂²D/∂β_l∂β_k = v_lᵀ N v_k with v_l = T_Fᵀ K_l u and N the free block of the inverse
    of the bordered matrix [[M, Eᵀ], [E, 0]], M = T_Fᵀ K(β) T_F − ∇²q on F.

    Attributes
    ----------
    points : ndarray of int (f,)
        The training point of each free variable.
    signs : ndarray (f,)
        Its entry of T (u_{points_j} gains signs_j·α_j).
    diag : ndarray (f,)
        The diagonal of −∇²q on F (zeros for the families whose q is linear).
    rank_one : ndarray (f,) or None
        w with −∇²q = diag + wwᵀ on F (the L2-SVM's penalised bias), or None.
    equalities : ndarray (k, f)
        The rows of A's equalities on F (k = 0, 1 or 2).
    """

    points: NDArray[np.intp]
    signs: Array
    diag: Array
    rank_one: Array | None
    equalities: Array


def _free(alpha: Array, upper: float | Array) -> NDArray[np.bool_]:
    """Variables strictly inside [0, upper] (the tolerance of :func:`_offset`)."""
    return (alpha > 1e-12 * upper) & (alpha < upper * (1 - 1e-12))


class MasterFamily:
    """One formulation's inner problem D(β) = max_{α ∈ A} q(α) − Σ_l β_l ½u(α)ᵀK_l u(α) (module docstring).

    A family is made per fit (it may keep per-fit state such as the inner tolerance's unit) and
    defines ``name`` and ``source`` (the formulation and its equation), ``scale`` (c of 1ᵀβ = c),
    ``squared`` (the regulariser (λ_Q/2)‖Lᵀβ‖² instead of (λ_Q/2)‖Lᵀβ‖), ``m`` (training points) and:

    * :meth:`solve` (gram, α₀, restrict, opts) → :class:`InnerSolution`, the maximiser at the β
      ``gram`` holds;
    * :meth:`constant` (α) → q(α) and :meth:`vector` (α) → u(α), at any feasible α (the bundle's
      aggregate), consistent with :meth:`solve`;
    * :meth:`coef` (inner) → the expansion coefficients of the model.
    """

    name: ClassVar[str] = "hyperkernel"
    source: ClassVar[str] = ""
    #: whether the inner solve holds K(β) as a dense matrix instead of reading its columns
    dense: ClassVar[bool] = False
    scale: float = 1.0
    squared: bool = False
    m: int = 0

    def solve(
        self, gram: GramOperator, alpha0: Array | None, restrict: Restrict, opts: dict[str, Any]
    ) -> InnerSolution:
        """The maximiser of the inner problem at the β ``gram`` holds (K(β) = Σ_l β_l K_l, 1ᵀβ = c),
        warm-started from ``alpha0``; ``restrict(W)`` is K(β) on a working set W, ``opts`` the
        master's settings (``smo_tol``, ``smo_max_iter``, ``working_set``, ``n_jobs``,
        ``objective_scale``)."""
        raise NotImplementedError

    def constant(self, alpha: Array) -> float:
        """q(α), the concave part of the cut, at any feasible α."""
        raise NotImplementedError

    def vector(self, alpha: Array) -> Array:
        """u(α), linear in α: q_l(α) = ½u(α)ᵀK_l u(α)."""
        raise NotImplementedError

    def coef(self, inner: InnerSolution) -> Array:
        """The expansion coefficients c of the model f(x) = Σ_j c_j k(x, x_j) − offset."""
        raise NotImplementedError

    def curvature(self, alpha: Array) -> Curvature | None:
        """The free variables of the maximiser ``alpha`` and their equalities (:class:`Curvature`),
        or None where the master should not take Newton steps (the default)."""
        return None

    def decisions(self, inner: InnerSolution) -> Array:
        """The model's decision values f(x_i) at the training points, from the solve's outputs."""
        return inner.Ku - inner.offset

    def decision_accuracy(self, opts: dict[str, Any]) -> float:
        """About how far the inner solve's stopping rule leaves :meth:`decisions` from the
        maximiser's: the SMO's KKT tolerance in f's units (``smo_tol`` in margin units here), 0 for
        an exact solve."""
        return float(opts["smo_tol"])

    def quadratic_part(self) -> tuple[Array, float] | None:
        """(y, ε) where A is the whole space, u = α and q(α) = yᵀα − (ε/2)‖α‖² (the alignment):
        D is then matrix-fractional and the master steps on its restriction to a subspace
        (:class:`~sdpkern.native.fractional_model.FractionalModel`); None otherwise (the default)."""
        return None


def _offset(alpha: Array, e: Array, y: Array, box: float | Array) -> float:
    """γ with y_i(Ku)_i = 1 + γy_i on the free support vectors (libsvm's rule at the bounds).

    With per-point boxes, a point of box 0 (weight 0) is neither free nor bounding: it does not
    constrain γ."""
    g = e - y  # γ candidate per point: (Ku)_i − y_i
    # at a bound within rounding (the bundle's convex combinations leave α = C(1 − 2e-16)): the
    # same tolerance for "free" and for the bounds, or a point counts as both
    below = alpha < box * (1 - 1e-12)
    above = alpha > 1e-12 * box
    free = above & below
    if np.any(free):
        return float(np.mean(g[free]))
    # no free SV: γ in the interval the bounded ones allow; its midpoint
    up = ((y > 0) & below) | ((y < 0) & above)
    lo_ = ((y > 0) & above) | ((y < 0) & below)
    hi_v = float(np.min(g[up])) if np.any(up) else 0.0
    lo_v = float(np.max(g[lo_])) if np.any(lo_) else hi_v
    return 0.5 * (hi_v + lo_v)


@dataclass
class _CSVCFamily(MasterFamily):
    """The hyperkernel C-SVM (002 eq. 3.8): A = {0 ≤ α ≤ C w, yᵀα = 0}, q(α) = 1ᵀα, u = y∘α, c = 1.

    The inner problem is scikit-learn's ``SVC`` dual on K(β) (box C w_i per point).
    """

    name: ClassVar[str] = "hyperkernel C-SVM"
    source: ClassVar[str] = "002 eq. (3.8)"
    y: Array
    box: float | Array = 1.0

    def __post_init__(self) -> None:
        self.m = self.y.shape[0]

    def solve(
        self, gram: GramOperator, alpha0: Array | None, restrict: Restrict, opts: dict[str, Any]
    ) -> InnerSolution:
        level = opts.get("dual_level")  # D(β) ≥ q(α) for every feasible α: −q is the core's objective
        sol = solve_csvc(
            gram, self.y, 1.0, sample_weight=np.broadcast_to(self.box, self.y.shape), alpha0=alpha0,
            tol=opts["smo_tol"], max_iter=opts["smo_max_iter"], working_set=opts["working_set"],
            restrict=restrict, n_jobs=opts["n_jobs"], objective_target=None if level is None else -level,
        )  # fmt: skip
        alpha, e = sol.alpha, sol.outputs
        return InnerSolution(
            alpha, self.y * alpha, e, float(alpha.sum()), _offset(alpha, e, self.y, self.box), sol.n_iter,
            exact=sol.status != "objective_target",
        )

    def constant(self, alpha: Array) -> float:
        return float(alpha.sum())

    def vector(self, alpha: Array) -> Array:
        return self.y * alpha

    def coef(self, inner: InnerSolution) -> Array:
        return self.y * inner.alpha

    def curvature(self, alpha: Array) -> Curvature:
        F = np.flatnonzero(_free(alpha, np.broadcast_to(self.box, alpha.shape)))
        yF = self.y[F]
        return Curvature(F, yF, np.zeros(F.size), None, yF[None, :])


@dataclass(frozen=True)
class _Regulariser:
    """R(cβ') over β' ∈ Δ: κ‖Lᵀβ'‖ (``squared`` False) or κ‖Lᵀβ'‖² (module docstring)."""

    weight: float
    squared: bool

    def value(self, beta: Array, L: Array) -> float:
        n = float(np.linalg.norm(L.T @ beta))
        return self.weight * (n * n if self.squared else n)

    def grad(self, beta: Array, L: Array) -> Array:
        """∇R at β' (for the norm at Lᵀβ' = 0 the subgradient 0)."""
        Lb = L.T @ beta
        if self.squared:
            return 2.0 * self.weight * (L @ Lb)
        n = float(np.linalg.norm(Lb))
        return self.weight * (L @ (Lb / n)) if n > 0 else np.zeros(L.shape[0])


@dataclass
class _Point:
    """The best point of the master: J(β'), β' over the restricted terms, the inner solve there,
    c·q over the restricted terms."""

    J: float
    beta: Array
    inner: InnerSolution
    q: Array
    H: Array | None = None  # D's Hessian there, when the inner solve's pass gave it
    # the maximiser's derivatives −∂α/∂β'_l (M⁻¹v_l), for the fractional model, until it holds them
    directions: Array | None = None
    # K_l u on every point for the terms (m, len(terms)), where the Hessian's pass gave them there
    products: Array | None = None


class _Master:
    """The native restricted master (module docstring); one instance per fit."""

    def __init__(self, basis: HyperkernelBasis, family: MasterFamily, lambda_Q: float, opts: dict[str, Any]) -> None:
        self.B, self.family, self.opts = basis, family, opts
        self.p = basis.size
        c = float(family.scale)
        self.c = c
        self.reg = _Regulariser(0.5 * float(lambda_Q) * (c * c if family.squared else c), family.squared)
        self.ops: dict[int, TermGram] = {}
        self.smo_iterations = 0
        # the last inner solve's bordered matrix, filled by its pass and not yet factorised: the
        # Newton step from that point factorises it (:meth:`hessian`); the next inner solve drops it
        self.pending: tuple[_Point, Curvature, Array, Array] | None = None
        # D on the span of the maximisers and their derivatives, where D is matrix-fractional and
        # a dictionary's pass gives the derivatives' products (:meth:`model_step`)
        part = family.quadratic_part()
        self.model = None
        if part is not None and isinstance(basis.hyperkernel, ARDDictionary) and self.reg.squared:
            self.model = FractionalModel(part[0], part[1], c)

    def term_op(self, l: int) -> TermGram:
        if l not in self.ops:
            if isinstance(self.B.hyperkernel, ARDDictionary):  # a few terms, made together: groups share passes
                grams = term_grams(
                    self.B.hyperkernel, self.B.features, self.B.X, cache_bytes=self.opts["term_cache_bytes"],
                    n_jobs=self.opts["n_jobs"],
                )  # fmt: skip
                self.ops = dict(enumerate(grams))
            else:
                self.ops[l] = TermGram(
                    self.B.hyperkernel, self.B.features[l], self.B.X, cache_bytes=self.opts["term_cache_bytes"]
                )
        return self.ops[l]

    def subset_gram(self, terms: NDArray[np.intp], weights: Array, W: NDArray[np.intp]) -> TermGram | SumGram:
        """K(β) on the points W (a working set), with a column cache of its own: the whole
        working-set budget for one term of weight 1, else split as for all points."""
        Xw = np.ascontiguousarray(self.B.X[W])
        budget = self.opts["working_set_cache_bytes"]
        if terms.size == 1 and weights[0] == 1.0:
            return TermGram(self.B.hyperkernel, self.B.features[int(terms[0])], Xw, cache_bytes=budget)
        ops = term_grams(self.B.hyperkernel, self.B.features[terms], Xw, cache_bytes=budget // (2 * terms.size))
        return learned_gram(ops, weights, cache_bytes=budget // 2)

    def quadratics(self, terms: NDArray[np.intp], u: Array) -> Array:
        """½ uᵀK_l u for ``terms``, from the columns of u's support S the terms' caches hold.

        A term whose cache holds every column of S: additions. A dictionary's terms whose caches
        miss at most half of S: the missing columns' rows in S by one pass per relevance vector,
        |missing|·|S| entries. Otherwise one pass over S's pairs per relevance vector,
        |S|²/2 entries (:func:`~sdpkern.kernels.hyperkernel_terms.term_quadratics`).
        """
        nz = np.flatnonzero(u)
        un = u[nz]
        ops = [self.term_op(int(l)) for l in terms]
        have = [op.cached(nz) for op in ops]
        if all(bool(h.all()) for h in have):
            return np.array([0.5 * float(un @ op.matvec(u, rows=nz)) for op in ops])
        if any(op.group is None for op in ops) or 2 * max(int((~h).sum()) for h in have) > nz.size:
            B = self.B
            return term_quadratics(B.hyperkernel, B.features[terms], B.X, u, n_jobs=self.opts["n_jobs"])
        out = np.empty(len(ops))
        for group, ks in grouped(ops)[1]:
            missing = np.logical_or.reduce([~have[k] for k in ks])
            blk = group.scale_columns(nz, nz[missing]) if missing.any() else None  # (S, |missing|, |S|)
            for k in ks:
                op, h = ops[k], have[k]
                cols = np.ascontiguousarray(nz[h])
                Ku = op.cache.weighted_sum(cols, np.ascontiguousarray(un[h]))[nz]  # K_l[S, cached] u
                if blk is not None:
                    mine = ~h[missing]  # of the group's missing columns, those this term lacks
                    Ku += blk[op.group_index][mine].T @ un[missing][mine]
                out[k] = 0.5 * float(un @ Ku)
        return out

    def free_blocks(
        self, terms: NDArray[np.intp], beta: Array, u: Array, F: NDArray[np.intp], K: Array | None
    ) -> Array:
        """(K_l u)[F] for ``terms`` (an array (len(F), len(terms))), and K(β)[F, F] (β = cβ') added
        to ``K`` unless it is None (on and below its diagonal at least: LAPACK reads that
        triangle), from one pass over the rows F and the columns of u's support and F: for a
        dictionary one compiled pass per relevance vector, nothing cached: over F's pairs' lower
        triangle (:func:`~sdpkern.kernels.hyperkernel_terms.dictionary_products`), half the pairs,
        then F's rows and the columns of u's support outside F (the points at a bound)."""
        B = self.B
        rest = np.setdiff1d(np.flatnonzero(u), F, assume_unique=True)
        if not isinstance(B.hyperkernel, ARDDictionary):
            # F's columns first: K(β)[F, F] is then the blocks' first len(F) columns, a view, where
            # picking them out of the sorted columns copied them
            return self._row_products(terms, beta, u, F, np.concatenate([F, rest]), K)
        gram = None if K is None else (self.c * beta, K)
        out = dictionary_products(B.hyperkernel, B.features[terms], B.X[F], u[F], gram=gram, n_jobs=self.opts["n_jobs"])
        if rest.size:
            out += self._row_products(terms, beta, u, F, rest, None)
        return np.asarray(out, dtype=np.float64)

    def _row_products(
        self, terms: NDArray[np.intp], beta: Array, u: Array, F: NDArray[np.intp], cols: NDArray[np.intp],
        K: Array | None,
    ) -> Array:  # fmt: skip
        """(K_l[F, cols] u[cols]) for ``terms`` (an array (len(F), len(terms))) and, unless ``K`` is
        None, K(β)[F, F] added to it (``cols`` then starts with F): blocks of rows F by the terms'
        compiled passes (a dictionary's terms of one relevance vector in one), nothing cached."""
        B = self.B
        uc = np.ascontiguousarray(u[cols])
        ops = [self.term_op(int(l)) for l in terms]
        w = self.c * beta
        V = np.empty((F.size, len(ops)))

        def add(part: slice, blk: Array, ks: list[int], pick: list[int] | None = None) -> None:
            """blk[pick]: K_k[F[part], cols] for k in ks (all of blk where pick is None)."""
            blk = blk if pick is None else blk[pick]
            V[part, ks] = (blk @ uc).T
            if K is not None:
                K[part] += np.tensordot(w[ks], blk, axes=1)[:, : F.size]

        plain, shared = grouped(ops)
        step = max(1, (1 << 22) // max(1, len(plain) * cols.size))
        for lo in range(0, F.size if plain else 0, step):
            part = slice(lo, min(lo + step, F.size))
            add(part, term_block(B.hyperkernel, B.features[terms[plain]], B.X[F[part]], B.X[cols]), plain)
        for group, ks in shared:
            idx = [ops[k].group_index for k in ks]
            pick = None if idx == list(range(group.weights.size)) else idx
            # in the threads that compute the chunks: each writes its own rows of V and K
            group.each_row_block(F, cols, partial(add, ks=ks, pick=pick))
        return V

    def model_step(self, terms: NDArray[np.intp], point: _Point) -> Array | None:
        """The minimiser over Δ_S of the fractional model plus R (:mod:`.fractional_model`), its
        span first grown by the maximiser's derivatives at ``point`` along the terms it weights
        (one pass for their K_l products: the model then has D's Hessian there); None without a
        model."""
        model = self.model
        if model is None:
            return None
        if point.directions is not None:
            Z = np.ascontiguousarray(point.directions[:, point.beta > 0])
            point.directions = None
            hk, B = self.B.hyperkernel, self.B
            if Z.shape[1] and isinstance(hk, ARDDictionary):  # the model is made for dictionaries only
                model.add(terms, Z, dictionary_products(hk, B.features[terms], B.X, Z, n_jobs=self.opts["n_jobs"]))
        if model.terms is None or not np.array_equal(model.terms, terms) or model.size == 0:
            return None  # no column over these terms yet
        return _model_min_newton(model, point.beta, self.B.L[terms], self.reg)

    def hessian(self, terms: NDArray[np.intp], point: _Point) -> Array | None:
        """D's Hessian in β' over ``terms`` at ``point`` (:class:`Curvature`), or None when the
        family gives none, no variable is free, or more than ``opts["newton_points"]`` are (its
        dense f × f factorisation would cost more than the β steps it saves)."""
        if point.H is not None:
            return point.H
        if self.pending is not None and self.pending[0] is point:
            _, ready, Ku, M = self.pending
            self.pending = None
            held = [M]
            del M  # held alone keeps it: freed when the factorisation fails (_solve_hessian)
            return self._solve_hessian(ready, Ku, held, None, partial(self._bordered, terms, point.beta, point.inner.u))
        cv = self._curvature(point.inner.alpha)
        return None if cv is None else self._hessian(terms, point.beta, point.inner.u, cv)[0]

    def _curvature(self, alpha: Array, factored: bool = False) -> Curvature | None:
        """The family's :class:`Curvature` at ``alpha``, or None where it gives none, no variable is
        free, ``opts["newton_points"]`` is 0 (level steps only), or more than that many are free
        and the inner solve did not factorise the bordered matrix itself (``factored``)."""
        cv, cap = self.family.curvature(alpha), self.opts["newton_points"]
        if cv is None or cv.points.size == 0 or cap == 0 or (cv.points.size > cap and not factored):
            return None
        return cv

    def _hessian(self, terms: NDArray[np.intp], beta: Array, u: Array, cv: Curvature) -> tuple[Array | None, Array]:
        """D's Hessian at β' (:meth:`hessian`), or None where the bordered matrix is singular, and
        the pass's (K_l u)[F], an array (len(F), len(terms))."""
        M, Ku = self._bordered(terms, beta, u, cv)
        held = [M]
        del M
        return self._solve_hessian(cv, Ku, held, None, partial(self._bordered, terms, beta, u)), Ku

    def _bordered(
        self, terms: NDArray[np.intp], beta: Array, u: Array, cv: Curvature, border: bool = False
    ) -> tuple[Array, Array]:
        """M = T_Fᵀ K(β) T_F + diag(−∇²q) on F (Fortran order, to be factorised in place; with
        ``border`` inside the bordered matrix [[M, Eᵀ], [E, 0]]) and (K_l u)[F], from one pass
        (:meth:`free_blocks`)."""
        F, t, E = cv.points, cv.signs, cv.equalities
        f, k = F.size, E.shape[0] if border else 0
        kkt = np.zeros((f + k, f + k), order="F")  # LAPACK's order: factorised in place
        M = kkt[:f, :f]
        Ku = self.free_blocks(terms, beta, u, F, M)
        M *= t[:, None]
        M *= t[None, :]
        M[np.diag_indices(f)] += cv.diag
        # free copies of one point (repeated points, integer sample weights) make M singular,
        # their rows equal; V is equal on them too, so a ridge of HESSIAN_RIDGE × M's largest
        # diagonal entry gives M's least-norm solution on them instead of no Newton step
        M[np.diag_indices(f)] += HESSIAN_RIDGE * max(float(M.diagonal().max()), np.finfo(float).tiny)
        kkt[:f, f:], kkt[f:, :f] = E.T[:, :k], E[:k]
        return kkt, Ku

    def _solve_hessian(
        self, cv: Curvature, Ku: Array, held: list[Array], factor: BorderedCholesky | None,
        bordered: Callable[[Curvature, bool], tuple[Array, Array]] | None = None,
        solved: list[Array] | None = None,
    ) -> Array | None:  # fmt: skip
        """D's Hessian c²VᵀN V from (K_l u)[F] and M (``held``, popped: factorised in place) or
        its ``factor``; None where the bordered matrix is singular. N V (the maximiser's
        derivatives −∂α_F/∂β_l) is appended to ``solved`` when it is a list.

        M is positive definite where K(β) is semidefinite (every family's −∇²q diagonal is ≥ 0,
        and the ridge): its Cholesky factorisation, and E's rows by their Schur complement E M⁻¹Eᵀ.
        Where M is not definite in floating point, ``bordered`` builds the bordered matrix again
        for LAPACK's symmetric indefinite solve (the Cholesky factorisation takes half its time)."""
        from threadpoolctl import threadpool_limits

        F, t, E = cv.points, cv.signs, cv.equalities
        f, k = F.size, E.shape[0]
        V = t[:, None] * Ku  # v_l = T_Fᵀ K_l u
        cols = V.shape[1] + (cv.rank_one is not None)
        rhs = np.zeros((f, cols + k), order="F")
        rhs[:, : V.shape[1]] = V
        if cv.rank_one is not None:  # M + wwᵀ by Sherman-Morrison: one more right-hand side, no f × f outer product
            rhs[:, cols - 1] = cv.rank_one
        rhs[:, cols:] = E.T
        Z: Array | None
        with threadpool_limits(limits=self.opts["n_jobs"], user_api="blas"):
            if factor is not None:  # the inner solve's, of the same M (with its ridge)
                Z = factor(rhs)
            else:
                Z = _solve_symmetric(held.pop(), rhs, True)
                if Z is None and bordered is not None:
                    kkt = bordered(cv, True)[0]
                    Zb = _solve_symmetric(kkt, np.vstack([rhs[:, :cols], np.zeros((k, cols))]), False)
                    del kkt
                    if Zb is None:
                        return None
                    Z, k = Zb[:f], 0  # the borders already solved for
        if Z is None:
            return None
        X = Z[:, :cols]
        if k:
            Y = Z[:, cols:]
            try:
                X = X - Y @ np.linalg.solve(E @ Y, E @ X)
            except np.linalg.LinAlgError:
                return None  # E's rows dependent on F: the bordered matrix is singular
        if cv.rank_one is not None:
            z, w = X[:, -1], cv.rank_one
            X = X[:, :-1]
            X = X - np.outer(z, (w @ X) / (1.0 + float(w @ z)))
        H = self.c * self.c * (V.T @ X)
        if solved is not None:
            solved.append(X)
        return 0.5 * (H + H.T) if np.all(np.isfinite(H)) else None

    def inner(self, terms: NDArray[np.intp], beta: Array, alpha0: Array | None) -> _Point:
        """The family's inner solve at β' over ``terms`` (K(β) with β = cβ'): the point with J(β')
        and the cut's slopes c·q_l over ``terms``, warm-started from ``alpha0``."""
        self.pending = None  # its f × f matrix is not kept beside this solve's caches
        weights = self.c * beta
        gram = learned_gram([self.term_op(int(l)) for l in terms], weights, cache_bytes=self.opts["sum_cache_bytes"])
        sol = self.family.solve(gram, alpha0, lambda W: self.subset_gram(terms, weights, W), self.opts)
        del gram  # K(β)'s column cache (up to 7/8 of cache_bytes) serves this β only: not beside the Hessian's matrix
        self.smo_iterations += sol.n_iter
        u = sol.u
        H = None
        pending = None
        directions = products = None
        factor, sol.factor = sol.factor, None  # m² memory: not kept with the point
        cv = None if terms.size == 1 else self._curvature(sol.alpha, factored=factor is not None)
        if terms.size == 1:  # K(β) = c K_l: c q_l from the solve's own outputs Ku = c K_l u
            q = np.array([0.5 * float(u @ sol.Ku)])
        elif cv is not None and factor is not None:
            # the solve's factor of M: the Newton step is ready from one pass over the free points
            # and u's support (the ν-regression's points at ±C are in the support, not free), which
            # gives every (K_l u) there, hence the cut
            R = np.union1d(cv.points, np.flatnonzero(u))
            Ku = self.free_blocks(terms, beta, u, R, None)
            solved: list[Array] = []
            H = self._solve_hessian(cv, Ku[np.searchsorted(R, cv.points)], [], factor, solved=solved)
            q = self.c * 0.5 * (u[R] @ Ku)
            if self.model is not None and R.size == cv.points.size == self.family.m:  # u = α: a model column
                self.model.add(terms, u[:, None], Ku[:, :, None])
                directions, products = (solved[0] if solved else None), Ku
        elif cv is not None and np.array_equal(cv.points, np.flatnonzero(u)):
            # u's support is the free set (the L2-SVM, the alignment, the ν-regression): the Hessian's
            # pass over the support gives every (K_l u)[S], hence the cut. The factorisation (f³/3
            # flops) waits until a Newton step from this point is due, which a certified or worse
            # point never needs
            M, Ku = self._bordered(terms, beta, u, cv)
            pending = (cv, Ku, M)
            del M
            q = self.c * 0.5 * (u[cv.points] @ Ku)
        else:
            q = self.c * self.quadratics(terms, u)
        del factor
        D = sol.constant - 0.5 * float(u @ sol.Ku)
        point = _Point(D + self.reg.value(beta, self.B.L[terms]), beta, sol, q, H, directions, products)
        if pending is not None:
            self.pending = (point, *pending)
        return point


def _solve_symmetric(A: Array, B: Array, definite: bool) -> Array | None:
    """A⁻¹B for a symmetric A (Fortran order, overwritten by its factor; only its lower triangle
    is read): the Cholesky solve (:mod:`.dense_cholesky`) where A is positive definite (no
    pivoting), else LAPACK's symmetric indefinite (Bunch-Kaufman) solve; None where the
    factorisation meets an exactly singular pivot."""
    from scipy.linalg import LinAlgError, cho_solve, lapack

    if definite:
        try:
            return np.asarray(cho_solve(cho_factor(A, lower=True, overwrite_a=True), B, check_finite=False))
        except LinAlgError:
            return None  # not positive definite in floating point: no Newton step here
    lwork = int(lapack.dsysv_lwork(A.shape[0], lower=1)[0])
    _, _, X, info = lapack.dsysv(A, B, lwork=max(lwork, 1), lower=1, overwrite_a=1, overwrite_b=0)
    if info < 0:
        raise RuntimeError(f"dsysv: argument {-info} invalid")
    return np.asarray(X) if info == 0 else None


def _simplex_socp(
    n: int, c: Array, rows: Array, rhs: Array, Ls: Array, cone: str | None, P: Array | None = None,
    tol: float | None = None,
) -> tuple[Any, Array] | None:
    """Clarabel on x = (β, extra…, t): min ½xᵀPx + cᵀx s.t. 1ᵀβ = 1, ``rows``·x ≤ ``rhs``, β ≥ 0 and,
    unless ``cone`` is None, ‖L_Sᵀβ‖ ≤ t (``"norm"``) or ‖L_Sᵀβ‖² ≤ t (``"squared"``: the second-order
    cone ‖(t − 1, 2L_Sᵀβ)‖ ≤ t + 1), t the last variable.

    The β steps and the certificate's bound are small SOCPs (abs(S) + 2 variables) solved once per
    step: calling Clarabel directly skips CVXPY's canonicalisation, which cost each ~50× the solve.
    Returns (solution, the multipliers of ``rows``), or None when Clarabel does not solve it.
    """
    import clarabel
    from scipy import sparse

    nx = c.shape[0]
    blocks = [sparse.csr_matrix(np.concatenate([np.ones(n), np.zeros(nx - n)])[None, :])]
    blocks.append(sparse.csr_matrix(rows))
    neg = sparse.hstack([-sparse.identity(n), sparse.csr_matrix((n, nx - n))])
    blocks.append(neg)
    b = [np.ones(1), rhs, np.zeros(n)]
    cones = [clarabel.ZeroConeT(1), clarabel.NonnegativeConeT(rows.shape[0] + n)]
    if cone is not None:
        k = Ls.shape[1]
        head = 2 if cone == "squared" else 1
        soc = np.zeros((head + k, nx))
        soc[:head, nx - 1] = -1.0
        soc[head:, :n] = -(2.0 if cone == "squared" else 1.0) * Ls.T
        blocks.append(sparse.csr_matrix(soc))
        b.append(np.concatenate([[1.0, -1.0] if cone == "squared" else [0.0], np.zeros(k)]))
        cones.append(clarabel.SecondOrderConeT(head + k))
    A = sparse.vstack(blocks).tocsc()
    Pm = sparse.csc_matrix((nx, nx)) if P is None else sparse.triu(sparse.csc_matrix(P)).tocsc()
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    if tol is not None:
        settings.tol_gap_abs = settings.tol_gap_rel = settings.tol_feas = tol
    sol = clarabel.DefaultSolver(Pm, np.asarray(c, dtype=np.float64), A, np.concatenate(b), cones, settings).solve()
    if str(sol.status) not in ("Solved", "AlmostSolved"):
        return None
    z = np.asarray(sol.z, dtype=np.float64)
    return sol, z[1 : 1 + rows.shape[0]]


def _cone_of(reg: _Regulariser) -> str | None:
    if reg.weight == 0.0:
        return None
    return "squared" if reg.squared else "norm"


def _model_min(a: Array, Q: Array, Ls: Array, reg: _Regulariser) -> tuple[float, Array, Array]:
    """min_{β ∈ Δ_S} max_k (a_k − Q_kᵀβ) + R(β): the cutting-plane model's minimum.

    Returns (value, β, λ) with λ ≥ 0, Σλ = 1 the cuts' multipliers (for the aggregate α).
    """
    n, k = Q.shape[1], a.shape[0]
    cone = _cone_of(reg)
    nx = n + 1 + int(cone is not None)  # (β, θ[, t])
    c = np.zeros(nx)
    c[n] = 1.0
    if cone is not None:
        c[-1] = reg.weight
    # the cuts and the regulariser in units of their largest entry: with C·Σw in the 1e10s (a
    # hard margin asked for by a huge C) Clarabel fails on the unscaled data
    # (θ in that unit too: a_k/s − Q_kᵀβ/s ≤ θ/s, the objective (θ + κt)/s)
    s = _data_scale(a, Q, reg.weight)
    if cone is not None:
        c[-1] /= s
    rows = np.zeros((k, nx))  # a_k − Q_kᵀβ ≤ θ
    rows[:, :n] = -Q / s
    rows[:, n] = -1.0
    out = _simplex_socp(n, c, rows, -a / s, Ls, cone, tol=1e-11) or _simplex_socp(n, c, rows, -a / s, Ls, cone)
    if out is None:
        raise SolverError("the bundle's cutting-plane model (a small SOCP) was not solved by Clarabel")
    sol, lam = out
    x = np.asarray(sol.x, dtype=np.float64)
    lam = np.clip(lam, 0.0, None)
    lam = lam / lam.sum() if lam.sum() > 0 else np.full(k, 1.0 / k)
    # the lower of the primal and dual values: the restricted loop stops on J − value ≤ tol, and
    # the unit s (the largest cut, from the first steps: 1e5 where J is 25) scales the solver's
    # absolute error; a value above the model's minimum (from J by more than that) stalled it
    return s * min(float(sol.obj_val), float(sol.obj_val_dual)), np.clip(x[:n], 0.0, None), lam


def _data_scale(*parts: Any) -> float:
    """The largest absolute entry of ``parts`` (at least 1): the small SOCPs' unit."""
    return max(1.0, *(float(np.max(np.abs(v), initial=0.0)) for v in parts))


def _simplex_min(q: Array, L: Array, reg: _Regulariser) -> float:
    """min_{β ∈ Δ} R(β) − qᵀβ over the whole basis (a small SOCP; closed form when R = 0)."""
    cone = _cone_of(reg)
    if cone is None:
        return float(-q.max())
    n = q.shape[0]
    c = np.concatenate([-q, [reg.weight]])
    out = _simplex_socp(n, c, np.zeros((0, n + 1)), np.zeros(0), L, cone, tol=1e-11)
    s = 1.0
    if out is None or str(out[0].status) != "Solved":
        # data in the 1e10s (a huge C): the same problem in the unit of its largest entry
        s = _data_scale(q, reg.weight)
        out = _simplex_socp(n, c / s, np.zeros((0, n + 1)), np.zeros(0), L, cone, tol=1e-11) if s > 1.0 else out
    # A bound for sure is the minimum over the simplex of R's linearisation at any β̂ (R is convex):
    # R(β̂) − ∇R(β̂)ᵀβ̂ + min_l (∇R(β̂)_l − q_l); but at the solver's β the linearisation loses up to
    # ‖∇R‖·|δβ| (measured 1e-6 relative at λ_Q = 100 for the norm); the interior-point value at gap
    # tolerance 1e-11 is used when it is the larger: the certificate then holds to that tolerance.
    if out is None:
        return float(-q.max())  # R ≥ 0: a weaker bound that always holds
    sol, _ = out
    bv = np.clip(np.asarray(sol.x, dtype=np.float64)[:n], 0.0, None)
    bv = bv / bv.sum() if bv.sum() > 0 else np.full(n, 1.0 / n)
    g = reg.grad(bv, L)
    lin = reg.value(bv, L) - float(g @ bv) + float(np.min(g - q))
    return max(lin, s * float(sol.obj_val) if str(sol.status) == "Solved" else -np.inf)


def _level_step(a: Array, Q: Array, Ls: Array, reg: _Regulariser, center: Array, level: float) -> Array | None:
    """Projection of ``center`` on {β ∈ Δ_S : a_k − Q_kᵀβ + R(β) ≤ level ∀k}."""
    n, k = Q.shape[1], a.shape[0]
    cone = _cone_of(reg)
    nx = n + int(cone is not None)  # (β[, t])
    P = np.zeros((nx, nx))
    P[:n, :n] = 2.0 * np.eye(n)
    c = np.zeros(nx)
    c[:n] = -2.0 * center
    rows = np.zeros((k, nx))  # a_k − Q_kᵀβ + κt ≤ level
    rows[:, :n] = -Q
    if cone is not None:
        rows[:, n] = reg.weight
    s = _data_scale(rows, level - a)  # the constraints in their own unit (see _model_min)
    out = _simplex_socp(n, c, rows / s, (level - a) / s, Ls, cone, P=P)
    if out is None:
        return None
    bv = np.clip(np.asarray(out[0].x, dtype=np.float64)[:n], 0.0, None)
    return bv / bv.sum() if bv.sum() > 0 else None


def _newton_step(q: Array, center: Array, H: Array, Ls: Array, reg: _Regulariser) -> Array | None:
    """argmin_{β ∈ Δ_S} −qᵀβ + ½(β − β̂)ᵀH(β − β̂) + R(β): D's quadratic model at β̂ (slopes q,
    curvature H) plus the exact regulariser: κ‖Lᵀβ‖² as the quadratic βᵀ(κLLᵀ)β, the norm by its cone."""
    n = center.shape[0]
    cone = None if reg.squared else _cone_of(reg)
    nx = n + int(cone is not None)  # (β[, t])
    P = np.zeros((nx, nx))
    P[:n, :n] = H + 2.0 * reg.weight * (Ls @ Ls.T) if reg.squared else H
    c = np.zeros(nx)
    c[:n] = -q - H @ center
    if cone is not None:
        c[n] = reg.weight
    s = _data_scale(P, c)
    # at tolerance 1e-11 (the default as a fallback) and the squared regulariser in P, not a cone:
    # the model's values are of H's size, orders above the differences of J between the last
    # steps, and a step solved less tightly stalled short of the minimum (docs/hyperkernel.md,
    # "The Newton step's accuracy")
    args = (n, c / s, np.zeros((0, nx)), np.zeros(0), Ls, cone)
    out = _simplex_socp(*args, P=P / s, tol=1e-11) or _simplex_socp(*args, P=P / s)
    if out is None:
        return None
    bv = np.clip(np.asarray(out[0].x, dtype=np.float64)[:n], 0.0, None)
    return bv / bv.sum() if bv.sum() > 0 else None


#: Newton steps on the fractional model per β step (it converges in a few: the model is smooth)
MODEL_NEWTON_STEPS = 50


def _model_min_newton(model: FractionalModel, start: Array, Ls: Array, reg: _Regulariser) -> Array:
    """argmin over Δ_S of D_W + R (the fractional model, docs/hyperkernel_derivations.md §1.8) by
    Newton's method on it from ``start``: each step :func:`_newton_step` on the model's own value,
    slopes and Hessian (which cost no kernel evaluation), then a backtracking line search
    (Armijo's condition, 1e-4; Nocedal & Wright §3.1), until the step's slope is below 1e-13 of
    max(1, J_W). β + t(β_N − β) stays in the simplex. A Newton step on the model from the best
    point is the master's own Newton step where the model holds D's Hessian there; the line
    search and the further steps follow D_W's rational shape where D's quadratic model does not."""
    basis = model.basis()
    beta = start

    def J(b: Array) -> float:
        return model.value(b, basis) + reg.value(b, Ls)

    Jb = J(beta)
    for _ in range(MODEL_NEWTON_STEPS):
        _, q, H = model.derivatives(beta, basis)
        nb = _newton_step(q, beta, H, Ls, reg)
        if nb is None:
            break
        d = nb - beta
        slope = float((reg.grad(beta, Ls) - q) @ d)
        if slope >= -1e-13 * max(1.0, abs(Jb)):
            break
        t = 1.0
        while J(beta + t * d) > Jb + 1e-4 * t * slope:
            t *= 0.5
            if t < 1e-12:
                return beta
        beta = beta + t * d
        Jb = J(beta)
    return beta


def _reduced_gradients(q: Array, L: Array, beta: Array, reg: _Regulariser) -> Array:
    """Per term, (q_l − ∂_l R) − Σ_k β_k (q_k − ∂_k R) at β (q the cut's slopes c·q_l).

    For the norm this is the cone's violation q_l − μ(Lw)_l + τ at w = Lᵀβ/‖Lᵀβ‖,
    τ = μ‖Lᵀβ‖ − qᵀβ: (α, w, min_l(μ(Lw)_l − q_l)) is feasible for the SOCP, so J(β) minus the
    bound it gives is the largest entry (the certificate, module docstring). In general a term
    with a positive entry lowers J when it enters.
    """
    d = q - reg.grad(beta, L)
    return d - float(d @ beta)


def _check_options(lambda_Q: float, tol: float, counts: dict[str, Any]) -> dict[str, int]:
    check_positive(lambda_Q, "lambda_Q", allow_zero=True)
    check_positive(tol, "tol")
    return {name: check_integer(v, name, 1) for name, v in counts.items()}


def _add_terms(
    master: _Master, terms: NDArray[np.intp], cand: NDArray[np.intp], beta_full: Array, best: _Point
) -> tuple[NDArray[np.intp], _Point]:
    """The restricted set grown by the candidate terms; the best point carried over, its β padded
    with the zeros of the new terms and its quadratics c·½uᵀK_l u computed for them."""
    B = master.B
    new_terms = np.union1d(terms, cand)
    u = best.inner.u
    q = master.c * term_quadratics(B.hyperkernel, B.features[new_terms], B.X, u, n_jobs=master.opts["n_jobs"])
    return new_terms, _Point(best.J, beta_full[new_terms], best.inner, q)


def solve_master(
    basis: HyperkernelBasis,
    family: MasterFamily,
    *,
    lambda_Q: float = 1.0,
    tol: float = 1e-6,
    initial_terms: int = 1,
    add_per_round: int = 3,
    max_rounds: int = 50,
    max_steps: int = 500,
    smo_tol: float = 1e-7,
    smo_max_iter: int = 100_000_000,
    cache_bytes: int | None = None,
    time_limit: float | None = None,
    progress: bool = False,
    n_jobs: int = 1,
    working_set: int = WORKING_SET,
    working_set_cache_bytes: int = WORKING_SET_CACHE_BYTES,
    newton_points: int = NEWTON_POINTS,
) -> NativeMasterResult:
    """A hyperkernel SOCP form (002 eqs. 3.8-3.13) by constraint generation with a native master.

    The one outer loop of every family (module docstring): constraint generation over the basis
    terms, a level-bundle β step on the restricted terms, and a certificate by the relative gap
    J(β) − g(α) ≤ ``tol``·max(1, abs(J(β))) over the whole basis. The family's entry points
    (:func:`hyperkernel_csvm_native`, :mod:`sdpkern.native.hyperkernel_families`) check their
    data and call this.

    Parameters
    ----------
    basis : HyperkernelBasis
        The expansion terms (e.g. :func:`~sdpkern.kernels.hyperkernel_terms.sampled_basis`, or an
        :class:`~sdpkern.kernels.hyperkernels.ARDDictionary`'s own basis).
    family : MasterFamily
        The formulation's inner problem, made for this fit on ``basis.X``.
    lambda_Q : float
        λ_Q of the formulation.
    tol : float
        Relative gap that certifies the optimum.
    initial_terms, add_per_round, max_rounds
        The outer loop (as :func:`~sdpkern.builders.hyperkernel.cone_generation`). One initial
        term (the first pivot, largest hyperkernel diagonal) by default: with one term the
        restricted problem is a single inner solve, and it is often the optimum (measured:
        twonorm m = 5000 certified after 1 solve instead of 11 with three).
    max_steps : int
        Cap on β steps (inner solves) over all rounds.
    smo_tol, smo_max_iter
        The inner solve's stopping rule (its largest KKT violation, relative to the family's
        gradient scale: margin units for the C-SVM) and iteration cap.
    cache_bytes : int or None
        Memory for kernel columns: K(β)'s cache gets half, or up to 7/8 what all its m columns need
        (above about 8000 points), and the terms' caches share the rest equally. None: the
        budget of :func:`column_cache_bytes` (all m columns of K(β), and at least 1 GiB).
    time_limit : float or None
        Seconds; when hit, the best point so far is returned with status "time_limit".
    progress : bool
        Show a tqdm bar with the current gap.
    n_jobs : int
        Threads for the compiled passes over the kernel (the certificate's quadratics ½uᵀK_l u,
        :func:`~sdpkern.kernels.hyperkernel_terms.term_quadratics`; batches of columns; the
        Hessian's blocks), the BLAS factorisations, the outputs of the points outside a working
        set, and, from 2, a second thread for the inner SVM's SMO passes
        (:func:`~sdpkern.native.svm_core.solve_qp`).
    working_set, working_set_cache_bytes : int
        Above ``working_set`` points each SVM solve is a decomposition over working sets of
        about that many points (the core's decomposition,
        :func:`~sdpkern.native.svm_core.solve_qp`), whose SMO gets a column cache of
        ``working_set_cache_bytes`` (columns of abs(W) entries: the default holds those of
        12,800 support vectors at abs(W) = 30,000).
    newton_points : int
        The β step is a Newton step on D's exact Hessian (:class:`Curvature`,
        docs/hyperkernel_derivations.md §1.7) while the inner maximiser has at most this many free
        variables (its cost: a dense factorisation of that size), a level-bundle step otherwise
        and after a Newton step that did not lower J; 0 for level steps only. Where the inner
        solve factorises that matrix itself (the alignment) any size takes Newton steps.

    Returns
    -------
    NativeMasterResult
    """
    n = _check_options(
        lambda_Q, tol,
        {"initial_terms": initial_terms, "add_per_round": add_per_round, "max_rounds": max_rounds,
         "max_steps": max_steps, "working_set": working_set, "working_set_cache_bytes": working_set_cache_bytes},
    )  # fmt: skip
    newton_points = check_integer(newton_points, "newton_points", 0)
    t0 = time.perf_counter()
    p = basis.size
    terms = np.arange(min(n["initial_terms"], p))
    budget = column_cache_bytes(basis.X.shape[0], cache_bytes, dense=family.dense, working_set=n["working_set"])
    opts = _master_options(basis, n["initial_terms"], budget, smo_tol, smo_max_iter, n_jobs)
    opts |= {"working_set": n["working_set"], "working_set_cache_bytes": n["working_set_cache_bytes"],
             "working_set_rounds": 100, "newton_points": newton_points}  # fmt: skip
    # one BLAS thread (or n_jobs where a pass asks for more): the loop's BLAS calls are small
    # products between compiled passes, after each of which idle OpenBLAS threads spin on the
    # other core (docs/hyperkernel.md, "One BLAS thread")
    with _one_blas_thread():
        master = _Master(basis, family, float(lambda_Q), opts)
        best = master.inner(terms, np.full(terms.size, 1.0 / terms.size), None)
        cuts: list[_Cut] = [_Cut(best.inner.constant, _full(best.q, terms, p), best.inner.alpha, best.products, terms)]
        history: list[dict[str, float]] = []
        status, steps, rounds, gap, worst, lower = "iteration_limit", 1, 0, np.inf, np.inf, -np.inf
        inner_tol = tol / 3
        from tqdm.auto import tqdm

        with tqdm(total=None, disable=not progress, desc=family.name, unit="step") as bar:
            for round_ in range(1, n["max_rounds"] + 1):
                rounds = round_
                limits = (inner_tol, n["max_steps"], t0, time_limit)
                best, steps, stop, agg, agg_products = _restricted(master, terms, best, cuts, steps, limits, bar)
                J = best.J
                margin = tol * max(1.0, abs(J))
                lower, beta_full, omitted = _certify(master, terms, best.beta, agg, lower, cuts, margin, agg_products)
                if J - lower > margin:
                    # after Newton steps the cuts are few and the aggregate a poor dual point; the best
                    # point's own maximiser is the dual optimum where D is smooth (the L2-SVM, the
                    # alignment): its bound when it is the higher
                    own, _, own_omitted = _certify(
                        master, terms, best.beta, best.inner.alpha, lower, cuts, margin, best.products
                    )
                    if own > lower:
                        lower, omitted = own, own_omitted
                gap = max(J - lower, 0.0) / max(1.0, abs(J))
                worst = max(float(omitted.max()) if omitted.size else 0.0, 0.0)
                history.append(
                    {"objective": J, "gap": gap, "terms": float(terms.size), "time": time.perf_counter() - t0}
                )
                bar.set_postfix(gap=f"{gap:.1e}", terms=terms.size)
                if gap <= tol:
                    status = "optimal"
                    break
                if stop is not None:
                    status = stop
                    break
                cand = np.argsort(omitted)[::-1][: n["add_per_round"]]
                cand = cand[omitted[cand] > 0.5 * tol * max(1.0, abs(J))]
                if cand.size == 0:  # only the restricted solve is short of tol: solve it tighter
                    if inner_tol < 1e-4 * tol:  # the inner solve's accuracy is the floor
                        status = "optimal_inaccurate"
                        break
                    inner_tol /= 10
                    continue
                terms, best = _add_terms(master, terms, cand, beta_full, best)
    if status == "optimal":
        best = _sharpened(master, terms, best)
        gap = max(best.J - lower, 0.0) / max(1.0, abs(best.J))
        status = "optimal" if gap <= tol else "optimal_inaccurate"
    stats = {"lower_bound": lower, "gap": gap, "max_violation": worst, "status": status, "rounds": rounds,
             "steps": steps, "total_time": time.perf_counter() - t0, "history": history}  # fmt: skip
    return _result(master, terms, best, stats)


def _sharpened(master: _Master, terms: NDArray[np.intp], best: _Point) -> _Point:
    """The certified point, its inner problem solved again where the inner tolerance leaves the
    model's decision values less accurate than :data:`DECISION_RTOL` of their largest, to a tenth
    of that.

    The inner tolerance is set for the certificate, whose unit is max(1, abs(J)). A nearly
    degenerate model (a ν-SVM whose margin ρ is 1e-4 of that unit, its kernel nearly constant) is
    then certified with decision values correct only to a few per cent of their size."""
    family, opts = master.family, master.opts
    target = 0.1 * DECISION_RTOL * float(np.max(np.abs(family.decisions(best.inner))))
    accuracy = family.decision_accuracy(opts)
    if not 0.0 < 10.0 * target < accuracy:
        return best
    smo_tol, level = opts["smo_tol"], opts.get("dual_level")
    opts["smo_tol"], opts["dual_level"] = smo_tol * target / accuracy, None
    try:
        return master.inner(terms, best.beta, best.inner.alpha)
    finally:
        opts["smo_tol"], opts["dual_level"] = smo_tol, level


def _result(master: _Master, terms: NDArray[np.intp], best: _Point, stats: dict[str, Any]) -> NativeMasterResult:
    """The master's answer at its best point: β = cβ' over the whole basis, the model of the inner
    solve there."""
    sol = best.inner
    return NativeMasterResult(
        alpha=sol.alpha, beta=master.c * _full(best.beta, terms, master.p, fill=0.0), offset=sol.offset,
        objective=best.J, terms=terms, smo_iterations=master.smo_iterations, coef=master.family.coef(sol),
        extras=dict(sol.extras), outputs=sol.Ku, **stats,
    )  # fmt: skip


def hyperkernel_csvm_native(
    basis: HyperkernelBasis,
    y: Array,
    *,
    C: float = 100.0,
    lambda_Q: float = 1.0,
    sample_weight: Array | None = None,
    **options: Any,
) -> NativeMasterResult:
    """The hyperkernel C-SVM (002 eq. 3.8, SOCP form) by constraint generation with a native master.

    Same problem and same parameters as
    :func:`~sdpkern.builders.hyperkernel.csvm_active_set` (``C`` is scikit-learn's, the dual box
    0 ≤ α ≤ C; eq. (3.8)'s C' is C·m, docs/conventions.md); the restricted problems are solved
    natively (:func:`solve_master`, with the SVM dual by the compiled SMO), the result certified
    by the relative gap J(β) − g(α) ≤ ``tol``·max(1, abs(J(β))).

    Parameters
    ----------
    basis : HyperkernelBasis
        The expansion terms (e.g. :func:`~sdpkern.kernels.hyperkernel_terms.sampled_basis`).
    y : array (m,)
        Labels ±1.
    C, sample_weight : float, array (m,) of floats ≥ 0 or None
        scikit-learn's C: the dual box 0 ≤ α ≤ C (002 eq. (3.8)'s C'/m); 0 ≤ α_i ≤ C·w_i with weights w.
    lambda_Q : float
        λ_Q of 002 eq. (3.8).
    **options
        :func:`solve_master`'s options (``tol``, ``initial_terms``, ``smo_tol`` in margin units,
        ``time_limit``, ``newton_points``, …).

    Returns
    -------
    NativeMasterResult
        ``alpha`` the SVM dual (0 ≤ α ≤ C, yᵀα = 0), ``coef`` = y∘α.
    """
    check_positive(C, "C")
    ya = _check_labels(y, basis.X.shape[0])
    family = _CSVCFamily(y=ya, box=_box(C, sample_weight, basis.X.shape[0]))
    return solve_master(basis, family, lambda_Q=lambda_Q, **options)


def _box(C: float, sample_weight: Array | None, m: int) -> float | Array:
    """The dual box: C, or C·w_i per point with sample weights (docs/conventions.md, as
    :func:`~sdpkern.builders.hyperkernel.csvm`)."""
    w = as_sample_weight(sample_weight, m)
    return float(C) if w is None else float(C) * w


@dataclass
class _Cut:
    """D(β') ≥ a − qᵀβ' from a feasible α (q = c·½uᵀK_l u over all terms, NaN where not computed),
    with the K_l u of the terms ``over`` on every point where the inner solve's pass gave them."""

    a: float
    q: Array
    alpha: Array
    products: Array | None = None
    over: NDArray[np.intp] | None = None


def _aggregate_products(lam: Array, cuts: list[_Cut], terms: NDArray[np.intp]) -> Array | None:
    """Σ_k λ_k K_l u_k on every point for ``terms``: K_l u(ᾱ) (u is linear), where every cut of
    positive weight holds its products over these terms; None otherwise."""
    used = [(w, c) for w, c in zip(lam, cuts) if w != 0.0]
    if not used or any(c.products is None or c.over is None or not np.array_equal(c.over, terms) for _, c in used):
        return None
    return np.sum([w * c.products for w, c in used], axis=0)


def _full(v: Array, terms: NDArray[np.intp], p: int, fill: float = np.nan) -> Array:
    out = np.full(p, fill)
    out[terms] = v
    return out


def _interpolated(a: _Point, b: _Point, Ls: Array, reg: _Regulariser) -> Array | None:
    """β on the Newton step a → b where the cubic through J and its slopes at a and b is least, if
    the step went past J's minimum on its line; else None.

    Along the step, φ(t) = J(a + t(b − a)) has the slopes φ'(t) = (∇R − q)ᵀ(b − a) at the ends (−q is
    D's gradient at an exact maximiser, by Danskin's theorem). The step overshoots where φ'(0) < 0 <
    φ'(1) and it fails the strong Wolfe conditions (Nocedal & Wright, *Numerical Optimization*,
    2nd ed., §3.1, c₁ = 10⁻⁴ and c₂ = 0.9 for Newton's method): φ(1) > φ(0) + c₁φ'(0), or
    φ'(1) > c₂|φ'(0)|. The next trial point is then their line search's interpolation step
    (Algorithm 3.6 with eq. 3.59): the minimiser in (0, 1) of the cubic through φ and φ' at both
    ends, a convex combination of a and b, hence on the simplex. D behaves like 1/β_l near a face
    β_l = 0, which a quadratic model does not see: from uniform weights a Newton step can set a
    term's weight to 0 that the minimum keeps (docs/hyperkernel.md, "A Newton step that overshoots").
    """
    if not (a.inner.exact and b.inner.exact):
        return None  # a stopped solve's J is a bound and its slopes are not D's gradient
    d = b.beta - a.beta
    s0 = float((reg.grad(a.beta, Ls) - a.q) @ d)
    s1 = float((reg.grad(b.beta, Ls) - b.q) @ d)
    if not (s0 < 0.0 < s1) or (b.J <= a.J + 1e-4 * s0 and s1 <= 0.9 * -s0):
        return None
    d1 = s0 + s1 - 3.0 * (b.J - a.J)
    d2 = float(np.sqrt(d1 * d1 - s0 * s1))  # s0·s1 < 0: the root is real
    t = 1.0 - (s1 + d2 - d1) / (s1 - s0 + 2.0 * d2)
    return a.beta + t * d if 0.0 < t < 1.0 else None


def _restricted(
    master: _Master,
    terms: NDArray[np.intp],
    best: _Point,
    cuts: list[_Cut],
    steps: int,
    limits: tuple[float, int, float, float | None],
    bar: Any,
) -> tuple[_Point, int, str | None, Array, Array | None]:
    """Level bundle on min_{β' ∈ Δ_S} J(β') until the model gap is below ``limits[0]`` (relative).

    ``best`` is the best point (β' over S); cuts lacking a term of S are not used; new cuts are
    appended. ``limits`` is (tol, max_steps, t0, time_limit). Returns the best point, the step
    count, a stop status or None, the aggregate ᾱ = Σ_k λ_k α_k of the model's multipliers λ
    (the bundle method's dual estimate) and its K_l u(ᾱ) on every point where the cuts hold theirs.
    """
    tol, max_steps, t0, time_limit = limits
    reg, Ls = master.reg, master.B.L[terms]
    H: Array | None = None  # D's Hessian at ``best`` (computed when a Newton step is due)
    tried: _Point | None = None  # the best point the last Newton step started from
    back: Array | None = None  # after a Newton step that went past J's minimum on its line: the cubic's minimiser
    misses = 0  # fractional-model steps in a row that did not lower J
    while True:
        usable = [c for c in cuts if not np.any(np.isnan(c.q[terms]))]
        if len(usable) > 60:  # bundle compression: keep the cuts the model used and the newest
            _, _, lam0 = _model_min(
                np.array([c.a for c in usable]), np.array([c.q[terms] for c in usable]), Ls, reg
            )
            keep = set(np.flatnonzero(lam0 > 1e-10).tolist()) | set(range(len(usable) - 10, len(usable)))
            drop = {id(usable[i]) for i in range(len(usable)) if i not in keep}
            cuts[:] = [c for c in cuts if id(c) not in drop]
            usable = [usable[i] for i in sorted(keep)]
        a_vec = np.array([c.a for c in usable])
        Q = np.array([c.q[terms] for c in usable])
        lb, beta_lb, lam = _model_min(a_vec, Q, Ls, reg)
        agg = np.sum([w * c.alpha for w, c in zip(lam, usable)], axis=0)
        agg_products = _aggregate_products(lam, usable, terms)
        J = best.J
        scale = max(1.0, abs(J))
        if J - lb <= tol * scale:
            return best, steps, None, agg, agg_products
        if steps >= max_steps:
            return best, steps, "iteration_limit", agg, agg_products
        if time_limit is not None and time.perf_counter() - t0 > time_limit:
            return best, steps, "time_limit", agg, agg_products
        # the cubic's minimiser first, where the last step overshot
        nb, back, newton, modelled = back, None, False, False
        if nb is None and master.model is not None and misses < 2 and terms.size > 1:
            # each trial adds its maximiser to the model, so a step from the same best point is new
            nb = master.model_step(terms, best)
            if nb is not None and float(np.abs(nb - best.beta).max()) <= 1e-12:
                nb = None
            modelled = nb is not None
        if nb is None and tried is not best and terms.size > 1:  # from a point once (it determines the step)
            tried = best
            H = master.hessian(terms, best) if H is None else H
            nb = None if H is None else _newton_step(best.q, best.beta, H, Ls, reg)
            if nb is not None and float(np.abs(nb - best.beta).max()) <= 1e-12:
                nb = None  # the model's minimiser is the best point: the lower bound must move
            newton = nb is not None
        if nb is None:
            nb = _level_step(a_vec, Q, Ls, reg, best.beta, lb + 0.3 * (J - lb))
        nb = beta_lb / beta_lb.sum() if nb is None else nb
        master.opts["objective_scale"] = scale  # the inner solve's accuracy is relative to it
        # a family whose inner solve can stop once its dual value shows J(nb) ≥ J (the C-SVM's SMO)
        # does: such a point cannot be the best, and the stopped maximiser's cut is still valid; a
        # failed Newton step's point, where most points become support vectors, is the costly case
        # (docs/hyperkernel.md, "A trial point the C-SVM's SMO gives up on")
        master.opts["dual_level"] = J - reg.value(nb, Ls) + 1e-9 * scale
        point = master.inner(terms, nb, best.inner.alpha)
        master.opts["dual_level"] = None
        steps += 1
        bar.update(1)
        bar.set_postfix(J=f"{J:.6g}", model_gap=f"{(J - lb) / scale:.1e}", terms=terms.size)
        cut = _Cut(point.inner.constant, _full(point.q, terms, master.p), point.inner.alpha, point.products, terms)
        cuts.append(cut)
        if newton:
            back = _interpolated(best, point, Ls, reg)
        if point.J < J:
            best, H, misses = point, None, 0
        elif modelled:
            misses += 1


@dataclass(frozen=True)
class NativeDecision:
    """f(x) = Σ_j c_j k(x, x_j) − b with k = Σ_l β_l k̲(φ_l, ·) (002 eq. 2.15), by blocks.

    Only the support vectors (c_j ≠ 0) and the active terms (β_l > 0) are evaluated, over
    blocks of new points of bounded memory. Picklable (not a closure).
    """

    basis: HyperkernelBasis
    beta: Array
    coef: Array
    offset: float

    def __call__(self, X_new: Any) -> Array:
        """Decision values on the rows of ``X_new``."""
        Xn = as_matrix(X_new, "X")
        X = self.basis.X
        if Xn.shape[1] != X.shape[1]:
            raise DataError(f"X has {Xn.shape[1]} features but the model was trained on {X.shape[1]}")
        sv, act = np.flatnonzero(self.coef), np.flatnonzero(self.beta)
        out = np.zeros(Xn.shape[0])
        if sv.size and act.size:
            feats, Xs = self.basis.features[act], X[sv]
            step = max(1, (1 << 22) // max(1, sv.size * X.shape[1] * act.size))
            for lo in range(0, Xn.shape[0], step):
                blk = learned_block(self.basis.hyperkernel, feats, self.beta[act], Xn[lo : lo + step], Xs)
                out[lo : lo + step] = blk @ self.coef[sv]
        return out - self.offset


def available_memory() -> int | None:
    """Bytes of memory available now (Linux ``MemAvailable``), else the physical memory, else None."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_PHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - non-POSIX
        return None


def column_cache_bytes(
    m: int, cache_bytes: int | None = None, *, dense: bool = False, working_set: int = WORKING_SET
) -> int:
    """The native master's column-cache budget on m points: ``cache_bytes`` where given; else
    enough for all m columns of K(β) at 7/8 of it (64m²/7 bytes: 3.66 GB at m = 20,000), and at
    least :data:`~sdpkern.kernels.gram.DEFAULT_CACHE_BYTES` (1 GiB, which holds them up to about
    10,800 points).

    An SVM family's inner solve cycles through its support's columns, and a cache that holds
    fewer than those thrashes: a ν-regression whose points are all support vectors recomputes
    columns over and over (docs/hyperkernel.md, "The ν-regression at 20,000 points", has the
    figures). Where no inner solve reads K(β) by columns (``dense``:
    the alignment's factorisation) or above ``working_set`` points (the working sets' SMO has a
    cache of its own) the budget stays 1 GiB. It depends on m alone, not on the memory free at
    the time, because it changes the round-off (columns summed from cached or fresh term columns):
    a fit stays a function of its parameters and data.
    """
    if cache_bytes is not None:
        return int(cache_bytes)
    if dense or m > working_set:
        return DEFAULT_CACHE_BYTES
    return max(DEFAULT_CACHE_BYTES, -(-64 * m * m // 7))


def estimate_fit_bytes(
    m: int, d: int, *, solver: str, max_terms: int, max_pairs: int, cache_bytes: int,
    working_set: int = WORKING_SET, working_set_cache_bytes: int = WORKING_SET_CACHE_BYTES,
    dense: bool = False, newton_points: int = NEWTON_POINTS,
) -> int:  # fmt: skip
    """Estimated peak memory of a hyperkernel fit on m points in d dimensions.

    ``"native"``: the column caches (at most ``cache_bytes``, and no more than all columns of
    the terms and of K(β); above ``working_set`` points the working-set SMO's cache,
    ``working_set_cache_bytes``, and blocks of 2²⁴ entries instead) or, where larger, the terms'
    caches (half of ``cache_bytes`` at most) with the Newton step's matrix over at most
    ``newton_points`` free variables (K(β)'s and the working sets' caches are released
    before it), the sampled basis
    (``max_pairs`` candidates × (d + max_terms)) and O(m·d) work arrays; with ``dense`` (the
    alignment's inner solve) two m×m matrices (K(β) + εI, factorised in place, and for a
    hyperkernel other than a dictionary the block it is summed from) and the dense term matrices
    it may keep (at most half of ``cache_bytes``) instead of the caches. ``"conic"``:
    the m(m+1)/2 pair candidates of the m² basis with their Cholesky columns, the (p, m, m) stack
    of base kernels and the SOCP's m×m factor.
    """
    if solver == "native":
        if dense:  # K(β) + εI, its factor, and the term matrices kept within half the cache budget
            cols = 2 * 8 * m * m + min(cache_bytes // 2, 8 * m * m * (max_terms + 1))
        elif m > working_set:
            w = working_set + working_set // 4
            cols = min(working_set_cache_bytes, 8 * w * w) + 2 * 8 * (1 << 24)
        else:
            cols = min(cache_bytes, 8 * m * m * (max_terms + 1))
        if not dense:  # the Newton step's bordered matrix, once K(β)'s cache is released: the terms' half
            cols = max(cols, min(cols, cache_bytes // 2) + 8 * min(m, newton_points) ** 2)
        return int(cols + 8 * max_pairs * (d + max_terms + 4) + 64 * m * (d + 8) + (1 << 26))
    pairs = m * (m + 1) // 2
    return int(8 * pairs * (d + 2 * min(max_terms, 64)) + 8 * m * m * (max_terms + 4) + (1 << 26))


def _certify(
    master: _Master, terms: NDArray[np.intp], beta: Array, agg: Array, lower: float, cuts: list[_Cut], margin: float,
    products: Array | None = None,
) -> tuple[float, Array, Array]:  # fmt: skip
    """The certificate at the bundle's aggregate ᾱ: g(ᾱ) ≤ V* (module docstring).

    Returns the raised lower bound, β' over the whole basis, and each omitted term's reduced
    gradient (−inf for the kept terms); the new cut is appended to ``cuts``. ``q`` holds upper
    bounds where :func:`_certificate_quadratics` proved a term's entry below −``margin``; with
    q̄ ≥ q the bound g stays a lower bound and those entries upper bounds. ``products``: the kept
    terms' K_l u(ᾱ) on every point, where the cuts held theirs (no pass for those terms).
    """
    basis, p, family = master.B, master.p, master.family
    beta_full = _full(beta, terms, p, fill=0.0)
    a = family.constant(agg)
    u = family.vector(agg)
    known = None if products is None else master.c * 0.5 * (u @ products)
    q_all, exact = _certificate_quadratics(master, terms, beta_full, u, margin, known)
    lower = max(lower, a + _simplex_min(q_all, basis.L, master.reg))
    cuts.append(_Cut(a, np.where(exact, q_all, np.nan), agg, products, terms))
    omitted = _reduced_gradients(q_all, basis.L, beta_full, master.reg)
    omitted[terms] = -np.inf
    return lower, beta_full, omitted


def _certificate_quadratics(
    master: _Master, terms: NDArray[np.intp], beta_full: Array, u: Array, margin: float, known: Array | None = None
) -> tuple[Array, NDArray[np.bool_]]:
    """c·½uᵀK_l u over the whole basis: exact on the kept terms and on every term whose reduced
    gradient may exceed −``margin``, upper bounds elsewhere; and which entries are exact.

    The bounds (:func:`~sdpkern.kernels.hyperkernel_terms.quadratic_bounds`, d + 1 anchor
    quadratics instead of p) decide most terms: a term's entry grows with q_l alone (the rest
    depends on the kept terms only), so a bound that puts it below −``margin`` proves it; the
    others are computed. The largest entry is then exact whenever it is ≥ −margin, and it is
    ≥ 0 (the kept terms' entries average to 0 under β). ``known``: the kept terms' entries,
    already computed.
    """
    B, n_jobs, c = master.B, master.opts["n_jobs"], master.c
    if known is not None and terms.size == master.p:  # every term kept: nothing to bound
        every = np.empty(master.p)
        every[terms] = known
        return every, np.ones(master.p, dtype=bool)
    q = quadratic_bounds(B.hyperkernel, B.features, B.X, u, n_jobs=n_jobs)
    if q is None:
        return c * term_quadratics(B.hyperkernel, B.features, B.X, u, n_jobs=n_jobs), np.ones(master.p, dtype=bool)
    q = c * q
    exact = np.zeros(master.p, dtype=bool)
    exact[terms] = True
    q[terms] = c * term_quadratics(B.hyperkernel, B.features[terms], B.X, u, n_jobs=n_jobs) if known is None else known
    viol = _reduced_gradients(q, B.L, beta_full, master.reg)
    need = np.flatnonzero((viol > -margin) & ~exact)
    if need.size:
        q[need] = c * term_quadratics(B.hyperkernel, B.features[need], B.X, u, n_jobs=n_jobs)
        exact[need] = True
    return q, exact


def _check_labels(y: Array, m: int) -> Array:
    """y as contiguous float ±1 labels of both classes, one per training point."""
    ya = np.ascontiguousarray(y, dtype=np.float64)
    if ya.shape != (m,) or not np.all(np.isin(ya, (-1.0, 1.0))) or np.unique(ya).size < 2:
        raise DataError(f"y must hold ±1 labels of both classes, one per training point ({m})")
    return ya


def _master_options(
    basis: HyperkernelBasis, initial_terms: int, cache_bytes: int, smo_tol: float, smo_max_iter: int, n_jobs: int
) -> dict[str, Any]:
    """The master's settings: the cache budget split between the terms' and K(β)'s column caches.

    K(β)'s cache gets half the budget, or up to 7/8 of it what all m columns need: an inner
    solve cycles through the support's columns, and a cache that holds fewer thrashes (L2-SVM,
    10,000 points of which 7448 free support vectors, 596 MB of columns: 580 s with half of
    1 GiB, 322 s with 7/8), while the terms' caches, which spare the passes of the next β, hold
    a few hundred columns each at that size either way.
    """
    m, p = basis.X.shape[0], basis.size
    sum_bytes = max(cache_bytes // 2, min(7 * cache_bytes // 8, 8 * m * m))
    return {
        "term_cache_bytes": max(8 * m, (cache_bytes - sum_bytes) // min(p, 4 * initial_terms + 8)),
        "sum_cache_bytes": max(8 * m, sum_bytes),
        "smo_tol": check_positive(smo_tol, "smo_tol"),
        "smo_max_iter": check_integer(smo_max_iter, "smo_max_iter", 1),
        "n_jobs": check_integer(n_jobs, "n_jobs", 1),
        "objective_scale": 1.0,  # max(1, abs(J)) of the best point so far (set by the bundle)
    }

